/* rt_pg_view.c - ParaGraph's view of a replay (see rt_pg_view.h). */
#include "rt_pg_view.h"

#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_chanmap.h"
#include "rt_mem.h"

/*
 * A step function of time and its running integral, kept for the last S
 * seconds: the value is val[i] from t[i] on, cum[i] the integral from the
 * first entry up to t[i]. Entries [head, n) live; `next` is the first entry
 * whose corner t + S has not been evaluated yet.
 */
typedef struct tpoint {
    double t, cum, val;
} tpoint;

typedef struct trail {
    tpoint *e;
    size_t head, n, cap, next;
} trail;

/* A ring of the last messages of one processor in one direction. */
typedef struct msg_ring {
    rt_pg_msg *m;         /* ring slots (cfg.ring), allocated on first use */
    int64_t n;            /* messages pushed in all */
} msg_ring;

typedef struct pg_proc {
    int state;
    int finished;         /* past its last event (cfg.last): states ignored */
    double acc[RT_NSTATES];
    double acc_t;         /* accounted up to here */
    rt_pg_change *ch;     /* state changes kept */
    size_t nch, capch;
    int task;             /* current task, -1 none */
    rt_pg_change *tch;    /* task changes kept (s = the task, -1 none) */
    size_t ntch, captch;
    double since;         /* entered it at */
    double task_time;     /* closed time inside tasks */
    msg_ring ring[2];     /* received, sent */
    trail busy;           /* 1 while busy (trend) */
    double high, frac;    /* highest busy fraction over S, the fraction at the sync time */
} pg_proc;

typedef struct pair_item {
    rt_chankey key;
    int64_t count;
    double bytes;
} pair_item;

/* An event kept, with its index among all events and the replay's record count then. */
typedef struct kept_event {
    rt_tevent ev;
    int64_t index, record;
    int has_raw;          /* a copy of its raw record is in the view's raws, same slot */
} kept_event;

struct rt_pg_view {
    rt_replay *rp;        /* NULL once detached */
    int P, ringsz, keep_events, batch;
    int *map;             /* cfg.source: the replay's processor -> the view's (-1 not shown); NULL: the same */
    int nmap;
    double from, to, now;
    double keep_t;        /* the last keep time: what ends before it is not kept */
    double keep_task_t;   /* the same for task changes */
    size_t kept_peak;     /* the most items kept at once (rt_pg_view_kept) */
    int status;
    pg_proc *procs;
    rt_grid *grid;        /* states, P x 1 */
    int count[RT_NSTATES];
    double *prof;         /* RT_NSTATES x (P + 1) */
    double prof_t;
    /* finishing order: processors by last event time */
    int *fin;
    double *last;
    int nfin, fin_i;
    /* lists pruned by keep */
    rt_pg_msg *msgs;
    size_t nmsgs, capmsgs;
    rt_pg_delta *deltas;
    size_t ndeltas, capdeltas;
    int64_t base_count;
    double base_bytes;
    rt_pg_coll *colls;
    size_t ncolls, capcolls;
    int64_t colls_seen;
    rt_chanmap pairs;     /* pair_item by (src, dst) */
    rt_pg_task *tasks;    /* sorted by id */
    size_t ntasks, captasks;
    int latest;
    /* events: a ring of keep_events (batch: a growing list) */
    kept_event *evs;
    size_t nevs, capevs, ev_head; /* ring: ev_head is the oldest slot */
    int64_t events_seen;
    /* sources with records of their own (rt_tsource_ops.raw_size): a copy per slot, one slot per record */
    size_t raw_size;
    unsigned char *raws;
    size_t capraws;
    int64_t msgs_seen, deltas_seen;
    /* trend (rt_pg_view_trend): S, the global trails, the trajectory */
    rt_pg_trend_config tr;
    int trend;
    trail nbusy, pend;
    int64_t pend_count;   /* pending now */
    double pend_bytes;
    double tx, ty;        /* the trajectory's last corner (percent) */
    double cx, cy;        /* its point at the sync time */
    double tlast;         /* time of that corner (-inf: none yet) */
    int64_t corners;
    rt_grid *traster;
};

/* The view's processor for the replay's processor proc, -1 when not shown. */
static inline int shown(const rt_pg_view *v, int proc)
{
    if (v->map)
        return proc >= 0 && proc < v->nmap ? v->map[proc] : -1;
    return proc >= 0 && proc < v->P ? proc : -1;
}

static double clip(const rt_pg_view *v, double a, double b)
{
    if (a < v->from)
        a = v->from;
    if (b > v->to)
        b = v->to;
    return b > a ? b - a : 0;
}

static void fail(rt_pg_view *v)
{
    if (v->status == RT_OK)
        v->status = RT_ENOMEM;
}

static void profile_to(rt_pg_view *v, double t)
{
    double dt = clip(v, v->prof_t, t);
    if (dt > 0)
        for (int s = 0; s < RT_NSTATES; s++)
            v->prof[s * (v->P + 1) + v->count[s]] += dt;
    if (t > v->prof_t)
        v->prof_t = t;
}

static void account(rt_pg_view *v, pg_proc *p, double t)
{
    if (t > p->acc_t) {
        p->acc[p->state] += clip(v, p->acc_t, t);
        p->acc_t = t;
    }
}

/* ---- trailing means (rt_pg_view_trend) ---- */

/* Start a trail at t0 with value v0 (the integral counts from t0). */
static int trail_start(trail *tr, double t0, double v0)
{
    if (rt_grow((void **)&tr->e, &tr->cap, 16, sizeof *tr->e) != RT_OK)
        return RT_ENOMEM;
    tr->e[0] = (tpoint){t0, 0, v0};
    tr->head = tr->next = 0;
    tr->n = 1;
    return RT_OK;
}

