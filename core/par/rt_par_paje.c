/*
 * rt_par_paje.c - a Pajé trace read in byte ranges over the ranks of an MPI
 * job (see rt_par_text.h for the contract every text format keeps).
 *
 * A Pajé file numbers its processors, regions and counters by first use,
 * pairs a link's two ends by key wherever they are, and keeps states and
 * variables per container. Read in ranges, the serial numbers come from a few
 * exchanges of what is small (definitions, first uses), and what is large
 * (event lines) is routed once:
 *   1. every rank reads the header, then its range for the definition lines
 *      (types, values, containers made or destroyed); every rank gets all of
 *      them and builds the whole trace's tables;
 *   2. its range again: each line decoded and its names looked up as the
 *      serial reader would at that line; first uses of containers and values
 *      noted; each link line sent to the rank that pairs its key (a hash);
 *   3. the first uses merged: processors numbered in the order of their
 *      first lines, values (regions) defined in file order as the serial
 *      reader does, the time order checked over the ranges;
 *   4. each key's ends paired in file order (a link's tag is the line of its
 *      first end, its first end loses its peer when the other end is more than
 *      RT_PAJE_LOOKAHEAD lines on: the serial rules); each link line goes to
 *      the owners of its two processors with its peer and tag in front;
 *   5. its range a third time: state, event and variable lines to the owner
 *      of their container's processor; counters numbered by first sample;
 *   6. each rank reads, with the serial reader in preset mode, the merge in
 *      line order of the destroyed containers, the lines routed to it and the
 *      paired link lines.
 * Memory: the definitions, one number per container and per value, the links
 * in flight at the pairing rank; the lines are in spill files.
 *
 * What the ranges cannot reproduce exactly is read by rank 0 instead (the
 * caller's fall-back): a header line after the first event line, and any
 * line the serial reader would refuse (its message is then the serial one).
 */
#define _GNU_SOURCE /* fopencookie, getline */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"
#include "rt_paje_int.h"
#include "rt_par.h"
#include "rt_par_coll.h"
#include "rt_par_job.h"
#include "rt_par_route.h"

#ifdef RETRACE_HAVE_MPI
#include <mpi.h>
#endif

#define NONE ULONG_MAX

/* ---- collectives over arrays and buffers (no-ops for one rank) ---- */

static void allreduce_min_u64(const job *j, uint64_t *v, size_t n)
{
#ifdef RETRACE_HAVE_MPI
    if (rt_pjob_launched(j) && n > 0)
        MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_MIN, rt_par_comm());
#else
    (void)j;
    (void)v;
    (void)n;
#endif
}

static double allreduce_max_d(const job *j, double v)
{
#ifdef RETRACE_HAVE_MPI
    if (rt_pjob_launched(j))
        MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, rt_par_comm());
#else
    (void)j;
#endif
    return v;
}

/* The largest v of the ranks before this one (-inf on rank 0). */
static double exscan_max_d(const job *j, double v)
{
    double r = -INFINITY;
#ifdef RETRACE_HAVE_MPI
    if (rt_pjob_launched(j)) {
        MPI_Exscan(&v, &r, 1, MPI_DOUBLE, MPI_MAX, rt_par_comm());
        if (j->rank == 0)
            r = -INFINITY;
    }
#else
    (void)j;
    (void)v;
#endif
    return r;
}

/* Every rank's bytes, in rank order, into *all (rt_par_allgather_bytes); RT_OK or RT_ENOMEM, agreed. */
static int allgather(const outbuf *mine, outbuf *all)
{
    void *p = NULL;
    size_t n = 0;
    int st = rt_par_allgather_bytes(mine->p, mine->n, &p, &n);
    all->p = p;
    all->n = all->cap = n;
    return st;
}

/* The message of the rank with the smallest line (line NONE: none), on every rank; NONE when no rank has one. */
static unsigned long first_message(const job *j, unsigned long line, char msg[400])
{
    uint64_t l = line;
    allreduce_min_u64(j, &l, 1);
#ifdef RETRACE_HAVE_MPI
    if (rt_pjob_launched(j) && l != NONE) {
        int mine = line == l ? j->rank : j->size, from;
        MPI_Allreduce(&mine, &from, 1, MPI_INT, MPI_MIN, rt_par_comm());
        MPI_Bcast(msg, 400, MPI_CHAR, from, rt_par_comm());
    }
#endif
    return (unsigned long)l;
}

/* ---- the range, read line by line ---- */

typedef struct range {
    rt_lines *lines;
    int empty;
    unsigned long last;   /* the last line number read */
} range;

/* The next line of the range that is not blank or a comment: RT_OK, RT_EEOF, or an error. */
static int next_line(range *g, const char **p, const char **e, rt_err *err)
{
    if (g->empty)
        return RT_EEOF;
    for (;;) {
        const char *line;
        size_t len;
        int st = rt_lines_next(g->lines, &line, &len, err);
        if (st != RT_OK)
            return st;
        g->last = rt_lines_lineno(g->lines);
        const char *q = line, *end = line + len;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q == end || *q == '#' || *q == '\r')
            continue;
        *p = q;
        *e = end;
        return RT_OK;
    }
}

