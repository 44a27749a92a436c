/* rt_replay_csv.c - state segments and messages to CSV during a replay (see rt_replay_csv.h). */
#include "rt_replay_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_out.h"

/* Per processor: its current state since a time, and the segment not yet written. */
typedef struct csv_proc {
    int live;             /* a processor of the trace (not a slot the table grew by) */
    int state;
    double since;
    int has_seg, seg_state;
    double seg_from, seg_to;
} csv_proc;

struct rt_replay_csv {
    rt_replay *rp;        /* NULL once detached */
    rt_out *states, *messages;
    csv_proc *procs;
    int nprocs;
    double t0, t1;        /* the window: segments and messages clipped to it */
    int64_t nstates, nmessages;
};

static void write_seg(rt_replay_csv *c, int p, csv_proc *q)
{
    fprintf(rt_out_fp(c->states), "%d,%s,%.17g,%.17g\n", p, rt_state_name(q->seg_state), q->seg_from, q->seg_to);
    c->nstates++;
    q->has_seg = 0;
}

/* A segment [from, to) in state st: extends the pending one when it continues it. */
static void close_seg(rt_replay_csv *c, int p, int st, double from, double to)
{
    if (from < c->t0)
        from = c->t0;
    if (to > c->t1)
        to = c->t1;
    if (!(to > from))
        return;
    csv_proc *q = &c->procs[p];
    if (q->has_seg && q->seg_state == st && q->seg_to == from) {
        q->seg_to = to;
        return;
    }
    if (q->has_seg)
        write_seg(c, p, q);
    q->has_seg = 1;
    q->seg_state = st;
    q->seg_from = from;
    q->seg_to = to;
}

/* Processors beyond the pre-pass's count (a trace that grew): idle from t0 too. */
static int touch(rt_replay_csv *c, int p)
{
    if (p < c->nprocs)
        return 1;
    if (p < 0 || p >= RT_TE_MAXPROC)
        return 0;
    int n = c->nprocs ? c->nprocs : 8;
    while (n <= p)
        n *= 2;
    csv_proc *q = realloc(c->procs, (size_t)n * sizeof *q);
    if (!q) {
        rt_out_fail(c->states, 12 /* ENOMEM */);
        return 0;
    }
    for (int i = c->nprocs; i < n; i++)
        q[i] = (csv_proc){0, RT_STATE_IDLE, c->t0, 0, 0, 0, 0};
    c->procs = q;
    c->nprocs = n;
    return 1;
}

static void on_state(void *ud, int p, double t, int old, int new_state)
{
    (void)old;
    rt_replay_csv *c = ud;
    if (!touch(c, p))
        return;
    csv_proc *q = &c->procs[p];
    q->live = 1;
    close_seg(c, p, q->state, q->since, t);
    q->state = new_state;
    q->since = t;
}

static void on_message(void *ud, const rt_message *m)
{
    rt_replay_csv *c = ud;
    double a = m->send_time, b = m->recv_time;
    if (b < a) { /* a tachyon */
        a = m->recv_time;
        b = m->send_time;
    }
    if (b < c->t0 || a > c->t1) /* wholly outside the window */
        return;
    fprintf(rt_out_fp(c->messages), "%d,%d,%ld,%.17g,%.17g,%.17g\n", m->src, m->dst, m->tag, m->bytes,
            m->send_time, m->recv_time);
    c->nmessages++;
}

static void detach(rt_replay_csv *c)
{
    if (c->rp) {
        rt_replay_remove_tap(c->rp, c);
        c->rp = NULL;
    }
}

rt_replay_csv *rt_replay_csv_new(rt_replay *rp, const char *dir, int nprocs, double t0, rt_err *err)
{
    rt_replay_csv *c = calloc(1, sizeof *c);
    size_t n = strlen(dir) + 32;
    char *path = malloc(n);
    if (!c || !path) {
        free(c);
        free(path);
        rt_err_set(err, RT_ENOMEM, "CSV files: out of memory");
        return NULL;
    }
    c->t0 = t0;
    c->t1 = INFINITY;
    snprintf(path, n, "%s/states.csv", dir);
    c->states = rt_out_open(path, err);
    snprintf(path, n, "%s/messages.csv", dir);
    c->messages = c->states ? rt_out_open(path, err) : NULL;
    free(path);
    if (!c->messages) {
        rt_replay_csv_abort(c);
        return NULL;
    }
    if (nprocs > 0 && !touch(c, nprocs - 1)) {
        rt_replay_csv_abort(c);
        rt_err_set(err, RT_ENOMEM, "CSV files: out of memory");
        return NULL;
    }
    for (int p = 0; p < nprocs; p++)
        c->procs[p].live = 1;
    fputs("proc,state,start,end\n", rt_out_fp(c->states));
    fputs("src,dst,tag,bytes,send,recv\n", rt_out_fp(c->messages));
    rt_replay_tap tap = {.ud = c, .on_state = on_state, .on_message = on_message};
    if (rt_replay_add_tap(rp, &tap) != RT_OK) {
        rt_replay_csv_abort(c);
        rt_err_set(err, RT_ERANGE, "CSV files: the replay has no room for another listener");
        return NULL;
    }
    c->rp = rp;
    return c;
}

void rt_replay_csv_set_end(rt_replay_csv *c, double t1)
{
    c->t1 = t1;
}

int rt_replay_csv_commit(rt_replay_csv *c, double t1, int64_t *nstates, int64_t *nmessages, rt_err *err)
{
    detach(c);
    for (int p = 0; p < c->nprocs; p++) {
        csv_proc *q = &c->procs[p];
        if (!q->live)
            continue;
        close_seg(c, p, q->state, q->since, t1 > q->since ? t1 : q->since);
        if (q->has_seg)
            write_seg(c, p, q);
    }
    if (nstates)
        *nstates = c->nstates;
    if (nmessages)
        *nmessages = c->nmessages;
    int st = rt_out_commit(c->states, err);
    c->states = NULL;
    if (st == RT_OK)
        st = rt_out_commit(c->messages, err);
    else
        rt_out_abort(c->messages);
    c->messages = NULL;
    free(c->procs);
    free(c);
    return st;
}

void rt_replay_csv_abort(rt_replay_csv *c)
{
    if (!c)
        return;
    detach(c);
    rt_out_abort(c->states);
    rt_out_abort(c->messages);
    free(c->procs);
    free(c);
}
