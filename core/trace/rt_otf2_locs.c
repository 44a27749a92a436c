/*
 * rt_otf2_locs.c - an OTF2 archive read one location at a time (see
 * rt_otf2_locs.h). The definitions come from rt_otf2_defs.c, as for the
 * serial reader, and the records become neutral events through the callbacks
 * both readers share (rt_otf2_cb.c); here they go straight to the consumer,
 * with no look-ahead and no merge. Memory: the definitions and one library reader.
 */
#include "rt_otf2_locs.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "rt_otf2_cb.h"
#include "rt_otf2_defs.h"

/* A location's local definition file of this size or less defines nothing (a chunk header and
 * its end marks): not opened, as the library would clear a whole definition chunk for it. */
#define EMPTY_DEF_BYTES 20

struct rt_otf2_locs {
    char *anchor;
    char *folder;             /* the anchor's folder of location files */
    OTF2_Reader *rd;
    OTF2_EvtReaderCallbacks *cb;
    OTF2_EvtReaderCallbacks *cb_sends; /* the sends pass's table (rt_otf2_sends_callbacks) */
    rt_otf2_cb evcb;          /* the shared callbacks' context; evcb.cur is the processor read */
    rt_tdefs *defs;
    int64_t offset;           /* the clock's offset and resolution, for seconds */
    double resolution;
    rt_otf2_map map;
    uint64_t *evt_bytes;      /* per processor: its event file's size, 0 when it has none */
    uint64_t bytes;
    /* the read under way */
    int (*fn)(void *ud, const rt_tevent *ev);
    void *ud;
    int stop;                 /* fn's nonzero status */
    int no_seconds;           /* events' time left 0 (rt_otf2_locs_ticks_only) */
};

/* ---- events ---- */

double rt_otf2_locs_seconds(const rt_otf2_locs *L, int64_t ticks)
{
    /* seconds from the clock's offset: one division while the ticks are exact in a double */
    int64_t rel = ticks - L->offset;
    return rel >= 0 && rel < ((int64_t)1 << 53) ? (double)rel / L->resolution : rt_tdefs_seconds(L->defs, ticks);
}

/* An event from the shared callbacks: its time in seconds, then to the consumer. */
static int deliver(rt_otf2_cb *c, rt_tevent *ev)
{
    rt_otf2_locs *L = (rt_otf2_locs *)((char *)c - offsetof(rt_otf2_locs, evcb));
    if (!L->no_seconds)
        ev->time = rt_otf2_locs_seconds(L, ev->ticks);
    int rc = L->fn(L->ud, ev);
    if (rc)
        L->stop = rc;
    return rc;
}

/* ---- opening ---- */

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* The anchor: path itself, or the one *.otf2 file of the folder path. */
static char *anchor_of(const char *path, rt_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISDIR(sb.st_mode))
        return strdup(path);
    DIR *d = opendir(path);
    char *found = NULL;
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (has_suffix(de->d_name, ".otf2") && n++ == 0) {
            size_t cap = strlen(path) + strlen(de->d_name) + 2;
            found = malloc(cap);
            if (found)
                snprintf(found, cap, "%s/%s", path, de->d_name);
        }
    if (d)
        closedir(d);
    if (n != 1) {
        free(found);
        rt_err_set(err, RT_EFORMAT, "%s: %s OTF2 anchor file (*.otf2) in this directory", path, n ? "more than one" : "no");
        return NULL;
    }
    return found;
}

void rt_otf2_locs_close(rt_otf2_locs *L)
{
    if (!L)
        return;
    if (L->cb)
        OTF2_EvtReaderCallbacks_Delete(L->cb);
    if (L->cb_sends)
        OTF2_EvtReaderCallbacks_Delete(L->cb_sends);
    if (L->rd)
        OTF2_Reader_Close(L->rd);
    rt_otf2_map_free(&L->map);
    rt_tdefs_free(L->defs);
    free(L->evt_bytes);
    free(L->anchor);
    free(L->folder);
    free(L);
}

