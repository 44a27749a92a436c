/* rt_memsim.c - a memory trace through a cache (see rt_memsim.h). */
#include "rt_memsim.h"

#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "rt_linemap.h"
#include "rt_sweep.h"

#define RT_MEMSIM_BATCH 1024

/* ---- the sweep beside the simulation ----
 * The sweep needs only the line addresses, in order, and costs more per
 * reference than the cache itself; so it runs on a second thread, fed blocks
 * of addresses through a small ring (the two share nothing else). When no
 * thread can be started it runs in place. Either way it sees the same
 * references in the same order. */
#define FEED_BLOCK 4096
#define FEED_BLOCKS 8

typedef struct feed {
    rt_sweep *sw;
    unsigned shift;          /* line = address >> shift */
    int threaded;            /* the thread runs (else rt_sweep_ref_many in place) */
    thrd_t th;
    mtx_t mu;
    cnd_t cv;                /* a block was published or freed, or the end came */
    uint64_t *blk;           /* FEED_BLOCKS blocks of FEED_BLOCK addresses */
    size_t len[FEED_BLOCKS];
    unsigned head, count;    /* published, not yet swept: blocks head .. head+count-1 (mod) */
    int done;                /* nothing more will be published */
    int status;              /* RT_OK or the sweep's failure */
    unsigned cur;            /* the block the producer fills (head + count, mod) */
    size_t fill;             /* addresses in it */
    uint64_t last;           /* the line sent last (UINT64_MAX before the first) */
    uint64_t repeats;        /* references to that same line again, not sent */
} feed;

static int feed_thread(void *arg)
{
    feed *f = arg;
    mtx_lock(&f->mu);
    for (;;) {
        while (f->count == 0 && !f->done)
            cnd_wait(&f->cv, &f->mu);
        if (f->count == 0)
            break;
        unsigned b = f->head;
        mtx_unlock(&f->mu);
        int st = f->status == RT_OK
                     ? rt_sweep_ref_many(f->sw, f->blk + (size_t)b * FEED_BLOCK, f->len[b], f->shift)
                     : RT_OK;
        mtx_lock(&f->mu);
        if (st != RT_OK)
            f->status = st;
        f->head = (f->head + 1) % FEED_BLOCKS;
        f->count--;
        cnd_signal(&f->cv);
    }
    mtx_unlock(&f->mu);
    return 0;
}

static void feed_start(feed *f, rt_sweep *sw, unsigned shift)
{
    memset(f, 0, sizeof *f);
    f->sw = sw;
    f->shift = shift;
    f->status = RT_OK;
    f->last = UINT64_MAX;
    f->blk = malloc((size_t)FEED_BLOCKS * FEED_BLOCK * sizeof *f->blk);
    if (!f->blk)
        return;
    if (mtx_init(&f->mu, mtx_plain) != thrd_success) {
        free(f->blk);
        f->blk = NULL;
        return;
    }
    if (cnd_init(&f->cv) != thrd_success) {
        mtx_destroy(&f->mu);
        free(f->blk);
        f->blk = NULL;
        return;
    }
    if (thrd_create(&f->th, feed_thread, f) != thrd_success) {
        cnd_destroy(&f->cv);
        mtx_destroy(&f->mu);
        free(f->blk);
        f->blk = NULL;
        return;
    }
    f->threaded = 1;
}

/* hand the block being filled to the thread; wait for a free one */
static void feed_publish(feed *f)
{
    mtx_lock(&f->mu);
    f->len[f->cur] = f->fill;
    f->count++;
    cnd_signal(&f->cv);
    while (f->count == FEED_BLOCKS)
        cnd_wait(&f->cv, &f->mu);
    f->cur = (f->head + f->count) % FEED_BLOCKS;
    mtx_unlock(&f->mu);
    f->fill = 0;
}

/* n more addresses for the sweep. RT_OK, or (in place) the sweep's failure */
static int feed_add(feed *f, const uint64_t *addr, size_t n)
{
    if (!f->threaded)
        return rt_sweep_ref_many(f->sw, addr, n, f->shift);
    /* a repeat of the line before (distance 1) is only counted: the thread
     * has the rest */
    uint64_t last = f->last, repeats = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t line = addr[i] >> f->shift;
        if (line == last) {
            repeats++;
            continue;
        }
        last = line;
        f->blk[(size_t)f->cur * FEED_BLOCK + f->fill] = addr[i];
        if (++f->fill == FEED_BLOCK)
            feed_publish(f);
    }
    f->last = last;
    f->repeats += repeats;
    return RT_OK;
}

/* the rest to the thread, then wait for it to finish; the sweep's status */
static int feed_finish(feed *f)
{
    if (!f->threaded)
        return f->status;
    if (f->fill)
        feed_publish(f);
    mtx_lock(&f->mu);
    f->done = 1;
    cnd_signal(&f->cv);
    mtx_unlock(&f->mu);
    thrd_join(f->th, NULL);
    rt_sweep_repeat(f->sw, f->repeats);
    cnd_destroy(&f->cv);
    mtx_destroy(&f->mu);
    free(f->blk);
    f->threaded = 0;
    return f->status;
}

typedef struct run {
    rt_cache *c;
    const rt_memsim_opts *o;
    rt_memsim_result *res;
    rt_linemap seen;     /* lines ever referenced (classification) */
    rt_sweep *sweep;
    feed feed;           /* how references reach the sweep */
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
    if (r->sweep && feed_add(&r->feed, &addr, 1) != RT_OK)
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
            sst = feed_add(&r->feed, addrs, n);
        } else { /* stores were not looked up: the sweep skips them too */
            uint64_t loads[RT_MEMSIM_BATCH];
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (!writes[i])
                    loads[k++] = addrs[i];
            sst = feed_add(&r->feed, loads, k);
        }
        if (sst != RT_OK)
            return rt_err_set(r->err, RT_ENOMEM, "sweep: out of memory");
    }
    return RT_OK;
}

/* Count n more records; report progress each 2^20 records (and at the end, when
 * last), and RT_ESTATE when the callback asks to stop. */
static int counted(const rt_memsim_opts *o, rt_memtrace *t, rt_memsim_result *res, size_t n, uint64_t total,
                   int last, rt_err *err)
{
    uint64_t before = res->records;
    res->records += n;
    if (o->progress && (last || (before >> 20) != (res->records >> 20))
        && o->progress(o->progress_ud, rt_memtrace_offset(t), total))
        return rt_err_set(err, RT_ESTATE, "stopped by the progress callback");
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
    if (r.sweep)
        feed_start(&r.feed, r.sweep, r.shift);
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
                if ((st = counted(o, t, res, na, total, 0, err)) != RT_OK)
                    goto done;
                if ((st = run_gathered(&r, addrs, writes, na)) != RT_OK)
                    goto done;
                na = 0;
                continue;
            }
        }
        st = rt_memtrace_read(t, batch, general, &nb, err);
        if (st != RT_OK)
            break;
        if ((st = counted(o, t, res, nb, total, 0, err)) != RT_OK)
            goto done;
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
    if (st == RT_OK)
        st = counted(o, t, res, 0, total, 1, err);
    if (st == RT_OK && o->shadow)
        res->classified = 1;
    if (r.sweep && feed_finish(&r.feed) != RT_OK && st == RT_OK)
        st = rt_err_set(err, RT_ENOMEM, "sweep: out of memory");
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
    if (r.sweep)
        feed_finish(&r.feed); /* (a no-op when it has finished already) */
    if (o->shadow)
        rt_linemap_destroy(&r.seen);
    rt_sweep_free(r.sweep);
    return st;
}
