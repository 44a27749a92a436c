/* rt_prescan.c - the pre-pass of a live replay (see rt_prescan.h). */
#include "rt_prescan.h"

#include "rt_chanmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"
#include "rt_picl.h"
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
    free(ps->procs);
    free(ps->tasks);
    free(ps->proc_events);
    memset(ps, 0, sizeof *ps);
}

/*
 * The pass reads events and keeps only what the prescan reports: per processor
 * first / last / counts and its incoming queue, per channel (source,
 * destination, communicator, tag) the bytes of the messages in flight (FIFO,
 * as the replay pairs them) or the receives met before their send, the user
 * regions entered (tasks), and per collective the occurrences of each
 * processor (instances = the most any processor had). It agrees with the
 * replay's own numbers (the tests compare them) at a fraction of its cost.
 */
typedef struct pchan {
    rt_chankey k;         /* source, destination, communicator, tag (rt_chanmap's key) */
    double *b;            /* ring of sent bytes */
    int head, n, cap;
    int64_t early;        /* receives met before their send */
} pchan;

typedef struct pcoll {
    int region, comm;
    int64_t *k;           /* per processor */
    int nk;
    int64_t most;
} pcoll;

typedef struct pstate {
    rt_prescan_proc *procs;
    int nprocs;
    int64_t *queue;       /* per processor */
    unsigned char *in_coll; /* per processor: a COLL_BEGIN came since its last collective region closed */
    double *queue_bytes;
    rt_chanmap chans;     /* pchan items (empty ones swept out before the table grows) */
    size_t chan_sweep_at; /* sweep when the table is full and holds this many channels */
    int *tasks;
    size_t captasks;
    pcoll *colls;
    int ncolls;
    size_t capcolls;
    int64_t pending;
    double pending_bytes;
    int rc_id[256];
    signed char rc_cls[256];  /* -1: empty slot */
} pstate;

static int grow_procs(pstate *s, int id)
{
    int n = s->nprocs ? s->nprocs : 8;
    while (n <= id)
        n *= 2;
    rt_prescan_proc *p = realloc(s->procs, (size_t)n * sizeof *p);
    if (!p)
        return 0;
    s->procs = p;
    int64_t *q = realloc(s->queue, (size_t)n * sizeof *q);
    if (!q)
        return 0;
    s->queue = q;
    double *qb = realloc(s->queue_bytes, (size_t)n * sizeof *qb);
    if (!qb)
        return 0;
    s->queue_bytes = qb;
    unsigned char *ic = realloc(s->in_coll, (size_t)n);
    if (!ic)
        return 0;
    s->in_coll = ic;
    for (int i = s->nprocs; i < n; i++) {
        ic[i] = 0;
        memset(&p[i], 0, sizeof p[i]);
        p[i].id = i;
        q[i] = 0;
        qb[i] = 0;
    }
    s->nprocs = n;
    return 1;
}

/* A channel with nothing in flight and no early receive: free it. */
static int pchan_drop_empty(void *item, void *ud)
{
    (void)ud;
    pchan *c = item;
    if (c->n || c->early)
        return 0;
    free(c->b);
    return 1;
}

/* As the replay's chan_find: empty channels swept out before the table grows. */
static pchan *pchan_get(pstate *s, int src, int dst, int comm, int64_t tag)
{
    rt_chanmap *m = &s->chans;
    if ((m->n + 1) * 2 > m->cap && m->n >= s->chan_sweep_at) {
        rt_chanmap_sweep(m, pchan_drop_empty, NULL);
        s->chan_sweep_at = m->n * 2 > 1024 ? m->n * 2 : 1024;
    }
    return rt_chanmap_get(m, src, dst, comm, tag);
}

static int region_cls(pstate *s, const rt_tdefs *d, int id)
{
    unsigned h = (unsigned)id & 255u;
    if (s->rc_cls[h] >= 0 && s->rc_id[h] == id)
        return s->rc_cls[h];
    const rt_tregion *r = rt_tdefs_region(d, id);
    int cls = r ? r->cls : RT_TC_USER;
    if (r) { /* regions may be defined later: cache only defined ones */
        s->rc_id[h] = id;
        s->rc_cls[h] = (signed char)cls;
    }
    return cls;
}

