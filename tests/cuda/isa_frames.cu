// Pointers into a caller's local memory across re-entrant calls. Each activation of a
// recursive function has its own frame, so a pointer to a caller's local array passed down the
// recursion reads and writes the caller's array: a recursive function filling its array and
// letting its callee modify it, mutual recursion doing the same through each other's arrays, and
// a pointer to a local passed two levels down (through another function) into a deeper
// activation of the same function. Expected values come from the same functions run on the
// host.
#include "check.h"
#include <vector>

// Fills its array, lets its recursive callee modify it through `parent`, and folds it.
__host__ __device__ __noinline__ unsigned nest(unsigned* parent, int n, unsigned seed) {
  unsigned arr[8];
  for (int i = 0; i < 8; i++) arr[i] = seed * (i + 1) + n;
  if (parent) {
    parent[n % 8] += arr[(n + 3) % 8];
    parent[7] ^= n * 31u;
  }
  unsigned r = n > 0 ? nest(arr, n - 1, seed * 7u + 1u) : 0u;
  unsigned s = r;
  for (int i = 0; i < 8; i++) s = s * 3u + arr[i];
  return s;
}

// Mutual recursion: each writes into the other's local array through the pointer it got.
__host__ __device__ __noinline__ unsigned odd_step(unsigned* acc, int n);
__host__ __device__ __noinline__ unsigned even_step(unsigned* acc, int n) {
  unsigned loc[4];
  for (int i = 0; i < 4; i++) loc[i] = n * (i + 2) + 1;
  if (acc) acc[n % 4] += loc[n % 4] * 3u;
  unsigned r = n > 0 ? odd_step(loc, n - 1) : 7u;
  return r * 5u + loc[0] + (loc[1] << 1) + (loc[2] << 2) + (loc[3] << 3);
}
__host__ __device__ __noinline__ unsigned odd_step(unsigned* acc, int n) {
  unsigned loc[4];
  for (int i = 0; i < 4; i++) loc[i] = n * (i + 5) ^ 0x55u;
  if (acc) {
    acc[(n + 1) % 4] ^= loc[n % 4];
    acc[0] += 11u;
  }
  unsigned r = n > 0 ? even_step(loc, n - 1) : 3u;
  return r * 7u + loc[0] + (loc[1] << 2) + (loc[2] << 4) + (loc[3] << 6);
}

// Two levels down: skip hands its array to hop, which passes it on to the next activation of
// skip, which modifies it (the grandparent's array) and hop's own array as well.
__host__ __device__ __noinline__ unsigned hop(unsigned* grand, int n);
__host__ __device__ __noinline__ unsigned skip(unsigned* grand, unsigned* parent, int n) {
  unsigned arr[6];
  for (int i = 0; i < 6; i++) arr[i] = n * 5u + i;
  if (grand) grand[n % 6] += 100u * n + 1u;
  if (parent) parent[n % 3] *= 3u;
  unsigned r = n > 0 ? hop(arr, n - 1) : 0u;
  unsigned s = r;
  for (int i = 0; i < 6; i++) s = s * 5u + arr[i];
  return s;
}
__host__ __device__ __noinline__ unsigned hop(unsigned* grand, int n) {
  unsigned mine[3] = {n + 1u, n + 2u, n + 3u};
  grand[5] -= mine[n % 3];
  unsigned r = skip(grand, mine, n);
  return r + mine[0] * 2u + mine[1] * 3u + mine[2] * 4u;
}

// A non-recursive helper two levels below a recursive function, writing through the pointer
// to the recursive caller's local.
__host__ __device__ __noinline__ void leaf(unsigned* p, int k) { p[k % 4] += 1000u + k; }
__host__ __device__ __noinline__ void middle(unsigned* p, int k) {
  unsigned own[4] = {1u, 2u, 3u, 4u};
  leaf(own, k);
  leaf(p, k + 1);
  p[(k + 2) % 4] += own[k % 4];
}
__host__ __device__ __noinline__ unsigned outer(int n) {
  unsigned arr[4] = {n + 0u, n * 2u, n * 3u, n * 4u};
  middle(arr, n);
  unsigned r = n > 0 ? outer(n - 1) : 0u;
  return r * 13u + arr[0] + arr[1] * 2u + arr[2] * 3u + arr[3] * 4u;
}

__global__ void frames(unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[4 * t + 0] = nest(nullptr, t % 9, t);
  out[4 * t + 1] = even_step(nullptr, t % 10);
  out[4 * t + 2] = skip(nullptr, nullptr, t % 8);
  out[4 * t + 3] = outer(t % 6);
}


int main() {
  const int N = 128;
  // Frames of nine nested activations with their saved registers: more than the 1 KiB default.
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 16384));
  unsigned* dout;
  CHECK(cudaMalloc(&dout, N * 4 * sizeof(unsigned)));
  frames<<<2, N / 2>>>(dout);
  CHECK(cudaGetLastError());
  std::vector<unsigned> out(N * 4);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const char* what[4] = {"nest", "even_step", "skip", "outer"};
  for (int t = 0; t < N; t++) {
    unsigned want[4] = {nest(nullptr, t % 9, t), even_step(nullptr, t % 10),
                        skip(nullptr, nullptr, t % 8), outer(t % 6)};
    for (int k = 0; k < 4; k++)
      EXPECT_MSG(out[4 * t + k] == want[k], "thread %d %s = %u want %u", t, what[k],
                 out[4 * t + k], want[k]);
  }
  CHECK(cudaFree(dout));
  if (expect_failures) {
    printf("FAIL isa_frames: %d checks failed\n", expect_failures);
    return 1;
  }
  printf("PASS isa_frames: recursion, mutual recursion and two-level pointers into callers' frames\n");
  return 0;
}
