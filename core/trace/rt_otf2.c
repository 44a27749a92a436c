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
 * The definitions are read by rt_otf2_defs.c; this file opens the archive,
 * checks its files, turns the library's event callbacks into neutral events
 * and counts the records it skips.
 */
#include "rt_otf2.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "rt_otf2_defs.h"
#include "rt_otf2_records.h"

/* Bits of otf2_src.selected. */
#define HAS_EVT 1
#define HAS_DEF 2
/* a local definition file of a chunk header and its end marks alone (18 + 2 bytes, as the OTF2
 * writer leaves a location that defined nothing): nothing to read, so not opened (the library
 * would clear a definition chunk per location, seconds for thousands of locations) */
#define DEF_EMPTY 4
#define EMPTY_DEF_BYTES 20

/* Records asked of the library per refill; each yields at most one event. */
#define CHUNK 1024

/* ---- the source ---- */

/* One event as the callbacks leave it, converted in next(). */
typedef struct pending {
    int kind, proc, region, peer, comm;
    int64_t ticks, tag;
    uint64_t bytes, bytes_in;
    uint64_t idx;           /* its index among its location's events (the serial key's third part) */
} pending;

#define RT_X_ENUM(name, label, params) SK_##name,
enum { RT_OTF2_SKIPPED_RECORDS(RT_X_ENUM) SK_COUNT };
#undef RT_X_ENUM

typedef struct otf2_src {
    rt_tsource base;
    char *anchor;           /* the anchor file's path */
    OTF2_Reader *rd;
    OTF2_GlobalEvtReader *ger;
    rt_otf2_map map;        /* location ids and communicator ranks -> processors */
    unsigned char *selected;/* per processor: HAS_EVT (its event file is read), HAS_DEF (local definitions) */
    /* events read: head .. ready-1 sorted by key and ready to hand out, ready .. n-1 waiting
     * for the reader to pass their time stamp (ties are put in key order first) */
    pending *buf;
    size_t head, ready, n, cap;
    uint64_t *nextidx;      /* per processor: events produced so far */
    int part_rank, part_size; /* the locations read: p % part_size == part_rank (size 1: all) */
    int eof;                /* the library has no more records */
    rt_err failure;         /* a read error, reported once the events before it are handed out */
    int reopened;           /* rewound at least once: the open's warnings are not repeated */
    int pending_open;       /* rewound: the reader is opened again at the next read */
    /* warnings found while opening, before the caller could set on_warning: reported by the first next() */
    char early[4][240];
    int nearly, early_lost;
    uint64_t records;       /* records read (events and skipped) since the start */
    uint64_t total_records; /* what the definitions announce, for progress */
    uint64_t evt_bytes;     /* size of the event files read */
    uint64_t skipped[SK_COUNT];
} otf2_src;

/* The processor holding rank in communicator comm, as seen from processor self; -1 (warned) when unknown. */
static int rank_proc(otf2_src *s, uint32_t comm, uint32_t rank, int self, const char *what)
{
    if (rank == OTF2_UNDEFINED_UINT32)
        return -1;
    const rt_otf2_comm *c = rt_otf2_comm_of(&s->map, comm);
    if (c && c->self && rank == 0)
        return self;
    if (c && rank < (uint32_t)c->size && c->procs[rank] >= 0)
        return c->procs[rank];
    const rt_tproc *tp = self >= 0 ? rt_tdefs_proc(s->base.defs, self) : NULL;
    rt_tsource_warn(&s->base, "%s: %s: %s: rank %u is not in communicator %u", s->anchor,
                    tp && tp->name[0] ? tp->name : "unknown location", what, (unsigned)rank, (unsigned)comm);
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
    assert(s->n < s->cap); /* a refill reads at most CHUNK records, each at most one event */
    pending *e = &s->buf[s->n++];
    int p = rt_otf2_proc(&s->map, loc);
    uint64_t idx = p >= 0 && (size_t)p < s->map.nlocs ? s->nextidx[p]++ : 0;
    *e = (pending){kind, p, 0, -1, -1, (int64_t)t, 0, 0, 0, idx};
    return e;
}

