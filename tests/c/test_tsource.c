/*
 * test_tsource.c - PICL as a producer of the neutral event stream, the replay
 * on that stream, and the dispatcher (rt_tsource_open).
 *
 *   - hand-written new- and old-format traces -> the exact events expected;
 *   - the PICL state rules through the region classes;
 *   - the replay on events of a non-PICL vocabulary (regions defined by name
 *     and class, communicators, collectives), hand-computed;
 *   - the replay's invariants on the four real PICL traces in ../shared/data;
 *   - random PICL traces: the replay through rt_tsource_open against a slow
 *     reference model (states, records, messages, per-event counts);
 *   - bad input for the dispatcher.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "rt_test.h"

#include "rt_medea.h"
#include "rt_picl.h"
#include "rt_picl_source.h"
#include "rt_replay.h"
#include "rt_tevent.h"
#include "rt_tsource_open.h"

/* One expected event. */
typedef struct {
    int kind, proc;
    double time;
    int region, peer;
    long tag;
    double bytes;
} want_ev;

/* Read every event of src and compare with want[0..n); also checks that
 * the events of one record share raw and consecutive records do not. */
static void expect_events(rt_tsource *src, const want_ev *want, int n, const int *same_record_as_prev)
{
    rt_tevent ev;
    rt_err err;
    const void *prev_raw = NULL;
    for (int i = 0; i < n; i++) {
        int st = rt_tsource_next(src, &ev, &err);
        if (st != RT_OK)
            fail_msg("event %d: status %d (%s)", i, st, err.msg);
        if (ev.kind != want[i].kind || ev.proc != want[i].proc || fabs(ev.time - want[i].time) > 1e-12 ||
            ev.region != want[i].region)
            fail_msg("event %d: got %s proc %d t %.6f region %d, want %s proc %d t %.6f region %d", i,
                     rt_te_kind_name(ev.kind), ev.proc, ev.time, ev.region, rt_te_kind_name(want[i].kind),
                     want[i].proc, want[i].time, want[i].region);
        if (ev.kind == RT_TE_SEND || ev.kind == RT_TE_RECV) {
            assert_int_equal(ev.peer, want[i].peer);
            assert_int_equal(ev.tag, want[i].tag);
            assert_true(ev.bytes == want[i].bytes);
            assert_int_equal(ev.comm, -1);
        }
        assert_non_null(ev.raw);
        const rt_picl_record *rec = ev.raw;
        assert_int_equal(rec->format, RT_PICL_NEW);
        assert_int_equal(rec->proc, ev.proc);
        if (i > 0) {
            if (same_record_as_prev[i])
                assert_ptr_equal(ev.raw, prev_raw);
            else
                assert_ptr_not_equal(ev.raw, prev_raw);
        }
        prev_raw = ev.raw;
    }
    assert_int_equal(rt_tsource_next(src, &ev, &err), RT_EEOF);
}

static void test_picl_new_events(void **state)
{
    (void)state;
    char *path = rt_test_write_text("-3 -901 0.000000 0 4 0\n"
                                    "-3 1 0.100000 0 4 0\n"
                                    "-3 -52 0.150000 1 4 0\n"
                                    "-3 -21 0.200000 0 4 3 2 64 7 1\n"
                                    "-4 -21 0.300000 0 4 0\n"
                                    "-2 -904 0.350000 0 4 1 2 5\n"
                                    "-4 -52 0.400000 1 4 3 2 64 7 0\n"
                                    "-4 1 0.500000 0 4 0\n"
                                    "-4 -901 0.600000 0 4 0\n"
                                    "-102 0 0.600000 0 4 2 2 -21 3\n");
    rt_err err;
    rt_tsource *src = rt_picl_source_open(path, NULL, &err);
    assert_non_null(src);
    assert_string_equal(src->ops->format, "picl-new");
    assert_true(rt_tsource_is_picl(src));
    const want_ev want[] = {
        {RT_TE_ENTER, 0, 0.0, -901, -1, 0, 0},  {RT_TE_ENTER, 0, 0.1, 1, -1, 0, 0},
        {RT_TE_ENTER, 1, 0.15, -52, -1, 0, 0},  {RT_TE_ENTER, 0, 0.2, -21, -1, 0, 0},
        {RT_TE_SEND, 0, 0.2, -21, 1, 7, 64},    {RT_TE_LEAVE, 0, 0.3, -21, -1, 0, 0},
        {RT_TE_MARKER, 0, 0.35, -904, -1, 0, 0}, {RT_TE_RECV, 1, 0.4, -52, 0, 7, 64},
        {RT_TE_LEAVE, 1, 0.4, -52, -1, 0, 0},   {RT_TE_LEAVE, 0, 0.5, 1, -1, 0, 0},
        {RT_TE_LEAVE, 0, 0.6, -901, -1, 0, 0},  {RT_TE_MARKER, 0, 0.6, 0, -1, 0, 0},
    };
    const int same[] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    expect_events(src, want, 12, same);
    /* definitions: regions with the words of rt_picl_event_words and their classes */
    const rt_tdefs *d = src->defs;
    assert_int_equal(rt_tdefs_nregions(d), 4);
    assert_string_equal(rt_tdefs_region(d, -52)->name, "receive (blocked)");
    assert_int_equal(rt_tdefs_region(d, -52)->cls, RT_TC_WAIT);
    assert_string_equal(rt_tdefs_region(d, -21)->name, "send");
    assert_int_equal(rt_tdefs_region(d, -21)->cls, RT_TC_SEND);
    assert_string_equal(rt_tdefs_region(d, 1)->name, "user event 1");
    assert_int_equal(rt_tdefs_region(d, 1)->cls, RT_TC_USER);
    assert_int_equal(rt_tdefs_region(d, -901)->cls, RT_TC_TRACING);
    assert_null(rt_tdefs_region(d, -904)); /* markers define no region */
    assert_int_equal(rt_tdefs_nprocs(d), 2);
    assert_string_equal(rt_tdefs_proc(d, 1)->name, "processor 1");
    /* rewind gives the same stream again */
    assert_int_equal(rt_tsource_rewind(src, &err), RT_OK);
    expect_events(src, want, 12, same);
    rt_tsource_free(src);
    rt_test_remove(path);
}