/* The value becomes val at t (t earlier than the last change is taken as that change's time). */
static int trail_set(trail *tr, double t, double val)
{
    tpoint *l = &tr->e[tr->n - 1];
    if (t < l->t)
        t = l->t;
    if (val == l->val)
        return RT_OK;
    if (t == l->t) {
        l->val = val;
        return RT_OK;
    }
    if (tr->n == tr->cap && tr->head > 0) { /* slide the live entries down before growing */
        memmove(tr->e, tr->e + tr->head, (tr->n - tr->head) * sizeof *tr->e);
        tr->n -= tr->head;
        tr->next -= tr->head;
        tr->head = 0;
        l = &tr->e[tr->n - 1];
    }
    double cum = l->cum + l->val * (t - l->t);
    if (rt_grow((void **)&tr->e, &tr->cap, tr->n + 1, sizeof *tr->e) != RT_OK)
        return RT_ENOMEM;
    tr->e[tr->n++] = (tpoint){t, cum, val};
    return RT_OK;
}

/* The integral of the value from the trail's start to x (0 before it). */
static double trail_integral(const trail *tr, double x)
{
    size_t lo = tr->head, hi = tr->n - 1; /* the last entry at or before x */
    if (x < tr->e[lo].t)
        return tr->e[lo].cum;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (tr->e[mid].t <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return tr->e[lo].cum + tr->e[lo].val * (x - tr->e[lo].t);
}

static double trail_mean(const trail *tr, double x, double S)
{
    return (trail_integral(tr, x) - trail_integral(tr, x - S)) / S;
}

/* Forget what no query at or after x needs (entries older than x - S whose corner was evaluated). */
static void trail_prune(trail *tr, double x, double S)
{
    while (tr->head + 1 < tr->n && tr->head < tr->next && tr->e[tr->head + 1].t <= x - S)
        tr->head++;
}

/* Processor p's busy corners up to t: its high-water mark. */
static void busy_corners(rt_pg_view *v, pg_proc *p, double t)
{
    trail *b = &p->busy;
    double S = v->tr.smoothing;
    while (b->next < b->n && b->e[b->next].t + S <= t) {
        double f = trail_mean(b, b->e[b->next].t + S, S);
        if (f > p->high)
            p->high = f;
        b->next++;
    }
    trail_prune(b, t, S);
}

/* Cells of the trajectory raster from (x0, y0) to (x1, y1) (percents), value c. */
static void raster_line(rt_grid *g, double x0, double y0, double x1, double y1, int32_t c)
{
    int W = g->w, H = g->h;
#define COL(x) ((int)fmin(W - 1, fmax(0, floor((x) / 100 * W))))
#define ROW(y) (H - 1 - (int)fmin(H - 1, fmax(0, floor((y) / 100 * H))))
    int a = COL(x0), b = ROW(y0), e = COL(x1), f = ROW(y1);
#undef COL
#undef ROW
    int dx = abs(e - a), dy = -abs(f - b), sx = a < e ? 1 : -1, sy = b < f ? 1 : -1, err = dx + dy;
    for (;;) {
        g->cells[(size_t)b * (size_t)W + (size_t)a] = c;
        if (a == e && b == f)
            break;
        int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            a += sx;
        }
        if (e2 <= dx) {
            err += dx;
            b += sy;
        }
    }
}

/* The trajectory's point at x (percents). */
static void trend_point(const rt_pg_view *v, double x, double *px, double *py)
{
    double S = v->tr.smoothing;
    *px = 100 * trail_mean(&v->pend, x, S) / v->tr.top;
    *py = 100 * trail_mean(&v->nbusy, x, S) / v->P;
}

/* A corner of the trajectory at x: a straight run from the last one. */
static void trend_corner(rt_pg_view *v, double x)
{
    double px, py;
    trend_point(v, x, &px, &py);
    if (v->traster) {
        int32_t c = v->latest >= 0 ? 1 + v->latest % v->tr.mod : 0;
        if (v->tlast == -INFINITY)
            raster_line(v->traster, px, py, px, py, c);
        else
            raster_line(v->traster, v->tx, v->ty, px, py, c);
    }
    v->tx = px;
    v->ty = py;
    v->tlast = x;
    v->corners++;
}

/* Evaluate the trajectory's corners up to t, in time order; with at: t itself is one. */
static void trend_advance(rt_pg_view *v, double t, int at)
{
    double S = v->tr.smoothing;
    trail *tl[2] = {&v->nbusy, &v->pend};
    for (;;) {
        trail *best = NULL;
        double bx = INFINITY;
        for (int k = 0; k < 2; k++)
            if (tl[k]->next < tl[k]->n && tl[k]->e[tl[k]->next].t + S < bx) {
                bx = tl[k]->e[tl[k]->next].t + S;
                best = tl[k];
            }
        if (!best || bx > t)
            break;
        best->next++;
        if (bx > v->tlast)
            trend_corner(v, bx);
    }
    if (at && t > v->tlast)
        trend_corner(v, t);
    trail_prune(&v->nbusy, t, S);
    trail_prune(&v->pend, t, S);
}

/* Before something the trajectory depends on changes at t (its colour included). */
static void trend_change(rt_pg_view *v, double t)
{
    if (v->trend)
        trend_advance(v, t, 1);
}

static void trend_set(rt_pg_view *v, trail *tr, double t, double val)
{
    if (v->trend && trail_set(tr, t, val) != RT_OK)
        fail(v);
}

/* Processor p enters state s at time t. */
static void set_state(rt_pg_view *v, int id, double t, int s)
{
    pg_proc *p = &v->procs[id];
    account(v, p, t);
    int old = p->state;
    if (old == s)
        return;
    profile_to(v, t);
    if (v->trend && (old == RT_STATE_BUSY || s == RT_STATE_BUSY)) {
        busy_corners(v, p, t);
        trend_set(v, &p->busy, t, s == RT_STATE_BUSY);
        trend_change(v, t);
    }
    v->count[old]--;
    v->count[s]++;
    p->state = s;
    if (old == RT_STATE_BUSY || s == RT_STATE_BUSY)
        trend_set(v, &v->nbusy, t, v->count[RT_STATE_BUSY]);
    if (p->nch > 0 && p->ch[p->nch - 1].t == t) {
        /* a zero-length state: the later one wins, and two equal states in a row merge */
        p->ch[p->nch - 1].s = s;
        if (p->nch > 1 && p->ch[p->nch - 2].s == s)
            p->nch--;
        return;
    }
    if (rt_grow((void **)&p->ch, &p->capch, p->nch + 1, sizeof *p->ch) != RT_OK) {
        fail(v);
        return;
    }
    p->ch[p->nch++] = (rt_pg_change){t, s};
}

