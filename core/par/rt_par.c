/*
 * rt_par.c - the MPI job a retrace process belongs to (see rt_par.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "rt_par.h"

#ifdef RETRACE_HAVE_MPI

int rt_par_block_procs = 0;
static int par_on = 0, par_rank = 0, par_size = 1;
static int world_rank = 0, world_size = 1, par_alone = 0, par_settled = 0;
static MPI_Comm par_comm = MPI_COMM_NULL, world_comm = MPI_COMM_NULL;
/* rt_par_settle's own communicator: its reduction never matches a command's collective */
static MPI_Comm settle_comm = MPI_COMM_NULL;

/* A launcher started this process: Open MPI's mpirun, a PMIx or PMI server (srun, hydra). */
static int under_launcher(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", NULL};
    for (int i = 0; vars[i]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

int rt_par_init(int *argc, char ***argv, rt_err *err)
{
    if (par_on || !under_launcher())
        return RT_OK;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return rt_err_set(err, RT_EIO, "MPI: the job could not start (MPI_Init_thread failed)");
    /* errors come back as codes: a rank reports and agrees instead of dying mid-collective */
    MPI_Comm_dup(MPI_COMM_WORLD, &world_comm);
    MPI_Comm_set_errhandler(world_comm, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &settle_comm);
    MPI_Comm_set_errhandler(settle_comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(world_comm, &world_rank);
    MPI_Comm_size(world_comm, &world_size);
    par_comm = world_comm;
    par_rank = world_rank;
    par_size = world_size;
    par_on = 1;
    /* an exit() on the way (a help text printed by the argument parser) still ends the job's part */
    atexit(rt_par_finalize);
    return RT_OK;
}

void rt_par_finalize(void)
{
    if (!par_on)
        return;
    MPI_Comm_free(&world_comm);
    MPI_Comm_free(&settle_comm);
    par_comm = MPI_COMM_NULL;
    MPI_Finalize();
    par_on = 0;
}

int rt_par_launched(void) { return par_on; }
int rt_par_rank(void) { return par_rank; }
int rt_par_size(void) { return par_size; }
int rt_par_built(void) { return 1; }

int rt_par_agree(int status)
{
    if (!par_on || par_alone)
        return status;
    int out = status;
    MPI_Allreduce(&status, &out, 1, MPI_INT, MPI_MAX, par_comm);
    return out;
}

void rt_par_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    /*
     * Leaving without MPI_Finalize: the launcher ends the other ranks (mpirun always,
     * srun with --kill-on-bad-exit). Not MPI_Abort: with Open MPI 4.1 a rank aborting
     * while the others sat in a collective left mpirun hanging or crashing in its
     * PMIx finalize about one time in three on a loaded machine.
     */
    _exit(code);
}

MPI_Comm rt_par_comm(void) { return par_on && !par_alone ? par_comm : MPI_COMM_SELF; }

int rt_par_speaks(void) { return world_rank == 0; }

int rt_par_solo(int on)
{
    int was = par_alone;
    if (!par_on)
        return was;
    par_alone = on != 0;
    par_rank = par_alone ? 0 : world_rank;
    par_size = par_alone ? 1 : world_size;
    return was;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int rt_par_settle(int code, int has_message, double patience, int *speak)
{
    *speak = has_message != 0;
    if (!par_on || world_size == 1) {
        par_settled = 1;
        return code;
    }
    /* {largest code, size - (lowest rank holding a message)} as one MAX reduction */
    int in[2] = {code, has_message ? world_size - world_rank : 0}, out[2] = {0, 0};
    MPI_Request req;
    if (MPI_Iallreduce(in, out, 2, MPI_INT, MPI_MAX, settle_comm, &req) != MPI_SUCCESS)
        return -1;
    /* napping between tests: a rank that waits here for a slow one leaves it the core */
    double start = now_seconds();
    long nap_ns = 50000;
    for (;;) {
        int done = 0;
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (done)
            break;
        if (patience >= 0 && now_seconds() - start > patience)
            return -1; /* the request stays pending: the caller aborts the job */
        struct timespec ts = {0, nap_ns};
        nanosleep(&ts, NULL);
        if (nap_ns < 5000000)
            nap_ns *= 2;
    }
    par_settled = 1;
    *speak = out[1] > 0 && world_size - out[1] == world_rank;
    return out[0];
}

int rt_par_settled(void) { return !par_on || world_size == 1 || par_settled; }
void rt_par_mark_settled(void) { par_settled = 1; }

#else

int rt_par_init(int *argc, char ***argv, rt_err *err)
{
    (void)argc;
    (void)argv;
    (void)err;
    return RT_OK;
}
void rt_par_finalize(void) {}
int rt_par_launched(void) { return 0; }
int rt_par_rank(void) { return 0; }
int rt_par_size(void) { return 1; }
int rt_par_built(void) { return 0; }
int rt_par_agree(int status) { return status; }
int rt_par_speaks(void) { return 1; }
int rt_par_solo(int on)
{
    (void)on;
    return 0;
}
int rt_par_settle(int code, int has_message, double patience, int *speak)
{
    (void)patience;
    *speak = has_message != 0;
    return code;
}
int rt_par_settled(void) { return 1; }
void rt_par_mark_settled(void) {}
void rt_par_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    exit(code);
}

#endif
