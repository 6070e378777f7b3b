/* allreduce.c - one MPI_Allreduce of SIZE bytes of floats (argv[1]), timed
 * between a barrier and its end on the slowest rank, printed in seconds by
 * rank 0. Built with smpicc and run by smpirun on a dtsim platform file
 * (tests/smpi/check-smpi.sh) to cross-check dtsim's collectives against
 * SimGrid's MPI implementation. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main (int argc, char **argv)
{
  MPI_Init (&argc, &argv);
  long bytes = argc > 1 ? atol (argv[1]) : 64 << 20;
  int rank;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  long n = bytes / 4;
  float *in = calloc (n, 4), *out = calloc (n, 4);
  MPI_Barrier (MPI_COMM_WORLD);
  double t0 = MPI_Wtime ();
  MPI_Allreduce (in, out, (int) n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double t = MPI_Wtime () - t0, tmax;
  MPI_Reduce (&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf ("%.9f\n", tmax);
  free (in); free (out);
  MPI_Finalize ();
  return 0;
}
