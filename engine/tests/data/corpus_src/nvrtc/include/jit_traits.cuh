// Jitify-style embedded header: the host program ships its own minimal <type_traits> and
// <limits> replacements as in-memory headers, so the runtime-compiled source needs no toolkit
// include path.
#pragma once
namespace jit {
template <class T, T v> struct integral_constant { static constexpr T value = v; };
using true_type = integral_constant<bool, true>;
using false_type = integral_constant<bool, false>;
template <class A, class B> struct is_same : false_type {};
template <class A> struct is_same<A, A> : true_type {};
template <bool C, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { using type = T; };
template <class T> struct numeric_limits;
template <> struct numeric_limits<float> {
  static __device__ constexpr float max() { return 3.402823466e+38f; }
  static __device__ constexpr float lowest() { return -3.402823466e+38f; }
};
template <> struct numeric_limits<double> {
  static __device__ constexpr double max() { return 1.7976931348623157e+308; }
  static __device__ constexpr double lowest() { return -1.7976931348623157e+308; }
};
template <> struct numeric_limits<int> {
  static __device__ constexpr int max() { return 0x7fffffff; }
  static __device__ constexpr int lowest() { return -0x7fffffff - 1; }
};
typedef unsigned long long uint64;
typedef unsigned int uint32;
}  // namespace jit
