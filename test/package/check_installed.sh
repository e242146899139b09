#!/usr/bin/env bash
# Proves an installed tether works on its own: run from an installation
# ROOT (a `cmake --install` prefix, or the usr/ of an unpacked .deb), with a
# minimal environment, nothing of the build tree on any path.
#
# usage: check_installed.sh ROOT PYTHON_SITE SRC_ROOT BUILD_DIR VERSION
#   PYTHON_SITE  the package directory, relative to ROOT
#   BUILD_DIR    no installed file may mention it
set -euo pipefail
root=$1 site=$2 src=$3 build=$4 version=$5
fail() { echo "check_installed: FAIL: $*" >&2; exit 1; }
step() { echo "check_installed: $*"; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# A clean environment: no PATH entry, library path or PYTHONPATH of the build.
run() { env -i PATH=/usr/bin:/bin HOME="$scratch" "$@"; }

step "no installed file refers to the build tree ($build)"
if found=$(grep -rl --fixed-strings "$build" "$root"); then
  fail "these installed files mention the build tree: $found"
fi
for elf in "$root"/bin/* "$root"/lib/*.so "$root"/lib/tether/*.so "$root/$site"/tether_verify/*.so; do
  if run ldd "$elf" | grep -q "not found"; then
    fail "$elf: unresolved libraries: $(run ldd "$elf" | grep 'not found')"
  fi
done

step "tether --version"
run "$root/bin/tether" --version | grep -qx "tether version $version" ||
  fail "tether --version: $(run "$root/bin/tether" --version)"

step "tether check on examples/"
rc=0
(cd "$src" && run "$root/bin/tether" check examples/) > "$scratch/check.out" 2> "$scratch/check.err" || rc=$?
[ "$rc" -eq 1 ] || fail "tether check examples/ exited $rc (expected 1): $(cat "$scratch/check.err")"
for want in "examples/cxx/paged_attention.cpp:.*\[tether-double-weak-ref\]" \
            "examples/cxx/graph_workspace.cpp:.*\[tether-weak-ref-before-capture-end\]" \
            "examples/python/buggy/.*\[tether-weak-ref-before-capture-end\]"; do
  grep -q "$want" "$scratch/check.out" || fail "no finding matching '$want' in: $(cat "$scratch/check.out")"
done
grep -q "examples/python/fixed/" "$scratch/check.out" && fail "findings in the fixed Python example"

step "the plugin in clang-tidy-22"
run clang-tidy-22 --load="$root/lib/tether/libTetherTidy.so" --checks='-*,tether-*' \
  "$src/test/cli/Inputs/buggy.cpp" -- -std=c++17 -isystem "$src/test/checks/cxx/Inputs" \
  > "$scratch/tidy.out" 2>&1 || true
grep -q "buggy.cpp:7:10: warning: .*\[tether-double-weak-ref\]" "$scratch/tidy.out" ||
  fail "clang-tidy-22 with the installed plugin: $(cat "$scratch/tidy.out")"

if [ -x "$root/bin/tether-clangd" ]; then
  step "tether-clangd --check"
  mkdir "$scratch/clangd"
  cp "$src/test/cli/Inputs/buggy.cpp" "$scratch/clangd/"
  printf -- '-std=c++17\n-isystem%s\n' "$src/test/checks/cxx/Inputs" > "$scratch/clangd/compile_flags.txt"
  cp "$src/docs/clangd.yaml" "$scratch/clangd/.clangd"
  run "$root/bin/tether-clangd" --check="$scratch/clangd/buggy.cpp" --check-warnings \
    > "$scratch/clangd.out" 2>&1 || true
  grep -q "\[tether-double-weak-ref\] Line 7" "$scratch/clangd.out" ||
    fail "tether-clangd --check: $(tail -20 "$scratch/clangd.out")"
  grep -q "stddef.h.*not found\|file not found" "$scratch/clangd.out" &&
    fail "tether-clangd did not find clang's builtin headers"
fi

step "the Python module"
run PYTHONPATH="$root/$site" /usr/bin/python3 -c "
import sys, tether_verify as tv
assert tv.__file__.startswith(sys.argv[1]), tv.__file__
assert tv.__version__ == sys.argv[2], tv.__version__
assert tv.enabled() and tv.api_version() == tv.API_VERSION
print('tether_verify', tv.__version__, 'from', tv.__file__)
" "$root" "$version" || fail "importing the installed tether_verify"

step "python3 -m tether_verify run"
rc=0
run PYTHONPATH="$root/$site" /usr/bin/python3 -m tether_verify run -- \
  "$src/test/verifier/Inputs/show_program.py" one > "$scratch/run.out" 2>&1 || rc=$?
[ "$rc" -eq 7 ] || fail "tether_verify run exited $rc (expected the program's 7): $(cat "$scratch/run.out")"
grep -q "argv \['.*show_program.py', 'one'\]" "$scratch/run.out" ||
  fail "tether_verify run: $(cat "$scratch/run.out")"
[ -f "$root/$site/tether_verify/_catalog.py" ] || fail "no _catalog.py installed"
if command -v pre-commit > /dev/null; then
  step "pre-commit with the documented snippet (docs/pre-commit-config.yaml)"
  while IFS= read -r line; do
    case "$line" in '#'*|'') continue ;; esac
    grep -qF -- "$line" "$src/README.md" || fail "README's pre-commit snippet lacks: $line"
  done < "$src/docs/pre-commit-config.yaml"
  repo="$scratch/repo"
  mkdir -p "$repo/pkg"
  cp "$src/docs/pre-commit-config.yaml" "$repo/.pre-commit-config.yaml"
  cp "$src/test/integration/Inputs/py/attn_buggy.py" "$repo/pkg/attn.py"
  (cd "$repo" && git init -q && git add -A) || fail "git init"
  rc=0
  (cd "$repo" && run PATH="$root/bin:/usr/bin:/bin" pre-commit run --files pkg/attn.py) \
    > "$scratch/pc.out" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] || fail "pre-commit exited $rc (expected 1, findings): $(cat "$scratch/pc.out")"
  grep -q "pkg/attn.py:.*\[tether-" "$scratch/pc.out" || fail "pre-commit: $(cat "$scratch/pc.out")"
fi
step "ok"
