/* The ranks as a grid (two columns when there are two ranks or more): Comm_split into rows
 * and columns, a shift along each with Sendrecv (tag 1 rows, 2 columns), an Allreduce in each. */
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
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    mt_close();
    MPI_Finalize();
    return 0;
}
