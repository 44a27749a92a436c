/*
 * mpitest.h - what a test program counts itself: each rank writes OUT.RANK (OUT is
 * argv[1]) with one line per message it sends, "send SRC DST TAG BYTES" (world
 * ranks), and one per collective it takes part in, "coll NAME SENT RECEIVED"
 * (bytes by the rule libretrace-mpi documents: what the rank would send to and
 * receive from each member, itself included, with direct messages).
 * tests/mpi/mpi_spec.lua compares these with what retrace reads from the archive.
 */
#ifndef MPITEST_H
#define MPITEST_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *mt_out;
static int mt_rank, mt_size;

static inline void mt_open(int argc, char **argv)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    char path[1024];
    snprintf(path, sizeof path, "%s.%d", argc > 1 ? argv[1] : "mpitest", mt_rank);
    mt_out = fopen(path, "w");
    if (!mt_out) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The world rank of rank r of communicator c. */
static inline int mt_world(MPI_Comm c, int r)
{
    MPI_Group g, w;
    int out;
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_translate_ranks(g, 1, &r, w, &out);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return out;
}

static inline void mt_send(MPI_Comm c, int dst, int tag, long bytes)
{
    fprintf(mt_out, "send %d %d %d %ld\n", mt_rank, mt_world(c, dst), tag, bytes);
    fflush(mt_out);
}

static inline void mt_coll(const char *name, long sent, long received)
{
    fprintf(mt_out, "coll %s %ld %ld\n", name, sent, received);
    fflush(mt_out);
}

static inline void mt_close(void)
{
    fclose(mt_out);
}
#endif
