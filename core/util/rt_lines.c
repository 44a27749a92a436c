/* rt_lines.c - chunked line reader and token helpers (see rt_lines.h). */
#include "rt_lines.h"

#include "rt_input.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RT_LINES_CHUNK (1u << 20)

struct rt_lines {
    FILE *fp;
    int owns_fp;            /* close fp in rt_lines_free */
    char *name;
    char *buf;              /* data [start, fill) not yet returned */
    size_t cap, start, fill;
    int eof;                /* fp reported end of file */
    unsigned long lineno;
    uint64_t consumed;      /* bytes handed out as lines, newlines included */
    uint64_t size;          /* file size when known */
    int once;               /* not a regular file (a pipe, a FIFO): no second pass */
};

static rt_lines *make(FILE *fp, int owns, const char *name, rt_err *err)
{
    rt_lines *r = calloc(1, sizeof *r);
    if (!r)
        goto nomem;
    r->name = strdup(name);
    r->cap = RT_LINES_CHUNK;
    r->buf = malloc(r->cap + 1);
    if (!r->name || !r->buf)
        goto nomem;
    r->fp = fp;
    r->owns_fp = owns;
    struct stat st;
    if (fileno(fp) >= 0 && fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode))
        r->size = (uint64_t)st.st_size;
    else
        r->once = 1;
    return r;
nomem:
    if (r) {
        free(r->name);
        free(r->buf);
        free(r);
    }
    if (owns)
        fclose(fp);
    rt_err_at(err, RT_ENOMEM, name, 0, "out of memory");
    return NULL;
}

rt_lines *rt_lines_open(const char *path, rt_err *err)
{
    /* through rt_input: a FIFO or pipe whose first bytes the format detector took gives them again */
    FILE *fp = rt_input_fopen(path, err);
    if (!fp)
        return NULL;
    if (strcmp(path, "-") == 0)
        return make(fp, 1, "<stdin>", err);
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        rt_err_at(err, RT_EIO, path, 0, "is a directory");
        return NULL;
    }
    return make(fp, 1, path, err);
}

rt_lines *rt_lines_from_stream(FILE *fp, const char *name, rt_err *err)
{
    return make(fp, 0, name, err);
}

void rt_lines_free(rt_lines *r)
{
    if (!r)
        return;
    if (r->owns_fp && r->fp)
        fclose(r->fp);
    free(r->name);
    free(r->buf);
    free(r);
}

/* Move unread data to the front, grow if full, and read more. */
static int refill(rt_lines *r, rt_err *err)
{
    if (rt_interrupt_pending())
        return rt_interrupt_check(err);
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->fill - r->start);
        r->fill -= r->start;
        r->start = 0;
    }
    if (r->fill == r->cap) {
        if (r->cap >= RT_LINES_MAX)
            return rt_err_at(err, RT_EFORMAT, r->name, r->lineno + 1, "line longer than %zu MiB",
                             RT_LINES_MAX >> 20);
        size_t ncap = r->cap * 2;
        char *nb = realloc(r->buf, ncap + 1);
        if (!nb)
            return rt_err_at(err, RT_ENOMEM, r->name, r->lineno + 1, "line too long for memory");
        r->buf = nb;
        r->cap = ncap;
    }
    size_t got = fread(r->buf + r->fill, 1, r->cap - r->fill, r->fp);
    r->fill += got;
    if (got == 0) {
        if (ferror(r->fp))
            return rt_err_at(err, RT_EIO, r->name, r->lineno + 1, "read error: %s", strerror(errno));
        r->eof = 1;
    }
    return RT_OK;
}

int rt_lines_next(rt_lines *r, const char **line, size_t *len, rt_err *err)
{
    size_t scanned = r->start;
    for (;;) {
        char *nl = memchr(r->buf + scanned, '\n', r->fill - scanned);
        if (nl || (r->eof && r->fill > r->start)) {
            char *s = r->buf + r->start;
            char *e = nl ? nl : r->buf + r->fill;
            size_t taken = (size_t)(e - s) + (nl ? 1 : 0);
            if (e > s && e[-1] == '\r')
                e--;
            *e = '\0';  /* the buffer has one spare byte past cap for this */
            *line = s;
            *len = (size_t)(e - s);
            r->start += taken;
            r->consumed += taken;
            r->lineno++;
            return RT_OK;
        }
        if (r->eof)
            return RT_EEOF;
        size_t keep = r->fill - r->start;
        int st = refill(r, err);
        if (st != RT_OK)
            return st;
        scanned = keep;  /* data before this was already searched */
    }
}

