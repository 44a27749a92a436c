/*
 * mpi_pingpong.c - the loop `bench/mpi_overhead.sh` times with and without libretrace-mpi:
 * ranks 0 and 1 bounce an 8-byte message N times (argv[1], default 10^6); on one rank, the
 * rank sends to itself and receives it (no other process competes for the cores, so the
 * library's own cost shows). Rank 0 prints "N round trips in T s".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    double x = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (size == 1)
        for (long i = 0; i < n; i++) {
            MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    else if (rank < 2)
        for (long i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
            }
        }
    double t1 = MPI_Wtime();
    if (rank == 0)
        printf("%ld round trips in %.6f s\n", n, t1 - t0);
    MPI_Finalize();
    return 0;
}
