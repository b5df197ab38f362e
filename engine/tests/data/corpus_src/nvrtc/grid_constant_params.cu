// __grid_constant__ kernel parameters (compute_70+): large const structs whose address is
// taken without a local copy, as CUTLASS-style and TMA-descriptor code does.
// nvrtc-name-expression: apply<Params<8>>
// nvrtc-name-expression: apply<Params<64>>
struct Small { int a; float b; };
template <int K> struct Params {
  float weights[K];
  int offsets[K];
  Small meta;
  const float* src;
  float* dst;
};

__device__ float use(const float* w, int k) { return w[k]; }
__device__ const Small* keep;

template <class P>
__global__ void apply(const __grid_constant__ P p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  constexpr int K = sizeof(p.weights) / sizeof(float);
  float acc = p.meta.b;
  for (int k = 0; k < K; ++k) acc += use(p.weights, k) * p.src[(i + p.offsets[k]) % n];
  if (i == 0) keep = &p.meta;  // the address of a parameter escapes
  p.dst[i] = acc;
}

extern "C" __global__ void grid_constant_plain(const __grid_constant__ Small s, int* out) {
  const int* pa = &s.a;
  out[threadIdx.x] = pa[0] + (int)s.b;
}
