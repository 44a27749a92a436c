/*
 * rt_shmap_sim.h - SHMAP simulation: a SHMAP trace run on P PEs sharing C caches.
 *
 * The scheduler (rt_sched.h) decides which PE executes which event at each
 * step; the simulator executes the events: a load or store touches every
 * element of its block in column-major order, each element one lookup in the
 * cache of its PE (PE p uses cache floor(p*C/P)); a flops event adds to the
 * PE's flops and names its current subroutine; an information message becomes
 * the PE's last message. Word addresses follow rt_shmap_layout for the line size.
 *
 * Counters: per PE loads, stores (elements) and flops; per cache rt_cache's
 * counters (hits and misses count loads only under write-through); per element
 * load and store reference counts. A subscriber may receive one record per
 * element access (PE, element, load/store, hit/miss, the line's word range on
 * a miss); with nobody subscribed no record is built.
 *
 * Shaped for long traces: streaming through the scheduler, state proportional
 * to the machine (PEs, caches) and to the matrices (reference counts).
 */
#ifndef RT_SHMAP_SIM_H
#define RT_SHMAP_SIM_H

#include <stdint.h>

#include "rt_cache.h"
#include "rt_sched.h"
#include "rt_shmap.h"

typedef struct rt_shmap_sim rt_shmap_sim;

/* Outcome of one element access. */
enum { RT_SHM_NOLOOKUP = 0, RT_SHM_HIT = 1, RT_SHM_MISS = 2 };

/* One element access, as delivered to a subscriber. */
typedef struct rt_shmap_access {
    uint64_t step;          /* 1-based step in which it happened */
    int pe;
    int cache;              /* cache looked up, -1 when there was no lookup */
    int matrix;             /* matrix index (increasing ID order) */
    int row, col;           /* 1-based */
    int store;              /* 1 store, 0 load */
    int outcome;            /* RT_SHM_NOLOOKUP (cache off, or a write-through store), HIT, MISS */
    double time;            /* the event's time stamp */
    uint64_t addr;          /* word address */
    uint64_t line_first, line_last; /* on a miss: the words of the line loaded */
    int evicted;            /* on a miss: a valid line was replaced ... */
    uint64_t evicted_first; /* ... starting at this word */
    uint32_t set, way;      /* on a hit or miss: where the line is */
    uint64_t refs;          /* the element's loads + stores, this access included */
} rt_shmap_access;

typedef void (*rt_shmap_access_fn)(void *ud, const rt_shmap_access *a);

/* Per-PE state. */
typedef struct rt_shmap_pe {
    uint64_t loads, stores; /* elements */
    int64_t flops;
    uint64_t events;        /* events executed */
    uint64_t busy_steps;    /* steps in which it executed an event */
    const char *subroutine; /* of the last flops event ("" before any) */
    const char *info;       /* last information message ("" before any) */
    int info_matrix;        /* matrix index of that message, -1 before any */
} rt_shmap_pe;

/*
 * A simulation of trace on pes PEs (1..256). caches holds the configs of
 * ncaches (1..pes) caches, all of the same line size, each simulated with the
 * model of `retrace cache` (rt_hier: one core, one level); the simulation takes
 * their policy instances over (policy->free(policy_ud) in rt_shmap_sim_free,
 * also on failure). ncaches 0 and caches NULL run with the cache off. line (words, >= 1) lays out the matrices; with caches it must be
 * their line size. The trace is borrowed (rewound and read). NULL with err
 * filled on bad arguments or no memory.
 */
rt_shmap_sim *rt_shmap_sim_new(rt_shmap *trace, int pes, const rt_cache_config *caches, int ncaches,
                               uint64_t line, rt_err *err);

/* Free the simulation and its caches; NULL is allowed. */
void rt_shmap_sim_free(rt_shmap_sim *s);

/* Called after each step (a view's per-step bookkeeping). */
typedef void (*rt_shmap_step_fn)(void *ud, const rt_shmap_sim *s);

/* Observers at most (a Lua subscriber, a view, a test's recorder). */
#define RT_SHMAP_SIM_MAX_OBSERVERS 8

/*
 * Observe the run from now on: fn (may be NULL) receives every element access,
 * step (may be NULL) is called after each step, both with ud, in the order the
 * observers were added. ud identifies the observer. RT_OK, or RT_ERANGE when
 * RT_SHMAP_SIM_MAX_OBSERVERS are already observing.
 */
int rt_shmap_sim_observe(rt_shmap_sim *s, rt_shmap_access_fn fn, rt_shmap_step_fn step, void *ud);

/* The accesses of one load or store event, in order (at most RT_SHMAP_SIM_BATCH a call). */
typedef void (*rt_shmap_batch_fn)(void *ud, const rt_shmap_access *a, size_t n);
#define RT_SHMAP_SIM_BATCH 64

