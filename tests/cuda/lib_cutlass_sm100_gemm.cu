// CUTLASS 3.x GEMMs for sm_100 as a user builds them with CUTLASS's collective builders
// (CollectiveBuilder for the mainloop and the epilogue, GemmUniversal, GemmUniversalAdapter),
// f16 A (row-major) and B (column-major), f32 accumulation, C and D f32 column-major,
// D = A * B + C, with the default schedules: tcgen05.mma from TMA-fed shared memory, the
// accumulator in Tensor Memory, the TMEM-to-register epilogue with TMA stores, and the
// cluster-launch-control tile scheduler (clusterlaunchcontrol.try_cancel). Two configurations:
// - 2-SM: tiles of 256 x 128 x 64 on CTA pairs (`SM100_MMA_F16BF16_2x1SM_SS`, `.cta_group::2`)
//   in clusters of 2 x 2, with 2-SM TMA loads multicast across the cluster and the pair's
//   accumulator pipeline released on the even CTA's barrier (CUTLASS's peer-bit address);
// - 1-SM: tiles of 128 x 128 x 64, clusters of 1.
// Inputs are small integers, so every product and sum is exact in f32: each element of D is
// compared with the host's integer GEMM. Prints PASS, or what went wrong.
#include <cstdio>
#include <vector>

#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/util/packed_stride.hpp"

using namespace cute;

template <class TileShape, class ClusterShape>
struct Config {
  using A = cutlass::half_t;
  using B = cutlass::half_t;
  using C = float;
  using LayoutA = cutlass::layout::RowMajor;
  using LayoutB = cutlass::layout::ColumnMajor;
  using LayoutC = cutlass::layout::ColumnMajor;
  static constexpr int AlignA = 8, AlignB = 8, AlignC = 4;
  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, C, LayoutC, AlignC, C, LayoutC,
      AlignC, cutlass::epilogue::collective::EpilogueScheduleAuto>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp, A, LayoutA, AlignA, B, LayoutB, AlignB,
      float, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename Epilogue::SharedStorage))>,
      cutlass::gemm::collective::KernelScheduleAuto>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue, void>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

template <class Gemm>
static bool run(const char* name, int M, int N, int K) {
  using StrideA = typename Gemm::GemmKernel::StrideA;
  using StrideB = typename Gemm::GemmKernel::StrideB;
  using StrideC = typename Gemm::GemmKernel::StrideC;
  using StrideD = typename Gemm::GemmKernel::StrideD;
  std::vector<cutlass::half_t> a(M * K), b(N * K);
  std::vector<float> c(M * N), d(M * N);
  for (int i = 0; i < M * K; i++) a[i] = cutlass::half_t(float((i * 7 + 1) % 9) - 4.0f);
  for (int i = 0; i < N * K; i++) b[i] = cutlass::half_t(float((i * 5 + 2) % 7) - 3.0f);
  for (int i = 0; i < M * N; i++) c[i] = float(i % 5);
  cutlass::half_t *da, *db;
  float *dc, *dd;
  cudaMalloc(&da, a.size() * 2);
  cudaMalloc(&db, b.size() * 2);
  cudaMalloc(&dc, c.size() * 4);
  cudaMalloc(&dd, d.size() * 4);
  cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                {M, N, K, 1},
                                {da, cutlass::make_cute_packed_stride(StrideA{}, {M, K, 1}), db,
                                 cutlass::make_cute_packed_stride(StrideB{}, {N, K, 1})},
                                {{1.0f, 1.0f},
                                 dc,
                                 cutlass::make_cute_packed_stride(StrideC{}, {M, N, 1}),
                                 dd,
                                 cutlass::make_cute_packed_stride(StrideD{}, {M, N, 1})}};
  Gemm gemm;
  void* workspace = nullptr;
  cudaMalloc(&workspace, Gemm::get_workspace_size(args) + 16);
  if (gemm.can_implement(args) != cutlass::Status::kSuccess ||
      gemm.initialize(args, workspace) != cutlass::Status::kSuccess) {
    printf("%s: CUTLASS refused the problem\n", name);
    return false;
  }
  cutlass::Status st = gemm.run();
  cudaError_t e = cudaDeviceSynchronize();
  if (st != cutlass::Status::kSuccess || e != cudaSuccess) {
    printf("%s: %s\n", name, cudaGetErrorString(e));
    return false;
  }
  cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost);
  long wrong = 0;
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      long s = long(c[m + n * M]);
      for (int k = 0; k < K; k++) s += long(float(a[m * K + k])) * long(float(b[n * K + k]));
      wrong += float(s) != d[m + n * M];
    }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dd);
  cudaFree(workspace);
  if (wrong) printf("%s: %ld of %d elements wrong\n", name, wrong, M * N);
  return wrong == 0;
}

int main() {
  bool ok = run<Config<Shape<_256, _128, _64>, Shape<_2, _2, _1>>::Gemm>("2-SM", 512, 512, 256);
  ok &= run<Config<Shape<_128, _128, _64>, Shape<_1, _1, _1>>::Gemm>("1-SM", 384, 256, 192);
  if (ok) printf("PASS\n");
  return 0;
}
