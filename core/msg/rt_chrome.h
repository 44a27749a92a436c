/*
 * rt_chrome.h - a replay written in the Trace Event Format (the JSON that
 * Perfetto and chrome://tracing open), as it runs, in C.
 *
 * One process per processor (pid = processor + 1, named from the definitions)
 * with its tracks (threads): 1 "states" (busy / overhead / idle as complete
 * events "X", one per maximal segment of one state), 2 "regions" (the user
 * regions that nest), and 3, 4, ... "regions, not nested K" for user regions
 * that closed while regions opened inside them were still open (rt_replay.h's
 * rule): such a region goes to the first of those tracks where it nests. Each
 * paired message is a flow from its send ("s", on the sender's states track) to
 * its receive ("f"). Times are microseconds of trace time with three decimals,
 * from whole nanoseconds, so a slice's end (ts + dur) is exact and slices that
 * touch do not overlap by a rounding.
 *
 *     rt_chrome *c = rt_chrome_new(fp, t0);   (fp: rt_out_fp of the output)
 *     rt_replay_tap tap = rt_chrome_tap(c, rp);
 *     rt_replay_add_tap(rp, &tap);            (states, intervals, messages)
 *     rt_replay_run(rp, &err);
 *     rt_chrome_close(c, t1);                 (the last state segments)
 *     rt_chrome_marker(c, ...);               (any instant events)
 *     rt_chrome_finish(c, rt_replay_defs(rp), &err);   (names, the closing bracket)
 *     rt_chrome_free(c);
 *
 * Memory: one open state segment per processor and the open not-nested
 * regions' lanes, whatever the trace's length.
 */
#ifndef RT_CHROME_H
#define RT_CHROME_H

#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_replay.h"

typedef struct rt_chrome rt_chrome;

typedef struct rt_chrome_counts {
    int64_t complete;   /* "X" events: state segments and regions */
    int64_t states;     /* state segments */
    int64_t user;       /* user regions */
    int64_t unnested;   /* of which on "not nested" tracks */
    int64_t flow;       /* flow events (two per message) */
    int64_t threads;    /* tracks named */
    int64_t markers;    /* instant events */
} rt_chrome_counts;

/* Start the document on fp (not owned); processors are idle from t0 until their first change. */
rt_chrome *rt_chrome_new(FILE *fp, double t0);
void rt_chrome_free(rt_chrome *c);

/* The tap that feeds c from rp (its definitions name the regions), for rt_replay_add_tap;
 * rt_replay_remove_tap(rp, c) stops it. */
rt_replay_tap rt_chrome_tap(rt_chrome *c, rt_replay *rp);

/* After the replay: every processor's state up to t1 (or its last change when later). */
void rt_chrome_close(rt_chrome *c, double t1);

/* An instant event on proc's states track; args_json: a JSON object's text ("{}" when NULL). */
void rt_chrome_marker(rt_chrome *c, int proc, double time, const char *name, const char *args_json);

/*
 * The processes' and tracks' names (from defs: a processor without a name is
 * "processor N") and the end of the document. RT_OK, or RT_ENOMEM when memory ran
 * out during the replay (the document is incomplete then).
 */
int rt_chrome_finish(rt_chrome *c, const rt_tdefs *defs, rt_err *err);

void rt_chrome_get_counts(const rt_chrome *c, rt_chrome_counts *out);

#endif