/* The serial order: time stamp, location (processor) index, index in the location. */
static int pending_cmp(const void *a, const void *b)
{
    const pending *x = a, *y = b;
    if (x->ticks != y->ticks)
        return x->ticks < y->ticks ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
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
static int check_event_files(otf2_src *s, rt_err *err)
{
    OTF2_FileSubstrate sub = OTF2_SUBSTRATE_POSIX;
    OTF2_Reader_GetFileSubstrate(s->rd, &sub);
    if (sub != OTF2_SUBSTRATE_POSIX) {
        for (size_t p = 0; p < s->map.nlocs; p++)
            if (s->part_size <= 1 || (int)(p % (size_t)s->part_size) == s->part_rank)
                s->selected[p] = HAS_EVT | HAS_DEF;
        return RT_OK;
    }
    char *folder = archive_folder(s->anchor);
    if (!folder)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
    int st = RT_OK;
    size_t cap = strlen(folder) + 32;
    char *file = malloc(cap);
    for (size_t p = 0; file && p < s->map.nlocs && st == RT_OK; p++) {
        struct stat sb;
        if (s->part_size > 1 && (int)(p % (size_t)s->part_size) != s->part_rank)
            continue; /* another rank's location */
        snprintf(file, cap, "%s/%llu.def", folder, (unsigned long long)s->map.locs[p]);
        if (stat(file, &sb) == 0)
            s->selected[p] |= HAS_DEF | (S_ISREG(sb.st_mode) && sb.st_size <= EMPTY_DEF_BYTES ? DEF_EMPTY : 0);
        snprintf(file, cap, "%s/%llu.evt", folder, (unsigned long long)s->map.locs[p]);
        int found = stat(file, &sb) == 0;
        if (found && S_ISREG(sb.st_mode) && sb.st_size == 0) /* a writer killed before its first flush */
            early_warn(s, "%s: %s/%llu.evt: empty event file; location %llu read as having no events", s->anchor,
                       base_name(folder), (unsigned long long)s->map.locs[p], (unsigned long long)s->map.locs[p]);
        else if (found && S_ISREG(sb.st_mode)) {
            s->selected[p] |= HAS_EVT;
            s->evt_bytes += (uint64_t)sb.st_size;
            s->total_records += s->map.nevents[p];
        } else if (s->map.nevents[p] > 0)
            st = rt_err_set(err, RT_EFORMAT, "%s: %s/%llu.evt: event file of location %llu (%s, %llu events) is %s",
                            s->anchor, base_name(folder), (unsigned long long)s->map.locs[p],
                            (unsigned long long)s->map.locs[p], rt_tdefs_proc(s->base.defs, (int)p)->name,
                            (unsigned long long)s->map.nevents[p],
                            found ? "not a regular file" : errno == ENOENT ? "missing" : strerror(errno));
    }
    if (!file)
        st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
    free(file);
    free(folder);
    return st;
}

/*
 * An archive whose writer did not finish: libretrace-mpi leaves FOLDER.incomplete
 * beside the anchor (its first line says so, the others which rank stopped how)
 * until every rank has returned from MPI_Finalize. The events are read as far
 * as each location's file goes.
 */
static void warn_incomplete(otf2_src *s)
{
    char *folder = archive_folder(s->anchor);
    size_t cap = folder ? strlen(folder) + 16 : 0;
    char *marker = folder ? malloc(cap) : NULL;
    FILE *f = NULL;
    if (marker) {
        snprintf(marker, cap, "%s.incomplete", folder);
        f = fopen(marker, "r");
    }
    if (f) {
        char line[160], notes[200] = "";
        for (int i = 0; fgets(line, sizeof line, f); i++) {
            line[strcspn(line, "\n")] = '\0';
            if (i == 0)
                continue;
            size_t n = strlen(notes);
            if (n + strlen(line) + 3 >= sizeof notes) {
                snprintf(notes + n, sizeof notes - n, "%s...", n ? "; " : "");
                break;
            }
            snprintf(notes + n, sizeof notes - n, "%s%s", n ? "; " : "", line);
        }
        fclose(f);
        early_warn(s, "%s: incomplete archive (%s): events read as far as each location's file goes%s%s", s->anchor,
                   base_name(marker), *notes ? "; " : "", notes);
    }
    free(marker);
    free(folder);
}

/* The definitions, the locations to read and the open's warnings. */
static int read_defs(otf2_src *s, rt_err *err)
{
    int st = rt_otf2_read_defs(s->rd, s->anchor, s->base.defs, &s->map, err);
    if (st != RT_OK)
        return st;
    if (s->part_rank == 0) { /* about the whole archive: told by one part */
        if (!s->map.have_clock)
            early_warn(s, "%s: definitions: no clock properties; times are raw ticks", s->anchor);
        warn_incomplete(s);
    }
    s->selected = calloc(s->map.nlocs ? s->map.nlocs : 1, 1);
    s->nextidx = calloc(s->map.nlocs ? s->map.nlocs : 1, sizeof *s->nextidx);
    if (!s->selected || !s->nextidx)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
    return check_event_files(s, err);
}

/* ---- the event reader ---- */

/* Open the library's reader on the anchor; the definitions are read separately. */
static int open_reader(otf2_src *s, rt_err *err)
{
    rt_otf2_error_clear();
    s->rd = OTF2_Reader_Open(s->anchor);
    if (!s->rd)
        return rt_err_set(err, RT_EFORMAT, "%s: anchor: %s", s->anchor,
                          rt_otf2_error(OTF2_ERROR_FILE_CAN_NOT_OPEN));
    OTF2_Reader_SetSerialCollectiveCallbacks(s->rd);
    OTF2_Boolean yes = OTF2_TRUE;
    OTF2_Reader_SetHint(s->rd, OTF2_HINT_GLOBAL_READER, &yes);
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_GetNumberOfLocations(s->rd, &n);
    if (rc != OTF2_SUCCESS)
        return rt_err_set(err, RT_EFORMAT, "%s: anchor: %s", s->anchor, rt_otf2_error(rc));
    return RT_OK;
}

/* "%s: FOLDER/LOC.EXT: what: library message" for a failure on one location's file. */
static int loc_error(otf2_src *s, size_t p, const char *ext, const char *what, OTF2_ErrorCode rc,
                     rt_err *err)
{
    char *folder = archive_folder(s->anchor);
    rt_err_set(err, RT_EFORMAT, "%s: %s/%llu.%s: %s: %s", s->anchor, folder ? base_name(folder) : "?",
               (unsigned long long)s->map.locs[p], ext, what, rt_otf2_error(rc));
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
    rt_otf2_error_clear();
    int some_defs = 0, some_events = 0;
    s->head = s->ready = s->n = 0;
    s->records = 0;
    if (s->nextidx)
        memset(s->nextidx, 0, s->map.nlocs * sizeof *s->nextidx);
    s->failure.status = RT_OK;
    for (size_t p = 0; p < s->map.nlocs; p++) {
        some_defs |= s->selected[p] & HAS_DEF;
        some_events |= s->selected[p] & HAS_EVT;
        if ((s->selected[p] & HAS_EVT) && (rc = OTF2_Reader_SelectLocation(rd, s->map.locs[p])) != OTF2_SUCCESS)
            return loc_error(s, p, "evt", "cannot select location", rc, err);
    }
    s->eof = !some_events; /* no location has events: an empty trace, not a library error */
    if (s->eof)
        return RT_OK;
    int defs_open = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS; /* archives may have no local definitions */
    if ((rc = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS)
        return rt_err_set(err, RT_EFORMAT, "%s: event files: %s", s->anchor, rt_otf2_error(rc));
    for (size_t p = 0; p < s->map.nlocs; p++) {
        if (!(s->selected[p] & HAS_EVT))
            continue;
        if (some_defs && !(s->selected[p] & HAS_DEF) && !s->reopened)
            early_warn(s, "%s: location %llu: no local definitions; its clock offsets and id mappings are not applied",
                       s->anchor, (unsigned long long)s->map.locs[p]);
        OTF2_DefReader *dr = defs_open && (s->selected[p] & (HAS_DEF | DEF_EMPTY)) == HAS_DEF
                                 ? OTF2_Reader_GetDefReader(rd, s->map.locs[p])
                                 : NULL;
        if (dr) {
            uint64_t n = 0;
            rt_otf2_error_clear();
            rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
            OTF2_Reader_CloseDefReader(rd, dr);
            if (rc != OTF2_SUCCESS)
                return loc_error(s, p, "def", "local definitions", rc, err);
        }
        rt_otf2_error_clear();
        if (!OTF2_Reader_GetEvtReader(rd, s->map.locs[p]))
            return loc_error(s, p, "evt", "events", OTF2_ERROR_FILE_CAN_NOT_OPEN, err);
    }
    if (defs_open)
        OTF2_Reader_CloseDefFiles(rd);
    rt_otf2_error_clear();
    s->ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *cb = s->ger ? event_callbacks() : NULL;
    if (!cb)
        return rt_err_set(err, RT_EFORMAT, "%s: events: %s", s->anchor,
                          rt_otf2_error(OTF2_ERROR_MEM_ALLOC_FAILED));
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, s->ger, cb, s);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    return RT_OK;
}

/*
 * After the merged reader failed: the first location read whose event file
 * cannot be read through on its own (a second reader, no callbacks), so the
 * error names it; -1 when none does. Costs a read of the files, on failure only.
 */
static int bad_location(otf2_src *s)
{
    OTF2_Reader *rd = OTF2_Reader_Open(s->anchor);
    if (!rd)
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    uint64_t nloc = 0;
    int bad = -1;
    if (OTF2_Reader_GetNumberOfLocations(rd, &nloc) == OTF2_SUCCESS) {
        for (size_t p = 0; p < s->map.nlocs; p++)
            if (s->selected[p] & HAS_EVT)
                OTF2_Reader_SelectLocation(rd, s->map.locs[p]);
        if (OTF2_Reader_OpenEvtFiles(rd) == OTF2_SUCCESS) {
            for (size_t p = 0; p < s->map.nlocs && bad < 0; p++) {
                if (!(s->selected[p] & HAS_EVT))
                    continue;
                OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, s->map.locs[p]);
                uint64_t n = 0;
                if (!er || OTF2_Reader_ReadAllLocalEvents(rd, er, &n) != OTF2_SUCCESS)
                    bad = (int)p;
                if (er)
                    OTF2_Reader_CloseEvtReader(rd, er);
            }
        }
    }
    OTF2_Reader_Close(rd);
    rt_otf2_error_clear();
    return bad;
}

