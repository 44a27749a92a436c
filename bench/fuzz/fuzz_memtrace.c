/* libFuzzer target: the memory-trace readers (din, xdin, lackey, RTMB) feeding
 * a small cache. The first byte picks the format; the rest is the file. */
#include <stdint.h>

#include "fuzz_input.h"
#include "rt_cache.h"
#include "rt_memtrace.h"

static int fmt; /* of the current input */

static void run(const char *path)
{
    rt_err err;
    rt_memtrace *t = rt_memtrace_open(path, fmt, &err);
    if (t) {
        rt_cache_config cfg = rt_cache_defaults(1024, 16);
        cfg.ways = 2;
        rt_cache *c = NULL;
        if (rt_cache_new(&cfg, &c, &err) == RT_OK) {
            rt_memref r;
            for (int k = 0; k < 100000 && rt_memtrace_next(t, &r, &err) == RT_OK; k++)
                if (r.kind == RT_REF_READ || r.kind == RT_REF_WRITE)
                    rt_cache_access(c, r.addr, r.kind == RT_REF_WRITE, NULL);
            rt_cache_free(c);
        }
        rt_memtrace_free(t);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    if (n < 1)
        return 0;
    fmt = data[0] % RT_MEMFMT_COUNT;
    return rt_fuzz_with_file(data + 1, n - 1, run);
}
