/* libFuzzer target: the PES reader, then a clip, an event filter and undo. */
#include <stdint.h>

#include "fuzz_input.h"
#include "rt_seq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char path[64];
    int fd = rt_fuzz_file(data, n, path, sizeof path);
    if (fd < 0)
        return 0;
    rt_err err;
    rt_ses *s = rt_ses_new();
    if (s && rt_ses_load(s, path, &err) == RT_OK) {
        rt_ses_filter_event(s, 1, &err);
        rt_ses_clip(s, 1, 1, &err);
        rt_ses_undo(s, &err);
    }
    rt_ses_free(s);
    close(fd);
    return 0;
}
