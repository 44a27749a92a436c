/*
 * viewer_index.c - `retrace view` on a large OTF2 archive: the index build rate,
 * the index's size against the trace's, and 1000 random viewport queries
 * answered by the HTTP server (whole run down to single events), with the
 * server's memory before and after.
 *
 *   build/bench/viewer_index [EVENTS [LOCATIONS [once]]]  (default 10^7 events, 4096 locations;
 *                                                    a tenth of the events first, unless once)
 *   build/bench/viewer_index --read|--build|--serve DIR  one step on an archive kept by
 *                                                    RETRACE_BENCH_KEEP=1 (DIR/run.otf2)
 *   build/bench/viewer_index --read|--build|--serve ANCHOR  the same on an archive of
 *                                                    bench/gen_otf2_mpi (its .otf2 anchor); its
 *                                                    index goes to $TMPDIR and is removed after,
 *                                                    so --serve builds it first
 *
 * The archive (written with the OTF2 library into /tmp) is an MPI-like run:
 * every location, each step, enters "main"-nested "solve", computes in
 * "kernel", sends to a partner inside MPI_Send (sizes 64 B .. 64 KiB, tags
 * 0..7) and receives inside MPI_Recv: 10 events a step, every message paired,
 * steps of slightly different lengths per location so the states vary.
 *
 * Each part runs in a process of its own so each peak memory is its own: the
 * writer, the index build (rt_index_build), the server (rt_index_open +
 * rt_server_start) queried over a socket by this program with HTTP/1.0 GETs of
 * api/view at 1200 x 600 pixels: windows log-uniform from the whole run down to
 * 2 microseconds, processor ranges log-uniform from all of them down to one.
 * The server's anonymous memory (RssAnon: its heap, not the mapped index) is
 * printed before and after the queries.
 */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_otf2.h"
#include "bench_util.h"
#include "rt_index.h"
#include "rt_server.h"
#include "rt_tsource_open.h"

static int nproc = 4096;

static void ok(OTF2_ErrorCode rc, const char *what)
{
    bench_otf2_check("viewer_index", rc, what);
}

enum { R_MAIN, R_SOLVE, R_KERNEL, R_SEND, R_RECV };

