#!/bin/sh
# Run each libFuzzer target for a set time with a seed corpus made from the
# test fixtures and examples.  Usage: bench/fuzz/run.sh BUILD_DIR SECONDS
# Corpora grow in BUILD_DIR/corpus/NAME; crashes land in BUILD_DIR/crashes/NAME.
set -eu
build=$1
secs=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
fx=$src/tests/fixtures
status=0
seed() { # seed NAME PREFIX FILES...: copy each file into the corpus, PREFIX bytes first
    name=$1; prefix=$2; shift 2
    mkdir -p "$build/corpus/$name"
    for f in "$@"; do
        [ -f "$f" ] || continue
        { printf "$prefix"; cat "$f"; } > "$build/corpus/$name/seed-$(basename "$f")-$(echo "$prefix" | od -An -tx1 | tr -d ' \n')"
    done
}
seed fuzz_memtrace '\000' "$fx"/info/*.din
seed fuzz_memtrace '\001' "$fx"/info/*.xdin
seed fuzz_memtrace '\002' "$fx"/info/*.lackey
seed fuzz_picl '' "$fx"/picl/*.trf "$fx"/medea/*.trf "$src"/examples/picl/*.trf
seed fuzz_shmap '' "$fx"/shmap/*.shm "$src"/examples/hello/*.shm
seed fuzz_pes '' "$fx"/chitra/* "$src"/examples/chitra/fragment.pes "$fx"/info/run.pes
# several files in one input, cut at the separator of fuzz_archive.h
pack() { # pack NAME SEEDNAME FILES...: the files joined by the separator (a missing one is empty)
    name=$1; seedname=$2; shift 2
    mkdir -p "$build/corpus/$name"
    out="$build/corpus/$name/seed-$seedname"
    : > "$out"
    first=1
    for f in "$@"; do
        [ $first = 1 ] || printf '\n@@RETRACE-FUZZ-FILE@@\n' >> "$out"
        first=0
        [ -f "$f" ] && cat "$f" >> "$out"
    done
}
shared=$src/../shared/data
pack fuzz_paraver small "$fx"/paraver/small.prv "$fx"/paraver/small.pcf "$fx"/paraver/small.row
pack fuzz_paraver qsort "$shared"/paraver/qsort_beo3.prv "$shared"/paraver/qsort_beo3.pcf
# OTF2 archives the OTF2 writer wrote (Score-P's ping-pong; the capture tests' archives when built)
for a in "$shared"/otf2/pingpong "$build"/tests/otf2-seeds/*; do
    [ -f "$a/traces.otf2" ] || continue
    pack fuzz_otf2 "$(basename "$a")" "$a"/traces.otf2 "$a"/traces.def "$a"/traces/0.def "$a"/traces/0.evt \
        "$a"/traces/1.def "$a"/traces/1.evt
done
seed fuzz_paje '' "$fx"/paje/*.trace "$shared"/paje/ms.trace
seed fuzz_picl_replay '' "$fx"/picl/*.trf "$fx"/medea/*.trf "$shared"/picl/mpicl-8a.trf "$shared"/picl/fft-16.trf
for t in fuzz_memtrace fuzz_picl fuzz_shmap fuzz_pes fuzz_paraver fuzz_otf2 fuzz_paje fuzz_picl_replay; do
    mkdir -p "$build/crashes/$t"
    echo "== $t for $secs s"
    # fuzz_otf2: the OTF2 library sizes its tables by the anchor's counts (a mutated count
    # asks calloc for gigabytes); a refused allocation must end in a clean error, so large
    # allocations fail (return NULL) instead of stopping the fuzzer
    # (the library also allocates per record: with the slow unwinder on every malloc, which the
    # leak suppressions need to see OTF2_Reader_Open, a damaged definitions file took 17 s of CPU
    # against 0.2 s in the plain build and tripped a 10 s timeout: 60 s for it)
    extra=""; asan=""; timeout=10
    if [ "$t" = fuzz_otf2 ]; then extra="-malloc_limit_mb=1000000"; asan=":allocator_may_return_null=1"; timeout=60; fi
    if ! ASAN_OPTIONS=fast_unwind_on_malloc=0$asan LSAN_OPTIONS=suppressions=$src/bench/fuzz/lsan.supp \
        "$build/fuzz/$t" "$build/corpus/$t" -max_total_time="$secs" -max_len=65536 -timeout=$timeout $extra \
        -rss_limit_mb=2048 -artifact_prefix="$build/crashes/$t/" -print_final_stats=1 2>"$build/$t.log"; then
        echo "$t: FOUND A FAILURE (input in $build/crashes/$t/, log in $build/$t.log)"
        status=1
    fi
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$build/$t.log" || true
done
exit $status
