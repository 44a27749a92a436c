/*
 * rt_din_ahead.c - din parsed on a thread of its own into a ring of slots
 * (see rt_din_ahead.h).
 */
#define _GNU_SOURCE
#include "rt_din_ahead.h"
#include "rt_input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_lines.h"
#include "rt_memtrace_fast.h"

#define SLOTS 4
#define SLOT_LINES 8192 /* bare loads and stores per slot */
#define SLOT_REFS 1024  /* general references per slot */
#define SLOT_SEGS 2048  /* runs of either kind per slot */
#define BUF ((size_t)256 << 10) /* text read at a time: the parse finds it in the cache */
#define SPARE 32               /* zero bytes after the text, read past by the block parsers */

enum { SEG_LINES, SEG_REFS };

typedef struct seg {
    uint32_t kind, n;
} seg;

typedef struct slot {
    uint64_t addr[SLOT_LINES]; /* loads and stores: the address, bit 0 set for a store */
    rt_memref refs[SLOT_REFS];
    seg segs[SLOT_SEGS];
    size_t nlines, nrefs, nsegs;
    int status;      /* RT_OK; RT_EEOF: the last slot; an error: met after the slot's references */
    rt_err err;      /* the error, when status is one */
    uint64_t offset; /* bytes parsed once this slot is taken */
} slot;

/* ---- the parser thread ---- */

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* a run of n references of kind k at the end of the slot's segments */
static void add_seg(slot *s, uint32_t kind, size_t n)
{
    if (!n)
        return;
    if (s->nsegs && s->segs[s->nsegs - 1].kind == kind)
        s->segs[s->nsegs - 1].n += (uint32_t)n;
    else
        s->segs[s->nsegs++] = (seg){kind, (uint32_t)n};
}

/* parser state across slots */
typedef struct parse {
    char *buf;           /* the text read and not yet parsed, [p, have) */
    size_t cap;          /* its size, less the spare bytes after the text */
    const char *p, *end; /* the whole lines in it: [p, end) */
    size_t have;
    int eof;             /* the file has been read to its end */
    unsigned long lines; /* lines parsed before p */
    uint64_t done;       /* bytes of the file before buf */
} parse;

struct rt_din_ahead {
    char *name;
    int fd;
    uint64_t size;
    parse parse; /* the parser thread's */
    slot ring[SLOTS];
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t filled, space;
    uint64_t produced, consumed; /* slots, under mu */
    int stop;                    /* under mu: the reader is being freed */
    int thread_failed;
    /* the consumer's place (its thread only) */
    slot *cur;
    size_t seg_i, seg_pos, line_i, ref_i;
    int err_given;  /* the current slot's error was returned */
    uint64_t offset;
};

/* More whole lines into the buffer once [p, end) is parsed: RT_OK, RT_EEOF
 * at the end, or an error (a read error, a line over RT_LINES_MAX) in err. */
static int refill(rt_din_ahead *a, parse *ps, rt_err *err)
{
    for (;;) {
        size_t keep = ps->have - (size_t)(ps->p - ps->buf); /* a partial line */
        if (ps->eof) {
            if (!keep)
                return RT_EEOF;
            ps->end = ps->buf + ps->have; /* the last line, no newline: buf[have] is 0 */
            return RT_OK;
        }
        ps->done += (uint64_t)(ps->p - ps->buf);
        memmove(ps->buf, ps->p, keep);
        ps->p = ps->buf;
        ps->have = keep;
        if (keep == ps->cap) { /* one line fills the buffer */
            if (ps->cap >= RT_LINES_MAX)
                return rt_err_at(err, RT_EFORMAT, a->name, ps->lines + 1, "line longer than %zu MiB",
                                 RT_LINES_MAX >> 20);
            char *nb = realloc(ps->buf, 2 * ps->cap + SPARE);
            if (!nb)
                return rt_err_at(err, RT_ENOMEM, a->name, ps->lines + 1, "out of memory");
            ps->buf = nb;
            ps->p = nb;
            ps->cap *= 2;
        }
        ssize_t r = read(a->fd, ps->buf + ps->have, ps->cap - ps->have);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return rt_err_at(err, RT_EIO, a->name, ps->lines + 1, "read failed: %s", strerror(errno));
        }
        ps->eof = r == 0;
        ps->have += (size_t)r;
        memset(ps->buf + ps->have, 0, SPARE);
        const char *nl = memrchr(ps->buf, '\n', ps->have);
        if (nl) {
            ps->end = nl + 1;
            return RT_OK;
        }
    }
}

