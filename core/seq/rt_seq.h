/*
 * rt_seq.h - Chitra symbol execution sequences (SES), their transforms with undo,
 * semi-Markov chains, pattern search and periodograms.
 *
 * Shaped for PES files of 10^7 states and more: symbols are interned to dense
 * int32 ids, every transform is one or two linear passes with arrays indexed by
 * symbol id or hash maps (no quadratic scans), and undo keeps the previous version.
 *
 * Representation. A session (rt_ses) holds an ensemble of K >= 1 members (PES
 * files) sharing one symbol table and one namespace of composite symbols. Each
 * member keeps its original PES (entry times e_0..e_m and states s_0..s_{m-1}) and
 * a stack of versions. Every transform either deletes elements at the ends (clip)
 * or merges consecutive elements (aggregate, project, filters), so an element of
 * any version covers a contiguous range [start, next start) of the original SES;
 * a version is therefore the symbol per element plus its start index, and an
 * element's occupancy time is e[end] - e[start], exact whatever the transform
 * history. A transform applies to every member at once, with the statistics that
 * select symbols (filters) pooled over the ensemble; one undo step reverts it for
 * all members.
 */
#ifndef RT_SEQ_H
#define RT_SEQ_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_grid.h"

typedef struct rt_ses rt_ses;

/* A fresh empty session; NULL when out of memory. */
rt_ses *rt_ses_new(void);

/* Free the session and everything it holds; NULL is allowed. */
void rt_ses_free(rt_ses *s);

/*
 * Read a PES file and add it as a new member (only before any transform).
 * Two layouts are recognised: one "STATE TIME" pair per line (white space
 * separated, '#' starts a comment), or a tuple list "(A2T,1550), (ET,1560), ..."
 * with any line breaks. Times are integers or decimals and never decrease; at
 * least two states are needed. On failure the session is unchanged and err says
 * "FILE:LINE: what is wrong".
 */
int rt_ses_load(rt_ses *s, const char *path, rt_err *err);

/* What rt_pes_scan counts of a PES file. */
typedef struct rt_pes_summary {
    size_t states;      /* states of the sequence (the last entry, the end of the run, not one) */
    size_t symbols;     /* distinct names among them */
    double first, last; /* the first entry's time and the end of the run */
} rt_pes_summary;

/*
 * Read a PES file as rt_ses_load does (the same checks and messages) but keep
 * only counts: memory grows with the distinct names, not with the states.
 */
int rt_pes_scan(const char *path, rt_pes_summary *out, rt_err *err);


/*
 * rt_ses_load reporting its progress for long files: progress(ud, bytes read,
 * file size (0 when unknown)) each time another `step` bytes (0: 1) of input
 * have been read, and once more at the end when it was called before (so a
 * file shorter than step gives no report).
 */
int rt_ses_load_progress(rt_ses *s, const char *path, uint64_t step,
                         void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                         rt_err *err);

/*
 * Add a member from memory: n PES states (n >= 2) named names[i] with entry times
 * times[i] (non-decreasing). label names the member in messages.
 */
int rt_ses_add(rt_ses *s, const char *label, size_t n, const char *const *names,
               const double *times, rt_err *err);

/* Add a member from symbol ids already interned with rt_ses_intern (bench, tests). */
int rt_ses_add_ids(rt_ses *s, const char *label, size_t n, const int32_t *ids,
                   const double *times, rt_err *err);

/* Intern a symbol name (len bytes); returns its id or -1 when out of memory. */
int32_t rt_ses_intern(rt_ses *s, const char *name, size_t len);

/* Id of a name, or -1 when the name was never interned. */
int32_t rt_ses_lookup(const rt_ses *s, const char *name);

/* Name of an id (valid while the session lives); NULL for a bad id. */
const char *rt_ses_name(const rt_ses *s, int32_t id);

/* Number of interned symbols (ids are 0 .. count-1). */
size_t rt_ses_symbol_count(const rt_ses *s);

/* Is the id a symbol of some member's original PES? Is it a live composite? */
int rt_ses_is_original(const rt_ses *s, int32_t id);
int rt_ses_is_composite(const rt_ses *s, int32_t id);

