/* libFuzzer target: a Pajé trace read and replayed to the critical path. */
#include "fuzz_input.h"
#include "fuzz_replay.h"

static void run(const char *path) { rt_fuzz_replay(path, "paje"); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) { return rt_fuzz_with_file(data, n, run); }