static void test_picl_old_events(void **state)
{
    (void)state;
    /* trace_start, block_begin 3, send to 1 (type 5, 16 bytes), recv_blocking on 1,
     * recv_waking from 0, the recv repeating it, block_end 3, trace_exit */
    char *path = rt_test_write_text("1 0 0 0\n"
                                    "20 0 100 0 3\n"
                                    "4 0 200 0 1 5 16\n"
                                    "7 0 250 1\n"
                                    "8 0 300 1 0 5 16\n"
                                    "6 0 300 1 0 5 16\n"
                                    "21 0 400 0 3\n"
                                    "19 0 500 0\n");
    rt_err err;
    rt_tsource *src = rt_tsource_open(path, NULL, &err);
    if (!src)
        fail_msg("%s", err.msg);
    assert_string_equal(src->ops->format, "picl-old");
    const want_ev want[] = {
        {RT_TE_ENTER, 0, 0.0, -901, -1, 0, 0},    {RT_TE_ENTER, 0, 0.0001, 3, -1, 0, 0},
        {RT_TE_ENTER, 0, 0.0002, -21, -1, 0, 0},  {RT_TE_SEND, 0, 0.0002, -21, 1, 5, 16},
        {RT_TE_LEAVE, 0, 0.0002, -21, -1, 0, 0},  {RT_TE_ENTER, 1, 0.00025, -52, -1, 0, 0},
        {RT_TE_RECV, 1, 0.0003, -52, 0, 5, 16},   {RT_TE_LEAVE, 1, 0.0003, -52, -1, 0, 0},
        {RT_TE_MARKER, 1, 0.0003, -6, -1, 0, 0},  {RT_TE_LEAVE, 0, 0.0004, 3, -1, 0, 0},
        {RT_TE_LEAVE, 0, 0.0005, -901, -1, 0, 0},
    };
    /* the send's entry and exit are two translated records */
    const int same[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    expect_events(src, want, 11, same);
    rt_tsource_free(src);

    /* replayed: records count the translated records, the message pairs */
    src = rt_tsource_open(path, "picl", &err);
    assert_non_null(src);
    rt_replay *rp = rt_replay_new(src, NULL, &err);
    assert_int_equal(rt_replay_run(rp, &err), RT_OK);
    assert_int_equal(rt_replay_records(rp), 9);
    assert_int_equal(rt_replay_events(rp), 11);
    rt_replay_totals tot;
    rt_replay_totals_get(rp, &tot);
    assert_int_equal(tot.messages, 1);
    assert_int_equal(tot.pending, 0);
    /* processor 1: busy 0.25 .. 0.25 (nothing), idle in the blocked receive 0.00025 .. 0.0003 */
    const rt_replay_proc *p1 = rt_replay_proc_get(rp, 1);
    assert_true(fabs(p1->time_in[RT_STATE_IDLE] - (0.00025 + 0.00005 + 0.0002)) < 1e-12);
    rt_replay_free(rp);
    rt_tsource_free(src);
    rt_test_remove(path);
}

/* The state rule, once on classes: every PICL number's class and the old predicate through it. */
static void test_picl_classes(void **state)
{
    (void)state;
    static const struct {
        int event, cls;
    } table[] = {
        {0, RT_TC_USER},          {7, RT_TC_USER},        {-52, RT_TC_WAIT},        {-55, RT_TC_WAIT},
        {-56, RT_TC_WAIT},        {-61, RT_TC_WAIT},      {-31, RT_TC_WAIT},        {-401, RT_TC_SYNC},
        {-402, RT_TC_SYNC},       {-601, RT_TC_IDLE},     {-21, RT_TC_SEND},        {-22, RT_TC_SEND},
        {-27, RT_TC_SEND},        {-50, RT_TC_SEND},      {-51, RT_TC_RECV},        {-53, RT_TC_RECV},
        {-62, RT_TC_RECV},        {-750, RT_TC_COLLECTIVE}, {-785, RT_TC_COLLECTIVE}, {-201, RT_TC_IO},
        {-299, RT_TC_IO},         {-901, RT_TC_TRACING},  {-914, RT_TC_TRACING},    {-915, RT_TC_SYSTEM},
        {-602, RT_TC_SYSTEM},     {-603, RT_TC_SYSTEM},   {-12, RT_TC_SYSTEM},      {-501, RT_TC_SYSTEM},
        {-800, RT_TC_SYSTEM},     {-5, RT_TC_SYSTEM},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int e = table[i].event;
        if (rt_picl_event_class(e) != table[i].cls)
            fail_msg("event %d: class %s, want %s", e, rt_tclass_name(rt_picl_event_class(e)),
                     rt_tclass_name(table[i].cls));
    }
    /* the old predicate, now through the classes: exactly the waits, sync and idle */
    for (int e = -1000; e <= 20; e++) {
        int want = e == -52 || e == -55 || e == -56 || e == -61 || e == -31 || e == -401 || e == -402 ||
                   e == -601;
        assert_int_equal(rt_picl_event_waits(e), want);
    }
    /* the states of the classes: user busy, waits idle, others overhead, tracing none */
    assert_int_equal(rt_tclass_state(rt_picl_event_class(3)), RT_STATE_BUSY);
    assert_int_equal(rt_tclass_state(rt_picl_event_class(-402)), RT_STATE_IDLE);
    assert_int_equal(rt_tclass_state(rt_picl_event_class(-785)), RT_STATE_OVERHEAD);
    assert_int_equal(rt_tclass_state(rt_picl_event_class(-901)), -1);
}

/* ---- the replay on a non-PICL vocabulary ---- */

typedef struct {
    int nmsg;
    rt_message msg[8];
    int nevents;
} log_t;

static void log_message(void *ud, const rt_message *m)
{
    log_t *l = ud;
    if (l->nmsg < 8)
        l->msg[l->nmsg++] = *m;
}

static void count_event(void *ud, const rt_tevent *ev)
{
    (void)ev;
    ((log_t *)ud)->nevents++;
}

#define mk rt_test_event
#define mkmsg rt_test_message

static void test_replay_neutral_events(void **state)
{
    (void)state;
    log_t log = {0};
    rt_replay_opts o = {.critical_path = 1, .ud = &log, .on_message = log_message, .on_event = count_event};
    rt_replay *rp = rt_replay_new(NULL, &o, NULL);
    assert_non_null(rp);
    rt_tdefs *d = rt_replay_defs(rp);
    assert_int_equal(rt_tdefs_add_region(d, 10, "MPI_Recv", "MPI", RT_TC_WAIT), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, 11, "compute", "USER", RT_TC_USER), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, 12, "MPI_Send", "MPI", RT_TC_SEND), RT_OK);
    /* proc 0: compute 0..4 with sends 1..2 (comm 0) and 1.5..1.6 (comm 1, never received);
     * proc 1: compute 0..5 with a wait 0.5..3 ended by the comm-0 message */
    const rt_tevent evs[] = {
        mk(RT_TE_ENTER, 0, 0, 11),   mk(RT_TE_ENTER, 1, 0, 11),
        mk(RT_TE_ENTER, 1, 0.5, 10), mk(RT_TE_ENTER, 0, 1, 12),
        mkmsg(RT_TE_SEND, 0, 1, 1, 0, 3, 10), mk(RT_TE_LEAVE, 0, 1.5, 12),
        mk(RT_TE_ENTER, 0, 1.5, 12), mkmsg(RT_TE_SEND, 0, 1.5, 1, 1, 3, 20),
        mk(RT_TE_LEAVE, 0, 1.6, 12), mkmsg(RT_TE_RECV, 1, 3, 0, 0, 3, 10),
        mk(RT_TE_LEAVE, 1, 3, 10),   mk(RT_TE_LEAVE, 0, 4, 11),
        mk(RT_TE_LEAVE, 1, 5, 11),
    };
    int n = (int)(sizeof evs / sizeof evs[0]);
    for (int i = 0; i < n; i++)
        assert_int_equal(rt_replay_feed_event(rp, &evs[i], NULL), RT_OK);
    assert_int_equal(rt_replay_finish(rp, NULL), RT_OK);
    assert_int_equal(log.nevents, n);
    assert_int_equal(rt_replay_records(rp), n); /* no raw records: every event is one */
    const rt_replay_proc *p0 = rt_replay_proc_get(rp, 0), *p1 = rt_replay_proc_get(rp, 1);
    /* proc 0: busy 0..1, 1.6..4; overhead 1..1.6; idle 4..5 (after its last event) */
    assert_true(fabs(p0->time_in[RT_STATE_BUSY] - 3.4) < 1e-12);
    assert_true(fabs(p0->time_in[RT_STATE_OVERHEAD] - 0.6) < 1e-12);
    assert_true(fabs(p0->time_in[RT_STATE_IDLE] - 1.0) < 1e-12);
    /* proc 1: busy 0..0.5 and 3..5, idle in the wait */
    assert_true(fabs(p1->time_in[RT_STATE_BUSY] - 2.5) < 1e-12);
    assert_true(fabs(p1->time_in[RT_STATE_IDLE] - 2.5) < 1e-12);
    assert_true(p1->time_in[RT_STATE_OVERHEAD] == 0);
    /* pairing per communicator: the comm-1 send stays pending */
    assert_int_equal(log.nmsg, 1);
    assert_int_equal(log.msg[0].comm, 0);
    assert_true(log.msg[0].send_time == 1 && log.msg[0].recv_time == 3 && log.msg[0].bytes == 10);
    rt_replay_totals tot;
    rt_replay_totals_get(rp, &tot);
    assert_int_equal(tot.messages, 1);
    assert_int_equal(tot.pending, 1);
    assert_true(tot.pending_bytes == 20);
    /* bytes to the regions: MPI_Send sent 30, MPI_Recv received 10 */
    const rt_event_stat *e0 = rt_replay_proc_events(rp, 0), *e1 = rt_replay_proc_events(rp, 1);
    assert_int_equal(p0->nevents, 2);
    assert_int_equal(e0[0].event, 11);
    assert_int_equal(e0[1].event, 12);
    assert_int_equal(e0[1].count, 2);
    assert_true(e0[1].bytes_out == 30 && fabs(e0[1].time - 0.6) < 1e-12);
    assert_int_equal(e1[0].event, 10);
    assert_true(e1[0].bytes_in == 10);
    /* tasks: the user region 11 */
    assert_int_equal(rt_replay_ntasks(rp), 1);
    assert_int_equal(rt_replay_tasks(rp)[0].task, 11);
    /* critical path: proc 1 from 5 back to the receive at 3, to proc 0 at the send at 1, to 0 */
    rt_critical_path cp;
    assert_int_equal(rt_replay_critical_path(rp, &cp, NULL), RT_OK);
    assert_int_equal(cp.nsegments, 2);
    assert_int_equal(cp.segments[0].proc, 0);
    assert_true(cp.segments[0].from == 0 && cp.segments[0].to == 1);
    assert_int_equal(cp.segments[1].proc, 1);
    assert_true(cp.segments[1].from == 3 && cp.segments[1].to == 5);
    assert_true(cp.length == 5);
    rt_critical_path_clear(&cp);
    rt_replay_free(rp);
}

