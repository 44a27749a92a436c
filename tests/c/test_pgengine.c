/* Tests of what the ParaGraph displays need from the replay: the hand-made
 * 4-processor trace (tests/fixtures/paragraph/hand4.trf, every value worked out
 * by hand in the tables below), processors idle at their own
 * last event, the sender x receiver matrix, the prescan, the state / task
 * raster against a direct integration, random traces against slow models,
 * compstats overhead on fft-16 and collective instances on mpicl-10. */
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

#include "rt_picl_source.h"
#include "rt_prescan.h"
#include "rt_replay.h"
#include "rt_timeline.h"
#include "rt_tsource_open.h"

/* ---- logs of callbacks ---- */

#define MAXLOG 20000

typedef struct {
    int proc, a, b;
    double t;
} change;

typedef struct {
    int n, nt, nsend;
    change st[MAXLOG], tk[MAXLOG];
    rt_message first_send;
} hooks_log;

static void log_state(void *ud, int proc, double t, int a, int b)
{
    hooks_log *l = ud;
    if (l->n < MAXLOG)
        l->st[l->n++] = (change){proc, a, b, t};
}

static void log_task(void *ud, int proc, double t, int a, int b)
{
    hooks_log *l = ud;
    if (l->nt < MAXLOG)
        l->tk[l->nt++] = (change){proc, a, b, t};
}

static void log_send(void *ud, const rt_message *m)
{
    hooks_log *l = ud;
    if (l->nsend++ == 0)
        l->first_send = *m;
}

static const char *hand4(char *buf, size_t cap)
{
    return rt_test_fixture(buf, cap, "paragraph/hand4.trf");
}

/* ---- hand4: the values worked out by hand ---- */

/* Seconds in each state (idle, overhead, busy) over the 12 s span. */
static const double hand_states[4][3] = {{4, 2, 6}, {4, 1, 7}, {4, 2, 6}, {3, 0, 9}};
/* The state in each second 0..11 (i idle, o overhead, b busy) and the task (1, 2, '-' none). */
static const char *const hand_sched[4] = {"bobobbbbiiii", "bbibobbbbiii", "ibbbbiboboii", "bbbbbbbbibii"};
static const char *const hand_task[4] = {"11111221----", "111111222---", "-2----------", "112211111111"};

static int state_of(char c) { return c == 'i' ? RT_STATE_IDLE : c == 'o' ? RT_STATE_OVERHEAD : RT_STATE_BUSY; }

static void test_hand4_prescan(void **state)
{
    (void)state;
    char path[512];
    rt_err err;
    rt_tsource *src = rt_tsource_open(hand4(path, sizeof path), NULL, &err);
    assert_non_null(src);
    rt_prescan ps;
    assert_int_equal(rt_prescan_run(src, &ps, &err), RT_OK);
    assert_int_equal(ps.nprocs, 4);
    assert_true(ps.t0 == 0 && ps.t1 == 12);
    assert_int_equal(ps.records, 34);
    static const double first[4] = {0, 0, 1, 0}, last[4] = {8, 9, 10, 12};
    static const int64_t recs[4] = {8, 8, 8, 10};
    for (int p = 0; p < 4; p++) {
        assert_true(ps.procs[p].first == first[p]);
        assert_true(ps.procs[p].last == last[p]);
        assert_int_equal(ps.procs[p].records, recs[p]);
        assert_int_equal(ps.proc_events[p], ps.procs[p].events);
    }
    assert_int_equal(ps.messages, 5);
    /* at t = 9 P2's send (50 B) comes before P3's receive in the file: 300 + 400 + 50 pending */
    assert_int_equal(ps.max_pending, 3);
    assert_true(ps.max_pending_bytes == 750);
    assert_int_equal(ps.max_queue, 3);
    assert_true(ps.max_queue_bytes == 750);
    assert_int_equal(ps.max_queue_proc, 3);
    assert_int_equal(ps.procs[1].max_queue, 1);
    assert_true(ps.procs[2].max_queue_bytes == 200);
    assert_int_equal(ps.procs[0].max_queue, 0);
    assert_int_equal(ps.ntasks, 2);
    assert_int_equal(ps.tasks[0], 1);
    assert_int_equal(ps.tasks[1], 2);
    /* span 12 s: 10^(1 - 3) s = 0.01 s, 1200 units; a quarter is 300 -> 500 */
    assert_true(fabs(ps.unit - 0.01) < 1e-15);
    assert_true(ps.scale_width == 500);
    /* the source was rewound: a second pass gives the same */
    rt_prescan again;
    assert_int_equal(rt_prescan_run(src, &again, &err), RT_OK);
    assert_int_equal(again.records, 34);
    /* windows */
    assert_int_equal(rt_prescan_check_window(&ps, "hand4.trf", 2, 3, &err), RT_OK);
    assert_int_equal(rt_prescan_check_window(&ps, "hand4.trf", -INFINITY, 0, &err), RT_OK);
    assert_int_equal(rt_prescan_check_window(&ps, "hand4.trf", 13, 20, &err), RT_EINVAL);
    assert_string_equal(err.msg, "hand4.trf: window 13 .. 20 s lies outside the trace's span 0 .. 12 s");
    assert_int_equal(rt_prescan_check_window(&ps, "hand4.trf", -5, -1e-6, &err), RT_EINVAL);
    assert_int_equal(rt_prescan_check_window(&ps, "hand4.trf", 3, 1, &err), RT_EINVAL);
    assert_string_equal(err.msg, "window: 3 is after 1");
    rt_prescan_clear(&again);
    rt_prescan_clear(&ps);
    rt_tsource_free(src);
    /* the default-unit rules on their own */
    assert_true(fabs(rt_prescan_unit(0.005722) - 1e-6) < 1e-20);
    assert_true(rt_prescan_unit(5000) == 1);
    assert_true(rt_prescan_unit(0) == 1e-6);
    assert_true(rt_prescan_scale_width(0.005722, 1e-6) == 2000); /* 5722 / 4 = 1430.5 -> 2000 */
    assert_true(rt_prescan_scale_width(4e-3, 1e-6) == 1000);     /* exactly 1000 */
}

