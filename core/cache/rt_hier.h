/*
 * rt_hier.h - a cache hierarchy with Dinero IV's model.
 *
 * Levels 1..n, each unified or split into an instruction and a data cache;
 * the last level's misses go to memory. Per cache: size, block and sub-block
 * sizes (bytes, powers of two, at most 32 sub-blocks a block), associativity,
 * replacement policy (any rt_policy_ops: the six built-ins of rt_cache.h,
 * "plru" (a binary tree per set) and "d4random" (Dinero IV's random: a
 * Park-Miller generator shared by the whole hierarchy, victim chosen by rank
 * of load time)), fetch policy with prefetch distance and abort percentage,
 * write-allocate and write-back policies, and compulsory / capacity /
 * conflict classification.
 *
 * The semantics are Dinero IV's, reference for reference, so that its
 * figures come out equal: a reference spanning blocks is split (a
 * "multi-block" reference); a miss of a read, an instruction fetch or a
 * "misc" reference fetches the missing sub-blocks from below; writes that are
 * not written back are written through; dirty victims are copied back
 * sub-block run by sub-block run; prefetches are issued on reads and
 * instruction fetches only; the references a cache sends below are handled
 * last-queued first, as Dinero IV does, so that lower levels see them in the
 * same order. At the end of a run the data side's dirty lines are copied back
 * (counted in "bytes to memory" as Dinero IV counts them).
 *
 * Counters are per cache and per reference type t (0 read, 1 write,
 * 2 instruction, 3 misc) plus RT_HIER_PF for prefetches (t + 8).
 * Memory used grows with the caches' sizes, never with the trace's length
 * (classification keeps one word per block ever seen).
 */
#ifndef RT_HIER_H
#define RT_HIER_H

#include <stdint.h>
#include <stdio.h>

#include "rt_cache.h"
#include "rt_error.h"
#include "rt_memtrace.h"

#define RT_HIER_MAX_LEVELS 8
#define RT_HIER_PF 8          /* added to the type of a prefetch */
#define RT_HIER_TYPES 16      /* counter slots per figure */
#define RT_HIER_MAX_CORES 64

enum { RT_FETCH_DEMAND, RT_FETCH_ALWAYS, RT_FETCH_MISS, RT_FETCH_TAGGED, RT_FETCH_LOADFWD,
       RT_FETCH_SUBBLOCK };
enum { RT_WPOL_ALWAYS, RT_WPOL_NEVER, RT_WPOL_NOFETCH };
enum { RT_HIER_UNIFIED = 0, RT_HIER_INSTR = 1, RT_HIER_DATA = 2 };

typedef struct rt_hcache_config {
    int present;                 /* this cache exists */
    uint64_t size, block, subblock; /* bytes; subblock 0 = block */
    uint64_t assoc;              /* ways; 0 = fully associative */
    const char *policy;          /* a built-in name, "plru" or "d4random"; NULL = "lru" */
    const rt_policy_ops *ops;    /* or a policy of the caller's (wins over `policy`); not owned */
    void *ops_ud;
    void *const *core_ud;        /* with ops on a private level: core p's cache gets
                                    core_ud[p] (one instance per core; cores entries) */
    int fetch;                   /* RT_FETCH_* */
    uint64_t pfdist;             /* prefetch distance in sub-blocks (0 = 1) */
    unsigned pfabort;            /* percent of prefetches thrown away, 0-100 */
    int walloc, wback;           /* RT_WPOL_*: write-allocate, write-back (never = write-through) */
    int ccc;                     /* classify misses */
    int inclusive;               /* evicting a block here invalidates it in every cache
                                    above (back-invalidation); their dirty sub-blocks are
                                    written to the level below this one; a cache just
                                    above it fetches the blocks it allocates on a write
                                    even when the write fills them, so that this level
                                    holds every block of the caches above. 0: Dinero IV's
                                    non-inclusive hierarchy */
    int exclusive;               /* a victim cache of the level above: filled only by
                                    the lines the caches above evict (clean or dirty); a
                                    fetch that hits gives the line up and drops it here
                                    (written below first when dirty), one that misses
                                    goes below without a fill here. Needs the block size
                                    of the caches above, which write back */
    int sharing;                 /* with several cores: RT_SHARE_* (0: the default, the
                                    last level shared when there are two or more) */
} rt_hcache_config;