static void test_replay_collective(void **state)
{
    (void)state;
    rt_replay *rp = rt_replay_new(NULL, NULL, NULL);
    rt_tdefs *d = rt_replay_defs(rp);
    assert_int_equal(rt_tdefs_add_region(d, 13, "MPI_Allreduce", "MPI", RT_TC_COLLECTIVE), RT_OK);
    rt_tevent evs[] = {mk(RT_TE_ENTER, 0, 0, 13), mk(RT_TE_COLL_BEGIN, 0, 0, 0), mk(RT_TE_COLL_END, 0, 1, 0),
                       mk(RT_TE_LEAVE, 0, 1, 13), mk(RT_TE_MARKER, 0, 2, 99)};
    evs[2].bytes = 8;
    evs[2].bytes_in = 16;
    for (int i = 0; i < 5; i++)
        assert_int_equal(rt_replay_feed_event(rp, &evs[i], NULL), RT_OK);
    rt_replay_finish(rp, NULL);
    const rt_event_stat *e = rt_replay_proc_events(rp, 0);
    assert_true(e[0].bytes_out == 8 && e[0].bytes_in == 16 && e[0].bytes == 24);
    const rt_replay_proc *p = rt_replay_proc_get(rp, 0);
    assert_true(p->time_in[RT_STATE_OVERHEAD] == 1 && p->time_in[RT_STATE_BUSY] == 1);
    rt_replay_totals tot;
    rt_replay_totals_get(rp, &tot);
    assert_int_equal(tot.collectives, 1);
    rt_replay_free(rp);

    /* peers: up to the processors the definitions name (here 70000, past PICL's 65536) */
    rp = rt_replay_new(NULL, NULL, NULL);
    assert_int_equal(rt_tdefs_set_proc(rt_replay_defs(rp), 69999, "rank 69999", NULL), RT_OK);
    rt_tevent s1 = mkmsg(RT_TE_SEND, 0, 0, 69999, 0, 1, 8), s2 = mkmsg(RT_TE_SEND, 0, 0, 70000, 0, 1, 8);
    assert_int_equal(rt_replay_feed_event(rp, &s1, NULL), RT_OK);
    assert_int_equal(rt_replay_feed_event(rp, &s2, NULL), RT_OK);
    rt_replay_totals_get(rp, &tot);
    assert_int_equal(tot.pending, 1);
    assert_int_equal(rt_replay_nwarnings(rp), 1);
    assert_non_null(strstr(rt_replay_warning(rp, 0), "names no destination processor (70000)"));
    rt_replay_free(rp);
}

