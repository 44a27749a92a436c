/*
 * rt_server.c - libmicrohttpd front of the viewer's index (see rt_server.h).
 *
 * Answers are JSON written through open_memstream, except a raster: binary, two
 * bytes a cell at most (the state mix and the top function) and a message count
 * per column, filled row by row (see RASTER_HEAD below).
 * The daemon runs one internal thread, so queries never overlap and the index
 * needs no locks.
 */
#include "rt_server.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rt_chanmap.h"
#include "rt_server_int.h"
#include "rt_tevent.h"

/* The page's files: the only paths served besides api/. */
static const struct {
    const char *name, *type;
} ASSETS[] = {
    {"index.html", "text/html; charset=utf-8"},
    {"viewer.js", "text/javascript; charset=utf-8"},
    {"viewer.css", "text/css; charset=utf-8"},
    {"compare.html", "text/html; charset=utf-8"},
    {"counters.js", "text/javascript; charset=utf-8"},
};
#define NASSETS (sizeof ASSETS / sizeof ASSETS[0])

/* An answer of api/critpath kept for its window. */
typedef struct cp_answer {
    int64_t t0, t1;
    int status;
    char *body;
    size_t len;
} cp_answer;

struct rt_server {
    struct MHD_Daemon *d;
    /* the critical path on demand (rt_server_on_critpath): shared with the owner's thread */
    pthread_mutex_t cp_lock;
    rt_server_wake_fn cp_wake;
    void *cp_ud;
    int cp_wanted, cp_busy;   /* a window asked for and not taken; one taken and not answered */
    int64_t cp_want[2], cp_taken[2];
    cp_answer cp_kept[RT_SERVER_CP_KEEP];
    int cp_next;
    char *meta_extra;         /* members added to api/meta by the owner (rt_server_set_meta) */
    rt_index *ix2;            /* a second trace to compare (rt_server_add_trace), NULL none */
    char *title2;
    rt_index *ix;
    char *title;
    char token[65];
    char *asset[NASSETS];
    size_t asset_len[NASSETS];
    int port;
    unsigned long requests;
};

/* ---- query arguments ---- */


static void kv_free(kv *a)
{
    for (int i = 0; i < a->n; i++) {
        free(a->k[i]);
        free(a->v[i]);
    }
    a->n = 0;
}

static int kv_add(kv *a, const char *k, size_t kn, const char *v, size_t vn)
{
    if (a->n >= MAXARGS)
        return -1;
    char *kk = malloc(kn + 1), *vv = malloc(vn + 1);
    if (!kk || !vv) {
        free(kk);
        free(vv);
        return -1;
    }
    memcpy(kk, k, kn);
    kk[kn] = '\0';
    memcpy(vv, v, vn);
    vv[vn] = '\0';
    a->k[a->n] = kk;
    a->v[a->n++] = vv;
    return 0;
}

const char *kv_get(const kv *a, const char *k)
{
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->k[i], k) == 0)
            return a->v[i];
    return NULL;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Decode %XX and '+' in place. */
static void url_decode(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '+')
            *o++ = ' ';
        else if (*s == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
            *o++ = (char)(hexval(s[1]) * 16 + hexval(s[2]));
            s += 2;
        } else
            *o++ = *s;
    }
    *o = '\0';
}

static int parse_query(kv *a, const char *q)
{
    while (q && *q) {
        const char *amp = strchr(q, '&');
        size_t n = amp ? (size_t)(amp - q) : strlen(q);
        const char *eq = memchr(q, '=', n);
        if (n) {
            if (kv_add(a, q, eq ? (size_t)(eq - q) : n, eq ? eq + 1 : "", eq ? n - (size_t)(eq - q) - 1 : 0))
                return -1;
            url_decode(a->k[a->n - 1]);
            url_decode(a->v[a->n - 1]);
        }
        q = amp ? amp + 1 : NULL;
    }
    return 0;
}

/* ---- answers ---- */


int jw_open(jw *w)
{
    w->buf = NULL;
    w->len = 0;
    w->f = open_memstream(&w->buf, &w->len);
    return w->f ? 0 : -1;
}

void jw_str(jw *w, const char *s)
{
    fputc('"', w->f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(w->f, "\\%c", c);
        else if (c < 0x20)
            fprintf(w->f, "\\u%04x", c);
        else
            fputc(c, w->f);
    }
    fputc('"', w->f);
}

void jw_close(jw *w, reply *r)
{
    fclose(w->f);
    r->status = 200;
    r->body = w->buf;
    r->len = w->len;
    r->type = "application/json";
}

void fail(reply *r, int status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    jw w;
    r->status = status;
    r->type = "application/json";
    if (jw_open(&w)) {
        r->body = NULL;
        r->len = 0;
        return;
    }
    fputs("{\"error\":", w.f);
    jw_str(&w, msg);
    fputs("}\n", w.f);
    fclose(w.f);
    r->body = w.buf;
    r->len = w.len;
}

