/* rt_hier.c - a cache hierarchy with Dinero IV's model (see rt_hier.h). */
#include "rt_hier.h"
#include "rt_mesi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rt_linemap.h"
#include "rt_mem.h"

/* reference types beyond the basic ones: a prefetch, the rest of a split reference */
#define T_PF RT_HIER_PF
#define T_MULTI 16
#define T_BASIC(t) ((t) & 7)
enum { T_READ = RT_REF_READ, T_WRITE = RT_REF_WRITE, T_INSTR = RT_REF_IFETCH, T_MISC = RT_REF_MISC,
       T_COPYB = RT_REF_FLUSH, T_INVAL = RT_REF_INVALIDATE,
       T_FILL = 6 /* a clean line evicted into the exclusive level below */ };

#define EMPTY UINT64_MAX
/* above this associativity a hash index replaces the scan of a set */
#define SCAN_WAYS 32

/* ---------------------------------------------------------------- policies */

/* Tree pseudo-LRU: set word 0 holds the bits of the nodes of a heap-ordered
 * binary tree (node 1 the root, children 2n and 2n+1). A reference to a way
 * turns every node on its path away from it; the victim is found by
 * following the bits from the root. */
static unsigned tree_depth(unsigned ways)
{
    unsigned d = 0;
    while ((1u << d) < ways)
        d++;
    return d;
}

static int plru_touch(void *ud, rt_policy_set *s, unsigned way, uint64_t now)
{
    (void)ud;
    (void)now;
    unsigned d = tree_depth(s->ways);
    uint64_t st = s->set_data[0];
    unsigned node = 1;
    for (unsigned k = d; k-- > 0;) {
        unsigned bit = (way >> k) & 1;
        /* point away: 1 means "the victim is on the right" */
        if (bit)
            st &= ~(1ull << node);
        else
            st |= 1ull << node;
        node = 2 * node + bit;
    }
    s->set_data[0] = st;
    return RT_OK;
}

static int plru_victim(void *ud, rt_policy_set *s, uint64_t now, unsigned *way)
{
    (void)ud;
    (void)now;
    unsigned d = tree_depth(s->ways), node = 1, w = 0;
    uint64_t st = s->set_data[0];
    for (unsigned k = 0; k < d; k++) {
        unsigned bit = (unsigned)(st >> node) & 1;
        w = 2 * w + bit;
        node = 2 * node + bit;
    }
    *way = w;
    return RT_OK;
}

const rt_policy_ops rt_policy_plru = {
    .name = "plru", .set_words = 1, .hit = plru_touch, .fill = plru_touch, .victim = plru_victim,
};

/* Dinero IV's random: the generator is the hierarchy's (ud); the victim is
 * the line whose load is the k-th most recent, k = next % ways. */
static uint64_t park_miller(int64_t *state)
{
    *state = (*state * 48271) % 2147483647;
    return (uint64_t)*state;
}

static int stamp_fill(void *ud, rt_policy_set *s, unsigned way, uint64_t now)
{
    (void)ud;
    s->way_data[way] = now;
    return RT_OK;
}

static int d4random_victim(void *ud, rt_policy_set *s, uint64_t now, unsigned *way)
{
    (void)now;
    uint64_t k = park_miller((int64_t *)ud) % s->ways;
    /* the way with exactly k later loads */
    for (unsigned w = 0; w < s->ways; w++) {
        uint64_t later = 0, t = s->way_data[w];
        for (unsigned v = 0; v < s->ways; v++)
            later += s->way_data[v] > t;
        if (later == k) {
            *way = w;
            return RT_OK;
        }
    }
    *way = 0;
    return RT_OK;
}

const rt_policy_ops rt_policy_d4random = {
    .name = "d4random", .way_words = 1, .fill = stamp_fill, .victim = d4random_victim,
};

/* ---------------------------------------------------------------- a store of lines */

typedef struct store {
    uint32_t sets, ways;
    uint64_t *tag;          /* block number, EMPTY when the way is invalid */
    uint32_t *valid, *dirty, *refd; /* sub-block bits */
    uint64_t *loaded, *used_at; /* clock at the load and at the last reference (stack order) */
    uint32_t *used;         /* valid ways per set */
    uint64_t *wd, *sd;      /* policy words */
    const rt_policy_ops *ops;
    void *ud;
    int indexed;
    rt_linemap index;       /* block -> slot, when indexed */
    uint64_t clock, seed;
    uint64_t set_mask;      /* sets - 1 when a power of two, else 0 (modulo) */
    uint8_t *sig;           /* when swar: a byte of each way's tag (sig_of; 0 when
                               empty), eight ways compared at once */
    unsigned sig_shift;
    int swar;               /* a scanned store whose ways come in eights */
    int lru;                /* the built-in LRU: stamps written here, no hook calls */
    uint64_t *hit_stamp;    /* when a hit only stamps its way: where (wd for the
                               built-in LRU, used_at for a policy with recency and
                               no hit hook); else NULL */
    struct alloc_rec *rec;  /* rt_hier_access: where the next allocation tells its
                               way and victim (then NULL again); NULL otherwise */
    int stamped;            /* lru, fifo, d4random: way word 0 orders the stack
                               (loaded and used_at are not kept) */
    uint64_t evictions;     /* valid lines replaced by an allocation */
} store;

static inline uint32_t set_of(const store *s, uint64_t blk)
{
    return (uint32_t)(s->set_mask || s->sets == 1 ? blk & s->set_mask : blk % s->sets);
}

struct rt_hier;

typedef struct pend {
    uint64_t addr, size;
    int type;
} pend;

typedef struct hcache {
    rt_hcache_config cfg;
    int is_mem;
    char name[24];
    store m, full;          /* the cache, and the fully associative one of classification */
    int ccc;
    rt_linemap inf;         /* block -> sub-blocks ever missed everywhere (classification) */
    unsigned lg2b, lg2sb;
    uint64_t pfdist;        /* bytes */
    struct hcache *down;
    struct hcache *up[2 * RT_HIER_MAX_CORES]; /* the caches whose misses come here */
    unsigned nup;
    rt_hier_stats st;
    pend *pq;
    size_t np, cap;
    int fast;               /* hits can take hit_fast: demand fetch, no sub-blocks, LRU,
                               write-back always, no classification */
    int fast_miss;          /* and misses miss_fast: also write-allocate always, not
                               inclusive, not coherent */
    int coherent;           /* a private cache of a multi-core machine */
    int above_exclusive;    /* the level below is exclusive: clean victims go to it */
    int above_inclusive;    /* the level below is inclusive: a write that allocates a
                               whole block still fetches it, so that level holds it */
    rt_linemap lost;        /* when coherent: blocks taken away by invalidations */
} hcache;

struct rt_hier {
    rt_hier_config cfg;
    hcache c[RT_HIER_MAX_LEVELS][3];
    hcache mem;
    hcache *ci, *cd;        /* where references enter (core 0's) */
    unsigned cores, npriv;  /* cores (1 or more), private levels */
    hcache *extra;          /* the private caches of cores 1.., [((p-1)*npriv + l)*3 + k] */
    hcache *core_ci[RT_HIER_MAX_CORES], *core_cd[RT_HIER_MAX_CORES];
    uint64_t *sw;           /* rt_hier_set_cores: (record, core) pairs */
    size_t nsw;
    int64_t rng;            /* Dinero IV's generator (d4random, prefetch abort) */
    uint64_t snoop_inval, snoop_wb; /* cores whose copies the last snoops removed / wrote back */
    int status;             /* sticky: a policy hook failed, or memory ran out */
    rt_err err;
};

/* core p's cache (level l, which k): its own when the level is private */
static inline hcache *cache_of(const rt_hier *h, unsigned p, unsigned l, int k)
{
    if (p == 0 || l >= h->npriv)
        return (hcache *)&h->c[l][k];
    return &h->extra[((size_t)(p - 1) * h->npriv + l) * 3 + (unsigned)k];
}

static void store_view(store *s, uint32_t set, rt_policy_set *v, rt_err *err)
{
    v->index = set;
    v->ways = s->ways;
    v->lines = s->tag + (uint64_t)set * s->ways;
    v->way_data = s->wd + (uint64_t)set * s->ways * s->ops->way_words;
    v->set_data = s->sd + (uint64_t)set * s->ops->set_words;
    v->seed = s->seed;
    v->err = err;
    int rec = s->ops->recency && s->used_at;
    v->last = rec ? s->used_at + (uint64_t)set * s->ways : NULL;
    v->loaded = rec ? s->loaded + (uint64_t)set * s->ways : NULL;
}

static void store_destroy(store *s)
{
    free(s->tag);
    free(s->valid);
    free(s->dirty);
    free(s->refd);
    free(s->loaded);
    free(s->used_at);
    free(s->used);
    free(s->sig);
    free(s->wd);
    free(s->sd);
    if (s->indexed)
        rt_linemap_destroy(&s->index);
    memset(s, 0, sizeof *s);
}

static int store_init_sets(store *s, rt_err *err)
{
    uint64_t n = (uint64_t)s->sets * s->ways;
    for (uint64_t i = 0; i < n; i++)
        s->tag[i] = EMPTY;
    memset(s->valid, 0, n * sizeof *s->valid);
    memset(s->dirty, 0, n * sizeof *s->dirty);
    memset(s->refd, 0, n * sizeof *s->refd);
    memset(s->used, 0, s->sets * sizeof *s->used);
    if (s->swar)
        memset(s->sig, 0, n);
    if (s->ops->way_words)
        memset(s->wd, 0, n * s->ops->way_words * sizeof *s->wd);
    if (s->ops->set_words)
        memset(s->sd, 0, (uint64_t)s->sets * s->ops->set_words * sizeof *s->sd);
    if (s->indexed)
        rt_linemap_clear(&s->index);
    if (s->ops->init)
        for (uint32_t set = 0; set < s->sets; set++) {
            rt_policy_set v;
            store_view(s, set, &v, err);
            int st = s->ops->init(s->ud, &v);
            if (st != RT_OK)
                return st;
        }
    return RT_OK;
}

