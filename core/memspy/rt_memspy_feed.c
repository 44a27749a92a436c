/*
 * rt_memspy_feed.c - the loops that read a trace file into an rt_memspy.
 * Engine messages ("processor: 4 is not in 0..3") get the record's place in
 * front ("t.msp:12: processor: ..."), so every error names file, line, field.
 */
#include "rt_memspy_feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        switch (rec.kind) {
        case 'E':
            st = rt_memspy_enter(m, rec.proc, rec.name, rec.site, err);
            break;
        case 'X':
            st = rt_memspy_exit(m, rec.proc, rec.name, err);
            break;
        case 'A':
            st = rt_memspy_alloc(m, rec.proc, rec.addr, rec.size, rec.name, rec.site, err);
            break;
        case 'F':
            st = rt_memspy_release(m, rec.addr, err);
            if (st == RT_OK && rec.proc >= rt_memspy_procs(m))
                st = rt_err_set(err, RT_EINVAL, "processor: %d is not in 0..%d", rec.proc,
                                rt_memspy_procs(m) - 1);
            break;
        case 'N':
            st = rt_memspy_named(m, rec.addr, rec.size, rec.name, err);
            break;
        case 'C':
            st = rt_memspy_function(m, rec.addr, rec.size, rec.name, err);
            break;
        case 'B':
            st = rt_memspy_busy(m, rec.proc, rec.size, err);
            break;
        default: /* R, W */
            st = rt_memspy_ref(m, rec.proc, rec.addr, rec.size, rec.kind == 'W', rec.has_pc, rec.pc,
                               err);
            break;
        }
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
