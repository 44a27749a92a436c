/*
 * rt_par_job.h - the reading of a text trace in byte ranges over the ranks
 * (rt_par_text.c): its state and collectives, shared with the Pajé reading
 * (rt_par_paje.c). Internal to core/par.
 */
#ifndef RT_PAR_JOB_H
#define RT_PAR_JOB_H

#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_picl.h"

/* Bytes of record lines a rank gathers before an exchange (over all destinations). */
#define BATCH_BYTES ((size_t)4 << 20)

typedef struct outbuf {
    char *p;
    size_t n, cap;
} outbuf;

/* A PICL event number (a Paraver state value) and the first line a range saw it on; Paraver:
 * the rank its record goes to. */
typedef struct evline {
    int64_t event, line, owner;
} evline;

typedef struct job {
    int rank, size;
    const char *path;
    size_t batch;
    outbuf *out;            /* per destination rank: numbered lines "LINE\ttext\n" */
    size_t pending;         /* bytes in out[] */
    FILE **spill;           /* per source rank */
    int *mark;              /* per rank: stamp of the last record sent there (no rank twice) */
    int stamp;
    rt_err err;             /* this rank's failure (status RT_OK when none) */
    /* PICL */
    rt_picl *picl;
    int old;
    int maxproc;            /* largest processor seen + 1 */
    unsigned char *seen;    /* old format, per node: a record of it was in this range */
    int *after8;            /* old format, per node: owner of the sender of its last recv_waking, else -1 */
    int nnodes;
    rt_picl_xlate *x;       /* old format: the range's own translation, for the region order */
    evline *ev;             /* PICL event numbers of entry / exit records, first line each */
    size_t nev, capev;
    unsigned char known[2048]; /* events -1024 .. 1023 already in ev */
} job;

/* 1 when j's ranks are an MPI job of more than one rank. */
int rt_pjob_launched(const job *j);
/* The sum of v over the ranks before this one (0 on rank 0, and without MPI). */
uint64_t rt_pjob_exscan_sum(const job *j, uint64_t v);
/* The sum (op 0), largest (1) or smallest (2) of every rank's v. */
int64_t rt_pjob_allreduce(const job *j, int64_t v, int op);
/* Agree on failure: RT_OK when no rank failed, else every rank's err becomes the first failing rank's. */
int rt_pjob_agree(job *j, rt_err *err);
/* Send every rank its lines (j->out) and append what each rank sent to its spill (j->spill). */
int rt_pjob_exchange(job *j);
/* This rank's failure (the first kept), "PATH: what". */
int rt_pjob_fail(job *j, int status, const char *what);
/* Queue one numbered line ("LINE\ttext\n") for rank dest, once per record (j->stamp). */
void rt_pjob_send_line(job *j, int dest, unsigned long line, const char *text, size_t len);
/* The spills of j as one stream, in rank order (it owns them then); NULL when out of memory. */
FILE *rt_pjob_spills_stream(job *j);
void rt_pjob_job_free(job *j);

/*
 * A Pajé trace of fsize bytes read in byte ranges (rt_par_paje.c), collective:
 * the source, or NULL with *fallback 1 when any rank met what the ranges
 * cannot reproduce (a header line among the events, a line the serial reader
 * refuses, no memory): the trace is then read by rank 0 (j's buffers empty,
 * its spills to be made again).
 */
struct rt_tsource;
struct rt_tsource *rt_par_paje_open(job *j, uint64_t fsize, int *fallback);

#endif