static int store_new(store *s, uint64_t sets, uint64_t ways, const rt_policy_ops *ops, void *ud,
                     uint64_t seed, rt_err *err)
{
    memset(s, 0, sizeof *s);
    uint64_t n = sets * ways;
    if (sets > UINT32_MAX || ways > UINT32_MAX || n > (1ull << 32))
        return rt_err_set(err, RT_EINVAL, "cache: %llu lines are too many",
                          (unsigned long long)n);
    s->sets = (uint32_t)sets;
    s->ways = (uint32_t)ways;
    s->ops = ops;
    s->ud = ud;
    s->seed = seed;
    s->tag = malloc(n * sizeof *s->tag);
    s->valid = malloc(n * sizeof *s->valid);
    s->dirty = malloc(n * sizeof *s->dirty);
    s->refd = malloc(n * sizeof *s->refd);
    int stamped = ops == &rt_policy_lru || ops == &rt_policy_fifo || ops == &rt_policy_d4random;
    s->loaded = stamped ? NULL : calloc(n, sizeof *s->loaded);
    s->used_at = stamped ? NULL : calloc(n, sizeof *s->used_at);
    s->used = malloc(sets * sizeof *s->used);
    s->wd = ops->way_words ? malloc(n * ops->way_words * sizeof *s->wd) : NULL;
    s->sd = ops->set_words ? malloc(sets * ops->set_words * sizeof *s->sd) : NULL;
    s->indexed = ways > SCAN_WAYS;
    s->set_mask = (sets & (sets - 1)) == 0 ? sets - 1 : 0;
    s->swar = !s->indexed && ways % 8 == 0;
    while ((1ull << s->sig_shift) < sets)
        s->sig_shift++;
    s->sig = s->swar ? malloc(n) : NULL;
    s->lru = ops == &rt_policy_lru;
    s->stamped = s->lru || ops == &rt_policy_fifo || ops == &rt_policy_d4random;
    s->hit_stamp = s->lru ? s->wd : ops->recency && !ops->hit && !s->stamped ? s->used_at : NULL;
    if (!s->tag || !s->valid || !s->dirty || !s->refd || (!stamped && (!s->loaded || !s->used_at)) || !s->used
        || (s->swar && !s->sig)
        || (ops->way_words && !s->wd) || (ops->set_words && !s->sd)
        || (s->indexed && rt_linemap_init(&s->index, n) != RT_OK)) {
        if (!s->indexed || s->index.b == NULL)
            s->indexed = 0;
        store_destroy(s);
        return rt_err_set(err, RT_ENOMEM, "cache: out of memory");
    }
    return store_init_sets(s, err);
}

/* A block's signature: seven bits of its tag with the top bit set, so that
 * an empty way (0) is never a candidate. */
static inline uint8_t sig_of(uint64_t blk, unsigned shift)
{
    return (uint8_t)((blk >> shift) | 0x80);
}

/* The slot of blk among the ways [base, base + ways) (ways a multiple of 8), or
 * -1: the signature bytes equal to blk's, eight at a time, each candidate
 * checked against its tag. */
