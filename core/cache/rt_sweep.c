/* rt_sweep.c - one-pass LRU stack distances (see rt_sweep.h). */
#include "rt_sweep.h"

#include <stdlib.h>
#include <string.h>

#include "rt_linemap.h"

#define BLOCK_SHIFT 9                 /* 512 times per block */
#define BLOCK_WORDS (1u << (BLOCK_SHIFT - 6))
#define MIN_CAP (1u << 16)

struct rt_sweep {
    rt_linemap last;      /* line -> time of its last reference */
    uint64_t *bits;       /* bit t set: some line was last referenced at time t */
    uint32_t *bcnt;       /* marks per block */
    uint32_t *fen;        /* Fenwick tree over bcnt, 1-based */
    uint32_t cap;         /* times available (a multiple of the block) */
    uint32_t nblocks;
    uint32_t t;           /* next time */
    uint64_t refs, cold;
    uint64_t hist[65];    /* hist[k]: references with 2^(k-1) < d <= 2^k (k = 0: d = 1) */
};

static int alloc_times(rt_sweep *s, uint32_t cap)
{
    free(s->bits);
    free(s->bcnt);
    free(s->fen);
    s->cap = cap;
    s->nblocks = cap >> BLOCK_SHIFT;
    s->bits = calloc(cap / 64, sizeof *s->bits);
    s->bcnt = calloc(s->nblocks, sizeof *s->bcnt);
    s->fen = calloc(s->nblocks + 1, sizeof *s->fen);
    return s->bits && s->bcnt && s->fen ? RT_OK : RT_ENOMEM;
}

rt_sweep *rt_sweep_new(void)
{
    rt_sweep *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
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
    if (s->last.keys)
        rt_linemap_destroy(&s->last);
    free(s->bits);
    free(s->bcnt);
    free(s->fen);
    free(s);
}

static inline void fen_add(rt_sweep *s, uint32_t block, int32_t v)
{
    for (uint32_t i = block + 1; i <= s->nblocks; i += i & (0u - i))
        s->fen[i] += (uint32_t)v;
}

/* marks in blocks [0, block) */
static inline uint32_t fen_prefix(const rt_sweep *s, uint32_t block)
{
    uint32_t sum = 0;
    for (uint32_t i = block; i > 0; i -= i & (0u - i))
        sum += s->fen[i];
    return sum;
}

/* marks at times [a, b) within one block */
static inline uint32_t count_in_block(const rt_sweep *s, uint32_t a, uint32_t b)
{
    uint32_t n = 0;
    while (a < b) {
        uint32_t w = a >> 6, off = a & 63;
        uint32_t take = 64 - off;
        if (take > b - a)
            take = b - a;
        uint64_t word = s->bits[w] >> off;
        if (take < 64)
            word &= (1ull << take) - 1;
        n += (uint32_t)__builtin_popcountll(word);
        a += take;
    }
    return n;
}

/* marks at times [a, b) */
static uint32_t count_range(const rt_sweep *s, uint32_t a, uint32_t b)
{
    if (a >= b)
        return 0;
    uint32_t ba = a >> BLOCK_SHIFT, bb = (b - 1) >> BLOCK_SHIFT;
    if (ba == bb)
        return count_in_block(s, a, b);
    uint32_t n = count_in_block(s, a, (ba + 1) << BLOCK_SHIFT) +
                 count_in_block(s, bb << BLOCK_SHIFT, b);
    if (bb - ba - 1 <= 8) {
        for (uint32_t k = ba + 1; k < bb; k++)
            n += s->bcnt[k];
    } else {
        n += fen_prefix(s, bb) - fen_prefix(s, ba + 1);
    }
    return n;
}

static inline void mark(rt_sweep *s, uint32_t t, int on)
{
    uint32_t b = t >> BLOCK_SHIFT;
    if (on) {
        s->bits[t >> 6] |= 1ull << (t & 63);
        s->bcnt[b]++;
        fen_add(s, b, 1);
    } else {
        s->bits[t >> 6] &= ~(1ull << (t & 63));
        s->bcnt[b]--;
        fen_add(s, b, -1);
    }
}

/* Renumber the live marks 0..D-1 keeping their order; room for 4D (or MIN_CAP). */
static int compact(rt_sweep *s)
{
    uint64_t d = s->last.count;
    uint64_t want = 4 * d + MIN_CAP;
    if (want > UINT32_MAX / 2)
        return RT_ENOMEM;
    uint32_t cap = (uint32_t)((want + (1u << BLOCK_SHIFT) - 1) & ~(uint64_t)((1u << BLOCK_SHIFT) - 1));
    /* rank of each old time: marks in earlier blocks + marks earlier in its block */
    uint32_t *before = malloc((s->nblocks + 1) * sizeof *before);
    if (!before)
        return RT_ENOMEM;
    uint32_t acc = 0;
    for (uint32_t k = 0; k < s->nblocks; k++) {
        before[k] = acc;
        acc += s->bcnt[k];
    }
    for (uint64_t i = 0; i <= s->last.mask; i++) {
        if (s->last.keys[i] == UINT64_MAX)
            continue;
        uint32_t old = s->last.vals[i];
        uint32_t b = old >> BLOCK_SHIFT;
        s->last.vals[i] = before[b] + count_in_block(s, b << BLOCK_SHIFT, old);
    }
    free(before);
    if (alloc_times(s, cap) != RT_OK)
        return RT_ENOMEM;
    for (uint32_t t = 0; t < (uint32_t)d; t++) {
        s->bits[t >> 6] |= 1ull << (t & 63);
        s->bcnt[t >> BLOCK_SHIFT]++;
    }
    /* linear Fenwick build */
    for (uint32_t i = 1; i <= s->nblocks; i++) {
        s->fen[i] += s->bcnt[i - 1];
        uint32_t j = i + (i & (0u - i));
        if (j <= s->nblocks)
            s->fen[j] += s->fen[i];
    }
    s->t = (uint32_t)d;
    return RT_OK;
}

static inline unsigned ceil_log2(uint64_t d)
{
    return d <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(d - 1);
}

int rt_sweep_ref(rt_sweep *s, uint64_t line)
{
    if (s->t == s->cap && compact(s) != RT_OK)
        return RT_ENOMEM;
    int added;
    uint32_t *slot = rt_linemap_slot(&s->last, line, &added);
    if (!slot)
        return RT_ENOMEM;
    s->refs++;
    if (added) {
        s->cold++;
    } else {
        uint32_t last = *slot;
        uint64_t d = (uint64_t)count_range(s, last + 1, s->t) + 1;
        s->hist[ceil_log2(d)]++;
        mark(s, last, 0);
    }
    *slot = s->t;
    mark(s, s->t, 1);
    s->t++;
    return RT_OK;
}

uint64_t rt_sweep_refs(const rt_sweep *s)
{
    return s->refs;
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
