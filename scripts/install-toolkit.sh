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

if [ "$want_nvrtc" = 1 ]; then
  nvrtc_target="$cache_root/nvrtc-$VERSION"
  nvrtc_root="$nvrtc_target/nvidia/cu13"
  nvrtc_package="nvidia-cuda-nvrtc==$VERSION"
  if [ ! -f "$nvrtc_target/.complete" ] || [ "$(cat "$nvrtc_target/.complete")" != "$nvrtc_package" ]; then
    python=$(command -v python3 || command -v python)
    rm -rf "$nvrtc_target.tmp"
    mkdir -p "$nvrtc_target.tmp"
    echo "installing NVIDIA NVRTC $VERSION from PyPI into $nvrtc_target" >&2
    "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
      --no-deps --target "$nvrtc_target.tmp" "$nvrtc_package" >&2
    echo "$nvrtc_package" >"$nvrtc_target.tmp/.complete"
    rm -rf "$nvrtc_target"
    mv "$nvrtc_target.tmp" "$nvrtc_target"
  fi
  for f in include/nvrtc.h lib/libnvrtc.so.13; do
    if [ ! -e "$nvrtc_root/$f" ]; then
      echo "install-toolkit: $nvrtc_root/$f is missing; remove $nvrtc_target and rerun" >&2
      exit 1
    fi
  done
  echo "$nvrtc_root"
  exit 0
fi

if [ "$want_cutlass" = 1 ]; then
  cutlass_package="nvidia-cutlass==4.2.0.0"
  cutlass_target="$cache_root/cutlass-4.2.0.0"
  cutlass_root="$cutlass_target/cutlass_library/source/include"
  if [ ! -f "$cutlass_target/.complete" ] || [ "$(cat "$cutlass_target/.complete")" != "$cutlass_package" ]; then
    python=$(command -v python3 || command -v python)
    rm -rf "$cutlass_target.tmp"
    mkdir -p "$cutlass_target.tmp"
    echo "installing NVIDIA CUTLASS headers from PyPI into $cutlass_target" >&2
    "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
      --no-deps --target "$cutlass_target.tmp" "$cutlass_package" >&2
    echo "$cutlass_package" >"$cutlass_target.tmp/.complete"
    rm -rf "$cutlass_target"
    mv "$cutlass_target.tmp" "$cutlass_target"
  fi
  for f in cutlass/gemm/device/gemm.h cute/tensor.hpp; do
    if [ ! -e "$cutlass_root/$f" ]; then
      echo "install-toolkit: $cutlass_root/$f is missing; remove $cutlass_target and rerun" >&2
      exit 1
    fi
  done
  echo "$cutlass_root"
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
