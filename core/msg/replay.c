/*
 * replay.c - the message-passing replay engine over the neutral event stream
 * (see rt_replay.h): processor states from region classes, messages, queues,
 * tasks, per-region tables. The critical path is in rt_critpath.c.
 */
#include "rt_replay.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"
#include "rt_par_coll.h"
#include "rt_par_route.h"
#include "rt_replay_int.h"

/*
 * Processors an event may name: 0 .. RT_TE_MAXPROC - 1 (a source defines them).
 * Message peers, which come from data values: below RT_REPLAY_MAXPEER, or below the
 * processors the definitions name when there are more (a bogus peer must not
 * grow the processor table without bound).
 */
#define RT_REPLAY_MAXPEER 65536
static int peer_ok(const rt_replay *rp, int peer)
{
    int n = rt_tdefs_nprocs(rp->defs);
    return peer >= 0 && peer < (n > RT_REPLAY_MAXPEER ? n : RT_REPLAY_MAXPEER);
}

/* 1 when processor p is this replay's own (always, unless a distributed part: rt_replay_opts.own_size). */
static inline int own(const rt_replay *rp, int p)
{
    return rt_par_owns(p, rp->o.own_rank, rp->o.own_size);
}

const char *rt_state_name(int s)
{
    static const char *const n[] = {"idle", "overhead", "busy"};
    return (unsigned)s < RT_NSTATES ? n[s] : "?";
}

/* ---- warnings ---- */

static void warn(rt_replay *rp, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void warn(rt_replay *rp, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rp->tot.warnings++;
    if (rp->nwarn < RT_REPLAY_KEEP_WARNINGS) {
        char *c = strdup(msg);
        if (c) {
            rp->warn_key[rp->nwarn] = rp->cur_key;
            rp->warn[rp->nwarn++] = c;
        }
    }
    if (rp->o.on_warning)
        rp->o.on_warning(rp->o.ud, msg);
}

int rt_replay_nwarnings(const rt_replay *rp) { return rp->nwarn; }

void rt_replay_warning_key(const rt_replay *rp, int i, rt_tkey *key)
{
    if (i >= 0 && i < rp->nwarn)
        *key = rp->warn_key[i];
    else
        *key = (rt_tkey){0, 0, 0};
}

int rt_replay_unpaired_warning(int which, int64_t n, char *buf, size_t cap)
{
    if (which == 0)
        return snprintf(buf, cap, "%lld message(s) sent and never received", (long long)n);
    return snprintf(buf, cap, "%lld receive(s) with no matching send", (long long)n);
}
const char *rt_replay_warning(const rt_replay *rp, int i)
{
    return i >= 0 && i < rp->nwarn ? rp->warn[i] : NULL;
}

/*
 * Where an event is, for warnings: "line N" in a text trace; in a binary one
 * (no line: OTF2) the processor's name and the event's position among that
 * processor's events ("event K of LOCATION").
 */
static const char *event_place(const rt_replay *rp, const rt_tevent *ev, int64_t k, char *buf, size_t cap)
{
    if (ev->line) {
        snprintf(buf, cap, "line %lu", ev->line);
        return buf;
    }
    const rt_tproc *tp = rt_tdefs_proc(rp->defs, ev->proc);
    if (tp && tp->name[0])
        snprintf(buf, cap, "event %lld of %s", (long long)k, tp->name);
    else
        snprintf(buf, cap, "event %lld of processor %d", (long long)k, ev->proc);
    return buf;
}

/* ---- small containers ---- */

static int fifo_push(fifo *f, double t, double b)
{
    if (f->n == f->cap) {
        int nc = f->cap ? f->cap * 2 : 4;
        double *nt = malloc((size_t)nc * sizeof *nt), *nb = malloc((size_t)nc * sizeof *nb);
        if (!nt || !nb) {
            free(nt);
            free(nb);
            return 0;
        }
        for (int i = 0; i < f->n; i++) {
            nt[i] = f->t[(f->head + i) % f->cap];
            nb[i] = f->b[(f->head + i) % f->cap];
        }
        free(f->t);
        free(f->b);
        f->t = nt;
        f->b = nb;
        f->cap = nc;
        f->head = 0;
    }
    int i = (f->head + f->n) % f->cap;
    f->t[i] = t;
    f->b[i] = b;
    f->n++;
    return 1;
}

static void fifo_pop(fifo *f, double *t, double *b)
{
    *t = f->t[f->head];
    *b = f->b[f->head];
    f->head = (f->head + 1) % f->cap;
    f->n--;
}

static void fifo_free(fifo *f)
{
    free(f->t);
    free(f->b);
}

/* A channel with nothing in flight holds no state worth keeping: free it. */
static int chan_drop_empty(void *item, void *ud)
{
    (void)ud;
    chan *c = item;
    if (c->sends.n || c->recvs.n)
        return 0;
    fifo_free(&c->sends);
    fifo_free(&c->recvs);
    return 1;
}

/*
 * The channel (src, dst, comm, tag), made when new. Before the table would grow,
 * empty channels are swept out, so memory follows the channels in flight (a
 * program that uses a new tag for every message met millions of channels, each
 * kept to the end). Sweeps happen only when the channels have doubled since the
 * last one, so a table of busy channels costs no repeated sweeps.
 */
static chan *chan_find(rt_replay *rp, int src, int dst, int comm, long tag)
{
    rt_chanmap *m = &rp->chans;
    if ((m->n + 1) * 2 > m->cap && m->n >= rp->chan_sweep_at) {
        rt_chanmap_sweep(m, chan_drop_empty, NULL);
        rp->chan_sweep_at = m->n * 2 > 1024 ? m->n * 2 : 1024;
    }
    return rt_chanmap_get(m, src, dst, comm, tag);
}

/* ---- processors ---- */

static proc_state *proc_grow(rt_replay *rp, int id);

/* Processor id's state, the table grown when id is new (NULL: out of memory). */
static inline proc_state *proc_at(rt_replay *rp, int id)
{
    return id < rp->nprocs ? &rp->procs[id] : proc_grow(rp, id);
}

static proc_state *proc_grow(rt_replay *rp, int id)
{
    int nn = rp->nprocs ? rp->nprocs : 8;
    while (nn <= id)
        nn *= 2;
    proc_state *p = realloc(rp->procs, (size_t)nn * sizeof *p);
    if (!p)
        return NULL;
    memset(p + rp->nprocs, 0, (size_t)(nn - rp->nprocs) * sizeof *p);
    for (int i = rp->nprocs; i < nn; i++) {
        p[i].pub.id = i;
        p[i].pub.task = -1;
        p[i].pub.state = RT_STATE_IDLE;
        p[i].last_ev = -1;
    }
    rp->procs = p;
    rp->nprocs = nn;
    return &rp->procs[id];
}

/* The replay reaches the window's start: the task occurrences still open from
 * before it count from there. */
static void window_starts(rt_replay *rp)
{
    rp->past_start = 1;
    for (int i = 0; i < rp->ntasks; i++) {
        rt_task_stat *t = &rp->tasks[i];
        if (t->open_before > 0) {
            t->count += t->open_before;
            if (rp->o.start < t->first_start)
                t->first_start = rp->o.start;
            t->open_before = 0;
        }
    }
}

/* Length of [a, b] inside the window (all of it without one); 0 when empty. */
static double clipped(const rt_replay *rp, double a, double b)
{
    if (rp->o.window) {
        if (a < rp->o.start)
            a = rp->o.start;
        if (b > rp->o.stop)
            b = rp->o.stop;
    }
    return b > a ? b - a : 0;
}

static void add_time(rt_replay *rp, proc_state *p, int state, double a, double b)
{
    p->pub.time_in[state] += clipped(rp, a, b);
}

static int in_window(const rt_replay *rp, double t)
{
    return !rp->o.window || (t >= rp->o.start && t <= rp->o.stop);
}

/* State from the innermost non-tracing open region's class (rt_tclass_state); outside
 * every region, from the definitions' outside class (busy unless the format says otherwise). */
static int compute_state(const rt_replay *rp, const proc_state *p)
{
    for (int i = p->nstack - 1; i >= 0; i--)
        if (!p->stack[i].tracing)
            return rt_tclass_state(p->stack[i].cls);
    return rt_tclass_state(rt_tdefs_outside(rp->defs));
}

/* The task: the innermost open user-class region. */
static int compute_task(const proc_state *p)
{
    for (int i = p->nstack - 1; i >= 0; i--)
        if (p->stack[i].cls == RT_TC_USER)
            return p->stack[i].event;
    return -1;
}

/* The opts' callback fn, then every tap's, with the arguments after ud. */
#define NOTIFY(rp, fn, ...)                                          \
    do {                                                             \
        if ((rp)->o.fn)                                              \
            (rp)->o.fn((rp)->o.ud, __VA_ARGS__);                     \
        for (int ti_ = 0; ti_ < (rp)->ntaps; ti_++)                  \
            if ((rp)->taps[ti_].fn)                                  \
                (rp)->taps[ti_].fn((rp)->taps[ti_].ud, __VA_ARGS__); \
    } while (0)

static void notify_state(rt_replay *rp, int proc, double t, int old, int new)
{
    NOTIFY(rp, on_state, proc, t, old, new);
}

static void notify_task(rt_replay *rp, int proc, double t, int old, int new)
{
    NOTIFY(rp, on_task, proc, t, old, new);
}

int rt_replay_add_tap(rt_replay *rp, const rt_replay_tap *tap)
{
    if (rp->ntaps >= RT_REPLAY_MAXTAPS)
        return RT_ERANGE;
    rp->taps[rp->ntaps++] = *tap;
    return RT_OK;
}

void rt_replay_remove_tap(rt_replay *rp, void *ud)
{
    for (int i = 0; i < rp->ntaps; i++)
        if (rp->taps[i].ud == ud) {
            memmove(rp->taps + i, rp->taps + i + 1, (size_t)(rp->ntaps - i - 1) * sizeof *rp->taps);
            rp->ntaps--;
            i--;
        }
}

/* After the stack changed at time t (already accounted): new state and task. */
static void restate(rt_replay *rp, proc_state *p, double t)
{
    int s = compute_state(rp, p);
    if (s != p->pub.state) {
        int old = p->pub.state;
        p->pub.state = s;
        notify_state(rp, p->pub.id, t, old, s);
    }
    int task = compute_task(p);
    if (task != p->pub.task) {
        int old = p->pub.task;
        p->pub.task = task;
        notify_task(rp, p->pub.id, t, old, task);
    }
    p->pub.depth = p->n_user + p->n_sys;
}

static rt_event_stat *event_row_find(proc_state *p, int event);

/* p's table row of event (added when new; NULL: out of memory); the last one found is tried first. */
static inline rt_event_stat *event_row(proc_state *p, int event)
{
    if (p->last_ev >= 0 && p->ev[p->last_ev].event == event)
        return &p->ev[p->last_ev];
    return event_row_find(p, event);
}

static rt_event_stat *event_row_find(proc_state *p, int event)
{
    int lo = 0, hi = p->pub.nevents;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (p->ev[mid].event < event)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < p->pub.nevents && p->ev[lo].event == event) {
        p->last_ev = lo;
        return &p->ev[lo];
    }
    if (rt_grow((void **)&p->ev, &p->capev, p->pub.nevents + 1, sizeof *p->ev) != RT_OK)
        return NULL;
    memmove(p->ev + lo + 1, p->ev + lo, (size_t)(p->pub.nevents - lo) * sizeof *p->ev);
    memset(&p->ev[lo], 0, sizeof p->ev[lo]);
    p->ev[lo].event = event;
    p->pub.nevents++;
    p->last_ev = lo;
    return &p->ev[lo];
}

