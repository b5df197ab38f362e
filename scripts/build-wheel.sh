#!/usr/bin/env bash
# Builds the Python wheel `cuda-shim` (cuda-shim/pyproject.toml) with the pinned maturin and
# prints the wheel's path. The wheel holds the `cuda-shim` tool, which carries the driver library
# (cuda-shim/build.rs), and the Python package `cuda_shim`
# (cuda-shim/python/) that loads that library into a running interpreter.
#
#   scripts/build-wheel.sh            -> target/wheels/cuda_shim-<version>-py3-none-<platform>.whl
#   scripts/build-wheel.sh DIR        -> the wheel in DIR
#   pip install "$(scripts/build-wheel.sh)"
#
# maturin is installed, pinned, into a virtual environment under the toolkit cache
# (CUDA_SHIM_TOOLKIT_CACHE, default ~/.cache/libcuda-shim) on first use. Cargo builds in
# CARGO_TARGET_DIR, default the checkout's target/: the tool reuses what the workspace's release
# build compiled, and the library it carries is built in target/shim-embed (cuda-shim/build.rs),
# about 4 minutes on 2 cores the first time, incremental afterwards.
set -euo pipefail

MATURIN_VERSION=1.9.6

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$repo/target/wheels}
cache_root=${CUDA_SHIM_TOOLKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcuda-shim}
venv="$cache_root/maturin-$MATURIN_VERSION"

if [ ! -f "$venv/.complete" ]; then
  python=$(command -v python3 || command -v python)
  rm -rf "$venv" "$venv.tmp"
  mkdir -p "$cache_root"
  echo "installing maturin $MATURIN_VERSION from PyPI into $venv" >&2
  # Built under a temporary name and renamed: its scripts then name the wrong path, so maturin
  # is always run as `python -m maturin`.
  "$python" -m venv "$venv.tmp"
  "$venv.tmp/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin==$MATURIN_VERSION" >&2
  mv "$venv.tmp" "$venv"
  touch "$venv/.complete"
fi

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}

mkdir -p "$out"
staging=$(mktemp -d "$out/.build.XXXXXX")
trap 'rm -rf "$staging"' EXIT
# maturin tags the wheel with the oldest manylinux its glibc symbols allow (plain `linux` if
# none), so pip installs it on this machine and on those with that glibc or newer.
"$venv/bin/python" -m maturin build --release --locked --strip \
  --manifest-path "$repo/cuda-shim/Cargo.toml" --out "$staging" >&2
wheel=$(find "$staging" -name 'cuda_shim-*.whl' | head -n 1)
if [ -z "$wheel" ]; then
  echo "build-wheel: maturin built no wheel" >&2
  exit 1
fi
mv -f "$wheel" "$out/"
echo "$out/$(basename "$wheel")"
