# Kernels typical of numba-cuda users, compiled to PTX by scripts/ptx-corpus-numba.py (no GPU
# needed: numba.cuda.compile_ptx drives libNVVM directly). Each entry of KERNELS is
# (name, python function, signature, compile options); the driver writes one PTX file per entry
# and compute capability. Numba's NVVM output has its own conventions: `.common .global`
# environment pointers, mangled names with ABI tags, return-status + exception-pointer
# parameters for device functions, libdevice calls inlined, records passed as flattened params.
import math

import numpy as np
from numba import cuda
from numba.cuda.np.numpy_support import from_dtype
from numba.cuda.types import complex64, float16, float32, float64, int32, int64, uint32, void
from numba.cuda.random import xoroshiro128p_normal_float32, xoroshiro128p_uniform_float32

TPB = 128


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def grid_stride_2d(img, out):
    x, y = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    for j in range(y, img.shape[0], sy):
        for i in range(x, img.shape[1], sx):
            out[j, i] = img[j, i] * 0.5 + img[j, img.shape[1] - 1 - i] * 0.5


@cuda.jit
def block_sum(x, partial):
    buf = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = buf[0]


@cuda.jit
def warp_reduce_atomic(x, total):
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0.0
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(total, 0, v)


@cuda.jit
def histogram(data, bins):
    local = cuda.shared.array(256, dtype=uint32)
    t = cuda.threadIdx.x
    if t < 256:
        local[t] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
        cuda.atomic.add(local, data[i] & 255, 1)
    cuda.syncthreads()
    if t < 256:
        cuda.atomic.add(bins, t, local[t])


@cuda.jit
def atomics_mix(ia, fa, da):
    i = cuda.grid(1)
    cuda.atomic.max(ia, 0, i)
    cuda.atomic.min(ia, 1, -i)
    old = cuda.atomic.cas(ia, 2, 0, i)
    cuda.atomic.exch(ia, 3, old)
    cuda.atomic.inc(ia.view(np.uint32), 4, 1000)
    cuda.atomic.and_(ia, 5, i)
    cuda.atomic.or_(ia, 6, i)
    cuda.atomic.xor(ia, 7, i)
    cuda.atomic.max(fa, 0, float32(i))
    cuda.atomic.add(da, 0, 1.5)
    cuda.atomic.sub(da, 1, 0.5)


@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit(device=True)
def polar(x, y):
    return math.hypot(x, y), math.atan2(y, x)


@cuda.jit
def device_functions(x, y, r, t):
    i = cuda.grid(1)
    if i < x.size:
        a, b = polar(x[i], y[i])
        r[i] = clamp(a, 0.0, 10.0)
        t[i] = b