static rt_task_stat *task_row(rt_replay *rp, int task)
{
    int lo = 0, hi = rp->ntasks;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (rp->tasks[mid].task < task)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < rp->ntasks && rp->tasks[lo].task == task)
        return &rp->tasks[lo];
    if (rt_grow((void **)&rp->tasks, &rp->captasks, rp->ntasks + 1, sizeof *rp->tasks) != RT_OK)
        return NULL;
    memmove(rp->tasks + lo + 1, rp->tasks + lo, (size_t)(rp->ntasks - lo) * sizeof *rp->tasks);
    rt_task_stat *t = &rp->tasks[lo];
    memset(t, 0, sizeof *t);
    t->task = task;
    t->first_start = INFINITY;
    t->last_end = -INFINITY;
    rp->ntasks++;
    return t;
}

/* ---- new / free ---- */

static rt_replay *replay_alloc(const rt_replay_opts *opts, rt_err *err)
{
    rt_replay *rp = calloc(1, sizeof *rp);
    if (!rp) {
        rt_err_set(err, RT_ENOMEM, "replay: out of memory");
        return NULL;
    }
    if (opts)
        rp->o = *opts;
    if (rp->o.proc_events && rp->o.nproc_events > 0) {
        rp->ends = malloc((size_t)rp->o.nproc_events * sizeof *rp->ends);
        if (!rp->ends) {
            free(rp);
            rt_err_set(err, RT_ENOMEM, "replay: out of memory");
            return NULL;
        }
        memcpy(rp->ends, rp->o.proc_events, (size_t)rp->o.nproc_events * sizeof *rp->ends);
        rp->nends = rp->o.nproc_events;
    }
    rp->o.proc_events = NULL;
    rp->o.nproc_events = 0;
    rt_chanmap_init(&rp->chans, sizeof(chan));
    rp->chan_sweep_at = 1024;
    rp->t0 = INFINITY;
    rp->t1 = -INFINITY;
    rp->now = -INFINITY;
    rp->last_proc = -1;
    return rp;
}

/* A source's warnings join the replay's (when the source has no listener of its own). */
static void source_warning(void *ud, const char *msg)
{
    warn(ud, "%s", msg);
}

rt_replay *rt_replay_new(rt_tsource *src, const rt_replay_opts *opts, rt_err *err)
{
    rt_replay *rp = replay_alloc(opts, err);
    if (!rp)
        return NULL;
    rp->src = src;
    if (src) {
        rp->defs = src->defs;
        if (!src->on_warning) {
            src->on_warning = source_warning;
            src->ud = rp;
        }
    } else {
        rp->own_defs = rt_tdefs_new();
        if (!rp->own_defs) {
            free(rp->ends);
            free(rp);
            rt_err_set(err, RT_ENOMEM, "replay: out of memory");
            return NULL;
        }
        rp->defs = rp->own_defs;
    }
    return rp;
}

