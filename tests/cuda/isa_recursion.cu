// Recursion and indirect calls: recursive fib / Ackermann / tree traversal on the device, a
// table of __device__ function pointers chosen per thread from data, virtual functions on
// objects built with placement new in one kernel and called in another, and a deep recursion
// that needs cudaLimitStackSize raised. Expected values are computed by the same recursions on
// the host.
#include "check.h"
#include <new>
#include <vector>

__host__ __device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__host__ __device__ int ack(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

struct Node { int value, left, right; };  // children by index, -1 for none
__host__ __device__ long long tree_sum(const Node* t, int i, int depth) {
  if (i < 0) return 0;
  return (long long)t[i].value * depth + tree_sum(t, t[i].left, depth + 1) +
         tree_sum(t, t[i].right, depth + 1);
}
__host__ __device__ int tree_height(const Node* t, int i) {
  if (i < 0) return 0;
  int l = tree_height(t, t[i].left), r = tree_height(t, t[i].right);
  return 1 + (l > r ? l : r);
}

// Deep recursion with a frame that cannot live in registers.
__host__ __device__ unsigned deep(unsigned n, unsigned seed) {
  volatile unsigned frame[8];
  for (int i = 0; i < 8; i++) frame[i] = seed * (i + 1) + n;
  if (n == 0) return frame[seed % 8];
  unsigned r = deep(n - 1, seed * 1664525u + 1013904223u);
  return r ^ frame[(seed >> 3) % 8];
}

__global__ void recursion(int* fibs, int* acks, const Node* tree, int root, long long* sums,
                          int* heights) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  fibs[t] = fib(t % 18);
  acks[t] = ack(t % 3, t % 7);
  // every thread walks a different subtree
  sums[t] = tree_sum(tree, (root + t) % 255, 1);
  heights[t] = tree_height(tree, (root + t) % 255);
}

__global__ void deep_recursion(unsigned depth, unsigned* out) {
  out[threadIdx.x] = deep(depth + threadIdx.x, threadIdx.x);
}

// ---- function pointers
typedef int (*binop)(int, int);
__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_sub(int a, int b) { return a - b; }
__device__ int op_mul(int a, int b) { return a * b; }
__device__ int op_mix(int a, int b) { return (a ^ b) + (a >> 2); }
__device__ int op_rec(int a, int b) { return fib(b % 12) + a; }
__device__ binop table[5] = {op_add, op_sub, op_mul, op_mix, op_rec};

__global__ void pointers(const int* sel, const int* a, const int* b, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  binop f = table[sel[t]];
  int r = f(a[t], b[t]);
  binop g = table[(sel[t] + 1) % 5];  // a second indirect call on the result
  out[t] = g(r, a[t]);
}

// ---- virtual functions on objects built in device memory
struct Shape {
  int k;
  __device__ Shape(int k) : k(k) {}
  __device__ virtual ~Shape() {}
  __device__ virtual int area() const = 0;
  __device__ virtual int sides() const { return 0; }
};
struct Square : Shape {
  __device__ Square(int k) : Shape(k) {}
  __device__ int area() const override { return k * k; }
  __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
  __device__ Tri(int k) : Shape(k) {}
  __device__ int area() const override { return k * k / 2; }
  __device__ int sides() const override { return 3; }
};
struct Circle : Shape {
  __device__ Circle(int k) : Shape(k) {}
  __device__ int area() const override { return 3 * k * k; }
};
constexpr size_t SLOT = 32;

__global__ void build(char* buf, const int* kind) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  void* p = buf + t * SLOT;
  switch (kind[t]) {
    case 0: new (p) Square(t); break;
    case 1: new (p) Tri(t); break;
    default: new (p) Circle(t); break;
  }
}
__global__ void use(char* buf, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  Shape* s = reinterpret_cast<Shape*>(buf + t * SLOT);
  out[t] = s->area() * 10 + s->sides();
  s->~Shape();
}


static int host_op(int s, int a, int b) {
  switch (s) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return (a ^ b) + (a >> 2);
    default: return fib(b % 12) + a;
  }
}

