/* rt_cache.c - one cache, as a one-level view of rt_hier (see rt_cache.h): the
 * replacement, write and allocation rules live in rt_hier.c alone; this file adds
 * write-through no-write-allocate (the stores never reach the hierarchy), units, and
 * the per-lookup counters and results of the rt_cache interface. */
#include "rt_cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rt_hier.h"
#include "rt_mem.h"

struct rt_cache {
    rt_cache_config cfg;      /* ways filled in */
    const rt_policy_ops *ops;
    rt_hier *h;               /* one unified level: the cache itself */
    unsigned line_shift;      /* log2(L) */
    uint64_t set_mask;        /* sets - 1 */
    uint32_t sets, ways;
    uint64_t count[2][2];     /* lookups by [is_write][hit] */
    rt_cache_stats st;        /* the other counters; the rest derived from count */
    rt_err err;               /* last policy failure */
};

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

static unsigned log2u(uint64_t x)
{
    unsigned n = 0;
    while (x > 1) {
        x >>= 1;
        n++;
    }
    return n;
}

int rt_cache_check_geometry(uint64_t size, uint64_t line, uint64_t ways, const char *unit,
                            rt_err *err)
{
    /* the unit follows each size in the message: "12 words", or just "12" */
    const char *sp = unit && *unit ? " " : "", *u = unit ? unit : "";
    if (!is_pow2(size))
        return rt_err_set(err, RT_EINVAL, "cache size: %llu%s%s is not a power of two",
                          (unsigned long long)size, sp, u);
    if (!is_pow2(line))
        return rt_err_set(err, RT_EINVAL, "line size: %llu%s%s is not a power of two",
                          (unsigned long long)line, sp, u);
    if (line > size)
        return rt_err_set(err, RT_EINVAL, "line size: %llu%s%s is larger than the cache size %llu%s%s",
                          (unsigned long long)line, sp, u, (unsigned long long)size, sp, u);
    uint64_t nlines = size / line;
    if (ways > nlines || (ways && nlines % ways != 0))
        return rt_err_set(err, RT_EINVAL, "ways: %llu does not divide the %llu lines of the cache",
                          (unsigned long long)ways, (unsigned long long)nlines);
    return RT_OK;
}

double rt_hit_ratio(uint64_t hits, uint64_t misses)
{
    uint64_t refs = hits + misses;
    return refs ? (double)hits / (double)refs : 0.0;
}

rt_cache_config rt_cache_defaults(uint64_t size, uint64_t line)
{
    rt_cache_config c;
    memset(&c, 0, sizeof c);
    c.size = size;
    c.line = line;
    c.policy = &rt_policy_lru;
    c.seed = 1;
    return c;
}

/* the hierarchy of one level holding the cache (rt_hier_config_single: write-back,
 * write-allocate), its policy instance lent (the view owns it) */
static int make_hier(rt_cache *c, rt_err *err)
{
    rt_hier_config hc;
    rt_hier_config_single(&hc, c->cfg.size, c->cfg.line, c->ways);
    hc.c[0][RT_HIER_UNIFIED].ops = c->ops;
    hc.c[0][RT_HIER_UNIFIED].ops_ud = c->cfg.policy_ud;
    hc.seed = c->cfg.seed;
    return rt_hier_new(&hc, &c->h, err);
}

/* the hierarchy's failure as the cache's; the hierarchy goes on (rt_hier_resume) */
static int failed(rt_cache *c, int st)
{
    rt_err_set(&c->err, st, "%s", rt_hier_error(c->h));
    rt_hier_resume(c->h);
    return st;
}

int rt_cache_new(const rt_cache_config *cfg, rt_cache **out, rt_err *err)
{
    assert(cfg && out);
    *out = NULL;
    const rt_policy_ops *ops = cfg->policy ? cfg->policy : &rt_policy_lru;
    rt_cache *c = NULL;
    int st = rt_cache_check_geometry(cfg->size, cfg->line, cfg->ways, NULL, err);
    if (st != RT_OK)
        goto fail;
    st = RT_EINVAL;
    uint64_t nlines = cfg->size / cfg->line;
    uint64_t ways = cfg->ways ? cfg->ways : nlines;
    if (nlines > UINT32_MAX) {
        rt_err_set(err, st, "cache size: %llu lines is too many", (unsigned long long)nlines);
        goto fail;
    }
    if (!ops->victim) {
        rt_err_set(err, st, "policy %s: no victim hook", ops->name ? ops->name : "?");
        goto fail;
    }
    st = RT_ENOMEM;
    c = calloc(1, sizeof *c);
    if (!c) {
        rt_err_set(err, st, "cache: out of memory");
        goto fail;
    }
    c->cfg = *cfg;
    c->cfg.ways = ways;
    c->cfg.policy = ops;
    c->ops = ops;
    c->line_shift = log2u(cfg->line);
    c->ways = (uint32_t)ways;
    c->sets = (uint32_t)(nlines / ways);
    c->set_mask = c->sets - 1;
    rt_err_clear(&c->err);
    if ((st = make_hier(c, err)) != RT_OK)
        goto fail;
    *out = c;
    return RT_OK;
fail:
    if (c) {
        rt_cache_free(c);
    } else if (ops->free) {
        ops->free(cfg->policy_ud);
    }
    return st;
}

