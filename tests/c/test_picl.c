/* Tests of the PICL readers and the replay engine in C: the seed's Table 5
 * records, reader errors, old -> new translation, write/read round trips, and
 * the engine's state times and message pairing against slow obviously-right
 * models on random traces. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_test.h"

#include "rt_picl.h"
#include "rt_picl_source.h"
#include "rt_replay.h"

/* Replay one new-format record as the PICL source gives it: its events, one record of the
 * file (the copy alternates between two buffers so consecutive records never share one). */
static int feed_record(rt_replay *rp, const rt_picl_record *rec, rt_err *err)
{
    static rt_picl_record buf[2];
    static int k;
    k ^= 1;
    buf[k] = *rec;
    rt_tevent evs[2];
    int n, st = rt_picl_record_events(rt_replay_defs(rp), &buf[k], evs, &n, err);
    for (int i = 0; st == RT_OK && i < n; i++)
        st = rt_replay_feed_event(rp, &evs[i], err);
    return st;
}

static void parse_ok(int format, const char *line, rt_picl_record *rec)
{
    char why[256] = "";
    int r = rt_picl_parse_line(format, line, strlen(line), rec, why, sizeof why);
    if (r != 1)
        fail_msg("'%s' did not parse: %s", line, why);
}

static void parse_bad(int format, const char *line, const char *want)
{
    rt_picl_record rec;
    char why[256] = "";
    int r = rt_picl_parse_line(format, line, strlen(line), &rec, why, sizeof why);
    assert_int_equal(r, -1);
    assert_string_equal(why, want);
}

static void test_table5_records(void **state)
{
    (void)state;
    rt_picl_record rec;
    parse_ok(RT_PICL_NEW, "-4 -52 0.000516 6 0 3 2 8 0 0", &rec);
    assert_int_equal(rec.rectype, RT_PICL_EXIT);
    assert_int_equal(rec.event, -52);
    assert_true(rec.time == 0.000516);
    assert_int_equal(rec.proc, 6);
    assert_int_equal(rec.ndata, 3);
    assert_int_equal(rec.desc, 2);
    double bytes;
    long tag, peer;
    assert_int_equal(rt_picl_message_fields(&rec, &bytes, &tag, &peer), 2);
    assert_true(bytes == 8 && tag == 0 && peer == 0);
    parse_ok(RT_PICL_NEW, "-3 -21 0.001665 6 0 3 2 8 1 7", &rec);
    assert_int_equal(rt_picl_message_fields(&rec, &bytes, &tag, &peer), 1);
    assert_int_equal(rec.textlen, 5);
    assert_memory_equal(rec.text, "8 1 7", 5);
    assert_true(bytes == 8 && tag == 1 && peer == 7);
    parse_ok(RT_PICL_NEW, "-4 -21 0.001711 6 0 0", &rec);
    assert_int_equal(rec.ndata, 0);
    parse_ok(RT_PICL_NEW, "-104 -1 0.115767 3 0 2 \"%d%d\" -51 5200 -52 2400 ", &rec);
    assert_string_equal(rec.fmt, "%d%d");
    assert_int_equal(rec.ndata, 4);
    assert_true(rec.data[3] == 2400);
    parse_ok(RT_PICL_OLD, "8 3 250 1 0 77 64", &rec);
    assert_int_equal(rec.rectype, RT_PICL_OLD_RECV_WAKING);
    assert_true(fabs(rec.time - 3.00025) < 1e-12);
}

static void test_parse_errors(void **state)
{
    (void)state;
    parse_bad(RT_PICL_NEW, "-3 -21 1.0 0 0 3 2 8 1", "data: 3 values expected, found 2");
    parse_bad(RT_PICL_NEW, "-3 -21 1.0 0 0 0 2 8", "data: 0 values expected, found 1");
    parse_bad(RT_PICL_NEW, "-1 -21 1.0 0 0 0", "record type: -1 is not a new-format record type (<= -2)");
    parse_bad(RT_PICL_NEW, "-3 -21 1.0 -4 0 0", "processor: -4 out of range (0..65535)");
    parse_bad(RT_PICL_OLD, "4 0 0 70000 1 2 3", "node: 70000 out of range (0..65535)");
    parse_bad(RT_PICL_NEW, "-3 -21 1.0 0 0 -1", "data count: -1 is negative");
    parse_bad(RT_PICL_NEW, "-3 -21 1.0 0 0 1 \"%d", "descriptor: unterminated quoted format");
    parse_bad(RT_PICL_NEW, "-3 -21 1.0 0 0 1 \"x\" 3", "descriptor: format \"x\" has no conversion");
    parse_bad(RT_PICL_NEW, "-3 -21 1.0 0 0 1 2 zz", "data: value 1 'zz' is not a number");
    parse_bad(RT_PICL_OLD, "0 0 0 0", "code: 0 is not an old-format record code (>= 1)");
    parse_bad(RT_PICL_OLD, "21 0 0 0", "fields: 0 found, block records need the block type");
}

