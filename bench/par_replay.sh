#!/bin/sh
# bench/par_replay.sh [BUILD] [EVENTS...]: `retrace stats --json` on a generated OTF2
# archive of 4096 MPI ranks (bench/gen_otf2_mpi, default sizes 10^7 and 10^8 events),
# serially and under `mpirun -np N` for N = 1, 2, 4 (PAR_RANKS overrides the list).
# Archives are kept in $RETRACE_BENCH_DATA (default $TMPDIR/retrace-bench-data, or
# /tmp/...) and reused when present: the 10^8 one takes about 1.2 GB and minutes to write.
#
# For each run: the wall time and its ratio to the serial run; every rank's CPU time (user +
# system) and peak memory (/usr/bin/time around each rank); events/s in total (events / wall) and
# per rank (the rank's own events / its read + replay seconds, the exchange apart); the
# cross-rank message matching (exchange seconds summed over the ranks, waits for the
# slower ranks included, per message matched across ranks);
# and whether the JSON equals the serial run's. The per-rank counters come from
# RETRACE_PAR_STATS (one JSON line per rank: rank, size, events, local_events,
# sent_records, received_records, exchange_seconds, read_seconds, replay_seconds,
# messages_matched_remote); a build that does not write them gets "-" there.
# PAR_KEEP=DIR keeps each run's counters there (stats_EVENTS_N.jsonl). The last line
# checks the target: N = 2 in at most 0.6 x the serial wall time.
# PAR_COMMAND=static runs `retrace paragraph --static -o F.png --json` instead (the
# pre-pass and the drawing pass, each over the ranks; "same" compares the JSON and the PNG;
# two counter lines per rank, so the per-rank rates are "-").
set -e
BUILD=${1:-build}
[ $# -gt 0 ] && shift
SIZES=${*:-10000000 100000000}
RANKS_LIST=${PAR_RANKS:-1 2 4}
LOCATIONS=${PAR_LOCATIONS:-4096}
retrace=$BUILD/retrace
gen=$BUILD/bench/gen_otf2_mpi
[ -x "$retrace" ] && [ -x "$gen" ] || { echo "par_replay: $retrace or $gen missing (make build)"; exit 2; }
command -v mpirun >/dev/null || { echo "par_replay: mpirun missing (Open MPI): skipped"; exit 0; }
command -v lua5.4 >/dev/null || { echo "par_replay: lua5.4 missing (make deps)"; exit 2; }
data=${RETRACE_BENCH_DATA:-${TMPDIR:-/tmp}/retrace-bench-data}
mkdir -p "$data"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retrace-par-replay.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
launch="mpirun --allow-run-as-root --oversubscribe -q"
case ${PAR_COMMAND:-stats} in
  stats) command="stats --json" ;;
  static) command="paragraph --static -o $tmp/out.png --json" ;;
  *) echo "par_replay: PAR_COMMAND=$PAR_COMMAND: use stats or static"; exit 2 ;;
esac

# every rank under /usr/bin/time, its figures in $tmp/rank.RANK
cat > "$tmp/timed" <<'EOF'
#!/bin/sh
out=$1; shift
exec /usr/bin/time -o "$out.${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-0}}}" -f "%e %M %U %S" "$@"
EOF
chmod +x "$tmp/timed"