/* ---- the parts of one reading ---- */

typedef struct vuse {
    unsigned long line;
    int ti;                /* -1: a definition line (text at def) */
    rt_span s;
} vuse;

typedef struct link_out {  /* a link end waiting at its pairing rank, in line order */
    unsigned long line;
    int proc, peer;
    int64_t tag;
    int waiting;
    char *text;
} link_out;

typedef struct pp {        /* the source: this rank's events */
    rt_tsource base;
    pj *r;
    FILE *body;
    int rank, size;
    unsigned long line;
    uint64_t index;
} pp;

static int pp_next(rt_tsource *s, rt_tevent *ev, rt_err *err)
{
    pp *p = (pp *)s;
    for (;;) {
        int st = rt_tsource_next(&p->r->base, ev, err);
        if (st != RT_OK)
            return st;
        p->index = ev->line == p->line ? p->index + 1 : 0;
        p->line = ev->line;
        int to[2], n = rt_par_route(ev, p->size, to);
        if (to[0] == p->rank || (n == 2 && to[1] == p->rank)) {
            s->key = (rt_tkey){(int64_t)ev->line, p->index, 0};
            return RT_OK;
        }
    }
}

static int pp_rewind(rt_tsource *s, rt_err *err)
{
    pp *p = (pp *)s;
    p->line = 0;
    p->index = 0;
    return rt_tsource_rewind(&p->r->base, err);
}

static void pp_free(rt_tsource *s)
{
    pp *p = (pp *)s;
    if (p->r) {
        p->r->base.defs = NULL; /* the wrapper holds them */
        rt_tsource_free(&p->r->base);
    }
    if (p->body)
        fclose(p->body);
    free(p);
}

static const rt_tsource_ops pp_ops = {"paje", pp_next, pp_rewind, NULL, NULL, pp_free};

/* ---- the merge of sorted numbered streams ---- */

typedef struct merge {
    FILE **in;
    int n;
    char **buf;
    size_t *cap;
    ssize_t *len;          /* the line held from each input, -1 at its end */
    unsigned long *num;
    char *out;             /* the line being handed out */
    size_t out_len, out_off, out_cap;
} merge;

static void merge_fetch(merge *m, int i)
{
    m->len[i] = getline(&m->buf[i], &m->cap[i], m->in[i]);
    m->num[i] = m->len[i] > 0 ? strtoul(m->buf[i], NULL, 10) : 0;
}

static ssize_t merge_read(void *c, char *buf, size_t size)
{
    merge *m = c;
    size_t done = 0;
    while (done < size) {
        if (m->out_off == m->out_len) {
            int best = -1;
            for (int i = 0; i < m->n; i++)
                if (m->len[i] > 0 && (best < 0 || m->num[i] < m->num[best]))
                    best = i;
            if (best < 0)
                break;
            if (rt_grow((void **)&m->out, &m->out_cap, (size_t)m->len[best], 1) != RT_OK)
                return -1;
            memcpy(m->out, m->buf[best], (size_t)m->len[best]);
            m->out_len = (size_t)m->len[best];
            m->out_off = 0;
            merge_fetch(m, best);
        }
        size_t k = m->out_len - m->out_off;
        if (k > size - done)
            k = size - done;
        memcpy(buf + done, m->out + m->out_off, k);
        m->out_off += k;
        done += k;
    }
    return (ssize_t)done;
}

static int merge_seek(void *c, off64_t *off, int whence)
{
    merge *m = c;
    if (whence != SEEK_SET || *off != 0)
        return -1;
    for (int i = 0; i < m->n; i++) {
        if (fseek(m->in[i], 0, SEEK_SET) != 0)
            return -1;
        merge_fetch(m, i);
    }
    m->out_len = m->out_off = 0;
    return 0;
}

static int merge_close(void *c)
{
    merge *m = c;
    for (int i = 0; i < m->n; i++) {
        fclose(m->in[i]);
        free(m->buf[i]);
    }
    free(m->in);
    free(m->buf);
    free(m->cap);
    free(m->len);
    free(m->num);
    free(m->out);
    free(m);
    return 0;
}

/* One stream of the n inputs (sorted by line number; owned by it from now on); NULL when out of memory. */
static FILE *merge_open(FILE **in, int n)
{
    merge *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->in = in;
    m->n = n;
    m->buf = calloc((size_t)n, sizeof *m->buf);
    m->cap = calloc((size_t)n, sizeof *m->cap);
    m->len = calloc((size_t)n, sizeof *m->len);
    m->num = calloc((size_t)n, sizeof *m->num);
    cookie_io_functions_t io = {merge_read, NULL, merge_seek, merge_close};
    FILE *f = m->buf && m->cap && m->len && m->num ? fopencookie(m, "r", io) : NULL;
    if (!f) {
        free(m->buf);
        free(m->cap);
        free(m->len);
        free(m->num);
        free(m);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        rewind(in[i]);
        merge_fetch(m, i);
    }
    return f;
}

/* ---- the reading ---- */