void rt_replay_free(rt_replay *rp)
{
    if (!rp)
        return;
    for (int i = 0; i < rp->nprocs; i++) {
        free(rp->procs[i].stack);
        free(rp->procs[i].ev);
        free(rp->procs[i].held);
        free(rp->procs[i].stack_events);
    }
    free(rp->procs);
    rt_cp_free(rp->cps);
    for (size_t i = 0; i < rp->chans.cap; i++) {
        chan *c = rt_chanmap_slot(&rp->chans, i);
        if (c) {
            fifo_free(&c->sends);
            fifo_free(&c->recvs);
        }
    }
    rt_chanmap_free(&rp->chans);
    free(rp->tasks);
    free(rp->ends);
    for (int i = 0; i < rp->ncolls; i++) {
        coll_series *c = &rp->colls[i];
        for (int k = 0; k < c->capinst; k++) {
            free(c->inst[k].procs);
            free(c->inst[k].begin);
            free(c->inst[k].end);
            free(c->inst[k].bytes);
        }
        free(c->inst);
        free(c->next_k);
    }
    free(rp->colls);
    free(rp->mat_pc);
    free(rp->mat_tc);
    free(rp->mat_pb);
    free(rp->mat_tb);
    for (int i = 0; i < rp->nwarn; i++)
        free(rp->warn[i]);
    if (rp->src && rp->src->on_warning == source_warning && rp->src->ud == rp) {
        rp->src->on_warning = NULL;
        rp->src->ud = NULL;
    }
    rt_tdefs_free(rp->own_defs);
    free(rp);
}

rt_tdefs *rt_replay_defs(const rt_replay *rp) { return rp->defs; }
rt_tsource *rt_replay_source(const rt_replay *rp) { return rp->src; }

/* A region's name for warnings ("region N" when never defined). */
static const char *region_name(const rt_replay *rp, int id, char *buf, size_t cap)
{
    const rt_tregion *r = rt_tdefs_region(rp->defs, id);
    if (r && r->name[0])
        return r->name;
    snprintf(buf, cap, "region %d", id);
    return buf;
}

/*
 * Whether closing region a while region b is still open inside it is worth a
 * warning: only when both belong to the same group. Regions of different
 * groups nest independently (a Pajé container's several state types, each
 * pushed and popped on its own), so interleaving them is how such traces are.
 */
static int same_group(const rt_replay *rp, int a, int b)
{
    const rt_tregion *ra = rt_tdefs_region(rp->defs, a), *rb = rt_tdefs_region(rp->defs, b);
    return !ra || !rb || strcmp(ra->group, rb->group) == 0;
}

/* ---- messages ---- */

/* Grow the matrix so processor id has a row and a column. 0 on allocation failure. */
static int matrix_fit(rt_replay *rp, int id)
{
    if (id < rp->mat_n)
        return 1;
    int n = rp->mat_n ? rp->mat_n : 8;
    while (n <= id)
        n *= 2;
    size_t nn = (size_t)n * (size_t)n;
    int64_t *pc = calloc(nn, sizeof *pc), *tc = calloc(nn, sizeof *tc);
    double *pb = calloc(nn, sizeof *pb), *tb = calloc(nn, sizeof *tb);
    if (!pc || !tc || !pb || !tb) {
        free(pc);
        free(tc);
        free(pb);
        free(tb);
        return 0;
    }
    for (int i = 0; i < rp->mat_n; i++) {
        size_t from = (size_t)i * (size_t)rp->mat_n, to = (size_t)i * (size_t)n, k = (size_t)rp->mat_n;
        memcpy(pc + to, rp->mat_pc + from, k * sizeof *pc);
        memcpy(tc + to, rp->mat_tc + from, k * sizeof *tc);
        memcpy(pb + to, rp->mat_pb + from, k * sizeof *pb);
        memcpy(tb + to, rp->mat_tb + from, k * sizeof *tb);
    }
    free(rp->mat_pc);
    free(rp->mat_tc);
    free(rp->mat_pb);
    free(rp->mat_tb);
    rp->mat_pc = pc;
    rp->mat_tc = tc;
    rp->mat_pb = pb;
    rp->mat_tb = tb;
    rp->mat_n = n;
    return 1;
}

void rt_replay_matrix(const rt_replay *rp, rt_replay_matrix_view *m)
{
    m->n = rp->mat_n;
    m->pending_count = rp->mat_pc;
    m->total_count = rp->mat_tc;
    m->pending_bytes = rp->mat_pb;
    m->total_bytes = rp->mat_tb;
}

static void emit_message(rt_replay *rp, int src, int dst, int comm, long tag, double bytes, double ts, double tr)
{
    rt_message m = {src, dst, tag, bytes, ts, tr, tr < ts, comm};
    if (!own(rp, dst)) /* the owner of the receiver counts it */
        return;
    if (in_window(rp, ts) || in_window(rp, tr))
        rp->tot.messages++;
    if (m.tachyon) {
        rp->tot.tachyons++;
        warn(rp, "tachyon: message from processor %d to %d (tag %ld) received at %.6f before it was sent at %.6f",
             src, dst, tag, tr, ts);
    }
    NOTIFY(rp, on_message, &m);
}

static int add_wait(rt_replay *rp, proc_state *p, double tr, double ts, double bytes, long tag, int src, int comm)
{
    cp_wait w = {tr, ts, bytes, tag, src, comm, p->last_wait1, 0};
    return rt_cp_add(rp, (int)(p - rp->procs), &p->last_wait1, &w);
}

static int do_send(rt_replay *rp, int self, int dst, int comm, long tag, double bytes, double t)
{
    chan *c = chan_find(rp, self, dst, comm, tag);
    proc_state *q = proc_at(rp, dst); /* may move rp->procs */
    if (!c || !q)
        return RT_ENOMEM;
    proc_state *p = &rp->procs[self];
    int mine = own(rp, dst); /* queues and pending totals are the receiver's owner's */
    if (in_window(rp, t) && own(rp, self)) {
        p->pub.sent++;
        p->pub.sent_bytes += bytes;
    }
    int mi = -1;
    if (rp->o.matrix && mine) {
        if (!matrix_fit(rp, self > dst ? self : dst))
            return RT_ENOMEM;
        mi = self * rp->mat_n + dst;
        rp->mat_tc[mi]++;
        rp->mat_tb[mi] += bytes;
    }
    if (c->recvs.n > 0) { /* a receive already happened: tachyon */
        double tr, b;
        fifo_pop(&c->recvs, &tr, &b);
        if (mine)
            rp->tot.unmatched_recv--;
        rt_message m = {self, dst, tag, bytes, t, NAN, 1, comm};
        NOTIFY(rp, on_send, &m);
        emit_message(rp, p->pub.id, dst, comm, tag, bytes, t, tr);
        return RT_OK;
    }
    if (!fifo_push(&c->sends, t, bytes))
        return RT_ENOMEM;
    if (mi >= 0) {
        rp->mat_pc[mi]++;
        rp->mat_pb[mi] += bytes;
    }
    p->pub.pending_out++;
    p->pub.pending_out_bytes += bytes;
    rt_message m = {self, dst, tag, bytes, t, NAN, 0, comm};
    NOTIFY(rp, on_send, &m);
    q->pub.queue++;
    q->pub.queue_bytes += bytes;
    if (!mine)
        return RT_OK;
    rp->tot.pending++;
    rp->tot.pending_bytes += bytes;
    if (!in_window(rp, t)) /* high-water marks: reached by a send inside the window */
        return RT_OK;
    if (q->pub.queue > q->pub.max_queue)
        q->pub.max_queue = q->pub.queue;
    if (q->pub.queue_bytes > q->pub.max_queue_bytes)
        q->pub.max_queue_bytes = q->pub.queue_bytes;
    if (rp->tot.pending > rp->tot.max_pending)
        rp->tot.max_pending = rp->tot.pending;
    if (rp->tot.pending_bytes > rp->tot.max_pending_bytes)
        rp->tot.max_pending_bytes = rp->tot.pending_bytes;
    return RT_OK;
}

