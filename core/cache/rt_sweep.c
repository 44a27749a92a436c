/* rt_sweep.c - one-pass LRU stack distances (see rt_sweep.h). */
#include "rt_sweep.h"

#include <stdlib.h>
#include <string.h>

#include "rt_linemap.h"

/* Counts of marks over times form a 64-ary tree: the bitmap (64 times per
 * word), then level 0 counts per 512 times (a block), and each further level
 * counts per 64 groups of the level below, up to a level of at most 64 groups.
 * A mark updates one count per level; a count sums at most 63 groups at each
 * end of each level: O(log n) both. */
#define BLOCK_SHIFT 9                 /* 512 times per level-0 group */
#define FAN_SHIFT 6                   /* 64 groups per group of the next level */
#define MAX_LEVELS 6
#define MIN_CAP (1u << 16)

/* x86-64 without -mpopcnt: rt_sweep_ref and rt_sweep_ref_many are also
 * compiled for POPCNT and the loader picks the version the processor runs (GCC
 * function multiversioning); the helpers are inlined into them so they follow. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__POPCNT__)
#define RT_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define RT_POPCNT_CLONES
#endif
#if defined(__GNUC__)
#define RT_SWEEP_INLINE inline __attribute__((always_inline))
#else
#define RT_SWEEP_INLINE inline
#endif

struct rt_sweep {
    rt_linemap last;      /* line -> time of its last reference */
    uint64_t *bits;       /* bit t set: some line was last referenced at time t */
    uint32_t *cnt[MAX_LEVELS]; /* cnt[j][g]: marks in group g of level j */
    uint32_t ngroups[MAX_LEVELS];
    unsigned levels;
    uint32_t cap;         /* times available (a multiple of 512) */
    uint32_t t;           /* next time */
    uint64_t refs, cold;
    uint64_t compactions; /* times renumbered so far */
    uint64_t prev;        /* the line referenced last (UINT64_MAX before the first) */
    uint64_t hist[65];    /* hist[k]: references with 2^(k-1) < d <= 2^k (k = 0: d = 1) */
};

static void free_times(rt_sweep *s)
{
    free(s->bits);
    s->bits = NULL;
    for (unsigned j = 0; j < MAX_LEVELS; j++) {
        free(s->cnt[j]);
        s->cnt[j] = NULL;
    }
}

static int alloc_times(rt_sweep *s, uint32_t cap)
{
    free_times(s);
    s->cap = cap;
    s->bits = calloc(cap / 64, sizeof *s->bits);
    if (!s->bits)
        return RT_ENOMEM;
    uint32_t n = cap >> BLOCK_SHIFT;
    s->levels = 0;
    for (unsigned j = 0; j < MAX_LEVELS; j++) {
        s->ngroups[j] = n;
        if (!(s->cnt[j] = calloc(n, sizeof *s->cnt[j])))
            return RT_ENOMEM;
        s->levels = j + 1;
        if (n <= 64)
            break;
        n = (n + 63) >> FAN_SHIFT;
    }
    return RT_OK;
}

rt_sweep *rt_sweep_new(void)
{
    rt_sweep *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->prev = UINT64_MAX;
    if (rt_linemap_init(&s->last, 1024) != RT_OK || alloc_times(s, MIN_CAP) != RT_OK) {
        rt_sweep_free(s);
        return NULL;
    }
    return s;
}

void rt_sweep_free(rt_sweep *s)
{
    if (!s)
        return;
    if (s->last.b)
        rt_linemap_destroy(&s->last);
    free_times(s);
    free(s);
}

/* bits set in x: one instruction in the POPCNT clone of rt_sweep_ref (see
 * RT_POPCNT_CLONES), a library call elsewhere */
static inline uint32_t popcount64(uint64_t x)
{
    return (uint32_t)__builtin_popcountll(x);
}

