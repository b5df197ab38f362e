// The CUDA math library in float and double over a few thousand arguments per function, edge
// cases included (zeros of both signs, infinities, NaN, subnormals, huge trig arguments),
// compared with the host's libm: float results against the double function, double results
// against the long double function. Each function must stay within the maximum ulp error the
// CUDA C++ Programming Guide gives for it ("Mathematical Functions" appendix), and special
// values (NaN, infinities, signed zeros) must match C99 Annex F exactly. The fast intrinsics
// (__sinf, __cosf, __expf, __logf, __log2f, __log10f, __fdividef) are held to their documented
// absolute / ulp bounds. Built twice: default flags, and -use_fast_math -DFAST, where the
// standard float functions become the intrinsics and float arithmetic flushes subnormals.
#include "check.h"
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

constexpr int N = 2048;

enum Fn {
  SIN, COS, TAN, EXP, EXP2, EXP10, LOG, LOG2, LOG10, LOG1P, EXPM1, POW, SQRT, RSQRT, CBRT, ERF, ERFC,
  TGAMMA, LGAMMA, ATAN2, SINH, TANH, HYPOT, FMOD, REMAINDER, DIV,
  I_SIN, I_COS, I_EXP, I_LOG, I_LOG2, I_LOG10, I_FDIV, I_FSQRT, I_FDIV_RN, NFN
};
static const char* NAMES[] = {"sin", "cos", "tan", "exp", "exp2", "exp10", "log", "log2", "log10", "log1p",
                              "expm1", "pow", "sqrt", "rsqrt", "cbrt", "erf", "erfc", "tgamma", "lgamma",
                              "atan2", "sinh", "tanh", "hypot", "fmod", "remainder", "div", "__sinf",
                              "__cosf", "__expf", "__logf", "__log2f", "__log10f", "__fdividef",
                              "__fsqrt_rn", "__fdiv_rn"};

__global__ void fkernel(int fn, const float* x, const float* y, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = x[i], b = y[i], r;
  switch (fn) {
    case SIN: r = sinf(a); break;
    case COS: r = cosf(a); break;
    case TAN: r = tanf(a); break;
    case EXP: r = expf(a); break;
    case EXP2: r = exp2f(a); break;
    case EXP10: r = exp10f(a); break;
    case LOG: r = logf(a); break;
    case LOG2: r = log2f(a); break;
    case LOG10: r = log10f(a); break;
    case LOG1P: r = log1pf(a); break;
    case EXPM1: r = expm1f(a); break;
    case POW: r = powf(a, b); break;
    case SQRT: r = sqrtf(a); break;
    case RSQRT: r = rsqrtf(a); break;
    case CBRT: r = cbrtf(a); break;
    case ERF: r = erff(a); break;
    case ERFC: r = erfcf(a); break;
    case TGAMMA: r = tgammaf(a); break;
    case LGAMMA: r = lgammaf(a); break;
    case ATAN2: r = atan2f(a, b); break;
    case SINH: r = sinhf(a); break;
    case TANH: r = tanhf(a); break;
    case HYPOT: r = hypotf(a, b); break;
    case FMOD: r = fmodf(a, b); break;
    case REMAINDER: r = remainderf(a, b); break;
    case DIV: r = a / b; break;
    case I_SIN: r = __sinf(a); break;
    case I_COS: r = __cosf(a); break;
    case I_EXP: r = __expf(a); break;
    case I_LOG: r = __logf(a); break;
    case I_LOG2: r = __log2f(a); break;
    case I_LOG10: r = __log10f(a); break;
    case I_FDIV: r = __fdividef(a, b); break;
    case I_FSQRT: r = __fsqrt_rn(a); break;
    default: r = __fdiv_rn(a, b); break;
  }
  out[i] = r;
}

__global__ void dkernel(int fn, const double* x, const double* y, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double a = x[i], b = y[i], r;
  switch (fn) {
    case SIN: r = sin(a); break;
    case COS: r = cos(a); break;
    case TAN: r = tan(a); break;
    case EXP: r = exp(a); break;
    case EXP2: r = exp2(a); break;
    case EXP10: r = exp10(a); break;
    case LOG: r = log(a); break;
    case LOG2: r = log2(a); break;
    case LOG10: r = log10(a); break;
    case LOG1P: r = log1p(a); break;
    case EXPM1: r = expm1(a); break;
    case POW: r = pow(a, b); break;
    case SQRT: r = sqrt(a); break;
    case RSQRT: r = rsqrt(a); break;
    case CBRT: r = cbrt(a); break;
    case ERF: r = erf(a); break;
    case ERFC: r = erfc(a); break;
    case TGAMMA: r = tgamma(a); break;
    case LGAMMA: r = lgamma(a); break;
    case ATAN2: r = atan2(a, b); break;
    case SINH: r = sinh(a); break;
    case TANH: r = tanh(a); break;
    case HYPOT: r = hypot(a, b); break;
    case FMOD: r = fmod(a, b); break;
    case REMAINDER: r = remainder(a, b); break;
    default: r = a / b; break;
  }
  out[i] = r;
}

