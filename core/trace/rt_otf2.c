/*
 * rt_otf2.c - the OTF2 reader of the neutral event stream (see rt_otf2.h).
 *
 * Shaped for Score-P archives of up to 10^4 locations and 10^8 events: the
 * definitions are read whole (they are small), the events never are. The
 * library's global event reader merges the locations' event files by time
 * and calls one callback per record; next() asks it for a bounded chunk of
 * records at a time and hands out the few events the chunk produced, so the
 * look-ahead is one chunk (CHUNK events) whatever the trace's length.
 *
 * The library reports its errors through one process-wide callback; we keep
 * the last message (per thread) and turn it into a one-line rt_err naming the
 * archive and the part being read, instead of letting it print to stderr.
 */
#include "rt_otf2.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "rt_mem.h"
#include "rt_otf2_records.h"

/* Bits of otf2_src.selected. */
#define HAS_EVT 1
#define HAS_DEF 2

/* Records asked of the library per refill; each yields at most one event. */
#define CHUNK 1024
/* Definition ids above this are refused: the tables are indexed by id. */
#define MAX_DEF_ID (1u << 24)

/* ---- the library's error messages ---- */

static _Thread_local char lib_msg[256];

static OTF2_ErrorCode on_lib_error(void *ud, const char *file, uint64_t line, const char *func,
                                   OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud;
    (void)file;
    (void)line;
    (void)func;
    char text[200] = "";
    if (fmt && *fmt)
        vsnprintf(text, sizeof text, fmt, va);
    snprintf(lib_msg, sizeof lib_msg, "%s%s%s", OTF2_Error_GetDescription(code), *text ? ": " : "",
             text);
    for (char *p = lib_msg; *p; p++) /* one line, whatever the library wrote */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return code;
}

/* The library's message for a failed call: the one its callback kept, else the code's text. */
static const char *lib_error(OTF2_ErrorCode code)
{
    if (!lib_msg[0])
        snprintf(lib_msg, sizeof lib_msg, "%s", OTF2_Error_GetDescription(code));
    return lib_msg;
}

/* ---- definition tables indexed by id ---- */

/* A growing array of elem-byte slots, zeroed when they appear, indexed by id. */
typedef struct idtab {
    char *data;
    size_t n, cap, elem;
} idtab;

/* The slot of id (zeroed when new); NULL when id is too large or memory runs out. */
static void *idtab_at(idtab *t, uint64_t id)
{
    if (id >= MAX_DEF_ID)
        return NULL;
    if (id >= t->n) {
        if (rt_grow((void **)&t->data, &t->cap, (size_t)id + 1, t->elem) != RT_OK)
            return NULL;
        memset(t->data + t->n * t->elem, 0, ((size_t)id + 1 - t->n) * t->elem);
        t->n = (size_t)id + 1;
    }
    return t->data + (size_t)id * t->elem;
}

/* The slot of id when it exists, else NULL (no growth). */
static void *idtab_get(const idtab *t, uint64_t id)
{
    return id < t->n ? t->data + (size_t)id * t->elem : NULL;
}

typedef struct def_node {   /* system tree node */
    int used;
    uint32_t name, parent;
} def_node;

typedef struct def_lgroup { /* location group (an MPI rank, a process) */
    int used;
    uint32_t name, parent;  /* parent: system tree node */
} def_lgroup;

typedef struct def_region {
    int used;
    uint32_t name;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
} def_region;

typedef struct def_group {
    int used;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint32_t n;
    uint64_t *members;
} def_group;

typedef struct def_comm {
    int used;
    uint32_t name, group;
} def_comm;

typedef struct def_loc {
    uint64_t id;
    uint32_t name, group;
    uint64_t nevents;
} def_loc;

/* Everything the global definitions say, before it becomes rt_tdefs. */
typedef struct gdefs {
    idtab strings;          /* char * by string id */
    idtab nodes, lgroups, regions, groups, comms;
    def_loc *locs;
    size_t nlocs, caplocs;
    int have_clock;
    uint64_t resolution, offset;
    int failed;             /* RT_ENOMEM or RT_ERANGE from a callback */
    uint64_t bad_id;        /* the id that was out of range */
} gdefs;

static void gdefs_free(gdefs *g)
{
    for (size_t i = 0; i < g->strings.n; i++)
        free(((char **)g->strings.data)[i]);
    for (size_t i = 0; i < g->groups.n; i++)
        free(((def_group *)g->groups.data)[i].members);
    free(g->strings.data);
    free(g->nodes.data);
    free(g->lgroups.data);
    free(g->regions.data);
    free(g->groups.data);
    free(g->comms.data);
    free(g->locs);
}

/* Slot of id in t, or NULL with g->failed set (the callback then interrupts reading). */
static void *gdefs_slot(gdefs *g, idtab *t, uint64_t id)
{
    void *p = idtab_at(t, id);
    if (!p) {
        g->failed = id >= MAX_DEF_ID ? RT_ERANGE : RT_ENOMEM;
        g->bad_id = id;
    }
    return p;
}

static const char *gstr(const gdefs *g, uint32_t id)
{
    char **p = idtab_get(&g->strings, id);
    return p && *p ? *p : "";
}

