/* Persistent requests: Send_init / Recv_init to the neighbours, five rounds of Startall and
 * Waitall (the last completed by Test calls), then Request_free. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_open(argc, argv);
    int out[16] = {0}, in[16];
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    MPI_Request rq[2];
    MPI_Recv_init(in, 16, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Send_init(out, 16, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]);
    for (int round = 0; round < 5; round++) {
        MPI_Startall(2, rq);
        mt_send(MPI_COMM_WORLD, right, 7, 64);
        if (round < 4)
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        else
            for (int done = 0; !done;)
                MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    mt_close();
    MPI_Finalize();
    return 0;
}
