/*
 * retrace_mpi.c - libretrace-mpi: the MPI profiling-interface library behind
 * `retrace capture --mpi`. Each MPI call of the program becomes an enter and
 * a leave of an MPI-paradigm region with the OTF2 records of what it did
 * (messages, requests, collectives); every rank writes its own event file
 * through the OTF2 library, and rank 0 writes the unified definitions at
 * MPI_Finalize.
 *
 * The archive is the folder $RETRACE_MPI_ARCHIVE (default PROGRAM.otf2): its
 * anchor traces.otf2, global definitions traces.def, and traces/R.evt and
 * traces/R.def per rank R (location R). At MPI_Init rank 0 writes provisional
 * global definitions (the MPI regions, the ranks, MPI_COMM_WORLD) and a marker
 * traces.incomplete; a run that reaches MPI_Finalize replaces both by the
 * final definitions and removes the marker, so a run that dies leaves an
 * archive retrace reads, with a warning, up to what each rank flushed.
 *
 * Memory is bounded: the event writer's chunks come from a pool of POOL_CHUNKS
 * chunks; when it is used up OTF2 flushes them to the event file (a
 * BUFFER_FLUSH record notes the time that took). State grows with the open
 * requests, the communicators and the names the program uses, never with the
 * number of events.
 *
 * Time: CLOCK_MONOTONIC in nanoseconds. At MPI_Init and at MPI_Finalize each
 * rank measures its offset to rank 0 by ping-pong (the round with the shortest
 * round trip wins) and writes both as ClockOffset records in its local
 * definitions; readers interpolate linearly between them.
 *
 * Only the thread that called MPI_Init is recorded.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include <otf2/otf2.h>
#define OTF2_MPI_USE_PMPI
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <otf2/OTF2_MPI_Collectives.h>
#pragma GCC diagnostic pop

#include "retrace_mpi.h"

#define EXPORT __attribute__((visibility("default")))

/* ---- the regions: the calls with records of their own, then the plain ones ---- */

#define RT_SPECIAL(X)                                                                          \
    X(Init, FUNCTION) X(Init_thread, FUNCTION) X(Finalize, FUNCTION) X(Abort, FUNCTION)         \
    X(Send, POINT2POINT) X(Bsend, POINT2POINT) X(Ssend, POINT2POINT) X(Rsend, POINT2POINT)      \
    X(Isend, POINT2POINT) X(Ibsend, POINT2POINT) X(Issend, POINT2POINT) X(Irsend, POINT2POINT)  \
    X(Recv, POINT2POINT) X(Irecv, POINT2POINT) X(Sendrecv, POINT2POINT)                         \
    X(Sendrecv_replace, POINT2POINT) X(Send_init, POINT2POINT) X(Bsend_init, POINT2POINT)       \
    X(Ssend_init, POINT2POINT) X(Rsend_init, POINT2POINT) X(Recv_init, POINT2POINT)             \
    X(Start, POINT2POINT) X(Startall, POINT2POINT) X(Request_free, POINT2POINT)                 \
    X(Cancel, POINT2POINT) X(Wait, POINT2POINT) X(Waitall, POINT2POINT) X(Waitany, POINT2POINT) \
    X(Waitsome, POINT2POINT) X(Test, POINT2POINT) X(Testall, POINT2POINT)                       \
    X(Testany, POINT2POINT) X(Testsome, POINT2POINT)                                            \
    X(Barrier, BARRIER) X(Bcast, COLL_ONE2ALL) X(Scatter, COLL_ONE2ALL)                         \
    X(Scatterv, COLL_ONE2ALL) X(Gather, COLL_ALL2ONE) X(Gatherv, COLL_ALL2ONE)                  \
    X(Reduce, COLL_ALL2ONE) X(Allreduce, COLL_ALL2ALL) X(Allgather, COLL_ALL2ALL)               \
    X(Allgatherv, COLL_ALL2ALL) X(Alltoall, COLL_ALL2ALL) X(Alltoallv, COLL_ALL2ALL)            \
    X(Reduce_scatter, COLL_ALL2ALL) X(Reduce_scatter_block, COLL_ALL2ALL) X(Scan, COLL_OTHER)   \
    X(Exscan, COLL_OTHER) X(Ibarrier, BARRIER) X(Ibcast, COLL_ONE2ALL)                          \
    X(Ireduce, COLL_ALL2ONE) X(Iallreduce, COLL_ALL2ALL) X(Ialltoall, COLL_ALL2ALL)             \
    X(Comm_split, FUNCTION) X(Comm_split_type, FUNCTION) X(Comm_dup, FUNCTION)                  \
    X(Comm_create, FUNCTION) X(Comm_create_group, FUNCTION) X(Comm_free, FUNCTION)              \
    X(Intercomm_create, FUNCTION) X(Intercomm_merge, FUNCTION) X(Cart_create, FUNCTION)         \
    X(Cart_sub, FUNCTION)

enum {
#define RT_X(n, role) R_##n,
    RT_SPECIAL(RT_X)
#undef RT_X
#define RT_PLAIN(n, role, params, args) R_##n,
#include "retrace_mpi_plain.h"
#undef RT_PLAIN
    NREGIONS
};

static const struct {
    const char *name;
    OTF2_RegionRole role;
} region_defs[NREGIONS] = {
#define RT_X(n, role) {"MPI_" #n, OTF2_REGION_ROLE_##role},
    RT_SPECIAL(RT_X)
#undef RT_X
#define RT_PLAIN(n, role, params, args) {"MPI_" #n, OTF2_REGION_ROLE_##role},
#include "retrace_mpi_plain.h"
#undef RT_PLAIN
};

/* Communicators 0 and 1 are MPI_COMM_WORLD and MPI_COMM_SELF; the program's start at 2. */
#define COMM_FIRST 2
/* Event chunks the writer holds before it flushes (each OTF2_CHUNK_SIZE_EVENTS_DEFAULT bytes). */
#define POOL_CHUNKS 4
#define MAX_DEPTH 256
#define SYNC_ROUNDS 10
#define SYNC_TAG 7231

/* ---- a table of byte strings with a hash index: names, communicators ---- */

typedef struct strtab {
    char *data;
    size_t len, cap;
    size_t *off;
    int *lens;
    int n, ncap;
    int *index; /* hash slots: record + 1, 0 empty */
    int icap;
} strtab;

static uint32_t fnv(const void *b, int len)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < len; i++)
        h = (h ^ ((const unsigned char *)b)[i]) * 16777619u;
    return h;
}

static int strtab_find(const strtab *t, const void *b, int len)
{
    if (!t->icap)
        return -1;
    for (uint32_t i = fnv(b, len) & (uint32_t)(t->icap - 1);; i = (i + 1) & (uint32_t)(t->icap - 1)) {
        int k = t->index[i] - 1;
        if (k < 0)
            return -1;
        if (t->lens[k] == len && memcmp(t->data + t->off[k], b, (size_t)len) == 0)
            return k;
    }
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * size);
    if (!q) {
        fprintf(stderr, "retrace-mpi: out of memory\n");
        abort();
    }
    *cap = c;
    return q;
}

static void strtab_reindex(strtab *t, int icap)
{
    free(t->index);
    t->index = calloc((size_t)icap, sizeof *t->index);
    if (!t->index) {
        fprintf(stderr, "retrace-mpi: out of memory\n");
        abort();
    }
    t->icap = icap;
    for (int k = 0; k < t->n; k++) {
        uint32_t i = fnv(t->data + t->off[k], t->lens[k]) & (uint32_t)(icap - 1);
        while (t->index[i])
            i = (i + 1) & (uint32_t)(icap - 1);
        t->index[i] = k + 1;
    }
}

/* The record's index, added when new. */
static int strtab_intern(strtab *t, const void *b, int len)
{
    int k = strtab_find(t, b, len);
    if (k >= 0)
        return k;
    t->data = grow(t->data, &t->cap, t->len + (size_t)len + 1, 1);
    size_t ncap = (size_t)t->ncap;
    t->off = grow(t->off, &ncap, (size_t)t->n + 1, sizeof *t->off);
    ncap = (size_t)t->ncap;
    t->lens = grow(t->lens, &ncap, (size_t)t->n + 1, sizeof *t->lens);
    t->ncap = (int)ncap;
    memcpy(t->data + t->len, b, (size_t)len);
    t->data[t->len + (size_t)len] = '\0';
    t->off[t->n] = t->len;
    t->lens[t->n] = len;
    t->len += (size_t)len + 1;
    t->n++;
    if (2 * t->n > t->icap)
        strtab_reindex(t, t->icap ? 2 * t->icap : 64);
    else {
        uint32_t i = fnv(b, len) & (uint32_t)(t->icap - 1);
        while (t->index[i])
            i = (i + 1) & (uint32_t)(t->icap - 1);
        t->index[i] = t->n;
    }
    return t->n - 1;
}

static const char *strtab_at(const strtab *t, int k) { return t->data + t->off[k]; }

