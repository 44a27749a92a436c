/*
 * rt_memspy.h - MemSpy: memory stall time by code segment and data object on a
 * simulated multiprocessor with private caches.
 *
 * The engine is fed events in the global interleaving order (procedure entry and
 * exit per processor, allocations, frees, named static or stack ranges, function
 * address ranges, busy cycles, reads and writes) and keeps statistics per
 * *statistical bin*, the pair (code bin, data bin):
 *
 *   - a data bin is an allocation site reached by one call path (its full name
 *     is the call path, the site and TYPE.VAR; its short name TYPE.VAR, made
 *     unique with "#2", "#3" ... when two sites share it), a named static or
 *     stack range, or "(unmapped)" for an address in no live range;
 *   - a code bin is the innermost procedure of the referencing processor's
 *     stack (or of the function holding the reference's PC when function ranges
 *     were given and the reference carries a PC), "(unknown)" with an empty
 *     stack, and "(other)" for procedures outside a --monitor set.
 *
 * The machine: P processors (1..64), the cores of a cache hierarchy (rt_hier:
 * the engine of `retrace cache`), each with its private levels (one level of
 * any geometry and policy by default, or any hierarchy whose first data level
 * writes back and allocates on writes) over the shared ones, kept coherent by
 * rt_hier's MESI rule: a write invalidates every other copy of its line; a
 * read miss on a line dirty in another cache makes that cache write it back,
 * the copy staying there shared. A write hit on a shared line counts as a hit
 * (no upgrade miss). Hits and misses are those of the first level; each miss
 * is also charged to the levels below that missed it (level_miss). Every miss costs `latency` stall cycles (or, with a
 * remote latency, that when the line's home, line mod P, is another processor); every
 * reference `ref_cycles` busy cycles; busy records add cycles. A processor's
 * time is its busy plus stall cycles; the execution time is the largest.
 *
 * Miss causes, per processor and line: first reference (never held by this
 * processor), replacement (evicted from its cache; the data bin of the
 * reference that evicted it is remembered and credited to the missing bin's
 * causes of replacements), invalidation (another processor's write took it;
 * the writer is remembered).
 *
 * A reference spanning k lines is k references (Dinero IV's convention, as in
 * `retrace cache`), each binned by the address of its first byte in that line.
 *
 * Shaped for traces of 10^8 references and 10^5 live allocations: the hot path
 * is one cache lookup, a per-processor memo of the last data range and of the
 * last statistical bin, and a line-state probe on misses and (P > 1) writes.
 * Memory follows the lines touched times P, the live ranges and the bins, never
 * the trace's length.
 */
#ifndef RT_MEMSPY_H
#define RT_MEMSPY_H

#include <stddef.h>
#include <stdint.h>

#include "rt_hier.h"
#include "rt_error.h"

#define RT_MEMSPY_MAX_PROCS 64

typedef struct rt_memspy rt_memspy;

typedef struct rt_memspy_config {
    int procs;             /* P, 1..RT_MEMSPY_MAX_PROCS */
    uint64_t latency;      /* stall cycles of a miss (MemSpy's 50) */
    unsigned nlevel_latency; /* 0, or the machine's levels: a miss served by level
                                l + 2 (the last: memory) costs level_latency[l] */
    uint64_t level_latency[RT_HIER_MAX_LEVELS];
    uint64_t ref_cycles;   /* busy cycles of every reference (0: only busy records count) */
    uint64_t remote_latency; /* 0: every miss costs latency; else a miss served by memory
                                on a line whose home processor (line number mod P) is
                                another costs this */
    int misses_only;       /* hits are not binned: per-bin refs / reads / writes stay 0 */
    const char *const *monitor; /* NULL, or NULL-terminated procedure names: the others fold into (other) */
} rt_memspy_config;

/* Per-bin counters (also the totals). */
typedef struct rt_memspy_counts {
    uint64_t refs, reads, writes;        /* references (line pieces) */
    uint64_t read_misses, write_misses;
    uint64_t first, replacement, invalidation; /* misses by cause */
    uint64_t stall, read_stall, write_stall;   /* cycles */
    uint64_t remote;                           /* misses served by another home (remote_latency) */
    uint64_t level_miss[RT_HIER_MAX_LEVELS];   /* [l]: references that missed level l + 1
                                                  ([0] = read_misses + write_misses) */
} rt_memspy_counts;

/* One statistical bin. */
typedef struct rt_memspy_bin {
    uint32_t code, data;   /* indices into the code and data bins */
    rt_memspy_counts c;
} rt_memspy_bin;

/* Whole-run figures. */
typedef struct rt_memspy_totals {
    rt_memspy_counts c;
    uint64_t time;         /* execution time: the largest processor time */
    uint64_t busy;         /* busy cycles, all processors */
    uint64_t writebacks;   /* dirty lines written back (evictions and coherence) */
    uint64_t invalidations;/* copies removed by writes */
    uint64_t warnings;     /* warnings raised (see rt_memspy_warning) */
} rt_memspy_totals;

/*
 * A new engine whose processors are the cores of the hierarchy `machine`
 * (copied; its core count is set to cfg->procs). Its first data level (data
 * or unified) must write back and allocate on writes; its line size is the
 * line of the bins' references. A policy of the caller's (ops) should come
 * with one instance per processor (core_ud). NULL with err filled on bad
 * arguments, a bad hierarchy or no memory.
 */
