/* Tests of ParaGraph's view (core/view/rt_pg_view): random event streams fed
 * to a replay with the view attached; at random sync points every snapshot is
 * checked against a slow model that keeps the whole log of what the replay
 * reported (states, sends, messages, collectives, tasks, events) and answers
 * each question by integrating or scanning that log from the start. Also a
 * hand-made case and the event line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_test.h"

#include "rt_pg_view.h"
#include "rt_replay.h"

#define NP 5

enum { R_USER0 = 0, R_SEND = 10, R_WAIT = 11, R_COLL = 12, R_SYS = 13, R_MARK = 20 };
#define MAXL 8192

/* ---- the log: everything the replay reported, in order ---- */

typedef struct {
    int proc, s;
    double t;
} lstate;

typedef struct {
    int proc, task;
    double t;
} ltask;

typedef struct {
    int n_st, n_tk, n_send, n_msg, n_coll, n_ev;
    lstate st[MAXL];
    ltask tk[MAXL];
    rt_message send[MAXL], msg[MAXL];
    rt_pg_coll coll[MAXL];
    rt_tevent ev[MAXL];
} rlog;

static void l_state(void *ud, int proc, double t, int old, int new)
{
    (void)old;
    rlog *l = ud;
    assert_true(l->n_st < MAXL);
    l->st[l->n_st++] = (lstate){proc, new, t};
}

static void l_task(void *ud, int proc, double t, int old, int new)
{
    (void)old;
    rlog *l = ud;
    assert_true(l->n_tk < MAXL);
    l->tk[l->n_tk++] = (ltask){proc, new, t};
}

static void l_send(void *ud, const rt_message *m)
{
    rlog *l = ud;
    l->send[l->n_send++] = *m;
}

static void l_msg(void *ud, const rt_message *m)
{
    rlog *l = ud;
    l->msg[l->n_msg++] = *m;
}

static void l_coll(void *ud, const rt_collective *c)
{
    rlog *l = ud;
    int lo = 1 << 30, hi = -1;
    for (int i = 0; i < c->nparts; i++) {
        lo = c->procs[i] < lo ? c->procs[i] : lo;
        hi = c->procs[i] > hi ? c->procs[i] : hi;
    }
    int64_t seq = l->n_coll + 1;
    l->coll[l->n_coll++] = (rt_pg_coll){c->first_begin, c->last_end, lo, hi, c->nparts, c->region, c->total_bytes, seq};
}

static void l_event(void *ud, const rt_tevent *ev)
{
    rlog *l = ud;
    l->ev[l->n_ev++] = *ev;
}

/* ---- the slow model: questions answered from the log ---- */

typedef struct {
    const rlog *l;
    double last[NP], t0, from, to, keep;
} slow;

/* The state of p at t: idle from its last event on, else the last logged change at or before t. */
static int s_state(const slow *m, int p, double t)
{
    if (t >= m->last[p])
        return RT_STATE_IDLE;
    int s = RT_STATE_IDLE;
    for (int i = 0; i < m->l->n_st; i++)
        if (m->l->st[i].proc == p && m->l->st[i].t <= t)
            s = m->l->st[i].s;
    return s;
}

/* Every time at which some state may change inside (a, b), with a and b, sorted. */
static int breakpoints(const slow *m, double a, double b, double *pts)
{
    int n = 0;
    pts[n++] = a;
    for (int i = 0; i < m->l->n_st; i++)
        if (m->l->st[i].t > a && m->l->st[i].t < b)
            pts[n++] = m->l->st[i].t;
    for (int p = 0; p < NP; p++)
        if (m->last[p] > a && m->last[p] < b)
            pts[n++] = m->last[p];
    pts[n++] = b;
    for (int i = 1; i < n; i++) /* insertion sort: small */
        for (int j = i; j > 0 && pts[j] < pts[j - 1]; j--) {
            double x = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = x;
        }
    return n;
}

/* Seconds of [a, b] during which pred(p or count) holds: integrate between breakpoints. */
static double s_time_in(const slow *m, int p, int s, double a, double b)
{
    static double pts[MAXL + NP + 2];
    if (b <= a)
        return 0;
    int n = breakpoints(m, a, b, pts);
    double sum = 0;
    for (int i = 0; i + 1 < n; i++)
        if (pts[i + 1] > pts[i] && s_state(m, p, pts[i]) == s)
            sum += pts[i + 1] - pts[i];
    return sum;
}

static double s_profile(const slow *m, int s, int k, double a, double b)
{
    static double pts[MAXL + NP + 2];
    if (b <= a)
        return 0;
    int n = breakpoints(m, a, b, pts);
    double sum = 0;
    for (int i = 0; i + 1 < n; i++) {
        if (!(pts[i + 1] > pts[i]))
            continue;
        int c = 0;
        for (int p = 0; p < NP; p++)
            c += s_state(m, p, pts[i]) == s;
        if (c == k)
            sum += pts[i + 1] - pts[i];
    }
    return sum;
}

/* The window [from, to] cut to [t0, T]. */
static void s_window(const slow *m, double T, double *a, double *b)
{
    *a = m->from > m->t0 ? m->from : m->t0;
    *b = m->to < T ? m->to : T;
}

/* equal, or within a relative 1e-9 */
static int close_to(double x, double y)
{
    return x == y || fabs(x - y) <= 1e-9 * (1 + fabs(x) + fabs(y));
}
#define CLOSE(x, y) assert_true(close_to((double)(x), (double)(y)))