/* ---- a source of another vocabulary: events from an array ---- */

typedef struct array_src {
    rt_tsource base;
    const rt_tevent *ev;
    int n, i;
} array_src;

static int array_next(rt_tsource *s, rt_tevent *ev, rt_err *err)
{
    (void)err;
    array_src *a = (array_src *)s;
    if (a->i >= a->n)
        return RT_EEOF;
    *ev = a->ev[a->i++];
    return RT_OK;
}

static void array_free(rt_tsource *s) { free(s); }

static const rt_tsource_ops array_ops = {"array", array_next, NULL, NULL, NULL, array_free};

static rt_tsource *array_source(const rt_tevent *ev, int n)
{
    array_src *a = calloc(1, sizeof *a);
    assert_non_null(a);
    assert_int_equal(rt_tsource_init(&a->base, &array_ops, "mem.trace", NULL), RT_OK);
    a->ev = ev;
    a->n = n;
    return &a->base;
}

/* An MPI-style run: proc 0 sends 100 bytes inside main, proc 1 waits for them. */
static const rt_tevent *mpi_run(int *n)
{
    static rt_tevent evs[10];
    int k = 0;
    evs[k++] = mk(RT_TE_ENTER, 0, 0, 5);
    evs[k++] = mk(RT_TE_ENTER, 1, 0, 5);
    evs[k++] = mk(RT_TE_ENTER, 1, 0.5, 8);
    evs[k++] = mk(RT_TE_ENTER, 0, 1, 7);
    evs[k++] = mkmsg(RT_TE_SEND, 0, 1, 1, 0, 4, 100);
    evs[k++] = mk(RT_TE_LEAVE, 0, 2, 7);
    evs[k++] = mkmsg(RT_TE_RECV, 1, 3, 0, 0, 4, 100);
    evs[k++] = mk(RT_TE_LEAVE, 1, 3, 8);
    evs[k++] = mk(RT_TE_LEAVE, 0, 4, 5);
    evs[k++] = mk(RT_TE_LEAVE, 1, 4, 5);
    *n = k;
    return evs;
}

static void define_mpi_regions(rt_tdefs *d)
{
    assert_int_equal(rt_tdefs_add_region(d, 5, "main", "USER", RT_TC_USER), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, 7, "MPI_Send", "MPI", RT_TC_SEND), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, 8, "MPI_Recv", "MPI", RT_TC_WAIT), RT_OK);
}

static void test_replay_pulls_any_source(void **state)
{
    (void)state;
    int n;
    const rt_tevent *evs = mpi_run(&n);
    rt_tsource *src = array_source(evs, n);
    define_mpi_regions(src->defs);
    rt_replay *rp = rt_replay_new(src, NULL, NULL);
    /* the source's warnings join the replay's */
    rt_tsource_warn(src, "mem.trace:%d: a record worked around", 3);
    assert_int_equal(rt_replay_nwarnings(rp), 1);
    assert_string_equal(rt_replay_warning(rp, 0), "mem.trace:3: a record worked around");
    double t;
    assert_int_equal(rt_replay_next_time(rp, &t, NULL), 1);
    assert_true(t == 0);
    /* without raw records every event is a record: step(4) replays four events */
    int64_t done;
    assert_int_equal(rt_replay_step(rp, 4, &done, NULL), RT_OK);
    assert_int_equal(done, 4);
    assert_int_equal(rt_replay_events(rp), 4);
    assert_int_equal(rt_replay_proc_get(rp, 0)->state, RT_STATE_OVERHEAD); /* inside MPI_Send */
    assert_int_equal(rt_replay_proc_get(rp, 1)->state, RT_STATE_IDLE);     /* inside MPI_Recv */
    assert_int_equal(rt_replay_proc_get(rp, 1)->task, 5);
    assert_int_equal(rt_replay_run_until(rp, 2.5, NULL), RT_OK);
    assert_int_equal(rt_replay_events(rp), 6);
    assert_int_equal(rt_replay_run(rp, NULL), RT_OK);
    assert_true(rt_replay_finished(rp));
    rt_replay_totals tot;
    rt_replay_totals_get(rp, &tot);
    assert_int_equal(tot.messages, 1);
    assert_int_equal(tot.kinds[RT_TE_ENTER], 4);
    assert_int_equal(tot.kinds[RT_TE_SEND], 1);
    assert_int_equal(tot.kinds[RT_TE_RECV], 1);
    assert_true(rt_replay_proc_get(rp, 1)->time_in[RT_STATE_IDLE] == 2.5);
    rt_replay_free(rp);
    assert_null(src->on_warning); /* unhooked when the replay goes */
    rt_tsource_free(src);
}

/* MEDEA: the same run as neutral events and as a PICL trace gives the same parameters. */
static void test_medea_neutral_equals_picl(void **state)
{
    (void)state;
    int n;
    const rt_tevent *evs = mpi_run(&n);
    rt_tsource *src = array_source(evs, n);
    define_mpi_regions(src->defs);
    rt_medea *a = rt_medea_new(), *b = rt_medea_new();
    rt_err err;
    assert_int_equal(rt_medea_feed_source(a, src, NULL, NULL, &err), RT_OK);
    rt_tsource_free(src);
    char *path = rt_test_write_text("-3 5 0.000000 0 0 0\n"
                                    "-3 5 0.000000 1 0 0\n"
                                    "-3 -52 0.500000 1 0 0\n"
                                    "-3 -21 1.000000 0 0 3 2 100 4 1\n"
                                    "-4 -21 2.000000 0 0 0\n"
                                    "-4 -52 3.000000 1 0 3 2 100 4 0\n"
                                    "-4 5 4.000000 0 0 0\n"
                                    "-4 5 4.000000 1 0 0\n");
    assert_int_equal(rt_medea_feed_file(b, path, 1, NULL, NULL, &err), RT_OK);
    rt_test_remove(path);
    assert_int_equal(rt_medea_nprocs(a), 2);
    assert_int_equal(rt_medea_nprocs(b), 2);
    for (size_t i = 0; i < 2; i++) {
        rt_medea_proc pa, pb;
        memset(&pa, 0, sizeof pa);
        memset(&pb, 0, sizeof pb);
        rt_medea_proc_get(a, i, &pa);
        rt_medea_proc_get(b, i, &pb);
        assert_memory_equal(&pa, &pb, sizeof pa);
    }
    rt_medea_proc p0, p1;
    rt_medea_proc_get(a, 0, &p0);
    rt_medea_proc_get(a, 1, &p1);
    assert_true(p0.trdata == 100 && p0.trnum == 1 && p0.time[RT_MEDEA_TR] == 1);
    assert_true(p1.rcdata == 100 && p1.rcnum == 1 && p1.time[RT_MEDEA_RC] == 2.5);
    assert_int_equal(rt_medea_nevents(a), rt_medea_nevents(b));
    for (size_t i = 0; i < rt_medea_nevents(a); i++) {
        rt_medea_event ea, eb;
        memset(&ea, 0, sizeof ea);
        memset(&eb, 0, sizeof eb);
        rt_medea_event_get(a, i, &ea);
        rt_medea_event_get(b, i, &eb);
        assert_memory_equal(&ea, &eb, sizeof ea);
    }
    rt_medea_free(a);
    rt_medea_free(b);
}

