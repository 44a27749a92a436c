/* Real traces read as their own tools read them (issue 24), each on a small
 * trace written here in the shape found in the wild:
 *   - a Paraver header with two applications as Paraver's writer puts it
 *     (',' between applications, the communicator count after the last);
 *   - Paraver time outside state records: idle (state 0), threads with event
 *     records only idle throughout; busy is the sum of Running computed here;
 *   - an OTF2 archive written with the OTF2 library as Score-P writes a HIP
 *     run: METRIC locations (not processors: checked against otf2-print -G),
 *     a CPU thread launching a kernel and waiting in hipEventSynchronize
 *     (idle), the kernel on an accelerator stream (busy), a pthread_join and an
 *     OpenMP barrier (idle); warnings naming the location and event position;
 *   - the warning total beyond the messages kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <otf2/otf2.h>

#include "rt_medea.h"
#include "rt_otf2.h"
#include "rt_paraver.h"
#include "rt_replay.h"
#include "rt_test.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:otf2_archive_open\nleak:otf2_file_posix_open\nleak:OTF2_UTILS_IO_JoinPath\n"
           "leak:OTF2_UTILS_CStr_dup\nleak:otf2_evt_reader_read\n";
}

/* Replay a source to its end (sources' warnings collected by the replay). */
static rt_replay *replay_all(rt_tsource *s)
{
    rt_err err = {0};
    rt_replay *rp = rt_replay_new(s, NULL, &err);
    assert_non_null(rp);
    int st = rt_replay_run(rp, &err);
    if (st != RT_OK)
        fail_msg("replay: %s", err.msg);
    return rp;
}

static rt_tsource *open_paraver(const char *path)
{
    rt_err err = {0};
    rt_tsource *s = rt_paraver_open(path, &err);
    if (!s)
        fail_msg("%s", err.msg);
    return s;
}

/* ---- Paraver ---- */

/* A state record: thread (appl, task, thread) in state value from begin to end (ns). */
typedef struct prv_state {
    int appl, task, thread;
    long begin, end;
    int value;
} prv_state;

/* Processor index of appl:task:thread in the two-application model below
 * (appl 1: 2 tasks of 1 thread; appl 2: 3 tasks of 2 threads). */
static int two_app_proc(int appl, int task, int thread)
{
    return appl == 1 ? task - 1 : 2 + (task - 1) * 2 + (thread - 1);
}