static int otf2_next(rt_tsource *base, rt_tevent *ev, rt_err *err)
{
    otf2_src *s = (otf2_src *)base;
    if (s->pending_open) {
        /* opened here, not at the rewind: a source rewound and then freed unread (a
         * pre-pass leaves its source at the start) opens no reader for nothing; the
         * OTF2 library also leaks the records its global reader reads ahead when a
         * reader is closed before they are consumed */
        s->pending_open = 0;
        int st = open_reader(s, err);
        if (st == RT_OK)
            st = open_events(s, err);
        if (st != RT_OK)
            return st;
    }
    if (s->nearly || s->early_lost)
        flush_early(s);
    while (s->head == s->ready) {
        if (s->ready < s->n && (s->eof || s->failure.status != RT_OK)) {
            s->ready = s->n; /* the end: everything read goes out (sorted when it came) */
            continue;
        }
        if (s->failure.status != RT_OK) {
            if (err)
                *err = s->failure;
            return s->failure.status;
        }
        if (s->eof)
            return RT_EEOF;
        /* keep the events still waiting, make room for a chunk */
        if (s->n > s->head)
            memmove(s->buf, s->buf + s->head, (s->n - s->head) * sizeof *s->buf);
        s->n -= s->head;
        s->ready -= s->head;
        s->head = 0;
        if (s->n + CHUNK > s->cap) {
            size_t cap = s->cap ? s->cap : CHUNK;
            while (cap < s->n + CHUNK)
                cap *= 2;
            pending *nb = realloc(s->buf, cap * sizeof *nb);
            if (!nb)
                return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
            s->buf = nb;
            s->cap = cap;
        }
        uint64_t got = 0;
        rt_otf2_error_clear();
        OTF2_ErrorCode rc = OTF2_Reader_ReadGlobalEvents(s->rd, s->ger, CHUNK, &got);
        s->records += got;
        s->eof = got == 0;
        if (rc != OTF2_SUCCESS) { /* the events of the chunk before the error still count */
            char *folder = archive_folder(s->anchor);
            int bad = bad_location(s);
            if (bad >= 0)
                rt_err_set(&s->failure, RT_EFORMAT, "%s: %s/%llu.evt: events of location %llu (%s): %s", s->anchor,
                           folder ? base_name(folder) : "?", (unsigned long long)s->map.locs[bad],
                           (unsigned long long)s->map.locs[bad], rt_tdefs_proc(s->base.defs, bad)->name,
                           rt_otf2_error(rc));
            else
                rt_err_set(&s->failure, RT_EFORMAT, "%s: events: after record %llu: %s", s->anchor,
                           (unsigned long long)s->records, rt_otf2_error(rc));
            free(folder);
        }
        /* the library merges by time alone: events of one time stamp go out in key order, once
         * the reader is past that time stamp */
        qsort(s->buf + s->ready, s->n - s->ready, sizeof *s->buf, pending_cmp);
        if (!s->eof && s->failure.status == RT_OK && s->n > s->ready) {
            int64_t last = s->buf[s->n - 1].ticks;
            size_t r = s->n;
            while (r > s->ready && s->buf[r - 1].ticks == last)
                r--;
            s->ready = r;
        }
    }
    const pending *e = &s->buf[s->head++];
    base->has_key = 1;
    base->key = (rt_tkey){e->ticks, (uint64_t)(e->proc < 0 ? 0 : e->proc), e->idx};
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
    s->pending_open = 1;
    s->eof = 0;
    s->head = s->ready = s->n = 0;
    (void)err;
    return RT_OK;
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
    rt_otf2_map_free(&s->map);
    free(s->buf);
    free(s->nextidx);
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
    return rt_otf2_open_part(path, 0, 1, err);
}

rt_tsource *rt_otf2_open_part(const char *path, int rank, int size, rt_err *err)
{
    rt_otf2_errors_init();
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
    s->part_rank = size > 1 ? rank : 0;
    s->part_size = size > 1 ? size : 1;
    if (rt_tsource_init(&s->base, &otf2_ops, path, err) != RT_OK) {
        otf2_free(&s->base);
        return NULL;
    }
    if (open_reader(s, err) != RT_OK || read_defs(s, err) != RT_OK || open_events(s, err) != RT_OK) {
        rt_tsource_free(&s->base);
        return NULL;
    }
    return &s->base;
}
