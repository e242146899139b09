#!/bin/sh
# Runtime verifier figures: per-event cost of the ledger's hot path and the
# demo's replay loop with and without the verifier preloaded.
#   bench/runtime/run.sh [BUILD_DIR]      (default: build)
# Goals: <= 100 ns per alloc/free event, <= 1% replay overhead.
# Wall-clock figures are medians of several runs, each itself a median; the
# machine load is printed with them. Where valgrind is installed, the replay
# loop's instruction counts with and without the verifier are printed too:
# they do not depend on the load.
set -eu
build=${1:-build}
bench=$build/bin/tether-runtime-bench
demo=$build/bin/tether-replay-demo
acl=$build/lib/libtether_acl.so
for f in "$bench" "$demo" "$acl"; do
  [ -e "$f" ] || cmake --build "$build" --target tether-runtime-bench \
    tether-replay-demo tether_acl >/dev/null
done
runs=${TETHER_BENCH_RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "== ledger hot path: median ns/event over 1000-event batches, $runs runs"
for live in 10000 100000; do
  : >"$tmp/a"; : >"$tmp/f"
  for i in $(seq "$runs"); do
    line=$("$bench" "$live" 300)
    echo "$line" | sed -n 's/.*alloc_ns=\([0-9.]*\).*/\1/p' >>"$tmp/a"
    echo "$line" | sed -n 's/.*free_ns=\([0-9.]*\).*/\1/p' >>"$tmp/f"
  done
  printf "live=%-6s alloc %s  free %s  (runs: alloc %s | free %s)\n" "$live" \
    "$(median <"$tmp/a")" "$(median <"$tmp/f")" \
    "$(tr '\n' ' ' <"$tmp/a" | sed 's/ $//')" "$(tr '\n' ' ' <"$tmp/f" | sed 's/ $//')"
done

steps=300
echo "== demo replay loop (fixed, 8 layers, $steps steps): median ns/step per run"
echo "run   without    with   ratio"
: >"$tmp/p"; : >"$tmp/v"; : >"$tmp/r"
step_ns() { sed -n 's/^replay loop: \([0-9.]*\) ns\/step.*/\1/p'; }
for i in $(seq $((runs + 2))); do
  # Interleaved so drifting machine load hits both sides alike.
  p=$("$demo" --variant=fixed --layers=8 --steps=$steps | step_ns)
  v=$(LD_PRELOAD=$acl "$demo" --variant=fixed --layers=8 --steps=$steps 2>/dev/null | step_ns)
  echo "$p" >>"$tmp/p"; echo "$v" >>"$tmp/v"
  awk -v p="$p" -v v="$v" -v i="$i" 'BEGIN { printf "%-3d %9.0f %7.0f  %.4f\n", i, p, v, v / p }' |
    tee -a "$tmp/runs"
  awk -v p="$p" -v v="$v" 'BEGIN { printf "%.6f\n", v / p }' >>"$tmp/r"
done
awk -v p="$(median <"$tmp/p")" -v v="$(median <"$tmp/v")" -v r="$(median <"$tmp/r")" 'BEGIN {
  printf "median  %7.0f %7.0f  %.4f (median of ratios; overhead %+.2f%%)\n",
         p, v, r, 100 * (r - 1) }'

if command -v valgrind >/dev/null 2>&1; then
  echo "== demo replay loop, instructions (callgrind, 40 steps, load-independent)"
  count() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
      --toggle-collect='demo::Model::replay*' "$@" --variant=fixed --layers=8 \
      --steps=40 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  ip=$(count "$demo")
  iv=$(env LD_PRELOAD="$acl" valgrind --tool=callgrind \
      --callgrind-out-file="$tmp/cg.out" --toggle-collect='demo::Model::replay*' \
      "$demo" --variant=fixed --layers=8 --steps=40 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  awk -v p="$ip" -v v="$iv" 'BEGIN {
    printf "without %d  with %d  ratio %.4f (overhead %+.2f%%)\n", p, v, v / p, 100 * (v - p) / p }'
fi
