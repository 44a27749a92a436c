#!/bin/sh
# bench/mpi_overhead.sh [BUILD] [RANKS]: the cost of libretrace-mpi per MPI call. A rank
# sends an 8-byte message to itself and receives it N times (bench/mpi_pingpong.c; with
# RANKS=2 two ranks bounce it), N = 10^5 and 10^6, once plain and once under
# `retrace capture --mpi`; prints the time per call each way, the added time per call,
# the events recorded per second of added time, the rate the event chunks are written to
# the file (events per second of flushing, rank 0, $RETRACE_MPI_STATS), the archive's bytes
# per event, and the peak memory of the traced run (max RSS of the launcher's processes).
set -e
BUILD=${1:-build}
prog=$BUILD/mpi/bench/mpi_pingpong
[ -x "$prog" ] || { echo "mpi_overhead: $prog missing (retrace built without MPI): skipped"; exit 0; }
tmp=${TMPDIR:-/tmp}/retrace-bench-mpi-$$
mkdir -p "$tmp"
launch="mpirun --allow-run-as-root --oversubscribe -np ${2:-1}"
printf "%9s %13s %14s %13s %14s %14s %11s %13s\n" N "plain us/call" "traced us/call" "added us/call" "events/s added" "write events/s" "bytes/event" "traced maxRSS"
for n in 100000 1000000; do
  plain=$($launch "$prog" $n | sed -n 's/.* in \([0-9.]*\) s$/\1/p')
  RETRACE_MPI_STATS=1 /usr/bin/time -v "$BUILD"/retrace capture --mpi -o "$tmp"/pp.otf2 -- $launch "$prog" $n > "$tmp"/out 2> "$tmp"/time
  traced=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$tmp"/out)
  events=$(sed -n 's/.*ranks, \([0-9,]*\) events.*/\1/p' "$tmp"/out | tr -d ,)
  wrate=$(sed -n 's/^retrace-mpi: rank 0: .*(\(.*\) events\/s)$/\1/p' "$tmp"/time)
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp"/time)
  bytes=$(cat "$tmp"/pp.otf2/traces/*.evt | wc -c)
  # 2 calls (send, receive) per round trip on each rank; rank 0's loop is timed; events/s
  # counts rank 0's share of the events
  awk -v w=$wrate -v ranks=${2:-1} -v n=$n -v p=$plain -v t=$traced -v e=$events -v b=$bytes -v r=$rss 'BEGIN {
    calls = 2 * n; added = (t - p) / calls * 1e6
    printf "%9d %13.3f %14.3f %13.3f %14.3g %14.3g %11.2f %10d KB\n", n, p / calls * 1e6, t / calls * 1e6, added,
      (added > 0 ? e / ranks / (t - p) : 0), w, b / e, r }'
done
rm -rf "$tmp"
