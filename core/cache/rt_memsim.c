/* rt_memsim.c - a memory trace through a cache (see rt_memsim.h). */
#include "rt_memsim.h"

#include <string.h>

#include "rt_linemap.h"
#include "rt_sweep.h"

#define RT_MEMSIM_BATCH 1024

typedef struct run {
    rt_cache *c;
    const rt_memsim_opts *o;
    rt_memsim_result *res;
    rt_linemap seen;     /* lines ever referenced (classification) */
    rt_sweep *sweep;
    int through;         /* write-through: stores do not look up */
    unsigned shift;      /* log2(line) */
    rt_err *err;
} run;

static int policy_fail(run *r, rt_cache *c, int st)
{
    return rt_err_set(r->err, st, "%s", rt_cache_error(c));
}

/* one line reference */
static int line_ref(run *r, uint64_t line, int is_write)
{
    uint64_t addr = line << r->shift;
    int st;
    if (!r->o->shadow && !r->sweep) {
        st = rt_cache_access(r->c, addr, is_write, NULL);
        return st == RT_OK ? RT_OK : policy_fail(r, r->c, st);
    }
    if (is_write && r->through) /* no lookup anywhere */
        return rt_cache_access(r->c, addr, is_write, NULL);
    rt_cache_result cr;
    if ((st = rt_cache_access(r->c, addr, is_write, &cr)) != RT_OK)
        return policy_fail(r, r->c, st);
    if (r->o->shadow) {
        rt_cache_result sr;
        if ((st = rt_cache_access(r->o->shadow, addr, is_write, &sr)) != RT_OK)
            return policy_fail(r, r->o->shadow, st);
        if (!cr.hit) {
            int added;
            if (!rt_linemap_slot(&r->seen, line, &added))
                return rt_err_set(r->err, RT_ENOMEM, "classify: out of memory");
            if (added)
                r->res->compulsory++;
            else if (!sr.hit)
                r->res->capacity++;
            else
                r->res->conflict++;
        }
    }
    if (r->sweep && rt_sweep_ref(r->sweep, line) != RT_OK)
        return rt_err_set(r->err, RT_ENOMEM, "sweep: out of memory");
    return RT_OK;
}

/* single-line references gathered in order: the cache in one batch, then the sweep */
static int run_gathered(run *r, const uint64_t *addrs, const uint8_t *writes, size_t n)
{
    int st = rt_cache_access_batch(r->c, addrs, writes, n, NULL);
    if (st != RT_OK)
        return policy_fail(r, r->c, st);
    if (r->sweep) {
        int sst = RT_OK;
        if (!r->through) {
            sst = rt_sweep_ref_many(r->sweep, addrs, n, r->shift);
        } else { /* stores were not looked up: the sweep skips them too */
            uint64_t loads[RT_MEMSIM_BATCH];
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (!writes[i])
                    loads[k++] = addrs[i];
            sst = rt_sweep_ref_many(r->sweep, loads, k, r->shift);
        }
        if (sst != RT_OK)
            return rt_err_set(r->err, RT_ENOMEM, "sweep: out of memory");
    }
    return RT_OK;
}

