/*
 * fuzz_replay.h - the whole message-passing path on one input: the trace source
 * of a format, the replay to the end (bounded), the critical path, the matrix and
 * the warnings. What a fuzz target of a format adds is how its input becomes files.
 * Header only; `make fuzz`.
 */
#ifndef RT_FUZZ_REPLAY_H
#define RT_FUZZ_REPLAY_H

#include "rt_replay.h"
#include "rt_tsource_open.h"

static inline void rt_fuzz_replay(const char *path, const char *format)
{
    rt_err err;
    rt_tsource *src = rt_tsource_open(path, format, &err);
    if (!src)
        return;
    rt_replay_opts o = {0};
    o.critical_path = 1;
    o.matrix = 1;
    rt_replay *rp = rt_replay_new(src, &o, &err);
    if (rp) {
        int64_t done = 0;
        int st = RT_OK;
        /* bounded: a fuzzer's input is small, but a record may stand for many events */
        for (int k = 0; k < 2000 && st == RT_OK; k++)
            st = rt_replay_step(rp, 64, &done, &err);
        if (st == RT_EEOF) {
            rt_critical_path cp;
            if (rt_replay_critical_path(rp, &cp, &err) == RT_OK)
                rt_critical_path_clear(&cp);
            rt_replay_matrix_view m;
            rt_replay_matrix(rp, &m);
            for (int i = 0; i < rt_replay_nwarnings(rp); i++)
                (void)rt_replay_warning(rp, i);
        }
        rt_replay_free(rp);
    }
    rt_tsource_free(src);
}

#endif
