// CuTe's Blackwell GEMM tutorial examples/cute/tutorial/blackwell/05_mma_tma_epi_sm100.cu of the
// pinned pip nvidia-cutlass, included unmodified (main() too): tutorial 04's 2-SM GEMM (multicast
// TMA loads with .cta_group::2 completing on the leader CTA's mbarrier, tcgen05 .cta_group::2
// MMAs) with a TMA epilogue: each CTA loads C in four 128 x 64 tiles with a TMA load into
// 128-byte-swizzled shared memory, combines them with its accumulator from tcgen05.ld and stores
// D with a TMA store (bulk_group commit and wait). The inputs are small integers
// (example_utils.hpp); the program compares every element with its host reference GEMM and
// prints "Execution is successful." when none differs.
#include "examples/cute/tutorial/blackwell/05_mma_tma_epi_sm100.cu"