/* Fill s from the parse; sets s->status. */
static void fill(rt_din_ahead *a, parse *ps, slot *s)
{
    s->nlines = s->nrefs = s->nsegs = 0;
    s->status = RT_OK;
    while (s->nlines < SLOT_LINES && s->nrefs < SLOT_REFS && s->nsegs < SLOT_SEGS - 2) {
        if (ps->p >= ps->end) {
            int st = refill(a, ps, &s->err);
            if (st != RT_OK) {
                s->status = st == RT_EEOF ? RT_EEOF : st;
                if (st != RT_EEOF)
                    ps->eof = 1, ps->p = ps->end = ps->buf, ps->have = 0; /* nothing after it */
                break;
            }
        }
        /* plain loads and stores, straight into the slot */
        size_t k = s->nlines;
        ps->p = rt_din_words(ps->p, ps->end, s->addr, SLOT_LINES, &k, &ps->lines);
        add_seg(s, SEG_LINES, k - s->nlines);
        s->nlines = k;
        if (s->nlines == SLOT_LINES || ps->p >= ps->end)
            continue;
        /* one line of another plain shape (an instruction fetch, misc, flush) */
        k = s->nrefs;
        const char *q = rt_din_block(ps->p, ps->end, s->refs, k + 1, &k, &ps->lines);
        if (k > s->nrefs) {
            add_seg(s, SEG_REFS, 1);
            s->nrefs = k;
            ps->p = q;
            continue;
        }
        /* the slow path: a blank line is skipped, any other is parsed with
         * the plain reader's parser, which names file, line and field */
        const char *nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
        const char *le = nl ? nl : ps->end;
        const char *c = ps->p;
        while (c < le && is_blank(*c))
            c++;
        unsigned long no = ++ps->lines;
        const char *line = ps->p;
        ps->p = nl ? nl + 1 : ps->end;
        if (c == le)
            continue;
        int st = rt_din_parse_line(line, (size_t)(le - line), a->name, no, &s->refs[s->nrefs], &s->err);
        if (st != RT_OK) { /* the slot ends at the error; the parse goes on after it */
            s->status = st;
            break;
        }
        s->nrefs++;
        add_seg(s, SEG_REFS, 1);
    }
    s->offset = ps->done + (uint64_t)(ps->p - ps->buf);
}

static void *producer(void *arg)
{
    rt_din_ahead *a = arg;
    parse *ps = &a->parse;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        while (!a->stop && a->produced - a->consumed == SLOTS)
            pthread_cond_wait(&a->space, &a->mu);
        int stop = a->stop;
        slot *s = &a->ring[a->produced % SLOTS];
        pthread_mutex_unlock(&a->mu);
        if (stop)
            return NULL;
        fill(a, ps, s);
        pthread_mutex_lock(&a->mu);
        a->produced++;
        pthread_cond_signal(&a->filled);
        pthread_mutex_unlock(&a->mu);
        if (s->status == RT_EEOF)
            return NULL;
    }
}

/* ---- open and free ---- */

