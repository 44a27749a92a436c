/* rt_field.c - one checker per field rule (see rt_field.h). */
#include "rt_field.h"

#include <math.h>
#include <string.h>

int rt_field_name(const char *p, size_t n, const char *file, unsigned long line, const char *field,
                  rt_err *err)
{
    if (memchr(p, '\0', n)) {
        char ex[RT_EXCERPT_CAP];
        return rt_err_at(err, RT_EFORMAT, file, line, "%s: '%s' holds a NUL byte", field,
                         rt_excerpt(p, n, 0, ex, sizeof ex));
    }
    return RT_OK;
}

int rt_field_count(double v, const char *file, unsigned long line, const char *field, rt_err *err)
{
    if (!(v >= 0))
        return rt_err_at(err, RT_EFORMAT, file, line, "%s: %.17g is negative", field, v);
    return RT_OK;
}

int rt_timespan_add(rt_timespan *s, double t, const char *file, unsigned long line, const char *field,
                    rt_err *err)
{
    if (!isfinite(t))
        return rt_err_at(err, RT_EFORMAT, file, line, "%s: %g is not a finite time", field, t);
    if (!s->any) {
        s->lo = s->hi = t;
        s->any = 1;
        return RT_OK;
    }
    if (t < s->lo) {
        if (!isfinite(s->hi - t))
            return rt_err_at(err, RT_EFORMAT, file, line,
                             "%s: %.17g is too far before the time %.17g also in the trace: the span does not fit "
                             "a double", field, t, s->hi);
        s->lo = t;
    } else if (t > s->hi) {
        if (!isfinite(t - s->lo))
            return rt_err_at(err, RT_EFORMAT, file, line,
                             "%s: %.17g is too far after the time %.17g also in the trace: the span does not fit "
                             "a double", field, t, s->lo);
        s->hi = t;
    }
    return RT_OK;
}

int rt_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a > UINT64_MAX - b) {
        *out = UINT64_MAX;
        return 0;
    }
    *out = a + b;
    return 1;
}

int rt_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b != 0 && a > UINT64_MAX / b) {
        *out = UINT64_MAX;
        return 0;
    }
    *out = a * b;
    return 1;
}
