/*
 * rt_anchor_check.c - see rt_anchor_check.h. The anchor's layout as the OTF2
 * library (2.x, 3.x) writes it, little-endian:
 *   0      0x03, then "BOTF2\0"
 *   7      trace format, then the version (major, minor, bugfix)
 *   12     chunk sizes of events and of definitions (uint64 each)
 *   28     file substrate, compression (a byte each)
 *   30     locations, global definitions (uint64 each)
 *   46     machine name, creator, description (NUL-terminated strings)
 *   then   the properties (uint32), each a name and a value (NUL-terminated)
 * An anchor of another layout is left to the library.
 */
#include "rt_anchor_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Anchors are a few hundred bytes; a larger one is left to the library. */
#define ANCHOR_MAX (1 << 20)

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The global definitions file beside the anchor: DIR/NAME.def for DIR/NAME.otf2. */
static long long defs_size(const char *path)
{
    size_t n = strlen(path);
    char *d = malloc(n + 5);
    if (!d)
        return -1;
    memcpy(d, path, n + 1);
    if (n >= 5 && strcmp(d + n - 5, ".otf2") == 0)
        strcpy(d + n - 5, ".def");
    else
        strcat(d, ".def");
    struct stat st;
    long long size = stat(d, &st) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
    free(d);
    return size;
}

int rt_otf2_anchor_check(const char *path, rt_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return RT_OK; /* (the library says why) */
    unsigned char *b = malloc(ANCHOR_MAX);
    size_t n = b ? fread(b, 1, ANCHOR_MAX, f) : 0;
    int whole = b && n < ANCHOR_MAX && !ferror(f);
    fclose(f);
    int st = RT_OK;
    if (!whole || n < 50 || b[0] != 0x03 || memcmp(b + 1, "BOTF2", 6) != 0)
        goto done;
    uint64_t locs = le(b + 30, 8), defs = le(b + 38, 8);
    long long dsize = defs_size(path);
    if (dsize >= 0 && (locs > (uint64_t)dsize || defs > (uint64_t)dsize)) {
        st = rt_err_set(err, RT_EFORMAT, "%s: anchor: %llu locations and %llu global definitions do not fit a "
                        "definitions file of %lld bytes (damaged anchor)", path, (unsigned long long)locs,
                        (unsigned long long)defs, dsize);
        goto done;
    }
    size_t pos = 46;
    for (int k = 0; k < 3; k++) { /* machine name, creator, description */
        unsigned char *z = memchr(b + pos, 0, n - pos);
        if (!z)
            goto done; /* (the library says the anchor is cut) */
        pos = (size_t)(z - b) + 1;
    }
    if (n - pos < 4)
        goto done;
    uint64_t props = le(b + pos, 4);
    if (props > (n - pos - 4) / 2)
        st = rt_err_set(err, RT_EFORMAT, "%s: anchor: %llu properties do not fit its last %zu bytes (damaged anchor)",
                        path, (unsigned long long)props, n - pos - 4);
done:
    free(b);
    return st;
}
