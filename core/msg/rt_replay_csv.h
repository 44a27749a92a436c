/*
 * rt_replay_csv.h - a replay's state segments and messages streamed to CSV
 * files while the replay runs (no pass of its own, no Lua), each file written
 * whole or not at all (rt_out).
 *
 *   states.csv    proc,state,start,end          every maximal segment of one state
 *                                               (idle, overhead, busy) of every processor
 *   messages.csv  src,dst,tag,bytes,send,recv   every message, when it pairs
 *
 * Every processor 0 .. nprocs-1 is idle from t0 until its first state change;
 * changes of zero length are merged into the segments around them (a segment
 * is written when a different state follows it, or at commit). Numbers are
 * written with %.17g, so they read back to the same doubles. State and memory:
 * one pending segment per processor. A window [t0, t1] (rt_replay_csv_set_end)
 * clips the segments to it and leaves out the messages wholly outside it (a
 * live pass that stops at t1 pairs only the messages received by then).
 */
#ifndef RT_REPLAY_CSV_H
#define RT_REPLAY_CSV_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_replay.h"

typedef struct rt_replay_csv rt_replay_csv;

/* Attach to rp (a tap) and start dir/states.csv and dir/messages.csv. NULL with err on failure. */
rt_replay_csv *rt_replay_csv_new(rt_replay *rp, const char *dir, int nprocs, double t0, rt_err *err);
/* End of the window (+inf by default): segments stop there, later messages are left out. */
void rt_replay_csv_set_end(rt_replay_csv *c, double t1);
/* Close every processor's last segment at t1, detach, write both files whole;
 * *nstates / *nmessages (may be NULL) get the rows written. Frees c. */
int rt_replay_csv_commit(rt_replay_csv *c, double t1, int64_t *nstates, int64_t *nmessages, rt_err *err);
/* Detach and drop both files (the targets are left as they were). Frees c; NULL-safe. */
void rt_replay_csv_abort(rt_replay_csv *c);

#endif
