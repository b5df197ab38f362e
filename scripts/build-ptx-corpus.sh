#!/usr/bin/env bash
# Builds the PTX corpus of the parser tests from three compilers, all pinned and installed from
# PyPI into the cache (never into the system, never committed):
#   - nvcc: every CUDA C++ source of engine/tests/data/corpus_src/*.cu, for each virtual
#     architecture it supports;
#   - NVRTC (pip nvidia-cuda-nvrtc, same version as the toolkit): corpus_src/nvrtc/*.cu, driven
#     through libnvrtc's C API by scripts/ptx-corpus-nvrtc.py (in-memory headers, name
#     expressions), for compute_75/80/90/100a; files named nvrtc.<source>.compute_<arch>.*.ptx;
#   - numba-cuda (pip, with numba, llvmlite, numpy and the cuda-python packages it needs):
#     the kernels listed in corpus_src/numba/*.py, compiled by scripts/ptx-corpus-numba.py with
#     numba.cuda.compile_ptx (no GPU needed) through the toolkit's libNVVM, for cc 7.5/8.0/9.0/
#     10.0; files named numba.<module>.<kernel>.compute_<cc>.ptx.
# Outputs are cached by content hash (sources, architecture, flags, compiler versions, driver
# scripts), so a rerun only compiles what changed. Prints the PTX paths, one per line.
#
#   scripts/build-ptx-corpus.sh            -> PTX paths under ~/.cache/libcuda-shim/ptx-corpus
#
# CUDA_SHIM_PTX_CORPUS overrides the cache directory; JOBS (default 2) the parallel compiles;
# CUDA_SHIM_TOOLKIT_CACHE the root under which the compilers are installed (as for
# install-toolkit.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src_dir="$here/../engine/tests/data/corpus_src"
root=$(bash "$here/install-toolkit.sh")
nvcc="$root/bin/nvcc"
cache=${CUDA_SHIM_PTX_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/libcuda-shim/ptx-corpus}
mkdir -p "$cache"

python=$(command -v python3 || command -v python)
tool_root=${CUDA_SHIM_TOOLKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcuda-shim}
toolkit_version=$(basename "$(dirname "$(dirname "$root")")") # cuda-13.5.37
toolkit_version=${toolkit_version#cuda-}
nvcc_jobs=$(mktemp)
nvrtc_jobs=$(mktemp)
trap 'rm -f "$nvcc_jobs" "$nvrtc_jobs"' EXIT

# pip_install_pinned DIR PACKAGE==VERSION...: installs exactly these packages (--no-deps: the
# list is the whole closure) into DIR unless DIR/.complete lists the same set; like
# install-toolkit.sh, into a staging directory renamed when complete.
pip_install_pinned() {
  local dir=$1
  shift
  if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$(printf '%s\n' "$@")" ]; then
    return
  fi
  echo "build-ptx-corpus: installing $* from PyPI into $dir (pip)" >&2
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --no-deps --target "$dir.tmp" "$@" >&2
  printf '%s\n' "$@" >"$dir.tmp/.complete"
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
}

# ---- nvcc -----------------------------------------------------------------------------------
ARCHS=(75 80 86 89 90 90a 100a 120a)
FLAGS="-O3 -std=c++17 --expt-relaxed-constexpr -diag-suppress 20054 -I$root/include/cccl"
nvcc_version=$("$nvcc" --version | tail -1)

# Heavy library sources (thrust, cub) are compiled for a subset of the architectures to keep
# the first build short; the others for all of them. Sources for sm_90+ features only there.
archs_for() {
  case "$1" in
    thrust_sort_scan.cu) echo 80 90a 120a ;;
    cub_radix_block.cu) echo 75 90 100a ;;
    hopper_cluster.cu) echo 90 90a 100a 120a ;;
    *) echo "${ARCHS[@]}" ;;
  esac
}

