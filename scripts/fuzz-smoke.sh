#!/usr/bin/env bash
# fuzz-smoke.sh FUZZER SEED_DIR SECONDS [-dict=FILE]
# A few seconds of fuzzing from a scratch copy of the seeds: fails when the
# harness crashes, leaks, hangs or blows up on its seeds or on what it finds.
set -euo pipefail
exe=$1 seeds=$2 secs=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
cp -r "$seeds"/. "$work/corpus/" 2>/dev/null || true
"$exe" "$@" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" 2>"$work/log" || {
  rc=$?
  tail -n 60 "$work/log"
  for a in "$work"/artifacts/*; do
    [ -f "$a" ] && { echo "== input that failed ($a):"; head -c 2000 "$a" | od -c | head -n 40; }
  done
  exit "$rc"
}
grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$work/log" | tail -n 2