/* marks at times [a, b), a < b, within one block */
static RT_SWEEP_INLINE uint32_t count_in_block(const rt_sweep *s, uint32_t a, uint32_t b)
{
    uint32_t wa = a >> 6, wb = (b - 1) >> 6;
    uint64_t first = s->bits[wa] >> (a & 63);
    uint64_t lastmask = ~0ull >> (63 - ((b - 1) & 63)); /* bits 0 .. (b-1) mod 64 */
    if (wa == wb)
        return popcount64(first & (lastmask >> (a & 63)));
    uint32_t n = popcount64(first) + popcount64(s->bits[wb] & lastmask);
    for (uint32_t w = wa + 1; w < wb; w++)
        n += popcount64(s->bits[w]);
    return n;
}

/* marks in groups [x, y) of level j */
static RT_SWEEP_INLINE uint32_t count_groups(const rt_sweep *s, unsigned j, uint32_t x, uint32_t y)
{
    uint32_t n = 0;
    for (;;) {
        const uint32_t *c = s->cnt[j];
        if (y - x <= 2u << FAN_SHIFT || j + 1 == s->levels) {
            for (uint32_t k = x; k < y; k++)
                n += c[k];
            return n;
        }
        /* the ends at this level, the aligned middle one level up */
        uint32_t xu = (x + 63) & ~63u, yd = y & ~63u;
        for (uint32_t k = x; k < xu; k++)
            n += c[k];
        for (uint32_t k = yd; k < y; k++)
            n += c[k];
        x = xu >> FAN_SHIFT;
        y = yd >> FAN_SHIFT;
        j++;
    }
}

/* marks at times [a, b) */
static RT_SWEEP_INLINE uint32_t count_range(const rt_sweep *s, uint32_t a, uint32_t b)
{
    if (a >= b)
        return 0;
    uint32_t ba = a >> BLOCK_SHIFT, bb = (b - 1) >> BLOCK_SHIFT;
    if (ba == bb)
        return count_in_block(s, a, b);
    return count_in_block(s, a, (ba + 1) << BLOCK_SHIFT) +
           count_in_block(s, bb << BLOCK_SHIFT, b) + count_groups(s, 0, ba + 1, bb);
}

static RT_SWEEP_INLINE void mark(rt_sweep *s, uint32_t t, int on)
{
    uint32_t delta = on ? 1u : (uint32_t)-1;
    s->bits[t >> 6] ^= 1ull << (t & 63);
    uint32_t g = t >> BLOCK_SHIFT;
    for (unsigned j = 0; j < s->levels; j++, g >>= FAN_SHIFT)
        s->cnt[j][g] += delta;
}

/* Move a mark from time `from` to the later time `to`: the counts of the
 * groups holding both do not change, so only the levels below their common
 * group are touched (none above the block for a near reuse). */
static RT_SWEEP_INLINE void move_mark(rt_sweep *s, uint32_t from, uint32_t to)
{
    s->bits[from >> 6] ^= 1ull << (from & 63);
    s->bits[to >> 6] ^= 1ull << (to & 63);
    uint32_t g1 = from >> BLOCK_SHIFT, g2 = to >> BLOCK_SHIFT;
    for (unsigned j = 0; j < s->levels && g1 != g2; j++, g1 >>= FAN_SHIFT, g2 >>= FAN_SHIFT) {
        s->cnt[j][g1]--;
        s->cnt[j][g2]++;
    }
}

/* Renumber the live marks 0..D-1 keeping their order; room for about 16D. */
static int compact(rt_sweep *s)
{
    uint64_t d = s->last.count;
    uint64_t want = 16 * d + MIN_CAP; /* compactions stay rare: one per 15 D references */
    if (want > UINT32_MAX / 2)
        return RT_ENOMEM;
    const uint64_t unit = 1ull << BLOCK_SHIFT;
    uint32_t cap = (uint32_t)((want + unit - 1) & ~(unit - 1));
    /* rank of each old time: marks in earlier blocks + marks earlier in its block */
    uint32_t *before = malloc((s->ngroups[0] + 1) * sizeof *before);
    if (!before)
        return RT_ENOMEM;
    uint32_t acc = 0;
    for (uint32_t k = 0; k < s->ngroups[0]; k++) {
        before[k] = acc;
        acc += s->cnt[0][k];
    }
    for (uint64_t i = 0; i <= s->last.mask; i++) {
        if (s->last.b[i].key == UINT64_MAX)
            continue;
        uint32_t old = s->last.b[i].val;
        uint32_t b = old >> BLOCK_SHIFT;
        uint32_t start = b << BLOCK_SHIFT;
        s->last.b[i].val = before[b] + (old > start ? count_in_block(s, start, old) : 0);
    }
    free(before);
    if (alloc_times(s, cap) != RT_OK)
        return RT_ENOMEM;
    for (uint32_t t = 0; t < (uint32_t)d; t++)
        mark(s, t, 1);
    s->t = (uint32_t)d;
    s->compactions++;
    return RT_OK;
}

