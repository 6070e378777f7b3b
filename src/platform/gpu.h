/* gpu.h - GPU device specifications and the GPU catalogue.
 *
 * The catalogue (platforms/gpus.xml in the data directory) is the one place
 * where device numbers live: peak FLOP/s per precision, memory bandwidth and
 * size, SM count, each entry with its vendor source. Platform files name an
 * entry by id through the host property `gpu` and may override fields. */
#ifndef DTS_PLATFORM_GPU_H
#define DTS_PLATFORM_GPU_H

#include <glib.h>
#include "core/precision.h"

G_BEGIN_DECLS

typedef struct {
  char *id;          /* catalogue id, e.g. "V100-SXM2-16GB" */
  char *full_name;   /* "NVIDIA Tesla V100 SXM2 16 GB" */
  char *arch;        /* "Volta" */
  double peak_flops[DTS_PREC_COUNT]; /* FLOP/s (dense, no sparsity); 0 = unsupported */
  double mem_bw_Bps;  /* device memory bandwidth */
  double mem_bytes;   /* device memory size */
  int sm_count;
  char *source;       /* where the numbers come from (datasheet title, URL) */
} DtsGpuSpec;

/* Deep copy / release of the strings inside a spec held by value. */
void dts_gpu_spec_copy (DtsGpuSpec *dst, const DtsGpuSpec *src);
void dts_gpu_spec_clear (DtsGpuSpec *spec);

/* Best FLOP/s for precision P: falls back to fp32 where P is unsupported
 * (tf32 on pre-Ampere runs as fp32). Returns the precision actually used in *USED
 * when USED is non-NULL. */
double dts_gpu_spec_flops (const DtsGpuSpec *spec, DtsPrecision p, DtsPrecision *used);

typedef struct _DtsGpuCatalog DtsGpuCatalog;

/* Load a catalogue file; PATH NULL means the shipped platforms/gpus.xml. */
DtsGpuCatalog *dts_gpu_catalog_load (const char *path, GError **error);
void dts_gpu_catalog_free (DtsGpuCatalog *cat);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsGpuCatalog, dts_gpu_catalog_free)

/* Lookup by id, case-insensitive; NULL if absent (lent). */
const DtsGpuSpec *dts_gpu_catalog_lookup (const DtsGpuCatalog *cat, const char *id);
/* Same, but sets DTS_ERROR_INVALID "unknown GPU 'X' (known: ...)". */
const DtsGpuSpec *dts_gpu_catalog_get (const DtsGpuCatalog *cat, const char *id, GError **error);
guint dts_gpu_catalog_size (const DtsGpuCatalog *cat);
const DtsGpuSpec *dts_gpu_catalog_index (const DtsGpuCatalog *cat, guint i); /* file order */

G_END_DECLS

#endif
