/* bare-ring.c - the baseline of `bench/ring-cost.sh`: a ring all-reduce
 * written directly against SimGrid's C API, with the activities dtsim's
 * step granularity starts and nothing else (no plans, no programs, no
 * trace): N actors, 2(N-1) steps of R rounds; per round each actor starts
 * the reduction kernel (reduce-scatter steps), posts C sends to its
 * successor and C receives, and waits for all of them.
 *
 *   bare-ring PLATFORM N BYTES [CHANNELS [CHUNK_BYTES]]
 *
 * Prints the simulated time, the transfers and the wall time per transfer.
 * The platform is one of bench/gen-flat.sh's (hosts gpu0..gpuN-1, 15.7
 * Tflop/s, V100 memory bandwidth 900 GB/s for the reduction). Not a test:
 * a measuring instrument for the interpreter's overhead. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

static int n, channels = 2, rounds;
static double seg, chunk = 2097152, flops_per_byte;
static sg_mailbox_t *inbox;
static int payload;

static void
rank_actor (int argc, char **argv)
{
  int me = atoi (argv[1]);
  sg_mailbox_t to = inbox[(me + 1) % n];
  sg_comm_t comms[128];
  void *slot;
  for (int s = 0; s < 2 * (n - 1); s++)
    for (int r = 0; r < rounds; r++) {
      double b = r < rounds - 1 ? chunk : seg - (rounds - 1) * chunk;
      sg_exec_t red = s < n - 1 ? sg_actor_exec_async (b * channels * flops_per_byte) : NULL;
      for (int c = 0; c < channels; c++)
        comms[c] = sg_mailbox_put_async (to, &payload, (long) llround (b));
      for (int c = 0; c < channels; c++)
        comms[channels + c] = sg_mailbox_get_async (inbox[me], &slot);
      sg_comm_wait_all (comms, 2 * channels);
      if (red != NULL)
        sg_exec_wait (red);
    }
}

int
main (int argc, char **argv)
{
  if (argc < 4) {
    fprintf (stderr, "usage: bare-ring PLATFORM N BYTES [CHANNELS [CHUNK_BYTES]]\n");
    return 2;
  }
  static char a0[] = "bare-ring", a1[] = "--cfg=network/model:CM02",
              a2[] = "--cfg=network/crosstraffic:0", a3[] = "--cfg=network/TCP-gamma:0",
              a4[] = "--cfg=contexts/guard-size:0", a5[] = "--log=root.thres:critical";
  char *cfg[] = { a0, a1, a2, a3, a4, a5, NULL };
  int cargc = 6;
  simgrid_init (&cargc, cfg);
  simgrid_load_platform (argv[1]);
  n = atoi (argv[2]);
  double bytes = atof (argv[3]);
  if (argc > 4)
    channels = atoi (argv[4]);
  if (argc > 5)
    chunk = atof (argv[5]);
  seg = bytes / ((double) n * channels);
  rounds = (int) ceil (seg / chunk * (1 - 1e-12));
  if (rounds < 1)
    rounds = 1;
  inbox = calloc (n, sizeof *inbox);
  char name[64];
  for (int r = 0; r < n; r++) {
    snprintf (name, sizeof name, "ring-%d", r);
    inbox[r] = sg_mailbox_by_name (name);
  }
  for (int r = 0; r < n; r++) {
    snprintf (name, sizeof name, "gpu%d", r);
    sg_host_t h = sg_host_by_name (name);
    if (h == NULL) {
      fprintf (stderr, "bare-ring: no host '%s'\n", name);
      return 1;
    }
    flops_per_byte = sg_host_get_speed (h) * 3.0 / 900e9;
    char rank[16];
    snprintf (rank, sizeof rank, "%d", r);
    const char *args[] = { "rank", rank };
    sg_actor_create ("rank", h, rank_actor, 2, (char **) args);
  }
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  simgrid_run ();
  clock_gettime (CLOCK_MONOTONIC, &t1);
  double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  double transfers = 2.0 * (n - 1) * rounds * channels * n;
  printf ("simulated %.9f s, %.0f transfers, wall %.3f s, %.3f us per transfer\n",
          simgrid_get_clock (), transfers, wall, wall / transfers * 1e6);
  return 0;
}
