#!/usr/bin/env bash
# Every benchmark, side by side with its baseline, one after the other
# (`make bench`). Figures are ratios; each script prints its machine load.
#   bench/run-all.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

echo; echo "== C++: tether check vs clang++-22 -fsyntax-only (libtorch TUs)"
if [ -x bench/cxx/run.sh ]; then
  bench/cxx/run.sh "$build"
else
  python3 bench/tidy_vs_parse.py --tether "$build/bin/tether" \
    examples/cxx/paged_attention.cpp
fi

echo; echo "== Python: tether check vs CPython ast.parse (generated package)"
python3 bench/python/bench.py --tether "$build/bin/tether"

corpus=../shared/corpus/vllm-ascend-5522/before/vllm_ascend
if [ -d "$corpus" ]; then
  echo; echo "== Python editor: tether lsp open and comment edit vs tether check (vLLM Ascend)"
  python3 bench/python/lsp.py --tether "$build/bin/tether" --tree "$corpus"
  echo; echo "== Python pre-commit: tether check on two files, cold and warm, vs pyflakes (vLLM Ascend)"
  python3 bench/python/precommit.py --tether "$build/bin/tether" --tree "$corpus"
fi

echo; echo "== clangd: tether-clangd --check vs clangd-22 --check"
python3 bench/clangd/run.py --tether-clangd "$build/bin/tether-clangd"

echo; echo "== runtime verifier: per-event cost, replay overhead"
sh bench/runtime/run.sh "$build"