@cuda.jit
def math_f32(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = (
            math.sin(v) + math.cos(v) * math.exp(v) - math.log1p(abs(v)) + math.sqrt(abs(v))
            + math.tanh(v) + math.erf(v) + math.pow(abs(v), 0.3) + math.floor(v) + math.fmod(v, 3.0)
        )


@cuda.jit
def math_f64(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.lgamma(abs(v) + 1.0) + math.asinh(v) + math.atan(v) + math.expm1(v) + math.log10(
            abs(v) + 1.0
        ) + math.copysign(1.0, v) + (1.0 if math.isnan(v) else 0.0)


@cuda.jit(fastmath=True)
def math_fast(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.exp(x[i]) / math.sqrt(x[i] * x[i] + 1.0) + math.sin(x[i]) / 3.0


@cuda.jit
def fp16_ops(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i]
        out[i] = cuda.fp16.hfma(x, y, cuda.fp16.hmax(x, y)) + cuda.fp16.hsqrt(cuda.fp16.habs(x))


@cuda.jit
def fp16_arith(a, out):
    i = cuda.grid(1)
    if i < out.size:
        h = a[i]
        out[i] = float32(h * h - h / float16(3.0))


REC = np.dtype([("id", np.int32), ("pos", np.float32, (3,)), ("mass", np.float64)], align=True)
REC_T = from_dtype(REC)


@cuda.jit
def records(parts, masses):
    i = cuda.grid(1)
    if i < parts.size:
        p = parts[i]
        masses[i] = p.mass * (p.pos[0] ** 2 + p.pos[1] ** 2 + p.pos[2] ** 2)
        parts[i].id = i


@cuda.jit
def record_scalar(rec, out):
    out[0] = rec.mass + rec.id


@cuda.jit
def matmul_tiled(A, B, C):
    sA = cuda.shared.array((16, 16), dtype=float32)
    sB = cuda.shared.array((16, 16), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0.0)
    for k in range((A.shape[1] + 15) // 16):
        sA[ty, tx] = A[y, k * 16 + tx] if y < A.shape[0] and k * 16 + tx < A.shape[1] else 0
        sB[ty, tx] = B[k * 16 + ty, x] if x < B.shape[1] and k * 16 + ty < B.shape[0] else 0
        cuda.syncthreads()
        for j in range(16):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


@cuda.jit
def dynamic_shared_scan(x, out):
    buf = cuda.shared.array(0, dtype=int64)
    t = cuda.threadIdx.x
    buf[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    d = 1
    while d < cuda.blockDim.x:
        v = buf[t - d] if t >= d else 0
        cuda.syncthreads()
        buf[t] += v
        cuda.syncthreads()
        d *= 2
    out[cuda.grid(1)] = buf[t]


@cuda.jit
def local_array_sort(x, out):
    i = cuda.grid(1)
    tmp = cuda.local.array(8, dtype=int32)
    for k in range(8):
        tmp[k] = x[i * 8 + k]
    for a in range(8):
        for b in range(7 - a):
            if tmp[b] > tmp[b + 1]:
                tmp[b], tmp[b + 1] = tmp[b + 1], tmp[b]
    for k in range(8):
        out[i * 8 + k] = tmp[k]


CONST = np.arange(32, dtype=np.float32)


@cuda.jit
def const_memory(out):
    c = cuda.const.array_like(CONST)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = c[i % 32] * 2


@cuda.jit
def warp_vote(x, out):
    i = cuda.grid(1)
    m = cuda.ballot_sync(0xFFFFFFFF, x[i] > 0)
    a = cuda.all_sync(0xFFFFFFFF, x[i] != 0)
    n = cuda.popc(m) + cuda.clz(m) + cuda.ffs(m) + cuda.brev(m)
    out[i] = n + a + cuda.match_any_sync(0xFFFFFFFF, x[i]) + cuda.shfl_xor_sync(0xFFFFFFFF, x[i], 1)


@cuda.jit
def rng_monte_carlo(states, out):
    i = cuda.grid(1)
    if i < out.size:
        acc = 0.0
        for _ in range(16):
            u = xoroshiro128p_uniform_float32(states, i)
            n = xoroshiro128p_normal_float32(states, i)
            acc += u * n
        out[i] = acc


@cuda.jit
def complex_ops(z, out):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i] * z[i].conjugate() + 1j
        out[i] = abs(w) + w.real * w.imag


@cuda.jit
def exceptions_and_bounds(x, out):
    i = cuda.grid(1)
    if i >= x.size:
        return
    if x[i] < 0:
        raise ValueError("negative input")
    out[i] = x[i] // 3 + x[i] % 7


@cuda.jit
def grid_sync(x):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    x[i] += 1
    g.sync()
    x[i] += x[(i + 1) % x.size]


@cuda.jit
def threadfence_flags(x, flag):
    i = cuda.grid(1)
    x[i] = i
    cuda.threadfence()
    cuda.threadfence_block()
    if i == 0:
        cuda.atomic.exch(flag, 0, 1)
    cuda.syncwarp()
    c = cuda.syncthreads_count(x[i] & 1) + cuda.syncthreads_or(x[i] & 2)
    x[i] += c


TILE = 32


@cuda.jit
def transpose(a, b):
    # numba-cuda's shared-memory transpose (its test_transpose / documentation example).
    tile = cuda.shared.array(shape=(TILE, TILE), dtype=float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x * cuda.blockDim.x
    by = cuda.blockIdx.y * cuda.blockDim.y
    x = by + tx
    y = bx + ty
    if by + ty < a.shape[0] and bx + tx < a.shape[1]:
        tile[ty, tx] = a[by + ty, bx + tx]
    cuda.syncthreads()
    if y < b.shape[0] and x < b.shape[1]:
        b[y, x] = tile[tx, ty]


def _device_abi_c(a, b):
    return a * b + math.sqrt(a)


def _device_abi_numba(a, b):
    return a - b * 2.0


F32_1D = float32[::1]
# xoroshiro128p states: a record array of two uint64.
RNG_STATES = from_dtype(np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True))[::1]
KERNELS = [
    ("saxpy", saxpy, void(float32, F32_1D, F32_1D, F32_1D), {}),
    ("saxpy_f64_any_layout", saxpy, void(float64, float64[:], float64[:], float64[:]), {}),
    ("grid_stride_2d", grid_stride_2d, void(float32[:, :], float32[:, :]), {}),
    ("block_sum", block_sum, void(F32_1D, F32_1D), {}),
    ("warp_reduce_atomic", warp_reduce_atomic, void(F32_1D, F32_1D), {}),
    ("histogram", histogram, void(uint32[::1], uint32[::1]), {}),
    ("atomics_mix", atomics_mix, void(int32[::1], float32[::1], float64[::1]), {}),
    ("device_functions", device_functions, void(F32_1D, F32_1D, F32_1D, F32_1D), {}),
    ("math_f32", math_f32, void(F32_1D, F32_1D), {}),
    ("math_f64", math_f64, void(float64[::1], float64[::1]), {}),
    ("math_fast", math_fast, void(F32_1D, F32_1D), {"fastmath": True}),
    ("fp16_ops", fp16_ops, void(float16[::1], float16[::1], float16[::1]), {}),
    ("fp16_arith", fp16_arith, void(float16[::1], F32_1D), {}),
    ("records", records, void(REC_T[::1], float64[::1]), {}),
    ("record_scalar", record_scalar, void(REC_T, float64[::1]), {}),
    ("matmul_tiled", matmul_tiled, void(float32[:, ::1], float32[:, ::1], float32[:, ::1]), {}),
    ("dynamic_shared_scan", dynamic_shared_scan, void(int64[::1], int64[::1]), {}),
    ("local_array_sort", local_array_sort, void(int32[::1], int32[::1]), {}),
    ("const_memory", const_memory, void(F32_1D,), {}),
    ("warp_vote", warp_vote, void(int32[::1], int32[::1]), {}),
    ("rng_monte_carlo", rng_monte_carlo, void(RNG_STATES, F32_1D), {}),
    ("complex_ops", complex_ops, void(complex64[::1], F32_1D), {}),
    ("exceptions", exceptions_and_bounds, void(int64[::1], int64[::1]), {}),
    ("exceptions_debug", exceptions_and_bounds, void(int64[::1], int64[::1]), {"debug": True, "opt": False}),
    ("saxpy_lineinfo", saxpy, void(float32, F32_1D, F32_1D, F32_1D), {"lineinfo": True}),
    ("grid_sync", grid_sync, void(int32[::1],), {}),
    ("transpose", transpose, void(float64[:, ::1], float64[:, ::1]), {}),
    ("threadfence_flags", threadfence_flags, void(int32[::1], int32[::1]), {}),
    ("device_abi_c", _device_abi_c, float32(float32, float32), {"device": True, "abi": "c"}),
    ("device_abi_numba", _device_abi_numba, float64(float64, float64), {"device": True}),
]
