/* Tests of the Paraver reader (core/trace/rt_paraver.c): a hand-written trace
 * whose exact event sequence is worked out below, the real qsort sample
 * against sums this test computes from the .prv text with its own parsing,
 * and every bad input the reader reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_paraver.h"
#include "rt_test.h"

#define FIX RETRACE_FIXTURES "/paraver/"
#define ST(s) RT_PARAVER_STATE_REGION(s)

/* One expected event: kind, processor, ticks, region, peer, tag, bytes, data[0]. */
typedef struct want {
    int kind, proc;
    int64_t ticks;
    int region, peer;
    int64_t tag;
    double bytes, d0;
} want;

enum { E = RT_TE_ENTER, L = RT_TE_LEAVE, S = RT_TE_SEND, R = RT_TE_RECV, M = RT_TE_MARKER };

static rt_tsource *open_ok(const char *path)
{
    rt_err err;
    rt_tsource *s = rt_paraver_open(path, &err);
    if (!s)
        fail_msg("%s", err.msg);
    return s;
}

static void check_sequence(rt_tsource *s, const want *w, size_t n)
{
    rt_tevent ev;
    rt_err err;
    for (size_t i = 0; i < n; i++) {
        int st = rt_tsource_next(s, &ev, &err);
        if (st != RT_OK)
            fail_msg("event %zu: status %d %s", i, st, err.msg);
        if (ev.kind != w[i].kind || ev.proc != w[i].proc || ev.ticks != w[i].ticks || ev.region != w[i].region)
            fail_msg("event %zu: got %s p%d t%lld r%d, want %s p%d t%lld r%d", i, rt_te_kind_name(ev.kind), ev.proc,
                     (long long)ev.ticks, ev.region, rt_te_kind_name(w[i].kind), w[i].proc,
                     (long long)w[i].ticks, w[i].region);
        if (w[i].kind == S || w[i].kind == R) {
            assert_int_equal(ev.peer, w[i].peer);
            assert_int_equal(ev.tag, w[i].tag);
            assert_true(ev.bytes == w[i].bytes);
        }
        if (w[i].kind == M) {
            assert_int_equal(ev.ndata, 2);
            assert_true(ev.data[0] == w[i].d0);
            assert_true(ev.data[1] == (double)w[i].region);
        }
        assert_true(ev.time == (double)ev.ticks / 1e9); /* the header says _ns */
    }
    assert_int_equal(rt_tsource_next(s, &ev, &err), RT_EEOF);
}

/* The sequence of tests/fixtures/paraver/small.prv, worked out by hand:
 * processors 0 = task 1 thread 1, 1 = task 1 thread 2, 2 = task 2 thread 1;
 * at equal times messages first, then leaves, then what starts there. */
static const want small_events[] = {
    {E, 0, 0, ST(1), 0, 0, 0, 0},
    {E, 1, 0, ST(0), 0, 0, 0, 0},
    {E, 2, 0, ST(1), 0, 0, 0, 0},
    {M, 0, 5, 60000019, 0, 0, 0, 1},
    {M, 0, 5, 50000001, 0, 0, 0, 2},
    {L, 0, 10, ST(1), 0, 0, 0, 0},
    {E, 0, 10, ST(10), 0, 0, 0, 0},
    {S, 0, 12, 0, 2, 7, 64, 0},      /* physical send, not the logical 10 */
    {L, 2, 20, ST(1), 0, 0, 0, 0},
    {E, 2, 20, ST(3), 0, 0, 0, 0},
    {R, 2, 30, 0, 0, 7, 64, 0},      /* before the leave of the wait it ends */
    {L, 0, 30, ST(10), 0, 0, 0, 0},
    {L, 2, 30, ST(3), 0, 0, 0, 0},
    {E, 0, 30, ST(1), 0, 0, 0, 0},
    {E, 2, 30, ST(1), 0, 0, 0, 0},
    {L, 0, 40, ST(1), 0, 0, 0, 0},
    {L, 2, 40, ST(1), 0, 0, 0, 0},
    {M, 2, 40, 99999, 0, 0, 0, 5},
    {L, 1, 50, ST(0), 0, 0, 0, 0},
};

