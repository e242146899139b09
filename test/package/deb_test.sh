#!/usr/bin/env bash
# The Debian package: built with CPack from this build (what `make package`
# does), inspected (name, Depends computed by dpkg-shlibdeps), unpacked
# with dpkg-deb -x into a temporary directory (no system change) and
# checked by check_installed.sh.
# usage: deb_test.sh BUILD_DIR SRC_ROOT PYTHON_SITE VERSION
set -euo pipefail
build=$1 src=$2 site=$3 version=$4
fail() { echo "deb_test: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$build" && cpack -G DEB -B "$tmp/out" > "$tmp/cpack.log" 2>&1) ||
  fail "cpack: $(tail -20 "$tmp/cpack.log")"
deb="$tmp/out/tether_${version}_amd64.deb"
[ -f "$deb" ] || fail "no $deb; made: $(ls "$tmp/out")"
echo "deb_test: $(basename "$deb"), $(stat -c %s "$deb") bytes"
depends=$(dpkg-deb -f "$deb" Depends)
echo "deb_test: Depends: $depends"
# From dpkg-shlibdeps (the linked libraries), and the named run-time needs.
names=$(echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//')
needs="libllvm22 libclang-cpp22 libstdc++6 libc6 libclang-common-22-dev python3"
# The tether executable's allocator, when the build links it (TETHER_JEMALLOC).
grep -q '^TETHER_JEMALLOC:BOOL=ON$' "$build/CMakeCache.txt" && needs+=" libjemalloc2"
for pkg in $needs; do
  echo "$names" | grep -qxF "$pkg" || fail "Depends lacks $pkg"
done
# The tree-sitter runtime is compiled in (checks/python/CMakeLists.txt).
if echo "$names" | grep -qxF libtree-sitter0; then
  fail "Depends names libtree-sitter0, which tether no longer links"
fi
dpkg-deb -x "$deb" "$tmp/root"
bash "$src/test/package/check_installed.sh" "$tmp/root/usr" "$site" "$src" "$build" "$version"