/* An integer argument in [lo, hi]; def when absent (has_def) else an error. 0 ok, -1 answered 400. */
int arg_int(const kv *a, const char *k, int64_t lo, int64_t hi, int has_def, int64_t def, int64_t *out, reply *r)
{
    const char *v = kv_get(a, k);
    if (!v) {
        if (has_def) {
            *out = def;
            return 0;
        }
        fail(r, 400, "missing argument %s", k);
        return -1;
    }
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || errno) {
        fail(r, 400, "argument %s: '%.40s' is not an integer", k, v);
        return -1;
    }
    if (x < lo || x > hi) {
        fail(r, 400, "argument %s: %lld outside %lld .. %lld", k, x, (long long)lo, (long long)hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* Arguments of a window: t0 < t1 ticks, 0 <= p0 < p1 <= nprocs. */
int window_args(rt_index *ix, const kv *a, int64_t *t0, int64_t *t1, int *p0, int *p1, reply *r)
{
    int64_t np = rt_index_nprocs(ix), x0, x1;
    int64_t lim = (int64_t)1 << 53;
    if (arg_int(a, "t0", -lim, lim, 1, rt_index_tmin(ix), t0, r) ||
        arg_int(a, "t1", -lim, lim, 1, rt_index_tmax(ix), t1, r) || arg_int(a, "p0", 0, np, 1, 0, &x0, r) ||
        arg_int(a, "p1", 0, np, 1, np, &x1, r))
        return -1;
    if (*t1 <= *t0) {
        fail(r, 400, "empty time window: t1 %lld is not after t0 %lld", (long long)*t1, (long long)*t0);
        return -1;
    }
    if (x1 <= x0) {
        fail(r, 400, "empty processor range: p1 %lld is not after p0 %lld", (long long)x1, (long long)x0);
        return -1;
    }
    *p0 = (int)x0;
    *p1 = (int)x1;
    return 0;
}

/*
 * The processors asked for: procs=LIST (numbers and ranges A-B, comma-separated, any order) meets
 * [p0, p1); absent, all of [p0, p1). *mask (malloc'ed, p1 - p0 bytes, 1 = shown). 0, or -1 answered.
 */
int procs_arg(const kv *a, int p0, int p1, unsigned char **mask, reply *r)
{
    const char *v = kv_get(a, "procs");
    *mask = malloc((size_t)(p1 - p0));
    if (!*mask) {
        fail(r, 500, "out of memory");
        return -1;
    }
    memset(*mask, v ? 0 : 1, (size_t)(p1 - p0));
    for (const char *q = v; q && *q;) {
        char *end;
        errno = 0;
        long x = strtol(q, &end, 10), y = x;
        int bad = end == q || errno || x < 0;
        if (!bad && *end == '-') {
            const char *q2 = end + 1;
            y = strtol(q2, &end, 10);
            bad = end == q2 || errno || y < x;
        }
        if (bad || (*end && *end != ',')) {
            fail(r, 400, "argument procs: '%.40s' is not a list of processors (0,3-5,...)", v);
            free(*mask);
            *mask = NULL;
            return -1;
        }
        for (long p = x > p0 ? x : p0; p <= y && p < p1; p++)
            (*mask)[p - p0] = 1;
        q = *end ? end + 1 : end;
    }
    return 0;
}

/* The next run of shown processors from *p on: [*a, *b); 0 when none is left. */
int next_run(const unsigned char *mask, int p0, int p1, int *p, int *a, int *b)
{
    while (*p < p1 && !mask[*p - p0])
        (*p)++;
    if (*p >= p1)
        return 0;
    *a = *p;
    while (*p < p1 && mask[*p - p0])
        (*p)++;
    *b = *p;
    return 1;
}

/* comm=ID: the messages of that communicator only (-1, the default: all). */
static int comm_arg(const kv *a, int64_t *comm, reply *r)
{
    return arg_int(a, "comm", -1, INT_MAX, 1, -1, comm, r);
}

static void answer_meta(rt_server *s, rt_index *ix, int trace, reply *r)
{
    jw w;
    if (jw_open(&w))
        return fail(r, 500, "out of memory");
    fputs("{\"title\":", w.f);
    jw_str(&w, trace ? s->title2 : s->title);
    fprintf(w.f, ",\"format\":");
    jw_str(&w, rt_index_format(ix));
    fprintf(w.f, ",\"tmin\":%lld,\"tmax\":%lld,\"unit\":%llu,\"events\":%llu,\"levels\":%d,\"exact_max\":%d",
            (long long)rt_index_tmin(ix), (long long)rt_index_tmax(ix), (unsigned long long)rt_index_unit(ix),
            (unsigned long long)rt_index_nevents(ix), rt_index_levels(ix), RT_SERVER_EXACT_MAX);
    fputs(",\"procs\":[", w.f);
    for (int p = 0; p < rt_index_nprocs(ix); p++) {
        if (p)
            fputc(',', w.f);
        jw_str(&w, rt_index_proc_name(ix, p));
    }
    fputc(']', w.f);
    fprintf(w.f, ",\"trace\":%d,\"traces\":%d", trace, s->ix2 ? 2 : 1);
    pthread_mutex_lock(&s->cp_lock);
    if (s->meta_extra && !trace)
        fprintf(w.f, ",%s", s->meta_extra);
    pthread_mutex_unlock(&s->cp_lock);
    rt_server_meta_counters(ix, &w);
    fputs(",\"regions\":[", w.f);
    for (int i = 0; i < rt_index_nregions(ix); i++) {
        if (i)
            fputc(',', w.f);
        fputs("{\"name\":", w.f);
        jw_str(&w, rt_index_region_name(ix, i));
        fputs(",\"class\":", w.f);
        jw_str(&w, rt_tclass_name(rt_index_region_class(ix, i)));
        fprintf(w.f, ",\"state\":%d,\"id\":%d}", rt_index_region_state(ix, i), rt_index_region_id(ix, i));
    }
    fputs("]}\n", w.f);
    jw_close(&w, r);
}

/* ---- view ---- */

typedef struct exact_ud {
    FILE *f;
    int nint, nmsg;
    int comm;                 /* messages of this communicator only; -1 all */
} exact_ud;

static int exact_interval(void *ud, const rt_ix_interval *iv)
{
    exact_ud *e = ud;
    fprintf(e->f, "%s%d,%lld,%lld,%d,%d", e->nint++ ? "," : "", iv->proc, (long long)iv->t0, (long long)iv->t1,
            iv->region, iv->depth);
    return 0;
}

static int exact_message(void *ud, const rt_ix_message *m)
{
    exact_ud *e = ud;
    if (e->comm >= 0 && m->comm != e->comm)
        return 0;
    fprintf(e->f, "%s%d,%d,%lld,%lld,%.0f,%lld", e->nmsg++ ? "," : "", m->src, m->dst, (long long)m->ts,
            (long long)m->tr, m->bytes, (long long)m->tag);
    return 0;
}

/*
 * A raster answer (application/octet-stream, little-endian):
 *   0  "RTRA"
 *   4  u8 version (1), u8 bytes a region takes (1 or 2), u8 flags (1: drawn from the events), u8 0
 *   8  u32 rows, cols, p0, p1
 *  24  f64 t0, t1
 *  40  u32 messages received in each column (all rows), cols of them
 *      then a state byte per cell, row-major: 0 no time, else 1 + 16 * idle + busy with the
 *      shares of idle, overhead and busy in fifteenths (overhead = 15 - idle - busy);
 *      padded with zeros to a multiple of 4;
 *      then the region per cell: the dense number of the function holding the most time + 1
 *      (0 none), in 1 byte when the trace has fewer than 255 functions, else 2.
 */
#define RASTER_HEAD 40

static unsigned char *put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

/* The state byte of a cell (see above). */
static unsigned char state_code(const rt_ix_cell *c)
{
    double tot = (double)c->st[0] + c->st[1] + c->st[2];
    if (!(tot > 0))
        return 0;
    int qi = (int)(15.0 * c->st[0] / tot + 0.5), qb = (int)(15.0 * c->st[2] / tot + 0.5);
    if (qi + qb > 15) {
        if (qi >= qb)
            qi--;
        else
            qb--;
    }
    return (unsigned char)(1 + 16 * qi + qb);
}

typedef struct bin_ud {
    unsigned char *state, *region;
    uint32_t *msgs;
    int cols, rb;
} bin_ud;

static int bin_row(void *ud, int row, const rt_ix_cell *cells)
{
    bin_ud *b = ud;
    size_t o = (size_t)row * (size_t)b->cols;
    for (int c = 0; c < b->cols; c++) {
        const rt_ix_cell *x = &cells[c];
        b->state[o + (size_t)c] = state_code(x);
        unsigned top = x->top >= 0 ? (unsigned)x->top + 1 : 0;
        if (b->rb == 1)
            b->region[o + (size_t)c] = (unsigned char)top;
        else
            put_le(b->region + 2 * (o + (size_t)c), top, 2);
        b->msgs[c] += x->nmsg;
    }
    return 0;
}

static void answer_view(rt_index *ix, const kv *a, reply *r)
{
    int64_t t0, t1, w, h, comm;
    int p0, p1;
    if (window_args(ix, a, &t0, &t1, &p0, &p1, r) || arg_int(a, "w", 1, 8192, 0, 0, &w, r) ||
        arg_int(a, "h", 1, 8192, 0, 0, &h, r) || comm_arg(a, &comm, r))
        return;
    int n = p1 - p0;
    rt_err err;
    rt_err_clear(&err);
    int rc;
    if (n <= h && rt_index_estimate(ix, p0, p1, t0, t1) <= RT_SERVER_EXACT_MAX) {
        jw out;
        if (jw_open(&out))
            return fail(r, 500, "out of memory");
        fprintf(out.f, "{\"t0\":%lld,\"t1\":%lld,\"p0\":%d,\"p1\":%d,", (long long)t0, (long long)t1, p0, p1);
        exact_ud e = {out.f, 0, 0, (int)comm};
        fputs("\"mode\":\"exact\",\"intervals\":[", out.f);
        rt_ix_visitor v = {exact_interval, NULL, NULL, &e, NULL, 0};
        rc = rt_index_walk(ix, p0, p1, t0, t1, &v, &err);
        fputs("],\"messages\":[", out.f);
        rt_ix_visitor vm = {NULL, exact_message, NULL, &e, NULL, 0};
        if (!rc)
            rc = rt_index_walk(ix, p0, p1, t0, t1, &vm, &err); /* received by the processors shown */
        fputs("]}\n", out.f);
        if (rc) {
            fclose(out.f);
            free(out.buf);
            return fail(r, 500, "%s", err.msg);
        }
        return jw_close(&out, r);
    }
    int rows = n < h ? n : (int)h; /* a row per processor, or groups of them */
    size_t nc = (size_t)rows * (size_t)w;
    if (nc > RT_SERVER_MAX_CELLS)
        return fail(r, 400, "raster of %lld x %d cells: more than %d", (long long)w, rows, RT_SERVER_MAX_CELLS);
    int rb = rt_index_nregions(ix) < 255 ? 1 : 2;
    size_t splane = (nc + 3) & ~(size_t)3;
    size_t len = RASTER_HEAD + 4 * (size_t)w + splane + nc * (size_t)rb;
    unsigned char *body = malloc(len + 1); /* NUL-terminated as every answer (rt_server_answer) */
    uint32_t *msgs = calloc((size_t)w, sizeof *msgs);
    if (!body || !msgs) {
        free(body);
        free(msgs);
        return fail(r, 500, "out of memory");
    }
    bin_ud b = {body + RASTER_HEAD + 4 * (size_t)w, body + RASTER_HEAD + 4 * (size_t)w + splane, msgs, (int)w, rb};
    memset(b.state + nc, 0, splane - nc);
    int from_events = 0;
    rc = rt_index_raster_rows(ix, p0, p1, rows, t0, t1, (int)w, bin_row, &b, &from_events, &err);
    if (rc) {
        free(body);
        free(msgs);
        return fail(r, 500, "%s", err.msg);
    }
    unsigned char *q = body;
    memcpy(q, "RTRA", 4);
    q += 4;
    *q++ = 1;
    *q++ = (unsigned char)rb;
    *q++ = from_events ? 1 : 0;
    *q++ = 0;
    q = put_le(q, (uint64_t)rows, 4);
    q = put_le(q, (uint64_t)w, 4);
    q = put_le(q, (uint64_t)p0, 4);
    q = put_le(q, (uint64_t)p1, 4);
    double tt[2] = {(double)t0, (double)t1};
    for (int i = 0; i < 2; i++) {
        uint64_t bits;
        memcpy(&bits, &tt[i], 8);
        q = put_le(q, bits, 8);
    }
    for (int64_t c = 0; c < w; c++)
        q = put_le(q, msgs[c], 4);
    free(msgs);
    body[len] = 0;
    r->status = 200;
    r->body = (char *)body;
    r->len = len;
    r->type = "application/octet-stream";
}

/* ---- utilization profile ---- */

typedef struct prof_ud {
    double *st;               /* 3 x cols: ticks per state summed over the processors */
    int cols;
} prof_ud;

static int prof_row(void *ud, int row, const rt_ix_cell *cells)
{
    prof_ud *p = ud;
    (void)row;
    for (int c = 0; c < p->cols; c++)
        for (int k = 0; k < 3; k++)
            p->st[3 * c + k] += cells[c].st[k];
    return 0;
}

/* How many processors are idle, in overhead and busy, on average in each of w columns (ParaGraph's
 * utilization count): the time per state summed over the processors, over the column's width. */
static void answer_profile(rt_index *ix, const kv *a, reply *r)
{
    int64_t t0, t1, w;
    int p0, p1;
    unsigned char *mask;
    if (window_args(ix, a, &t0, &t1, &p0, &p1, r) || arg_int(a, "w", 1, 8192, 0, 0, &w, r) ||
        procs_arg(a, p0, p1, &mask, r))
        return;
    prof_ud pu = {calloc((size_t)w * 3, sizeof(double)), (int)w};
    if (!pu.st) {
        free(mask);
        return fail(r, 500, "out of memory");
    }
    rt_err err;
    rt_err_clear(&err);
    int from_events = 1, rc = RT_OK, p = p0, ra, rb, nshown = 0;
    while (!rc && next_run(mask, p0, p1, &p, &ra, &rb)) {
        int fe = 0;
        rc = rt_index_raster_rows(ix, ra, rb, 1, t0, t1, (int)w, prof_row, &pu, &fe, &err);
        from_events &= fe;
        nshown += rb - ra;
    }
    free(mask);
    jw out;
    if (rc || jw_open(&out)) {
        free(pu.st);
        return fail(r, 500, "%s", rc ? err.msg : "out of memory");
    }
    double cw = (double)(t1 - t0) / (double)w;
    fprintf(out.f, "{\"t0\":%lld,\"t1\":%lld,\"p0\":%d,\"p1\":%d,\"shown\":%d,\"cols\":%lld,\"from_events\":%s",
            (long long)t0, (long long)t1, p0, p1, nshown, (long long)w, from_events && nshown ? "true" : "false");
    static const char *const names[3] = {"idle", "overhead", "busy"};
    for (int k = 0; k < 3; k++) {
        fprintf(out.f, ",\"%s\":[", names[k]);
        for (int64_t c = 0; c < w; c++)
            fprintf(out.f, "%s%.6g", c ? "," : "", pu.st[3 * c + k] / cw);
        fputc(']', out.f);
    }
    fputs("}\n", out.f);
    free(pu.st);
    jw_close(&out, r);
}

/* ---- statistics ---- */

typedef struct pair_ent {
    rt_chankey key;
    uint64_t count;
    double bytes;
} pair_ent;

typedef struct stats_ud {
    const rt_index *ix;
    int p0;
    int64_t t0, t1;
    double *state;            /* (p1 - p0) x 3 */
    double *excl, *incl;      /* per region */
    uint64_t *calls;
    uint64_t nmsg;
    double bytes;
    uint64_t hist[64];        /* messages by floor(log2(bytes)) + 1 (0: empty messages) */
    rt_chanmap pairs, tags;
    int comm;                 /* messages of this communicator only; -1 all */
    int failed;
} stats_ud;

static int st_segment(void *ud, int proc, int state, int region, int64_t a, int64_t e)
{
    stats_ud *s = ud;
    s->state[(size_t)(proc - s->p0) * 3 + (size_t)state] += (double)(e - a);
    if (region >= 0)
        s->excl[region] += (double)(e - a);
    return 0;
}

static int st_interval(void *ud, const rt_ix_interval *iv)
{
    stats_ud *s = ud;
    int64_t a = iv->t0 > s->t0 ? iv->t0 : s->t0, e = iv->t1 < s->t1 ? iv->t1 : s->t1;
    if (e > a)
        s->incl[iv->region] += (double)(e - a);
    return 0;
}

static int st_enter(void *ud, int proc, int region, int depth, int64_t t)
{
    stats_ud *s = ud;
    (void)proc;
    (void)depth;
    if (t <= s->t1)
        s->calls[region]++;
    return 0;
}

static int st_message(void *ud, const rt_ix_message *m)
{
    stats_ud *s = ud;
    if (m->tr < s->t0 || m->tr > s->t1 || (s->comm >= 0 && m->comm != s->comm))
        return 0; /* messages received in the window (of the communicator asked for) */
    s->nmsg++;
    s->bytes += m->bytes;
    int b = 0;
    if (m->bytes >= 1)
        b = 1 + (int)floor(log2(m->bytes));
    s->hist[b < 63 ? b : 63]++;
    pair_ent *pe = rt_chanmap_get(&s->pairs, m->src, m->dst, 0, 0);
    pair_ent *te = rt_chanmap_get(&s->tags, 0, 0, 0, m->tag);
    if (!pe || !te) {
        s->failed = 1;
        return 1;
    }
    pe->count++;
    pe->bytes += m->bytes;
    te->count++;
    te->bytes += m->bytes;
    return 0;
}

static void answer_stats(rt_index *ix, const kv *a, reply *r)
{
    int64_t t0, t1, comm;
    int p0, p1;
    unsigned char *mask = NULL;
    if (window_args(ix, a, &t0, &t1, &p0, &p1, r) || comm_arg(a, &comm, r) || procs_arg(a, p0, p1, &mask, r))
        return;
    int nr = rt_index_nregions(ix);
    stats_ud st;
    memset(&st, 0, sizeof st);
    st.comm = (int)comm;
    st.ix = ix;
    st.p0 = p0;
    st.t0 = t0;
    st.t1 = t1;
    st.state = calloc((size_t)(p1 - p0) * 3, sizeof *st.state);
    st.excl = calloc((size_t)nr + 1, sizeof *st.excl);
    st.incl = calloc((size_t)nr + 1, sizeof *st.incl);
    st.calls = calloc((size_t)nr + 1, sizeof *st.calls);
    rt_chanmap_init(&st.pairs, sizeof(pair_ent));
    rt_chanmap_init(&st.tags, sizeof(pair_ent));
    rt_err err;
    rt_err_clear(&err);
    int rc = RT_ENOMEM;
    jw w = {NULL, NULL, 0};
    if (st.state && st.excl && st.incl && st.calls) {
        rc = RT_OK;
        int p = p0, ra, rb;
        while (!rc && next_run(mask, p0, p1, &p, &ra, &rb)) {
            rt_ix_visitor v = {st_interval, NULL, st_enter, &st, NULL, 0};
            rc = rt_index_walk_segments(ix, ra, rb, t0, t1, &v, st_segment, &err);
            rt_ix_visitor vm = {NULL, st_message, NULL, &st, NULL, 0};
            if (!rc)
                rc = rt_index_walk(ix, ra, rb, t0, t1, &vm, &err);
        }
        if (st.failed)
            rc = RT_ENOMEM;
    }
    if (rc || jw_open(&w)) {
        fail(r, 500, "%s", rc && err.msg[0] ? err.msg : "out of memory");
        goto done;
    }
    double unit = (double)rt_index_unit(ix);
    fprintf(w.f, "{\"t0\":%lld,\"t1\":%lld,\"p0\":%d,\"p1\":%d,\"unit\":%.0f,\"procs\":[", (long long)t0,
            (long long)t1, p0, p1, unit);
    double tot[3] = {0, 0, 0};
    int first = 1;
    for (int p = p0; p < p1; p++) {
        if (!mask[p - p0])
            continue;
        double *x = &st.state[(size_t)(p - p0) * 3];
        fprintf(w.f, "%s{\"proc\":%d,\"idle\":%.9g,\"overhead\":%.9g,\"busy\":%.9g}", first ? "" : ",", p,
                x[0] / unit, x[1] / unit, x[2] / unit);
        first = 0;
        for (int k = 0; k < 3; k++)
            tot[k] += x[k];
    }
    fprintf(w.f, "],\"idle\":%.9g,\"overhead\":%.9g,\"busy\":%.9g,\"functions\":[", tot[0] / unit, tot[1] / unit,
            tot[2] / unit);
    first = 1;
    for (int i = 0; i < nr; i++) {
        if (!st.calls[i] && st.incl[i] <= 0 && st.excl[i] <= 0)
            continue;
        fprintf(w.f, "%s{\"region\":%d,\"name\":", first ? "" : ",", i);
        jw_str(&w, rt_index_region_name(ix, i));
        fprintf(w.f, ",\"class\":\"%s\",\"calls\":%llu,\"inclusive\":%.9g,\"exclusive\":%.9g}",
                rt_tclass_name(rt_index_region_class(ix, i)), (unsigned long long)st.calls[i], st.incl[i] / unit,
                st.excl[i] / unit);
        first = 0;
    }
    fprintf(w.f, "],\"messages\":{\"count\":%llu,\"bytes\":%.0f,\"pairs\":[", (unsigned long long)st.nmsg, st.bytes);
    first = 1;
    for (size_t i = 0; i < st.pairs.cap; i++) {
        pair_ent *pe = rt_chanmap_slot(&st.pairs, i);
        if (!pe)
            continue;
        fprintf(w.f, "%s{\"src\":%d,\"dst\":%d,\"count\":%llu,\"bytes\":%.0f}", first ? "" : ",", pe->key.src,
                pe->key.dst, (unsigned long long)pe->count, pe->bytes);
        first = 0;
    }
    fputs("],\"tags\":[", w.f);
    first = 1;
    for (size_t i = 0; i < st.tags.cap; i++) {
        pair_ent *pe = rt_chanmap_slot(&st.tags, i);
        if (!pe)
            continue;
        fprintf(w.f, "%s{\"tag\":%lld,\"count\":%llu,\"bytes\":%.0f}", first ? "" : ",", (long long)pe->key.tag,
                (unsigned long long)pe->count, pe->bytes);
        first = 0;
    }
    /* size histogram: bucket 0 holds empty messages, bucket b >= 1 sizes in [2^(b-1), 2^b) */
    fputs("],\"sizes\":[", w.f);
    int last = 0;
    for (int b = 0; b < 64; b++)
        if (st.hist[b])
            last = b;
    for (int b = 0; b <= last; b++)
        fprintf(w.f, "%s%llu", b ? "," : "", (unsigned long long)st.hist[b]);
    fputs("]}}\n", w.f);
    jw_close(&w, r);
done:
    free(mask);
    free(st.state);
    free(st.excl);
    free(st.incl);
    free(st.calls);
    rt_chanmap_free(&st.pairs);
    rt_chanmap_free(&st.tags);
}

/* ---- search ---- */

typedef struct search_ud {
    const unsigned char *match;
    int proc, region;
    int64_t t, tend;
} search_ud;

static int se_enter(void *ud, int proc, int region, int depth, int64_t t)
{
    search_ud *s = ud;
    (void)depth;
    if (!s->match[region])
        return 0;
    if (s->proc < 0 || t < s->t) {
        s->proc = proc;
        s->region = region;
        s->t = t;
    }
    return 1; /* the first on this processor is all it can give */
}

static int se_close(void *ud, const rt_ix_interval *iv)
{
    search_ud *s = ud;
    if (iv->region == s->region && iv->t0 == s->t) {
        s->tend = iv->t1;
        return 1;
    }
    return 0;
}

static int contains_nocase(const char *h, const char *n)
{
    size_t ln = strlen(n);
    for (; *h; h++) {
        size_t i = 0;
        while (i < ln && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)n[i]))
            i++;
        if (i == ln)
            return 1;
    }
    return ln == 0;
}