/* Members, their labels and current lengths (SES elements). */
size_t rt_ses_members(const rt_ses *s);
const char *rt_ses_label(const rt_ses *s, size_t member);
size_t rt_ses_length(const rt_ses *s, size_t member);

/* Current symbols of a member (n = rt_ses_length ids, owned by the session). */
const int32_t *rt_ses_symbols(const rt_ses *s, size_t member);

/* Occupancy time and entry time of element i of a member. */
double rt_ses_time(const rt_ses *s, size_t member, size_t i);
double rt_ses_entry(const rt_ses *s, size_t member, size_t i);

/* The original SES range [*first, *last) that element i covers. */
void rt_ses_range(const rt_ses *s, size_t member, size_t i, size_t *first, size_t *last);

/* ---- transforms: each pushes one undo step, applies to every member ---- */

/*
 * Delete the first ni and last nf elements. RT_EINVAL (message) when ni + nf
 * exceeds the length of some member.
 */
int rt_ses_clip(rt_ses *s, size_t ni, size_t nf, rt_err *err);

/*
 * Replace every non-overlapping occurrence (left to right) of pattern[0..m-1] by
 * the symbol name, its time the sum of the times replaced. m >= 1.
 */
int rt_ses_aggregate(rt_ses *s, const int32_t *pattern, size_t m, const char *name,
                     rt_err *err);

/*
 * Projection through a map: map[id] is the new symbol of id, or -1 to keep it
 * (map has rt_ses_symbol_count entries at the call). Then every run of equal
 * consecutive target symbols (any symbol that some id maps to) becomes one
 * element. project(S -> s) is the map sending each member of S to s.
 */
int rt_ses_project(rt_ses *s, const int32_t *map, size_t nmap, rt_err *err);

/* Time-domain filter: select symbols with h(s)/T < p, 0 < p < 1 (else RT_EINVAL). */
int rt_ses_filter_time(rt_ses *s, double p, rt_err *err);

/* Event-domain filter: select symbols occurring fewer than p times, p > 0. */
int rt_ses_filter_event(rt_ses *s, double p, rt_err *err);

/*
 * Undo the last transform: every member gets back its previous version exactly,
 * and the composite names the transform made are free again. RT_ESTATE when
 * there is nothing to undo.
 */
int rt_ses_undo(rt_ses *s, rt_err *err);

/*
 * A filter planned for a stream (rt_pes_chain_ops): on a session with no member,
 * p checked as rt_ses_filter_time ('t') or rt_ses_filter_event ('e') check it, and
 * a step pushed whose description the stream completes with the composites made.
 */
int rt_ses_filter_plan(rt_ses *s, int domain, double p, rt_err *err);

/* Number of transforms applied (undo depth) and the description of step i (0-based). */
size_t rt_ses_depth(const rt_ses *s);
const char *rt_ses_step(const rt_ses *s, size_t i);

/* ---- statistics ---- */

/*
 * Per-symbol totals pooled over the members: count[id] occurrences and h[id]
 * (sum of occupancy times); both arrays have rt_ses_symbol_count entries,
 * allocated by the caller. *total gets T, the sum of all times.
 */
int rt_ses_totals(const rt_ses *s, uint64_t *count, double *h, double *total);

/*
 * Pattern search with the aggregation rule (non-overlapping, left to right).
 * Calls cb(member, start, ud) for each occurrence when cb is not NULL; returns
 * the count through *count and the occurrences' summed time through *time.
 */
int rt_ses_find(const rt_ses *s, const int32_t *pattern, size_t m,
                void (*cb)(size_t member, size_t start, void *ud), void *ud,
                uint64_t *count, double *time, rt_err *err);

/* ---- semi-Markov chains ---- */

typedef struct rt_chain_state {
    int32_t sym;    /* the symbol (the sentinel OTHER included) */
    uint64_t n;     /* occurrences */
    double mean;    /* sample mean of occupancy times */
    double var;     /* sample variance, n - 1 denominator; 0 when n == 1 */
    double total;   /* summed occupancy time */
} rt_chain_state;