/* Seconds of [a, b] processor p spent in task `task`, from the task log. */
static double s_task_time(const rlog *l, int p, int task, double a, double b)
{
    int cur = -1;
    double since = -INFINITY, sum = 0;
    for (int e = 0; e <= l->n_tk; e++) {
        if (e < l->n_tk && (l->tk[e].proc != p || l->tk[e].task == cur))
            continue;
        double t = e < l->n_tk ? l->tk[e].t : INFINITY;
        if (cur == task) {
            double x = since > a ? since : a, y = t < b ? t : b;
            if (y > x)
                sum += y - x;
        }
        if (e < l->n_tk) {
            cur = l->tk[e].task;
            since = t;
        }
    }
    return sum;
}

/* Check every snapshot of v (synced to T, kept from m->keep) against the model. */
static void check(const rt_pg_view *v, const slow *m, double T)
{
    const rlog *l = m->l;
    double a, b;
    s_window(m, T, &a, &b);
    int count[RT_NSTATES] = {0};
    for (int p = 0; p < NP; p++) {
        int s = s_state(m, p, T);
        assert_int_equal(rt_pg_view_state(v, p), s);
        count[s]++;
        for (int k = 0; k < RT_NSTATES; k++)
            CLOSE(rt_pg_view_time_in(v, p, k), s_time_in(m, p, k, a, b));
    }
    for (int s = 0; s < RT_NSTATES; s++) {
        assert_int_equal(rt_pg_view_count(v, s), count[s]);
        for (int k = 0; k <= NP; k++)
            CLOSE(rt_pg_view_profile(v, s, k), s_profile(m, s, k, a, b));
    }
    /* the raster and busy fraction over [keep, T] (history kept from keep on) */
    double lo = m->keep > m->t0 ? m->keep : m->t0;
    if (T > lo) {
        enum { W = 7 };
        double dt = (T - lo) / W;
        for (int p = 0; p < NP; p++) {
            double out[W * RT_NSTATES] = {0};
            rt_pg_view_raster(v, p, lo, T, W, out);
            slow whole = *m;
            whole.from = -INFINITY;
            whole.to = INFINITY;
            for (int c = 0; c < W; c++)
                for (int s = 0; s < RT_NSTATES; s++)
                    CLOSE(out[c * RT_NSTATES + s], s_time_in(&whole, p, s, lo + c * dt, c == W - 1 ? T : lo + (c + 1) * dt));
            /* active columns and task columns (tasks are regions 0, 1, 2) */
            unsigned char act[W];
            int32_t tk[W];
            rt_pg_view_active_columns(v, p, lo, T, W, act);
            rt_pg_view_task_columns(v, p, lo, T, W, T, 0, tk);
            for (int c = 0; c < W; c++) {
                double a0 = lo + c * dt, a1 = c == W - 1 ? T : lo + (c + 1) * dt;
                double on = s_time_in(&whole, p, RT_STATE_BUSY, a0, a1) + s_time_in(&whole, p, RT_STATE_OVERHEAD, a0, a1);
                if (fabs(on - dt / 2) > 1e-9) /* not on the edge of the rule */
                    assert_int_equal(act[c], on > dt / 2);
                int best = -1;
                double bt = 0;
                for (int task = R_USER0; task < R_USER0 + 3; task++) {
                    double x = s_task_time(l, p, task, a0, a1);
                    if (x > bt + 1e-12) {
                        best = task;
                        bt = x;
                    }
                }
                if (fabs(bt * 2 - dt) > 1e-9)
                    assert_int_equal(tk[c], best >= 0 && bt * 2 >= dt ? best : -1);
            }
            double x = lo + (T - lo) / 3, y = T;
            CLOSE(rt_pg_view_busy_fraction(v, p, x, y), s_time_in(&whole, p, RT_STATE_BUSY, x, y) / (y - x));
        }
    }
    /* messages received since keep, deltas and base */
    size_t n;
    const rt_pg_msg *ms = rt_pg_view_messages(v, &n);
    size_t j = 0;
    for (int i = 0; i < l->n_msg; i++)
        if (l->msg[i].recv_time >= m->keep) {
            assert_true(j < n);
            assert_int_equal(ms[j].src, l->msg[i].src);
            assert_int_equal(ms[j].dst, l->msg[i].dst);
            CLOSE(ms[j].bytes, l->msg[i].bytes);
            CLOSE(ms[j].send, l->msg[i].send_time);
            CLOSE(ms[j].recv, l->msg[i].recv_time);
            j++;
        }
    assert_int_equal(j, n);
    int64_t bc;
    double bb;
    const rt_pg_delta *d = rt_pg_view_deltas(v, &n, &bc, &bb);
    int64_t ebc = 0, kept = 0;
    double ebb = 0;
    for (int i = 0; i < l->n_send; i++) {
        if (l->send[i].send_time < m->keep) {
            ebc++;
            ebb += l->send[i].bytes;
        } else {
            kept++;
        }
    }
    for (int i = 0; i < l->n_msg; i++) {
        if (l->msg[i].recv_time < m->keep) {
            ebc--;
            ebb -= l->msg[i].bytes;
        } else {
            kept++;
        }
    }
    assert_int_equal(bc, ebc);
    CLOSE(bb, ebb);
    assert_int_equal((int64_t)n, kept);
    int64_t net = bc;
    for (size_t i = 0; i < n; i++) {
        assert_true(d[i].t >= m->keep);
        net += d[i].dc;
    }
    assert_int_equal(net, (int64_t)(l->n_send - l->n_msg)); /* what is pending now */
    /* the matrix: dense from the log */
    int64_t cn[NP][NP] = {{0}};
    double cb[NP][NP] = {{0}};
    int pairs = 0;
    for (int i = 0; i < l->n_msg; i++) {
        const rt_message *x = &l->msg[i];
        if (x->send_time < m->from || x->send_time > m->to)
            continue;
        pairs += cn[x->src][x->dst]++ == 0;
        cb[x->src][x->dst] += x->bytes;
    }
    assert_int_equal(rt_pg_view_npairs(v), pairs);
    rt_pg_pair pl[NP * NP];
    size_t np = rt_pg_view_pairs(v, pl, NP * NP);
    assert_int_equal(np, pairs);
    size_t k = 0;
    for (int s = 0; s < NP; s++)
        for (int r = 0; r < NP; r++) {
            int64_t c;
            double by;
            rt_pg_view_pair(v, s, r, &c, &by);
            assert_int_equal(c, cn[s][r]);
            CLOSE(by, cb[s][r]);
            if (cn[s][r]) { /* sorted by (src, dst) */
                assert_int_equal(pl[k].src, s);
                assert_int_equal(pl[k].dst, r);
                assert_int_equal(pl[k].count, cn[s][r]);
                k++;
            }
        }
    /* rings: the last R messages in the window each processor received and sent */
    int R = rt_pg_view_ring_size(v);
    for (int p = 0; p < NP; p++)
        for (int dir = 0; dir < 2; dir++) {
            rt_pg_msg got[64];
            int g = rt_pg_view_recent(v, p, dir, got, 64);
            int want[MAXL], nw = 0;
            for (int i = 0; i < l->n_msg; i++) {
                const rt_message *x = &l->msg[i];
                if (x->send_time >= m->from && x->send_time <= m->to && (dir ? x->src : x->dst) == p)
                    want[nw++] = i;
            }
            int e = nw < R ? nw : R;
            assert_int_equal(g, e);
            for (int i = 0; i < g; i++) {
                const rt_message *x = &l->msg[want[nw - e + i]];
                CLOSE(got[i].recv, x->recv_time);
                assert_int_equal(got[i].src, x->src);
                assert_int_equal(got[i].dst, x->dst);
            }
        }
    /* collectives ending at or after keep */
    const rt_pg_coll *cs = rt_pg_view_collectives(v, &n);
    j = 0;
    for (int i = 0; i < l->n_coll; i++)
        if (l->coll[i].t1 >= m->keep) {
            assert_true(j < n);
            CLOSE(cs[j].t0, l->coll[i].t0);
            CLOSE(cs[j].t1, l->coll[i].t1);
            assert_int_equal(cs[j].lo, l->coll[i].lo);
            assert_int_equal(cs[j].hi, l->coll[i].hi);
            assert_int_equal(cs[j].n, l->coll[i].n);
            CLOSE(cs[j].bytes, l->coll[i].bytes);
            assert_int_equal(cs[j].seq, i + 1); /* its rank among all completed */
            j++;
        }
    assert_int_equal(j, n);
    assert_int_equal(rt_pg_view_ncollectives(v), l->n_coll);
    /* the newest after any seq: those of the kept ones with a higher seq */
    for (int64_t after = 0; after <= l->n_coll; after++) {
        size_t na;
        const rt_pg_coll *ca = rt_pg_view_collectives_after(v, after, &na);
        size_t want = 0;
        for (size_t i = 0; i < n; i++)
            want += cs[i].seq > after;
        assert_int_equal(na, want);
        if (na)
            assert_true(ca[0].seq > after && (ca == cs || ca[-1].seq <= after));
    }
    /* tasks: replay the task log per processor */
    int nt;
    const rt_pg_task *ts = rt_pg_view_tasks(v, &nt);
    for (int i = 0; i < nt; i++) {
        int id = ts[i].id, inside = 0;
        double start = NAN, stop = NAN, ptime = 0;
        for (int p = 0; p < NP; p++) {
            int cur = -1;
            double since = 0;
            for (int e = 0; e < l->n_tk; e++) {
                if (l->tk[e].proc != p || l->tk[e].task == cur)
                    continue;
                double t = l->tk[e].t;
                if (cur == id) {
                    ptime += t - since;
                    stop = isnan(stop) || t > stop ? t : stop;
                }
                cur = l->tk[e].task;
                since = t;
                if (cur == id)
                    start = isnan(start) || t < start ? t : start;
            }
            if (cur == id) {
                inside++;
                assert_int_equal(rt_pg_view_task_of(v, p, NULL), id);
            }
        }
        if (i > 0)
            assert_true(ts[i - 1].id < id);
        assert_int_equal(ts[i].inside, inside);
        CLOSE(ts[i].ptime, ptime);
        assert_int_equal(isnan(ts[i].start), isnan(start));
        if (!isnan(start))
            CLOSE(ts[i].start, start);
        assert_int_equal(isnan(ts[i].stop), isnan(stop));
        if (!isnan(stop))
            CLOSE(ts[i].stop, stop);
    }
    /* task changes kept: the log's, a change at the time of the one before replacing it, from keep on */
    for (int p = 0; p < NP; p++) {
        static rt_pg_change want[MAXL];
        int nw = 0;
        want[nw++] = (rt_pg_change){-INFINITY, -1};
        int cur = -1;
        for (int e = 0; e < l->n_tk; e++) {
            if (l->tk[e].proc != p || l->tk[e].task == cur)
                continue;
            cur = l->tk[e].task;
            if (want[nw - 1].t == l->tk[e].t)
                want[nw - 1].s = cur;
            else
                want[nw++] = (rt_pg_change){l->tk[e].t, cur};
        }
        int first = 0;
        while (first + 1 < nw && want[first + 1].t <= m->keep)
            first++;
        size_t nc;
        const rt_pg_change *ch = rt_pg_view_task_changes(v, p, &nc);
        assert_int_equal(nc, nw - first);
        for (size_t i = 0; i < nc; i++) {
            CLOSE(ch[i].t, want[first + (int)i].t);
            assert_int_equal(ch[i].s, want[first + (int)i].s);
        }
    }
    /* time inside any task per processor up to T */
    for (int p = 0; p < NP; p++) {
        int cur = -1;
        double since = 0, sum = 0;
        for (int e = 0; e < l->n_tk; e++) {
            if (l->tk[e].proc != p || l->tk[e].task == cur)
                continue;
            if (cur >= 0)
                sum += l->tk[e].t - since;
            cur = l->tk[e].task;
            since = l->tk[e].t;
        }
        if (cur >= 0 && T > since)
            sum += T - since;
        CLOSE(rt_pg_view_proc_task_time(v, p, T), sum);
    }
    /* the events kept: the last ones replayed */
    size_t ne = rt_pg_view_nevents(v);
    assert_int_equal(rt_pg_view_events_seen(v), l->n_ev);
    assert_int_equal(ne, l->n_ev < 16 ? l->n_ev : 16);
    for (size_t i = 0; i < ne; i++) {
        int64_t idx;
        const rt_tevent *e = rt_pg_view_event(v, i, &idx);
        assert_int_equal(idx, l->n_ev - (int64_t)ne + (int64_t)i + 1);
        const rt_tevent *w = &l->ev[idx - 1];
        assert_int_equal(e->kind, w->kind);
        assert_int_equal(e->proc, w->proc);
        CLOSE(e->time, w->time);
        assert_null(e->raw);
    }
}

