/*
 * rt_cache.h - one set-associative cache, with pluggable replacement policies.
 *
 * A view of one unified level of rt_hier (rt_hier.h), whose rules (lookup, fill,
 * victim, dirty lines, flushes) it uses: rt_cache.c keeps only units, the
 * write-through mode (stores never reach the hierarchy) and the counters.
 *
 * Shaped for two workloads: SHMAP simulation (sizes in words, one lookup per
 * matrix element, a few caches side by side) and real program traces (sizes in
 * bytes, 10^8 references streamed through one cache at tens of millions of
 * references per second). The cache works in *units*: the caller says what a
 * unit is; addresses given to rt_cache_access are unit addresses.
 *
 * Geometry: size S and line size L (units), powers of two, L <= S; W ways
 * (0 means S/L: fully associative); S/(L*W) sets; a line's set is
 * line mod (number of sets). A miss fills the lowest-numbered empty way of its
 * set; only a full set asks the policy for a victim.
 *
 * Replacement policies are operations tables (Redis dict.h style): the engine
 * keeps, for each way, `way_words` 64-bit words of policy data and, for each
 * set, `set_words` words, and calls the hooks; any hook may be NULL (never
 * called). The six built-ins (LRU, LFU, FIFO, LIFO, Clock, Random) are such
 * tables; a policy written in Lua is another one, living in bindings/.
 *
 * Write policies: write-through-no-write-allocate (SHMAP's: stores never touch
 * the cache and hits/misses count loads only) or write-back-write-allocate
 * (stores look up, allocate on a miss, count, and mark the line dirty; a dirty
 * victim is a writeback).
 */
#ifndef RT_CACHE_H
#define RT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

typedef struct rt_cache rt_cache;

/* What a policy hook sees of one set. Valid only during the hook call. */
typedef struct rt_policy_set {
    uint32_t index;          /* set number, 0-based */
    uint32_t ways;           /* W */
    const uint64_t *lines;   /* line number held by each way (all valid when victim is called) */
    uint64_t *way_data;      /* policy words of way w: way_data[w * way_words + k] */
    uint64_t *set_data;      /* set_words policy words of this set */
    uint64_t seed;           /* the cache's seed (rt_cache_config.seed) */
    rt_err *err;             /* where a failing hook writes its message */
    /* with ops->recency: each way's clock at its last reference (a load
     * counting as one) and at its load, 0 for an empty way; else NULL */
    const uint64_t *last, *loaded;
} rt_policy_set;

/*
 * A replacement policy. `ud` is the policy instance's own data (see
 * rt_cache_config.policy_ud). `now` is the cache's reference clock: the number
 * of lookups so far, counting the current one (1 for the first lookup).
 * Hooks return RT_OK, or a failure status after writing set->err (a Lua
 * policy that raised); the engine then stops and rt_cache_access fails.
 */
typedef struct rt_policy_ops {
    const char *name;        /* "lru", "lfu", ... or a Lua policy's name */
    unsigned way_words;      /* 64-bit words of per-way data the engine keeps (zeroed) */
    unsigned set_words;      /* 64-bit words of per-set data (zeroed) */
    /* 1: the engine records each way's last reference and load (the set's
     * `last` and `loaded`), so a policy ordering lines by them needs no hit
     * hook: hits then stay in the engine's own loop, and a policy written in
     * Lua is called on misses only */
    int recency;
    /* 1: in a hierarchy, Dinero IV's stack order of a set (the order of a
     * whole-cache copy-back) is by last reference, as for LRU; 0: by load */
    int stack_by_last;
    /* once per set when the cache is created or reset */
    int (*init)(void *ud, rt_policy_set *s);
    /* the line in `way` was referenced and was present */
    int (*hit)(void *ud, rt_policy_set *s, unsigned way, uint64_t now);
    /* a line was just loaded into `way` (an empty way or the victim) */
    int (*fill)(void *ud, rt_policy_set *s, unsigned way, uint64_t now);
    /* the set is full: choose the way to evict, 0 <= *way < s->ways */
    int (*victim)(void *ud, rt_policy_set *s, uint64_t now, unsigned *way);
    /* release ud when the cache is freed (NULL: ud is not owned by the cache) */
    void (*free)(void *ud);
} rt_policy_ops;

