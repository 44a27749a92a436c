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
for t in fuzz_memtrace fuzz_picl fuzz_shmap fuzz_pes; do
    mkdir -p "$build/crashes/$t"
    echo "== $t for $secs s"
    if ! "$build/fuzz/$t" "$build/corpus/$t" -max_total_time="$secs" -max_len=65536 -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix="$build/crashes/$t/" -print_final_stats=1 2>"$build/$t.log"; then
        echo "$t: FOUND A FAILURE (input in $build/crashes/$t/, log in $build/$t.log)"
        status=1
    fi
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$build/$t.log" || true
done
exit $status
