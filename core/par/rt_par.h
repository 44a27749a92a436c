/*
 * rt_par.h - the MPI job a retrace process belongs to.
 *
 * retrace runs beyond one machine under an MPI launcher (`mpirun -np N
 * retrace ...`, `srun retrace ...`). The host calls rt_par_init first thing:
 * when the environment shows a launcher started this process (Open MPI's
 * OMPI_COMM_WORLD_SIZE, a PMIx or PMI rank) and the build has MPI, MPI is
 * initialised and the process is one rank of the job; otherwise nothing is
 * initialised and the process is rank 0 of 1, exactly the serial program.
 *
 * Only the thread that called rt_par_init calls MPI (MPI_THREAD_FUNNELED).
 * Collective functions here must be called by every rank in the same order.
 */
#ifndef RT_PAR_H
#define RT_PAR_H

#include "rt_error.h"

/* Start: RT_OK, or an error (MPI could not start) with err set. Idempotent. */
int rt_par_init(int *argc, char ***argv, rt_err *err);
/* End the job's part of this process (MPI_Finalize when it was initialised). */
void rt_par_finalize(void);
/* 1 when MPI was initialised (launched by mpirun / srun), else 0. */
int rt_par_launched(void);
/* This process's rank (0 serial) and the job's size (1 serial). */
int rt_par_rank(void);
int rt_par_size(void);
/* 1 when the build has MPI at all. */
int rt_par_built(void);
/*
 * Collective: agree on an outcome. Every rank passes its own status (0 fine);
 * every rank gets the largest. Serial: the status itself.
 */
int rt_par_agree(int status);
/*
 * End the whole job now with exit code code, from one rank, after a failure
 * the other ranks cannot know of (they may be waiting in a collective).
 * Serial: exit(code).
 */
void rt_par_abort(int code);

/*
 * Does this process speak for the job: write standard output and output files,
 * show progress? Rank 0 of a launched job, or a process not launched.
 */
int rt_par_speaks(void);
/*
 * Work alone (on = 1) until rt_par_solo(0): rank and size read 0 and 1, the
 * communicator is MPI_COMM_SELF, agreements are the rank's own, so code that
 * would spread its work over the job runs serially on this rank (a rank's share
 * of independent items, or a command only rank 0 runs). Returns the previous
 * setting. Not launched: no effect.
 */
int rt_par_solo(int on);
/*
 * How a command ended, agreed by the ranks (collective on a communicator of its
 * own, so it never matches a collective a rank still waits in). Each rank passes
 * its exit code and whether it holds a message to print. A failing rank passes
 * patience >= 0: when the other ranks have not all arrived within that many
 * seconds (one of them waits in a collective, or works on), returns -1 and the
 * caller prints its message and calls rt_par_abort. Otherwise (patience < 0:
 * wait as long as it takes, napping) returns the largest code, with *speak = 1
 * on the one rank that prints: the lowest rank holding a message. Serial:
 * code, *speak = has_message.
 */
int rt_par_settle(int code, int has_message, double patience, int *speak);
/*
 * 1 when the ending needs no abort: not launched, a job of one rank, rt_par_settle
 * agreed, or rt_par_mark_settled said so (rank 0 ran a command alone: the others
 * have ended already).
 */
int rt_par_settled(void);
void rt_par_mark_settled(void);

#ifdef RETRACE_HAVE_MPI
#include <mpi.h>
/* The job's communicator (a duplicate of MPI_COMM_WORLD; MPI_COMM_SELF when not launched). */
MPI_Comm rt_par_comm(void);
#endif

#endif