static void test_paraver_two_applications(void **state)
{
    (void)state;
    static const prv_state st[] = {
        {1, 1, 1, 0, 400, 1},   {1, 2, 1, 0, 1000, 1},  {2, 1, 1, 100, 600, 1},
        {2, 3, 1, 0, 300, 1},   {2, 3, 1, 300, 700, 3}, {2, 3, 1, 700, 1000, 1},
        {2, 1, 2, 200, 250, 1},
    };
    char text[4096];
    int n = snprintf(text, sizeof text,
                     /* exactly as Paraver's cutter writes it: ',' between the applications */
                     "#Paraver (25/11/2026 at 10:00):1000_ns:2(2,3):2:2(1:1,1:1),3(2:2,2:2,2:2),2\n"
                     "c:1:1:2:1:2\n"
                     "c:2:1:3:1:2:3\n");
    for (size_t i = 0; i < sizeof st / sizeof *st; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "1:1:%d:%d:%d:%ld:%ld:%d\n", st[i].appl, st[i].task,
                      st[i].thread, st[i].begin, st[i].end, st[i].value);
    n += snprintf(text + n, sizeof text - (size_t)n, "2:2:2:2:1:500:42000000:7\n");
    char *path = rt_test_write_text(text);
    rt_tsource *s = open_paraver(path);
    const rt_tdefs *d = s->defs;
    assert_int_equal(rt_tdefs_nprocs(d), 8); /* 2 + 3 x 2 threads */
    assert_int_equal(rt_tdefs_ncomms(d), 2);
    assert_string_equal(rt_tdefs_proc(d, two_app_proc(2, 3, 1))->name, "appl 2 task 3 thread 1");
    assert_string_equal(rt_tdefs_proc(d, two_app_proc(1, 2, 1))->name, "appl 1 task 2 thread 1");
    const rt_tcomm *c = rt_tdefs_comm(d, 1);
    assert_non_null(c);
    const rt_paraver_stats *ps = rt_paraver_stats_of(s);
    assert_int_equal(ps->nappl, 2);
    assert_int_equal(ps->ntasks, 5);
    rt_replay *rp = replay_all(s);
    /* busy = the Running (1) time of each thread, summed here from the records written */
    double busy[8] = {0}, idle_in[8] = {0};
    long first[8], last[8];
    for (int p = 0; p < 8; p++)
        first[p] = last[p] = -1;
    for (size_t i = 0; i < sizeof st / sizeof *st; i++) {
        int p = two_app_proc(st[i].appl, st[i].task, st[i].thread);
        if (st[i].value == 1)
            busy[p] += (double)(st[i].end - st[i].begin) * 1e-9;
        if (first[p] < 0 || st[i].begin < first[p])
            first[p] = st[i].begin;
        if (st[i].end > last[p])
            last[p] = st[i].end;
    }
    long t0 = first[0], t1 = last[0]; /* the trace's span: idle outside a thread's own records too */
    for (int p = 0; p < 8; p++)
        if (first[p] >= 0) {
            t0 = first[p] < t0 ? first[p] : t0;
            t1 = last[p] > t1 ? last[p] : t1;
        }
    for (int p = 0; p < 8; p++)
        idle_in[p] = (double)(t1 - t0) * 1e-9 - busy[p];
    for (int p = 0; p < 8; p++) {
        const rt_replay_proc *rp_p = rt_replay_proc_get(rp, p);
        if (first[p] < 0 && p != two_app_proc(2, 2, 1)) {
            assert_true(!rp_p || !rp_p->seen);
            continue;
        }
        assert_non_null(rp_p);
        assert_float_equal(rp_p->time_in[RT_STATE_BUSY], busy[p], 1e-15);
        /* Waiting a message (3) and the gaps idle; nothing is overhead */
        assert_float_equal(rp_p->time_in[RT_STATE_IDLE], idle_in[p], 1e-15);
        assert_float_equal(rp_p->time_in[RT_STATE_OVERHEAD], 0, 0);
    }
    /* the thread with one event record and no state record: in the replay, never busy */
    assert_float_equal(rt_replay_proc_get(rp, two_app_proc(2, 2, 1))->time_in[RT_STATE_BUSY], 0, 0);
    rt_replay_free(rp);
    rt_tsource_free(s);
    rt_test_remove(path);
}

/* Extrae's spelling (':' between applications, a communicator count after each) still reads. */
static void test_paraver_extrae_header(void **state)
{
    (void)state;
    char *path = rt_test_write_text("#Paraver (25/11/2026 at 10:00):1000:1(4):2:1(1:1),1:3(1:1,2:1,1:1),1\n"
                                    "c:1:1:1:1\n"
                                    "c:2:2:1:1\n"
                                    "1:1:2:2:2:0:10:1\n");
    rt_tsource *s = open_paraver(path);
    assert_int_equal(rt_tdefs_nprocs(s->defs), 5);
    assert_int_equal(rt_tdefs_ncomms(s->defs), 2); /* one after each application */
    rt_tsource_free(s);
    rt_test_remove(path);
    /* a separator that is neither ':' nor ',' is still refused, naming the field */
    path = rt_test_write_text("#Paraver (25/11/2026 at 10:00):1000:1(4):2:1(1:1);3(1:1)\n1:1:1:1:1:0:1:1\n");
    rt_err err = {0};
    assert_null(rt_paraver_open(path, &err));
    assert_non_null(strstr(err.msg, "header: tasks: expected ':'"));
    rt_test_remove(path);
}