/* A receive on p; waited: it ended a wait that began at wentry. */
static int do_recv(rt_replay *rp, proc_state *p, held_recv *h)
{
    int src = h->src;
    double t = h->time;
    int mine = own(rp, p->pub.id);
    if (!peer_ok(rp, src)) {
        if (mine)
            warn(rp, "processor %d: receive at %.6f names no source processor (%d); not paired", p->pub.id, t, src);
        return RT_OK;
    }
    chan *c = chan_find(rp, src, p->pub.id, h->comm, h->tag);
    if (!c)
        return RT_ENOMEM;
    if (in_window(rp, t) && mine) {
        p->pub.received++;
        p->pub.received_bytes += h->bytes;
    }
    if (c->sends.n > 0) {
        double ts, sb;
        fifo_pop(&c->sends, &ts, &sb);
        p->pub.queue--;
        p->pub.queue_bytes -= sb;
        if (mine) {
            rp->tot.pending--;
            rp->tot.pending_bytes -= sb;
        }
        proc_state *sp = &rp->procs[src]; /* it sent, so it exists */
        sp->pub.pending_out--;
        sp->pub.pending_out_bytes -= sb;
        if (rp->o.matrix && mine && src < rp->mat_n && p->pub.id < rp->mat_n) {
            int mi = src * rp->mat_n + p->pub.id;
            rp->mat_pc[mi]--;
            rp->mat_pb[mi] -= sb;
        }
        h->paired = 1;
        h->ts = ts;
        h->sb = sb;
        emit_message(rp, src, p->pub.id, h->comm, h->tag, sb, ts, t);
        return RT_OK;
    }
    if (!fifo_push(&c->recvs, t, h->bytes))
        return RT_ENOMEM;
    if (mine)
        rp->tot.unmatched_recv++;
    return RT_OK;
}

/* ---- collective instances ---- */

static coll_series *coll_find(rt_replay *rp, int region, int comm)
{
    for (int i = rp->ncolls - 1; i >= 0; i--)
        if (rp->colls[i].region == region && rp->colls[i].comm == comm)
            return &rp->colls[i];
    if (rt_grow((void **)&rp->colls, &rp->capcolls, rp->ncolls + 1, sizeof *rp->colls) != RT_OK)
        return NULL;
    coll_series *c = &rp->colls[rp->ncolls++];
    memset(c, 0, sizeof *c);
    c->region = region;
    c->comm = comm;
    return c;
}

/* Participants a complete instance of c has. */
static int coll_expected(const rt_replay *rp, const coll_series *c)
{
    const rt_tcomm *cm = c->comm >= 0 ? rt_tdefs_comm(rp->defs, c->comm) : NULL;
    if (cm && cm->size > 0)
        return cm->size;
    int n = rt_tdefs_nprocs(rp->defs), m = rt_replay_nprocs(rp);
    if (rp->nends > n)
        n = rp->nends;
    return m > n ? m : n;
}

static void coll_emit(rt_replay *rp, const coll_series *c, int64_t k, const coll_inst *in, int complete)
{
    rt_collective v = {c->region, c->comm, k, in->n, in->procs, in->begin, in->end, in->bytes,
                       INFINITY, -INFINITY, 0, complete};
    for (int i = 0; i < in->n; i++) {
        if (in->begin[i] < v.first_begin)
            v.first_begin = in->begin[i];
        if (in->end[i] > v.last_end)
            v.last_end = in->end[i];
        v.total_bytes += in->bytes[i];
    }
    rp->tot.coll_instances++;
    rp->tot.coll_bytes += v.total_bytes;
    NOTIFY(rp, on_collective, &v);
}

/* Drop instance slot 0 of c (its buffers move to the end for reuse). */
static void coll_pop(coll_series *c)
{
    coll_inst first = c->inst[0];
    memmove(c->inst, c->inst + 1, (size_t)(c->capinst - 1) * sizeof *c->inst);
    first.n = 0;
    c->inst[c->capinst - 1] = first;
    c->ninst--;
    c->base++;
}

/* One processor's occurrence of a collective, from begin to end. */
static int coll_occurrence(rt_replay *rp, int proc, int region, int comm, double begin, double end, double bytes)
{
    coll_series *c = coll_find(rp, region, comm);
    if (!c)
        return RT_ENOMEM;
    if (proc >= c->nk) {
        int nk = c->nk ? c->nk : 8;
        while (nk <= proc)
            nk *= 2;
        int64_t *k = realloc(c->next_k, (size_t)nk * sizeof *k);
        if (!k)
            return RT_ENOMEM;
        memset(k + c->nk, 0, (size_t)(nk - c->nk) * sizeof *k);
        c->next_k = k;
        c->nk = nk;
    }
    int64_t k = c->next_k[proc]++;
    if (k < c->base)
        return RT_OK; /* its instance was already reported */
    int64_t slot = k - c->base;
    while (c->ninst <= slot) {
        if (c->ninst == c->capinst) {
            int nc = c->capinst ? c->capinst * 2 : 4;
            coll_inst *ni = realloc(c->inst, (size_t)nc * sizeof *ni);
            if (!ni)
                return RT_ENOMEM;
            memset(ni + c->capinst, 0, (size_t)(nc - c->capinst) * sizeof *ni);
            c->inst = ni;
            c->capinst = nc;
        }
        c->inst[c->ninst++].n = 0;
    }
    coll_inst *in = &c->inst[slot];
    if (in->n < 0)
        return RT_OK; /* reported complete already: a participant beyond the expected count */
    if (in->n == in->cap) {
        int nc = in->cap ? in->cap * 2 : 8;
        int *pr = realloc(in->procs, (size_t)nc * sizeof *pr);
        if (pr)
            in->procs = pr;
        double *b = realloc(in->begin, (size_t)nc * sizeof *b);
        if (b)
            in->begin = b;
        double *e = realloc(in->end, (size_t)nc * sizeof *e);
        if (e)
            in->end = e;
        double *y = realloc(in->bytes, (size_t)nc * sizeof *y);
        if (y)
            in->bytes = y;
        if (!pr || !b || !e || !y)
            return RT_ENOMEM;
        in->cap = nc;
    }
    in->procs[in->n] = proc;
    in->begin[in->n] = begin;
    in->end[in->n] = end;
    in->bytes[in->n] = bytes;
    in->n++;
    if (in->n >= coll_expected(rp, c)) {
        coll_emit(rp, c, k, in, 1);
        in->n = -1; /* reported; popped once the older ones are */
    }
    while (c->ninst > 0 && c->inst[0].n < 0)
        coll_pop(c);
    return RT_OK;
}

/* At the end: report the instances still gathering as incomplete. */
static void coll_flush(rt_replay *rp)
{
    for (int i = 0; i < rp->ncolls; i++) {
        coll_series *c = &rp->colls[i];
        while (c->ninst > 0) {
            if (c->inst[0].n > 0)
                coll_emit(rp, c, c->base, &c->inst[0], 0);
            coll_pop(c);
        }
    }
}

/* ---- regions ---- */