static void test_reader_skips_and_strict(void **state)
{
    (void)state;
    char *path = rt_test_write_text("# a comment\n\n-3 1 0.5 0 0 0\n-3 1 bad 0 0 0\n-4 1 0.7 0 0 0\n");
    rt_err err;
    rt_picl *r = rt_picl_open(path, NULL, &err);
    assert_non_null(r);
    assert_int_equal(rt_picl_format(r), RT_PICL_NEW);
    rt_picl_record rec;
    assert_int_equal(rt_picl_next(r, &rec, &err), RT_OK);
    assert_int_equal(rec.line, 3);
    assert_int_equal(rt_picl_next(r, &rec, &err), RT_OK);
    assert_int_equal(rec.line, 5);
    assert_int_equal(rt_picl_next(r, &rec, &err), RT_EEOF);
    assert_int_equal(rt_picl_skipped(r), 1);
    rt_picl_free(r);

    rt_picl_opts o = {.strict = 1};
    r = rt_picl_open(path, &o, &err);
    assert_non_null(r);
    assert_int_equal(rt_picl_next(r, &rec, &err), RT_OK);
    assert_int_equal(rt_picl_next(r, &rec, &err), RT_EFORMAT);
    char want[512];
    snprintf(want, sizeof want, "%s:4: time: 'bad' is not a number", path);
    assert_string_equal(err.msg, want);
    rt_picl_free(r);
    rt_test_remove(path);

    path = rt_test_write_text("\n\n");
    assert_null(rt_picl_open(path, NULL, &err));
    snprintf(want, sizeof want, "%s: empty trace: no record", path);
    assert_string_equal(err.msg, want);
    rt_test_remove(path);
}

static void test_xlate(void **state)
{
    (void)state;
    rt_picl_xlate *x = rt_picl_xlate_new();
    rt_picl_record old, out[2];
    int n;
    parse_ok(RT_PICL_OLD, "4 2 0 0 1 77 64", &old);
    assert_int_equal(rt_picl_xlate_record(x, &old, out, &n), RT_OK);
    assert_int_equal(n, 2);
    assert_int_equal(out[0].rectype, RT_PICL_ENTRY);
    assert_int_equal(out[0].event, -21);
    assert_true(out[0].data[0] == 64 && out[0].data[1] == 77 && out[0].data[2] == 1);
    assert_int_equal(out[1].rectype, RT_PICL_EXIT);
    /* recv_waking then the same recv: one receive */
    parse_ok(RT_PICL_OLD, "8 3 0 1 0 77 64", &old);
    rt_picl_xlate_record(x, &old, out, &n);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].rectype, RT_PICL_EXIT);
    assert_int_equal(out[0].event, -52);
    assert_true(out[0].data[2] == 0);
    parse_ok(RT_PICL_OLD, "6 3 0 1 0 77 64", &old);
    rt_picl_xlate_record(x, &old, out, &n);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].rectype, RT_PICL_MARK);
    /* a later recv is a receive of its own */
    parse_ok(RT_PICL_OLD, "6 4 0 1 0 77 64", &old);
    rt_picl_xlate_record(x, &old, out, &n);
    assert_int_equal(n, 2);
    assert_int_equal(out[1].event, -51);
    parse_ok(RT_PICL_OLD, "20 0 5 3 12 0 0", &old);
    rt_picl_xlate_record(x, &old, out, &n);
    assert_int_equal(out[0].event, 12);
    assert_int_equal(out[0].proc, 3);
    rt_picl_xlate_free(x);
}