static void strtab_free(strtab *t)
{
    free(t->data);
    free(t->off);
    free(t->lens);
    free(t->index);
    memset(t, 0, sizeof *t);
}

/* ---- open requests: MPI_Request handle -> what completes it ---- */

typedef struct req {
    uint64_t key; /* the handle's bits; 0 empty */
    uint64_t id;
    int send, persistent, active;
    int peer, tag;
    uint32_t comm;
    uint64_t bytes;
} req;

/* ---- the state ---- */

typedef struct live_comm {
    MPI_Comm h;
    uint32_t id;
} live_comm;

static struct {
    OTF2_Archive *ar;
    OTF2_EvtWriter *ew;
    int rank, size;
    volatile sig_atomic_t busy; /* inside the OTF2 writer: a signal must not write */
    char dir[4096];             /* the archive folder */
    char marker[4200];          /* DIR/traces.incomplete */
    MPI_Comm sync;              /* the library's own duplicate of MPI_COMM_WORLD */
    MPI_Group world_group;
    uint64_t t_start;
    uint64_t sync_when[2];
    int64_t sync_off[2];
    double sync_sd[2];
    int stack[MAX_DEPTH];
    int depth;
    uint64_t next_req;
    req *reqs;
    size_t nreq, reqcap; /* open addressing, power-of-two capacity */
    live_comm *comms;
    size_t ncomms, commcap;
    strtab comm_defs, uregions, params;
    int intercomms;
    int same_host; /* this rank runs on rank 0's machine */
    void *pool[POOL_CHUNKS];
    int pool_used;
    struct sigaction old_act[32];
} g;

static __thread int g_main_thread; /* set on the thread that called MPI_Init */

/* -finstrument-functions (at the end of the file) */
#define FN_DEPTH 512

static Dwfl *fn_dwfl;
static strtab fn_addrs;     /* function addresses seen, as 8-byte records */
static int *fn_region;      /* per address: its region, or -1 when filtered out */
static size_t fn_known, fn_cap;
static __thread unsigned char fn_recorded[FN_DEPTH];
static __thread int fn_depth;

static inline uint64_t now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int tracing(void) { return g.ew != NULL && g_main_thread; }

/* ---- event records ---- */

static void ev_enter(int r, uint64_t t)
{
    g.busy = 1;
    OTF2_EvtWriter_Enter(g.ew, NULL, t, (OTF2_RegionRef)r);
    if (g.depth < MAX_DEPTH)
        g.stack[g.depth] = r;
    g.depth++;
    g.busy = 0;
}

static void ev_leave(int r, uint64_t t)
{
    g.busy = 1;
    OTF2_EvtWriter_Leave(g.ew, NULL, t, (OTF2_RegionRef)r);
    if (g.depth > 0)
        g.depth--;
    g.busy = 0;
}

/* ---- communicators ---- */

enum { CR_OTHER, CR_SPLIT, CR_SPLIT_TYPE, CR_DUP, CR_CREATE, CR_CREATE_GROUP, CR_INTER, CR_MERGE,
       CR_CART, CR_CART_SUB };
static const char *const creator_names[] = {"communicator", "MPI_Comm_split", "MPI_Comm_split_type",
                                            "MPI_Comm_dup", "MPI_Comm_create", "MPI_Comm_create_group",
                                            "intercommunicator", "MPI_Intercomm_merge",
                                            "MPI_Cart_create", "MPI_Cart_sub"};

/* The world ranks of a group's members, appended to out (n ints). */
static void world_ranks(MPI_Group grp, int n, int *out)
{
    int *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    if (!idx)
        abort();
    for (int i = 0; i < n; i++)
        idx[i] = i;
    PMPI_Group_translate_ranks(grp, n, idx, g.world_group, out);
    free(idx);
}

/*
 * Register communicator c: its definition is [creator, occurrence, n, members (world
 * ranks, in the order of their ranks in c)] and, for an intercommunicator, the local
 * group after it (the members are then the remote group, which its ranks name).
 * The occurrence tells apart communicators of the same creator and members; it is the
 * same on every member as communicators are created collectively in one order.
 */
static uint32_t comm_register(MPI_Comm c, int creator)
{
    int inter = 0, n = 0, nl = 0;
    PMPI_Comm_test_inter(c, &inter);
    MPI_Group grp, lgrp = MPI_GROUP_NULL;
    if (inter) {
        PMPI_Comm_remote_group(c, &grp);
        PMPI_Comm_group(c, &lgrp);
        PMPI_Group_size(lgrp, &nl);
        creator = CR_INTER;
        g.intercomms++;
    } else
        PMPI_Comm_group(c, &grp);
    PMPI_Group_size(grp, &n);
    int len = 3 + n + (inter ? 1 + nl : 0);
    int *rec = malloc((size_t)len * sizeof *rec);
    if (!rec)
        abort();
    rec[0] = creator;
    rec[1] = 0;
    rec[2] = n;
    world_ranks(grp, n, rec + 3);
    if (inter) {
        rec[3 + n] = nl;
        world_ranks(lgrp, nl, rec + 4 + n);
        PMPI_Group_free(&lgrp);
    }
    PMPI_Group_free(&grp);
    for (int k = 0; k < g.comm_defs.n; k++) { /* earlier ones with the same creator and members */
        const int *o = (const int *)strtab_at(&g.comm_defs, k);
        if (g.comm_defs.lens[k] == len * (int)sizeof(int) && o[0] == rec[0] &&
            memcmp(o + 2, rec + 2, (size_t)(len - 2) * sizeof(int)) == 0)
            rec[1]++;
    }
    uint32_t id = COMM_FIRST + (uint32_t)strtab_intern(&g.comm_defs, rec, len * (int)sizeof(int));
    free(rec);
    g.comms = grow(g.comms, &g.commcap, g.ncomms + 1, sizeof *g.comms);
    g.comms[g.ncomms++] = (live_comm){c, id};
    return id;
}

static uint32_t comm_id(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD)
        return 0;
    if (c == MPI_COMM_SELF)
        return 1;
    for (size_t i = g.ncomms; i-- > 0;)
        if (g.comms[i].h == c)
            return g.comms[i].id;
    return comm_register(c, CR_OTHER);
}

/*
 * The communicator and peer a message record names. A peer on an intercommunicator is a
 * rank of its remote group, which differs on the two sides: it is written as its rank in
 * MPI_COMM_WORLD (communicator 0), so both ends of the message name the same communicator.
 */
static uint32_t msg_comm(uint32_t id, int *peer)
{
    if (id < COMM_FIRST || *peer < 0)
        return id;
    const int *rec = (const int *)strtab_at(&g.comm_defs, (int)(id - COMM_FIRST));
    if (rec[0] != CR_INTER || *peer >= rec[2])
        return id;
    *peer = rec[3 + *peer];
    return 0;
}

static void comm_forget(MPI_Comm c)
{
    for (size_t i = g.ncomms; i-- > 0;)
        if (g.comms[i].h == c) {
            g.comms[i] = g.comms[--g.ncomms];
            return;
        }
}

/* ---- requests ---- */

static uint64_t req_key(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    return k;
}

static req *req_find(uint64_t key)
{
    if (!g.reqcap || !key)
        return NULL;
    size_t m = g.reqcap - 1;
    for (size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull >> 20) & m;; i = (i + 1) & m) {
        if (g.reqs[i].key == key)
            return &g.reqs[i];
        if (!g.reqs[i].key)
            return NULL;
    }
}

static req *req_insert(uint64_t key)
{
    req *r = req_find(key);
    if (r)
        return r;
    if (2 * (g.nreq + 1) > g.reqcap) {
        size_t old = g.reqcap, cap = old ? 2 * old : 64;
        req *was = g.reqs;
        g.reqs = calloc(cap, sizeof *g.reqs);
        if (!g.reqs)
            abort();
        g.reqcap = cap;
        g.nreq = 0;
        for (size_t i = 0; i < old; i++)
            if (was[i].key)
                *req_insert(was[i].key) = was[i];
        free(was);
    }
    size_t m = g.reqcap - 1;
    size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull >> 20) & m;
    while (g.reqs[i].key)
        i = (i + 1) & m;
    g.nreq++;
    g.reqs[i] = (req){.key = key};
    return &g.reqs[i];
}

/* Remove by backward shifting (linear probing keeps no tombstones). */
static void req_remove(req *r)
{
    size_t m = g.reqcap - 1, i = (size_t)(r - g.reqs);
    g.reqs[i].key = 0;
    g.nreq--;
    for (size_t j = (i + 1) & m; g.reqs[j].key; j = (j + 1) & m) {
        size_t home = (size_t)(g.reqs[j].key * 0x9E3779B97F4A7C15ull >> 20) & m;
        if (((j - home) & m) >= ((j - i) & m)) {
            g.reqs[i] = g.reqs[j];
            g.reqs[j].key = 0;
            i = j;
        }
    }
}

