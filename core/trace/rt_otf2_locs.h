/*
 * rt_otf2_locs.h - an OTF2 archive read one location at a time, for
 * consumers that keep per-location state and need no global time order
 * (the viewer's index build, core/index).
 *
 * The serial reader (rt_otf2.h) merges every location's events by time, which
 * keeps thousands of location readers and look-aheads alive at once. Here the
 * archive's definitions are read once (global, then each location's local
 * definitions, so the library applies their id mappings and clock offsets),
 * and each location's events are then read through the library's
 * per-location reader from its first record to its last, one reader open at
 * a time. The events are the serial reader's, with the same definitions,
 * processors and kinds (rt_otf2.h says which records become which events);
 * only their order differs: location by location, each in its own order.
 */
#ifndef RT_OTF2_LOCS_H
#define RT_OTF2_LOCS_H

#include "rt_tevent.h"

typedef struct rt_otf2_locs rt_otf2_locs;

/*
 * Open the archive at path (the anchor .otf2, or a folder holding one anchor)
 * and read its definitions. NULL with err naming the archive and the part.
 */
rt_otf2_locs *rt_otf2_locs_open(const char *path, rt_err *err);
void rt_otf2_locs_close(rt_otf2_locs *L);

/* The definitions (processors 0 .. nprocs-1 are the locations), owned by L. */
const rt_tdefs *rt_otf2_locs_defs(const rt_otf2_locs *L);
/* Bytes of the event files (for progress). */
uint64_t rt_otf2_locs_bytes(const rt_otf2_locs *L);
/* Bytes of processor p's event file (0 when it has none). */
uint64_t rt_otf2_locs_bytes_of(const rt_otf2_locs *L, int p);

/*
 * Read processor p's events in their order, handing each to fn (ev->proc = p,
 * ev->ticks the time stamp, ev->time in seconds); fn returning nonzero stops
 * the read with that status. RT_OK, fn's status, or RT_EFORMAT with err naming
 * the location's file when the library fails. A location without an event file
 * has no events (an error when its definition announces some).
 */
int rt_otf2_locs_read(rt_otf2_locs *L, int p, int (*fn)(void *ud, const rt_tevent *ev), void *ud, rt_err *err);

/* With on, the events' time in seconds is left 0 (a consumer of ticks alone saves a division). */
void rt_otf2_locs_ticks_only(rt_otf2_locs *L, int on);

/* A time stamp in seconds, as the events' time. */
double rt_otf2_locs_seconds(const rt_otf2_locs *L, int64_t ticks);

/*
 * A pass over processor p's events that wants only its sends: fn gets the
 * sends alone, each at the latest time stamp of the events up to it (a
 * processor's time is held when a stamp steps back); *nevents is set to the
 * number of its events and, when it has some, span to the first one's time
 * stamp and the latest. Cheaper than rt_otf2_locs_read: the other events are
 * decoded by the library but not converted. Same statuses as rt_otf2_locs_read.
 */
int rt_otf2_locs_sends(rt_otf2_locs *L, int p, int (*fn)(void *ud, const rt_tevent *ev), void *ud, int64_t span[2],
                       uint64_t *nevents, rt_err *err);

#endif