typedef struct work {
    job *j;
    pj *r;
    int bad;               /* this rank met what the ranges cannot do: rank 0 reads */
    rt_err why;
    range g;
    uint64_t hbytes;       /* the header: its bytes and lines */
    unsigned long hlines;
    outbuf defs;           /* every rank's definition lines, numbered */
    uint64_t *first;       /* per container: the line that makes it a processor */
    size_t nconts;
    rt_strmap *uses;       /* this range's first use of each value: (type, name) -> line */
    outbuf usebuf;
    uint64_t skipped;
    /* time order */
    int have_time, decr;
    unsigned long t1line, dline;
    double t1, dt, dmax, tmax;
    /* links */
    unsigned long late;    /* the first forced link end (NONE) */
    uint64_t one_end;
} work;

static void set_bad(work *w, const rt_err *e)
{
    if (!w->bad) {
        w->bad = 1;
        if (e)
            w->why = *e;
    }
}

/* Fresh spills for the next exchange phase. */
static int new_spills(job *j)
{
    if (!j->spill && !(j->spill = calloc((size_t)j->size, sizeof *j->spill)))
        return RT_ENOMEM;
    for (int r = 0; r < j->size; r++)
        if (!j->spill[r] && !(j->spill[r] = tmpfile()))
            return RT_EIO;
    return RT_OK;
}

/* One collective round: exchange, then 1 while any rank has more to send. */
static int round_more(work *w, int done)
{
    job *j = w->j;
    int xs = rt_pjob_exchange(j);
    if (xs != RT_OK)
        set_bad(w, NULL);
    return rt_pjob_allreduce(j, !done, 0) > 0;
}

/* A numbered line's number and text. */
static int numbered(const char *line, size_t len, unsigned long *num, const char **p, const char **e)
{
    char *tab;
    *num = strtoul(line, &tab, 10);
    if (tab == line || *tab != '\t')
        return 0;
    *p = tab + 1;
    *e = line + len;
    while (*e > *p && ((*e)[-1] == '\n' || (*e)[-1] == '\r'))
        (*e)--;
    return 1;
}

static uint64_t key_hash(int ti, int ci, rt_span key)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)&ti;
    for (size_t i = 0; i < sizeof ti; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    b = (const unsigned char *)&ci;
    for (size_t i = 0; i < sizeof ci; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    for (size_t i = 0; i < key.n; i++)
        h = (h ^ (unsigned char)key.p[i]) * 1099511628211ull;
    return h;
}

/* Step 0: the header, read by every rank, and its size. */
static void read_header(work *w)
{
    FILE *f = fopen(w->j->path, "rb");
    if (!f) {
        set_bad(w, NULL);
        return;
    }
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    uint64_t off = 0;
    unsigned long line = 0;
    rt_err e;
    rt_err_clear(&e);
    w->hbytes = 0;
    int ended = 0;
    while ((n = getline(&buf, &cap, f)) > 0) {
        line++;
        const char *p = buf, *end = buf + n;
        if (end > p && end[-1] == '\n')
            end--;
        if (end > p && end[-1] == '\r')
            end--;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end && *p != '#' && *p != '\r' && *p != '%') {
            w->hbytes = off;
            w->hlines = line - 1;
            ended = 1;
            break;
        }
        if (p < end && *p == '%' && rt_pj_header(w->r, line, p, end, &e) != RT_OK) {
            set_bad(w, &e);
            break;
        }
        off += (uint64_t)n;
    }
    if (!ended) {
        w->hbytes = off;
        w->hlines = line;
    }
    if (w->r->fmt.open)
        set_bad(w, NULL);
    free(buf);
    fclose(f);
}

/* This rank's range: lines starting in [size * r / N, size * (r + 1) / N), past the header. */
static void open_range(work *w, uint64_t fsize)
{
    job *j = w->j;
    uint64_t begin = fsize * (uint64_t)j->rank / (uint64_t)j->size;
    uint64_t end = fsize * (uint64_t)(j->rank + 1) / (uint64_t)j->size;
    uint64_t nl = 0;
    FILE *f = fopen(j->path, "rb");
    int ioerr = f ? 0 : 1;
    if (f) {
        nl = rt_lines_count(f, begin, end, &ioerr);
        fclose(f);
    }
    if (ioerr)
        set_bad(w, NULL);
    uint64_t before = rt_pjob_exscan_sum(j, nl);
    w->g.last = w->hlines;
    if (end <= w->hbytes || w->bad) {
        w->g.empty = 1;
        return;
    }
    unsigned long lines_before = (unsigned long)before;
    if (begin < w->hbytes) {
        begin = w->hbytes;
        lines_before = w->hlines;
    }
    rt_err e;
    if (!(w->g.lines = rt_lines_open(j->path, &e)) || rt_lines_range(w->g.lines, begin, end, lines_before, &e) != RT_OK)
        set_bad(w, &e);
}

static int rewind_range(work *w)
{
    rt_err e;
    w->g.last = w->hlines;
    if (w->g.empty || !w->g.lines)
        return RT_OK;
    if (rt_lines_rewind(w->g.lines, &e) != RT_OK) {
        set_bad(w, &e);
        return e.status;
    }
    return RT_OK;
}

