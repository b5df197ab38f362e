#!/usr/bin/env bash
# Records what a real GPU and driver answer, for the tests that quote it. Run on a machine with
# an NVIDIA GPU and its toolkit (nvcc, compute-sanitizer on PATH): `scripts/ground-truth/run.sh OUTDIR`.
# Writes OUTDIR/{system,driver,sanitizer,tex,tex2,tex3,mma,mma-dots,mma-sparse,tma,tma-oob,bulk-reduce,
# fma-oob,fork,ipc,cdp,tex4,tex5,tex6,tex7,tex8,mma-sparse-f8,coop-multi,multicast,wgmma,texref-param,tma-wide}.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
b=$(mktemp -d)
export PATH=$PATH:/usr/local/cuda/bin
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -2;
  compute-sanitizer --version | head -2; } >"$out/system.txt" 2>&1
arch=sm_90
nvcc -o "$b/driver_probe" -x cu "$here/driver_probe.cpp" -L/usr/local/cuda/lib64/stubs -lcuda >"$out/build.txt" 2>&1 &
nvcc -arch=$arch -lineinfo -o "$b/sanitize_bugs" "$here/sanitize_bugs.cu" >>"$out/build.txt" 2>&1 &
nvcc -arch=$arch -o "$b/tex_probe" "$here/tex_probe.cu" >>"$out/build.txt" 2>&1 &
nvcc -arch=$arch -o "$b/tex_probe2" "$here/tex_probe2.cu" >>"$out/build.txt" 2>&1 &
# tex_probe3: one module per kernel (a driver refused every launch of the one-module build).
( for n in $(seq 1 13); do nvcc -arch=$arch -DONLY=$n -c -o "$b/tex3_k$n.o" "$here/tex_probe3.cu" || exit 1; done
  nvcc -arch=$arch -DSPLIT -o "$b/tex_probe3" "$here/tex_probe3.cu" "$b"/tex3_k*.o ) >>"$out/build.txt" 2>&1 &
nvcc -arch=$arch -o "$b/tex_probe5" "$here/tex_probe5.cu" >>"$out/build.txt" 2>&1 &
nvcc -arch=$arch -o "$b/tex_probe6" "$here/tex_probe6.cu" >>"$out/build.txt" 2>&1 &
nvcc -arch=$arch -o "$b/tex_probe7" "$here/tex_probe7.cu" >>"$out/build.txt" 2>&1 &
nvcc -arch=$arch -o "$b/tex_probe8" "$here/tex_probe8.cu" >>"$out/build.txt" 2>&1 &
nvcc -o "$b/tma_wide_probe" "$here/tma_wide_probe.cpp" -L/usr/local/cuda/lib64/stubs -lcuda >>"$out/build.txt" 2>&1 &
nvcc -o "$b/multicast_probe" "$here/multicast_probe.cpp" -L/usr/local/cuda/lib64/stubs -lcuda >>"$out/build.txt" 2>&1 &
nvcc -arch=$arch -o "$b/tex_probe4" "$here/tex_probe4.cu" >>"$out/build.txt" 2>&1 &
tests=$here/../../tests/cuda
nvcc -arch=$arch -o "$b/mma_probe" "$tests/mma_probe.cu" >>"$out/build.txt" 2>&1 &
nvcc -std=c++17 -arch=sm_90a -o "$b/mma_dots" "$tests/mma_dots.cu" >>"$out/build.txt" 2>&1 &
nvcc -std=c++17 -arch=sm_90a -o "$b/mma_sparse" "$tests/mma_sparse.cu" >>"$out/build.txt" 2>&1 &
nvcc -std=c++17 -arch=sm_90a -o "$b/mma_sparse_f8" "$tests/mma_sparse_f8.cu" >>"$out/build.txt" 2>&1 &
nvcc -std=c++17 -arch=sm_90a -o "$b/wgmma_probe" "$here/wgmma_probe.cu" >>"$out/build.txt" 2>&1 &
nvcc -std=c++17 -arch=sm_90a -o "$b/tma_probe" "$tests/tma_probe.cu" >>"$out/build.txt" 2>&1 &
nvcc -std=c++17 -arch=sm_90a -o "$b/tma_oob_probe" "$tests/tma_oob_probe.cu" >>"$out/build.txt" 2>&1 &
nvcc -std=c++17 -arch=sm_90a -I"$tests" -o "$b/bulk_reduce" "$tests/bulk_reduce.cu" -L/usr/local/cuda/lib64/stubs -lcuda >>"$out/build.txt" 2>&1 &
nvcc -std=c++17 -arch=sm_90 -o "$b/fma_oob" "$tests/fma_oob.cu" >>"$out/build.txt" 2>&1 &
nvcc -o "$b/fork_probe" "$here/fork_probe.cpp" -L/usr/local/cuda/lib64/stubs -lcuda >>"$out/build.txt" 2>&1 &
nvcc -o "$b/ipc_probe" "$here/ipc_probe.cpp" -L/usr/local/cuda/lib64/stubs -lcuda >>"$out/build.txt" 2>&1 &
nvcc -o "$b/coop_multi_probe" "$here/coop_multi_probe.cpp" -L/usr/local/cuda/lib64/stubs -lcuda >>"$out/build.txt" 2>&1 &
nvcc -o "$b/texref_param_probe" "$here/texref_param_probe.cpp" -L/usr/local/cuda/lib64/stubs -lcuda -Wno-deprecated-declarations >>"$out/build.txt" 2>&1 &
nvcc -arch=$arch -rdc=true -o "$b/cdp_probe" "$here/cdp_probe.cu" -lcudadevrt >>"$out/build.txt" 2>&1 &
wait
timeout 120 "$b/driver_probe" >"$out/driver.txt" 2>&1; echo "exit $?" >>"$out/driver.txt"
timeout 60 "$b/tex_probe" >"$out/tex.txt" 2>&1; echo "exit $?" >>"$out/tex.txt"
timeout 60 "$b/tex_probe2" >"$out/tex2.txt" 2>&1; echo "exit $?" >>"$out/tex2.txt"
timeout 60 "$b/tex_probe3" >"$out/tex3.txt" 2>&1; echo "exit $?" >>"$out/tex3.txt"
timeout 60 "$b/tex_probe4" >"$out/tex4.txt" 2>&1; echo "exit $?" >>"$out/tex4.txt"
timeout 60 "$b/tex_probe5" >"$out/tex5.txt" 2>&1; echo "exit $?" >>"$out/tex5.txt"
timeout 60 "$b/tex_probe6" >"$out/tex6.txt" 2>&1; echo "exit $?" >>"$out/tex6.txt"
for p in cube missing bc; do timeout 60 "$b/tex_probe7" $p; echo "exit $?"; done >"$out/tex7.txt" 2>&1
timeout 60 "$b/tex_probe8" >"$out/tex8.txt" 2>&1; echo "exit $?" >>"$out/tex8.txt"
timeout 60 "$b/tma_wide_probe" >"$out/tma-wide.txt" 2>&1; echo "exit $?" >>"$out/tma-wide.txt"
timeout 60 "$b/mma_probe" >"$out/mma.txt" 2>&1; echo "exit $?" >>"$out/mma.txt"
# The dot products: the mmasim vectors' Hopper inputs, the f8 and m8n8k4 inputs, the designs.
{ grep '^Hopper' "$here/../oracles/mma-mmasim.txt"; grep -v '^#' "$here/mma-dot-inputs.txt";
  python3 "$here/mma_dot_inputs.py" --design; } | timeout 60 "$b/mma_dots" >"$out/mma-dots.txt" 2>&1