static inline int64_t swar_find(const uint8_t *sig, const uint64_t *tag, uint64_t base, uint64_t ways,
                                uint64_t blk, unsigned shift)
{
    const uint64_t ones = 0x0101010101010101ull, want = ones * sig_of(blk, shift);
    for (uint64_t w0 = 0; w0 < ways; w0 += 8) {
        uint64_t x;
        memcpy(&x, sig + base + w0, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        x = __builtin_bswap64(x); /* way w0 in the low byte */
#endif
        x ^= want;
        /* every zero byte flagged (and maybe a 0x01 above one) */
        for (uint64_t m = (x - ones) & ~x & (ones << 7); m; m &= m - 1) {
            uint64_t k = base + w0 + (uint64_t)(__builtin_ctzll(m) >> 3);
            if (tag[k] == blk)
                return (int64_t)k;
        }
    }
    return -1;
}

static inline int store_find(const store *s, uint32_t set, uint64_t blk)
{
    if (s->indexed) {
        int64_t slot = rt_linemap_get(&s->index, blk);
        return slot < 0 ? -1 : (int)(slot - (int64_t)set * s->ways);
    }
    const uint64_t *t = s->tag + (uint64_t)set * s->ways;
    if (s->swar) {
        int64_t k = s->ways == 8 ? swar_find(s->sig, s->tag, (uint64_t)set * 8, 8, blk, s->sig_shift)
                                 : swar_find(s->sig, s->tag, (uint64_t)set * s->ways, s->ways, blk, s->sig_shift);
        return k < 0 ? -1 : (int)(k - (int64_t)set * s->ways);
    }
    for (uint32_t w = 0; w < s->ways; w++)
        if (t[w] == blk)
            return (int)w;
    return -1;
}

/* the line in (set, way) was referenced again */
static int store_hit(store *s, uint32_t set, unsigned way, rt_err *err)
{
    uint64_t now = ++s->clock;
    uint64_t slot = (uint64_t)set * s->ways + way;
    if (!s->stamped)
        s->used_at[slot] = now;
    if (s->lru) { /* rt_policy_lru's hook, inline */
        s->wd[slot] = now;
        return RT_OK;
    }
    if (!s->ops->hit)
        return RT_OK;
    rt_policy_set v;
    store_view(s, set, &v, err);
    return s->ops->hit(s->ud, &v, way, now);
}

typedef struct victim {
    int valid;
    uint64_t blk;
    uint32_t valid_bits, dirty_bits;
} victim;

/* the first allocation of a store during one rt_hier_access */
typedef struct alloc_rec {
    int done;
    unsigned way;
    victim vic;
} alloc_rec;

static inline void rec_alloc(store *s, unsigned way, const victim *vic)
{
    s->evictions += (uint64_t)vic->valid;
    if (s->rec) {
        *s->rec = (alloc_rec){1, way, *vic};
        s->rec = NULL;
    }
}

static void store_empty(store *s, uint64_t slot)
{
    if (s->indexed)
        rt_linemap_del(&s->index, s->tag[slot]);
    s->tag[slot] = EMPTY;
    if (s->swar)
        s->sig[slot] = 0;
    s->valid[slot] = s->dirty[slot] = s->refd[slot] = 0;
    s->used[slot / s->ways]--;
    unsigned ww = s->ops->way_words;
    if (ww == 1)
        s->wd[slot] = 0;
    else if (ww)
        memset(s->wd + slot * ww, 0, ww * sizeof *s->wd);
}

/* load blk into set: the lowest empty way, else the policy's victim (its
 * state returned in *vic); *way is where blk now is, with no valid bits */
static int store_alloc(store *s, uint32_t set, uint64_t blk, unsigned *way, victim *vic, rt_err *err)
{
    uint64_t base = (uint64_t)set * s->ways;
    uint64_t now = ++s->clock;
    unsigned w = 0;
    int st;
    vic->valid = 0;
    if (s->lru && !s->indexed && s->used[set] == s->ways) {
        /* a full set of the built-in LRU: the oldest stamp's line replaced in place */
        uint64_t *wd = s->wd + base, best = wd[0];
        for (unsigned k = 1; k < s->ways; k++) { /* no branch per way: conditional moves */
            uint64_t v = wd[k];
            int older = v < best;
            best = older ? v : best;
            w = older ? k : w;
        }
        uint64_t slot = base + w;
        *vic = (victim){1, s->tag[slot], s->valid[slot], s->dirty[slot]};
        s->tag[slot] = blk;
        if (s->swar)
            s->sig[slot] = sig_of(blk, s->sig_shift);
        s->valid[slot] = s->dirty[slot] = s->refd[slot] = 0;
        wd[w] = now;
        *way = w;
        rec_alloc(s, w, vic);
        return RT_OK;
    }
    if (s->used[set] < s->ways && s->swar) { /* the lowest empty way: its signature is 0 */
        const uint64_t ones = 0x0101010101010101ull;
        for (uint64_t w0 = 0;; w0 += 8) {
            uint64_t x;
            memcpy(&x, s->sig + base + w0, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            x = __builtin_bswap64(x);
#endif
            uint64_t m = (x - ones) & ~x & (ones << 7); /* its lowest bit is the first zero byte */
            if (m) {
                w = (unsigned)(w0 + (uint64_t)(__builtin_ctzll(m) >> 3));
                break;
            }
        }
    } else if (s->used[set] < s->ways) {
        while (s->tag[base + w] != EMPTY)
            w++;
    } else if (s->lru) { /* the lowest way with the oldest stamp, as rt_policy_lru */
        const uint64_t *wd = s->wd + base;
        uint64_t best = wd[0];
        for (unsigned k = 1; k < s->ways; k++)
            if (wd[k] < best) {
                best = wd[k];
                w = k;
            }
        vic->valid = 1;
        vic->blk = s->tag[base + w];
        vic->valid_bits = s->valid[base + w];
        vic->dirty_bits = s->dirty[base + w];
        store_empty(s, base + w);
    } else {
        rt_policy_set v;
        store_view(s, set, &v, err);
        if ((st = s->ops->victim(s->ud, &v, now, &w)) != RT_OK)
            return st;
        if (w >= s->ways)
            return rt_err_set(err, RT_ERANGE, "policy %s: victim way %u outside 0..%u",
                              s->ops->name, w, s->ways - 1);
        vic->valid = 1;
        vic->blk = s->tag[base + w];
        vic->valid_bits = s->valid[base + w];
        vic->dirty_bits = s->dirty[base + w];
        store_empty(s, base + w);
    }
    uint64_t slot = base + w;
    s->tag[slot] = blk;
    if (s->swar)
        s->sig[slot] = sig_of(blk, s->sig_shift);
    s->used[set]++;
    if (!s->stamped)
        s->loaded[slot] = s->used_at[slot] = now;
    if (s->indexed && rt_linemap_put(&s->index, blk, (uint32_t)slot, NULL) != RT_OK)
        return rt_err_set(err, RT_ENOMEM, "cache: out of memory");
    *way = w;
    rec_alloc(s, w, vic);
    if (s->lru) {
        s->wd[slot] = now;
        return RT_OK;
    }
    if (s->ops->fill) {
        rt_policy_set v;
        store_view(s, set, &v, err);
        return s->ops->fill(s->ud, &v, w, now);
    }
    return RT_OK;
}

/* ---------------------------------------------------------------- one cache */

static inline uint64_t lowmask(unsigned n)
{
    return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static void push(rt_hier *h, hcache *c, uint64_t addr, uint64_t size, int type)
{
    if (c->np == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        pend *q = realloc(c->pq, cap * sizeof *q);
        if (!q) {
            if (h->status == RT_OK)
                h->status = rt_err_set(&h->err, RT_ENOMEM, "hierarchy: out of memory");
            return;
        }
        c->pq = q;
        c->cap = cap;
    }
    c->pq[c->np++] = (pend){addr, size, type};
}

static void fail(rt_hier *h, int st)
{
    if (st != RT_OK && h->status == RT_OK)
        h->status = st;
}

/* the dirty runs of a line, queued as writes (lowest address first) */
/* the dirty runs of a line of cache c, queued on q as writes (lowest
 * address first): q is c for a victim, the inclusive cache below for a
 * back-invalidated line */
static void write_back(rt_hier *h, hcache *q, const hcache *c, uint64_t blk, uint32_t valid,
                       uint32_t dirty)
{
    uint64_t bits = valid & dirty;
    uint64_t sb = 1ull << c->lg2sb, a = blk << c->lg2b;
    unsigned k = 0;
    while (bits >> k) { /* bits has at most 32: k stays below 64 */
        while (!((bits >> k) & 1))
            k++;
        uint64_t start = a + (uint64_t)k * sb;
        while ((bits >> k) & 1)
            k++;
        push(h, q, start, a + (uint64_t)k * sb - start, T_WRITE);
    }
}

/* Classification's "infinite cache": 1 when no sub-block of the block was
 * seen, 0 when all those referenced were, -1 in between. */
static int infinite(rt_hier *h, hcache *c, uint64_t blk, uint32_t sbbits, unsigned nsb)
{
    int added;
    uint32_t *seen = rt_linemap_slot(&c->inf, blk, &added);
    if (!seen) {
        fail(h, rt_err_set(&h->err, RT_ENOMEM, "classify: out of memory"));
        return 1;
    }
    unsigned sbpb = 1u << (c->lg2b - c->lg2sb);
    unsigned nb = (unsigned)__builtin_popcount(*seen & sbbits);
    if (nb == nsb)
        return 0;
    if (sbpb != 1 && nsb != sbpb)
        nb = (unsigned)__builtin_popcount(*seen);
    *seen |= sbbits;
    return nb == 0 ? 1 : -1;
}

static void ref_full(rt_hier *h, hcache *c, pend m);

/* Back-invalidation: block blk of the inclusive cache c leaves; every cache
 * above drops the lines it held of it, their dirty sub-blocks queued on c as
 * writes to the level below c (their data is not in c any more). */
static void back_invalidate(rt_hier *h, hcache *c, hcache *from, uint64_t lo, uint64_t hi)
{
    for (unsigned i = 0; i < from->nup; i++) {
        hcache *u = from->up[i];
        store *s = &u->m;
        for (uint64_t b = lo >> u->lg2b; b <= (hi - 1) >> u->lg2b; b++) {
            uint32_t set = set_of(s, b);
            int w = store_find(s, set, b);
            if (w < 0)
                continue;
            uint64_t slot = (uint64_t)set * s->ways + (unsigned)w;
            if (s->valid[slot] & s->dirty[slot]) /* queued on c: its drain sends them below c */
                write_back(h, c, u, b, s->valid[slot], s->dirty[slot]);
            store_empty(s, slot);
            u->st.back_invalidations++;
        }
        back_invalidate(h, c, u, lo, hi);
    }
}

/* the references c queued, last first: its own (prefetches, the rest of a
 * split reference) through itself, the others to the level below */
static void drain(rt_hier *h, hcache *c);

static void copyback(rt_hier *h, hcache *c, pend m);
static void invalidate(rt_hier *h, hcache *c, pend m);

/* A reference from above to an exclusive cache c (not a write): a fetch
 * gives the line up (its dirty data written below first) or, missing, goes
 * below without a fill; a clean victim of the caches above is filled in
 * (unless an inclusive level below dropped the block while it was queued). */
static void exclusive_ref(rt_hier *h, hcache *c, pend m, uint32_t set, int w, uint64_t blk)
{
    store *s = &c->m;
    uint64_t bsize = 1ull << c->lg2b;
    if (m.type == T_FILL) {
        if (c->above_inclusive) { /* an inclusive level below evicted it meanwhile: gone */
            const hcache *d = c->down;
            uint64_t db = blk << c->lg2b >> d->lg2b;
            if (store_find(&d->m, set_of(&d->m, db), db) < 0)
                return;
        }
        c->st.victim_fills++;
        if (w >= 0) {
            fail(h, store_hit(s, set, (unsigned)w, &h->err));
            return;
        }
        victim vic = {0, 0, 0, 0};
        unsigned way;
        int st = store_alloc(s, set, blk, &way, &vic, &h->err);
        if (st != RT_OK) {
            fail(h, st);
            return;
        }
        s->valid[(uint64_t)set * s->ways + way] = 1;
        if (vic.valid && (vic.valid_bits & vic.dirty_bits))
            write_back(h, c, c, vic.blk, vic.valid_bits, vic.dirty_bits);
        else if (vic.valid && c->above_exclusive)
            push(h, c, vic.blk << c->lg2b, bsize, T_FILL);
        if (vic.valid && c->cfg.inclusive)
            back_invalidate(h, c, c, vic.blk << c->lg2b, (vic.blk << c->lg2b) + bsize);
        return;
    }
    int t = m.type & 15;
    c->st.fetch[t]++;
    if (w < 0) {
        c->st.miss[t]++;
        c->st.blockmiss[t]++;
        push(h, c, m.addr & ~(bsize - 1), bsize, T_BASIC(m.type));
        return;
    }
    uint64_t slot = (uint64_t)set * s->ways + (unsigned)w;
    if (s->valid[slot] & s->dirty[slot])
        write_back(h, c, c, blk, s->valid[slot], s->dirty[slot]);
    store_empty(s, slot);
}

/* one reference through one cache (Dinero IV's d4ref, without the queue) */
static void ref_one(rt_hier *h, hcache *c, pend m)
{
    if (c->is_mem) {
        c->st.fetch[m.type & 15]++;
        return;
    }
    if (m.type == T_COPYB) {
        copyback(h, c, m);
        return;
    }
    if (m.type == T_INVAL) {
        invalidate(h, c, m);
        return;
    }
    const unsigned lb = c->lg2b, lsb = c->lg2sb;
    const uint64_t bsize = 1ull << lb;
    if (m.size == 0)
        m.size = 1;
    if (m.addr + m.size - 1 < m.addr) /* no wrap past the top of the address space */
        m.size = 0 - m.addr;
    uint64_t blkaddr = m.addr & ~(bsize - 1);
    if (blkaddr != ((m.addr + m.size - 1) & ~(bsize - 1))) {
        uint64_t first = bsize - (m.addr & (bsize - 1));
        push(h, c, blkaddr + bsize, m.size - first, m.type | T_MULTI);
        c->st.multiblock++;
        m.size = first;
    }
    const uint64_t blk = m.addr >> lb;
    const int atype = T_BASIC(m.type);
    const uint32_t set = set_of(&c->m, blk);
    const unsigned nsb = (unsigned)(((m.addr + m.size - 1) >> lsb) - (m.addr >> lsb) + 1);
    const uint64_t span = (uint64_t)nsb << lsb; /* the bytes of the sub-blocks touched */
    const uint32_t sbbits = (uint32_t)(lowmask(nsb) << ((m.addr - blkaddr) >> lsb));
    const rt_hcache_config *cf = &c->cfg;
    const int walloc = atype == T_WRITE
                       && (cf->walloc == RT_WPOL_ALWAYS
                           || (cf->walloc == RT_WPOL_NOFETCH && m.size == span));
    store *s = &c->m;
    int w = store_find(s, set, blk);
    uint64_t slot = (uint64_t)set * s->ways + (unsigned)(w < 0 ? 0 : w);
    const int blockmiss = w < 0;
    const int miss = blockmiss || (sbbits & s->valid[slot]) != sbbits;
    if (blockmiss && c->coherent && m.type != T_FILL && !h->cfg.skip_coherence_misses
        && rt_linemap_find(&c->lost, blk)) {
        c->st.coh_miss++;
        rt_linemap_del(&c->lost, blk);
    }
    if (cf->exclusive && atype != T_WRITE) {
        exclusive_ref(h, c, m, set, w, blk);
        return;
    }

    /* prefetch on demand reads and instruction fetches */
    if (cf->fetch != RT_FETCH_DEMAND && (m.type == T_READ || m.type == T_INSTR)) {
        uint64_t sbmask = ~((1ull << lsb) - 1), bmask = ~(bsize - 1);
        uint64_t pa = (m.addr + c->pfdist) & sbmask;
        int go = 1;
        switch (cf->fetch) {
        case RT_FETCH_LOADFWD:
            go = ((m.addr + c->pfdist) & bmask) == (m.addr & bmask);
            break;
        case RT_FETCH_SUBBLOCK:
            if ((pa & bmask) != (m.addr & bmask))
                pa -= bsize;
            break;
        case RT_FETCH_MISS:
            go = miss;
            break;
        case RT_FETCH_TAGGED:
            go = miss || (sbbits & s->refd[slot]) == 0;
            break;
        default:
            break;
        }
        if (go) {
            if (cf->pfabort > 0
                && (int64_t)park_miller(&h->rng) / (INT_MAX / 100) < (int64_t)cf->pfabort)
                ; /* thrown away */
            else
                push(h, c, pa, 1ull << lsb, m.type | T_PF);
        }
    }

    /* update the cache, unless a write misses without allocation */
    int wback = 0;
    if (atype != T_WRITE || !blockmiss || walloc) {
        victim vic = {0, 0, 0, 0};
        unsigned way;
        if (blockmiss) {
            int st = store_alloc(s, set, blk, &way, &vic, &h->err);
            if (st != RT_OK) { /* a policy that failed: no way to fill, the run stops */
                fail(h, st);
                return;
            }
            slot = (uint64_t)set * s->ways + way;
        } else {
            fail(h, store_hit(s, set, (unsigned)w, &h->err));
        }
        s->valid[slot] |= sbbits;
        if (!(m.type & T_PF))
            s->refd[slot] |= sbbits;
        wback = atype == T_WRITE
                && (cf->wback == RT_WPOL_ALWAYS
                    || (cf->wback == RT_WPOL_NOFETCH
                        && ((sbbits & ~s->valid[slot]) == 0 || m.size == span)));
        if (wback)
            s->dirty[slot] |= sbbits;
        if (vic.valid && (vic.valid_bits & vic.dirty_bits))
            write_back(h, c, c, vic.blk, vic.valid_bits, vic.dirty_bits);
        else if (vic.valid && c->above_exclusive)
            push(h, c, vic.blk << lb, bsize, T_FILL);
        if (vic.valid && cf->inclusive)
            back_invalidate(h, c, c, vic.blk << lb, (vic.blk << lb) + bsize);
    }

    /* what goes below: a write-through, the fetch of what missed */
    if (atype == T_WRITE && !wback)
        push(h, c, m.addr, m.size, m.type);
    if (miss && (atype != T_WRITE || (walloc && (m.size != span || c->above_inclusive))))
        push(h, c, m.addr & ~((1ull << lsb) - 1), span, atype == T_WRITE ? T_READ : atype);

    /* compulsory / capacity / conflict */
    if (c->ccc) {
        store *f = &c->full;
        int fw = store_find(f, 0, blk);
        const int fullblockmiss = fw < 0;
        const int fullmiss = fullblockmiss || (sbbits & f->valid[fw]) != sbbits;
        if (atype != T_WRITE || !fullblockmiss || walloc) {
            unsigned way;
            victim vic;
            if (fullblockmiss) {
                int st = store_alloc(f, 0, blk, &way, &vic, &h->err);
                if (st != RT_OK) {
                    fail(h, st);
                    return;
                }
                fw = (int)way;
            } else {
                fail(h, store_hit(f, 0, (unsigned)fw, &h->err));
            }
            f->valid[fw] |= sbbits;
        }
        if (miss) {
            int inf = 0;
            int t = m.type & 15;
            if (!fullmiss) {
                c->st.conf[t]++;
            } else {
                inf = infinite(h, c, blk, sbbits, nsb);
                if (inf != 0)
                    c->st.comp[t]++;
                else
                    c->st.cap[t]++;
            }
            if (blockmiss) {
                if (!fullblockmiss)
                    c->st.conf_block[t]++;
                else if (inf == 1)
                    c->st.comp_block[t]++;
                else
                    c->st.cap_block[t]++;
            }
        }
    }

    int t = m.type & 15;
    c->st.fetch[t]++;
    if (miss) {
        c->st.miss[t]++;
        if (blockmiss)
            c->st.blockmiss[t]++;
    }
}

static void drain(rt_hier *h, hcache *c)
{
    while (c->np) {
        pend p = c->pq[--c->np];
        if (p.type & T_PF) {
            ref_one(h, c, p);
        } else if (p.type & T_MULTI) {
            p.type &= ~T_MULTI;
            ref_one(h, c, p);
        } else {
            switch (T_BASIC(p.type)) {
            case T_READ:
            case T_INSTR:
            case T_MISC: c->st.bytes_read += p.size; break;
            case T_WRITE:
            case T_FILL: c->st.bytes_written += p.size; break;
            default: break;
            }
            ref_full(h, c->down, p);
        }
    }
}

/* a hit of a cache with c->fast in slot: what store_hit and ref_one do for it */
static inline void hit_at(hcache *c, uint64_t slot, int type)
{
    store *s = &c->m;
    s->hit_stamp[slot] = ++s->clock; /* demand fetch, so refd is never read */
    s->dirty[slot] |= (uint32_t)(type == T_WRITE);
    c->st.fetch[type]++;
}

/* A read, write, instruction fetch or misc reference within one block of a
 * cache with c->fast that hits: what ref_one does for it (no prefetch, no
 * write-through, nothing queued), without the general path. 1 when done. */
static inline int hit_fast(hcache *c, uint64_t addr, uint64_t size, int type)
{
    const unsigned lb = c->lg2b;
    const uint64_t blk = addr >> lb;
    if (((addr + size - 1) >> lb) != blk || addr + size - 1 < addr || size == 0)
        return 0;
    store *s = &c->m;
    const uint32_t set = set_of(s, blk);
    int w = store_find(s, set, blk);
    if (w < 0)
        return 0;
    hit_at(c, (uint64_t)set * s->ways + (unsigned)w, type);
    return 1;
}

/* A miss of such a reference in a cache with c->fast_miss (write-allocate
 * always, not inclusive): the block loaded over the LRU victim, then what
 * ref_one would queue, handled in the order drain would (the fetch, then the
 * victim's write-back). 1 when done. */
static int miss_fast(rt_hier *h, hcache *c, uint64_t addr, uint64_t size, int type)
{
    const unsigned lb = c->lg2b;
    const uint64_t blk = addr >> lb, bsize = 1ull << lb;
    if (((addr + size - 1) >> lb) != blk || addr + size - 1 < addr || size == 0)
        return 0;
    store *s = &c->m;
    const uint32_t set = set_of(s, blk);
    unsigned way;
    victim vic;
    int st = store_alloc(s, set, blk, &way, &vic, &h->err);
    if (st != RT_OK) {
        fail(h, st);
        return 1;
    }
    uint64_t slot = (uint64_t)set * s->ways + way;
    s->valid[slot] = s->refd[slot] = 1;
    s->dirty[slot] = (uint32_t)(type == T_WRITE);
    c->st.fetch[type]++;
    c->st.miss[type]++;
    c->st.blockmiss[type]++;
    if (type != T_WRITE || size != bsize) {
        c->st.bytes_read += bsize;
        ref_full(h, c->down, (pend){blk << lb, bsize, type == T_WRITE ? T_READ : type});
    }
    if (vic.valid && (vic.valid_bits & vic.dirty_bits)) {
        c->st.bytes_written += bsize;
        ref_full(h, c->down, (pend){vic.blk << lb, bsize, T_WRITE});
    }
    return 1;
}

static void ref_full(rt_hier *h, hcache *c, pend m)
{
    if (c->is_mem) {
        c->st.fetch[m.type & 15]++;
        return;
    }
    if (c->fast && m.type <= T_MISC) {
        if (hit_fast(c, m.addr, m.size, m.type))
            return;
        if (c->fast_miss && miss_fast(h, c, m.addr, m.size, m.type))
            return;
    }
    ref_one(h, c, m);
    drain(h, c);
}

/* Order of a stack, top first: Dinero IV keeps each set as a stack, LRU by
 * last reference, the others by load (a policy says which with
 * stack_by_last); a whole-cache copy-back walks it top to bottom. */
static uint64_t order_key(const store *s, uint64_t slot)
{
    if (s->stamped) /* their word is that stamp */
        return s->wd[slot];
    return s->ops == &rt_policy_lru || s->ops->stack_by_last ? s->used_at[slot] : s->loaded[slot];
}

static void copyback(rt_hier *h, hcache *c, pend m)
{
    store *s = &c->m;
    push(h, c, m.addr, m.size, T_COPYB); /* goes on below, after this cache's lines */
    if (m.size > 0) {
        uint64_t blk = m.addr >> c->lg2b;
        uint32_t set = set_of(s, blk);
        int w = store_find(s, set, blk);
        if (w >= 0) {
            uint64_t slot = (uint64_t)set * s->ways + (unsigned)w;
            if (s->valid[slot] & s->dirty[slot]) {
                write_back(h, c, c, blk, s->valid[slot], s->dirty[slot]);
                s->dirty[slot] = 0;
            }
        }
    } else {
        for (uint32_t set = 0; set < s->sets; set++) {
            uint64_t base = (uint64_t)set * s->ways;
            uint64_t prev = UINT64_MAX;
            /* top to bottom: decreasing keys (each set has at most `ways`) */
            for (;;) {
                uint64_t best = 0;
                int bw = -1;
                for (uint32_t w = 0; w < s->ways; w++) {
                    uint64_t k = order_key(s, base + w);
                    if (s->tag[base + w] != EMPTY && k < prev && (bw < 0 || k > best)) {
                        best = k;
                        bw = (int)w;
                    }
                }
                if (bw < 0)
                    break;
                prev = best;
                uint64_t slot = base + (unsigned)bw;
                if (s->valid[slot] & s->dirty[slot]) {
                    write_back(h, c, c, s->tag[slot], s->valid[slot], s->dirty[slot]);
                    s->dirty[slot] = 0;
                }
            }
        }
    }
    drain(h, c);
}

static void invalidate(rt_hier *h, hcache *c, pend m)
{
    push(h, c, m.addr, m.size, T_INVAL);
    store *stores[2] = {&c->m, c->ccc ? &c->full : NULL};
    for (int k = 0; k < 2; k++) {
        store *s = stores[k];
        if (!s)
            continue;
        if (m.size > 0) {
            uint64_t blk = m.addr >> c->lg2b;
            uint32_t set = set_of(s, blk);
            int w = store_find(s, set, blk);
            if (w >= 0)
                store_empty(s, (uint64_t)set * s->ways + (unsigned)w);
        } else {
            uint64_t n = (uint64_t)s->sets * s->ways;
            for (uint64_t i = 0; i < n; i++)
                if (s->tag[i] != EMPTY)
                    store_empty(s, i);
        }
    }
    if (c->ccc) {
        if (m.size == 0) {
            rt_linemap_clear(&c->inf);
        } else {
            /* as Dinero IV does: the first log2(sub-blocks per block) sub-blocks */
            uint32_t *seen = rt_linemap_find(&c->inf, m.addr >> c->lg2b);
            if (seen)
                *seen &= ~(uint32_t)lowmask(c->lg2b - c->lg2sb);
        }
    }
    drain(h, c);
}

/* ---------------------------------------------------------------- the hierarchy */

static unsigned lg2(uint64_t x)
{
    unsigned n = 0;
    while (x > 1) {
        x >>= 1;
        n++;
    }
    return n;
}

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

void rt_hier_config_init(rt_hier_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->seed = 1;
}

rt_hcache_config rt_hcache_defaults(uint64_t size, uint64_t block)
{
    rt_hcache_config c;
    memset(&c, 0, sizeof c);
    c.present = 1;
    c.size = size;
    c.block = block;
    c.subblock = block;
    c.assoc = 1;
    c.policy = "lru";
    c.fetch = RT_FETCH_DEMAND;
    c.pfdist = 1;
    c.walloc = RT_WPOL_ALWAYS;
    c.wback = RT_WPOL_ALWAYS;
    return c;
}

void rt_hier_config_single(rt_hier_config *cfg, uint64_t size, uint64_t block, uint64_t ways)
{
    rt_hier_config_init(cfg);
    cfg->levels = 1;
    cfg->c[0][RT_HIER_UNIFIED] = rt_hcache_defaults(size, block);
    cfg->c[0][RT_HIER_UNIFIED].assoc = ways;
}

static const char *const which_name = "uid";

static int policy_of(const rt_hcache_config *c, const rt_policy_ops **ops, rt_err *err)
{
    if (c->ops) {
        *ops = c->ops;
        return RT_OK;
    }
    const char *p = c->policy ? c->policy : "lru";
    if (!strcmp(p, "plru")) {
        *ops = &rt_policy_plru;
        return RT_OK;
    }
    if (!strcmp(p, "d4random")) {
        *ops = &rt_policy_d4random;
        return RT_OK;
    }
    if ((*ops = rt_policy_builtin(p)))
        return RT_OK;
    return rt_err_set(err, RT_EINVAL,
                      "policy: unknown '%s' (lru lfu fifo lifo clock random plru d4random)", p);
}

static int check_cache(const rt_hcache_config *c, unsigned lev, int which, rt_err *err)
{
    char who[32];
    snprintf(who, sizeof who, "l%u-%ccache", lev + 1, which_name[which]);
    uint64_t sub = c->subblock ? c->subblock : c->block;
    if (!is_pow2(c->size))
        return rt_err_set(err, RT_EINVAL, "%s: size %llu is not a power of two", who,
                          (unsigned long long)c->size);
    if (!is_pow2(c->block))
        return rt_err_set(err, RT_EINVAL, "%s: block size %llu is not a power of two", who,
                          (unsigned long long)c->block);
    if (!is_pow2(sub) || sub > c->block)
        return rt_err_set(err, RT_EINVAL,
                          "%s: sub-block size %llu is not a power of two at most the block size",
                          who, (unsigned long long)sub);
    if (c->block / sub > 32)
        return rt_err_set(err, RT_EINVAL, "%s: more than 32 sub-blocks in a block", who);
    if (c->block > c->size)
        return rt_err_set(err, RT_EINVAL, "%s: block size %llu is larger than the cache", who,
                          (unsigned long long)c->block);
    uint64_t lines = c->size / c->block, assoc = c->assoc ? c->assoc : lines;
    if (assoc > lines || lines % assoc)
        return rt_err_set(err, RT_EINVAL, "%s: associativity %llu does not divide the %llu blocks",
                          who, (unsigned long long)assoc, (unsigned long long)lines);
    if (c->fetch < RT_FETCH_DEMAND || c->fetch > RT_FETCH_SUBBLOCK)
        return rt_err_set(err, RT_EINVAL, "%s: unknown fetch policy", who);
    if (c->walloc < 0 || c->walloc > RT_WPOL_NOFETCH || c->wback < 0 || c->wback > RT_WPOL_NOFETCH)
        return rt_err_set(err, RT_EINVAL, "%s: unknown write policy", who);
    if (c->pfabort > 100)
        return rt_err_set(err, RT_EINVAL, "%s: prefetch abort %u is above 100 percent", who,
                          c->pfabort);
    const rt_policy_ops *ops;
    int st = policy_of(c, &ops, err);
    if (st != RT_OK)
        return rt_hier_err_prefix(err, st, who);
    if (ops == &rt_policy_plru && (!is_pow2(assoc) || assoc > 64))
        return rt_err_set(err, RT_EINVAL, "%s: plru needs a power-of-two associativity up to 64",
                          who);
    if (c->ops && c->ccc)
        return rt_err_set(err, RT_EINVAL, "%s: a policy of your own cannot classify misses (ccc)", who);
    if (ops == &rt_policy_plru && c->ccc)
        return rt_err_set(err, RT_EINVAL, "%s: plru cannot classify misses (ccc)", who);
    if (!ops->victim)
        return rt_err_set(err, RT_EINVAL, "%s: policy %s has no victim hook", who, ops->name);
    return RT_OK;
}

unsigned rt_hier_private_levels(const rt_hier_config *cfg)
{
    if (cfg->cores <= 1)
        return cfg->levels;
    for (unsigned l = 0; l < cfg->levels; l++)
        for (int k = 0; k < 3; k++)
            if (cfg->c[l][k].present && cfg->c[l][k].sharing == RT_SHARE_SHARED)
                return l;
    /* none marked shared: the last level is, unless it is the only one or marked private */
    unsigned last = cfg->levels ? cfg->levels - 1 : 0;
    for (int k = 0; k < 3; k++)
        if (cfg->c[last][k].present && cfg->c[last][k].sharing == RT_SHARE_PRIVATE)
            return cfg->levels;
    return cfg->levels > 1 ? last : cfg->levels;
}

/* a multi-core machine: private levels over shared ones, private caches MESI can keep */
static int check_cores(const rt_hier_config *cfg, rt_err *err)
{
    if (cfg->cores > RT_HIER_MAX_CORES)
        return rt_err_set(err, RT_EINVAL, "cores: %u (at most %d)", cfg->cores, RT_HIER_MAX_CORES);
    if (cfg->cores <= 1)
        return RT_OK;
    unsigned np = rt_hier_private_levels(cfg);
    uint64_t block = 0;
    for (unsigned l = 0; l < cfg->levels; l++)
        for (int k = 0; k < 3; k++) {
            const rt_hcache_config *c = &cfg->c[l][k];
            if (!c->present)
                continue;
            if (l >= np && c->sharing == RT_SHARE_PRIVATE)
                return rt_err_set(err, RT_EINVAL, "l%u-%ccache: private below a shared level", l + 1,
                                  which_name[k]);
            if (l >= np)
                continue;
            if (l < np && c->sharing == RT_SHARE_SHARED)
                return rt_err_set(err, RT_EINVAL, "l%u-%ccache: shared above a private level", l + 1,
                                  which_name[k]);
            if (!block)
                block = c->block;
            if (c->block != block || (c->subblock && c->subblock != c->block))
                return rt_err_set(err, RT_EINVAL,
                                  "l%u-%ccache: with several cores the private caches have one block "
                                  "size (%llu) and no sub-blocks", l + 1, which_name[k],
                                  (unsigned long long)block);
            if (c->fetch != RT_FETCH_DEMAND)
                return rt_err_set(err, RT_EINVAL,
                                  "l%u-%ccache: with several cores the private caches fetch on demand",
                                  l + 1, which_name[k]);
        }
    return RT_OK;
}

/* an exclusive cache: a victim cache of the level above, which writes back */
static int check_exclusive(const rt_hier_config *cfg, rt_err *err)
{
    for (unsigned l = 0; l < cfg->levels; l++)
        for (int k = 0; k < 3; k++) {
            const rt_hcache_config *c = &cfg->c[l][k];
            if (!c->present || !c->exclusive)
                continue;
            char who[32];
            snprintf(who, sizeof who, "l%u-%ccache", l + 1, which_name[k]);
            if (l == 0)
                return rt_err_set(err, RT_EINVAL, "%s: exclusive needs a level above it", who);
            if (c->inclusive)
                return rt_err_set(err, RT_EINVAL, "%s: both inclusive and exclusive", who);
            if (c->ccc || c->fetch != RT_FETCH_DEMAND || (c->subblock && c->subblock != c->block)
                || c->walloc != RT_WPOL_ALWAYS || c->wback != RT_WPOL_ALWAYS)
                return rt_err_set(err, RT_EINVAL,
                                  "%s: an exclusive cache fetches on demand, writes back and allocates "
                                  "always, without sub-blocks or classification", who);
            for (int a = 0; a < 3; a++) {
                const rt_hcache_config *u = &cfg->c[l - 1][a];
                /* the caches whose misses come here: a data cache goes to the data
                 * or unified one, the others to the instruction or unified one */
                if (!u->present || (k == RT_HIER_DATA && a != RT_HIER_DATA)
                    || (k == RT_HIER_INSTR && a == RT_HIER_DATA))
                    continue;
                if (u->block != c->block || u->wback != RT_WPOL_ALWAYS
                    || (u->subblock && u->subblock != u->block))
                    return rt_err_set(err, RT_EINVAL,
                                      "%s: the caches above an exclusive one write back and have its "
                                      "block size (%llu) without sub-blocks", who,
                                      (unsigned long long)c->block);
            }
        }
    return RT_OK;
}

int rt_hier_check(const rt_hier_config *cfg, rt_err *err)
{
    if (cfg->levels < 1 || cfg->levels > RT_HIER_MAX_LEVELS)
        return rt_err_set(err, RT_EINVAL, "hierarchy: %u levels (1 to %d)", cfg->levels,
                          RT_HIER_MAX_LEVELS);
    for (unsigned l = 0; l < cfg->levels; l++)
        for (int k = 0; k < 3; k++)
            if (cfg->c[l][k].present) {
                int st = check_cache(&cfg->c[l][k], l, k, err);
                if (st != RT_OK)
                    return st;
            }
    for (unsigned l = 0; l < cfg->levels; l++) {
        const rt_hcache_config *u = &cfg->c[l][0], *i = &cfg->c[l][1], *d = &cfg->c[l][2];
        if (u->present && (i->present || d->present))
            return rt_err_set(err, RT_EINVAL,
                              "level %u: both a unified and a split cache", l + 1);
        if (!u->present && !(i->present && d->present))
            return rt_err_set(err, RT_EINVAL,
                              "level %u: no cache (a unified one, or an instruction and a data one)",
                              l + 1);
    }
    for (unsigned l = cfg->levels; l < RT_HIER_MAX_LEVELS; l++)
        for (int k = 0; k < 3; k++)
            if (cfg->c[l][k].present)
                return rt_err_set(err, RT_EINVAL, "level %u: a cache below the last level %u",
                                  l + 1, cfg->levels);
    int st = check_exclusive(cfg, err);
    if (st != RT_OK)
        return st;
    return check_cores(cfg, err);
}

static void cache_destroy(hcache *c)
{
    if (!c->cfg.present)
        return;
    store_destroy(&c->m);
    if (c->ccc) {
        store_destroy(&c->full);
        rt_linemap_destroy(&c->inf);
    }
    if (c->coherent)
        rt_linemap_destroy(&c->lost);
    free(c->pq);
}

void rt_hier_free(rt_hier *h)
{
    if (!h)
        return;
    for (unsigned l = 0; l < RT_HIER_MAX_LEVELS; l++)
        for (int k = 0; k < 3; k++)
            cache_destroy(&h->c[l][k]);
    if (h->extra)
        for (size_t i = 0; i < (size_t)(h->cores - 1) * h->npriv * 3; i++)
            cache_destroy(&h->extra[i]);
    free(h->extra);
    free(h->sw);
    free(h->mem.pq);
    free(h);
}

static int cache_new(rt_hier *h, hcache *c, const rt_hcache_config *cf, unsigned lev, int which,
                     unsigned core, rt_err *err)
{
    c->cfg = *cf;
    if (!c->cfg.subblock)
        c->cfg.subblock = c->cfg.block;
    if (!c->cfg.pfdist)
        c->cfg.pfdist = 1;
    snprintf(c->name, sizeof c->name, "l%u-%ccache", lev + 1, which_name[which]);
    c->lg2b = lg2(c->cfg.block);
    c->lg2sb = lg2(c->cfg.subblock);
    c->pfdist = c->cfg.pfdist * c->cfg.subblock;
    uint64_t lines = c->cfg.size / c->cfg.block;
    uint64_t assoc = c->cfg.assoc ? c->cfg.assoc : lines;
    const rt_policy_ops *ops;
    int st = policy_of(cf, &ops, err);
    if (st != RT_OK)
        return st;
    void *ud = cf->ops && cf->core_ud && lev < h->npriv ? cf->core_ud[core]
               : cf->ops                                 ? cf->ops_ud
               : ops == &rt_policy_d4random              ? (void *)&h->rng
                                                         : NULL;
    if ((st = store_new(&c->m, lines / assoc, assoc, ops, ud, h->cfg.seed, err)) != RT_OK)
        return st;
    c->fast = cf->fetch == RT_FETCH_DEMAND && !cf->ccc && c->lg2b == c->lg2sb && c->m.hit_stamp
              && cf->wback == RT_WPOL_ALWAYS;
    c->above_inclusive = !c->down->is_mem && c->down->cfg.inclusive;
    c->above_exclusive = !c->down->is_mem && c->down->cfg.exclusive;
    c->fast = c->fast && !cf->exclusive;
    c->fast_miss = c->fast && cf->walloc == RT_WPOL_ALWAYS && !cf->inclusive
                   && (!c->coherent || h->cfg.skip_coherence_misses)
                   && !c->above_inclusive && !c->above_exclusive;
    if (c->coherent && rt_linemap_init(&c->lost, 64) != RT_OK) {
        store_destroy(&c->m);
        return rt_err_set(err, RT_ENOMEM, "coherence: out of memory");
    }
    if (cf->ccc) {
        if ((st = store_new(&c->full, 1, lines, ops, ud, h->cfg.seed, err)) != RT_OK) {
            store_destroy(&c->m);
            if (c->coherent)
                rt_linemap_destroy(&c->lost);
            return st;
        }
        if (rt_linemap_init(&c->inf, 1024) != RT_OK) {
            store_destroy(&c->m);
            store_destroy(&c->full);
            if (c->coherent)
                rt_linemap_destroy(&c->lost);
            return rt_err_set(err, RT_ENOMEM, "classify: out of memory");
        }
        c->ccc = 1;
    }
    return RT_OK;
}

/* the stores' arrays (a copy per core of the private levels) against the
 * machine's memory (rt_mem_physical), refused up front rather than found
 * missing while the tags are written */
static int check_memory(const rt_hier_config *cfg, rt_err *err)
{
    unsigned cores = cfg->cores > 1 ? cfg->cores : 1, npriv = rt_hier_private_levels(cfg);
    double need = 0;
    uint64_t most = 0;
    for (unsigned l = 0; l < cfg->levels; l++)
        for (int k = 0; k < 3; k++) {
            const rt_hcache_config *c = &cfg->c[l][k];
            if (!c->present)
                continue;
            uint64_t lines = c->size / c->block, assoc = c->assoc ? c->assoc : lines;
            /* tag, valid, dirty, referenced, two clocks, signature, a policy word */
            double per = 8 + 3 * 4 + 16 + 1 + 8 + (assoc > SCAN_WAYS ? 32 : 0);
            double one = (double)lines * per * (c->ccc ? 2 : 1);
            need += one * (l < npriv ? cores : 1);
            most = lines > most ? lines : most;
        }
    unsigned long long have = rt_mem_physical();
    if (have && need > (double)have)
        return rt_err_set(err, RT_ENOMEM, "cache: out of memory: %llu lines need %.1f GiB of simulator "
                          "state, more than the machine's memory (%.1f GiB)", (unsigned long long)most,
                          need / 1073741824.0, (double)have / 1073741824.0);
    return RT_OK;
}

int rt_hier_new(const rt_hier_config *cfg, rt_hier **out, rt_err *err)
{
    *out = NULL;
    int st = rt_hier_check(cfg, err);
    if (st != RT_OK)
        return st;
    if ((st = check_memory(cfg, err)) != RT_OK)
        return st;
    rt_hier *h = calloc(1, sizeof *h);
    if (!h)
        return rt_err_set(err, RT_ENOMEM, "hierarchy: out of memory");
    h->cfg = *cfg;
    if (!h->cfg.seed)
        h->cfg.seed = 1;
    h->rng = 1;
    h->mem.is_mem = 1;
    snprintf(h->mem.name, sizeof h->mem.name, "memory");
    h->cores = cfg->cores > 1 ? cfg->cores : 1;
    h->npriv = rt_hier_private_levels(cfg);
    if (h->cores > 1 && h->npriv > 0) {
        h->extra = calloc((size_t)(h->cores - 1) * h->npriv * 3, sizeof *h->extra);
        if (!h->extra) {
            free(h);
            return rt_err_set(err, RT_ENOMEM, "hierarchy: out of memory");
        }
    }
    /* from the bottom up, as Dinero IV links them: a unified cache's misses go
     * to the instruction side below; the shared levels once, then each core's
     * private ones over them */
    hcache *sci = &h->mem, *scd = &h->mem;
    for (unsigned p = 0; p < h->cores; p++) {
        hcache *ci = sci, *cd = scd;
        for (unsigned l = cfg->levels; l-- > 0;) {
            if (l >= h->npriv && p > 0)
                continue; /* the shared levels: linked with core 0 */
            for (int k = 0; k < 3; k++) {
                const rt_hcache_config *cf = &cfg->c[l][k];
                if (!cf->present)
                    continue;
                hcache *c = cache_of(h, p, l, k);
                c->down = k == RT_HIER_DATA ? cd : ci;
                if (!c->down->is_mem)
                    c->down->up[c->down->nup++] = c;
                c->coherent = h->cores > 1 && l < h->npriv;
                if ((st = cache_new(h, c, cf, l, k, p, err)) != RT_OK) {
                    c->cfg.present = 0;
                    rt_hier_free(h);
                    return st;
                }
                if (k == RT_HIER_UNIFIED)
                    ci = cd = c;
                else if (k == RT_HIER_INSTR)
                    ci = c;
                else
                    cd = c;
            }
            if (l == h->npriv && p == 0) { /* the first shared level: every core's below */
                sci = ci;
                scd = cd;
            }
        }
        h->core_ci[p] = ci;
        h->core_cd[p] = cd;
    }
    h->ci = h->core_ci[0];
    h->cd = h->core_cd[0];
    *out = h;
    return RT_OK;
}

static int status(rt_hier *h)
{
    return h->status;
}

/* ---------------------------------------------------------------- coherence (MESI) */

/* Core p references block blk (write: a store): the other cores' private
 * caches answer as rt_hier.h says, from the first level down (a dirty
 * level-1 line written back lands in the level below, which then answers). */
static void snoop(rt_hier *h, unsigned p, uint64_t blk, int write)
{
    unsigned holders = 0;
    for (unsigned q = 0; q < h->cores; q++) {
        if (q == p)
            continue;
        int held = 0;
        for (unsigned l = 0; l < h->npriv; l++)
            for (int k = 0; k < 3; k++) {
                hcache *c = cache_of(h, q, l, k);
                if (!c->cfg.present)
                    continue;
                store *s = &c->m;
                uint32_t set = set_of(s, blk);
                int w = store_find(s, set, blk);
                if (w < 0)
                    continue;
                held = 1;
                uint64_t slot = (uint64_t)set * s->ways + (unsigned)w;
                unsigned answer = rt_mesi_answer((s->valid[slot] & s->dirty[slot]) ? 'M' : 'S', write);
                if (answer & RT_MESI_WRITEBACK) {
                    c->st.snoop_wb++;
                    h->snoop_wb |= 1ull << q;
                    write_back(h, c, c, blk, s->valid[slot], s->dirty[slot]);
                    s->dirty[slot] = 0;
                    drain(h, c);
                    /* an inclusive level below may have taken the line meanwhile */
                    w = store_find(s, set, blk);
                    slot = (uint64_t)set * s->ways + (unsigned)(w < 0 ? 0 : w);
                }
                if ((answer & RT_MESI_INVALIDATE) && w >= 0) {
                    store_empty(s, slot);
                    c->st.inval_recv++;
                    h->snoop_inval |= 1ull << q;
                    int added;
                    if (!h->cfg.skip_coherence_misses && !rt_linemap_slot(&c->lost, blk, &added))
                        fail(h, rt_err_set(&h->err, RT_ENOMEM, "coherence: out of memory"));
                }
            }
        holders += (unsigned)held;
    }
    if (write)
        h->core_cd[p]->st.inval_sent += holders;
}

/* before core p's reference enters its first level: the snoops it causes
 * (rt_mesi.h). A block the first level holds needs none for a load, nor for a
 * store when held dirty: no other core can hold it (every store took the
 * others' copies away). Clean and held is E or S: the rule treats them alike. */
static void coherence(rt_hier *h, unsigned p, const rt_memref *ref)
{
    hcache *e = ref->kind == RT_REF_IFETCH ? h->core_ci[p] : h->core_cd[p];
    int write = ref->kind == RT_REF_WRITE;
    uint64_t size = ref->size ? ref->size : 1;
    if (ref->addr + size - 1 < ref->addr)
        size = 0 - ref->addr;
    const store *s = &e->m;
    for (uint64_t b = ref->addr >> e->lg2b; b <= (ref->addr + size - 1) >> e->lg2b; b++) {
        uint32_t set = set_of(s, b);
        int w = store_find(s, set, b);
        int mine = w < 0 ? 'I' : s->dirty[(uint64_t)set * s->ways + (unsigned)w] ? 'M' : 'S';
        if (!rt_mesi_snoops(mine, write))
            continue;
        snoop(h, p, b, write);
    }
}

int rt_hier_mesi(const rt_hier *h, unsigned core, uint64_t addr)
{
    core %= h->cores;
    int mine = 0, dirty = 0, others = 0;
    for (unsigned q = 0; q < h->cores; q++)
        for (unsigned l = 0; l < h->npriv; l++)
            for (int k = 0; k < 3; k++) {
                const hcache *c = cache_of(h, q, l, k);
                if (!c->cfg.present)
                    continue;
                uint64_t blk = addr >> c->lg2b;
                uint32_t set = set_of(&c->m, blk);
                int w = store_find(&c->m, set, blk);
                if (w < 0)
                    continue;
                if (q != core) {
                    others = 1;
                    continue;
                }
                mine = 1;
                uint64_t slot = (uint64_t)set * c->m.ways + (unsigned)w;
                dirty |= (c->m.valid[slot] & c->m.dirty[slot]) != 0;
            }
    return !mine ? 'I' : dirty ? 'M' : rt_mesi_after(0, others);
}

/* ---------------------------------------------------------------- entry */

static int ref_entry(rt_hier *h, hcache *ci, hcache *cd, const rt_memref *ref)
{
    if (ref->kind <= RT_REF_MISC) {
        hcache *c = ref->kind == RT_REF_IFETCH ? ci : cd;
        if (c->fast && hit_fast(c, ref->addr, ref->size, ref->kind))
            return RT_OK;
        if (c->fast_miss && miss_fast(h, c, ref->addr, ref->size, ref->kind))
            return h->status;
    }
    pend m = {ref->addr, ref->size, ref->kind};
    switch (ref->kind) {
    case RT_REF_IFETCH: ref_full(h, ci, m); break;
    case RT_REF_INVALIDATE:
        ref_full(h, ci, m);
        ref_full(h, cd, m);
        break;
    default: ref_full(h, cd, m); break;
    }
    return status(h);
}

int rt_hier_ref(rt_hier *h, const rt_memref *ref)
{
    if (h->cores > 1)
        return rt_hier_ref_core(h, 0, ref);
    return ref_entry(h, h->ci, h->cd, ref);
}

int rt_hier_ref_core(rt_hier *h, unsigned core, const rt_memref *ref)
{
    if (h->cores == 1)
        return ref_entry(h, h->ci, h->cd, ref);
    core %= h->cores;
    if (ref->kind <= RT_REF_MISC)
        coherence(h, core, ref);
    return ref_entry(h, h->core_ci[core], h->core_cd[core], ref);
}

int rt_hier_set_cores(rt_hier *h, const uint64_t *sw, size_t n, rt_err *err)
{
    for (size_t i = 1; i < n; i++)
        if (sw[2 * i] < sw[2 * i - 2])
            return rt_err_set(err, RT_EINVAL, "cores: switch at %llu comes after one at %llu",
                              (unsigned long long)sw[2 * i], (unsigned long long)sw[2 * i - 2]);
    uint64_t *copy = NULL;
    if (n) {
        copy = malloc(2 * n * sizeof *copy);
        if (!copy)
            return rt_err_set(err, RT_ENOMEM, "cores: out of memory");
        memcpy(copy, sw, 2 * n * sizeof *copy);
    }
    free(h->sw);
    h->sw = copy;
    h->nsw = n;
    return RT_OK;
}

int rt_hier_copyback_all(rt_hier *h)
{
    for (unsigned p = 0; p < h->cores; p++)
        ref_full(h, h->core_cd[p], (pend){0, 0, T_COPYB});
    return status(h);
}

int rt_hier_flush_all(rt_hier *h)
{
    for (unsigned p = 0; p < h->cores; p++) {
        hcache *ci = h->core_ci[p], *cd = h->core_cd[p];
        ref_full(h, cd, (pend){0, 0, T_COPYB});
        ref_full(h, ci, (pend){0, 0, T_INVAL});
        if (ci != cd)
            ref_full(h, cd, (pend){0, 0, T_INVAL});
    }
    return status(h);
}

/* The lines path of rt_hier_run: loads (writes[i] 0) and stores (1), each
 * within one block, into c, the level-1 data cache, which is fast. Hits are
 * handled here with the store's arrays in locals (what hit_fast does), misses
 * by miss_fast or the general path. */
/* done (unless NULL): the references made before a failure, n without one */
static int lines_batch(rt_hier *h, hcache *c, const uint64_t *addrs, const uint8_t *writes, size_t n,
                       size_t *done)
{
    store *s = &c->m;
    if (!s->swar || (!s->set_mask && s->sets != 1)) {
        for (size_t i = 0; i < n; i++) {
            if (hit_fast(c, addrs[i], 1, writes[i]))
                continue;
            rt_memref r = {addrs[i], 1, writes[i]};
            int st = rt_hier_ref(h, &r);
            if (st != RT_OK) {
                if (done)
                    *done = i;
                return st;
            }
        }
        if (done)
            *done = n;
        return RT_OK;
    }
    const unsigned lb = c->lg2b, shift = s->sig_shift;
    const uint64_t mask = s->set_mask, ways = s->ways;
    const uint64_t *tag = s->tag;
    const uint8_t *sig = s->sig;
    uint64_t *wd = s->hit_stamp;
    uint32_t *dirty = s->dirty;
    uint64_t clock = s->clock, hits = 0, write_hits = 0;
    int st = RT_OK;
    size_t i = 0;
    for (; i < n; i++) {
        const uint64_t blk = addrs[i] >> lb;
        int64_t slot = ways == 8 ? swar_find(sig, tag, (blk & mask) * 8, 8, blk, shift)
                                 : swar_find(sig, tag, (blk & mask) * ways, ways, blk, shift);
        if (slot >= 0) {
            wd[slot] = ++clock;
            dirty[slot] |= writes[i];
            hits++;
            write_hits += writes[i];
            continue;
        }
        s->clock = clock;
        if (c->fast_miss) {
            miss_fast(h, c, addrs[i], 1, writes[i]);
            st = h->status;
        } else {
            rt_memref r = {addrs[i], 1, writes[i]};
            st = rt_hier_ref(h, &r);
        }
        clock = s->clock;
        if (st != RT_OK)
            break;
    }
    s->clock = clock;
    c->st.fetch[T_READ] += hits - write_hits;
    c->st.fetch[T_WRITE] += write_hits;
    if (done)
        *done = i;
    return st;
}

int rt_hier_lines_done(rt_hier *h, const uint64_t *addrs, const uint8_t *writes, size_t n,
                       size_t *done)
{
    size_t d = 0;
    int st = RT_OK;
    if (!h->cd->fast || h->cores != 1) { /* the general path, reference by reference */
        for (; d < n; d++) {
            rt_memref r = {addrs[d], 1, writes[d]};
            if ((st = rt_hier_ref(h, &r)) != RT_OK)
                break;
        }
    } else {
        st = lines_batch(h, h->cd, addrs, writes, n, &d);
        if (st == RT_OK)
            st = status(h);
    }
    if (done)
        *done = d;
    return st;
}

int rt_hier_lines(rt_hier *h, const uint64_t *addrs, const uint8_t *writes, size_t n)
{
    return rt_hier_lines_done(h, addrs, writes, n, NULL);
}

uint64_t rt_hier_evictions(const rt_hier *h, unsigned level, int which)
{
    if (level >= h->cfg.levels || which < 0 || which > 2 || !h->c[level][which].cfg.present)
        return 0;
    return h->c[level][which].m.evictions;
}

int rt_hier_run(rt_hier *h, rt_memtrace *t, rt_hier_run_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    rt_memref batch[1024];
    uint64_t addrs[1024];
    uint8_t writes[1024];
    size_t n = 0;
    uint64_t flcount = h->cfg.flushcount;
    int st;
    unsigned core = 0;
    size_t swi = 0;
    uint64_t data = 0; /* records other than instruction fetches so far (switches count them) */
    hcache *cd = h->cd;
    /* with the binary format, runs of loads and stores within one block come
     * as bare addresses: those that hit a fast level-1 cache never leave here */
    int lines = h->cores == 1 && cd->fast && cd->cfg.walloc != RT_WPOL_NOFETCH && !h->cfg.skipcount && !h->cfg.maxcount && !h->cfg.flushcount
                && rt_memtrace_read_lines(t, cd->lg2b, addrs, writes, 0, &n) == RT_OK;
    for (;;) {
        if (lines) {
            rt_memtrace_read_lines(t, cd->lg2b, addrs, writes, sizeof addrs / sizeof addrs[0], &n);
            if (n) {
                /* the reader gives the address; the size is within the block:
                 * without sub-blocks only the block matters */
                if ((st = lines_batch(h, cd, addrs, writes, n, NULL)) != RT_OK)
                    return rt_err_set(err, st, "%s", h->err.msg);
                res->records += n;
                res->simulated += n;
                continue;
            }
        }
        st = rt_memtrace_read(t, batch, lines ? 64 : sizeof batch / sizeof batch[0], &n, err);
        if (st != RT_OK)
            break;
        for (size_t i = 0; i < n; i++) {
            res->records++;
            if (res->records <= h->cfg.skipcount)
                continue;
            if (h->cfg.maxcount && res->simulated >= h->cfg.maxcount) {
                res->maxed = 1;
                goto end;
            }
            const char *bad = rt_memref_bad_size(&batch[i]);
            if (bad)
                return rt_err_set(err, RT_EFORMAT, "record %llu: size: %s",
                                  (unsigned long long)res->records, bad);
            while (swi < h->nsw && h->sw[2 * swi] <= data)
                core = (unsigned)(h->sw[2 * swi++ + 1] % h->cores);
            data += batch[i].kind != RT_REF_IFETCH;
            if ((st = h->cores > 1 ? rt_hier_ref_core(h, core, &batch[i]) : rt_hier_ref(h, &batch[i])) != RT_OK)
                return rt_err_set(err, st, "%s", h->err.msg);
            res->simulated++;
            if (flcount && --flcount == 0) {
                if ((st = rt_hier_flush_all(h)) != RT_OK)
                    return rt_err_set(err, st, "%s", h->err.msg);
                flcount = h->cfg.flushcount;
            }
        }
    }
    if (st != RT_EEOF)
        return st;
end:
    if ((st = rt_hier_copyback_all(h)) != RT_OK)
        return rt_err_set(err, st, "%s", h->err.msg);
    return RT_OK;
}

const rt_hier_stats *rt_hier_stats_get(const rt_hier *h, unsigned level, int which)
{
    if (level == h->cfg.levels)
        return &h->mem.st;
    if (level > h->cfg.levels || which < 0 || which > 2 || !h->c[level][which].cfg.present)
        return NULL;
    return &h->c[level][which].st;
}

const rt_hier_stats *rt_hier_stats_core(const rt_hier *h, unsigned core, unsigned level, int which)
{
    if (level >= h->cfg.levels || core >= h->cores)
        return rt_hier_stats_get(h, level, which);
    if (which < 0 || which > 2 || !h->cfg.c[level][which].present)
        return NULL;
    return &cache_of(h, core, level, which)->st;
}

unsigned rt_hier_cores(const rt_hier *h)
{
    return h->cores;
}

const rt_hier_config *rt_hier_config_get(const rt_hier *h)
{
    return &h->cfg;
}

int rt_hier_probe(const rt_hier *h, unsigned level, int which, uint64_t addr)
{
    return rt_hier_probe_core(h, 0, level, which, addr);
}

int rt_hier_probe_core(const rt_hier *h, unsigned core, unsigned level, int which, uint64_t addr)
{
    if (level >= h->cfg.levels || which < 0 || which > 2 || !h->c[level][which].cfg.present
        || core >= h->cores)
        return 0;
    const hcache *c = cache_of(h, core, level, which);
    uint64_t blk = addr >> c->lg2b;
    return store_find(&c->m, set_of(&c->m, blk), blk) >= 0;
}

uint64_t rt_hier_line_at(const rt_hier *h, unsigned core, unsigned level, int which, uint32_t set,
                         uint32_t way)
{
    if (level >= h->cfg.levels || which < 0 || which > 2 || !h->c[level][which].cfg.present
        || core >= h->cores)
        return EMPTY;
    const store *s = &cache_of(h, core, level, which)->m;
    if (set >= s->sets || way >= s->ways)
        return EMPTY;
    return s->tag[(uint64_t)set * s->ways + way];
}

int rt_hier_err_prefix(rt_err *err, int st, const char *prefix)
{
    char msg[RT_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return rt_err_set(err, st, "%s: %s", prefix, msg);
}

void rt_hier_resume(rt_hier *h)
{
    h->status = RT_OK;
    rt_err_clear(&h->err);
}

const char *rt_hier_error(const rt_hier *h)
{
    return h->err.msg;
}

/* ---------------------------------------------------------------- one reference, told */

/* demand fetches and misses of the kinds that bring data up (reads,
 * instruction fetches, misc) or, with writes, of every demand kind */
static void demand_counts(const hcache *c, int writes, uint64_t *fetch, uint64_t *miss)
{
    *fetch = c->st.fetch[T_READ] + c->st.fetch[T_INSTR] + c->st.fetch[T_MISC];
    *miss = c->st.miss[T_READ] + c->st.miss[T_INSTR] + c->st.miss[T_MISC];
    if (writes) {
        *fetch += c->st.fetch[T_WRITE];
        *miss += c->st.miss[T_WRITE];
    }
}

int rt_hier_access(rt_hier *h, unsigned core, uint64_t addr, uint64_t size, int kind,
                   rt_hier_result *res)
{
    res->evicted = res->evicted_dirty = 0;
    res->evicted_block = res->invalidated = res->snooped = 0;
    res->level = 0;
    if (kind < RT_REF_READ || kind > RT_REF_MISC) {
        memset(res, 0, sizeof *res);
        return rt_err_set(&h->err, RT_EINVAL, "reference: kind %d is not a read, write, "
                          "instruction fetch or misc", kind);
    }
    if (core >= h->cores)
        core %= h->cores;
    hcache *e = kind == RT_REF_IFETCH ? h->core_ci[core] : h->core_cd[core];
    if (size == 0)
        size = 1;
    const uint64_t blk = addr >> e->lg2b;
    if (addr + size - 1 < addr || (addr + size - 1) >> e->lg2b != blk) {
        memset(res, 0, sizeof *res);
        return rt_err_set(&h->err, RT_EINVAL, "reference: 0x%llx+%llu crosses a block of %s",
                          (unsigned long long)addr, (unsigned long long)size, e->name);
    }
    store *s = &e->m;
    const uint32_t set = set_of(s, blk);
    int w = store_find(s, set, blk);
    const unsigned lsb = e->lg2sb;
    const uint64_t slot = (uint64_t)set * s->ways + (unsigned)(w < 0 ? 0 : w);
    if (w < 0) {
        res->hit = 0;
    } else if (e->lg2b == lsb) { /* no sub-blocks: a present block is a hit */
        res->hit = 1;
    } else {
        const uint32_t sbbits = (uint32_t)(lowmask((unsigned)(((addr + size - 1) >> lsb) - (addr >> lsb) + 1))
                                           << ((addr - (blk << e->lg2b)) >> lsb));
        res->hit = (s->valid[slot] & sbbits) == sbbits;
    }
    res->block = blk;
    res->set = set;
    res->way = w < 0 ? UINT32_MAX : (uint32_t)w;
    /* a hit that asks nothing of the other cores (a load, or a store to a
     * line held dirty) and needs nothing below: done here */
    if (res->hit && e->fast && (h->cores == 1 || kind != RT_REF_WRITE || s->dirty[slot])) {
        hit_at(e, slot, kind);
        return RT_OK;
    }
    /* the levels below, with their counts before the reference */
    const hcache *below[RT_HIER_MAX_LEVELS];
    uint64_t f0[2][RT_HIER_MAX_LEVELS], m0[2][RT_HIER_MAX_LEVELS];
    unsigned nb = 0;
    for (const hcache *c = e->down; !c->is_mem && nb < RT_HIER_MAX_LEVELS; c = c->down) {
        below[nb] = c;
        demand_counts(c, 0, &f0[0][nb], &m0[0][nb]);
        demand_counts(c, 1, &f0[1][nb], &m0[1][nb]);
        nb++;
    }
    alloc_rec ar = {0, 0, {0, 0, 0, 0}};
    s->rec = &ar;
    h->snoop_inval = h->snoop_wb = 0;
    rt_memref r = {addr, size, kind};
    int st;
    if (h->cores > 1 && !res->hit) { /* a miss: the snoops, then the general path (no hit to try) */
        coherence(h, core, &r);
        ref_full(h, e, (pend){addr, size, kind});
        st = status(h);
    } else {
        st = rt_hier_ref_core(h, core, &r);
    }
    s->rec = NULL;
    res->invalidated = h->snoop_inval;
    res->snooped = h->snoop_wb;
    if (st != RT_OK)
        return st;
    if (ar.done) { /* the first fill of the first level is the reference's own */
        res->way = ar.way;
    } else if (!res->hit) { /* a write that did not allocate (or came back) */
        w = store_find(s, set, blk);
        res->way = w < 0 ? UINT32_MAX : (uint32_t)w;
    }
    if (ar.done && ar.vic.valid) {
        res->evicted = 1;
        res->evicted_block = ar.vic.blk;
        res->evicted_dirty = (ar.vic.valid_bits & ar.vic.dirty_bits) != 0;
    }
    if (res->hit)
        return RT_OK;
    /* the first level below that fetched and did not miss (or, when nothing
     * reached a level, the one above it, which took the write) */
    res->level = nb + 1;
    for (unsigned l = 0; l < nb; l++) {
        uint64_t f, m;
        demand_counts(below[l], 0, &f, &m);
        int writes = f == f0[0][l];
        if (writes)
            demand_counts(below[l], 1, &f, &m);
        if (f == f0[writes][l] || m == m0[writes][l]) {
            res->level = f == f0[writes][l] ? l : l + 1;
            break;
        }
    }
    return RT_OK;
}