/* Time outside state records is state 0, Idle; a thread with events only is idle throughout. */
static void test_paraver_state_gaps(void **state)
{
    (void)state;
    static const prv_state st[] = {
        {1, 1, 1, 0, 100, 1}, {1, 1, 1, 300, 400, 1}, {1, 1, 1, 400, 500, 0}, {1, 1, 1, 600, 700, 1},
    };
    char text[2048];
    int n = snprintf(text, sizeof text, "#Paraver (25/11/2026 at 10:00):1000_ns:1(2):1:1(2:1)\n");
    for (size_t i = 0; i < sizeof st / sizeof *st; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "1:1:1:1:1:%ld:%ld:%d\n", st[i].begin, st[i].end,
                      st[i].value);
    /* thread 2: counters only, at 50 and 900 */
    n += snprintf(text + n, sizeof text - (size_t)n, "2:2:1:1:2:50:42000000:3\n2:2:1:1:2:900:42000000:4\n");
    char *path = rt_test_write_text(text);
    rt_tsource *s = open_paraver(path);
    rt_replay *rp = replay_all(s);
    double running = 0;
    for (size_t i = 0; i < sizeof st / sizeof *st; i++)
        if (st[i].value == 1)
            running += (double)(st[i].end - st[i].begin) * 1e-9;
    const rt_replay_proc *t1 = rt_replay_proc_get(rp, 0), *t2 = rt_replay_proc_get(rp, 1);
    assert_float_equal(t1->time_in[RT_STATE_BUSY], running, 1e-15);                /* 300 ns, not 600 */
    assert_float_equal(t1->time_in[RT_STATE_IDLE], 900e-9 - running, 1e-15);      /* gaps, state 0, 700..900 */
    assert_float_equal(t1->time_in[RT_STATE_OVERHEAD], 0, 0);
    assert_float_equal(t2->time_in[RT_STATE_BUSY], 0, 0);
    assert_float_equal(t2->time_in[RT_STATE_IDLE], 900e-9, 1e-15); /* the whole span 0..900 */
    rt_replay_free(rp);
    rt_tsource_free(s);
    rt_test_remove(path);
}