static void answer_search(rt_index *ix, const kv *a, reply *r)
{
    const char *q = kv_get(a, "q");
    int64_t t, x0, x1, np = rt_index_nprocs(ix);
    if (!q || !*q)
        return fail(r, 400, "missing argument q (a region name or part of one)");
    if (arg_int(a, "t", -((int64_t)1 << 53), (int64_t)1 << 53, 1, rt_index_tmin(ix), &t, r) ||
        arg_int(a, "p0", 0, np, 1, 0, &x0, r) || arg_int(a, "p1", 0, np, 1, np, &x1, r))
        return;
    int nr = rt_index_nregions(ix);
    unsigned char *match = calloc((size_t)nr + 1, 1);
    if (!match)
        return fail(r, 500, "out of memory");
    int any = 0;
    for (int i = 0; i < nr; i++)
        any |= match[i] = (unsigned char)contains_nocase(rt_index_region_name(ix, i), q);
    search_ud su = {match, -1, -1, 0, 0};
    rt_err err;
    rt_err_clear(&err);
    int rc = RT_OK;
    for (int p = (int)x0; any && p < (int)x1; p++) {
        /* each processor is read only up to the best time found so far */
        int64_t until = su.proc >= 0 ? su.t : rt_index_tmax(ix);
        if (until < t)
            break;
        rt_ix_visitor v = {NULL, NULL, se_enter, &su, NULL, 0};
        rc = rt_index_walk(ix, p, p + 1, t, until, &v, &err);
        if (rc == RT_EINTR)
            rc = RT_OK;
        if (rc)
            break;
    }
    if (!rc && su.proc >= 0) {
        su.tend = su.t;
        rt_ix_visitor v = {se_close, NULL, NULL, &su, NULL, 0};
        rc = rt_index_walk(ix, su.proc, su.proc + 1, su.t, rt_index_tmax(ix), &v, &err);
        if (rc == RT_EINTR)
            rc = RT_OK;
    }
    free(match);
    if (rc)
        return fail(r, 500, "%s", err.msg);
    jw w;
    if (jw_open(&w))
        return fail(r, 500, "out of memory");
    fputs("{\"query\":", w.f);
    jw_str(&w, q);
    if (su.proc < 0)
        fputs(",\"found\":false}\n", w.f);
    else {
        fprintf(w.f, ",\"found\":true,\"proc\":%d,\"region\":%d,\"name\":", su.proc, su.region);
        jw_str(&w, rt_index_region_name(ix, su.region));
        fprintf(w.f, ",\"t0\":%lld,\"t1\":%lld}\n", (long long)su.t, (long long)su.tend);
    }
    jw_close(&w, r);
}

