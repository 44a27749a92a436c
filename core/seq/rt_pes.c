/*
 * rt_pes.c - the PES reader: "STATE TIME" lines or a "(STATE,TIME), ..." tuple
 * list, streamed through rt_lines into growing arrays (one pass, 10^7 lines in
 * about a second), with one-line errors naming file and line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_field.h"
#include "rt_lines.h"
#include "rt_out.h"
#include "rt_mem.h"
#include "rt_seq_int.h"

typedef struct {
    rt_ses *s;
    const char *path;
    int32_t *ids;
    double *times;
    size_t n, cap;
    void (*progress)(void *ud, uint64_t done, uint64_t total); /* NULL: no reports */
    void *progress_ud;
    uint64_t step;      /* bytes between reports */
    uint64_t next;      /* offset of the next report */
    rt_timespan span;   /* the times read: their span must fit a double */
    /* rt_pes_scan: count instead of keeping the sequence */
    int scan;
    double last;        /* the previous time */
    int32_t last_id;    /* the previous state's symbol */
    uint64_t *uses;     /* occurrences per symbol id (as many as distinct names) */
    size_t nuses, capuses;
    /* rt_pes_chain: the chain built as the entries pass */
    rt_chain_build *cb;
    int32_t before_id;  /* the symbol of the element fed to the chain last (nfed >= 1) */
    size_t nelem;       /* elements ended so far (an element ends at the next entry) */
    size_t nfed;        /* elements fed to the chain */
    /* a clip (rt_pes_chain_clip): the first clip_i elements skipped, the last clip_f held
     * back in a ring (they are known to be the last only at the end) */
    size_t clip_i, clip_f;
    struct pes_elem { int32_t id; double dur; } *ring;
    size_t ring_cap, ring_head, ring_n;
    /* rt_pes_each: every name interned and marked original, each element handed over */
    int names;
    int (*each)(void *ud, int32_t id, double entry, double end);
    void *each_ud;
} pes_buf;

/* Report progress when the reader has passed the next mark (called once a line). */
static void report(pes_buf *b, rt_lines *r)
{
    uint64_t off = rt_lines_offset(r);
    if (b->progress && off >= b->next) {
        b->progress(b->progress_ud, off, rt_lines_size(r));
        b->next = off + b->step;
    }
}

/* Integers take a fast path; anything else goes through the strict strtod parser. */
static int parse_time(rt_span t, double *out)
{
    if (t.n && t.n < 16) {
        uint64_t v = 0;
        size_t i = 0;
        for (; i < t.n && t.p[i] >= '0' && t.p[i] <= '9'; i++)
            v = v * 10 + (uint64_t)(t.p[i] - '0');
        if (i == t.n) {
            *out = (double)v;
            return 1;
        }
    }
    return rt_span_double(t, out) && isfinite(*out);
}

/* Element (id, dur) into the chain: its state, and the arc from the element before it. */
static int feed(pes_buf *b, int32_t id, double dur)
{
    if (rt_chain_build_state(b->cb, id, dur) < 0 || (b->nfed >= 1 && rt_chain_build_arc(b->cb, b->before_id, id) != RT_OK))
        return RT_ENOMEM;
    b->before_id = id;
    b->nfed++;
    return RT_OK;
}

/* An element ended: skipped (the clip's first), held back (maybe among its last) or fed. */
static int element(pes_buf *b, int32_t id, double dur)
{
    if (b->nelem++ < b->clip_i)
        return RT_OK;
    if (b->clip_f == 0)
        return feed(b, id, dur);
    if (b->ring_n == b->ring_cap && b->ring_cap < b->clip_f) { /* grows up to clip_f, as elements come */
        size_t cap = b->ring_cap, want = b->ring_cap ? 2 * b->ring_cap : 64;
        if (want > b->clip_f)
            want = b->clip_f;
        struct pes_elem *r = malloc(want * sizeof *r);
        if (!r)
            return RT_ENOMEM;
        for (size_t i = 0; i < b->ring_n; i++) /* unrolled from the head */
            r[i] = b->ring[(b->ring_head + i) % cap];
        free(b->ring);
        b->ring = r;
        b->ring_cap = want;
        b->ring_head = 0;
    }
    if (b->ring_n < b->ring_cap) {
        b->ring[(b->ring_head + b->ring_n++) % b->ring_cap] = (struct pes_elem){id, dur};
        return RT_OK;
    }
    /* full (clip_f elements): the oldest is not among the last clip_f */
    struct pes_elem old = b->ring[b->ring_head];
    b->ring[b->ring_head] = (struct pes_elem){id, dur};
    b->ring_head = (b->ring_head + 1) % b->ring_cap;
    return feed(b, old.id, old.dur);
}

