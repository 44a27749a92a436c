/*
 * rt_tdump.h - `retrace dump`: every event of a message-passing trace, one line
 * each, as the replay reads it (any format rt_tsource_open reads).
 *
 * Streaming: one event at a time from the source, formatted by the one event
 * formatter (rt_pg_view_describe: "TIME  Pp  kind  region ...") and written;
 * memory does not grow with the trace.
 */
#ifndef RT_TDUMP_H
#define RT_TDUMP_H

#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_tevent.h"

typedef struct {
    double from, to;             /* the window: events with from <= time <= to */
    const unsigned char *procs;  /* procs[p] != 0: processor p is written; NULL: all */
    int nprocs;                  /* entries of procs; processors beyond are left out */
} rt_tdump_opts;

/*
 * Write the events of s chosen by o to out, one line each. *lines (may be NULL)
 * gets the lines written, *events the events read. RT_OK; the source's error
 * (err naming file and place); RT_EIO when out fails; RT_EINTR on Ctrl-C
 * (rt_interrupt_request).
 */
int rt_tdump(rt_tsource *s, const rt_tdump_opts *o, FILE *out, uint64_t *lines, uint64_t *events, rt_err *err);

#endif
