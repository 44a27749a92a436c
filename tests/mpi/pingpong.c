/* Ping-pong between rank pairs (0,1), (2,3), ... with sizes 1 B .. 64 KiB (tag = step). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_open(argc, argv);
    static char buf[1 << 16];
    int peer = mt_rank ^ 1;
    if (peer < mt_size)
        for (int step = 0; step <= 16; step += 2) {
            int n = 1 << step;
            if (mt_rank % 2 == 0) {
                MPI_Send(buf, n, MPI_BYTE, peer, step, MPI_COMM_WORLD);
                mt_send(MPI_COMM_WORLD, peer, step, n);
                MPI_Recv(buf, n, MPI_BYTE, peer, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, n, MPI_BYTE, peer, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_BYTE, peer, step, MPI_COMM_WORLD);
                mt_send(MPI_COMM_WORLD, peer, step, n);
            }
        }
    mt_close();
    MPI_Finalize();
    return 0;
}
