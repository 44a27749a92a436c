/*
 * rt_memspy_feed.h - feeding an rt_memspy from trace files: `.msp` traces
 * (rt_msp.h) and SHMAP traces run on the SHMAP scheduler.
 */
#ifndef RT_MEMSPY_FEED_H
#define RT_MEMSPY_FEED_H

#include "rt_memspy.h"
#include "rt_msp.h"

typedef void (*rt_memspy_progress_fn)(void *ud, uint64_t done, uint64_t total);

/*
 * Every record of the .msp trace at path, in order. Warnings name the file and
 * line. Returns RT_OK, or an error with err "FILE:LINE: FIELD: ..." (a
 * malformed record, a processor outside the machine) or a cache policy's
 * failure. progress (may be NULL) is called now and then with bytes read and
 * the file's size.
 */
int rt_memspy_feed_msp(rt_memspy *m, const char *path, rt_memspy_progress_fn progress, void *ud,
                       rt_err *err);

/*
 * A SHMAP trace run on the engine's P processors by the SHMAP scheduler (its
 * interleaving is the order): every matrix is a named data range "matrix ID"
 * of 8-byte words, the matrices back to back in increasing ID order,
 * the subroutine named by a PE's flops records is its code bin (the events
 * before its first flops record run in "(unknown)"), each element loaded or
 * stored is an 8-byte reference.
 */
int rt_memspy_feed_shmap(rt_memspy *m, const char *path, rt_memspy_progress_fn progress, void *ud,
                         rt_err *err);

/*
 * A memory trace of one program (fmt: an rt_memfmt, din, xdin, lackey or RTMB)
 * with its allocation log (a .msp file of E X A F N C B records, stamped
 * "@SEQ": see rt_msp.h), on processor 0. Loads and stores are references;
 * an instruction fetch is one busy cycle; flushes and the other kinds are skipped. Log records
 * with a stamp past the end of the trace are applied after it. Errors name
 * the trace's record or the log's line; a reference record (R, W) or a
 * decreasing stamp in the log is an error.
 */
int rt_memspy_feed_memtrace(rt_memspy *m, const char *path, int fmt, const char *log,
                            rt_memspy_progress_fn progress, void *ud, rt_err *err);

#endif
