/* rt_cache.c - the set-associative cache engine (see rt_cache.h). */
#include "rt_cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rt_linemap.h"

/* Above this associativity a hash index replaces the linear scan of a set. */
#define RT_CACHE_SCAN_WAYS 16

struct rt_cache {
    rt_cache_config cfg;      /* ways filled in */
    const rt_policy_ops *ops;
    unsigned line_shift;      /* log2(L) */
    uint64_t set_mask;        /* sets - 1 */
    uint32_t sets, ways;
    uint64_t *lines;          /* sets * ways; UINT64_MAX = empty; set-major */
    uint8_t *dirty;           /* sets * ways */
    uint32_t *used;           /* valid ways per set: always ways 0..used-1 */
    uint64_t *way_data;       /* sets * ways * ops->way_words */
    uint64_t *set_data;       /* sets * ops->set_words */
    int indexed;              /* lookups go through `index` */
    rt_linemap index;         /* line -> slot (set * ways + way) when indexed */
    uint64_t clock;           /* lookups so far */
    rt_cache_stats st;
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

static inline void view(rt_cache *c, uint32_t set, rt_policy_set *s)
{
    s->index = set;
    s->ways = c->ways;
    s->lines = c->lines + (uint64_t)set * c->ways;
    s->way_data = c->way_data + (uint64_t)set * c->ways * c->ops->way_words;
    s->set_data = c->set_data + (uint64_t)set * c->ops->set_words;
    s->seed = c->cfg.seed;
    s->err = &c->err;
}

static int init_sets(rt_cache *c)
{
    uint64_t slots = (uint64_t)c->sets * c->ways;
    for (uint64_t i = 0; i < slots; i++)
        c->lines[i] = UINT64_MAX;
    memset(c->dirty, 0, slots);
    memset(c->used, 0, c->sets * sizeof *c->used);
    if (c->way_data)
        memset(c->way_data, 0, slots * c->ops->way_words * sizeof(uint64_t));
    if (c->set_data)
        memset(c->set_data, 0, (uint64_t)c->sets * c->ops->set_words * sizeof(uint64_t));
    if (c->indexed)
        rt_linemap_clear(&c->index);
    if (c->ops->init) {
        rt_policy_set s;
        for (uint32_t i = 0; i < c->sets; i++) {
            view(c, i, &s);
            int st = c->ops->init(c->cfg.policy_ud, &s);
            if (st != RT_OK)
                return st;
        }
    }
    return RT_OK;
}

int rt_cache_new(const rt_cache_config *cfg, rt_cache **out, rt_err *err)
{
    assert(cfg && out);
    *out = NULL;
    const rt_policy_ops *ops = cfg->policy ? cfg->policy : &rt_policy_lru;
    int st = RT_EINVAL;
    rt_cache *c = NULL;
    if (!is_pow2(cfg->size)) {
        rt_err_set(err, st, "cache size: %llu is not a power of two",
                   (unsigned long long)cfg->size);
        goto fail;
    }
    if (!is_pow2(cfg->line)) {
        rt_err_set(err, st, "line size: %llu is not a power of two",
                   (unsigned long long)cfg->line);
        goto fail;
    }
    if (cfg->line > cfg->size) {
        rt_err_set(err, st, "line size: %llu is larger than the cache size %llu",
                   (unsigned long long)cfg->line, (unsigned long long)cfg->size);
        goto fail;
    }
    uint64_t nlines = cfg->size / cfg->line;
    uint64_t ways = cfg->ways ? cfg->ways : nlines;
    if (ways > nlines || nlines % ways != 0) {
        rt_err_set(err, st, "ways: %llu does not divide the %llu lines of the cache",
                   (unsigned long long)ways, (unsigned long long)nlines);
        goto fail;
    }
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
    c->lines = malloc(nlines * sizeof *c->lines);
    c->dirty = malloc(nlines);
    c->used = malloc(c->sets * sizeof *c->used);
    if (ops->way_words)
        c->way_data = malloc(nlines * ops->way_words * sizeof(uint64_t));
    if (ops->set_words)
        c->set_data = malloc((uint64_t)c->sets * ops->set_words * sizeof(uint64_t));
    if (!c->lines || !c->dirty || !c->used || (ops->way_words && !c->way_data) ||
        (ops->set_words && !c->set_data)) {
        rt_err_set(err, st, "cache: out of memory for %llu lines", (unsigned long long)nlines);
        goto fail;
    }
    if (ways > RT_CACHE_SCAN_WAYS) {
        if (rt_linemap_init(&c->index, nlines) != RT_OK) {
            rt_err_set(err, st, "cache: out of memory for the line index");
            goto fail;
        }
        c->indexed = 1;
    }
    rt_err_clear(&c->err);
    st = init_sets(c);
    if (st != RT_OK) {
        rt_err_set(err, st, "%s", c->err.msg);
        goto fail;
    }
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
    if (c->ops && c->ops->free)
        c->ops->free(c->cfg.policy_ud);
    free(c->lines);
    free(c->dirty);
    free(c->used);
    free(c->way_data);
    free(c->set_data);
    if (c->indexed)
        rt_linemap_destroy(&c->index);
    free(c);
}

static inline int find_way(const rt_cache *c, uint64_t line, uint32_t set)
{
    if (c->indexed) {
        int64_t slot = rt_linemap_get(&c->index, line);
        return slot < 0 ? -1 : (int)(slot - (int64_t)set * c->ways);
    }
    const uint64_t *ln = c->lines + (uint64_t)set * c->ways;
    uint32_t n = c->used[set];
    for (uint32_t w = 0; w < n; w++)
        if (ln[w] == line)
            return (int)w;
    return -1;
}

int rt_cache_access(rt_cache *c, uint64_t addr, int is_write, rt_cache_result *res)
{
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
    uint64_t now = ++c->clock;
    uint64_t line = addr >> c->line_shift;
    uint32_t set = (uint32_t)(line & c->set_mask);
    uint64_t base = (uint64_t)set * c->ways;
    const rt_policy_ops *ops = c->ops;
    rt_policy_set s;
    int st;
    c->st.refs++;
    if (is_write)
        c->st.writes++;
    else
        c->st.reads++;
    int w = find_way(c, line, set);
    if (w >= 0) {
        c->st.hits++;
        if (is_write)
            c->dirty[base + w] = 1;
        if (ops->hit) {
            view(c, set, &s);
            if ((st = ops->hit(c->cfg.policy_ud, &s, (unsigned)w, now)) != RT_OK)
                return st;
        }
        if (res) {
            res->hit = 1;
            res->bypassed = 0;
            res->line = line;
            res->set = set;
            res->way = (uint32_t)w;
            res->evicted = 0;
            res->evicted_line = 0;
            res->writeback = 0;
        }
        return RT_OK;
    }
    c->st.misses++;
    if (is_write)
        c->st.write_misses++;
    else
        c->st.read_misses++;
    int evicted = 0, wb = 0;
    uint64_t old = 0;
    unsigned way;
    view(c, set, &s);
    if (c->used[set] < c->ways) {
        way = c->used[set]++;
    } else {
        st = ops->victim(c->cfg.policy_ud, &s, now, &way);
        if (st != RT_OK)
            return st;
        if (way >= c->ways)
            return rt_err_set(&c->err, RT_ERANGE, "policy %s: victim way %u outside 0..%u",
                              ops->name, way, c->ways - 1);
        evicted = 1;
        old = c->lines[base + way];
        c->st.evictions++;
        if (c->dirty[base + way]) {
            wb = 1;
            c->st.writebacks++;
        }
        if (c->indexed)
            rt_linemap_del(&c->index, old);
    }
    c->lines[base + way] = line;
    c->dirty[base + way] = (uint8_t)(is_write != 0);
    if (c->indexed && rt_linemap_put(&c->index, line, (uint32_t)(base + way), NULL) != RT_OK)
        return rt_err_set(&c->err, RT_ENOMEM, "cache: out of memory");
    if (ops->fill && (st = ops->fill(c->cfg.policy_ud, &s, way, now)) != RT_OK)
        return st;
    if (res) {
        res->hit = 0;
        res->bypassed = 0;
        res->line = line;
        res->set = set;
        res->way = way;
        res->evicted = evicted;
        res->evicted_line = old;
        res->writeback = wb;
    }
    return RT_OK;
}

int rt_cache_access_range(rt_cache *c, uint64_t addr, uint64_t size, int is_write,
                          unsigned *misses)
{
    uint64_t first = addr >> c->line_shift;
    uint64_t last = size ? (addr + size - 1) >> c->line_shift : first;
    if (last < first) /* wrapped past the top of the address space */
        last = UINT64_MAX >> c->line_shift;
    unsigned m = 0;
    uint64_t before = c->st.misses;
    for (uint64_t l = first;; l++) {
        int st = rt_cache_access(c, l << c->line_shift, is_write, NULL);
        if (st != RT_OK)
            return st;
        if (l == last)
            break;
    }
    m = (unsigned)(c->st.misses - before);
    if (misses)
        *misses = m;
    return RT_OK;
}

int rt_cache_probe(const rt_cache *c, uint64_t addr)
{
    uint64_t line = addr >> c->line_shift;
    return find_way(c, line, (uint32_t)(line & c->set_mask)) >= 0;
}

int rt_cache_flush(rt_cache *c, int invalidate)
{
    uint64_t slots = (uint64_t)c->sets * c->ways;
    for (uint64_t i = 0; i < slots; i++) {
        if (c->lines[i] != UINT64_MAX && c->dirty[i]) {
            c->st.writebacks++;
            c->dirty[i] = 0;
        }
    }
    if (!invalidate)
        return RT_OK;
    int st = init_sets(c);
    if (st != RT_OK)
        return st;
    return RT_OK;
}

int rt_cache_invalidate(rt_cache *c)
{
    return init_sets(c);
}

int rt_cache_reset(rt_cache *c)
{
    memset(&c->st, 0, sizeof c->st);
    c->clock = 0;
    rt_err_clear(&c->err);
    return init_sets(c);
}

const rt_cache_stats *rt_cache_stats_get(const rt_cache *c)
{
    return &c->st;
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
    return c->lines[(uint64_t)set * c->ways + way];
}

const char *rt_cache_error(const rt_cache *c)
{
    return c->err.msg;
}