static void emit_interval(rt_replay *rp, proc_state *p, const open_ev *e, double exit, const rt_tevent *xev,
                          int unnested)
{
    int wanted = rp->o.on_interval != NULL;
    for (int i = 0; i < rp->ntaps && !wanted; i++)
        wanted = rp->taps[i].on_interval != NULL;
    if (!wanted)
        return;
    rt_interval iv = {.proc = p->pub.id, .task = e->task, .event = e->event, .entry = e->entry,
                      .exit = exit, .depth = e->tracing ? -1 : e->depth, .id = e->id,
                      .parent = e->parent, .parent_event = e->parent_event,
                      .user_depth = e->user_depth, .sys_depth = e->sys_depth,
                      .bytes_out = e->bytes_out, .bytes_in = e->bytes_in, .closed = xev != NULL,
                      .unnested = unnested,
                      .entry_ndata = e->entry_ndata};
    memcpy(iv.entry_data, e->entry_data, sizeof iv.entry_data);
    if (xev) {
        iv.exit_ndata = xev->ndata < RT_INTERVAL_DATA ? xev->ndata : RT_INTERVAL_DATA;
        memcpy(iv.exit_data, xev->data, (size_t)iv.exit_ndata * sizeof iv.exit_data[0]);
    }
    NOTIFY(rp, on_interval, &iv);
}

/* Bytes sent by the innermost open region at time t (interval and table). */
static void credit_out(rt_replay *rp, proc_state *p, double bytes, double t)
{
    if (!(bytes > 0) || p->nstack == 0)
        return;
    open_ev *e = &p->stack[p->nstack - 1];
    e->bytes_out += bytes;
    rt_event_stat *row = event_row(p, e->event);
    if (row && in_window(rp, t)) {
        row->bytes_out += bytes;
        row->bytes += bytes;
    }
}

/* Bytes received into open region i at time t. */
static void credit_in(rt_replay *rp, proc_state *p, int i, double bytes, double t)
{
    if (!(bytes > 0) || i < 0)
        return;
    open_ev *e = &p->stack[i];
    e->bytes_in += bytes;
    rt_event_stat *row = event_row(p, e->event);
    if (row && in_window(rp, t)) {
        row->bytes_in += bytes;
        row->bytes += bytes;
    }
}

/* A region's class (user when never defined), through a small direct-mapped
 * cache of region pointers (they stay valid and see redefinitions). */
static int region_class(rt_replay *rp, int id)
{
    region_slot *c = &rp->rcache[(unsigned)id & (RT_REPLAY_RCACHE - 1)];
    if (c->r && c->id == id)
        return c->r->cls;
    const rt_tregion *r = rt_tdefs_region(rp->defs, id);
    if (!r)
        return RT_TC_USER;
    c->id = id;
    c->r = r;
    return r->cls;
}

static int do_enter(rt_replay *rp, proc_state *p, const rt_tevent *ev)
{
    if ((size_t)p->nstack + 1 > p->capstack && /* the call only when it must grow */
        rt_grow((void **)&p->stack, &p->capstack, p->nstack + 1, sizeof *p->stack) != RT_OK)
        return RT_ENOMEM;
    /* every field set one by one (a memset of the whole entry costs more than
     * the rest of an entry event on the live path) */
    open_ev *e = &p->stack[p->nstack];
    e->event = ev->region;
    e->cls = region_class(rp, ev->region);
    e->task = ev->task;
    e->entry = ev->time;
    e->tracing = e->cls == RT_TC_TRACING;
    e->bytes_out = e->bytes_in = 0;
    e->had_coll = 0;
    e->id = rp->next_id++;
    e->entry_ndata = ev->ndata < RT_INTERVAL_DATA ? ev->ndata : RT_INTERVAL_DATA;
    for (int i = 0; i < RT_INTERVAL_DATA; i++)
        e->entry_data[i] = i < e->entry_ndata ? ev->data[i] : 0;
    e->parent = -1;
    e->parent_event = 0;
    for (int i = p->nstack - 1; i >= 0; i--) {
        if (!p->stack[i].tracing) {
            e->parent = p->stack[i].id;
            e->parent_event = p->stack[i].event;
            break;
        }
    }
    e->depth = p->n_user + p->n_sys;
    e->user_depth = p->n_user;
    e->sys_depth = p->n_sys;
    p->nstack++;
    if (!e->tracing) {
        if (e->cls == RT_TC_USER)
            p->n_user++;
        else
            p->n_sys++;
    }
    rt_event_stat *row = event_row(p, ev->region);
    if (!row)
        return RT_ENOMEM;
    if (in_window(rp, ev->time))
        row->count++;
    credit_out(rp, p, ev->bytes, ev->time);
    if (e->cls == RT_TC_USER) {
        rt_task_stat *t = task_row(rp, ev->region);
        if (!t)
            return RT_ENOMEM;
        if (in_window(rp, ev->time)) {
            if (ev->time < t->first_start)
                t->first_start = ev->time;
            t->count++;
        } else if (ev->time < rp->o.start) { /* counted if still open when the window starts */
            t->open_before++;
        }
        t->active++;
    }
    return RT_OK;
}

static void pop_at(proc_state *p, int i)
{
    open_ev *e = &p->stack[i];
    if (!e->tracing) {
        if (e->cls == RT_TC_USER)
            p->n_user--;
        else
            p->n_sys--;
    }
    if (i < p->nstack - 1) /* nearly always the innermost: nothing to move */
        memmove(p->stack + i, p->stack + i + 1, (size_t)(p->nstack - i - 1) * sizeof *p->stack);
    p->nstack--;
}

/* xev: the LEAVE event, NULL when the end of the trace closes the region. */
static void close_event(rt_replay *rp, proc_state *p, int i, double t, const rt_tevent *xev)
{
    open_ev e = p->stack[i];
    rt_event_stat *row = event_row(p, e.event);
    if (row)
        row->time += clipped(rp, e.entry, t);
    if (e.cls == RT_TC_COLLECTIVE && !e.had_coll && rp->o.own_size <= 1 &&
        coll_occurrence(rp, p->pub.id, e.event, -1, e.entry, t, e.bytes_out + e.bytes_in) != RT_OK)
        warn(rp, "replay: out of memory gathering collective instances");
    if (e.cls == RT_TC_USER) {
        rt_task_stat *ts = task_row(rp, e.event);
        if (ts) {
            /* the occurrence clipped to the window (all of it without one) */
            int overlaps = !rp->o.window || (t >= rp->o.start && e.entry <= rp->o.stop);
            double end = rp->o.window && t > rp->o.stop ? rp->o.stop : t;
            if (rp->o.window && e.entry < rp->o.start && t < rp->o.start && ts->open_before > 0)
                ts->open_before--; /* ended before the window */
            if (overlaps && end > ts->last_end)
                ts->last_end = end;
            ts->active--;
        }
    }
    int unnested = i < p->nstack - 1;
    pop_at(p, i);
    emit_interval(rp, p, &e, t, xev, unnested);
}

/*
 * Replay the receives held on p: they end open region i (-1 none; waited when
 * its class is idle), or, with i == -2, the innermost open region (no LEAVE came).
 */
