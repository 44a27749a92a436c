/*
 * rt_critpath.h - the critical path of a finished replay read part by part,
 * in time order, from a temporary file (the path of a long run can pass
 * through every message: keeping it whole would grow with the trace).
 *
 *     rt_cp_path *p = rt_cp_path_new(rp, &err);    (the walk back, rt_replay.h's rule)
 *     rt_cp_part part[64];
 *     for (int64_t i = 0; i < rt_cp_path_count(p); i += 64)
 *         rt_cp_path_read(p, i, 64 or fewer, part);
 *     rt_cp_path_free(p);
 *
 * Part i is the path's i-th segment and, except for the last part, the
 * message that leaves its end for the next segment's processor.
 * rt_replay_critical_path (rt_replay.h) is this read into two arrays.
 */
#ifndef RT_CRITPATH_H
#define RT_CRITPATH_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_replay.h"

typedef struct rt_cp_part {
    rt_cp_segment seg;
    int has_msg;          /* 0 for the last part */
    rt_message msg;       /* from seg.proc at seg.to to the next segment's processor */
} rt_cp_part;

typedef struct rt_cp_path rt_cp_path;

/* Walk the path of a finished replay made with opts.critical_path. NULL with err set
 * (RT_ESTATE, RT_ENOMEM, RT_EIO). A replay with no processor gives an empty path. */
rt_cp_path *rt_cp_path_new(const rt_replay *rp, rt_err *err);

/* Parts (segments); messages are one fewer (none for an empty path). */
int64_t rt_cp_path_count(const rt_cp_path *p);

/* Start, end and length (end - start) of the path, seconds. */
void rt_cp_path_span(const rt_cp_path *p, double *start, double *end, double *length);

/* Parts first .. first + n - 1 in time order into out: RT_OK, RT_EINVAL past the end, RT_EIO. */
int rt_cp_path_read(rt_cp_path *p, int64_t first, int64_t n, rt_cp_part *out);

void rt_cp_path_free(rt_cp_path *p);

#endif