/* ---- critical path (computed by the owner, see rt_server.h) ---- */

static void answer_critpath(rt_server *s, rt_index *ix, const kv *a, reply *r)
{
    int64_t t0, t1;
    int p0, p1;
    if (window_args(ix, a, &t0, &t1, &p0, &p1, r))
        return;
    pthread_mutex_lock(&s->cp_lock);
    if (!s->cp_wake) {
        pthread_mutex_unlock(&s->cp_lock);
        return fail(r, 501, "the critical path is computed only under retrace view");
    }
    for (int i = 0; i < RT_SERVER_CP_KEEP; i++) {
        cp_answer *k = &s->cp_kept[i];
        if (k->body && k->t0 == t0 && k->t1 == t1) {
            r->body = malloc(k->len + 1);
            if (r->body) {
                memcpy(r->body, k->body, k->len + 1);
                r->len = k->len;
                r->status = k->status;
                r->type = "application/json";
            }
            pthread_mutex_unlock(&s->cp_lock);
            if (!r->body)
                fail(r, 500, "out of memory");
            return;
        }
    }
    int wake = 0;
    if (!(s->cp_busy && s->cp_taken[0] == t0 && s->cp_taken[1] == t1) &&
        !(s->cp_wanted && s->cp_want[0] == t0 && s->cp_want[1] == t1)) {
        s->cp_wanted = 1;
        s->cp_want[0] = t0;
        s->cp_want[1] = t1;
        wake = 1;
    }
    rt_server_wake_fn fn = s->cp_wake;
    void *ud = s->cp_ud;
    pthread_mutex_unlock(&s->cp_lock);
    if (wake)
        fn(ud);
    jw w;
    if (jw_open(&w))
        return fail(r, 500, "out of memory");
    fprintf(w.f, "{\"pending\":true,\"t0\":%lld,\"t1\":%lld}\n", (long long)t0, (long long)t1);
    jw_close(&w, r);
    r->status = 202;
}

