/* sim-private.h - what the simulators of src/sim (training runs in sim.c,
 * a collective alone in allreduce-run.c) share. */
#ifndef DTS_SIM_PRIVATE_H
#define DTS_SIM_PRIVATE_H

#include <glib.h>
#include <simgrid/forward.h>

#include "platform/platform.h"

G_BEGIN_DECLS

/* Device-memory bytes the reduction kernel moves per reduced byte: it reads
 * two operands and writes one. */
#define DTS_SIM_REDUCE_BYTES_PER_BYTE 3.0

/* The SimGrid host of RANK's GPU, checked for what the simulators need of
 * it: the host exists, has a positive speed (kernel times become work with
 * it; SPEED_USE says what for, in the error) and its GPU a positive memory
 * bandwidth (the reduction kernel). Sets *HOST, *SPEED_FLOPS and
 * *REDUCE_S_PER_BYTE, or DTS_ERROR_INVALID with the platform file and line. */
gboolean dts_sim_rank_host (const DtsPlatform *platform, int rank, const char *speed_use,
                            sg_host_t *host, double *speed_flops, double *reduce_s_per_byte,
                            GError **error);

/* One ring step of one rank: post a send of BYTES to TO and a receive from
 * INBOX per channel, wait for all of them and for REDUCTION (may be NULL,
 * the reduction kernel running alongside). PAYLOAD is any non-NULL pointer
 * (SimGrid refuses NULL payloads). Returns the transfers it started, for the
 * event count. */
int dts_sim_exchange (sg_mailbox_t inbox, sg_mailbox_t to, void *payload, long bytes,
                      int channels, sg_exec_t reduction);

G_END_DECLS

#endif
