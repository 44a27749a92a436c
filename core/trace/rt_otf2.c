/*
 * rt_otf2.c - the OTF2 reader of the neutral event stream (see rt_otf2.h).
 *
 * Shaped for Score-P archives of up to 10^5 locations and 10^8 events: the
 * definitions are read whole (they are small), the events never are. Each
 * location's event file is read through the library's per-location event
 * reader into a small look-ahead of decoded events (LOOKAHEAD events), and a
 * heap over the locations' first events hands them out in the serial key
 * order (time stamp, location, index in the location). The library holds one
 * event chunk (256 KiB to 1 MiB) per open reader, so readers stay open only
 * while all of them fit in READER_BYTES; beyond that a location's reader is
 * opened for a refill of its look-ahead, positioned where the last refill
 * stopped (OTF2_EvtReader_Seek) and closed again: at most one chunk is held at
 * a time and memory is bounded whatever the number of locations. A reopening
 * costs the library's clearing of a whole chunk, a chunk read and a skip to
 * the position, so the look-ahead is made as large as its budget allows: at
 * 4096 locations 512 events each, reopening adds a few percent to the reading.
 *
 * The definitions are read by rt_otf2_defs.c and the records turned into
 * neutral events by the callbacks both OTF2 readers share (rt_otf2_cb.c);
 * this file opens the archive, checks its files and merges the locations.
 */
#include "rt_otf2.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "rt_anchor_check.h"
#include "rt_otf2_defs.h"
#include "rt_par_route.h"
#include "rt_otf2_cb.h"

/* Bits of otf2_src.selected. */
#define HAS_EVT 1
#define HAS_DEF 2
/* a local definition file of a chunk header and its end marks alone (18 + 2 bytes, as the OTF2
 * writer leaves a location that defined nothing): nothing to read, so not opened (the library
 * would clear a definition chunk per location, seconds for thousands of locations) */
#define DEF_EMPTY 4
#define EMPTY_DEF_BYTES 20

/* Memory of the library's readers kept open (one event chunk each); more locations than fit
 * are read by reopening their reader at each refill. */
#define READER_BYTES (64u << 20)
/* Memory of the look-ahead of decoded events over all locations read, and the bounds on each
 * location's share (events). */
#define LOOKAHEAD_BYTES (96u << 20)
#define LOOKAHEAD_MIN 16
#define LOOKAHEAD_MAX 4096
#define HUGE_PAGE ((size_t)2 << 20)

/* ---- the source ---- */

/* One event as the callbacks leave it in its location's look-ahead, converted in next(). A
 * COUNTER event keeps its value where the messages keep their bytes. */
typedef struct pending {
    int64_t ticks;
    union {
        uint64_t bytes;
        double value;
    } u;
    uint64_t bytes_in;
    int32_t region, peer, comm;
    uint32_t tag;
    int32_t kind;
} pending;

/* A location being read: its reader (when open), where its file was left and its look-ahead. */
typedef struct loc_read {
    OTF2_EvtReader *er;     /* open, or NULL: reopened at the next refill */
    uint64_t records;       /* records of its file read so far (a reopened reader seeks past them) */
    uint64_t taken;         /* events handed out: the index of the next one in its location */
    uint32_t head, n;       /* its look-ahead: slots head .. n-1 are events not handed out */
    int end;                /* its file is read through */
} loc_read;

typedef struct otf2_src {
    rt_tsource base;
    rt_otf2_cb evcb;        /* the event callbacks' context (rt_otf2_cb.h): cur is the processor being read */
    char *anchor;           /* the anchor file's path */
    OTF2_Reader *rd;
    OTF2_EvtReaderCallbacks *cb;
    rt_otf2_map map;        /* location ids and communicator ranks -> processors */
    unsigned char *selected;/* per processor: HAS_EVT (its event file is read), HAS_DEF (local definitions) */
    loc_read *locs;         /* per processor */
    pending *pool;          /* per processor: lookahead slots from p * lookahead */
    uint32_t lookahead;     /* events per location's look-ahead */
    struct head { int64_t ticks; int p; } *heap; /* processors with events in their look-ahead, keyed by
                                                   * their next event's (time stamp, processor) */
    size_t nheap;
    int keep_open;          /* every reader fits in READER_BYTES: opened once, never closed */
    int started;            /* the look-aheads were filled (at the first next()) */
    int defs_read;          /* local definitions read (once: the library keeps their mappings) */
    int part_rank, part_size; /* the locations read: a block of part_size (size 1: all), rt_par_route.h */
    rt_err failure;         /* a read error, reported at the next call */
    /* warnings found while opening, before the caller could set on_warning: reported by the first next() */
    char early[4][240];
    int nearly, early_lost;
    uint64_t records;       /* records read (events and skipped) since the start */
    uint64_t total_records; /* what the definitions announce, for progress */
    uint64_t evt_bytes;     /* size of the event files read */
    rt_otf2_counts counts;
} otf2_src;