/* Records written in the new format read back the same (random values). */
static void test_format_roundtrip(void **state)
{
    (void)state;
    srand(7);
    for (int i = 0; i < 2000; i++) {
        rt_picl_record a, b;
        memset(&a, 0, sizeof a);
        a.format = RT_PICL_NEW;
        a.rectype = -2 - rand() % 3;
        a.event = rand() % 1000 - 900;
        a.time = (rand() % 2000000 - 1000) * 1e-6;
        a.proc = rand() % 64;
        a.ndata = rand() % 5;
        a.ndata_field = a.ndata;
        a.desc = a.ndata ? 2 : 0;
        for (int k = 0; k < a.ndata; k++)
            a.data[k] = rand() % 100000 - 50;
        char line[512];
        int len = rt_picl_format_new(&a, line, sizeof line);
        assert_true(len > 0 && len < (int)sizeof line);
        line[len - 1] = '\0';
        parse_ok(RT_PICL_NEW, line, &b);
        assert_int_equal(a.rectype, b.rectype);
        assert_int_equal(a.event, b.event);
        assert_true(a.time == b.time);
        assert_int_equal(a.proc, b.proc);
        assert_int_equal(a.ndata, b.ndata);
        for (int k = 0; k < a.ndata; k++)
            assert_true(a.data[k] == b.data[k]);
    }
}

/* ---- random traces against slow models ---- */

#define NP 4
#define MAXIV 4000

typedef struct {
    int proc, event;
    double entry, exit;
} iv_t;

/* Slow model: per elementary time segment, the innermost (latest entered)
 * non-tracing interval containing it decides the state. */
static void model_states(const iv_t *iv, int n, int proc, double first, double last, double t0, double t1,
                         double out[RT_NSTATES])
{
    double *pts = malloc(sizeof(double) * (size_t)(2 * n + 4));
    int np = 0;
    pts[np++] = first;
    pts[np++] = last;
    for (int i = 0; i < n; i++) {
        if (iv[i].proc != proc)
            continue;
        pts[np++] = iv[i].entry;
        pts[np++] = iv[i].exit;
    }
    for (int i = 1; i < np; i++) /* insertion sort: small */
        for (int j = i; j > 0 && pts[j - 1] > pts[j]; j--) {
            double t = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = t;
        }
    out[0] = out[1] = out[2] = 0;
    out[RT_STATE_IDLE] += (first - t0) + (t1 - last);
    for (int i = 0; i + 1 < np; i++) {
        double a = pts[i], b = pts[i + 1];
        if (b <= a)
            continue;
        double mid = (a + b) / 2;
        int best = -1;
        for (int k = 0; k < n; k++) {
            if (iv[k].proc != proc || iv[k].event <= -901 || !(iv[k].entry <= mid && mid < iv[k].exit))
                continue;
            if (best < 0 || iv[k].entry >= iv[best].entry)
                best = k;
        }
        int s = RT_STATE_BUSY;
        if (best >= 0) {
            int e = iv[best].event;
            s = rt_picl_event_waits(e) ? RT_STATE_IDLE : e < -10 ? RT_STATE_OVERHEAD : RT_STATE_BUSY;
        }
        out[s] += b - a;
    }
    free(pts);
}

static const int event_pool[] = {-52, -55, -61, -31, -402, -601, -602, -21, -785, -201, -901, 0, 1, 5, 9};

