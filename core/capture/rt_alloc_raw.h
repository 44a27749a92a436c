/*
 * rt_alloc_raw.h - the two passes of `retrace capture` over the recorder's
 * allocation records (DIR/alloc.raw), in C: a capture of a program that
 * allocates often has millions of them.
 *
 * alloc.raw lines are `@SEQ KIND ...`: `A ADDR SIZE PC/PC/...` (an allocation
 * and its return addresses, innermost first), `F ADDR` (a free), `S P` (thread
 * P runs from here), `L LO HI BIAS PATH` (a loaded object), `K LO HI` (the main
 * thread's stack). Lines of any other shape are passed over, as the Lua reader
 * they replace did.
 */
#ifndef RT_ALLOC_RAW_H
#define RT_ALLOC_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

/*
 * First pass: on_path(ud, pcs, n) once per distinct call path of the A records
 * (the text `PC/PC/...`, in order of first use), on_other(ud, kind, rest, n) for
 * each L and K record (rest: the text after `@SEQ KIND `). A callback's non-zero
 * return stops the pass and is returned. RT_OK, that value, or an error (err set).
 */
int rt_alloc_raw_scan(const char *raw, int (*on_path)(void *ud, const char *pcs, size_t n),
                      int (*on_other)(void *ud, char kind, const char *rest, size_t n), void *ud,
                      rt_err *err);

/*
 * Second pass: the A, F and S records rewritten for the allocation log, each to
 * both of out[0] and out[1] (rt_out: written whole or not at all), after
 * head[k] and then tail on each:
 *   `@SEQ A P ADDR SIZE` + names(ud, pcs, n)   (names gives " SHORT LONG\n")
 *   `@SEQ F P REST`,  `@SEQ S P`
 * P being the thread of the last S record (0 before one). names returning NULL
 * fails the pass (RT_EINVAL, err naming the line). *nalloc: the A records.
 */
int rt_alloc_raw_rewrite(const char *raw, const char *const out[2], const char *const head[2],
                         const size_t head_len[2], const char *tail, size_t tail_len,
                         const char *(*names)(void *ud, const char *pcs, size_t n), void *ud,
                         uint64_t *nalloc, rt_err *err);

#endif
