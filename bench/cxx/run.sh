#!/bin/sh
# The C++ checks' cost, on real libtorch-including TUs and on generated TUs
# of growing size. Figures and how to read them: bench/cxx/README.md.
#
#   bench/cxx/run.sh [BUILD_DIR]      (default: build; RUNS=N to change runs)
set -eu
cd "$(dirname "$0")/../.."
TETHER="${1:-build}/bin/tether"
RUNS="${RUNS:-3}"
TUS="examples/cxx/graph_workspace.cpp
test/checks/cxx/tether-weak-ref-before-capture-end-libtorch.cpp
test/checks/cxx/tether-workspace-shared-across-layers-libtorch.cpp"

echo "== load before: $(uptime)"
echo "== tether check (all four checks) vs clang++-22 -fsyntax-only, wall"
# shellcheck disable=SC2086
python3 bench/tidy_vs_parse.py --runs "$RUNS" --tether "$TETHER" $TUS
echo "== the checks' own cost on the same TUs: --checks=-* vs all, CPU"
# shellcheck disable=SC2086
python3 bench/cxx/scale.py --runs "$RUNS" --tether "$TETHER" --per-check --tu $TUS
echo "== scaling with the number of functions (generated TUs)"
python3 bench/cxx/scale.py --runs "$RUNS" --tether "$TETHER" --per-check \
  --sizes 500,1000,2000
echo "== load after: $(uptime)"
