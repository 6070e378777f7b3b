/* cost-private.h - the rows of the cost-model table, one per model file. */
#ifndef DTS_COST_PRIVATE_H
#define DTS_COST_PRIVATE_H

#include "cost/cost.h"

extern const DtsCostModelClass dts_cost_roofline_class;
extern const DtsCostModelClass dts_cost_mlp_class;
extern const DtsCostModelClass dts_cost_roofline_gemm_class;

#endif
