// CuTe's Blackwell GEMM tutorial examples/cute/tutorial/blackwell/04_mma_tma_2sm_sm100.cu of the
// pinned pip nvidia-cutlass, included unmodified (main() too): the 512 x 1024 x 256 f16 GEMM of
// tutorial 03 with 2-SM UMMA tiles (256 x 256, each CTA of a pair holding half of A's rows and of
// B's): tcgen05.alloc/mma/commit with .cta_group::2, and multicast TMA loads with .cta_group::2
// issued by both CTAs of each pair, whose mbarrier address has CUTLASS's peer bit cleared
// (`& 0xFEFFFFFF`) so that the bytes of both land on the even (leader) CTA's mbarrier, which
// alone waits and issues the MMAs. The inputs are small integers (example_utils.hpp); the
// program compares every element with its host reference GEMM and prints "Execution is
// successful." when none differs.
#include "examples/cute/tutorial/blackwell/04_mma_tma_2sm_sm100.cu"
