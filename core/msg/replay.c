/* replay.c - the message-passing replay engine (see rt_replay.h). */
#include "rt_replay.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"

/* An open event on a processor's stack. */
typedef struct open_ev {
    int event;
    int task;
    int tracing;          /* tracing events do not decide states or nest others */
    double entry;
    double bytes_out;
    int64_t id, parent;
    int parent_event, depth, user_depth, sys_depth;
    int entry_ndata;
    double entry_data[RT_INTERVAL_DATA];
} open_ev;

/* A wait ended by a message (critical path). */
typedef struct cp_wait {
    double recv_time, send_time, bytes;
    long tag;
    int src;
} cp_wait;

typedef struct proc_state {
    rt_replay_proc pub;
    open_ev *stack;
    int nstack;
    size_t capstack;
    int n_user, n_sys;    /* open user / non-tracing system events */
    rt_event_stat *ev;    /* sorted by event */
    size_t capev;
    int last_ev;
    double since;         /* state accounted up to this time */
    cp_wait *waits;
    int nwaits;
    size_t capwaits;
    int *stack_events;    /* scratch for rt_replay_proc_stack */
} proc_state;

/* A FIFO of (time, bytes) per channel (src, dst, tag). */
typedef struct fifo {
    double *t, *b;
    int head, n, cap;
} fifo;

typedef struct chan {
    uint64_t key;         /* 0 = empty slot */
    int src, dst;
    long tag;
    fifo sends;           /* sent, not yet received */
    fifo recvs;           /* received before their send (tachyons in waiting) */
    fifo recv_wait;       /* per early receive: 1 if it ended a wait (t), wait entry (b) */
} chan;

struct rt_replay {
    rt_replay_opts o;
    rt_picl *reader;
    rt_picl_xlate *xlate;
    rt_picl_record la[2];  /* translated records not yet replayed */
    int nla, ila, eof;
    proc_state *procs;
    int nprocs;
    chan *chans;
    size_t nchan, capchan;
    rt_task_stat *tasks;
    int ntasks;
    size_t captasks;
    int64_t next_id, records;
    double now, t0, t1;
    int finished;
    int unordered;         /* warned once that the file is not sorted by time */
    rt_replay_totals tot;
    char *warn[RT_REPLAY_KEEP_WARNINGS];
    int nwarn;
};

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
        if (c)
            rp->warn[rp->nwarn++] = c;
    }
    if (rp->o.on_warning)
        rp->o.on_warning(rp->o.ud, msg);
}

int rt_replay_nwarnings(const rt_replay *rp) { return rp->nwarn; }
const char *rt_replay_warning(const rt_replay *rp, int i)
{
    return i >= 0 && i < rp->nwarn ? rp->warn[i] : NULL;
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

static uint64_t chan_key(int src, int dst, long tag)
{
    uint64_t k = ((uint64_t)(uint32_t)src * 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)(uint32_t)dst * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)tag * 0x165667B19E3779F9ull);
    k ^= k >> 29;
    return k ? k : 1;
}

static chan *chan_find(rt_replay *rp, int src, int dst, long tag, int create)
{
    if (rp->nchan * 2 + 2 > rp->capchan) {
        if (!create && rp->capchan)
            goto look;
        size_t nc = rp->capchan ? rp->capchan * 2 : 64;
        chan *n = calloc(nc, sizeof *n);
        if (!n)
            return NULL;
        for (size_t i = 0; i < rp->capchan; i++) {
            chan *c = &rp->chans[i];
            if (!c->key)
                continue;
            size_t j = c->key & (nc - 1);
            while (n[j].key)
                j = (j + 1) & (nc - 1);
            n[j] = *c;
        }
        free(rp->chans);
        rp->chans = n;
        rp->capchan = nc;
    }
look:;
    uint64_t k = chan_key(src, dst, tag);
    size_t j = k & (rp->capchan - 1);
    while (rp->chans[j].key) {
        chan *c = &rp->chans[j];
        if (c->key == k && c->src == src && c->dst == dst && c->tag == tag)
            return c;
        j = (j + 1) & (rp->capchan - 1);
    }
    if (!create)
        return NULL;
    chan *c = &rp->chans[j];
    memset(c, 0, sizeof *c);
    c->key = k;
    c->src = src;
    c->dst = dst;
    c->tag = tag;
    rp->nchan++;
    return c;
}

/* ---- processors ---- */

