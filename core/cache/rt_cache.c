/* rt_cache.c - the set-associative cache engine (see rt_cache.h). */
#include "rt_cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rt_linemap.h"
#include "rt_mem.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
    uint32_t *used;           /* valid ways per set (ways 0..used-1 unless a range flush made holes) */
    uint64_t *way_data;       /* sets * ways * ops->way_words */
    uint64_t *set_data;       /* sets * ops->set_words */
    uint64_t *last, *loaded;  /* sets * ways, with ops->recency (the policy's view); else NULL */
    int indexed;              /* lookups go through `index` */
    rt_linemap index;         /* line -> slot (set * ways + way) when indexed */
    uint64_t clock;           /* lookups so far */
    int hit_kind, fill_kind;  /* TOUCH_*: the built-ins' hit/fill done inline */
    int victim_min;           /* the victim is the lowest way with the smallest word (lru, lfu, fifo) */
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

static inline void view(rt_cache *c, uint32_t set, rt_policy_set *s)
{
    s->index = set;
    s->ways = c->ways;
    s->lines = c->lines + (uint64_t)set * c->ways;
    s->way_data = c->way_data + (uint64_t)set * c->ways * c->ops->way_words;
    s->set_data = c->set_data + (uint64_t)set * c->ops->set_words;
    s->seed = c->cfg.seed;
    s->err = &c->err;
    s->last = c->last ? c->last + (uint64_t)set * c->ways : NULL;
    s->loaded = c->loaded ? c->loaded + (uint64_t)set * c->ways : NULL;
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
    if (c->last) {
        memset(c->last, 0, slots * sizeof *c->last);
        memset(c->loaded, 0, slots * sizeof *c->loaded);
    }
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
    st = rt_cache_check_geometry(cfg->size, cfg->line, cfg->ways, NULL, err);
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
    {
        /* the tables below, against the machine's memory (see rt_mem_physical) */
        unsigned long long need = nlines * (sizeof(uint64_t) + 1 + (ops->way_words + 2 * !!ops->recency) * sizeof(uint64_t)) +
                                  (nlines / ways) * (sizeof(uint64_t) + ops->set_words * sizeof(uint64_t)) +
                                  (ways > RT_CACHE_SCAN_WAYS ? nlines * 2 * sizeof(uint64_t) : 0);
        unsigned long long have = rt_mem_physical();
        if (have && need > have) {
            rt_err_set(err, st, "cache: out of memory: %llu lines need %.1f GiB of simulator state, more than the "
                       "machine's memory (%.1f GiB)", (unsigned long long)nlines,
                       need / 1073741824.0, have / 1073741824.0);
            goto fail;
        }
    }
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
    c->victim_min = ops == &rt_policy_lru || ops == &rt_policy_lfu || ops == &rt_policy_fifo;
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
    if (ops->recency) {
        c->last = malloc(nlines * sizeof *c->last);
        c->loaded = malloc(nlines * sizeof *c->loaded);
    }
    if (!c->lines || !c->dirty || !c->used || (ops->way_words && !c->way_data) ||
        (ops->set_words && !c->set_data) || (ops->recency && (!c->last || !c->loaded))) {
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
    free(c->last);
    free(c->loaded);
    if (c->indexed)
        rt_linemap_destroy(&c->index);
    free(c);
}

/* bit k set when ways k holds line (written out: no loop, no variable shifts) */
static RT_HOT_INLINE unsigned match4(const uint64_t *ln, uint64_t line)
{
    return (unsigned)(ln[0] == line) | (unsigned)(ln[1] == line) << 1 |
           (unsigned)(ln[2] == line) << 2 | (unsigned)(ln[3] == line) << 3;
}

#if defined(__SSE2__)
/* two bits per way (bits 2k and 2k+1 for way k): eight 64-bit comparisons as
 * 32-bit ones, a line being equal when both halves are */
static RT_HOT_INLINE unsigned match8x2(const uint64_t *ln, uint64_t line)
{
    const __m128i k = _mm_set1_epi64x((long long)line);
    __m128i e0 = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)ln), k);
    __m128i e1 = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(ln + 2)), k);
    __m128i e2 = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(ln + 4)), k);
    __m128i e3 = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(ln + 6)), k);
    e0 = _mm_and_si128(e0, _mm_shuffle_epi32(e0, 0xb1));
    e1 = _mm_and_si128(e1, _mm_shuffle_epi32(e1, 0xb1));
    e2 = _mm_and_si128(e2, _mm_shuffle_epi32(e2, 0xb1));
    e3 = _mm_and_si128(e3, _mm_shuffle_epi32(e3, 0xb1));
    __m128i p = _mm_packs_epi16(_mm_packs_epi32(e0, e1), _mm_packs_epi32(e2, e3));
    return (unsigned)_mm_movemask_epi8(p);
}
#endif

static RT_HOT_INLINE unsigned match8(const uint64_t *ln, uint64_t line)
{
    return match4(ln, line) | match4(ln + 4, line) << 4;
}