timeout 60 "$b/mma_sparse" >"$out/mma-sparse.txt" 2>&1; echo "exit $?" >>"$out/mma-sparse.txt"
timeout 60 "$b/mma_sparse_f8" >"$out/mma-sparse-f8.txt" 2>&1; echo "exit $?" >>"$out/mma-sparse-f8.txt"
timeout 60 "$b/wgmma_probe" >"$out/wgmma.txt" 2>&1; echo "exit $?" >>"$out/wgmma.txt"
# Part by part: a sticky error (an illegal instruction) ends one part only.
for p in 126 5 4 3; do timeout 60 "$b/tma_probe" $p; echo "exit $?"; done >"$out/tma.txt" 2>&1
# One tile load per process: an illegal instruction is sticky.
for ty in f32 f16 bf16 f64 u8 i32; do for fill in 0 1; do
  for xy in "0 0" "8 8" "-2 -2" "-2 0" "0 -2" "20 0" "-1 5"; do timeout 20 "$b/tma_oob_probe" $ty $fill $xy; done
done; done >"$out/tma-oob.txt" 2>&1
timeout 60 "$b/bulk_reduce" >"$out/bulk-reduce.txt" 2>&1; echo "exit $?" >>"$out/bulk-reduce.txt"
timeout 60 "$b/fma_oob" >"$out/fma-oob.txt" 2>&1; echo "exit $?" >>"$out/fma-oob.txt"
timeout 60 "$b/fork_probe" >"$out/fork.txt" 2>&1; echo "exit $?" >>"$out/fork.txt"
timeout 60 "$b/ipc_probe" >"$out/ipc.txt" 2>&1; echo "exit $?" >>"$out/ipc.txt"
timeout 60 "$b/coop_multi_probe" >"$out/coop-multi.txt" 2>&1; echo "exit $?" >>"$out/coop-multi.txt"
timeout 60 "$b/multicast_probe" >"$out/multicast.txt" 2>&1; echo "exit $?" >>"$out/multicast.txt"
for c in texparam texparam-bound samplerparam surfparam indirect clamp_ogl clamp_ogl_norm independent; do
  timeout 60 "$b/texref_param_probe" $c; echo "$c exit $?"
done >"$out/texref-param.txt" 2>&1
timeout 60 "$b/cdp_probe" >"$out/cdp.txt" 2>&1; echo "exit $?" >>"$out/cdp.txt"
cd "$b"
run() { # tool mode [extra flags]
  local tool=$1 mode=$2; shift 2
  echo "=== compute-sanitizer --tool $tool $* ./sanitize_bugs $mode"
  timeout 60 compute-sanitizer --tool "$tool" "$@" ./sanitize_bugs "$mode" 2>&1
  echo "=== exit status $?"
}
{
  for m in clean oob_global misaligned use_after_free leak shared_oob uninit race divergent_barrier bad_syncwarp bad_api stack_overflow oob_atomic oob_before uninit_copy bad_free double_free leak_reset; do
    echo "=== plain ./sanitize_bugs $m"; timeout 60 ./sanitize_bugs $m 2>&1; echo "=== exit status $?"
  done
  for m in clean oob_global misaligned use_after_free shared_oob bad_api stack_overflow oob_atomic oob_before bad_free double_free; do run memcheck $m; done
  run memcheck leak --leak-check full
  run memcheck leak_reset --leak-check full
  run memcheck clean --leak-check full
  run memcheck oob_global --print-limit 1
  run memcheck oob_global --error-exitcode 9
  run memcheck oob_global --show-backtrace no
  for m in clean race; do run racecheck $m; done
  run racecheck race --racecheck-report all
  for m in clean uninit uninit_copy; do run initcheck $m; done
  for m in clean divergent_barrier bad_syncwarp; do run synccheck $m; done
} >"$out/sanitizer.txt" 2>&1
ls -la "$out"