/* Processors whose last event lies before t (at or before with upto) turn idle. */
static void run_finishes(rt_pg_view *v, double t, int upto)
{
    while (v->fin_i < v->nfin) {
        int id = v->fin[v->fin_i];
        double l = v->last[id];
        if (!(l < t || (upto && l <= t)))
            break;
        v->procs[id].finished = 1;
        set_state(v, id, l, RT_STATE_IDLE);
        v->fin_i++;
    }
}

static void tap_state(void *ud, int proc, double t, int old, int new)
{
    (void)old;
    rt_pg_view *v = ud;
    proc = shown(v, proc);
    if (proc < 0 || new < 0 || new >= RT_NSTATES)
        return;
    run_finishes(v, t, 0);
    if (v->procs[proc].finished)
        return;
    set_state(v, proc, t, new);
    if (t > v->now)
        v->now = t;
}

static void add_delta(rt_pg_view *v, double t, int dc, double db, int dst)
{
    v->pend_count += dc;
    v->pend_bytes += db;
    if (v->trend) {
        trend_change(v, t);
        trend_set(v, &v->pend, t, v->tr.bytes ? v->pend_bytes : (double)v->pend_count);
    }
    v->deltas_seen++;
    if (t < v->keep_t) {
        v->base_count += dc;
        v->base_bytes += db;
        return;
    }
    if (rt_grow((void **)&v->deltas, &v->capdeltas, v->ndeltas + 1, sizeof *v->deltas) != RT_OK) {
        fail(v);
        return;
    }
    v->deltas[v->ndeltas++] = (rt_pg_delta){t, dc, dst, db, v->deltas_seen};
}

static void tap_send(void *ud, const rt_message *m)
{
    rt_pg_view *v = ud;
    if (v->map && (shown(v, m->src) < 0 || shown(v, m->dst) < 0))
        return;
    add_delta(v, m->send_time, 1, m->bytes, v->map ? shown(v, m->dst) : m->dst);
}

static void ring_push(rt_pg_view *v, msg_ring *r, const rt_pg_msg *m)
{
    if (!r->m && !(r->m = malloc((size_t)v->ringsz * sizeof *r->m))) {
        fail(v);
        return;
    }
    r->m[r->n % v->ringsz] = *m;
    r->n++;
}

static void tap_message(void *ud, const rt_message *m)
{
    rt_pg_view *v = ud;
    int src = m->src, dst = m->dst;
    if (v->map) {
        src = shown(v, src);
        dst = shown(v, dst);
        if (src < 0 || dst < 0)
            return;
    }
    add_delta(v, m->recv_time, -1, -m->bytes, dst);
    rt_pg_msg d = {src, dst, m->tag, m->bytes, m->send_time, m->recv_time, ++v->msgs_seen};
    if (m->recv_time >= v->keep_t) { /* (a tachyon may arrive received before the keep time) */
        if (rt_grow((void **)&v->msgs, &v->capmsgs, v->nmsgs + 1, sizeof *v->msgs) != RT_OK)
            fail(v);
        else
            v->msgs[v->nmsgs++] = d;
    }
    if (src < 0 || src >= v->P || dst < 0 || dst >= v->P || m->send_time < v->from || m->send_time > v->to)
        return;
    pair_item *it = rt_chanmap_get(&v->pairs, src, dst, 0, 0);
    if (!it) {
        fail(v);
        return;
    }
    it->count++;
    it->bytes += m->bytes;
    ring_push(v, &v->procs[dst].ring[0], &d);
    ring_push(v, &v->procs[src].ring[1], &d);
}

static void tap_collective(void *ud, const rt_collective *c)
{
    rt_pg_view *v = ud;
    int lo = -1, hi = -1, n = 0;
    for (int i = 0; i < c->nparts; i++) {
        int p = v->map ? shown(v, c->procs[i]) : c->procs[i];
        if (v->map && p < 0)
            continue;
        if (n == 0 || p < lo)
            lo = p;
        if (n == 0 || p > hi)
            hi = p;
        n++;
    }
    if (v->map && n == 0)
        return;
    v->colls_seen++;
    if (c->last_end < v->keep_t)
        return;
    if (rt_grow((void **)&v->colls, &v->capcolls, v->ncolls + 1, sizeof *v->colls) != RT_OK) {
        fail(v);
        return;
    }
    v->colls[v->ncolls++] = (rt_pg_coll){c->first_begin, c->last_end, lo, hi, n, c->region, c->total_bytes,
                                          v->colls_seen};
}

/* The task of id (made when absent, kept sorted); NULL when memory ran out. */
static rt_pg_task *task_get(rt_pg_view *v, int id)
{
    size_t lo = 0, hi = v->ntasks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v->tasks[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < v->ntasks && v->tasks[lo].id == id)
        return &v->tasks[lo];
    if (rt_grow((void **)&v->tasks, &v->captasks, v->ntasks + 1, sizeof *v->tasks) != RT_OK) {
        fail(v);
        return NULL;
    }
    memmove(v->tasks + lo + 1, v->tasks + lo, (v->ntasks - lo) * sizeof *v->tasks);
    v->tasks[lo] = (rt_pg_task){id, NAN, NAN, 0, 0};
    v->ntasks++;
    return &v->tasks[lo];
}