/* ---- a random stream of events ---- */


typedef struct {
    rt_tevent ev[MAXL / 2];
    int n;
    double last[NP];
} stream;

static void put(stream *s, int kind, int p, double t, int region, int peer, int64_t tag, double bytes)
{
    assert_true(s->n < MAXL / 2);
    rt_tevent *e = &s->ev[s->n++];
    rt_tevent_clear(e);
    e->kind = kind;
    e->proc = p;
    e->time = t;
    e->region = region;
    e->peer = peer;
    e->tag = tag;
    e->bytes = bytes;
    if (kind == RT_TE_MARKER) {
        e->ndata = 2;
        e->data[0] = p;
        e->data[1] = t;
    }
    if (t > s->last[p])
        s->last[p] = t;
}

/* Random nested user regions, sends, blocking receives of messages already sent, system
 * regions, region collectives and markers, one global clock in steps of 1/8 (zero steps too). */
static void random_stream(unsigned seed, stream *s)
{
    srand(seed);
    memset(s, 0, sizeof *s);
    for (int p = 0; p < NP; p++)
        s->last[p] = -INFINITY;
    int stack[NP][8], depth[NP] = {0}, stopped[NP] = {0};
    int pend[NP][NP][2] = {{{0}}}; /* messages in flight per (src, dst, tag) */
    double pb[NP][NP][2][64];
    int ph[NP][NP][2] = {{{0}}};
    long tick = 0;
    for (int step = 0; step < 300; step++) {
        int p = rand() % NP;
        if (stopped[p])
            continue;
        double t = tick / 8.0, t2 = (tick + 1) / 8.0;
        int act = rand() % 9;
        if (act == 0 && depth[p] < 8) {
            int r = R_USER0 + rand() % 3;
            stack[p][depth[p]++] = r;
            put(s, RT_TE_ENTER, p, t, r, -1, 0, 0);
        } else if (act == 1 && depth[p] > 0) {
            put(s, RT_TE_LEAVE, p, t, stack[p][--depth[p]], -1, 0, 0);
            if (depth[p] == 0 && rand() % 8 == 0)
                stopped[p] = 1;
        } else if (act == 2 || act == 3) {
            int d = rand() % NP, tag = rand() % 2;
            if (pend[p][d][tag] == 64)
                continue;
            double bytes = 1 + rand() % 900;
            pb[p][d][tag][(ph[p][d][tag] + pend[p][d][tag]++) % 64] = bytes;
            put(s, RT_TE_ENTER, p, t, R_SEND, -1, 0, 0);
            put(s, RT_TE_SEND, p, t, 0, d, tag, bytes);
            put(s, RT_TE_LEAVE, p, t2, R_SEND, -1, 0, 0);
            tick++;
        } else if (act == 4 || act == 5) {
            int src = rand() % NP, tag = rand() % 2;
            if (pend[src][p][tag] == 0)
                continue;
            double bytes = pb[src][p][tag][ph[src][p][tag]];
            ph[src][p][tag] = (ph[src][p][tag] + 1) % 64;
            pend[src][p][tag]--;
            put(s, RT_TE_ENTER, p, t, R_WAIT, -1, 0, 0);
            put(s, RT_TE_RECV, p, t2, 0, src, tag, bytes);
            put(s, RT_TE_LEAVE, p, t2, R_WAIT, -1, 0, 0);
            tick++;
        } else if (act == 6) {
            put(s, RT_TE_ENTER, p, t, rand() % 2 ? R_SYS : R_COLL, -1, 0, 0);
            put(s, RT_TE_LEAVE, p, t2, s->ev[s->n - 1].region, -1, 0, 0);
            tick++;
        } else if (act == 7) {
            put(s, RT_TE_MARKER, p, t, R_MARK, -1, 0, 0);
        }
        tick += rand() % 3;
    }
    double t = tick / 8.0;
    for (int p = 0; p < NP; p++)
        while (depth[p] > 0)
            put(s, RT_TE_LEAVE, p, t += 0.125, stack[p][--depth[p]], -1, 0, 0);
}