/* A processor whose time goes back is held at its previous time, by the prescan as by the replay. */
static void test_prescan_time_back(void **state)
{
    (void)state;
    char *path = rt_test_write_text("-3 1 2.0 0 0 0\n-4 1 1.0 0 0 0\n-3 1 3.0 1 0 0\n-4 1 4.0 1 0 0\n");
    rt_err err;
    rt_tsource *src = rt_tsource_open(path, NULL, &err);
    assert_non_null(src);
    rt_prescan ps;
    assert_int_equal(rt_prescan_run(src, &ps, &err), RT_OK);
    rt_replay *rp = rt_replay_new(src, NULL, &err);
    assert_int_equal(rt_replay_run(rp, &err), RT_OK);
    double t0, t1;
    rt_replay_span(rp, &t0, &t1);
    assert_true(ps.t0 == 2 && t0 == 2 && ps.t1 == 4 && t1 == 4);
    assert_true(ps.procs[0].first == 2 && ps.procs[0].last == 2);
    assert_true(rt_replay_proc_get(rp, 0)->last == 2);
    rt_replay_free(rp);
    rt_prescan_clear(&ps);
    rt_tsource_free(src);
    rt_test_remove(path);
}

/* A replay of hand4 with the prescan's counts, the hooks and the matrix. */
static rt_replay *hand4_replay(rt_tsource **src, hooks_log *log, int with_ends)
{
    char path[512];
    rt_err err;
    *src = rt_tsource_open(hand4(path, sizeof path), NULL, &err);
    assert_non_null(*src);
    rt_prescan ps;
    assert_int_equal(rt_prescan_run(*src, &ps, &err), RT_OK);
    rt_replay_opts o = {.ud = log, .on_state = log_state, .on_task = log_task, .on_send = log_send, .matrix = 1};
    if (with_ends) {
        o.proc_events = ps.proc_events;
        o.nproc_events = ps.nprocs;
    }
    rt_replay *rp = rt_replay_new(*src, &o, &err);
    rt_prescan_clear(&ps); /* the replay copied the counts */
    assert_non_null(rp);
    return rp;
}

static void expect_matrix(const rt_replay *rp, int cumulative, const int64_t want_n[4][4], const double want_b[4][4])
{
    rt_replay_matrix_view m;
    rt_replay_matrix(rp, &m);
    assert_true(m.n >= 4);
    for (int s = 0; s < 4; s++)
        for (int d = 0; d < 4; d++) {
            size_t i = (size_t)s * (size_t)m.n + (size_t)d;
            int64_t n = cumulative ? m.total_count[i] : m.pending_count[i];
            double b = cumulative ? m.total_bytes[i] : m.pending_bytes[i];
            if (n != want_n[s][d] || b != want_b[s][d])
                fail_msg("%s [%d][%d]: %lld / %g, want %lld / %g", cumulative ? "cumulative" : "pending", s, d,
                         (long long)n, b, (long long)want_n[s][d], want_b[s][d]);
        }
}

