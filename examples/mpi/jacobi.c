/*
 * jacobi.c - a 1-D heat equation by Jacobi sweeps, split over the ranks: each step
 * exchanges one halo cell with each neighbour (Isend / Irecv / Waitall), sweeps its
 * block and, every fourth step, takes the global residual with MPI_Allreduce. The
 * blocks grow with the rank, so the higher ranks compute longer and the lower ones wait.
 * The sweep is a region of its own and each step is marked (<retrace/mpi.h>).
 *
 *   mpicc -O2 -I core/capture/mpi -o jacobi examples/mpi/jacobi.c
 *   retrace capture --mpi -o jacobi.otf2 -- mpirun -np 4 ./jacobi 40
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "retrace_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 40;
    int n = 20000 * (rank + 1); /* cells of this rank: uneven on purpose */
    double *u = calloc((size_t)n + 2, sizeof *u), *v = calloc((size_t)n + 2, sizeof *v);
    if (!u || !v)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        u[0] = 1.0;
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double res = 0;
    for (int s = 0; s < steps; s++) {
        retrace_mark("step", s);
        MPI_Request rq[4];
        MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq[2]);
        MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        if (rank == 0)
            u[0] = 1.0;
        retrace_region_begin("sweep");
        double local = 0;
        for (int k = 0; k < 20; k++)
            for (int i = 1; i <= n; i++) {
                v[i] = 0.5 * (u[i - 1] + u[i + 1]);
                local += (v[i] - u[i]) * (v[i] - u[i]);
            }
        double *t = u;
        u = v, v = t;
        retrace_region_end("sweep");
        if (s % 4 == 3)
            MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("jacobi: %d ranks, %d steps, residual %.3g\n", size, steps, res);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