static rt_replay *new_replay(rlog *log)
{
    rt_err err;
    rt_replay *rp = rt_replay_new(NULL, NULL, &err);
    assert_non_null(rp);
    rt_tdefs *d = rt_replay_defs(rp);
    for (int p = 0; p < NP; p++)
        assert_int_equal(rt_tdefs_set_proc(d, p, NULL, NULL), RT_OK);
    for (int r = 0; r < 3; r++)
        assert_int_equal(rt_tdefs_add_region(d, R_USER0 + r, "work", "USER", RT_TC_USER), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, R_SEND, "send", "MPI", RT_TC_SEND), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, R_WAIT, "recv", "MPI", RT_TC_WAIT), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, R_COLL, "allreduce", "MPI", RT_TC_COLLECTIVE), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, R_SYS, "init", "MPI", RT_TC_SYSTEM), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, R_MARK, "phase", "USER", RT_TC_USER), RT_OK);
    rt_replay_tap tap = {.ud = log, .on_state = l_state, .on_task = l_task, .on_send = l_send,
                         .on_message = l_msg, .on_collective = l_coll, .on_event = l_event};
    assert_int_equal(rt_replay_add_tap(rp, &tap), RT_OK);
    return rp;
}

static void test_random_vs_slow_model(void **state)
{
    (void)state;
    static rlog log;
    static stream s;
    for (unsigned round = 0; round < 40; round++) {
        random_stream(1000 + round, &s);
        memset(&log, 0, sizeof log);
        rt_replay *rp = new_replay(&log);
        slow m = {.l = &log, .t0 = s.ev[0].time, .from = -INFINITY, .to = INFINITY, .keep = -INFINITY};
        memcpy(m.last, s.last, sizeof m.last);
        double tend = s.ev[s.n - 1].time;
        if (round % 2) { /* a window inside the run */
            m.from = tend * (rand() % 100) / 200.0;
            m.to = m.from + tend * (1 + rand() % 100) / 150.0;
        }
        rt_pg_view_config cfg = {.nprocs = NP, .t0 = m.t0, .from = m.from, .to = m.to, .last = s.last,
                                 .ring = 1 + (int)(round % 5), .records = 16};
        rt_err err;
        rt_pg_view *v = rt_pg_view_new(rp, &cfg, &err);
        assert_non_null(v);
        int i = 0;
        for (int cp = 1; cp <= 8; cp++) {
            double T = m.t0 + (tend - m.t0) * cp / 8.0;
            if (cp < 8)
                T += (rand() % 5) / 16.0 - 0.125; /* sometimes exactly on an event, sometimes between */
            while (i < s.n && s.ev[i].time <= T)
                assert_int_equal(rt_replay_feed_event(rp, &s.ev[i++], &err), RT_OK);
            if (cp == 8)
                assert_int_equal(rt_replay_finish(rp, &err), RT_OK);
            rt_pg_view_sync(v, T);
            check(v, &m, T);
            if (rand() % 2) { /* forget some of the past */
                double k = m.keep > m.t0 ? m.keep : m.t0;
                k += (T - k) * (rand() % 4) / 4.0;
                rt_pg_view_keep(v, k, k);
                m.keep = k;
                check(v, &m, T);
            }
        }
        assert_int_equal(rt_pg_view_status(v), RT_OK);
        rt_pg_view_free(v);
        rt_replay_free(rp);
    }
}