static void test_small_sequence(void **state)
{
    (void)state;
    rt_tsource *s = open_ok(FIX "small.prv");
    check_sequence(s, small_events, sizeof small_events / sizeof *small_events);
    const rt_paraver_stats *st = rt_paraver_stats_of(s);
    assert_non_null(st);
    assert_int_equal(st->nappl, 1);
    assert_int_equal(st->ntasks, 2);
    assert_int_equal(st->nthreads, 3);
    assert_int_equal(st->ftime, 100);
    assert_int_equal(st->resolution, 1000000000);
    assert_int_equal(st->states, 8);
    assert_int_equal(st->empty_states, 1);
    assert_int_equal(st->event_records, 2);
    assert_int_equal(st->event_pairs, 3);
    assert_int_equal(st->unknown_types, 2); /* 50000001 and 99999: not in small.pcf */
    assert_int_equal(st->comms, 1);
    assert_int_equal(st->global_ops, 1);
    assert_int_equal(st->other_records, 1);
    assert_int_equal(st->out_of_order, 0);
    assert_int_equal(s->skipped, 2);
    assert_int_equal(s->warnings, 0);
    assert_true(st->has_pcf && st->has_row);
    assert_int_equal(s->events, sizeof small_events / sizeof *small_events);

    /* a second pass gives the same events and counts */
    rt_err err;
    assert_int_equal(rt_tsource_rewind(s, &err), RT_OK);
    check_sequence(s, small_events, sizeof small_events / sizeof *small_events);
    assert_int_equal(rt_paraver_stats_of(s)->states, 8);
    rt_tsource_free(s);
}

static void test_small_definitions(void **state)
{
    (void)state;
    rt_tsource *s = open_ok(FIX "small.prv");
    const rt_tdefs *d = s->defs;
    assert_int_equal(rt_tdefs_nprocs(d), 3);
    /* names from small.row, paths from the header */
    assert_string_equal(rt_tdefs_proc(d, 0)->name, "THREAD 1.1.1");
    assert_string_equal(rt_tdefs_proc(d, 1)->name, "THREAD 1.1.2");
    assert_string_equal(rt_tdefs_proc(d, 2)->path, "appl 1/task 2/thread 1");
    const rt_tregion *r = rt_tdefs_region(d, ST(1));
    assert_non_null(r);
    assert_string_equal(r->name, "Running");
    assert_int_equal(r->cls, RT_TC_USER);
    assert_string_equal(rt_tdefs_region(d, ST(0))->name, "Idle");
    assert_int_equal(rt_tdefs_region(d, ST(0))->cls, RT_TC_IDLE);
    assert_int_equal(rt_tdefs_region(d, ST(3))->cls, RT_TC_WAIT);
    assert_int_equal(rt_tdefs_region(d, ST(10))->cls, RT_TC_SEND); /* "Inmediate Send", Extrae's spelling */
    assert_string_equal(rt_tdefs_region(d, 60000019)->name, "User functions");
    assert_null(rt_tdefs_region(d, 50000001));
    assert_int_equal(rt_tdefs_ncomms(d), 1);
    const rt_tcomm *c = rt_tdefs_comm(d, 1);
    assert_non_null(c);
    assert_int_equal(c->size, 2);
    assert_int_equal(c->members[0], 0);
    assert_int_equal(c->members[1], 2); /* task 2's first thread */
    assert_int_equal(rt_tdefs_resolution(d), 1000000000);
    rt_tsource_free(s);
}

static void test_sniff(void **state)
{
    (void)state;
    const char *prv = "#Paraver (26/01/04 at 16:35):260199:4:1:4(1:1,1:2,1:3,1:4),8\n";
    const char *nf = "new format\n#Paraver (26/01/04 at 16:35):10_ns:0:1:1(1:1)\n";
    assert_int_equal(rt_paraver_sniff("a.prv", (const unsigned char *)prv, strlen(prv)), 1);
    assert_int_equal(rt_paraver_sniff("a", (const unsigned char *)nf, strlen(nf)), 1);
    assert_int_equal(rt_paraver_sniff("a.pcf", (const unsigned char *)prv, strlen(prv)), 0);
    assert_int_equal(rt_paraver_sniff("a.row", (const unsigned char *)prv, strlen(prv)), 0);
    const char *pcf = "STATES\n0    Idle\n";
    assert_int_equal(rt_paraver_sniff("a.prv", (const unsigned char *)pcf, strlen(pcf)), 0);
    assert_int_equal(rt_paraver_sniff("a.prv", (const unsigned char *)prv, 5), 0);
    assert_int_equal(rt_paraver_sniff("dir", NULL, 0), 0);
}

