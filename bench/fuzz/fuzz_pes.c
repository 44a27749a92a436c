/* libFuzzer target: the PES reader, then a clip, an event filter and undo; and the same
 * file as a stream through an event filter, a clip and a time filter (rt_pes_chain_ops),
 * whose length must be the loaded session's after the same steps. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "rt_seq.h"

/* The loaded session's length after filter_event 2, clip 1 1, filter_time 0.5 (0: refused). */
static size_t loaded(const char *path)
{
    rt_err err;
    size_t n = 0;
    rt_ses *s = rt_ses_new();
    if (s && rt_ses_load(s, path, &err) == RT_OK && rt_ses_filter_event(s, 2, &err) == RT_OK &&
        rt_ses_clip(s, 1, 1, &err) == RT_OK && rt_ses_filter_time(s, 0.5, &err) == RT_OK)
        n = rt_ses_length(s, 0);
    rt_ses_free(s);
    return n;
}

static void run(const char *path)
{
    rt_err err;
    rt_ses *s = rt_ses_new();
    if (s && rt_ses_load(s, path, &err) == RT_OK) {
        rt_ses_filter_event(s, 1, &err);
        rt_ses_clip(s, 1, 1, &err);
        rt_ses_undo(s, &err);
    }
    rt_ses_free(s);
    /* the stream, planned on the file's names */
    s = rt_ses_new();
    size_t states = 0;
    if (s && rt_pes_each(s, path, 0, NULL, NULL, NULL, NULL, NULL, &err) == RT_OK &&
        rt_ses_filter_plan(s, 'e', 2, &err) == RT_OK && rt_ses_clip(s, 1, 1, &err) == RT_OK &&
        rt_ses_filter_plan(s, 't', 0.5, &err) == RT_OK) {
        rt_seq_op ops[3] = {{.kind = 'e', .p = 2}, {.kind = 'c', .ni = 1, .nf = 1}, {.kind = 't', .p = 0.5}};
        rt_chain *c = NULL;
        if (rt_pes_chain_ops(s, path, ops, 3, 0, NULL, NULL, &c, &states, NULL, &err) != RT_OK)
            states = 0;
        rt_chain_free(c);
    }
    rt_ses_free(s);
    if (states && states != loaded(path))
        abort(); /* the stream and the loaded session disagree */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) { return rt_fuzz_with_file(data, n, run); }