// Flush-to-zero probes: a subnormal product, a subnormal operand, sqrt of a subnormal.
__global__ void ftz(const float* in, float* out) {
  out[0] = in[0] * in[1];
  out[1] = in[2] + in[3];
  out[2] = sqrtf(in[2]);
}

// ---------------- host side ----------------
static uint32_t h32(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}
static uint64_t h64(uint64_t i) { return ((uint64_t)h32((uint32_t)i * 2 + 1) << 32) | h32((uint32_t)i * 2 + 2); }
// A value with a random mantissa, exponent in [lo, hi], and a random sign if neg.
static double rnd(uint64_t i, int lo, int hi, bool neg) {
  uint64_t h = h64(i);
  double m = 1.0 + (double)(h >> 12) / 4503599627370496.0;
  int e = lo + (int)((h >> 3) % (uint64_t)(hi - lo + 1));
  return ldexp(m, e) * ((neg && (h & 1)) ? -1.0 : 1.0);
}

struct Domain { int lo, hi; bool neg; int ylo, yhi; bool yneg; };
static Domain domain(int fn, bool dbl) {
  switch (fn) {
    case SIN: case COS: case TAN: return {-30, dbl ? 1000 : 120, true, 0, 0, false};
    case EXP: case EXP2: case EXP10: case EXPM1: return {-30, dbl ? 10 : 7, true, 0, 0, false};
    case LOG: case LOG2: case LOG10: case SQRT: case RSQRT: return {dbl ? -1074 : -149, dbl ? 1023 : 127, false, 0, 0, false};
    case LOG1P: return {-40, 60, true, 0, 0, false};
    case POW: return {-12, 12, true, -6, 6, true};
    case CBRT: return {dbl ? -1074 : -149, dbl ? 1023 : 127, true, 0, 0, false};
    case ERF: case ERFC: return {-30, 5, true, 0, 0, false};
    case TGAMMA: return {-12, dbl ? 7 : 5, true, 0, 0, false};
    case LGAMMA: return {-12, 20, false, 0, 0, false};
    case ATAN2: return {-60, 60, true, -60, 60, true};
    case SINH: return {-30, dbl ? 9 : 6, true, 0, 0, false};
    case TANH: return {-30, 8, true, 0, 0, false};
    case HYPOT: return {dbl ? -600 : -80, dbl ? 600 : 80, true, dbl ? -600 : -80, dbl ? 600 : 80, true};
    case FMOD: case REMAINDER: return {-20, 60, true, -20, 30, true};
    case DIV: return {dbl ? -1000 : -120, dbl ? 1000 : 120, true, dbl ? -1000 : -120, dbl ? 1000 : 120, true};
    case I_SIN: case I_COS: return {-20, 1, true, 0, 0, false};
    case I_EXP: return {-20, 6, true, 0, 0, false};
    case I_LOG: case I_LOG2: case I_LOG10: return {-120, 120, false, 0, 0, false};
    case I_FDIV: return {-60, 60, true, -60, 60, true};
    case I_FSQRT: return {-120, 120, false, 0, 0, false};
    default: return {-60, 60, true, -60, 60, true};
  }
}
static bool is_intrinsic(int fn) { return fn >= I_SIN; }

// Maximum ulp error from the Programming Guide's tables.
static double bound(int fn, bool dbl) {
  static const double f[] = {2, 2, 4, 2, 2, 2, 1, 1, 2, 1, 1, 4, 0, 2, 1, 2, 4, 5, 6, 3, 3, 2, 3, 0, 0, 0};
  static const double d[] = {2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0, 1, 1, 2, 5, 10, 4, 2, 2, 1, 2, 0, 0, 0};
  return dbl ? d[fn] : f[fn];
}

template <class T> struct Lim;
template <> struct Lim<float> { static constexpr int mant = 23, emin = -126, emax = 127; };
template <> struct Lim<double> { static constexpr int mant = 52, emin = -1022, emax = 1023; };