/* A rank the shared callbacks found in no communicator: warned. */
static void bad_rank(rt_otf2_cb *c, uint32_t comm, uint32_t rank, const char *what)
{
    otf2_src *s = (otf2_src *)((char *)c - offsetof(otf2_src, evcb));
    const rt_tproc *tp = c->cur >= 0 ? rt_tdefs_proc(s->base.defs, c->cur) : NULL;
    rt_tsource_warn(&s->base, "%s: %s: %s: rank %u is not in communicator %u", s->anchor,
                    tp && tp->name[0] ? tp->name : "unknown location", what, (unsigned)rank, (unsigned)comm);
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

/* An event from the shared callbacks: into its location's look-ahead. */
static int push(rt_otf2_cb *c, rt_tevent *ev)
{
    otf2_src *s = (otf2_src *)((char *)c - offsetof(otf2_src, evcb));
    loc_read *l = &s->locs[c->cur];
    assert(l->n < s->lookahead); /* a refill asks for records whose events fit the free slots */
    pending *e = &s->pool[(size_t)c->cur * s->lookahead + l->n++];
    *e = (pending){ev->ticks, {0}, (uint64_t)ev->bytes_in, ev->region, ev->peer, ev->comm, (uint32_t)ev->tag,
                   ev->kind};
    if (ev->kind == RT_TE_COUNTER)
        e->u.value = ev->ndata > 0 ? ev->data[0] : 0;
    else
        e->u.bytes = (uint64_t)ev->bytes;
    return 0;
}

int rt_otf2_skipped(const rt_tsource *src, int i, const char **name, uint64_t *count)
{
    if (i < 0 || i >= RT_OTF2_SK_COUNT)
        return 0;
    if (name)
        *name = rt_otf2_skipped_name(i);
    if (count)
        *count = ((const otf2_src *)src)->evcb.skipped[i];
    return 1;
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
            if (rt_par_owns((int)p, s->part_rank, s->part_size))
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
        if (!rt_par_owns((int)p, s->part_rank, s->part_size))
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

/*
 * The definitions from part 0 (share, collective): part 0 reads them (st: how
 * its opening went so far) and sends them packed, with its status and message;
 * every other part takes them, or part 0's error. Returns this part's status.
 */
static int shared_defs(otf2_src *s, int st, rt_otf2_share_fn share, void *ud, rt_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    if (s->part_rank == 0) {
        if (st == RT_OK)
            st = rt_otf2_read_defs(s->rd, s->anchor, s->base.defs, &s->map, err);
        FILE *f = open_memstream(&buf, &len);
        int64_t status = st;
        int ok = f && fwrite(&status, sizeof status, 1, f) == 1 &&
                 fwrite(st == RT_OK ? "" : err->msg, 1, strlen(st == RT_OK ? "" : err->msg) + 1, f) > 0 &&
                 (st != RT_OK || (rt_tdefs_pack(s->base.defs, f) == RT_OK && rt_otf2_map_pack(&s->map, f) == RT_OK));
        if (f)
            fclose(f);
        if (!ok) { /* the others learn it: out of memory here */
            free(buf);
            buf = NULL;
            len = 0;
            if (st == RT_OK)
                st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
        }
        if (share(ud, &buf, &len) != RT_OK && st == RT_OK)
            st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
        free(buf);
        return st;
    }
    if (share(ud, &buf, &len) != RT_OK) {
        free(buf);
        return st == RT_OK ? rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor) : st;
    }
    const char *p = buf, *end = buf + len;
    int64_t status = RT_ENOMEM;
    if (len >= sizeof status)
        memcpy(&status, p, sizeof status);
    const char *msg = len > sizeof status ? memchr(p + sizeof status, '\0', len - sizeof status) : NULL;
    if (st == RT_OK) {
        if (!msg)
            st = rt_err_set(err, RT_ENOMEM, "%s: definitions: out of memory on the reading rank", s->anchor);
        else if (status != RT_OK)
            st = rt_err_set(err, (int)status, "%s", p + sizeof status);
        else {
            p = msg + 1;
            int us = rt_tdefs_unpack(s->base.defs, &p, end);
            if (us == RT_OK)
                us = rt_otf2_map_unpack(&s->map, &p, end);
            if (us != RT_OK)
                st = rt_err_set(err, us, "%s: definitions: %s", s->anchor,
                                us == RT_ENOMEM ? "out of memory" : "cut short on the way from the reading rank");
        }
    }
    free(buf);
    return st;
}

/* The definitions (read here, or from part 0 through share), the locations to read and the open's warnings. */
static int read_defs(otf2_src *s, int st, rt_otf2_share_fn share, void *ud, rt_err *err)
{
    if (share && s->part_size > 1)
        st = shared_defs(s, st, share, ud, err);
    else if (st == RT_OK)
        st = rt_otf2_read_defs(s->rd, s->anchor, s->base.defs, &s->map, err);
    if (st != RT_OK)
        return st;
    if (s->part_rank == 0) { /* about the whole archive: told by one part */
        if (!s->map.have_clock)
            early_warn(s, "%s: definitions: no clock properties; times are raw ticks", s->anchor);
        warn_incomplete(s);
    }
    /* a part owns a block of the locations, and so do the ranks' replays (rt_par_route.h) */
    if (s->part_size > 1)
        rt_par_set_blocks((int)s->map.nlocs);
    s->selected = calloc(s->map.nlocs ? s->map.nlocs : 1, 1);
    if (!s->selected)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
    return check_event_files(s, err);
}

/* ---- the event reader ---- */

/* Open the library's reader on the anchor; the definitions are read separately. */
static int open_reader(otf2_src *s, rt_err *err)
{
    rt_otf2_error_clear();
    if (rt_otf2_anchor_check(s->anchor, err) != RT_OK) /* (counts the library would size tables by) */
        return err->status;
    s->rd = OTF2_Reader_Open(s->anchor);
    if (!s->rd)
        return rt_err_set(err, RT_EFORMAT, "%s: anchor: %s", s->anchor,
                          rt_otf2_error(OTF2_ERROR_FILE_CAN_NOT_OPEN));
    OTF2_Reader_SetSerialCollectiveCallbacks(s->rd);
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

/* The look-ahead's share per location: the budget over the locations read, within bounds. */
static uint32_t lookahead_for(size_t nread, size_t bytes)
{
    size_t l = bytes / sizeof(pending) / (nread ? nread : 1);
    return (uint32_t)(l < LOOKAHEAD_MIN ? LOOKAHEAD_MIN : l > LOOKAHEAD_MAX ? LOOKAHEAD_MAX : l);
}

/* Size the look-aheads (lookahead events each) and the heap; readers stay open when all fit in reader_bytes. */
static int size_reading(otf2_src *s, size_t reader_bytes, uint32_t lookahead, rt_err *err)
{
    size_t nread = 0;
    for (size_t p = 0; p < s->map.nlocs; p++)
        nread += (s->selected[p] & HAS_EVT) != 0;
    uint64_t chunk = OTF2_CHUNK_SIZE_EVENTS_DEFAULT, def_chunk = 0;
    OTF2_Reader_GetChunkSize(s->rd, &chunk, &def_chunk);
    s->keep_open = (uint64_t)nread * chunk <= reader_bytes;
    free(s->pool);
    s->pool = NULL;
    if (lookahead < s->map.fanout) /* room for the events of the largest record */
        lookahead = s->map.fanout;
    s->lookahead = lookahead;
    s->counts.lookahead = lookahead;
    size_t bytes = (s->map.nlocs ? s->map.nlocs : 1) * (size_t)lookahead * sizeof *s->pool;
    /* every page of the look-aheads is touched at the first refills: in huge pages where the
     * system gives them on request, a few faults instead of one per 4 KiB */
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE && posix_memalign((void **)&s->pool, HUGE_PAGE, bytes) == 0)
        madvise(s->pool, bytes, MADV_HUGEPAGE);
#endif
    if (!s->pool)
        s->pool = malloc(bytes);
    if (!s->pool)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
    return RT_OK;
}

/*
 * Select the locations to read and read their local definitions (the library
 * keeps their id mappings and clock offsets and applies them to the events
 * of every reader opened later); size the reading.
 */
static int open_events(otf2_src *s, rt_err *err)
{
    OTF2_Reader *rd = s->rd;
    OTF2_ErrorCode rc;
    rt_otf2_error_clear();
    int some_defs = 0, some_events = 0;
    for (size_t p = 0; p < s->map.nlocs; p++) {
        some_defs |= s->selected[p] & HAS_DEF;
        some_events |= s->selected[p] & HAS_EVT;
        if ((s->selected[p] & HAS_EVT) && (rc = OTF2_Reader_SelectLocation(rd, s->map.locs[p])) != OTF2_SUCCESS)
            return loc_error(s, p, "evt", "cannot select location", rc, err);
    }
    s->locs = calloc(s->map.nlocs ? s->map.nlocs : 1, sizeof *s->locs);
    s->heap = malloc((s->map.nlocs ? s->map.nlocs : 1) * sizeof *s->heap);
    s->cb = rt_otf2_callbacks(1);
    s->evcb.map = &s->map;
    s->evcb.event = push;
    s->evcb.bad_rank = bad_rank;
    s->evcb.skipped_total = &s->base.skipped;
    if (!s->locs || !s->heap || !s->cb)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->anchor);
    if (!some_events) /* no location has events: an empty trace, not a library error */
        return RT_OK;
    int defs_open = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS; /* archives may have no local definitions */
    if ((rc = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS)
        return rt_err_set(err, RT_EFORMAT, "%s: event files: %s", s->anchor, rt_otf2_error(rc));
    for (size_t p = 0; p < s->map.nlocs; p++) {
        if (!(s->selected[p] & HAS_EVT))
            continue;
        if (some_defs && !(s->selected[p] & HAS_DEF))
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
    }
    if (defs_open)
        OTF2_Reader_CloseDefFiles(rd);
    size_t nread = 0;
    for (size_t p = 0; p < s->map.nlocs; p++)
        nread += (s->selected[p] & HAS_EVT) != 0;
    /* a part of a distributed replay: its share of the budget, so memory per rank falls with the ranks */
    return size_reading(s, READER_BYTES / (size_t)s->part_size,
                        lookahead_for(nread, LOOKAHEAD_BYTES / (size_t)s->part_size), err);
}

static void close_reader(otf2_src *s, loc_read *l)
{
    if (l->er) {
        OTF2_Reader_CloseEvtReader(s->rd, l->er);
        l->er = NULL;
        s->counts.readers_open--;
    }
}

/*
 * Fill processor p's look-ahead from its event file: open its reader (past the
 * records read before when reopened), read until the look-ahead is full or
 * the file ends, close the reader unless readers are kept open.
 */
static int refill(otf2_src *s, int p, rt_err *err)
{
    loc_read *l = &s->locs[p];
    l->head = l->n = 0;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    rt_otf2_error_clear();
    if (!l->er) {
        l->er = OTF2_Reader_GetEvtReader(s->rd, s->map.locs[p]);
        if (!l->er)
            return loc_error(s, (size_t)p, "evt", "events", OTF2_ERROR_FILE_CAN_NOT_OPEN, err);
        if (++s->counts.readers_open > s->counts.readers_open_max)
            s->counts.readers_open_max = s->counts.readers_open;
        if (l->records > 0) {
            s->counts.reopens++;
            rc = OTF2_EvtReader_Seek(l->er, l->records + 1);
            if (rc == OTF2_ERROR_INVALID_ARGUMENT) { /* no record past the last one read: the end */
                close_reader(s, l);
                l->end = 1;
                return RT_OK;
            }
        }
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_RegisterEvtCallbacks(s->rd, l->er, s->cb, &s->evcb);
    }
    s->evcb.cur = p;
    uint32_t fan = s->map.fanout ? s->map.fanout : 1;
    while (rc == OTF2_SUCCESS && !l->end && s->lookahead - l->n >= fan) {
        /* whole records only: each gives at most fan events (a METRIC record one per member) */
        uint64_t want = (s->lookahead - l->n) / fan, got = 0;
        rc = OTF2_Reader_ReadLocalEvents(s->rd, l->er, want, &got);
        l->records += got;
        s->records += got;
        l->end = got < want;
    }
    if (rc != OTF2_SUCCESS) {
        close_reader(s, l);
        l->end = 1;
        char *folder = archive_folder(s->anchor);
        rt_err_set(err, RT_EFORMAT, "%s: %s/%llu.evt: events of location %llu (%s), after record %llu: %s",
                   s->anchor, folder ? base_name(folder) : "?", (unsigned long long)s->map.locs[p],
                   (unsigned long long)s->map.locs[p], rt_tdefs_proc(s->base.defs, p)->name,
                   (unsigned long long)l->records, rt_otf2_error(rc));
        free(folder);
        return RT_EFORMAT;
    }
    if (l->end || !s->keep_open)
        close_reader(s, l);
    return RT_OK;
}

/* Heap order: the serial key of a processor's next event (time stamp, then processor). */
static inline int before(const struct head *x, const struct head *y)
{
    return x->ticks < y->ticks || (x->ticks == y->ticks && x->p < y->p);
}

static void sift_down(otf2_src *s, size_t i)
{
    struct head *h = s->heap, x = h[i];
    size_t n = s->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&h[c + 1], &h[c]))
            c++;
        if (!before(&h[c], &x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* The time stamp of processor p's next event (its look-ahead is not empty). */
static inline int64_t next_ticks(const otf2_src *s, int p)
{
    return s->pool[(size_t)p * s->lookahead + s->locs[p].head].ticks;
}

/* Every location's first look-ahead, and the heap over them. */
static int start_reading(otf2_src *s, rt_err *err)
{
    s->started = 1;
    s->nheap = 0;
    for (size_t p = 0; p < s->map.nlocs; p++) {
        if (!(s->selected[p] & HAS_EVT))
            continue;
        int st = refill(s, (int)p, err);
        if (st != RT_OK)
            return st;
        if (s->locs[p].n > 0)
            s->heap[s->nheap++] = (struct head){next_ticks(s, (int)p), (int)p};
    }
    for (size_t i = s->nheap / 2; i-- > 0;)
        sift_down(s, i);
    return RT_OK;
}

static int otf2_next(rt_tsource *base, rt_tevent *ev, rt_err *err)
{
    otf2_src *s = (otf2_src *)base;
    if (s->nearly || s->early_lost)
        flush_early(s);
    if (s->failure.status == RT_OK && !s->started)
        start_reading(s, &s->failure);
    if (s->failure.status != RT_OK) {
        if (err)
            *err = s->failure;
        return s->failure.status;
    }
    if (s->nheap == 0)
        return RT_EEOF;
    int p = s->heap[0].p;
    loc_read *l = &s->locs[p];
    const pending *e = &s->pool[(size_t)p * s->lookahead + l->head++];
    base->has_key = 1;
    base->key = (rt_tkey){e->ticks, (uint64_t)p, l->taken++};
    ev->kind = e->kind;
    ev->proc = p;
    ev->ticks = e->ticks;
    ev->time = rt_tdefs_seconds(base->defs, e->ticks);
    ev->region = e->region;
    ev->task = 0;
    ev->peer = e->peer;
    ev->tag = e->tag;
    ev->comm = e->comm;
    ev->bytes_in = (double)e->bytes_in;
    if (e->kind == RT_TE_COUNTER) {
        ev->bytes = 0;
        ev->ndata = 1;
        ev->data[0] = e->u.value;
    } else {
        ev->bytes = (double)e->u.bytes;
        ev->ndata = 0;
    }
    ev->line = 0;
    ev->raw = NULL;
    /* the event is copied out: its slots may be refilled (a failure is told at the next call) */
    if (l->head == l->n && !l->end)
        refill(s, p, &s->failure);
    if (l->head == l->n)
        s->heap[0] = s->heap[--s->nheap];
    else
        s->heap[0].ticks = next_ticks(s, p);
    if (s->nheap > 0)
        sift_down(s, 0);
    return RT_OK;
}

static int otf2_rewind(rt_tsource *base, rt_err *err)
{
    otf2_src *s = (otf2_src *)base;
    for (size_t p = 0; s->locs && p < s->map.nlocs; p++) {
        close_reader(s, &s->locs[p]);
        s->locs[p] = (loc_read){0};
    }
    memset(s->evcb.skipped, 0, sizeof s->evcb.skipped);
    s->started = 0;
    s->nheap = 0;
    s->records = 0;
    s->failure.status = RT_OK;
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
    int eof = s->started && s->nheap == 0;
    if (!s->total_records || eof)
        return eof ? s->evt_bytes : 0;
    double share = (double)s->records / (double)s->total_records;
    return (uint64_t)((double)s->evt_bytes * (share < 1 ? share : 1));
}

static void otf2_free(rt_tsource *base)
{
    otf2_src *s = (otf2_src *)base;
    for (size_t p = 0; s->locs && p < s->map.nlocs; p++)
        close_reader(s, &s->locs[p]);
    if (s->cb)
        OTF2_EvtReaderCallbacks_Delete(s->cb);
    if (s->rd)
        OTF2_Reader_Close(s->rd);
    rt_otf2_map_free(&s->map);
    free(s->locs);
    free(s->pool);
    free(s->heap);
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
    return rt_otf2_open_part_shared(path, rank, size, NULL, NULL, err);
}

rt_tsource *rt_otf2_open_part_shared(const char *path, int rank, int size, rt_otf2_share_fn share, void *ud,
                                     rt_err *err)
{
    rt_otf2_errors_init();
    char *anchor = NULL;
    otf2_src *s = calloc(1, sizeof *s);
    int st = s ? RT_OK : rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    if (s) {
        s->part_rank = size > 1 ? rank : 0;
        s->part_size = size > 1 ? size : 1;
        if ((st = rt_tsource_init(&s->base, &otf2_ops, path, err)) != RT_OK) {
            free(s);
            s = NULL;
        }
    }
    if (st == RT_OK && (st = find_anchor(path, &anchor, err)) == RT_OK) {
        s->anchor = anchor;
        st = open_reader(s, err);
    }
    if (!s) { /* still a part of the collective reading of the definitions */
        if (share && size > 1) {
            char *buf = NULL;
            size_t len = 0;
            if (rank == 0) { /* (the others must hear of it) */
                int64_t status = st;
                buf = malloc(sizeof status + 1);
                if (buf) {
                    memcpy(buf, &status, sizeof status);
                    buf[sizeof status] = '\0';
                    len = sizeof status + 1;
                }
            }
            share(ud, &buf, &len);
            free(buf);
        }
        return NULL;
    }
    if (!s->anchor) /* (messages name the path given) */
        s->anchor = strdup(path);
    if (read_defs(s, st, share, ud, err) != RT_OK || open_events(s, err) != RT_OK) {
        rt_tsource_free(&s->base);
        return NULL;
    }
    return &s->base;
}

int rt_otf2_counts_of(const rt_tsource *src, rt_otf2_counts *c)
{
    if (!src || src->ops != &otf2_ops)
        return 0;
    *c = ((const otf2_src *)src)->counts;
    return 1;
}

int rt_otf2_set_budget(rt_tsource *src, size_t reader_bytes, uint32_t lookahead, rt_err *err)
{
    otf2_src *s = (otf2_src *)src;
    if (!src || src->ops != &otf2_ops || s->started || lookahead == 0)
        return rt_err_set(err, RT_EINVAL, "rt_otf2_set_budget: an OTF2 source not read yet and a look-ahead > 0");
    return size_reading(s, reader_bytes, lookahead, err);
}
