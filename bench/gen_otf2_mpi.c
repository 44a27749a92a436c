/*
 * gen_otf2_mpi.c - writes an OTF2 archive shaped like the trace of an MPI run,
 * the input of the parallel reading and replay benchmarks (bench/par_replay.sh)
 * and of their tests.
 *
 *   build/bench/gen_otf2_mpi [--metrics] OUTDIR LOCATIONS EVENTS [SEED]
 *
 * OUTDIR/traces.otf2 gets LOCATIONS MPI ranks (one location each, all members
 * of MPI_COMM_WORLD) and about EVENTS events, the same number on every rank.
 * The records are those libretrace-mpi writes (core/capture/mpi/retrace_mpi.c):
 * each rank enters "main" and MPI_Init, then repeats steps, and ends in
 * MPI_Finalize. A step is computation in a user region ("solve", "assemble" or
 * "update", with a load imbalance that favours some ranks) followed by one of
 *   - a ring exchange: MPI_Send to a neighbour (MpiSend at the call's start),
 *     MPI_Recv from the other one (MpiRecv when the message has arrived);
 *   - a non-blocking exchange with a partner drawn at random for the step (a
 *     random shift of the ranks): MPI_Irecv (MpiIrecvRequest), MPI_Isend
 *     (MpiIsend), computation, MPI_Wait on the send (MpiIsendComplete), MPI_Wait
 *     on the receive (MpiIrecv when the message has arrived);
 *   - MPI_Allreduce or MPI_Barrier on MPI_COMM_WORLD (MpiCollectiveBegin at the
 *     call's start, MpiCollectiveEnd after the last rank has joined).
 * Messages carry the step as their tag and a size drawn per sender (8 bytes to
 * 1 MiB); every send is received, and a receive ends at the later of its call
 * plus a little and the send's time plus the message's latency (1 us + 1 ns
 * per 8 bytes), so late senders make real waits and no receive precedes its send.
 * Everything follows from SEED (default 1) through one random stream. With
 * --metrics each computation ends with a METRIC record of one metric class of
 * two members, as Score-P writes PAPI counters: "PAPI_TOT_INS" (UINT64,
 * instructions accumulated from the start, 2 to 4 per ns computed) and
 * "power" (DOUBLE, watts: 80 to 120 during the computation).
 *
 * Memory is O(LOCATIONS): a clock, a send time and a size per rank, and the
 * OTF2 writer's event chunk (256 KiB, the library's smallest) per location;
 * none of it grows with EVENTS. The archive is written into OUTDIR.partial-PID
 * and renamed OUTDIR at the end (OUTDIR must not exist or be empty), so a
 * failed run leaves no archive behind.
 *
 * At the end it prints one line of JSON: the archive's anchor file, locations,
 * events (OTF2 event records), messages, collectives (operations, each over
 * all ranks), steps, seed, and "records": the count of each record type under
 * the name otf2-print gives it.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "bench_otf2.h"

#define PROG "gen_otf2_mpi"
#define CHUNK (256 * 1024)
#define MAX_LOCATIONS (1 << 20)

/* Regions: MPI ones as libretrace-mpi defines them (paradigm MPI), then the program's (USER). */
enum { R_INIT, R_FINALIZE, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAIT, R_ALLREDUCE, R_BARRIER,
       R_MAIN, R_SOLVE, R_ASSEMBLE, R_UPDATE, NREGIONS };
