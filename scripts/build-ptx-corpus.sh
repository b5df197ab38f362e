#!/usr/bin/env bash
# Builds the PTX corpus of the parser tests: every CUDA C++ source of
# engine/tests/data/corpus_src/ compiled by the pinned nvcc to PTX for each virtual architecture
# it supports. Outputs are cached by content hash (source, architecture, flags, nvcc version), so
# a rerun only compiles what changed. Prints the PTX paths, one per line.
#
#   scripts/build-ptx-corpus.sh            -> PTX paths under ~/.cache/libcuda-shim/ptx-corpus
#
# CUDA_SHIM_PTX_CORPUS overrides the cache directory; JOBS (default 2) the parallel compiles.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src_dir="$here/../engine/tests/data/corpus_src"
root=$(bash "$here/install-toolkit.sh")
nvcc="$root/bin/nvcc"
cache=${CUDA_SHIM_PTX_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/libcuda-shim/ptx-corpus}
mkdir -p "$cache"

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

jobs_file=$(mktemp)
trap 'rm -f "$jobs_file"' EXIT
for src in "$src_dir"/*.cu; do
  name=$(basename "$src" .cu)
  for arch in $(archs_for "$(basename "$src")"); do
    key=$( (cat "$src"; echo "$arch $FLAGS $nvcc_version") | sha256sum | cut -c1-16)
    out="$cache/$name.compute_$arch.$key.ptx"
    echo "$out"
    if [ ! -s "$out" ]; then
      printf '%s\0%s\0%s\0' "$src" "$arch" "$out" >>"$jobs_file"
    fi
  done
done

if [ -s "$jobs_file" ]; then
  export nvcc FLAGS
  xargs -0 -n 3 -P "${JOBS:-2}" sh -c '
    src=$0; arch=$1; out=$2
    echo "build-ptx-corpus: $(basename "$src") for compute_$arch" >&2
    "$nvcc" -ptx -arch=compute_$arch $FLAGS -o "$out.tmp" "$src" >&2 && mv "$out.tmp" "$out"
  ' <"$jobs_file"
fi