static void tap_task(void *ud, int proc, double t, int old, int new)
{
    (void)old;
    rt_pg_view *v = ud;
    proc = shown(v, proc);
    if (proc < 0)
        return;
    if (t > v->now)
        v->now = t;
    pg_proc *p = &v->procs[proc];
    if (p->task == new)
        return;
    if (p->task != -1) { /* task ids are region ids, negative ones too (Paraver's Running: -2) */
        rt_pg_task *k = task_get(v, p->task);
        if (k) {
            k->ptime += t - p->since;
            k->inside--;
            if (isnan(k->stop) || t > k->stop)
                k->stop = t;
        }
        p->task_time += t - p->since;
    }
    if (new != -1) {
        rt_pg_task *k = task_get(v, new);
        if (k) {
            k->inside++;
            if (isnan(k->start) || t < k->start)
                k->start = t;
        }
        if (new != v->latest)
            trend_change(v, t);
        v->latest = new;
    }
    p->task = new;
    p->since = t;
    if (p->ntch > 0 && p->tch[p->ntch - 1].t == t) {
        p->tch[p->ntch - 1].s = new;
    } else if (rt_grow((void **)&p->tch, &p->captch, p->ntch + 1, sizeof *p->tch) != RT_OK) {
        fail(v);
    } else {
        p->tch[p->ntch++] = (rt_pg_change){t, new};
    }
}

static void tap_event(void *ud, const rt_tevent *ev)
{
    rt_pg_view *v = ud;
    if (v->map && shown(v, ev->proc) < 0)
        return;
    v->events_seen++;
    kept_event k = {*ev, v->events_seen, v->rp ? rt_replay_records(v->rp) : v->events_seen, 0};
    k.ev.raw = NULL;
    size_t slot;
    if (v->raw_size && ev->raw) { /* a record of the source's own: kept once, at its first event */
        if (v->nevs > 0) {
            size_t lastslot = v->batch ? v->nevs - 1 : (v->ev_head + v->nevs - 1) % (size_t)v->keep_events;
            if (v->evs[lastslot].record == k.record)
                return;
        }
    }
    if (v->batch) {
        if (rt_grow((void **)&v->evs, &v->capevs, v->nevs + 1, sizeof *v->evs) != RT_OK ||
            (v->raw_size && rt_grow((void **)&v->raws, &v->capraws, (v->nevs + 1) * v->raw_size, 1) != RT_OK)) {
            fail(v);
            return;
        }
        slot = v->nevs++;
    } else {
        size_t cap = (size_t)v->keep_events;
        if (v->nevs < cap) {
            slot = (v->ev_head + v->nevs) % cap;
            v->nevs++;
        } else {
            slot = v->ev_head;
            v->ev_head = (v->ev_head + 1) % cap;
        }
    }
    if (v->raw_size && ev->raw) {
        memcpy(v->raws + slot * v->raw_size, ev->raw, v->raw_size);
        k.has_raw = 1; /* ev.raw is set when read: the batch's copies move as they grow */
    }
    v->evs[slot] = k;
}

/* A processor and its last event time, to sort the finishing order. */
typedef struct fin_key {
    double last;
    int id;
} fin_key;

