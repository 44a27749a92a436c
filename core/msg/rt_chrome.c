/*
 * rt_chrome.c - the Trace Event Format written from a replay (rt_chrome.h).
 */
#include "rt_chrome.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tracks of a processor's process. */
enum { TID_STATES = 1, TID_REGIONS = 2, TID_UNNESTED = 3 };

typedef struct {
    int64_t a, b; /* entry, latest exit, in nanoseconds */
} cspan;

typedef struct {
    cspan *v;
    int n, cap;
} clane;

typedef struct {
    int seen;
    int cur;            /* state since `since` */
    double since;
    int held;           /* a finished segment not yet written (joined with the next when they touch) */
    int hst;
    double hfrom, hto;
    clane *lanes;
    int nlanes;
} cproc;

struct rt_chrome {
    FILE *fp;
    double t0;
    int first;          /* no event written yet */
    int failed;         /* memory ran out during the replay */
    cproc *p;
    int np;
    const rt_tdefs *defs;
    rt_chrome_counts n;
};

rt_chrome *rt_chrome_new(FILE *fp, double t0)
{
    rt_chrome *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->fp = fp;
    c->t0 = t0;
    c->first = 1;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", fp);
    return c;
}

void rt_chrome_free(rt_chrome *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->np; i++) {
        for (int k = 0; k < c->p[i].nlanes; k++)
            free(c->p[i].lanes[k].v);
        free(c->p[i].lanes);
    }
    free(c->p);
    free(c);
}

/* Before each event: the separator. */
static FILE *put(rt_chrome *c)
{
    fputs(c->first ? "\n" : ",\n", c->fp);
    c->first = 0;
    return c->fp;
}

/* A JSON string literal (control characters, quotes and backslashes escaped). */
static void jstr(FILE *fp, const char *s)
{
    putc('"', fp);
    for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
        if (*q == '"' || *q == '\\') {
            putc('\\', fp);
            putc(*q, fp);
        } else if (*q < 32 || *q == 127) {
            fprintf(fp, "\\u%04x", *q);
        } else {
            putc(*q, fp);
        }
    }
    putc('"', fp);
}

static int64_t ns(double t)
{
    return (int64_t)floor(t * 1e9 + 0.5);
}

/* Microseconds with three decimals from whole nanoseconds. */
static void us(FILE *fp, int64_t v)
{
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    fprintf(fp, "%s%llu.%03u", v < 0 ? "-" : "", (unsigned long long)(a / 1000), (unsigned)(a % 1000));
}

static void slice(rt_chrome *c, const char *name, const char *cat, int p, int tid, double from, double to)
{
    FILE *fp = put(c);
    int64_t a = ns(from), d = ns(to) - a;
    fputs("{\"name\":", fp);
    jstr(fp, name);
    fprintf(fp, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":", cat, p + 1, tid);
    us(fp, a);
    fputs(",\"dur\":", fp);
    us(fp, d > 0 ? d : 0);
    fputc('}', fp);
    c->n.complete++;
}

/* Processor p's record, made (idle since t0) the first time p is seen; NULL when memory ran out. */
static cproc *touch(rt_chrome *c, int p)
{
    if (p < 0)
        return NULL;
    if (p >= c->np) {
        int np = c->np ? c->np : 16;
        while (np <= p)
            np *= 2;
        cproc *v = realloc(c->p, (size_t)np * sizeof *v);
        if (!v) {
            c->failed = 1;
            return NULL;
        }
        memset(v + c->np, 0, (size_t)(np - c->np) * sizeof *v);
        c->p = v;
        c->np = np;
    }
    cproc *q = &c->p[p];
    if (!q->seen) {
        q->seen = 1;
        q->cur = RT_STATE_IDLE;
        q->since = c->t0;
    }
    return q;
}

static void flush(rt_chrome *c, int p, cproc *q)
{
    if (!q->held)
        return;
    slice(c, rt_state_name(q->hst), "state", p, TID_STATES, q->hfrom, q->hto);
    c->n.states++;
    q->held = 0;
}

/* A segment of state st over [from, to]: joined to the one held when they touch. */
static void segment(rt_chrome *c, int p, cproc *q, int st, double from, double to)
{
    if (!(to > from))
        return;
    if (q->held && q->hst == st && q->hto == from) {
        q->hto = to;
        return;
    }
    flush(c, p, q);
    q->held = 1;
    q->hst = st;
    q->hfrom = from;
    q->hto = to;
}

static void on_state(void *ud, int proc, double t, int old, int new)
{
    (void)old;
    rt_chrome *c = ud;
    cproc *q = touch(c, proc);
    if (!q)
        return;
    segment(c, proc, q, q->cur, q->since, t);
    q->cur = new;
    q->since = t;
}