/* Keep reading unless a callback failed (g->failed). */
static OTF2_CallbackCode def_status(const gdefs *g)
{
    return g->failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    gdefs *g = ud;
    char **p = gdefs_slot(g, &g->strings, self);
    if (p) {
        free(*p);
        if (!(*p = strdup(s ? s : "")))
            g->failed = RT_ENOMEM;
    }
    return def_status(g);
}

static OTF2_CallbackCode on_clock(void *ud, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime)
{
    (void)length;
    (void)realtime;
    gdefs *g = ud;
    g->have_clock = 1;
    g->resolution = resolution;
    g->offset = offset;
    return def_status(g);
}

static OTF2_CallbackCode on_node(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                  OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    (void)cls;
    gdefs *g = ud;
    def_node *p = gdefs_slot(g, &g->nodes, self);
    if (p)
        *p = (def_node){1, name, parent};
    return def_status(g);
}

static OTF2_CallbackCode on_lgroup(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                    OTF2_LocationGroupRef creator)
{
    (void)type;
    (void)creator;
    gdefs *g = ud;
    def_lgroup *p = gdefs_slot(g, &g->lgroups, self);
    if (p)
        *p = (def_lgroup){1, name, parent};
    return def_status(g);
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nevents,
                                      OTF2_LocationGroupRef group)
{
    (void)type;
    gdefs *g = ud;
    if (rt_grow((void **)&g->locs, &g->caplocs, g->nlocs + 1, sizeof *g->locs) != RT_OK)
        g->failed = RT_ENOMEM;
    else
        g->locs[g->nlocs++] = (def_loc){self, name, group, nevents};
    return def_status(g);
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef canonical, OTF2_StringRef descr,
                                    OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                    uint32_t end)
{
    (void)canonical;
    (void)descr;
    (void)flags;
    (void)file;
    (void)begin;
    (void)end;
    gdefs *g = ud;
    def_region *p = gdefs_slot(g, &g->regions, self);
    if (p)
        *p = (def_region){1, name, role, paradigm};
    return def_status(g);
}

static OTF2_CallbackCode on_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)name;
    (void)flags;
    gdefs *g = ud;
    def_group *p = gdefs_slot(g, &g->groups, self);
    if (p) {
        uint64_t *m = n ? malloc(n * sizeof *m) : NULL;
        if (n && !m) {
            g->failed = RT_ENOMEM;
        } else {
            if (n)
                memcpy(m, members, n * sizeof *m);
            free(p->members);
            *p = (def_group){1, type, paradigm, n, m};
        }
    }
    return def_status(g);
}

static OTF2_CallbackCode on_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)parent;
    (void)flags;
    gdefs *g = ud;
    def_comm *p = gdefs_slot(g, &g->comms, self);
    if (p)
        *p = (def_comm){1, name, group};
    return def_status(g);
}

/* ---- the source ---- */

/* One communicator's ranks as processor indices (self: MPI_COMM_SELF-like, rank 0 = the caller). */
typedef struct comm_map {
    uint32_t id;
    int self;
    int size;
    int *procs;
} comm_map;

/* One event as the callbacks leave it, converted in next(). */
typedef struct pending {
    int kind, proc, region, peer, comm;
    int64_t ticks, tag;
    uint64_t bytes, bytes_in;
} pending;

#define RT_X_ENUM(name, label, params) SK_##name,
enum { RT_OTF2_SKIPPED_RECORDS(RT_X_ENUM) SK_COUNT };
#undef RT_X_ENUM

typedef struct otf2_src {
    rt_tsource base;
    char *anchor;           /* the anchor file's path */
    OTF2_Reader *rd;
    OTF2_GlobalEvtReader *ger;
    uint64_t *locs;         /* location ids in increasing order: processor p is locs[p] */
    size_t nlocs;
    int dense;              /* locs[p] == p for every p: the id is the index */
    unsigned char *selected;/* per processor: HAS_EVT (its event file is read), HAS_DEF (local definitions) */
    comm_map *comms;        /* sorted by id */
    size_t ncomms;
    pending buf[CHUNK];     /* events of the current chunk, head .. n-1 still to hand out */
    size_t head, n;
    int eof;                /* the library has no more records */
    rt_err failure;         /* a read error, reported once the events before it are handed out */
    int reopened;           /* rewound at least once: the open's warnings are not repeated */
    /* warnings found while opening, before the caller could set on_warning: reported by the first next() */
    char early[4][240];
    int nearly, early_lost;
    uint64_t records;       /* records read (events and skipped) since the start */
    uint64_t total_records; /* what the definitions announce, for progress */
    uint64_t evt_bytes;     /* size of the event files read */
    uint64_t skipped[SK_COUNT];
} otf2_src;

static int proc_of(const otf2_src *s, uint64_t loc)
{
    if (s->dense)
        return loc < s->nlocs ? (int)loc : -1;
    size_t lo = 0, hi = s->nlocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->locs[mid] < loc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nlocs && s->locs[lo] == loc ? (int)lo : -1;
}

