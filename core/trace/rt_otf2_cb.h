/*
 * rt_otf2_cb.h - the one table of OTF2 event callbacks behind both OTF2
 * readers: the time-ordered source (rt_otf2.c) and the per-location reader
 * (rt_otf2_locs.c). Each callback turns its record into a neutral event
 * (rt_tevent.h: which records become which events is said in rt_otf2.h) and
 * hands it to the reader through the context it registered as user data.
 *
 * A reader embeds an rt_otf2_cb as its callbacks' user data, points map at
 * its location and communicator map, sets cur to the processor whose file it
 * reads before each library read, and gives event() (the event: every field
 * but time, ndata, line and raw is set; proc = cur, ticks = the time stamp).
 * event() returning nonzero interrupts the library's read
 * (OTF2_CALLBACK_INTERRUPT); the reader keeps its own reason.
 */
#ifndef RT_OTF2_CB_H
#define RT_OTF2_CB_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "rt_otf2_defs.h"
#include "rt_otf2_records.h"
#include "rt_tevent.h"

#define RT_X_ENUM(name, label, params) RT_OTF2_SK_##name,
/* (a METRIC record of a metric the definitions do not give is skipped too, as otf2-print
 * prints it INVALID and goes on) */
enum { RT_OTF2_SKIPPED_RECORDS(RT_X_ENUM) RT_OTF2_SK_METRIC_UNDEFINED, RT_OTF2_SK_COUNT };
#undef RT_X_ENUM

typedef struct rt_otf2_cb {
    const rt_otf2_map *map;
    int cur;
    int (*event)(struct rt_otf2_cb *c, rt_tevent *ev);
    /* a rank not in its communicator (the event's peer is then -1); NULL: not told. what names
     * the field ("MPI_SEND receiver", "MPI_RECV sender", "MPI_COLLECTIVE_END root") */
    void (*bad_rank)(struct rt_otf2_cb *c, uint32_t comm, uint32_t rank, const char *what);
    /* records of the types not modelled, by type (RT_OTF2_SK_*) and in all, when the table
     * counts them (rt_otf2_callbacks(1)) */
    uint64_t skipped[RT_OTF2_SK_COUNT];
    uint64_t *skipped_total;
    /* the sends table (rt_otf2_sends_callbacks): events seen, the first one's time stamp and the
     * latest time stamp so far, of every modelled record; the reader zeroes seen before a read */
    uint64_t seen;
    int64_t first, latest;
} rt_otf2_cb;

/*
 * A new callback table (OTF2_EvtReaderCallbacks_Delete frees it): the modelled
 * records, and with count_skipped one counting callback per type in
 * rt_otf2_records.h (without, the library passes over them). NULL when out of memory.
 */
OTF2_EvtReaderCallbacks *rt_otf2_callbacks(int count_skipped);

/*
 * A table for a pass that wants only the sends: MPI_SEND and MPI_ISEND reach
 * event() as with rt_otf2_callbacks, their time stamp held at the latest one
 * before them (a processor's time does not step back); every other modelled
 * record only updates seen, first and latest. NULL when out of memory.
 */
OTF2_EvtReaderCallbacks *rt_otf2_sends_callbacks(void);

/* The name otf2-print gives skipped type i (RT_OTF2_SK_*), NULL out of range. */
const char *rt_otf2_skipped_name(int i);

#endif