static void test_random_states_vs_model(void **state)
{
    (void)state;
    srand(11);
    for (int round = 0; round < 40; round++) {
        iv_t *iv = malloc(sizeof *iv * MAXIV);
        int n = 0;
        rt_replay *rp = rt_replay_new(NULL, NULL, NULL);
        assert_non_null(rp);
        /* per processor: a random well-nested sequence; all merged by time */
        rt_picl_record *recs = malloc(sizeof *recs * MAXIV * 2);
        int nr = 0;
        double first[NP], last[NP];
        for (int p = 0; p < NP; p++) {
            int stack[32], sp = 0;
            int64_t ticks = rand() % 5;
            first[p] = ticks * 0.25;
            int steps = 20 + rand() % 60;
            for (int s = 0; s < steps || sp > 0; s++) {
                int open = s < steps && sp < 30 && rand() % 2;
                rt_picl_record *r = &recs[nr++];
                memset(r, 0, sizeof *r);
                r->format = RT_PICL_NEW;
                r->proc = p;
                r->time = ticks * 0.25;
                if (open) {
                    int e = event_pool[rand() % (int)(sizeof event_pool / sizeof event_pool[0])];
                    r->rectype = RT_PICL_ENTRY;
                    r->event = e;
                    iv[n] = (iv_t){p, e, r->time, -1};
                    stack[sp++] = n++;
                } else if (sp > 0) {
                    int k = stack[--sp];
                    r->rectype = RT_PICL_EXIT;
                    r->event = iv[k].event;
                    iv[k].exit = r->time;
                } else {
                    r->rectype = RT_PICL_MARK;
                    r->event = -904;
                }
                ticks += rand() % 3;
            }
            last[p] = ticks * 0.25;
            /* a closing mark so the last record time is known */
            rt_picl_record *r = &recs[nr++];
            memset(r, 0, sizeof *r);
            r->format = RT_PICL_NEW;
            r->rectype = RT_PICL_MARK;
            r->event = -904;
            r->proc = p;
            r->time = recs[nr - 2].time > last[p] ? recs[nr - 2].time : last[p];
            last[p] = r->time;
        }
        /* stable merge by time (per-processor order kept) */
        for (int i = 1; i < nr; i++)
            for (int j = i; j > 0 && recs[j - 1].time > recs[j].time; j--) {
                rt_picl_record t = recs[j];
                recs[j] = recs[j - 1];
                recs[j - 1] = t;
            }
        for (int i = 0; i < nr; i++)
            assert_int_equal(feed_record(rp, &recs[i], NULL), RT_OK);
        assert_int_equal(rt_replay_finish(rp, NULL), RT_OK);
        double t0, t1;
        rt_replay_span(rp, &t0, &t1);
        for (int p = 0; p < NP; p++) {
            double want[RT_NSTATES];
            model_states(iv, n, p, first[p], last[p], t0, t1, want);
            const rt_replay_proc *pp = rt_replay_proc_get(rp, p);
            for (int s = 0; s < RT_NSTATES; s++)
                if (fabs(want[s] - pp->time_in[s]) > 1e-9)
                    fail_msg("round %d proc %d state %s: model %.6f engine %.6f", round, p, rt_state_name(s),
                             want[s], pp->time_in[s]);
        }
        rt_replay_totals tot;
        rt_replay_totals_get(rp, &tot);
        assert_int_equal(tot.unmatched_exits, 0);
        assert_int_equal(tot.left_open, 0);
        rt_replay_free(rp);
        free(recs);
        free(iv);
    }
}

/* Messages: random sends on a few channels, receives in random order of
 * channels; the model pairs the k-th receive of a channel with its k-th send. */
typedef struct {
    int n;
    double got_send[64], got_bytes[64];
} msg_log;

static void log_msg(void *ud, const rt_message *m)
{
    msg_log *l = ud;
    int key = m->src * 100 + m->dst * 10 + (int)m->tag; /* unused for order: log per arrival */
    (void)key;
    l->got_send[l->n] = m->send_time;
    l->got_bytes[l->n] = m->bytes;
    l->n++;
}

