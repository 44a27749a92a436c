/*
 * rt_otf2_defs.h - internal to the OTF2 reader (rt_otf2.c, rt_otf2_defs.c):
 * reading an archive's global definitions into rt_tdefs, the maps the event
 * callbacks use to turn location ids and communicator ranks into processor
 * indices, and the OTF2 library's error messages. Not part of the public API
 * (that is rt_otf2.h).
 */
#ifndef RT_OTF2_DEFS_H
#define RT_OTF2_DEFS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <otf2/otf2.h>

#include "rt_tevent.h"

/* One communicator's ranks as processor indices. */
typedef struct rt_otf2_comm {
    uint32_t id;
    int self;               /* an MPI_COMM_SELF-like group: rank 0 is the calling processor */
    int size;
    int *procs;             /* rank -> processor, -1 when the location is unknown; NULL for self */
} rt_otf2_comm;

typedef struct rt_otf2_map {
    uint64_t *locs;         /* location ids in increasing order: processor p is locs[p] */
    uint64_t *nevents;      /* the events each location's definition announces */
    size_t nlocs;
    int dense;              /* locs[p] == p for every p: the id is the index */
    rt_otf2_comm *comms;    /* sorted by id */
    size_t ncomms;
    int have_clock;         /* the definitions had clock properties */
    size_t metric_locs;     /* METRIC locations left out (not processors) */
    struct {                /* by metric id (class or instance): its members' counter numbers */
        uint32_t n;
        int *counter;       /* NULL: no such metric */
    } *metrics;
    size_t nmetrics;
    uint32_t fanout;        /* the most events one record gives: 1, or a metric's most members */
} rt_otf2_map;

/* The one rule for which OTF2 locations are processors: CPU threads, accelerator streams and
 * locations of unknown type are; METRIC locations (counters only) are not, and get no index. */
static inline int rt_otf2_is_processor(OTF2_LocationType type)
{
    return type != OTF2_LOCATION_TYPE_METRIC;
}

/*
 * Read the global definitions of the archive open in rd into defs (regions,
 * processors in location id order with "GROUP / LOCATION" names and system-tree
 * paths, communicators, the clock) and fill map (zeroed by the caller). anchor
 * only names the archive in messages. RT_OK, or an error naming anchor and
 * "global definitions"; map is then freed by rt_otf2_map_free as usual.
 */
int rt_otf2_read_defs(OTF2_Reader *rd, const char *anchor, rt_tdefs *defs, rt_otf2_map *map,
                      rt_err *err);
void rt_otf2_map_free(rt_otf2_map *m);

/* The map as bytes (one build's layout), for the ranks of a job that get the definitions
 * from one reader: pack to out (RT_OK or RT_EIO); unpack into a zeroed map from *p .. end,
 * *p moved past it (RT_OK, RT_EFORMAT when short, RT_ENOMEM). */
int rt_otf2_map_pack(const rt_otf2_map *m, FILE *out);
int rt_otf2_map_unpack(rt_otf2_map *m, const char **p, const char *end);

/* The processor of location loc, -1 when it is not defined. On every event: inline. */
static inline int rt_otf2_proc(const rt_otf2_map *m, uint64_t loc)
{
    if (m->dense)
        return loc < m->nlocs ? (int)loc : -1;
    size_t lo = 0, hi = m->nlocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->locs[mid] < loc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nlocs && m->locs[lo] == loc ? (int)lo : -1;
}

/* Communicator id, NULL when not defined. */
const rt_otf2_comm *rt_otf2_comm_of(const rt_otf2_map *m, uint32_t id);

/* Route the library's error messages to us (process-wide; call before using the library). */
void rt_otf2_errors_init(void);
/* Forget the last message; call before a library call whose failure is reported. */
void rt_otf2_error_clear(void);
/* The library's message for a failed call: the one its callback kept, else code's description. */
const char *rt_otf2_error(OTF2_ErrorCode code);

#endif
