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
    /* a byte range (rt_lines_range): lines starting at or past `end` are not given */
    int ranged;
    uint64_t end;
    uint64_t range_pos;      /* where the range's first whole line starts */
    unsigned long range_line; /* lines before it */
    int numbered;           /* each line is "LINE<TAB>text" (rt_lines_numbered) */
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

/* A numbered line "LINE<TAB>text": the line number is LINE, the line the text. */
static int numbered_line(rt_lines *r, const char **line, size_t *len, rt_err *err)
{
    const char *p = *line, *e = p + *len;
    unsigned long n = 0;
    const char *q = p;
    while (q < e && *q >= '0' && *q <= '9' && n < (unsigned long)-1 / 16)
        n = n * 10 + (unsigned long)(*q++ - '0');
    if (q == p || q == e || *q != '\t')
        return rt_err_at(err, RT_EFORMAT, r->name, r->lineno, "numbered line: no LINE<TAB> prefix");
    r->lineno = n;
    *line = q + 1;
    *len = (size_t)(e - q - 1);
    return RT_OK;
}

int rt_lines_next(rt_lines *r, const char **line, size_t *len, rt_err *err)
{
    size_t scanned = r->start;
    for (;;) {
        char *nl = memchr(r->buf + scanned, '\n', r->fill - scanned);
        if (nl || (r->eof && r->fill > r->start)) {
            if (r->ranged && r->consumed >= r->end)
                return RT_EEOF;
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
            if (r->numbered)
                return numbered_line(r, line, len, err);
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

/* The lines of a block [s, s + len) that start before the range's end. */
static size_t clip_block(const rt_lines *r, const char *s, size_t len)
{
    if (!r->ranged || r->consumed + len <= r->end)
        return len;
    size_t from = (size_t)(r->end - r->consumed) - 1; /* the last byte in the range */
    const char *nl = memchr(s + from, '\n', len - from);
    return nl ? (size_t)(nl - s) + 1 : len;
}

int rt_lines_block(rt_lines *r, const char **p, size_t *len, rt_err *err)
{
    if (r->numbered)
        return rt_err_at(err, RT_EINVAL, r->name, r->lineno, "numbered lines have no block access");
    if (r->ranged && r->consumed >= r->end)
        return RT_EEOF;
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
                *len = clip_block(r, s, (size_t)(nl - s) + 1);
                return RT_OK;
            }
            if (r->eof) {
                r->buf[r->fill] = '\0'; /* the spare byte past cap */
                *p = s;
                *len = clip_block(r, s, avail);
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

/* Read from byte pos of the file on, lineno lines before it. */
static int seek_to(rt_lines *r, uint64_t pos, unsigned long lineno, rt_err *err)
{
    if (fseeko(r->fp, (off_t)pos, SEEK_SET) != 0)
        return rt_err_at(err, RT_EINVAL, r->name, 0, "%s: a byte range needs a regular file",
                         r->once ? "a pipe or FIFO cannot seek" : strerror(errno));
    clearerr(r->fp);
    r->start = r->fill = 0;
    r->eof = 0;
    r->lineno = lineno;
    r->consumed = pos;
    return RT_OK;
}

int rt_lines_range(rt_lines *r, uint64_t begin, uint64_t end, unsigned long lines_before, rt_err *err)
{
    r->ranged = 0;
    if (begin > r->consumed) {
        int st = RT_OK;
        char c = '\n';
        if (begin > 0) {
            st = seek_to(r, begin - 1, 0, err);
            if (st == RT_OK && fread(&c, 1, 1, r->fp) != 1)
                c = '\n'; /* past the end: nothing to skip */
        }
        if (st == RT_OK)
            st = seek_to(r, begin, lines_before, err);
        if (st != RT_OK)
            return st;
        if (c != '\n') { /* begin is inside a line: it belongs to the range before */
            const char *line;
            size_t len;
            int numbered = r->numbered;
            r->numbered = 0;
            st = rt_lines_next(r, &line, &len, err);
            r->numbered = numbered;
            if (st != RT_OK && st != RT_EEOF)
                return st;
        }
    }
    r->ranged = 1;
    r->end = end;
    r->range_pos = r->consumed;
    r->range_line = r->lineno;
    return RT_OK;
}

void rt_lines_numbered(rt_lines *r, int on) { r->numbered = on != 0; }
int rt_lines_is_numbered(const rt_lines *r) { return r->numbered; }

uint64_t rt_lines_count(FILE *fp, uint64_t begin, uint64_t end, int *ioerr)
{
    char buf[1 << 16];
    uint64_t n = 0;
    *ioerr = 0;
    if (end <= begin)
        return 0;
    if (fseeko(fp, (off_t)begin, SEEK_SET) != 0) {
        *ioerr = errno ? errno : EIO;
        return 0;
    }
    uint64_t left = end - begin;
    while (left > 0) {
        size_t want = left < sizeof buf ? (size_t)left : sizeof buf;
        size_t got = fread(buf, 1, want, fp);
        for (const char *p = buf, *e = buf + got; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
            n++;
        left -= got;
        if (got < want) {
            if (ferror(fp))
                *ioerr = errno ? errno : EIO;
            break;
        }
    }
    return n;
}

int rt_lines_rewind(rt_lines *r, rt_err *err)
{
    if (r->ranged)
        return seek_to(r, r->range_pos, r->range_line, err);
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