// |got - ref| in units of the last place of ref in T's precision (an infinite result counts as
// 2^(emax+1), the next power of two past the largest finite value).
template <class T> static long double ulp_err(T got, long double ref) {
  long double g = std::isinf(got) ? copysignl(ldexpl(1.0L, Lim<T>::emax + 1), (long double)got) : (long double)got;
  int e = ref == 0 ? Lim<T>::emin : ilogbl(ref);
  if (e < Lim<T>::emin) e = Lim<T>::emin;
  return fabsl(g - ref) / ldexpl(1.0L, e - Lim<T>::mant);
}

static long double ref_long(int fn, long double a, long double b) {
  switch (fn) {
    case SIN: return sinl(a); case COS: return cosl(a); case TAN: return tanl(a);
    case EXP: return expl(a); case EXP2: return exp2l(a); case EXP10: return exp10l(a);
    case LOG: return logl(a); case LOG2: return log2l(a); case LOG10: return log10l(a);
    case LOG1P: return log1pl(a); case EXPM1: return expm1l(a); case POW: return powl(a, b);
    case SQRT: return sqrtl(a); case RSQRT: return 1.0L / sqrtl(a); case CBRT: return cbrtl(a);
    case ERF: return erfl(a); case ERFC: return erfcl(a); case TGAMMA: return tgammal(a);
    case LGAMMA: return lgammal(a); case ATAN2: return atan2l(a, b); case SINH: return sinhl(a);
    case TANH: return tanhl(a); case HYPOT: return hypotl(a, b); case FMOD: return fmodl(a, b);
    case REMAINDER: return remainderl(a, b); default: return a / b;
  }
}
static double ref_double(int fn, double a, double b) {
  switch (fn) {
    case SIN: case I_SIN: return sin(a); case COS: case I_COS: return cos(a); case TAN: return tan(a);
    case EXP: case I_EXP: return exp(a); case EXP2: return exp2(a); case EXP10: return exp10(a);
    case LOG: case I_LOG: return log(a); case LOG2: case I_LOG2: return log2(a);
    case LOG10: case I_LOG10: return log10(a); case LOG1P: return log1p(a); case EXPM1: return expm1(a);
    case POW: return pow(a, b); case SQRT: case I_FSQRT: return sqrt(a); case RSQRT: return 1.0 / sqrt(a);
    case CBRT: return cbrt(a); case ERF: return erf(a); case ERFC: return erfc(a);
    case TGAMMA: return tgamma(a); case LGAMMA: return lgamma(a); case ATAN2: return atan2(a, b);
    case SINH: return sinh(a); case TANH: return tanh(a); case HYPOT: return hypot(a, b);
    case FMOD: return fmod(a, b); case REMAINDER: return remainder(a, b); default: return a / b;
  }
}

static int bad = 0;
static long long checked = 0;

template <class T> static void fail(int fn, T a, T b, T got, long double ref, const char* why) {
  if (bad++ < 60)
    fprintf(stderr, "%s%s(%a, %a) = %a, reference %La: %s\n", NAMES[fn], sizeof(T) == 4 ? "f" : "", (double)a,
            (double)b, (double)got, ref, why);
}

// Special values: NaN, infinities and exact zeros (with their sign) must match exactly.
template <class T> static bool special(int fn, T a, T b, T got, long double ref) {
  if (std::isnan(ref)) {
    if (!std::isnan(got)) fail(fn, a, b, got, ref, "want NaN");
    return true;
  }
  if (std::isinf(ref)) {
    if ((long double)got != ref) fail(fn, a, b, got, ref, "want this infinity");
    return true;
  }
  if (ref == 0) {
    if (got != 0 || std::signbit(got) != std::signbit(ref)) fail(fn, a, b, got, ref, "want this zero");
    return true;
  }
  return false;
}

template <class T> static void check(int fn, T a, T b, T got, long double ref, double ulps) {
  checked++;
  if (special(fn, a, b, got, ref)) return;
  if (std::isnan(got)) { fail(fn, a, b, got, ref, "NaN"); return; }
  if (ulps == 0) {  // correctly rounded
    T want = (T)ref;
    if (got != want) fail(fn, a, b, got, ref, "not correctly rounded");
    return;
  }
  // A reference past the largest finite value rounds to infinity: measure from 2^(emax+1).
  if (std::isinf((T)ref)) ref = copysignl(ldexpl(1.0L, Lim<T>::emax + 1), ref);
  long double err = ulp_err<T>(got, ref);
  // The table bounds the distance to the correctly rounded result; that result is itself up to
  // 0.5 ulp from the reference. The long double reference adds a negligible error for doubles.
  if (err > ulps + 0.5 + (sizeof(T) == 8 ? 0.01 : 0)) {
    char why[96];
    snprintf(why, sizeof why, "%.2Lf ulp > %.0f", err, ulps);
    fail(fn, a, b, got, ref, why);
  }
}