static void test_hand4_replay(void **state)
{
    (void)state;
    static hooks_log log;
    memset(&log, 0, sizeof log);
    rt_tsource *src;
    rt_replay *rp = hand4_replay(&src, &log, 1);
    rt_err err;
    /* t = 8: P0 has had its last record (idle, ended); pending 1->3 300 and 2->3 400 */
    assert_int_equal(rt_replay_run_until(rp, 8, &err), RT_OK);
    assert_int_equal(rt_replay_proc_get(rp, 0)->state, RT_STATE_IDLE);
    assert_true(rt_replay_proc_get(rp, 0)->ended);
    assert_int_equal(rt_replay_proc_get(rp, 1)->state, RT_STATE_BUSY);
    assert_int_equal(rt_replay_proc_get(rp, 3)->state, RT_STATE_IDLE); /* entered its receive at 8 */
    assert_false(rt_replay_proc_get(rp, 3)->ended);
    static const int64_t pn8[4][4] = {{0}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0}};
    static const double pb8[4][4] = {{0}, {0, 0, 0, 300}, {0, 0, 0, 400}, {0}};
    expect_matrix(rp, 0, pn8, pb8);
    assert_int_equal(rt_replay_proc_get(rp, 1)->pending_out, 1);
    assert_true(rt_replay_proc_get(rp, 2)->pending_out_bytes == 400);
    assert_int_equal(rt_replay_proc_get(rp, 3)->queue, 2);
    /* t = 9: P1 idle too; P3 got 300, 2->3 holds 400 + 50 */
    assert_int_equal(rt_replay_run_until(rp, 9, &err), RT_OK);
    assert_int_equal(rt_replay_proc_get(rp, 1)->state, RT_STATE_IDLE);
    static const int64_t pn9[4][4] = {{0}, {0}, {0, 0, 0, 2}, {0}};
    static const double pb9[4][4] = {{0}, {0}, {0, 0, 0, 450}, {0}};
    expect_matrix(rp, 0, pn9, pb9);
    assert_int_equal(rt_replay_proc_get(rp, 1)->pending_out, 0);
    assert_int_equal(rt_replay_proc_get(rp, 2)->pending_out, 2);
    assert_int_equal(rt_replay_run(rp, &err), RT_OK);
    /* states */
    for (int p = 0; p < 4; p++)
        for (int s = 0; s < RT_NSTATES; s++)
            if (fabs(rt_replay_proc_get(rp, p)->time_in[s] - hand_states[p][s]) > 1e-12)
                fail_msg("processor %d %s: %g, want %g", p, rt_state_name(s), rt_replay_proc_get(rp, p)->time_in[s],
                         hand_states[p][s]);
    /* on_state: never back in time; the turns to idle at each processor's own end, in time order */
    double idle_at[4] = {-1, -1, -1, -1};
    int order[4], no = 0;
    for (int i = 0; i < log.n; i++) {
        if (i > 0)
            assert_true(log.st[i].t >= log.st[i - 1].t);
        if (log.st[i].b == RT_STATE_IDLE && log.st[i].t >= 8 && idle_at[log.st[i].proc] < 0 &&
            (log.st[i].proc != 3 || log.st[i].t == 12)) {
            idle_at[log.st[i].proc] = log.st[i].t;
            order[no++] = log.st[i].proc;
        }
    }
    assert_int_equal(no, 4);
    for (int p = 0; p < 4; p++) {
        assert_int_equal(order[p], p);
        assert_true(idle_at[p] == 8 + p + (p == 3 ? 1 : 0));
    }
    /* the on_state log replays the hand schedule second by second */
    for (int p = 0; p < 4; p++) {
        for (int sec = 0; sec < 12; sec++) {
            double mid = sec + 0.5;
            int s = RT_STATE_IDLE;
            for (int i = 0; i < log.n; i++)
                if (log.st[i].proc == p && log.st[i].t <= mid)
                    s = log.st[i].b;
            if (s != state_of(hand_sched[p][sec]))
                fail_msg("processor %d second %d: %s, want %c", p, sec, rt_state_name(s), hand_sched[p][sec]);
        }
    }
    /* on_task for P0: none -> 1 at 0, 1 -> 2 at 5, 2 -> 1 at 7, 1 -> none at 8 */
    static const change want_tk[4] = {{0, -1, 1, 0}, {0, 1, 2, 5}, {0, 2, 1, 7}, {0, 1, -1, 8}};
    int k = 0;
    for (int i = 0; i < log.nt; i++) {
        if (log.tk[i].proc != 0)
            continue;
        assert_true(k < 4);
        assert_int_equal(log.tk[i].a, want_tk[k].a);
        assert_int_equal(log.tk[i].b, want_tk[k].b);
        assert_true(log.tk[i].t == want_tk[k].t);
        k++;
    }
    assert_int_equal(k, 4);
    /* on_send: five sends, the first 0 -> 1 at 1 s, 100 bytes, not yet received */
    assert_int_equal(log.nsend, 5);
    assert_int_equal(log.first_send.src, 0);
    assert_int_equal(log.first_send.dst, 1);
    assert_true(log.first_send.send_time == 1 && log.first_send.bytes == 100 && isnan(log.first_send.recv_time));
    /* matrices at the end */
    static const int64_t zero_n[4][4] = {{0}};
    static const double zero_b[4][4] = {{0}};
    expect_matrix(rp, 0, zero_n, zero_b);
    static const int64_t cn[4][4] = {{0, 1, 1, 0}, {0, 0, 0, 1}, {0, 0, 0, 2}, {0}};
    static const double cb[4][4] = {{0, 100, 200, 0}, {0, 0, 0, 300}, {0, 0, 0, 450}, {0}};
    expect_matrix(rp, 1, cn, cb);
    rt_replay_totals tot;
    rt_replay_totals_get(rp, &tot);
    assert_int_equal(tot.max_pending, 3);
    assert_true(tot.max_pending_bytes == 750);
    assert_int_equal(rt_replay_proc_get(rp, 3)->max_queue, 3);
    assert_true(rt_replay_proc_get(rp, 3)->max_queue_bytes == 750);
    rt_replay_free(rp);
    rt_tsource_free(src);

    /* without the counts: the same totals, the turns to idle at the end but still in time order */
    memset(&log, 0, sizeof log);
    rp = hand4_replay(&src, &log, 0);
    assert_int_equal(rt_replay_run_until(rp, 8.5, &err), RT_OK);
    assert_int_equal(rt_replay_proc_get(rp, 0)->state, RT_STATE_BUSY); /* nobody told it P0 is done */
    assert_int_equal(rt_replay_run(rp, &err), RT_OK);
    for (int p = 0; p < 4; p++)
        for (int s = 0; s < RT_NSTATES; s++)
            assert_true(fabs(rt_replay_proc_get(rp, p)->time_in[s] - hand_states[p][s]) < 1e-12);
    int seen_idle = 0;
    for (int i = 0; i < log.n; i++)
        if (log.st[i].b == RT_STATE_IDLE && log.st[i].t >= 8 && log.st[i].proc < 3) {
            assert_true(log.st[i].t == 8 + log.st[i].proc); /* P0 at 8, P1 at 9, P2 at 10 */
            if (i > 0 && seen_idle)
                assert_true(log.st[i].t >= log.st[i - 1].t);
            seen_idle++;
        }
    assert_int_equal(seen_idle, 3);
    rt_replay_free(rp);
    rt_tsource_free(src);
}

/* ---- the raster ---- */

/* Run hand4 with a W x R raster over [t0, t1] attached; returns the raster (replay freed). */
static rt_timeline *hand4_raster(int W, int R, double t0, double t1)
{
    static hooks_log log;
    rt_tsource *src;
    rt_replay *rp = hand4_replay(&src, &log, 1);
    static const int tasks[2] = {1, 2};
    rt_timeline_opts o = {.cols = W, .rows = R, .nprocs = 4, .t0 = t0, .t1 = t1, .ntasks = 2, .tasks = tasks};
    rt_timeline *tl;
    rt_err err;
    assert_int_equal(rt_timeline_new(&o, &tl, &err), RT_OK);
    assert_int_equal(rt_timeline_attach(tl, rp), RT_OK);
    assert_int_equal(rt_replay_run(rp, &err), RT_OK);
    rt_timeline_advance(tl, 12);
    rt_timeline_detach(tl, rp);
    rt_replay_free(rp);
    rt_tsource_free(src);
    return tl;
}

/* Seconds processor p spends in state s (task k: 1, 2) within [a, b], from the hand schedule
 * (idle before the trace starts; nothing after 12 s, where the raster was advanced to). */
static double hand_time(int p, int s, int task, double a, double b)
{
    double sum = 0;
    if (!task && s == RT_STATE_IDLE && a < 0)
        sum += (b < 0 ? b : 0) - a;
    for (int sec = 0; sec < 12; sec++) {
        double lo = sec > a ? sec : a, hi = sec + 1 < b ? sec + 1 : b;
        if (hi <= lo)
            continue;
        int match = task ? hand_task[p][sec] == '0' + task : state_of(hand_sched[p][sec]) == s;
        if (match)
            sum += hi - lo;
    }
    return sum;
}