static const comm_map *comm_of(const otf2_src *s, uint32_t id)
{
    if (id < s->ncomms && s->comms[id].id == id) /* the usual dense numbering */
        return &s->comms[id];
    size_t lo = 0, hi = s->ncomms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->comms[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->ncomms && s->comms[lo].id == id ? &s->comms[lo] : NULL;
}

/* The processor holding rank in communicator comm, as seen from processor self; -1 (warned) when unknown. */
static int rank_proc(otf2_src *s, uint32_t comm, uint32_t rank, int self, const char *what)
{
    if (rank == OTF2_UNDEFINED_UINT32)
        return -1;
    const comm_map *c = comm_of(s, comm);
    if (c && c->self && rank == 0)
        return self;
    if (c && rank < (uint32_t)c->size && c->procs[rank] >= 0)
        return c->procs[rank];
    rt_tsource_warn(&s->base, "%s: %s: rank %u is not in communicator %u", s->anchor, what,
                    (unsigned)rank, (unsigned)comm);
    return -1;
}

/* A warning found while opening: kept (the first few) until the first next() reports it. */
__attribute__((format(printf, 2, 3))) static void early_warn(otf2_src *s, const char *fmt, ...)
{
    if (s->nearly == (int)(sizeof s->early / sizeof *s->early)) {
        s->early_lost++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->early[s->nearly++], sizeof s->early[0], fmt, ap);
    va_end(ap);
}

/* Report the warnings kept by early_warn. */
static void flush_early(otf2_src *s)
{
    for (int i = 0; i < s->nearly; i++)
        rt_tsource_warn(&s->base, "%s", s->early[i]);
    if (s->early_lost)
        rt_tsource_warn(&s->base, "%s: %d more warnings while opening", s->anchor, s->early_lost);
    s->nearly = s->early_lost = 0;
}

static pending *push(otf2_src *s, int kind, OTF2_LocationRef loc, OTF2_TimeStamp t)
{
    pending *e = &s->buf[s->n++]; /* never overflows: a chunk is CHUNK records */
    *e = (pending){kind, proc_of(s, loc), 0, -1, -1, (int64_t)t, 0, 0, 0};
    return e;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)al;
    push(ud, RT_TE_ENTER, loc, t)->region = (int)region;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)al;
    push(ud, RT_TE_LEAVE, loc, t)->region = (int)region;
    return OTF2_CALLBACK_SUCCESS;
}