typedef struct rt_chain_arc {
    int32_t from, to; /* symbols */
    uint64_t count;   /* transitions seen */
    double p;         /* count / transitions out of from */
} rt_chain_arc;

/* A node of a composite's acyclic chain: a prefix tree of its occurrences. */
typedef struct rt_chain_node {
    int32_t sym;      /* original symbol */
    int32_t parent;   /* index of the parent node, -1 for the first states */
    uint64_t n;       /* occurrences passing through */
    uint64_t ends;    /* occurrences ending here */
    double mean, var; /* occupancy time statistics */
} rt_chain_node;

typedef struct rt_chain_comp {
    int32_t sym;         /* the composite */
    size_t first, count; /* its nodes: chain->nodes[first .. first+count-1] */
} rt_chain_comp;

typedef struct rt_chain {
    int32_t other;          /* id of the sentinel OTHER */
    size_t nstates;         /* states in order of first appearance */
    rt_chain_state *states;
    size_t narcs;           /* arcs grouped by from state, in order of first appearance */
    rt_chain_arc *arcs;
    size_t ncomps;          /* composites present, in order of first appearance */
    rt_chain_comp *comps;
    size_t nnodes;
    rt_chain_node *nodes;
} rt_chain;

/*
 * Build the chain of the members listed (members == NULL: all): OTHER (time 0)
 * is appended to each member, statistics and transition counts are pooled. The
 * result is allocated; free with rt_chain_free.
 */
int rt_ses_chain(rt_ses *s, const size_t *members, size_t nmembers, rt_chain **out,
                 rt_err *err);
void rt_chain_free(rt_chain *c);

/*
 * The chain of one PES file, the same as rt_ses_load then rt_ses_chain give, read
 * as a stream: the sequence is never held (memory grows with the distinct states
 * and arcs). The names are interned in s (rt_ses_name reads the chain's symbols);
 * s gets no member. *states: the sequence's length. Errors as rt_ses_load's.
 */
int rt_pes_chain(rt_ses *s, const char *path, rt_chain **out, size_t *states, rt_err *err);
/* The same reporting its progress as rt_ses_load_progress does. */
int rt_pes_chain_progress(rt_ses *s, const char *path, uint64_t step,
                          void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                          rt_chain **out, size_t *states, rt_err *err);
/*
 * The chain of the PES after clip(ni, nf) (rt_ses_clip: the first ni and last nf
 * elements deleted), as a stream: the last nf elements are held back until the end
 * (memory grows with nf, not with the sequence). *states: the clipped length. The
 * same error as rt_ses_clip when ni + nf exceeds the length; RT_ESTATE when nothing
 * is left (load the sequence for that case).
 */
int rt_pes_chain_clip(rt_ses *s, const char *path, size_t ni, size_t nf, uint64_t step,
                      void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                      rt_chain **out, size_t *states, rt_err *err);

/*
 * Read a PES file as rt_ses_load does (the same checks and messages) without
 * holding it: every name is interned in s and marked as a symbol of an original
 * sequence (s gets no member), and each(each_ud, symbol, entry, end) is called for
 * every state of the sequence in order (each NULL: names only). A status other than
 * RT_OK from each stops the reading (RT_EIO: a temporary file failed; anything else
 * is reported as out of memory). *states (may be NULL): the sequence's length.
 * progress and step as rt_ses_load_progress's.
 */
int rt_pes_each(rt_ses *s, const char *path, uint64_t step,
                void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                int (*each)(void *ud, int32_t id, double entry, double end), void *each_ud, size_t *states,
                rt_err *err);

/* A transform applied as a stream (rt_pes_chain_ops), as its rt_ses_* call would. */
typedef struct rt_seq_op {
    char kind;            /* 'c' clip, 'p' project, 'a' aggregate, 't'/'e' filter_time/event */
    size_t ni, nf;        /* clip: rt_ses_clip's counts */
    const int32_t *map;   /* project: rt_ses_project's map (nmap entries) */
    size_t nmap;
    const int32_t *pat;   /* aggregate: the pattern (m symbols) and the composite z */
    size_t m;
    int32_t z;
    double p;             /* filters: rt_ses_filter_time/event's p */
} rt_seq_op;