static void check_raster(rt_timeline *tl, int W, int R, double t0, double t1)
{
    int rows = R < 4 ? R : 4;
    assert_int_equal(rt_timeline_rows(tl), rows);
    double dt = (t1 - t0) / W;
    for (int r = 0; r < rows; r++) {
        int n, first = rt_timeline_row_procs(tl, r, &n);
        for (int c = 0; c < W; c++) {
            double a = t0 + c * dt, b = t0 + (c + 1) * dt;
            for (int s = 0; s < RT_NSTATES; s++) {
                double want = 0;
                for (int p = first; p < first + n; p++)
                    want += hand_time(p, s, 0, a, b);
                if (fabs(rt_timeline_state_time(tl, c, r, s) - want) > 1e-9)
                    fail_msg("%dx%d cell (%d, %d) %s: %g, want %g", W, R, c, r, rt_state_name(s),
                             rt_timeline_state_time(tl, c, r, s), want);
            }
            for (int k = 0; k < 2; k++) {
                double want = 0;
                for (int p = first; p < first + n; p++)
                    want += hand_time(p, 0, k + 1, a, b);
                assert_true(fabs(rt_timeline_task_time(tl, c, r, k) - want) < 1e-9);
            }
            assert_true(rt_timeline_task_time(tl, c, r, 2) == 0); /* no other task */
        }
    }
}

static void test_raster_hand4(void **state)
{
    (void)state;
    static const struct {
        int W, R;
        double t0, t1;
    } cases[] = {{12, 4, 0, 12}, {24, 4, 0, 12}, {12, 2, 0, 12}, {7, 3, 0, 12}, {5, 1, -1, 14}, {9, 8, 2.5, 9.25}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rt_timeline *tl = hand4_raster(cases[i].W, cases[i].R, cases[i].t0, cases[i].t1);
        check_raster(tl, cases[i].W, cases[i].R, cases[i].t0, cases[i].t1);
        rt_timeline_free(tl);
    }
    /* one second per cell, one processor per row: the dominant state is the schedule's letter */
    rt_timeline *tl = hand4_raster(12, 4, 0, 12);
    rt_grid *g;
    rt_err err;
    assert_int_equal(rt_grid_new(12, 4, 0, &g, &err), RT_OK);
    assert_int_equal(rt_timeline_fill_grid(tl, 0, g, &err), RT_OK);
    for (int p = 0; p < 4; p++)
        for (int c = 0; c < 12; c++)
            assert_int_equal(g->cells[p * 12 + c], state_of(hand_sched[p][c]));
    assert_int_equal(rt_timeline_fill_grid(tl, 1, g, &err), RT_OK);
    for (int p = 0; p < 4; p++)
        for (int c = 0; c < 12; c++)
            assert_int_equal(g->cells[p * 12 + c], hand_task[p][c] == '-' ? -1 : hand_task[p][c] - '1');
    rt_grid_free(g);
    assert_int_equal(rt_grid_new(11, 4, 0, &g, &err), RT_OK);
    assert_int_equal(rt_timeline_fill_grid(tl, 0, g, &err), RT_ERANGE);
    rt_grid_free(g);
    rt_timeline_free(tl);
}

/* Smooth scrolling: a 4 s window of 8 columns follows the replay in 0.25 s frames, scrolled by
 * whole columns before each step; at the end it holds 8 .. 12 s exactly. */
static void test_raster_scroll(void **state)
{
    (void)state;
    static hooks_log log;
    rt_tsource *src;
    rt_replay *rp = hand4_replay(&src, &log, 1);
    static const int tasks[2] = {1, 2};
    for (int R = 4; R >= 2; R -= 2) {
        rt_timeline_opts o = {.cols = 8, .rows = R, .nprocs = 4, .t0 = 0, .t1 = 4, .ntasks = 2, .tasks = tasks};
        rt_timeline *tl;
        rt_err err;
        assert_int_equal(rt_timeline_new(&o, &tl, &err), RT_OK);
        assert_int_equal(rt_tsource_rewind(src, &err), RT_OK);
        rt_replay_free(rp);
        memset(&log, 0, sizeof log);
        rt_replay_opts ro = {.ud = &log, .on_state = log_state};
        rp = rt_replay_new(src, &ro, &err);
        assert_int_equal(rt_timeline_attach(tl, rp), RT_OK);
        for (double T = 0.25; T <= 12; T += 0.25) {
            double t0, t1;
            rt_timeline_window(tl, &t0, &t1);
            if (T > t1)
                rt_timeline_scroll(tl, (int)ceil((T - t1) / 0.5 - 1e-9));
            rt_replay_run_until(rp, T, &err);
            rt_timeline_advance(tl, T);
        }
        double t0, t1;
        rt_timeline_window(tl, &t0, &t1);
        assert_true(fabs(t0 - 8) < 1e-12 && fabs(t1 - 12) < 1e-12);
        check_raster(tl, 8, R, 8, 12);
        /* back by two columns: the two new ones are empty, the rest shifted */
        double before = rt_timeline_state_time(tl, 0, 0, RT_STATE_IDLE);
        rt_timeline_scroll(tl, -2);
        assert_true(rt_timeline_state_time(tl, 2, 0, RT_STATE_IDLE) == before);
        for (int s = 0; s < RT_NSTATES; s++)
            assert_true(rt_timeline_state_time(tl, 1, 0, s) == 0);
        rt_timeline_detach(tl, rp);
        rt_timeline_free(tl);
    }
    rt_replay_free(rp);
    rt_tsource_free(src);
}

static void test_raster_bad_options(void **state)
{
    (void)state;
    rt_timeline *tl;
    rt_err err;
    rt_timeline_opts o = {.cols = 0, .rows = 4, .nprocs = 4, .t0 = 0, .t1 = 1};
    assert_int_equal(rt_timeline_new(&o, &tl, &err), RT_EINVAL);
    assert_string_equal(err.msg, "timeline: columns 0 (1..65536)");
    assert_null(tl);
    o.cols = 10;
    o.t1 = 0;
    assert_int_equal(rt_timeline_new(&o, &tl, &err), RT_EINVAL);
    assert_string_equal(err.msg, "timeline: window 0 .. 0 (start before end)");
    o.t1 = 1;
    o.nprocs = 0;
    assert_int_equal(rt_timeline_new(&o, &tl, &err), RT_EINVAL);
    o.nprocs = 2;
    o.ntasks = RT_TIMELINE_MAXTASKS + 1;
    assert_int_equal(rt_timeline_new(&o, &tl, &err), RT_EINVAL);
    o.ntasks = 0;
    assert_int_equal(rt_timeline_new(&o, &tl, &err), RT_OK);
    assert_int_equal(rt_timeline_set_window(tl, 2, 2, &err), RT_EINVAL);
    /* out-of-range feeds are ignored, not crashes */
    rt_timeline_state(tl, 7, 0.5, 0, 2);
    rt_timeline_state(tl, -1, 0.5, 0, 2);
    rt_timeline_state(tl, 0, 0.5, 0, 9);
    rt_timeline_advance(tl, 1);
    assert_true(rt_timeline_state_time(tl, 0, 0, RT_STATE_IDLE) == 0.1);
    assert_true(rt_timeline_state_time(tl, 99, 0, RT_STATE_IDLE) == 0);
    rt_timeline_free(tl);
}

