// -default-device: un-annotated functions, constexpr helpers and lambdas compile as device code,
// as expression-template libraries generating code at run time rely on.
// nvrtc-options: -default-device --use_fast_math -DVEC=4
// nvrtc-name-expression: map<Expr<Mul<Var, Const>, Add<Var, Const>>>
// nvrtc-name-expression: map<Expr<Sqrt<Var>, Mul<Var, Var>>>
#include "jit_traits.cuh"

struct Var { float operator()(float x) const { return x; } };
struct Const { float c = 2.f; float operator()(float) const { return c; } };
template <class A, class B> struct Mul { A a; B b; float operator()(float x) const { return a(x) * b(x); } };
template <class A, class B> struct Add { A a; B b; float operator()(float x) const { return a(x) + b(x); } };
template <class A> struct Sqrt { A a; float operator()(float x) const { return sqrtf(a(x)); } };
template <class F, class G> struct Expr { F f; G g; float operator()(float x) const { return f(x) / (1.f + g(x)); } };

constexpr int ipow(int b, int e) { return e == 0 ? 1 : b * ipow(b, e - 1); }
static_assert(ipow(2, 10) == 1024, "constexpr");

template <class E>
__global__ void map(const float* in, float* out, int n) {
  E e{};
  auto at = [&](int i) { return i < n ? in[i] : 0.f; };
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
  float4 v = make_float4(e(at(base)), e(at(base + 1)), e(at(base + 2)), e(at(base + 3)));
  if (base + VEC <= n) {
    *reinterpret_cast<float4*>(out + base) = v;
  } else {
    float tmp[VEC] = {v.x, v.y, v.z, v.w};
    for (int k = 0; base + k < n; ++k) out[base + k] = tmp[k] * (float)ipow(2, k);
  }
}