// Bounds of the intrinsics (Programming Guide, "Intrinsic Functions").
static void check_intrinsic(int fn, float a, float b, float got) {
  double ref = ref_double(fn, a, b);
  checked++;
  if (fn == I_FSQRT || fn == I_FDIV_RN) {  // IEEE round to nearest
    if (got != (float)ref && !(std::isnan(got) && std::isnan(ref))) fail(fn, a, b, got, ref, "not correctly rounded");
    return;
  }
  if (std::isnan(got)) { fail(fn, a, b, got, ref, "NaN"); return; }
  double absbound = -1, ulps = 0;
  switch (fn) {
    case I_SIN: case I_COS: absbound = exp2(-21.41); break;  // for x in [-pi, pi]
    case I_EXP: ulps = 2 + floor(fabs(1.173 * a)); break;
    case I_LOG: if (a >= 0.5f && a <= 2.0f) absbound = exp2(-21.41); else ulps = 3; break;
    case I_LOG2: if (a >= 0.5f && a <= 2.0f) absbound = exp2(-22); else ulps = 2; break;
    case I_LOG10: if (a >= 0.5f && a <= 2.0f) absbound = exp2(-24); else ulps = 3; break;
    case I_FDIV: ulps = 2; break;  // for 2^-126 <= |y| <= 2^126
  }
  if (absbound >= 0) {
    if (fabs((double)got - ref) > absbound) {
      char why[64];
      snprintf(why, sizeof why, "abs error %.3g > %.3g", fabs((double)got - ref), absbound);
      fail(fn, a, b, got, ref, why);
    }
  } else {
    long double err = ulp_err<float>(got, ref);
    if (err > ulps + 0.5) {
      char why[64];
      snprintf(why, sizeof why, "%.2Lf ulp > %.0f", err, ulps);
      fail(fn, a, b, got, ref, why);
    }
  }
}

template <class T> static std::vector<T> specials(bool second) {
  const double inf = INFINITY, tiny = sizeof(T) == 4 ? 1e-40 : 1e-310, dmin = sizeof(T) == 4 ? 0x1p-149 : 0x1p-1074;
  const double big = sizeof(T) == 4 ? FLT_MAX : DBL_MAX;
  std::vector<double> v = {0.0, -0.0, inf, -inf, NAN, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 10.0, 0.1,
                           tiny, -tiny, dmin, -dmin, big, -big, 1e-10, 100.5, -100.5, 1e22, 3.14159265358979,
                           1.5707963267948966, 1e5, -7.5, 4.0, 40.0, 1e30, -1e30};
  std::vector<T> r;
  for (double x : v) r.push_back((T)x);
  if (second) std::reverse(r.begin(), r.end());
  return r;
}

template <class T> static void args(int fn, std::vector<T>& x, std::vector<T>& y) {
  bool dbl = sizeof(T) == 8;
  Domain d = domain(fn, dbl);
  std::vector<T> sx = specials<T>(false), sy = specials<T>(true);
  for (int i = 0; i < N; i++) {
    uint64_t s = (uint64_t)fn * 1000003 + i * 2 + (dbl ? 7 : 0);
    x[i] = (T)rnd(s, d.lo, d.hi, d.neg);
    y[i] = d.ylo == d.yhi ? (T)1 : (T)rnd(s + 1, d.ylo, d.yhi, d.yneg);
    if (fn == POW && i % 3 == 0) y[i] = (T)((int)(h32(i) % 17) - 8);  // integer exponents, negative bases
    if (fn == LGAMMA && i % 2) x[i] = -(T)rnd(s, 5, 20, false) - (T)0.37;  // far left of the bad interval
    if ((fn == FMOD || fn == REMAINDER) && i % 4 == 0) x[i] = (T)(y[i] * (T)(int)(h32(i) % 1000) + y[i] / (T)2);
    if (i < (int)sx.size() && !is_intrinsic(fn)) {  // edge cases, each against a varying partner
      x[i] = sx[i];
      if (d.ylo != d.yhi) y[i] = sy[(i * 7) % sy.size()];
    }
    if (i >= (int)sx.size() && i < 2 * (int)sx.size() && !is_intrinsic(fn) && d.ylo != d.yhi) {
      y[i] = sy[i - sx.size()];
    }
  }
  if (fn == I_SIN || fn == I_COS)
    for (int i = 0; i < N; i++) x[i] = (T)(-3.14159 + 6.28318 * i / N);
  if (fn == I_EXP)
    for (int i = 0; i < N; i++) x[i] = (T)(-80.0 + 160.0 * i / N + 0.001);
  if (fn == I_LOG || fn == I_LOG2 || fn == I_LOG10)
    for (int i = 0; i < N / 2; i++) x[i] = (T)(0.5 + 1.5 * i / (N / 2));
}