/* ---- random traces against slow models ---- */

#define RNP 4

typedef struct {
    double t[64], b[64];
    int head, n;
} mfifo;

/*
 * A random valid new-format trace: nested user events, sends to random peers
 * with random tags, blocking receives of messages already sent (FIFO per
 * channel), idle gaps; written to a temp file. The model keeps, after every
 * message operation, the expected pending matrix, per-sender pending and the
 * maximum pending count and bytes.
 */
typedef struct {
    int64_t pend_n[RNP][RNP], cum_n[RNP][RNP], max_n;
    double pend_b[RNP][RNP], cum_b[RNP][RNP], max_b;
    int64_t pending;
    double pending_bytes;
} msg_model;

/* Append line to the growing text *text (length *len, capacity *cap). */
static void append(char **text, size_t *len, size_t *cap, const char *line)
{
    size_t n = strlen(line);
    while (*len + n + 1 > *cap) {
        *cap *= 2;
        *text = realloc(*text, *cap);
        assert_non_null(*text);
    }
    memcpy(*text + *len, line, n + 1);
    *len += n;
}

static char *random_trace(unsigned seed, msg_model *mm)
{
    srand(seed);
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    text[0] = '\0';
    static mfifo ch[RNP][RNP][3];
    memset(ch, 0, sizeof ch);
    memset(mm, 0, sizeof *mm);
    int depth[RNP] = {0}, ustack[RNP][8];
    int started[RNP] = {0}, done[RNP] = {0};
    long tick = rand() % 3;
    for (int step = 0; step < 160; step++) {
        int p = rand() % RNP;
        if (done[p])
            continue;
        double t = tick * 0.125;
        tick += rand() % 3;
        char line[160];
        int act = rand() % 6;
        if (!started[p] || (act == 0 && depth[p] < 8)) {
            int e = rand() % 3;
            snprintf(line, sizeof line, "-3 %d %.3f %d 0 0\n", e, t, p);
            ustack[p][depth[p]++] = e;
            started[p] = 1;
        } else if (act == 1 && depth[p] > 0) {
            snprintf(line, sizeof line, "-4 %d %.3f %d 0 0\n", ustack[p][--depth[p]], t, p);
            if (depth[p] == 0 && rand() % 4 == 0)
                done[p] = 1; /* this processor stops here */
        } else if (act == 2 || act == 3) {
            int d = rand() % RNP, tag = rand() % 3, bytes = 1 + rand() % 500;
            mfifo *f = &ch[p][d][tag];
            if (f->n == 64)
                continue;
            int i = (f->head + f->n++) % 64;
            f->t[i] = t;
            f->b[i] = bytes;
            mm->pend_n[p][d]++;
            mm->pend_b[p][d] += bytes;
            mm->cum_n[p][d]++;
            mm->cum_b[p][d] += bytes;
            mm->pending++;
            mm->pending_bytes += bytes;
            if (mm->pending > mm->max_n)
                mm->max_n = mm->pending;
            if (mm->pending_bytes > mm->max_b)
                mm->max_b = mm->pending_bytes;
            double t2 = t + 0.0625;
            snprintf(line, sizeof line, "-3 -21 %.4f %d 0 3 2 %d %d %d\n-4 -21 %.4f %d 0 0\n", t, p, bytes, tag, d,
                     t2, p);
        } else {
            int s = rand() % RNP, tag = rand() % 3;
            mfifo *f = &ch[s][p][tag];
            if (f->n == 0)
                continue;
            double b = f->b[f->head];
            f->head = (f->head + 1) % 64;
            f->n--;
            mm->pend_n[s][p]--;
            mm->pend_b[s][p] -= b;
            mm->pending--;
            mm->pending_bytes -= b;
            snprintf(line, sizeof line, "-3 -52 %.4f %d 0 2 2 %d %d\n-4 -52 %.4f %d 0 3 2 %g %d %d\n", t, p, tag, s,
                     t + 0.0625, p, b, tag, s);
        }
        tick++;
        append(&text, &len, &cap, line);
    }
    /* close what is open, at the end of time, so every region ends */
    for (int p = 0; p < RNP; p++)
        while (depth[p] > 0) {
            char line[64];
            snprintf(line, sizeof line, "-4 %d %.3f %d 0 0\n", ustack[p][--depth[p]], tick * 0.125 + p, p);
            append(&text, &len, &cap, line);
        }
    return text;
}

/* The state processor p is in at time t according to the on_state log (idle before any). */
static int logged_state(const hooks_log *l, int p, double t)
{
    int s = RT_STATE_IDLE;
    for (int i = 0; i < l->n; i++)
        if (l->st[i].proc == p && l->st[i].t <= t)
            s = l->st[i].b;
    return s;
}

/* Seconds p spent in state s within [a, b], integrating the on_state log directly. */
static double logged_time(const hooks_log *l, int p, int s, double a, double b)
{
    double pts[MAXLOG / 4 + 2];
    int n = 0;
    pts[n++] = a;
    for (int i = 0; i < l->n && n < MAXLOG / 4; i++)
        if (l->st[i].proc == p && l->st[i].t > a && l->st[i].t < b)
            pts[n++] = l->st[i].t;
    pts[n++] = b;
    double sum = 0;
    for (int i = 0; i + 1 < n; i++) {
        if (pts[i + 1] <= pts[i])
            continue;
        /* the state holding just after pts[i]: the last change at or before it */
        if (logged_state(l, p, pts[i]) == s)
            sum += pts[i + 1] - pts[i];
    }
    return sum;
}

