/* rt_interleave.c - a capture's threads taking turns (see rt_interleave.h). */
#include "rt_interleave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_memtrace.h"
#include "rt_out.h"

#define BATCH 4096

/* One thread's view of the capture: the whole trace and log, its own records kept. */
typedef struct cursor {
    int t;
    rt_rtmb *r;
    FILE *log;
    const char *log_name;
    unsigned long lineno;
    char *line;       /* the next stamped log line not yet applied, or NULL at the end */
    size_t line_cap;
    uint64_t line_seq;
    uint64_t g;       /* data references of every thread read so far */
    int owner;        /* the thread running at the read position */
    rt_memref buf[BATCH];
    size_t n, at;     /* buffered records */
    int done;
} cursor;

/* Read the next stamped log line into c->line (NULL at the end); unstamped lines are skipped. */
static int next_line(cursor *c, rt_err *err)
{
    for (;;) {
        ssize_t got = getline(&c->line, &c->line_cap, c->log);
        if (got < 0) {
            free(c->line);
            c->line = NULL;
            c->line_cap = 0;
            return RT_OK;
        }
        c->lineno++;
        if (c->line[0] != '@')
            continue;
        char *end;
        unsigned long long seq = strtoull(c->line + 1, &end, 10);
        if (end == c->line + 1 || *end != ' ')
            return rt_err_at(err, RT_EFORMAT, c->log_name, c->lineno, "stamp: expected @SEQ");
        c->line_seq = seq;
        return RT_OK;
    }
}

/* Apply the log lines stamped at or before the read position: thread switches, and
 * this thread's A and F records (written to out, stamped at the output's count o). */
static int apply_log(cursor *c, FILE *out, uint64_t o, rt_err *err)
{
    while (c->line && c->line_seq <= c->g) {
        char *p = strchr(c->line, ' ') + 1;
        if (p[0] == 'S' && p[1] == ' ') {
            c->owner = atoi(p + 2);
        } else if ((p[0] == 'A' || p[0] == 'F') && p[1] == ' ' && atoi(p + 2) == c->t) {
            fprintf(out, "@%llu %s", (unsigned long long)o, p);
        }
        int st = next_line(c, err);
        if (st != RT_OK)
            return st;
    }
    return RT_OK;
}

/* The cursor's next own record (RT_EEOF at its end). */
static int next_own(cursor *c, FILE *out, uint64_t o, rt_memref *ref, rt_err *err)
{
    for (;;) {
        int st = apply_log(c, out, o, err);
        if (st != RT_OK)
            return st;
        if (c->at == c->n) {
            st = rt_rtmb_read(c->r, c->buf, BATCH, &c->n, err);
            c->at = 0;
            if (st != RT_OK)
                return st; /* RT_EEOF at the end */
        }
        rt_memref *x = &c->buf[c->at++];
        int own = c->owner == c->t;
        if (x->kind == RT_REF_READ || x->kind == RT_REF_WRITE)
            c->g++;
        if (own) {
            *ref = *x;
            return RT_OK;
        }
    }
}

/* The first pass over the log: its head (unstamped lines, @0 C and N records) copied to
 * out, each thread's first stamp, and how many threads there are. */
static int scan_log(const char *path, FILE *out, uint64_t *first, int *nthreads, rt_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return rt_err_set(err, RT_EIO, "%s: cannot open", path);
    char *line = NULL;
    size_t cap = 0;
    unsigned long no = 0;
    int st = RT_OK;
    *nthreads = 1;
    first[0] = 0;
    for (int t = 1; t < RT_INTERLEAVE_MAX_THREADS; t++)
        first[t] = UINT64_MAX;
    while (getline(&line, &cap, f) >= 0) {
        no++;
        if (line[0] != '@') {
            fputs(line, out);
            continue;
        }
        char *p = strchr(line, ' ');
        if (!p) {
            st = rt_err_at(err, RT_EFORMAT, path, no, "record: expected @SEQ KIND ...");
            break;
        }
        p++;
        if ((p[0] == 'C' || p[0] == 'N') && p[1] == ' ') {
            fputs(line, out);
        } else if (p[0] == 'S' && p[1] == ' ') {
            int t = atoi(p + 2);
            if (t < 0 || t >= RT_INTERLEAVE_MAX_THREADS) {
                st = rt_err_at(err, RT_EFORMAT, path, no, "processor: %d is not in 0..%d", t,
                               RT_INTERLEAVE_MAX_THREADS - 1);
                break;
            }
            unsigned long long seq = strtoull(line + 1, NULL, 10);
            if (first[t] == UINT64_MAX)
                first[t] = seq;
            if (t + 1 > *nthreads)
                *nthreads = t + 1;
        }
    }
    free(line);
    fclose(f);
    return st;
}

