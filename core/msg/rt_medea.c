/*
 * rt_medea.c - workload-characterization parameters (see rt_medea.h).
 *
 * Per processor: a stack of open events (tracing events are never pushed),
 * the processor-oriented sums, a sorted array of user-event statistics, and
 * one change point per outermost system interval for the profiles.
 */
#include "rt_medea.h"
#include "rt_par_coll.h"
#include "rt_par_route.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_chanmap.h"
#include "rt_mem.h"
#include "rt_spill.h"

#define MAX_PROC (1 << 20)

typedef struct open_ev {
    int event;
    double t0;
    double bytes;         /* data of the entry record */
    unsigned char sys;    /* a system event */
    unsigned char outer;  /* system event with no system event open around it */
    unsigned char counted;/* user event: the outermost occurrence of its type */
} open_ev;

typedef struct proc_st {
    int seen;
    rt_medea_proc p;      /* sums; derived fields filled by rt_medea_proc_get */
    open_ev *stack;
    size_t depth, cap;
    rt_medea_event *ev;   /* sorted by event type */
    size_t nev, capev;
    rt_medea_rec held;    /* an exit waiting for same-time exits of inner events (has_held) */
    int has_held;
    double stat_extime;   /* tracing time a -101 statistics record gives (has_stat_extime) */
    int has_stat_extime;
    double bstart;        /* start of the computation burst under way (bopen) */
    long bnuser;          /* user events entered in it */
    int bopen;
} proc_st;

/* A component's slot in procs, by (processor, task). */
typedef struct comp_item {
    rt_chankey k;
    int slot;
} comp_item;

/* 16 bytes: a long trace keeps one or two of these per record for its profiles */
typedef struct change {
    double time;
    signed char which;    /* RT_MEDEA_P_* */
    signed char delta;    /* +1 or -1 */
} change;

/*
 * One activity's change points: the newest CH_BLOCK in memory in feed order,
 * older ones in a temporary file, each block sorted by time when it is written.
 * Consecutive blocks in order (a time-ordered trace: all of them) form one run;
 * a profile merges the runs (rt_medea_pcursor). Memory: a block per activity,
 * and 8 bytes per run.
 */
#define CH_BLOCK 16384

typedef struct ch_store {
    change *blk;          /* CH_BLOCK changes, allocated at the first */
    size_t n;
    rt_spill *file;
    int64_t *run_end;     /* run i: changes run_end[i-1] (0 for the first) .. run_end[i] - 1 of file */
    size_t nruns, capruns;
    double last;          /* latest time in the file */
} ch_store;

struct rt_medea {
    int part, parts;      /* parts > 1: only processors p % parts == part are kept (rt_medea_set_part) */
    long events_fed;      /* entry and exit records fed (0: a statistics-only trace) */
    int from_stats;       /* parameters taken from statistics records (rt_medea_add_stats) */
    proc_st *procs;       /* components (processor, task), in order of appearance */
    size_t nprocs_cap;    /* length of procs */
    int *task0;           /* processor id -> 1 + slot of its task-0 component, 0 none */
    size_t captask0;
    rt_chanmap comps;     /* (processor, task != 0) -> slot in procs */
    int *order;           /* slots, ascending by (processor, task) */
    size_t nseen, caporder;
    int keep;             /* record profile change points */
    ch_store ch[RT_MEDEA_NPROF]; /* profile change points, per activity */
    int keep_bursts;      /* record computation bursts */
    rt_medea_burst *bursts; /* computation bursts */
    size_t nbursts, capbursts;
    /* profile output of the last rt_medea_profile call */
    double *ptimes;
    int *pcounts;
};

int rt_medea_category(int e)
{
    if (e >= 0 || (e <= -901 && e >= -914) || e > -11)
        return -1;
    if (e <= -21 && e >= -50) return RT_MEDEA_TR;
    if (e <= -51 && e >= -62) return RT_MEDEA_RC;
    if (e <= -11 && e >= -16) return RT_MEDEA_IP;
    if (e == -401 || e == -402) return RT_MEDEA_CK;
    if (e <= -201 && e >= -299) return RT_MEDEA_IO;
    if (e <= -501 && e >= -503) return RT_MEDEA_RS;
    if (e <= -750 && e >= -799) return RT_MEDEA_CO;
    return RT_MEDEA_SY;
}

static int is_tracing(int e) { return e <= -901 && e >= -914; }

rt_medea *rt_medea_new(void)
{
    rt_medea *m = calloc(1, sizeof(rt_medea));
    if (m)
        rt_chanmap_init(&m->comps, sizeof(comp_item));
    return m;
}

