"""cuda-python checks (cuda.core and cuda.bindings) that need no closed CUDA library but NVRTC.

Kernels are compiled by NVRTC to PTX, and to "cubin" (SASS) targets, which the shim, preloaded,
turns back into PTX (nvrtcGetCUBIN, nvJitLinkGetLinkedCubin). Every result is checked on the host.
Prints `ok NAME` / `FAIL NAME: reason` per check and `N passed, M failed` last.
"""
import sys
import time
import traceback

import numpy as np

results = []


def check(name):
    def deco(fn):
        t0 = time.time()
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            msg = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            print(f"FAIL {name}: {msg}", flush=True)
            if "-v" in sys.argv:
                traceback.print_exc()
            results.append(False)
        else:
            print(f"ok {name} ({time.time() - t0:.1f}s)", flush=True)
            results.append(True)
        return fn
    return deco


from cuda.core import (  # noqa: E402
    Device, LaunchConfig, LegacyPinnedMemoryResource, Program, ProgramOptions, launch,
)

dev = Device()
dev.set_current()
stream = dev.create_stream()
pinned = LegacyPinnedMemoryResource()

SAXPY = r"""
template<typename T>
__global__ void saxpy(const T a, const T* x, const T* y, T* out, size_t n) {
    for (size_t i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = a * x[i] + y[i];
}
"""


def host_copy(arr):
    """A pinned buffer holding arr, and a NumPy view of it."""
    buf = pinned.allocate(arr.nbytes)
    view = np.from_dlpack(buf).view(arr.dtype)
    view[:] = arr
    return buf, view


@check("device_properties")
def _():
    assert dev.compute_capability >= (7, 0), dev.compute_capability
    assert dev.properties.multiprocessor_count > 0
    print(f"   device: {dev.name}, compute capability {tuple(dev.compute_capability)}, arch {dev.arch}")