static void test_random_vs_models(void **state)
{
    (void)state;
    static hooks_log log, log0;
    for (unsigned round = 0; round < 30; round++) {
        msg_model mm;
        char *text = random_trace(100 + round, &mm);
        char *path = rt_test_write_text(text);
        free(text);
        rt_err err;
        rt_tsource *src = rt_tsource_open(path, "picl-new", &err);
        if (!src)
            fail_msg("round %u: %s", round, err.msg);
        rt_prescan ps;
        assert_int_equal(rt_prescan_run(src, &ps, &err), RT_OK);
        /* without the counts: the reference for the state totals */
        memset(&log0, 0, sizeof log0);
        rt_replay_opts o0 = {.ud = &log0, .on_state = log_state};
        rt_replay *r0 = rt_replay_new(src, &o0, &err);
        assert_int_equal(rt_replay_run(r0, &err), RT_OK);
        assert_int_equal(rt_tsource_rewind(src, &err), RT_OK);
        /* with the counts, the matrix and a raster */
        memset(&log, 0, sizeof log);
        rt_replay_opts o = {.ud = &log, .on_state = log_state, .matrix = 1, .proc_events = ps.proc_events,
                            .nproc_events = ps.nprocs};
        rt_replay *rp = rt_replay_new(src, &o, &err);
        int W = 3 + (int)(round % 17), R = 1 + (int)(round % 5);
        double w0 = ps.t0 - 0.3 + 0.1 * (round % 4), w1 = ps.t1 + 0.2 - 0.15 * (round % 3);
        rt_timeline_opts to = {.cols = W, .rows = R, .nprocs = ps.nprocs, .t0 = w0, .t1 = w1};
        rt_timeline *tl;
        assert_int_equal(rt_timeline_new(&to, &tl, &err), RT_OK);
        assert_int_equal(rt_timeline_attach(tl, rp), RT_OK);
        assert_int_equal(rt_replay_run(rp, &err), RT_OK);
        rt_timeline_advance(tl, ps.t1);
        /* states: the same totals as the replay without counts (whose numbers test_picl checks
         * against a model), on_state never goes back, each processor's last change is to idle
         * at its own last event */
        for (int p = 0; p < ps.nprocs; p++) {
            const rt_replay_proc *a = rt_replay_proc_get(rp, p), *b = rt_replay_proc_get(r0, p);
            for (int s = 0; s < RT_NSTATES; s++)
                if (fabs(a->time_in[s] - b->time_in[s]) > 1e-9)
                    fail_msg("round %u processor %d %s: %g with counts, %g without", round, p, rt_state_name(s),
                             a->time_in[s], b->time_in[s]);
            int last = -1;
            for (int i = 0; i < log.n; i++)
                if (log.st[i].proc == p)
                    last = i;
            assert_true(last >= 0);
            assert_int_equal(log.st[last].b, RT_STATE_IDLE);
            assert_true(log.st[last].t == ps.procs[p].last);
            assert_true(a->ended);
            /* the prescan's own pass agrees with the replay */
            assert_int_equal(ps.procs[p].records, a->records);
            assert_int_equal(ps.procs[p].events, a->events);
            assert_true(ps.procs[p].first == a->first && ps.procs[p].last == a->last);
            assert_int_equal(ps.procs[p].max_queue, a->max_queue);
            assert_true(fabs(ps.procs[p].max_queue_bytes - a->max_queue_bytes) < 1e-9);
            /* the on_state stream integrates to the same totals */
            for (int s = 0; s < RT_NSTATES; s++)
                assert_true(fabs(logged_time(&log, p, s, ps.t0, ps.t1) - a->time_in[s]) < 1e-9);
        }
        for (int i = 1; i < log.n; i++)
            if (log.st[i].t < log.st[i - 1].t)
                fail_msg("round %u: on_state at %g after %g", round, log.st[i].t, log.st[i - 1].t);
        /* messages: matrix, per-sender pending, maxima against the model */
        rt_replay_matrix_view m;
        rt_replay_matrix(rp, &m);
        rt_replay_totals tot;
        rt_replay_totals_get(rp, &tot);
        assert_int_equal(tot.max_pending, mm.max_n);
        assert_true(fabs(tot.max_pending_bytes - mm.max_b) < 1e-9);
        assert_int_equal(ps.max_pending, mm.max_n);
        assert_true(fabs(ps.max_pending_bytes - mm.max_b) < 1e-9);
        assert_int_equal(ps.messages, tot.messages);
        for (int s = 0; s < RNP && s < ps.nprocs; s++) {
            int64_t out_n = 0;
            for (int d = 0; d < RNP && d < ps.nprocs; d++) {
                size_t i = (size_t)s * (size_t)m.n + (size_t)d;
                assert_int_equal(m.pending_count[i], mm.pend_n[s][d]);
                assert_int_equal(m.total_count[i], mm.cum_n[s][d]);
                assert_true(fabs(m.pending_bytes[i] - mm.pend_b[s][d]) < 1e-9);
                assert_true(fabs(m.total_bytes[i] - mm.cum_b[s][d]) < 1e-9);
                out_n += mm.pend_n[s][d];
            }
            assert_int_equal(rt_replay_proc_get(rp, s)->pending_out, out_n);
        }
        /* the raster against a direct integration of the on_state log */
        double dt = (w1 - w0) / W;
        int rows = rt_timeline_rows(tl);
        for (int r = 0; r < rows; r++) {
            int n, first = rt_timeline_row_procs(tl, r, &n);
            for (int c = 0; c < W; c++)
                for (int s = 0; s < RT_NSTATES; s++) {
                    double a = w0 + c * dt, b = w0 + (c + 1) * dt, want = 0;
                    if (b > ps.t1)
                        b = ps.t1; /* advanced to the end of the trace only */
                    for (int p = first; p < first + n; p++)
                        want += b > a ? logged_time(&log, p, s, a, b) : 0;
                    /* cells count whole 2^-32-ths of a column: within a few of them */
                    if (fabs(rt_timeline_state_time(tl, c, r, s) - want) > 1e-9 + 1e-7 * dt)
                        fail_msg("round %u %dx%d cell (%d, %d) %s: %g, want %g", round, W, R, c, r,
                                 rt_state_name(s), rt_timeline_state_time(tl, c, r, s), want);
                }
        }
        rt_timeline_detach(tl, rp);
        rt_timeline_free(tl);
        rt_replay_free(rp);
        rt_replay_free(r0);
        rt_prescan_clear(&ps);
        rt_tsource_free(src);
        rt_test_remove(path);
    }
}

/* ---- the real traces ---- */