static void generate(const char *dir, long n)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "run", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        fprintf(stderr, "viewer_index: cannot create %s\n", dir);
        exit(1);
    }
    ok(OTF2_Archive_SetFlushCallbacks(ar, &bench_flush, NULL), "flush callbacks");
    ok(OTF2_Archive_SetSerialCollectiveCallbacks(ar), "collective callbacks");
    ok(OTF2_Archive_OpenEvtFiles(ar), "event files");
    OTF2_EvtWriter **w = calloc((size_t)nproc, sizeof *w);
    uint64_t *t = calloc((size_t)nproc, sizeof *t);
    for (int p = 0; p < nproc; p++) {
        w[p] = OTF2_Archive_GetEvtWriter(ar, (uint64_t)p);
        t[p] = 1000;
        OTF2_EvtWriter_Enter(w[p], NULL, t[p], R_MAIN);
    }
    long steps = (n - 2L * nproc) / (10L * nproc);
    if (steps < 1)
        steps = 1;
    for (long s = 0; s < steps; s++) {
        uint32_t tag = (uint32_t)(s % 8);
        uint64_t size = 64u << (s % 11);
        uint64_t base = 1000 + (uint64_t)s * 20000;
        for (int p = 0; p < nproc; p++) {
            int partner = p ^ 1;
            if (partner >= nproc)
                partner = p;
            uint64_t x = base + (uint64_t)((p * 37 + s * 11) % 997);
            OTF2_EvtWriter_Enter(w[p], NULL, x + 10, R_SOLVE);
            OTF2_EvtWriter_Enter(w[p], NULL, x + 20, R_KERNEL);
            OTF2_EvtWriter_Leave(w[p], NULL, x + 9000 + (uint64_t)((p * 13 + s) % 2000), R_KERNEL);
            OTF2_EvtWriter_Enter(w[p], NULL, x + 12000, R_SEND);
            OTF2_EvtWriter_MpiSend(w[p], NULL, x + 12010, (uint32_t)partner, 0, tag, size);
            OTF2_EvtWriter_Leave(w[p], NULL, x + 12100, R_SEND);
            OTF2_EvtWriter_Enter(w[p], NULL, x + 12200, R_RECV);
            OTF2_EvtWriter_MpiRecv(w[p], NULL, base + 14500, (uint32_t)partner, 0, tag, size);
            OTF2_EvtWriter_Leave(w[p], NULL, base + 14510, R_RECV);
            OTF2_EvtWriter_Leave(w[p], NULL, base + 15000, R_SOLVE);
            t[p] = base + 15000;
        }
    }
    uint64_t nev_total = 0;
    uint64_t *nev = calloc((size_t)nproc, sizeof *nev);
    for (int p = 0; p < nproc; p++) {
        OTF2_EvtWriter_Leave(w[p], NULL, t[p] + 100, R_MAIN);
        OTF2_EvtWriter_GetNumberOfEvents(w[p], &nev[p]);
        nev_total += nev[p];
        ok(OTF2_Archive_CloseEvtWriter(ar, w[p]), "closing an event writer");
    }
    ok(OTF2_Archive_CloseEvtFiles(ar), "closing the event files");
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 1000, (uint64_t)steps * 20000 + 20000,
                                              OTF2_UNDEFINED_TIMESTAMP);
    static const char *const strings[] = {"", "main", "solve", "kernel", "MPI_Send", "MPI_Recv", "node", "machine",
                                          "thread", "MPI_COMM_WORLD"};
    for (uint32_t i = 0; i < sizeof strings / sizeof *strings; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    OTF2_GlobalDefWriter_WriteRegion(g, R_MAIN, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_SOLVE, 2, 2, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_KERNEL, 3, 3, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_SEND, 4, 4, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_RECV, 5, 5, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 6, 7, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t *members = calloc((size_t)nproc, sizeof *members);
    for (int p = 0; p < nproc; p++) {
        char name[32];
        snprintf(name, sizeof name, "rank %d", p);
        OTF2_GlobalDefWriter_WriteString(g, 100 + (uint32_t)p, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)p, 100 + (uint32_t)p, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)p, 8, OTF2_LOCATION_TYPE_CPU_THREAD, nev[p], (uint32_t)p);
        members[p] = (uint64_t)p;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    (uint32_t)nproc, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    (uint32_t)nproc, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 9, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    ok(OTF2_Archive_Close(ar), "closing the archive");
    printf("wrote %llu events on %d locations, max RSS of the writer %ld KiB\n", (unsigned long long)nev_total, nproc,
           bench_max_rss_kib());
    free(w);
    free(t);
    free(nev);
    free(members);
}

static int is_anchor(const char *dir)
{
    size_t n = strlen(dir);
    return n > 5 && !strcmp(dir + n - 5, ".otf2");
}

static int owner_pid;     /* the first process's: names an anchor's index in every child */
static int keep_index;    /* an anchor's index is kept after the build (--serve reads it) */

/* The archive of a step: DIR/run.otf2, or DIR itself when it names an anchor (an archive of
 * bench/gen_otf2_mpi); its index DIR.rtidx, or in the temporary folder for an anchor. */
