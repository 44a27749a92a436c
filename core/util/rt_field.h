/*
 * rt_field.h - the rules every trace reader applies to its fields, written once.
 *
 * A reader parses numbers with rt_lines' strict parsers (rt_span_long,
 * rt_span_double: finite values only); what a value must then satisfy is
 * checked here, with one wording of the message for every reader:
 *   - a name (a state, a container, a procedure, a label) holds no NUL byte:
 *     C strings would cut it short silently;
 *   - a count of bytes or items is not negative;
 *   - the time stamps of one trace span a finite interval: two finite stamps
 *     near +-1.7e308 are each fine, but their difference is infinite, and
 *     every statistic built on the span (percentages, rates, clustering)
 *     would turn to nan;
 *   - sums and products of counters do not wrap (rt_add_u64, rt_mul_u64).
 * Each check returns RT_OK, or RT_EFORMAT with err "FILE:LINE: FIELD: why"
 * (line 0 leaves the line out).
 */
#ifndef RT_FIELD_H
#define RT_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

/* The name p[0, n) holds no NUL byte (the message shows it escaped: 'A\x00'). */
int rt_field_name(const char *p, size_t n, const char *file, unsigned long line, const char *field,
                  rt_err *err);

/* A count (bytes, sizes, items) is not negative (nor nan). */
int rt_field_count(double v, const char *file, unsigned long line, const char *field, rt_err *err);

/* The time stamps seen so far: their least and greatest. Zero it to start. */
typedef struct rt_timespan {
    double lo, hi;
    int any; /* a stamp has been added */
} rt_timespan;

/*
 * Add time stamp t (from field of file:line). Refused: a stamp that is not
 * finite, and one that makes the span hi - lo overflow to infinity (the
 * message names the record and the stamp it is too far from).
 */
int rt_timespan_add(rt_timespan *s, double t, const char *file, unsigned long line, const char *field,
                    rt_err *err);

/* *out = a + b or a * b; 1 when it fits in 64 bits, 0 (and *out = UINT64_MAX) when it wraps. */
int rt_add_u64(uint64_t a, uint64_t b, uint64_t *out);
int rt_mul_u64(uint64_t a, uint64_t b, uint64_t *out);

#endif