/* The first lane of q where [a, b] nests (a lane keeps its outermost slices), 1-based. */
static int lane_for(rt_chrome *c, cproc *q, int64_t a, int64_t b)
{
    for (int k = 0;; k++) {
        if (k == q->nlanes) {
            clane *v = realloc(q->lanes, (size_t)(k + 1) * sizeof *v);
            if (!v) {
                c->failed = 1;
                return 0;
            }
            memset(&v[k], 0, sizeof v[k]);
            q->lanes = v;
            q->nlanes = k + 1;
        }
        clane *l = &q->lanes[k];
        int top = l->n;
        while (top > 0 && l->v[top - 1].a >= a)
            top--;
        if (top == 0 || l->v[top - 1].b <= a) {
            if (top == l->cap) {
                int cap = l->cap ? 2 * l->cap : 8;
                cspan *v = realloc(l->v, (size_t)cap * sizeof *v);
                if (!v) {
                    c->failed = 1;
                    return 0;
                }
                l->v = v;
                l->cap = cap;
            }
            l->v[top] = (cspan){a, b};
            l->n = top + 1;
            return k + 1;
        }
    }
}

static void on_interval(void *ud, const rt_interval *iv)
{
    rt_chrome *c = ud;
    const rt_tregion *r = c->defs ? rt_tdefs_region(c->defs, iv->event) : NULL;
    if (!r || r->cls != RT_TC_USER)
        return;
    cproc *q = touch(c, iv->proc);
    if (!q)
        return;
    const char *name = r->name ? r->name : "";
    if (iv->unnested) {
        int k = lane_for(c, q, ns(iv->entry), ns(iv->exit));
        if (k == 0)
            return;
        slice(c, name, "user", iv->proc, TID_UNNESTED - 1 + k, iv->entry, iv->exit);
        c->n.unnested++;
    } else {
        slice(c, name, "user", iv->proc, TID_REGIONS, iv->entry, iv->exit);
    }
    c->n.user++;
}

static void on_message(void *ud, const rt_message *m)
{
    rt_chrome *c = ud;
    touch(c, m->src);
    touch(c, m->dst);
    c->n.flow += 2;
    long long id = (long long)(c->n.flow / 2);
    FILE *fp = put(c);
    fprintf(fp, "{\"name\":\"message\",\"cat\":\"message\",\"id\":%lld,\"ph\":\"s\",\"pid\":%d,\"tid\":%d,\"ts\":", id,
            m->src + 1, TID_STATES);
    us(fp, ns(m->send_time));
    fprintf(fp, ",\"args\":{\"bytes\":%.17g,\"tag\":%lld}}", m->bytes, (long long)m->tag);
    fp = put(c);
    fprintf(fp, "{\"name\":\"message\",\"cat\":\"message\",\"id\":%lld,\"ph\":\"f\",\"bp\":\"e\",\"pid\":%d,\"tid\":%d,\"ts\":",
            id, m->dst + 1, TID_STATES);
    us(fp, ns(m->recv_time));
    fputc('}', fp);
}

rt_replay_tap rt_chrome_tap(rt_chrome *c, rt_replay *rp)
{
    c->defs = rt_replay_defs(rp);
    return (rt_replay_tap){.ud = c, .on_state = on_state, .on_message = on_message, .on_interval = on_interval};
}

void rt_chrome_close(rt_chrome *c, double t1)
{
    for (int p = 0; p < c->np; p++) {
        cproc *q = &c->p[p];
        if (!q->seen)
            continue;
        segment(c, p, q, q->cur, q->since, t1 > q->since ? t1 : q->since);
        flush(c, p, q);
    }
}

void rt_chrome_marker(rt_chrome *c, int proc, double time, const char *name, const char *args_json)
{
    FILE *fp = put(c);
    fputs("{\"name\":", fp);
    jstr(fp, name ? name : "");
    fprintf(fp, ",\"cat\":\"marker\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":", proc + 1, TID_STATES);
    us(fp, ns(time));
    fprintf(fp, ",\"args\":%s}", args_json ? args_json : "{}");
    c->n.markers++;
}

int rt_chrome_finish(rt_chrome *c, const rt_tdefs *defs, rt_err *err)
{
    if (c->failed)
        return rt_err_set(err, RT_ENOMEM, "trace event export: out of memory");
    int np = defs ? rt_tdefs_nprocs(defs) : 0;
    for (int p = 0; p < c->np; p++) {
        const cproc *q = &c->p[p];
        if (!q->seen)
            continue;
        const rt_tproc *d = p < np ? rt_tdefs_proc(defs, p) : NULL;
        FILE *fp = put(c);
        fprintf(fp, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":", p + 1);
        if (d && d->name && d->name[0]) {
            jstr(fp, d->name);
        } else {
            char buf[32];
            snprintf(buf, sizeof buf, "processor %d", p);
            jstr(fp, buf);
        }
        fputs("}}", fp);
        fprintf(put(c), "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", p + 1,
                p);
        for (int tid = 1; tid <= 2 + q->nlanes; tid++) {
            fp = put(c);
            fprintf(fp, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"", p + 1, tid);
            if (tid == TID_STATES)
                fputs("states", fp);
            else if (tid == TID_REGIONS)
                fputs("regions", fp);
            else
                fprintf(fp, "regions, not nested %d", (int)(tid - TID_UNNESTED + 1));
            fputs("\"}}", fp);
            c->n.threads++;
        }
    }
    fputs("\n]}\n", c->fp);
    return RT_OK;
}

void rt_chrome_get_counts(const rt_chrome *c, rt_chrome_counts *out)
{
    *out = c->n;
}