/* ---- the real PICL traces through the dispatcher ---- */

typedef struct {
    int64_t messages, tachyons, bad;
} inv_t;

static void check_message(void *ud, const rt_message *m)
{
    inv_t *v = ud;
    v->messages++;
    if (m->tachyon)
        v->tachyons++;
    if (!(m->send_time <= m->recv_time) && !m->tachyon)
        v->bad++;
}

static void test_real_picl_invariants(void **state)
{
    (void)state;
    const char *shared = getenv("RETRACE_SHARED");
    char path[4096];
    if (!shared) {
        printf("RETRACE_SHARED not set: skipping the real traces\n");
        skip();
    }
    snprintf(path, sizeof path, "%s/picl", shared);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        printf("%s absent: skipping the real traces\n", path);
        skip();
    }
    static const struct {
        const char *file, *format;
        int64_t lines, messages; /* as `retrace picl stats` printed them before the neutral stream */
        int procs;
    } traces[] = {
        {"fft-16.trf", "picl-old", 624, 64, 16},
        {"mpicl-8a.trf", "picl-new", 802, 174, 8},
        {"mpicl-8b.trf", "picl-new", 802, 174, 8},
        {"mpicl-10.trf", "picl-new", 120426, 9, 10},
    };
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        snprintf(path, sizeof path, "%s/picl/%s", shared, traces[i].file);
        rt_err err;
        rt_tsource *src = rt_tsource_open(path, NULL, &err);
        if (!src)
            fail_msg("%s", err.msg);
        assert_string_equal(src->ops->format, traces[i].format);
        inv_t v = {0};
        rt_replay_opts o = {.on_message = check_message, .ud = &v};
        rt_replay *rp = rt_replay_new(src, &o, &err);
        assert_int_equal(rt_replay_run(rp, &err), RT_OK);
        double t0, t1;
        rt_replay_span(rp, &t0, &t1);
        assert_int_equal(rt_replay_nprocs(rp), traces[i].procs);
        for (int p = 0; p < rt_replay_nprocs(rp); p++) {
            const rt_replay_proc *pp = rt_replay_proc_get(rp, p);
            double sum = pp->time_in[0] + pp->time_in[1] + pp->time_in[2];
            if (fabs(sum - (t1 - t0)) > 1e-9 * (1 + fabs(t1 - t0)))
                fail_msg("%s proc %d: busy + overhead + idle = %.9f, span %.9f", traces[i].file, p, sum, t1 - t0);
        }
        rt_replay_totals tot;
        rt_replay_totals_get(rp, &tot);
        assert_int_equal(v.bad, 0);
        assert_int_equal(v.tachyons, tot.tachyons);
        assert_int_equal(v.messages, tot.messages);
        assert_int_equal(tot.messages, traces[i].messages);
        assert_int_equal(rt_picl_count(rt_picl_source_reader(src)), traces[i].lines);
        /* records replayed = the records after translation, counted here separately */
        rt_picl *r = rt_picl_open(path, NULL, &err);
        rt_picl_xlate *x = rt_picl_xlate_new();
        rt_picl_record rec, out[2];
        int64_t translated = 0;
        while (rt_picl_next(r, &rec, &err) == RT_OK) {
            int k = 1;
            if (rec.format == RT_PICL_OLD)
                assert_int_equal(rt_picl_xlate_record(x, &rec, out, &k), RT_OK);
            translated += k;
        }
        rt_picl_xlate_free(x);
        rt_picl_free(r);
        assert_int_equal(rt_replay_records(rp), translated);
        rt_replay_free(rp);
        rt_tsource_free(src);
    }
}

/* The other samples (OTF2, Paraver, Paje) through whatever readers this build has:
 * the invariants only; a format without its reader here is skipped. */
