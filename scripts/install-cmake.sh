#!/usr/bin/env bash
# Installs the pinned CMake (from PyPI's `cmake` wheel) into ~/.cache/libcuda-shim/cmake-VERSION
# on first use and prints the folder holding its `cmake` and `ctest`. The CMake recipe's test
# (tests/recipes.rs) uses it; a machine with its own CMake 3.24 or newer needs none of this.
set -euo pipefail
VERSION=3.31.6
root=${XDG_CACHE_HOME:-$HOME/.cache}/libcuda-shim/cmake-$VERSION
if [ ! -x "$root/cmake/data/bin/cmake" ]; then
  tmp=$(mktemp -d "$root.XXXXXX" 2>/dev/null || { mkdir -p "$(dirname "$root")"; mktemp -d "$root.XXXXXX"; })
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$tmp" "cmake==$VERSION" >&2
  rm -rf "$root"
  mv "$tmp" "$root"
fi
echo "$root/cmake/data/bin"
