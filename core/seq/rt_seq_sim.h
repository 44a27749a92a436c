/*
 * rt_seq_sim.h - simulating a semi-Markov chain as a stream, and comparing the
 * stream with the sequence the chain was built from, without holding either.
 *
 * A simulated trajectory of N states is never stored: each state drawn goes to an
 * observer that keeps per-state sums, per-arc counts, the first holding times of a
 * few chosen states (for Kolmogorov-Smirnov tests), n-gram counts (n = 1, 2, 3) and
 * a Welch spectrum, and optionally writes the trajectory as a PES. Memory is bounded
 * by the chain (states, arcs, distinct n-grams) and the samples asked for, never by N.
 * Randomness: GSL's mt19937 (gsl_rng) and gsl_ran_gamma.
 */
#ifndef RT_SEQ_SIM_H
#define RT_SEQ_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_seq.h"

/* A chain as arrays, states 0..nstates-1, arcs grouped or not. */
typedef struct rt_sim_chain {
    size_t nstates;
    const double *mean, *var; /* holding times: gamma with this mean and variance
                               * (the mean itself when var is 0) */
    size_t narcs;
    const int32_t *from, *to; /* states */
    const double *p;          /* probabilities (normalised per from state) */
    int32_t init;             /* the first state; also the restart after a state
                               * without arcs */
    int32_t other;            /* the end marker (-1: none): left out of n-grams,
                               * spectrum and the PES */
} rt_sim_chain;

typedef struct rt_sim_obs rt_sim_obs;

/*
 * An observer for a chain of nstates states and narcs arcs: ks[nks] lists the states
 * whose holding times are sampled (at most `sample` each side), bands the spectrum's
 * bands (Welch segments of 4 x bands samples). NULL when out of memory.
 */
rt_sim_obs *rt_sim_obs_new(size_t nstates, size_t narcs, const int32_t *ks, size_t nks,
                           size_t sample, size_t bands);
void rt_sim_obs_free(rt_sim_obs *o);

/*
 * Feed the input side: every member's sequence of s (n-grams within a member), the
 * spectrum of member 1, and for each sampled state an even sample of its holding
 * times (at most `sample`, spread evenly through each occurrence list). state_of[id]
 * maps a session symbol id to its chain state (-1: none).
 */
int rt_sim_obs_input(rt_sim_obs *o, const rt_ses *s, const int32_t *state_of, rt_err *err);

/*
 * Simulate steps states of c from seed into the observer (the simulated side). When
 * pes is not NULL, every state but the end marker is written as "NAME TIME" lines
 * (names[state]) with an END line after the last; the caller opens and closes it.
 */
int rt_sim_run(const rt_sim_chain *c, uint64_t seed, size_t steps, rt_sim_obs *o, FILE *pes,
               const char *const *names, rt_err *err);

/* Per-state visits, summed and summed squared holding times of the simulated side. */
const uint64_t *rt_sim_obs_visits(const rt_sim_obs *o);
const double *rt_sim_obs_sum(const rt_sim_obs *o);
const double *rt_sim_obs_sumsq(const rt_sim_obs *o);
/* Per-arc transitions taken by the simulated side. */
const uint64_t *rt_sim_obs_arcs(const rt_sim_obs *o);
/* The holding-time sample of the j-th listed state, side 0 (input) or 1 (simulated). */
const double *rt_sim_obs_sample(const rt_sim_obs *o, size_t j, int side, size_t *n);
/* Half the L1 distance between the two sides' n-gram frequencies (n = 1, 2, 3). */
double rt_sim_obs_ngram_tv(const rt_sim_obs *o, int n);
/* Half the L1 distance between the two sides' band powers, each normalised to 1. */
double rt_sim_obs_band_distance(rt_sim_obs *o);

#endif