/* What rt_pes_chain_ops tells of each op's result. */
typedef struct rt_seq_op_out {
    size_t length;        /* elements */
    size_t distinct;      /* distinct symbols */
    int32_t first;        /* the first element's symbol (-1: none) */
} rt_seq_op_out;

/*
 * The chain of one PES file after the ops, in order, as rt_ses_load, the rt_ses_*
 * transforms and rt_ses_chain give it, read as a stream: the sequence is never held
 * in memory (a clip holds back its last nf elements, an aggregate its pattern; the
 * original states go to a temporary file, read back in order for the definitions of
 * composites). The ops must have been applied to s first, with s holding no member
 * and the file's names (rt_pes_each with each NULL, then rt_ses_clip, rt_ses_project,
 * rt_ses_aggregate): s then names the composites and their steps. outs (nops
 * entries, may be NULL) get each op's result. *states: the final length.
 * RT_EINVAL with rt_ses_clip's message when a clip exceeds its input; RT_ESTATE when
 * nothing is left.
 * A filter (planned with rt_ses_filter_plan, its step at the op's index in s) needs
 * the totals of its input: the file is read once more for each filter, through the
 * ops before it; its composites are made as the stream meets them, in the loaded
 * session's order, and its step's description is completed. RT_EINVAL with
 * rt_ses_filter_time's message when its input has no time.
 */
int rt_pes_chain_ops(rt_ses *s, const char *path, const rt_seq_op *ops, size_t nops, uint64_t step,
                     void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                     rt_chain **out, size_t *states, rt_seq_op_out *outs, rt_err *err);

/*
 * The totals of the sequence the ops give (rt_ses_totals of a loaded session after
 * them), read as a stream as rt_pes_chain_ops does: *count and *h (malloc'd, *nsym
 * entries: the session's symbols after the ops), *total. Same errors.
 */
int rt_pes_totals_ops(rt_ses *s, const char *path, const rt_seq_op *ops, size_t nops, uint64_t step,
                      void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                      uint64_t **count, double **h, size_t *nsym, double *total, rt_err *err);

/* ---- periodogram (FFTW) ---- */

/*
 * Periodogram of a member's state signal: y = the rank of each symbol in order
 * of first appearance. domain 'e': one sample per element (frequency in cycles
 * per event); domain 't': the step function sampled at nsamples equal steps over
 * the member's time span (cycles per time unit; nsamples 0 picks 4 n, at most
 * 2^22). The mean
 * is removed; power[k] = |X_k|^2 / N for k = 0 .. N/2, freq[k] = k / (N dt).
 * Arrays are malloc'd; *nout = N/2 + 1.
 */
int rt_ses_periodogram(const rt_ses *s, size_t member, char domain, size_t nsamples,
                       double **freq, double **power, size_t *nout, rt_err *err);

/* Periodogram of an arbitrary real signal x[0..n-1] sampled every dt. */
int rt_periodogram(const double *x, size_t n, double dt, double **freq, double **power,
                   size_t *nout, rt_err *err);

/*
 * Histogram of symbol id's occupancy times over every member: nbins equal bins over
 * [*lo, *hi] (the smallest and largest time; hi = lo + 1 when they are equal), a
 * time in bin floor((t - lo) / (hi - lo) * nbins), the largest in the last bin.
 * counts[nbins] is the caller's; *n gets the occurrences. Two passes, no copy.
 */
void rt_ses_occupancy_hist(const rt_ses *s, int32_t id, size_t nbins, uint64_t *counts,
                           double *lo, double *hi, uint64_t *n);

/* What rt_ses_spectrum computes. */
typedef struct rt_spec_opts {
    char domain;       /* 'e' (cycles per event) or 't' (cycles per time unit) */
    int ranged;        /* 1: only [a, b] (event positions or times) */
    double a, b;
    size_t nsamples;   /* time domain: samples over the range (0: 4 per element, at most 2^22) */
    size_t segment;    /* Welch segment length (0: one segment, the whole signal) */
} rt_spec_opts;

