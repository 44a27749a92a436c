/* libFuzzer target: the PICL reader (format from the first record, lenient)
 * and the old -> new translation. */
#include <stdint.h>

#include "fuzz_input.h"
#include "rt_picl.h"

static void run(const char *path)
{
    rt_err err;
    rt_picl *r = rt_picl_open(path, NULL, &err);
    if (r) {
        rt_picl_xlate *x = rt_picl_xlate_new();
        rt_picl_record rec, out[2];
        char line[4096];
        for (int k = 0; k < 100000 && rt_picl_next(r, &rec, &err) == RT_OK; k++) {
            int m = 0;
            if (rec.format == RT_PICL_OLD && x)
                rt_picl_xlate_record(x, &rec, out, &m);
            for (int i = 0; i < m; i++)
                rt_picl_format_new(&out[i], line, sizeof line);
        }
        rt_picl_xlate_free(x);
        rt_picl_free(r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) { return rt_fuzz_with_file(data, n, run); }
