#!/usr/bin/env bash
# Installs NVIDIA's CUDA compiler toolkit from PyPI, pinned, into a cache directory, and prints the
# directory that holds bin/nvcc, include/cuda.h and lib/. Idempotent: a complete install is reused.
# Nothing from NVIDIA is committed to this repository; tests and .ci/run call this script.
#
#   scripts/install-toolkit.sh          -> prints e.g. ~/.cache/libcuda-shim/cuda-13.5.37/nvidia/cu13
#
# CUDA_SHIM_TOOLKIT_CACHE overrides the cache root.
set -euo pipefail

VERSION=13.5.37
CCCL_VERSION=13.3.5.0.6
PACKAGES=(
  "nvidia-cuda-nvcc==$VERSION"
  "nvidia-cuda-runtime==$VERSION"
  "nvidia-cuda-crt==$VERSION"
  "nvidia-nvvm==$VERSION"
  "nvidia-cuda-cccl==$CCCL_VERSION"
)

cache_root=${CUDA_SHIM_TOOLKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcuda-shim}
target="$cache_root/cuda-$VERSION"
root="$target/nvidia/cu13"
stamp="$target/.complete"

if [ ! -f "$stamp" ]; then
  python=$(command -v python3 || command -v python)
  rm -rf "$target.tmp"
  mkdir -p "$target.tmp"
  echo "installing NVIDIA CUDA toolkit $VERSION from PyPI into $target" >&2
  "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --target "$target.tmp" "${PACKAGES[@]}" >&2
  rm -rf "$target"
  mv "$target.tmp" "$target"
  # nvcc finds cicc, ptxas, the crt headers and libdevice relative to its own bin/ directory;
  # the pip packages lay them out like a toolkit under nvidia/cu13.
  chmod +x "$root"/bin/* "$root"/nvvm/bin/* 2>/dev/null || true
  printf '%s\n' "${PACKAGES[@]}" >"$stamp"
fi

for f in bin/nvcc bin/ptxas include/cuda.h include/cuda_runtime.h; do
  if [ ! -e "$root/$f" ]; then
    echo "install-toolkit: $root/$f is missing; remove $target and rerun" >&2
    exit 1
  fi
done
echo "$root"