static void put_numbered(outbuf *o, unsigned long line, const char *p, const char *e, int *bad)
{
    char num[32];
    int k = snprintf(num, sizeof num, "%lu\t", line);
    size_t len = (size_t)(e - p);
    if (rt_grow((void **)&o->p, &o->cap, o->n + (size_t)k + len + 1, 1) != RT_OK) {
        *bad = 1;
        return;
    }
    memcpy(o->p + o->n, num, (size_t)k);
    memcpy(o->p + o->n + k, p, len);
    o->p[o->n + (size_t)k + len] = '\n';
    o->n += (size_t)k + len + 1;
}

/* Step 1: the definition lines of every range, on every rank; the tables built from them. */
static void definitions(work *w, vuse **vdefs, size_t *nvdefs)
{
    outbuf mine = {0};
    const char *p, *e;
    rt_err err;
    int st;
    while (!w->bad && (st = next_line(&w->g, &p, &e, &err)) == RT_OK) {
        int kind = *p == '%' ? -1 : rt_pj_kind_of(w->r, p, e);
        if (kind < 0) { /* a header line among the events, or an id the serial reader refuses */
            set_bad(w, NULL);
            break;
        }
        if (rt_pj_is_def(kind))
            put_numbered(&mine, w->g.last, p, e, &w->bad);
    }
    if (!w->bad && st != RT_EEOF)
        set_bad(w, &err);
    if (rt_pjob_allreduce(w->j, w->bad, 1) || allgather(&mine, &w->defs) != RT_OK) {
        w->bad = 1;
        free(mine.p);
        return;
    }
    free(mine.p);
    /* the tables, in file order; the values wait for their uses */
    size_t cap = 0;
    for (char *q = w->defs.p, *end = w->defs.p + w->defs.n; q < end && !w->bad;) {
        char *nl = memchr(q, '\n', (size_t)(end - q));
        unsigned long line;
        const char *tp, *te;
        if (!nl || !numbered(q, (size_t)(nl - q), &line, &tp, &te)) {
            w->bad = 1;
            break;
        }
        if (rt_pj_kind_of(w->r, tp, te) == K_VALUE) {
            if (rt_grow((void **)vdefs, &cap, *nvdefs + 1, sizeof **vdefs) != RT_OK)
                w->bad = 1;
            else
                (*vdefs)[(*nvdefs)++] = (vuse){line, -1, {tp, (size_t)(te - tp)}};
        } else if (rt_pj_def(w->r, line, tp, te, &err) != RT_OK) {
            set_bad(w, &err);
        }
        q = nl + 1;
    }
}

static void note_time(work *w, unsigned long line, double t)
{
    if (!w->have_time) {
        w->have_time = 1;
        w->t1line = line;
        w->t1 = t;
        w->tmax = t;
        return;
    }
    if (t < w->tmax && !w->decr) {
        w->decr = 1;
        w->dline = line;
        w->dt = t;
        w->dmax = w->tmax;
    }
    if (t > w->tmax)
        w->tmax = t;
}

static void note_use(work *w, unsigned long line, int ti, rt_span s)
{
    int created;
    int64_t *v = rt_strmap_put(w->uses, ti, s.p, s.n, &created);
    if (!v) {
        w->bad = 1;
        return;
    }
    if (!created)
        return;
    *v = (int64_t)line;
    int64_t rec[3] = {(int64_t)line, ti, (int64_t)s.n};
    if (rt_grow((void **)&w->usebuf.p, &w->usebuf.cap, w->usebuf.n + sizeof rec + s.n, 1) != RT_OK) {
        w->bad = 1;
        return;
    }
    memcpy(w->usebuf.p + w->usebuf.n, rec, sizeof rec);
    memcpy(w->usebuf.p + w->usebuf.n + sizeof rec, s.p, s.n);
    w->usebuf.n += sizeof rec + s.n;
}

/* What a pass does with one line of the range (its number: w->g.last): RT_OK, or an error that
 * stops the pass (the trace is then read by rank 0). */
typedef int (*line_fn)(work *w, const char *p, const char *e, void *ud, rt_err *err);

/* The range read again from its start, each line to fn, exchanging every batch (collective). */
static void range_pass(work *w, line_fn fn, void *ud)
{
    job *j = w->j;
    rewind_range(w);
    int done = w->bad;
    do {
        while (!done && j->pending < j->batch) {
            const char *p, *e;
            rt_err err;
            rt_err_clear(&err);
            int st = next_line(&w->g, &p, &e, &err);
            if (st == RT_OK)
                st = fn(w, p, e, ud, &err);
            if (st != RT_OK) {
                if (st != RT_EEOF)
                    set_bad(w, &err);
                done = 1;
                break;
            }
            if (j->err.status != RT_OK)
                set_bad(w, &j->err);
        }
    } while (round_more(w, done));
}