static void test_state_classes(void **state)
{
    (void)state;
    static const struct { const char *name; int cls; } cases[] = {
        {"Running", RT_TC_USER},           {"Idle", RT_TC_IDLE},
        {"Not created", RT_TC_IDLE},       {"Waiting a message", RT_TC_WAIT},
        {"Bloking Send", RT_TC_WAIT},      {"Blocking Send", RT_TC_WAIT},
        {"Thd. Synchr.", RT_TC_SYNC},      {"Test/Probe", RT_TC_RECV},
        {"Sched. and Fork/Join", RT_TC_SYSTEM}, {"Wait/WaitAll", RT_TC_WAIT},
        {"Blocked", RT_TC_WAIT},           {"Inmediate Send", RT_TC_SEND},
        {"Inmediate Receive", RT_TC_RECV}, {"I/O", RT_TC_IO},
        {"Group Communication", RT_TC_COLLECTIVE}, {"Tracing Disabled", RT_TC_TRACING},
        {"MPI_Barrier", RT_TC_SYNC},       {"Some runtime thing", RT_TC_SYSTEM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (rt_paraver_state_class(cases[i].name) != cases[i].cls)
            fail_msg("%s: got %s, want %s", cases[i].name, rt_tclass_name(rt_paraver_state_class(cases[i].name)),
                     rt_tclass_name(cases[i].cls));
}

/* ---- the real sample against the .prv's own numbers ---- */

enum { QT = 4, QS = 16, QC = 64, QM = 256 };

/* What the test reads from the .prv text itself: per task and state the sum of
 * end - begin, and the messages. */
typedef struct qsort_truth {
    int64_t state_sum[QT][QS];
    int ncomm;
    struct { int from, to; int64_t psend, precv, size, tag; int seen_send, seen_recv; } comm[QC];
    int nmark[QT];
    struct { int64_t time, type, value; } mark[QT][QM]; /* each task's event pairs in file order */
} qsort_truth;

static void parse_truth(const char *path, qsort_truth *q)
{
    memset(q, 0, sizeof *q);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        long long a[16];
        if (line[0] == '1' && line[1] == ':') {
            assert_int_equal(sscanf(line, "1:%lld:%lld:%lld:%lld:%lld:%lld:%lld", &a[0], &a[1], &a[2], &a[3],
                                    &a[4], &a[5], &a[6]),
                             7);
            assert_true(a[2] >= 1 && a[2] <= QT && a[6] >= 0 && a[6] < QS);
            q->state_sum[a[2] - 1][a[6]] += a[5] - a[4];
        } else if (line[0] == '3' && line[1] == ':') {
            assert_int_equal(sscanf(line, "3:%lld:%lld:%lld:%lld:%lld:%lld:%lld:%lld:%lld:%lld:%lld:%lld:%lld:%lld",
                                    &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7], &a[8], &a[9], &a[10],
                                    &a[11], &a[12], &a[13]),
                             14);
            assert_true(q->ncomm < QC);
            q->comm[q->ncomm].from = (int)a[2] - 1;
            q->comm[q->ncomm].to = (int)a[8] - 1;
            q->comm[q->ncomm].psend = a[5];
            q->comm[q->ncomm].precv = a[11];
            q->comm[q->ncomm].size = a[12];
            q->comm[q->ncomm].tag = a[13];
            q->ncomm++;
        } else if (line[0] == '2' && line[1] == ':') {
            int used = 0, k = 0;
            assert_int_equal(sscanf(line, "2:%lld:%lld:%lld:%lld:%lld%n", &a[0], &a[1], &a[2], &a[3], &a[4], &used), 5);
            int t = (int)a[2] - 1;
            const char *c = line + used;
            long long type, value;
            while (sscanf(c, ":%lld:%lld%n", &type, &value, &k) == 2) {
                assert_true(t >= 0 && t < QT && q->nmark[t] < QM);
                q->mark[t][q->nmark[t]].time = a[4];
                q->mark[t][q->nmark[t]].type = type;
                q->mark[t][q->nmark[t]++].value = value;
                c += k;
            }
        }
    }
    fclose(f);
}