static int flush_held(rt_replay *rp, proc_state *p, int i, int waited, double wentry)
{
    if (i == -2) {
        i = p->nstack - 1;
        waited = i >= 0 && !p->stack[i].tracing && rt_tclass_state(p->stack[i].cls) == RT_STATE_IDLE;
        wentry = i >= 0 ? p->stack[i].entry : 0;
    }
    int n = p->nheld, last = -1;
    p->nheld = 0;
    for (int k = 0; k < n; k++) {
        held_recv *h = &p->held[k];
        if (i >= 0)
            credit_in(rp, p, i, h->bytes, h->time);
        /* the message received last (of equal times, sent last; unpaired: not sent yet) ended the wait */
        const held_recv *l = last >= 0 ? &p->held[last] : NULL;
        if (!l || h->time > l->time || (h->time == l->time && (!h->paired || (l->paired && h->ts >= l->ts))))
            last = k;
    }
    /* the wait lasted (its receive came after it began); a tachyon cannot be followed back */
    const held_recv *h = last >= 0 ? &p->held[last] : NULL;
    if (h && h->paired && waited && rp->o.critical_path && h->time > wentry && h->ts <= h->time)
        return add_wait(rp, p, h->time, h->ts, h->sb, h->tag, h->src, h->comm);
    return RT_OK;
}

static int do_leave(rt_replay *rp, proc_state *p, const rt_tevent *ev)
{
    int i = p->nstack - 1;
    while (i >= 0 && p->stack[i].event != ev->region)
        i--;
    char w[64], at[160];
    if (i < 0) {
        rp->tot.unmatched_exits++;
        warn(rp, "processor %d: exit of %s at %.6f (%s) closes no open event", p->pub.id,
             region_name(rp, ev->region, w, sizeof w), ev->time, event_place(rp, ev, p->pub.events, at, sizeof at));
        /* the messages it carries were still received */
        return p->nheld ? flush_held(rp, p, -1, 0, 0) : RT_OK;
    }
    if (i != p->nstack - 1 && !p->stack[i].tracing && same_group(rp, ev->region, p->stack[p->nstack - 1].event)) {
        /* the rule for pairs that do not nest: the exit closes its own region alone; the
         * regions opened inside it stay open until their own exits */
        char w2[64];
        rp->tot.unnested_exits++;
        warn(rp, "processor %d: exit of %s at %.6f (%s) closes it out of order (%s still open inside it, left open)",
             p->pub.id, region_name(rp, ev->region, w, sizeof w), ev->time,
             event_place(rp, ev, p->pub.events, at, sizeof at),
             region_name(rp, p->stack[p->nstack - 1].event, w2, sizeof w2));
    }
    double open_entry = p->stack[i].entry;
    int waited = !p->stack[i].tracing && rt_tclass_state(p->stack[i].cls) == RT_STATE_IDLE;
    credit_in(rp, p, i, ev->bytes_in, ev->time);
    for (int k = 0; k < p->nheld; k++)
        credit_in(rp, p, i, p->held[k].bytes, p->held[k].time);
    close_event(rp, p, i, ev->time, ev);
    return p->nheld ? flush_held(rp, p, -1, waited, open_entry) : RT_OK;
}

/* A receive: paired with its send now (queues and pending counts change at the
 * receive), held for the LEAVE that tells which region it ends. */
static int hold_recv(rt_replay *rp, proc_state *p, const rt_tevent *ev)
{
    if ((size_t)p->nheld + 1 > p->capheld &&
        rt_grow((void **)&p->held, &p->capheld, p->nheld + 1, sizeof *p->held) != RT_OK)
        return RT_ENOMEM;
    held_recv *h = &p->held[p->nheld++];
    *h = (held_recv){ev->time, ev->bytes > 0 ? ev->bytes : 0, (long)ev->tag, ev->peer, ev->comm, 0, 0, 0};
    return do_recv(rp, p, h);
}

/* Stack index of the innermost open region with this id, -1 when none. */
static int open_index(const proc_state *p, int region)
{
    int i = p->nstack - 1;
    while (i >= 0 && p->stack[i].event != region)
        i--;
    return i;
}

/* A region other than the tracer's is open inside stack index i. */
static int open_inside(const proc_state *p, int i)
{
    for (int k = i + 1; k < p->nstack; k++)
        if (!p->stack[k].tracing) /* the tracer's own regions nest nothing */
            return 1;
    return 0;
}

/* Apply p's deferred LEAVE (its time is accounted already). */
static int apply_deferred(rt_replay *rp, proc_state *p)
{
    int id = p->pub.id;
    p->has_deferred = 0;
    int st = do_leave(rp, p, &p->deferred);
    restate(rp, &rp->procs[id], p->deferred.time);
    return st;
}

/* ev (a LEAVE on p) closes a region opened inside the deferred LEAVE's region, at its time. */
static int inner_of_deferred(const proc_state *p, const rt_tevent *ev)
{
    if (ev->kind != RT_TE_LEAVE || ev->time != p->deferred.time)
        return 0;
    int outer = open_index(p, p->deferred.region), inner = open_index(p, ev->region);
    return outer >= 0 && inner > outer;
}

/*
 * A LEAVE closing a region with open regions inside it (the same-time rule in
 * rt_replay.h): hold it when the source may still give their LEAVEs at this
 * time. 1 when held. Only one is held per processor; receives held for a
 * LEAVE keep their order (no hold then).
 */
static int defer_leave(proc_state *p, const rt_tevent *ev)
{
    if (p->has_deferred || p->nheld > 0)
        return 0;
    int i = open_index(p, ev->region);
    if (i < 0 || !open_inside(p, i))
        return 0;
    p->deferred = *ev;
    p->deferred.raw = NULL;
    p->has_deferred = 1;
    return 1;
}

static void proc_end(rt_replay *rp, int i);

/*
 * A distributed part's event of another rank's processor (a SEND to, or a RECV
 * from, one of its own): it only pairs messages on the channel between them.
 */
static int feed_foreign(rt_replay *rp, const rt_tevent *ev, rt_err *err)
{
    int st = RT_OK;
    if (ev->kind == RT_TE_SEND && peer_ok(rp, ev->peer) && own(rp, ev->peer)) {
        if (!proc_at(rp, ev->proc))
            st = RT_ENOMEM;
        else
            st = do_send(rp, ev->proc, ev->peer, ev->comm, (long)ev->tag, ev->bytes > 0 ? ev->bytes : 0, ev->time);
    } else if (ev->kind == RT_TE_RECV && peer_ok(rp, ev->peer) && own(rp, ev->peer)) {
        proc_state *p = proc_at(rp, ev->proc);
        held_recv h = {ev->time, ev->bytes > 0 ? ev->bytes : 0, (long)ev->tag, ev->peer, ev->comm, 0, 0, 0};
        st = p ? do_recv(rp, p, &h) : RT_ENOMEM;
    }
    rp->last_raw = ev->raw;
    rp->last_proc = ev->proc;
    return st == RT_OK ? RT_OK : rt_err_set(err, st, "replay: out of memory");
}