int rt_server_add_trace(rt_server *s, rt_index *ix, const char *title)
{
    char *t = strdup(title ? title : "");
    if (!t)
        return -1;
    free(s->title2);
    s->title2 = t;
    s->ix2 = ix;
    return 0;
}

int rt_server_set_meta(rt_server *s, const char *members)
{
    char *copy = members ? strdup(members) : NULL;
    if (members && !copy)
        return -1;
    pthread_mutex_lock(&s->cp_lock);
    free(s->meta_extra);
    s->meta_extra = copy;
    pthread_mutex_unlock(&s->cp_lock);
    return 0;
}

void rt_server_on_critpath(rt_server *s, rt_server_wake_fn wake, void *ud)
{
    pthread_mutex_lock(&s->cp_lock);
    s->cp_wake = wake;
    s->cp_ud = ud;
    pthread_mutex_unlock(&s->cp_lock);
}

int rt_server_critpath_take(rt_server *s, int64_t *t0, int64_t *t1)
{
    pthread_mutex_lock(&s->cp_lock);
    int got = s->cp_wanted;
    if (got) {
        *t0 = s->cp_taken[0] = s->cp_want[0];
        *t1 = s->cp_taken[1] = s->cp_want[1];
        s->cp_wanted = 0;
        s->cp_busy = 1;
    }
    pthread_mutex_unlock(&s->cp_lock);
    return got;
}