static int add_task(pstate *s, rt_prescan *ps, int task)
{
    int lo = 0, hi = ps->ntasks;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->tasks[mid] < task)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ps->ntasks && s->tasks[lo] == task)
        return 1;
    if (rt_grow((void **)&s->tasks, &s->captasks, (size_t)ps->ntasks + 1, sizeof *s->tasks) != RT_OK)
        return 0;
    memmove(s->tasks + lo + 1, s->tasks + lo, (size_t)(ps->ntasks - lo) * sizeof *s->tasks);
    s->tasks[lo] = task;
    ps->ntasks++;
    return 1;
}

static int add_coll(pstate *s, int region, int comm, int proc)
{
    pcoll *c = NULL;
    for (int i = s->ncolls - 1; i >= 0 && !c; i--)
        if (s->colls[i].region == region && s->colls[i].comm == comm)
            c = &s->colls[i];
    if (!c) {
        if (rt_grow((void **)&s->colls, &s->capcolls, (size_t)s->ncolls + 1, sizeof *s->colls) != RT_OK)
            return 0;
        c = &s->colls[s->ncolls++];
        memset(c, 0, sizeof *c);
        c->region = region;
        c->comm = comm;
    }
    if (proc >= c->nk) {
        int n = c->nk ? c->nk : 8;
        while (n <= proc)
            n *= 2;
        int64_t *k = realloc(c->k, (size_t)n * sizeof *k);
        if (!k)
            return 0;
        memset(k + c->nk, 0, (size_t)(n - c->nk) * sizeof *k);
        c->k = k;
        c->nk = n;
    }
    if (++c->k[proc] > c->most)
        c->most = c->k[proc];
    return 1;
}

static void pstate_free(pstate *s)
{
    free(s->procs);
    free(s->queue);
    free(s->queue_bytes);
    free(s->in_coll);
    for (size_t i = 0; i < s->chans.cap; i++) {
        pchan *c = rt_chanmap_slot(&s->chans, i);
        if (c)
            free(c->b);
    }
    rt_chanmap_free(&s->chans);
    free(s->tasks);
    for (int i = 0; i < s->ncolls; i++)
        free(s->colls[i].k);
    free(s->colls);
}

/* Peers an event may name (as the replay: below the processors defined or RT_PICL_MAXPROC). */
static int peer_in_range(const rt_tsource *src, int peer)
{
    int n = rt_tdefs_nprocs(src->defs);
    return peer >= 0 && peer < (n > RT_PICL_MAXPROC ? n : RT_PICL_MAXPROC);
}

/* A receive on processor id from src: paired with the oldest send of its channel (as the replay does). */
static int recv_pair(pstate *s, rt_prescan *ps, int id, int src, int comm, int64_t tag)
{
    pchan *c = pchan_get(s, src, id, comm, tag);
    if (!c)
        return RT_ENOMEM;
    if (c->n == 0) {
        c->early++;
        return RT_OK;
    }
    double b = c->b[c->head];
    c->head = (c->head + 1) % c->cap;
    c->n--;
    s->queue[id]--;
    s->queue_bytes[id] -= b;
    s->pending--;
    s->pending_bytes -= b;
    ps->messages++;
    return RT_OK;
}