static proc_state *proc_at(rt_replay *rp, int id)
{
    if (id >= rp->nprocs) {
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
    }
    return &rp->procs[id];
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

/* State from the innermost non-tracing open event. */
static int compute_state(const proc_state *p)
{
    for (int i = p->nstack - 1; i >= 0; i--) {
        const open_ev *e = &p->stack[i];
        if (e->tracing)
            continue;
        if (rt_picl_event_waits(e->event))
            return RT_STATE_IDLE;
        if (rt_picl_event_is_system(e->event))
            return RT_STATE_OVERHEAD;
        return RT_STATE_BUSY;
    }
    return RT_STATE_BUSY;
}

static int compute_task(const proc_state *p)
{
    for (int i = p->nstack - 1; i >= 0; i--)
        if (p->stack[i].event >= 0)
            return p->stack[i].event;
    return -1;
}

/* After the stack changed at time t (already accounted): new state and task. */
static void restate(rt_replay *rp, proc_state *p, double t)
{
    int s = compute_state(p);
    if (s != p->pub.state) {
        int old = p->pub.state;
        p->pub.state = s;
        if (rp->o.on_state)
            rp->o.on_state(rp->o.ud, p->pub.id, t, old, s);
    }
    p->pub.task = compute_task(p);
    p->pub.depth = p->n_user + p->n_sys;
}

static rt_event_stat *event_row(proc_state *p, int event)
{
    if (p->last_ev >= 0 && p->ev[p->last_ev].event == event)
        return &p->ev[p->last_ev];
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

rt_replay *rt_replay_new(rt_picl *reader, const rt_replay_opts *opts, rt_err *err)
{
    rt_replay *rp = calloc(1, sizeof *rp);
    if (!rp) {
        rt_err_set(err, RT_ENOMEM, "replay: out of memory");
        return NULL;
    }
    if (opts)
        rp->o = *opts;
    rp->reader = reader;
    if (reader && rt_picl_format(reader) == RT_PICL_OLD) {
        rp->xlate = rt_picl_xlate_new();
        if (!rp->xlate) {
            free(rp);
            rt_err_set(err, RT_ENOMEM, "replay: out of memory");
            return NULL;
        }
    }
    rp->t0 = INFINITY;
    rp->t1 = -INFINITY;
    rp->now = -INFINITY;
    return rp;
}

void rt_replay_free(rt_replay *rp)
{
    if (!rp)
        return;
    for (int i = 0; i < rp->nprocs; i++) {
        free(rp->procs[i].stack);
        free(rp->procs[i].ev);
        free(rp->procs[i].waits);
        free(rp->procs[i].stack_events);
    }
    free(rp->procs);
    for (size_t i = 0; i < rp->capchan; i++) {
        if (rp->chans[i].key) {
            fifo_free(&rp->chans[i].sends);
            fifo_free(&rp->chans[i].recvs);
            fifo_free(&rp->chans[i].recv_wait);
        }
    }
    free(rp->chans);
    free(rp->tasks);
    for (int i = 0; i < rp->nwarn; i++)
        free(rp->warn[i]);
    rt_picl_xlate_free(rp->xlate);
    free(rp);
}

/* ---- messages ---- */

static void emit_message(rt_replay *rp, int src, int dst, long tag, double bytes, double ts, double tr)
{
    rt_message m = {src, dst, tag, bytes, ts, tr, tr < ts};
    if (in_window(rp, ts) || in_window(rp, tr))
        rp->tot.messages++;
    if (m.tachyon) {
        rp->tot.tachyons++;
        warn(rp, "tachyon: message from processor %d to %d (tag %ld) received at %.6f before it was sent at %.6f",
             src, dst, tag, tr, ts);
    }
    if (rp->o.on_message)
        rp->o.on_message(rp->o.ud, &m);
}

static int add_wait(proc_state *p, double tr, double ts, double bytes, long tag, int src)
{
    if (rt_grow((void **)&p->waits, &p->capwaits, p->nwaits + 1, sizeof *p->waits) != RT_OK)
        return 0;
    p->waits[p->nwaits++] = (cp_wait){tr, ts, bytes, tag, src};
    return 1;
}

static int do_send(rt_replay *rp, int self, int dst, long tag, double bytes, double t)
{
    chan *c = chan_find(rp, self, dst, tag, 1);
    proc_state *q = proc_at(rp, dst); /* may move rp->procs */
    if (!c || !q)
        return RT_ENOMEM;
    proc_state *p = &rp->procs[self];
    if (in_window(rp, t)) {
        p->pub.sent++;
        p->pub.sent_bytes += bytes;
    }
    if (c->recvs.n > 0) { /* a receive already happened: tachyon */
        double tr, b, waited, wentry;
        fifo_pop(&c->recvs, &tr, &b);
        fifo_pop(&c->recv_wait, &waited, &wentry);
        rp->tot.unmatched_recv--;
        emit_message(rp, p->pub.id, dst, tag, bytes, t, tr);
        return RT_OK;
    }
    if (!fifo_push(&c->sends, t, bytes))
        return RT_ENOMEM;
    q->pub.queue++;
    q->pub.queue_bytes += bytes;
    if (q->pub.queue > q->pub.max_queue)
        q->pub.max_queue = q->pub.queue;
    if (q->pub.queue_bytes > q->pub.max_queue_bytes)
        q->pub.max_queue_bytes = q->pub.queue_bytes;
    rp->tot.pending++;
    rp->tot.pending_bytes += bytes;
    return RT_OK;
}

/* A receive on p from src at time t; waited: it ended a wait that began at wentry. */
static int do_recv(rt_replay *rp, proc_state *p, int src, long tag, double bytes, double t,
                   int waited, double wentry)
{
    if (src < 0 || src >= RT_PICL_MAXPROC) {
        warn(rp, "processor %d: receive at %.6f names no source processor (%d); not paired", p->pub.id, t, src);
        return RT_OK;
    }
    chan *c = chan_find(rp, src, p->pub.id, tag, 1);
    if (!c)
        return RT_ENOMEM;
    if (in_window(rp, t)) {
        p->pub.received++;
        p->pub.received_bytes += bytes;
    }
    if (c->sends.n > 0) {
        double ts, sb;
        fifo_pop(&c->sends, &ts, &sb);
        p->pub.queue--;
        p->pub.queue_bytes -= sb;
        rp->tot.pending--;
        rp->tot.pending_bytes -= sb;
        emit_message(rp, src, p->pub.id, tag, sb, ts, t);
        if (waited && rp->o.critical_path && ts <= t && ts > wentry)
            if (!add_wait(p, t, ts, sb, tag, src))
                return RT_ENOMEM;
        return RT_OK;
    }
    if (!fifo_push(&c->recvs, t, bytes) || !fifo_push(&c->recv_wait, waited, wentry))
        return RT_ENOMEM;
    rp->tot.unmatched_recv++;
    return RT_OK;
}

/* ---- events ---- */

/* xrec: the exit record, NULL when the end of the trace closes the event. */
static void emit_interval(rt_replay *rp, proc_state *p, const open_ev *e, double exit, double bytes_in,
                          const rt_picl_record *xrec)
{
    if (!rp->o.on_interval)
        return;
    rt_interval iv = {.proc = p->pub.id, .task = e->task, .event = e->event, .entry = e->entry,
                      .exit = exit, .depth = e->tracing ? -1 : e->depth, .id = e->id,
                      .parent = e->parent, .parent_event = e->parent_event,
                      .user_depth = e->user_depth, .sys_depth = e->sys_depth,
                      .bytes_out = e->bytes_out, .bytes_in = bytes_in, .closed = xrec != NULL,
                      .entry_ndata = e->entry_ndata};
    memcpy(iv.entry_data, e->entry_data, sizeof iv.entry_data);
    if (xrec) {
        iv.exit_ndata = xrec->ndata < RT_INTERVAL_DATA ? xrec->ndata : RT_INTERVAL_DATA;
        memcpy(iv.exit_data, xrec->data, (size_t)iv.exit_ndata * sizeof iv.exit_data[0]);
    }
    rp->o.on_interval(rp->o.ud, &iv);
}

static int do_entry(rt_replay *rp, proc_state *p, const rt_picl_record *rec)
{
    if (rt_grow((void **)&p->stack, &p->capstack, p->nstack + 1, sizeof *p->stack) != RT_OK)
        return RT_ENOMEM;
    open_ev *e = &p->stack[p->nstack];
    memset(e, 0, sizeof *e);
    e->event = rec->event;
    e->task = rec->task;
    e->entry = rec->time;
    e->tracing = rt_picl_event_family(rec->event) == RT_EV_TRACING;
    e->id = rp->next_id++;
    e->entry_ndata = rec->ndata < RT_INTERVAL_DATA ? rec->ndata : RT_INTERVAL_DATA;
    memcpy(e->entry_data, rec->data, (size_t)e->entry_ndata * sizeof e->entry_data[0]);
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
    rt_event_family f = rt_picl_event_family(rec->event);
    if ((f == RT_EV_SEND || f == RT_EV_COLLECTIVE) && rec->ndata >= 1 && rec->data[0] > 0)
        e->bytes_out = rec->data[0];
    p->nstack++;
    if (!e->tracing) {
        if (rec->event >= 0)
            p->n_user++;
        else
            p->n_sys++;
    }
    rt_event_stat *row = event_row(p, rec->event);
    if (!row)
        return RT_ENOMEM;
    if (in_window(rp, rec->time)) {
        row->count++;
        row->bytes_out += e->bytes_out;
        row->bytes += e->bytes_out;
    }
    if (rec->event >= 0) {
        rt_task_stat *t = task_row(rp, rec->event);
        if (!t)
            return RT_ENOMEM;
        if (rec->time < t->first_start)
            t->first_start = rec->time;
        t->count++;
        t->active++;
    }
    double bytes;
    long tag, peer;
    if (rt_picl_message_fields(rec, &bytes, &tag, &peer) == 1) {
        if (peer < 0 || peer >= RT_PICL_MAXPROC)
            warn(rp, "processor %d: send at %.6f (line %lu) names no destination processor (%ld); not paired",
                 p->pub.id, rec->time, rec->line, peer);
        else
            return do_send(rp, p->pub.id, (int)peer, tag, bytes, rec->time);
    }
    return RT_OK;
}

static void pop_at(proc_state *p, int i)
{
    open_ev *e = &p->stack[i];
    if (!e->tracing) {
        if (e->event >= 0)
            p->n_user--;
        else
            p->n_sys--;
    }
    memmove(p->stack + i, p->stack + i + 1, (size_t)(p->nstack - i - 1) * sizeof *p->stack);
    p->nstack--;
}

static void close_event(rt_replay *rp, proc_state *p, int i, double t, double bytes_in,
                        const rt_picl_record *xrec)
{
    open_ev e = p->stack[i];
    rt_event_stat *row = event_row(p, e.event);
    if (row) {
        row->time += clipped(rp, e.entry, t);
        if (in_window(rp, t)) {
            row->bytes_in += bytes_in;
            row->bytes += bytes_in;
        }
    }
    if (e.event >= 0) {
        rt_task_stat *ts = task_row(rp, e.event);
        if (ts) {
            if (t > ts->last_end)
                ts->last_end = t;
            ts->active--;
        }
    }
    pop_at(p, i);
    emit_interval(rp, p, &e, t, bytes_in, xrec);
}

static int do_exit(rt_replay *rp, proc_state *p, const rt_picl_record *rec)
{
    int i = p->nstack - 1;
    while (i >= 0 && p->stack[i].event != rec->event)
        i--;
    char w[64];
    double bytes;
    long tag, peer;
    int is_recv = rt_picl_message_fields(rec, &bytes, &tag, &peer) == 2;
    if (i < 0) {
        rp->tot.unmatched_exits++;
        warn(rp, "processor %d: exit of %s at %.6f (line %lu) closes no open event", p->pub.id,
             rt_picl_event_words(rec->event, w, sizeof w), rec->time, rec->line);
        /* the message it carries was still received */
        return is_recv ? do_recv(rp, p, (int)peer, tag, bytes, rec->time, 0, 0) : RT_OK;
    }
    if (i != p->nstack - 1 && !p->stack[i].tracing) {
        char w2[64];
        warn(rp, "processor %d: exit of %s at %.6f (line %lu) closes it out of order (%s still open inside it)",
             p->pub.id, rt_picl_event_words(rec->event, w, sizeof w), rec->time, rec->line,
             rt_picl_event_words(p->stack[p->nstack - 1].event, w2, sizeof w2));
    }
    double open_entry = p->stack[i].entry;
    int waited = rt_picl_event_waits(rec->event);
    double bytes_in = 0;
    rt_event_family f = rt_picl_event_family(rec->event);
    if ((f == RT_EV_RECV || f == RT_EV_COLLECTIVE) && rec->ndata >= 1 && rec->data[0] > 0)
        bytes_in = rec->data[0];
    close_event(rp, p, i, rec->time, bytes_in, rec);
    if (is_recv)
        return do_recv(rp, p, (int)peer, tag, bytes, rec->time, waited, open_entry);
    return RT_OK;
}

int rt_replay_feed(rt_replay *rp, const rt_picl_record *rec, rt_err *err)
{
    if (rec->proc < 0)
        return rt_err_set(err, RT_EINVAL, "replay: negative processor %d", rec->proc);
    proc_state *p = proc_at(rp, rec->proc);
    if (!p)
        return rt_err_set(err, RT_ENOMEM, "replay: out of memory");
    rp->records++;
    double t = rec->time;
    if (!p->pub.seen) {
        p->pub.seen = 1;
        p->pub.first = t;
        p->since = t;
        p->pub.state = RT_STATE_BUSY; /* live from its first record */
        if (rp->o.on_state)
            rp->o.on_state(rp->o.ud, p->pub.id, t, RT_STATE_IDLE, RT_STATE_BUSY);
    }
    if (t < rp->now && !rp->unordered) {
        rp->unordered = 1;
        warn(rp, "records are not in time order (line %lu: %.6f after %.6f); the replay follows the file's order",
             rec->line, t, rp->now);
    }
    if (t < p->since) { /* time went backwards on this processor: hold it */
        warn(rp, "processor %d: record at %.6f (line %lu) is earlier than its previous one at %.6f; held there",
             p->pub.id, t, rec->line, p->since);
        t = p->since;
    }
    add_time(rp, p, p->pub.state, p->since, t);
    p->since = t;
    p->pub.last = t;
    p->pub.records++;
    if (t < rp->t0)
        rp->t0 = t;
    if (t > rp->t1)
        rp->t1 = t;
    if (t > rp->now)
        rp->now = t;
    if (rp->o.on_record)
        rp->o.on_record(rp->o.ud, rec);
    int st = RT_OK;
    if (rec->format == RT_PICL_NEW) {
        if (rec->rectype == RT_PICL_ENTRY)
            st = do_entry(rp, p, rec);
        else if (rec->rectype == RT_PICL_EXIT)
            st = do_exit(rp, p, rec);
        p = &rp->procs[rec->proc]; /* a send may have grown the processor array */
        if (rec->rectype == RT_PICL_ENTRY || rec->rectype == RT_PICL_EXIT)
            restate(rp, p, t);
    }
    if (st != RT_OK)
        return rt_err_set(err, st, "replay: out of memory");
    return RT_OK;
}


int rt_replay_finish(rt_replay *rp, rt_err *err)
{
    (void)err;
    if (rp->finished)
        return RT_OK;
    rp->finished = 1;
    char w[64];
    for (int i = 0; i < rp->nprocs; i++) {
        proc_state *p = &rp->procs[i];
        if (!p->pub.seen)
            continue;
        while (p->nstack > 0) {
            open_ev *e = &p->stack[p->nstack - 1];
            if (!e->tracing) {
                rp->tot.left_open++;
                warn(rp, "processor %d: %s opened at %.6f is still open at the end (closed at %.6f)", i,
                     rt_picl_event_words(e->event, w, sizeof w), e->entry, p->pub.last);
            }
            close_event(rp, p, p->nstack - 1, p->pub.last, 0, NULL);
        }
        int old = p->pub.state;
        p->pub.state = RT_STATE_IDLE;
        p->pub.task = -1;
        p->pub.depth = 0;
        if (rp->o.on_state && old != RT_STATE_IDLE)
            rp->o.on_state(rp->o.ud, i, p->pub.last, old, RT_STATE_IDLE);
        add_time(rp, p, RT_STATE_IDLE, rp->t0, p->pub.first);
        add_time(rp, p, RT_STATE_IDLE, p->pub.last, rp->t1);
    }
    if (rp->tot.pending > 0)
        warn(rp, "%lld message(s) sent and never received", (long long)rp->tot.pending);
    if (rp->tot.unmatched_recv > 0)
        warn(rp, "%lld receive(s) with no matching send", (long long)rp->tot.unmatched_recv);
    return RT_OK;
}

/* ---- pulling from the reader ---- */

/* Make la[ila] the next record; 0 at the end, 1 ready, <0 error status negated. */
static int peek(rt_replay *rp, rt_err *err)
{
    if (rp->ila < rp->nla)
        return 1;
    if (rp->eof || !rp->reader)
        return 0;
    rt_picl_record raw;
    int st = rt_picl_next(rp->reader, rp->xlate ? &raw : &rp->la[0], err);
    if (st == RT_EEOF) {
        rp->eof = 1;
        return 0;
    }
    if (st != RT_OK)
        return -st;
    rp->ila = 0;
    if (rp->xlate) {
        st = rt_picl_xlate_record(rp->xlate, &raw, rp->la, &rp->nla);
        if (st != RT_OK)
            return -rt_err_set(err, st, "replay: out of memory");
    } else {
        rp->nla = 1;
    }
    return 1;
}

int rt_replay_next_time(rt_replay *rp, double *t, rt_err *err)
{
    int r = peek(rp, err);
    if (r == 1)
        *t = rp->la[rp->ila].time;
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
        st = rt_replay_feed(rp, &rp->la[rp->ila++], err);
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
        if (rp->la[rp->ila].time > t)
            return RT_OK;
        int st = rt_replay_feed(rp, &rp->la[rp->ila++], err);
        if (st != RT_OK)
            return st;
    }
}

int rt_replay_run(rt_replay *rp, rt_err *err)
{
    int st = rt_replay_run_until(rp, INFINITY, err);
    if (st == RT_EEOF)
        return RT_OK;
    if (st == RT_OK && !rp->reader)
        return rt_replay_finish(rp, err);
    return st;
}

/* ---- views ---- */

double rt_replay_now(const rt_replay *rp) { return rp->now; }
int rt_replay_finished(const rt_replay *rp) { return rp->finished; }
int64_t rt_replay_records(const rt_replay *rp) { return rp->records; }

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
    for (size_t i = 0; i < rp->capchan; i++) {
        const chan *c = &rp->chans[i];
        if (!c->key)
            continue;
        for (int k = 0; k < c->sends.n; k++) {
            int j = (c->sends.head + k) % c->sends.cap;
            rt_message m = {c->src, c->dst, c->tag, c->sends.b[j], c->sends.t[j], NAN, 0};
            fn(ud, &m);
        }
    }
}

