/* error.c - the DTS_ERROR domain. */
#include "core/error.h"

G_DEFINE_QUARK (dts-error-quark, dts_error)
