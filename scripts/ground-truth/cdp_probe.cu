// What the device runtime answers where the shim follows the documentation's reading
// (results/cdp-h200.txt). Build: nvcc -arch=sm_90 -rdc=true cdp_probe.cu -lcudadevrt. Prints one
// line per question, the last ones: each limit's own code, nesting under a lowered
// pending-launch limit, and the printf FIFO device code reads after the host set 16 MiB.
#include <cstdio>

__device__ int deepest, fail_level, fail_code;
__global__ void nest(int level) {
  atomicMax(&deepest, level);
  nest<<<1, 1>>>(level + 1);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess && fail_level == 0) {
    fail_level = level;
    fail_code = e;
  }
}

__global__ void noop() {}

__device__ int codes[16];
__device__ unsigned long long handle;
__device__ size_t limits[5];
__device__ int limit_codes[5];
__global__ void questions(cudaStream_t host_stream) {
  cudaStream_t s;
  codes[0] = cudaStreamCreateWithFlags(&s, 0);  // a blocking stream on the device
  cudaEvent_t e;
  codes[1] = cudaEventCreateWithFlags(&e, 0);  // an event with timing
  codes[2] = cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventBlockingSync);
  noop<<<1, 2048>>>();
  codes[3] = cudaGetLastError();  // too many threads per block
  noop<<<1, 1, 0, host_stream>>>();
  codes[4] = cudaGetLastError();  // a stream the host created
  noop<<<1, 1, 1 << 20>>>();
  codes[5] = cudaGetLastError();  // 1 MiB of dynamic shared memory
  int launched = 0;
  for (int i = 0; i < 5000; i++) {
    noop<<<1, 1>>>();
    if (cudaGetLastError() != cudaSuccess) break;
    launched++;
  }
  codes[6] = launched;  // launches accepted from one thread, of 5000
  codes[7] = cudaGetLastError();
  handle = cudaCGGetIntrinsicHandle(cudaCGScopeGrid);  // in a launch that is not cooperative
  for (int i = 0; i < 5; i++) {
    limit_codes[i] = cudaDeviceGetLimit(&limits[i], (cudaLimit)i);
    codes[8] |= limit_codes[i];
  }
  int dev = -1;
  codes[9] = cudaGetDevice(&dev);
  codes[10] = dev;
}

__device__ size_t printf_fifo;
__global__ void read_printf_fifo() { cudaDeviceGetLimit(&printf_fifo, cudaLimitPrintfFifoSize); }

__device__ const char *strings[4];
__global__ void texts() {
  strings[0] = cudaGetErrorString(cudaErrorLaunchMaxDepthExceeded);
  strings[1] = cudaGetErrorString(cudaErrorInvalidConfiguration);
  strings[2] = cudaGetErrorName(cudaErrorLaunchPendingCountExceeded);
  strings[3] = cudaGetErrorString((cudaError_t)12345);
}
__global__ void copy(const char *s, char *out) {
  int i = 0;
  for (; s && s[i] && i < 255; i++) out[i] = s[i];
  out[i] = 0;
}

template <class T> static T sym(const T &s) {
  T v;
  cudaMemcpyFromSymbol(&v, s, sizeof(T));
  return v;
}

int main() {
  nest<<<1, 1>>>(1);
  cudaError_t e = cudaDeviceSynchronize();
  printf("nesting (host grid = level 1): sync %d, deepest %d, failed at level %d with %d\n", e, sym(deepest),
         sym(fail_level), sym(fail_code));
  cudaStream_t hs;
  cudaStreamCreate(&hs);
  questions<<<1, 1>>>(hs);
  e = cudaDeviceSynchronize();
  int c[16];
  cudaMemcpyFromSymbol(c, codes, sizeof c);
  size_t l[5];
  cudaMemcpyFromSymbol(l, limits, sizeof l);
  printf("questions: sync %d\n", e);
  printf("stream flags 0: %d; event flags 0: %d; DisableTiming|BlockingSync: %d\n", c[0], c[1], c[2]);
  printf("2048 threads: %d; host stream: %d; 1 MiB dynamic shared: %d\n", c[3], c[4], c[5]);
  printf("launches from one thread: %d of 5000, then %d\n", c[6], c[7]);
  printf("grid handle outside a cooperative launch: %#llx\n", sym(handle));
  printf("device limits (%d): stack %zu printf %zu heap %zu syncdepth %zu pending %zu\n", c[8], l[0], l[1], l[2],
         l[3], l[4]);
  printf("cudaGetDevice: %d -> %d\n", c[9], c[10]);
  texts<<<1, 1>>>();
  cudaDeviceSynchronize();
  const char *p[4];
  cudaMemcpyFromSymbol(p, strings, sizeof p);
  char *out, got[256];
  cudaMalloc(&out, 256);
  for (int i = 0; i < 4; i++) {
    copy<<<1, 1>>>(p[i], out);
    cudaMemcpy(got, out, 256, cudaMemcpyDeviceToHost);
    printf("text %d: '%s'\n", i, got);
  }
  int lc[5];
  cudaMemcpyFromSymbol(lc, limit_codes, sizeof lc);
  printf("device limit codes: stack %d printf %d heap %d syncdepth %d pending %d\n", lc[0], lc[1], lc[2], lc[3],
         lc[4]);
  cudaError_t set = cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 100);
  int zero = 0;
  cudaMemcpyToSymbol(deepest, &zero, sizeof zero);
  cudaMemcpyToSymbol(fail_level, &zero, sizeof zero);
  cudaMemcpyToSymbol(fail_code, &zero, sizeof zero);
  nest<<<1, 1>>>(1);
  e = cudaDeviceSynchronize();
  printf("pending launch count 100 (set %d): sync %d, deepest %d, failed at level %d with %d\n", set, e, sym(deepest),
         sym(fail_level), sym(fail_code));
  set = cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 16 << 20);
  size_t host_fifo = 0;
  cudaDeviceGetLimit(&host_fifo, cudaLimitPrintfFifoSize);
  read_printf_fifo<<<1, 1>>>();
  e = cudaDeviceSynchronize();
  printf("printf fifo set to 16 MiB (set %d, sync %d): host %zu, device %zu\n", set, e, host_fifo, sym(printf_fifo));
  return 0;
}