int rt_memsim_run(rt_cache *c, rt_memtrace *t, const rt_memsim_opts *o, rt_memsim_result *res,
                  rt_err *err)
{
    static const rt_memsim_opts none;
    if (!o)
        o = &none;
    memset(res, 0, sizeof *res);
    const rt_cache_config *cfg = rt_cache_config_get(c);
    run r = {.c = c, .o = o, .res = res, .err = err, .through = !cfg->write_back,
             .shift = (unsigned)__builtin_ctzll(cfg->line)}; /* line: a power of two */
    int st = RT_OK;
    if (o->shadow && rt_linemap_init(&r.seen, 1024) != RT_OK)
        return rt_err_set(err, RT_ENOMEM, "classify: out of memory");
    if (o->sweep && !(r.sweep = rt_sweep_new())) {
        st = rt_err_set(err, RT_ENOMEM, "sweep: out of memory");
        goto done;
    }
    rt_memref batch[RT_MEMSIM_BATCH];
    uint64_t addrs[RT_MEMSIM_BATCH];  /* single-line references gathered for rt_cache_access_batch */
    uint8_t writes[RT_MEMSIM_BATCH];
    size_t nb = 0, na = 0;
    uint64_t total = rt_memtrace_size(t);
    const int simple = !o->shadow; /* no per-reference results needed */
    const uint64_t linesize = cfg->line, linemask = cfg->line - 1;
    /* with a fast reader (RTMB), runs of single-line loads and stores come
     * straight as addresses; the other records in small general batches */
    int lines_path = simple && rt_memtrace_read_lines(t, r.shift, addrs, writes, 0, &nb) == RT_OK;
    const size_t general = lines_path ? 64 : sizeof batch / sizeof batch[0];
    for (;;) {
        if (lines_path) {
            rt_memtrace_read_lines(t, r.shift, addrs, writes, RT_MEMSIM_BATCH, &na);
            if (na) {
                uint64_t before = res->records;
                res->records += na;
                if (o->progress && (before >> 20) != (res->records >> 20))
                    o->progress(o->progress_ud, rt_memtrace_offset(t), total);
                if ((st = run_gathered(&r, addrs, writes, na)) != RT_OK)
                    goto done;
                na = 0;
                continue;
            }
        }
        st = rt_memtrace_read(t, batch, general, &nb, err);
        if (st != RT_OK)
            break;
        uint64_t before = res->records;
        res->records += nb;
        if (o->progress && (before >> 20) != (res->records >> 20))
            o->progress(o->progress_ud, rt_memtrace_offset(t), total);
        for (size_t i = 0; i < nb; i++) {
            const rt_memref *ref = &batch[i];
            int is_write;
            if ((unsigned)ref->kind <= RT_REF_WRITE) {
                is_write = ref->kind; /* data: no branch on load or store */
            } else switch (ref->kind) {
            case RT_REF_IFETCH:
                res->ifetches++;
                if (!o->unified) {
                    res->ignored++;
                    continue;
                }
                is_write = 0;
                break;
            case RT_REF_FLUSH:
            case RT_REF_INVALIDATE:
                res->flushes++;
                if (na && (st = run_gathered(&r, addrs, writes, na)) != RT_OK)
                    goto done;
                na = 0;
                /* the lines of the range (size 0: all) leave the cache; a
                 * flush writes the dirty ones back, an invalidate drops them */
                if ((st = rt_cache_flush_range(c, ref->addr, ref->size,
                                               ref->kind == RT_REF_INVALIDATE)) != RT_OK)
                    goto fail_policy;
                if (o->shadow && (st = rt_cache_flush_range(o->shadow, ref->addr, ref->size,
                                                            ref->kind == RT_REF_INVALIDATE)) != RT_OK)
                    goto fail_policy;
                continue;
            default:
                res->ignored++;
                continue;
            }
            if (simple && ref->size <= linesize && (ref->addr & linemask) + ref->size <= linesize) {
                /* the common case, within one line: gathered, then run in one call */
                addrs[na] = ref->addr;
                writes[na++] = (uint8_t)is_write;
                continue;
            }
            uint64_t first = ref->addr >> r.shift;
            uint64_t last = (ref->addr + ref->size - 1) >> r.shift;
            if (last < first)
                last = UINT64_MAX >> r.shift;
            /* keep the order: what was gathered goes first */
            if (na && (st = run_gathered(&r, addrs, writes, na)) != RT_OK)
                goto done;
            na = 0;
            for (uint64_t l = first;; l++) {
                if ((st = line_ref(&r, l, is_write)) != RT_OK)
                    goto done;
                if (l == last)
                    break;
            }
        }
        if (na && (st = run_gathered(&r, addrs, writes, na)) != RT_OK)
            goto done;
        na = 0;
    }
    if (st == RT_EEOF)
        st = RT_OK;
    if (o->progress)
        o->progress(o->progress_ud, rt_memtrace_offset(t), total);
    if (st == RT_OK && o->shadow)
        res->classified = 1;
    if (st == RT_OK && r.sweep) {
        res->swept = 1;
        res->sweep_refs = rt_sweep_refs(r.sweep);
        unsigned top = rt_sweep_top(r.sweep);
        for (unsigned k = 0; k <= top && k < RT_MEMSIM_SWEEP_MAX && k + r.shift < 64; k++) {
            res->sweep_size[k] = cfg->line << k;
            res->sweep_misses[k] = rt_sweep_misses(r.sweep, k);
            res->sweep_n = k + 1;
        }
    }
    goto done;
fail_policy:
    st = policy_fail(&r, c, st);
done:
    if (o->shadow)
        rt_linemap_destroy(&r.seen);
    rt_sweep_free(r.sweep);
    return st;
}