static void free_outputs(rt_medea *m)
{
    free(m->ptimes);
    free(m->pcounts);
    m->ptimes = NULL;
    m->pcounts = NULL;
}

void rt_medea_free(rt_medea *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nseen; i++) {
        free(m->procs[i].stack);
        free(m->procs[i].ev);
    }
    free(m->procs);
    rt_chanmap_free(&m->comps);
    free(m->task0);
    free(m->order);
    for (int w = 0; w < RT_MEDEA_NPROF; w++) {
        free(m->ch[w].blk);
        rt_spill_free(m->ch[w].file);
        free(m->ch[w].run_end);
    }
    free(m->bursts);
    free_outputs(m);
    free(m);
}

/* (proc, task) of slot a comes before that of slot b. */
static int comp_before(const rt_medea *m, int a, int b)
{
    const rt_medea_proc *x = &m->procs[a].p, *y = &m->procs[b].p;
    return x->proc != y->proc ? x->proc < y->proc : x->task < y->task;
}

/* The component of task `task` on processor id (made when new): tasks on one processor are
 * separate components, each with its own stack of open events. */
static proc_st *get_proc(rt_medea *m, int id, int task, rt_err *err)
{
    int *where;
    if (task == 0) { /* the usual case: a direct table by processor id */
        if ((size_t)id < m->captask0 && m->task0[id])
            return &m->procs[m->task0[id] - 1];
        size_t old = m->captask0;
        if (rt_grow((void **)&m->task0, &m->captask0, (size_t)id + 1, sizeof *m->task0) != RT_OK) {
            rt_err_set(err, RT_ENOMEM, "out of memory");
            return NULL;
        }
        memset(m->task0 + old, 0, (m->captask0 - old) * sizeof *m->task0);
        where = &m->task0[id];
    } else {
        comp_item *ci = rt_chanmap_get(&m->comps, id, task, 0, 0);
        if (!ci) {
            rt_err_set(err, RT_ENOMEM, "out of memory");
            return NULL;
        }
        if (ci->slot)
            return &m->procs[ci->slot - 1];
        where = &ci->slot;
    }
    /* a new component */
    if (rt_grow((void **)&m->procs, &m->nprocs_cap, m->nseen + 1, sizeof *m->procs) != RT_OK ||
        rt_grow((void **)&m->order, &m->caporder, m->nseen + 1, sizeof *m->order) != RT_OK) {
        rt_err_set(err, RT_ENOMEM, "out of memory");
        return NULL;
    }
    int slot = (int)m->nseen;
    *where = slot + 1;
    proc_st *ps = &m->procs[slot];
    memset(ps, 0, sizeof *ps);
    ps->seen = 1;
    ps->p.proc = id;
    ps->p.task = task;
    size_t k = m->nseen++;
    while (k > 0 && comp_before(m, slot, m->order[k - 1])) {
        m->order[k] = m->order[k - 1];
        k--;
    }
    m->order[k] = slot;
    return ps;
}

/* Statistics slot of user event type e on ps, inserted in type order. */
static rt_medea_event *event_slot(proc_st *ps, int proc, int e)
{
    size_t lo = 0, hi = ps->nev;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ps->ev[mid].event < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ps->nev && ps->ev[lo].event == e)
        return &ps->ev[lo];
    if (rt_grow((void **)&ps->ev, &ps->capev, ps->nev + 1, sizeof *ps->ev) != RT_OK)
        return NULL;
    memmove(&ps->ev[lo + 1], &ps->ev[lo], (ps->nev - lo) * sizeof *ps->ev);
    memset(&ps->ev[lo], 0, sizeof *ps->ev);
    ps->ev[lo].proc = proc;
    ps->ev[lo].task = ps->p.task;
    ps->ev[lo].event = e;
    ps->nev++;
    return &ps->ev[lo];
}

void rt_medea_keep_profiles(rt_medea *m, int on)
{
    m->keep = on;
}

void rt_medea_keep_bursts(rt_medea *m, int on)
{
    m->keep_bursts = on;
}

void rt_medea_set_part(rt_medea *m, int part, int parts)
{
    m->part = parts > 1 ? part : 0;
    m->parts = parts > 1 ? parts : 0;
}

int rt_medea_parts(const rt_medea *m) { return m->parts; }

void rt_medea_share_events(rt_medea *m)
{
    int64_t n = m->events_fed;
    rt_par_sum_i64(&n, 1);
    m->events_fed = (long)n;
}

/* 1 when processor proc's parameters are kept here: the job's rule (rt_par_route.h). */
static int kept(const rt_medea *m, int proc)
{
    return m->parts <= 1 || rt_par_owns(proc, m->part, m->parts);
}

