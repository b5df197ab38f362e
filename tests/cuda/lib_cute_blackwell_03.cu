// CuTe's Blackwell GEMM tutorial examples/cute/tutorial/blackwell/03_mma_tma_multicast_sm100.cu of
// the pinned pip nvidia-cutlass, included unmodified (main() too): the 512 x 1024 x 256 f16 GEMM
// of tutorial 02 on clusters of 4 x 4 CTAs, each loading a quarter of its A and B tiles with a
// multicast TMA (cp.async.bulk.tensor .multicast::cluster) into the shared memory of the CTAs
// of its row or column, tcgen05.mma.cta_group::1 and tcgen05.commit .multicast::cluster
// (umma_arrive_multicast) to the mbarriers of every CTA whose tiles it read. The inputs are
// small integers (example_utils.hpp); the program compares every element with its host
// reference GEMM and prints "Execution is successful." when none differs.
#include "examples/cute/tutorial/blackwell/03_mma_tma_multicast_sm100.cu"