static void test_qsort(void **state)
{
    (void)state;
    const char *shared = getenv("RETRACE_SHARED");
    char path[1024];
    if (!shared) {
        print_message("RETRACE_SHARED not set: the qsort sample is not available, skipped\n");
        skip();
    }
    snprintf(path, sizeof path, "%s/paraver/qsort_beo3.prv", shared);
    FILE *probe = fopen(path, "r");
    if (!probe) {
        print_message("%s absent: skipped\n", path);
        skip();
    }
    fclose(probe);
    qsort_truth q;
    parse_truth(path, &q);
    assert_int_equal(q.ncomm, 33);

    rt_tsource *s = open_ok(path);
    assert_int_equal(rt_tdefs_nprocs(s->defs), QT);
    assert_string_equal(rt_tdefs_proc(s->defs, 2)->name, "task 3 thread 1");
    assert_int_equal(rt_tdefs_resolution(s->defs), 1000000); /* no unit in the header: microseconds */
    int64_t sum[QT][QS] = {{0}};
    int open_region[QT], nopen[QT] = {0};
    int64_t opened[QT];
    int64_t last = INT64_MIN;
    int sends = 0, recvs = 0, marks[QT] = {0};
    rt_tevent ev;
    rt_err err;
    int st;
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK) {
        assert_true(ev.proc >= 0 && ev.proc < QT);
        assert_true(ev.ticks >= last); /* global time order */
        last = ev.ticks;
        assert_true(ev.time == (double)ev.ticks / 1e6);
        int p = ev.proc;
        if (ev.kind == RT_TE_ENTER) {
            assert_int_equal(nopen[p], 0); /* Paraver states never nest */
            open_region[p] = ev.region;
            opened[p] = ev.ticks;
            nopen[p] = 1;
        } else if (ev.kind == RT_TE_LEAVE) {
            assert_int_equal(nopen[p], 1);
            assert_int_equal(ev.region, open_region[p]);
            sum[p][-1 - ev.region] += ev.ticks - opened[p];
            nopen[p] = 0;
        } else if (ev.kind == RT_TE_MARKER || ev.kind == RT_TE_COUNTER) { /* per processor, the file's order */
            assert_true(marks[p] < q.nmark[p]);
            assert_int_equal(ev.ticks, q.mark[p][marks[p]].time);
            /* the .pcf's types without VALUES are counters (the hardware counters 4200xxxx and I/O size) */
            int64_t type = q.mark[p][marks[p]].type;
            int counter = type == 40000011 || (type >= 42000000 && type < 43000000);
            assert_int_equal(ev.kind == RT_TE_COUNTER, counter);
            if (counter) {
                assert_int_equal(rt_tdefs_counter_at(s->defs, ev.region)->id, type);
                assert_int_equal(ev.ndata, 1);
            } else
                assert_true(ev.data[1] == (double)type);
            assert_true(ev.data[0] == (double)q.mark[p][marks[p]].value);
            marks[p]++;
        } else if (ev.kind == RT_TE_SEND || ev.kind == RT_TE_RECV) {
            /* the message ends inside a state: a receive comes before the leave of the wait it ends */
            assert_int_equal(nopen[p], 1);
            int found = 0;
            for (int i = 0; i < q.ncomm && !found; i++) {
                if (ev.kind == RT_TE_SEND && !q.comm[i].seen_send && q.comm[i].from == p &&
                    q.comm[i].to == ev.peer && q.comm[i].psend == ev.ticks && q.comm[i].size == (int64_t)ev.bytes &&
                    q.comm[i].tag == ev.tag)
                    found = q.comm[i].seen_send = 1;
                if (ev.kind == RT_TE_RECV && !q.comm[i].seen_recv && q.comm[i].to == p &&
                    q.comm[i].from == ev.peer && q.comm[i].precv == ev.ticks && q.comm[i].size == (int64_t)ev.bytes &&
                    q.comm[i].tag == ev.tag)
                    found = q.comm[i].seen_recv = 1;
            }
            if (!found)
                fail_msg("%s on %d at %lld matches no record", rt_te_kind_name(ev.kind), p, (long long)ev.ticks);
            sends += ev.kind == RT_TE_SEND;
            recvs += ev.kind == RT_TE_RECV;
        }
    }
    if (st != RT_EEOF)
        fail_msg("%s", err.msg);
    for (int p = 0; p < QT; p++)
        assert_int_equal(marks[p], q.nmark[p]);
    assert_int_equal(sends, 33);
    assert_int_equal(recvs, 33);
    for (int p = 0; p < QT; p++) {
        assert_int_equal(nopen[p], 0);
        for (int v = 0; v < QS; v++)
            if (sum[p][v] != q.state_sum[p][v])
                fail_msg("task %d state %d: reader %lld, .prv %lld", p + 1, v, (long long)sum[p][v],
                         (long long)q.state_sum[p][v]);
    }
    const rt_paraver_stats *ps = rt_paraver_stats_of(s);
    assert_int_equal(ps->comms, 33);
    assert_int_equal(ps->global_ops, 45);
    assert_int_equal(ps->states, 292);
    assert_int_equal(ps->out_of_order, 0);
    assert_int_equal(rt_tdefs_ncomms(s->defs), 8);
    const rt_tregion *bs = rt_tdefs_region(s->defs, ST(4));
    assert_string_equal(bs->name, "Bloking Send");
    assert_int_equal(bs->cls, RT_TC_WAIT);
    assert_int_equal(rt_tdefs_region(s->defs, ST(13))->cls, RT_TC_COLLECTIVE);
    assert_string_equal(rt_tdefs_region(s->defs, 50000002)->name, "MPI Collective Comm");
    rt_tsource_free(s);
}