static uint64_t type_bytes(int count, MPI_Datatype t)
{
    int s = 0;
    if (count <= 0 || t == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(t, &s);
    return (uint64_t)count * (uint64_t)s;
}

static uint64_t status_bytes(const MPI_Status *st)
{
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    return n == MPI_UNDEFINED || n < 0 ? 0 : (uint64_t)n;
}

/* A send request started: MpiIsend now, completion later. */
static void req_start_send(MPI_Request h, int persistent, int peer, int tag, uint32_t comm, uint64_t bytes,
                           uint64_t t)
{
    req *r = req_insert(req_key(h));
    *r = (req){r->key, ++g.next_req, 1, persistent, 1, peer, tag, comm, bytes};
    if (peer != MPI_PROC_NULL) {
        uint32_t c = msg_comm(comm, &peer);
        g.busy = 1;
        OTF2_EvtWriter_MpiIsend(g.ew, NULL, t, (uint32_t)peer, c, (uint32_t)tag, bytes, r->id);
        g.busy = 0;
    }
}

static void req_start_recv(MPI_Request h, int persistent, uint32_t comm, uint64_t t)
{
    req *r = req_insert(req_key(h));
    *r = (req){r->key, ++g.next_req, 0, persistent, 1, 0, 0, comm, 0};
    g.busy = 1;
    OTF2_EvtWriter_MpiIrecvRequest(g.ew, NULL, t, r->id);
    g.busy = 0;
}

/* Request key completed with status st at time t. */
static void req_complete(uint64_t key, const MPI_Status *st, uint64_t t)
{
    req *r = req_find(key);
    if (!r || !r->active)
        return;
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    g.busy = 1;
    if (cancelled)
        OTF2_EvtWriter_MpiRequestCancelled(g.ew, NULL, t, r->id);
    else if (r->send) {
        if (r->peer != MPI_PROC_NULL)
            OTF2_EvtWriter_MpiIsendComplete(g.ew, NULL, t, r->id);
    } else if (st->MPI_SOURCE != MPI_PROC_NULL) {
        int src = st->MPI_SOURCE;
        uint32_t c = msg_comm(r->comm, &src);
        OTF2_EvtWriter_MpiIrecv(g.ew, NULL, t, (uint32_t)src, c, (uint32_t)st->MPI_TAG, status_bytes(st), r->id);
    }
    g.busy = 0;
    if (r->persistent)
        r->active = 0;
    else
        req_remove(r);
}

/* Requests tested and found not complete. */
static void req_tested(const uint64_t *keys, int n, uint64_t t)
{
    for (int i = 0; i < n; i++) {
        req *r = req_find(keys[i]);
        if (r && r->active) {
            g.busy = 1;
            OTF2_EvtWriter_MpiRequestTest(g.ew, NULL, t, r->id);
            g.busy = 0;
        }
    }
}

/* ---- the archive ---- */

/* Time spent flushing event chunks to the file ($RETRACE_MPI_STATS prints it at MPI_Finalize). */
static uint64_t flush_began, flush_ns, flushes;

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)ud;
    (void)loc;
    (void)caller;
    (void)final;
    if (ft == OTF2_FILETYPE_EVENTS)
        flush_began = now();
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud;
    (void)loc;
    uint64_t t = now();
    if (ft == OTF2_FILETYPE_EVENTS && flush_began) {
        flush_ns += t - flush_began;
        flushes++;
        flush_began = 0;
    }
    return t;
}

static OTF2_FlushCallbacks flush_cb = {pre_flush, post_flush};

/* Definition buffers: plain chunks, kept in a list per buffer until free_all. */
typedef struct chunk_list {
    void **p;
    size_t n, cap;
} chunk_list;

static void *chunk_alloc(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per, uint64_t size)
{
    (void)ud;
    (void)loc;
    if (ft == OTF2_FILETYPE_EVENTS) { /* the bounded pool: NULL makes OTF2 flush */
        if (g.pool_used == POOL_CHUNKS)
            return NULL;
        if (!g.pool[g.pool_used] && !(g.pool[g.pool_used] = malloc(size)))
            return NULL;
        return g.pool[g.pool_used++];
    }
    chunk_list *l = *per;
    if (!l && !(l = *per = calloc(1, sizeof *l)))
        return NULL;
    l->p = grow(l->p, &l->cap, l->n + 1, sizeof *l->p);
    void *c = malloc(size);
    if (c)
        l->p[l->n++] = c;
    return c;
}

static void chunk_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **per, bool final)
{
    (void)ud;
    (void)loc;
    if (ft == OTF2_FILETYPE_EVENTS) {
        g.pool_used = 0;
        if (final)
            for (int i = 0; i < POOL_CHUNKS; i++) {
                free(g.pool[i]);
                g.pool[i] = NULL;
            }
        return;
    }
    chunk_list *l = *per;
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->p[i]);
    l->n = 0;
    if (final) {
        free(l->p);
        free(l);
        *per = NULL;
    }
}

static OTF2_MemoryCallbacks memory_cb = {chunk_alloc, chunk_free_all};

/* Append one line to the marker (async-signal-safe: open, write, close). */
static void marker_note(const char *what, long value)
{
    char line[160], num[24];
    size_t n = 0;
    const char *parts[4] = {"rank ", NULL, ": ", what};
    char rk[24];
    int k = 0;
    long r = g.rank;
    do
        rk[k++] = (char)('0' + r % 10);
    while ((r /= 10) > 0);
    char rank_txt[24];
    for (int i = 0; i < k; i++)
        rank_txt[i] = rk[k - 1 - i];
    rank_txt[k] = '\0';
    parts[1] = rank_txt;
    for (int i = 0; i < 4; i++)
        for (const char *p = parts[i]; *p && n < sizeof line - 30; p++)
            line[n++] = *p;
    if (value != LONG_MIN) {
        int neg = value < 0, j = 0;
        unsigned long v = neg ? 0ul - (unsigned long)value : (unsigned long)value;
        do
            num[j++] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        line[n++] = ' ';
        if (neg)
            line[n++] = '-';
        while (j > 0)
            line[n++] = num[--j];
    }
    line[n++] = '\n';
    int fd = open(g.marker, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, line, n);
        (void)w;
        close(fd);
    }
}

/*
 * A rank that stops before MPI_Finalize: close its open regions and flush what it has.
 * It may be reached on two threads at once (a signal on one, the runtime calling exit
 * on another): the first closes the file, the other waits (bounded) until it is written.
 */
static void stop_early(const char *why, long value)
{
    static volatile int state; /* 0 running, 1 closing, 2 closed */
    if (!__sync_bool_compare_and_swap(&state, 0, 1)) {
        for (int i = 0; i < 300 && state != 2; i++)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        return;
    }
    if (g.ew && !g.busy) {
        uint64_t t = now();
        while (g.depth > 0)
            ev_leave(g.depth <= MAX_DEPTH ? g.stack[g.depth - 1] : R_Abort, t);
        marker_note(why, value);
        OTF2_EvtWriter *ew = g.ew;
        g.ew = NULL;
        OTF2_Archive_CloseEvtWriter(g.ar, ew);
        fflush(NULL); /* the POSIX substrate writes through stdio; its files close only with the archive */
    }
    state = 2;
}

static const int caught[] = {SIGTERM, SIGINT, SIGHUP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT};

static void on_signal(int sig)
{
    stop_early("signal", sig);
    sigaction(sig, &g.old_act[sig], NULL);
    raise(sig);
}

/*
 * The caught signals are blocked while PMPI_Init starts the runtime's threads, which
 * inherit the mask: a signal sent to the process is then handled on the main thread,
 * not on a runtime thread that may hold a lock the handler's writes need.
 */
static void block_caught(int how, sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++)
        sigaddset(&set, caught[i]);
    pthread_sigmask(how, &set, old);
}

static void on_exit_early(void)
{
    stop_early("exited without MPI_Finalize", LONG_MIN);
}

static OTF2_StringRef def_string(OTF2_GlobalDefWriter *w, uint32_t *sid, const char *s)
{
    OTF2_GlobalDefWriter_WriteString(w, *sid, s);
    return (*sid)++;
}

/*
 * The global definitions: clock, MPI regions then the user's, the ranks as
 * locations, the communicators with their groups, the mark parameters. Dynamic
 * tables (unified at MPI_Finalize) may be empty; nevents may be NULL (none known).
 */
