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
#include "core/units.h"

G_BEGIN_DECLS

typedef struct {
  char *id;          /* catalogue id, e.g. "V100-SXM2-16GB" */
  char *full_name;   /* "NVIDIA Tesla V100 SXM2 16 GB" */
  char *arch;        /* "Volta" */
  char *chip;        /* "GV100"; NULL where the catalogue names none */
  double peak_flops[DTS_PREC_COUNT]; /* FLOP/s (dense, no sparsity); 0 = unsupported */
  double mem_bw_Bps;  /* device memory bandwidth */
  double mem_bytes;   /* device memory size */
  int sm_count;
  /* The share of the die's tensor-core rate at which the card runs tensor
   * math with FP32 accumulate, which the tf32, fp16 and bf16 rates above
   * are: 0.5 on GeForce cards (catalogue attribute `acc32-share`); 0 (not
   * set) or 1 for the full rate. */
  double acc32_share;
  char *source;       /* where the numbers come from (datasheet title, URL) */
} DtsGpuSpec;

/* Deep copy / release of the strings inside a spec held by value. */
void dts_gpu_spec_copy (DtsGpuSpec *dst, const DtsGpuSpec *src);
void dts_gpu_spec_clear (DtsGpuSpec *spec);

/* Best FLOP/s for precision P: falls back to fp32 where P is unsupported
 * (tf32 on pre-Ampere runs as fp32). Returns the precision actually used in *USED
 * when USED is non-NULL. */
double dts_gpu_spec_flops (const DtsGpuSpec *spec, DtsPrecision p, DtsPrecision *used);

/* The die's rate for precision P: dts_gpu_spec_flops, divided by the
 * card's acc32_share where P runs on tensor cores (tf32, fp16, bf16 with a
 * rate of their own). The roofline's compute ceiling: on GeForce cards
 * the kernels train as fast per SM and clock as on the professional card
 * of the same die (doc/COST-MODELS.md), not at the halved FP32-accumulate
 * rate. */
double dts_gpu_spec_die_flops (const DtsGpuSpec *spec, DtsPrecision p);

/* The architecture whose constants stand in for ARCH's where nothing was
 * measured on ARCH: the nearest family of NVIDIA's data-centre line
 * (Blackwell -> Hopper), for the cost models' per-architecture constants and
 * the framework profiles' per-architecture efficiencies. NULL when ARCH has
 * no stand-in: its own constants, or the tables' long-standing default rules
 * (doc/COST-MODELS.md, "GPUs without measurements"). Static string. */
const char *dts_gpu_arch_stand_in (const char *arch);

/* The fields of a spec that numbers set, in one table shared by the
 * catalogue (attribute ATTR of <gpu>), platform files (host property
 * PROPERTY, which overrides the catalogue) and what-if overrides
 * (`--set gpu:GLOB.PROPERTY=VALUE`). Values are parsed as UNIT (SI inside);
 * sm_count is a plain integer. With ZERO_OK, 0 means "unsupported" (tf32,
 * fp16, bf16 run at the fp32 rate); other fields must be positive. */
typedef struct {
  const char *attr;      /* catalogue attribute: "fp32", "mem-bw", "sm" */
  const char *property;  /* platform property: "flops_fp32", "mem_bw", "sm_count" */
  DtsUnitKind unit;
  gboolean zero_ok;
  gboolean is_int;
  gboolean optional; /* the catalogue may omit it: 0 (fp8, which only Hopper and newer have) */
} DtsGpuField;

/* The table, terminated by a row with attr NULL. */
const DtsGpuField *dts_gpu_fields (void);
/* Row whose property is NAME, or NULL. */
const DtsGpuField *dts_gpu_field_by_property (const char *name);
/* "flops_fp32, flops_tf32, ..." (static). */
const char *dts_gpu_field_properties (void);
double dts_gpu_spec_get_field (const DtsGpuSpec *spec, const DtsGpuField *field);
void dts_gpu_spec_set_field (DtsGpuSpec *spec, const DtsGpuField *field, double value);
/* Parse TEXT for FIELD (unit, integer, sign checks) into *OUT; on failure a
 * DTS_ERROR_PARSE or DTS_ERROR_INVALID error that quotes TEXT, without
 * file or line (the caller prefixes them). */
gboolean dts_gpu_field_parse (const DtsGpuField *field, const char *text, double *out,
                              GError **error);

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