/* ---- bad input ---- */

/* Read the whole trace in text; the status of the first failure (RT_EEOF when none), err filled. */
static int read_text(const char *text, char **pathp, rt_err *err, rt_tsource **keep)
{
    char *path = rt_test_write_text(text);
    *pathp = path;
    rt_tsource *s = rt_paraver_open(path, err);
    if (!s)
        return err->status;
    rt_tevent ev;
    int st;
    while ((st = rt_tsource_next(s, &ev, err)) == RT_OK)
        ;
    if (keep)
        *keep = s;
    else
        rt_tsource_free(s);
    return st;
}

/* The error for text is "PATH:" followed by want. */
static void expect_error(const char *text, const char *want)
{
    char *path;
    rt_err err;
    int st = read_text(text, &path, &err, NULL);
    char full[600];
    snprintf(full, sizeof full, "%s:%s", path, want);
    if (st != RT_EFORMAT || strcmp(err.msg, full) != 0)
        fail_msg("status %d, message\n  %s\nwant\n  %s", st, err.msg, full);
    rt_test_remove(path);
}

#define HDR "#Paraver (01/01/20 at 10:00):100:0:1:2(1:1,1:1)\n"

static void test_errors(void **state)
{
    (void)state;
    /* cut in the middle of a record */
    expect_error(HDR "1:1:1:1:1:0:10:1\n1:1:1:1:1:10:2", "3: state: missing (record cut short)");
    expect_error(HDR "1:1:1:1:1:0:10:1\n3:1:1:1:1:10:12:2:1:2:1:15:", "3: physical receive: missing (record cut short)");
    /* a header and nothing after it */
    expect_error(HDR, "1: records: none after the header (1 application, 2 tasks, 2 threads; file cut short?)");
    /* threads the header does not declare */
    expect_error(HDR "1:1:1:5:1:0:10:1\n", "2: task: 1:5:1 (appl:task:thread) not in the header (1 application, 2 tasks, 2 threads)");
    expect_error(HDR "2:1:1:1:2:0:10:1\n", "2: thread: 1:1:2 (appl:task:thread) not in the header (1 application, 2 tasks, 2 threads)");
    expect_error(HDR "3:1:1:1:1:10:12:2:2:2:1:15:30:64:7\n",
                 "2: receiver appl: 2:2:1 (appl:task:thread) not in the header (1 application, 2 tasks, 2 threads)");
    /* fields that are not numbers */
    expect_error(HDR "1:1:1:1:1:0:1x:1\n", "2: end: not an integer '1x'");
    expect_error(HDR "2:1:1:1:1:5:7:abc\n", "2: event value: not an integer 'abc'");
    expect_error(HDR "x:1:1:1:1:5:7:1\n", "2: record type: not an integer 'x'");
    expect_error(HDR "2:1:1:1:1:5\n", "2: event type: missing (record cut short)");
    expect_error(HDR "1:1:1:1:1:10:5:1\n", "2: end: 5 before begin 10");
    expect_error(HDR "1:1:1:1:1:0:5:1:9\n", "2: state: unexpected text after it '9'");
    /* bad headers */
    expect_error("#Paraver (01/01/20 at 10:00):100_xs:0:1:1(1:1)\n1:1:1:1:1:0:5:1\n",
                 "1: header: ftime: unknown time unit at '_xs:0:1:1(1:1)'");
    expect_error("#Paraver (01/01/20 at 10:00):100:0:1:2(1:1,1:1),2\nc:1:1:2:1:2\n",
                 "3: communicator: missing (the header announces 2)");
    expect_error("#Paraver (01/01/20 at 10:00):100:0:1:2(1:1\n", "1: header: threads: expected ',' at ''");
    expect_error("STATES\n0 Idle\n", "1: header: magic: not a Paraver trace (expected '#Paraver (') at 'STATES'");
}