/* Step 2, a line: looked up; first uses noted; a link line sent to its pairing rank. */
static int first_use_line(work *w, const char *p, const char *e, void *ud, rt_err *err)
{
    (void)ud;
    job *j = w->j;
    rt_pjline o;
    int st = rt_pj_resolve(w->r, w->g.last, p, e, 0, &o, err);
    if (st != RT_OK)
        return st;
    if (o.has_time)
        note_time(w, w->g.last, o.time);
    switch (o.kind) {
    case K_UNKNOWN:
        w->skipped++;
        break;
    case K_SET:
    case K_PUSH:
    case K_POP:
    case K_RESET:
    case K_EVENT:
        if (w->first[o.ci] == NONE)
            w->first[o.ci] = w->g.last;
        if (o.kind == K_SET || o.kind == K_PUSH || o.kind == K_EVENT)
            note_use(w, w->g.last, o.ti, o.value);
        break;
    case K_START:
    case K_END:
        if (w->first[o.eci] == NONE)
            w->first[o.eci] = w->g.last;
        note_use(w, w->g.last, o.ti, o.value);
        j->stamp++;
        rt_pjob_send_line(j, (int)(key_hash(o.ti, o.ci, o.key) % (uint64_t)j->size), w->g.last, p,
                          (size_t)(e - p));
        break;
    default:
        break;
    }
    return RT_OK;
}

/* Step 2: every line of the range looked up; first uses; link lines to their pairing rank. */
static void first_uses(work *w)
{
    w->nconts = w->r->nconts;
    w->first = malloc((w->nconts ? w->nconts : 1) * sizeof *w->first);
    w->uses = rt_strmap_new();
    if (!w->first || !w->uses || new_spills(w->j) != RT_OK)
        w->bad = 1;
    for (size_t i = 0; w->first && i < w->nconts; i++)
        w->first[i] = NONE;
    range_pass(w, first_use_line, NULL);
}

typedef struct lineci {
    uint64_t line;
    int ci;
} lineci;

static int by_first(const void *a, const void *b)
{
    const lineci *x = a, *y = b;
    return (x->line > y->line) - (x->line < y->line);
}

static int by_use_line(const void *a, const void *b)
{
    const vuse *x = a, *y = b;
    return (x->line > y->line) - (x->line < y->line);
}

/* Step 3: processors and values numbered as the serial reader numbers them; the time order. */
static void numbering(work *w, vuse *vdefs, size_t nvdefs, unsigned long *time_line, char time_msg[400],
                      double *eof_time)
{
    job *j = w->j;
    rt_err err;
    allreduce_min_u64(j, w->first, w->nconts);
    lineci *order = malloc((w->nconts ? w->nconts : 1) * sizeof *order);
    size_t np = 0;
    for (size_t ci = 0; order && ci < w->nconts; ci++)
        if (w->first[ci] != NONE)
            order[np++] = (lineci){w->first[ci], (int)ci};
    if (!order || np > RT_TE_MAXPROC)
        w->bad = 1;
    else
        qsort(order, np, sizeof *order, by_first);
    for (size_t k = 0; !w->bad && k < np; k++)
        if (rt_pj_set_proc(w->r, order[k].ci, (int)k, (unsigned long)order[k].line, &err) != RT_OK)
            set_bad(w, &err);
    free(order);
    /* values: definitions and every range's first uses, in file order */
    outbuf all = {0};
    if (allgather(&w->usebuf, &all) != RT_OK)
        w->bad = 1;
    size_t n = nvdefs, cap = nvdefs;
    vuse *v = malloc((nvdefs ? nvdefs : 1) * sizeof *v);
    if (!v)
        w->bad = 1;
    else if (nvdefs)
        memcpy(v, vdefs, nvdefs * sizeof *v);
    for (size_t off = 0; v && all.p && off + 3 * sizeof(int64_t) <= all.n;) {
        int64_t rec[3];
        memcpy(rec, all.p + off, sizeof rec);
        if (rt_grow((void **)&v, &cap, n + 1, sizeof *v) != RT_OK) {
            w->bad = 1;
            break;
        }
        v[n++] = (vuse){(unsigned long)rec[0], (int)rec[1], {all.p + off + sizeof rec, (size_t)rec[2]}};
        off += sizeof rec + (size_t)rec[2];
    }
    if (v && !w->bad) {
        qsort(v, n, sizeof *v, by_use_line);
        for (size_t i = 0; i < n && !w->bad; i++) {
            int st = v[i].ti < 0 ? rt_pj_value_def(w->r, v[i].line, v[i].s.p, v[i].s.p + v[i].s.n, &err)
                                 : rt_pj_value_use(w->r, v[i].line, v[i].ti, v[i].s, &err);
            if (st != RT_OK)
                set_bad(w, &err);
        }
    }
    free(v);
    free(all.p);
    /* the time order: the first time below the largest before it, over the ranges */
    double before = exscan_max_d(j, w->have_time ? w->tmax : -INFINITY);
    unsigned long cand = NONE;
    double t = 0, last = 0;
    if (w->have_time && w->t1 < before) {
        cand = w->t1line;
        t = w->t1;
        last = before;
    } else if (w->decr) {
        cand = w->dline;
        t = w->dt;
        last = w->dmax > before ? w->dmax : before;
    }
    time_msg[0] = '\0';
    if (cand != NONE)
        snprintf(time_msg, 400, "%s:%lu: Time: %.17g is before %.17g read earlier; events stay in file order",
                 j->path, cand, t, last);
    *time_line = first_message(j, cand, time_msg);
    double mx = allreduce_max_d(j, w->have_time ? w->tmax : -INFINITY);
    *eof_time = mx == -INFINITY ? 0 : mx;
}