static int sort_changes(change *c, size_t kfeed, size_t k);

/* Sort the block in memory and write it to the file: it extends the last run when it
 * starts no earlier than the file's latest time, else it starts a run. */
static int spill_changes(ch_store *cs)
{
    if (cs->n == 0)
        return RT_OK;
    if (sort_changes(cs->blk, cs->n, cs->n) != RT_OK)
        return RT_ENOMEM;
    if (!cs->file && !(cs->file = rt_spill_new(sizeof(change), CH_BLOCK)))
        return RT_ENOMEM;
    if (cs->nruns == 0 || cs->blk[0].time < cs->last) {
        if (rt_grow((void **)&cs->run_end, &cs->capruns, cs->nruns + 1, sizeof *cs->run_end) != RT_OK)
            return RT_ENOMEM;
        cs->nruns++;
    }
    if (rt_spill_append(cs->file, cs->blk, cs->n) != RT_OK)
        return RT_EIO;
    cs->run_end[cs->nruns - 1] = rt_spill_count(cs->file);
    cs->last = cs->blk[cs->n - 1].time;
    cs->n = 0;
    return RT_OK;
}

static int add_change(rt_medea *m, double t, int which, int delta)
{
    if (!m->keep)
        return RT_OK;
    ch_store *cs = &m->ch[which];
    if (!cs->blk && !(cs->blk = malloc(CH_BLOCK * sizeof *cs->blk)))
        return RT_ENOMEM;
    if (cs->n == CH_BLOCK) {
        int st = spill_changes(cs);
        if (st != RT_OK)
            return st;
    }
    cs->blk[cs->n++] = (change){t, (signed char)which, (signed char)delta};
    return RT_OK;
}

/* End the burst under way on ps at t (kept when it lasts); the next starts at the next system exit. */
static int close_burst(rt_medea *m, proc_st *ps, double t)
{
    if (!ps->bopen)
        return RT_OK;
    ps->bopen = 0;
    if (!m->keep_bursts || !(t > ps->bstart))
        return RT_OK;
    if (rt_grow((void **)&m->bursts, &m->capbursts, m->nbursts + 1, sizeof *m->bursts) != RT_OK)
        return RT_ENOMEM;
    m->bursts[m->nbursts++] = (rt_medea_burst){ps->p.proc, ps->p.task, ps->bstart, t, ps->bnuser};
    return RT_OK;
}

static void open_burst(proc_st *ps, double t)
{
    ps->bstart = t;
    ps->bnuser = 0;
    ps->bopen = 1;
}

/* Change points of an outermost system interval of category cat (sign +1 at entry). */
static int system_changes(rt_medea *m, int cat, double t, int sign)
{
    int st = add_change(m, t, RT_MEDEA_P_COMP, -sign);
    int which = -1;
    if (cat == RT_MEDEA_TR) which = RT_MEDEA_P_SEND;
    if (cat == RT_MEDEA_RC) which = RT_MEDEA_P_RECV;
    if (cat == RT_MEDEA_IO) which = RT_MEDEA_P_IO;
    if (st == RT_OK && which >= 0)
        st = add_change(m, t, which, sign);
    if (st == RT_OK && (cat == RT_MEDEA_TR || cat == RT_MEDEA_RC || cat == RT_MEDEA_CO))
        st = add_change(m, t, RT_MEDEA_P_COMM, sign);
    return st;
}

static int push_entry(rt_medea *m, proc_st *ps, const rt_medea_rec *r)
{
    if (rt_grow((void **)&ps->stack, &ps->cap, ps->depth + 1, sizeof *ps->stack) != RT_OK)
        return RT_ENOMEM;
    open_ev o = {r->event, r->time, r->bytes, 0, 0, 0};
    int cat = rt_medea_category(r->event);
    if (cat >= 0) {
        o.sys = 1;
        o.outer = 1;
        for (size_t i = 0; i < ps->depth; i++)
            if (ps->stack[i].sys)
                o.outer = 0;
        if (cat == RT_MEDEA_TR && r->bytes >= 0) {
            ps->p.trdata += r->bytes;
            ps->p.ttdata += r->bytes;
            ps->p.trnum++;
        }
        if (o.outer && (system_changes(m, cat, r->time, +1) != RT_OK || close_burst(m, ps, r->time) != RT_OK))
            return RT_ENOMEM;
    } else {
        if (ps->bopen)
            ps->bnuser++;
        o.counted = 1;
        for (size_t i = 0; i < ps->depth; i++)
            if (!ps->stack[i].sys && ps->stack[i].event == r->event)
                o.counted = 0;
    }
    ps->stack[ps->depth++] = o;
    return RT_OK;
}

