/*
 * rt_interleave.h - a capture's threads interleaved round-robin, N data
 * references at a time: an approximation of a parallel run for programs that
 * Valgrind ran one thread at a time (`retrace memspy DIR --interleave N`).
 *
 * Input: an RTMB trace and its allocation log (.msp records stamped @SEQ,
 * where "S P" says that thread P runs from that data reference on). Output: a
 * trace holding the same records, where each thread's own records keep their
 * order but the threads take turns: thread 0's next N data references (with the
 * fetches among them), then thread 1's, and so on; a thread joins the rotation
 * once as many references as came before its first run in the capture have
 * been written (so the main thread's set-up comes first), and leaves it at its
 * end. The output log holds the input's unstamped and @0 C / N records, then
 * an "S P" at each turn and each thread's A and F records where its turn
 * reaches them. Memory: one reader of the trace and of the log per thread
 * (the trace is read once per thread).
 */
#ifndef RT_INTERLEAVE_H
#define RT_INTERLEAVE_H

#include <stdint.h>

#include "rt_error.h"

#define RT_INTERLEAVE_MAX_THREADS 64

/* RT_OK, or an error naming the file and place (bad log line, too many threads,
 * quantum 0); the outputs are written whole or not at all. */
int rt_interleave(const char *trace_in, const char *log_in, const char *trace_out, const char *log_out,
                  uint64_t quantum, rt_err *err);

#endif