static const char *shared_trace(char *buf, size_t cap, const char *name)
{
    const char *shared = getenv("RETRACE_SHARED");
    if (!shared)
        return NULL;
    snprintf(buf, cap, "%s/picl/%s", shared, name);
    FILE *f = fopen(buf, "r");
    if (!f)
        return NULL;
    fclose(f);
    return buf;
}

static void test_fft16_compstats(void **state)
{
    (void)state;
    char path[1024];
    if (!shared_trace(path, sizeof path, "fft-16.trf")) {
        print_message("fft-16.trf: ../shared/data absent, skipped\n");
        skip();
    }
    /* the last compstats record of each node: its communication-time counter (us) */
    double counter[16] = {0};
    FILE *f = fopen(path, "r");
    char line[256];
    while (fgets(line, sizeof line, f)) {
        int code, sec, usec, node;
        double a, b;
        if (sscanf(line, "%d %d %d %d %lf %lf", &code, &sec, &usec, &node, &a, &b) == 6 && code == 11 && node >= 0 &&
            node < 16)
            counter[node] = b;
    }
    fclose(f);
    rt_err err;
    for (int on = 1; on >= 0; on--) {
        rt_tsource *src = rt_tsource_open(path, NULL, &err);
        assert_non_null(src);
        rt_picl_source_set_compstats(src, on);
        rt_prescan ps;
        assert_int_equal(rt_prescan_run(src, &ps, &err), RT_OK);
        rt_replay_opts o = {.proc_events = ps.proc_events, .nproc_events = ps.nprocs};
        rt_replay *rp = rt_replay_new(src, &o, &err);
        /* at 5.5 ms 14 of the 16 processors have had their last record */
        assert_int_equal(rt_replay_run_until(rp, 0.0055, &err), RT_OK);
        int idle = 0;
        for (int p = 0; p < 16; p++)
            idle += rt_replay_proc_get(rp, p)->state == RT_STATE_IDLE;
        assert_int_equal(idle, 14);
        assert_int_equal(rt_replay_run(rp, &err), RT_OK);
        double t0, t1;
        rt_replay_span(rp, &t0, &t1);
        for (int p = 0; p < 16; p++) {
            const rt_replay_proc *pp = rt_replay_proc_get(rp, p);
            double sum = pp->time_in[0] + pp->time_in[1] + pp->time_in[2];
            assert_true(fabs(sum - (t1 - t0)) < 1e-12);
            if (!on) {
                assert_true(pp->time_in[RT_STATE_OVERHEAD] == 0);
                continue;
            }
            /* overhead on every processor, as long as the calls the counters measured (clock ticks apart) */
            const rt_event_stat *ev = rt_replay_proc_events(rp, p);
            double bracket = -1;
            for (int i = 0; i < pp->nevents; i++)
                if (ev[i].event == RT_PICL_COMPSTATS_REGION)
                    bracket = ev[i].time;
            assert_true(pp->time_in[RT_STATE_OVERHEAD] > 0);
            assert_true(fabs(pp->time_in[RT_STATE_OVERHEAD] - bracket) < 1e-12);
            if (fabs(bracket - counter[p] * 1e-6) > 0.03 * counter[p] * 1e-6)
                fail_msg("processor %d: brackets %.6f s, counter %.6f s", p, bracket, counter[p] * 1e-6);
        }
        rt_replay_free(rp);
        rt_prescan_clear(&ps);
        rt_tsource_free(src);
    }
}

typedef struct {
    int64_t n, parts, incomplete, bad;
    double bytes;
} coll_log;

static void log_coll(void *ud, const rt_collective *c)
{
    coll_log *l = ud;
    l->n++;
    l->parts += c->nparts;
    l->bytes += c->total_bytes;
    l->incomplete += !c->complete;
    int seen[10] = {0};
    for (int i = 0; i < c->nparts; i++) {
        if (c->procs[i] < 0 || c->procs[i] >= 10 || seen[c->procs[i]]++ || c->begin[i] > c->end[i] ||
            c->begin[i] < c->first_begin || c->end[i] > c->last_end)
            l->bad++;
    }
    if (c->region != -785 || c->nparts != 10)
        l->bad++;
}

static void test_mpicl10_collectives(void **state)
{
    (void)state;
    char path[1024];
    if (!shared_trace(path, sizeof path, "mpicl-10.trf")) {
        print_message("mpicl-10.trf: ../shared/data absent, skipped\n");
        skip();
    }
    /* independently: broadcast exits, and the bytes entries (the root's, sent) and exits (received) carry */
    int64_t exits = 0;
    double bytes = 0;
    FILE *f = fopen(path, "r");
    char line[512];
    while (fgets(line, sizeof line, f)) {
        int rt, ev, proc, task, nd, desc;
        double t, d0;
        if (sscanf(line, "%d %d %lf %d %d %d %d %lf", &rt, &ev, &t, &proc, &task, &nd, &desc, &d0) == 8 &&
            (rt == -4 || rt == -3) && ev == -785) {
            exits += rt == -4;
            bytes += d0 > 0 ? d0 : 0;
        }
    }
    fclose(f);
    assert_true(exits > 50000);
    coll_log log = {0};
    rt_err err;
    rt_tsource *src = rt_tsource_open(path, NULL, &err);
    rt_prescan ps;
    assert_int_equal(rt_prescan_run(src, &ps, &err), RT_OK);
    assert_int_equal(ps.collectives * 10, exits);
    rt_replay_opts o = {.ud = &log, .on_collective = log_coll, .proc_events = ps.proc_events,
                        .nproc_events = ps.nprocs};
    rt_replay *rp = rt_replay_new(src, &o, &err);
    assert_int_equal(rt_replay_run(rp, &err), RT_OK);
    assert_int_equal(log.parts, exits);
    assert_int_equal(log.n * 10, exits);
    assert_int_equal(log.incomplete, 0);
    assert_int_equal(log.bad, 0);
    assert_true(fabs(log.bytes - bytes) < 1e-6 * bytes);
    rt_replay_totals tot;
    rt_replay_totals_get(rp, &tot);
    assert_int_equal(tot.coll_instances, log.n);
    assert_int_equal(tot.messages, 9);
    rt_replay_free(rp);
    rt_prescan_clear(&ps);
    rt_tsource_free(src);
}