/*
 * As rt_shmap_sim_observe, with the accesses handed over in batches: an event's
 * accesses in runs of up to RT_SHMAP_SIM_BATCH, each run delivered before the
 * next begins and the last when the event ends (so an observer is up to date
 * between events), for observers that fetch what a run touches together.
 */
int rt_shmap_sim_observe_batch(rt_shmap_sim *s, rt_shmap_batch_fn fn, rt_shmap_step_fn step, void *ud);
/* Stop every observer added with ud. */
void rt_shmap_sim_unobserve(rt_shmap_sim *s, void *ud);

/* Receive every element access from now on as observer ud (fn NULL: stop observer ud). */
void rt_shmap_sim_subscribe(rt_shmap_sim *s, rt_shmap_access_fn fn, void *ud);

/*
 * Run up to n steps (n 0: to the end). *done (may be NULL) gets the steps run.
 * Returns RT_OK, RT_EEOF when the trace ended (possibly after some steps), or
 * an error (a failing policy hook, an I/O error) with err filled.
 */
int rt_shmap_sim_step(rt_shmap_sim *s, uint64_t n, uint64_t *done, rt_err *err);

/*
 * Run up to n events (n >= 1), one PE's event at a time in the order the steps
 * run them (lowest PE first within a step); a step ends, and the step observers
 * run, after its last event. *done gets the events run. rt_shmap_sim_step after
 * a partial step first completes it (counted as one step). Returns as
 * rt_shmap_sim_step.
 */
int rt_shmap_sim_step_events(rt_shmap_sim *s, uint64_t n, uint64_t *done, rt_err *err);

/* 1 when a step is under way (rt_shmap_sim_step_events stopped inside it). */
int rt_shmap_sim_mid_step(const rt_shmap_sim *s);

/* The last information message of the run ("" before any), its PE (-1 before any) and matrix index. */
const char *rt_shmap_sim_last_info(const rt_shmap_sim *s, int *pe, int *matrix);

/* The scheduler (active PEs and events of the last step, step count). */
const rt_sched *rt_shmap_sim_sched(const rt_shmap_sim *s);

/* State of PE p; cache i; the trace. */
const rt_shmap_pe *rt_shmap_sim_pe(const rt_shmap_sim *s, int p);
int rt_shmap_sim_pes(const rt_shmap_sim *s);
int rt_shmap_sim_caches(const rt_shmap_sim *s);          /* 0 when the cache is off */
/* cache i's counters (rt_cache's: under write-through only loads are looked up),
 * its geometry (ways filled in) and policy, and the line (word address / line)
 * held by one of its ways, UINT64_MAX when empty */
const rt_cache_stats *rt_shmap_sim_cache_stats(const rt_shmap_sim *s, int i);
const rt_cache_config *rt_shmap_sim_cache_config(const rt_shmap_sim *s, int i);
uint64_t rt_shmap_sim_cache_line_at(const rt_shmap_sim *s, int i, uint32_t set, uint32_t way);
int rt_shmap_sim_cache_of(const rt_shmap_sim *s, int pe); /* floor(pe*C/P), -1 when off */
const rt_shmap *rt_shmap_sim_trace(const rt_shmap_sim *s);

/* Trace time of the last load or store executed (0 before any). */
double rt_shmap_sim_time(const rt_shmap_sim *s);

/* Word address of matrix i's first element, and the layout's line size. */
uint64_t rt_shmap_sim_base(const rt_shmap_sim *s, int i);

/*
 * Reference counts of element e of matrix i, column-major (element (r, c) is
 * e = (c-1)*rows + (r-1)): loads and stores so far, 0 for an element never
 * touched. Counts are kept in pages of 1024 elements made on first touch, so
 * memory follows the elements a trace touches, not the sizes it declares.
 */
void rt_shmap_sim_counts(const rt_shmap_sim *s, int i, uint64_t e, uint64_t *loads, uint64_t *stores);
/* Elements the pages can hold now (a multiple of 1024; 16 bytes each). */
uint64_t rt_shmap_sim_elements_held(const rt_shmap_sim *s);

/*
 * The budget of elements counted (RT_SHMAP_SIM_MAX_ELEMENTS by default, 256 MiB
 * of counts): a load or store that would take the pages past it fails the step
 * with RT_ERANGE and "FILE:LINE: matrix N: load of rows .. of R x C: the
 * elements touched exceed the limit of ...", before doing any of its work when
 * the block alone is larger than the budget.
 */
#define RT_SHMAP_SIM_MAX_ELEMENTS (UINT64_C(1) << 24)
void rt_shmap_sim_set_max_elements(rt_shmap_sim *s, uint64_t n);

/* Matrix, row and column of word address addr; 0 when it lies in no matrix (padding). */
int rt_shmap_sim_locate(const rt_shmap_sim *s, uint64_t addr, int *matrix, int *row, int *col);

#endif