static void write_global_defs(OTF2_GlobalDefWriter *w, uint64_t t0, uint64_t len, const uint64_t *nevents,
                              const strtab *regions, const strtab *comms, const strtab *params)
{
    uint32_t sid = 0;
    OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000u, t0, len, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_StringRef empty = def_string(w, &sid, "");
    OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, def_string(w, &sid, "MPI"), OTF2_PARADIGM_CLASS_PROCESS);
    for (int r = 0; r < NREGIONS; r++) {
        OTF2_StringRef s = def_string(w, &sid, region_defs[r].name);
        OTF2_GlobalDefWriter_WriteRegion(w, (OTF2_RegionRef)r, s, s, empty, region_defs[r].role, OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
    for (int r = 0; r < regions->n; r++) {
        OTF2_StringRef s = def_string(w, &sid, strtab_at(regions, r));
        OTF2_GlobalDefWriter_WriteRegion(w, (OTF2_RegionRef)(NREGIONS + r), s, s, empty, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
    char host[256] = "machine";
    gethostname(host, sizeof host - 1);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, def_string(w, &sid, host), def_string(w, &sid, "machine"),
                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t *members = malloc((size_t)g.size * sizeof *members);
    if (!members)
        abort();
    for (int r = 0; r < g.size; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank %d", r);
        OTF2_StringRef s = def_string(w, &sid, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(w, (OTF2_LocationGroupRef)r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(w, (OTF2_LocationRef)r, s, OTF2_LOCATION_TYPE_CPU_THREAD,
                                           nevents ? nevents[r] : 0, (OTF2_LocationGroupRef)r);
        members[r] = (uint64_t)r;
    }
    OTF2_GlobalDefWriter_WriteGroup(w, 0, def_string(w, &sid, "MPI locations"), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)g.size, members);
    OTF2_GlobalDefWriter_WriteGroup(w, 1, def_string(w, &sid, "MPI_COMM_WORLD group"), OTF2_GROUP_TYPE_COMM_GROUP,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)g.size, members);
    OTF2_GlobalDefWriter_WriteGroup(w, 2, def_string(w, &sid, "MPI_COMM_SELF group"), OTF2_GROUP_TYPE_COMM_SELF,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL);
    OTF2_GlobalDefWriter_WriteComm(w, 0, def_string(w, &sid, "MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(w, 1, def_string(w, &sid, "MPI_COMM_SELF"), 2, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    for (int c = 0; c < comms->n; c++) {
        const int *rec = (const int *)strtab_at(comms, c);
        int n = rec[2];
        for (int i = 0; i < n; i++)
            members[i] = (uint64_t)rec[3 + i];
        char name[96];
        snprintf(name, sizeof name, "%s %d", creator_names[rec[0]], COMM_FIRST + c);
        OTF2_StringRef s = def_string(w, &sid, name);
        OTF2_GlobalDefWriter_WriteGroup(w, (OTF2_GroupRef)(3 + c), s, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, (uint32_t)n, members);
        OTF2_GlobalDefWriter_WriteComm(w, (OTF2_CommRef)(COMM_FIRST + c), s, (OTF2_GroupRef)(3 + c),
                                       OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    }
    free(members);
    for (int p = 0; p < params->n; p++)
        OTF2_GlobalDefWriter_WriteParameter(w, (OTF2_ParameterRef)p, def_string(w, &sid, strtab_at(params, p)),
                                            OTF2_PARAMETER_TYPE_INT64);
}

static void mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

/* Remove the parts an earlier run left in the archive folder (only files of the archive's shape). */
static void clean_archive(void)
{
    const char *names[] = {"traces.otf2", "traces.def", "traces.incomplete"};
    char path[4200];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", g.dir, names[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/traces", g.dir);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        strtoul(e->d_name, &end, 10);
        if (end != e->d_name && (strcmp(end, ".evt") == 0 || strcmp(end, ".def") == 0)) {
            char f[4500];
            snprintf(f, sizeof f, "%s/%s", path, e->d_name);
            unlink(f);
        }
    }
    closedir(d);
    rmdir(path);
}

/* Rank 0 at MPI_Init: the marker and provisional global definitions. */
static int write_provisional(void)
{
    mkdirs(g.dir);
    clean_archive();
    FILE *m = fopen(g.marker, "w");
    if (!m)
        return -1;
    fprintf(m, "incomplete: %d ranks started; the archive is final once every rank returns from MPI_Finalize\n",
            g.size);
    fclose(m);
    OTF2_Archive *a = OTF2_Archive_Open(g.dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                        OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (!a)
        return -1;
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetFlushCallbacks(a, &flush_cb, NULL);
    OTF2_Archive_SetCreator(a, "retrace libretrace-mpi");
    OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(a);
    if (!w) {
        OTF2_Archive_Close(a);
        return -1;
    }
    strtab none = {0};
    write_global_defs(w, g.t_start, 0, NULL, &none, &none, &none);
    if (OTF2_Archive_Close(a) != OTF2_SUCCESS)
        return -1;
    /* the archive of the run creates the folder of the per-rank files itself and refuses one that exists */
    char path[4200];
    snprintf(path, sizeof path, "%s/traces", g.dir);
    rmdir(path);
    return 0;
}

/* Offset of this rank's clock to rank 0's by ping-pong; rank 0 serves every rank in turn. */
static void sync_clock(int k)
{
    if (g.rank == 0) {
        for (int r = 1; r < g.size; r++)
            for (int i = 0; i < SYNC_ROUNDS; i++) {
                uint64_t x;
                PMPI_Recv(&x, 1, MPI_UINT64_T, r, SYNC_TAG, g.sync, MPI_STATUS_IGNORE);
                x = now();
                PMPI_Send(&x, 1, MPI_UINT64_T, r, SYNC_TAG, g.sync);
            }
        g.sync_when[k] = now();
        g.sync_off[k] = 0;
        g.sync_sd[k] = 0;
        return;
    }
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < SYNC_ROUNDS; i++) {
        uint64_t t1 = now(), t0;
        PMPI_Send(&t1, 1, MPI_UINT64_T, 0, SYNC_TAG, g.sync);
        PMPI_Recv(&t0, 1, MPI_UINT64_T, 0, SYNC_TAG, g.sync, MPI_STATUS_IGNORE);
        uint64_t t2 = now();
        if (t2 - t1 < best) {
            best = t2 - t1;
            g.sync_when[k] = t1 + (t2 - t1) / 2;
            g.sync_off[k] = (int64_t)(t0 - g.sync_when[k]);
        }
    }
    g.sync_sd[k] = (double)best / 2;
    if (g.same_host) { /* the same CLOCK_MONOTONIC as rank 0: a measured offset would only add noise */
        g.sync_off[k] = 0;
        g.sync_sd[k] = 0;
    }
}

static void setup(uint64_t t0)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &g.size);
    PMPI_Comm_group(MPI_COMM_WORLD, &g.world_group);
    PMPI_Comm_dup(MPI_COMM_WORLD, &g.sync);
    g.t_start = t0;
    const char *dir = getenv("RETRACE_MPI_ARCHIVE");
    if (dir && *dir)
        snprintf(g.dir, sizeof g.dir, "%s", dir);
    else
        snprintf(g.dir, sizeof g.dir, "%s.otf2", program_invocation_short_name);
    snprintf(g.marker, sizeof g.marker, "%s/traces.incomplete", g.dir);
    int ok = 1;
    if (g.rank == 0 && write_provisional() != 0) {
        fprintf(stderr, "retrace-mpi: %s: cannot write the archive (%s); the run is not traced\n", g.dir,
                strerror(errno));
        ok = 0;
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, g.sync);
    if (!ok)
        return;
    g.ar = OTF2_Archive_Open(g.dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                             OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!g.ar) {
        fprintf(stderr, "retrace-mpi: %s: cannot open the archive; rank %d is not traced\n", g.dir, g.rank);
        return;
    }
    OTF2_Archive_SetFlushCallbacks(g.ar, &flush_cb, NULL);
    OTF2_Archive_SetMemoryCallbacks(g.ar, &memory_cb, NULL);
    for (int i = 0; i < POOL_CHUNKS; i++) /* touched now, not during the program's first calls */
        if ((g.pool[i] = malloc(OTF2_CHUNK_SIZE_EVENTS_DEFAULT)))
            memset(g.pool[i], 0, OTF2_CHUNK_SIZE_EVENTS_DEFAULT);
    OTF2_MPI_Archive_SetCollectiveCallbacks(g.ar, MPI_COMM_WORLD, MPI_COMM_NULL);
    OTF2_Archive_SetCreator(g.ar, "retrace libretrace-mpi");
    OTF2_Archive_OpenEvtFiles(g.ar);
    g.ew = OTF2_Archive_GetEvtWriter(g.ar, (OTF2_LocationRef)g.rank);
    g_main_thread = 1;
    char host[256] = "", host0[256];
    gethostname(host, sizeof host - 1);
    memcpy(host0, host, sizeof host0);
    PMPI_Bcast(host0, (int)sizeof host0, MPI_CHAR, 0, g.sync);
    g.same_host = strcmp(host, host0) == 0;
    sync_clock(0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) /* one handler at a time */
        sigaddset(&sa.sa_mask, caught[i]);
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++)
        sigaction(caught[i], &sa, &g.old_act[caught[i]]);
    atexit(on_exit_early);
}