void rt_cache_free(rt_cache *c)
{
    if (!c)
        return;
    rt_hier_free(c->h);
    if (c->ops && c->ops->free)
        c->ops->free(c->cfg.policy_ud);
    free(c);
}

static void fill_result(rt_cache_result *res, int hit, uint64_t line, uint32_t set, unsigned way,
                        int evicted, uint64_t old, int wb)
{
    res->hit = hit;
    res->bypassed = 0;
    res->line = line;
    res->set = set;
    res->way = way;
    res->evicted = evicted;
    res->evicted_line = old;
    res->writeback = wb;
}

static int access_one(rt_cache *c, uint64_t addr, int is_write, rt_cache_result *res)
{
    is_write = is_write != 0;
    if (is_write && !c->cfg.write_back) {
        c->st.bypassed_writes++;
        if (res) {
            memset(res, 0, sizeof *res);
            res->bypassed = 1;
            res->line = addr >> c->line_shift;
            res->set = (uint32_t)(res->line & c->set_mask);
        }
        return RT_OK;
    }
    uint64_t line = addr >> c->line_shift;
    if (line == UINT64_MAX) /* the mark of an empty way */
        return rt_err_set(&c->err, RT_ERANGE,
                          "address: 0xffffffffffffffff is out of range with %llu-unit lines",
                          (unsigned long long)c->cfg.line);
    rt_hier_result hr;
    int st = rt_hier_access(c->h, 0, line << c->line_shift, 1, is_write ? RT_REF_WRITE : RT_REF_READ, &hr);
    c->count[is_write][hr.hit != 0]++; /* a reference a policy hook failed is counted too */
    if (st != RT_OK)
        return failed(c, st);
    if (hr.evicted) {
        c->st.evictions++;
        c->st.writebacks += (uint64_t)hr.evicted_dirty;
    }
    if (res)
        fill_result(res, hr.hit, line, hr.set, hr.way, hr.evicted, hr.evicted_block, hr.evicted_dirty);
    return RT_OK;
}

int rt_cache_access(rt_cache *c, uint64_t addr, int is_write, rt_cache_result *res)
{
    return access_one(c, addr, is_write, res);
}

int rt_cache_access_batch(rt_cache *c, const uint64_t *addr, const uint8_t *is_write, size_t n,
                          size_t *done)
{
    size_t i = 0;
    int st = RT_OK;
    /* The hierarchy's own batch path, its counts read back: the built-in
     * policies, which never fail, and those (Lua's) without a hit hook, which
     * can fail only on a miss (victim, fill): then the references before it are
     * counted by the hierarchy and the failed one here, a miss, as access_one does. */
    int batch = !c->ops->hit;
    for (int k = 0; rt_policy_names[k]; k++)
        batch |= rt_policy_builtin(rt_policy_names[k]) == c->ops;
    if (batch && c->cfg.write_back && c->line_shift > 0) {
        const rt_hier_stats *hs = rt_hier_stats_get(c->h, 0, RT_HIER_UNIFIED);
        uint64_t f0[2] = {hs->fetch[RT_REF_READ], hs->fetch[RT_REF_WRITE]};
        uint64_t m0[2] = {hs->miss[RT_REF_READ], hs->miss[RT_REF_WRITE]};
        uint64_t e0 = rt_hier_evictions(c->h, 0, RT_HIER_UNIFIED), b0 = hs->bytes_written;
        st = rt_hier_lines(c->h, addr, is_write, n, &i);
        uint64_t fetched = 0;
        for (int w = 0; w < 2; w++) {
            uint64_t m = hs->miss[w] - m0[w];
            c->count[w][0] += m;
            c->count[w][1] += hs->fetch[w] - f0[w] - m;
            fetched += hs->fetch[w] - f0[w];
        }
        c->st.evictions += rt_hier_evictions(c->h, 0, RT_HIER_UNIFIED) - e0;
        c->st.writebacks += (hs->bytes_written - b0) >> c->line_shift;
        if (st != RT_OK) {
            if (i < n && fetched == i) /* the failed reference, not counted by the hierarchy */
                c->count[is_write[i] != 0][0]++;
            st = failed(c, st);
        }
    } else {
        for (; i < n; i++)
            if ((st = access_one(c, addr[i], is_write[i], NULL)) != RT_OK)
                break;
    }
    if (done)
        *done = i;
    return st;
}

int rt_cache_access_range(rt_cache *c, uint64_t addr, uint64_t size, int is_write,
                          unsigned *misses)
{
    uint64_t first = addr >> c->line_shift;
    uint64_t last = size ? (addr + size - 1) >> c->line_shift : first;
    if (last < first) /* wrapped past the top of the address space */
        last = UINT64_MAX >> c->line_shift;
    uint64_t before = c->count[0][0] + c->count[1][0];
    for (uint64_t l = first;; l++) {
        int st = rt_cache_access(c, l << c->line_shift, is_write, NULL);
        if (st != RT_OK)
            return st;
        if (l == last)
            break;
    }
    if (misses)
        *misses = (unsigned)(c->count[0][0] + c->count[1][0] - before);
    return RT_OK;
}