@check("core_nvrtc_ptx_saxpy_float_double")
def _():
    prog = Program(SAXPY, code_type="c++", options=ProgramOptions(std="c++17", arch=f"sm_{dev.arch}"))
    mod = prog.compile("ptx", name_expressions=("saxpy<float>", "saxpy<double>"))
    rng = np.random.default_rng(0)
    n = 100_000
    for t, name in ((np.float32, "saxpy<float>"), (np.float64, "saxpy<double>")):
        x, y = rng.random(n).astype(t), rng.random(n).astype(t)
        hx, _ = host_copy(x)
        hy, _ = host_copy(y)
        ho, vo = host_copy(np.zeros(n, t))
        dx, dy, do = (dev.allocate(x.nbytes, stream=stream) for _ in range(3))
        dx.copy_from(hx, stream=stream)
        dy.copy_from(hy, stream=stream)
        launch(stream, LaunchConfig(grid=(n + 255) // 256, block=256), mod.get_kernel(name),
               t(2.5), dx, dy, do, np.uint64(n))
        do.copy_to(ho, stream=stream)
        stream.sync()
        # NVRTC contracts a * x + y into one fma: compare against the once-rounded result
        want = (np.float64(2.5) * x.astype(np.float64) + y.astype(np.float64)).astype(t)
        np.testing.assert_allclose(vo, want, rtol=1e-6 if t == np.float32 else 1e-15)
        for b in (dx, dy, do):
            b.close(stream)


@check("bindings_driver_nvrtc_module_launch")
def _():
    from cuda.bindings import driver as cu, nvrtc

    def ok(r):
        err, *rest = r
        if int(err) != 0:
            raise RuntimeError(str(err))
        return rest[0] if len(rest) == 1 else rest

    ok(cu.cuInit(0))
    d = ok(cu.cuDeviceGet(0))
    A = cu.CUdevice_attribute
    major = ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d))
    minor = ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d))
    src = b'extern "C" __global__ void scale(float* a, float f, int n) {' \
          b' int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= f; }'
    p = ok(nvrtc.nvrtcCreateProgram(src, b"scale.cu", 0, [], []))
    ok(nvrtc.nvrtcCompileProgram(p, 1, [f"--gpu-architecture=compute_{major}{minor}".encode()]))
    size = ok(nvrtc.nvrtcGetPTXSize(p))
    ptx = b" " * size
    ok(nvrtc.nvrtcGetPTX(p, ptx))
    ctx = ok(cu.cuDevicePrimaryCtxRetain(d))
    ok(cu.cuCtxSetCurrent(ctx))
    m = ok(cu.cuModuleLoadData(ptx))
    f = ok(cu.cuModuleGetFunction(m, b"scale"))
    n = 4096
    a = np.arange(n, dtype=np.float32)
    dptr = ok(cu.cuMemAlloc(a.nbytes))
    ok(cu.cuMemcpyHtoD(dptr, a.ctypes.data, a.nbytes))
    args = (np.array([int(dptr)], np.uint64), np.array([3.0], np.float32), np.array([n], np.int32))
    argp = np.array([x.ctypes.data for x in args], dtype=np.uint64)
    ok(cu.cuLaunchKernel(f, n // 128, 1, 1, 128, 1, 1, 0, 0, argp.ctypes.data, 0))
    ok(cu.cuCtxSynchronize())
    out = np.empty_like(a)
    ok(cu.cuMemcpyDtoH(out.ctypes.data, dptr, a.nbytes))
    np.testing.assert_array_equal(out, a * 3)
    ok(cu.cuMemFree(dptr))
    ok(cu.cuModuleUnload(m))


@check("core_pinned_zero_copy_kernel")
def _():
    src = r'extern "C" __global__ void triple(float* p, size_t n) {' \
          r' size_t i = threadIdx.x + blockIdx.x * blockDim.x; if (i < n) p[i] *= 3.0f; }'
    mod = Program(src, code_type="c++", options=ProgramOptions(arch=f"sm_{dev.arch}")).compile("ptx")
    n = 1024
    hb, view = host_copy(np.arange(n, dtype=np.float32))
    launch(stream, LaunchConfig(grid=n // 256, block=256), mod.get_kernel("triple"), hb, np.uint64(n))
    stream.sync()
    np.testing.assert_array_equal(view, np.arange(n, dtype=np.float32) * 3)


@check("core_thread_block_cluster")
def _():
    src = r"""
    extern "C" __global__ void dims(unsigned* out) {
        unsigned nc; asm("mov.u32 %0, %%nclusterid.x;" : "=r"(nc));
        unsigned cr; asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(cr));
        if (blockIdx.x == 0 && threadIdx.x == 0) { out[0] = gridDim.x; out[1] = nc; out[2] = cr; }
    }"""
    if dev.compute_capability < (9, 0):
        return
    mod = Program(src, code_type="c++", options=ProgramOptions(arch=f"sm_{dev.arch}")).compile("ptx")
    hb, view = host_copy(np.zeros(3, np.uint32))
    launch(stream, LaunchConfig(grid=4, cluster=2, block=32), mod.get_kernel("dims"), hb)
    stream.sync()
    # LaunchConfig(grid=4, cluster=2): 4 clusters of 2 blocks
    assert tuple(view) == (8, 4, 2), tuple(view)


@check("core_graph_capture")
def _():
    prog = Program(SAXPY, code_type="c++", options=ProgramOptions(std="c++17", arch=f"sm_{dev.arch}"))
    ker = prog.compile("ptx", name_expressions=("saxpy<float>",)).get_kernel("saxpy<float>")
    n = 1000
    hx, _ = host_copy(np.ones(n, np.float32))
    ho, vo = host_copy(np.zeros(n, np.float32))
    gb = stream.create_graph_builder()
    gb.begin_building()
    launch(gb, LaunchConfig(grid=4, block=256), ker, np.float32(2), hx, hx, ho, np.uint64(n))
    graph = gb.end_building().complete()
    graph.launch(stream)
    stream.sync()
    np.testing.assert_array_equal(vo, np.full(n, 3, np.float32))


@check("core_events_timing")
def _():
    from cuda.core import EventOptions
    e0 = stream.record(options=EventOptions(timing_enabled=True))
    e1 = stream.record(options=EventOptions(timing_enabled=True))
    e1.sync()
    assert (e1 - e0) >= 0  # milliseconds


@check("core_nvrtc_cubin_target")
def _():
    # NVRTC with -arch=sm_XX makes SASS; the preloaded shim hands back the program's PTX.
    prog = Program(SAXPY, code_type="c++", options=ProgramOptions(std="c++17", arch=f"sm_{dev.arch}"))
    ker = prog.compile("cubin", name_expressions=("saxpy<float>",)).get_kernel("saxpy<float>")
    n = 777
    x = np.arange(n, dtype=np.float32)
    hx, _ = host_copy(x)
    ho, vo = host_copy(np.zeros(n, np.float32))
    launch(stream, LaunchConfig(grid=2, block=128), ker, np.float32(4), hx, hx, ho, np.uint64(n))
    stream.sync()
    np.testing.assert_array_equal(vo, 5 * x)  # 4x + x: exact in float32 for these x


@check("core_linker_nvjitlink_ltoir_to_cubin")
def _():
    # Two LTO-IR units linked by nvJitLink (cuda.core's Linker) to a cubin (SASS target).
    from cuda.core import Linker, LinkerOptions
    lib = 'extern "C" __device__ int poly(int x) { return x * x - 3 * x + 7; }'
    main = ('extern "C" __device__ int poly(int);'
            'extern "C" __global__ void apply(int* o, int n) {'
            '  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = poly(i); }')
    opts = ProgramOptions(arch=f"sm_{dev.arch}", link_time_optimization=True, relocatable_device_code=True)
    objs = [Program(src, code_type="c++", options=opts).compile("ltoir") for src in (lib, main)]
    linker = Linker(*objs, options=LinkerOptions(arch=f"sm_{dev.arch}", link_time_optimization=True))
    ker = linker.link("cubin").get_kernel("apply")
    n = 300
    ho, vo = host_copy(np.zeros(n, np.int32))
    launch(stream, LaunchConfig(grid=3, block=128), ker, ho, np.int32(n))
    stream.sync()
    i = np.arange(n, dtype=np.int64)
    np.testing.assert_array_equal(vo, (i * i - 3 * i + 7).astype(np.int32))


@check("core_linker_nvjitlink_ptx_to_cubin")
def _():
    # PTX inputs linked by nvJitLink to a cubin: the shim links the PTX itself.
    from cuda.core import Linker, LinkerOptions
    lib = 'extern "C" __device__ int twice(int x) { return 2 * x; }'
    main = ('extern "C" __device__ int twice(int);'
            'extern "C" __global__ void apply(int* o) { o[threadIdx.x] = twice(threadIdx.x) + 1; }')
    opts = ProgramOptions(arch=f"sm_{dev.arch}", relocatable_device_code=True)
    objs = [Program(src, code_type="c++", options=opts).compile("ptx") for src in (lib, main)]
    ker = Linker(*objs, options=LinkerOptions(arch=f"sm_{dev.arch}")).link("cubin").get_kernel("apply")
    ho, vo = host_copy(np.zeros(64, np.int32))
    launch(stream, LaunchConfig(grid=1, block=64), ker, ho)
    stream.sync()
    np.testing.assert_array_equal(vo, 2 * np.arange(64, dtype=np.int32) + 1)


passed = sum(results)
failed = len(results) - passed
print(f"{passed} passed, {failed} failed")
sys.exit(0 if failed == 0 else 1)
