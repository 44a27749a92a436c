/* A derived datatype: 4 blocks of 2 doubles, stride 5; three of them to the right neighbour
 * (the program counts 3 * 4 * 2 * 8 = 192 bytes, not the extent). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_open(argc, argv);
    MPI_Datatype v;
    MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    static double out[3 * 20], in[3 * 20];
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    MPI_Request rq;
    MPI_Irecv(in, 3, v, left, 9, MPI_COMM_WORLD, &rq);
    MPI_Send(out, 3, v, right, 9, MPI_COMM_WORLD);
    mt_send(MPI_COMM_WORLD, right, 9, 3 * 4 * 2 * 8);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Type_free(&v);
    mt_close();
    MPI_Finalize();
    return 0;
}