static inline unsigned ceil_log2(uint64_t d)
{
    return d <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(d - 1);
}

/* One reference; hint, when not NULL, is line's value slot in the map (found
 * a few references before, the map not having grown since). */
static RT_SWEEP_INLINE int sweep_one(rt_sweep *s, uint64_t line, uint32_t *hint)
{
    if (line == s->prev) {
        /* distance 1; the stack does not change, so neither do the times */
        s->refs++;
        s->hist[0]++;
        return RT_OK;
    }
    if (s->t == s->cap && compact(s) != RT_OK)
        return RT_ENOMEM;
    int added = 0;
    uint32_t *slot = hint ? hint : rt_linemap_slot(&s->last, line, &added);
    if (!slot)
        return RT_ENOMEM;
    s->refs++;
    if (added) {
        s->cold++;
        mark(s, s->t, 1);
    } else {
        uint32_t last = *slot;
        /* d <= t - last: a reference right after the previous one is at distance 1 */
        uint64_t d = s->t - last <= 1 ? 1 : (uint64_t)count_range(s, last + 1, s->t) + 1;
        s->hist[ceil_log2(d)]++;
        move_mark(s, last, s->t);
    }
    *slot = s->t;
    s->t++;
    s->prev = line;
    return RT_OK;
}

RT_POPCNT_CLONES int rt_sweep_ref(rt_sweep *s, uint64_t line)
{
    return sweep_one(s, line, NULL);
}

RT_POPCNT_CLONES int rt_sweep_ref_many(rt_sweep *s, const uint64_t *addr, size_t n, unsigned shift)
{
    /* The map bucket of the reference AHEAD on is fetched early. NEAR on,
     * the line's slot is looked up (kept for its turn unless the map grows
     * meanwhile) and the bitmap word of its last time fetched. */
    enum { AHEAD = 32, NEAR = 8 };
    uint32_t *hint[NEAR] = {0};
    uint64_t mask = s->last.mask;
    for (size_t i = 0; i < n; i++) {
        if (i + AHEAD < n)
            rt_linemap_prefetch(&s->last, addr[i + AHEAD] >> shift);
        uint32_t *h = hint[i % NEAR];
        if (s->last.mask != mask) { /* grown: the slots moved */
            mask = s->last.mask;
            memset(hint, 0, sizeof hint);
            h = NULL;
        }
        if (i + NEAR < n) {
            uint32_t *f = rt_linemap_find(&s->last, addr[i + NEAR] >> shift);
            hint[i % NEAR] = f;
#if defined(__GNUC__)
            if (f && *f < s->cap)
                __builtin_prefetch(&s->bits[*f >> 6]);
#endif
        }
        int st = sweep_one(s, addr[i] >> shift, h);
        if (st != RT_OK)
            return st;
    }
    return RT_OK;
}

void rt_sweep_repeat(rt_sweep *s, uint64_t n)
{
    s->refs += n;
    s->hist[0] += n;
}

uint64_t rt_sweep_refs(const rt_sweep *s)
{
    return s->refs;
}

uint64_t rt_sweep_compactions(const rt_sweep *s)
{
    return s->compactions;
}

uint64_t rt_sweep_distinct(const rt_sweep *s)
{
    return s->cold;
}

uint64_t rt_sweep_misses(const rt_sweep *s, unsigned log2_lines)
{
    uint64_t m = s->cold;
    for (unsigned k = log2_lines + 1; k < 65; k++)
        m += s->hist[k];
    return m;
}

unsigned rt_sweep_top(const rt_sweep *s)
{
    return ceil_log2(s->cold);
}
