/*
 * rt_seq_fit.h - semi-Markov models with a holding-time distribution per transition:
 * maximum-likelihood fits of exponential, gamma and Weibull laws and the empirical
 * distribution, the choice among them by AIC, the model's log-likelihood, and the
 * scoring of a sequence against a model (per step: log p of the transition plus log
 * of the holding time's probability).
 *
 * Times are recorded to a resolution delta (integer times: 1), so a density f gives a
 * recorded value t the probability f(t) delta and every family's log-likelihood is the
 * log-probability of the same recorded data: a continuous law and the empirical
 * (discrete) one compare fairly. GSL supplies the special functions (gsl_sf: log
 * gamma, digamma and trigamma for the gamma law's likelihood equation).
 */
#ifndef RT_SEQ_FIT_H
#define RT_SEQ_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_seq.h"

enum { RT_HOLD_EXP, RT_HOLD_GAMMA, RT_HOLD_WEIBULL, RT_HOLD_EMPIRICAL, RT_HOLD_N };

/* Names of the families, in enum order: "exponential", "gamma", "weibull", "empirical". */
extern const char *const rt_hold_names[RT_HOLD_N];

typedef struct rt_hold_fit {
    size_t n;                  /* holding times */
    double ll[RT_HOLD_N];      /* log-likelihood of each family (-INFINITY: not fitted) */
    int k[RT_HOLD_N];          /* its free parameters */
    double aic[RT_HOLD_N];     /* 2 k - 2 ll (INFINITY: not fitted) */
    int best;                  /* the family of smallest AIC */
    double rate;               /* exponential: 1 / mean */
    double gshape, gscale;     /* gamma */
    double wshape, wscale;     /* Weibull */
    size_t distinct;           /* empirical: distinct values */
    double emp_ll;             /* the empirical law's log-likelihood even when it is not
                                * eligible (values hardly repeat) */
    const char *why[RT_HOLD_N];/* why a family was not fitted, or NULL */
} rt_hold_fit;

/*
 * Fit the n holding times h (sorted in place) recorded to resolution delta > 0.
 * Exponential needs a positive mean; gamma and Weibull need every time positive and
 * not all equal; the empirical law needs values that repeat (at most n / 2 distinct
 * ones, or a single one). Never fails: families that cannot fit
 * get ll = -INFINITY and a reason.
 */
void rt_hold_fit_times(double *h, size_t n, double delta, rt_hold_fit *out);

/* log of the probability of recording t under family fam of f (with delta); for the
 * empirical law, values[m] (sorted) and their probabilities prob[m]: -INFINITY when t
 * is none of them. */
double rt_hold_logp(const rt_hold_fit *f, int fam, double t, double delta, const double *values,
                    const double *prob, size_t m);

/* Sort h[n] ascending. */
void rt_hold_sort(double *h, size_t n);

/* The resolution of recorded times: the smallest positive gap between distinct values
 * of the sorted h[n] (1 when there is none). */
double rt_hold_resolution(const double *h, size_t n);

/*
 * The holding times of the current sequences grouped by transition: element i of a
 * member, with symbol a, followed by b (or by the end marker `other` after the last
 * element), puts its occupancy time in group (a, b). Groups are numbered in order of
 * first appearance: from[g], to[g] (symbol ids; other for the end), times
 * times[off[g] .. off[g + 1]); *ngroups gets their number. Arrays are malloc'd.
 */
int rt_ses_arc_times(const rt_ses *s, int32_t other, int32_t **from, int32_t **to, size_t **off,
                     double **times, size_t *ngroups, rt_err *err);

/* One transition of a model being scored against: symbols of the scored session. */
typedef struct rt_sm_arc {
    int32_t from, to;          /* symbol ids (to: the end marker's id for the end) */
    double logp;               /* log of the transition probability */
    int fam;                   /* the holding-time family used */
    rt_hold_fit fit;           /* its parameters (rate, gshape, ...) */
    int fallback;              /* a parametric family for values the empirical law lacks (-1) */
    const double *values, *prob; /* the empirical law (fam RT_HOLD_EMPIRICAL), m entries */
    size_t m;
} rt_sm_arc;

/* A transition of the scored sequence the model never saw. */
typedef struct rt_unseen {
    int32_t from, to;
    uint64_t count;
    size_t member, index;      /* where it first happens (element index, 0-based) */
} rt_unseen;

typedef struct rt_score {
    double ll;                 /* log-likelihood of the steps the model can score */
    uint64_t scored, steps;    /* steps scored, steps in all */
    double *state_ll;          /* per symbol id: summed log-likelihood of its steps */
    uint64_t *state_n;         /* per symbol id: steps scored */
    rt_unseen *unseen;         /* transitions the model never saw, first seen first */
    size_t nunseen;
    uint64_t unseen_steps;     /* steps on them */
    uint64_t odd_times;        /* holding times no family of their transition can give */
    size_t windows;
    double *win_ll;            /* per window of member 0: summed log-likelihood */
    uint64_t *win_n;           /*                        steps scored */
    int departed;              /* 1 when some step was unseen */
    size_t first_member, first_index;
} rt_score;

/*
 * Score the current sequences of s against a model: each element a followed by b (the
 * end marker `other` after the last) contributes log p(a -> b) + log P(holding time).
 * Arrays of out are malloc'd (free with rt_score_free); member 0 is cut into `windows`
 * equal windows of elements. RT_OK or RT_ENOMEM.
 */
int rt_ses_score(const rt_ses *s, int32_t other, const rt_sm_arc *arcs, size_t narcs, double delta,
                 size_t windows, rt_score *out, rt_err *err);
void rt_score_free(rt_score *sc);

/* The steady-state test of one state: its transitions in the first and second half. */
typedef struct rt_steady {
    int32_t sym;               /* the state */
    uint64_t n[2];             /* transitions out of it in each half */
    size_t arcs;               /* distinct transitions out of it */
    double chi2, p;            /* chi-square statistic of homogeneity, its p-value */
    int df;                    /* (arcs - 1) degrees of freedom; 0: nothing to test */
    double max_diff;           /* largest change of a transition probability */
    int sparse;                /* 1 when an expected count is below 5 */
} rt_steady;

/*
 * Has each run reached a steady state, in the sense that its transition probabilities
 * converge? The elements of each member are cut in two halves by position, and for each
 * state the counts of its transitions in the two halves are compared by Pearson's
 * chi-square test of homogeneity (GSL's chi-square distribution for the p-value).
 * out[nsym] (the caller's, indexed by symbol id) gets each state's test; states that
 * do not occur have n = {0, 0}. RT_OK or RT_ENOMEM.
 */
int rt_ses_steady(const rt_ses *s, rt_steady *out, rt_err *err);

#endif
