#!/usr/bin/env bash
# Builds libcuda-shim, compiles a bundled CUDA example with NVIDIA's nvcc (PTX only) and runs it
# on the emulator:   scripts/run-example.sh [examples/NAME.cu]   (default: examples/vector_add.cu)
set -euo pipefail
cd "$(dirname "$0")/.."
source_file=${1:-examples/vector_add.cu}
toolkit=$(bash scripts/install-toolkit.sh)
cargo build --release -p libcuda-shim >&2
mkdir -p target/examples
exe=target/examples/$(basename "$source_file" .cu)
"$toolkit/bin/nvcc" -gencode arch=compute_80,code=compute_80 -o "$exe" "$source_file"
exec target/release/cuda-shim run -- "$exe"