/* p's busy fraction over [x - S, x] from the log. */
static double s_busy_frac(const slow *m, int p, double x, double S)
{
    return s_time_in(m, p, RT_STATE_BUSY, x - S, x) / S;
}

/* Seconds-weighted pending count over [a, b]: every send adds 1 from its send time, every receipt takes 1 away. */
static double s_pending_integral(const rlog *l, double a, double b)
{
    double sum = 0;
    for (int i = 0; i < l->n_send; i++) {
        double x = l->send[i].send_time > a ? l->send[i].send_time : a;
        if (b > x)
            sum += b - x;
    }
    for (int i = 0; i < l->n_msg; i++) {
        double x = l->msg[i].recv_time > a ? l->msg[i].recv_time : a;
        if (b > x)
            sum -= b - x;
    }
    return sum;
}

/* Trailing means (rt_pg_view_trend) against the log: each processor's busy fraction over
 * [T - S, T], its highest over the run so far (the largest at every state change c and c + S,
 * where the piecewise-linear fraction has its corners), the phase portrait's point. */
static void test_trend_vs_slow_model(void **state)
{
    (void)state;
    static rlog log;
    static stream s;
    for (unsigned round = 0; round < 20; round++) {
        random_stream(5000 + round, &s);
        memset(&log, 0, sizeof log);
        rt_replay *rp = new_replay(&log);
        slow m = {.l = &log, .t0 = s.ev[0].time, .from = -INFINITY, .to = INFINITY, .keep = -INFINITY};
        memcpy(m.last, s.last, sizeof m.last);
        double tend = s.ev[s.n - 1].time;
        double S = (tend - m.t0) / (3 + round % 9);
        rt_pg_view_config cfg = {.nprocs = NP, .t0 = m.t0, .from = -INFINITY, .to = INFINITY, .last = s.last};
        rt_err err;
        rt_pg_view *v = rt_pg_view_new(rp, &cfg, &err);
        assert_non_null(v);
        rt_pg_trend_config tc = {.smoothing = S, .bytes = 0, .top = 1, .cols = 64, .rows = 32, .mod = 6};
        assert_int_equal(rt_pg_view_trend(v, &tc), RT_OK);
        int i = 0;
        for (int cp = 1; cp <= 8; cp++) {
            double T = m.t0 + (tend - m.t0) * cp / 8.0;
            while (i < s.n && s.ev[i].time <= T)
                assert_int_equal(rt_replay_feed_event(rp, &s.ev[i++], &err), RT_OK);
            if (cp == 8)
                assert_int_equal(rt_replay_finish(rp, &err), RT_OK);
            rt_pg_view_sync(v, T);
            if (rand() % 2) /* forgetting state changes must not touch the trailing means */
                rt_pg_view_keep(v, T - S / 2, T - S / 2);
            double busy = 0;
            for (int p = 0; p < NP; p++) {
                double high, frac = rt_pg_view_trend_busy(v, p, &high);
                CLOSE(frac, s_busy_frac(&m, p, T, S));
                busy += frac;
                double want = s_busy_frac(&m, p, T, S);
                for (int k = 0; k < log.n_st; k++) {
                    double c = log.st[k].t;
                    if (log.st[k].proc != p)
                        continue;
                    if (c >= m.t0 && c <= T && s_busy_frac(&m, p, c, S) > want)
                        want = s_busy_frac(&m, p, c, S);
                    if (c + S >= m.t0 && c + S <= T && s_busy_frac(&m, p, c + S, S) > want)
                        want = s_busy_frac(&m, p, c + S, S);
                }
                if (m.last[p] <= T && s_busy_frac(&m, p, m.last[p], S) > want)
                    want = s_busy_frac(&m, p, m.last[p], S);
                if (m.last[p] + S <= T && s_busy_frac(&m, p, m.last[p] + S, S) > want)
                    want = s_busy_frac(&m, p, m.last[p] + S, S);
                CLOSE(high, want);
            }
            double x, y;
            rt_pg_view_trend_point(v, &x, &y, NULL, NULL);
            CLOSE(y, 100 * busy / NP);
            CLOSE(x, 100 * s_pending_integral(&log, T - S, T) / S);
        }
        assert_true(rt_pg_view_trend_corners(v) > 0);
        /* the raster holds the trajectory: some cell drawn, and every drawn cell a task colour or 0 */
        rt_grid *g = rt_pg_view_trend_grid(v);
        assert_non_null(g);
        int drawn = 0;
        for (int c = 0; c < g->w * g->h; c++) {
            assert_true(g->cells[c] >= -1 && g->cells[c] <= 6);
            drawn += g->cells[c] >= 0;
        }
        assert_true(drawn > 0);
        /* a second call may not change the smoothing */
        tc.smoothing = S * 2;
        assert_int_equal(rt_pg_view_trend(v, &tc), RT_EINVAL);
        assert_int_equal(rt_pg_view_status(v), RT_OK);
        rt_pg_view_free(v);
        rt_replay_free(rp);
    }
}

