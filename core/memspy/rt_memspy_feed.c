/*
 * rt_memspy_feed.c - the loops that read a trace file into an rt_memspy.
 * Engine messages ("processor: 4 is not in 0..3") get the record's place in
 * front ("t.msp:12: processor: ..."), so every error names file, line, field.
 */
#include "rt_memspy_feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_memtrace.h"
#include "rt_msp.h"
#include "rt_shmap.h"
#include "rt_shmap_sim.h"

static int placed(rt_err *err, int st, const char *file, unsigned long line)
{
    if (!err)
        return st;
    char msg[RT_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return rt_err_at(err, st, file, line, "%s", msg);
}

/* one non-reference record of a .msp file (also of an allocation log) */
static int apply(rt_memspy *m, const rt_msp_rec *rec, rt_err *err)
{
    switch (rec->kind) {
    case 'E':
        return rt_memspy_enter(m, rec->proc, rec->name, rec->site, err);
    case 'X':
        return rt_memspy_exit(m, rec->proc, rec->name, err);
    case 'A':
        return rt_memspy_alloc(m, rec->proc, rec->addr, rec->size, rec->name, rec->site, err);
    case 'F': {
        int st = rt_memspy_release(m, rec->addr, err);
        if (st == RT_OK && rec->proc >= rt_memspy_procs(m))
            st = rt_err_set(err, RT_EINVAL, "processor: %d is not in 0..%d", rec->proc,
                            rt_memspy_procs(m) - 1);
        return st;
    }
    case 'N':
        return rt_memspy_named(m, rec->addr, rec->size, rec->name, err);
    case 'C':
        return rt_memspy_function(m, rec->addr, rec->size, rec->name, err);
    case 'B':
        return rt_memspy_busy(m, rec->proc, rec->size, err);
    case 'S':
        return rt_err_set(err, RT_EFORMAT, "record: S (switch processor) belongs in an allocation log");
    default: /* R, W */
        return rt_memspy_ref(m, rec->proc, rec->addr, rec->size, rec->kind == 'W', rec->has_pc,
                             rec->pc, err);
    }
}

int rt_memspy_feed_msp(rt_memspy *m, const char *path, rt_memspy_progress_fn progress, void *ud,
                       rt_err *err)
{
    rt_msp *r = rt_msp_open(path, err);
    if (!r)
        return err && err->status ? err->status : RT_EIO;
    rt_msp_rec rec;
    int st;
    uint64_t n = 0;
    while ((st = rt_msp_next(r, &rec, err)) == RT_OK) {
        unsigned long line = rt_msp_lineno(r);
        rt_memspy_set_place(m, path, line);
        st = apply(m, &rec, err);
        if (st != RT_OK) {
            st = placed(err, st, path, line);
            break;
        }
        if (progress && (++n & 0xFFFFF) == 0)
            progress(ud, rt_msp_offset(r), rt_msp_size(r));
    }
    rt_memspy_set_place(m, NULL, 0);
    if (st == RT_EEOF) {
        st = RT_OK;
        if (progress)
            progress(ud, rt_msp_offset(r), rt_msp_size(r));
    }
    rt_msp_free(r);
    return st;
}

/* ---- memory traces with an allocation log ---- */

typedef struct logreader {
    rt_msp *r;
    const char *path;
    rt_msp_rec rec;
    int have;          /* rec holds the next record to apply */
    uint64_t seq;      /* its stamp (the previous one when it had none) */
    int proc;          /* the processor of the trace's references (S records) */
} logreader;

static int log_next(logreader *l, rt_err *err)
{
    int st = rt_msp_next(l->r, &l->rec, err);
    if (st == RT_EEOF) {
        l->have = 0;
        return RT_OK;
    }
    if (st != RT_OK)
        return st;
    if (l->rec.kind == 'R' || l->rec.kind == 'W')
        return rt_err_at(err, RT_EFORMAT, l->path, rt_msp_lineno(l->r),
                         "record: %c is a reference; an allocation log holds E X A F N C B S only",
                         l->rec.kind);
    if (l->rec.has_seq) {
        if (l->rec.seq < l->seq)
            return rt_err_at(err, RT_EFORMAT, l->path, rt_msp_lineno(l->r),
                             "stamp: @%llu comes after @%llu", (unsigned long long)l->rec.seq,
                             (unsigned long long)l->seq);
        l->seq = l->rec.seq;
    }
    l->have = 1;
    return RT_OK;
}

/* apply every log record stamped at or before reference k */
static int log_until(rt_memspy *m, logreader *l, uint64_t k, rt_err *err)
{
    while (l->have && l->seq <= k) {
        unsigned long line = rt_msp_lineno(l->r);
        rt_memspy_set_place(m, l->path, line);
        int st;
        if (l->rec.kind == 'S') {
            st = RT_OK;
            if (l->rec.proc >= rt_memspy_procs(m))
                st = rt_err_set(err, RT_EINVAL, "processor: %d is not in 0..%d (--procs)", l->rec.proc,
                                rt_memspy_procs(m) - 1);
            else
                l->proc = l->rec.proc;
        } else {
            st = apply(m, &l->rec, err);
        }
        if (st != RT_OK)
            return placed(err, st, l->path, line);
        if ((st = log_next(l, err)) != RT_OK)
            return st;
    }
    return RT_OK;
}

int rt_memspy_feed_memtrace(rt_memspy *m, const char *path, int fmt, const char *log,
                            rt_memspy_progress_fn progress, void *ud, rt_err *err)
{
    logreader l = {NULL, log, {0}, 0, 0, 0};
    rt_memtrace *t = NULL;
    int st = RT_OK;
    if (log) {
        l.r = rt_msp_open(log, err);
        if (!l.r)
            return err && err->status ? err->status : RT_EIO;
        if ((st = log_next(&l, err)) != RT_OK)
            goto done;
    }
    t = rt_memtrace_open(path, fmt, err);
    if (!t) {
        st = err && err->status ? err->status : RT_EIO;
        goto done;
    }
    rt_memref buf[1024];
    uint64_t k = 0, pc = 0;
    int seen_pc = 0; /* the PC of a data reference: the latest instruction fetch (lackey's I) */
    for (;;) {
        size_t n = 0;
        st = rt_memtrace_read(t, buf, 1024, &n, err);
        if (st == RT_EEOF) {
            st = RT_OK;
            break;
        }
        if (st != RT_OK)
            break;
        for (size_t i = 0; i < n && st == RT_OK; i++) {
            if (buf[i].kind == RT_REF_IFETCH) {
                if (l.have && (st = log_until(m, &l, k, err)) != RT_OK) /* an S before it */
                    break;
                st = rt_memspy_busy(m, l.proc, 1, err); /* one busy cycle per instruction */
                pc = buf[i].addr;
                seen_pc = 1;
                continue;
            }
            if (buf[i].kind != RT_REF_READ && buf[i].kind != RT_REF_WRITE)
                continue;
            if (l.have && (st = log_until(m, &l, k, err)) != RT_OK)
                break;
            rt_memspy_set_place(m, NULL, 0);
            st = rt_memspy_ref(m, l.proc, buf[i].addr, buf[i].size ? buf[i].size : 1,
                               buf[i].kind == RT_REF_WRITE, seen_pc && rt_memspy_has_functions(m), pc, err);
            if (st != RT_OK)
                st = placed(err, st, path, 0);
            k++;
        }
        if (st != RT_OK)
            break;
        if (progress)
            progress(ud, rt_memtrace_offset(t), rt_memtrace_size(t));
    }
    if (st == RT_OK && l.have)
        st = log_until(m, &l, UINT64_MAX, err);
done:
    rt_memspy_set_place(m, NULL, 0);
    rt_memtrace_free(t);
    rt_msp_free(l.r);
    return st;
}

/* ---- SHMAP ---- */

typedef struct shfeed {
    rt_memspy *m;
    rt_shmap_sim *sim;
    const char *path;
    char **code;         /* per PE: a copy of the subroutine name last given to the engine */
    int st;
    rt_err *err;
} shfeed;

static void on_access(void *ud, const rt_shmap_access *a)
{
    shfeed *f = ud;
    if (f->st != RT_OK)
        return;
    const char *sub = rt_shmap_sim_pe(f->sim, a->pe)->subroutine;
    /* the simulator rewrites one buffer per PE: keep our own copy to compare */
    if (*sub && (!f->code[a->pe] || strcmp(f->code[a->pe], sub) != 0)) {
        size_t n = strlen(sub) + 1;
        char *c = realloc(f->code[a->pe], n);
        if (!c) {
            f->st = rt_err_set(f->err, RT_ENOMEM, "out of memory");
            return;
        }
        memcpy(c, sub, n);
        f->code[a->pe] = c;
        f->st = rt_memspy_set_code(f->m, a->pe, sub, f->err);
        if (f->st != RT_OK)
            return;
    }
    f->st = rt_memspy_ref(f->m, a->pe, a->addr * 8, 8, a->store, 0, 0, f->err);
}

int rt_memspy_feed_shmap(rt_memspy *m, const char *path, rt_memspy_progress_fn progress, void *ud,
                         rt_err *err)
{
    rt_shmap *t = rt_shmap_open(path, err);
    if (!t)
        return err && err->status ? err->status : RT_EIO;
    int P = rt_memspy_procs(m);
    int nm = rt_shmap_matrix_count(t);
    char **code = calloc((size_t)P, sizeof *code);
    int st = RT_OK;
    if (!code) {
        st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    shfeed f = {m, NULL, path, code, RT_OK, err};
    f.sim = rt_shmap_sim_new(t, P, NULL, 0, 1, err);
    if (!f.sim) {
        st = err && err->status ? err->status : RT_ENOMEM;
        goto done;
    }
    for (int i = 0; i < nm; i++) {
        const rt_shmap_matrix *mx = rt_shmap_matrix_at(t, i);
        char name[64];
        snprintf(name, sizeof name, "matrix %d", mx->id);
        uint64_t words = (uint64_t)mx->rows * (uint64_t)mx->cols;
        st = rt_memspy_named(m, rt_shmap_sim_base(f.sim, i) * 8, words * 8, name, err);
        if (st != RT_OK)
            break;
    }
    rt_shmap_sim_subscribe(f.sim, on_access, &f);
    uint64_t steps = 0;
    while (st == RT_OK) {
        uint64_t done_steps = 0;
        st = rt_shmap_sim_step(f.sim, 4096, &done_steps, err);
        if (f.st != RT_OK)
            st = f.st;
        steps += done_steps;
        if (progress)
            progress(ud, steps, 0);
    }
    if (st == RT_EEOF)
        st = RT_OK;
    rt_shmap_sim_free(f.sim);
done:
    for (int p = 0; code && p < P; p++)
        free(code[p]);
    free(code);
    rt_shmap_free(t);
    return st;
}