rt_memspy *rt_memspy_new(const rt_memspy_config *cfg, const rt_hier_config *machine, rt_err *err);
void rt_memspy_free(rt_memspy *m);

/* Where the next events come from, for warnings ("FILE:LINE: warning: ...").
 * file is borrowed until the next call; NULL or line 0 leaves the place out. */
void rt_memspy_set_place(rt_memspy *m, const char *file, unsigned long line);

/*
 * Events. All return RT_OK, RT_ENOMEM, RT_EINVAL (proc out of range, bad
 * range) or the failure of a cache policy hook, with err filled. Input that a
 * real tracer produces but that makes no sense (an exit without an entry, a free
 * of an unknown address, an allocation overlapping a live one) is a warning:
 * counted and remembered (rt_memspy_warning), and the event handled as well as
 * it can be (the exit ignored, the free ignored, the older ranges dropped).
 */
int rt_memspy_enter(rt_memspy *m, int proc, const char *name, const char *site, rt_err *err);
/* name may be NULL; a name other than the innermost procedure's is a warning
 * (the innermost frame is popped all the same). */
int rt_memspy_exit(rt_memspy *m, int proc, const char *name, rt_err *err);
/* Replace the innermost procedure of proc (push when the stack is empty): for
 * inputs that name the current routine rather than calls (SHMAP). */
int rt_memspy_set_code(rt_memspy *m, int proc, const char *name, rt_err *err);
/* A heap allocation [addr, addr + size) made by proc at site; its bin is keyed
 * by proc's call path, site and typevar ("Matrix.Y"). size >= 1. */
int rt_memspy_alloc(rt_memspy *m, int proc, uint64_t addr, uint64_t size, const char *typevar,
                    const char *site, rt_err *err);
/* Free of the allocation starting at addr. */
int rt_memspy_release(rt_memspy *m, uint64_t addr, rt_err *err);
/* A named static or stack range: its bin is the name itself. */
int rt_memspy_named(rt_memspy *m, uint64_t addr, uint64_t size, const char *name, rt_err *err);
/* A function's code [addr, addr + size), for references that carry a PC. */
int rt_memspy_function(rt_memspy *m, uint64_t addr, uint64_t size, const char *name, rt_err *err);
/* Nonzero once some function range is known (references with a PC are then binned by it). */
int rt_memspy_has_functions(const rt_memspy *m);
/* Busy cycles of proc in its current procedure. */
int rt_memspy_busy(rt_memspy *m, int proc, uint64_t cycles, rt_err *err);
/* A read or write of size bytes (>= 1) at addr; has_pc selects PC-based code binning. */
int rt_memspy_ref(rt_memspy *m, int proc, uint64_t addr, uint64_t size, int is_write, int has_pc,
                  uint64_t pc, rt_err *err);

/* ---- results (valid until the next event or rt_memspy_free) ---- */
void rt_memspy_get_totals(const rt_memspy *m, rt_memspy_totals *t);
size_t rt_memspy_bins(const rt_memspy *m);
const rt_memspy_bin *rt_memspy_bin_at(const rt_memspy *m, size_t i);
size_t rt_memspy_code_count(const rt_memspy *m);
const char *rt_memspy_code_name(const rt_memspy *m, size_t i);
size_t rt_memspy_data_count(const rt_memspy *m);
const char *rt_memspy_data_name(const rt_memspy *m, size_t i);   /* short, unique */
const char *rt_memspy_data_full(const rt_memspy *m, size_t i);   /* call path, site, TYPE.VAR */
int rt_memspy_procs(const rt_memspy *m);
/* Levels of the machine, and the machine itself (its per-cache figures). */
unsigned rt_memspy_levels(const rt_memspy *m);
const rt_hier *rt_memspy_machine(const rt_memspy *m);
/* Processor p's busy and stall cycles, and its cycles spent in code bin c. */
void rt_memspy_proc_time(const rt_memspy *m, int p, uint64_t *busy, uint64_t *stall);
uint64_t rt_memspy_code_time(const rt_memspy *m, size_t code, int p);

/* Causes recorded: entry i is (statistical bin, kind, who, count) where kind 0 is
 * a replacement (who = data bin of the evicting reference) and kind 1 an
 * invalidation (who = writing processor). */
size_t rt_memspy_causes(const rt_memspy *m);
void rt_memspy_cause_at(const rt_memspy *m, size_t i, uint32_t *bin, int *kind, uint32_t *who,
                        uint64_t *count);

/* Warnings: the count is in the totals; the first RT_MEMSPY_WARN_KEEP messages are kept. */
#define RT_MEMSPY_WARN_KEEP 100
size_t rt_memspy_warnings_kept(const rt_memspy *m);
const char *rt_memspy_warning(const rt_memspy *m, size_t i);

/* Live data ranges now (for tests and the benchmark's memory check). */
size_t rt_memspy_live_ranges(const rt_memspy *m);
/* Data bin of address addr now (what a reference there would be binned as). */
uint32_t rt_memspy_data_of(rt_memspy *m, uint64_t addr);

#endif
