/*
 * rt_vgpreload.c - vgpreload_retrace-amd64-linux.so, the preload of the
 * `retrace` Valgrind tool: wraps the C library's allocator (malloc, calloc,
 * realloc, reallocarray, free, memalign, posix_memalign, aligned_alloc, valloc,
 * pvalloc) with Valgrind's function wrapping. The program's own allocator runs;
 * each call is bracketed by two client requests (RT_VG_REQ_BEGIN, then
 * RT_VG_REQ_END with what happened) and the tool records it. The tool never
 * instruments this object's code, so the wrappers leave no reference in the
 * trace. C++'s operator new and delete reach malloc and free. Built without
 * libc (-nodefaultlibs), as Valgrind's own preloads are.
 */
#include <stddef.h>

#include <valgrind/valgrind.h>

#include "rt_vgproto.h"

typedef unsigned long W;

#define LIBC libcZdsoZa /* libc.so* */

static inline void begin(void)
{
    VALGRIND_DO_CLIENT_REQUEST_STMT(RT_VG_REQ_BEGIN, 0, 0, 0, 0, 0);
}

static inline void end(W what, W block, W size, W old)
{
    VALGRIND_DO_CLIENT_REQUEST_STMT(RT_VG_REQ_END, what, block, size, old, 0);
}

#define WRAP(name) I_WRAP_SONAME_FNNAME_ZU(LIBC, name)

void *WRAP(malloc)(size_t n);
void *WRAP(malloc)(size_t n)
{
    OrigFn fn;
    W r;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_W_W(r, fn, n);
    end(RT_VG_WHAT_ALLOC, r, n, 0);
    return (void *)r;
}

void *WRAP(valloc)(size_t n);
void *WRAP(valloc)(size_t n)
{
    OrigFn fn;
    W r;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_W_W(r, fn, n);
    end(RT_VG_WHAT_ALLOC, r, n, 0);
    return (void *)r;
}

void *WRAP(pvalloc)(size_t n);
void *WRAP(pvalloc)(size_t n)
{
    OrigFn fn;
    W r;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_W_W(r, fn, n);
    end(RT_VG_WHAT_ALLOC, r, n, 0);
    return (void *)r;
}

void *WRAP(calloc)(size_t k, size_t n);
void *WRAP(calloc)(size_t k, size_t n)
{
    OrigFn fn;
    W r;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_W_WW(r, fn, k, n);
    end(RT_VG_WHAT_ALLOC, r, (W)k * (W)n, 0);
    return (void *)r;
}

void *WRAP(memalign)(size_t a, size_t n);
void *WRAP(memalign)(size_t a, size_t n)
{
    OrigFn fn;
    W r;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_W_WW(r, fn, a, n);
    end(RT_VG_WHAT_ALLOC, r, n, 0);
    return (void *)r;
}

void *WRAP(aligned_alloc)(size_t a, size_t n);
void *WRAP(aligned_alloc)(size_t a, size_t n)
{
    OrigFn fn;
    W r;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_W_WW(r, fn, a, n);
    end(RT_VG_WHAT_ALLOC, r, n, 0);
    return (void *)r;
}

int WRAP(posix_memalign)(void **p, size_t a, size_t n);
int WRAP(posix_memalign)(void **p, size_t a, size_t n)
{
    OrigFn fn;
    W r;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_W_WWW(r, fn, p, a, n);
    end(RT_VG_WHAT_ALLOC, r == 0 ? (W)*p : 0, n, 0);
    return (int)r;
}

void *WRAP(realloc)(void *old, size_t n);
void *WRAP(realloc)(void *old, size_t n)
{
    OrigFn fn;
    W r;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_W_WW(r, fn, old, n);
    end(RT_VG_WHAT_REALLOC, r, n, (W)old);
    return (void *)r;
}

void *WRAP(reallocarray)(void *old, size_t k, size_t n);
void *WRAP(reallocarray)(void *old, size_t k, size_t n)
{
    OrigFn fn;
    W r;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_W_WWW(r, fn, old, k, n);
    end(RT_VG_WHAT_REALLOC, r, (W)k * (W)n, (W)old);
    return (void *)r;
}

void WRAP(free)(void *p);
void WRAP(free)(void *p)
{
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    begin();
    CALL_FN_v_W(fn, p);
    end(RT_VG_WHAT_FREE, 0, 0, (W)p);
}