static int push(pes_buf *b, rt_span name, rt_span time, unsigned long line, rt_err *err)
{
    double t;
    /* a NUL inside a name would make a second state that prints as the first
     * ("A\0" and "A") and duplicate keys in JSON */
    int st = rt_field_name(name.p, name.n, b->path, line, "state", err);
    if (st != RT_OK)
        return st;
    if (!parse_time(time, &t))
        return rt_err_at(err, RT_EFORMAT, b->path, line, "time: '%.*s' is not a number",
                         (int)(time.n > 40 ? 40 : time.n), time.p);
    if ((st = rt_timespan_add(&b->span, t, b->path, line, "time", err)) != RT_OK)
        return st;
    double prev = b->n == 0 ? t : b->scan ? b->last : b->times[b->n - 1];
    if (t < prev)
        return rt_err_at(err, RT_EFORMAT, b->path, line, "time: %.17g is less than the previous time %.17g", t,
                         prev);
    if (b->scan) { /* count only: memory grows with the distinct names, not the states */
        int32_t id = rt_ses_intern(b->s, name.p, name.n);
        if (id < 0)
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", b->path);
        if ((size_t)id >= b->nuses) { /* a new name: ids come in order, one past the last */
            size_t cap = b->capuses;
            if (rt_grow((void **)&b->uses, &cap, (size_t)id + 1, sizeof *b->uses) != RT_OK)
                return rt_err_set(err, RT_ENOMEM, "%s: out of memory", b->path);
            b->capuses = cap;
            memset(b->uses + b->nuses, 0, ((size_t)id + 1 - b->nuses) * sizeof *b->uses);
            b->nuses = (size_t)id + 1;
        }
        b->uses[id]++;
        if (b->cb) { /* entry n ends the state of entry n - 1 */
            b->s->orig[id] = 1;
            if (rt_chain_build_symbols(b->cb, rt_ses_symbol_count(b->s)) != RT_OK ||
                (b->n >= 1 && element(b, b->last_id, t - b->last) != RT_OK))
                return rt_err_set(err, RT_ENOMEM, "%s: out of memory", b->path);
        } else if (b->names) {
            b->s->orig[id] = 1;
            if (b->each && b->n >= 1 && (st = b->each(b->each_ud, b->last_id, b->last, t)) != RT_OK)
                return st == RT_EIO ? rt_err_set(err, RT_EIO, "%s: cannot write a temporary file", b->path)
                                    : rt_err_set(err, RT_ENOMEM, "%s: out of memory", b->path);
        }
        b->last = t;
        b->last_id = id;
        b->n++;
        return RT_OK;
    }
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        if (rt_resize((void **)&b->ids, cap, sizeof *b->ids) != RT_OK ||
            rt_resize((void **)&b->times, cap, sizeof *b->times) != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", b->path);
        b->cap = cap;
    }
    int32_t id = rt_ses_intern(b->s, name.p, name.n);
    if (id < 0)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", b->path);
    b->ids[b->n] = id;
    b->times[b->n++] = t;
    return RT_OK;
}

/* Cut a line at '#'. */
static size_t uncomment(const char *line, size_t len)
{
    const char *h = memchr(line, '#', len);
    return h ? (size_t)(h - line) : len;
}

static int read_pairs(rt_lines *r, pes_buf *b, const char *line, size_t len, rt_err *err)
{
    int st;
    do {
        len = uncomment(line, len);
        const char *cur = line, *end = line + len;
        rt_span f[3];
        int nf = 0;
        while (nf < 3 && rt_tok_next(&cur, end, &f[nf]))
            nf++;
        if (nf == 0)
            continue;
        unsigned long ln = rt_lines_lineno(r);
        report(b, r);
        if (nf != 2)
            return rt_err_at(err, RT_EFORMAT, b->path, ln, "expected 'STATE TIME', found %s",
                             nf == 1 ? "one field" : "more than two fields");
        if ((st = push(b, f[0], f[1], ln, err)) != RT_OK)
            return st;
    } while ((st = rt_lines_next(r, &line, &len, err)) == RT_OK);
    return st == RT_EEOF ? RT_OK : st;
}

