/* The ranks as a grid (two columns when there are two ranks or more): Comm_split into rows
 * and columns, a shift along each with Sendrecv (tag 1 rows, 2 columns), an Allreduce in each;
 * then the columns joined by MPI_Intercomm_create and a swap across it (tag 3). */
#include "mpitest.h"

static void shift(MPI_Comm c, int tag, int n)
{
    int r, s;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    int out[16] = {0}, in[16];
    int to = (r + 1) % s, from = (r + s - 1) % s;
    MPI_Sendrecv(out, n, MPI_INT, to, tag, in, n, MPI_INT, from, tag, c, MPI_STATUS_IGNORE);
    mt_send(c, to, tag, 4L * n);
    int x = r, y;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c);
    mt_coll("allreduce", 4L * s, 4L * s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_open(argc, argv);
    int cols = mt_size >= 2 ? 2 : 1;
    MPI_Comm row, col;
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank / cols, mt_rank, &row);
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank % cols, mt_rank, &col);
    shift(row, 1, 3);
    shift(col, 2, 5);
    if (cols == 2 && mt_size % 2 == 0) {
        /* the two columns joined by an intercommunicator: each rank swaps with its partner
           (the same rank in the other column, a rank of the remote group) */
        MPI_Comm inter;
        int me;
        MPI_Comm_rank(col, &me);
        MPI_Intercomm_create(col, 0, MPI_COMM_WORLD, mt_rank % 2 == 0 ? 1 : 0, 99, &inter);
        int out[7] = {0}, in[7];
        MPI_Sendrecv(out, 7, MPI_INT, me, 3, in, 7, MPI_INT, me, 3, inter, MPI_STATUS_IGNORE);
        MPI_Group rg, wg;
        int peer;
        MPI_Comm_remote_group(inter, &rg);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_translate_ranks(rg, 1, &me, wg, &peer);
        fprintf(mt_out, "send %d %d 3 28\n", mt_rank, peer);
        MPI_Group_free(&rg);
        MPI_Group_free(&wg);
        MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    mt_close();
    MPI_Finalize();
    return 0;
}