/* The built-in policies, each per set, ties to the lowest way number:
 *   lru    victim least recently referenced (a fill counts as a reference)
 *   lfu    fewest references since the line was loaded (the load counts as one)
 *   fifo   loaded earliest
 *   lifo   loaded most recently
 *   clock  a hand per set from way 0 and a use bit per way, set on load and on
 *          every hit; on a full-set miss, while the bit under the hand is 1, clear
 *          it and advance; evict under the hand, load there, advance the hand
 *          (fills of empty ways do not move the hand)
 *   random a seeded generator per set (seed and set number), the same seed
 *          giving the same run */
extern const rt_policy_ops rt_policy_lru;
extern const rt_policy_ops rt_policy_lfu;
extern const rt_policy_ops rt_policy_fifo;
extern const rt_policy_ops rt_policy_lifo;
extern const rt_policy_ops rt_policy_clock;
extern const rt_policy_ops rt_policy_random;

/* The built-in policy called name ("lru", ...; case-sensitive), or NULL. */
const rt_policy_ops *rt_policy_builtin(const char *name);

/* Names of the built-ins, NULL-terminated, in the order listed above. */
extern const char *const rt_policy_names[];

/*
 * The built-in policy called name, for every front end (bindings, commands):
 * RT_OK with *out set, or RT_EINVAL with err reading
 * "policy: unknown 'NAME' (built-ins: lru lfu fifo lifo clock random)".
 * name may be NULL (refused like an unknown name).
 */
int rt_policy_lookup(const char *name, const rt_policy_ops **out, rt_err *err);

typedef struct rt_cache_config {
    uint64_t size;               /* S, units; power of two */
    uint64_t line;               /* L, units; power of two, L <= S */
    uint64_t ways;               /* W; 0 = S/L (fully associative); must divide S/L */
    const rt_policy_ops *policy; /* NULL = rt_policy_lru */
    void *policy_ud;             /* passed to every hook; released by policy->free */
    int write_back;              /* 0: write-through-no-write-allocate; 1: write-back-write-allocate */
    uint64_t seed;               /* for rt_policy_random */
} rt_cache_config;

/*
 * The rules of a cache geometry, checked in one place for every front end:
 * size and line powers of two, line <= size, ways 0 (fully associative) or a
 * divisor of size / line (with powers of two: a power of two up to size / line).
 * unit ("words", "bytes" or NULL) is printed after the sizes in the message.
 * Returns RT_OK, or RT_EINVAL with err naming the field
 * ("cache size: 48 is not a power of two", "ways: 3 does not divide the 16 lines of the cache").
 */
int rt_cache_check_geometry(uint64_t size, uint64_t line, uint64_t ways, const char *unit,
                            rt_err *err);

/* The hit ratio hits / (hits + misses), 0 when nothing was looked up: the one
 * definition every report and binding uses. */
double rt_hit_ratio(uint64_t hits, uint64_t misses);

/* A config with the defaults: LRU, fully associative, write-through, seed 1. */
rt_cache_config rt_cache_defaults(uint64_t size, uint64_t line);

/* Counters of one cache. A reference is one lookup; under write-through, stores
 * are counted in `bypassed_writes` only. */
typedef struct rt_cache_stats {
    uint64_t refs;            /* lookups (hits + misses) */
    uint64_t hits, misses;
    uint64_t reads, writes;   /* lookups that were loads / stores */
    uint64_t read_misses, write_misses;
    uint64_t evictions;       /* valid lines replaced */
    uint64_t writebacks;      /* dirty lines written back (evicted or flushed) */
    uint64_t bypassed_writes; /* stores that did not touch the cache (write-through) */
} rt_cache_stats;

