// What a tile-mode TMA load writes for elements outside the tensor, and whether negative
// coordinates are taken: one load per process (a sticky error ends only its own case).
//   tma_oob_probe TYPE FILL X Y      TYPE: f32 f16 bf16 f64 u8 i32; FILL: 0 zero, 1 NaN
// A 16x16 tensor whose element (r, c) is r * 16 + c + 1 in the type, a 16x16 box at (X, Y)
// (X innermost), loaded with the <cuda/barrier> wrappers as the Programming Guide does. Prints
// "oob TYPE FILL at=(X,Y): inbound_ok=N/M" and one "... oob bits=0x.. count=K" per distinct
// out-of-bound pattern, or the launch's error.
#include <cuda.h>
#include <cuda/barrier>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

__global__ void load(const __grid_constant__ CUtensorMap map, int x, int y, unsigned bytes,
                     unsigned char* out) {
  __shared__ alignas(128) unsigned char smem[16 * 16 * 8];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  for (int i = threadIdx.x; i < (int)sizeof(smem); i += blockDim.x) smem[i] = 0xAB;
  if (threadIdx.x == 0) {
    init(&bar, 1);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(smem, &map, x, y, bar);
    barrier::arrival_token t = cuda::device::barrier_arrive_tx(bar, 1, bytes);
    bar.wait(std::move(t));
  }
  __syncthreads();
  for (int i = threadIdx.x; i < (int)sizeof(smem); i += blockDim.x) out[i] = smem[i];
}

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  std::string ty = argv[1];
  int fill = atoi(argv[2]), x = atoi(argv[3]), y = atoi(argv[4]);
  struct T { const char* name; CUtensorMapDataType dt; int es; };
  const T types[] = {{"f32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4}, {"f16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2},
                     {"bf16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2}, {"f64", CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8},
                     {"u8", CU_TENSOR_MAP_DATA_TYPE_UINT8, 1}, {"i32", CU_TENSOR_MAP_DATA_TYPE_INT32, 4}};
  const T* t = nullptr;
  for (auto& c : types) if (ty == c.name) t = &c;
  if (!t) return 2;
  auto bits = [&](int v) -> unsigned long long {
    if (ty == "f32") { float f = v; unsigned u; memcpy(&u, &f, 4); return u; }
    if (ty == "f16") { __half h = __int2half_rn(v); unsigned short u; memcpy(&u, &h, 2); return u; }
    if (ty == "bf16") { __nv_bfloat16 h = __int2bfloat16_rn(v); unsigned short u; memcpy(&u, &h, 2); return u; }
    if (ty == "f64") { double f = v; unsigned long long u; memcpy(&u, &f, 8); return u; }
    return (unsigned long long)v & (t->es == 1 ? 0xff : 0xffffffffull);
  };
  std::vector<unsigned char> host(256 * t->es);
  for (int i = 0; i < 256; i++) { unsigned long long b = bits(i + 1); memcpy(&host[i * t->es], &b, t->es); }
  void* dev;
  unsigned char* out;
  cudaMalloc(&dev, host.size());
  cudaMalloc(&out, 16 * 16 * 8);
  cudaMemcpy(dev, host.data(), host.size(), cudaMemcpyHostToDevice);
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void**)&encode, 12000, cudaEnableDefault, &q);
  alignas(64) CUtensorMap map;
  cuuint64_t dims[2] = {16, 16}, strides[1] = {(cuuint64_t)16 * t->es};
  cuuint32_t box[2] = {16, 16}, es[2] = {1, 1};
  CUresult r = encode(&map, t->dt, 2, dev, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                      (CUtensorMapFloatOOBfill)fill);
  char what[80];
  snprintf(what, sizeof what, "oob %s %d at=(%d,%d)", t->name, fill, x, y);
  if (r != CUDA_SUCCESS) { printf("%s: encode %d\n", what, (int)r); return 0; }
  load<<<1, 32>>>(map, x, y, 256 * t->es, out);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("%s: %s\n", what, cudaGetErrorName(e)); return 0; }
  std::vector<unsigned char> got(16 * 16 * 8);
  cudaMemcpy(got.data(), out, got.size(), cudaMemcpyDeviceToHost);
  int ok = 0, in = 0;
  std::map<unsigned long long, int> oob;
  for (int rr = 0; rr < 16; rr++)
    for (int c = 0; c < 16; c++) {
      unsigned long long b = 0;
      memcpy(&b, &got[(rr * 16 + c) * t->es], t->es);
      int gr = y + rr, gc = x + c;
      if (gr >= 0 && gr < 16 && gc >= 0 && gc < 16) in++, ok += b == bits(gr * 16 + gc + 1);
      else oob[b]++;
    }
  printf("%s: inbound_ok=%d/%d\n", what, ok, in);
  for (auto& o : oob) printf("%s: oob bits=0x%llx count=%d\n", what, o.first, o.second);
  return 0;
}