/* ---- OTF2: a HIP run as Score-P writes it ---- */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *data, bool final)
{
    (void)ud;
    (void)type;
    (void)loc;
    (void)data;
    (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)ud;
    (void)type;
    (void)loc;
    return 0;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

enum { R_MAIN, R_LAUNCH, R_SYNC, R_KERNEL, R_JOIN, R_OMP_BARRIER, R_MEMCPY, R_STRAY, R_TASK_A, R_TASK_B };
#define L_THREAD 0
#define L_STREAM 1
#define L_METRIC0 2 /* 2, 3, 4: METRIC locations */
#define N_METRIC 3
#define L_WORKER 5  /* a second thread, processor 2: HPX-like tasks that do not nest */

/*
 * Times in ticks of 1 ms. Thread: main 0..100; hipLaunchKernel 10..20
 * (overhead); hipEventSynchronize 20..70 (idle); hipMemcpy 70..75 (overhead);
 * pthread_join 75..80 (idle); OpenMP barrier 80..90 (idle); a leave of a
 * region never entered at 95 (warned). Stream: the kernel 25..65 (busy).
 * METRIC locations: counter values only. Worker: task A 0..20, task B 10..30
 * (B starts inside A and outlives it: a pair that does not nest).
 */
static void write_hip_archive(const char *dir)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    assert_non_null(ar);
    OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    uint64_t nev[3 + N_METRIC];
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, L_THREAD);
    OTF2_EvtWriter_Enter(w, NULL, 0, R_MAIN);
    OTF2_EvtWriter_Enter(w, NULL, 10, R_LAUNCH);
    OTF2_EvtWriter_Leave(w, NULL, 20, R_LAUNCH);
    OTF2_EvtWriter_Enter(w, NULL, 20, R_SYNC);
    OTF2_EvtWriter_Leave(w, NULL, 70, R_SYNC);
    OTF2_EvtWriter_Enter(w, NULL, 70, R_MEMCPY);
    OTF2_EvtWriter_Leave(w, NULL, 75, R_MEMCPY);
    OTF2_EvtWriter_Enter(w, NULL, 75, R_JOIN);
    OTF2_EvtWriter_Leave(w, NULL, 80, R_JOIN);
    OTF2_EvtWriter_Enter(w, NULL, 80, R_OMP_BARRIER);
    OTF2_EvtWriter_Leave(w, NULL, 90, R_OMP_BARRIER);
    OTF2_EvtWriter_Leave(w, NULL, 95, R_STRAY); /* the 12th event of the thread */
    OTF2_EvtWriter_Leave(w, NULL, 100, R_MAIN);
    OTF2_EvtWriter_GetNumberOfEvents(w, &nev[0]);
    OTF2_Archive_CloseEvtWriter(ar, w);
    w = OTF2_Archive_GetEvtWriter(ar, L_STREAM);
    OTF2_EvtWriter_Enter(w, NULL, 25, R_KERNEL);
    OTF2_EvtWriter_Leave(w, NULL, 65, R_KERNEL);
    OTF2_EvtWriter_GetNumberOfEvents(w, &nev[1]);
    OTF2_Archive_CloseEvtWriter(ar, w);
    for (int m = 0; m < N_METRIC; m++) {
        w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)(L_METRIC0 + m));
        OTF2_Type type = OTF2_TYPE_UINT64;
        for (int k = 0; k < 4; k++) {
            OTF2_MetricValue value = {.unsigned_int = (uint64_t)(k * 100 + m)};
            OTF2_EvtWriter_Metric(w, NULL, (OTF2_TimeStamp)(k * 30), 0, 1, &type, &value);
        }
        OTF2_EvtWriter_GetNumberOfEvents(w, &nev[2 + m]);
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    w = OTF2_Archive_GetEvtWriter(ar, L_WORKER);
    OTF2_EvtWriter_Enter(w, NULL, 0, R_TASK_A);
    OTF2_EvtWriter_Enter(w, NULL, 10, R_TASK_B);
    OTF2_EvtWriter_Leave(w, NULL, 20, R_TASK_A);
    OTF2_EvtWriter_Leave(w, NULL, 30, R_TASK_B);
    OTF2_EvtWriter_GetNumberOfEvents(w, &nev[2 + N_METRIC]);
    OTF2_Archive_CloseEvtWriter(ar, w);
    OTF2_Archive_CloseEvtFiles(ar);

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    assert_non_null(g);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000, 0, 101, OTF2_UNDEFINED_TIMESTAMP);
    static const char *const strings[] = {"", "node0", "node", "MPI Rank 0", "Master thread", "HIP[0:1]",
                                          "metric location", "main", "hipLaunchKernel", "hipEventSynchronize",
                                          "_Z6vecaddPfS_S_i", "pthread_join", "!$omp barrier", "hipMemcpy",
                                          "stray", "rocm_smi:::power", "HPX worker", "task A", "task B"};
    for (uint32_t i = 0; i < sizeof strings / sizeof *strings; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    static const struct { uint32_t name; OTF2_RegionRole role; OTF2_Paradigm par; } regions[] = {
        [R_MAIN] = {7, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER},
        [R_LAUNCH] = {8, OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_HIP},
        [R_SYNC] = {9, OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_HIP},
        [R_KERNEL] = {10, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_HIP},
        [R_JOIN] = {11, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_PTHREAD},
        [R_OMP_BARRIER] = {12, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_OPENMP},
        [R_MEMCPY] = {13, OTF2_REGION_ROLE_DATA_TRANSFER, OTF2_PARADIGM_HIP},
        [R_STRAY] = {14, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        [R_TASK_A] = {17, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        [R_TASK_B] = {18, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
    };
    for (uint32_t i = 0; i < sizeof regions / sizeof *regions; i++)
        OTF2_GlobalDefWriter_WriteRegion(g, i, regions[i].name, regions[i].name, 0, regions[i].role, regions[i].par,
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 3, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, L_THREAD, 4, OTF2_LOCATION_TYPE_CPU_THREAD, nev[0], 0);
    OTF2_GlobalDefWriter_WriteLocation(g, L_STREAM, 5, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, nev[1], 0);
    for (int m = 0; m < N_METRIC; m++)
        OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)(L_METRIC0 + m), 6, OTF2_LOCATION_TYPE_METRIC,
                                           nev[2 + m], 0);
    OTF2_GlobalDefWriter_WriteLocation(g, L_WORKER, 16, OTF2_LOCATION_TYPE_CPU_THREAD, nev[2 + N_METRIC], 0);
    OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 15, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
                                           OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 0);
    OTF2_MetricMemberRef member = 0;
    OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &member, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_ABSTRACT);
    assert_int_equal(OTF2_Archive_Close(ar), OTF2_SUCCESS);
}

static int have_otf2_print(void)
{
    return system("otf2-print --version >/dev/null 2>&1") == 0;
}

/* From `otf2-print -G`: the locations that are not METRIC, "GROUP / NAME" each, into names. */
static int otf2_print_processors(const char *anchor, char names[][80], int cap)
{
    char cmd[1200], line[1024];
    snprintf(cmd, sizeof cmd, "otf2-print -G '%s'", anchor);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    int n = 0, metric = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "LOCATION ", 9) != 0)
            continue;
        if (strstr(line, "Type: METRIC")) {
            metric++;
            continue;
        }
        char name[32] = "", group[32] = "";
        const char *p = strstr(line, "Name: \""), *q = strstr(line, "Group: \"");
        assert_non_null(p);
        assert_non_null(q);
        sscanf(p + 7, "%31[^\"]", name);
        sscanf(q + 8, "%31[^\"]", group);
        assert_true(n < cap);
        snprintf(names[n++], 80, "%s / %s", group, name);
    }
    assert_int_equal(pclose(f), 0);
    assert_int_equal(metric, N_METRIC);
    return n;
}

