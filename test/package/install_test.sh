#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installation is moved
# elsewhere (so nothing may depend on the prefix it was installed to either)
# and checked by check_installed.sh.
# usage: install_test.sh BUILD_DIR SRC_ROOT PYTHON_SITE VERSION
set -euo pipefail
build=$1 src=$2 site=$3 version=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/first" > "$tmp/install.log"
mv "$tmp/first" "$tmp/moved"
bash "$src/test/package/check_installed.sh" "$tmp/moved" "$site" "$src" "$build" "$version"