/* Charge the closed user or system event x (stack index d) to its user ancestors. */
static int charge_ancestors(proc_st *ps, size_t d, const open_ev *x, double dur, int proc)
{
    int between_sys = 0; /* a system event lies strictly between ancestor and x */
    for (size_t k = d; k-- > 0;) {
        const open_ev *a = &ps->stack[k];
        if (!a->sys && a->counted) {
            rt_medea_event *s = event_slot(ps, proc, a->event);
            if (!s)
                return RT_ENOMEM;
            if (k == d - 1) {
                if (x->sys) {
                    s->stime += dur;
                    s->snum++;
                } else {
                    s->utime += dur;
                    s->unum++;
                }
            } else if (!ps->stack[k + 1].sys && !between_sys) {
                if (x->sys) {
                    s->hstime += dur;
                    s->hsnum++;
                } else {
                    s->hunum++;
                }
            }
        }
        if (a->sys && k < d)
            between_sys = 1;
    }
    return RT_OK;
}

static int close_exit(rt_medea *m, proc_st *ps, const rt_medea_rec *r)
{
    size_t d = ps->depth;
    while (d > 0 && ps->stack[d - 1].event != r->event)
        d--;
    if (d == 0) {
        ps->p.unmatched++;
        return RT_OK;
    }
    d--;
    open_ev x = ps->stack[d];
    double dur = r->time - x.t0;
    int cat = rt_medea_category(r->event);
    if (x.sys) {
        if (cat == RT_MEDEA_RC && r->bytes >= 0) {
            ps->p.rcdata += r->bytes;
            ps->p.ttdata += r->bytes;
            ps->p.rcnum++;
        }
        double b = r->bytes >= 0 ? r->bytes : x.bytes;
        if (cat == RT_MEDEA_CO && b >= 0)
            ps->p.ttdata += b;
        if (cat == RT_MEDEA_IO) {
            ps->p.ionum++;
            if (b >= 0) {
                ps->p.iodata += b;
                ps->p.ttdata += b;
            }
        }
        if (x.outer) {
            ps->p.time[cat] += dur;
            if (system_changes(m, cat, r->time, -1) != RT_OK)
                return RT_ENOMEM;
            open_burst(ps, r->time);
        }
    } else if (x.counted) {
        rt_medea_event *s = event_slot(ps, r->proc, x.event);
        if (!s)
            return RT_ENOMEM;
        s->ctime += dur;
        s->cnum++;
    }
    if (charge_ancestors(ps, d, &x, dur, r->proc) != RT_OK)
        return RT_ENOMEM;
    memmove(&ps->stack[d], &ps->stack[d + 1], (ps->depth - d - 1) * sizeof *ps->stack);
    ps->depth--;
    return RT_OK;
}

/* Stack index + 1 of the innermost open event of type e on ps, 0 when none. */
static size_t open_depth(const proc_st *ps, int e)
{
    size_t d = ps->depth;
    while (d > 0 && ps->stack[d - 1].event != e)
        d--;
    return d;
}

/* An entry, an exit, or another (timed only) record, on its component. */
static int apply(rt_medea *m, proc_st *ps, const rt_medea_rec *r)
{
    if (r->rectype == -3 && !is_tracing(r->event))
        return push_entry(m, ps, r);
    if (r->rectype == -4 && !is_tracing(r->event))
        return close_exit(m, ps, r);
    return RT_OK;
}

/*
 * The same-time rule of the replay (rt_replay.h), for the accumulator's own
 * stacks: an exit that would close an event with events opened inside it
 * still open waits while the component's next records are exits of those inner
 * events at the same time; they close first, then it.
 */
static int add_ordered(rt_medea *m, proc_st *ps, const rt_medea_rec *r)
{
    /* the usual case first: nothing held, and no exit, or the exit of the innermost entry */
    if (!ps->has_held && (r->rectype != -4 || (ps->depth > 0 && ps->stack[ps->depth - 1].event == r->event)))
        return apply(m, ps, r);
    int st = RT_OK;
    if (ps->has_held) {
        size_t outer = open_depth(ps, ps->held.event), inner = r->rectype == -4 ? open_depth(ps, r->event) : 0;
        if (r->time == ps->held.time && inner > outer && outer > 0) {
            if ((st = apply(m, ps, r)) == RT_OK && open_depth(ps, ps->held.event) == ps->depth) {
                ps->has_held = 0;
                st = apply(m, ps, &ps->held);
            }
            return st;
        }
        ps->has_held = 0;
        if ((st = apply(m, ps, &ps->held)) != RT_OK)
            return st;
    }
    if (r->rectype == -4 && !is_tracing(r->event)) {
        size_t d = open_depth(ps, r->event);
        if (d > 0 && d < ps->depth) {
            ps->held = *r;
            ps->has_held = 1;
            return RT_OK;
        }
    }
    return apply(m, ps, r);
}