static void step_paths(const char *dir, char *anchor, char *index, size_t cap)
{
    if (is_anchor(dir)) {
        snprintf(anchor, cap, "%s", dir);
        snprintf(index, cap, "%s/viewer_index_%d.rtidx", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", owner_pid);
    } else {
        snprintf(anchor, cap, "%s/run.otf2", dir);
        snprintf(index, cap, "%s.rtidx", dir);
    }
}

static int build_flags;  /* --build-merged: RT_INDEX_MERGED */

static void build_step(const char *dir, long n)
{
    (void)n;
    char anchor[512], index[512];
    step_paths(dir, anchor, index, sizeof anchor);
    rt_err err;
    rt_index_build_info info;
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    if (rt_index_build_with(anchor, NULL, index, build_flags, NULL, NULL, &info, &err) != RT_OK)
        bench_die("viewer_index", &err);
    double dt = bench_now() - t0, dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    printf("index: %llu events in %.2f s wall, %.2f s CPU = %.2f M events/s of CPU; %.1f MiB = %.1f%% of the trace's %.1f MiB; "
           "%d summary levels; max RSS %ld KiB\n",
           (unsigned long long)info.events, dt, dc, (double)info.events / dc / 1e6, (double)info.bytes / 1048576.0,
           100.0 * (double)info.bytes / (double)info.trace_bytes, (double)info.trace_bytes / 1048576.0, info.levels,
           bench_max_rss_kib());
    /* what the event blocks take, stored and unpacked, per stream */
    rt_index *ix = rt_index_open(index, NULL, &err);
    rt_index_blocks m;
    if (!ix || rt_index_blocks_measure(ix, &m, &err) != RT_OK)
        bench_die("viewer_index", &err);
    double un = (double)m.unpacked;
    printf("blocks: %llu, %.1f MiB stored (%.1f%% of the index, %.2f bytes an event), %.1f MiB unpacked (stored "
           "%.1f%% of it): times %.1f%%, codes %.1f%%, arguments %.1f%% of the unpacked bytes\n",
           (unsigned long long)m.blocks, (double)m.stored / 1048576.0, 100.0 * (double)m.stored / (double)info.bytes,
           (double)m.stored / (double)info.events, un / 1048576.0, 100.0 * (double)m.stored / un,
           100.0 * (double)m.stream[0] / un, 100.0 * (double)m.stream[1] / un, 100.0 * (double)m.stream[2] / un);
    rt_index_close(ix);
    if (strcmp(anchor + strlen(anchor) - 9, "/run.otf2") != 0 && !keep_index)
        unlink(index); /* an archive of its own: its index is not kept */
}

/* The reader alone: what the index build pays for reading the trace. */
static void read_step(const char *dir, long n)
{
    (void)n;
    char anchor[512], index[512];
    step_paths(dir, anchor, index, sizeof anchor);
    rt_err err;
    double c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    rt_tsource *src = rt_tsource_open(anchor, NULL, &err);
    if (!src)
        bench_die("viewer_index", &err);
    rt_tevent ev;
    uint64_t k = 0;
    int rc;
    while ((rc = rt_tsource_next(src, &ev, &err)) == RT_OK)
        k++;
    if (rc != RT_EEOF)
        bench_die("viewer_index", &err);
    rt_tsource_free(src);
    double dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    printf("reading alone: %llu events in %.2f s CPU = %.2f M events/s; max RSS %ld KiB\n", (unsigned long long)k, dc,
           (double)k / dc / 1e6, bench_max_rss_kib());
}

static long rss_anon_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
}

/* One HTTP/1.0 GET; returns the status and the bytes of the body. */
static int http_get(int port, const char *path, long *bytes)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        perror("connect");
        exit(1);
    }
    char req[1024];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
    if (write(fd, req, (size_t)n) != n) {
        perror("write");
        exit(1);
    }
    static char buf[1 << 16];
    long total = 0;
    int status = 0;
    ssize_t k;
    while ((k = read(fd, buf, sizeof buf)) > 0) {
        if (!total)
            sscanf(buf, "HTTP/1.%*d %d", &status);
        total += k;
    }
    close(fd);
    *bytes = total;
    return status;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void serve_step(const char *dir, long n)
{
    (void)n;
    char anchor[512], index[512];
    step_paths(dir, anchor, index, sizeof anchor);
    rt_err err;
    double t0 = bench_now();
    rt_index *ix = rt_index_open(index, anchor, &err);
    if (!ix)
        bench_die("viewer_index", &err);
    double topen = bench_now() - t0;
    /* the page's files as the build tree lays them out: BUILD/share/retrace/lua/retrace/viewer */
    char exe[512], assets[700];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(assets, sizeof assets, "%s/../share/retrace/lua/retrace/viewer", exe);
    rt_server *s = rt_server_start(ix, "bench", assets, NULL, 0, NULL, &err);
    if (!s)
        bench_die("viewer_index", &err);
    long before = rss_anon_kib();
    int64_t tmin = rt_index_tmin(ix), tmax = rt_index_tmax(ix);
    int np = rt_index_nprocs(ix);
    enum { Q = 1000 };
    static double lat[Q], cpu[Q];
    int exact = 0;
    long maxbytes = 0;
    srand(7);
    for (int i = 0; i < Q; i++) {
        double span = (double)(tmax - tmin);
        double w = exp(log(2000.0) + (log(span) - log(2000.0)) * rand() / (double)RAND_MAX);
        int64_t a = tmin + (int64_t)((span - w) * rand() / (double)RAND_MAX);
        int64_t b = a + (int64_t)w;
        int cnt = (int)exp(log((double)np) * rand() / (double)RAND_MAX);
        if (cnt < 1)
            cnt = 1;
        int p0 = (int)((np - cnt) * (double)rand() / RAND_MAX);
        char path[512];
        snprintf(path, sizeof path, "/%s/api/view?t0=%lld&t1=%lld&p0=%d&p1=%d&w=1200&h=600", rt_server_token(s),
                 (long long)a, (long long)b, p0, p0 + cnt);
        long bytes = 0;
        double q0 = bench_now(), qc = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
        int st = http_get(rt_server_port(s), path, &bytes);
        lat[i] = bench_now() - q0;
        cpu[i] = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - qc; /* the server's thread and the client */
        if (st != 200) {
            fprintf(stderr, "viewer_index: %s: HTTP %d\n", path, st);
            exit(1);
        }
        if (bytes > maxbytes)
            maxbytes = bytes;
        if (cnt <= 600 && rt_index_estimate(ix, p0, p0 + cnt, a, b) <= RT_SERVER_EXACT_MAX)
            exact++;
    }
    long after = rss_anon_kib();
    qsort(lat, Q, sizeof *lat, cmp_double);
    qsort(cpu, Q, sizeof *cpu, cmp_double);
    printf("server: index opened (checksum verified) in %.2f s; %d viewport queries (%d answered with events, "
           "%d with a raster), latency p50 %.1f ms, p95 %.1f ms, max %.1f ms (CPU p50 %.1f ms, p95 %.1f ms); largest answer %.1f KiB; "
           "heap (RssAnon) %ld KiB before, %ld KiB after; max RSS %ld KiB\n",
           topen, Q, exact, Q - exact, 1e3 * lat[Q / 2], 1e3 * lat[Q * 95 / 100], 1e3 * lat[Q - 1], 1e3 * cpu[Q / 2],
           1e3 * cpu[Q * 95 / 100],
           (double)maxbytes / 1024.0, before, after, bench_max_rss_kib());
    rt_server_stop(s);
    rt_index_close(ix);
}

