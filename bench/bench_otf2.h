/*
 * bench_otf2.h - what the benchmarks that write OTF2 archives share: the flush
 * callbacks of a writer (flush whenever asked, no time stamp for the flush) and
 * a check that ends the program naming the call that failed.
 */
#ifndef BENCH_OTF2_H
#define BENCH_OTF2_H

#include <otf2/otf2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static inline OTF2_FlushType bench_pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *data,
                                             bool final)
{
    (void)ud, (void)type, (void)loc, (void)data, (void)final;
    return OTF2_FLUSH;
}

static inline OTF2_TimeStamp bench_post_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)ud, (void)type, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks bench_flush = {bench_pre_flush, bench_post_flush};

/* rc must be OTF2_SUCCESS, or "PROG: WHAT: the library's words" and exit 1 */
static inline void bench_otf2_check(const char *prog, OTF2_ErrorCode rc, const char *what)
{
    if (rc != OTF2_SUCCESS) {
        fprintf(stderr, "%s: %s: %s\n", prog, what, OTF2_Error_GetDescription(rc));
        exit(1);
    }
}

#endif
