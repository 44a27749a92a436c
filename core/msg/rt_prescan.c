/* rt_prescan.c - the pre-pass of a live replay (see rt_prescan.h). */
#include "rt_prescan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_par.h"
#include "rt_par_coll.h"
#include "rt_par_route.h"
#include "rt_replay.h"

double rt_prescan_unit(double span)
{
    if (!(span > 0) || !isfinite(span))
        return 1e-6;
    int e = (int)floor(log10(span)) - 3;
    if (e > 0)
        e = 0;
    return pow(10.0, e);
}

double rt_prescan_scale_width(double span, double unit)
{
    double q = span > 0 && unit > 0 ? span / unit / 4 : 0;
    if (!(q > 1))
        return 1;
    double p = pow(10.0, floor(log10(q)));
    static const double steps[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (steps[i] * p >= q * (1 - 1e-12))
            return steps[i] * p;
    return 10 * p;
}

void rt_prescan_clear(rt_prescan *ps)
{
    if (ps->has_cp)
        rt_critical_path_clear(&ps->cp);
    free(ps->procs);
    free(ps->tasks);
    free(ps->proc_events);
    memset(ps, 0, sizeof *ps);
}

/*
 * The pass is a replay (rt_replay.h) run to the end with no listener, so every
 * number it reports is the replay's own: per processor its first and last
 * event, records, events and incoming-queue high-water mark; the messages
 * paired, the collective instances, the pending high-water marks and the
 * tasks. With critical_path it also keeps the waits and computes the critical
 * path at the end, so a live replay that follows needs no other pass for it.
 */
/* The whole run's figures from the processors' (processor order: as the serial loop). */
static void from_procs(rt_prescan *ps)
{
    ps->max_queue = 0;
    ps->max_queue_bytes = 0;
    ps->max_queue_proc = -1;
    for (int i = 0; i < ps->nprocs; i++) {
        const rt_prescan_proc *q = &ps->procs[i];
        ps->proc_events[i] = q->events;
        if (q->max_queue > ps->max_queue) {
            ps->max_queue = q->max_queue;
            ps->max_queue_proc = i;
        }
        if (q->max_queue_bytes > ps->max_queue_bytes)
            ps->max_queue_bytes = q->max_queue_bytes;
    }
    double span = ps->t1 > ps->t0 ? ps->t1 - ps->t0 : 0;
    ps->unit = rt_prescan_unit(span);
    ps->scale_width = rt_prescan_scale_width(span, ps->unit);
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/*
 * A part's prescan made the whole job's (collective): each processor's entry
 * from the rank that owns it, the counts summed, the tasks united; the
 * figures no part knows (pending high-water marks, collective instances) set
 * to -1.
 */
static int combine(rt_prescan *ps, int own_rank, int own_size, rt_err *err)
{
    int n = 0; /* this rank's processors up to its last seen one */
    for (int i = 0; i < ps->nprocs; i++)
        if (ps->procs[i].seen && rt_par_owns(i, own_rank, own_size))
            n = i + 1;
    rt_par_max_int(&n);
    int64_t sums[3] = {ps->records, ps->events, ps->messages};
    rt_par_sum_i64(sums, 3);
    ps->records = sums[0];
    ps->events = sums[1];
    ps->messages = sums[2];
    ps->collectives = ps->max_pending = -1;
    ps->max_pending_bytes = -1;
    size_t mine_n = 0;
    for (int i = 0; i < ps->nprocs && i < n; i++)
        mine_n += rt_par_owns(i, own_rank, own_size);
    rt_prescan_proc *mine = malloc((mine_n ? mine_n : 1) * sizeof *mine);
    size_t k = 0;
    for (int i = 0; mine && i < ps->nprocs && i < n; i++)
        if (rt_par_owns(i, own_rank, own_size))
            mine[k++] = ps->procs[i];
    void *all = NULL, *tasks = NULL;
    size_t total = 0, ttotal = 0;
    int st = rt_par_allgather_bytes(mine, mine ? k * sizeof *mine : 0, &all, &total);
    free(mine);
    if (st == RT_OK)
        st = rt_par_allgather_bytes(ps->tasks, (size_t)ps->ntasks * sizeof *ps->tasks, &tasks, &ttotal);
    rt_prescan_proc *procs = st == RT_OK ? calloc(n > 0 ? (size_t)n : 1, sizeof *procs) : NULL;
    int64_t *events = procs ? calloc(n > 0 ? (size_t)n : 1, sizeof *events) : NULL;
    if (st == RT_OK && (!procs || !events))
        st = RT_ENOMEM;
    if (st == RT_OK) {
        for (int i = 0; i < n; i++)
            procs[i].id = i;
        const rt_prescan_proc *got = all;
        for (size_t i = 0; i < total / sizeof *got; i++)
            if (got[i].id >= 0 && got[i].id < n)
                procs[got[i].id] = got[i];
        free(ps->procs);
        free(ps->proc_events);
        ps->procs = procs;
        ps->proc_events = events;
        ps->nprocs = n;
        free(ps->tasks);
        ps->tasks = tasks;
        int nt = (int)(ttotal / sizeof *ps->tasks), u = 0;
        qsort(ps->tasks, (size_t)nt, sizeof *ps->tasks, by_int);
        for (int i = 0; i < nt; i++)
            if (u == 0 || ps->tasks[u - 1] != ps->tasks[i])
                ps->tasks[u++] = ps->tasks[i];
        ps->ntasks = u;
        tasks = NULL;
        from_procs(ps);
    } else {
        free(procs);
        free(events);
    }
    free(all);
    free(tasks);
    return st == RT_OK ? RT_OK : rt_err_set(err, RT_ENOMEM, "prescan: out of memory");
}

/* The pass; own_size > 1: a distributed part (rank own_rank's), combined over the job, not rewound. */
static int run(rt_tsource *src, rt_prescan *ps, int critical_path, int own_rank, int own_size, rt_err *err)
{
    memset(ps, 0, sizeof *ps);
    ps->max_queue_proc = -1;
    ps->t0 = INFINITY;
    ps->t1 = -INFINITY;
    rt_replay_opts o;
    memset(&o, 0, sizeof o);
    o.critical_path = critical_path != 0;
    o.own_rank = own_rank;
    o.own_size = own_size;
    rt_replay *rp = rt_replay_new(src, &o, err);
    if (!rp)
        return RT_ENOMEM;
    int st = rt_replay_run(rp, err);
    if (st == RT_OK) {
        ps->format = src->ops->format;
        ps->outside_idle = rt_tclass_state(rt_tdefs_outside(src->defs)) == RT_STATE_IDLE;
        int n = rt_replay_nprocs(rp);
        while (n > 0 && !rt_replay_proc_get(rp, n - 1)->seen)
            n--;
        ps->nprocs = n;
        rt_replay_span(rp, &ps->t0, &ps->t1);
        ps->records = rt_replay_records(rp);
        ps->events = rt_replay_events(rp);
        rt_replay_totals t;
        rt_replay_totals_get(rp, &t);
        ps->messages = t.messages;
        ps->collectives = t.coll_instances;
        ps->max_pending = t.max_pending;
        ps->max_pending_bytes = t.max_pending_bytes;
        ps->ntasks = rt_replay_ntasks(rp);
        size_t np = n > 0 ? (size_t)n : 1;
        ps->procs = calloc(np, sizeof *ps->procs);
        ps->proc_events = calloc(np, sizeof *ps->proc_events);
        ps->tasks = calloc(ps->ntasks > 0 ? (size_t)ps->ntasks : 1, sizeof *ps->tasks);
        if (!ps->procs || !ps->proc_events || !ps->tasks)
            st = rt_err_set(err, RT_ENOMEM, "prescan: out of memory");
    }
    if (st == RT_OK) {
        const rt_task_stat *tk = rt_replay_tasks(rp);
        for (int i = 0; i < ps->ntasks; i++)
            ps->tasks[i] = tk[i].task;
        for (int i = 0; i < ps->nprocs; i++) {
            const rt_replay_proc *p = rt_replay_proc_get(rp, i);
            rt_prescan_proc *q = &ps->procs[i];
            q->id = i;
            q->seen = p->seen;
            if (p->seen) {
                q->first = p->first;
                q->last = p->last;
            }
            q->records = p->records;
            q->events = p->events;
            q->enters = p->enters;
            q->max_queue = p->max_queue;
            q->max_queue_bytes = p->max_queue_bytes;
        }
        from_procs(ps);
        if (critical_path && ps->t1 >= ps->t0) {
            if ((st = rt_replay_critical_path(rp, &ps->cp, err)) == RT_OK) {
                rt_replay_totals_get(rp, &ps->cp_totals);
                ps->has_cp = 1;
            }
        }
    }
    rt_replay_free(rp);
    if (own_size > 1) { /* every rank takes part in the combining, or none */
        if (rt_par_agree(st != RT_OK) == 0)
            st = combine(ps, own_rank, own_size, err);
        else if (st == RT_OK)
            st = rt_err_set(err, RT_EIO, "prescan: another rank of the job failed");
    } else if (st == RT_OK)
        st = rt_tsource_rewind(src, err);
    if (st != RT_OK)
        rt_prescan_clear(ps);
    return st;
}

int rt_prescan_run_cp(rt_tsource *src, rt_prescan *ps, int critical_path, rt_err *err)
{
    return run(src, ps, critical_path, 0, 0, err);
}

int rt_prescan_run(rt_tsource *src, rt_prescan *ps, rt_err *err) { return rt_prescan_run_cp(src, ps, 0, err); }

int rt_prescan_run_part(rt_tsource *src, rt_prescan *ps, int own_rank, int own_size, rt_err *err)
{
    return run(src, ps, 0, own_rank, own_size, err);
}

int rt_prescan_check_window(const rt_prescan *ps, const char *path, double from, double to, rt_err *err)
{
    if (from > to)
        return rt_err_set(err, RT_EINVAL, "window: %.9g is after %.9g", from, to);
    if (!(ps->t1 >= ps->t0))
        return rt_err_set(err, RT_EINVAL, "%s: the trace has no event, so no window lies inside it",
                          path ? path : "trace");
    if (to < ps->t0 || from > ps->t1)
        return rt_err_set(err, RT_EINVAL, "%s: window %.9g .. %.9g s lies outside the trace's span %.9g .. %.9g s",
                          path ? path : "trace", from, to, ps->t0, ps->t1);
    return RT_OK;
}
