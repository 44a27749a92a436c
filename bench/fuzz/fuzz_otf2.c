/* libFuzzer target: an OTF2 archive of two locations (anchor, global definitions,
 * each location's definitions and events: parts of the input, see fuzz_archive.h),
 * read through the OTF2 library and replayed to the critical path. Seeds are
 * archives the OTF2 writer wrote, so mutations reach the records behind valid headers. */
#include "fuzz_archive.h"
#include "fuzz_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static const char *const names[] = {"traces.otf2", "traces.def", "traces/0.def", "traces/0.evt",
                                        "traces/1.def", "traces/1.evt"};
    char dir[64], path[128];
    if (rt_fuzz_unpack(data, n, names, 6, dir, sizeof dir) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    rt_fuzz_replay(path, "otf2");
    rt_fuzz_cleanup(dir, names, 6);
    return 0;
}