enum { RT_SHARE_DEFAULT = 0, RT_SHARE_PRIVATE = 1, RT_SHARE_SHARED = 2 };

typedef struct rt_hier_config {
    unsigned levels;             /* 1..RT_HIER_MAX_LEVELS */
    /* per level: [RT_HIER_UNIFIED] alone, or [RT_HIER_INSTR] and [RT_HIER_DATA] */
    rt_hcache_config c[RT_HIER_MAX_LEVELS][3];
    uint64_t skipcount, flushcount, maxcount; /* 0 = none */
    uint64_t seed;               /* for the built-in "random" (splitmix); 0 = 1 */
    unsigned cores;              /* 0 or 1: one core; else each private level is
                                    repeated per core and kept coherent (MESI) */
    int skip_coherence_misses;   /* coh_miss is not counted (a caller that tells them
                                    itself saves a look-up on every miss) */
} rt_hier_config;

/* A config with no level; rt_hcache_defaults gives Dinero IV's defaults for one cache. */
void rt_hier_config_init(rt_hier_config *cfg);
rt_hcache_config rt_hcache_defaults(uint64_t size, uint64_t block);
/* A config of one unified level: size and block bytes, ways (0: fully
 * associative), LRU, write-back and write-allocate (MemSpy's default machine). */
void rt_hier_config_single(rt_hier_config *cfg, uint64_t size, uint64_t block, uint64_t ways);

/*
 * Dinero IV's command-line options, as written: "-l1-dsize 32k -l1-dbsize 64
 * -l1-dassoc 8 -l1-drepl l -l1-dfetch d -l1-dwalloc a -l1-dwback a -l1-dccc
 * -skipcount N -flushcount N -maxcount N" (sizes with k, m, g suffixes), and
 * the same names without the leading dash. Options that do not change the
 * figures (-informat, -stat-idcombine) are accepted and ignored. argv[0] is
 * an option (no program name). RT_OK, or RT_EINVAL naming the option.
 * Adds to cfg (call rt_hier_config_init first).
 */
int rt_hier_parse_dinero(rt_hier_config *cfg, int argc, const char *const *argv, rt_err *err);

/*
 * The short form: caches separated by spaces or ';', each
 * "LEVEL:size/block[/sub]:assoc[:key=value...]" with LEVEL l1, l1i, l1d, l2...
 * (u/i/d as in Dinero), e.g. "l1i:32k/64:8 l1d:32k/64:8:wb=a:wa=a l2:1m/64:16".
 * Keys: repl (a policy name or l f r p), fetch (d a m t l s), pfdist,
 * pfabort, walloc|wa, wback|wb (a n f), ccc, inclusive, exclusive, shared (0/1,
 * bare = 1).
 * A token "cores=N" sets the core count (also "-cores N" among Dinero IV's
 * options, and "-lN-Xshared").
 * A spec whose first word starts with '-' is Dinero IV's options instead
 * (rt_hier_parse_dinero on its words), so every place that takes a short form
 * takes a pasted dineroIV command line too.
 */
int rt_hier_parse_short(rt_hier_config *cfg, const char *spec, rt_err *err);

/*
 * Multi-core machines. With cores = P > 1 the levels above the first shared
 * one are private: each core has its own copy of them (drcachesim's shape is
 * "cores=4 l1i:32k/64:8 l1d:32k/64:8 l2:512k/64:8 l3:8m/64:16", the last level
 * shared by default; mark levels with shared=1 or shared=0). The private
 * caches are kept coherent with MESI, as a snooping bus does, the rule living
 * here once:
 *  - a core's line is M when dirty in one of its private caches, E when clean
 *    and no other core holds the block, S when clean and another core holds
 *    it, I when absent (rt_hier_mesi);
 *  - a load, fetch or misc reference that misses the core's first level makes
 *    every other core holding the block dirty write it back (M -> S): a
 *    snoop write-back at each cache that held it dirty, the data going down
 *    its hierarchy as any write-back does;
 *  - a store by a core not holding the block dirty (S, E or I) removes the
 *    block from every other core's private caches (after their snoop
 *    write-backs): an invalidation received at each cache that held it, one
 *    sent (counted at the storing core's first-level data cache) per core
 *    that held it;
 *  - a later miss of a block that a cache lost to an invalidation is a
 *    coherence miss there.
 * With several cores every private cache has the same block size, no
 * sub-blocks and demand fetch. The shared levels see the private ones' misses
 * and write-backs as a single core's would be seen.
 */

