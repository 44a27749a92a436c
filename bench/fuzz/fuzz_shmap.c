/* libFuzzer target: the SHMAP reader (two passes), the scheduler and the
 * simulation on 4 PEs sharing 2 small caches. */
#include <stdint.h>

#include "fuzz_input.h"
#include "rt_cache.h"
#include "rt_shmap.h"
#include "rt_shmap_sim.h"

static void run(const char *path)
{
    rt_err err;
    rt_shmap *r = rt_shmap_open(path, &err);
    if (r) {
        rt_cache_config caches[2] = {rt_cache_defaults(64, 4), rt_cache_defaults(64, 4)};
        rt_shmap_sim *s = rt_shmap_sim_new(r, 4, caches, 2, 4, &err);
        if (s) {
            rt_shmap_sim_set_max_elements(s, 1 << 16);
            uint64_t done;
            rt_shmap_sim_step(s, 20000, &done, &err);
            rt_shmap_sim_free(s);
        }
        rt_shmap_free(r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) { return rt_fuzz_with_file(data, n, run); }