/* The tuple list: a small state machine over characters, tuples may span lines. */
static int read_tuples(rt_lines *r, pes_buf *b, const char *line, size_t len, rt_err *err)
{
    char name[256], num[64];
    size_t nn = 0, tn = 0;
    int state = 0; /* 0 between tuples, 1 in the state name, 2 in the time */
    int st;
    unsigned long ln = 0;
    do {
        ln = rt_lines_lineno(r);
        report(b, r);
        len = uncomment(line, len);
        for (size_t i = 0; i < len; i++) {
            char c = line[i];
            if (state == 0) {
                if (c == '(') {
                    state = 1;
                    nn = tn = 0;
                } else if (c != ',' && !isspace((unsigned char)c)) {
                    return rt_err_at(err, RT_EFORMAT, b->path, ln, "expected '(' before '%c'", c);
                }
            } else if (state == 1) {
                if (c == ',') {
                    while (nn && isspace((unsigned char)name[nn - 1]))
                        nn--;
                    if (!nn)
                        return rt_err_at(err, RT_EFORMAT, b->path, ln, "state: empty name");
                    state = 2;
                } else if (c == ')') {
                    return rt_err_at(err, RT_EFORMAT, b->path, ln,
                                     "expected '(STATE,TIME)', found one field");
                } else if (!(isspace((unsigned char)c) && nn == 0)) {
                    if (nn + 1 >= sizeof name)
                        return rt_err_at(err, RT_EFORMAT, b->path, ln, "state: name too long");
                    name[nn++] = c;
                }
            } else {
                if (c == ')') {
                    rt_span sn = {name, nn}, tt = {num, tn};
                    if ((st = push(b, sn, tt, ln, err)) != RT_OK)
                        return st;
                    state = 0;
                } else if (!isspace((unsigned char)c)) {
                    if (tn + 1 >= sizeof num || c == ',')
                        return rt_err_at(err, RT_EFORMAT, b->path, ln,
                                         "time: expected a number and ')'");
                    num[tn++] = c;
                }
            }
        }
    } while ((st = rt_lines_next(r, &line, &len, err)) == RT_OK);
    if (st != RT_EEOF)
        return st;
    if (state != 0)
        return rt_err_at(err, RT_EFORMAT, b->path, ln, "unterminated tuple at the end of the file");
    return RT_OK;
}

int rt_ses_load(rt_ses *s, const char *path, rt_err *err)
{
    return rt_ses_load_progress(s, path, 0, NULL, NULL, err);
}

static int read_pes(pes_buf *b, rt_err *err);

int rt_ses_load_progress(rt_ses *s, const char *path, uint64_t step,
                         void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                         rt_err *err)
{
    rt_err_clear(err);
    if (s->nsteps)
        return rt_err_at(err, RT_ESTATE, path, 0, "members are added before the first transform");
    pes_buf b = {s, path, NULL, NULL, 0, 0, progress, ud, step ? step : 1, step ? step : 1, {0, 0, 0}, 0, 0, 0, NULL, 0, 0, NULL, -1, 0, 0, 0, 0, NULL, 0, 0, 0, 0, NULL, NULL};
    int st = read_pes(&b, err);
    if (st == RT_OK) {
        /* hand the arrays over (times already checked): SES symbols are the first n-1 states */
        s->orig[b.ids[b.n - 1]] = 1;
        return rt_ses_add_owned(s, path, b.ids, b.times, b.n - 1, err);
    }
    free(b.ids);
    free(b.times);
    return st;
}

int rt_pes_scan(const char *path, rt_pes_summary *out, rt_err *err)
{
    rt_err_clear(err);
    memset(out, 0, sizeof *out);
    rt_ses *s = rt_ses_new();
    if (!s)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    pes_buf b = {s, path, NULL, NULL, 0, 0, NULL, NULL, 1, 1, {0, 0, 0}, 1, 0, 0, NULL, 0, 0, NULL, -1, 0, 0, 0, 0, NULL, 0, 0, 0, 0, NULL, NULL};
    int st = read_pes(&b, err);
    if (st == RT_OK) {
        b.uses[b.last_id]--; /* the last entry ends the run: not a state */
        out->states = b.n - 1;
        for (size_t i = 0; i < b.nuses; i++)
            out->symbols += b.uses[i] > 0;
        out->first = b.span.lo;
        out->last = b.span.hi;
    }
    free(b.uses);
    rt_ses_free(s);
    return st;
}

int rt_pes_chain(rt_ses *s, const char *path, rt_chain **out, size_t *states, rt_err *err)
{
    return rt_pes_chain_progress(s, path, 0, NULL, NULL, out, states, err);
}

int rt_pes_chain_progress(rt_ses *s, const char *path, uint64_t step,
                          void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                          rt_chain **out, size_t *states, rt_err *err)
{
    return rt_pes_chain_clip(s, path, 0, 0, step, progress, ud, out, states, err);
}