/* ---- critical path ---- */

void rt_critical_path_clear(rt_critical_path *cp)
{
    if (!cp)
        return;
    free(cp->segments);
    free(cp->messages);
    memset(cp, 0, sizeof *cp);
}

int rt_replay_critical_path(const rt_replay *rp, rt_critical_path *cp, rt_err *err)
{
    memset(cp, 0, sizeof *cp);
    if (!rp->finished || !rp->o.critical_path)
        return rt_err_set(err, RT_ESTATE, "critical path: needs a finished replay with critical_path set");
    int p = -1;
    for (int i = 0; i < rp->nprocs; i++)
        if (rp->procs[i].pub.seen && (p < 0 || rp->procs[i].pub.last > rp->procs[p].pub.last))
            p = i;
    if (p < 0)
        return RT_OK;
    int *upto = malloc((size_t)rp->nprocs * sizeof *upto); /* waits of each proc still usable: [0, upto) */
    if (!upto)
        return rt_err_set(err, RT_ENOMEM, "critical path: out of memory");
    for (int i = 0; i < rp->nprocs; i++)
        upto[i] = rp->procs[i].nwaits;
    size_t capseg = 0, capmsg = 0;
    double t = rp->procs[p].pub.last;
    cp->end = t;
    for (;;) {
        const proc_state *ps = &rp->procs[p];
        int k = upto[p] - 1;
        while (k >= 0 && ps->waits[k].recv_time > t)
            k--;
        if (rt_grow((void **)&cp->segments, &capseg, cp->nsegments + 1, sizeof *cp->segments) != RT_OK)
            goto nomem;
        if (k < 0) {
            cp->segments[cp->nsegments++] = (rt_cp_segment){p, ps->pub.first, t};
            cp->start = ps->pub.first;
            break;
        }
        const cp_wait *w = &ps->waits[k];
        upto[p] = k;
        cp->segments[cp->nsegments++] = (rt_cp_segment){p, w->recv_time, t};
        if (rt_grow((void **)&cp->messages, &capmsg, cp->nmessages + 1, sizeof *cp->messages) != RT_OK)
            goto nomem;
        cp->messages[cp->nmessages++] =
            (rt_message){w->src, p, w->tag, w->bytes, w->send_time, w->recv_time, 0};
        t = w->send_time;
        p = w->src;
    }
    free(upto);
    /* reverse into time order */
    for (int i = 0, j = cp->nsegments - 1; i < j; i++, j--) {
        rt_cp_segment s = cp->segments[i];
        cp->segments[i] = cp->segments[j];
        cp->segments[j] = s;
    }
    for (int i = 0, j = cp->nmessages - 1; i < j; i++, j--) {
        rt_message m = cp->messages[i];
        cp->messages[i] = cp->messages[j];
        cp->messages[j] = m;
    }
    cp->length = cp->end - cp->start;
    return RT_OK;
nomem:
    free(upto);
    rt_critical_path_clear(cp);
    return rt_err_set(err, RT_ENOMEM, "critical path: out of memory");
}
