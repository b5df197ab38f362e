// CuTe's Blackwell GEMM tutorial examples/cute/tutorial/blackwell/02_mma_tma_sm100.cu of the pinned pip
// nvidia-cutlass, included unmodified (main() too): a 512 x 1024 x 256 f16 GEMM with f32
// accumulation on 128 x 256 UMMA tiles (tcgen05.alloc, tcgen05.mma.kind::f16 SS with 128-byte
// swizzled descriptors and the disable-output-lane mask, tcgen05.commit to an mbarrier,
// tcgen05.ld 32dp32b, TMA loads into shared memory). The inputs are small
// integers (example_utils.hpp); the program compares every element with its host reference
// GEMM and prints "Execution is successful." when none differs.
#include "examples/cute/tutorial/blackwell/02_mma_tma_sm100.cu"
