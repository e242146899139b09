#!/usr/bin/env bash
# fuzz.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET...]
# Runs each fuzz target of a TETHER_SANITIZE build for a while (default 180 s)
# from its seed corpus plus what earlier runs found (BUILD_DIR/fuzz/work/NAME),
# and prints executions and crashes per target. Crashing inputs are kept in
# BUILD_DIR/fuzz/artifacts/NAME/. Exit 1 when any target crashed.
set -uo pipefail
build=$1 secs=${2:-180}
shift 2 2>/dev/null || shift $#
dir=$build/fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$dir"/fuzz-*; do [ -x "$f" ] && targets+=("${f##*/fuzz-}"); done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz.sh: no fuzz targets in $dir (build with TETHER_SANITIZE=ON)" >&2; exit 2; }
status=0
printf '%-14s %12s %10s %8s\n' target executions exec/s crashes
for t in "${targets[@]}"; do
  work=$dir/work/$t art=$dir/artifacts/$t
  mkdir -p "$work" "$art"
  [ -d "$dir/corpus/$t" ] && cp -rn "$dir/corpus/$t"/. "$work/" 2>/dev/null
  dict=()
  [ -f "$dir/$t.dict" ] && dict=(-dict="$dir/$t.dict")
  # A 16 MB quarantine instead of 256 MB, and no allocation stacks: each
  # execution of cxx-checks builds and frees a whole clang front end, and
  # with the default quarantine most of its time went to faulting in fresh
  # pages (1.5x the executions a second; use-after-free is still caught
  # within the last 16 MB freed, and reports still name the faulting line).
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0:quarantine_size_mb=16:malloc_context_size=0}
  # -fork keeps going past a crash so one run counts them all.
  "$dir/fuzz-$t" "${dict[@]}" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$art/" "$work" >"$dir/$t.log" 2>&1
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$dir/$t.log" | grep -oE '[0-9]+$' | awk '{s+=$1} END {print s+0}')
  if [ "$execs" = 0 ]; then  # -fork prints progress lines instead
    execs=$(grep -oE '#[0-9]+' "$dir/$t.log" | tail -n 1 | tr -d '#')
  fi
  crashes=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-14s %12s %10s %8s\n' "$t" "${execs:-0}" "$(( ${execs:-0} / secs ))" "$crashes"
  [ "$crashes" -eq 0 ] || status=1
done
exit $status