static const struct {
    const char *name;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
} regions[NREGIONS] = {
    {"MPI_Init", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI},
    {"MPI_Finalize", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI},
    {"MPI_Send", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    {"MPI_Recv", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    {"MPI_Isend", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    {"MPI_Irecv", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    {"MPI_Wait", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI},
    {"MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI},
    {"MPI_Barrier", OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI},
    {"main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
    {"solve", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
    {"assemble", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
    {"update", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
};

/* The record types written, named as otf2-print names them. */
enum { K_ENTER, K_LEAVE, K_SEND, K_RECV, K_ISEND, K_ISEND_COMPLETE, K_IRECV_REQUEST, K_IRECV, K_COLL_BEGIN,
       K_COLL_END, K_METRIC, NKINDS };
static const char *const kind_names[NKINDS] = {
    "ENTER", "LEAVE", "MPI_SEND", "MPI_RECV", "MPI_ISEND", "MPI_ISEND_COMPLETE", "MPI_IRECV_REQUEST",
    "MPI_IRECV", "MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END", "METRIC"};

/* Events each rank writes in one step of each kind, and around the steps. */
enum { STEP_RING, STEP_NONBLOCKING, STEP_ALLREDUCE, STEP_BARRIER };
static const int step_events[] = {8, 14, 6, 6};
#define FIXED_EVENTS 6

typedef struct gen {
    uint32_t P;
    uint64_t rng;
    OTF2_EvtWriter **w;
    uint64_t *clock; /* each rank's time */
    uint64_t *mark;  /* this step's send (or collective entry) time */
    uint64_t *bytes; /* this step's message size */
    uint32_t *slow;  /* each rank's share of the computation, percent */
    uint64_t *ins;   /* --metrics: each rank's instructions so far; NULL without */
    uint64_t count[NKINDS];
    uint64_t messages, collectives;
} gen;

static char partial[4200]; /* the archive being written, removed when the run fails */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static void die(const char *fmt, const char *what, const char *detail)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, what, detail);
    fputc('\n', stderr);
    if (partial[0])
        nftw(partial, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    exit(1);
}

static void check(OTF2_ErrorCode rc, const char *what)
{
    if (rc != OTF2_SUCCESS)
        die("%s: %s", what, OTF2_Error_GetDescription(rc));
}

/* splitmix64: one stream, so the archive is a function of the seed */
static uint64_t rnd(gen *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t below(gen *g, uint64_t n)
{
    return rnd(g) % n;
}

/* ---- records (each counted) ---- */

static void enter(gen *g, uint32_t p, uint64_t t, int r)
{
    check(OTF2_EvtWriter_Enter(g->w[p], NULL, t, (OTF2_RegionRef)r), "writing an event");
    g->count[K_ENTER]++;
}

static void leave(gen *g, uint32_t p, uint64_t t, int r)
{
    check(OTF2_EvtWriter_Leave(g->w[p], NULL, t, (OTF2_RegionRef)r), "writing an event");
    g->count[K_LEAVE]++;
    g->clock[p] = t;
}

/* A call to MPI region r from p's clock taking at least 200-500 ns; returns its start. */
static uint64_t call_start(gen *g, uint32_t p, int r)
{
    uint64_t t = g->clock[p] + 50 + below(g, 100);
    enter(g, p, t, r);
    return t;
}

static uint64_t overhead(gen *g)
{
    return 200 + below(g, 300);
}

/* The time a message of n bytes sent at t arrives. */
static uint64_t arrival(uint64_t t, uint64_t n)
{
    return t + 1000 + n / 8;
}

/* A message size: 8 bytes to 1 MiB, most of them small. */
static uint64_t msg_size(gen *g)
{
    return (uint64_t)8 << below(g, below(g, 2) ? 8 : 18);
}

/* Computation in one of the user regions, base ns scaled by p's share and some noise. */
static void compute(gen *g, uint32_t p, int r, uint64_t base)
{
    uint64_t t = g->clock[p] + 20 + below(g, 50);
    enter(g, p, t, r);
    uint64_t end = t + base * g->slow[p] / 100 * (90 + below(g, 21)) / 100;
    leave(g, p, end, r);
    if (g->ins) { /* the counters read at the computation's end */
        g->ins[p] += (end - t) * (2 + below(g, 3));
        OTF2_Type types[2] = {OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE};
        OTF2_MetricValue v[2];
        v[0].unsigned_int = g->ins[p];
        v[1].floating_point = 80 + (double)below(g, 4001) / 100;
        check(OTF2_EvtWriter_Metric(g->w[p], NULL, end, 0, 2, types, v), "writing an event");
        g->count[K_METRIC]++;
    }
}

/* ---- steps ---- */

/* compute, MPI_Send to the neighbour on one side, MPI_Recv from the other */
static void step_ring(gen *g, uint64_t step, int region, uint64_t base)
{
    uint32_t P = g->P, dir = step & 1 ? 1 : P - 1, tag = (uint32_t)(step & 0x7fff);
    for (uint32_t p = 0; p < P; p++) {
        compute(g, p, region, base);
        uint64_t t = call_start(g, p, R_SEND);
        g->bytes[p] = msg_size(g);
        g->mark[p] = t;
        check(OTF2_EvtWriter_MpiSend(g->w[p], NULL, t, (p + dir) % P, 0, tag, g->bytes[p]), "writing an event");
        g->count[K_SEND]++;
        leave(g, p, t + overhead(g) + g->bytes[p] / 16, R_SEND);
    }
    for (uint32_t p = 0; p < P; p++) {
        uint32_t src = (p + P - dir) % P;
        uint64_t t = call_start(g, p, R_RECV) + overhead(g), a = arrival(g->mark[src], g->bytes[src]);
        if (a > t)
            t = a;
        check(OTF2_EvtWriter_MpiRecv(g->w[p], NULL, t, src, 0, tag, g->bytes[src]), "writing an event");
        g->count[K_RECV]++;
        leave(g, p, t, R_RECV);
    }
    g->messages += P;
}

/* MPI_Irecv, MPI_Isend to a random shift of the ranks, compute, wait for both */
static void step_nonblocking(gen *g, uint64_t step, int region, uint64_t base)
{
    uint32_t P = g->P, k = 1 + (uint32_t)below(g, P - 1), tag = (uint32_t)(step & 0x7fff);
    uint64_t rreq = 2 * step, sreq = 2 * step + 1;
    for (uint32_t p = 0; p < P; p++) {
        uint64_t t = call_start(g, p, R_IRECV);
        check(OTF2_EvtWriter_MpiIrecvRequest(g->w[p], NULL, t, rreq), "writing an event");
        g->count[K_IRECV_REQUEST]++;
        leave(g, p, t + overhead(g), R_IRECV);
        t = call_start(g, p, R_ISEND);
        g->bytes[p] = msg_size(g);
        g->mark[p] = t;
        check(OTF2_EvtWriter_MpiIsend(g->w[p], NULL, t, (p + k) % P, 0, tag, g->bytes[p], sreq), "writing an event");
        g->count[K_ISEND]++;
        leave(g, p, t + overhead(g), R_ISEND);
        compute(g, p, region, base);
        t = call_start(g, p, R_WAIT) + overhead(g);
        check(OTF2_EvtWriter_MpiIsendComplete(g->w[p], NULL, t, sreq), "writing an event");
        g->count[K_ISEND_COMPLETE]++;
        leave(g, p, t, R_WAIT);
    }
    for (uint32_t p = 0; p < P; p++) {
        uint32_t src = (p + P - k) % P;
        uint64_t t = call_start(g, p, R_WAIT) + overhead(g), a = arrival(g->mark[src], g->bytes[src]);
        if (a > t)
            t = a;
        check(OTF2_EvtWriter_MpiIrecv(g->w[p], NULL, t, src, 0, tag, g->bytes[src], rreq), "writing an event");
        g->count[K_IRECV]++;
        leave(g, p, t, R_WAIT);
    }
    g->messages += P;
}

/* compute, then MPI_Allreduce or MPI_Barrier: everyone leaves after the last has come */
static void step_collective(gen *g, int kind, int region, uint64_t base)
{
    uint32_t P = g->P;
    int r = kind == STEP_ALLREDUCE ? R_ALLREDUCE : R_BARRIER;
    uint64_t b = kind == STEP_ALLREDUCE ? 8 << below(g, 8) : 0, last = 0;
    for (uint32_t p = 0; p < P; p++) {
        compute(g, p, region, base);
        uint64_t t = call_start(g, p, r);
        check(OTF2_EvtWriter_MpiCollectiveBegin(g->w[p], NULL, t), "writing an event");
        g->count[K_COLL_BEGIN]++;
        if (t > last)
            last = t;
    }
    uint64_t rounds = 1;
    while ((1u << rounds) < P && rounds < 31)
        rounds++;
    last = arrival(last, b) + rounds * 1000;
    for (uint32_t p = 0; p < P; p++) {
        uint64_t t = last + below(g, 300);
        check(OTF2_EvtWriter_MpiCollectiveEnd(g->w[p], NULL, t,
                                              kind == STEP_ALLREDUCE ? OTF2_COLLECTIVE_OP_ALLREDUCE
                                                                     : OTF2_COLLECTIVE_OP_BARRIER,
                                              0, OTF2_UNDEFINED_UINT32, b * P, b * P),
              "writing an event");
        g->count[K_COLL_END]++;
        leave(g, p, t, r);
    }
    g->collectives++;
}

/* ---- the writer's memory ---- */

/*
 * Each buffer's chunks: an event buffer may hold one chunk, so that when it is full
 * the allocation fails and the library writes the chunk to the file and starts it
 * again (the flush callbacks say yes); definition buffers grow as they need.
 */
typedef struct chunks {
    void *kept; /* events: the one chunk, and whether it is in use */
    int used;
    void **p; /* definitions: every chunk */
    int n, cap;
} chunks;

static void *chunk_alloc(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per, uint64_t size)
{
    (void)ud, (void)loc;
    chunks *c = *per;
    if (!c && !(c = *per = calloc(1, sizeof *c)))
        return NULL;
    if (ft == OTF2_FILETYPE_EVENTS) {
        if (c->used || (!c->kept && !(c->kept = malloc(size))))
            return NULL; /* full: the library flushes this buffer, frees it, asks again */
        c->used = 1;
        return c->kept;
    }
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 4;
        void **np = realloc(c->p, (size_t)cap * sizeof *np);
        if (!np)
            return NULL;
        c->p = np;
        c->cap = cap;
    }
    return (c->p[c->n] = malloc(size)) ? c->p[c->n++] : NULL;
}

static void chunk_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per, bool final)
{
    (void)ud, (void)loc, (void)ft;
    chunks *c = *per;
    if (!c)
        return;
    c->used = 0;
    for (int i = 0; i < c->n; i++)
        free(c->p[i]);
    c->n = 0;
    if (final) {
        free(c->kept);
        free(c->p);
        free(c);
        *per = NULL;
    }
}

static const OTF2_MemoryCallbacks memory = {chunk_alloc, chunk_free_all};

/* ---- the archive ---- */

/* The global definitions, after the event files are closed; g->mark holds each location's event count. */
static void write_defs(OTF2_Archive *ar, gen *g, uint64_t t0, uint64_t t1)
{
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!d)
        die("%s%s", "cannot write the global definitions", "");
    uint32_t sid = 0;
#define STRING(s) (check(OTF2_GlobalDefWriter_WriteString(d, sid, s), "writing a definition"), sid++)
    check(OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000u, t0, t1 - t0 + 1, OTF2_UNDEFINED_TIMESTAMP),
          "writing a definition");
    OTF2_StringRef empty = STRING("");
    check(OTF2_GlobalDefWriter_WriteParadigm(d, OTF2_PARADIGM_MPI, STRING("MPI"), OTF2_PARADIGM_CLASS_PROCESS),
          "writing a definition");
    for (int r = 0; r < NREGIONS; r++) {
        OTF2_StringRef s = STRING(regions[r].name);
        check(OTF2_GlobalDefWriter_WriteRegion(d, (OTF2_RegionRef)r, s, s, empty, regions[r].role,
                                               regions[r].paradigm, OTF2_REGION_FLAG_NONE, empty, 0, 0),
              "writing a definition");
    }
    OTF2_StringRef node = STRING("node"), machine = STRING("machine");
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, node, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "writing a definition");
    uint64_t *members = malloc((size_t)g->P * sizeof *members);
    if (!members)
        die("%s%s", "out of memory", "");
    for (uint32_t p = 0; p < g->P; p++) {
        char name[32];
        snprintf(name, sizeof name, "rank %" PRIu32, p);
        OTF2_StringRef s = STRING(name);
        check(OTF2_GlobalDefWriter_WriteLocationGroup(d, p, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                      OTF2_UNDEFINED_LOCATION_GROUP),
              "writing a definition");
        check(OTF2_GlobalDefWriter_WriteLocation(d, p, s, OTF2_LOCATION_TYPE_CPU_THREAD, g->mark[p], p),
              "writing a definition");
        members[p] = p;
    }
    check(OTF2_GlobalDefWriter_WriteGroup(d, 0, STRING("MPI locations"), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, g->P, members),
          "writing a definition");
    check(OTF2_GlobalDefWriter_WriteGroup(d, 1, STRING("MPI_COMM_WORLD group"), OTF2_GROUP_TYPE_COMM_GROUP,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, g->P, members),
          "writing a definition");
    check(OTF2_GlobalDefWriter_WriteComm(d, 0, STRING("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE),
          "writing a definition");
    if (g->ins) {
        OTF2_MetricMemberRef m[2] = {0, 1};
        OTF2_StringRef ins = STRING("PAPI_TOT_INS"), ins_about = STRING("Instructions completed"),
                       ins_unit = STRING("#"), power = STRING("power"), power_about = STRING("Power drawn"),
                       watts = STRING("W");
        check(OTF2_GlobalDefWriter_WriteMetricMember(d, 0, ins, ins_about, OTF2_METRIC_TYPE_PAPI,
                                                     OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
                                                     OTF2_BASE_DECIMAL, 0, ins_unit),
              "writing a definition");
        check(OTF2_GlobalDefWriter_WriteMetricMember(d, 1, power, power_about, OTF2_METRIC_TYPE_USER,
                                                     OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE,
                                                     OTF2_BASE_DECIMAL, 0, watts),
              "writing a definition");
        check(OTF2_GlobalDefWriter_WriteMetricClass(d, 0, 2, m, OTF2_METRIC_SYNCHRONOUS_STRICT,
                                                    OTF2_RECORDER_KIND_CPU),
              "writing a definition");
    }
#undef STRING
    free(members);
}

/* A whole number in [lo, hi] ("1e8" allowed), or exit 2 naming the argument. */
static double count_arg(const char *s, const char *what, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi) || v != floor(v)) {
        fprintf(stderr, PROG ": %s must be a whole number from %.0f to %.0f, not '%s'\n", what, lo, hi, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    int metrics = argc > 1 && strcmp(argv[1], "--metrics") == 0;
    argc -= metrics, argv += metrics;
    if (argc < 4 || argc > 5 || argv[1][0] == '-') {
        fprintf(stderr, "usage: " PROG " [--metrics] OUTDIR LOCATIONS EVENTS [SEED]\n");
        return 2;
    }
    const char *out = argv[1];
    gen g = {0};
    g.P = (uint32_t)count_arg(argv[2], "LOCATIONS", 1, MAX_LOCATIONS);
    uint64_t target = (uint64_t)count_arg(argv[3], "EVENTS", 1, 1e13);
    uint64_t seed = argc == 5 ? (uint64_t)count_arg(argv[4], "SEED", 0, 9007199254740992.0) : 1;
    g.rng = seed;

    DIR *dir = opendir(out);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                closedir(dir);
                die("%s: %s", out, "exists and is not empty");
            }
        closedir(dir);
    } else if (errno != ENOENT)
        die("%s: %s", out, strerror(errno));
    if (snprintf(partial, sizeof partial, "%s.partial-%ld", out, (long)getpid()) >= (int)sizeof partial) {
        partial[0] = '\0';
        die("%s: %s", out, "path too long");
    }

    g.w = calloc(g.P, sizeof *g.w);
    g.clock = calloc(g.P, sizeof *g.clock);
    g.mark = calloc(g.P, sizeof *g.mark);
    g.bytes = calloc(g.P, sizeof *g.bytes);
    g.slow = calloc(g.P, sizeof *g.slow);
    if (metrics)
        g.ins = calloc(g.P, sizeof *g.ins);
    if (!g.w || !g.clock || !g.mark || !g.bytes || !g.slow || (metrics && !g.ins))
        die("%s%s", "out of memory", "");

    OTF2_Archive *ar = OTF2_Archive_Open(partial, "traces", OTF2_FILEMODE_WRITE, CHUNK, CHUNK,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        die("%s: %s", partial, "cannot create an OTF2 archive there");
    static const OTF2_FlushCallbacks flush = {bench_pre_flush, NULL}; /* no BUFFER_FLUSH records */
    check(OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL), "flush callbacks");
    check(OTF2_Archive_SetMemoryCallbacks(ar, &memory, NULL), "memory callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(ar), "collective callbacks");
    check(OTF2_Archive_OpenEvtFiles(ar), "opening the event files");

    /* start: main, then MPI_Init, which every rank leaves at about the same time */
    const uint64_t t0 = 1000000000u;
    uint64_t init_end = t0 + 2000000;
    for (uint32_t p = 0; p < g.P; p++) {
        g.w[p] = OTF2_Archive_GetEvtWriter(ar, p);
        if (!g.w[p])
            die("%s%s", "cannot open an event writer", "");
        g.slow[p] = below(&g, 64) == 0 ? 150 : 100 + (uint32_t)below(&g, 30);
        uint64_t t = t0 + below(&g, 10000);
        enter(&g, p, t, R_MAIN);
        enter(&g, p, t + 100, R_INIT);
        leave(&g, p, init_end + below(&g, 1000), R_INIT);
    }

    uint64_t written = (uint64_t)FIXED_EVENTS * g.P, step = 0;
    static const int user[] = {R_SOLVE, R_ASSEMBLE, R_UPDATE};
    for (;; step++) {
        uint64_t pick = below(&g, 100);
        int kind = pick < 40 ? STEP_RING : pick < 75 ? STEP_NONBLOCKING : pick < 95 ? STEP_ALLREDUCE : STEP_BARRIER;
        if (g.P == 1 && kind <= STEP_NONBLOCKING)
            kind = STEP_ALLREDUCE; /* a single rank has no one to talk to */
        uint64_t n = (uint64_t)(step_events[kind] + (metrics ? 1 : 0)) * g.P; /* a METRIC per computation */
        if (written + n > target && step > 0)
            break;
        written += n;
        int region = user[below(&g, 3)];
        uint64_t base = 5000 + below(&g, 45000);
        if (kind == STEP_RING)
            step_ring(&g, step, region, base);
        else if (kind == STEP_NONBLOCKING)
            step_nonblocking(&g, step, region, base);
        else
            step_collective(&g, kind, region, base);
    }

    uint64_t t1 = 0;
    for (uint32_t p = 0; p < g.P; p++) {
        uint64_t t = call_start(&g, p, R_FINALIZE);
        leave(&g, p, t + 5000 + below(&g, 1000), R_FINALIZE);
        leave(&g, p, g.clock[p] + 100, R_MAIN);
        if (g.clock[p] > t1)
            t1 = g.clock[p];
    }
    for (uint32_t p = 0; p < g.P; p++) {
        check(OTF2_EvtWriter_GetNumberOfEvents(g.w[p], &g.mark[p]), "counting events");
        check(OTF2_Archive_CloseEvtWriter(ar, g.w[p]), "closing an event writer");
    }
    check(OTF2_Archive_CloseEvtFiles(ar), "closing the event files");
    /* an empty local definition file per location, which readers such as otf2-print look for */
    check(OTF2_Archive_OpenDefFiles(ar), "opening the definition files");
    for (uint32_t p = 0; p < g.P; p++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, p);
        if (!dw)
            die("%s%s", "cannot open a definition writer", "");
        check(OTF2_Archive_CloseDefWriter(ar, dw), "closing a definition writer");
    }
    check(OTF2_Archive_CloseDefFiles(ar), "closing the definition files");
    write_defs(ar, &g, t0, t1);
    check(OTF2_Archive_Close(ar), "closing the archive");
    if (rename(partial, out) != 0)
        die("%s: %s", out, strerror(errno));
    partial[0] = '\0';

    uint64_t events = 0;
    for (int k = 0; k < NKINDS; k++)
        events += g.count[k];
    printf("{\"archive\":\"%s/traces.otf2\",\"locations\":%" PRIu32 ",\"events\":%" PRIu64 ",\"messages\":%" PRIu64
           ",\"collectives\":%" PRIu64 ",\"steps\":%" PRIu64 ",\"seed\":%" PRIu64 ",\"records\":{",
           out, g.P, events, g.messages, g.collectives, step, seed);
    for (int k = 0; k < NKINDS; k++)
        if (k != K_METRIC || metrics) /* METRIC only with --metrics */
            printf("%s\"%s\":%" PRIu64, k ? "," : "", kind_names[k], g.count[k]);
    printf("}}\n");
    free(g.w), free(g.clock), free(g.mark), free(g.bytes), free(g.slow), free(g.ins);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