/* The outcome of one access. */
typedef struct rt_cache_result {
    int hit;                /* 1 hit, 0 miss (undefined when bypassed) */
    int bypassed;           /* 1: a store under write-through; nothing else is set */
    uint64_t line;          /* line number referenced: addr / L */
    uint32_t set;           /* its set */
    uint32_t way;           /* the way holding it now */
    int evicted;            /* 1 when a valid line was replaced */
    uint64_t evicted_line;  /* the replaced line's number (when evicted) */
    int writeback;          /* 1 when the replaced line was dirty */
} rt_cache_result;

/*
 * Create a cache. Checks the geometry (powers of two, L <= S, W divides S/L,
 * and a policy with a victim hook) and returns RT_EINVAL with err filled on a
 * bad one; RT_ENOMEM on allocation failure. On success *out owns a new cache
 * and the policy instance (policy->free(policy_ud) runs in rt_cache_free); on
 * failure policy->free is also called, so the caller never frees policy_ud.
 * Runs the init hook for every set (a failure is returned as is).
 */
int rt_cache_new(const rt_cache_config *cfg, rt_cache **out, rt_err *err);

/* Free the cache (and its policy instance); NULL is allowed. */
void rt_cache_free(rt_cache *c);

/*
 * One lookup of unit address addr. is_write selects load / store. res may be
 * NULL. Returns RT_OK, or the failure status of a policy hook (the message in
 * rt_cache_error); after a failure the cache should not be used further.
 * (With 1-unit lines the single address UINT64_MAX is refused with RT_ERANGE:
 * its line number marks empty ways.)
 */
int rt_cache_access(rt_cache *c, uint64_t addr, int is_write, rt_cache_result *res);

/*
 * n lookups at once (addr[i], is_write[i]: 0 or 1), for long traces: the same
 * as n calls of rt_cache_access without results. *done (may be NULL) is the
 * number made; on a policy failure it is the index of the failing lookup.
 */
int rt_cache_access_batch(rt_cache *c, const uint64_t *addr, const uint8_t *is_write, size_t n,
                          size_t *done);

/*
 * Reference every line of [addr, addr + size) (size 0 counts as 1): the
 * Dinero IV convention, an access spanning k lines is k lookups. *misses (may
 * be NULL) receives the number of misses among them.
 */
int rt_cache_access_range(rt_cache *c, uint64_t addr, uint64_t size, int is_write,
                          unsigned *misses);

/* Is the line holding unit address addr present? Does not count or touch the policy. */
int rt_cache_probe(const rt_cache *c, uint64_t addr);

/* Write back every dirty line (counted as writebacks) and, when invalidate is
 * set, empty every way. Policy data of emptied ways is zeroed and init rerun. */
int rt_cache_flush(rt_cache *c, int invalidate);

/* Empty every way without writing dirty lines back (counters kept); init rerun. */
int rt_cache_invalidate(rt_cache *c);

/*
 * Empty every present line holding some unit of [addr, addr + size): a flush
 * (invalidate 0) writes the dirty ones back first (counted as writebacks), an
 * invalidate (1) drops them. The emptied ways' policy words are zeroed; other
 * lines, the sets' policy words and the counters are untouched; the next miss
 * in such a set fills its lowest empty way. size 0 means the whole cache, as
 * in Dinero IV: rt_cache_flush(c, 1) or rt_cache_invalidate(c).
 */
int rt_cache_flush_range(rt_cache *c, uint64_t addr, uint64_t size, int invalidate);

/* Empty the cache, zero the counters and the clock, rerun init on every set. */
int rt_cache_reset(rt_cache *c);

/* Counters so far. */
const rt_cache_stats *rt_cache_stats_get(const rt_cache *c);

/* Geometry as created (ways filled in when it was 0). */
const rt_cache_config *rt_cache_config_get(const rt_cache *c);
uint32_t rt_cache_sets(const rt_cache *c);

/* Line number held by (set, way), or -1 (as uint64_t: UINT64_MAX) when empty. */
uint64_t rt_cache_line_at(const rt_cache *c, uint32_t set, uint32_t way);

/* Message of the last failing policy hook ("" when none). */
const char *rt_cache_error(const rt_cache *c);

#endif
