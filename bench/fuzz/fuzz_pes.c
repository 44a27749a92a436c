/* libFuzzer target: the PES reader, then a clip, an event filter and undo. */
#include <stdint.h>

#include "fuzz_input.h"
#include "rt_seq.h"

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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) { return rt_fuzz_with_file(data, n, run); }
