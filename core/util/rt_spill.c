/*
 * rt_spill.c - records appended to a memory block, spilled to a temporary
 * file block by block (see rt_spill.h).
 */
#include "rt_spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_error.h"

struct rt_spill {
    size_t size, block;      /* record bytes, records a block */
    unsigned char *tail;     /* records nfile .. nfile + ntail - 1 */
    size_t ntail;
    int64_t nfile;           /* records in the file (whole blocks) */
    FILE *fp;
    int unflushed;
};

rt_spill *rt_spill_new(size_t size, size_t block)
{
    if (size == 0 || block == 0 || block > SIZE_MAX / size)
        return NULL;
    rt_spill *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->size = size;
    s->block = block;
    if (!(s->tail = malloc(size * block))) {
        free(s);
        return NULL;
    }
    return s;
}

void rt_spill_free(rt_spill *s)
{
    if (!s)
        return;
    if (s->fp)
        fclose(s->fp);
    free(s->tail);
    free(s);
}

int rt_spill_append(rt_spill *s, const void *recs, size_t n)
{
    const unsigned char *p = recs;
    while (n > 0) {
        if (s->ntail == s->block) {
            if (!s->fp && !(s->fp = tmpfile()))
                return RT_EIO;
            if (fwrite(s->tail, s->size, s->block, s->fp) != s->block)
                return RT_EIO;
            s->unflushed = 1;
            s->nfile += (int64_t)s->block;
            s->ntail = 0;
        }
        size_t k = s->block - s->ntail;
        if (k > n)
            k = n;
        memcpy(s->tail + s->ntail * s->size, p, k * s->size);
        s->ntail += k;
        p += k * s->size;
        n -= k;
    }
    return RT_OK;
}

int64_t rt_spill_count(const rt_spill *s)
{
    return s->nfile + (int64_t)s->ntail;
}

int64_t rt_spill_file_bytes(const rt_spill *s)
{
    return s->nfile * (int64_t)s->size;
}

int rt_spill_read(rt_spill *s, int64_t first, size_t n, void *out)
{
    if (first < 0 || (int64_t)n > rt_spill_count(s) - first)
        return RT_EINVAL;
    unsigned char *o = out;
    if (first < s->nfile) {
        size_t k = (size_t)(s->nfile - first < (int64_t)n ? s->nfile - first : (int64_t)n);
        if (s->unflushed) {
            if (fflush(s->fp) != 0)
                return RT_EIO;
            s->unflushed = 0;
        }
        size_t want = k * s->size, got = 0;
        while (got < want) {
            ssize_t r = pread(fileno(s->fp), o + got, want - got, (off_t)(first * (int64_t)s->size) + (off_t)got);
            if (r <= 0)
                return RT_EIO;
            got += (size_t)r;
        }
        o += want;
        first += (int64_t)k;
        n -= k;
    }
    if (n > 0)
        memcpy(o, s->tail + (size_t)(first - s->nfile) * s->size, n * s->size);
    return RT_OK;
}
