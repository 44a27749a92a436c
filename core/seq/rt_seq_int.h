/*
 * rt_seq_int.h - the inside of an rt_ses, shared by the files of core/seq only
 * (rt_seq.c: symbols and transforms; rt_pes.c: PES reader; rt_chain.c: chains).
 */
#ifndef RT_SEQ_INT_H
#define RT_SEQ_INT_H

#include <stdint.h>

#include "rt_seq.h"

/* One version of a member's SES. */
typedef struct rt_version {
    int32_t *sym;    /* symbol of each element */
    uint32_t *start; /* n + 1 entries: element i covers original [start[i], start[i+1]) */
    size_t n;        /* elements */
} rt_version;

/* One PES of the ensemble. */
typedef struct rt_member {
    char *label;     /* the file name, for messages */
    double *E;       /* m + 1 PES entry times; original element j lasts E[j+1] - E[j] */
    size_t m;        /* original SES length (PES states - 1) */
    rt_version *ver; /* ver[0] original .. ver[nsteps] current */
    size_t capver;
} rt_member;

/* One applied transform. */
typedef struct rt_step {
    char *desc;      /* "filter_time 0.13 -> T1..T3 (3 composites)" */
    int32_t counter; /* composite counter before the step (restored by undo) */
} rt_step;

struct rt_ses {
    /* symbol table: ids are dense, names interned through an open-addressing index */
    char **names;
    uint64_t *hash;
    uint32_t *len;
    uint8_t *orig;       /* 1 when the symbol occurs in some member's original PES */
    int32_t *comp_level; /* > 0: live composite, made by step comp_level (1-based) */
    size_t nsym, capsym;
    int32_t *slots;      /* index: -1 empty, else an id */
    size_t nslots;       /* power of two */

    rt_member *mem;
    size_t nmem;
    rt_step *steps;
    size_t nsteps;
    int32_t counter;     /* next k tried for a fresh composite name T<k> */
};

#define RT_CUR(s, k) (&(s)->mem[k].ver[(s)->nsteps])

/*
 * Add a member taking ownership of ids (at least m entries, the SES symbols) and
 * E (m + 1 checked entry times); both are freed on failure.
 */
/* Allocate a version with room for n elements (sym[n], start[n + 1]), n set to 0;
 * RT_ENOMEM (nothing held) when out of memory. */
int rt_version_alloc(rt_version *v, size_t n);

/* Free a version's arrays (the struct itself is the caller's). */
void rt_version_free(rt_version *v);

int rt_ses_add_owned(rt_ses *s, const char *label, int32_t *ids, double *E, size_t m,
                     rt_err *err);

/* u64 -> int32 open-addressing map; the key UINT64_MAX is reserved. */
#define RT_U64MAP_EMPTY UINT64_MAX
typedef struct rt_u64map {
    uint64_t *keys;
    int32_t *vals;
    size_t cap, n;
} rt_u64map;

int rt_u64map_init(rt_u64map *m, size_t expect);
void rt_u64map_free(rt_u64map *m);
/* The value slot of key, created (value -1, *created = 1) when absent; NULL on ENOMEM. */
int32_t *rt_u64map_slot(rt_u64map *m, uint64_t key, int *created);

/*
 * A chain's states and arcs built as a sequence passes (rt_chain.c): the one rule
 * of rt_ses_chain, also fed by rt_pes_chain while a PES is read. Symbols must be
 * below the count given to new / symbols (grow it as names are interned).
 */
typedef struct rt_chain_build rt_chain_build;
rt_chain_build *rt_chain_build_new(size_t nsym);
void rt_chain_build_free(rt_chain_build *b);
int rt_chain_build_symbols(rt_chain_build *b, size_t nsym);
/* Symbol x held for t (its state made at its first occurrence): the state's index, -1 out of memory. */
int32_t rt_chain_build_state(rt_chain_build *b, int32_t x, double t);
/* A transition x -> y: RT_OK or RT_ENOMEM. */
int rt_chain_build_arc(rt_chain_build *b, int32_t x, int32_t y);
/* Composite x's element: begin, then each original state it covers (symbol, time)
 * in order, then end (its prefix tree, the composite's definition). */
void rt_chain_build_comp_begin(rt_chain_build *b, int32_t x);
int rt_chain_build_comp_step(rt_chain_build *b, int32_t x0, double t);
void rt_chain_build_comp_end(rt_chain_build *b);
/* The chain (with the composites walked) with sentinel other: RT_OK or RT_ENOMEM. */
int rt_chain_build_finish(rt_chain_build *b, int32_t other, rt_chain **out);
/* The end of a streamed sequence whose last element was symbol last: the arc to the
 * sentinel OTHER (interned in s), then the chain (rt_chain_build_finish). */
int rt_chain_build_end(rt_chain_build *b, rt_ses *s, int32_t last, rt_chain **out);
/* The sentinel OTHER of a session's chains (interned): a name no original symbol has; -1 no memory. */
int32_t rt_ses_chain_other(rt_ses *s);

/* A fresh composite T<k> (rt_seq_transform.c), marked as made by the step under way; -1 no memory. */
int32_t rt_ses_fresh_composite(rt_ses *s);
/* A filter's description: head, then "-> T3", "-> T3..T9 (n composites)" or "(no run)"
 * (first_new < 0); NULL out of memory. */
char *rt_ses_filter_desc(const rt_ses *s, const char *head, int32_t first_new, int32_t last_new, size_t n);
/* Step i's description replaced by desc (taken, freed on failure): RT_OK, RT_ENOMEM, RT_EINVAL. */
int rt_ses_step_finish(rt_ses *s, size_t i, char *desc);

#endif
