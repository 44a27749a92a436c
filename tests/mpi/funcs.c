/* -finstrument-functions: work() runs 3 times per rank and sends one message each time;
 * skipped_helper() runs 5 times and is left out by RETRACE_MPI_FUNCTIONS="*,!skipped_*"
 * (the spec sets it); "region NAME COUNT" lines say what the program ran. Built with
 * -finstrument-functions and linked with -lretrace-mpi (tests/CMakeLists.txt). */
#include "mpitest.h"

__attribute__((noinline)) static int skipped_helper(int x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) static void work(int round)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size, v = round, w;
    MPI_Sendrecv(&v, 1, MPI_INT, right, 40 + round, &w, 1, MPI_INT, left, 40 + round, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    mt_send(MPI_COMM_WORLD, right, 40 + round, 4);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mt_open(argc, argv);
    int s = 0;
    for (int i = 0; i < 3; i++)
        work(i);
    for (int i = 0; i < 5; i++)
        s += skipped_helper(i);
    fprintf(mt_out, "region work 3\nregion skipped_helper 0\n");
    mt_close();
    MPI_Finalize();
    return s == 35 ? 0 : 1;
}
