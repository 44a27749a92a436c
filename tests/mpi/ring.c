/* A token around the ring, three rounds with growing messages (tag = round). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_open(argc, argv);
    int buf[64] = {0}, right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    for (int round = 0; round < 3; round++) {
        int n = 4 * (round + 1);
        if (mt_rank == 0) {
            MPI_Send(buf, n, MPI_INT, right, round, MPI_COMM_WORLD);
            mt_send(MPI_COMM_WORLD, right, round, n * (long)sizeof(int));
            MPI_Recv(buf, n, MPI_INT, left, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, n, MPI_INT, left, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_INT, right, round, MPI_COMM_WORLD);
            mt_send(MPI_COMM_WORLD, right, round, n * (long)sizeof(int));
        }
    }
    mt_close();
    MPI_Finalize();
    return 0;
}