/* Unknown record and event types are counted, not errors; no .pcf is a warning. */
static void test_counted_not_errors(void **state)
{
    (void)state;
    char *path;
    rt_err err;
    rt_tsource *s = NULL;
    int st = read_text(HDR "1:1:1:1:1:0:10:1\n2:1:1:1:1:3:77:1:78:2\n7:1:2:3\n5:9\n1:2:1:2:1:0:10:0\n", &path, &err,
                       &s);
    assert_int_equal(st, RT_EEOF);
    const rt_paraver_stats *ps = rt_paraver_stats_of(s);
    assert_int_equal(ps->unknown_types, 2);
    assert_int_equal(ps->other_records, 2);
    assert_int_equal(s->skipped, 2);
    assert_int_equal(s->events, 6); /* 2 enter + 2 leave + 2 markers */
    /* no .pcf beside the file: names "state N", classes of Extrae's numbering, a warning */
    assert_false(ps->has_pcf);
    assert_true(s->warnings >= 1);
    assert_non_null(strstr(ps->first_warning, "no .pcf"));
    const rt_tregion *r = rt_tdefs_region(s->defs, ST(1));
    assert_string_equal(r->name, "state 1");
    assert_int_equal(r->cls, RT_TC_USER);
    assert_int_equal(rt_tdefs_region(s->defs, ST(0))->cls, RT_TC_IDLE);
    assert_int_equal(rt_tdefs_resolution(s->defs), 1000000);
    rt_tsource_free(s);
    rt_test_remove(path);
}

static int warned;
static void on_warning(void *ud, const char *msg)
{
    (void)ud;
    (void)msg;
    warned++;
}

/* Threads with no records, records out of time order: warnings, not errors. */
static void test_warnings(void **state)
{
    (void)state;
    char *path = rt_test_write_text(HDR "1:1:1:1:1:5:10:1\n2:1:1:1:1:3:7:1\n");
    rt_err err;
    rt_tsource *s = rt_paraver_open(path, &err);
    assert_non_null(s);
    s->on_warning = on_warning;
    warned = 0;
    rt_tevent ev;
    int st;
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK)
        ;
    assert_int_equal(st, RT_EEOF);
    assert_int_equal(rt_paraver_stats_of(s)->out_of_order, 1);
    assert_int_equal(warned, 3); /* the missing .pcf (raised at open, handed over by the first next), the order,
                                    then task 2 without records */
    rt_tsource_free(s);
    rt_test_remove(path);
}

/* An Extrae-style header: CPUs per node, nanoseconds, two applications. */
static void test_two_applications(void **state)
{
    (void)state;
    char *path = rt_test_write_text("#Paraver (15/03/2021 at 11:05):99_ns:1(4):2:1(2:1):2(1:1,1:1)\n"
                                    "1:1:1:1:2:0:10:1\n1:4:2:2:1:5:9:1\n");
    rt_err err;
    rt_tsource *s = rt_paraver_open(path, &err);
    if (!s)
        fail_msg("%s", err.msg);
    assert_int_equal(rt_tdefs_nprocs(s->defs), 4);
    assert_string_equal(rt_tdefs_proc(s->defs, 1)->name, "appl 1 task 1 thread 2");
    assert_string_equal(rt_tdefs_proc(s->defs, 3)->name, "appl 2 task 2 thread 1");
    assert_int_equal(rt_tdefs_resolution(s->defs), 1000000000);
    static const want w[] = {{E, 1, 0, ST(1), 0, 0, 0, 0}, {E, 3, 5, ST(1), 0, 0, 0, 0},
                             {L, 3, 9, ST(1), 0, 0, 0, 0}, {L, 1, 10, ST(1), 0, 0, 0, 0}};
    check_sequence(s, w, sizeof w / sizeof *w);
    rt_tsource_free(s);
    rt_test_remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_sequence),
        cmocka_unit_test(test_small_definitions),
        cmocka_unit_test(test_sniff),
        cmocka_unit_test(test_state_classes),
        cmocka_unit_test(test_qsort),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_counted_not_errors),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_two_applications),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
