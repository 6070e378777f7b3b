/* driver.h - one training simulation from options to summary: load and
 * validate the inputs, plan, simulate, summarize (doc/DESIGN.md, "What a run
 * is"). The layer between the simulator (src/sim) and the commands
 * (src/cli): it knows every layer below it and no SimGrid. */
#ifndef DTS_DRIVER_DRIVER_H
#define DTS_DRIVER_DRIVER_H

#include <glib.h>
#include "schedule/options.h"
#include "trace/trace.h"

G_BEGIN_DECLS

/* Load opts->platform_path and opts->workload_path, build the schedule of
 * opts->strategy and simulate it (see run.c for the defaults of options
 * left at 0). Returns the summary; with TRACE non-NULL also hands over the
 * trace. With opts->dump_plan set, writes the plan there and returns NULL
 * with no error instead. SimGrid runs once per process, so this function
 * can too. */
DtsRunSummary *dts_driver_run_training (const DtsRunOptions *opts, DtsTrace **trace,
                                        GError **error);

G_END_DECLS

#endif