int rt_interleave(const char *trace_in, const char *log_in, const char *trace_out, const char *log_out,
                  uint64_t quantum, rt_err *err)
{
    if (quantum == 0)
        return rt_err_set(err, RT_EINVAL, "interleave: the quantum must be at least 1 reference");
    rt_out *lo = rt_out_open(log_out, err);
    if (!lo)
        return err && err->status ? err->status : RT_EIO;
    FILE *out = rt_out_fp(lo);
    uint64_t first[RT_INTERLEAVE_MAX_THREADS];
    int P = 0;
    int st = scan_log(log_in, out, first, &P, err);
    if (st != RT_OK) {
        rt_out_abort(lo);
        return st;
    }
    rt_rtmb_writer *w = rt_rtmb_create(trace_out, err);
    cursor *cs = calloc((size_t)P, sizeof *cs);
    if (!w || !cs) {
        rt_out_abort(lo);
        rt_rtmb_abort(w);
        free(cs);
        return w ? rt_err_set(err, RT_ENOMEM, "interleave: out of memory") : (err && err->status ? err->status : RT_EIO);
    }
    for (int t = 0; t < P && st == RT_OK; t++) {
        cs[t].t = t;
        cs[t].log_name = log_in;
        cs[t].r = rt_rtmb_open(trace_in, err);
        cs[t].log = fopen(log_in, "r");
        if (!cs[t].r || !cs[t].log)
            st = err && err->status ? err->status : rt_err_set(err, RT_EIO, "%s: cannot open", log_in);
        else
            st = next_line(&cs[t], err);
        cs[t].done = first[t] == UINT64_MAX; /* a number never used */
    }
    uint64_t o = 0; /* data references written */
    int last = -1;
    while (st == RT_OK) {
        /* the turn goes round; a thread joins once o reaches its first stamp */
        int any = 0, waiting = -1;
        for (int t = 0; t < P && st == RT_OK; t++) {
            cursor *c = &cs[t];
            if (c->done)
                continue;
            if (first[t] > o) {
                if (waiting < 0 || first[t] < first[waiting])
                    waiting = t;
                continue;
            }
            any = 1;
            uint64_t taken = 0;
            while (taken < quantum) {
                rt_memref ref;
                int s = next_own(c, out, o, &ref, err);
                if (s == RT_EEOF) {
                    c->done = 1;
                    break;
                }
                if (s != RT_OK) {
                    st = s;
                    break;
                }
                if (last != t) {
                    fprintf(out, "@%llu S %d\n", (unsigned long long)o, t);
                    last = t;
                }
                if ((st = rt_rtmb_write(w, &ref, err)) != RT_OK)
                    break;
                if (ref.kind == RT_REF_READ || ref.kind == RT_REF_WRITE) {
                    o++;
                    taken++;
                }
            }
        }
        if (!any) {
            if (waiting < 0)
                break; /* every thread at its end */
            first[waiting] = o; /* nobody left to run before it: it starts now */
        }
    }
    for (int t = 0; t < P; t++) {
        if (cs[t].r)
            rt_rtmb_free(cs[t].r);
        if (cs[t].log)
            fclose(cs[t].log);
        free(cs[t].line);
    }
    free(cs);
    if (st != RT_OK) {
        rt_rtmb_abort(w);
        rt_out_abort(lo);
        return st;
    }
    st = rt_rtmb_close(w, err);
    if (st != RT_OK) {
        rt_out_abort(lo);
        return st;
    }
    return rt_out_commit(lo, err);
}
