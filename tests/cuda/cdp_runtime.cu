// The device runtime's calls besides the launch itself, each checked against what an H200
// answered (scripts/ground-truth/results/cdp-h200.txt, from scripts/ground-truth/cdp_probe.cu),
// what the CUDA documentation says or what NVIDIA's cudart answers on the host:
// - nesting: a kernel that launches itself nests 2049 levels (the host's grid being level 1)
//   and fails there with cudaErrorLaunchPendingCountExceeded: 2048 outstanding device launches
//   are the default cudaLimitDevRuntimePendingLaunchCount, and the Programming Guide's 24
//   levels are no limit (cdp-h200.txt);
// - a launch of 2048 threads per block is cudaErrorInvalidConfiguration, and so is one with
//   1 MiB of dynamic shared memory (cdp-h200.txt; the host's launch says cudaErrorInvalidValue);
// - device streams with flags 0 are accepted, device events need cudaEventDisableTiming and
//   take cudaEventBlockingSync with it (cdp-h200.txt);
// - cudaMemsetAsync, a child and cudaMemcpyAsync queued in one device stream run in order;
//   device cudaMalloc/cudaFree; events with cudaEventDisableTiming; fire-and-forget launches;
// - cudaDeviceGetAttribute on the device equals the host's answers, and so does
//   cudaDeviceGetLimit for the stack, the heap and the pending launches; the printf FIFO reads
//   8650752 (132 x 64 KiB) under the host's default 1 MiB and cudaLimitDevRuntimeSyncDepth is
//   cudaErrorUnsupportedLimit with ~0 written, as on the H200 (cdp-h200.txt: its five limit
//   calls ORed to 215, the sync depth the one that read ~0);
// - cudaGetErrorName/String on the device equal the host cudart's strings;
// - cooperative groups through the device runtime's entry points (cudaCGGetIntrinsicHandle,
//   cudaCGSynchronize, cudaCGGetSize, cudaCGGetRank), as numba-cuda calls them, in a grid
//   launched with cudaLaunchCooperativeKernel: a grid-wide sum between two syncs;
// - last, a child that writes to an illegal address fails the host's synchronisation with
//   cudaErrorIllegalAddress.
// Build: nvcc -rdc=true ... -lcudadevrt.
#include <cstdio>
#include <cstring>

__device__ int deepest, fail_level, fail_code;

__global__ void nest(int level) {
    atomicMax(&deepest, level);
    nest<<<1, 1>>>(level + 1);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        fail_level = level;
        fail_code = e;
    }
}

__global__ void noop() {}

__device__ int bad_config, bad_shared, flag_codes[3];
__global__ void launch_too_big() {
    noop<<<1, 2048>>>();
    bad_config = cudaGetLastError();
    // More shared memory than a block can have: cudaErrorInvalidConfiguration on an H200
    // (cdp-h200.txt).
    noop<<<1, 1, 1 << 20>>>();
    bad_shared = cudaGetLastError();
    // Stream and event flags the documentation does not ask for (cdp-h200.txt: 0, 1, 0).
    cudaStream_t s;
    flag_codes[0] = cudaStreamCreateWithFlags(&s, 0);
    if (flag_codes[0] == cudaSuccess) cudaStreamDestroy(s);
    cudaEvent_t e;
    flag_codes[1] = cudaEventCreateWithFlags(&e, 0);
    flag_codes[2] = cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventBlockingSync);
    if (flag_codes[2] == cudaSuccess) cudaEventDestroy(e);
}

__global__ void check_bytes(const unsigned char *p, int n, unsigned char want, int *errors) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && p[i] != want) atomicAdd(errors, 1);
}

__global__ void add_one(unsigned char *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

__device__ int stream_result[8];
__global__ void streams(unsigned char *a, unsigned char *b, int n, int *errors) {
    cudaStream_t s;
    int k = 0;
    stream_result[k++] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    stream_result[k++] = cudaMemsetAsync(a, 7, n, s);
    add_one<<<(n + 255) / 256, 256, 0, s>>>(a, n); // 8 after the memset
    stream_result[k++] = cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, s);
    check_bytes<<<(n + 255) / 256, 256, 0, s>>>(b, n, 8, errors);
    cudaEvent_t e;
    stream_result[k++] = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    stream_result[k++] = cudaEventRecord(e, s);
    stream_result[k++] = cudaStreamWaitEvent(s, e, 0);
    stream_result[k++] = cudaEventDestroy(e);
    stream_result[k++] = cudaStreamDestroy(s);
    // Fire and forget: runs after this grid, whatever the order with the stream's work.
    check_bytes<<<1, 1, 0, cudaStreamFireAndForget>>>(a, 1, 8, errors);
}