static void write_step(const char *dir, long n)
{
    generate(dir, n);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "du -sk '%s' | cut -f1", dir);
    FILE *p = popen(cmd, "r");
    long kib = 0;
    if (p) {
        if (fscanf(p, "%ld", &kib) != 1)
            kib = 0;
        pclose(p);
    }
    printf("trace: %.1f MiB\n", (double)kib / 1024.0);
}

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
        fprintf(stderr, "viewer_index: a child process failed\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    owner_pid = (int)getpid();
    /* the server on an archive of gen_otf2_mpi: its index built first, removed after */
    if (argc == 3 && !strcmp(argv[1], "--serve") && is_anchor(argv[2])) {
        char anchor[512], index[512];
        step_paths(argv[2], anchor, index, sizeof anchor);
        keep_index = 1;
        in_child(build_step, argv[2], 0);
        in_child(serve_step, argv[2], 0);
        unlink(index);
        return 0;
    }
    /* one step on an archive kept with RETRACE_BENCH_KEEP=1 (for profiling) */
    if (argc == 3 && !strcmp(argv[1], "--build-merged")) {
        build_flags = RT_INDEX_MERGED;
        build_step(argv[2], 0);
        return 0;
    }
    if (argc == 3 && (!strcmp(argv[1], "--build") || !strcmp(argv[1], "--serve") || !strcmp(argv[1], "--read"))) {
        (argv[1][2] == 'b' ? build_step : argv[1][2] == 's' ? serve_step : read_step)(argv[2], 0);
        return 0;
    }
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    if (argc > 2)
        nproc = atoi(argv[2]);
    if (n < 1 || nproc < 2) {
        fprintf(stderr, "usage: viewer_index [EVENTS [LOCATIONS [once]]] | --read|--build|--serve DIR\n");
        return 2;
    }
    char dir[64], cmd[200];
    bench_tmp_path(dir, sizeof dir, "viewer", "d");
    long lengths[2] = {n / 10, n};
    int once = argc > 3 && strcmp(argv[3], "once") == 0; /* only EVENTS (the tenth measured before) */
    for (int i = once; i < 2; i++) {
        printf("== %ld events, %d locations\n", lengths[i], nproc);
        snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.rtidx'", dir, dir);
        if (system(cmd) != 0)
            return 1;
        in_child(write_step, dir, lengths[i]);
        in_child(read_step, dir, lengths[i]);
        in_child(build_step, dir, lengths[i]);
        in_child(serve_step, dir, lengths[i]);
    }
    if (!getenv("RETRACE_BENCH_KEEP") && system(cmd) != 0)
        return 1;
    return 0;
}
