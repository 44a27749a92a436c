/*
 * rt_mem.h - growing the arrays of the core modules.
 *
 * Traces are streamed, but per-processor tables, symbol tables and result
 * lists grow with what they meet; they grow by doubling (amortised O(1) per
 * append) and keep their contents and size when memory runs out, so the caller
 * can report RT_ENOMEM and still free what it holds.
 */
#ifndef RT_MEM_H
#define RT_MEM_H

#include <stddef.h>

/*
 * Make *p (an array of *cap elements of elem bytes) hold at least need
 * elements: nothing when need <= *cap, else *cap doubles (from 8) until it
 * reaches need and *p is reallocated. Returns RT_OK, or RT_ENOMEM with *p and
 * *cap unchanged (also when the size in bytes would overflow). Call as
 * rt_grow((void **)&a, &cap, n + 1, sizeof *a).
 */
int rt_grow(void **p, size_t *cap, size_t need, size_t elem);

/*
 * Reallocate *p to exactly n elements of elem bytes. Returns RT_OK, or
 * RT_ENOMEM with *p unchanged (still valid at its old size), also when n * elem
 * would overflow.
 */
int rt_resize(void **p, size_t n, size_t elem);

/*
 * Physical memory of the machine in bytes (0 when it cannot be told). Tables
 * sized by an option (a 64 GiB cache's lines) are checked against it before they
 * are allocated: Linux hands out more than it has, and touching the pages later
 * ends the process with SIGKILL instead of an error.
 */
unsigned long long rt_mem_physical(void);

#endif