__device__ int malloc_result[3];
__global__ void device_malloc(int *sum) {
    int *p = nullptr;
    malloc_result[0] = cudaMalloc((void **)&p, 64 * sizeof(int));
    malloc_result[1] = p != nullptr;
    if (p) {
        for (int i = 0; i < 64; i++) p[i] = i;
        int s = 0;
        for (int i = 0; i < 64; i++) s += p[i];
        *sum = s;
        malloc_result[2] = cudaFree(p);
    }
}

#define NATTR 5
__device__ int attrs[NATTR];
__device__ size_t limits[5];
__device__ int attr_result, limit_codes[5], count, runtime_version;
__global__ void device_queries(const int *which) {
    for (int i = 0; i < NATTR; i++) attr_result |= cudaDeviceGetAttribute(&attrs[i], (cudaDeviceAttr)which[i], 0);
    for (int i = 0; i < 5; i++) limit_codes[i] = cudaDeviceGetLimit(&limits[i], (cudaLimit)i);
    attr_result |= cudaGetDeviceCount(&count);
}

#define NCODES 7
__device__ const char *names[NCODES], *strings[NCODES];
__global__ void error_strings(const int *codes) {
    for (int i = 0; i < NCODES; i++) {
        names[i] = cudaGetErrorName((cudaError_t)codes[i]);
        strings[i] = cudaGetErrorString((cudaError_t)codes[i]);
    }
}
__global__ void copy_string(const char *s, char *out) {
    int i = 0;
    for (; s[i] && i < 255; i++) out[i] = s[i];
    out[i] = 0;
}

__global__ void cg_sum(const int *in, int *partial, int *total, unsigned *sizes, unsigned *ranks) {
    unsigned long long g = cudaCGGetIntrinsicHandle(cudaCGScopeGrid);
    unsigned threads, grids, rank, grid_rank;
    cudaCGGetSize(&threads, &grids, g);
    cudaCGGetRank(&rank, &grid_rank, g);
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    ranks[tid] = rank;
    if (tid == 0) {
        sizes[0] = threads;
        sizes[1] = grids;
    }
    atomicAdd(&partial[blockIdx.x], in[tid]);
    cudaCGSynchronize(g, 0);
    if (tid == 0) {
        int s = 0;
        for (unsigned b = 0; b < gridDim.x; b++) s += partial[b];
        *total = s;
    }
    cudaCGSynchronize(g, 0);
    // Every thread sees the total after the second barrier; one value at a time (the other
    // pointer null) is what cooperative_groups asks for.
    unsigned only_threads = 0, only_grid_rank = 7;
    cudaCGGetSize(&only_threads, nullptr, g);
    cudaCGGetRank(nullptr, &only_grid_rank, g);
    if (*total != (int)(threads * (threads - 1) / 2) || only_threads != threads || only_grid_rank != 0)
        atomicAdd(&partial[gridDim.x], 1);
}

__global__ void faulty_child(int *p) { p[threadIdx.x] = 1; }
__global__ void faulty_parent() { faulty_child<<<1, 32>>>((int *)0x10); }

static int failures = 0;
#define CHECK(cond, ...)                                                                                             \
    do {                                                                                                             \
        if (!(cond)) {                                                                                               \
            failures++;                                                                                              \
            printf("mismatch: " __VA_ARGS__);                                                                        \
            printf("\n");                                                                                            \
        }                                                                                                            \
    } while (0)


template <class T> static T sym(const T &s) {
    T v;
    cudaMemcpyFromSymbol(&v, s, sizeof(T));
    return v;
}

// Device code's cudaGetDevice names the device its grid runs on, and a child grid runs there
// too, reaching that device's memory (run with CUDA_SHIM_DEVICES=2 and argument `device1`).
__device__ int where_parent, where_child;
__global__ void report_child(int *p) {
    cudaGetDevice(&where_child);
    p[0] = 42;
}
__global__ void report_parent(int *p) {
    cudaGetDevice(&where_parent);
    report_child<<<1, 1>>>(p);
}

