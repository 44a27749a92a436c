/* A ring of messages, a barrier, then the last rank stops: argv[2] "abort" calls MPI_Abort,
 * "signal" dies of SIGSEGV. The others wait in a second barrier and are killed by the launcher. */
#include "mpitest.h"
#include <signal.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_open(argc, argv);
    int x = 0, right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    MPI_Request rq;
    MPI_Irecv(&x, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &rq);
    MPI_Send(&x, 1, MPI_INT, right, 3, MPI_COMM_WORLD);
    mt_send(MPI_COMM_WORLD, right, 3, 4);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    mt_coll("barrier", 0, 0);
    mt_close();
    if (mt_rank == mt_size - 1) {
        if (argc > 2 && strcmp(argv[2], "signal") == 0)
            raise(SIGSEGV);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
