#!/usr/bin/env bash
# Whole CUDA programs on the shim, each measuring its native baseline in the same run (see
# each program's header). Builds the release library and each program with the pinned nvcc
# (PTX only), then runs them under `cuda-shim run`:
#
#   scripts/bench-programs.sh [NAME...]     (default: every scripts/bench/*.cu)
set -euo pipefail
cd "$(dirname "$0")/.."
toolkit=$(bash scripts/install-toolkit.sh)
cargo build --release -p libcuda-shim >&2
mkdir -p target/bench-programs
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  for f in scripts/bench/*.cu; do names+=("$(basename "$f" .cu)"); done
fi
for name in "${names[@]}"; do
  exe=target/bench-programs/$name
  "$toolkit/bin/nvcc" -O3 -std=c++17 -gencode arch=compute_80,code=compute_80 \
    -o "$exe" "scripts/bench/$name.cu"
  echo "== $name"
  target/release/cuda-shim run -- "$exe"
done
