//! Executor throughput against native Rust, in one invocation: `cargo bench -p engine`.
//!
//! Each workload is a CUDA C++ kernel compiled to PTX by the pinned nvcc, run on the executor
//! over all cores (or `CUDA_SHIM_THREADS`), and the same algorithm written natively in Rust and
//! run on one core. Both results are checked against each other, then the bench prints the
//! executor's thread-instructions per second and the time ratio to native.
//! Options: `cargo bench -p engine -- [--threads N] [--quick] [--only NAME]` (`NAME`: a prefix of
//! a workload's name, e.g. `saxpy`; handy under `valgrind --tool=callgrind`, whose instruction
//! counts do not depend on the machine's load).

use engine::{launch, mem, LaunchConfig, Module};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

const KERNELS: &str = r#"
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

#define TILE 16
extern "C" __global__ void matmul(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[TILE][TILE], tb[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += TILE) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

extern "C" __global__ void histogram(const unsigned char* data, unsigned* bins, int n) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}
"#;

fn ptx() -> String {
    let root = Command::new("bash")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/install-toolkit.sh"
        ))
        .output()
        .expect("run scripts/install-toolkit.sh");
    assert!(
        root.status.success(),
        "the benchmark needs the pinned toolkit"
    );
    let root = String::from_utf8(root.stdout).unwrap();
    let dir = std::env::temp_dir().join(format!("engine-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cu, out) = (dir.join("kernels.cu"), dir.join("kernels.ptx"));
    std::fs::write(&cu, KERNELS).unwrap();
    let status = Command::new(format!("{}/bin/nvcc", root.trim()))
        .args(["-ptx", "-arch=compute_80", "-O3", "-o"])
        .arg(&out)
        .arg(&cu)
        .status()
        .expect("run nvcc");
    assert!(status.success());
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    text
}

/// A device buffer initialised from `v` (device pointers are host addresses).
fn upload<T: Copy>(v: &[T]) -> u64 {
    let bytes = std::mem::size_of_val(v);
    let p = mem::alloc(bytes.max(1) as u64).unwrap();
    // SAFETY: `p` is a fresh allocation of at least `bytes` bytes, not aliased by `v`.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr() as *const u8, p as *mut u8, bytes) };
    p
}

fn download<T: Copy + Default>(p: u64, n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    // SAFETY: `p` is a live allocation of at least `n` elements of T.
    unsafe { std::ptr::copy_nonoverlapping(p as *const T, v.as_mut_ptr(), n) };
    v
}

/// Packs kernel arguments: each value at the offset the kernel's parameter list gives.
fn params(kernel: &engine::Kernel, args: &[&[u8]]) -> Vec<u8> {
    let mut block = vec![0u8; kernel.param_bytes];
    for (p, a) in kernel.params.iter().zip(args) {
        block[p.offset..p.offset + a.len()].copy_from_slice(a);
    }
    block
}

struct Row {
    name: &'static str,
    emulated: Duration,
    instructions: u64,
    native: Duration,
}

fn run(
    kernel: &Arc<engine::Kernel>,
    grid: [u32; 3],
    block: [u32; 3],
    args: &[&[u8]],
) -> (Duration, u64) {
    let config = LaunchConfig {
        grid,
        block,
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    let packed = params(kernel, args);
    let before = engine::thread_instructions();
    let start = Instant::now();
    launch(kernel, &config, &packed).expect("launch");
    (start.elapsed(), engine::thread_instructions() - before)
}

fn timed<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--threads") {
        engine::set_worker_threads(args[i + 1].parse().expect("--threads N"));
    }
    let quick = args.iter().any(|a| a == "--quick");
    // `--jit`: the compiling tier's first form (engine::jit) instead of the interpreter alone.
    if args.iter().any(|a| a == "--jit") {
        engine::jit::set_mode(engine::jit::Mode::On);
    }
    // The workloads need well under 1 GiB; a small reservation lets the bench run under
    // valgrind, which cannot map the default 80 GiB.
    mem::set_capacity(2 << 30);
    let only = args
        .iter()
        .position(|a| a == "--only")
        .map(|i| args[i + 1].clone());
    let want = |name: &str| only.as_ref().is_none_or(|o| name.starts_with(o.as_str()));
    let scale = if quick { 8 } else { 1 };
    let module = Module::load(&ptx(), "bench.ptx").unwrap_or_else(|e| panic!("{e}"));
    let k = |name: &str| module.kernel(name).unwrap();
    let mut rows = Vec::new();

    // saxpy: y = a*x + y over 16M floats, grid-stride with 1024 x 256 threads.
    if want("saxpy") {
        let n = (16 << 20) / scale;
        let a = 2.5f32;
        let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
        let y: Vec<f32> = (0..n).map(|i| (i % 77) as f32 - 38.0).collect();
        let (dx, dy) = (upload(&x), upload(&y));
        let (t, ins) = run(
            &k("saxpy"),
            [1024, 1, 1],
            [256, 1, 1],
            &[
                &(n as i32).to_ne_bytes(),
                &a.to_ne_bytes(),
                &dx.to_ne_bytes(),
                &dy.to_ne_bytes(),
            ],
        );
        let mut want = y.clone();
        let ((), native) = timed(|| {
            for (w, xi) in want.iter_mut().zip(&x) {
                *w = a.mul_add(*xi, *w);
            }
        });
        assert!(download::<f32>(dy, n) == want, "saxpy differs from native");
        rows.push(Row {
            name: "saxpy 16M f32",
            emulated: t,
            instructions: ins,
            native,
        });
        mem::free(dx).unwrap();
        mem::free(dy).unwrap();
    }

    // Shared-memory tree reduction: 256-element block sums of 16M floats.
    if want("reduction") {
        let n = (16 << 20) / scale;
        let blocks = n / 256;
        let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1001) as f32 - 500.0).collect();
        let (dx, dout) = (upload(&x), upload(&vec![0f32; blocks]));
        let (t, ins) = run(
            &k("block_sum"),
            [blocks as u32, 1, 1],
            [256, 1, 1],
            &[
                &dx.to_ne_bytes(),
                &dout.to_ne_bytes(),
                &(n as i32).to_ne_bytes(),
            ],
        );
        // Integers below 2^24 sum exactly in any order.
        let (want, native) = timed(|| {
            x.chunks(256)
                .map(|c| c.iter().sum::<f32>())
                .collect::<Vec<_>>()
        });
        assert!(
            download::<f32>(dout, blocks) == want,
            "reduction differs from native"
        );
        rows.push(Row {
            name: "reduction 16M f32",
            emulated: t,
            instructions: ins,
            native,
        });
        mem::free(dx).unwrap();
        mem::free(dout).unwrap();
    }

    // Tiled matmul, 16x16 tiles in shared memory.
    if want("matmul") {
        let n = if quick { 256 } else { 512 };
        // Small integers: every product and partial sum is exact, so any order agrees.
        let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 - 3.0).collect();
        let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 - 2.0).collect();
        let (da, db, dc) = (upload(&a), upload(&b), upload(&vec![0f32; n * n]));
        let g = (n / 16) as u32;
        let (t, ins) = run(
            &k("matmul"),
            [g, g, 1],
            [16, 16, 1],
            &[
                &da.to_ne_bytes(),
                &db.to_ne_bytes(),
                &dc.to_ne_bytes(),
                &(n as i32).to_ne_bytes(),
            ],
        );
        let (want, native) = timed(|| {
            let mut c = vec![0f32; n * n];
            for i in 0..n {
                for kk in 0..n {
                    let aik = a[i * n + kk];
                    for j in 0..n {
                        c[i * n + j] += aik * b[kk * n + j];
                    }
                }
            }
            c
        });
        assert!(
            download::<f32>(dc, n * n) == want,
            "matmul differs from native"
        );
        rows.push(Row {
            name: "matmul 512^2 f32 (tiled)",
            emulated: t,
            instructions: ins,
            native,
        });
        for p in [da, db, dc] {
            mem::free(p).unwrap();
        }
    }

    // Histogram of 16M bytes: shared-memory atomics, then global atomics.
    if want("histogram") {
        let n = (16 << 20) / scale;
        let data: Vec<u8> = (0..n)
            .map(|i| ((i * 2654435761usize) >> 13) as u8)
            .collect();
        let (dd, dbins) = (upload(&data), upload(&[0u32; 256]));
        let (t, ins) = run(
            &k("histogram"),
            [512, 1, 1],
            [256, 1, 1],
            &[
                &dd.to_ne_bytes(),
                &dbins.to_ne_bytes(),
                &(n as i32).to_ne_bytes(),
            ],
        );
        let (want, native) = timed(|| {
            let mut bins = [0u32; 256];
            for &d in &data {
                bins[d as usize] += 1;
            }
            bins.to_vec()
        });
        assert!(
            download::<u32>(dbins, 256) == want,
            "histogram differs from native"
        );
        rows.push(Row {
            name: "histogram 16M u8",
            emulated: t,
            instructions: ins,
            native,
        });
        mem::free(dd).unwrap();
        mem::free(dbins).unwrap();
    }

    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("executor vs native Rust (native: 1 thread; executor: all {threads} cores unless --threads)");
    println!(
        "{:<26} {:>11} {:>14} {:>13} {:>11} {:>9}",
        "workload", "executor", "thread-instr", "instr/s", "native", "ratio"
    );
    for r in &rows {
        println!(
            "{:<26} {:>9.1}ms {:>14} {:>13.3e} {:>9.2}ms {:>8.0}x",
            r.name,
            r.emulated.as_secs_f64() * 1e3,
            r.instructions,
            r.instructions as f64 / r.emulated.as_secs_f64(),
            r.native.as_secs_f64() * 1e3,
            r.emulated.as_secs_f64() / r.native.as_secs_f64()
        );
    }
}