int rt_server_critpath_put(rt_server *s, int64_t t0, int64_t t1, int status, const char *body, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, body, len);
    copy[len] = '\0';
    pthread_mutex_lock(&s->cp_lock);
    cp_answer *k = &s->cp_kept[s->cp_next];
    s->cp_next = (s->cp_next + 1) % RT_SERVER_CP_KEEP;
    free(k->body);
    *k = (cp_answer){t0, t1, status, copy, len};
    if (s->cp_busy && s->cp_taken[0] == t0 && s->cp_taken[1] == t1)
        s->cp_busy = 0;
    pthread_mutex_unlock(&s->cp_lock);
    return 0;
}

static void answer(rt_server *s, const char *url, const kv *a, reply *r)
{
    r->body = NULL;
    r->len = 0;
    if (!*url)
        url = s->ix2 ? "compare.html" : "index.html";
    for (size_t i = 0; i < NASSETS; i++)
        if (strcmp(url, ASSETS[i].name) == 0) {
            r->status = 200;
            r->type = ASSETS[i].type;
            r->body = malloc(s->asset_len[i] + 1);
            if (!r->body)
                return fail(r, 500, "out of memory");
            memcpy(r->body, s->asset[i], s->asset_len[i] + 1);
            r->len = s->asset_len[i];
            return;
        }
    if (strncmp(url, "api/", 4) != 0)
        return fail(r, 404, "no such page: %.100s", url);
    /* trace=1: the second trace of a comparison */
    int64_t trace;
    if (arg_int(a, "trace", 0, s->ix2 ? 1 : 0, 1, 0, &trace, r))
        return;
    rt_index *ix = trace ? s->ix2 : s->ix;
    if (strcmp(url, "api/meta") == 0)
        return answer_meta(s, ix, (int)trace, r);
    if (strcmp(url, "api/view") == 0)
        return answer_view(ix, a, r);
    if (strcmp(url, "api/stats") == 0)
        return answer_stats(ix, a, r);
    if (strcmp(url, "api/profile") == 0)
        return answer_profile(ix, a, r);
    if (strcmp(url, "api/search") == 0)
        return answer_search(ix, a, r);
    if (strcmp(url, "api/counters") == 0)
        return rt_server_answer_counters(ix, a, r);
    if (strcmp(url, "api/critpath") == 0) {
        if (trace)
            return fail(r, 400, "the critical path is that of the first trace only");
        return answer_critpath(s, ix, a, r);
    }
    fail(r, 404, "no such page: %.100s", url);
}