# the figures of one run, from the serial wall time, the run's wall time, the rank files,
# the RETRACE_PAR_STATS lines and the generator's summary
cat > "$tmp/row.lua" <<'EOF'
local cjson = require "cjson"
local size, n, serial, wall, same, stats, summary, ranks_prefix = ...
n, serial, wall = tonumber(n), tonumber(serial), tonumber(wall)
local sum = cjson.decode(io.open(summary):read("a"))
local rss, rcpu = {}, {}
for r = 0, math.max(n, 1) - 1 do
  local f = io.open(ranks_prefix .. "." .. r)
  local m, u, s = (f and f:read("a") or ""):match("[%d.]+ (%d+) ([%d.]+) ([%d.]+)%s*$")
  rss[#rss + 1] = m and string.format("%.0f", m / 1024) or "?"
  rcpu[#rcpu + 1] = u and string.format("%.1f", u + s) or "?"
  if f then f:close() end
end
local lines = {}
local f = io.open(stats)
if f then
  for l in f:lines() do
    local ok, v = pcall(cjson.decode, l)
    if ok and type(v) == "table" and v.size == n then lines[#lines + 1] = v end
  end
  f:close()
end
local per_rank, exch, matched = {}, 0, 0
for _, v in ipairs(lines) do
  local busy = (v.read_seconds or 0) + (v.replay_seconds or 0)
  per_rank[#per_rank + 1] = busy > 0 and string.format("%.2f", (v.local_events or 0) / busy / 1e6) or "-"
  exch = exch + (v.exchange_seconds or 0)
  matched = matched + (v.messages_matched_remote or 0)
end
local have = n > 0 and #lines == n
print(string.format("%-9s %6s %8.2f %6s %18s %14s %7.2f %18s %9s %10s %9s %4s", size, n == 0 and "serial" or n, wall,
  serial > 0 and string.format("%.2fx", wall / serial) or "-", table.concat(rcpu, "/"), table.concat(rss, "/"),
  sum.events / wall / 1e6, have and table.concat(per_rank, "/") or "-",
  have and string.format("%.2f", exch) or "-", have and string.format("%.0f", matched) or "-",
  have and matched > 0 and string.format("%.3f", exch / matched * 1e6) or "-", same))
EOF

for events in $SIZES; do
  archive=$data/mpi${LOCATIONS}_$events
  if [ ! -f "$archive.json" ] || [ ! -f "$archive/traces.otf2" ]; then
    rm -rf "$archive"
    /usr/bin/time -f "%e %M" -o "$tmp/gen.time" "$gen" "$archive" "$LOCATIONS" "$events" 1 > "$archive.json.new"
    mv "$archive.json.new" "$archive.json"
    read -r gw gm _ < "$tmp/gen.time"
    echo "# generated $archive: $gw s, $(( gm / 1024 )) MiB peak"
  fi
done
printf "%-9s %6s %8s %6s %18s %14s %7s %18s %9s %10s %9s %4s\n" events N "wall s" ratio "rank CPU s" "rank MiB" "Mev/s" "Mev/s per rank" "exch s" "remote msg" "us/msg" same
for events in $SIZES; do
  archive=$data/mpi${LOCATIONS}_$events
  anchor=$archive/traces.otf2
  start=$(date +%s.%N)
  rm -f "$tmp/out.png"
  # shellcheck disable=SC2086 # (the command's words)
  "$tmp/timed" "$tmp/serial" "$retrace" $command "$anchor" > "$tmp/serial.json"
  # (a serial --static run says how many passes it read the trace in; a job does not)
  [ -f "$tmp/out.png" ] && mv "$tmp/out.png" "$tmp/serial.png" && sed -i 's/"reads":[0-9]*,//' "$tmp/serial.json"
  serial=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.3f", $2 - $1 }')
  lua5.4 "$tmp/row.lua" "$events" 0 0 "$serial" "-" /dev/null "$archive.json" "$tmp/serial"
  for n in $RANKS_LIST; do
    rm -f "$tmp/stats" "$tmp/rank".*
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    RETRACE_PAR_STATS=$tmp/stats $launch -x RETRACE_PAR_STATS -np "$n" "$tmp/timed" "$tmp/rank" \
      "$retrace" $command "$anchor" > "$tmp/par.json"
    wall=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.3f", $2 - $1 }')
    same=no
    cmp -s "$tmp/serial.json" "$tmp/par.json" && { [ ! -f "$tmp/serial.png" ] || cmp -s "$tmp/serial.png" "$tmp/out.png"; } &&
      same=yes
    lua5.4 "$tmp/row.lua" "$events" "$n" "$serial" "$wall" "$same" "$tmp/stats" "$archive.json" "$tmp/rank"
    [ -n "$PAR_KEEP" ] && [ -f "$tmp/stats" ] && cp "$tmp/stats" "$PAR_KEEP/stats_${events}_$n.jsonl"
    [ "$n" = 2 ] && echo "$events $serial $wall" >> "$tmp/target"
  done
done
[ -f "$tmp/target" ] && awk '{ printf "target: %s events, N = 2 in %.2fx the serial wall time (at most 0.60x): %s\n",
  $1, $3 / $2, $3 <= 0.6 * $2 ? "met" : "not met" }' "$tmp/target"
exit 0
