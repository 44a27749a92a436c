/*
 * otf2_replay.c - events per second reading a generated OTF2 archive through
 * the OTF2 source (rt_otf2_open + rt_tsource_next), and the peak memory at two
 * trace lengths (it must stay flat: the source holds definitions and one chunk).
 *
 *   build/bench/otf2_replay [EVENTS]    (default 10^7; a tenth of it first, twice it last)
 *
 * The archive is written with the OTF2 library into /tmp: 64 locations (MPI
 * ranks) in a ring; each step every rank computes (enter / leave "work"),
 * sends 4 KiB to its right neighbour inside MPI_Send and receives from its
 * left one inside MPI_Recv: 8 events per rank per step, every message paired,
 * the events of different ranks interleaved in time so the library's merge
 * does real work. The writer runs in its own process, and so does each read,
 * so each peak memory (max RSS) is the reader's alone.
 *
 * Memory: the source keeps definitions and one chunk of 1024 events; the OTF2
 * library keeps, per location, the chunk it reads and the one before it (the
 * writer's event chunk size, 1 MiB here and in Score-P). So the peak grows
 * until every location's file spans two chunks (2 MiB, about 160 000 events
 * a location) and then stays flat: compare the runs at 10^7 and 2 x 10^7.
 *
 * Each length is read twice, each in a process of its own: the source alone
 * with a cheap consumer (per-kind counts, per-processor depth and a checksum,
 * so nothing is optimised away), then the whole replay on it (states,
 * message pairing, queues, tasks): the target, >= 5 M events/s
 * through the replay with memory flat.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "bench_otf2.h"
#include "bench_util.h"
#include "rt_otf2.h"
#include "rt_replay.h"

#define NPROC 64
#define EVENTS_PER_STEP 8

static void check(OTF2_ErrorCode rc, const char *what)
{
    bench_otf2_check("otf2_replay", rc, what);
}

enum { R_WORK, R_SEND, R_RECV };

/* Write an archive DIR/ring.otf2 of at least n events; returns how many. */
static long generate(const char *dir, long n)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "ring", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        fprintf(stderr, "otf2_replay: cannot create an archive in %s\n", dir);
        exit(1);
    }
    check(OTF2_Archive_SetFlushCallbacks(ar, &bench_flush, NULL), "flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(ar), "collective callbacks");
    check(OTF2_Archive_OpenEvtFiles(ar), "event files");
    OTF2_EvtWriter *w[NPROC];
    for (int p = 0; p < NPROC; p++)
        w[p] = OTF2_Archive_GetEvtWriter(ar, (uint64_t)p);
    long steps = (n + NPROC * EVENTS_PER_STEP - 1) / (NPROC * EVENTS_PER_STEP);
    for (long step = 0; step < steps; step++) {
        /* rank p's step starts 3 ticks after rank p-1's: the ranks overlap in time */
        uint64_t t0 = 1000 + (uint64_t)step * 1000;
        uint32_t tag = (uint32_t)(step % 8);
        for (int p = 0; p < NPROC; p++) {
            uint64_t t = t0 + 3 * (uint64_t)p;
            OTF2_EvtWriter_Enter(w[p], NULL, t, R_WORK);
            OTF2_EvtWriter_Leave(w[p], NULL, t + 300, R_WORK);
            OTF2_EvtWriter_Enter(w[p], NULL, t + 301, R_SEND);
            OTF2_EvtWriter_MpiSend(w[p], NULL, t + 302, (uint32_t)((p + 1) % NPROC), 0, tag, 4096);
            OTF2_EvtWriter_Leave(w[p], NULL, t + 303, R_SEND);
            OTF2_EvtWriter_Enter(w[p], NULL, t + 304, R_RECV);
            /* the left neighbour sent at t + 299 (rank 0's left neighbour, rank 63, at
             * t + 491): every message arrives after it left */
            OTF2_EvtWriter_MpiRecv(w[p], NULL, t + 600, (uint32_t)((p + NPROC - 1) % NPROC), 0, tag, 4096);
            OTF2_EvtWriter_Leave(w[p], NULL, t + 601, R_RECV);
        }
    }
    uint64_t nev[NPROC], total = 0;
    for (int p = 0; p < NPROC; p++) {
        OTF2_EvtWriter_GetNumberOfEvents(w[p], &nev[p]);
        total += nev[p];
        check(OTF2_Archive_CloseEvtWriter(ar, w[p]), "closing an event writer");
    }
    check(OTF2_Archive_CloseEvtFiles(ar), "closing the event files");

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 1000, (uint64_t)steps * 1000 + 1000,
                                              OTF2_UNDEFINED_TIMESTAMP);
    static const char *const strings[] = {"", "work", "MPI_Send", "MPI_Recv", "node", "machine",
                                          "thread", "MPI_COMM_WORLD"};
    for (uint32_t i = 0; i < sizeof strings / sizeof *strings; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    OTF2_GlobalDefWriter_WriteRegion(g, R_WORK, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_SEND, 2, 2, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_RECV, 3, 3, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 4, 5, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t members[NPROC];
    for (uint32_t p = 0; p < NPROC; p++) {
        char name[32];
        snprintf(name, sizeof name, "MPI Rank %u", (unsigned)p);
        OTF2_GlobalDefWriter_WriteString(g, 100 + p, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, p, 100 + p, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, p, 6, OTF2_LOCATION_TYPE_CPU_THREAD, nev[p], p);
        members[p] = p;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, NPROC, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, NPROC, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 7, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    check(OTF2_Archive_Close(ar), "closing the archive");
    return (long)total;
}

static void run(const char *anchor)
{
    rt_err err;
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    rt_tsource *s = rt_otf2_open(anchor, &err);
    if (!s)
        bench_die("otf2_replay", &err);
    rt_tevent ev;
    long long kinds[RT_TE_KIND_COUNT] = {0};
    int depth[NPROC] = {0};
    uint64_t sum = 0;
    int st;
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK) {
        kinds[ev.kind]++;
        depth[ev.proc] += ev.kind == RT_TE_ENTER ? 1 : ev.kind == RT_TE_LEAVE ? -1 : 0;
        sum += (uint64_t)ev.ticks ^ (uint64_t)ev.peer;
    }
    if (st != RT_EEOF)
        bench_die("otf2_replay", &err);
    double dt = bench_now() - t0, dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    long long n = (long long)s->events;
    for (int p = 0; p < NPROC; p++)
        if (depth[p] != 0) {
            fprintf(stderr, "otf2_replay: processor %d ends at depth %d\n", p, depth[p]);
            exit(1);
        }
    printf("read %lld events (%lld enter, %lld leave, %lld send, %lld receive; checksum %llx): "
           "%.2f s wall, %.2f s CPU; %.2f M events/s (wall), %.2f M events/s (CPU); max RSS %ld KiB\n",
           n, kinds[RT_TE_ENTER], kinds[RT_TE_LEAVE], kinds[RT_TE_SEND], kinds[RT_TE_RECV],
           (unsigned long long)sum, dt, dc, (double)n / dt / 1e6, (double)n / dc / 1e6,
           bench_max_rss_kib());
    rt_tsource_free(s);
}

/* The whole replay on the OTF2 source: states, pairing, queues, tasks. */
static void run_replay(const char *anchor)
{
    rt_err err;
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    rt_tsource *s = rt_otf2_open(anchor, &err);
    if (!s)
        bench_die("otf2_replay", &err);
    rt_replay *rp = rt_replay_new(s, NULL, &err);
    if (!rp || rt_replay_run(rp, &err) != RT_OK)
        bench_die("otf2_replay", &err);
    double dt = bench_now() - t0, dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    rt_replay_totals tot;
    rt_replay_totals_get(rp, &tot);
    long long n = (long long)rt_replay_events(rp);
    if (tot.pending != 0 || tot.tachyons != 0) {
        fprintf(stderr, "otf2_replay: %lld messages left pending, %lld tachyons\n", (long long)tot.pending,
                (long long)tot.tachyons);
        exit(1);
    }
    printf("replayed %lld events (%lld messages paired, %d processors): %.2f s wall, %.2f s CPU; "
           "%.2f M events/s (wall), %.2f M events/s (CPU); max RSS %ld KiB\n",
           n, (long long)tot.messages, rt_replay_nprocs(rp), dt, dc, (double)n / dt / 1e6, (double)n / dc / 1e6,
           bench_max_rss_kib());
    rt_replay_free(rp);
    rt_tsource_free(s);
}

/* Run f(dir, n) in a child process; exits when it fails. */
static void in_child(void (*f)(const char *, long), const char *dir, long n)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        f(dir, n);
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "otf2_replay: a child process failed\n");
        exit(1);
    }
}