/* Collectives from COLL_BEGIN / COLL_END events, and one left incomplete. */
static void test_coll_events(void **state)
{
    (void)state;
    coll_log log = {0};
    rt_replay_opts o = {.ud = &log, .on_collective = log_coll};
    rt_err err;
    rt_replay *rp = rt_replay_new(NULL, &o, &err);
    rt_tdefs *d = rt_replay_defs(rp);
    int members[3] = {0, 1, 2};
    assert_int_equal(rt_tdefs_add_comm(d, 5, "world", 3, members), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, 7, "MPI_Allreduce", "MPI", RT_TC_COLLECTIVE), RT_OK);
    double t = 0;
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 3; p++) {
            if (k == 1 && p == 2)
                break; /* the second instance misses processor 2 */
            rt_tevent ev;
            rt_tevent_clear(&ev);
            ev.proc = p;
            ev.time = t += 1;
            ev.kind = RT_TE_ENTER;
            ev.region = 7;
            assert_int_equal(rt_replay_feed_event(rp, &ev, &err), RT_OK);
            ev.kind = RT_TE_COLL_BEGIN;
            ev.comm = 5;
            assert_int_equal(rt_replay_feed_event(rp, &ev, &err), RT_OK);
            ev.kind = RT_TE_COLL_END;
            ev.time = t += 1;
            ev.bytes = 8;
            ev.bytes_in = 16;
            assert_int_equal(rt_replay_feed_event(rp, &ev, &err), RT_OK);
            ev.kind = RT_TE_LEAVE;
            ev.bytes = ev.bytes_in = 0;
            ev.comm = -1;
            assert_int_equal(rt_replay_feed_event(rp, &ev, &err), RT_OK);
        }
    assert_int_equal(log.n, 1); /* the first, complete with 3 of 3; the region made no second one */
    assert_int_equal(rt_replay_finish(rp, &err), RT_OK);
    assert_int_equal(log.n, 2);
    assert_int_equal(log.incomplete, 1);
    assert_int_equal(log.parts, 5);
    assert_true(log.bytes == 5 * 24);
    rt_replay_free(rp);
}

/* The raster as it was first written: a time's column by a division (the slow model of
 * the product with 1/dt the raster uses now). */
static void model_spread(double *v, int W, double t0, double t1, double a, double b)
{
    double dt = (t1 - t0) / W;
    if (a < t0)
        a = t0;
    if (b > t1)
        b = t1;
    if (!(b > a))
        return;
    int c = (int)((a - t0) / dt);
    if (c >= W)
        c = W - 1;
    while (c < W && a < b) {
        double ce = c == W - 1 ? t1 : t0 + (c + 1) * dt;
        double e = b < ce ? b : ce;
        if (e > a)
            v[c] += e - a;
        a = e;
        c++;
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* State changes at column boundaries (t0 + c * dt as computed, and the doubles next to
 * them), where a product and a division could truncate apart, and at random times: every
 * cell of the raster equals the division model's, for awkward windows, within the raster's
 * unit (2^-32 of a column) per change in the column and at its two edges. */
static void test_raster_columns_vs_division(void **state)
{
    (void)state;
    static const struct {
        int W;
        double t0, t1;
    } cases[] = {{1280, -0.000001, 0.115075}, {1280, 0, 1}, {7, 0.1, 0.7}, {1000, 3.3, 1e4 / 3}, {65536, -1e-3, 2.9e3}};
    srand(23);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int W = cases[k].W;
        double t0 = cases[k].t0, t1 = cases[k].t1, dt = (t1 - t0) / W;
        enum { N = 3000 };
        double *t = malloc(N * sizeof *t), *model = calloc((size_t)W * RT_NSTATES, sizeof *model);
        assert_true(t && model);
        for (int i = 0; i < N; i++) {
            double b = t0 + (rand() % (W + 1)) * dt;
            int r = rand() % 4;
            t[i] = r == 0 ? b : r == 1 ? nextafter(b, INFINITY) : r == 2 ? nextafter(b, -INFINITY)
                                                                          : t0 + (t1 - t0) * rand() / RAND_MAX;
        }
        qsort(t, N, sizeof *t, by_value);
        rt_timeline_opts o = {.cols = W, .rows = 1, .nprocs = 1, .t0 = t0, .t1 = t1};
        rt_timeline *tl;
        rt_err err;
        assert_int_equal(rt_timeline_new(&o, &tl, &err), RT_OK);
        int s = RT_STATE_IDLE;
        double since = t0;
        for (int i = 0; i < N; i++) {
            int ns = (s + 1 + rand() % 2) % RT_NSTATES;
            if (t[i] > since) {
                model_spread(model + (size_t)s * (size_t)W, W, t0, t1, since, t[i]);
                since = t[i];
            }
            rt_timeline_state(tl, 0, t[i], s, ns);
            s = ns;
        }
        int *changes = calloc((size_t)W, sizeof *changes);
        assert_non_null(changes);
        for (int i = 0; i < N; i++) {
            int c = (int)((t[i] - t0) / dt);
            changes[c < 0 ? 0 : c >= W ? W - 1 : c]++;
        }
        for (int c = 0; c < W; c++)
            for (int st = 0; st < RT_NSTATES; st++)
                if (fabs(rt_timeline_state_time(tl, c, 0, st) - model[(size_t)st * (size_t)W + (size_t)c]) >
                    (changes[c] + 2) * dt / 4294967296.0)
                    fail_msg("window %g .. %g, %d columns: cell %d state %d %.17g, model %.17g", t0, t1, W, c, st,
                             rt_timeline_state_time(tl, c, 0, st), model[(size_t)st * (size_t)W + (size_t)c]);
        rt_timeline_free(tl);
        free(changes);
        free(t);
        free(model);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand4_prescan),
        cmocka_unit_test(test_hand4_replay),
        cmocka_unit_test(test_prescan_time_back),
        cmocka_unit_test(test_raster_hand4),
        cmocka_unit_test(test_raster_scroll),
        cmocka_unit_test(test_raster_bad_options),
        cmocka_unit_test(test_raster_columns_vs_division),
        cmocka_unit_test(test_random_vs_models),
        cmocka_unit_test(test_fft16_compstats),
        cmocka_unit_test(test_mpicl10_collectives),
        cmocka_unit_test(test_coll_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