int rt_pes_chain_clip(rt_ses *s, const char *path, size_t ni, size_t nf, uint64_t step,
                      void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                      rt_chain **out, size_t *states, rt_err *err)
{
    rt_err_clear(err);
    *out = NULL;
    pes_buf b = {s, path, NULL, NULL, 0, 0, progress, ud, step ? step : 1, step ? step : 1, {0, 0, 0}, 1, 0, 0,
                 NULL, 0, 0, NULL, -1, 0, 0, ni, nf, NULL, 0, 0, 0, 0, NULL, NULL};
    if (!(b.cb = rt_chain_build_new(rt_ses_symbol_count(s))))
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    int st = read_pes(&b, err);
    if (st == RT_OK && (ni > b.nelem || nf > b.nelem - ni)) /* rt_ses_clip's check and words */
        st = rt_err_at(err, RT_EINVAL, path, 0, "clip: n_i + n_f = %zu exceeds the sequence length %zu", ni + nf,
                       b.nelem);
    else if (st == RT_OK && b.nfed == 0) /* nothing left: no chain to build as a stream */
        st = rt_err_set(err, RT_ESTATE, "%s: clip: nothing left of the sequence", path);
    if (st == RT_OK) {
        /* the last element fed ends the run: it goes to the sentinel */
        if (rt_chain_build_end(b.cb, s, b.before_id, out) != RT_OK)
            st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        else
            *states = b.nfed;
    }
    rt_chain_build_free(b.cb);
    free(b.uses);
    free(b.ring);
    return st;
}

int rt_pes_each(rt_ses *s, const char *path, uint64_t step,
                void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                int (*each)(void *ud, int32_t id, double entry, double end), void *each_ud, size_t *states,
                rt_err *err)
{
    rt_err_clear(err);
    pes_buf b = {s, path, NULL, NULL, 0, 0, progress, ud, step ? step : 1, step ? step : 1, {0, 0, 0}, 1, 0, 0,
                 NULL, 0, 0, NULL, -1, 0, 0, 0, 0, NULL, 0, 0, 0, 1, each, each_ud};
    int st = read_pes(&b, err);
    if (st == RT_OK && states)
        *states = b.n - 1;
    free(b.uses);
    return st;
}

/* Read the PES at b->path into b (either layout). RT_OK with b->n >= 2 states. */
static int read_pes(pes_buf *b, rt_err *err)
{
    const char *path = b->path;
    rt_lines *r = rt_lines_open(path, err);
    if (!r)
        return err->status;
    const char *line;
    size_t len;
    int st;
    /* the first line with content decides the layout */
    while ((st = rt_lines_next(r, &line, &len, err)) == RT_OK) {
        size_t l = uncomment(line, len), i = 0;
        while (i < l && isspace((unsigned char)line[i]))
            i++;
        if (i < l)
            break;
    }
    if (st == RT_EEOF) {
        st = rt_err_at(err, RT_EFORMAT, path, 0, "empty PES: no states");
    } else if (st == RT_OK) {
        size_t i = 0;
        while (isspace((unsigned char)line[i]))
            i++;
        st = line[i] == '(' ? read_tuples(r, b, line, len, err)
                            : read_pairs(r, b, line, len, err);
        if (st == RT_OK && b->n < 2)
            st = rt_err_at(err, RT_EFORMAT, path, rt_lines_lineno(r),
                           "a PES needs at least two states (found %zu)", b->n);
    }
    if (st == RT_OK && b->progress && b->next > b->step) /* reported before: say it is done */
        b->progress(b->progress_ud, rt_lines_offset(r), rt_lines_size(r));
    rt_lines_free(r);
    return st;
}

/* ---- CSV export ---- */

/* v as the shortest text that reads back exactly (whole numbers without ".0"). */
static void put_number(FILE *f, double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        fprintf(f, "%.0f", v);
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    fputs(buf, f);
}

/* A CSV field: quoted (with doubled quotes) when it holds a comma, quote or newline. */
static void put_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int rt_ses_write_csv(const rt_ses *s, size_t k, const char *path, rt_err *err)
{
    rt_err_clear(err);
    if (k >= rt_ses_members(s))
        return rt_err_set(err, RT_EINVAL, "csv: no member %zu", k + 1);
    rt_out *out = rt_out_open(path, err);
    if (!out)
        return err ? err->status : RT_EIO;
    FILE *f = rt_out_fp(out);
    const int32_t *sym = rt_ses_symbols(s, k);
    size_t n = rt_ses_length(s, k);
    fputs("event,entry,occupancy,symbol\n", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%zu,", i + 1);
        put_number(f, rt_ses_entry(s, k, i));
        fputc(',', f);
        put_number(f, rt_ses_time(s, k, i));
        fputc(',', f);
        put_field(f, rt_ses_name(s, sym[i]));
        fputc('\n', f);
    }
    return rt_out_commit(out, err);
}