static int lib_fail(rt_otf2_locs *L, const char *what, OTF2_ErrorCode rc, rt_err *err)
{
    return rt_err_set(err, RT_EFORMAT, "%s: %s: %s", L->anchor, what, rt_otf2_error(rc));
}

/* The location files: which have events and local definitions; read the local definitions. */
static int open_locations(rt_otf2_locs *L, rt_err *err)
{
    size_t n = L->map.nlocs;
    L->evt_bytes = calloc(n ? n : 1, sizeof *L->evt_bytes);
    unsigned char *has_def = calloc(n ? n : 1, 1);
    size_t cap = strlen(L->folder) + 32;
    char *file = malloc(cap);
    int st = RT_OK;
    if (!L->evt_bytes || !has_def || !file)
        st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", L->anchor);
    int any_evt = 0;
    for (size_t p = 0; p < n && st == RT_OK; p++) {
        struct stat sb;
        snprintf(file, cap, "%s/%llu.def", L->folder, (unsigned long long)L->map.locs[p]);
        has_def[p] = stat(file, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > EMPTY_DEF_BYTES;
        snprintf(file, cap, "%s/%llu.evt", L->folder, (unsigned long long)L->map.locs[p]);
        if (stat(file, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0)
            L->evt_bytes[p] = (uint64_t)sb.st_size;
        else if (L->map.nevents[p] > 0 && !(stat(file, &sb) == 0 && S_ISREG(sb.st_mode)))
            st = rt_err_set(err, RT_EFORMAT, "%s: %s: event file of location %llu (%llu events) is missing", L->anchor,
                            file, (unsigned long long)L->map.locs[p], (unsigned long long)L->map.nevents[p]);
        L->bytes += L->evt_bytes[p];
        any_evt |= L->evt_bytes[p] > 0;
    }
    OTF2_ErrorCode rc;
    for (size_t p = 0; p < n && st == RT_OK; p++)
        if (L->evt_bytes[p] && (rc = OTF2_Reader_SelectLocation(L->rd, L->map.locs[p])) != OTF2_SUCCESS)
            st = lib_fail(L, "cannot select a location", rc, err);
    if (st == RT_OK && any_evt) {
        int defs_open = OTF2_Reader_OpenDefFiles(L->rd) == OTF2_SUCCESS;
        for (size_t p = 0; defs_open && p < n && st == RT_OK; p++) {
            if (!L->evt_bytes[p] || !has_def[p])
                continue;
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(L->rd, L->map.locs[p]);
            if (!dr)
                continue;
            uint64_t k = 0;
            rt_otf2_error_clear();
            rc = OTF2_Reader_ReadAllLocalDefinitions(L->rd, dr, &k);
            OTF2_Reader_CloseDefReader(L->rd, dr);
            if (rc != OTF2_SUCCESS) {
                snprintf(file, cap, "%llu.def: local definitions", (unsigned long long)L->map.locs[p]);
                st = lib_fail(L, file, rc, err);
            }
        }
        if (defs_open)
            OTF2_Reader_CloseDefFiles(L->rd);
        if (st == RT_OK && (rc = OTF2_Reader_OpenEvtFiles(L->rd)) != OTF2_SUCCESS)
            st = lib_fail(L, "event files", rc, err);
    }
    free(file);
    free(has_def);
    return st;
}

rt_otf2_locs *rt_otf2_locs_open(const char *path, rt_err *err)
{
    rt_otf2_errors_init();
    rt_otf2_locs *L = calloc(1, sizeof *L);
    if (!L) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    L->anchor = anchor_of(path, err);
    if (!L->anchor) {
        rt_otf2_locs_close(L);
        return NULL;
    }
    L->folder = strdup(L->anchor);
    L->defs = rt_tdefs_new();
    L->cb = rt_otf2_callbacks(0);
    L->cb_sends = rt_otf2_sends_callbacks();
    if (!L->folder || !L->defs || !L->cb || !L->cb_sends) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        rt_otf2_locs_close(L);
        return NULL;
    }
    if (has_suffix(L->folder, ".otf2"))
        L->folder[strlen(L->folder) - 5] = '\0';
    rt_otf2_error_clear();
    L->rd = OTF2_Reader_Open(L->anchor);
    if (!L->rd) {
        rt_err_set(err, RT_EFORMAT, "%s: anchor: %s", L->anchor, rt_otf2_error(OTF2_ERROR_FILE_CAN_NOT_OPEN));
        rt_otf2_locs_close(L);
        return NULL;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(L->rd);
    uint64_t nl = 0;
    OTF2_ErrorCode rc = OTF2_Reader_GetNumberOfLocations(L->rd, &nl);
    if (rc != OTF2_SUCCESS) {
        lib_fail(L, "anchor", rc, err);
        rt_otf2_locs_close(L);
        return NULL;
    }
    if (rt_otf2_read_defs(L->rd, L->anchor, L->defs, &L->map, err) != RT_OK || open_locations(L, err) != RT_OK) {
        rt_otf2_locs_close(L);
        return NULL;
    }
    L->offset = rt_tdefs_offset(L->defs);
    L->resolution = (double)(rt_tdefs_resolution(L->defs) ? rt_tdefs_resolution(L->defs) : 1);
    L->evcb.map = &L->map;
    L->evcb.event = deliver;
    return L;
}

const rt_tdefs *rt_otf2_locs_defs(const rt_otf2_locs *L)
{
    return L->defs;
}

uint64_t rt_otf2_locs_bytes(const rt_otf2_locs *L)
{
    return L->bytes;
}

uint64_t rt_otf2_locs_bytes_of(const rt_otf2_locs *L, int p)
{
    return p >= 0 && (size_t)p < L->map.nlocs ? L->evt_bytes[p] : 0;
}

/* Read processor p's file through table cb. */
static int read_with(rt_otf2_locs *L, int p, OTF2_EvtReaderCallbacks *cb, int (*fn)(void *ud, const rt_tevent *ev),
                     void *ud, rt_err *err)
{
    if (p < 0 || (size_t)p >= L->map.nlocs || !L->evt_bytes[p])
        return RT_OK;
    rt_otf2_error_clear();
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(L->rd, L->map.locs[p]);
    if (!er)
        return rt_err_set(err, RT_EFORMAT, "%s: %s/%llu.evt: events: %s", L->anchor, L->folder,
                          (unsigned long long)L->map.locs[p], rt_otf2_error(OTF2_ERROR_FILE_CAN_NOT_OPEN));
    L->evcb.cur = p;
    L->fn = fn;
    L->ud = ud;
    L->stop = 0;
    L->evcb.seen = 0;
    uint64_t got = 0;
    OTF2_ErrorCode rc = OTF2_Reader_RegisterEvtCallbacks(L->rd, er, cb, &L->evcb);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadLocalEvents(L->rd, er, OTF2_UNDEFINED_UINT64, &got);
    OTF2_Reader_CloseEvtReader(L->rd, er);
    if (L->stop)
        return L->stop;
    if (rc != OTF2_SUCCESS)
        return rt_err_set(err, RT_EFORMAT, "%s: %s/%llu.evt: events of location %llu, after record %llu: %s", L->anchor,
                          L->folder, (unsigned long long)L->map.locs[p], (unsigned long long)L->map.locs[p],
                          (unsigned long long)got, rt_otf2_error(rc));
    return RT_OK;
}

int rt_otf2_locs_read(rt_otf2_locs *L, int p, int (*fn)(void *ud, const rt_tevent *ev), void *ud, rt_err *err)
{
    return read_with(L, p, L->cb, fn, ud, err);
}

int rt_otf2_locs_sends(rt_otf2_locs *L, int p, int (*fn)(void *ud, const rt_tevent *ev), void *ud, int64_t span[2],
                       uint64_t *nevents, rt_err *err)
{
    L->evcb.seen = 0;
    int rc = read_with(L, p, L->cb_sends, fn, ud, err);
    *nevents = rc == RT_OK ? L->evcb.seen : 0;
    if (*nevents) {
        span[0] = L->evcb.first;
        span[1] = L->evcb.latest;
    }
    return rc;
}

void rt_otf2_locs_ticks_only(rt_otf2_locs *L, int on)
{
    L->no_seconds = on;
}