/* The name tables unified over the ranks: each rank's record k gets the global index gid[k]; rank 0 keeps the union. */
static uint32_t *unify(const strtab *local, strtab *uni)
{
    int n = local->n, bytes = (int)local->len, P = g.size;
    int *ns = NULL, *bs = NULL, *nd = NULL, *bd = NULL, *lens = NULL;
    char *data = NULL;
    uint32_t *all = NULL, *gid = malloc((size_t)(n ? n : 1) * sizeof *gid);
    if (g.rank == 0) {
        ns = calloc((size_t)P, sizeof *ns);
        bs = calloc((size_t)P, sizeof *bs);
        nd = calloc((size_t)P, sizeof *nd);
        bd = calloc((size_t)P, sizeof *bd);
        if (!ns || !bs || !nd || !bd)
            abort();
    }
    PMPI_Gather(&n, 1, MPI_INT, ns, 1, MPI_INT, 0, g.sync);
    PMPI_Gather(&bytes, 1, MPI_INT, bs, 1, MPI_INT, 0, g.sync);
    int tn = 0, tb = 0;
    if (g.rank == 0)
        for (int r = 0; r < P; r++) {
            nd[r] = tn, bd[r] = tb;
            tn += ns[r], tb += bs[r];
        }
    if (g.rank == 0) {
        lens = malloc((size_t)(tn ? tn : 1) * sizeof *lens);
        data = malloc((size_t)(tb ? tb : 1));
        all = malloc((size_t)(tn ? tn : 1) * sizeof *all);
        if (!lens || !data || !all)
            abort();
    }
    PMPI_Gatherv(local->lens, n, MPI_INT, lens, ns, nd, MPI_INT, 0, g.sync);
    PMPI_Gatherv(local->data, bytes, MPI_CHAR, data, bs, bd, MPI_CHAR, 0, g.sync);
    if (g.rank == 0) {
        size_t off = 0;
        for (int k = 0; k < tn; k++) { /* records are stored with a terminating NUL */
            all[k] = (uint32_t)strtab_intern(uni, data + off, lens[k]);
            off += (size_t)lens[k] + 1;
        }
    }
    PMPI_Scatterv(all, ns, nd, MPI_UINT32_T, gid, n, MPI_UINT32_T, 0, g.sync);
    free(ns);
    free(bs);
    free(nd);
    free(bd);
    free(lens);
    free(data);
    free(all);
    return gid;
}

static void write_mapping(OTF2_DefWriter *dw, OTF2_MappingType type, uint64_t first, const uint32_t *gid, int n)
{
    if (!n)
        return;
    uint64_t len = first + (uint64_t)n;
    uint64_t *map = malloc(len * sizeof *map);
    if (!map)
        abort();
    for (uint64_t i = 0; i < first; i++)
        map[i] = i;
    for (int k = 0; k < n; k++)
        map[first + (uint64_t)k] = first + gid[k];
    OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array(len, map, false);
    if (m) {
        OTF2_DefWriter_WriteMappingTable(dw, type, m);
        OTF2_IdMap_Free(m);
    }
    free(map);
}

/* At MPI_Finalize: close the events, unify the definitions, write them; remove the marker. */
static void teardown(uint64_t t_end)
{
    uint64_t nev = 0;
    OTF2_EvtWriter_GetNumberOfEvents(g.ew, &nev);
    OTF2_EvtWriter *ew = g.ew;
    g.ew = NULL;
    uint64_t tc = now();
    OTF2_Archive_CloseEvtWriter(g.ar, ew);
    OTF2_Archive_CloseEvtFiles(g.ar);
    if (!flush_began) /* the last flush happens at the close, without a post-flush call */
        flush_ns += now() - tc, flushes++;
    if (getenv("RETRACE_MPI_STATS"))
        fprintf(stderr, "retrace-mpi: rank %d: %llu events, %d communicators (%d inter), %llu flushes in %.6f s "
                "(%.3g events/s)\n", g.rank, (unsigned long long)nev, g.comm_defs.n, g.intercomms,
                (unsigned long long)flushes, flush_ns * 1e-9, flush_ns ? nev / (flush_ns * 1e-9) : 0.0);

    strtab ureg = {0}, ucomm = {0}, upar = {0};
    uint32_t *greg = unify(&g.uregions, &ureg);
    uint32_t *gcomm = unify(&g.comm_defs, &ucomm);
    uint32_t *gpar = unify(&g.params, &upar);

    OTF2_Archive_OpenDefFiles(g.ar);
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(g.ar, (OTF2_LocationRef)g.rank);
    write_mapping(dw, OTF2_MAPPING_REGION, NREGIONS, greg, g.uregions.n);
    write_mapping(dw, OTF2_MAPPING_COMM, COMM_FIRST, gcomm, g.comm_defs.n);
    write_mapping(dw, OTF2_MAPPING_PARAMETER, 0, gpar, g.params.n);
    for (int k = 0; k < 2; k++)
        OTF2_DefWriter_WriteClockOffset(dw, g.sync_when[k], g.sync_off[k], g.sync_sd[k]);
    OTF2_Archive_CloseDefWriter(g.ar, dw);
    OTF2_Archive_CloseDefFiles(g.ar);
    free(greg);
    free(gcomm);
    free(gpar);

    uint64_t first = g.t_start + (uint64_t)g.sync_off[0], last = t_end + (uint64_t)g.sync_off[1], t0 = 0, t1 = 0;
    PMPI_Reduce(&first, &t0, 1, MPI_UINT64_T, MPI_MIN, 0, g.sync);
    PMPI_Reduce(&last, &t1, 1, MPI_UINT64_T, MPI_MAX, 0, g.sync);
    uint64_t *nevents = g.rank == 0 ? malloc((size_t)g.size * sizeof *nevents) : NULL;
    PMPI_Gather(&nev, 1, MPI_UINT64_T, nevents, 1, MPI_UINT64_T, 0, g.sync);
    if (g.rank == 0) {
        OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(g.ar);
        if (w)
            write_global_defs(w, t0, t1 > t0 ? t1 - t0 : 0, nevents, &ureg, &ucomm, &upar);
    }
    free(nevents);
    OTF2_ErrorCode rc = OTF2_Archive_Close(g.ar);
    g.ar = NULL;
    PMPI_Barrier(g.sync);
    if (g.rank == 0) {
        if (rc == OTF2_SUCCESS)
            unlink(g.marker);
        else
            fprintf(stderr, "retrace-mpi: %s: closing the archive: %s\n", g.dir, OTF2_Error_GetDescription(rc));
    }
    strtab_free(&ureg);
    strtab_free(&ucomm);
    strtab_free(&upar);
    strtab_free(&g.uregions);
    strtab_free(&fn_addrs);
    free(fn_region);
    fn_region = NULL;
    fn_known = fn_cap = 0;
    strtab_free(&g.comm_defs);
    strtab_free(&g.params);
    free(g.reqs);
    free(g.comms);
    g.reqs = NULL;
    g.comms = NULL;
    g.nreq = g.reqcap = g.ncomms = g.commcap = 0;
    PMPI_Comm_free(&g.sync);
    PMPI_Group_free(&g.world_group);
}

/* ---- the wrappers ---- */

/* Enter region R at t0 when tracing; "on" says whether the call is recorded. */
#define BEGIN(R)                    \
    uint64_t t0 = now();            \
    int on = tracing();             \
    if (on)                         \
        ev_enter(R, t0)
#define END(R)                      \
    do {                            \
        if (on)                     \
            ev_leave(R, now());     \
    } while (0)

#define RT_PLAIN(n, role, params, args) \
    EXPORT int MPI_##n params           \
    {                                   \
        BEGIN(R_##n);                   \
        int rc = PMPI_##n args;         \
        END(R_##n);                     \
        return rc;                      \
    }
#include "retrace_mpi_plain.h"
#undef RT_PLAIN

EXPORT int MPI_Init(int *argc, char ***argv)
{
    uint64_t t0 = now();
    sigset_t was;
    block_caught(SIG_BLOCK, &was);
    int rc = PMPI_Init(argc, argv);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    if (rc == MPI_SUCCESS && !g.ar) {
        setup(t0);
        if (tracing()) {
            ev_enter(R_Init, t0);
            ev_leave(R_Init, now());
        }
    }
    return rc;
}

EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t0 = now();
    sigset_t was;
    block_caught(SIG_BLOCK, &was);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    if (rc == MPI_SUCCESS && !g.ar) {
        setup(t0);
        if (tracing()) {
            ev_enter(R_Init_thread, t0);
            ev_leave(R_Init_thread, now());
        }
    }
    return rc;
}

EXPORT int MPI_Finalize(void)
{
    if (!g.ar)
        return PMPI_Finalize();
    if (!g_main_thread || !g.ew) /* the archive is closed by the thread that opened it */
        return PMPI_Finalize();
    uint64_t t0 = now();
    ev_enter(R_Finalize, t0);
    sync_clock(1);
    uint64_t t1 = now();
    while (g.depth > 0)
        ev_leave(g.depth <= MAX_DEPTH ? g.stack[g.depth - 1] : R_Finalize, t1);
    teardown(t1);
    return PMPI_Finalize();
}

EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    if (tracing()) {
        uint64_t t = now();
        ev_enter(R_Abort, t);
        ev_leave(R_Abort, t);
        stop_early("MPI_Abort", errorcode);
    }
    return PMPI_Abort(comm, errorcode);
}