/* v in decimal at out (at most 20 characters, no NUL); the characters written. */
static int dec(char *out, int64_t v)
{
    char d[24];
    int n = 0, k = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do
        d[n++] = (char)('0' + u % 10);
    while ((u /= 10) > 0);
    if (v < 0)
        out[k++] = '-';
    while (n > 0)
        out[k++] = d[--n];
    return k;
}

/* Send a paired link line to the owners of its processors, its peer and tag in front. */
static void emit_link(work *w, link_out *h)
{
    job *j = w->j;
    size_t len = strlen(h->text);
    char *buf = malloc(len + 48);
    if (!buf) {
        w->bad = 1;
        return;
    }
    int k = 0;
    buf[k++] = '@';
    k += dec(buf + k, h->peer);
    buf[k++] = '@';
    k += dec(buf + k, h->tag);
    buf[k++] = '@';
    memcpy(buf + k, h->text, len);
    j->stamp++;
    rt_pjob_send_line(j, rt_par_owner_of(h->proc, j->size), h->line, buf, (size_t)k + len);
    if (h->peer >= 0)
        rt_pjob_send_line(j, rt_par_owner_of(h->peer, j->size), h->line, buf, (size_t)k + len);
    free(buf);
    free(h->text);
    h->text = NULL;
}

typedef struct pend {
    unsigned long line;
    int proc;
    uint64_t seq;
} pend;

typedef struct lqueue {
    link_out *v;
    uint64_t head, tail, mask;
} lqueue;

/* Emit the ends at the head of the queue that are settled: paired, or unpairable by now (line L),
 * or all of them at the end of the file (eof_line > 0). */
static void emit_ready(work *w, lqueue *q, unsigned long L, unsigned long eof_line)
{
    while (q->head < q->tail) {
        link_out *h = &q->v[q->head & q->mask];
        if (h->waiting) {
            if (eof_line) {
                if (eof_line >= h->line + RT_PAJE_LOOKAHEAD && h->line < w->late)
                    w->late = h->line;
            } else if (L - h->line > RT_PAJE_LOOKAHEAD) {
                if (h->line < w->late)
                    w->late = h->line;
            } else {
                break;
            }
            h->waiting = 0;
        }
        emit_link(w, h);
        q->head++;
    }
}

static link_out *lq_push(work *w, lqueue *q)
{
    if (q->tail - q->head > q->mask || !q->v) {
        uint64_t cap = q->v ? (q->mask + 1) * 2 : 1024;
        link_out *nv = malloc(cap * sizeof *nv);
        if (!nv) {
            w->bad = 1;
            return NULL;
        }
        for (uint64_t s = q->head; q->v && s < q->tail; s++)
            nv[s & (cap - 1)] = q->v[s & q->mask];
        free(q->v);
        q->v = nv;
        q->mask = cap - 1;
    }
    return &q->v[q->tail++ & q->mask];
}

/* Step 4: this rank's keys paired in file order; the link lines sent on with peer and tag. */
static void pair_links(work *w, unsigned long eof_line)
{
    job *j = w->j;
    FILE *in = rt_pjob_spills_stream(j);
    if (!in || new_spills(j) != RT_OK)
        w->bad = 1;
    rt_strmap *open = rt_strmap_new();
    pend *pool = NULL;
    size_t npool = 0, cappool = 0;
    int64_t freeslot = -1;
    lqueue q = {0};
    char *buf = NULL, *key = NULL;
    size_t cap = 0, capkey = 0;
    int done = w->bad || !open || !in;
    if (!open)
        w->bad = 1;
    do {
        while (!done && j->pending < j->batch) {
            ssize_t n = getline(&buf, &cap, in);
            if (n <= 0) {
                emit_ready(w, &q, 0, eof_line);
                done = 1;
                break;
            }
            unsigned long L;
            const char *p, *e;
            rt_pjline o;
            rt_err err;
            if (!numbered(buf, (size_t)n, &L, &p, &e) || rt_pj_resolve(w->r, L, p, e, 1, &o, &err) != RT_OK) {
                set_bad(w, numbered(buf, (size_t)n, &L, &p, &e) ? &err : NULL);
                done = 1;
                break;
            }
            emit_ready(w, &q, L, 0);
            int proc = w->r->conts[o.eci].proc;
            size_t need = sizeof o.ci + o.key.n;
            if (rt_grow((void **)&key, &capkey, need, 1) != RT_OK) {
                w->bad = done = 1;
                break;
            }
            memcpy(key, &o.ci, sizeof o.ci);
            memcpy(key + sizeof o.ci, o.key.p, o.key.n);
            int created;
            int64_t *slot = rt_strmap_put(open, o.ti, key, need, &created);
            link_out *h = slot ? lq_push(w, &q) : NULL;
            char *text = h ? strndup(p, (size_t)(e - p)) : NULL;
            if (!text) {
                w->bad = done = 1;
                break;
            }
            *h = (link_out){L, proc, -1, (int64_t)L, 1, text};
            if (created) { /* a first end: its peer comes with the other end */
                int64_t s = freeslot;
                if (s >= 0) {
                    freeslot = (int64_t)pool[s].seq;
                } else if (rt_grow((void **)&pool, &cappool, npool + 1, sizeof *pool) != RT_OK) {
                    w->bad = done = 1;
                    break;
                } else {
                    s = (int64_t)npool++;
                }
                pool[s] = (pend){L, proc, q.tail - 1};
                *slot = s;
            } else { /* the other end: both learn their peers (the first only within the look-ahead) */
                pend *f = &pool[*slot];
                h->peer = f->proc;
                h->tag = (int64_t)f->line;
                h->waiting = 0;
                if (L - f->line <= RT_PAJE_LOOKAHEAD && f->seq >= q.head) {
                    link_out *other = &q.v[f->seq & q.mask];
                    other->peer = proc;
                    other->waiting = 0;
                }
                int64_t s = *slot;
                pool[s].seq = (uint64_t)freeslot;
                freeslot = s;
                rt_strmap_remove(open, o.ti, key, need);
            }
            emit_ready(w, &q, L, 0);
            if (j->err.status != RT_OK)
                set_bad(w, &j->err);
        }
    } while (round_more(w, done));
    w->one_end = open ? rt_strmap_count(open) : 0;
    for (uint64_t s = q.head; q.v && s < q.tail; s++)
        free(q.v[s & q.mask].text);
    free(q.v);
    free(pool);
    free(buf);
    free(key);
    rt_strmap_free(open);
    if (in)
        fclose(in);
}