static void test_real_other_invariants(void **state)
{
    (void)state;
    const char *shared = getenv("RETRACE_SHARED");
    static const char *const samples[] = {"otf2/pingpong", "otf2/pingpong/traces.otf2", "paraver/qsort_beo3.prv",
                                          "paje/ms.trace", "paje/simu-mardi.trace", "paje/g5k.trace"};
    int tried = 0;
    for (size_t i = 0; shared && i < sizeof samples / sizeof samples[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", shared, samples[i]);
        const char *name;
        if (rt_tsource_detect(path, &name, NULL, 0) != RT_OK || !name || strstr(name, "noreader")) {
            printf("%s: absent or no reader in this build, skipped\n", samples[i]);
            continue;
        }
        tried++;
        rt_err err;
        rt_tsource *src = rt_tsource_open(path, NULL, &err);
        if (!src)
            fail_msg("%s", err.msg);
        inv_t v = {0};
        rt_replay_opts o = {.on_message = check_message, .ud = &v, .critical_path = 1};
        rt_replay *rp = rt_replay_new(src, &o, &err);
        if (rt_replay_run(rp, &err) != RT_OK)
            fail_msg("%s", err.msg);
        double t0, t1;
        rt_replay_span(rp, &t0, &t1);
        assert_true(rt_replay_nprocs(rp) > 0);
        for (int p = 0; p < rt_replay_nprocs(rp); p++) {
            const rt_replay_proc *pp = rt_replay_proc_get(rp, p);
            double sum = pp->time_in[0] + pp->time_in[1] + pp->time_in[2];
            if (pp->seen && fabs(sum - (t1 - t0)) > 1e-9 * (1 + fabs(t1 - t0)))
                fail_msg("%s proc %d: busy + overhead + idle = %.9f, span %.9f", samples[i], p, sum, t1 - t0);
        }
        rt_replay_totals tot;
        rt_replay_totals_get(rp, &tot);
        assert_int_equal(v.bad, 0);
        assert_int_equal(v.tachyons, tot.tachyons);
        rt_critical_path cp;
        assert_int_equal(rt_replay_critical_path(rp, &cp, &err), RT_OK);
        assert_true(cp.length <= t1 - t0 + 1e-9);
        rt_critical_path_clear(&cp);
        rt_replay_free(rp);
        rt_tsource_free(src);
    }
    if (!tried)
        skip();
}

/* ---- random PICL traces against a slow reference model ---- */

#define RNP 4
#define RMAX 4000

typedef struct {
    int rectype, event, proc;
    double time;
    int peer, tag, bytes; /* sends / receives: peer >= 0 */
} rrec;

typedef struct {
    int proc, event;
    double entry, exit;
} riv;

/* State seconds of proc by elementary segments (the innermost open non-tracing event decides). */
static void slow_states(const riv *iv, int n, int proc, double first, double last, double t0, double t1,
                        double out[RT_NSTATES])
{
    out[0] = out[1] = out[2] = 0;
    out[RT_STATE_IDLE] += (first - t0) + (t1 - last);
    double *pts = malloc(sizeof(double) * (size_t)(2 * n + 2));
    int np = 0;
    pts[np++] = first;
    pts[np++] = last;
    for (int i = 0; i < n; i++)
        if (iv[i].proc == proc) {
            pts[np++] = iv[i].entry;
            pts[np++] = iv[i].exit;
        }
    for (int i = 1; i < np; i++)
        for (int j = i; j > 0 && pts[j - 1] > pts[j]; j--) {
            double t = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = t;
        }
    for (int i = 0; i + 1 < np; i++) {
        double a = pts[i], b = pts[i + 1], mid = (a + b) / 2;
        if (b <= a)
            continue;
        int best = -1;
        for (int k = 0; k < n; k++) {
            if (iv[k].proc != proc || iv[k].event == -901 || !(iv[k].entry <= mid && mid < iv[k].exit))
                continue;
            if (best < 0 || iv[k].entry >= iv[best].entry)
                best = k;
        }
        int s = RT_STATE_BUSY;
        if (best >= 0) {
            int e = iv[best].event;
            s = (e == -52 || e == -402) ? RT_STATE_IDLE : e < 0 ? RT_STATE_OVERHEAD : RT_STATE_BUSY;
        }
        out[s] += b - a;
    }
    free(pts);
}

static void test_random_picl_vs_model(void **state)
{
    (void)state;
    srand(17);
    int64_t all_msgs = 0, all_tach = 0, all_pending = 0;
    for (int round = 0; round < 25; round++) {
        rrec *recs = malloc(sizeof *recs * RMAX);
        riv *iv = malloc(sizeof *iv * RMAX);
        int nr = 0, niv = 0;
        double first[RNP], last[RNP];
        for (int p = 0; p < RNP; p++) {
            int stack[16], sp = 0;
            int ticks = rand() % 4;
            first[p] = ticks * 0.125;
            int steps = 10 + rand() % 40;
            for (int s = 0; s < steps || sp > 0; s++) {
                rrec *r = &recs[nr++];
                memset(r, 0, sizeof *r);
                r->proc = p;
                r->time = ticks * 0.125;
                r->peer = -1;
                int what = rand() % 6;
                if (s < steps && sp < 14 && what < 3) {
                    static const int pool[] = {0, 2, -21, -52, -402, -901, -785};
                    int e = pool[rand() % 7];
                    r->rectype = -3;
                    r->event = e;
                    if (e == -21) { /* mostly to the left neighbour, which mostly receives from its right */
                        r->peer = rand() % 4 ? (p + RNP - 1) % RNP : rand() % RNP;
                        r->tag = rand() % 2;
                        r->bytes = 1 + rand() % 100;
                    }
                    iv[niv] = (riv){p, e, r->time, -1};
                    stack[sp++] = niv++;
                } else if (sp > 0 && what < 5) {
                    int k = stack[--sp];
                    r->rectype = -4;
                    r->event = iv[k].event;
                    iv[k].exit = r->time;
                    if (r->event == -52) {
                        r->peer = rand() % 4 ? (p + 1) % RNP : rand() % RNP;
                        r->tag = rand() % 2;
                        r->bytes = 1 + rand() % 100;
                    }
                } else {
                    r->rectype = -2;
                    r->event = -904;
                }
                ticks += rand() % 3;
            }
            last[p] = recs[nr - 1].time;
        }
        /* stable merge by time */
        for (int i = 1; i < nr; i++)
            for (int j = i; j > 0 && recs[j - 1].time > recs[j].time; j--) {
                rrec t = recs[j];
                recs[j] = recs[j - 1];
                recs[j - 1] = t;
            }
        size_t cap = (size_t)nr * 80 + 1;
        char *text = malloc(cap), *w = text;
        for (int i = 0; i < nr; i++) {
            const rrec *r = &recs[i];
            if (r->peer >= 0)
                w += sprintf(w, "%d %d %.6f %d 0 3 2 %d %d %d\n", r->rectype, r->event, r->time, r->proc,
                             r->bytes, r->tag, r->peer);
            else
                w += sprintf(w, "%d %d %.6f %d 0 0\n", r->rectype, r->event, r->time, r->proc);
        }
        char *path = rt_test_write(text, (size_t)(w - text));
        free(text);

        /* the model: messages paired in file order, FIFO per (src, dst, tag) */
        int64_t m_msgs = 0, m_tach = 0, m_pending = 0;
        int64_t sent[RNP] = {0}, recvd[RNP] = {0}, count[RNP][3] = {{0}};
        double sent_b[RNP] = {0}, recv_b[RNP] = {0};
        int *used = calloc((size_t)nr, sizeof *used);
        for (int i = 0; i < nr; i++) {
            const rrec *r = &recs[i];
            if (r->rectype == -3)
                count[r->proc][r->event == -21 ? 0 : r->event == -52 ? 1 : 2]++;
            int is_send = r->rectype == -3 && r->event == -21, is_recv = r->rectype == -4 && r->event == -52;
            if (!is_send && !is_recv)
                continue;
            int src = is_send ? r->proc : r->peer, dst = is_send ? r->peer : r->proc;
            if (is_send) {
                sent[r->proc]++;
                sent_b[r->proc] += r->bytes;
            } else {
                recvd[r->proc]++;
                recv_b[r->proc] += r->bytes;
            }
            int j;
            for (j = 0; j < i; j++) { /* the oldest unmatched opposite on this channel */
                const rrec *q = &recs[j];
                if (used[j] || q->tag != r->tag)
                    continue;
                int q_send = q->rectype == -3 && q->event == -21, q_recv = q->rectype == -4 && q->event == -52;
                if (is_recv && q_send && q->proc == src && q->peer == dst)
                    break;
                if (is_send && q_recv && q->proc == dst && q->peer == src)
                    break;
            }
            if (j < i) {
                used[j] = used[i] = 1;
                m_msgs++;
                if (is_send)
                    m_tach += recs[j].time < r->time;
            }
        }
        for (int i = 0; i < nr; i++)
            if (!used[i] && recs[i].rectype == -3 && recs[i].event == -21)
                m_pending++;
        free(used);

        rt_err err;
        rt_tsource *src = rt_tsource_open(path, NULL, &err);
        if (!src)
            fail_msg("%s", err.msg);
        rt_replay *rp = rt_replay_new(src, NULL, &err);
        assert_int_equal(rt_replay_run(rp, &err), RT_OK);
        assert_int_equal(rt_replay_records(rp), nr);
        rt_replay_totals tot;
        rt_replay_totals_get(rp, &tot);
        if (tot.messages != m_msgs || tot.tachyons != m_tach || tot.pending != m_pending)
            fail_msg("round %d: messages %lld tachyons %lld pending %lld, model %lld %lld %lld", round,
                     (long long)tot.messages, (long long)tot.tachyons, (long long)tot.pending,
                     (long long)m_msgs, (long long)m_tach, (long long)m_pending);
        all_msgs += m_msgs;
        all_tach += m_tach;
        all_pending += m_pending;
        double t0, t1;
        rt_replay_span(rp, &t0, &t1);
        for (int p = 0; p < RNP; p++) {
            const rt_replay_proc *pp = rt_replay_proc_get(rp, p);
            double want[RT_NSTATES];
            slow_states(iv, niv, p, first[p] < pp->first ? pp->first : first[p], last[p], t0, t1, want);
            for (int s = 0; s < RT_NSTATES; s++)
                if (fabs(want[s] - pp->time_in[s]) > 1e-9)
                    fail_msg("round %d proc %d %s: model %.6f replay %.6f", round, p, rt_state_name(s), want[s],
                             pp->time_in[s]);
            assert_int_equal(pp->sent, sent[p]);
            assert_int_equal(pp->received, recvd[p]);
            assert_true(pp->sent_bytes == sent_b[p] && pp->received_bytes == recv_b[p]);
            const rt_event_stat *es = rt_replay_proc_events(rp, p);
            int64_t c_send = 0, c_recv = 0, c_other = 0;
            for (int k = 0; k < pp->nevents; k++) {
                if (es[k].event == -21)
                    c_send = es[k].count;
                else if (es[k].event == -52)
                    c_recv = es[k].count;
                else
                    c_other += es[k].count;
            }
            assert_int_equal(c_send, count[p][0]);
            assert_int_equal(c_recv, count[p][1]);
            assert_int_equal(c_other, count[p][2]);
        }
        rt_replay_free(rp);
        rt_tsource_free(src);
        rt_test_remove(path);
        free(recs);
        free(iv);
    }
    /* the rounds exercised pairing, tachyons and messages left pending */
    printf("random traces: %lld messages, %lld tachyons, %lld pending\n", (long long)all_msgs,
           (long long)all_tach, (long long)all_pending);
    assert_true(all_msgs > 50 && all_tach > 0 && all_pending > 0);
}

/* ---- the dispatcher on bad input ---- */

static void expect_open_error(const char *path, const char *format, int status, const char *needle)
{
    rt_err err;
    rt_err_clear(&err);
    rt_tsource *s = rt_tsource_open(path, format, &err);
    if (s)
        fail_msg("%s opened as %s", path, s->ops->format);
    assert_int_equal(err.status, status);
    if (!strstr(err.msg, needle))
        fail_msg("'%s' does not contain '%s'", err.msg, needle);
    assert_null(strchr(err.msg, '\n'));
}

static void test_dispatcher_bad_input(void **state)
{
    (void)state;
    char dir[] = "/tmp/rt_tsource_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[512], q[512];
    /* a Paraver .pcf next to its trace */
    snprintf(p, sizeof p, "%s/run.pcf", dir);
    FILE *f = fopen(p, "w");
    fputs("DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n\nSTATES\n0    Idle\n", f);
    fclose(f);
    snprintf(q, sizeof q, "%s/run.prv", dir);
    f = fopen(q, "w");
    fputs("#Paraver (01/01/2000 at 00:00):100:1(1):1:1(1:1)\n", f);
    fclose(f);
    char want[600];
    snprintf(want, sizeof want, "Paraver companion file (state and event names), not a trace; open %s instead", q);
    expect_open_error(p, NULL, RT_EFORMAT, want);
    expect_open_error(p, NULL, RT_EFORMAT, p); /* names the file */
    /* a .row */
    snprintf(p, sizeof p, "%s/run.row", dir);
    f = fopen(p, "w");
    fputs("LEVEL CPU SIZE 1\n1.cpu\n", f);
    fclose(f);
    expect_open_error(p, NULL, RT_EFORMAT, "Paraver companion file (processor names)");
    /* an OTF2 archive's parts */
    snprintf(p, sizeof p, "%s/traces.otf2", dir);
    f = fopen(p, "wb");
    fwrite("\x03" "BOTF2\x00\x03", 1, 8, f);
    fclose(f);
    snprintf(p, sizeof p, "%s/traces", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/traces/0.evt", dir);
    f = fopen(p, "wb");
    fwrite("\x03" "B\x01\x00\x00\x00", 1, 6, f);
    fclose(f);
    snprintf(want, sizeof want, "part of an OTF2 archive, not a trace by itself; open %s/traces.otf2 instead", dir);
    expect_open_error(p, NULL, RT_EFORMAT, want);
    /* a directory without an anchor */
    snprintf(p, sizeof p, "%s/traces", dir);
    expect_open_error(p, NULL, RT_EFORMAT, "a directory without an OTF2 anchor");
    /* unknown content, an empty file, a missing file, an unknown format name */
    snprintf(p, sizeof p, "%s/notes.txt", dir);
    f = fopen(p, "w");
    fputs("hello world\nthis is no trace\n", f);
    fclose(f);
    expect_open_error(p, NULL, RT_EFORMAT, "not a message-passing trace retrace reads");
    snprintf(q, sizeof q, "%s/empty.trf", dir);
    fclose(fopen(q, "w"));
    expect_open_error(q, NULL, RT_EFORMAT, "empty file");
    snprintf(q, sizeof q, "%s/missing.trf", dir);
    expect_open_error(q, NULL, RT_EIO, "No such file");
    expect_open_error(p, "vampir", RT_EINVAL, "unknown trace format 'vampir'");
    /* detection names: companions, the readers' names */
    const char *name;
    snprintf(p, sizeof p, "%s/run.pcf", dir);
    assert_int_equal(rt_tsource_detect(p, &name, NULL, 0), RT_OK);
    assert_string_equal(name, "paraver-pcf");
    /* a .pcf section header stands alone on its line: "STATES 10" (a PES state, say) is no companion */
    snprintf(p, sizeof p, "%s/states.pes", dir);
    f = fopen(p, "w");
    fputs("STATES 10\nA 20\n", f);
    fclose(f);
    assert_int_equal(rt_tsource_detect(p, &name, NULL, 0), RT_OK);
    assert_null(name);
        /* a PICL line cut by the 4096-byte prefix: only the prefix is read */
    snprintf(p, sizeof p, "%s/long.trf", dir);
    f = fopen(p, "w");
    fputs("-3 1 0.5 0 0 3000", f);
    for (int i = 0; i < 3000; i++)
        fputs(" 7", f);
    fputs("\n", f);
    fclose(f);
    assert_int_equal(rt_tsource_detect(p, &name, NULL, 0), RT_OK);
    assert_string_equal(name, "picl-new");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/*
 * Regions of different groups nest independently (a Pajé container with two
 * state types): closing the outer one of another group is no warning; closing
 * out of order within one group still is.
 */
typedef struct closed_list {
    int n;
    int event[8], proc[8];
    double exit[8];
} closed_list;

static void note_interval(void *ud, const rt_interval *iv)
{
    closed_list *c = ud;
    if (c->n < 8) {
        c->event[c->n] = iv->event;
        c->proc[c->n] = iv->proc;
        c->exit[c->n++] = iv->exit;
    }
}

static void test_out_of_order_by_group(void **state)
{
    (void)state;
    closed_list closed = {0};
    rt_replay_opts o = {.on_interval = note_interval, .ud = &closed};
    rt_replay *rp = rt_replay_new(NULL, &o, NULL);
    assert_non_null(rp);
    rt_tdefs *d = rt_replay_defs(rp);
    assert_int_equal(rt_tdefs_add_region(d, 1, "booked", "PM state", RT_TC_USER), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, 2, "normal", "SERVICE state", RT_TC_USER), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, 3, "free", "PM state", RT_TC_USER), RT_OK);
    const rt_tevent evs[] = {
        mk(RT_TE_ENTER, 0, 0, 1), mk(RT_TE_ENTER, 0, 1, 2), mk(RT_TE_LEAVE, 0, 2, 1), /* other group: quiet */
        mk(RT_TE_ENTER, 0, 3, 1), mk(RT_TE_ENTER, 0, 4, 3), mk(RT_TE_LEAVE, 0, 5, 1), /* same group: warned */
        mk(RT_TE_LEAVE, 0, 6, 3), mk(RT_TE_LEAVE, 0, 7, 2),
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        assert_int_equal(rt_replay_feed_event(rp, &evs[i], NULL), RT_OK);
    assert_int_equal(rt_replay_finish(rp, NULL), RT_OK);
    assert_int_equal(rt_replay_nwarnings(rp), 1);
    assert_non_null(strstr(rt_replay_warning(rp, 0), "exit of booked at 5.000000"));
    assert_non_null(strstr(rt_replay_warning(rp, 0), "(free still open inside it, left open)"));
    /* the rule for pairs that do not nest: booked closed alone at 5, free left open to its own exit at 6 */
    assert_int_equal(closed.n, 4);
    assert_int_equal(closed.event[1], 1);
    assert_float_equal(closed.exit[1], 5, 0);
    assert_int_equal(closed.event[2], 3);
    assert_float_equal(closed.exit[2], 6, 0);
    rt_replay_totals t;
    rt_replay_totals_get(rp, &t);
    assert_int_equal(t.unnested_exits, 1); /* counted once: the other group's interleaving is not */
    assert_int_equal(t.unmatched_exits, 0);
    assert_int_equal(t.reordered_exits, 0); /* free's exit came later, not at the same time */
    rt_replay_free(rp);
}

/*
 * Same-time exits in the wrong order (mpicl-10: a user event's exit written
 * before the exit of the barrier inside it, both at one time stamp): the inner
 * exit is applied first, the intervals nest, no warning; counted.
 */
static void test_same_time_exits(void **state)
{
    (void)state;
    closed_list closed = {0};
    rt_replay_opts o = {.on_interval = note_interval, .ud = &closed};
    rt_replay *rp = rt_replay_new(NULL, &o, NULL);
    assert_non_null(rp);
    rt_tdefs *d = rt_replay_defs(rp);
    assert_int_equal(rt_tdefs_add_region(d, 4, "user event 4", "user", RT_TC_USER), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, -402, "barrier", "sync", RT_TC_SYNC), RT_OK);
    const rt_tevent evs[] = {
        mk(RT_TE_ENTER, 0, 1, 4), mk(RT_TE_ENTER, 0, 2, -402),
        mk(RT_TE_ENTER, 1, 2.5, 4), /* another processor between the two exits */
        mk(RT_TE_LEAVE, 0, 3, 4), mk(RT_TE_LEAVE, 1, 3, 4), mk(RT_TE_LEAVE, 0, 3, -402),
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        assert_int_equal(rt_replay_feed_event(rp, &evs[i], NULL), RT_OK);
    assert_int_equal(rt_replay_finish(rp, NULL), RT_OK);
    assert_int_equal(rt_replay_nwarnings(rp), 0);
    /* post-order on processor 0: the barrier (inside event 4) closes before event 4 */
    int k0 = -1, k4 = -1;
    for (int i = 0; i < closed.n; i++)
        if (closed.proc[i] == 0)
            *(closed.event[i] == -402 ? &k0 : &k4) = i;
    assert_true(k0 >= 0 && k4 > k0);
    const rt_replay_proc *p = rt_replay_proc_get(rp, 0);
    assert_float_equal(p->time_in[RT_STATE_IDLE], 1, 0); /* the barrier, 2..3 (the span starts at 1) */
    assert_float_equal(p->time_in[RT_STATE_BUSY], 1, 0);
    rt_replay_totals t;
    rt_replay_totals_get(rp, &t);
    assert_int_equal(t.reordered_exits, 1);
    assert_int_equal(t.unnested_exits, 0);
    rt_replay_free(rp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_picl_new_events),
        cmocka_unit_test(test_picl_old_events),
        cmocka_unit_test(test_picl_classes),
        cmocka_unit_test(test_replay_neutral_events),
        cmocka_unit_test(test_out_of_order_by_group),
        cmocka_unit_test(test_same_time_exits),
        cmocka_unit_test(test_replay_collective),
        cmocka_unit_test(test_replay_pulls_any_source),
        cmocka_unit_test(test_medea_neutral_equals_picl),
        cmocka_unit_test(test_real_picl_invariants),
        cmocka_unit_test(test_real_other_invariants),
        cmocka_unit_test(test_random_picl_vs_model),
        cmocka_unit_test(test_dispatcher_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
