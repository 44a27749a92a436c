/* libFuzzer target: a PICL trace (either format) through the whole replay and the
 * critical path (fuzz_picl covers the reader and the translation alone). */
#include "fuzz_input.h"
#include "fuzz_replay.h"

static void run(const char *path) { rt_fuzz_replay(path, "picl"); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) { return rt_fuzz_with_file(data, n, run); }