int main() {
  const int N = 256;
  // a random binary tree of 255 nodes, stored by index
  std::vector<Node> tree(255);
  unsigned x = 12345;
  for (int i = 0; i < 255; i++) tree[i] = {(int)(i * 37 % 101) - 50, -1, -1};
  for (int i = 1; i < 255; i++) {  // attach node i under a random earlier node with a free slot
    for (;;) {
      x = x * 1103515245u + 12345u;
      int p = (x >> 8) % i;
      int* slot = (x >> 4) & 1 ? &tree[p].left : &tree[p].right;
      if (*slot < 0) { *slot = i; break; }
    }
  }
  int *dfib, *dack, *dh; long long* dsum; Node* dtree;
  CHECK(cudaMalloc(&dfib, N * 4)); CHECK(cudaMalloc(&dack, N * 4)); CHECK(cudaMalloc(&dh, N * 4));
  CHECK(cudaMalloc(&dsum, N * 8)); CHECK(cudaMalloc(&dtree, 255 * sizeof(Node)));
  CHECK(cudaMemcpy(dtree, tree.data(), 255 * sizeof(Node), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
  recursion<<<2, N / 2>>>(dfib, dack, dtree, 0, dsum, dh);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> fibs(N), acks(N), hs(N); std::vector<long long> sums(N);
  CHECK(cudaMemcpy(fibs.data(), dfib, N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(acks.data(), dack, N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hs.data(), dh, N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sums.data(), dsum, N * 8, cudaMemcpyDeviceToHost));
  for (int t = 0; t < N; t++) {
    EXPECT_MSG(fibs[t] == fib(t % 18), "fib(%d) = %d want %d", t % 18, fibs[t], fib(t % 18));
    EXPECT_MSG(acks[t] == ack(t % 3, t % 7), "ack(%d,%d) = %d want %d", t % 3, t % 7, acks[t], ack(t % 3, t % 7));
    EXPECT_MSG(sums[t] == tree_sum(tree.data(), t % 255, 1), "tree_sum(%d) = %lld", t % 255, sums[t]);
    EXPECT_MSG(hs[t] == tree_height(tree.data(), t % 255), "tree_height(%d) = %d", t % 255, hs[t]);
  }

  // deep recursion: 2000+ frames per thread, well past the default 1 KiB stack
  const unsigned DEPTH = 2000;
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 256 * 1024));
  size_t lim = 0;
  CHECK(cudaDeviceGetLimit(&lim, cudaLimitStackSize));
  EXPECT_MSG(lim >= 256 * 1024, "stack limit %zu", lim);
  unsigned* ddeep;
  CHECK(cudaMalloc(&ddeep, 32 * 4));
  deep_recursion<<<1, 32>>>(DEPTH, ddeep);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned dv[32];
  CHECK(cudaMemcpy(dv, ddeep, sizeof dv, cudaMemcpyDeviceToHost));
  for (unsigned t = 0; t < 32; t++)
    EXPECT_MSG(dv[t] == deep(DEPTH + t, t), "deep(%u) = %u want %u", DEPTH + t, dv[t], deep(DEPTH + t, t));

  // function pointers
  std::vector<int> sel(N), a(N), b(N);
  for (int t = 0; t < N; t++) {
    sel[t] = (t * 7 + t / 5) % 5;
    a[t] = t * 3 - 100;
    b[t] = (t * 13) % 41 - 20;
  }
  int *dsel, *da, *db, *dout;
  CHECK(cudaMalloc(&dsel, N * 4)); CHECK(cudaMalloc(&da, N * 4)); CHECK(cudaMalloc(&db, N * 4));
  CHECK(cudaMalloc(&dout, N * 4));
  CHECK(cudaMemcpy(dsel, sel.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(da, a.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), N * 4, cudaMemcpyHostToDevice));
  pointers<<<2, N / 2>>>(dsel, da, db, dout);
  CHECK(cudaGetLastError());
  std::vector<int> out(N);
  CHECK(cudaMemcpy(out.data(), dout, N * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < N; t++) {
    int r = host_op(sel[t], a[t], b[t]);
    int want = host_op((sel[t] + 1) % 5, r, a[t]);
    EXPECT_MSG(out[t] == want, "pointers thread %d (op %d) = %d want %d", t, sel[t], out[t], want);
  }

  // virtual functions
  std::vector<int> kind(N);
  for (int t = 0; t < N; t++) kind[t] = (t * 5 + t / 3) % 3;
  char* dbuf;
  int* dkind;
  CHECK(cudaMalloc(&dbuf, N * SLOT)); CHECK(cudaMalloc(&dkind, N * 4));
  CHECK(cudaMemcpy(dkind, kind.data(), N * 4, cudaMemcpyHostToDevice));
  build<<<2, N / 2>>>(dbuf, dkind);
  CHECK(cudaGetLastError());
  use<<<2, N / 2>>>(dbuf, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, N * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < N; t++) {
    int want = kind[t] == 0 ? t * t * 10 + 4 : kind[t] == 1 ? t * t / 2 * 10 + 3 : 3 * t * t * 10;
    EXPECT_MSG(out[t] == want, "virtual thread %d (kind %d) = %d want %d", t, kind[t], out[t], want);
  }
  if (expect_failures) {
    printf("FAIL isa_recursion: %d checks failed\n", expect_failures);
    return 1;
  }
  printf("PASS isa_recursion: fib, ackermann, trees, depth %u, pointers, virtuals\n", DEPTH);
  return 0;
}
