/* libFuzzer target: a Paraver trace with its .pcf and .row (parts of the input,
 * see fuzz_archive.h), read and replayed to the critical path. */
#include "fuzz_archive.h"
#include "fuzz_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static const char *const names[] = {"t.prv", "t.pcf", "t.row"};
    char dir[64], path[128];
    if (rt_fuzz_unpack(data, n, names, 3, dir, sizeof dir) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/t.prv", dir);
    rt_fuzz_replay(path, "paraver");
    rt_fuzz_cleanup(dir, names, 3);
    return 0;
}