static void test_random_fifo_vs_model(void **state)
{
    (void)state;
    srand(5);
    for (int round = 0; round < 50; round++) {
        msg_log log = {0};
        rt_replay_opts o = {.on_message = log_msg, .ud = &log};
        rt_replay *rp = rt_replay_new(NULL, &o, NULL);
        /* 3 channels 0->1 with tags 0..2; 12 sends then 12 receives */
        double sends[3][12], sbytes[3][12];
        int ns[3] = {0, 0, 0}, nrcv[3] = {0, 0, 0};
        double t = 0;
        rt_picl_record r;
        memset(&r, 0, sizeof r);
        r.format = RT_PICL_NEW;
        for (int i = 0; i < 12; i++) {
            int tag = rand() % 3;
            t += 1;
            r.proc = 0;
            r.rectype = RT_PICL_ENTRY;
            r.event = -21;
            r.time = t;
            r.ndata = 3;
            r.data[0] = 1 + rand() % 1000;
            r.data[1] = tag;
            r.data[2] = 1;
            sends[tag][ns[tag]] = t;
            sbytes[tag][ns[tag]++] = r.data[0];
            feed_record(rp, &r, NULL);
            r.rectype = RT_PICL_EXIT;
            r.ndata = 0;
            feed_record(rp, &r, NULL);
        }
        double want_send[12], want_bytes[12];
        for (int i = 0; i < 12; i++) {
            int tag;
            do
                tag = rand() % 3;
            while (nrcv[tag] == ns[tag]);
            t += 1;
            r.proc = 1;
            r.rectype = RT_PICL_ENTRY;
            r.event = -52;
            r.time = t;
            r.ndata = 0;
            feed_record(rp, &r, NULL);
            r.rectype = RT_PICL_EXIT;
            r.ndata = 3;
            r.data[0] = 0;
            r.data[1] = tag;
            r.data[2] = 0;
            feed_record(rp, &r, NULL);
            want_send[i] = sends[tag][nrcv[tag]];
            want_bytes[i] = sbytes[tag][nrcv[tag]++];
        }
        rt_replay_finish(rp, NULL);
        assert_int_equal(log.n, 12);
        for (int i = 0; i < 12; i++) {
            assert_true(log.got_send[i] == want_send[i]);
            assert_true(log.got_bytes[i] == want_bytes[i]);
        }
        const rt_replay_proc *p1 = rt_replay_proc_get(rp, 1);
        assert_int_equal(p1->max_queue, 12);
        assert_int_equal(p1->queue, 0);
        rt_replay_free(rp);
    }
}

/* Intervals of the seed's Table 5: post-order, depths and parents. */
typedef struct {
    int n;
    rt_interval iv[16];
} iv_log;

static void log_iv(void *ud, const rt_interval *iv)
{
    iv_log *l = ud;
    l->iv[l->n++] = *iv;
}

static void test_intervals_table5(void **state)
{
    (void)state;
    char *path = rt_test_write_text("-3 0 0.000016 6 0 2 2 0 0\n-3 -52 0.000128 6 0 1 2 0\n"
                                    "-4 -52 0.000516 6 0 3 2 8 0 0\n-3 1 0.000711 6 0 2 2 0 0\n"
                                    "-3 -52 0.000818 6 0 1 2 1\n-4 -52 0.001643 6 0 3 2 8 1 5\n"
                                    "-3 -21 0.001665 6 0 3 2 8 1 7\n-4 -21 0.001711 6 0 0\n"
                                    "-3 2 0.001982 6 0 0\n-4 2 0.002005 6 0 0\n-4 1 0.002013 6 0 0\n"
                                    "-4 0 0.002067 6 0 0\n");
    iv_log log = {0};
    rt_err err;
    rt_tsource *r = rt_picl_source_open(path, NULL, &err);
    rt_replay_opts o = {.on_interval = log_iv, .ud = &log};
    rt_replay *rp = rt_replay_new(r, &o, &err);
    assert_int_equal(rt_replay_run(rp, &err), RT_OK);
    assert_int_equal(log.n, 6);
    /* closing order: -52, -52, -21, 2, 1, 0 */
    int order[] = {-52, -52, -21, 2, 1, 0};
    int depth[] = {1, 2, 2, 2, 1, 0};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(log.iv[i].event, order[i]);
        assert_int_equal(log.iv[i].depth, depth[i]);
    }
    assert_int_equal(log.iv[1].parent, log.iv[4].id);   /* second -52 inside event 1 */
    assert_int_equal(log.iv[4].parent, log.iv[5].id);   /* 1 inside 0 */
    assert_int_equal(log.iv[5].parent, -1);
    assert_true(log.iv[0].bytes_in == 8 && log.iv[2].bytes_out == 8);
    assert_int_equal(log.iv[2].sys_depth, 0);
    assert_int_equal(log.iv[2].user_depth, 2);
    rt_replay_free(rp);
    rt_tsource_free(r);
    rt_test_remove(path);
}

/* Keeps the last two warnings: ud is char[2][256], [1] the latest. */
static void count_warning(void *ud, const char *msg)
{
    char (*w)[256] = ud;
    memcpy(w[0], w[1], sizeof w[0]);
    snprintf(w[1], 256, "%s", msg);
}