/* Step 5, a line: a state, event or variable line to the owner of its processor; cmin (ud): each
 * variable type's first sample. */
static int route_line(work *w, const char *p, const char *e, void *ud, rt_err *err)
{
    uint64_t *cmin = ud;
    job *j = w->j;
    int kind = rt_pj_kind_of(w->r, p, e);
    if (kind < 0)
        return rt_err_at(err, RT_EFORMAT, j->path, w->g.last, "event id: not defined");
    if (rt_pj_is_def(kind) || kind == K_START || kind == K_END || kind == K_UNKNOWN)
        return RT_OK; /* (every rank has the definitions; the pairing ranks send the links) */
    rt_pjline o;
    int st = rt_pj_resolve(w->r, w->g.last, p, e, 0, &o, err);
    if (st != RT_OK)
        return st;
    const pj_cont *c = &w->r->conts[o.ci];
    int proc = c->proc;
    j->stamp++;
    if (o.kind == K_SETVAR || o.kind == K_ADDVAR || o.kind == K_SUBVAR) {
        if (proc < 0 || c->first >= w->g.last) /* not (yet) a processor: counted as skipped */
            w->skipped++;
        else if (cmin[o.ti] > w->g.last)
            cmin[o.ti] = w->g.last;
        if (proc < 0) /* (its values matter only to a later processor) */
            return RT_OK;
    }
    rt_pjob_send_line(j, rt_par_owner_of(proc, j->size), w->g.last, p, (size_t)(e - p));
    return RT_OK;
}

/* Step 5: state, event and variable lines to the owners of their processors; counters' first lines. */
static void route_lines(work *w, uint64_t *cmin)
{
    if (new_spills(w->j) != RT_OK)
        w->bad = 1;
    range_pass(w, route_line, cmin);
}

static void forward_warning(void *ud, const char *msg)
{
    rt_tsource_warn(ud, "%s", msg);
}

static void work_free(work *w)
{
    if (w->r)
        rt_tsource_free(&w->r->base);
    rt_lines_free(w->g.lines);
    free(w->defs.p);
    free(w->first);
    rt_strmap_free(w->uses);
    free(w->usebuf.p);
}