/* The replay proper of one event; first: it starts a record of the file. */
static int feed(rt_replay *rp, const rt_tevent *ev, int first, rt_err *err)
{
    if (ev->proc < 0 || ev->proc >= RT_TE_MAXPROC)
        return rt_err_set(err, RT_EINVAL, "replay: processor %d out of range", ev->proc);
    if (!own(rp, ev->proc))
        return feed_foreign(rp, ev, err);
    proc_state *p = proc_at(rp, ev->proc);
    if (!p)
        return rt_err_set(err, RT_ENOMEM, "replay: out of memory");
    if (p->has_deferred && !inner_of_deferred(p, ev)) {
        int dst = apply_deferred(rp, p);
        p = &rp->procs[ev->proc];
        if (dst != RT_OK)
            return rt_err_set(err, dst, "replay: out of memory");
    }
    rp->events++;
    p->pub.events++;
    if (ev->kind > 0 && ev->kind < RT_TE_KIND_COUNT)
        rp->tot.kinds[ev->kind]++;
    double t = ev->time;
    if (p->pub.ended) { /* more events than the prescan counted: live again */
        p->pub.ended = 0;
        p->pub.state = compute_state(rp, p);
        if (p->pub.state != RT_STATE_IDLE)
            notify_state(rp, p->pub.id, t < p->since ? p->since : t, RT_STATE_IDLE, p->pub.state);
    }
    if (!p->pub.seen) {
        p->pub.seen = 1;
        p->pub.first = t;
        p->since = t;
        p->pub.state = compute_state(rp, p); /* live from its first event */
        if (p->pub.state != RT_STATE_IDLE)
            notify_state(rp, p->pub.id, t, RT_STATE_IDLE, p->pub.state);
    }
    if (t < rp->now && !rp->unordered) {
        rp->unordered = 1;
        char at[160];
        warn(rp, "records are not in time order (%s: %.6f after %.6f); the replay follows the file's order",
             event_place(rp, ev, p->pub.events, at, sizeof at), t, rp->now);
    }
    if (t < p->since) { /* time went backwards on this processor: hold it */
        char at[160];
        warn(rp, "processor %d: record at %.6f (%s) is earlier than its previous one at %.6f; held there",
             p->pub.id, t, event_place(rp, ev, p->pub.events, at, sizeof at), p->since);
        t = p->since;
    }
    add_time(rp, p, p->pub.state, p->since, t);
    p->since = t;
    p->pub.last = t;
    if (first) {
        p->pub.records++;
        rp->records++;
    }
    if (t < rp->t0)
        rp->t0 = t;
    if (t > rp->t1)
        rp->t1 = t;
    if (t > rp->now)
        rp->now = t;
    if (rp->o.window && !rp->past_start && t >= rp->o.start)
        window_starts(rp);
    NOTIFY(rp, on_event, ev);
    int id = ev->proc, st = RT_OK;
    if (p->nheld > 0 && ev->kind != RT_TE_LEAVE && ev->kind != RT_TE_RECV) {
        st = flush_held(rp, p, -2, 0, 0);
        p = &rp->procs[id];
    }
    if (st == RT_OK) {
        switch (ev->kind) {
        case RT_TE_ENTER:
            p->pub.enters++;
            st = do_enter(rp, p, ev);
            restate(rp, &rp->procs[id], t);
            break;
        case RT_TE_LEAVE:
            if (defer_leave(p, ev))
                break;
            st = do_leave(rp, p, ev);
            p = &rp->procs[id];
            if (st == RT_OK && p->has_deferred && !open_inside(p, open_index(p, p->deferred.region))) {
                rp->tot.reordered_exits++; /* its inner regions closed at its time: now it nests */
                st = apply_deferred(rp, p);
            }
            restate(rp, &rp->procs[id], t);
            break;
        case RT_TE_SEND:
            credit_out(rp, p, ev->bytes, t);
            if (!peer_ok(rp, ev->peer)) {
                char at[160];
                warn(rp, "processor %d: send at %.6f (%s) names no destination processor (%d); not paired",
                     id, t, event_place(rp, ev, p->pub.events, at, sizeof at), ev->peer);
            } else
                st = do_send(rp, id, ev->peer, ev->comm, (long)ev->tag, ev->bytes > 0 ? ev->bytes : 0, t);
            break;
        case RT_TE_RECV:
            st = hold_recv(rp, p, ev);
            break;
        case RT_TE_COLL_BEGIN:
            credit_out(rp, p, ev->bytes, t);
            p->coll_begin = t;
            if (p->nstack > 0)
                p->stack[p->nstack - 1].had_coll = 1;
            break;
        case RT_TE_COLL_END: {
            rp->tot.collectives++;
            credit_out(rp, p, ev->bytes, t);
            credit_in(rp, p, p->nstack - 1, ev->bytes_in, t);
            int reg = p->nstack > 0 ? p->stack[p->nstack - 1].event : -1;
            double b0 = (ev->bytes > 0 ? ev->bytes : 0) + (ev->bytes_in > 0 ? ev->bytes_in : 0);
            if (rp->o.own_size <= 1) /* a distributed part holds some participants only: no instances */
                st = coll_occurrence(rp, id, reg, ev->comm, p->coll_begin <= t ? p->coll_begin : t, t, b0);
            p = &rp->procs[id];
            break;
        }
        default: /* markers: time only */
            break;
        }
    }
    rp->last_raw = ev->raw;
    rp->last_proc = id;
    if (st != RT_OK)
        return rt_err_set(err, st, "replay: out of memory");
    if (id < rp->nends && rp->procs[id].pub.events == rp->ends[id])
        proc_end(rp, id);
    return RT_OK;
}

/* ev continues the record of the previous event (same processor, same raw record). */
static int continues(const rt_replay *rp, const rt_tevent *ev)
{
    return ev->raw && ev->raw == rp->last_raw && ev->proc == rp->last_proc;
}

int rt_replay_feed_event(rt_replay *rp, const rt_tevent *ev, rt_err *err)
{
    return feed(rp, ev, !continues(rp, ev), err);
}

/* Processor i had its last event: pair its held receives, close what is open, turn it idle. */
static void proc_end(rt_replay *rp, int i)
{
    char w[64];
    proc_state *p = &rp->procs[i];
    if (p->has_deferred && apply_deferred(rp, p) != RT_OK)
        warn(rp, "replay: out of memory closing a region of processor %d", i);
    p = &rp->procs[i];
    if (p->nheld > 0 && flush_held(rp, p, -2, 0, 0) != RT_OK)
        warn(rp, "replay: out of memory pairing the last receives of processor %d", i);
    p = &rp->procs[i];
    while (p->nstack > 0) {
        open_ev *e = &p->stack[p->nstack - 1];
        if (!e->tracing) {
            rp->tot.left_open++;
            warn(rp, "processor %d: %s opened at %.6f is still open at the end (closed at %.6f)", i,
                 region_name(rp, e->event, w, sizeof w), e->entry, p->pub.last);
        }
        close_event(rp, p, p->nstack - 1, p->pub.last, NULL);
        p = &rp->procs[i];
    }
    int old = p->pub.state, oldtask = p->pub.task;
    p->pub.state = RT_STATE_IDLE;
    p->pub.task = -1;
    p->pub.depth = 0;
    p->pub.ended = 1;
    if (old != RT_STATE_IDLE)
        notify_state(rp, i, p->pub.last, old, RT_STATE_IDLE);
    if (oldtask != -1)
        notify_task(rp, i, p->pub.last, oldtask, -1);
}

typedef struct last_key {
    double last;
    int id;
} last_key;

static int by_last(const void *a, const void *b)
{
    const last_key *x = a, *y = b;
    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    return x->id - y->id;
}