/* Check the config (sizes, levels without gaps, I/D pairs, policies). */
int rt_hier_check(const rt_hier_config *cfg, rt_err *err);

/* The hierarchy as understood, one line per cache, to f. */
void rt_hier_describe(const rt_hier_config *cfg, FILE *f);
/* Same text into buf (always NUL-terminated); returns the length it needed. */
size_t rt_hier_describe_buf(const rt_hier_config *cfg, char *buf, size_t cap);

typedef struct rt_hier rt_hier;

typedef struct rt_hier_stats {
    uint64_t fetch[RT_HIER_TYPES];      /* references looked up (demand: t, prefetch: t+8) */
    uint64_t miss[RT_HIER_TYPES];       /* some sub-block absent */
    uint64_t blockmiss[RT_HIER_TYPES];  /* the block absent */
    uint64_t comp[RT_HIER_TYPES], cap[RT_HIER_TYPES], conf[RT_HIER_TYPES];
    uint64_t comp_block[RT_HIER_TYPES], cap_block[RT_HIER_TYPES], conf_block[RT_HIER_TYPES];
    uint64_t multiblock;                /* references split at a block boundary */
    uint64_t bytes_read, bytes_written; /* to and from the level below */
    uint64_t back_invalidations;        /* lines dropped because an inclusive level below evicted them */
    uint64_t victim_fills;              /* exclusive: clean lines the caches above evicted into it */
    /* coherence (private caches of a multi-core machine) */
    uint64_t inval_sent;                /* other cores' copies removed by this cache's stores */
    uint64_t inval_recv;                /* lines removed here by another core's store */
    uint64_t coh_miss;                  /* misses of a block lost to an invalidation */
    uint64_t snoop_wb;                  /* dirty lines written back for another core */
} rt_hier_stats;

int rt_hier_new(const rt_hier_config *cfg, rt_hier **out, rt_err *err);
void rt_hier_free(rt_hier *h);

/* One trace record, dispatched as Dinero IV does: instruction fetches to the
 * level-1 instruction (or unified) cache, invalidations to both level-1
 * caches, the rest to the data (or unified) cache. Kinds 4 (copy back) and 5
 * (invalidate) of size 0 act on the whole cache and go down the hierarchy. */
int rt_hier_ref(rt_hier *h, const rt_memref *ref);

/* rt_hier_ref by core (0..cores-1; other values are taken modulo cores). */
int rt_hier_ref_core(rt_hier *h, unsigned core, const rt_memref *ref);

/* What one reference did, as an engine built over the hierarchy (MemSpy)
 * needs it: its first-level cache (the core's instruction cache for an
 * instruction fetch, else its data or unified cache) and the level that
 * served it. */
typedef struct rt_hier_result {
    int hit;                /* the first level held what was referenced */
    uint64_t block;         /* block number there (addr / block size) */
    uint32_t set;           /* its set there */
    uint32_t way;           /* the way holding it after the reference (UINT32_MAX: not held,
                               a write that did not allocate) */
    int evicted;            /* the reference replaced a valid line there ... */
    uint64_t evicted_block; /* ... this one */
    int evicted_dirty;      /* ... which held data not yet written below */
    uint64_t invalidated;   /* bit q: core q's copies were removed (a store, MESI) */
    uint64_t snooped;       /* bit q: core q wrote its dirty copy back for this reference */
    unsigned level;         /* the level that supplied the data: 0 the first (a hit),
                               levels for memory; a write that allocated nothing: the
                               first level that took it */
} rt_hier_result;

/* One reference of kind RT_REF_READ, WRITE, IFETCH or MISC by core (taken
 * modulo cores), [addr, addr + size) (size 0 counts as 1) within one block of
 * the first level, with the same effect as rt_hier_ref_core; res (not NULL)
 * says what happened. RT_OK, RT_EINVAL (another kind, or a reference
 * crossing a block: the message in rt_hier_error) or a policy's failure.
 * The batch paths (rt_hier_run) do not pay for it. */
int rt_hier_access(rt_hier *h, unsigned core, uint64_t addr, uint64_t size, int kind,
                   rt_hier_result *res);