/* the way of an 8-way set holding line, or -1 */
static RT_HOT_INLINE int find8(const uint64_t *ln, uint64_t line)
{
#if defined(__SSE2__)
    unsigned m = match8x2(ln, line);
    return m ? (int)(__builtin_ctz(m) >> 1) : -1;
#else
    unsigned m = match8(ln, line);
    return m ? __builtin_ctz(m) : -1;
#endif
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
        unsigned m = c->ways == 8 ? match8(ln, line) : match4(ln, line);
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

/* the last line of a 1-unit-line cache's address space cannot be held */
static RT_COLD int top_line(rt_cache *c)
{
    return rt_err_set(&c->err, RT_ERANGE,
                      "address: 0xffffffffffffffff is out of range with %llu-unit lines",
                      (unsigned long long)c->cfg.line);
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
        /* the lowest empty way (a range flush may have emptied any) */
        const uint64_t *ln = c->lines + base;
        way = 0;
        while (ln[way] != UINT64_MAX)
            way++;
        c->used[set]++;
    } else {
        if (c->victim_min) { /* the same choice as their victim hook, without the call */
            const uint64_t *wd = c->way_data + base;
            uint64_t best = wd[0];
            way = 0;
            for (unsigned w = 1; w < c->ways; w++) { /* conditional moves, not branches */
                uint64_t v = wd[w];
                int lt = v < best;
                best = lt ? v : best;
                way = lt ? w : way;
            }
        } else {
            rt_policy_set s;
            view(c, set, &s);
            if ((st = ops->victim(c->cfg.policy_ud, &s, now, &way)) != RT_OK)
                return st;
        }
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
    if (c->last)
        c->last[base + way] = c->loaded[base + way] = now;
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
    uint64_t line = addr >> c->line_shift;
    if (line == UINT64_MAX) /* the mark of an empty way */
        return top_line(c);
    uint64_t now = ++c->clock;
    uint32_t set = (uint32_t)(line & c->set_mask);
    int w = find_way(c, line, set);
    if (w < 0)
        return miss(c, line, set, is_write, now, res);
    uint64_t slot = (uint64_t)set * c->ways + (unsigned)w;
    c->count[is_write][1]++;
    c->dirty[slot] |= (uint8_t)is_write;
    if (c->last)
        c->last[slot] = now;
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

/* The way with the smallest stamp, ties to the lowest way; empty ways have
 * stamp 0 and valid ones >= 1, so the lowest empty way is chosen first. For
 * 8 ways a tree of conditional moves: three steps of latency, not seven. */
static RT_HOT_INLINE unsigned lru_min(const uint64_t *st, uint32_t ways)
{
    if (ways == 8) {
        unsigned a = st[1] < st[0], b = 2 + (st[3] < st[2]);
        unsigned c = 4 + (st[5] < st[4]), d = 6 + (st[7] < st[6]);
        unsigned ab = st[b] < st[a] ? b : a, cd = st[d] < st[c] ? d : c;
        return st[cd] < st[ab] ? cd : ab;
    }
    uint64_t best = st[0];
    unsigned way = 0;
    for (unsigned w = 1; w < ways; w++) { /* conditional moves, not branches */
        uint64_t v = st[w];
        int lt = v < best;
        best = lt ? v : best;
        way = lt ? w : way;
    }
    return way;
}

/* the policy's victim for a full set, checked: RT_OK with *way, or the failure */
static RT_COLD int hook_victim(rt_cache *c, uint32_t set, uint64_t now, unsigned *way)
{
    rt_policy_set v;
    view(c, set, &v);
    int st = c->ops->victim(c->cfg.policy_ud, &v, now, way);
    if (st == RT_OK && *way >= c->ways)
        st = rt_err_set(&c->err, RT_ERANGE, "policy %s: victim way %u outside 0..%u", c->ops->name, *way,
                        c->ways - 1);
    return st;
}

/*
 * The batch loop of a cache whose hits only stamp the way: the built-in LRU
 * (stamps in its way words) and a policy with recency and no hit hook
 * (hooked: stamps in `last`, the policy asked for a victim when a set is
 * full, its fill hook called). Set-associative without the index,
 * write-back, lines of more than one unit (so no line number is the empty
 * mark): hits inline, the cache's fields and the counters in locals. `ways`
 * is a constant where the caller passes one (8), so the tag comparison is
 * unrolled. The same outcome as access_one, lookup by lookup; *done is the
 * lookups made (on a hook's failure, the index of the failing one).
 */
static RT_HOT_INLINE int batch_stamped(rt_cache *c, const uint64_t *restrict addr,
                                       const uint8_t *restrict is_write, size_t n, const uint32_t ways,
                                       const int hooked, size_t *done)
{
    const unsigned shift = c->line_shift;
    const uint64_t mask = c->set_mask;
    uint64_t *restrict const lines = c->lines;
    uint64_t *restrict const stamp = hooked ? c->last : c->way_data;
    uint8_t *restrict const dirty = c->dirty;
    uint32_t *restrict const used = c->used;
    const uint64_t clock0 = c->clock;
    /* only misses and writes are counted in the loop; hits are what is left */
    uint64_t misses = 0, write_misses = 0, evictions = 0, wbs = 0, writes = 0;
    int st = RT_OK;
    size_t i = 0;
    for (; i < n; i++) {
        const uint64_t clock = clock0 + i + 1;
        uint64_t line = addr[i] >> shift;
        uint64_t set = line & mask;
        uint64_t base = set * ways;
        const uint64_t *ln = lines + base;
        uint8_t wr = is_write[i] != 0;
        writes += wr;
        int w = -1;
        if (ways == 8) {
            w = find8(ln, line);
        } else {
            for (uint32_t k = 0; k < ways; k++)
                if (ln[k] == line) {
                    w = (int)k;
                    break;
                }
        }
        if (w >= 0) {
            dirty[base + (unsigned)w] |= wr;
            stamp[base + (unsigned)w] = clock;
            continue;
        }
        misses++;
        write_misses += wr;
        uint64_t slot;
        if (hooked && used[set] == ways) {
            unsigned v;
            c->clock = clock;
            if ((st = hook_victim(c, (uint32_t)set, clock, &v)) != RT_OK)
                break;
            slot = base + v;
        } else { /* LRU's victim, or the lowest empty way (stamp 0) */
            slot = base + lru_min(stamp + base, ways);
        }
        if (lines[slot] != UINT64_MAX) {
            evictions++;
            wbs += dirty[slot];
        } else {
            used[set]++;
        }
        lines[slot] = line;
        dirty[slot] = wr;
        stamp[slot] = clock;
        if (hooked) {
            c->loaded[slot] = clock;
            if (c->ops->fill) {
                rt_policy_set v;
                c->clock = clock;
                view(c, (uint32_t)set, &v);
                if ((st = c->ops->fill(c->cfg.policy_ud, &v, (unsigned)(slot - base), clock)) != RT_OK)
                    break;
            }
        }
    }
    size_t made = i < n ? i + 1 : n; /* a failing lookup is counted, as in access_one */
    c->clock = clock0 + made;
    c->count[0][1] += (made - writes) - (misses - write_misses);
    c->count[1][1] += writes - write_misses;
    c->count[0][0] += misses - write_misses;
    c->count[1][0] += write_misses;
    c->st.evictions += evictions;
    c->st.writebacks += wbs;
    *done = i;
    return st;
}

int rt_cache_access_batch(rt_cache *c, const uint64_t *addr, const uint8_t *is_write, size_t n,
                          size_t *done)
{
    size_t i = 0;
    int st = RT_OK;
    int stamped = c->ops == &rt_policy_lru || (c->last && c->hit_kind == TOUCH_NONE);
    if (stamped && !c->indexed && c->cfg.write_back && c->line_shift > 0) {
        int hooked = c->ops != &rt_policy_lru;
        if (c->ways == 8)
            st = hooked ? batch_stamped(c, addr, is_write, n, 8, 1, &i) : batch_stamped(c, addr, is_write, n, 8, 0, &i);
        else
            st = batch_stamped(c, addr, is_write, n, c->ways, hooked, &i);
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
    return line != UINT64_MAX && find_way(c, line, (uint32_t)(line & c->set_mask)) >= 0;
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

/* empty one way: its line leaves, written back first when dirty and wb */
static void empty_way(rt_cache *c, uint64_t slot, int wb)
{
    if (wb && c->dirty[slot])
        c->st.writebacks++;
    if (c->indexed)
        rt_linemap_del(&c->index, c->lines[slot]);
    c->lines[slot] = UINT64_MAX;
    c->dirty[slot] = 0;
    c->used[slot / c->ways]--;
    unsigned ww = c->ops->way_words;
    if (ww)
        memset(c->way_data + slot * ww, 0, ww * sizeof(uint64_t));
    if (c->last)
        c->last[slot] = c->loaded[slot] = 0;
}

int rt_cache_flush_range(rt_cache *c, uint64_t addr, uint64_t size, int invalidate)
{
    if (size == 0)
        return invalidate ? rt_cache_invalidate(c) : rt_cache_flush(c, 1);
    uint64_t first = addr >> c->line_shift;
    uint64_t last = (addr + size - 1) >> c->line_shift;
    if (last < first) /* wrapped past the top of the address space */
        last = UINT64_MAX >> c->line_shift;
    uint64_t slots = (uint64_t)c->sets * c->ways;
    if (last - first < slots) { /* look each line of the range up */
        for (uint64_t l = first;; l++) {
            if (l != UINT64_MAX) {
                uint32_t set = (uint32_t)(l & c->set_mask);
                int w = find_way(c, l, set);
                if (w >= 0)
                    empty_way(c, (uint64_t)set * c->ways + (unsigned)w, !invalidate);
            }
            if (l == last)
                break;
        }
    } else { /* a range larger than the cache: look at every way */
        for (uint64_t i = 0; i < slots; i++)
            if (c->lines[i] != UINT64_MAX && c->lines[i] >= first && c->lines[i] <= last)
                empty_way(c, i, !invalidate);
    }
    return RT_OK;
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