int rt_replay_finish(rt_replay *rp, rt_err *err)
{
    (void)err;
    if (rp->finished)
        return RT_OK;
    rp->finished = 1;
    /* processors still live turn idle in order of their last event, so on_state times do not go back */
    last_key *order = malloc((size_t)(rp->nprocs > 0 ? rp->nprocs : 1) * sizeof *order);
    int n = 0;
    for (int i = 0; i < rp->nprocs; i++)
        if (rp->procs[i].pub.seen && !rp->procs[i].pub.ended) {
            if (order)
                order[n++] = (last_key){rp->procs[i].pub.last, i};
            else
                proc_end(rp, i);
        }
    if (order) {
        qsort(order, (size_t)n, sizeof *order, by_last);
        for (int k = 0; k < n; k++) {
            /* warnings raised here sort after every event's, by (last time, processor) */
            rp->cur_key = (rt_tkey){INT64_MAX, rt_tkey_of_double(order[k].last), (uint64_t)order[k].id};
            proc_end(rp, order[k].id);
        }
        free(order);
    }
    rp->cur_key = (rt_tkey){INT64_MAX, UINT64_MAX, 0};
    if (rp->o.own_size > 1) /* a part: the span is the whole job's (collective) */
        rt_par_minmax(&rp->t0, &rp->t1);
    for (int i = 0; i < rp->nprocs; i++) {
        proc_state *p = &rp->procs[i];
        if (!p->pub.seen)
            continue;
        add_time(rp, p, RT_STATE_IDLE, rp->t0, p->pub.first);
        add_time(rp, p, RT_STATE_IDLE, p->pub.last, rp->t1);
    }
    coll_flush(rp);
    if (rp->o.own_size > 1) /* a part's counts are summed over the job before they are told */
        return RT_OK;
    char w[120];
    if (rp->tot.pending > 0) {
        rt_replay_unpaired_warning(0, rp->tot.pending, w, sizeof w);
        warn(rp, "%s", w);
    }
    if (rp->tot.unmatched_recv > 0) {
        rt_replay_unpaired_warning(1, rp->tot.unmatched_recv, w, sizeof w);
        warn(rp, "%s", w);
    }
    return RT_OK;
}

/* ---- pulling from the source ---- */

/* Make la the next event; 0 at the end, 1 ready, <0 error status negated. */
static int peek(rt_replay *rp, rt_err *err)
{
    if (rp->has_la)
        return 1;
    if (rp->la_status != RT_OK) { /* met while looking for a record's continuation */
        int st = rp->la_status;
        rp->la_status = RT_OK;
        if (err)
            *err = rp->la_err;
        return -st;
    }
    if (rp->eof || !rp->src)
        return 0;
    int st = rt_tsource_next(rp->src, &rp->la, err);
    if (st == RT_EEOF) {
        rp->eof = 1;
        return 0;
    }
    if (st != RT_OK)
        return -st;
    if (rp->src->has_key)
        rp->la_key = rp->src->key;
    else
        rp->la_key = (rt_tkey){0, 0, (uint64_t)rp->events};
    rp->has_la = 1;
    return 1;
}

/* Replay the look-ahead event and the rest of its record. */
static int feed_record(rt_replay *rp, rt_err *err)
{
    rp->has_la = 0;
    rp->cur_key = rp->la_key;
    int st = feed(rp, &rp->la, 1, err);
    while (st == RT_OK) {
        rt_err e2;
        int r = peek(rp, &e2);
        if (r < 0) { /* keep the error for the next pull: this record is complete */
            rp->la_status = -r;
            rp->la_err = e2;
            break;
        }
        if (r == 0 || !continues(rp, &rp->la))
            break;
        rp->has_la = 0;
        rp->cur_key = rp->la_key;
        st = feed(rp, &rp->la, 0, err);
    }
    return st;
}

int rt_replay_next_time(rt_replay *rp, double *t, rt_err *err)
{
    int r = peek(rp, err);
    if (r == 1)
        *t = rp->la.time;
    return r;
}

int rt_replay_step(rt_replay *rp, int64_t n, int64_t *done, rt_err *err)
{
    int64_t k = 0;
    int st = RT_OK;
    while (k < n) {
        int r = peek(rp, err);
        if (r < 0) {
            st = -r;
            break;
        }
        if (r == 0) {
            rt_replay_finish(rp, err);
            st = RT_EEOF;
            break;
        }
        st = feed_record(rp, err);
        if (st != RT_OK)
            break;
        k++;
    }
    if (done)
        *done = k;
    return st;
}

int rt_replay_run_until(rt_replay *rp, double t, rt_err *err)
{
    for (;;) {
        int r = peek(rp, err);
        if (r < 0)
            return -r;
        if (r == 0) {
            rt_replay_finish(rp, err);
            return RT_EEOF;
        }
        if (rp->la.time > t)
            return RT_OK;
        int st = feed_record(rp, err);
        if (st != RT_OK)
            return st;
    }
}

int rt_replay_run(rt_replay *rp, rt_err *err)
{
    int st = rt_replay_run_until(rp, INFINITY, err);
    if (st == RT_EEOF)
        return RT_OK;
    if (st == RT_OK && !rp->src)
        return rt_replay_finish(rp, err);
    return st;
}

/* ---- views ---- */

double rt_replay_now(const rt_replay *rp) { return rp->now; }
int rt_replay_finished(const rt_replay *rp) { return rp->finished; }
int64_t rt_replay_records(const rt_replay *rp) { return rp->records; }
int64_t rt_replay_events(const rt_replay *rp) { return rp->events; }

void rt_replay_span(const rt_replay *rp, double *t0, double *t1)
{
    *t0 = rp->t0;
    *t1 = rp->t1;
}

int rt_replay_nprocs(const rt_replay *rp)
{
    int n = rp->nprocs;
    while (n > 0 && !rp->procs[n - 1].pub.seen)
        n--;
    return n;
}

const rt_replay_proc *rt_replay_proc_get(const rt_replay *rp, int id)
{
    return id >= 0 && id < rp->nprocs ? &rp->procs[id].pub : NULL;
}

const rt_event_stat *rt_replay_proc_events(const rt_replay *rp, int id)
{
    return id >= 0 && id < rp->nprocs ? rp->procs[id].ev : NULL;
}

const int *rt_replay_proc_stack(const rt_replay *rp, int id, int *n)
{
    *n = 0;
    if (id < 0 || id >= rp->nprocs)
        return NULL;
    proc_state *p = &rp->procs[id];
    int cap = 0;
    int *buf = p->stack_events;
    /* scratch sized to the stack's capacity */
    if (p->capstack > 0) {
        buf = realloc(p->stack_events, (size_t)p->capstack * sizeof *buf);
        if (!buf)
            return NULL;
        p->stack_events = buf;
        cap = (int)p->capstack;
    }
    for (int i = 0; i < p->nstack && i < cap; i++)
        buf[i] = p->stack[i].event;
    *n = p->nstack;
    return buf;
}

int rt_replay_ntasks(const rt_replay *rp) { return rp->ntasks; }
const rt_task_stat *rt_replay_tasks(const rt_replay *rp) { return rp->tasks; }

void rt_replay_totals_get(const rt_replay *rp, rt_replay_totals *t) { *t = rp->tot; }

void rt_replay_pending(const rt_replay *rp, void (*fn)(void *ud, const rt_message *m), void *ud)
{
    for (size_t i = 0; i < rp->chans.cap; i++) {
        const chan *c = rt_chanmap_slot(&rp->chans, i);
        if (!c)
            continue;
        for (int k = 0; k < c->sends.n; k++) {
            int j = (c->sends.head + k) % c->sends.cap;
            rt_message m = {c->k.src, c->k.dst, (long)c->k.tag, c->sends.b[j], c->sends.t[j], NAN, 0, c->k.comm};
            fn(ud, &m);
        }
    }
}
