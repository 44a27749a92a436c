/* A periodic 1-D halo exchange: Irecv / Isend to both neighbours, Waitall; three steps. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_open(argc, argv);
    double out[2][100] = {{0}}, in[2][100];
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    for (int step = 0; step < 3; step++) {
        MPI_Request rq[4];
        MPI_Irecv(in[0], 100, MPI_DOUBLE, left, 20 + step, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(in[1], 100, MPI_DOUBLE, right, 10 + step, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(out[0], 100, MPI_DOUBLE, left, 10 + step, MPI_COMM_WORLD, &rq[2]);
        mt_send(MPI_COMM_WORLD, left, 10 + step, 800);
        MPI_Isend(out[1], 100, MPI_DOUBLE, right, 20 + step, MPI_COMM_WORLD, &rq[3]);
        mt_send(MPI_COMM_WORLD, right, 20 + step, 800);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    }
    mt_close();
    MPI_Finalize();
    return 0;
}