/* ---- point to point ---- */

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

/* A blocking send's record (peer and communicator as msg_comm writes them). */
static void recorded_send(int dest, MPI_Comm comm, int tag, uint64_t bytes, uint64_t t)
{
    uint32_t c = msg_comm(comm_id(comm), &dest);
    g.busy = 1;
    OTF2_EvtWriter_MpiSend(g.ew, NULL, t, (uint32_t)dest, c, (uint32_t)tag, bytes);
    g.busy = 0;
}

static int blocking_send(int R, send_fn f, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm)
{
    BEGIN(R);
    if (on && dest != MPI_PROC_NULL)
        recorded_send(dest, comm, tag, type_bytes(count, type), t0);
    int rc = f(buf, count, type, dest, tag, comm);
    END(R);
    return rc;
}

static int nonblocking_send(int R, isend_fn f, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request)
{
    BEGIN(R);
    int rc = f(buf, count, type, dest, tag, comm, request);
    if (on && rc == MPI_SUCCESS)
        req_start_send(*request, 0, dest, tag, comm_id(comm), type_bytes(count, type), t0);
    END(R);
    return rc;
}

/* The four send modes share one wrapper each for the blocking, non-blocking and persistent forms. */
#define RT_BLOCKING_SEND(n)                                                                        \
    EXPORT int MPI_##n(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) \
    {                                                                                              \
        return blocking_send(R_##n, PMPI_##n, buf, count, type, dest, tag, comm);                  \
    }
#define RT_REQUEST_SEND(n, helper)                                                                 \
    EXPORT int MPI_##n(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                       MPI_Request *request)                                                       \
    {                                                                                              \
        return helper(R_##n, PMPI_##n, buf, count, type, dest, tag, comm, request);                \
    }
RT_BLOCKING_SEND(Send)
RT_BLOCKING_SEND(Bsend)
RT_BLOCKING_SEND(Ssend)
RT_BLOCKING_SEND(Rsend)

RT_REQUEST_SEND(Isend, nonblocking_send)
RT_REQUEST_SEND(Ibsend, nonblocking_send)
RT_REQUEST_SEND(Issend, nonblocking_send)
RT_REQUEST_SEND(Irsend, nonblocking_send)

/* A blocking receive completed with status st. */
static void recorded_recv(const MPI_Status *st, MPI_Comm comm, uint64_t t)
{
    if (st->MPI_SOURCE == MPI_PROC_NULL)
        return;
    int src = st->MPI_SOURCE;
    uint32_t c = msg_comm(comm_id(comm), &src);
    g.busy = 1;
    OTF2_EvtWriter_MpiRecv(g.ew, NULL, t, (uint32_t)src, c, (uint32_t)st->MPI_TAG, status_bytes(st));
    g.busy = 0;
}

EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                    MPI_Status *status)
{
    BEGIN(R_Recv);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    if (on) {
        uint64_t t1 = now();
        if (rc == MPI_SUCCESS)
            recorded_recv(st, comm, t1);
        ev_leave(R_Recv, t1);
    }
    return rc;
}

EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request *request)
{
    BEGIN(R_Irecv);
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    if (on && rc == MPI_SUCCESS)
        req_start_recv(*request, 0, comm_id(comm), t0);
    END(R_Irecv);
    return rc;
}

EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                        MPI_Comm comm, MPI_Status *status)
{
    BEGIN(R_Sendrecv);
    if (on && dest != MPI_PROC_NULL)
        recorded_send(dest, comm, sendtag, type_bytes(sendcount, sendtype), t0);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                           recvtag, comm, st);
    if (on) {
        uint64_t t1 = now();
        if (rc == MPI_SUCCESS)
            recorded_recv(st, comm, t1);
        ev_leave(R_Sendrecv, t1);
    }
    return rc;
}

EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                                int recvtag, MPI_Comm comm, MPI_Status *status)
{
    BEGIN(R_Sendrecv_replace);
    if (on && dest != MPI_PROC_NULL)
        recorded_send(dest, comm, sendtag, type_bytes(count, type), t0);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, st);
    if (on) {
        uint64_t t1 = now();
        if (rc == MPI_SUCCESS)
            recorded_recv(st, comm, t1);
        ev_leave(R_Sendrecv_replace, t1);
    }
    return rc;
}

/* ---- persistent requests ---- */

static int send_init(int R, isend_fn f, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    BEGIN(R);
    int rc = f(buf, count, type, dest, tag, comm, request);
    if (on && rc == MPI_SUCCESS) {
        req *r = req_insert(req_key(*request));
        *r = (req){r->key, 0, 1, 1, 0, dest, tag, comm_id(comm), type_bytes(count, type)};
    }
    END(R);
    return rc;
}

RT_REQUEST_SEND(Send_init, send_init)
RT_REQUEST_SEND(Bsend_init, send_init)
RT_REQUEST_SEND(Ssend_init, send_init)
RT_REQUEST_SEND(Rsend_init, send_init)

EXPORT int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                         MPI_Request *request)
{
    BEGIN(R_Recv_init);
    int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, request);
    if (on && rc == MPI_SUCCESS) {
        req *r = req_insert(req_key(*request));
        *r = (req){r->key, 0, 0, 1, 0, source, tag, comm_id(comm), 0};
    }
    END(R_Recv_init);
    return rc;
}

/* A persistent request started. */
static void started(MPI_Request h, uint64_t t)
{
    req *r = req_find(req_key(h));
    if (!r)
        return;
    if (r->send)
        req_start_send(h, 1, r->peer, r->tag, r->comm, r->bytes, t);
    else
        req_start_recv(h, 1, r->comm, t);
}

EXPORT int MPI_Start(MPI_Request *request)
{
    BEGIN(R_Start);
    int rc = PMPI_Start(request);
    if (on && rc == MPI_SUCCESS)
        started(*request, t0);
    END(R_Start);
    return rc;
}

EXPORT int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    BEGIN(R_Startall);
    int rc = PMPI_Startall(count, array_of_requests);
    if (on && rc == MPI_SUCCESS)
        for (int i = 0; i < count; i++)
            started(array_of_requests[i], t0);
    END(R_Startall);
    return rc;
}

EXPORT int MPI_Request_free(MPI_Request *request)
{
    BEGIN(R_Request_free);
    uint64_t key = req_key(*request);
    int rc = PMPI_Request_free(request);
    if (on) {
        req *r = req_find(key);
        if (r)
            req_remove(r);
    }
    END(R_Request_free);
    return rc;
}

EXPORT int MPI_Cancel(MPI_Request *request)
{
    BEGIN(R_Cancel);
    int rc = PMPI_Cancel(request);
    END(R_Cancel);
    return rc;
}

/* ---- completion ---- */

/* Keys of n requests, in a buffer of 64 or allocated; statuses likewise when the caller ignores them. */
typedef struct completion {
    uint64_t kbuf[64], *keys;
    MPI_Status sbuf[64], *st;
} completion;

static void completion_init(completion *c, int n, MPI_Request *reqs, MPI_Status *user)
{
    c->keys = n <= 64 ? c->kbuf : malloc((size_t)n * sizeof *c->keys);
    c->st = user != MPI_STATUSES_IGNORE ? user : n <= 64 ? c->sbuf : malloc((size_t)n * sizeof *c->st);
    if (!c->keys || !c->st)
        abort();
    for (int i = 0; i < n; i++)
        c->keys[i] = req_key(reqs[i]);
}

static void completion_free(completion *c, MPI_Status *user)
{
    if (c->keys != c->kbuf)
        free(c->keys);
    if (c->st != c->sbuf && c->st != user)
        free(c->st);
}

EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    BEGIN(R_Wait);
    uint64_t key = req_key(*request);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Wait(request, st);
    if (on) {
        uint64_t t1 = now();
        if (rc == MPI_SUCCESS)
            req_complete(key, st, t1);
        ev_leave(R_Wait, t1);
    }
    return rc;
}

EXPORT int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    if (!tracing())
        return PMPI_Waitall(count, reqs, statuses);
    BEGIN(R_Waitall);
    completion c;
    completion_init(&c, count, reqs, statuses);
    int rc = PMPI_Waitall(count, reqs, c.st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < count; i++)
            req_complete(c.keys[i], &c.st[i], t1);
    ev_leave(R_Waitall, t1);
    completion_free(&c, statuses);
    return rc;
}

EXPORT int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    if (!tracing())
        return PMPI_Waitany(count, reqs, index, status);
    BEGIN(R_Waitany);
    completion c;
    completion_init(&c, count, reqs, MPI_STATUSES_IGNORE);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Waitany(count, reqs, index, st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        req_complete(c.keys[*index], st, t1);
    ev_leave(R_Waitany, t1);
    completion_free(&c, NULL);
    return rc;
}

