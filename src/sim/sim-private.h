/* sim-private.h - what the simulators of src/sim (the interpreter in sim.c,
 * its front ends run.c and allreduce-run.c) share. */
#ifndef DTS_SIM_PRIVATE_H
#define DTS_SIM_PRIVATE_H

#include <glib.h>
#include <simgrid/forward.h>

#include "collective/collective.h"
#include "platform/platform.h"

G_BEGIN_DECLS

/* Device-memory bytes the reduction kernel moves per reduced byte: it reads
 * two operands and writes one. */
#define DTS_SIM_REDUCE_BYTES_PER_BYTE DTS_COLL_REDUCE_TRAFFIC_PER_BYTE

/* Hash of a guint64 key made of two 32-bit halves (rank x 2^32 + tag,
 * from x 2^32 + to), for GHashTable. g_int64_hash folds the halves with an
 * exclusive or, under which the pairs (r, r + 1) of a ring all fall on a
 * few values and GLib's probing grows quadratically with the collisions;
 * this mixes the bits (the finaliser of splitmix64). */
static inline guint
dts_sim_pair_hash (gconstpointer key)
{
  guint64 z = *(const guint64 *) key;
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return (guint) (z ^ (z >> 31));
}

/* Values kept per pair of ranks, looked up from the first: a rank of a
 * collective sends to a few peers (a ring's next, a tree's parent and
 * children), found by a scan of its own list; past 16 of them (halving and
 * doubling, all-to-all) by a table. One table keyed by the pair was about
 * a quarter of the tuner's weighing over 16,384 ranks (7% of the run,
 * `perf record`). Zeroed: empty. */
typedef struct {
  GArray *peers;           /* (peer, value), in the order added; NULL: none yet */
  GHashTable *index;       /* peer -> 1 + its place in peers, past 16 of them */
} DtsSimPeers;

gpointer dts_sim_peers_find (const DtsSimPeers *p, int peer); /* NULL: none */
void dts_sim_peers_add (DtsSimPeers *p, int peer, gpointer value);
void dts_sim_peers_clear (DtsSimPeers *p, GDestroyNotify free_value);

/* The SimGrid host of RANK's GPU, checked for what the simulators need of
 * it: the host exists, has a positive speed (kernel times become work with
 * it; SPEED_USE says what for, in the error) and its GPU a positive memory
 * bandwidth (the reduction kernel). Sets *HOST, *SPEED_FLOPS and
 * *REDUCE_S_PER_BYTE, or DTS_ERROR_INVALID with the platform file and line. */
gboolean dts_sim_rank_host (const DtsPlatform *platform, int rank, const char *speed_use,
                            sg_host_t *host, double *speed_flops, double *reduce_s_per_byte,
                            GError **error);

/* Whether N_ACTORS actor stacks, one memory mapping each, fit under the
 * kernel's mapping limit read from LIMIT_PATH (/proc/sys/vm/max_map_count)
 * with the mappings the process has already; DTS_ERROR_INVALID saying how
 * to raise it otherwise. An unreadable LIMIT_PATH passes. */
gboolean dts_sim_check_map_count (guint n_actors, const char *limit_path, GError **error);

/* Whether N_ACTORS actor stacks of STACK_KIB KiB each fit, with the
 * address space the process has already (/proc/self/statm) and room for
 * the simulation, under its address-space limit (RLIMIT_AS: ulimit -v, as
 * batch systems set it); DTS_ERROR_INVALID with the numbers and the stack
 * size that would fit (--cfg contexts/stack-size:KIB) otherwise, instead of
 * SimGrid's abort when a stack cannot be allocated. No limit passes. */
gboolean dts_sim_check_address_space (guint n_actors, long stack_kib, GError **error);

/* sg_host_by_name (NAME) through a hash table (hosts.c says why). */
sg_host_t dts_sim_host_by_name (const char *name);

G_END_DECLS

#endif