/* Peers outside the processor range are warned about, not allocated or paired. */
static void test_bad_peers(void **state)
{
    (void)state;
    char w[2][256] = {"", ""};
    rt_replay_opts o = {.on_warning = count_warning, .ud = w};
    rt_replay *rp = rt_replay_new(NULL, &o, NULL);
    rt_picl_record r;
    parse_ok(RT_PICL_NEW, "-3 -21 1.0 0 0 3 2 8 1 1000000000", &r);
    assert_int_equal(feed_record(rp, &r, NULL), RT_OK);
    /* a record with no line (fed, not read) is placed by its processor and position */
    assert_string_equal(w[1], "processor 0: send at 1.000000 (event 2 of processor 0) names no destination processor "
                              "(1000000000); not paired");
    /* a receive is paired (here: warned about) when it comes, before the exit that carries it,
     * which then closes nothing */
    parse_ok(RT_PICL_NEW, "-4 -51 2.0 1 0 3 2 8 1 -1", &r);
    assert_int_equal(feed_record(rp, &r, NULL), RT_OK);
    assert_string_equal(w[0], "processor 1: receive at 2.000000 names no source processor (-1); not paired");
    assert_string_equal(w[1], "processor 1: exit of receive at 2.000000 (event 2 of processor 1) closes no open event");
    assert_int_equal(rt_replay_nprocs(rp), 2);
    rt_replay_free(rp);
}

/* Random lines from a pool of tokens: each parses or says why, and whatever
 * parses replays without trouble (run under the sanitizers too). */
static void test_random_lines(void **state)
{
    (void)state;
    static const char *const pool[] = {"-3", "-4", "-2", "-101", "-21", "-52", "-785", "-901", "0", "1", "2",
                                       "3", "7", "0.5", "-0.000001", "1e3", "x", "\"%d%lf\"", "\"%d\"",
                                       "\"", "99999999999999999999", "65535", "-1", "400", "2.0.1", ""};
    size_t npool = sizeof pool / sizeof pool[0];
    srand(3);
    rt_replay_opts o = {.critical_path = 1};
    rt_replay *rp = rt_replay_new(NULL, &o, NULL);
    int parsed = 0;
    for (int i = 0; i < 20000; i++) {
        char line[256] = "";
        size_t n = 0;
        int ntok = rand() % 12;
        if (rand() % 2) /* a well-formed head, so that many lines get to the data */
            n = (size_t)snprintf(line, sizeof line, "%s %d 1.5 %d 0 %d", rand() % 2 ? "-3" : "-4",
                                 (int)(rand() % 40) - 30, rand() % 8, ntok > 2 ? ntok - 3 : 0);
        for (int k = n ? 5 : 0; k < ntok; k++)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", n ? " " : "", pool[rand() % npool]);
        for (int fmt = RT_PICL_OLD; fmt <= RT_PICL_NEW; fmt++) {
            rt_picl_record rec;
            char why[256] = "";
            int r = rt_picl_parse_line(fmt, line, n, &rec, why, sizeof why);
            if (r < 0)
                assert_true(why[0] != '\0');
            if (r == 1 && fmt == RT_PICL_NEW) {
                parsed++;
                rec.time = i * 1e-3; /* keep the replay in time order */
                assert_int_equal(feed_record(rp, &rec, NULL), RT_OK);
            }
        }
    }
    assert_int_equal(rt_replay_finish(rp, NULL), RT_OK);
    rt_critical_path cp;
    assert_int_equal(rt_replay_critical_path(rp, &cp, NULL), RT_OK);
    rt_critical_path_clear(&cp);
    assert_true(parsed > 100);
    rt_replay_free(rp);
}

/* ---- the fast number and line scanners against strtod ---- */

/* A random number in strtod's syntax: sign, integer digits (leading zeros too),
 * fraction, exponent, in lengths around the fast path's limits (19 digits,
 * 2^53, 10^22). Returns its length. */