static void write_step(const char *dir, long n)
{
    long w = generate(dir, n);
    char anchor[512], cmd[600];
    snprintf(anchor, sizeof anchor, "%s/ring", dir);
    snprintf(cmd, sizeof cmd, "du -sk '%s' | cut -f1", anchor);
    FILE *p = popen(cmd, "r");
    long kib = 0;
    if (p) {
        if (fscanf(p, "%ld", &kib) != 1)
            kib = 0;
        pclose(p);
    }
    printf("wrote %ld events, %d locations, %.1f MiB of event files, max RSS of the writer %ld KiB\n", w,
           NPROC, (double)kib / 1024.0, bench_max_rss_kib());
}

static void read_step(const char *dir, long n)
{
    (void)n;
    char anchor[512];
    snprintf(anchor, sizeof anchor, "%s/ring.otf2", dir);
    run(anchor);
}

static void replay_step(const char *dir, long n)
{
    (void)n;
    char anchor[512];
    snprintf(anchor, sizeof anchor, "%s/ring.otf2", dir);
    run_replay(anchor);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    char dir[64], cmd[128];
    bench_tmp_path(dir, sizeof dir, "otf2", "d");
    printf("OTF2: the source alone (rt_otf2_open + rt_tsource_next), then the replay on it, %d locations\n", NPROC);
    long lengths[3] = {n / 10, n, 2 * n};
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            return 1;
        in_child(write_step, dir, lengths[i]);
        in_child(read_step, dir, lengths[i]);
        in_child(replay_step, dir, lengths[i]);
    }
    if (!getenv("RETRACE_BENCH_KEEP") && system(cmd) != 0)
        return 1;
    return 0;
}