int rt_medea_add(rt_medea *m, const rt_medea_rec *r, rt_err *err)
{
    if (r->proc < 0 || r->proc >= MAX_PROC)
        return rt_err_set(err, RT_EINVAL, "processor: id %d outside 0..%d", r->proc, MAX_PROC - 1);
    if (!isfinite(r->time))
        return rt_err_set(err, RT_EINVAL, "time: not a finite number");
    if (!kept(m, r->proc)) { /* another part's: only whether the trace has events matters here */
        if ((r->rectype == -3 || r->rectype == -4) && !is_tracing(r->event))
            m->events_fed++;
        return RT_OK;
    }
    proc_st *ps = get_proc(m, r->proc, r->task, err);
    if (!ps)
        return RT_ENOMEM;
    /* seen: 1 = registered, 2 = first record taken */
    if (ps->seen == 1) {
        ps->p.first = ps->p.last = r->time;
        ps->seen = 2;
        open_burst(ps, r->time);
    } else {
        if (r->time < ps->p.first) ps->p.first = r->time;
        if (r->time > ps->p.last) ps->p.last = r->time;
    }
    free_outputs(m);
    /* the tracer's own start and stop records do not make a trace of events */
    if ((r->rectype == -3 || r->rectype == -4) && !is_tracing(r->event))
        m->events_fed++;
    if (add_ordered(m, ps, r) != RT_OK)
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    return RT_OK;
}

/*
 * Close what is still open the way the replay does at the end of a trace: every
 * open event of a processor, innermost first, at the processor's last record.
 * Counting these occurrences keeps ctime >= stime + utime and cnum >= 1 for an
 * event whose children were charged to it (issue 18: an unclosed user event).
 */