int rt_lines_block(rt_lines *r, const char **p, size_t *len, rt_err *err)
{
    for (;;) {
        size_t avail = r->fill - r->start;
        if (avail > 0) {
            const char *s = r->buf + r->start;
            const char *nl = s + avail; /* the last newline: a short walk back */
            while (nl > s && nl[-1] != '\n')
                nl--;
            if (nl > s) {
                nl--;
                *p = s;
                *len = (size_t)(nl - s) + 1;
                return RT_OK;
            }
            if (r->eof) {
                r->buf[r->fill] = '\0'; /* the spare byte past cap */
                *p = s;
                *len = avail;
                return RT_OK;
            }
        } else if (r->eof) {
            return RT_EEOF;
        }
        int st = refill(r, err);
        if (st != RT_OK)
            return st;
    }
}

void rt_lines_consume(rt_lines *r, size_t bytes, unsigned long lines)
{
    r->start += bytes;
    r->consumed += bytes;
    r->lineno += lines;
}

unsigned long rt_lines_lineno(const rt_lines *r) { return r->lineno; }
const char *rt_lines_name(const rt_lines *r) { return r->name; }
uint64_t rt_lines_offset(const rt_lines *r) { return r->consumed; }
uint64_t rt_lines_size(const rt_lines *r) { return r->size; }

int rt_lines_rewind(rt_lines *r, rt_err *err)
{
    if (fseek(r->fp, 0, SEEK_SET) != 0)
        return rt_err_at(err, RT_EINVAL, r->name, 0, "%s: this reader needs a second pass; give a regular file",
                         r->once ? "a pipe or FIFO can be read only once" : strerror(errno));
    clearerr(r->fp);
    r->start = r->fill = 0;
    r->eof = 0;
    r->lineno = 0;
    r->consumed = 0;
    return RT_OK;
}

/* ---- tokens ---- */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

int rt_tok_next(const char **cur, const char *end, rt_span *tok)
{
    const char *p = *cur;
    while (p < end && is_space(*p))
        p++;
    if (p >= end) {
        *cur = p;
        return 0;
    }
    const char *s = p;
    while (p < end && !is_space(*p))
        p++;
    tok->p = s;
    tok->n = (size_t)(p - s);
    *cur = p;
    return 1;
}

/* Copy a short span to a NUL-terminated buffer; 0 if it does not fit or is empty. */
static int to_cstr(rt_span s, char *buf, size_t cap)
{
    if (s.n == 0 || s.n >= cap)
        return 0;
    memcpy(buf, s.p, s.n);
    buf[s.n] = '\0';
    return 1;
}

int rt_span_long(rt_span s, long *out)
{
    /* fast path: plain decimal */
    size_t i = 0;
    int neg = 0;
    if (s.n == 0)
        return 0;
    if (s.p[0] == '-' || s.p[0] == '+') {
        neg = s.p[0] == '-';
        i = 1;
    }
    if (i == s.n || s.n - i > 18) {
        char buf[64];
        if (!to_cstr(s, buf, sizeof buf))
            return 0;
        char *e;
        errno = 0;
        long v = strtol(buf, &e, 10);
        if (*e || errno)
            return 0;
        *out = v;
        return 1;
    }
    long v = 0;
    for (; i < s.n; i++) {
        unsigned d = (unsigned)(s.p[i] - '0');
        if (d > 9)
            return 0;
        v = v * 10 + (long)d;
    }
    *out = neg ? -v : v;
    return 1;
}

int rt_span_double(rt_span s, double *out)
{
    char buf[128];
    if (!to_cstr(s, buf, sizeof buf))
        return 0;
    char *e;
    double v = strtod(buf, &e);
    if (*e || e == buf || !isfinite(v)) /* nan, inf and overflow (1e999) are not numbers */
        return 0;
    *out = v;
    return 1;
}

int rt_span_hex(rt_span s, uint64_t *out)
{
    size_t i = 0;
    if (s.n >= 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X'))
        i = 2;
    if (i == s.n || s.n - i > 16)
        return 0;
    uint64_t v = 0;
    for (; i < s.n; i++) {
        char c = s.p[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return 0;
        v = (v << 4) | d;
    }
    *out = v;
    return 1;
}
