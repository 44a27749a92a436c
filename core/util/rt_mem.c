/*
 * rt_mem.c - growing the arrays of the core modules (see rt_mem.h).
 */
#include "rt_mem.h"

#include <unistd.h>

#include <stdint.h>
#include <stdlib.h>

#include "rt_error.h"

int rt_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return RT_OK;
    if (need > SIZE_MAX / 2 / elem)
        return RT_ENOMEM; /* doubling up to need would overflow */
    size_t n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    int st = rt_resize(p, n, elem);
    if (st == RT_OK)
        *cap = n;
    return st;
}

int rt_resize(void **p, size_t n, size_t elem)
{
    if (elem && n > SIZE_MAX / elem)
        return RT_ENOMEM;
    void *q = realloc(*p, n * elem);
    if (!q)
        return RT_ENOMEM;
    *p = q;
    return RT_OK;
}

unsigned long long rt_mem_physical(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return 0;
    return (unsigned long long)pages * (unsigned long long)size;
}