/* SEND or RECV: peer is a rank in comm. */
static void message(otf2_src *s, int kind, OTF2_LocationRef loc, OTF2_TimeStamp t, uint32_t peer,
                    OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    pending *e = push(s, kind, loc, t);
    e->peer = rank_proc(s, comm, peer, e->proc, kind == RT_TE_SEND ? "MPI_SEND receiver" : "MPI_RECV sender");
    e->comm = comm == OTF2_UNDEFINED_COMM ? -1 : (int)comm;
    e->tag = tag;
    e->bytes = len;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, uint32_t to, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)al;
    message(ud, RT_TE_SEND, loc, t, to, comm, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint32_t to, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    (void)al;
    (void)req;
    message(ud, RT_TE_SEND, loc, t, to, comm, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al, uint32_t from, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    (void)al;
    message(ud, RT_TE_RECV, loc, t, from, comm, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

/* An MpiIrecv record marks the completion of a non-blocking receive: the message arrives here. */
static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint32_t from, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    (void)al;
    (void)req;
    message(ud, RT_TE_RECV, loc, t, from, comm, tag, len);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al)
{
    (void)al;
    push(ud, RT_TE_COLL_BEGIN, loc, t);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                     OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                     OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    (void)al;
    (void)op;
    otf2_src *s = ud;
    pending *e = push(s, RT_TE_COLL_END, loc, t);
    e->comm = comm == OTF2_UNDEFINED_COMM ? -1 : (int)comm;
    e->peer = rank_proc(s, comm, root, e->proc, "MPI_COLLECTIVE_END root");
    e->bytes = sent;
    e->bytes_in = received;
    return OTF2_CALLBACK_SUCCESS;
}

/* One counting callback per record type we skip, with the exact signature the library calls. */
#define RT_UNPAREN(...) __VA_ARGS__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define RT_X_SKIP(name, label, params)                                                          \
    static OTF2_CallbackCode skip_##name(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,      \
                                         OTF2_AttributeList *al RT_UNPAREN params)              \
    {                                                                                           \
        otf2_src *s = ud;                                                                       \
        s->skipped[SK_##name]++;                                                                \
        s->base.skipped++;                                                                      \
        return OTF2_CALLBACK_SUCCESS;                                                           \
    }
RT_OTF2_SKIPPED_RECORDS(RT_X_SKIP)
#undef RT_X_SKIP
#pragma GCC diagnostic pop

static const char *const skip_names[SK_COUNT] = {
#define RT_X_NAME(name, label, params) label,
    RT_OTF2_SKIPPED_RECORDS(RT_X_NAME)
#undef RT_X_NAME
};

int rt_otf2_skipped(const rt_tsource *src, int i, const char **name, uint64_t *count)
{
    if (i < 0 || i >= SK_COUNT)
        return 0;
    if (name)
        *name = skip_names[i];
    if (count)
        *count = ((const otf2_src *)src)->skipped[i];
    return 1;
}

static OTF2_GlobalEvtReaderCallbacks *event_callbacks(void)
{
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
#define RT_X_SET(name, label, params) OTF2_GlobalEvtReaderCallbacks_Set##name##Callback(cb, skip_##name);
    RT_OTF2_SKIPPED_RECORDS(RT_X_SET)
#undef RT_X_SET
    return cb;
}

/* ---- region classes ---- */

static const char *paradigm_name(OTF2_Paradigm p)
{
    static const char *const names[] = {
        "UNKNOWN", "USER", "COMPILER", "OPENMP", "MPI", "CUDA", "MEASUREMENT_SYSTEM", "PTHREAD",
        "HMPP", "OMPSS", "HARDWARE", "GASPI", "UPC", "SHMEM", "WINTHREAD", "QTTHREAD",
        "ACETHREAD", "TBBTHREAD", "OPENACC", "OPENCL", "MTAPI", "SAMPLING", "NONE", "HIP",
        "KOKKOS"};
    return p < sizeof names / sizeof *names ? names[p] : "OTHER";
}

/*
 * The class of a region. The role decides where it is specific (collectives,
 * barriers, file I/O, waits); MPI calls of a general role (point-to-point,
 * function: MPI_Recv and MPI_Wait are both) are told apart by name; the tracer's
 * own regions are TRACING; runtime calls of other paradigms are SYSTEM; code of
 * the user or the compiler is USER unless its name is an MPI call.
 */
static int region_class(OTF2_RegionRole role, OTF2_Paradigm par, const char *name)
{
    if (par == OTF2_PARADIGM_MEASUREMENT_SYSTEM || role == OTF2_REGION_ROLE_ARTIFICIAL)
        return RT_TC_TRACING;
    switch (role) {
    case OTF2_REGION_ROLE_COLL_ONE2ALL:
    case OTF2_REGION_ROLE_COLL_ALL2ONE:
    case OTF2_REGION_ROLE_COLL_ALL2ALL:
    case OTF2_REGION_ROLE_COLL_OTHER:
        return RT_TC_COLLECTIVE;
    case OTF2_REGION_ROLE_BARRIER:
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
    case OTF2_REGION_ROLE_TASK_WAIT:
    case OTF2_REGION_ROLE_THREAD_WAIT:
        return RT_TC_SYNC;
    case OTF2_REGION_ROLE_FILE_IO:
    case OTF2_REGION_ROLE_FILE_IO_METADATA:
        return RT_TC_IO;
    default:
        break;
    }
    int guess = rt_tclass_guess(name);
    switch (par) {
    case OTF2_PARADIGM_MPI:
        return guess == RT_TC_USER ? RT_TC_SYSTEM : guess;
    case OTF2_PARADIGM_UNKNOWN:
    case OTF2_PARADIGM_USER:
    case OTF2_PARADIGM_COMPILER:
    case OTF2_PARADIGM_SAMPLING:
    case OTF2_PARADIGM_NONE:
        return guess;
    default:
        break;
    }
    if (role == OTF2_REGION_ROLE_POINT2POINT)
        return RT_TC_SEND;
    if (role == OTF2_REGION_ROLE_FUNCTION || role == OTF2_REGION_ROLE_WRAPPER ||
        role == OTF2_REGION_ROLE_RMA || role == OTF2_REGION_ROLE_DATA_TRANSFER ||
        role == OTF2_REGION_ROLE_ALLOCATE || role == OTF2_REGION_ROLE_DEALLOCATE ||
        role == OTF2_REGION_ROLE_REALLOCATE || role == OTF2_REGION_ROLE_THREAD_CREATE ||
        role == OTF2_REGION_ROLE_TASK_CREATE || role == OTF2_REGION_ROLE_FLUSH)
        return RT_TC_SYSTEM;
    return RT_TC_USER; /* parallel regions, loops, sections, tasks: the threads' own work */
}

/* ---- building the definitions ---- */

static int cmp_loc(const void *a, const void *b)
{
    uint64_t x = ((const def_loc *)a)->id, y = ((const def_loc *)b)->id;
    return x < y ? -1 : x > y;
}

static int cmp_comm(const void *a, const void *b)
{
    uint32_t x = ((const comm_map *)a)->id, y = ((const comm_map *)b)->id;
    return x < y ? -1 : x > y;
}

/* Append s to buf (cap bytes, NUL-terminated), with sep first when buf is not empty. */
static void append(char *buf, size_t cap, const char *sep, const char *s)
{
    size_t n = strlen(buf);
    if (n && n + 1 < cap)
        n += (size_t)snprintf(buf + n, cap - n, "%s", sep);
    if (n + 1 < cap)
        snprintf(buf + n, cap - n, "%s", s);
}

/* The system tree from the root down to node id, '/'-separated, into buf. */
static void node_path(const gdefs *g, uint32_t id, char *buf, size_t cap, int depth)
{
    const def_node *n = idtab_get(&g->nodes, id);
    if (!n || !n->used || depth > 64) /* depth: a cycle in a broken file */
        return;
    if (n->parent != id)
        node_path(g, n->parent, buf, cap, depth + 1);
    append(buf, cap, "/", gstr(g, n->name));
}

/* The location ids of a group that lists locations (NULL with *n = 0 for other groups). */
static const uint64_t *group_locations(const def_group *gr, uint32_t *n)
{
    *n = 0;
    if (gr->type == OTF2_GROUP_TYPE_COMM_LOCATIONS || gr->type == OTF2_GROUP_TYPE_LOCATIONS) {
        *n = gr->n;
        return gr->members;
    }
    return NULL;
}

static int build_comms(otf2_src *s, const gdefs *g, rt_err *err)
{
    rt_tdefs *d = s->base.defs;
    size_t count = 0;
    for (size_t i = 0; i < g->comms.n; i++)
        count += ((def_comm *)g->comms.data)[i].used;
    s->comms = calloc(count ? count : 1, sizeof *s->comms);
    if (!s->comms)
        goto nomem;
    for (size_t i = 0; i < g->comms.n; i++) {
        const def_comm *c = (def_comm *)g->comms.data + i;
        if (!c->used)
            continue;
        comm_map *m = &s->comms[s->ncomms++];
        m->id = (uint32_t)i;
        const def_group *gr = idtab_get(&g->groups, c->group);
        if (gr && gr->used && gr->type == OTF2_GROUP_TYPE_COMM_SELF) {
            m->self = 1;
            m->size = 1;
        } else if (gr && gr->used) {
            /* COMM_GROUP members are ranks into the COMM_LOCATIONS group of the same paradigm */
            const def_group *base = NULL;
            if (gr->type == OTF2_GROUP_TYPE_COMM_GROUP)
                for (size_t k = 0; k < g->groups.n && !base; k++) {
                    const def_group *b = (def_group *)g->groups.data + k;
                    if (b->used && b->type == OTF2_GROUP_TYPE_COMM_LOCATIONS && b->paradigm == gr->paradigm)
                        base = b;
                }
            uint32_t nbase = 0;
            const uint64_t *locs = base ? group_locations(base, &nbase) : group_locations(gr, &nbase);
            m->size = (int)gr->n;
            m->procs = malloc((gr->n ? gr->n : 1) * sizeof *m->procs);
            if (!m->procs)
                goto nomem;
            for (uint32_t r = 0; r < gr->n; r++) {
                uint64_t loc = base ? (gr->members[r] < nbase ? locs[gr->members[r]] : UINT64_MAX)
                                    : (locs ? locs[r] : UINT64_MAX);
                m->procs[r] = proc_of(s, loc);
            }
        }
        if (rt_tdefs_add_comm(d, (int)m->id, gstr(g, c->name), m->size, m->procs) != RT_OK)
            goto nomem;
    }
    qsort(s->comms, s->ncomms, sizeof *s->comms, cmp_comm);
    return RT_OK;
nomem:
    return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
}

static int build_defs(otf2_src *s, gdefs *g, rt_err *err)
{
    rt_tdefs *d = s->base.defs;
    for (size_t i = 0; i < g->regions.n; i++) {
        const def_region *r = (def_region *)g->regions.data + i;
        if (!r->used)
            continue;
        const char *name = gstr(g, r->name);
        if (rt_tdefs_add_region(d, (int)i, name, paradigm_name(r->paradigm),
                                region_class(r->role, r->paradigm, name)) != RT_OK)
            goto nomem;
    }
    qsort(g->locs, g->nlocs, sizeof *g->locs, cmp_loc);
    s->nlocs = g->nlocs;
    s->locs = malloc((g->nlocs ? g->nlocs : 1) * sizeof *s->locs);
    s->selected = calloc(g->nlocs ? g->nlocs : 1, 1);
    if (!s->locs || !s->selected)
        goto nomem;
    s->dense = 1;
    for (size_t p = 0; p < g->nlocs; p++) {
        if (p && g->locs[p].id == g->locs[p - 1].id)
            return rt_err_set(err, RT_EFORMAT, "%s: definitions: location %llu defined twice",
                              s->anchor, (unsigned long long)g->locs[p].id);
        s->locs[p] = g->locs[p].id;
        s->dense &= g->locs[p].id == p;
        char name[512] = "", path[1024] = "";
        const def_lgroup *lg = idtab_get(&g->lgroups, g->locs[p].group);
        if (lg && lg->used) {
            append(name, sizeof name, "", gstr(g, lg->name));
            node_path(g, lg->parent, path, sizeof path, 0);
            append(path, sizeof path, "/", gstr(g, lg->name));
        }
        append(name, sizeof name, " / ", gstr(g, g->locs[p].name));
        append(path, sizeof path, "/", gstr(g, g->locs[p].name));
        int st = rt_tdefs_set_proc(d, (int)p, name, path);
        if (st == RT_ERANGE)
            return rt_err_set(err, st, "%s: definitions: %zu locations, more than %d", s->anchor,
                              g->nlocs, RT_TE_MAXPROC);
        if (st != RT_OK)
            goto nomem;
    }
    if (g->have_clock)
        rt_tdefs_set_clock(d, g->resolution, (int64_t)g->offset);
    else
        early_warn(s, "%s: definitions: no clock properties; times are raw ticks", s->anchor);
    return build_comms(s, g, err);
nomem:
    return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
}

/* The archive's folder of per-location files: the anchor's path without ".otf2". */
static char *archive_folder(const char *anchor)
{
    size_t n = strlen(anchor);
    char *f = malloc(n + 1);
    if (f) {
        memcpy(f, anchor, n + 1);
        if (n > 5 && strcmp(f + n - 5, ".otf2") == 0)
            f[n - 5] = '\0';
    }
    return f;
}

/* The last component of a path. */
static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/*
 * Decide which locations are read: each needs its event file. A missing file
 * is an error when the definitions say the location has events, and an empty
 * location otherwise. Checked for the POSIX substrate (one file per location);
 * other substrates are left to the library.
 */
static int check_event_files(otf2_src *s, const gdefs *g, rt_err *err)
{
    OTF2_FileSubstrate sub = OTF2_SUBSTRATE_POSIX;
    OTF2_Reader_GetFileSubstrate(s->rd, &sub);
    if (sub != OTF2_SUBSTRATE_POSIX) {
        memset(s->selected, HAS_EVT | HAS_DEF, s->nlocs);
        return RT_OK;
    }
    char *folder = archive_folder(s->anchor);
    if (!folder)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
    int st = RT_OK;
    size_t cap = strlen(folder) + 32;
    char *file = malloc(cap);
    for (size_t p = 0; file && p < s->nlocs && st == RT_OK; p++) {
        struct stat sb;
        snprintf(file, cap, "%s/%llu.def", folder, (unsigned long long)s->locs[p]);
        if (stat(file, &sb) == 0)
            s->selected[p] |= HAS_DEF;
        snprintf(file, cap, "%s/%llu.evt", folder, (unsigned long long)s->locs[p]);
        int found = stat(file, &sb) == 0;
        if (found && S_ISREG(sb.st_mode)) {
            s->selected[p] |= HAS_EVT;
            s->evt_bytes += (uint64_t)sb.st_size;
            s->total_records += g->locs[p].nevents;
        } else if (g->locs[p].nevents > 0)
            st = rt_err_set(err, RT_EFORMAT, "%s: %s/%llu.evt: event file of location %llu (%s, %llu events) is %s",
                            s->anchor, base_name(folder), (unsigned long long)s->locs[p],
                            (unsigned long long)s->locs[p], rt_tdefs_proc(s->base.defs, (int)p)->name,
                            (unsigned long long)g->locs[p].nevents,
                            found ? "not a regular file" : errno == ENOENT ? "missing" : strerror(errno));
    }
    if (!file)
        st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
    free(file);
    free(folder);
    return st;
}

static int read_global_defs(otf2_src *s, rt_err *err)
{
    gdefs g = {.strings = {.elem = sizeof(char *)},
               .nodes = {.elem = sizeof(def_node)},
               .lgroups = {.elem = sizeof(def_lgroup)},
               .regions = {.elem = sizeof(def_region)},
               .groups = {.elem = sizeof(def_group)},
               .comms = {.elem = sizeof(def_comm)}};
    int st = RT_OK;
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(s->rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !cb) {
        st = rt_err_set(err, RT_EFORMAT, "%s: global definitions: cannot be opened: %s", s->anchor,
                        lib_error(OTF2_ERROR_FILE_CAN_NOT_OPEN));
        goto done;
    }
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_Reader_RegisterGlobalDefCallbacks(s->rd, gdr, cb, &g);
    uint64_t n = 0;
    lib_msg[0] = '\0';
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(s->rd, gdr, &n);
    if (g.failed == RT_ERANGE)
        st = rt_err_set(err, RT_EFORMAT, "%s: global definitions: id %llu too large (limit %u)",
                        s->anchor, (unsigned long long)g.bad_id, MAX_DEF_ID);
    else if (g.failed)
        st = rt_err_set(err, g.failed, "%s: out of memory", s->anchor);
    else if (rc != OTF2_SUCCESS)
        st = rt_err_set(err, RT_EFORMAT, "%s: global definitions: %s", s->anchor, lib_error(rc));
    else if (g.nlocs == 0)
        st = rt_err_set(err, RT_EFORMAT, "%s: global definitions: no locations", s->anchor);
    else if ((st = build_defs(s, &g, err)) == RT_OK)
        st = check_event_files(s, &g, err);
done:
    if (cb)
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (gdr)
        OTF2_Reader_CloseGlobalDefReader(s->rd, gdr);
    gdefs_free(&g);
    return st;
}

/* ---- the event reader ---- */

/* Open the library's reader on the anchor; the definitions are read separately. */
static int open_reader(otf2_src *s, rt_err *err)
{
    lib_msg[0] = '\0';
    s->rd = OTF2_Reader_Open(s->anchor);
    if (!s->rd)
        return rt_err_set(err, RT_EFORMAT, "%s: anchor: %s", s->anchor,
                          lib_error(OTF2_ERROR_FILE_CAN_NOT_OPEN));
    OTF2_Reader_SetSerialCollectiveCallbacks(s->rd);
    OTF2_Boolean yes = OTF2_TRUE;
    OTF2_Reader_SetHint(s->rd, OTF2_HINT_GLOBAL_READER, &yes);
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_GetNumberOfLocations(s->rd, &n);
    if (rc != OTF2_SUCCESS)
        return rt_err_set(err, RT_EFORMAT, "%s: anchor: %s", s->anchor, lib_error(rc));
    return RT_OK;
}

/* "%s: FOLDER/LOC.EXT: what: library message" for a failure on one location's file. */
static int loc_error(otf2_src *s, size_t p, const char *ext, const char *what, OTF2_ErrorCode rc,
                     rt_err *err)
{
    char *folder = archive_folder(s->anchor);
    rt_err_set(err, RT_EFORMAT, "%s: %s/%llu.%s: %s: %s", s->anchor, folder ? base_name(folder) : "?",
               (unsigned long long)s->locs[p], ext, what, lib_error(rc));
    free(folder);
    return RT_EFORMAT;
}

/*
 * Select the locations to read, read their local definitions (the library
 * applies their id mappings and clock offsets to the events), open their event
 * files and the global reader that merges them by time.
 */
static int open_events(otf2_src *s, rt_err *err)
{
    OTF2_Reader *rd = s->rd;
    OTF2_ErrorCode rc;
    lib_msg[0] = '\0';
    int some_defs = 0;
    for (size_t p = 0; p < s->nlocs; p++) {
        some_defs |= s->selected[p] & HAS_DEF;
        if ((s->selected[p] & HAS_EVT) && (rc = OTF2_Reader_SelectLocation(rd, s->locs[p])) != OTF2_SUCCESS)
            return loc_error(s, p, "evt", "cannot select location", rc, err);
    }
    int defs_open = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS; /* archives may have no local definitions */
    if ((rc = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS)
        return rt_err_set(err, RT_EFORMAT, "%s: event files: %s", s->anchor, lib_error(rc));
    for (size_t p = 0; p < s->nlocs; p++) {
        if (!(s->selected[p] & HAS_EVT))
            continue;
        if (some_defs && !(s->selected[p] & HAS_DEF) && !s->reopened)
            early_warn(s, "%s: location %llu: no local definitions; its clock offsets and id mappings are not applied",
                       s->anchor, (unsigned long long)s->locs[p]);
        OTF2_DefReader *dr = defs_open && (s->selected[p] & HAS_DEF) ? OTF2_Reader_GetDefReader(rd, s->locs[p]) : NULL;
        if (dr) {
            uint64_t n = 0;
            lib_msg[0] = '\0';
            rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
            OTF2_Reader_CloseDefReader(rd, dr);
            if (rc != OTF2_SUCCESS)
                return loc_error(s, p, "def", "local definitions", rc, err);
        }
        lib_msg[0] = '\0';
        if (!OTF2_Reader_GetEvtReader(rd, s->locs[p]))
            return loc_error(s, p, "evt", "events", OTF2_ERROR_FILE_CAN_NOT_OPEN, err);
    }
    if (defs_open)
        OTF2_Reader_CloseDefFiles(rd);
    lib_msg[0] = '\0';
    s->ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *cb = s->ger ? event_callbacks() : NULL;
    if (!cb)
        return rt_err_set(err, RT_EFORMAT, "%s: events: %s", s->anchor,
                          lib_error(OTF2_ERROR_MEM_ALLOC_FAILED));
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, s->ger, cb, s);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    s->head = s->n = 0;
    s->records = 0;
    s->eof = 0;
    s->failure.status = RT_OK;
    return RT_OK;
}

static int otf2_next(rt_tsource *base, rt_tevent *ev, rt_err *err)
{
    otf2_src *s = (otf2_src *)base;
    if (s->nearly || s->early_lost)
        flush_early(s);
    while (s->head == s->n) {
        if (s->failure.status != RT_OK) {
            if (err)
                *err = s->failure;
            return s->failure.status;
        }
        if (s->eof)
            return RT_EEOF;
        s->head = s->n = 0;
        uint64_t got = 0;
        lib_msg[0] = '\0';
        OTF2_ErrorCode rc = OTF2_Reader_ReadGlobalEvents(s->rd, s->ger, CHUNK, &got);
        s->records += got;
        s->eof = got == 0;
        if (rc != OTF2_SUCCESS) /* the events of the chunk before the error still count */
            rt_err_set(&s->failure, RT_EFORMAT, "%s: events: after record %llu: %s", s->anchor,
                       (unsigned long long)s->records, lib_error(rc));
    }
    const pending *e = &s->buf[s->head++];
    ev->kind = e->kind;
    ev->proc = e->proc;
    ev->ticks = e->ticks;
    ev->time = rt_tdefs_seconds(base->defs, e->ticks);
    ev->region = e->region;
    ev->task = 0;
    ev->peer = e->peer;
    ev->tag = e->tag;
    ev->comm = e->comm;
    ev->bytes = (double)e->bytes;
    ev->bytes_in = (double)e->bytes_in;
    ev->ndata = 0;
    ev->line = 0;
    ev->raw = NULL;
    return RT_OK;
}

static int otf2_rewind(rt_tsource *base, rt_err *err)
{
    otf2_src *s = (otf2_src *)base;
    OTF2_Reader_Close(s->rd);
    s->rd = NULL;
    s->ger = NULL;
    memset(s->skipped, 0, sizeof s->skipped);
    s->reopened = 1;
    int st = open_reader(s, err);
    return st == RT_OK ? open_events(s, err) : st;
}

/* Progress: the event files' bytes, scaled by the share of the records read so far. */
static uint64_t otf2_size(const rt_tsource *base)
{
    return ((const otf2_src *)base)->evt_bytes;
}

static uint64_t otf2_offset(const rt_tsource *base)
{
    const otf2_src *s = (const otf2_src *)base;
    if (!s->total_records || s->eof)
        return s->eof ? s->evt_bytes : 0;
    double share = (double)s->records / (double)s->total_records;
    return (uint64_t)((double)s->evt_bytes * (share < 1 ? share : 1));
}

static void otf2_free(rt_tsource *base)
{
    otf2_src *s = (otf2_src *)base;
    if (s->rd)
        OTF2_Reader_Close(s->rd);
    for (size_t i = 0; i < s->ncomms; i++)
        free(s->comms[i].procs);
    free(s->comms);
    free(s->locs);
    free(s->selected);
    free(s->anchor);
    free(s);
}

static const rt_tsource_ops otf2_ops = {"otf2", otf2_next, otf2_rewind, otf2_offset, otf2_size,
                                        otf2_free};

/* ---- finding the anchor ---- */

static int anchor_magic(const unsigned char *h, size_t n)
{
    return n >= 7 && h[0] == 0x03 && (h[1] == 'B' || h[1] == 'L') && memcmp(h + 2, "OTF2", 5) == 0;
}

static int file_has_magic(const char *path)
{
    unsigned char h[8];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    return anchor_magic(h, n);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* The anchors (*.otf2 files with the magic) in directory dir: their count, the first in *first (malloc'd). */
static int dir_anchors(const char *dir, char **first)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int count = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!ends_with(de->d_name, ".otf2"))
            continue;
        size_t cap = strlen(dir) + strlen(de->d_name) + 2;
        char *p = malloc(cap);
        if (!p)
            break;
        snprintf(p, cap, "%s/%s", dir, de->d_name);
        if (file_has_magic(p)) {
            if (count++ == 0 && first)
                *first = p, p = NULL;
        }
        free(p);
    }
    closedir(d);
    return count;
}

/* The anchor named by path (itself, or the one anchor in the directory path), malloc'd in *anchor. */
static int find_anchor(const char *path, char **anchor, rt_err *err)
{
    struct stat sb;
    *anchor = NULL;
    if (stat(path, &sb) != 0)
        return rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
    if (!S_ISDIR(sb.st_mode)) {
        if (!file_has_magic(path))
            return rt_err_set(err, RT_EFORMAT, "%s: anchor: not an OTF2 anchor file (no OTF2 magic)", path);
        *anchor = strdup(path);
        return *anchor ? RT_OK : rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    }
    int n = dir_anchors(path, anchor);
    if (n == 1)
        return RT_OK;
    free(*anchor);
    *anchor = NULL;
    if (n < 0)
        return rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
    if (n == 0)
        return rt_err_set(err, RT_EFORMAT, "%s: no OTF2 anchor file (*.otf2) in this directory", path);
    return rt_err_set(err, RT_EFORMAT, "%s: %d OTF2 anchor files in this directory; name one", path, n);
}

int rt_otf2_sniff(const char *path, const unsigned char *head, size_t n)
{
    if (head && n)
        return anchor_magic(head, n);
    struct stat sb;
    if (!path || stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    return dir_anchors(path, NULL) == 1;
}

int rt_otf2_sniff_part(const char *path, const unsigned char *head, size_t n)
{
    /* a def or evt file starts with the same endianness record as the anchor, then a chunk header */
    if (!head || n < 3 || head[0] != 0x03 || (head[1] != 'B' && head[1] != 'L') || head[2] != 0x01)
        return 0;
    return !path || ends_with(path, ".def") || ends_with(path, ".evt");
}

rt_tsource *rt_otf2_open(const char *path, rt_err *err)
{
    OTF2_Error_RegisterCallback(on_lib_error, NULL);
    char *anchor = NULL;
    if (find_anchor(path, &anchor, err) != RT_OK)
        return NULL;
    otf2_src *s = calloc(1, sizeof *s);
    if (!s) {
        free(anchor);
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    s->anchor = anchor;
    if (rt_tsource_init(&s->base, &otf2_ops, path, err) != RT_OK) {
        otf2_free(&s->base);
        return NULL;
    }
    if (open_reader(s, err) != RT_OK || read_global_defs(s, err) != RT_OK ||
        open_events(s, err) != RT_OK) {
        rt_tsource_free(&s->base);
        return NULL;
    }
    return &s->base;
}