int rt_server_answer(rt_server *s, const char *url, const char *args, char **body, size_t *len, const char **type)
{
    kv a = {0, {0}, {0}};
    reply r = {0, NULL, 0, NULL};
    if (parse_query(&a, args))
        fail(&r, 400, "too many arguments (at most %d)", MAXARGS);
    else
        answer(s, url, &a, &r);
    kv_free(&a);
    *body = r.body;
    *len = r.len;
    *type = r.type;
    return r.status;
}

/* ---- HTTP ---- */

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    kv *a = cls;
    /* past MAXARGS the iteration stops; the caller sees the count run over */
    return kv_add(a, key, strlen(key), value ? value : "", value ? strlen(value) : 0) ? MHD_NO : MHD_YES;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)con_cls;
    rt_server *s = cls;
    reply r = {0, NULL, 0, NULL};
    kv a = {0, {0}, {0}};
    s->requests++;
    size_t tl = strlen(s->token);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        fail(&r, 405, "only GET is served");
    else if (url[0] != '/' || strncmp(url + 1, s->token, tl) != 0 || (url[1 + tl] != '/' && url[1 + tl] != '\0'))
        fail(&r, 403, "forbidden: the URL lacks this server's token");
    else if (url[1 + tl] == '\0') {
        /* the bare token: send the browser to the page so relative links resolve */
        struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        char loc[80];
        snprintf(loc, sizeof loc, "/%s/", s->token);
        MHD_add_response_header(resp, "Location", loc);
        enum MHD_Result ret = MHD_queue_response(conn, 302, resp);
        MHD_destroy_response(resp);
        return ret;
    } else {
        int n = MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect, &a);
        if (n > MAXARGS)
            fail(&r, 400, "too many arguments (at most %d)", MAXARGS);
        else
            answer(s, url + 2 + tl, &a, &r);
    }
    kv_free(&a);
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(r.len, r.body ? r.body : (void *)"", r.body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(r.body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", r.type ? r.type : "text/plain");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)r.status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static int load_assets(rt_server *s, const char *dir, rt_err *err)
{
    for (size_t i = 0; i < NASSETS; i++) {
        size_t n = strlen(dir) + strlen(ASSETS[i].name) + 2;
        char *path = malloc(n);
        if (!path)
            return rt_err_set(err, RT_ENOMEM, "out of memory");
        snprintf(path, n, "%s/%s", dir, ASSETS[i].name);
        FILE *f = fopen(path, "rb");
        if (!f) {
            rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
            free(path);
            return RT_EIO;
        }
        char *buf = NULL;
        size_t len = 0, cap = 0;
        char chunk[65536];
        size_t k;
        while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
            if (len + k + 1 > cap) {
                cap = 2 * (len + k + 1);
                char *nb = realloc(buf, cap);
                if (!nb) {
                    free(buf);
                    fclose(f);
                    free(path);
                    return rt_err_set(err, RT_ENOMEM, "out of memory");
                }
                buf = nb;
            }
            memcpy(buf + len, chunk, k);
            len += k;
        }
        int bad = ferror(f);
        fclose(f);
        if (bad || !buf) {
            free(buf);
            rt_err_set(err, RT_EIO, "%s: cannot read", path);
            free(path);
            return RT_EIO;
        }
        free(path);
        buf[len] = '\0';
        s->asset[i] = buf;
        s->asset_len[i] = len;
    }
    return RT_OK;
}

rt_server *rt_server_start(rt_index *ix, const char *title, const char *assets, const char *addr, int port,
                           const char *token, rt_err *err)
{
    rt_server *s = calloc(1, sizeof *s);
    if (!s) {
        rt_err_set(err, RT_ENOMEM, "out of memory");
        return NULL;
    }
    s->ix = ix;
    pthread_mutex_init(&s->cp_lock, NULL);
    s->title = strdup(title ? title : "");
    if (token) {
        if (strlen(token) < 16 || strlen(token) > 64 || strspn(token, "0123456789abcdefABCDEF") != strlen(token)) {
            rt_err_set(err, RT_EINVAL, "token: 16 to 64 hexadecimal digits");
            rt_server_stop(s);
            return NULL;
        }
        snprintf(s->token, sizeof s->token, "%s", token);
    } else {
        unsigned char rnd[16];
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
            rt_err_set(err, RT_EIO, "no random numbers for the token: %s", strerror(errno));
            rt_server_stop(s);
            return NULL;
        }
        for (int i = 0; i < 16; i++)
            snprintf(s->token + 2 * i, 3, "%02x", rnd[i]);
    }
    if (!s->title || load_assets(s, assets, err)) {
        if (!s->title)
            rt_err_set(err, RT_ENOMEM, "out of memory");
        rt_server_stop(s);
        return NULL;
    }
    if (port < 0 || port > 65535) {
        rt_err_set(err, RT_EINVAL, "--port %d: outside 0 .. 65535", port);
        rt_server_stop(s);
        return NULL;
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr ? addr : "127.0.0.1", &sa.sin_addr) != 1) {
        rt_err_set(err, RT_EINVAL, "--bind %s: not an IPv4 address", addr);
        rt_server_stop(s);
        return NULL;
    }
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)port, NULL, NULL, handle, s,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_TIMEOUT,
                            (unsigned)30, MHD_OPTION_END);
    if (!s->d) {
        rt_err_set(err, RT_EIO, "%s:%d: cannot listen (address in use or not this machine's)",
                   addr ? addr : "127.0.0.1", port);
        rt_server_stop(s);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : port;
    return s;
}

int rt_server_port(const rt_server *s) { return s->port; }
const char *rt_server_token(const rt_server *s) { return s->token; }
unsigned long rt_server_requests(const rt_server *s) { return s->requests; }

void rt_server_stop(rt_server *s)
{
    if (!s)
        return;
    if (s->d)
        MHD_stop_daemon(s->d);
    for (size_t i = 0; i < NASSETS; i++)
        free(s->asset[i]);
    for (int i = 0; i < RT_SERVER_CP_KEEP; i++)
        free(s->cp_kept[i].body);
    pthread_mutex_destroy(&s->cp_lock);
    free(s->meta_extra);
    free(s->title2);
    free(s->title);
    free(s);
}