static int on_device1() {
    int n = 0;
    cudaGetDeviceCount(&n);
    cudaSetDevice(1);
    int *p, v = 0;
    cudaMalloc(&p, sizeof(int));
    report_parent<<<1, 1>>>(p);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(&v, p, sizeof(int), cudaMemcpyDeviceToHost);
    int wp = sym(where_parent), wc = sym(where_child);
    bool ok = n == 2 && e == cudaSuccess && wp == 1 && wc == 1 && v == 42;
    printf("%s device 1: %d devices, sync %d, parent on %d, child on %d, wrote %d\n", ok ? "PASS" : "FAIL", n,
           (int)e, wp, wc, v);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "device1")) return on_device1();
    // Nesting depth.
    nest<<<1, 1>>>(1);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "nest sync");
    int fl = sym(fail_level), fc = sym(fail_code), dp = sym(deepest);
    // cdp-h200.txt: "deepest 2049, failed at level 2049 with 69".
    CHECK(fl == 2049 && fc == cudaErrorLaunchPendingCountExceeded && dp == 2049,
          "nesting: failed at level %d with %d, deepest %d", fl, fc, dp);

    launch_too_big<<<1, 1>>>();
    cudaDeviceSynchronize();
    CHECK(sym(bad_config) == cudaErrorInvalidConfiguration, "2048 threads: %d", sym(bad_config));
    CHECK(sym(bad_shared) == cudaErrorInvalidConfiguration, "1 MiB of shared memory: %d", sym(bad_shared));
    int fcodes[3];
    cudaMemcpyFromSymbol(fcodes, flag_codes, sizeof fcodes);
    CHECK(fcodes[0] == cudaSuccess && fcodes[1] == cudaErrorInvalidValue && fcodes[2] == cudaSuccess,
          "stream flags 0: %d; event flags 0: %d; DisableTiming|BlockingSync: %d", fcodes[0], fcodes[1], fcodes[2]);

    // Streams, copies, sets, events.
    const int n = 1000;
    unsigned char *a, *b;
    int *errors;
    cudaMalloc(&a, n);
    cudaMalloc(&b, n);
    cudaMalloc(&errors, sizeof(int));
    cudaMemset(errors, 0, sizeof(int));
    streams<<<1, 1>>>(a, b, n, errors);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "streams sync");
    int results[8], errs = -1;
    cudaMemcpyFromSymbol(results, stream_result, sizeof results);
    cudaMemcpy(&errs, errors, sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < 8; i++) CHECK(results[i] == cudaSuccess, "stream call %d: %d", i, results[i]);
    CHECK(errs == 0, "ordered stream work: %d wrong bytes", errs);

    int *sum;
    cudaMalloc(&sum, sizeof(int));
    device_malloc<<<1, 1>>>(sum);
    cudaDeviceSynchronize();
    int mr[3], s = 0;
    cudaMemcpyFromSymbol(mr, malloc_result, sizeof mr);
    cudaMemcpy(&s, sum, sizeof(int), cudaMemcpyDeviceToHost);
    CHECK(mr[0] == 0 && mr[1] == 1 && mr[2] == 0 && s == 64 * 63 / 2, "device cudaMalloc: %d %d %d sum %d", mr[0],
          mr[1], mr[2], s);

    // Device queries against the host's answers.
    int which[NATTR] = {cudaDevAttrMaxThreadsPerBlock, cudaDevAttrMultiProcessorCount, cudaDevAttrWarpSize,
                        cudaDevAttrComputeCapabilityMajor, cudaDevAttrMaxSharedMemoryPerBlockOptin};
    int *dwhich;
    cudaMalloc(&dwhich, sizeof which);
    cudaMemcpy(dwhich, which, sizeof which, cudaMemcpyHostToDevice);
    device_queries<<<1, 1>>>(dwhich);
    cudaDeviceSynchronize();
    int dattrs[NATTR];
    size_t dlimits[5];
    cudaMemcpyFromSymbol(dattrs, attrs, sizeof dattrs);
    cudaMemcpyFromSymbol(dlimits, limits, sizeof dlimits);
    CHECK(sym(attr_result) == 0, "device queries: %d", sym(attr_result));
    for (int i = 0; i < NATTR; i++) {
        int h = -1;
        cudaDeviceGetAttribute(&h, (cudaDeviceAttr)which[i], 0);
        CHECK(dattrs[i] == h, "attribute %d: device %d host %d", which[i], dattrs[i], h);
    }
    int lcodes[5];
    cudaMemcpyFromSymbol(lcodes, limit_codes, sizeof lcodes);
    for (int i = 0; i < 5; i++) {
        size_t h = 0;
        cudaDeviceGetLimit(&h, (cudaLimit)i);
        if (i == cudaLimitPrintfFifoSize) {
            CHECK(lcodes[i] == 0 && h == (1 << 20) && dlimits[i] == 8650752, "printf FIFO: %d, device %zu host %zu",
                  lcodes[i], dlimits[i], h);
        } else if (i == cudaLimitDevRuntimeSyncDepth) {
            CHECK(lcodes[i] == cudaErrorUnsupportedLimit && dlimits[i] == ~(size_t)0, "sync depth: %d, %zu", lcodes[i],
                  dlimits[i]);
        } else {
            CHECK(lcodes[i] == 0 && dlimits[i] == h, "limit %d: %d, device %zu host %zu", i, lcodes[i], dlimits[i], h);
        }
    }
    int hc = 0;
    cudaGetDeviceCount(&hc);
    CHECK(sym(count) == hc, "device count %d host %d", sym(count), hc);

    // Error names and strings against the host cudart's.
    int codes[NCODES] = {cudaSuccess, cudaErrorInvalidValue, cudaErrorMemoryAllocation, cudaErrorInvalidConfiguration,
                         cudaErrorLaunchMaxDepthExceeded, cudaErrorLaunchPendingCountExceeded,
                         cudaErrorInvalidResourceHandle};
    int *dcodes;
    char *out;
    cudaMalloc(&dcodes, sizeof codes);
    cudaMalloc(&out, 256);
    cudaMemcpy(dcodes, codes, sizeof codes, cudaMemcpyHostToDevice);
    error_strings<<<1, 1>>>(dcodes);
    cudaDeviceSynchronize();
    const char *dn[NCODES], *ds[NCODES];
    cudaMemcpyFromSymbol(dn, names, sizeof dn);
    cudaMemcpyFromSymbol(ds, strings, sizeof ds);
    for (int i = 0; i < NCODES; i++) {
        char got[256];
        copy_string<<<1, 1>>>(dn[i], out);
        cudaMemcpy(got, out, 256, cudaMemcpyDeviceToHost);
        CHECK(strcmp(got, cudaGetErrorName((cudaError_t)codes[i])) == 0, "name of %d: '%s'", codes[i], got);
        copy_string<<<1, 1>>>(ds[i], out);
        cudaMemcpy(got, out, 256, cudaMemcpyDeviceToHost);
        CHECK(strcmp(got, cudaGetErrorString((cudaError_t)codes[i])) == 0, "string of %d: '%s' host '%s'", codes[i],
              got, cudaGetErrorString((cudaError_t)codes[i]));
    }

    // Cooperative groups through the device runtime.
    const int blocks = 8, threads = 64, nt = blocks * threads;
    int hin[nt];
    for (int i = 0; i < nt; i++) hin[i] = i;
    int *in, *partial, *total;
    unsigned *sizes, *ranks;
    cudaMalloc(&in, sizeof hin);
    cudaMalloc(&partial, (blocks + 1) * sizeof(int));
    cudaMalloc(&total, sizeof(int));
    cudaMalloc(&sizes, 2 * sizeof(unsigned));
    cudaMalloc(&ranks, nt * sizeof(unsigned));
    cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice);
    cudaMemset(partial, 0, (blocks + 1) * sizeof(int));
    void *args[] = {&in, &partial, &total, &sizes, &ranks};
    cudaError_t cl = cudaLaunchCooperativeKernel((void *)cg_sum, blocks, threads, args, 0, 0);
    CHECK(cl == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess, "cooperative launch %d", cl);
    int htotal = 0, late = -1;
    unsigned hsizes[2], hranks[nt];
    cudaMemcpy(&htotal, total, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&late, partial + blocks, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(hsizes, sizes, sizeof hsizes, cudaMemcpyDeviceToHost);
    cudaMemcpy(hranks, ranks, sizeof hranks, cudaMemcpyDeviceToHost);
    CHECK(htotal == nt * (nt - 1) / 2 && late == 0, "grid sum %d, %d threads saw a stale total or a wrong size or rank", htotal, late);
    CHECK(hsizes[0] == nt && hsizes[1] == 1, "cudaCGGetSize %u %u", hsizes[0], hsizes[1]);
    for (int i = 0; i < nt; i++) CHECK(hranks[i] == (unsigned)i, "cudaCGGetRank of thread %d: %u", i, hranks[i]);

    // Last: a faulting child fails the host's synchronisation (sticky).
    faulty_parent<<<1, 1>>>();
    cudaError_t f = cudaDeviceSynchronize();
    CHECK(f == cudaErrorIllegalAddress, "faulting child: %d", f);

    printf("%s device runtime: %d mismatches\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
