#!/bin/sh
# Runtime verifier figures: per-event cost of the ledger's hot path and the
# demo's replay loop with and without the verifier preloaded.
#   bench/runtime/run.sh [BUILD_DIR]      (default: build)
# Goals: <= 100 ns per alloc/free event, <= 1% replay overhead.
set -eu
build=${1:-build}
bench=$build/bin/tether-runtime-bench
demo=$build/bin/tether-replay-demo
acl=$build/lib/libtether_acl.so
for f in "$bench" "$demo" "$acl"; do
  [ -e "$f" ] || cmake --build "$build" --target tether-runtime-bench \
    tether-replay-demo tether_acl >/dev/null
done

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "== ledger hot path (median ns/event over 1000-event batches)"
for live in 10000 100000; do
  "$bench" "$live" 300
done

echo "== demo replay loop (fixed variant, 8 layers, median of 7 runs)"
steps=300
: >"${TMPDIR:-/tmp}/tether-replay-plain.$$"
: >"${TMPDIR:-/tmp}/tether-replay-verified.$$"
plain=${TMPDIR:-/tmp}/tether-replay-plain.$$
verified=${TMPDIR:-/tmp}/tether-replay-verified.$$
trap 'rm -f "$plain" "$verified"' EXIT
for i in 1 2 3 4 5 6 7; do
  # Interleaved so drifting machine load hits both sides alike.
  "$demo" --variant=fixed --layers=8 --steps=$steps |
    sed -n 's/^replay loop: \([0-9.]*\) ns\/step/\1/p' >>"$plain"
  LD_PRELOAD=$acl "$demo" --variant=fixed --layers=8 --steps=$steps 2>/dev/null |
    sed -n 's/^replay loop: \([0-9.]*\) ns\/step/\1/p' >>"$verified"
done
p=$(median <"$plain")
v=$(median <"$verified")
awk -v p="$p" -v v="$v" 'BEGIN {
  printf "replay ns/step: without %.0f, with verifier %.0f, ratio %.4f (overhead %+.2f%%)\n",
         p, v, v / p, 100 * (v - p) / p }'
