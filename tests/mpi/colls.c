/* Allreduce, Bcast, Alltoallv and Reduce_scatter; each rank states the bytes it moves. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_open(argc, argv);
    long P = mt_size, me = mt_rank;
    int a[3] = {1, 2, 3}, b[3];
    MPI_Allreduce(a, b, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    mt_coll("allreduce", 12 * P, 12 * P);
    double d[5] = {0};
    MPI_Bcast(d, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    mt_coll("bcast", me == 0 ? 40 * P : 0, 40);
    /* rank i sends j + 1 ints to rank j and receives i + 1 ints from each */
    int *sc = malloc(P * sizeof *sc), *sd = malloc(P * sizeof *sd), *rc = malloc(P * sizeof *rc),
        *rd = malloc(P * sizeof *rd), *sb = calloc(P * (P + 1), sizeof *sb), *rb = calloc(P * (P + 1), sizeof *rb);
    long sent = 0, recvd = 0;
    for (int j = 0; j < P; j++) {
        sc[j] = j + 1, sd[j] = j * (int)(P + 1), rc[j] = (int)me + 1, rd[j] = j * (int)(P + 1);
        sent += 4L * (j + 1), recvd += 4L * (me + 1);
    }
    MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
    mt_coll("alltoallv", sent, recvd);
    /* rank i gets i + 1 ints of the sum */
    long total = 0;
    for (int j = 0; j < P; j++)
        total += j + 1;
    MPI_Reduce_scatter(sb, rb, sc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    mt_coll("reduce_scatter", 4 * total, 4 * (me + 1) * P);
    MPI_Barrier(MPI_COMM_WORLD);
    mt_coll("barrier", 0, 0);
    free(sc), free(sd), free(rc), free(rd), free(sb), free(rb);
    mt_close();
    MPI_Finalize();
    return 0;
}