/*
 * The power spectrum of member k's state signal (the rank of each symbol in order of
 * first appearance, as the views draw it) over the range asked, by Welch's method:
 * Hann-windowed segments of o->segment samples overlapping by half, each segment's
 * mean removed, |X_k|^2 / sum(w^2) averaged over the segments (one segment of the
 * whole signal when o->segment is 0 or not shorter than it). The signal is never
 * held whole when segmented: memory is O(segment), time O(N log segment).
 * freq/power are malloc'd (segment / 2 + 1 bins, or N / 2 + 1); *nseg gets the
 * number of segments averaged. RT_EINVAL when the range holds fewer than two samples.
 */
int rt_ses_spectrum(const rt_ses *s, size_t k, const rt_spec_opts *o, double **freq,
                    double **power, size_t *nout, size_t *nseg, rt_err *err);

/*
 * Peaks worth a label: the npeaks strongest bins of power[1 .. n-1] that are the
 * largest within guard bins either side (the main lobe of a windowed peak spans two
 * bins each way: a side lobe is never the largest of its neighbourhood) and reach
 * at least floor_share of the strongest bin. Strongest first into idx; returns how
 * many.
 */
size_t rt_spectrum_labels(const double *power, size_t n, size_t npeaks, size_t guard,
                          double floor_share, size_t *idx);

/*
 * The npeaks strongest local maxima of power[1 .. n-1] (power[k] > power[k-1] and
 * power[k] >= power[k+1], the last bin compared with its left neighbour only),
 * strongest first, as bin indices into idx (npeaks entries, allocated by the
 * caller). Returns how many were found (at most npeaks).
 */
size_t rt_spectrum_peaks(const double *power, size_t n, size_t npeaks, size_t *idx);

/*
 * Write member k's current sequence as CSV to path: a header
 * "event,entry,occupancy,symbol", then one row per element (event numbered from
 * 1, entry time, occupancy time, symbol; whole numbers without a decimal point,
 * others with the fewest digits that read back exactly). Streams from the
 * session: memory does not grow with the length. RT_EIO names the file.
 */
int rt_ses_write_csv(const rt_ses *s, size_t k, const char *path, rt_err *err);

/* ---- time and event views ---- */

/*
 * Rows of the views: row[id] = rank of symbol id in order of first appearance
 * in member k's current version, -1 for symbols absent (row has
 * rt_ses_symbol_count entries, allocated by the caller); *nrows = rows used.
 */
int rt_ses_rows(const rt_ses *s, size_t k, int32_t *row, size_t *nrows);

/*
 * On the axis of domain 't' (element i spans [entry, entry + occupancy]) or 'e'
 * (element i spans [i, i + 1], 0-based), the elements touching [a, b]: they are
 * the *count elements from *first on.
 */
void rt_ses_view_span(const rt_ses *s, size_t k, char domain, double a, double b,
                      size_t *first, size_t *count);

/*
 * Decimation for drawing: [a, b] cut into ncols equal pixel columns, position x
 * in column floor((x - a) / (b - a) * ncols) (clamped to 0 .. ncols-1); an
 * element is present in every column from that of its start to that of its end.
 * lo[c] / hi[c] get the lowest and highest row (from rt_ses_rows) present in
 * column c, -1 for a column no element touches. lo and hi have ncols entries.
 */
int rt_ses_view_columns(const rt_ses *s, size_t k, char domain, double a, double b,
                        size_t ncols, const int32_t *row, int32_t *lo, int32_t *hi);

/* Where a view is drawn: data x in [a, b] -> canvas ix .. ix + iw; row r in
 * [ya, yb] -> canvas iy + ih (ya) .. iy (yb). */
typedef struct rt_ses_frame {
    char domain;            /* 't' time, 'e' event */
    double a, b;            /* the data range shown on x */
    double ix, iy, iw, ih;  /* the plot area on the canvas */
    double ya, yb;          /* the row range shown on y */
} rt_ses_frame;

