#!/usr/bin/env bash
# Installs NVIDIA's CUDA compiler toolkit from PyPI, pinned, into a cache directory, and prints the
# directory that holds bin/nvcc, include/cuda.h and lib/. Idempotent: a complete install is reused.
# Nothing from NVIDIA is committed to this repository; tests and .ci/run call this script.
#
#   scripts/install-toolkit.sh          -> prints e.g. ~/.cache/libcuda-shim/cuda-13.5.37/nvidia/cu13
#   scripts/install-toolkit.sh --cudart12
#       -> also installs NVIDIA's CUDA 12.9 runtime (pip nvidia-cuda-runtime-cu12, pinned: static
#          and shared cudart 12.9 and its headers; the cu12 packages have no nvcc binary) and
#          prints the directory that holds its include/ and lib/ instead, e.g.
#          ~/.cache/libcuda-shim/cudart-12.9.79/nvidia/cuda_runtime. Test programs are built
#          with the CUDA 13 nvcc against it (12.9 headers first, -cudart none, explicit link).
#   scripts/install-toolkit.sh --nvrtc
#       -> also installs NVIDIA's NVRTC of the toolkit's version (pip nvidia-cuda-nvrtc, pinned)
#          and prints the directory that holds its include/nvrtc.h and lib/libnvrtc.so.13, e.g.
#          ~/.cache/libcuda-shim/nvrtc-13.5.37/nvidia/cu13 (the directory the PTX corpus uses).
#   scripts/install-toolkit.sh --cutlass
#       -> also installs NVIDIA's CUTLASS/CuTe headers (pip nvidia-cutlass, pinned, without its
#          Python dependencies) and prints the directory that holds cutlass/ and cute/, e.g.
#          ~/.cache/libcuda-shim/cutlass-4.2.0.0/cutlass_library/source/include.
#
# CUDA_SHIM_TOOLKIT_CACHE overrides the cache root.
set -euo pipefail

want_cudart12=0
want_nvrtc=0
want_cutlass=0
case "${1:-}" in
  "") ;;
  --cudart12) want_cudart12=1 ;;
  --nvrtc) want_nvrtc=1 ;;
  --cutlass) want_cutlass=1 ;;
  *)
    echo "usage: $0 [--cudart12 | --nvrtc | --cutlass]" >&2
    exit 2
    ;;
esac

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

# Installs one extra pinned pip package (no dependencies) into TARGET once, checks that ROOT
# holds each FILE, and prints ROOT: install_extra WHAT PACKAGE TARGET ROOT FILE...
install_extra() {
  local what=$1 package=$2 target=$3 root=$4
  shift 4
  if [ ! -f "$target/.complete" ] || [ "$(cat "$target/.complete")" != "$package" ]; then
    local python
    python=$(command -v python3 || command -v python)
    rm -rf "$target.tmp"
    mkdir -p "$target.tmp"
    echo "installing $what from PyPI into $target" >&2
    "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
      --no-deps --target "$target.tmp" "$package" >&2
    echo "$package" >"$target.tmp/.complete"
    rm -rf "$target"
    mv "$target.tmp" "$target"
  fi
  for f in "$@"; do
    if [ ! -e "$root/$f" ]; then
      echo "install-toolkit: $root/$f is missing; remove $target and rerun" >&2
      exit 1
    fi
  done
  echo "$root"
}

if [ "$want_nvrtc" = 1 ]; then
  install_extra "NVIDIA NVRTC $VERSION" "nvidia-cuda-nvrtc==$VERSION" \
    "$cache_root/nvrtc-$VERSION" "$cache_root/nvrtc-$VERSION/nvidia/cu13" \
    include/nvrtc.h lib/libnvrtc.so.13
  exit 0
fi

if [ "$want_cutlass" = 1 ]; then
  CUTLASS_VERSION=4.2.0.0
  install_extra "NVIDIA CUTLASS headers $CUTLASS_VERSION" "nvidia-cutlass==$CUTLASS_VERSION" \
    "$cache_root/cutlass-$CUTLASS_VERSION" \
    "$cache_root/cutlass-$CUTLASS_VERSION/cutlass_library/source/include" \
    cutlass/gemm/device/gemm.h cute/tensor.hpp
  exit 0
fi

if [ "$want_cudart12" = 0 ]; then
  echo "$root"
  exit 0
fi

CUDART12_VERSION=12.9.79
cudart12_target="$cache_root/cudart-$CUDART12_VERSION"
cudart12_root="$cudart12_target/nvidia/cuda_runtime"
cudart12_stamp="$cudart12_target/.complete"
if [ ! -f "$cudart12_stamp" ]; then
  python=$(command -v python3 || command -v python)
  rm -rf "$cudart12_target.tmp"
  mkdir -p "$cudart12_target.tmp"
  echo "installing NVIDIA CUDA runtime $CUDART12_VERSION from PyPI into $cudart12_target" >&2
  "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --no-deps --target "$cudart12_target.tmp" "nvidia-cuda-runtime-cu12==$CUDART12_VERSION" >&2
  rm -rf "$cudart12_target"
  mv "$cudart12_target.tmp" "$cudart12_target"
  echo "nvidia-cuda-runtime-cu12==$CUDART12_VERSION" >"$cudart12_stamp"
fi
for f in include/cuda_runtime.h lib/libcudart_static.a lib/libcudart.so.12; do
  if [ ! -e "$cudart12_root/$f" ]; then
    echo "install-toolkit: $cudart12_root/$f is missing; remove $cudart12_target and rerun" >&2
    exit 1
  fi
done
echo "$cudart12_root"