int rt_medea_finish(rt_medea *m, rt_err *err)
{
    for (size_t k = 0; k < m->nseen; k++) {
        proc_st *ps = &m->procs[m->order[k]];
        if (ps->has_held) {
            ps->has_held = 0;
            if (apply(m, ps, &ps->held) != RT_OK)
                return rt_err_set(err, RT_ENOMEM, "out of memory");
        }
        while (ps->depth > 0) {
            const open_ev *top = &ps->stack[ps->depth - 1];
            rt_medea_rec r = {-4, top->event, ps->p.last, ps->p.proc, -1, ps->p.task};
            if (close_exit(m, ps, &r) != RT_OK)
                return rt_err_set(err, RT_ENOMEM, "out of memory");
            ps->p.unclosed++;
        }
        if (close_burst(m, ps, ps->p.last) != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    return RT_OK;
}

const rt_medea_burst *rt_medea_bursts(const rt_medea *m, size_t *n)
{
    *n = m->nbursts;
    return m->bursts;
}

long rt_medea_events_fed(const rt_medea *m) { return m->events_fed; }

int rt_medea_from_stats(const rt_medea *m) { return m->from_stats; }

int rt_medea_add_stats(rt_medea *m, int proc, int task, int kind, int event, double value, double time,
                       rt_err *err)
{
    if (proc < 0 || proc >= MAX_PROC)
        return rt_err_set(err, RT_EINVAL, "processor: id %d outside 0..%d", proc, MAX_PROC - 1);
    if (!isfinite(value) || !isfinite(time))
        return rt_err_set(err, RT_EINVAL, "statistics: not a finite number");
    if (!kept(m, proc)) {
        if (kind < -105 || kind > -101)
            return rt_err_set(err, RT_EINVAL, "statistics: record type %d is not -101..-105", kind);
        m->from_stats = 1;
        return RT_OK;
    }
    proc_st *ps = get_proc(m, proc, task, err);
    if (!ps)
        return RT_ENOMEM;
    if (ps->seen == 1) {
        ps->p.first = ps->p.last = time;
        ps->seen = 2;
    } else {
        if (time < ps->p.first) ps->p.first = time;
        if (time > ps->p.last) ps->p.last = time;
    }
    m->from_stats = 1;
    if (kind == -101 && is_tracing(event) && value >= 0) { /* time traced: the execution time */
        if (!ps->has_stat_extime || value > ps->stat_extime)
            ps->stat_extime = value;
        ps->has_stat_extime = 1;
    }
    int cat = rt_medea_category(event);
    if (cat < 0)
        return RT_OK; /* user and tracing events: no processor parameter */
    switch (kind) {
    case -101: /* seconds spent */
        ps->p.time[cat] += value;
        break;
    case -102: /* occurrences */
        if (cat == RT_MEDEA_TR) ps->p.trnum += (long)value;
        if (cat == RT_MEDEA_RC) ps->p.rcnum += (long)value;
        if (cat == RT_MEDEA_IO) ps->p.ionum += (long)value;
        break;
    case -103: /* bytes sent */
        ps->p.trdata += value;
        ps->p.ttdata += value;
        break;
    case -104: /* bytes received */
        ps->p.rcdata += value;
        ps->p.ttdata += value;
        break;
    case -105: /* size volume (I/O) */
        if (cat == RT_MEDEA_IO) {
            ps->p.iodata += value;
            ps->p.ttdata += value;
        }
        break;
    default:
        return rt_err_set(err, RT_EINVAL, "statistics: record type %d is not -101..-105", kind);
    }
    return RT_OK;
}

size_t rt_medea_nprocs(const rt_medea *m)
{
    return m->nseen;
}

void rt_medea_proc_get(const rt_medea *m, size_t i, rt_medea_proc *out)
{
    const proc_st *ps = &m->procs[m->order[i]];
    *out = ps->p;
    out->extime = out->last - out->first;
    if (ps->has_stat_extime && m->events_fed == 0)
        out->extime = ps->stat_extime; /* statistics only: the time they say was traced */
    else if (m->from_stats && out->extime <= 0)
        out->extime = out->last; /* statistics only, written at one time: that time since the start */
    double sys = 0;
    for (int c = 0; c < RT_MEDEA_NCAT; c++)
        sys += out->time[c];
    out->cptime = out->extime - sys;
    out->cmtime = out->time[RT_MEDEA_TR] + out->time[RT_MEDEA_RC] + out->time[RT_MEDEA_CO];
    out->unclosed = ps->p.unclosed + (long)ps->depth;
}

size_t rt_medea_nevents(const rt_medea *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nseen; i++)
        n += m->procs[m->order[i]].nev;
    return n;
}

void rt_medea_event_get(const rt_medea *m, size_t i, rt_medea_event *out)
{
    for (size_t k = 0; k < m->nseen; k++) {
        const proc_st *ps = &m->procs[m->order[k]];
        if (i < ps->nev) {
            *out = ps->ev[i];
            return;
        }
        i -= ps->nev;
    }
    memset(out, 0, sizeof *out);
}

static int cmp_change(const void *a, const void *b)
{
    const change *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return 0;
}

/*
 * Sort c[0..k) by time. The feed's change points c[0..kfeed) arrive in trace
 * order, which for a time-ordered trace is already sorted: checking that is
 * O(n), where qsort on 10^7 changes took most of a profile's time. Then only
 * the few closing changes c[kfeed..k) are sorted and merged in (through a
 * scratch copy of them). A feed out of order falls back to qsort of it all.
 */
static int sort_changes(change *c, size_t kfeed, size_t k)
{
    for (size_t i = 1; i < kfeed; i++)
        if (c[i].time < c[i - 1].time) {
            qsort(c, k, sizeof *c, cmp_change);
            return RT_OK;
        }
    size_t ntail = k - kfeed;
    if (ntail == 0)
        return RT_OK;
    change *tail = malloc(ntail * sizeof *tail);
    if (!tail)
        return RT_ENOMEM;
    memcpy(tail, c + kfeed, ntail * sizeof *tail);
    qsort(tail, ntail, sizeof *tail, cmp_change);
    /* merge from the back: the feed part stays where it is until overwritten */
    size_t i = kfeed, j = ntail, o = k;
    while (j > 0) {
        if (i > 0 && c[i - 1].time > tail[j - 1].time)
            c[--o] = c[--i];
        else
            c[--o] = tail[--j];
    }
    free(tail);
    return RT_OK;
}

/* A sorted list of changes the cursor merges: a run of the file, read CUR_BUF at a time, or
 * an array in memory. */
#define CUR_BUF 256

typedef struct pc_src {
    const change *mem;    /* NULL: from the file */
    int64_t pos, end;
    change buf[CUR_BUF];
    int64_t buf_lo;       /* file index of buf[0] */
    int nbuf;
} pc_src;

struct rt_medea_pcursor {
    ch_store *cs;
    change *own;          /* the block in memory (sorted copy) then the closing changes */
    size_t nown;
    pc_src *src;
    int nsrc;
    int *heap;            /* sources with changes left, by the time of their next */
    int nheap;
    int level, emitted, last_level;
};

static int pc_head(rt_medea_pcursor *c, int i, change *out)
{
    pc_src *s = &c->src[i];
    if (s->mem) {
        *out = s->mem[s->pos];
        return RT_OK;
    }
    if (s->pos < s->buf_lo || s->pos >= s->buf_lo + s->nbuf) {
        int64_t k = s->end - s->pos < CUR_BUF ? s->end - s->pos : CUR_BUF;
        if (rt_spill_read(c->cs->file, s->pos, (size_t)k, s->buf) != RT_OK)
            return RT_EIO;
        s->buf_lo = s->pos;
        s->nbuf = (int)k;
    }
    *out = s->buf[s->pos - s->buf_lo];
    return RT_OK;
}

static double pc_time(rt_medea_pcursor *c, int i)
{
    pc_src *s = &c->src[i];
    if (s->mem)
        return s->mem[s->pos].time;
    return s->buf[s->pos - s->buf_lo].time; /* (pc_head has filled it) */
}

static void pc_sift_down(rt_medea_pcursor *c, int k)
{
    for (;;) {
        int l = 2 * k + 1, r = l + 1, m = k;
        if (l < c->nheap && pc_time(c, c->heap[l]) < pc_time(c, c->heap[m]))
            m = l;
        if (r < c->nheap && pc_time(c, c->heap[r]) < pc_time(c, c->heap[m]))
            m = r;
        if (m == k)
            return;
        int t = c->heap[k];
        c->heap[k] = c->heap[m];
        c->heap[m] = t;
        k = m;
    }
}

void rt_medea_profile_close(rt_medea_pcursor *c)
{
    if (!c)
        return;
    free(c->own);
    free(c->src);
    free(c->heap);
    free(c);
}

rt_medea_pcursor *rt_medea_profile_open(rt_medea *m, int which, rt_err *err)
{
    if (which < 0 || which >= RT_MEDEA_NPROF) {
        rt_err_set(err, RT_EINVAL, "profile: no activity %d", which);
        return NULL;
    }
    if (!m->keep && which != RT_MEDEA_P_EXEC) {
        rt_err_set(err, RT_ESTATE, "profile: change points were not kept (rt_medea_keep_profiles)");
        return NULL;
    }
    ch_store *cs = &m->ch[which];
    rt_medea_pcursor *c = calloc(1, sizeof *c);
    if (!c)
        goto nomem;
    c->cs = cs;
    /* the block in memory, plus the processors' spans and the closing of intervals
     * still open at their processor's end */
    size_t cap = cs->n + 2 * m->nseen;
    for (size_t i = 0; i < m->nseen; i++)
        cap += 2 * m->procs[m->order[i]].depth;
    if (!(c->own = malloc((cap ? cap : 1) * sizeof *c->own)))
        goto nomem;
    size_t k = 0;
    if (cs->n)
        memcpy(c->own, cs->blk, cs->n * sizeof *c->own);
    k = cs->n;
    size_t kfeed = k; /* the feed's changes come first, the closing ones after */
    for (size_t i = 0; i < m->nseen; i++) {
        const proc_st *ps = &m->procs[m->order[i]];
        if (which == RT_MEDEA_P_EXEC || which == RT_MEDEA_P_COMP) {
            c->own[k++] = (change){ps->p.first, (signed char)which, +1};
            c->own[k++] = (change){ps->p.last, (signed char)which, -1};
        }
        for (size_t d = 0; d < ps->depth; d++) {
            const open_ev *o = &ps->stack[d];
            if (!o->outer)
                continue;
            int cat = rt_medea_category(o->event);
            int hit = which == RT_MEDEA_P_COMP ||
                      (which == RT_MEDEA_P_SEND && cat == RT_MEDEA_TR) ||
                      (which == RT_MEDEA_P_RECV && cat == RT_MEDEA_RC) ||
                      (which == RT_MEDEA_P_IO && cat == RT_MEDEA_IO) ||
                      (which == RT_MEDEA_P_COMM &&
                       (cat == RT_MEDEA_TR || cat == RT_MEDEA_RC || cat == RT_MEDEA_CO));
            if (hit)
                c->own[k++] = (change){ps->p.last, (signed char)which,
                                       (signed char)(which == RT_MEDEA_P_COMP ? +1 : -1)};
        }
    }
    if (sort_changes(c->own, kfeed, k) != RT_OK)
        goto nomem;
    c->nown = k;
    c->src = calloc(cs->nruns + 1, sizeof *c->src);
    c->heap = malloc((cs->nruns + 1) * sizeof *c->heap);
    if (!c->src || !c->heap)
        goto nomem;
    for (size_t r = 0; r < cs->nruns; r++)
        c->src[c->nsrc++] = (pc_src){.pos = r ? cs->run_end[r - 1] : 0, .end = cs->run_end[r]};
    if (k)
        c->src[c->nsrc++] = (pc_src){.mem = c->own, .pos = 0, .end = (int64_t)k};
    for (int i = 0; i < c->nsrc; i++) {
        change h;
        if (pc_head(c, i, &h) != RT_OK) {
            rt_medea_profile_close(c);
            rt_err_set(err, RT_EIO, "profile: cannot read back the change points' temporary file");
            return NULL;
        }
        c->heap[c->nheap++] = i;
    }
    for (int i = c->nheap / 2 - 1; i >= 0; i--)
        pc_sift_down(c, i);
    return c;
nomem:
    rt_medea_profile_close(c);
    rt_err_set(err, RT_ENOMEM, "out of memory");
    return NULL;
}

/* The next change of the merge into *out: 1, 0 at the end, -1 on a read error. */
static int pc_pop(rt_medea_pcursor *c, change *out)
{
    if (c->nheap == 0)
        return 0;
    int i = c->heap[0];
    pc_src *s = &c->src[i];
    if (pc_head(c, i, out) != RT_OK)
        return -1;
    if (++s->pos == s->end)
        c->heap[0] = c->heap[--c->nheap];
    else if (pc_head(c, i, &(change){0}) != RT_OK)
        return -1;
    pc_sift_down(c, 0);
    return 1;
}

int rt_medea_profile_next(rt_medea_pcursor *c, double *times, int *counts, size_t max, size_t *n, rt_err *err)
{
    size_t out = 0;
    while (out < max && c->nheap > 0) {
        double t = pc_time(c, c->heap[0]);
        while (c->nheap > 0 && pc_time(c, c->heap[0]) == t) {
            change ch;
            if (pc_pop(c, &ch) < 0)
                return rt_err_set(err, RT_EIO, "profile: cannot read back the change points' temporary file");
            c->level += ch.delta;
        }
        if (c->emitted && c->last_level == c->level)
            continue;
        times[out] = t;
        counts[out] = c->level;
        out++;
        c->emitted = 1;
        c->last_level = c->level;
    }
    *n = out;
    return RT_OK;
}

int rt_medea_profile(rt_medea *m, int which, const double **times,
                     const int **counts, size_t *n, rt_err *err)
{
    free_outputs(m);
    rt_err e;
    rt_medea_pcursor *c = rt_medea_profile_open(m, which, &e);
    if (!c) {
        if (err)
            *err = e;
        return e.status;
    }
    size_t cap = 0, k = 0, got = 0;
    int st = RT_OK;
    do {
        size_t want = k + 4096;
        size_t c1 = cap, c2 = cap;
        if (rt_grow((void **)&m->ptimes, &c1, want, sizeof *m->ptimes) != RT_OK ||
            rt_grow((void **)&m->pcounts, &c2, want, sizeof *m->pcounts) != RT_OK) {
            st = rt_err_set(err, RT_ENOMEM, "out of memory");
            break;
        }
        cap = c1 < c2 ? c1 : c2;
        if ((st = rt_medea_profile_next(c, m->ptimes + k, m->pcounts + k, cap - k, &got, err)) != RT_OK)
            break;
        k += got;
    } while (got > 0);
    rt_medea_profile_close(c);
    if (st != RT_OK) {
        free_outputs(m);
        return st;
    }
    *times = m->ptimes;
    *counts = m->pcounts;
    *n = k;
    return RT_OK;
}

int rt_medea_integrate(const double *times, const int *counts, size_t n, double t0, double t1,
                       size_t ns, double *out, rt_err *err)
{
    if (!(isfinite(t0) && isfinite(t1) && t0 < t1) || ns < 1)
        return rt_err_set(err, RT_EINVAL, "slices: need t0 < t1 and at least one slice");
    for (size_t j = 0; j < ns; j++)
        out[j] = 0;
    double w = (t1 - t0) / (double)ns;
    for (size_t k = 0; k < n; k++) {
        if (counts[k] == 0)
            continue;
        double a = times[k] > t0 ? times[k] : t0;
        double b = k + 1 < n ? times[k + 1] : t1;
        if (b > t1)
            b = t1;
        if (!(a < b))
            continue;
        size_t j = (size_t)((a - t0) / w);
        if (j >= ns)
            j = ns - 1;
        while (a < b) {
            double e = j + 1 < ns ? t0 + (double)(j + 1) * w : t1;
            double stop = b < e ? b : e;
            if (stop > a)
                out[j] += (double)counts[k] * (stop - a);
            a = stop;
            if (j + 1 >= ns)
                break;
            j++;
        }
    }
    return RT_OK;
}