static int cmp_fin(const void *a, const void *b)
{
    const fin_key *x = a, *y = b;
    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

rt_pg_view *rt_pg_view_new(rt_replay *rp, const rt_pg_view_config *cfg, rt_err *err)
{
    if (!cfg || cfg->nprocs < 1 || cfg->nprocs > RT_TE_MAXPROC) {
        rt_err_set(err, RT_EINVAL, "ParaGraph view: processors %d (1..%d)", cfg ? cfg->nprocs : 0, RT_TE_MAXPROC);
        return NULL;
    }
    if (cfg->ring < 0 || cfg->ring > 1 << 16 || cfg->records < 0 || cfg->records > 1 << 20) {
        rt_err_set(err, RT_EINVAL, "ParaGraph view: ring %d or records %d out of range", cfg->ring, cfg->records);
        return NULL;
    }
    if (isnan(cfg->from) || isnan(cfg->to) || cfg->from > cfg->to) {
        rt_err_set(err, RT_EINVAL, "ParaGraph view: window %g .. %g (start after end)", cfg->from, cfg->to);
        return NULL;
    }
    if (cfg->source && (cfg->nsource < cfg->nprocs || cfg->nsource > RT_TE_MAXPROC)) {
        rt_err_set(err, RT_EINVAL, "ParaGraph view: %d processors shown of %d", cfg->nprocs, cfg->nsource);
        return NULL;
    }
    rt_pg_view *v = calloc(1, sizeof *v);
    if (!v)
        goto nomem;
    v->P = cfg->nprocs;
    if (cfg->source) {
        v->nmap = cfg->nsource;
        if (!(v->map = malloc((size_t)v->nmap * sizeof *v->map)))
            goto nomem;
        for (int i = 0; i < v->nmap; i++)
            v->map[i] = -1;
        for (int p = 0; p < v->P; p++) {
            int q = cfg->source[p];
            if (q < 0 || q >= v->nmap || v->map[q] >= 0) {
                rt_err_set(err, RT_EINVAL, "ParaGraph view: processor %d shown: %s", q,
                           q < 0 || q >= v->nmap ? "not in the replay" : "listed twice");
                rt_pg_view_free(v);
                return NULL;
            }
            v->map[q] = p;
        }
    }
    v->ringsz = cfg->ring ? cfg->ring : 16;
    v->keep_events = cfg->records ? cfg->records : 64;
    v->batch = cfg->batch;
    v->from = cfg->from;
    v->to = cfg->to;
    v->now = v->prof_t = cfg->t0;
    v->latest = -1;
    v->keep_t = v->keep_task_t = -INFINITY;
    v->tlast = -INFINITY;
    rt_chanmap_init(&v->pairs, sizeof(pair_item));
    v->procs = calloc((size_t)v->P, sizeof *v->procs);
    v->prof = calloc((size_t)RT_NSTATES * (size_t)(v->P + 1), sizeof *v->prof);
    if (!v->batch)
        v->evs = malloc((size_t)v->keep_events * sizeof *v->evs);
    if (!v->procs || !v->prof || (!v->batch && !v->evs))
        goto nomem;
    const rt_tsource *src = rp ? rt_replay_source(rp) : NULL;
    v->raw_size = src ? src->raw_size : 0;
    if (v->raw_size && !v->batch) {
        v->capraws = (size_t)v->keep_events * v->raw_size;
        if (!(v->raws = malloc(v->capraws)))
            goto nomem;
    }
    if (rt_grid_new(v->P, 1, RT_STATE_IDLE, &v->grid, err) != RT_OK)
        goto nomem;
    v->count[RT_STATE_IDLE] = v->P;
    for (int i = 0; i < v->P; i++) {
        pg_proc *p = &v->procs[i];
        p->state = RT_STATE_IDLE;
        p->acc_t = cfg->t0;
        p->task = -1;
        if (rt_grow((void **)&p->ch, &p->capch, 1, sizeof *p->ch) != RT_OK)
            goto nomem;
        p->ch[0] = (rt_pg_change){-INFINITY, RT_STATE_IDLE};
        p->nch = 1;
        if (rt_grow((void **)&p->tch, &p->captch, 1, sizeof *p->tch) != RT_OK)
            goto nomem;
        p->tch[0] = (rt_pg_change){-INFINITY, -1};
        p->ntch = 1;
    }
    if (cfg->last) {
        v->last = malloc((size_t)v->P * sizeof *v->last);
        v->fin = malloc((size_t)v->P * sizeof *v->fin);
        if (!v->last || !v->fin)
            goto nomem;
        memcpy(v->last, cfg->last, (size_t)v->P * sizeof *v->last);
        fin_key *keys = malloc((size_t)v->P * sizeof *keys);
        if (!keys)
            goto nomem;
        for (int i = 0; i < v->P; i++)
            keys[i] = (fin_key){v->last[i], i};
        qsort(keys, (size_t)v->P, sizeof *keys, cmp_fin);
        for (int i = 0; i < v->P; i++)
            v->fin[i] = keys[i].id;
        free(keys);
        v->nfin = v->P;
    }
    for (int i = 0; i < cfg->ntasks; i++)
        if (!task_get(v, cfg->tasks[i]))
            goto nomem;
    rt_replay_tap tap = {.ud = v, .on_state = tap_state, .on_task = tap_task, .on_send = tap_send,
                         .on_message = tap_message, .on_collective = tap_collective, .on_event = tap_event};
    if (rp) {
        if (rt_replay_add_tap(rp, &tap) != RT_OK) {
            rt_pg_view_free(v);
            rt_err_set(err, RT_ERANGE, "ParaGraph view: the replay has no room for another listener (%d)",
                       RT_REPLAY_MAXTAPS);
            return NULL;
        }
        v->rp = rp;
    }
    return v;
nomem:
    rt_pg_view_free(v);
    rt_err_set(err, RT_ENOMEM, "ParaGraph view: out of memory for %d processors", cfg->nprocs);
    return NULL;
}

void rt_pg_view_detach(rt_pg_view *v)
{
    if (v && v->rp) {
        rt_replay_remove_tap(v->rp, v);
        v->rp = NULL;
    }
}

void rt_pg_view_forget_replay(rt_pg_view *v)
{
    if (v)
        v->rp = NULL;
}

void rt_pg_view_free(rt_pg_view *v)
{
    if (!v)
        return;
    rt_pg_view_detach(v);
    if (v->procs)
        for (int i = 0; i < v->P; i++) {
            free(v->procs[i].ch);
            free(v->procs[i].tch);
            free(v->procs[i].ring[0].m);
            free(v->procs[i].ring[1].m);
            free(v->procs[i].busy.e);
        }
    free(v->nbusy.e);
    free(v->pend.e);
    rt_grid_free(v->traster);
    free(v->procs);
    rt_grid_free(v->grid);
    free(v->prof);
    free(v->fin);
    free(v->last);
    free(v->msgs);
    free(v->deltas);
    free(v->colls);
    free(v->tasks);
    free(v->evs);
    free(v->raws);
    rt_chanmap_free(&v->pairs);
    free(v->map);
    free(v);
}

int rt_pg_view_status(const rt_pg_view *v) { return v->status; }

void rt_pg_view_sync(rt_pg_view *v, double t)
{
    run_finishes(v, t, 1);
    if (t > v->now)
        v->now = t;
    for (int i = 0; i < v->P; i++)
        account(v, &v->procs[i], t);
    profile_to(v, t);
    if (v->trend) {
        for (int i = 0; i < v->P; i++) {
            pg_proc *p = &v->procs[i];
            busy_corners(v, p, t);
            p->frac = trail_mean(&p->busy, t, v->tr.smoothing);
        }
        trend_advance(v, t, 0);
        trend_point(v, t, &v->cx, &v->cy);
    }
}

/* Drop the changes before t but the last one at or before it (the one still holding at t). */
static void drop_before(rt_pg_change *ch, size_t *n, double t)
{
    size_t k = 0;
    while (k + 1 < *n && ch[k + 1].t <= t)
        k++;
    if (k > 0) {
        memmove(ch, ch + k, (*n - k) * sizeof *ch);
        *n -= k;
    }
}

size_t rt_pg_view_kept(const rt_pg_view *v, size_t *peak)
{
    size_t n = v->nmsgs + v->ndeltas + v->ncolls;
    for (int i = 0; i < v->P; i++)
        n += v->procs[i].nch + v->procs[i].ntch;
    if (peak)
        *peak = n > v->kept_peak ? n : v->kept_peak;
    return n;
}

void rt_pg_view_keep(rt_pg_view *v, double t, double task_t)
{
    size_t now = rt_pg_view_kept(v, NULL);
    if (now > v->kept_peak)
        v->kept_peak = now;
    if (!isnan(task_t) && task_t > v->keep_task_t) {
        v->keep_task_t = task_t;
        for (int i = 0; i < v->P; i++)
            drop_before(v->procs[i].tch, &v->procs[i].ntch, task_t);
    }
    if (isnan(t) || t == -INFINITY)
        return;
    if (t > v->keep_t)
        v->keep_t = t;
    t = v->keep_t;
    for (int i = 0; i < v->P; i++)
        drop_before(v->procs[i].ch, &v->procs[i].nch, t);
    size_t j = 0;
    for (size_t i = 0; i < v->nmsgs; i++)
        if (v->msgs[i].recv >= t)
            v->msgs[j++] = v->msgs[i];
    v->nmsgs = j;
    j = 0;
    for (size_t i = 0; i < v->ndeltas; i++) {
        if (v->deltas[i].t < t) {
            v->base_count += v->deltas[i].dc;
            v->base_bytes += v->deltas[i].db;
        } else {
            v->deltas[j++] = v->deltas[i];
        }
    }
    v->ndeltas = j;
    j = 0;
    for (size_t i = 0; i < v->ncolls; i++)
        if (v->colls[i].t1 >= t)
            v->colls[j++] = v->colls[i];
    v->ncolls = j;
}

/* ---- snapshots ---- */

int rt_pg_view_nprocs(const rt_pg_view *v) { return v->P; }
double rt_pg_view_now(const rt_pg_view *v) { return v->now; }
int rt_pg_view_state(const rt_pg_view *v, int p) { return v->procs[p].state; }
rt_grid *rt_pg_view_state_grid(rt_pg_view *v)
{
    for (int p = 0; p < v->P; p++)
        v->grid->cells[p] = v->procs[p].state;
    return v->grid;
}

int rt_pg_view_count(const rt_pg_view *v, int s) { return v->count[s]; }
double rt_pg_view_time_in(const rt_pg_view *v, int p, int s) { return v->procs[p].acc[s]; }
double rt_pg_view_profile(const rt_pg_view *v, int s, int k) { return v->prof[s * (v->P + 1) + k]; }

const rt_pg_change *rt_pg_view_changes(const rt_pg_view *v, int p, size_t *n)
{
    *n = v->procs[p].nch;
    return v->procs[p].ch;
}

const rt_pg_change *rt_pg_view_task_changes(const rt_pg_view *v, int p, size_t *n)
{
    *n = v->procs[p].ntch;
    return v->procs[p].tch;
}

void rt_pg_view_raster(const rt_pg_view *v, int p, double lo, double hi, int W, double *out)
{
    if (W < 1 || !(hi > lo))
        return;
    const pg_proc *pp = &v->procs[p];
    double now = v->now < hi ? v->now : hi;
    double dt = (hi - lo) / W;
    for (size_t i = 0; i < pp->nch; i++) {
        double a = pp->ch[i].t, b = i + 1 < pp->nch ? pp->ch[i + 1].t : now;
        if (b > now)
            b = now;
        if (a < lo)
            a = lo;
        if (b > a) {
            int s = pp->ch[i].s;
            long c0 = (long)floor((a - lo) / dt), c1 = (long)floor((b - lo) / dt);
            if (c1 > W - 1)
                c1 = W - 1;
            if (c0 > W - 1)
                c0 = W - 1;
            if (c0 == c1) {
                out[c0 * RT_NSTATES + s] += b - a;
            } else {
                out[c0 * RT_NSTATES + s] += lo + (double)(c0 + 1) * dt - a;
                for (long c = c0 + 1; c < c1; c++)
                    out[c * RT_NSTATES + s] += dt;
                out[c1 * RT_NSTATES + s] += b - (lo + (double)c1 * dt);
            }
        }
        if (i + 1 < pp->nch && pp->ch[i + 1].t >= now)
            break;
    }
}

void rt_pg_view_active_columns(const rt_pg_view *v, int p, double lo, double hi, int W, unsigned char *out)
{
    memset(out, 0, (size_t)(W > 0 ? W : 0));
    if (W < 1 || !(hi > lo))
        return;
    /* a column at a time: the state raster's pieces summed outside idle */
    double *col = malloc((size_t)W * RT_NSTATES * sizeof *col);
    if (!col)
        return;
    memset(col, 0, (size_t)W * RT_NSTATES * sizeof *col);
    rt_pg_view_raster(v, p, lo, hi, W, col);
    double half = (hi - lo) / W / 2;
    for (int c = 0; c < W; c++)
        out[c] = col[c * RT_NSTATES + RT_STATE_OVERHEAD] + col[c * RT_NSTATES + RT_STATE_BUSY] > half;
    free(col);
}

/* Add x seconds of task to a column's small table of (task, seconds). */
static void col_add(int *ids, double *secs, int *n, int cap, int task, double x)
{
    for (int i = 0; i < *n; i++)
        if (ids[i] == task) {
            secs[i] += x;
            return;
        }
    if (*n < cap) {
        ids[*n] = task;
        secs[(*n)++] = x;
    }
}

void rt_pg_view_task_columns(const rt_pg_view *v, int p, double lo, double hi, int W, double now, int mod,
                             int32_t *out)
{
    for (int c = 0; c < W; c++)
        out[c] = -1;
    if (W < 1 || !(hi > lo))
        return;
    const pg_proc *pp = &v->procs[p];
    if (now > hi)
        now = hi;
    double dt = (hi - lo) / W;
    enum { CAP = 16 }; /* distinct tasks met in one column (more are not weighed) */
    int ids[CAP], n = 0, cur = -1;
    double secs[CAP];
    /* pieces are in time order: fill the column of each piece, close a column when passed */
    for (size_t i = 0; i < pp->ntch; i++) {
        int task = pp->tch[i].s;
        double a = pp->tch[i].t > lo ? pp->tch[i].t : lo;
        double b = i + 1 < pp->ntch && pp->tch[i + 1].t < now ? pp->tch[i + 1].t : now;
        if (task == -1 || !(b > a))
            continue;
        long c0 = (long)floor((a - lo) / dt), c1 = (long)floor((b - lo) / dt);
        if (c1 > W - 1)
            c1 = W - 1;
        for (long c = c0 < 0 ? 0 : c0; c <= c1; c++) {
            double x0 = a > lo + (double)c * dt ? a : lo + (double)c * dt;
            double x1 = b < lo + (double)(c + 1) * dt ? b : lo + (double)(c + 1) * dt;
            if (!(x1 > x0))
                continue;
            if (c != cur) {
                n = 0;
                cur = (int)c;
            }
            col_add(ids, secs, &n, CAP, task, x1 - x0);
            int best = -1, found = 0;
            double bt = 0;
            for (int k = 0; k < n; k++)
                if (secs[k] > bt || (secs[k] == bt && ids[k] < best)) {
                    best = ids[k];
                    bt = secs[k];
                    found = 1;
                }
            out[c] = found && bt * 2 >= dt ? (mod > 0 ? (best % mod + mod) % mod : best) : -1;
        }
    }
}

double rt_pg_view_busy_fraction(const rt_pg_view *v, int p, double a, double b)
{
    const pg_proc *pp = &v->procs[p];
    if (b <= a)
        return pp->state == RT_STATE_BUSY ? 1 : 0;
    size_t i = 0, j = pp->nch - 1; /* the last change at or before a */
    while (i < j) {
        size_t k = (i + j + 1) / 2;
        if (pp->ch[k].t <= a)
            i = k;
        else
            j = k - 1;
    }
    double busy = 0;
    for (; i < pp->nch && pp->ch[i].t < b; i++) {
        double x = pp->ch[i].t > a ? pp->ch[i].t : a;
        double y = i + 1 < pp->nch && pp->ch[i + 1].t < b ? pp->ch[i + 1].t : b;
        if (y > x && pp->ch[i].s == RT_STATE_BUSY)
            busy += y - x;
    }
    return busy / (b - a);
}

/* Index of the first of n items (size bytes each, ordered by their int64 seq at
 * offset off) whose seq is above after; n when none. */
static size_t first_after(const void *items, size_t n, size_t size, size_t off, int64_t after)
{
    const unsigned char *b = items;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int64_t seq;
        memcpy(&seq, b + mid * size + off, sizeof seq);
        if (seq <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const rt_pg_msg *rt_pg_view_messages(const rt_pg_view *v, size_t *n)
{
    *n = v->nmsgs;
    return v->msgs;
}

const rt_pg_msg *rt_pg_view_messages_after(const rt_pg_view *v, int64_t after, size_t *n)
{
    size_t lo = first_after(v->msgs, v->nmsgs, sizeof *v->msgs, offsetof(rt_pg_msg, seq), after);
    *n = v->nmsgs - lo;
    return v->msgs + lo;
}

int64_t rt_pg_view_messages_seen(const rt_pg_view *v) { return v->msgs_seen; }

const rt_pg_delta *rt_pg_view_deltas(const rt_pg_view *v, size_t *n, int64_t *base_count, double *base_bytes)
{
    *n = v->ndeltas;
    if (base_count)
        *base_count = v->base_count;
    if (base_bytes)
        *base_bytes = v->base_bytes;
    return v->deltas;
}

const rt_pg_delta *rt_pg_view_deltas_after(const rt_pg_view *v, int64_t after, size_t *n, int64_t *seen)
{
    size_t lo = first_after(v->deltas, v->ndeltas, sizeof *v->deltas, offsetof(rt_pg_delta, seq), after);
    *n = v->ndeltas - lo;
    if (seen)
        *seen = v->deltas_seen;
    return v->deltas + lo;
}

const rt_pg_coll *rt_pg_view_collectives(const rt_pg_view *v, size_t *n)
{
    *n = v->ncolls;
    return v->colls;
}

const rt_pg_coll *rt_pg_view_collectives_after(const rt_pg_view *v, int64_t after, size_t *n)
{
    size_t lo = first_after(v->colls, v->ncolls, sizeof *v->colls, offsetof(rt_pg_coll, seq), after);
    *n = v->ncolls - lo;
    return v->colls + lo;
}

int64_t rt_pg_view_ncollectives(const rt_pg_view *v) { return v->colls_seen; }

int rt_pg_view_ring_size(const rt_pg_view *v) { return v->ringsz; }

int rt_pg_view_recent(const rt_pg_view *v, int p, int dir, rt_pg_msg *out, int cap)
{
    const msg_ring *r = &v->procs[p].ring[dir ? 1 : 0];
    int64_t have = r->n < v->ringsz ? r->n : v->ringsz;
    if (have > cap)
        have = cap;
    for (int64_t i = 0; i < have; i++)
        out[i] = r->m[(r->n - have + i) % v->ringsz];
    return (int)have;
}

size_t rt_pg_view_npairs(const rt_pg_view *v) { return v->pairs.n; }

static int cmp_pair(const void *a, const void *b)
{
    const rt_pg_pair *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

size_t rt_pg_view_pairs(const rt_pg_view *v, rt_pg_pair *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < v->pairs.cap && n < cap; i++) {
        const pair_item *it = rt_chanmap_slot(&v->pairs, i);
        if (it)
            out[n++] = (rt_pg_pair){it->key.src, it->key.dst, it->count, it->bytes};
    }
    qsort(out, n, sizeof *out, cmp_pair);
    return n;
}

void rt_pg_view_pair(const rt_pg_view *v, int src, int dst, int64_t *count, double *bytes)
{
    const pair_item *it = rt_chanmap_find(&v->pairs, src, dst, 0, 0);
    *count = it ? it->count : 0;
    *bytes = it ? it->bytes : 0;
}

const rt_pg_task *rt_pg_view_tasks(const rt_pg_view *v, int *n)
{
    *n = (int)v->ntasks;
    return v->tasks;
}

int rt_pg_view_task_of(const rt_pg_view *v, int p, double *since)
{
    if (since)
        *since = v->procs[p].since;
    return v->procs[p].task;
}

double rt_pg_view_task_time(const rt_pg_view *v, int id, double t)
{
    double s = 0;
    for (size_t i = 0; i < v->ntasks; i++)
        if (v->tasks[i].id == id)
            s = v->tasks[i].ptime;
    for (int p = 0; p < v->P; p++)
        if (v->procs[p].task == id && t > v->procs[p].since)
            s += t - v->procs[p].since;
    return s;
}

double rt_pg_view_proc_task_time(const rt_pg_view *v, int p, double t)
{
    const pg_proc *pp = &v->procs[p];
    double s = pp->task_time;
    if (pp->task != -1 && t > pp->since)
        s += t - pp->since;
    return s;
}

int rt_pg_view_latest_task(const rt_pg_view *v) { return v->latest; }

size_t rt_pg_view_nevents(const rt_pg_view *v) { return v->nevs; }

const rt_tevent *rt_pg_view_event(const rt_pg_view *v, size_t i, int64_t *index)
{
    size_t slot = v->batch ? i : (v->ev_head + i) % (size_t)v->keep_events;
    kept_event *k = &v->evs[slot];
    if (index)
        *index = k->index;
    k->ev.raw = k->has_raw ? v->raws + slot * v->raw_size : NULL;
    return &k->ev;
}

int64_t rt_pg_view_event_record(const rt_pg_view *v, size_t i)
{
    return (v->batch ? &v->evs[i] : &v->evs[(v->ev_head + i) % (size_t)v->keep_events])->record;
}

int64_t rt_pg_view_events_seen(const rt_pg_view *v) { return v->events_seen; }

void rt_pg_view_take_events(rt_pg_view *v)
{
    v->nevs = 0;
    v->ev_head = 0;
}

int rt_pg_view_describe(const rt_tevent *ev, const rt_tdefs *defs, char *buf, size_t size)
{
    size_t n = 0;
    int w;
#define PUT(...)                                                                       \
    do {                                                                               \
        w = snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, __VA_ARGS__); \
        if (w > 0)                                                                     \
            n += (size_t)w;                                                            \
    } while (0)
    PUT("%.9g  P%d  %s", ev->time, ev->proc, rt_te_kind_name(ev->kind));
    if (ev->kind == RT_TE_ENTER || ev->kind == RT_TE_LEAVE || ev->kind == RT_TE_MARKER ||
        ev->kind == RT_TE_COLL_BEGIN || ev->kind == RT_TE_COLL_END) {
        const rt_tregion *r = defs ? rt_tdefs_region(defs, ev->region) : NULL;
        if (r && r->name && *r->name)
            PUT("  %s", r->name);
        else if (ev->kind != RT_TE_COLL_BEGIN && ev->kind != RT_TE_COLL_END)
            PUT("  event %d", ev->region);
    }
    if (ev->kind == RT_TE_SEND || ev->kind == RT_TE_RECV || ev->kind == RT_TE_COLL_END) {
        if (ev->bytes > 0)
            PUT("  %.15g B", ev->bytes); /* byte counts whole, not 1.04858e+06 */
        if (ev->kind == RT_TE_SEND)
            PUT("  to %d", ev->peer);
        else if (ev->kind == RT_TE_RECV)
            PUT("  from %d", ev->peer);
        if (ev->kind != RT_TE_COLL_END)
            PUT("  tag %lld", (long long)ev->tag);
    }
    if (ev->kind == RT_TE_COUNTER) { /* a counter's name and its value from here on */
        const rt_tcounter *c = defs ? rt_tdefs_counter_at(defs, ev->region) : NULL;
        PUT("  %s = %.15g", c ? c->name : "?", ev->ndata > 0 ? ev->data[0] : 0.0);
        if (c && c->unit[0])
            PUT(" %s", c->unit);
    }
    if (ev->kind == RT_TE_MARKER && ev->ndata > 0) {
        PUT("  [");
        for (int i = 0; i < ev->ndata && i < RT_TE_MAXDATA; i++)
            PUT(i ? " %.15g" : "%.15g", ev->data[i]); /* event values whole: 40000000, not 4e+07 */
        PUT("]");
    }
#undef PUT
    return (int)n;
}

int rt_pg_view_trend(rt_pg_view *v, const rt_pg_trend_config *cfg)
{
    if (!cfg || !(cfg->smoothing > 0) || !isfinite(cfg->smoothing) || !(cfg->top > 0) || cfg->cols < 0 ||
        cfg->rows < 0 || cfg->cols > 4096 || cfg->rows > 4096 || (cfg->cols > 0) != (cfg->rows > 0) || cfg->mod < 1)
        return RT_EINVAL;
    if (v->trend) { /* again with the same means: a raster added, top and colours changed */
        if (cfg->smoothing != v->tr.smoothing || cfg->bytes != v->tr.bytes ||
            (v->traster && cfg->cols > 0 && (cfg->cols != v->tr.cols || cfg->rows != v->tr.rows)))
            return RT_EINVAL;
        if (cfg->cols > 0 && !v->traster && rt_grid_new(cfg->cols, cfg->rows, -1, &v->traster, NULL) != RT_OK)
            return RT_ENOMEM;
        int cols = v->traster ? v->tr.cols : cfg->cols, rows = v->traster ? v->tr.rows : cfg->rows;
        v->tr = *cfg;
        v->tr.cols = v->traster ? (cfg->cols > 0 ? cfg->cols : cols) : 0;
        v->tr.rows = v->traster ? (cfg->rows > 0 ? cfg->rows : rows) : 0;
        return RT_OK;
    }
    v->tr = *cfg;
    double t0 = v->now;
    if (trail_start(&v->nbusy, t0, v->count[RT_STATE_BUSY]) != RT_OK ||
        trail_start(&v->pend, t0, cfg->bytes ? v->pend_bytes : (double)v->pend_count) != RT_OK)
        return RT_ENOMEM;
    for (int i = 0; i < v->P; i++)
        if (trail_start(&v->procs[i].busy, t0, v->procs[i].state == RT_STATE_BUSY) != RT_OK)
            return RT_ENOMEM;
    if (cfg->cols > 0 && rt_grid_new(cfg->cols, cfg->rows, -1, &v->traster, NULL) != RT_OK)
        return RT_ENOMEM;
    v->trend = 1;
    return RT_OK;
}

double rt_pg_view_trend_busy(const rt_pg_view *v, int p, double *high)
{
    const pg_proc *pp = &v->procs[p];
    if (high)
        *high = pp->high > pp->frac ? pp->high : pp->frac;
    return pp->frac;
}

void rt_pg_view_trend_point(const rt_pg_view *v, double *x, double *y, double *lx, double *ly)
{
    *x = v->cx;
    *y = v->cy;
    if (lx)
        *lx = v->tlast == -INFINITY ? v->cx : v->tx;
    if (ly)
        *ly = v->tlast == -INFINITY ? v->cy : v->ty;
}

rt_grid *rt_pg_view_trend_grid(rt_pg_view *v) { return v->traster; }

int64_t rt_pg_view_trend_corners(const rt_pg_view *v) { return v->corners; }