/* Every warning, one a line, into a 2000-byte buffer. */
static void collect_warning(void *ud, const char *msg)
{
    char *buf = ud;
    size_t n = strlen(buf);
    if (n + 2 < 2000)
        snprintf(buf + n, 2000 - n, "%s\n", msg);
}

static void test_otf2_hip_archive(void **state)
{
    (void)state;
    char dir[] = "/tmp/rt_real_XXXXXX", anchor[600];
    assert_non_null(mkdtemp(dir));
    write_hip_archive(dir);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    rt_err err = {0};
    rt_tsource *s = rt_otf2_open(anchor, &err);
    if (!s)
        fail_msg("%s", err.msg);
    /* processors: the threads and the stream, not the METRIC locations - as otf2-print -G types them */
    assert_int_equal(rt_tdefs_nprocs(s->defs), 3);
    if (have_otf2_print()) {
        char names[8][80];
        int n = otf2_print_processors(anchor, names, 8);
        assert_int_equal(n, rt_tdefs_nprocs(s->defs));
        for (int p = 0; p < n; p++)
            assert_string_equal(rt_tdefs_proc(s->defs, p)->name, names[p]);
    } else {
        printf("otf2-print not found: the processor list is checked against the definitions written only\n");
    }
    assert_string_equal(rt_tdefs_proc(s->defs, 1)->name, "MPI Rank 0 / HIP[0:1]");
    assert_string_equal(rt_tdefs_proc(s->defs, 2)->name, "MPI Rank 0 / HPX worker");
    /* classes */
    static const struct { int region; int cls; } want[] = {
        {R_MAIN, RT_TC_USER}, {R_LAUNCH, RT_TC_SYSTEM}, {R_SYNC, RT_TC_WAIT}, {R_KERNEL, RT_TC_USER},
        {R_JOIN, RT_TC_WAIT}, {R_OMP_BARRIER, RT_TC_SYNC}, {R_MEMCPY, RT_TC_SYSTEM},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        assert_int_equal(rt_tdefs_region(s->defs, want[i].region)->cls, want[i].cls);
    char warnings[2000] = "";
    rt_replay_opts o = {.on_warning = collect_warning, .ud = warnings};
    rt_replay *rp = rt_replay_new(s, &o, &err);
    assert_non_null(rp);
    assert_int_equal(rt_replay_run(rp, &err), RT_OK);
    const rt_replay_proc *thread = rt_replay_proc_get(rp, 0), *stream = rt_replay_proc_get(rp, 1);
    /* thread 0..100 ms: busy 0..10 and 90..100; overhead launch 10 + memcpy 5; idle sync 50 + join 5 + barrier 10 */
    assert_float_equal(thread->time_in[RT_STATE_BUSY], 0.020, 1e-12);
    assert_float_equal(thread->time_in[RT_STATE_OVERHEAD], 0.015, 1e-12);
    assert_float_equal(thread->time_in[RT_STATE_IDLE], 0.065, 1e-12);
    /* the stream: the kernel, busy for its 40 ms; idle the rest of the span */
    assert_float_equal(stream->time_in[RT_STATE_BUSY], 0.040, 1e-12);
    assert_float_equal(stream->time_in[RT_STATE_OVERHEAD], 0, 0);
    assert_float_equal(stream->time_in[RT_STATE_IDLE], 0.060, 1e-12);
    assert_int_equal(rt_replay_nprocs(rp) <= 3, 1);
    /* the worker: task A closes alone at 20 (the stated rule), B stays open to 30; busy throughout */
    const rt_replay_proc *worker = rt_replay_proc_get(rp, 2);
    assert_float_equal(worker->time_in[RT_STATE_BUSY], 0.030, 1e-12);
    rt_replay_totals t;
    rt_replay_totals_get(rp, &t);
    assert_int_equal(t.unnested_exits, 1);
    assert_int_equal(t.unmatched_exits, 1); /* the stray leave */
    assert_int_equal(t.warnings, 2);
    /* the warnings name the location and the event's position, not "(line 0)" */
    assert_null(strstr(warnings, "line"));
    assert_non_null(strstr(warnings, "exit of stray at 0.095000 (event 12 of MPI Rank 0 / Master thread)"));
    assert_non_null(strstr(warnings, "exit of task A at 0.020000 (event 3 of MPI Rank 0 / HPX worker) closes it out "
                                     "of order (task B still open inside it, left open)"));
    rt_replay_free(rp);
    rt_tsource_free(s);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* ---- warnings: every one counted, the first ones kept ---- */

static void test_warning_total(void **state)
{
    (void)state;
    rt_replay *rp = rt_replay_new(NULL, NULL, NULL);
    assert_non_null(rp);
    int n = RT_REPLAY_KEEP_WARNINGS + 123;
    for (int i = 0; i < n; i++) {
        rt_tevent ev;
        rt_tevent_clear(&ev);
        ev.kind = RT_TE_LEAVE;
        ev.time = i;
        ev.region = 5;
        ev.line = (unsigned long)i + 1;
        assert_int_equal(rt_replay_feed_event(rp, &ev, NULL), RT_OK);
    }
    assert_int_equal(rt_replay_finish(rp, NULL), RT_OK);
    rt_replay_totals t;
    rt_replay_totals_get(rp, &t);
    assert_int_equal(t.warnings, n);
    assert_int_equal(t.unmatched_exits, n);
    assert_int_equal(rt_replay_nwarnings(rp), RT_REPLAY_KEEP_WARNINGS);
    assert_non_null(strstr(rt_replay_warning(rp, 0), "(line 1)"));
    rt_replay_free(rp);
}

/* ---- PICL traces into MEDEA ---- */

/* Feed a PICL text to a fresh accumulator. */
static rt_medea *medea_of(const char *text)
{
    char *path = rt_test_write_text(text);
    rt_medea *m = rt_medea_new();
    assert_non_null(m);
    rt_err err = {0};
    unsigned long skipped = 0, warnings = 0;
    if (rt_medea_feed_file(m, path, 0, &skipped, &warnings, &err) != RT_OK)
        fail_msg("%s", err.msg);
    rt_test_remove(path);
    return m;
}

/* Statistics records as MPICL writes them at the end of a run (-101 seconds per
 * event type, -102 counts, -103 / -104 bytes), for two processors; with
 * tracing start / stop records before them when start_stop. */
static const char *stats_trace(int start_stop)
{
    static char text[2048];
    int n = 0;
    static const double secs[2][4] = {{0.115523, 0.000553, 0.781221, 11.582430},
                                      {0.841883, 0.090967, 0.981432, 11.582467}};
    for (int p = 0; p < 2; p++) {
        if (start_stop)
            n += snprintf(text + n, sizeof text - (size_t)n, "-3 -901 0.000007 %d 0 0\n", p);
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "-101 -1 11.58243%d %d 0 4 \"%%d%%lf\" %d %f -402 %f -785 %f -901 %f\n"
                      "-102 -1 11.58243%d %d 0 4 \"%%d%%d\" %d 9 -402 2 -785 6009 -901 1\n"
                      "-103 -1 11.58243%d %d 0 2 \"%%d%%d\" %d 65025792 -785 7240848\n",
                      p, p, p == 0 ? -21 : -52, secs[p][0], secs[p][1], secs[p][2], secs[p][3], p, p,
                      p == 0 ? -21 : -52, p, p, p == 0 ? -21 : -52);
        if (start_stop)
            n += snprintf(text + n, sizeof text - (size_t)n, "-4 -901 11.58244%d %d 0 0\n", p, p);
    }
    return text;
}

static void check_stats_params(rt_medea *m, int start_stop)
{
    static const double secs[2][4] = {{0.115523, 0.000553, 0.781221, 11.582430},
                                      {0.841883, 0.090967, 0.981432, 11.582467}};
    assert_int_equal(rt_medea_nprocs(m), 2);
    assert_true(rt_medea_from_stats(m));
    for (size_t i = 0; i < 2; i++) {
        rt_medea_proc p;
        rt_medea_proc_get(m, i, &p);
        /* communication: the send or receive, and the collective (-785); the barrier is sync */
        double comm = secs[i][0] + secs[i][2], sys = secs[i][0] + secs[i][1] + secs[i][2];
        /* the time traced the statistics give (-101 of -901), with or without start / stop records */
        double ex = secs[i][3];
        if (start_stop)
            assert_float_equal(p.last - p.first, 11.58244 + 0.000001 * (double)i - 0.000007, 1e-9);
        assert_float_equal(p.extime, ex, 1e-9);
        assert_true(p.extime > 11);
        assert_float_equal(p.cmtime, comm, 1e-9);
        assert_float_equal(p.cptime, ex - sys, 1e-9);
        assert_true(p.cptime > 0);
        assert_float_equal(i == 0 ? p.trdata : p.rcdata, i == 0 ? 65025792 + 7240848 : 0, 0);
    }
}

static void test_medea_statistics_only(void **state)
{
    (void)state;
    rt_medea *m = medea_of(stats_trace(0));
    check_stats_params(m, 0);
    rt_medea_free(m);
    m = medea_of(stats_trace(1)); /* with the tracer's start and stop records: still the statistics */
    assert_int_equal(rt_medea_events_fed(m), 0);
    check_stats_params(m, 1);
    rt_medea_free(m);
}

/* mpicl-10's shape: a user event's exit written before the exit of the barrier inside it,
 * at one time stamp; the barrier is charged to the event. */
static void test_medea_same_time_exits(void **state)
{
    (void)state;
    rt_medea *m = medea_of("-3 4 1.0 0 0 0\n"
                           "-3 -402 2.0 0 0 1 2 -1\n"
                           "-3 4 2.5 1 0 0\n"
                           "-4 4 3.0 0 0 0 2\n"
                           "-4 4 3.0 1 0 0 2\n"
                           "-4 -402 3.0 0 0 0\n");
    assert_int_equal(rt_medea_nevents(m), 2);
    rt_medea_event e;
    rt_medea_event_get(m, 0, &e);
    assert_int_equal(e.proc, 0);
    assert_float_equal(e.ctime, 2.0, 1e-12);
    assert_float_equal(e.stime, 1.0, 1e-12); /* the barrier, 2..3, inside event 4 */
    assert_int_equal(e.snum, 1);
    rt_medea_proc p;
    rt_medea_proc_get(m, 0, &p);
    assert_int_equal(p.unmatched, 0);
    assert_int_equal(p.unclosed, 0);
    assert_float_equal(p.time[RT_MEDEA_CK], 1.0, 1e-12);
    rt_medea_free(m);
}

/* Two tasks on one processor: separate components, not nested into each other. */
static void test_medea_tasks(void **state)
{
    (void)state;
    rt_medea *m = medea_of("-3 1 0.0 0 1 0\n"
                           "-3 1 1.0 0 2 0\n"
                           "-3 -21 1.5 0 2 3 2 100 7 0\n"
                           "-4 -21 1.75 0 2 0\n"
                           "-4 1 2.0 0 1 0\n"
                           "-4 1 3.0 0 2 0\n");
    assert_int_equal(rt_medea_nprocs(m), 2);
    assert_int_equal(rt_medea_nevents(m), 2);
    for (size_t i = 0; i < 2; i++) {
        rt_medea_event e;
        rt_medea_event_get(m, i, &e);
        assert_int_equal(e.proc, 0);
        assert_int_equal(e.task, (int)i + 1);
        assert_int_equal(e.cnum, 1);
        assert_float_equal(e.ctime, 2.0, 1e-12); /* each task's own 2 s; nested it would be 3 s */
        assert_float_equal(e.stime, i == 1 ? 0.25 : 0, 1e-12); /* the send is task 2's */
        rt_medea_proc p;
        rt_medea_proc_get(m, i, &p);
        assert_int_equal(p.proc, 0);
        assert_int_equal(p.task, (int)i + 1);
        assert_int_equal(p.trnum, i == 1 ? 1 : 0);
        assert_float_equal(p.extime, 2.0, 1e-12);
    }
    rt_medea_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paraver_two_applications),
        cmocka_unit_test(test_paraver_extrae_header),
        cmocka_unit_test(test_paraver_state_gaps),
        cmocka_unit_test(test_otf2_hip_archive),
        cmocka_unit_test(test_warning_total),
        cmocka_unit_test(test_medea_statistics_only),
        cmocka_unit_test(test_medea_same_time_exits),
        cmocka_unit_test(test_medea_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