int main() {
  float *dx, *dy, *dout;
  double *ex, *ey, *eout;
  CHECK(cudaMalloc(&dx, N * 4)); CHECK(cudaMalloc(&dy, N * 4)); CHECK(cudaMalloc(&dout, N * 4));
  CHECK(cudaMalloc(&ex, N * 8)); CHECK(cudaMalloc(&ey, N * 8)); CHECK(cudaMalloc(&eout, N * 8));
  std::vector<float> x(N), y(N), out(N);
  std::vector<double> X(N), Y(N), OUT(N);
#ifdef FAST
  const bool fast = true;
#else
  const bool fast = false;
#endif
  for (int fn = 0; fn < NFN; fn++) {
    args<float>(fn, x, y);
    if (fast && !is_intrinsic(fn)) {
      // -use_fast_math turns the float library into the intrinsics: check those functions on
      // the intrinsics' domains and bounds, plus division (2 ulp) and sqrt (1 ulp).
      int as = fn == SIN ? I_SIN : fn == COS ? I_COS : fn == EXP ? I_EXP : fn == LOG ? I_LOG : fn == LOG2 ? I_LOG2
               : fn == LOG10 ? I_LOG10 : fn == DIV ? I_FDIV : fn == SQRT ? SQRT : -1;
      if (as < 0) continue;
      args<float>(as == SQRT ? I_FSQRT : as, x, y);
      CHECK(cudaMemcpy(dx, x.data(), N * 4, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dy, y.data(), N * 4, cudaMemcpyHostToDevice));
      fkernel<<<N / 128, 128>>>(fn, dx, dy, dout);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(out.data(), dout, N * 4, cudaMemcpyDeviceToHost));
      for (int i = 0; i < N; i++) {
        if (as == SQRT) {
          checked++;
          if (ulp_err<float>(out[i], sqrt((double)x[i])) > 1.5) fail(fn, x[i], y[i], out[i], sqrt((double)x[i]), "> 1 ulp");
        } else {
          check_intrinsic(as, x[i], y[i], out[i]);
        }
      }
      continue;
    }
    CHECK(cudaMemcpy(dx, x.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y.data(), N * 4, cudaMemcpyHostToDevice));
    fkernel<<<N / 128, 128>>>(fn, dx, dy, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, N * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
      if (is_intrinsic(fn)) check_intrinsic(fn, x[i], y[i], out[i]);
      else check<float>(fn, x[i], y[i], out[i], ref_double(fn, x[i], y[i]), bound(fn, false));
    }
    if (is_intrinsic(fn)) continue;
    args<double>(fn, X, Y);
    CHECK(cudaMemcpy(ex, X.data(), N * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ey, Y.data(), N * 8, cudaMemcpyHostToDevice));
    dkernel<<<N / 128, 128>>>(fn, ex, ey, eout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(OUT.data(), eout, N * 8, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
      long double ref = ref_long(fn, X[i], Y[i]);
      if (bound(fn, true) == 0) ref = ref_double(fn, X[i], Y[i]);  // exact in double on the host
      check<double>(fn, X[i], Y[i], OUT[i], ref, bound(fn, true));
    }
  }
  // flush to zero
  float probe[4] = {1e-20f, 1e-20f, 1e-40f, 1e-40f}, got[3];
  CHECK(cudaMemcpy(dx, probe, sizeof probe, cudaMemcpyHostToDevice));
  ftz<<<1, 1>>>(dx, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
  float want[3];
  if (fast) {
    want[0] = 0; want[1] = 0; want[2] = 0;
  } else {
    volatile float p0 = probe[0], p2 = probe[2];
    want[0] = p0 * p0; want[1] = p2 + p2; want[2] = sqrtf(p2);
  }
  for (int i = 0; i < 3; i++) {
    checked++;
    if (memcmp(&got[i], &want[i], 4) != 0 && bad++ < 60)
      fprintf(stderr, "ftz probe %d: got %a want %a\n", i, got[i], want[i]);
  }
  if (bad) {
    printf("FAIL isa_math%s: %d of %lld results out of bounds\n", fast ? " (fast math)" : "", bad, checked);
    return 1;
  }
  printf("PASS isa_math%s: %lld results within bounds\n", fast ? " (fast math)" : "", checked);
  return 0;
}