/* Hand-made: two processors, one message, a task, a window. */
static void test_hand_case(void **state)
{
    (void)state;
    static rlog log;
    memset(&log, 0, sizeof log);
    rt_replay *rp = new_replay(&log);
    double last[2] = {10, 8};
    rt_pg_view_config cfg = {.nprocs = 2, .t0 = 0, .from = 1, .to = 9, .last = last};
    rt_err err;
    rt_pg_view *v = rt_pg_view_new(rp, &cfg, &err);
    assert_non_null(v);
    /* P0: work 0..10, inside it a send 2..3 to P1 (100 B); P1: work 0..4, recv wait 4..6, work 6..8 */
    rt_tevent ev[] = {
        {.kind = RT_TE_ENTER, .proc = 0, .time = 0, .region = R_USER0, .peer = -1, .comm = -1},
        {.kind = RT_TE_ENTER, .proc = 1, .time = 0, .region = R_USER0 + 1, .peer = -1, .comm = -1},
        {.kind = RT_TE_ENTER, .proc = 0, .time = 2, .region = R_SEND, .peer = -1, .comm = -1},
        {.kind = RT_TE_SEND, .proc = 0, .time = 2, .peer = 1, .bytes = 100, .comm = -1},
        {.kind = RT_TE_LEAVE, .proc = 0, .time = 3, .region = R_SEND, .peer = -1, .comm = -1},
        {.kind = RT_TE_LEAVE, .proc = 1, .time = 4, .region = R_USER0 + 1, .peer = -1, .comm = -1},
        {.kind = RT_TE_ENTER, .proc = 1, .time = 4, .region = R_WAIT, .peer = -1, .comm = -1},
        {.kind = RT_TE_RECV, .proc = 1, .time = 6, .peer = 0, .bytes = 100, .comm = -1},
        {.kind = RT_TE_LEAVE, .proc = 1, .time = 6, .region = R_WAIT, .peer = -1, .comm = -1},
        {.kind = RT_TE_ENTER, .proc = 1, .time = 6, .region = R_USER0 + 1, .peer = -1, .comm = -1},
        {.kind = RT_TE_LEAVE, .proc = 1, .time = 8, .region = R_USER0 + 1, .peer = -1, .comm = -1},
        {.kind = RT_TE_LEAVE, .proc = 0, .time = 10, .region = R_USER0, .peer = -1, .comm = -1},
    };
    for (size_t i = 0; i < sizeof ev / sizeof *ev; i++) {
        if (ev[i].time > 5 && ev[i - 1].time <= 5) { /* at 5: P1 waits, the message is pending */
            rt_pg_view_sync(v, 5);
            assert_int_equal(rt_pg_view_state(v, 1), RT_STATE_IDLE);
            assert_int_equal(rt_pg_view_state(v, 0), RT_STATE_BUSY);
            assert_int_equal(rt_pg_view_count(v, RT_STATE_BUSY), 1);
            CLOSE(rt_pg_view_time_in(v, 0, RT_STATE_OVERHEAD), 1); /* 2..3 */
            CLOSE(rt_pg_view_time_in(v, 0, RT_STATE_BUSY), 3);     /* 1..2, 3..5 */
            CLOSE(rt_pg_view_time_in(v, 1, RT_STATE_IDLE), 1);     /* 4..5 */
            CLOSE(rt_pg_view_profile(v, RT_STATE_BUSY, 2), 2);     /* 1..2, 3..4 both busy */
            CLOSE(rt_pg_view_task_time(v, R_USER0 + 1, 5), 4);     /* P1 in task 1: 0..4 */
            assert_int_equal(rt_pg_view_npairs(v), 0);
        }
        assert_int_equal(rt_replay_feed_event(rp, &ev[i], &err), RT_OK);
    }
    assert_int_equal(rt_replay_finish(rp, &err), RT_OK);
    rt_pg_view_sync(v, 10);
    /* window 1..9: P1 busy 1..4, 6..8 = 5, idle 4..6 and 8..9 = 3 */
    CLOSE(rt_pg_view_time_in(v, 1, RT_STATE_BUSY), 5);
    CLOSE(rt_pg_view_time_in(v, 1, RT_STATE_IDLE), 3);
    CLOSE(rt_pg_view_time_in(v, 0, RT_STATE_BUSY), 7);
    int64_t c;
    double b;
    rt_pg_view_pair(v, 0, 1, &c, &b);
    assert_int_equal(c, 1);
    CLOSE(b, 100);
    rt_pg_msg r[4];
    assert_int_equal(rt_pg_view_recent(v, 1, 0, r, 4), 1);
    CLOSE(r[0].send, 2);
    CLOSE(r[0].recv, 6);
    assert_int_equal(rt_pg_view_state(v, 0), RT_STATE_IDLE); /* past its last event */
    CLOSE(rt_pg_view_proc_task_time(v, 1, 10), 6);            /* 0..4, 6..8 */
    size_t n = rt_pg_view_nevents(v);
    assert_int_equal(n, 12);
    char line[160];
    rt_pg_view_describe(rt_pg_view_event(v, 3, NULL), rt_replay_defs(rp), line, sizeof line);
    assert_string_equal(line, "2  P0  send  100 B  to 1  tag 0");
    rt_pg_view_describe(rt_pg_view_event(v, 6, NULL), rt_replay_defs(rp), line, sizeof line);
    assert_string_equal(line, "4  P1  enter  recv");
    /* a short buffer: cut, NUL-terminated, the full length returned */
    assert_int_equal(rt_pg_view_describe(rt_pg_view_event(v, 6, NULL), rt_replay_defs(rp), line, 5), 18);
    assert_string_equal(line, "4  P");
    rt_pg_view_free(v);
    rt_replay_free(rp);
}