rt_din_ahead *rt_din_ahead_open(const char *path)
{
    struct stat st;
    /* asked before opening: opening a FIFO would wait for its writer, and
     * closing it again would lose what the writer sends; a path lent to a format
     * sniffer (rt_input_lend) is read through rt_input_fopen by the plain reader */
    if (!strcmp(path, "-") || rt_input_lent(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    rt_din_ahead *a = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(a = calloc(1, sizeof *a))
        || !(a->name = strdup(path)) || !(a->parse.buf = malloc(BUF + SPARE))) {
        if (a)
            free(a->name);
        free(a);
        close(fd);
        return NULL;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    a->fd = fd;
    a->size = (uint64_t)st.st_size;
    a->parse.cap = BUF;
    a->parse.p = a->parse.end = a->parse.buf;
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->filled, NULL);
    pthread_cond_init(&a->space, NULL);
    /* the parser takes no signals: they stay the caller's (Ctrl-C) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int bad = pthread_create(&a->thread, NULL, producer, a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (bad) {
        a->thread_failed = 1;
        rt_din_ahead_free(a);
        return NULL;
    }
    return a;
}

void rt_din_ahead_free(rt_din_ahead *a)
{
    if (!a)
        return;
    if (!a->thread_failed) {
        pthread_mutex_lock(&a->mu);
        a->stop = 1;
        pthread_cond_signal(&a->space);
        pthread_mutex_unlock(&a->mu);
        pthread_join(a->thread, NULL);
    }
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->filled);
    pthread_cond_destroy(&a->space);
    close(a->fd);
    free(a->parse.buf);
    free(a->name);
    free(a);
}

/* ---- the consumer ---- */

/* Give the current slot back (if any) and wait for the next one. */
static void next_slot(rt_din_ahead *a)
{
    pthread_mutex_lock(&a->mu);
    if (a->cur) {
        a->consumed++;
        pthread_cond_signal(&a->space);
    }
    while (a->produced == a->consumed)
        pthread_cond_wait(&a->filled, &a->mu);
    a->cur = &a->ring[a->consumed % SLOTS];
    pthread_mutex_unlock(&a->mu);
    a->seg_i = a->seg_pos = a->line_i = a->ref_i = 0;
    a->err_given = 0;
    a->offset = a->cur->offset;
}

/* The slot at the front with something left in it, or NULL when the end
 * or an error comes first (*status, and the error in err). */
static slot *front(rt_din_ahead *a, int *status, rt_err *err)
{
    for (;;) {
        *status = RT_EEOF;
        slot *s = a->cur;
        if (s && a->seg_i < s->nsegs)
            return s;
        if (s && s->status == RT_EEOF)
            return NULL;
        if (s && s->status != RT_OK && !a->err_given) {
            a->err_given = 1;
            *status = s->status;
            if (err)
                *err = s->err;
            return NULL;
        }
        next_slot(a);
    }
}

/* The slot at the front when a run of loads and stores comes first, else
 * NULL (the end and errors are left to rt_din_ahead_read). */
static slot *front_lines(rt_din_ahead *a)
{
    for (;;) {
        slot *s = a->cur;
        if (s && a->seg_i < s->nsegs)
            return s->segs[a->seg_i].kind == SEG_LINES ? s : NULL;
        if (s && s->status != RT_OK)
            return NULL;
        next_slot(a);
    }
}

/* m references of the front segment taken */
static void advance(rt_din_ahead *a, const slot *s, size_t m)
{
    if (s->segs[a->seg_i].kind == SEG_LINES)
        a->line_i += m;
    else
        a->ref_i += m;
    if ((a->seg_pos += m) == s->segs[a->seg_i].n) {
        a->seg_i++;
        a->seg_pos = 0;
    }
}

int rt_din_ahead_read_lines(rt_din_ahead *a, uint64_t *addr, uint8_t *is_write, size_t cap,
                            size_t *n)
{
    size_t k = 0;
    slot *s;
    while (k < cap && (s = front_lines(a))) {
        size_t m = s->segs[a->seg_i].n - a->seg_pos;
        if (m > cap - k)
            m = cap - k;
        const uint64_t *in = s->addr + a->line_i;
        for (size_t i = 0; i < m; i++) {
            addr[k + i] = in[i] & ~(uint64_t)3;
            is_write[k + i] = (uint8_t)(in[i] & 1);
        }
        k += m;
        advance(a, s, m);
    }
    *n = k;
    return RT_OK;
}

int rt_din_ahead_read(rt_din_ahead *a, rt_memref *out, size_t cap, size_t *n, rt_err *err)
{
    size_t k = 0;
    slot *s;
    int st = RT_OK;
    while (k < cap && (s = front(a, &st, err))) {
        const seg *g = &s->segs[a->seg_i];
        size_t m = g->n - a->seg_pos;
        if (m > cap - k)
            m = cap - k;
        if (g->kind == SEG_LINES) {
            for (size_t i = 0; i < m; i++)
                out[k + i] = (rt_memref){s->addr[a->line_i + i] & ~(uint64_t)3, 4, (int)(s->addr[a->line_i + i] & 1)};
        } else {
            memcpy(out + k, s->refs + a->ref_i, m * sizeof *out);
        }
        k += m;
        advance(a, s, m);
    }
    *n = k;
    if (k) {
        if (st != RT_OK && st != RT_EEOF)
            a->err_given = 0; /* given with the references before it: again on the next call */
        return RT_OK;
    }
    return st;
}

uint64_t rt_din_ahead_offset(const rt_din_ahead *a)
{
    return a->offset;
}

uint64_t rt_din_ahead_size(const rt_din_ahead *a)
{
    return a->size;
}
