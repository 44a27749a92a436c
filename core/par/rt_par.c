/*
 * rt_par.c - the MPI job a retrace process belongs to (see rt_par.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "rt_par.h"

#ifdef RETRACE_HAVE_MPI

static int par_on = 0, par_rank = 0, par_size = 1;
static MPI_Comm par_comm = MPI_COMM_NULL;

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
    MPI_Comm_dup(MPI_COMM_WORLD, &par_comm);
    MPI_Comm_set_errhandler(par_comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(par_comm, &par_rank);
    MPI_Comm_size(par_comm, &par_size);
    par_on = 1;
    return RT_OK;
}

void rt_par_finalize(void)
{
    if (!par_on)
        return;
    MPI_Comm_free(&par_comm);
    MPI_Finalize();
    par_on = 0;
}

int rt_par_launched(void) { return par_on; }
int rt_par_rank(void) { return par_rank; }
int rt_par_size(void) { return par_size; }
int rt_par_built(void) { return 1; }

int rt_par_agree(int status)
{
    if (!par_on)
        return status;
    int out = status;
    MPI_Allreduce(&status, &out, 1, MPI_INT, MPI_MAX, par_comm);
    return out;
}

void rt_par_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    if (par_on)
        MPI_Abort(par_comm, code);
    exit(code);
}

MPI_Comm rt_par_comm(void) { return par_on ? par_comm : MPI_COMM_SELF; }

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
void rt_par_abort(int code)
{
    fflush(stdout);
    fflush(stderr);
    exit(code);
}

#endif