int rt_cache_probe(const rt_cache *c, uint64_t addr)
{
    return (addr >> c->line_shift) != UINT64_MAX && rt_hier_probe(c->h, 0, RT_HIER_UNIFIED, addr);
}

/* the dirty lines the hierarchy wrote below since `before` (bytes_written) */
static uint64_t written_lines(const rt_cache *c, uint64_t before)
{
    return (rt_hier_stats_get(c->h, 0, RT_HIER_UNIFIED)->bytes_written - before) >> c->line_shift;
}

/* [addr, addr + size) (size 0: the whole cache) through the hierarchy: written back
 * first (counted as writebacks) unless drop, then emptied */
static int range_op(rt_cache *c, uint64_t addr, uint64_t size, int drop)
{
    uint64_t before = rt_hier_stats_get(c->h, 0, RT_HIER_UNIFIED)->bytes_written;
    rt_memref copy = {addr, size, RT_REF_FLUSH}, empty = {addr, size, RT_REF_INVALIDATE};
    int st = drop ? RT_OK : rt_hier_ref(c->h, &copy);
    if (st == RT_OK)
        st = rt_hier_ref(c->h, &empty);
    if (st != RT_OK)
        return failed(c, st);
    c->st.writebacks += written_lines(c, before);
    return RT_OK;
}

int rt_cache_flush(rt_cache *c, int invalidate)
{
    if (invalidate)
        return range_op(c, 0, 0, 0);
    uint64_t before = rt_hier_stats_get(c->h, 0, RT_HIER_UNIFIED)->bytes_written;
    int st = rt_hier_copyback_all(c->h);
    if (st != RT_OK)
        return failed(c, st);
    c->st.writebacks += written_lines(c, before);
    return RT_OK;
}

int rt_cache_invalidate(rt_cache *c)
{
    return range_op(c, 0, 0, 1);
}

int rt_cache_flush_range(rt_cache *c, uint64_t addr, uint64_t size, int invalidate)
{
    if (size == 0)
        return range_op(c, 0, 0, invalidate);
    /* the hierarchy (Dinero IV) acts on the line of an address: each line of the range */
    uint64_t first = addr >> c->line_shift;
    uint64_t last = (addr + size - 1) >> c->line_shift;
    if (last < first) /* wrapped past the top of the address space */
        last = UINT64_MAX >> c->line_shift;
    uint64_t slots = (uint64_t)c->sets * c->ways;
    int st = RT_OK;
    if (last - first < slots) { /* each line of the range */
        for (uint64_t l = first; st == RT_OK; l++) {
            if (l != UINT64_MAX && rt_cache_probe(c, l << c->line_shift))
                st = range_op(c, l << c->line_shift, 1, invalidate);
            if (l == last)
                break;
        }
    } else { /* a range larger than the cache: every way's line */
        for (uint64_t i = 0; i < slots && st == RT_OK; i++) {
            uint64_t l = rt_cache_line_at(c, (uint32_t)(i / c->ways), (uint32_t)(i % c->ways));
            if (l != UINT64_MAX && l >= first && l <= last)
                st = range_op(c, l << c->line_shift, 1, invalidate);
        }
    }
    return st;
}

int rt_cache_reset(rt_cache *c)
{
    memset(&c->st, 0, sizeof c->st);
    memset(c->count, 0, sizeof c->count);
    rt_err_clear(&c->err);
    rt_hier_free(c->h);
    c->h = NULL;
    rt_err e;
    int st = make_hier(c, &e);
    if (st != RT_OK)
        rt_err_set(&c->err, st, "%s", e.msg);
    return st;
}

const rt_cache_stats *rt_cache_stats_get(const rt_cache *c)
{
    rt_cache_stats *s = (rt_cache_stats *)&c->st; /* derived fields are refreshed here */
    s->read_misses = c->count[0][0];
    s->write_misses = c->count[1][0];
    s->reads = c->count[0][0] + c->count[0][1];
    s->writes = c->count[1][0] + c->count[1][1];
    s->hits = c->count[0][1] + c->count[1][1];
    s->misses = s->read_misses + s->write_misses;
    s->refs = s->reads + s->writes;
    return s;
}

const rt_cache_config *rt_cache_config_get(const rt_cache *c)
{
    return &c->cfg;
}

uint32_t rt_cache_sets(const rt_cache *c)
{
    return c->sets;
}

uint64_t rt_cache_line_at(const rt_cache *c, uint32_t set, uint32_t way)
{
    if (set >= c->sets || way >= c->ways)
        return UINT64_MAX;
    return rt_hier_line_at(c->h, 0, 0, RT_HIER_UNIFIED, set, way);
}

const char *rt_cache_error(const rt_cache *c)
{
    return c->err.msg;
}