for src in "$src_dir"/*.cu; do
  name=$(basename "$src" .cu)
  for arch in $(archs_for "$(basename "$src")"); do
    key=$( (cat "$src"; echo "$arch $FLAGS $nvcc_version") | sha256sum | cut -c1-16)
    out="$cache/$name.compute_$arch.$key.ptx"
    echo "$out"
    if [ ! -s "$out" ]; then
      printf '%s\0%s\0%s\0' "$src" "$arch" "$out" >>"$nvcc_jobs"
    fi
  done
done

nvcc_build() {
  [ -s "$nvcc_jobs" ] || return 0
  export nvcc FLAGS
  xargs -0 -n 3 -P "${JOBS:-2}" sh -c '
    src=$0; arch=$1; out=$2
    echo "build-ptx-corpus: $(basename "$src") for compute_$arch" >&2
    "$nvcc" -ptx -arch=compute_$arch $FLAGS -o "$out.tmp" "$src" >&2 && mv "$out.tmp" "$out"
  ' <"$nvcc_jobs"
}


# ---- NVRTC ----------------------------------------------------------------------------------
# The pip NVRTC of the toolkit's version, driven by ptx-corpus-nvrtc.py.
NVRTC_VERSION=$toolkit_version
NVRTC_ARCHS=(75 80 90 100a)
nvrtc_dir="$tool_root/nvrtc-$NVRTC_VERSION"
libnvrtc="$nvrtc_dir/nvidia/cu13/lib/libnvrtc.so.13"
nvrtc_src="$src_dir/nvrtc"
nvrtc_deps=$(cat "$here/ptx-corpus-nvrtc.py" "$nvrtc_src"/include/* | sha256sum | cut -c1-16)
for src in "$nvrtc_src"/*.cu; do
  name=$(basename "$src" .cu)
  for arch in "${NVRTC_ARCHS[@]}"; do
    key=$( (cat "$src"; echo "$arch $nvrtc_deps nvrtc $NVRTC_VERSION") | sha256sum | cut -c1-16)
    out="$cache/nvrtc.$name.compute_$arch.$key.ptx"
    echo "$out"
    if [ ! -s "$out" ]; then
      printf '%s\0%s\0%s\0' "$src" "$arch" "$out" >>"$nvrtc_jobs"
    fi
  done
done
install_nvrtc() {
  pip_install_pinned "$nvrtc_dir" "nvidia-cuda-nvrtc==$NVRTC_VERSION"
  [ -e "$libnvrtc" ] || {
    echo "build-ptx-corpus: $libnvrtc is missing (pip nvidia-cuda-nvrtc); remove $nvrtc_dir" >&2
    return 1
  }
}
nvrtc_build() {
  [ -s "$nvrtc_jobs" ] || return 0
  install_nvrtc
  "$python" "$here/ptx-corpus-nvrtc.py" "$libnvrtc" "$root/include" "${JOBS:-2}" <"$nvrtc_jobs" >&2
}

# ---- numba-cuda -------------------------------------------------------------------------------
# numba-cuda and its whole dependency closure, pinned (numba's wheels are per CPython version,
# hence the tag in the directory name). It finds libNVVM and NVRTC (which it asks for the
# supported architectures) through the dynamic loader: LD_LIBRARY_PATH names the toolkit's lib/
# (libnvvm.so.4; the pip layout has no nvvm/lib64 for its CUDA_HOME search) and the NVRTC above;
# CUDA_HOME the toolkit (libdevice). All kernels in one Python process (importing numba is slow).
NUMBA_PACKAGES=(
  "numba-cuda==0.30.4"
  "numba==0.68.1"
  "llvmlite==0.50.0"
  "numpy==2.4.6"
  "cuda-bindings==13.5.0"
  "cuda-core==1.2.2"
  "cuda-pathfinder==1.9.0"
  "packaging==26.3"
)
NUMBA_CCS=75,80,90,100
py_tag=$("$python" -c 'import sys; print(f"py{sys.version_info[0]}{sys.version_info[1]}")')
numba_dir="$tool_root/numba-cuda-0.30.4-$py_tag"
numba_key=$( (cat "$here/ptx-corpus-numba.py" "$src_dir"/numba/*.py
  echo "${NUMBA_PACKAGES[*]} $NUMBA_CCS $py_tag $toolkit_version") | sha256sum | cut -c1-16)
numba_out="$cache/numba.$numba_key"
numba_build() {
  [ ! -f "$numba_out/.complete" ] || return 0
  install_nvrtc
  pip_install_pinned "$numba_dir" "${NUMBA_PACKAGES[@]}"
  rm -rf "$numba_out.tmp"
  mkdir -p "$numba_out.tmp"
  LD_LIBRARY_PATH="$root/lib:$(dirname "$libnvrtc")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    CUDA_HOME="$root" NUMBA_DISABLE_PERFORMANCE_WARNINGS=1 \
    "$python" "$here/ptx-corpus-numba.py" "$numba_dir" "$numba_out.tmp" "$NUMBA_CCS" \
    "$src_dir"/numba/*.py >&2
  touch "$numba_out.tmp/.complete"
  rm -rf "$numba_out"
  mv "$numba_out.tmp" "$numba_out"
}

# NVRTC and numba-cuda (pip downloads, then mostly one core) run beside the nvcc compiles, which
# end on a long single thrust compile: from a cold cache this takes about a minute off.
(set -e; nvrtc_build; numba_build) &
side=$!
nvcc_status=0
nvcc_build || nvcc_status=$?
wait "$side"
[ "$nvcc_status" = 0 ] || exit "$nvcc_status"
ls -1 "$numba_out"/*.ptx
