//! Kernels compiled from CUDA C++ at test time by the pinned nvcc, run through the public API.
//! Expected values come from the arithmetic of the sources (exact in f32 where stated).
#![allow(clippy::needless_range_loop)]

use engine::{launch, mem, LaunchConfig, Module};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

/// The toolkit root printed by scripts/install-toolkit.sh, or None (and a message) if missing.
fn toolkit() -> Option<PathBuf> {
    static ROOT: Mutex<Option<Option<PathBuf>>> = Mutex::new(None);
    let mut g = ROOT.lock().unwrap();
    if let Some(r) = &*g {
        return r.clone();
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/install-toolkit.sh");
    let r = Command::new("bash")
        .arg(script)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim().to_string()))
        .filter(|p| p.join("bin/nvcc").exists());
    if r.is_none() {
        eprintln!("SKIPPED: the CUDA toolkit (scripts/install-toolkit.sh) is not available; CI installs it");
    }
    *g = Some(r.clone());
    r
}

fn compile(name: &str, src: &str) -> Option<String> {
    compile_arch(name, src, "compute_80")
}

/// `compile` for another virtual architecture (`compute_90` for Hopper-only instructions).
fn compile_arch(name: &str, src: &str, arch: &str) -> Option<String> {
    let root = toolkit()?;
    let dir =
        std::env::temp_dir().join(format!("engine-nvcc-{}-{name}-{arch}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cu = dir.join(format!("{name}.cu"));
    let ptx = dir.join(format!("{name}.ptx"));
    std::fs::write(&cu, src).unwrap();
    let out = Command::new(root.join("bin/nvcc"))
        .arg("-ptx")
        .arg(format!("-arch={arch}"))
        .args(["-O3", "-o"])
        .arg(&ptx)
        .arg(&cu)
        .output()
        .expect("run nvcc");
    assert!(
        out.status.success(),
        "nvcc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(std::fs::read_to_string(&ptx).unwrap())
}

fn upload<T: Copy>(v: &[T]) -> u64 {
    let bytes = std::mem::size_of_val(v) as u64;
    let p = mem::alloc(bytes.max(1)).unwrap();
    // SAFETY: p is a fresh allocation of `bytes` bytes.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr() as *const u8, p as *mut u8, bytes as usize) };
    p
}

fn download<T: Copy + Default>(p: u64, n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    // SAFETY: p is a live allocation of at least n elements.
    unsafe {
        std::ptr::copy_nonoverlapping(
            p as *const u8,
            v.as_mut_ptr() as *mut u8,
            n * std::mem::size_of::<T>(),
        )
    };
    v
}

struct Params(Vec<u8>);
impl Params {
    fn new() -> Self {
        Params(Vec::new())
    }
    fn push<T: Copy>(mut self, v: T) -> Self {
        let s = std::mem::size_of::<T>();
        while !self.0.len().is_multiple_of(s) {
            self.0.push(0);
        }
        // SAFETY: T is Copy plain data; we copy its bytes.
        let b = unsafe { std::slice::from_raw_parts(&v as *const T as *const u8, s) };
        self.0.extend_from_slice(b);
        self
    }
}

const RED: &str = r#"
__global__ void reduce(const float* in, float* out, int n){ __shared__ float s[256]; int t=threadIdx.x; int i=blockIdx.x*blockDim.x+t; s[t]= i<n?in[i]:0.f; __syncthreads();
for(int k=blockDim.x/2;k>0;k>>=1){ if(t<k) s[t]+=s[t+k]; __syncthreads(); } if(t==0) out[blockIdx.x]=s[0]; }
__global__ void saxpy(int n, float a, const float*x, float*y){ for(int i=blockIdx.x*blockDim.x+threadIdx.x;i<n;i+=blockDim.x*gridDim.x) y[i]=a*x[i]+y[i]; }
__global__ void vadd(const float*a,const float*b,float*c,int n){int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n)c[i]=a[i]+b[i];}
"#;

#[test]
fn nvcc_vector_add_saxpy_reduction() {
    let Some(ptx) = compile("red", RED) else {
        return;
    };
    let m = Module::load(&ptx, "red.ptx").unwrap_or_else(|e| panic!("{e}"));
    // vadd: integers as floats add exactly.
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let (da, db, dc) = (upload(&a), upload(&b), upload(&vec![0f32; n]));
    let k = m.kernel("_Z4vaddPKfS0_Pfi").unwrap();
    let cfg = LaunchConfig {
        grid: [4, 1, 1],
        block: [256, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    launch(
        &k,
        &cfg,
        &Params::new().push(da).push(db).push(dc).push(n as i32).0,
    )
    .unwrap();
    let c: Vec<f32> = download(dc, n);
    for i in 0..n {
        assert_eq!(c[i], 3.0 * i as f32);
    }
    // saxpy with a grid smaller than n (grid-stride loop): 2*x + y, exact for these values.
    let k = m.kernel("_Z5saxpyifPKfPf").unwrap();
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [128, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    launch(
        &k,
        &cfg,
        &Params::new()
            .push(n as i32)
            .push(2.0f32)
            .push(da)
            .push(db)
            .0,
    )
    .unwrap();
    let y: Vec<f32> = download(db, n);
    for i in 0..n {
        assert_eq!(y[i], 4.0 * i as f32);
    }
    // reduction: sum of 0..1000 per 256-element block, exact in f32 (integers < 2^24).
    let k = m.kernel("_Z6reducePKfPfi").unwrap();
    let out = upload(&[0f32; 4]);
    let cfg = LaunchConfig {
        grid: [4, 1, 1],
        block: [256, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    launch(&k, &cfg, &Params::new().push(da).push(out).push(n as i32).0).unwrap();
    let r: Vec<f32> = download(out, 4);
    for blk in 0..4 {
        let s: u64 = (blk * 256..((blk + 1) * 256).min(n))
            .map(|x| x as u64)
            .sum();
        assert_eq!(r[blk], s as f32, "block {blk}");
    }
    for p in [da, db, dc, out] {
        mem::free(p).unwrap();
    }
}

/// Throughput: grid-stride saxpy over 16M floats, single worker and all workers. Run with
/// `cargo test --release -p engine --test nvcc -- --ignored --nocapture saxpy_16m`.
#[test]
#[ignore]
fn saxpy_16m_throughput() {
    let Some(ptx) = compile("saxpy", RED) else {
        return;
    };
    let m = Module::load(&ptx, "saxpy.ptx").unwrap();
    let k = m.kernel("_Z5saxpyifPKfPf").unwrap();
    let n = 16usize << 20;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let (dx, dy) = (upload(&x), upload(&vec![1f32; n]));
    let cfg = LaunchConfig {
        grid: [1024, 1, 1],
        block: [256, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    let params = Params::new()
        .push(n as i32)
        .push(2.0f32)
        .push(dx)
        .push(dy)
        .0;
    for threads in [1, 0] {
        engine::set_worker_threads(threads);
        let before = engine::thread_instructions();
        let t = std::time::Instant::now();
        launch(&k, &cfg, &params).unwrap();
        let dt = t.elapsed().as_secs_f64();
        let ti = engine::thread_instructions() - before;
        eprintln!(
            "saxpy 16M floats, {} worker thread(s): {:.3} s, {} thread-instructions, {:.3e} thread-instructions/s",
            if threads == 0 { std::thread::available_parallelism().unwrap().get() } else { threads },
            dt,
            ti,
            ti as f64 / dt
        );
    }
    engine::set_worker_threads(0);
    // Two launches of y = 2x + y from y = 1: y = 4x + 1 (exact: integers < 2^24).
    let y: Vec<f32> = download(dy, n);
    for i in (0..n).step_by(4099) {
        assert_eq!(y[i], 4.0 * x[i] + 1.0);
    }
    mem::free(dx).unwrap();
    mem::free(dy).unwrap();
}

/// Every instruction nvcc -O3 emits for a kernel mixing shuffles, atomics, math library calls,
/// local arrays, a non-inlined device function and integer division is accepted by the loader.
#[test]
fn nvcc_mixed_kernel_loads() {
    let src = r#"
__device__ __noinline__ float f(float x, int k){ float a[8]; for(int i=0;i<8;i++) a[i]=x*i; return a[k&7]; }
__global__ void k1(float* o, const double* d, int n){ int i=blockIdx.x*blockDim.x+threadIdx.x; if(i>=n) return;
 float v=o[i]; for(int s=16;s>0;s>>=1) v+=__shfl_down_sync(0xffffffff,v,s); if((threadIdx.x&31)==0) atomicAdd(o+n, v);
 o[i]= f(v,i) + (float)sqrt(d[i]) + sinf(v) + (float)(i/7) + (float)(i%13) + __fdividef(v,3.f) + rsqrtf(v+1) + log2f(v+1) ;
 atomicMax((int*)(o+n+1), i); unsigned b=__ballot_sync(0xffffffff, i&1); o[i]+= __popc(b) + __clz(i) + __brev(i); }
"#;
    let Some(ptx) = compile("mixed", src) else {
        return;
    };
    if let Err(e) = Module::load(&ptx, "mixed.ptx") {
        panic!("{e}");
    }
}

fn ulps32(a: f32, b: f64) -> f64 {
    let b32 = b as f32;
    ((a as f64 - b)
        / (b32.next_up() as f64 - b32 as f64)
            .abs()
            .max(f32::from_bits(1) as f64))
    .abs()
}

/// The CUDA math library inlines directed-rounding fma (`fma.rm.f32`), integer-rounding cvt and,
/// for large sinf arguments, the Payne-Hanek reduction with extended-precision `mad.lo.cc` /
/// `madc` / `addc`. Expected values: the host's f64 libm, within the maximum ulp errors CUDA's
/// programming guide documents (expf 2, logf 1, sinf 2, powf 4, exp 1, sin 2 ulp).
#[test]
fn nvcc_math_library_directed_rounding_and_carry() {
    let src = r#"
extern "C" __global__ void k(float* o, const float* x, double* od, const double* xd, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    o[4*i] = expf(x[i]); o[4*i+1] = logf(x[i]); o[4*i+2] = sinf(x[i]); o[4*i+3] = powf(x[i], 1.7f);
    od[2*i] = exp(xd[i]); od[2*i+1] = sin(xd[i]);
  }
}
"#;
    let Some(ptx) = compile("math", src) else {
        return;
    };
    let m = Module::load(&ptx, "math.ptx").unwrap_or_else(|e| panic!("{e}"));
    let n = 512usize;
    // Positive arguments from tiny to huge (sinf of 1e30 takes the slow reduction path).
    let x: Vec<f32> = (0..n)
        .map(|i| {
            let t = i as f32 / n as f32;
            if i % 2 == 0 {
                0.01 + 80.0 * t
            } else {
                10f32.powf(-20.0 + 50.0 * t)
            }
        })
        .collect();
    let xd: Vec<f64> = x.iter().map(|&v| v as f64 * 0.37).collect();
    let (dx, dxd) = (upload(&x), upload(&xd));
    let (o, od) = (upload(&vec![0f32; 4 * n]), upload(&vec![0f64; 2 * n]));
    let cfg = LaunchConfig {
        grid: [(n / 128) as u32, 1, 1],
        block: [128, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    launch(
        &m.kernel("k").unwrap(),
        &cfg,
        &Params::new()
            .push(o)
            .push(dx)
            .push(od)
            .push(dxd)
            .push(n as i32)
            .0,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<f32> = download(o, 4 * n);
    let rd: Vec<f64> = download(od, 2 * n);
    for i in 0..n {
        let v = x[i] as f64;
        let e = v.exp();
        if e < f32::MAX as f64 {
            assert!(
                ulps32(r[4 * i], e) <= 2.0,
                "expf({v}) = {} vs {e}",
                r[4 * i]
            );
        } else {
            assert_eq!(r[4 * i], f32::INFINITY);
        }
        assert!(
            ulps32(r[4 * i + 1], v.ln()) <= 1.0,
            "logf({v}) = {}",
            r[4 * i + 1]
        );
        assert!(
            ulps32(r[4 * i + 2], v.sin()) <= 2.0,
            "sinf({v}) = {} vs {}",
            r[4 * i + 2],
            v.sin()
        );
        let p = v.powf(1.7f32 as f64);
        if p < f32::MAX as f64 && p > 1e-37 {
            assert!(
                ulps32(r[4 * i + 3], p) <= 4.0,
                "powf({v}) = {} vs {p}",
                r[4 * i + 3]
            );
        }
        let w = xd[i];
        let ulp64 =
            |a: f64, b: f64| ((a - b) / (b.next_up() - b).abs().max(f64::MIN_POSITIVE)).abs();
        if w.exp().is_finite() && w.exp() > 1e-300 {
            assert!(
                ulp64(rd[2 * i], w.exp()) <= 1.0,
                "exp({w}) = {} vs {}",
                rd[2 * i],
                w.exp()
            );
        }
        assert!(
            ulp64(rd[2 * i + 1], w.sin()) <= 2.0,
            "sin({w}) = {} vs {}",
            rd[2 * i + 1],
            w.sin()
        );
    }
    for p in [dx, dxd, o, od] {
        mem::free(p).unwrap();
    }
}

/// Device printf, assert and the device heap, as nvcc emits them (vprintf with a local argument
/// buffer, __assertfail, malloc/free). Expected printf text is C's formatting of the same values.
#[test]
fn nvcc_printf_assert_malloc() {
    let src = r#"
#include <cstdio>
#include <cassert>
extern "C" __global__ void p(int base) {
  int t = threadIdx.x + base;
  printf("t=%d x=%5.2f u=%u hex=%#x ll=%lld s=%s c=%c %%\n", t, t * 0.5, (unsigned)t * 3u, t + 255,
         (long long)t << 40, "str", 'A' + t);
}
extern "C" __global__ void a(const int* o) { assert(o[threadIdx.x] == 0); }
extern "C" __global__ void h(int** slot, int n) {
  int* q = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) q[i] = i * i;
  slot[threadIdx.x] = q;
}
extern "C" __global__ void hp(void** slot, unsigned long long n) { slot[0] = malloc(n); }
extern "C" __global__ void hsum(int** slot, int* out, int n) {
  int* q = slot[threadIdx.x]; int s = 0;
  for (int i = 0; i < n; i++) s += q[i];
  out[threadIdx.x] = s; free(q);
}
"#;
    let Some(ptx) = compile("sys", src) else {
        return;
    };
    let m = Module::load(&ptx, "sys.ptx").unwrap_or_else(|e| panic!("{e}"));
    let cfg = |n: u32| LaunchConfig {
        grid: [1, 1, 1],
        block: [n, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    engine::take_printf();
    launch(
        &m.kernel("p").unwrap(),
        &cfg(4),
        &Params::new().push(0i32).0,
    )
    .unwrap();
    launch(
        &m.kernel("p").unwrap(),
        &cfg(1),
        &Params::new().push(10i32).0,
    )
    .unwrap();
    let mut want = String::new();
    for t in (0..4).chain(10..11) {
        want += &format!(
            "t={t} x={:5.2} u={} hex={:#x} ll={} s=str c={} %\n",
            t as f64 * 0.5,
            t * 3,
            t + 255,
            (t as i64) << 40,
            (b'A' + t as u8) as char
        );
    }
    assert_eq!(String::from_utf8(engine::take_printf()).unwrap(), want);

    // assert: thread 1 sees a nonzero value.
    let o = upload(&[0i32, 7, 0, 0]);
    let e = launch(&m.kernel("a").unwrap(), &cfg(4), &Params::new().push(o).0).unwrap_err();
    assert_eq!(e.kind, engine::ExecErrorKind::Assert);
    assert!(
        e.message
            .contains("block: [0,0,0], thread: [1,0,0] Assertion `o[threadIdx.x] == 0` failed."),
        "{}",
        e.message
    );

    // malloc in one launch, read and free in the next: the heap outlives launches.
    let n = 100i32;
    let slot = upload(&[0u64; 32]);
    let out = upload(&[0i32; 32]);
    launch(
        &m.kernel("h").unwrap(),
        &cfg(32),
        &Params::new().push(slot).push(n).0,
    )
    .unwrap();
    let ptrs: Vec<u64> = download(slot, 32);
    assert!(ptrs.iter().all(|&p| p != 0 && p % 16 == 0));
    launch(
        &m.kernel("hsum").unwrap(),
        &cfg(32),
        &Params::new().push(slot).push(out).push(n).0,
    )
    .unwrap();
    // sum of i^2 for i < 100 = 99*100*199/6.
    assert_eq!(download::<i32>(out, 32), vec![328_350; 32]);
    // A request beyond the heap returns NULL.
    engine::set_heap_size(1 << 10);
    launch(
        &m.kernel("hp").unwrap(),
        &cfg(1),
        &Params::new().push(slot).push(4096u64).0,
    )
    .unwrap();
    assert_eq!(download::<u64>(slot, 1), vec![0]);
    engine::set_heap_size(8 << 20);
    for p in [o, slot, out] {
        mem::free(p).unwrap();
    }
}

const CALLS: &str = r#"
__device__ int fib(int n){ return n<2?n:fib(n-1)+fib(n-2); }
__device__ int ack(int m, int n){ if(m==0) return n+1; if(n==0) return ack(m-1,1); return ack(m-1, ack(m, n-1)); }
struct Node{int v; int l; int r;};
__device__ int tsum(const Node* t, int i){ if(i<0) return 0; return t[i].v + tsum(t,t[i].l) + tsum(t,t[i].r); }
// A local array that must survive the recursive call (each activation has its own).
__device__ int deep(int n, volatile int* buf){ int a[4]; for(int k=0;k<4;k++) a[k]=buf[(n+k)&7]+n; if(n==0) return a[0]; return a[n&3] + deep(n-1, buf); }
struct Shape { __device__ virtual int area(int x) const = 0; };
struct Sq : Shape { __device__ int area(int x) const override { return x*x; } };
struct Tri : Shape { __device__ int area(int x) const override { return x*x/2; } };
typedef int (*fp)(int);
__device__ int twice(int x){return 2*x;}
__device__ int plus3(int x){return x+3;}
__device__ int rec_fp(int x);
__device__ fp table[3] = {twice, plus3, rec_fp};
// Recursion through a function pointer.
__device__ int rec_fp(int x){ return x <= 0 ? 100 : 1 + table[2](x-1); }
extern "C" __global__ void calls(int* out, const Node* t, volatile int* buf){
  int i = threadIdx.x;
  out[i] = fib(i%12);
  out[32+i] = tsum(t, i%7);
  out[64+i] = (i & 1) ? deep(i, buf) : -1;   // divergent recursion
  Sq s; Tri tr; const Shape* sh = (i%3==0)? (const Shape*)&s : (const Shape*)&tr;
  out[96+i] = sh->area(i);                   // virtual call, lanes split between targets
  out[128+i] = table[i%3](i);                // function pointers, three targets in one warp
  out[160+i] = ack(2, i%4);
}
extern "C" __global__ void deep_rec(int* out, int n, volatile int* buf){ out[threadIdx.x] = deep(n, buf); }
"#;

#[test]
fn nvcc_recursion_function_pointers_virtual_calls() {
    let Some(ptx) = compile("calls", CALLS) else {
        return;
    };
    let m = Module::load(&ptx, "calls.ptx").unwrap_or_else(|e| panic!("{e}"));
    fn fib(n: i32) -> i32 {
        if n < 2 {
            n
        } else {
            fib(n - 1) + fib(n - 2)
        }
    }
    // Ackermann: A(2, n) = 2n + 3.
    // A tree: 0 -> (1, 2), 1 -> (3, 4), 2 -> (5, -1), 5 -> (6, -1); values 1, 10, 100, ...
    let tree: Vec<[i32; 3]> = vec![
        [1, 1, 2],
        [10, 3, 4],
        [100, 5, -1],
        [1000, -1, -1],
        [10000, -1, -1],
        [100000, 6, -1],
        [1000000, -1, -1],
    ];
    let tsum = |i: usize| -> i32 {
        // Subtree sums written out from the shape above.
        [1111111, 11010, 1100100, 1000, 10000, 1100000, 1000000][i]
    };
    let bufv: Vec<i32> = vec![3, 1, 4, 1, 5, 9, 2, 6];
    fn deep(n: i32, b: &[i32]) -> i32 {
        let a: Vec<i32> = (0..4).map(|k| b[((n + k) & 7) as usize] + n).collect();
        if n == 0 {
            a[0]
        } else {
            a[(n & 3) as usize] + deep(n - 1, b)
        }
    }
    let (out, dt, db) = (upload(&[0i32; 192]), upload(&tree), upload(&bufv));
    let k = m.kernel("calls").unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    // 32 nested frames of `deep` (16 bytes of locals, parameters, saved registers each) need
    // more than the default 1 KiB, as they may on hardware.
    engine::set_stack_size(8 << 10);
    launch(&k, &cfg, &Params::new().push(out).push(dt).push(db).0)
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<i32> = download(out, 192);
    for i in 0..32i32 {
        let u = i as usize;
        assert_eq!(r[u], fib(i % 12), "fib lane {i}");
        assert_eq!(r[32 + u], tsum(u % 7), "tsum lane {i}");
        let d = if i & 1 == 1 { deep(i, &bufv) } else { -1 };
        assert_eq!(r[64 + u], d, "deep lane {i}");
        assert_eq!(
            r[96 + u],
            if i % 3 == 0 { i * i } else { i * i / 2 },
            "virtual lane {i}"
        );
        let f = match i % 3 {
            0 => 2 * i,
            1 => i + 3,
            _ => 100 + i,
        };
        assert_eq!(r[128 + u], f, "function pointer lane {i}");
        assert_eq!(r[160 + u], 2 * (i % 4) + 3, "ackermann lane {i}");
    }
    // Stack overflow is a launch error naming the kernel and line, not a crash; raising the
    // limit lets the same recursion run. Its kind is an illegal address, as an H100 reports it
    // (driver 580.159, 2026-11-26: scripts/ground-truth/results/sanitizer-h100.txt, the plain
    // run of `stack_overflow` gives cudaErrorIllegalAddress).
    let k = m.kernel("deep_rec").unwrap();
    engine::set_stack_size(1024);
    let e = launch(&k, &cfg, &Params::new().push(out).push(5000i32).push(db).0).unwrap_err();
    assert_eq!(e.kind, engine::ExecErrorKind::IllegalAddress);
    assert!(
        e.message.contains("stack overflow")
            && e.message.contains("kernel 'deep_rec'")
            && e.message.contains("PTX line"),
        "{e}"
    );
    engine::set_stack_size(4 << 20);
    launch(&k, &cfg, &Params::new().push(out).push(5000i32).push(db).0)
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<i32> = download(out, 32);
    assert_eq!(r[0], deep(5000, &bufv));
    engine::set_stack_size(1024);
    for p in [out, dt, db] {
        mem::free(p).unwrap();
    }
}

const HALF: &str = r#"
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void halfk(const float* x, const float* y, unsigned short* h,
                                 unsigned short* b, unsigned* p2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half a = __float2half_rn(x[i]), c = __float2half_rn(y[i]);
  h[5 * i + 0] = __half_as_ushort(__hadd(a, c));
  h[5 * i + 1] = __half_as_ushort(__hmul(a, c));
  h[5 * i + 2] = __half_as_ushort(__hfma(a, c, a));
  h[5 * i + 3] = __half_as_ushort(__hmax(a, c));
  h[5 * i + 4] = __half_as_ushort(__hsub(a, c));
  __nv_bfloat16 ba = __float2bfloat16(x[i]), bc = __float2bfloat16(y[i]);
  b[5 * i + 0] = __bfloat16_as_ushort(__hadd(ba, bc));
  b[5 * i + 1] = __bfloat16_as_ushort(__hmul(ba, bc));
  b[5 * i + 2] = __bfloat16_as_ushort(__hfma(ba, bc, ba));
  b[5 * i + 3] = __bfloat16_as_ushort(__hmin(ba, bc));
  b[5 * i + 4] = __bfloat16_as_ushort(__float2bfloat16(__half2float(a) + __bfloat162float(bc)));
  __half2 p = __floats2half2_rn(x[i], y[i]);
  __half2 q = __hmul2(p, p);
  p2[3 * i] = *reinterpret_cast<unsigned*>(&q);
  __nv_bfloat162 bp = __floats2bfloat162_rn(x[i], y[i]);
  __nv_bfloat162 bq = __hfma2(bp, bp, bp);
  p2[3 * i + 1] = *reinterpret_cast<unsigned*>(&bq);
  __half2 m = __hmax2(p, __hneg2(p));
  p2[3 * i + 2] = *reinterpret_cast<unsigned*>(&m);
}
"#;

/// Rounds `v` to nearest-even in a binary format with `ebits` exponent and `mbits` fraction bits
/// (IEEE layout, infinities at the top), from the format's definition: quantum 2^(e - mbits) for
/// a value in binade e, never below the subnormal quantum 2^(1 - bias - mbits).
fn enc(v: f64, ebits: u32, mbits: u32) -> u16 {
    let bias = (1i32 << (ebits - 1)) - 1;
    let sign: u16 = if v.is_sign_negative() {
        1 << (ebits + mbits)
    } else {
        0
    };
    let a = v.abs();
    if a == 0.0 {
        return sign;
    }
    let mut e = (((a.to_bits() >> 52) as i32) - 1023).max(1 - bias);
    let m = (a / 2f64.powi(e - mbits as i32)).round_ties_even() as u32;
    let m = if m >> (mbits + 1) != 0 {
        e += 1;
        m >> 1
    } else {
        m
    };
    if e > bias {
        return sign | (((1u16 << ebits) - 1) << mbits);
    }
    if m >> mbits == 0 {
        return sign | m as u16;
    }
    sign | (((e + bias) as u16) << mbits) | (m as u16 & ((1 << mbits) - 1))
}

/// The value of an encoding in that format (finite values only here).
fn dec(x: u16, ebits: u32, mbits: u32) -> f64 {
    let bias = (1i32 << (ebits - 1)) - 1;
    let s = if x >> (ebits + mbits) & 1 != 0 {
        -1.0
    } else {
        1.0
    };
    let ef = ((x >> mbits) & ((1 << ebits) - 1)) as i32;
    let fr = (x & ((1 << mbits) - 1)) as f64;
    if ef == 0 {
        s * fr * 2f64.powi(1 - bias - mbits as i32)
    } else {
        s * (1.0 + fr / (1u32 << mbits) as f64) * 2f64.powi(ef - bias)
    }
}

#[test]
fn nvcc_cuda_fp16_bf16_arithmetic() {
    let Some(ptx) = compile("half", HALF) else {
        return;
    };
    let m = Module::load(&ptx, "half.ptx").unwrap_or_else(|e| panic!("{e}"));
    let n = 64usize;
    // Values spread over several binades, both signs, with bits below half precision.
    let x: Vec<f32> = (0..n).map(|i| (i as f32 - 21.3) * 0.731).collect();
    let y: Vec<f32> = (0..n).map(|i| 3.7 / (i as f32 + 1.1) - 0.9).collect();
    let (dx, dy) = (upload(&x), upload(&y));
    let dh = upload(&vec![0u16; 5 * n]);
    let db = upload(&vec![0u16; 5 * n]);
    let dp = upload(&vec![0u32; 3 * n]);
    let k = m.kernel("halfk").unwrap();
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [48, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    let params = Params::new()
        .push(dx)
        .push(dy)
        .push(dh)
        .push(db)
        .push(dp)
        .push(n as i32);
    launch(&k, &cfg, &params.0).unwrap();
    let h: Vec<u16> = download(dh, 5 * n);
    let b: Vec<u16> = download(db, 5 * n);
    let p: Vec<u32> = download(dp, 3 * n);
    let (f16, bf16) = (|v: f64| enc(v, 5, 10), |v: f64| enc(v, 8, 7));
    let (d16, db16) = (|x: u16| dec(x, 5, 10), |x: u16| dec(x, 8, 7));
    for i in 0..n {
        // Sums, products and a*c + a of half values are exact in f64: one rounding each.
        let (a, c) = (d16(f16(x[i] as f64)), d16(f16(y[i] as f64)));
        let want = [
            f16(a + c),
            f16(a * c),
            f16(a * c + a),
            f16(a.max(c)),
            f16(a - c),
        ];
        assert_eq!(&h[5 * i..5 * i + 5], &want, "f16 element {i}: a {a} c {c}");
        let (ba, bc) = (db16(bf16(x[i] as f64)), db16(bf16(y[i] as f64)));
        let want = [
            bf16(ba + bc),
            bf16(ba * bc),
            bf16(ba * bc + ba),
            bf16(ba.min(bc)),
            // f32 sum of an f16 and a bf16 value, rounded to f32, then to bf16.
            bf16(((a + bc) as f32) as f64),
        ];
        assert_eq!(
            &b[5 * i..5 * i + 5],
            &want,
            "bf16 element {i}: a {ba} c {bc}"
        );
        // half2: low half from x, high from y.
        let q = (f16(c * c) as u32) << 16 | f16(a * a) as u32;
        assert_eq!(p[3 * i], q, "hmul2 element {i}");
        let q = (bf16(bc * bc + bc) as u32) << 16 | bf16(ba * ba + ba) as u32;
        assert_eq!(p[3 * i + 1], q, "hfma2 bf16 element {i}");
        let q = (f16(c.abs()) as u32) << 16 | f16(a.abs()) as u32;
        assert_eq!(p[3 * i + 2], q, "hmax2 element {i}");
    }
    for d in [dx, dy, dh, db, dp] {
        mem::free(d).unwrap();
    }
}

const SYNC: &str = r#"
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;
// __syncthreads_count/_and/_or under divergence, with threads that exited before the barriers.
extern "C" __global__ void sync_red(const int* in, int* out, int n) {
  int t = threadIdx.x;
  if (t >= n) return;
  int v = in[t];
  int c;
  if (t & 1) c = __syncthreads_count(v > 5); else c = __syncthreads_count(v > 5);
  int a1 = __syncthreads_and(v >= 0), a2 = __syncthreads_and(v > 0);
  int o1 = __syncthreads_or(v == 6), o2 = __syncthreads_or(v > 100);
  out[t] = c * 10000 + a1 * 1000 + a2 * 100 + o1 * 10 + o2;
}
// cuda::barrier at block scope: two phases of arrive_and_wait, then a split arrive / wait.
extern "C" __global__ void bar(const int* in, int* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> b;
  __shared__ int s[256];
  auto blk = cg::this_thread_block();
  int t = threadIdx.x, n = blockDim.x;
  if (blk.thread_rank() == 0) init(&b, blk.size());
  blk.sync();
  s[t] = in[t] * 2;
  b.arrive_and_wait();
  int x = s[(t + 1) % n];
  b.arrive_and_wait();
  s[t] += 1;
  auto tok = b.arrive();
  int busy = 0;
  for (int k = 0; k < (t & 7) * 10; k++) busy += k;   // unequal work between arrive and wait
  b.wait(std::move(tok));
  out[t] = x;
  out[n + t] = s[(t + 5) % n] + (busy - (t & 7) * 10 * ((t & 7) * 10 - 1) / 2);
}
// Thread-scope pipeline: memcpy_async of one int per stage, consumed after consumer_wait.
extern "C" __global__ void pipe(const int* in, int* out, int n) {
  __shared__ int s[2][128];
  cuda::pipeline<cuda::thread_scope_thread> p = cuda::make_pipeline();
  int acc = 0;
  for (int k = 0; k < n; k++) {
    p.producer_acquire();
    cuda::memcpy_async(&s[k & 1][threadIdx.x], &in[k * 128 + threadIdx.x], sizeof(int), p);
    p.producer_commit();
    p.consumer_wait();
    acc += s[k & 1][threadIdx.x];
    p.consumer_release();
  }
  out[threadIdx.x] = acc;
}
// Block-scope pipeline with roles: warp 0 produces 64-int tiles, warp 1 consumes them.
extern "C" __global__ void roles(const int* in, int* out, int batches) {
  constexpr int stages = 2;
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> st;
  __shared__ int tile[stages][64];
  auto blk = cg::this_thread_block();
  int t = blk.thread_rank();
  auto role = t < 32 ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
  auto p = cuda::make_pipeline(blk, &st, role);
  int acc = 0;
  for (int k = 0; k < batches; k++) {
    if (role == cuda::pipeline_role::producer) {
      p.producer_acquire();
      cuda::memcpy_async(&tile[k % stages][2 * t], &in[k * 64 + 2 * t], sizeof(int) * 2, p);
      p.producer_commit();
    } else {
      p.consumer_wait();
      int c = t - 32;
      acc += tile[k % stages][2 * c] * 3 + tile[k % stages][2 * c + 1];
      p.consumer_release();
    }
  }
  if (t >= 32) out[t - 32] = acc;
}
// __pipeline_memcpy_async of 16 bytes, odd threads zero-filling the upper 8.
extern "C" __global__ void pm(const int4* in, int* out) {
  __shared__ int4 s[128];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&s[t], &in[t], sizeof(int4), (t & 1) ? 8 : 0);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  out[t] = s[t].x + s[t].y * 10 + s[t].z * 100 + s[t].w * 1000;
}
// Cooperative groups: block sync, warp tiles with shuffles and reductions, block memcpy_async.
extern "C" __global__ void tiles(const int* in, int* out) {
  __shared__ int s[256];
  auto blk = cg::this_thread_block();
  auto w = cg::tiled_partition<32>(blk);
  auto q = cg::tiled_partition<8>(blk);
  int r = blk.thread_rank();
  int v = in[r];
  out[r] = cg::reduce(w, v, cg::plus<int>());
  out[256 + r] = cg::reduce(w, v, cg::greater<int>());
  out[512 + r] = cg::reduce(q, v, cg::less<int>());
  out[768 + r] = w.shfl_down(v, 1) + w.shfl_xor(v, 4) * 1000;
  cg::memcpy_async(blk, s, in, sizeof(int) * blk.size());
  cg::wait(blk);
  blk.sync();
  out[1024 + r] = s[blk.size() - 1 - r];
}
"#;

#[test]
fn nvcc_barrier_red_mbarrier_pipeline_cooperative_groups() {
    for arch in ["compute_80", "compute_90"] {
        let Some(ptx) = compile_arch("sync", SYNC, arch) else {
            return;
        };
        let m = Module::load(&ptx, "sync.ptx").unwrap_or_else(|e| panic!("{arch}: {e}"));
        let cfg = |n: u32| LaunchConfig {
            grid: [1, 1, 1],
            block: [n, 1, 1],
            dynamic_shared_bytes: 0,
            cluster: [1, 1, 1],
            explicit_cluster: false,
        };
        let run = |k: &str, threads: u32, p: Params| {
            launch(&m.kernel(k).unwrap(), &cfg(threads), &p.0)
                .unwrap_or_else(|e| panic!("{arch} {k}: {e}"))
        };

        // __syncthreads_*: 80 threads launched, 70 live; v = t % 7. count(v > 5) counts
        // t = 6, 13, ..., 69: 10. and(v >= 0) = 1, and(v > 0) = 0 (t = 0), or(v == 6) = 1,
        // or(v > 100) = 0.
        let inp: Vec<i32> = (0..80).map(|t| t % 7).collect();
        let (di, dout) = (upload(&inp), upload(&[-1i32; 80]));
        run(
            "sync_red",
            80,
            Params::new().push(di).push(dout).push(70i32),
        );
        let o: Vec<i32> = download(dout, 80);
        for t in 0..80 {
            assert_eq!(
                o[t],
                if t < 70 { 101_010 } else { -1 },
                "{arch} sync_red {t} {o:?}"
            );
        }
        // All 80 live, values all positive and one above 100: count(v > 5) = 80,
        // and(v >= 0) = and(v > 0) = 1, or(v == 6) = 1 (t = 6), or(v > 100) = 1.
        let inp: Vec<i32> = (0..80)
            .map(|t| if t == 79 { 1000 } else { t + 1 })
            .collect();
        let upd = upload(&inp);
        run(
            "sync_red",
            80,
            Params::new().push(upd).push(dout).push(80i32),
        );
        // v > 5 for t >= 5: 75 threads.
        assert_eq!(download::<i32>(dout, 80), vec![751_111; 80], "{arch}");

        // cuda::barrier over 128 threads.
        let n = 128usize;
        let inp: Vec<i32> = (0..n as i32).map(|t| t * 3 - 50).collect();
        let (di2, dout2) = (upload(&inp), upload(&vec![0i32; 2 * n]));
        run("bar", n as u32, Params::new().push(di2).push(dout2));
        let o: Vec<i32> = download(dout2, 2 * n);
        for t in 0..n {
            assert_eq!(o[t], inp[(t + 1) % n] * 2, "{arch} bar phase 1, {t}");
            assert_eq!(
                o[n + t],
                inp[(t + 5) % n] * 2 + 1,
                "{arch} bar phase 3, {t}"
            );
        }

        // Thread-scope pipeline: 5 stages of 128 ints.
        let stages = 5usize;
        let inp: Vec<i32> = (0..(stages * 128) as i32).map(|i| i * 7 % 101).collect();
        let (di3, dout3) = (upload(&inp), upload(&[0i32; 128]));
        run(
            "pipe",
            128,
            Params::new().push(di3).push(dout3).push(stages as i32),
        );
        let o: Vec<i32> = download(dout3, 128);
        for t in 0..128 {
            let want: i32 = (0..stages).map(|k| inp[k * 128 + t]).sum();
            assert_eq!(o[t], want, "{arch} pipe {t}");
        }

        // Producer and consumer warps: 6 batches of 64 ints.
        let batches = 6usize;
        let inp: Vec<i32> = (0..(batches * 64) as i32).map(|i| i * i % 97).collect();
        let (di4, dout4) = (upload(&inp), upload(&[0i32; 32]));
        run(
            "roles",
            64,
            Params::new().push(di4).push(dout4).push(batches as i32),
        );
        let o: Vec<i32> = download(dout4, 32);
        for c in 0..32 {
            let want: i32 = (0..batches)
                .map(|k| inp[k * 64 + 2 * c] * 3 + inp[k * 64 + 2 * c + 1])
                .sum();
            assert_eq!(o[c], want, "{arch} roles consumer {c}");
        }

        // __pipeline_memcpy_async with zero fill: odd threads keep x, y only.
        let inp: Vec<[i32; 4]> = (0..128).map(|t| [t, t % 9, t % 5, 7]).collect();
        let (di5, dout5) = (upload(&inp), upload(&[0i32; 128]));
        run("pm", 128, Params::new().push(di5).push(dout5));
        let o: Vec<i32> = download(dout5, 128);
        for t in 0..128usize {
            let [x, y, z, w] = inp[t];
            let want = if t & 1 == 1 {
                x + y * 10
            } else {
                x + y * 10 + z * 100 + w * 1000
            };
            assert_eq!(o[t], want, "{arch} pm {t}");
        }

        // Cooperative groups over 256 threads.
        let inp: Vec<i32> = (0..256).map(|i| (i * 37 % 251) - 120).collect();
        let (di6, dout6) = (upload(&inp), upload(&[0i32; 1280]));
        run("tiles", 256, Params::new().push(di6).push(dout6));
        let o: Vec<i32> = download(dout6, 1280);
        for r in 0..256usize {
            let w = &inp[r / 32 * 32..r / 32 * 32 + 32];
            let q = &inp[r / 8 * 8..r / 8 * 8 + 8];
            assert_eq!(o[r], w.iter().sum::<i32>(), "{arch} tile sum {r}");
            assert_eq!(o[256 + r], *w.iter().max().unwrap(), "{arch} tile max {r}");
            assert_eq!(o[512 + r], *q.iter().min().unwrap(), "{arch} tile8 min {r}");
            // shfl_down by 1: the last lane keeps its own value; shfl_xor 4 swaps lanes.
            let lane = r % 32;
            let down = if lane == 31 { inp[r] } else { inp[r + 1] };
            assert_eq!(o[768 + r], down + inp[r ^ 4] * 1000, "{arch} shuffles {r}");
            assert_eq!(o[1024 + r], inp[255 - r], "{arch} block memcpy_async {r}");
        }
        for p in [
            di, dout, upd, di2, dout2, di3, dout3, di4, dout4, di5, dout5, di6, dout6,
        ] {
            mem::free(p).unwrap();
        }
    }
}
