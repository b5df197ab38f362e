// Device debug (-G: DWARF sections, no optimisation) and relocatable device code (-rdc: extern
// device functions and variables left for the linker), as debugging and separate-compilation
// NVRTC users produce.
// nvrtc-options: -G -rdc=true
// nvrtc-name-expression: scan_step<int>
extern __device__ int linked_elsewhere(int);
extern __device__ float external_table[];
__device__ __noinline__ int local_helper(int x) { return x * 3 + 1; }

struct Point { float x, y; };
template <class T>
__global__ void scan_step(T* data, Point* pts, int n, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T v = data[i];
  if (i >= d) v += data[i - d];
  Point p = pts[i % 4];
  p.x += external_table[i & 7];
  pts[i % 4] = p;
  data[i] = v + local_helper(linked_elsewhere(i));
}