static size_t random_number(char *buf, size_t cap)
{
    size_t n = 0;
    if (rand() % 3 == 0)
        buf[n++] = '-';
    int lead = rand() % 5 == 0 ? rand() % 4 : 0, ni = rand() % 4 ? rand() % 8 : rand() % 22;
    for (int i = 0; i < lead; i++)
        buf[n++] = '0';
    for (int i = 0; i < ni; i++)
        buf[n++] = (char)('0' + (i == 0 ? 1 + rand() % 9 : rand() % 10));
    if (rand() % 4 || ni + lead == 0) {
        buf[n++] = '.';
        int nf = rand() % 4 ? rand() % 10 : rand() % 24;
        if (ni + lead == 0 && nf == 0)
            nf = 1;
        for (int i = 0; i < nf; i++)
            buf[n++] = (char)('0' + rand() % 10);
    }
    if (rand() % 5 == 0) {
        buf[n++] = rand() % 2 ? 'e' : 'E';
        int s = rand() % 3;
        if (s)
            buf[n++] = s == 1 ? '-' : '+';
        int ne = 1 + rand() % 3;
        for (int i = 0; i < ne; i++)
            buf[n++] = (char)('0' + rand() % 10);
    }
    assert_true(n < cap);
    buf[n] = '\0';
    return n;
}

