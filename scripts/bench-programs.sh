#!/usr/bin/env bash
# Whole CUDA programs on the shim against the same algorithm written natively, in one run: each
# program in scripts/bench/ times its kernels (launches and synchronisation) and a native C++
# twin (OpenMP over all cores, -O3 -march=native) in the same process, checks that both agree,
# and prints a RESULT line; this script builds the release library and each program with the
# pinned nvcc (PTX only), runs them under `cuda-shim run`, and prints every ratio with their
# geometric mean. `copies` and `launch` print throughput and latency tables instead.
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
results=target/bench-programs/results.txt
: >"$results"
for name in "${names[@]}"; do
  exe=target/bench-programs/$name
  if [[ ! -x $exe || scripts/bench/$name.cu -nt $exe || scripts/bench/bench.h -nt $exe ]]; then
    # A first line `// bench-needs: cutlass compute_90a` asks for the CUTLASS headers and an
    # architecture (default compute_80).
    needs=$(sed -n '1s|^// bench-needs: ||p' "scripts/bench/$name.cu")
    arch=compute_80 extra=()
    for w in $needs; do
      case $w in
        compute_*) arch=$w ;;
        cutlass)
          inc=$(bash scripts/install-toolkit.sh --cutlass)
          extra+=(-I"$inc" -I"$inc/../tools/util/include" -I"$inc/.." -Iscripts/bench) ;;
      esac
    done
    "$toolkit/bin/nvcc" -O3 -std=c++17 -gencode arch=$arch,code=$arch "${extra[@]}" \
      -Xcompiler "-O3 -march=native -fopenmp" -lgomp -o "$exe" "scripts/bench/$name.cu"
  fi
  echo "== $name" >&2
  target/release/cuda-shim run -- "$exe" | tee -a "$results" | grep -v '^RESULT' || true
done
echo
# The tier the programs ran on: the compiling tier unless CUDA_SHIM_JIT says otherwise.
case ${CUDA_SHIM_JIT:-on} in off | 0) tier=interpreter ;; verify) tier="compiling, verified" ;; *) tier=compiling ;; esac
echo "tier: $tier   (native: $(nproc) threads)"
awk '/^RESULT/ {
       name = ""; for (i = 2; i <= NF - 5; i++) name = name (i > 2 ? " " : "") $i
       dev = $(NF - 4); nat = $(NF - 2); r = dev / nat
       printf "%-30s %10.1f ms %10.1f ms %8.1fx\n", name, dev, nat, r
       lg += log(r); k++
     }
     END { if (k) printf "%-30s %36.1fx\n", "geometric mean", exp(lg / k) }' "$results"