EXPORT int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!tracing())
        return PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
    BEGIN(R_Waitsome);
    completion c;
    completion_init(&c, incount, reqs, statuses);
    int rc = PMPI_Waitsome(incount, reqs, outcount, indices, c.st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        for (int i = 0; i < *outcount; i++)
            req_complete(c.keys[indices[i]], &c.st[i], t1);
    ev_leave(R_Waitsome, t1);
    completion_free(&c, statuses);
    return rc;
}

EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    BEGIN(R_Test);
    uint64_t key = req_key(*request);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Test(request, flag, st);
    if (on) {
        uint64_t t1 = now();
        if (rc == MPI_SUCCESS && *flag)
            req_complete(key, st, t1);
        else if (rc == MPI_SUCCESS)
            req_tested(&key, 1, t1);
        ev_leave(R_Test, t1);
    }
    return rc;
}

EXPORT int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (!tracing())
        return PMPI_Testall(count, reqs, flag, statuses);
    BEGIN(R_Testall);
    completion c;
    completion_init(&c, count, reqs, statuses);
    int rc = PMPI_Testall(count, reqs, flag, c.st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS && *flag)
        for (int i = 0; i < count; i++)
            req_complete(c.keys[i], &c.st[i], t1);
    else if (rc == MPI_SUCCESS)
        req_tested(c.keys, count, t1);
    ev_leave(R_Testall, t1);
    completion_free(&c, statuses);
    return rc;
}

EXPORT int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (!tracing())
        return PMPI_Testany(count, reqs, index, flag, status);
    BEGIN(R_Testany);
    completion c;
    completion_init(&c, count, reqs, MPI_STATUSES_IGNORE);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Testany(count, reqs, index, flag, st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        req_complete(c.keys[*index], st, t1);
    else if (rc == MPI_SUCCESS && !*flag)
        req_tested(c.keys, count, t1);
    ev_leave(R_Testany, t1);
    completion_free(&c, NULL);
    return rc;
}

EXPORT int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!tracing())
        return PMPI_Testsome(incount, reqs, outcount, indices, statuses);
    BEGIN(R_Testsome);
    completion c;
    completion_init(&c, incount, reqs, statuses);
    int rc = PMPI_Testsome(incount, reqs, outcount, indices, c.st);
    uint64_t t1 = now();
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
        for (int i = 0; i < *outcount; i++)
            req_complete(c.keys[indices[i]], &c.st[i], t1);
        if (*outcount == 0)
            req_tested(c.keys, incount, t1);
    }
    ev_leave(R_Testsome, t1);
    completion_free(&c, statuses);
    return rc;
}

/* ---- collectives ---- */
/*
 * Bytes of a collective, per rank: what the rank would send to and receive from
 * each member (itself included) if the operation were done with direct messages.
 * Over all members the bytes sent equal the bytes received.
 */

static int comm_size(MPI_Comm c)
{
    int n = 0;
    PMPI_Comm_size(c, &n);
    return n;
}

static int comm_rank(MPI_Comm c)
{
    int r = 0;
    PMPI_Comm_rank(c, &r);
    return r;
}

static uint64_t sum_counts(const int *counts, int n, MPI_Datatype t)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        s += type_bytes(counts[i], t);
    return s;
}

#define COLL_BEGIN(R)                                \
    BEGIN(R);                                        \
    if (on) {                                        \
        g.busy = 1;                                  \
        OTF2_EvtWriter_MpiCollectiveBegin(g.ew, NULL, t0); \
        g.busy = 0;                                  \
    }

static void coll_end(int R, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd)
{
    uint64_t t1 = now();
    g.busy = 1;
    OTF2_EvtWriter_MpiCollectiveEnd(g.ew, NULL, t1, op, comm_id(comm),
                                    root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root, sent, recvd);
    g.busy = 0;
    ev_leave(R, t1);
}

EXPORT int MPI_Barrier(MPI_Comm comm)
{
    COLL_BEGIN(R_Barrier);
    int rc = PMPI_Barrier(comm);
    if (on)
        coll_end(R_Barrier, OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
    return rc;
}

/* The ends of the collectives that have a blocking and a non-blocking form. */
static void bcast_end(int R, MPI_Comm comm, int count, MPI_Datatype t, int root)
{
    uint64_t b = type_bytes(count, t);
    coll_end(R, OTF2_COLLECTIVE_OP_BCAST, comm, root, comm_rank(comm) == root ? b * (uint64_t)comm_size(comm) : 0, b);
}

static void reduce_end(int R, MPI_Comm comm, int count, MPI_Datatype t, int root)
{
    uint64_t b = type_bytes(count, t);
    coll_end(R, OTF2_COLLECTIVE_OP_REDUCE, comm, root, b, comm_rank(comm) == root ? b * (uint64_t)comm_size(comm) : 0);
}

static void allreduce_end(int R, MPI_Comm comm, int count, MPI_Datatype t)
{
    uint64_t b = type_bytes(count, t) * (uint64_t)comm_size(comm);
    coll_end(R, OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1, b, b);
}

static void alltoall_end(int R, MPI_Comm comm, const void *sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount,
                         MPI_Datatype recvtype)
{
    uint64_t P = (uint64_t)comm_size(comm), r = type_bytes(recvcount, recvtype) * P;
    coll_end(R, OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1, sendbuf == MPI_IN_PLACE ? r : type_bytes(sendcount, sendtype) * P,
             r);
}

EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    COLL_BEGIN(R_Bcast);
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    if (on)
        bcast_end(R_Bcast, comm, count, type, root);
    return rc;
}

EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
    COLL_BEGIN(R_Ibcast);
    int rc = PMPI_Ibcast(buf, count, type, root, comm, request);
    if (on)
        bcast_end(R_Ibcast, comm, count, type, root);
    return rc;
}

EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    COLL_BEGIN(R_Ibarrier);
    int rc = PMPI_Ibarrier(comm, request);
    if (on)
        coll_end(R_Ibarrier, OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
    return rc;
}

EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                      MPI_Comm comm)
{
    COLL_BEGIN(R_Reduce);
    int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    if (on)
        reduce_end(R_Reduce, comm, count, type, root);
    return rc;
}

EXPORT int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Request *request)
{
    COLL_BEGIN(R_Ireduce);
    int rc = PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
    if (on)
        reduce_end(R_Ireduce, comm, count, type, root);
    return rc;
}

EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                         MPI_Comm comm)
{
    COLL_BEGIN(R_Allreduce);
    int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    if (on)
        allreduce_end(R_Allreduce, comm, count, type);
    return rc;
}

EXPORT int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, MPI_Request *request)
{
    COLL_BEGIN(R_Iallreduce);
    int rc = PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
    if (on)
        allreduce_end(R_Iallreduce, comm, count, type);
    return rc;
}

EXPORT int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLL_BEGIN(R_Gather);
    int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    if (on) {
        int me = comm_rank(comm);
        uint64_t s = sendbuf == MPI_IN_PLACE ? type_bytes(recvcount, recvtype) : type_bytes(sendcount, sendtype);
        coll_end(R_Gather, OTF2_COLLECTIVE_OP_GATHER, comm, root, s,
                 me == root ? type_bytes(recvcount, recvtype) * (uint64_t)comm_size(comm) : 0);
    }
    return rc;
}

EXPORT int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLL_BEGIN(R_Gatherv);
    int rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    if (on) {
        int me = comm_rank(comm);
        uint64_t s = sendbuf == MPI_IN_PLACE ? type_bytes(recvcounts[me], recvtype) : type_bytes(sendcount, sendtype);
        coll_end(R_Gatherv, OTF2_COLLECTIVE_OP_GATHERV, comm, root, s,
                 me == root ? sum_counts(recvcounts, comm_size(comm), recvtype) : 0);
    }
    return rc;
}

EXPORT int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLL_BEGIN(R_Scatter);
    int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    if (on) {
        int me = comm_rank(comm);
        uint64_t r = recvbuf == MPI_IN_PLACE ? type_bytes(sendcount, sendtype) : type_bytes(recvcount, recvtype);
        coll_end(R_Scatter, OTF2_COLLECTIVE_OP_SCATTER, comm, root,
                 me == root ? type_bytes(sendcount, sendtype) * (uint64_t)comm_size(comm) : 0, r);
    }
    return rc;
}

EXPORT int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    COLL_BEGIN(R_Scatterv);
    int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    if (on) {
        int me = comm_rank(comm);
        uint64_t r = recvbuf == MPI_IN_PLACE ? type_bytes(sendcounts[me], sendtype) : type_bytes(recvcount, recvtype);
        coll_end(R_Scatterv, OTF2_COLLECTIVE_OP_SCATTERV, comm, root,
                 me == root ? sum_counts(sendcounts, comm_size(comm), sendtype) : 0, r);
    }
    return rc;
}

EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm)
{
    COLL_BEGIN(R_Allgather);
    int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    if (on) {
        uint64_t P = (uint64_t)comm_size(comm);
        uint64_t s = sendbuf == MPI_IN_PLACE ? type_bytes(recvcount, recvtype) : type_bytes(sendcount, sendtype);
        coll_end(R_Allgather, OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1, s * P, type_bytes(recvcount, recvtype) * P);
    }
    return rc;
}

EXPORT int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    COLL_BEGIN(R_Allgatherv);
    int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    if (on) {
        int P = comm_size(comm), me = comm_rank(comm);
        uint64_t s = sendbuf == MPI_IN_PLACE ? type_bytes(recvcounts[me], recvtype) : type_bytes(sendcount, sendtype);
        coll_end(R_Allgatherv, OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1, s * (uint64_t)P,
                 sum_counts(recvcounts, P, recvtype));
    }
    return rc;
}

EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm)
{
    COLL_BEGIN(R_Alltoall);
    int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    if (on)
        alltoall_end(R_Alltoall, comm, sendbuf, sendcount, sendtype, recvcount, recvtype);
    return rc;
}

EXPORT int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    COLL_BEGIN(R_Ialltoall);
    int rc = PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
    if (on)
        alltoall_end(R_Ialltoall, comm, sendbuf, sendcount, sendtype, recvcount, recvtype);
    return rc;
}

EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm)
{
    COLL_BEGIN(R_Alltoallv);
    int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    if (on) {
        int P = comm_size(comm);
        uint64_t r = sum_counts(recvcounts, P, recvtype);
        coll_end(R_Alltoallv, OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1,
                 sendbuf == MPI_IN_PLACE ? r : sum_counts(sendcounts, P, sendtype), r);
    }
    return rc;
}

EXPORT int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm)
{
    COLL_BEGIN(R_Reduce_scatter);
    int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
    if (on) {
        int P = comm_size(comm), me = comm_rank(comm);
        coll_end(R_Reduce_scatter, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, -1, sum_counts(recvcounts, P, type),
                 type_bytes(recvcounts[me], type) * (uint64_t)P);
    }
    return rc;
}

EXPORT int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                                    MPI_Op op, MPI_Comm comm)
{
    COLL_BEGIN(R_Reduce_scatter_block);
    int rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
    if (on) {
        uint64_t b = type_bytes(recvcount, type) * (uint64_t)comm_size(comm);
        coll_end(R_Reduce_scatter_block, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1, b, b);
    }
    return rc;
}

EXPORT int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    COLL_BEGIN(R_Scan);
    int rc = PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
    if (on) {
        uint64_t b = type_bytes(count, type), P = (uint64_t)comm_size(comm), me = (uint64_t)comm_rank(comm);
        coll_end(R_Scan, OTF2_COLLECTIVE_OP_SCAN, comm, -1, (P - me) * b, (me + 1) * b);
    }
    return rc;
}

EXPORT int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    COLL_BEGIN(R_Exscan);
    int rc = PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
    if (on) {
        uint64_t b = type_bytes(count, type), P = (uint64_t)comm_size(comm), me = (uint64_t)comm_rank(comm);
        coll_end(R_Exscan, OTF2_COLLECTIVE_OP_EXSCAN, comm, -1, (P - 1 - me) * b, me * b);
    }
    return rc;
}

/* ---- communicators ---- */

#define NEW_COMM(R, creator, call, out)         \
    BEGIN(R);                                   \
    int rc = call;                              \
    if (on && rc == MPI_SUCCESS && *(out) != MPI_COMM_NULL) \
        comm_register(*(out), creator);         \
    END(R);                                     \
    return rc

EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    NEW_COMM(R_Comm_split, CR_SPLIT, PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    NEW_COMM(R_Comm_split_type, CR_SPLIT_TYPE, PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}

EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    NEW_COMM(R_Comm_dup, CR_DUP, PMPI_Comm_dup(comm, newcomm), newcomm);
}

EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    NEW_COMM(R_Comm_create, CR_CREATE, PMPI_Comm_create(comm, group, newcomm), newcomm);
}

EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    NEW_COMM(R_Comm_create_group, CR_CREATE_GROUP, PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}

EXPORT int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                int tag, MPI_Comm *newintercomm)
{
    NEW_COMM(R_Intercomm_create, CR_INTER,
             PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm),
             newintercomm);
}

EXPORT int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    NEW_COMM(R_Intercomm_merge, CR_MERGE, PMPI_Intercomm_merge(intercomm, high, newintracomm), newintracomm);
}

EXPORT int MPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder,
                           MPI_Comm *comm_cart)
{
    NEW_COMM(R_Cart_create, CR_CART, PMPI_Cart_create(old, ndims, dims, periods, reorder, comm_cart), comm_cart);
}

EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    NEW_COMM(R_Cart_sub, CR_CART_SUB, PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm);
}

EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    BEGIN(R_Comm_free);
    MPI_Comm c = *comm;
    int rc = PMPI_Comm_free(comm);
    if (on && rc == MPI_SUCCESS)
        comm_forget(c);
    END(R_Comm_free);
    return rc;
}

/* ---- the user's regions and marks (retrace_mpi.h) ---- */

EXPORT void retrace_mpi_region_begin(const char *name)
{
    if (!tracing() || !name)
        return;
    int k = strtab_intern(&g.uregions, name, (int)strlen(name));
    ev_enter(NREGIONS + k, now());
}

EXPORT void retrace_mpi_region_end(const char *name)
{
    if (!tracing() || !name)
        return;
    int k = strtab_intern(&g.uregions, name, (int)strlen(name));
    ev_leave(NREGIONS + k, now());
}

EXPORT void retrace_mpi_mark(const char *text, long long value)
{
    if (!tracing() || !text)
        return;
    int k = strtab_intern(&g.params, text, (int)strlen(text));
    g.busy = 1;
    OTF2_EvtWriter_ParameterInt(g.ew, NULL, now(), (OTF2_ParameterRef)k, (int64_t)value);
    g.busy = 0;
}

/* ---- -finstrument-functions: the program's own functions as regions ---- */
/*
 * A program compiled with -finstrument-functions and linked with -lretrace-mpi calls
 * these at each function's entry and exit. A function becomes a user region named
 * from the symbol table (elfutils' libdwfl on the running process) when its name
 * passes $RETRACE_MPI_FUNCTIONS: comma-separated fnmatch patterns, "!PATTERN" to leave
 * out (default: every function). The decision is kept per address, so a function is
 * named once; the calls of functions left out cost a lookup and nothing is written.
 */

static const char *fn_name(void *fn)
{
    static const Dwfl_Callbacks cb = {.find_elf = dwfl_linux_proc_find_elf,
                                      .find_debuginfo = dwfl_standard_find_debuginfo};
    if (!fn_dwfl) {
        fn_dwfl = dwfl_begin(&cb);
        if (!fn_dwfl)
            return NULL;
        dwfl_report_begin(fn_dwfl);
        dwfl_linux_proc_report(fn_dwfl, getpid());
        dwfl_report_end(fn_dwfl, NULL, NULL);
    }
    Dwfl_Module *m = dwfl_addrmodule(fn_dwfl, (Dwarf_Addr)(uintptr_t)fn);
    return m ? dwfl_module_addrname(m, (Dwarf_Addr)(uintptr_t)fn) : NULL;
}

/* Whether $RETRACE_MPI_FUNCTIONS lets function name through. */
static int fn_wanted(const char *name)
{
    const char *list = getenv("RETRACE_MPI_FUNCTIONS");
    if (!list || !*list)
        return 1;
    int included = 0, any_include = 0;
    char pat[256];
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n && n < sizeof pat) {
            memcpy(pat, p, n);
            pat[n] = '\0';
            if (pat[0] == '!') {
                if (fnmatch(pat + 1, name, 0) == 0)
                    return 0;
            } else {
                any_include = 1;
                included |= fnmatch(pat, name, 0) == 0;
            }
        }
        p += n + (p[n] == ',');
    }
    return included || !any_include;
}

static int fn_region_of(void *fn)
{
    int k = strtab_intern(&fn_addrs, &fn, (int)sizeof fn);
    if ((size_t)k >= fn_known) {
        fn_region = grow(fn_region, &fn_cap, (size_t)k + 1, sizeof *fn_region);
        const char *name = fn_name(fn);
        fn_region[k] = name && fn_wanted(name) ? NREGIONS + strtab_intern(&g.uregions, name, (int)strlen(name)) : -1;
        fn_known = (size_t)k + 1;
    }
    return fn_region[k];
}

EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    int d = fn_depth++;
    if (d >= FN_DEPTH)
        return;
    fn_recorded[d] = 0;
    if (tracing()) {
        int r = fn_region_of(fn);
        if (r >= 0) {
            ev_enter(r, now());
            fn_recorded[d] = 1;
        }
    }
}

EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)site;
    if (fn_depth == 0)
        return;
    int d = --fn_depth;
    if (d < FN_DEPTH && fn_recorded[d] && tracing())
        ev_leave(fn_region_of(fn), now());
}
