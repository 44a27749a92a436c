/* rt_cache.c - the set-associative cache engine (see rt_cache.h). */
#include "rt_cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rt_linemap.h"

#if defined(__GNUC__)
#define RT_HOT_INLINE inline __attribute__((always_inline))
#define RT_COLD __attribute__((noinline))
#else
#define RT_HOT_INLINE inline
#define RT_COLD
#endif

/* Above this associativity a hash index replaces the linear scan of a set. */
#define RT_CACHE_SCAN_WAYS 16

/* What a hit or a fill does to the way's word, for the built-in policies (no
 * indirect call on the hot path); TOUCH_HOOK calls the policy's hook. */
enum { TOUCH_HOOK, TOUCH_NONE, TOUCH_STAMP, TOUCH_ONE, TOUCH_INC };

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
    int hit_kind, fill_kind;  /* TOUCH_*: the built-ins' hit/fill done inline */
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
    c->hit_kind = !ops->hit ? TOUCH_NONE : TOUCH_HOOK;
    c->fill_kind = !ops->fill ? TOUCH_NONE : TOUCH_HOOK;
    if (ops == &rt_policy_lru) {
        c->hit_kind = TOUCH_STAMP;
        c->fill_kind = TOUCH_STAMP;
    } else if (ops == &rt_policy_lfu) {
        c->hit_kind = TOUCH_INC;
        c->fill_kind = TOUCH_ONE;
    } else if (ops == &rt_policy_fifo || ops == &rt_policy_lifo) {
        c->fill_kind = TOUCH_STAMP;
    } else if (ops == &rt_policy_clock) {
        c->hit_kind = TOUCH_ONE;
        c->fill_kind = TOUCH_ONE;
    }
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

static RT_HOT_INLINE int find_way(const rt_cache *c, uint64_t line, uint32_t set)
{
    if (c->indexed) {
        int64_t slot = rt_linemap_get(&c->index, line);
        return slot < 0 ? -1 : (int)(slot - (int64_t)set * c->ways);
    }
    /* empty ways hold UINT64_MAX, never a line; a set holds a line at most once */
    const uint64_t *ln = c->lines + (uint64_t)set * c->ways;
    if (c->ways == 8 || c->ways == 4) {
        /* without early exits: no mispredicted branch per way */
        unsigned m = 0;
        for (unsigned w = 0; w < 4; w++)
            m |= (unsigned)(ln[w] == line) << w;
        if (c->ways == 8)
            for (unsigned w = 4; w < 8; w++)
                m |= (unsigned)(ln[w] == line) << w;
        return m ? __builtin_ctz(m) : -1;
    }
    for (uint32_t w = 0; w < c->ways; w++)
        if (ln[w] == line)
            return (int)w;
    return -1;
}

typedef int (*touch_fn)(void *ud, rt_policy_set *s, unsigned way, uint64_t now);

static inline int touch(rt_cache *c, int kind, touch_fn fn, uint32_t set, unsigned way,
                        uint64_t now)
{
    /* the built-ins keep one word per way */
#define WORD c->way_data[(uint64_t)set * c->ways + way]
    switch (kind) {
    case TOUCH_NONE: return RT_OK;
    case TOUCH_STAMP: WORD = now; return RT_OK;
    case TOUCH_ONE: WORD = 1; return RT_OK;
    case TOUCH_INC: WORD++; return RT_OK;
#undef WORD
    default: {
        rt_policy_set s;
        view(c, set, &s);
        return fn(c->cfg.policy_ud, &s, way, now);
    }
    }
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

/* the miss path, out of line so the hit path stays small */
static RT_COLD int miss(rt_cache *c, uint64_t line, uint32_t set, int is_write, uint64_t now,
                rt_cache_result *res)
{
    uint64_t base = (uint64_t)set * c->ways;
    const rt_policy_ops *ops = c->ops;
    int st, evicted = 0, wb = 0;
    uint64_t old = 0;
    unsigned way;
    c->count[is_write][0]++;
    if (c->used[set] < c->ways) {
        way = c->used[set]++;
    } else {
        rt_policy_set s;
        view(c, set, &s);
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
    c->dirty[base + way] = (uint8_t)is_write;
    if (c->indexed && rt_linemap_put(&c->index, line, (uint32_t)(base + way), NULL) != RT_OK)
        return rt_err_set(&c->err, RT_ENOMEM, "cache: out of memory");
    if ((st = touch(c, c->fill_kind, ops->fill, set, way, now)) != RT_OK)
        return st;
    if (res)
        fill_result(res, 0, line, set, way, evicted, old, wb);
    return RT_OK;
}

static RT_HOT_INLINE int access_one(rt_cache *c, uint64_t addr, int is_write, rt_cache_result *res)
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
    uint64_t now = ++c->clock;
    uint64_t line = addr >> c->line_shift;
    uint32_t set = (uint32_t)(line & c->set_mask);
    int w = find_way(c, line, set);
    if (w < 0)
        return miss(c, line, set, is_write, now, res);
    uint64_t slot = (uint64_t)set * c->ways + (unsigned)w;
    c->count[is_write][1]++;
    c->dirty[slot] |= (uint8_t)is_write;
    if (c->hit_kind == TOUCH_STAMP) {
        c->way_data[slot] = now;
    } else {
        int st = touch(c, c->hit_kind, c->ops->hit, set, (unsigned)w, now);
        if (st != RT_OK)
            return st;
    }
    if (res)
        fill_result(res, 1, line, set, (unsigned)w, 0, 0, 0);
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
    for (; i < n; i++)
        if ((st = access_one(c, addr[i], is_write[i], NULL)) != RT_OK)
            break;
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
    unsigned m = 0;
    uint64_t before = c->count[0][0] + c->count[1][0];
    for (uint64_t l = first;; l++) {
        int st = rt_cache_access(c, l << c->line_shift, is_write, NULL);
        if (st != RT_OK)
            return st;
        if (l == last)
            break;
    }
    m = (unsigned)(c->count[0][0] + c->count[1][0] - before);
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
    memset(c->count, 0, sizeof c->count);
    c->clock = 0;
    rt_err_clear(&c->err);
    return init_sets(c);
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
    return c->lines[(uint64_t)set * c->ways + way];
}

const char *rt_cache_error(const rt_cache *c)
{
    return c->err.msg;
}