/* The MESI state of addr's block in core: 'M', 'E', 'S' or 'I'. */
int rt_hier_mesi(const rt_hier *h, unsigned core, uint64_t addr);

/* Which core runs which records in rt_hier_run: sw holds n pairs (k, core), k
 * increasing, as a capture's allocation log stamps its thread switches: from
 * the record after the first k data records (those other than instruction
 * fetches) on, records run on that core (modulo cores); core 0 before the
 * first pair. sw is copied. RT_OK or RT_EINVAL (out of order), RT_ENOMEM. */
int rt_hier_set_cores(rt_hier *h, const uint64_t *sw, size_t n, rt_err *err);

/* n loads and stores (writes[i] 0 or 1) of one byte at addrs[i], on core 0 of a
 * machine of one core, as n rt_hier_ref calls would do them: the batch path of
 * rt_hier_run (hits of a fast first level never leave its loop). RT_OK or the
 * first failure (the references after it are not made). */
int rt_hier_lines(rt_hier *h, const uint64_t *addrs, const uint8_t *writes, size_t n);
/* rt_hier_lines, and done (unless NULL): the references made before the
 * failure (the failed one not among them), n without one. */
int rt_hier_lines_done(rt_hier *h, const uint64_t *addrs, const uint8_t *writes, size_t n,
                       size_t *done);

/* Valid lines replaced by allocations in that cache (of core 0) so far. */
uint64_t rt_hier_evictions(const rt_hier *h, unsigned level, int which);

/* Copy back every dirty line of the data side (Dinero IV's end of run). */
int rt_hier_copyback_all(rt_hier *h);
/* Copy back and invalidate everything (Dinero IV's -flushcount). */
int rt_hier_flush_all(rt_hier *h);

typedef struct rt_hier_run_result {
    uint64_t records;   /* trace records read (skipped ones included) */
    uint64_t simulated; /* records sent through the hierarchy */
    int maxed;          /* stopped at maxcount */
} rt_hier_run_result;

/* The whole trace with skip, max and flush counts, then the final copy-back. */
int rt_hier_run(rt_hier *h, rt_memtrace *t, rt_hier_run_result *res, rt_err *err);

/* Counters of cache (level 0-based, which RT_HIER_UNIFIED/INSTR/DATA), or NULL
 * when absent; level == levels gives memory's (fetch[] only). */
const rt_hier_stats *rt_hier_stats_get(const rt_hier *h, unsigned level, int which);
/* The same for a core's private cache (a shared level's whatever the core). */
const rt_hier_stats *rt_hier_stats_core(const rt_hier *h, unsigned core, unsigned level, int which);
/* Cores of the machine (1 or more) and its private levels (the first ones). */
unsigned rt_hier_cores(const rt_hier *h);
unsigned rt_hier_private_levels(const rt_hier_config *cfg);
const rt_hier_config *rt_hier_config_get(const rt_hier *h);

/* Is the block holding addr present (any sub-block valid) in that cache (of core 0)? */
int rt_hier_probe(const rt_hier *h, unsigned level, int which, uint64_t addr);
int rt_hier_probe_core(const rt_hier *h, unsigned core, unsigned level, int which, uint64_t addr);

/* The block held by (set, way) of a core's cache (level 0-based, which), or
 * UINT64_MAX when empty (or no such cache). */
uint64_t rt_hier_line_at(const rt_hier *h, unsigned core, unsigned level, int which, uint32_t set,
                         uint32_t way);

/* Put "prefix: " before err's message; returns st. */
int rt_hier_err_prefix(rt_err *err, int st, const char *prefix);

/* After a policy hook failed (the failing reference filled no line): clear the
 * failure so that the hierarchy takes references again (rt_cache's view goes on). */
void rt_hier_resume(rt_hier *h);

/* The message of a failing Lua (or other) policy hook. */
const char *rt_hier_error(const rt_hier *h);

/* Dinero IV's report for every cache, figure by figure (the same lines as
 * dineroIV prints, for comparison). */
void rt_hier_report(const rt_hier *h, FILE *f);

/* Tree pseudo-LRU and Dinero IV's random, as policies for rt_hier (plru
 * works with up to 64 ways, a power of two). */
extern const rt_policy_ops rt_policy_plru;
extern const rt_policy_ops rt_policy_d4random;

#endif