rt_tsource *rt_par_paje_open(job *j, uint64_t fsize, int *fallback)
{
    work w = {0};
    w.j = j;
    w.late = NONE;
    rt_err_clear(&w.why);
    *fallback = 0;
    if (!(w.r = rt_pj_new(j->path, &w.why)))
        w.bad = 1;
    else
        read_header(&w);
    open_range(&w, fsize);
    vuse *vdefs = NULL;
    size_t nvdefs = 0;
    FILE **cspill = NULL, *body = NULL;
    pp *p = NULL;
    definitions(&w, &vdefs, &nvdefs);
    if (rt_pjob_allreduce(j, w.bad, 1))
        goto fallback;
    first_uses(&w);
    if (rt_pjob_allreduce(j, w.bad, 1))
        goto fallback;
    unsigned long time_line;
    char time_msg[400];
    double eof_time;
    numbering(&w, vdefs, nvdefs, &time_line, time_msg, &eof_time);
    if (rt_pjob_allreduce(j, w.bad, 1))
        goto fallback;
    unsigned long eof_line = (unsigned long)rt_pjob_allreduce(j, (int64_t)w.g.last, 1);
    w.r->mode = RT_PJ_PRESET; /* numbered now: values are looked up, never made */
    w.r->order_warned = 1;
    pair_links(&w, eof_line);
    if (rt_pjob_allreduce(j, w.bad, 1))
        goto fallback;
    cspill = j->spill; /* the paired link lines, one sorted stream per pairing rank */
    j->spill = NULL;
    uint64_t *cmin = malloc((w.r->ntypes ? w.r->ntypes : 1) * sizeof *cmin);
    for (size_t i = 0; cmin && i < w.r->ntypes; i++)
        cmin[i] = NONE;
    if (!cmin)
        w.bad = 1;
    route_lines(&w, cmin ? cmin : &(uint64_t){0});
    if (rt_pjob_allreduce(j, w.bad, 1)) {
        free(cmin);
        goto fallback;
    }
    /* counters in the order of their first samples */
    allreduce_min_u64(j, cmin, w.r->ntypes);
    for (;;) {
        size_t best = w.r->ntypes;
        for (size_t ti = 0; ti < w.r->ntypes; ti++)
            if (cmin[ti] != NONE && (best == w.r->ntypes || cmin[ti] < cmin[best]))
                best = ti;
        if (best == w.r->ntypes)
            break;
        if (rt_tdefs_add_counter(w.r->base.defs, (int)best, w.r->types[best].name, NULL) < 0)
            w.bad = 1;
        cmin[best] = NONE;
    }
    free(cmin);
    uint64_t skipped = (uint64_t)rt_pjob_allreduce(j, (int64_t)w.skipped, 0);
    uint64_t one_end = (uint64_t)rt_pjob_allreduce(j, (int64_t)w.one_end, 0);
    uint64_t late = w.late;
    allreduce_min_u64(j, &late, 1);
    /* this rank's stream: destroyed containers, its lines, the paired links, merged by line */
    FILE **in = calloc((size_t)j->size + 2, sizeof *in);
    FILE *destroys = tmpfile();
    if (!in || !destroys) {
        w.bad = 1;
    } else {
        for (char *q = w.defs.p, *end = w.defs.p + w.defs.n; q < end;) {
            char *nl = memchr(q, '\n', (size_t)(end - q));
            unsigned long line;
            const char *tp, *te;
            if (nl && numbered(q, (size_t)(nl - q), &line, &tp, &te) && rt_pj_kind_of(w.r, tp, te) == K_DESTROY)
                fwrite(q, 1, (size_t)(nl + 1 - q), destroys);
            q = nl ? nl + 1 : end;
        }
        in[0] = destroys;
        in[1] = rt_pjob_spills_stream(j);
        for (int r = 0; r < j->size; r++)
            in[2 + r] = cspill[r];
        if (!in[1] || fflush(destroys) != 0 || !(body = merge_open(in, j->size + 2))) {
            w.bad = 1;
        } else {
            free(cspill);
            cspill = NULL;
            in = NULL;
            destroys = NULL;
        }
    }
    if (in) {
        if (in[1])
            fclose(in[1]);
        free(in);
    }
    if (destroys)
        fclose(destroys);
    rt_err err;
    if (!w.bad && !(p = calloc(1, sizeof *p)))
        w.bad = 1;
    if (!w.bad && (rt_pj_preset_stream(w.r, body, eof_line, eof_time, &err) != RT_OK ||
                   rt_tsource_init(&p->base, &pp_ops, j->path, &err) != RT_OK))
        w.bad = 1;
    if (rt_pjob_allreduce(j, w.bad, 1)) {
        if (p && p->base.ops)
            rt_tsource_free(&p->base);
        else
            free(p);
        p = NULL;
        goto fallback;
    }
    p->r = w.r;
    p->body = body;
    p->rank = j->rank;
    p->size = j->size;
    w.r = NULL;
    rt_tdefs_free(p->base.defs);
    p->base.defs = p->r->base.defs;
    p->base.raw_size = p->r->base.raw_size;
    p->base.describe = p->r->base.describe;
    p->base.has_key = 1;
    p->base.skipped = j->rank == 0 ? skipped : 0;
    p->r->base.on_warning = forward_warning;
    p->r->base.ud = &p->base;
    if (j->rank == 0) { /* what only the whole file tells, in the order the serial reader tells it */
        unsigned long late_at = late != NONE ? (unsigned long)late + RT_PAJE_LOOKAHEAD : NONE;
        if (time_line != NONE && time_line <= late_at)
            rt_tsource_warn(&p->base, "%s", time_msg);
        if (late != NONE)
            rt_tsource_warn(&p->base, "%s:%lu: a link stays open for more than %u lines; its first end goes out with peer -1",
                            j->path, (unsigned long)late, RT_PAJE_LOOKAHEAD);
        if (time_line != NONE && time_line > late_at)
            rt_tsource_warn(&p->base, "%s", time_msg);
        if (one_end)
            rt_tsource_warn(&p->base, "%s: %llu link%s with one end only; sent with peer -1", j->path,
                            (unsigned long long)one_end, one_end == 1 ? "" : "s");
    }
    free(vdefs);
    work_free(&w);
    return &p->base;
fallback:
    if (cspill) {
        for (int r = 0; r < j->size; r++)
            if (cspill[r])
                fclose(cspill[r]);
        free(cspill);
    }
    if (body)
        fclose(body);
    free(vdefs);
    work_free(&w);
    *fallback = 1;
    return NULL;
}