/*
 * Some processors shown (cfg.source): on random streams, a view of processors
 * {4, 0, 2} of NP fed by the same replay as a view of all of them answers for its
 * processor i what the whole view answers for source[i] (states, times, rasters,
 * tasks), counts only those, and keeps the messages, pairs and events between
 * them only, in its own numbers.
 */
static void test_subset_vs_whole(void **state)
{
    (void)state;
    static rlog log;
    static stream s;
    const int source[3] = {4, 0, 2};
    int at[NP] = {1, -1, 2, -1, 0};
    size_t kept = 0, left = 0; /* messages between shown processors, and others: both occur */
    for (unsigned round = 0; round < 20; round++) {
        random_stream(5000 + round, &s);
        memset(&log, 0, sizeof log);
        rt_replay *rp = new_replay(&log);
        double last3[3];
        for (int i = 0; i < 3; i++)
            last3[i] = s.last[source[i]];
        rt_pg_view_config all = {.nprocs = NP, .t0 = s.ev[0].time, .from = -INFINITY, .to = INFINITY,
                                 .last = s.last, .records = 4096};
        rt_pg_view_config sub = all;
        sub.nprocs = 3;
        sub.last = last3;
        sub.source = source;
        sub.nsource = NP;
        rt_err err;
        rt_pg_view *w = rt_pg_view_new(rp, &all, &err);
        rt_pg_view *v = rt_pg_view_new(rp, &sub, &err);
        assert_non_null(w);
        assert_non_null(v);
        double tend = s.ev[s.n - 1].time;
        int i = 0;
        for (int cp = 1; cp <= 4; cp++) {
            double T = s.ev[0].time + (tend - s.ev[0].time) * cp / 4.0;
            while (i < s.n && s.ev[i].time <= T)
                assert_int_equal(rt_replay_feed_event(rp, &s.ev[i++], &err), RT_OK);
            if (cp == 4)
                assert_int_equal(rt_replay_finish(rp, &err), RT_OK);
            rt_pg_view_sync(w, T);
            rt_pg_view_sync(v, T);
            assert_int_equal(rt_pg_view_nprocs(v), 3);
            int count[RT_NSTATES] = {0};
            for (int q = 0; q < 3; q++) {
                int p = source[q];
                assert_int_equal(rt_pg_view_state(v, q), rt_pg_view_state(w, p));
                count[rt_pg_view_state(w, p)]++;
                for (int k = 0; k < RT_NSTATES; k++)
                    CLOSE(rt_pg_view_time_in(v, q, k), rt_pg_view_time_in(w, p, k));
                double a[8 * RT_NSTATES] = {0}, b[8 * RT_NSTATES] = {0};
                rt_pg_view_raster(v, q, s.ev[0].time, T, 8, a);
                rt_pg_view_raster(w, p, s.ev[0].time, T, 8, b);
                for (int c = 0; c < 8 * RT_NSTATES; c++)
                    CLOSE(a[c], b[c]);
                CLOSE(rt_pg_view_proc_task_time(v, q, T), rt_pg_view_proc_task_time(w, p, T));
                assert_int_equal(rt_pg_view_task_of(v, q, NULL), rt_pg_view_task_of(w, p, NULL));
            }
            for (int k = 0; k < RT_NSTATES; k++)
                assert_int_equal(rt_pg_view_count(v, k), count[k]);
            /* the concurrency profile sums to the time accounted, over 0 .. 3 processors */
            for (int k = 0; k < RT_NSTATES; k++) {
                double sum = 0;
                for (int n = 0; n <= 3; n++)
                    sum += rt_pg_view_profile(v, k, n);
                CLOSE(sum, T - s.ev[0].time);
            }
            /* messages: the whole view's between shown processors, renumbered, in order */
            size_t nw, nv, j = 0;
            const rt_pg_msg *mw = rt_pg_view_messages(w, &nw);
            const rt_pg_msg *mv = rt_pg_view_messages(v, &nv);
            for (size_t k = 0; k < nw; k++) {
                if (at[mw[k].src] < 0 || at[mw[k].dst] < 0) {
                    left++;
                    continue;
                }
                kept++;
                assert_true(j < nv);
                assert_int_equal(mv[j].src, at[mw[k].src]);
                assert_int_equal(mv[j].dst, at[mw[k].dst]);
                CLOSE(mv[j].bytes, mw[k].bytes);
                CLOSE(mv[j].recv, mw[k].recv);
                j++;
            }
            assert_int_equal(j, nv);
            for (int x = 0; x < 3; x++)
                for (int y = 0; y < 3; y++) {
                    int64_t c1, c2;
                    double b1, b2;
                    rt_pg_view_pair(v, x, y, &c1, &b1);
                    rt_pg_view_pair(w, source[x], source[y], &c2, &b2);
                    assert_int_equal(c1, c2);
                    CLOSE(b1, b2);
                }
            /* events: those of the shown processors, with the replay's numbers */
            size_t ne = 0;
            for (size_t k = 0; k < rt_pg_view_nevents(w); k++)
                ne += at[rt_pg_view_event(w, k, NULL)->proc] >= 0;
            assert_int_equal(rt_pg_view_nevents(v), ne);
            for (size_t k = 0; k < rt_pg_view_nevents(v); k++)
                assert_true(at[rt_pg_view_event(v, k, NULL)->proc] >= 0);
        }
        assert_int_equal(rt_pg_view_status(v), RT_OK);
        rt_pg_view_free(v);
        rt_pg_view_free(w);
        rt_replay_free(rp);
    }
    assert_true(kept > 0 && left > 0);
}