/* The events of one pass into s / ps. */
static int scan(rt_tsource *src, pstate *s, rt_prescan *ps, rt_err *err)
{
    rt_tevent ev;
    const void *last_raw = NULL;
    int last_proc = -1;
    int st;
    while ((st = rt_tsource_next(src, &ev, err)) == RT_OK) {
        int id = ev.proc;
        if (id < 0 || id >= RT_TE_MAXPROC)
            return rt_err_set(err, RT_EINVAL, "prescan: processor %d out of range", id);
        if (id >= s->nprocs && !grow_procs(s, id))
            return RT_ENOMEM;
        rt_prescan_proc *p = &s->procs[id];
        double t = ev.time;
        if (!p->seen) {
            p->seen = 1;
            p->first = t;
            p->last = t;
        }
        if (t < p->last)
            t = p->last; /* the replay holds a processor's time from going back */
        p->last = t;
        if (t < ps->t0)
            ps->t0 = t;
        if (t > ps->t1)
            ps->t1 = t;
        p->events++;
        ps->events++;
        if (!(ev.raw && ev.raw == last_raw && id == last_proc)) {
            p->records++;
            ps->records++;
        }
        last_raw = ev.raw;
        last_proc = id;
        switch (ev.kind) {
        case RT_TE_ENTER: {
            int cls = region_cls(s, src->defs, ev.region);
            if (cls == RT_TC_USER && !add_task(s, ps, ev.region))
                return RT_ENOMEM;
            break;
        }
        case RT_TE_LEAVE:
            break;
        case RT_TE_SEND: {
            if (!peer_in_range(src, ev.peer))
                break;
            if (ev.peer >= s->nprocs && !grow_procs(s, ev.peer))
                return RT_ENOMEM;
            pchan *c = pchan_get(s, id, ev.peer, ev.comm, ev.tag);
            if (!c)
                return RT_ENOMEM;
            double b = ev.bytes > 0 ? ev.bytes : 0;
            if (c->early > 0) { /* its receive came first: paired at once */
                c->early--;
                ps->messages++;
                break;
            }
            if (c->n == c->cap) {
                int nc = c->cap ? c->cap * 2 : 4;
                double *nb = malloc((size_t)nc * sizeof *nb);
                if (!nb)
                    return RT_ENOMEM;
                for (int i = 0; i < c->n; i++)
                    nb[i] = c->b[(c->head + i) % c->cap];
                free(c->b);
                c->b = nb;
                c->cap = nc;
                c->head = 0;
            }
            c->b[(c->head + c->n++) % c->cap] = b;
            int d = ev.peer;
            s->queue[d]++;
            s->queue_bytes[d] += b;
            rt_prescan_proc *q = &s->procs[d];
            if (s->queue[d] > q->max_queue)
                q->max_queue = s->queue[d];
            if (s->queue_bytes[d] > q->max_queue_bytes)
                q->max_queue_bytes = s->queue_bytes[d];
            s->pending++;
            s->pending_bytes += b;
            if (s->pending > ps->max_pending)
                ps->max_pending = s->pending;
            if (s->pending_bytes > ps->max_pending_bytes)
                ps->max_pending_bytes = s->pending_bytes;
            break;
        }
        case RT_TE_RECV:
            if (peer_in_range(src, ev.peer) && recv_pair(s, ps, id, ev.peer, ev.comm, ev.tag) != RT_OK)
                return RT_ENOMEM;
            break;
        case RT_TE_COLL_BEGIN:
            s->in_coll[id] = 1;
            break;
        case RT_TE_COLL_END:
            if (!add_coll(s, -2, ev.comm, id))
                return RT_ENOMEM;
            break;
        default:
            break;
        }
        /* a collective region is an occurrence of its own unless COLL events came inside it */
        if (ev.kind == RT_TE_LEAVE && region_cls(s, src->defs, ev.region) == RT_TC_COLLECTIVE) {
            if (s->in_coll[id])
                s->in_coll[id] = 0;
            else if (!add_coll(s, ev.region, -1, id))
                return RT_ENOMEM;
        }
    }
    return st == RT_EEOF ? RT_OK : st;
}

int rt_prescan_run(rt_tsource *src, rt_prescan *ps, rt_err *err)
{
    memset(ps, 0, sizeof *ps);
    ps->max_queue_proc = -1;
    ps->t0 = INFINITY;
    ps->t1 = -INFINITY;
    pstate s;
    memset(&s, 0, sizeof s);
    rt_chanmap_init(&s.chans, sizeof(pchan));
    s.chan_sweep_at = 1024;
    memset(s.rc_cls, -1, sizeof s.rc_cls);
    int st = scan(src, &s, ps, err);
    if (st == RT_ENOMEM)
        rt_err_set(err, RT_ENOMEM, "prescan: out of memory");
    if (st == RT_OK) {
        ps->format = src->ops->format;
        int n = s.nprocs;
        while (n > 0 && !s.procs[n - 1].seen)
            n--;
        ps->nprocs = n;
        for (int i = 0; i < s.ncolls; i++)
            ps->collectives += s.colls[i].most;
        size_t np = n > 0 ? (size_t)n : 1;
        ps->procs = calloc(np, sizeof *ps->procs);
        ps->proc_events = calloc(np, sizeof *ps->proc_events);
        ps->tasks = calloc(ps->ntasks > 0 ? (size_t)ps->ntasks : 1, sizeof *ps->tasks);
        if (!ps->procs || !ps->proc_events || !ps->tasks) {
            st = rt_err_set(err, RT_ENOMEM, "prescan: out of memory");
        } else {
            memcpy(ps->procs, s.procs, (size_t)n * sizeof *ps->procs);
            if (ps->ntasks)
                memcpy(ps->tasks, s.tasks, (size_t)ps->ntasks * sizeof *ps->tasks);
            for (int i = 0; i < n; i++) {
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
    }
    pstate_free(&s);
    if (st == RT_OK)
        st = rt_tsource_rewind(src, err);
    if (st != RT_OK)
        rt_prescan_clear(ps);
    return st;
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
