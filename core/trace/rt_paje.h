/*
 * rt_paje.h - the Pajé trace reader (.trace files of SimGrid, akypuera,
 * PajeNG...), a producer of the neutral event stream (rt_tevent.h).
 *
 * A Pajé file describes itself: %EventDef blocks give each numeric event id
 * a kind (PajeSetState, PajeStartLink...) and its fields in any order; the
 * lines that follow are `ID field field ...`, strings optionally in double
 * quotes. The reader streams the file once, keeping the type and container
 * tables, the open states and the links in flight, never the events.
 *
 * Mapping (the README's Pajé section says the same for users):
 *   - a container becomes a processor the first time it holds a state, an
 *     event or one end of a link (dense indices in that order); name = the
 *     container's name, path = the names from the outermost container down to
 *     it, '/'-separated. Containers holding only variables (SimGrid's links
 *     and hosts) stay out of the processor list.
 *   - each value of a state or event type is a region (ids 0, 1, ... in order
 *     of first definition or use): name = the value's name, group = the type's
 *     name, class = rt_tclass_guess(name).
 *   - PajeSetState: LEAVE of every state open for that type on the container
 *     (innermost first), then ENTER; PajePushState: ENTER; PajePopState: LEAVE
 *     of the innermost; PajeResetState: LEAVE of them all. A destroyed
 *     container (and its sub-containers) leaves its open states at that time;
 *     at the end of the file every open state is left at the last time read,
 *     as PajeNG does. States of different types on one container interleave:
 *     a LEAVE always names the region it closes, which need not be the
 *     innermost open one.
 *   - PajeNewEvent: MARKER (region = the value's region, no data).
 *   - PajeSetVariable / AddVariable / SubVariable: counted (stats), not in
 *     the stream.
 *   - PajeStartLink: SEND on the start container, PajeEndLink: RECV on the
 *     end container, paired by (container, link type, key) as PajeNG does;
 *     tag = the line of the link's first end (the same on both ends: a rule any
 *     range of the file can apply), comm = -1, bytes
 *     = the link's value when it is a number, else an extra "Size" field when
 *     there is one, else 0. A SEND waits in a look-ahead queue until its end
 *     is read (and a RECV read before its start waits for the start), so both
 *     carry their peer; a link still open at the end of the file, or whose
 *     other end is more than RT_PAJE_LOOKAHEAD lines further on, goes out with
 *     peer -1 and a warning (a bound in lines: the same for any range).
 *   - Times are the file's seconds; events come in file order (a time that
 *     goes backwards is warned about once). Lines of event kinds the reader
 *     does not know are counted in base.skipped and stats.unknown.
 */
#ifndef RT_PAJE_H
#define RT_PAJE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_tevent.h"

/* Lines read at most while a link waits for its other end. */
#define RT_PAJE_LOOKAHEAD (1u << 20)

/*
 * Open a Pajé trace and read up to its first event. NULL with err set
 * ("FILE:LINE: field: what", RT_EFORMAT; "FILE: reason", RT_EIO) on failure.
 * Free with rt_tsource_free.
 */
rt_tsource *rt_paje_open(const char *path, rt_err *err);

/*
 * 1 when head (the first n bytes of the file at path) starts, after blank and
 * '#' comment lines, with a `%EventDef NAME ID` line; else 0. 0 for
 * directories (head NULL, n 0).
 */
int rt_paje_sniff(const char *path, const unsigned char *head, size_t n);

/* What a Pajé source has read so far, by kind of line. */
typedef struct rt_paje_stats {
    uint64_t lines;        /* lines read, header included */
    uint64_t containers;   /* PajeCreateContainer lines */
    uint64_t states;       /* PajeSetState, PushState, PopState, ResetState lines */
    uint64_t events;       /* PajeNewEvent lines */
    uint64_t variables;    /* PajeSetVariable, AddVariable, SubVariable lines (not in the stream) */
    uint64_t links;        /* links whose two ends were read */
    uint64_t unmatched;    /* link ends sent with peer -1 (other end never read, or too late) */
    uint64_t unknown;      /* lines of event kinds not modelled (also in base.skipped) */
} rt_paje_stats;

/* Copy a Pajé source's counters into *out: RT_OK, or RT_EINVAL when s is not a Pajé source. */
int rt_paje_stats_get(const rt_tsource *s, rt_paje_stats *out);

#endif