/* Bitwise equality: -0 and 0 differ, as they do in strtod's results. */
static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_fast_numbers_vs_strtod(void **state)
{
    (void)state;
    /* hand-picked: exact cases, the limits, what must be left to strtod */
    static const struct { const char *s; int fast; } cases[] = {
        {"0.000001", 1}, {"-0.000001", 1}, {"-0", 1}, {"-0.0", 1}, {"0e999", 1}, {"1.", 1}, {".5", 1},
        {"123456.789012", 1}, {"9007199254740992", 1}, {"9007199254740993", 0}, {"1e22", 1}, {"1e23", 0},
        {"1e-22", 1}, {"1e-23", 0}, {"4.9406564584124654e-324", 0}, {"1234567890123456789", 0},
        {"0.1234567890123456789", 0}, {"12345678901234567890", 0}, {"1.5E+3", 1}, {"2e0003", 1},
        {"2e00003", 0}, {"+1", 0}, {"1e", 0}, {"1e+", 0}, {".", 0}, {"-", 0}, {"0x10", 0}, {"inf", 0},
        {"nan", 0}, {"1..2", 0}, {"1.2.3", 0}, {"12a", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -1;
        int got = rt_picl_fast_double(cases[i].s, strlen(cases[i].s), &v);
        if (got != cases[i].fast)
            fail_msg("'%s': fast path %s it", cases[i].s, got ? "took" : "refused");
        if (got && !same_double(v, strtod(cases[i].s, NULL)))
            fail_msg("'%s': %.17g, strtod %.17g", cases[i].s, v, strtod(cases[i].s, NULL));
    }
    /* random: whatever the fast path takes is strtod's double, bit for bit */
    srand(13);
    int taken = 0, total = 200000;
    for (int i = 0; i < total; i++) {
        char buf[96];
        size_t n = random_number(buf, sizeof buf);
        double v;
        if (!rt_picl_fast_double(buf, n, &v))
            continue;
        taken++;
        double w = strtod(buf, NULL);
        if (!same_double(v, w))
            fail_msg("'%s': fast %.17g, strtod %.17g", buf, v, w);
    }
    /* most of them are in its reach; a path that refused everything would pass vacuously */
    assert_true(taken > total / 2 && taken < total);
}

/* A skipped line, counted for the test below. */
static void count_skip(void *ud, const char *msg)
{
    (void)msg;
    (*(int *)ud)++;
}

/*
 * Random new-format lines through the reader's block path (in place, in the
 * line buffer) and its fallbacks (blank lines, comments, tabs, CRLF endings,
 * quoted formats, malformed lines): every record's time and values are
 * strtod's, its line number is right, and exactly the bad lines are skipped.
 * 40000 lines span several of the reader's 1 MiB blocks.
 */
static void test_fast_lines_vs_strtod(void **state)
{
    (void)state;
    enum { NLINES = 40000 };
    size_t cap = (size_t)NLINES * 160;
    char *text = malloc(cap);
    double *times = malloc(NLINES * sizeof *times), *vals = malloc(NLINES * 3 * sizeof *vals);
    int *nvals = malloc(NLINES * sizeof *nvals), *kind = malloc(NLINES * sizeof *kind);
    assert_true(text && times && vals && nvals && kind);
    size_t n = 0;
    int bad = 0;
    srand(17);
    for (int i = 0; i < NLINES; i++) {
        char t[96], v[3][96];
        random_number(t, sizeof t);
        int k = rand() % 20;
        /* kind: 0 record, 1 blank or comment (no record), 2 malformed (skipped) */
        kind[i] = k == 0 ? 1 : k == 1 ? 2 : 0;
        const char *sep = rand() % 10 == 0 ? " \t " : " ", *eol = rand() % 10 == 0 ? "\r\n" : "\n";
        if (kind[i] == 1) {
            n += (size_t)snprintf(text + n, cap - n, "%s%s", rand() % 2 ? "# note" : "  ", eol);
            continue;
        }
        if (kind[i] == 2) {
            n += (size_t)snprintf(text + n, cap - n, "-3 -21 %s 0 0 2 2 5%s", t, eol); /* one value short */
            bad++;
            continue;
        }
        nvals[i] = rand() % 2 ? 3 : 0;
        times[i] = strtod(t, NULL);
        if (!isfinite(times[i])) { /* 1e999 and the like: not a number, so skipped */
            kind[i] = 2;
            bad++;
        }
        if (nvals[i] == 0) {
            n += (size_t)snprintf(text + n, cap - n, "-3%s%d%s%s%s%d 0 0%s", sep, rand() % 8, sep, t, sep,
                                  rand() % 16, eol);
            continue;
        }
        for (int j = 0; j < 3; j++) {
            random_number(v[j], sizeof v[j]);
            if (v[j][0] == '-') /* a negative length is an error of its own */
                v[j][0] = '0';
            vals[i * 3 + j] = strtod(v[j], NULL);
        }
        if (kind[i] == 0 && !(isfinite(vals[i * 3]) && isfinite(vals[i * 3 + 1]) && isfinite(vals[i * 3 + 2]))) {
            kind[i] = 2;
            bad++;
        }
        int quoted = rand() % 20 == 0;
        n += (size_t)snprintf(text + n, cap - n, "-4 -52%s%s 3 0 %s %s %s %s %s%s", sep, t, quoted ? "1" : "3",
                              quoted ? "\"%lf%lf%lf\"" : "2", v[0], v[1], v[2], eol);
    }
    assert_true(n < cap);
    char *path = rt_test_write(text, n);
    int skipped = 0;
    rt_picl_opts o = {.format = RT_PICL_NEW, .on_skip = count_skip, .ud = &skipped};
    rt_err err;
    rt_picl *r = rt_picl_open(path, &o, &err);
    assert_non_null(r);
    rt_picl_record rec;
    for (int i = 0; i < NLINES; i++) {
        if (kind[i] != 0)
            continue;
        assert_int_equal(rt_picl_next(r, &rec, &err), RT_OK);
        assert_int_equal(rec.line, i + 1);
        if (!same_double(rec.time, times[i]))
            fail_msg("line %d: time %.17g, strtod %.17g", i + 1, rec.time, times[i]);
        assert_int_equal(rec.ndata, nvals[i]);
        for (int j = 0; j < nvals[i]; j++)
            if (!same_double(rec.data[j], vals[i * 3 + j]))
                fail_msg("line %d value %d: %.17g, strtod %.17g", i + 1, j + 1, rec.data[j], vals[i * 3 + j]);
    }
    assert_int_equal(rt_picl_next(r, &rec, &err), RT_EEOF);
    assert_int_equal(skipped, bad);
    assert_int_equal(rt_picl_skipped(r), bad);
    assert_true(rt_picl_offset(r) == n);
    rt_picl_free(r);
    rt_test_remove(path);
    free(text);
    free(times);
    free(vals);
    free(nvals);
    free(kind);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table5_records),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_reader_skips_and_strict),
        cmocka_unit_test(test_xlate),
        cmocka_unit_test(test_format_roundtrip),
        cmocka_unit_test(test_random_states_vs_model),
        cmocka_unit_test(test_random_fifo_vs_model),
        cmocka_unit_test(test_intervals_table5),
        cmocka_unit_test(test_bad_peers),
        cmocka_unit_test(test_random_lines),
        cmocka_unit_test(test_fast_numbers_vs_strtod),
        cmocka_unit_test(test_fast_lines_vs_strtod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