static void test_bad_config(void **state)
{
    (void)state;
    rt_err err;
    rt_pg_view_config cfg = {.nprocs = 0};
    assert_null(rt_pg_view_new(NULL, &cfg, &err));
    assert_int_equal(err.status, RT_EINVAL);
    cfg = (rt_pg_view_config){.nprocs = 2, .from = 5, .to = 1};
    assert_null(rt_pg_view_new(NULL, &cfg, &err));
    assert_non_null(strstr(err.msg, "window"));
    int twice[2] = {1, 1}, outside[2] = {0, 3};
    cfg = (rt_pg_view_config){.nprocs = 2, .from = -INFINITY, .to = INFINITY, .source = twice, .nsource = 3};
    assert_null(rt_pg_view_new(NULL, &cfg, &err));
    assert_non_null(strstr(err.msg, "listed twice"));
    cfg.source = outside;
    assert_null(rt_pg_view_new(NULL, &cfg, &err));
    assert_non_null(strstr(err.msg, "not in the replay"));
    cfg.nsource = 1;
    assert_null(rt_pg_view_new(NULL, &cfg, &err));
    assert_non_null(strstr(err.msg, "2 processors shown of 1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_vs_slow_model),
        cmocka_unit_test(test_trend_vs_slow_model),
        cmocka_unit_test(test_hand_case),
        cmocka_unit_test(test_subset_vs_whole),
        cmocka_unit_test(test_bad_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