/*
 * Append the step line of member k in frame f to out (stride 4: x1, y1, x2, y2).
 * At most 4 elements per pixel of width: one horizontal segment per element and
 * one vertical segment to the next. More: per pixel column (rt_ses_view_columns
 * with iw columns) one vertical bar from the lowest to the highest row present,
 * runs of one-row columns as one horizontal segment; the size of out then
 * depends on iw only. RT_EINVAL for an empty range, RT_ENOMEM.
 */
int rt_ses_view_segments(const rt_ses *s, size_t k, const rt_ses_frame *f, const int32_t *row,
                         rt_pack *out, rt_err *err);

/* ---- simulation of a semi-Markov chain ---- */

/*
 * Draw a sample trajectory of nsteps states from a chain given as arrays:
 * nstates states with mean[i] / var[i] occupancy statistics, narcs arcs
 * (from[k] -> to[k] with probability p[k], indices into the states), starting at
 * state init. Occupancy times are gamma distributed with the state's mean and
 * variance (constant when var == 0). A state with no arc out restarts the
 * trajectory at init. Deterministic for a given seed. out_state / out_time have
 * nsteps entries, allocated by the caller.
 */
int rt_chain_simulate(size_t nstates, const double *mean, const double *var,
                      size_t narcs, const int32_t *from, const int32_t *to,
                      const double *p, int32_t init, uint64_t seed, size_t nsteps,
                      int32_t *out_state, double *out_time, rt_err *err);

/*
 * Clock drift of member k against member 0: the i-th entry of symbol id in member k
 * matched with the i-th in member 0, and t_k = offset + drift * t_0 fitted by least
 * squares (GSL). residual: the root mean square of the fit's residuals. RT_EFORMAT
 * when either member enters id fewer than twice or the drift is not positive.
 */
typedef struct rt_ses_clockfit {
    double offset, drift, residual;
    size_t n;        /* points fitted */
    size_t n_ref;    /* entries of the symbol in member 0 */
    size_t n_member; /* and in member k */
} rt_ses_clockfit;
int rt_ses_sync_fit(const rt_ses *s, size_t k, int32_t id, rt_ses_clockfit *out, rt_err *err);

/*
 * Merge the members of src into one member of dst (a fresh session) labelled label:
 * member k's times mapped onto member 0's clock, (t - offset[k]) / drift[k] (offset,
 * drift: NULL for 0 and 1); at every entry of any member (ties: all of them first)
 * the state is the tuple of each member's current symbol names joined by sep. The
 * sequence begins when every member has entered a state and ends when the first ends.
 * Memory: the merged sequence; a k-way merge (time O(length x members)).
 */
int rt_ses_merge(const rt_ses *src, const double *offset, const double *drift, const char *sep, rt_ses *dst,
                 const char *label, rt_err *err);

/*
 * Acquisitions per thread: in[id * T + j] != 0 when thread j's local state in symbol id
 * is one of the acquire states (in covers every symbol id). An acquisition is a maximal
 * run of elements with thread j inside; its time is the sum of their occupancy times.
 * per_member: member k is thread k alone (one-component states); otherwise every
 * member contributes to every thread. Runs open at a member's first or last element
 * are counted in cut. At most `shown` acquisitions per thread, evenly spaced, are
 * listed in starts / durations. Memory: threads x (members + shown); time: two passes.
 */
typedef struct rt_ses_acq_thread {
    size_t n, cut, nshown;
    double sum, sumsq, min, max;
    size_t *run_n;   /* per member */
    double *run_sum; /* per member */
    double *starts, *durations;
} rt_ses_acq_thread;
typedef struct rt_ses_acq {
    rt_ses_acq_thread *threads;
    size_t nthreads, shown;
} rt_ses_acq;
int rt_ses_acquire(const rt_ses *s, const uint8_t *in, size_t T, int per_member, size_t shown, rt_ses_acq *a,
                   rt_err *err);
void rt_ses_acq_free(rt_ses_acq *a);

#endif
