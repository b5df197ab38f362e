#!/usr/bin/env python3
"""Writes bit-exact expected results of single mma dot products, computed by mmasim.

mmasim (pip package, pinned 2.1.1, with torch 2.9.1) is a published bit-accurate model of NVIDIA's
mma instructions. For each (architecture, shape and types) this script builds about 100 input
vectors (about 30 for f64), deterministically from a fixed seed, in categories that exercise the
arithmetic's corners, runs mmasim's dot product on each and prints one line per case to stdout.
Test oracle only; see install.sh. Regenerate with:

    scripts/oracles/install.sh target/oracle-venv
    target/oracle-venv/bin/python scripts/oracles/mma-vectors.py > scripts/oracles/mma-mmasim.txt
"""

import math
import os
import random
import sys
from fractions import Fraction

# mmasim's fma module builds a C++ extension with ninja when imported; find the venv's ninja.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

import importlib.metadata  # noqa: E402

import torch  # noqa: E402

import mmasim.nv_ptx.isa_mma as isa_mma  # noqa: E402
import mmasim.nv_ptx.sim as sim  # noqa: E402

MMASIM_VERSION = "2.1.1"
TORCH_VERSION = "2.9.1"

COMMON = [
    "m16n8k16.f32.f16.f16.f32",
    "m16n8k16.f16.f16.f16.f16",
    "m16n8k8.f32.f16.f16.f32",
    "m16n8k8.f16.f16.f16.f16",
    "m16n8k16.f32.bf16.bf16.f32",
    "m16n8k8.f32.bf16.bf16.f32",
    "m16n8k8.f32.tf32.tf32.f32",
    "m16n8k4.f32.tf32.tf32.f32",
    "m8n8k4.f64.f64.f64.f64",
]
HOPPER_ONLY = [
    "m16n8k16.f64.f64.f64.f64",
    "m16n8k8.f64.f64.f64.f64",
    "m16n8k4.f64.f64.f64.f64",
]
COMBOS = [("Ampere", s) for s in COMMON] + [("Hopper", s) for s in COMMON + HOPPER_ONLY]


class FT:
    """A binary floating-point format. Bits are handled as unsigned ints in the logical format;
    `pad` low bits are added in storage (tf32 is stored as an f32 whose low 13 bits are ignored)."""

    def __init__(self, name, ebits, mbits, pad, dtype, idtype):
        self.name, self.ebits, self.mbits, self.pad = name, ebits, mbits, pad
        self.dtype, self.idtype = dtype, idtype
        self.lwidth = 1 + ebits + mbits
        self.width = self.lwidth + pad
        self.hexw = self.width // 4
        self.bias = (1 << (ebits - 1)) - 1
        self.emin, self.emax = 1 - self.bias, self.bias
        self.sign = 1 << (self.lwidth - 1)
        self.expmask = ((1 << ebits) - 1) << mbits
        self.fracmask = (1 << mbits) - 1
        self.inf = self.expmask
        self.ninf = self.sign | self.inf
        self.qnan = self.expmask | (1 << (mbits - 1))
        self.maxf = self.expmask - 1
        self.minsub = 1
        self.minnorm = 1 << mbits

    def make(self, neg, e, frac):
        if e < self.emin:  # subnormal: shift the implicit bit in
            sh = self.emin - e
            assert sh <= self.mbits
            return (self.sign if neg else 0) | (((1 << self.mbits) | frac) >> sh)
        assert e <= self.emax, (self.name, e)
        return (self.sign if neg else 0) | ((e + self.bias) << self.mbits) | frac

    def isfinite(self, bits):
        return (bits & self.expmask) != self.expmask

    def val(self, bits):
        neg = bits & self.sign
        ex = (bits & self.expmask) >> self.mbits
        f = bits & self.fracmask
        if ex == (1 << self.ebits) - 1:
            return math.nan if f else (-math.inf if neg else math.inf)
        if ex == 0:
            v = Fraction(f) * Fraction(2) ** (self.emin - self.mbits)
        else:
            v = Fraction((1 << self.mbits) | f) * Fraction(2) ** (ex - self.bias - self.mbits)
        return -v if neg else v

    def encode(self, x):
        """Round x (float or Fraction) to nearest even in this format."""
        if isinstance(x, float):
            if math.isnan(x):
                return self.qnan
            neg = math.copysign(1.0, x) < 0
            if math.isinf(x):
                return self.ninf if neg else self.inf
            x = Fraction(x)
        else:
            neg = x < 0
        m = abs(x)
        s = self.sign if neg else 0
        if m == 0:
            return s
        e = m.numerator.bit_length() - m.denominator.bit_length()
        if Fraction(2) ** e > m:
            e -= 1
        e = max(e, self.emin)
        q = m / Fraction(2) ** (e - self.mbits)
        qi = math.floor(q)
        r = q - qi
        if r > Fraction(1, 2) or (r == Fraction(1, 2) and qi & 1):
            qi += 1
        if qi == 1 << (self.mbits + 1):
            qi >>= 1
            e += 1
        if e > self.emax:
            return s | self.inf
        if qi < (1 << self.mbits):
            return s | qi
        return s | ((e + self.bias) << self.mbits) | (qi & self.fracmask)


F16 = FT("f16", 5, 10, 0, torch.float16, torch.int16)
BF16 = FT("bf16", 8, 7, 0, torch.bfloat16, torch.int16)
TF32 = FT("tf32", 8, 10, 13, torch.float32, torch.int32)
F32 = FT("f32", 8, 23, 0, torch.float32, torch.int32)
F64 = FT("f64", 11, 52, 0, torch.float64, torch.int64)
TYPES = {"f16": F16, "bf16": BF16, "tf32": TF32, "f32": F32, "f64": F64}


def to_tensor(t, storage_bits):
    signed = [b - (1 << t.width) if b >> (t.width - 1) else b for b in storage_bits]
    return torch.tensor(signed, dtype=t.idtype).view(t.dtype)


def from_tensor(t, x):
    return x.view(t.idtype).item() & ((1 << t.width) - 1)


class Gen:
    """Builds the cases of one shape_and_type. Cases hold logical bits; `raw` ones hold storage bits."""

    def __init__(self, shape_and_type):
        shape, d, a, b, c = shape_and_type.split(".")
        assert a == b
        self.k = int(shape.split("k")[1])
        self.ta, self.tc, self.td = TYPES[a], TYPES[c], TYPES[d]
        self.fma = self.ta is F64
        self.out16 = self.td is F16
        self.rng = random.Random("mma-vectors:" + shape_and_type)
        self.cases = []
        ta = self.ta
        # comfortable product-exponent and c-exponent ranges
        if ta is F16:
            self.pe = (-24, 10) if self.out16 else (-28, 30)
            self.ce = (-14, 12) if self.out16 else (-40, 34)
        elif self.fma:
            self.pe, self.ce = (-1000, 1000), (-1000, 1000)
        else:
            self.pe, self.ce = (-120, 120), (-125, 125)
        self.F = 53 if self.fma else 24

    # --- element helpers -------------------------------------------------------------------
    def rbits(self, t, e_lo, e_hi, neg=None):
        r = self.rng
        e = r.randint(max(e_lo, t.emin), min(e_hi, t.emax))
        if neg is None:
            neg = r.random() < 0.5
        return t.make(neg, e, r.getrandbits(t.mbits))

    def gauss(self, t, scale=1.0):
        return t.encode(self.rng.gauss(0.0, 1.0) * scale)

    def rsub(self, t, neg=None):
        if neg is None:
            neg = self.rng.random() < 0.5
        return (t.sign if neg else 0) | self.rng.randint(1, t.fracmask)

    def pair(self, pe, neg=None):
        """Random a, b whose product has exponent pe or pe+1 (both normal)."""
        ta, r = self.ta, self.rng
        lo, hi = max(ta.emin, pe - ta.emax), min(ta.emax, pe - ta.emin)
        assert lo <= hi, pe
        ea = r.randint(lo, hi)
        if neg is None:
            neg = r.random() < 0.5
        return (ta.make(neg, ea, r.getrandbits(ta.mbits)),
                ta.make(False, pe - ea, r.getrandbits(ta.mbits)))

    def exact_pair(self, v):
        """a, b exactly representable with a*b == v; AssertionError when there is none."""
        ta = self.ta
        v = Fraction(v)
        if v == 0:
            return ta.encode(0.0), self.gauss(ta)
        n, den = abs(v.numerator), v.denominator
        assert den & (den - 1) == 0, v
        e = -(den.bit_length() - 1)
        while n % 2 == 0:
            n //= 2
            e += 1
        lim = 1 << (ta.mbits + 1)
        for d in range(1, min(n, lim) + 1, 2):  # v = d*2^x * q*2^(e-x), d and q odd
            q = n // d
            if n % d or q >= lim:
                continue
            lo = max(ta.emin - ta.mbits, e - (ta.emax - (q.bit_length() - 1)))
            hi = min(ta.emax - (d.bit_length() - 1), e - (ta.emin - ta.mbits))
            if lo > hi:
                continue
            x0 = (e + q.bit_length() - d.bit_length()) // 2
            x = min(max(x0, lo), hi)
            a = Fraction(d) * Fraction(2) ** x * (-1 if v < 0 else 1)
            b = Fraction(q) * Fraction(2) ** (e - x)
            ab, bb = ta.encode(a), ta.encode(b)
            assert ta.val(ab) * ta.val(bb) == v, (v, a, b)
            return ab, bb
        raise AssertionError(f"{v} is no product of two {ta.name}")

    def dot(self, a, b, c):
        s = Fraction(0)
        for x, y in zip(a, b):
            s += self.ta.val(x) * self.ta.val(y)
        return s + self.tc.val(c)

    # --- case builders ---------------------------------------------------------------------
    def add(self, a, b, c, raw=False, shuffle=True):
        assert len(a) == len(b) == self.k
        if shuffle:
            idx = list(range(self.k))
            self.rng.shuffle(idx)
            a, b = [a[i] for i in idx], [b[i] for i in idx]
        self.cases.append((list(a), list(b), c, raw))

    def fill(self, a, b, filler="zero"):
        """Pad term lists to k: 'zero' pads with a=+0 and random b, 'rand' with small products."""
        a, b = list(a), list(b)
        while len(a) < self.k:
            if filler == "zero":
                a.append(self.ta.encode(0.0))
                b.append(self.gauss(self.ta))
            else:
                x, y = self.pair(filler)
                a.append(x)
                b.append(y)
        return a[: self.k], b[: self.k]

    def from_products(self, prods, c, filler="zero", shuffle=True):
        a, b = [], []
        for v in prods:
            x, y = self.exact_pair(v)
            a.append(x)
            b.append(y)
        a, b = self.fill(a, b, filler)
        self.add(a, b, c, shuffle=shuffle)

    # --- categories ------------------------------------------------------------------------
    def cat_normal(self, n):
        r, ta, tc = self.rng, self.ta, self.tc
        for i in range(n):
            sa = 2.0 ** r.randint(-3, 3)
            a = [self.gauss(ta, sa) for _ in range(self.k)]
            b = [self.gauss(ta) for _ in range(self.k)]
            c = tc.encode(0.0) if i % 5 == 4 else self.gauss(tc, 2.0 ** r.randint(-3, 3))
            self.add(a, b, c, shuffle=False)

    def cat_ints(self, n):
        r, ta, tc = self.rng, self.ta, self.tc
        for _ in range(n):
            a = [ta.encode(float(r.randint(-8, 8))) for _ in range(self.k)]
            b = [ta.encode(float(r.randint(-8, 8))) for _ in range(self.k)]
            self.add(a, b, tc.encode(float(r.randint(-100, 100))), shuffle=False)

    def cat_spread(self, n):
        r, ta, tc = self.rng, self.ta, self.tc
        F = self.F
        for i in range(n):
            if i % 2 == 0:  # independent wide exponents
                a, b = [], []
                for _ in range(self.k):
                    x, y = self.pair(r.randint(*self.pe))
                    a.append(x)
                    b.append(y)
                c = self.rbits(tc, *self.ce)
            else:  # one dominant term, the rest near the alignment boundary F below it
                lo, hi = self.pe
                big = r.randint(lo + F + 6, hi) if hi - lo > F + 6 else hi
                terms = [big] + [big - r.randint(F - 6, F + 3) for _ in range(self.k)]
                terms = [max(t, lo) for t in terms]
                a, b = [], []
                for t in terms[: self.k]:
                    x, y = self.pair(t)
                    a.append(x)
                    b.append(y)
                ce = max(min(terms[-1], tc.emax), tc.emin)
                if i % 4 == 3:  # c dominant instead
                    ce = max(min(big + r.randint(1, 3), self.ce[1]), tc.emin)
                c = self.rbits(tc, ce, ce)
            self.add(a, b, c)

    def cat_cancel(self, n):
        r, ta, tc = self.rng, self.ta, self.tc
        k = self.k
        for i in range(n):
            kind = i % 4
            if kind == 0:  # exact cancelling pairs plus one small term
                a, b = [], []
                for _ in range(k // 2):
                    x, y = self.pair(r.randint(*self.pe))
                    a += [x, x ^ ta.sign]
                    b += [y, y]
                if k % 2 or r.random() < 0.5:
                    a, b = a[: k - 1], b[: k - 1]
                    x, y = self.pair(self.pe[0] + 4)
                    a.append(x)
                    b.append(y)
                self.add(a, b, tc.encode(0.0) if r.random() < 0.5 else self.rbits(tc, self.ce[0], self.ce[0] + 4))
            elif kind == 1:  # nearly cancelling pairs: one ulp apart
                a, b = [], []
                for _ in range(k // 2):
                    x, y = self.pair(r.randint(self.pe[0] // 2, self.pe[1] // 2))
                    x2 = x + (1 if (x & ta.fracmask) != ta.fracmask else -1)
                    a += [x, x2 ^ ta.sign]
                    b += [y, y]
                a, b = self.fill(a, b)
                self.add(a, b, tc.encode(0.0))
            elif kind == 2:  # c cancels the (exact) sum of random products
                sc = 2.0 ** r.randint(-2, 6)
                a = [self.gauss(ta, sc) for _ in range(k)]
                b = [self.gauss(ta) for _ in range(k)]
                s = self.dot(a, b, tc.encode(0.0))
                self.add(a, b, tc.encode(-s), shuffle=False)
            else:  # two huge terms cancel; small terms below the alignment window are dropped
                pe_big = self.pe[1] - 2
                x, y = self.pair(pe_big)
                a, b = [x, x ^ ta.sign], [y, y]
                pe_small = pe_big - r.randint(self.F - 2, self.F + 12)
                for _ in range(k - 2):
                    x, y = self.pair(max(pe_small, self.pe[0]))
                    a.append(x)
                    b.append(y)
                c = self.rbits(tc, max(pe_small, tc.emin), max(pe_small, tc.emin))
                if self.fma:  # FMA chain: huge terms first and last, small ones in between
                    a = [a[0]] + a[2:] + [a[1]]
                    b = [b[0]] + b[2:] + [b[1]]
                    self.add(a, b, c, shuffle=False)
                else:
                    self.add(a, b, c)

    def cat_subnormal(self, n):
        r, ta, tc, td = self.rng, self.ta, self.tc, self.td
        k = self.k
        for i in range(n):
            kind = i % 5
            if kind == 0:  # subnormal a times moderate b
                a = [self.rsub(ta) for _ in range(k)]
                b = [self.rbits(ta, 0, 8) for _ in range(k)]
                c = tc.encode(0.0) if i % 2 else self.rsub(tc)
            elif kind == 1:  # mixed: some subnormal products among normal ones
                a = [self.rsub(ta) if r.random() < 0.5 else self.gauss(ta) for _ in range(k)]
                b = [self.rsub(ta) if r.random() < 0.3 else self.gauss(ta) for _ in range(k)]
                c = self.gauss(tc)
            elif kind == 2:  # subnormal c, zero or tiny products
                a = [ta.encode(0.0) if r.random() < 0.5 else self.rsub(ta) for _ in range(k)]
                b = [self.rsub(ta) for _ in range(k)]
                c = self.rsub(tc)
            elif kind == 3:  # subnormal c alone
                a = [ta.encode(0.0) for _ in range(k)]
                b = [self.gauss(ta) for _ in range(k)]
                c = self.rsub(tc)
            else:  # products (and so the result) in the subnormal range of d where reachable
                lo = max(td.emin - td.mbits, 2 * ta.emin)
                a, b = [], []
                for _ in range(k):
                    x, y = self.pair(r.randint(lo, max(td.emin - 1, lo)))
                    a.append(x)
                    b.append(y)
                c = tc.encode(0.0)
            self.add(a, b, c)

    def cat_zero(self, n):
        r, ta, tc = self.rng, self.ta, self.tc
        k = self.k
        pz, nz = ta.encode(0.0), ta.encode(-0.0)
        cz, cnz = tc.encode(0.0), tc.encode(-0.0)
        for i in range(n):
            kind = i % 8
            if kind == 0:  # +0 times random, c = +0
                self.add([pz] * k, [self.gauss(ta) for _ in range(k)], cz)
            elif kind == 1:  # all products -0, c = -0
                self.add([nz] * k, [ta.encode(abs(r.gauss(0, 1)) + 0.5) for _ in range(k)], cnz)
            elif kind == 2:  # random a times zeros of random sign, c = -0
                self.add([self.gauss(ta) for _ in range(k)],
                         [pz if r.random() < 0.5 else nz for _ in range(k)], cnz)
            elif kind == 3:  # x*y + (-x)*y pairs, c = +0 or -0
                a, b = [], []
                for _ in range(k // 2):
                    x, y = self.gauss(ta), self.gauss(ta)
                    a += [x, x ^ ta.sign]
                    b += [y, y]
                a, b = self.fill(a, b)
                self.add(a, b, cz if i % 2 else cnz)
            elif kind == 4:  # zero products, nonzero c
                self.add([pz if r.random() < 0.5 else nz for _ in range(k)],
                         [self.gauss(ta) for _ in range(k)], self.gauss(tc, 8.0))
            elif kind == 5:  # integer products, c = -(sum): exact zero
                a = [ta.encode(float(r.randint(-8, 8))) for _ in range(k)]
                b = [ta.encode(float(r.randint(-8, 8))) for _ in range(k)]
                s = self.dot(a, b, cz)
                self.add(a, b, tc.encode(-s))
            elif kind == 6:  # negative products summing to -(c), c > 0
                a = [ta.encode(float(-r.randint(1, 4))) for _ in range(k)]
                b = [ta.encode(float(r.randint(1, 4))) for _ in range(k)]
                self.add(a, b, tc.encode(-self.dot(a, b, cz)))
            else:  # -0 products and -0 c with one exact cancelling pair
                x, y = self.gauss(ta), self.gauss(ta)
                a, b = [x, x ^ ta.sign], [y, y]
                while len(a) < k:
                    a.append(nz)
                    b.append(self.gauss(ta))
                self.add(a, b, cnz)
        if ta.pad:  # tf32: f32 patterns whose nonzero bits all lie in the ignored low 13 bits
            for neg in (False, True):
                s = ta.sign << ta.pad if neg else 0
                a = [s | r.randint(1, (1 << ta.pad) - 1) for _ in range(k)]
                b = [(self.gauss(ta) << ta.pad) | r.getrandbits(ta.pad) for _ in range(k)]
                self.add(a, b, cnz if neg else cz, raw=True)

    def cat_inf(self, n):
        r, ta, tc = self.rng, self.ta, self.tc
        k = self.k
        for i in range(n):
            kind = i % 9
            a = [self.gauss(ta) for _ in range(k)]
            b = [self.gauss(ta) for _ in range(k)]
            b = [y if ta.val(y) != 0 else ta.encode(1.0) for y in b]
            c = self.gauss(tc)
            if kind == 0:  # one infinite factor
                a[0] = ta.inf if r.random() < 0.5 else ta.ninf
            elif kind == 1:  # several infinite products of the same sign
                for j in range(min(3, k)):
                    a[j] = ta.inf if ta.val(b[j]) > 0 else ta.ninf
            elif kind == 2:  # infinities of opposite sign: NaN
                a[0], b[0] = ta.inf, ta.encode(1.5)
                a[1], b[1] = ta.inf, ta.encode(-2.0)
            elif kind == 3:  # inf times zero: NaN
                a[0], b[0] = ta.inf if i % 2 else ta.ninf, ta.encode(0.0 if i % 4 < 2 else -0.0)
            elif kind == 4:  # c infinite, finite products
                c = tc.inf if i % 2 else tc.ninf
            elif kind == 5:  # c = +inf, product -inf: NaN
                a[0], b[0], c = ta.ninf, ta.encode(3.0), tc.inf
            elif kind == 6:  # c = -inf, product -inf
                a[0], b[0], c = ta.encode(-0.5), ta.inf, tc.ninf
            elif kind == 7:  # both factors infinite
                a[0], b[0] = ta.ninf, ta.ninf
            else:  # infinite factor times a subnormal
                a[0], b[0] = ta.inf, self.rsub(ta)
            self.add(a, b, c)
        if ta.pad:  # f32 NaN patterns whose payload lies only in the ignored bits: tf32 inf
            a = [(self.gauss(ta) << ta.pad) | r.getrandbits(ta.pad) for _ in range(k)]
            b = [(self.gauss(ta) << ta.pad) | r.getrandbits(ta.pad) for _ in range(k)]
            a[0] = (ta.inf << ta.pad) | r.randint(1, (1 << ta.pad) - 1)
            b[0] = ta.encode(1.0) << ta.pad
            self.add(a, b, self.gauss(tc), raw=True)

    def nan(self, t, quiet=True, neg=False):
        q = 1 << (t.mbits - 1)
        payload = self.rng.randint(1, q - 1) if self.rng.random() < 0.7 else 0
        if not quiet and payload == 0:
            payload = 1
        return (t.sign if neg else 0) | t.expmask | (q if quiet else 0) | payload

    def cat_nan(self, n):
        r, ta, tc = self.rng, self.ta, self.tc
        k = self.k
        for i in range(n):
            kind = i % 7
            a = [self.gauss(ta) for _ in range(k)]
            b = [self.gauss(ta) for _ in range(k)]
            c = self.gauss(tc)
            if kind == 0:  # quiet NaN in a
                a[r.randrange(k)] = self.nan(ta, True, r.random() < 0.5)
            elif kind == 1:  # signalling NaN in b
                b[r.randrange(k)] = self.nan(ta, False, r.random() < 0.5)
            elif kind == 2:  # quiet NaN in c
                c = self.nan(tc, True, r.random() < 0.5)
            elif kind == 3:  # signalling NaN in c
                c = self.nan(tc, False, False)
            elif kind == 4:  # NaNs in a, b and c with different payloads
                a[0], b[1], c = self.nan(ta), self.nan(ta, False), self.nan(tc, True, True)
            elif kind == 5:  # NaN times zero
                a[0], b[0] = self.nan(ta), ta.encode(0.0)
            else:  # NaN and infinity
                a[0], b[1] = self.nan(ta, True, True), ta.inf
            self.add(a, b, c, shuffle=False)

    def cat_overflow(self, n):
        r, ta, tc, td = self.rng, self.ta, self.tc, self.td
        k = self.k
        emax = td.emax
        for i in range(n):
            kind = i % 6
            if self.ta is F16 and not self.out16:
                # f16 products cannot reach f32 overflow: c near +-FLT_MAX plus products
                if kind in (0, 1, 2):
                    a = [self.rbits(ta, 10, 15, neg=False) for _ in range(k)]
                    b = [self.rbits(ta, 10, 15, neg=(kind == 1)) for _ in range(k)]
                    c = tc.maxf if kind != 2 else tc.maxf ^ tc.sign
                else:
                    a = [self.gauss(ta) for _ in range(k)]
                    b = [self.gauss(ta) for _ in range(k)]
                    c = tc.make(kind == 4, tc.emax, tc.fracmask - r.randint(0, 3))
                self.add(a, b, c)
                continue
            if kind == 0:  # one product beyond the output range
                x, y = self.pair(emax + r.randint(1, 4), neg=r.random() < 0.5)
                a, b = self.fill([x], [y], self.pe[0] + 10)
                self.add(a, b, self.gauss(tc))
            elif kind == 1:  # every product in range, their sum is not
                a, b = [], []
                for _ in range(k):
                    x, y = self.pair(emax - 1, neg=(i % 2 == 1))
                    a.append(x)
                    b.append(y)
                self.add(a, b, tc.encode(0.0))
            elif kind == 2:  # c = +-max plus a product of the same sign at its last bit
                neg = r.random() < 0.5
                c = td.maxf | (td.sign if neg else 0)
                v = Fraction(2) ** (emax - td.mbits)
                self.from_products([-v if neg else v], c)
            elif kind == 3:  # overflowing products that cancel, plus a modest c
                x, y = self.pair(emax + 2)
                a, b = [x, x ^ ta.sign], [y, y]
                a, b = self.fill(a, b)
                self.add(a, b, self.rbits(tc, max(emax - 30, tc.emin), min(emax - 4, tc.emax)))
            elif kind == 4:  # an overflowing product brought back into range by another
                big = Fraction(2) ** (emax + 1)
                self.from_products([big, -big / 2 - big / 8], tc.encode(0.0))
            else:  # sum lands just above the largest finite value
                top = Fraction(2) ** emax * (2 - Fraction(2) ** -td.mbits)
                half_ulp = Fraction(2) ** (emax - td.mbits - 1)
                extra = half_ulp * r.choice([1, 2, 3])
                if tc is td and tc.val(tc.maxf) == top:
                    self.from_products([extra], tc.maxf)
                else:
                    self.from_products([top / 2, top / 2, extra], tc.encode(0.0))

    def cat_round(self, n):
        """Ties and sticky tails: where truncation to F bits at the alignment differs from an
        exactly rounded result."""
        r, tc = self.rng, self.tc
        one = Fraction(1)
        p2 = lambda e: Fraction(2) ** e  # noqa: E731
        if self.out16:
            tails = [
                [p2(-11)],                       # exact tie: to even (1.0)
                [p2(-11), p2(-20)],              # above tie with a visible sticky bit
                [p2(-11), p2(-26)],              # sticky bit below the window
                [p2(-11), p2(-25)],              # at the F=24/25 boundary
                [3 * p2(-11)],                   # tie to even, upwards
                [-p2(-12), -p2(-30)],            # below 1: tie in the binade below
                [p2(-11), -p2(-28)],             # just below the tie, tail below the window
                [p2(-10) + p2(-11), p2(-24)],
            ]
        else:
            tails = [
                [-p2(-25)],                      # dropped with F=24, kept with F=25
                [-p2(-26)],
                [-p2(-24)],                      # exact: 1 - 2^-24
                [p2(-24), p2(-25)],
                [-p2(-30), -p2(-31), -p2(-29)],
                [p2(-23), -p2(-26)],
                [-p2(-25), -p2(-25)],            # two dropped halves make one ulp
                [p2(-12), -p2(-25) - p2(-26)],
            ]
        for i in range(n):
            tail = tails[i % len(tails)]
            neg = (i // len(tails)) % 2 == 1
            scale = p2(r.randint(-3, 3))
            sgn = -1 if neg else 1
            if i % 3 == 2 and tc.val(tc.encode(sgn * scale)) == sgn * scale:
                self.from_products([sgn * scale * t for t in tail], tc.encode(sgn * scale))
            else:
                self.from_products([sgn * scale * one] + [sgn * scale * t for t in tail],
                                   tc.encode(0.0))

    def cat_near_max16(self, n):
        r, ta, tc = self.rng, self.ta, self.tc
        mx = Fraction(65504)
        opts = [
            (mx, [Fraction(8)]), (mx, [Fraction(15)]), (mx, [Fraction(16)]),
            (mx, [Fraction(16), -Fraction(1, 1024)]), (mx, [Fraction(31)]),
            (mx, [-Fraction(16)]), (mx, [Fraction(-1)]), (Fraction(0), [mx]),
            (Fraction(0), [Fraction(32752), Fraction(32752)]),
            (Fraction(0), [Fraction(32760), Fraction(32760)]),
            (Fraction(-65504), [Fraction(-20)]), (Fraction(65472), [Fraction(32), Fraction(-1, 2)]),
            (Fraction(65000), [Fraction(504), Fraction(16)]), (Fraction(0), [Fraction(65520)]),
        ]
        for i in range(n):
            cv, prods = opts[i % len(opts)]
            if i >= len(opts):
                cv, prods = -cv, [-p for p in prods]
            self.from_products(prods, tc.encode(cv))
        # 255.875 * 256 = 65504 exactly, with small extra terms
        for extra in (0, 8, 16):
            a = [ta.encode(255.875), ta.encode(float(extra))]
            b = [ta.encode(256.0), ta.encode(1.0)]
            a, b = self.fill(a, b)
            self.add(a, b, tc.encode(0.0))

    def cat_underflow(self, n):
        r, ta, tc, td = self.rng, self.ta, self.tc, self.td
        k = self.k
        lo = td.emin - td.mbits  # exponent of the smallest subnormal of d
        for i in range(n):
            kind = i % 6
            neg = i % 2 == 1
            if ta is F16 and not self.out16:
                # f16 products are far above f32's subnormals: tiny products against a tiny c
                a = [self.rsub(ta) for _ in range(k)]
                b = [self.rsub(ta) for _ in range(k)]
                c = self.rsub(tc, neg)
                if kind % 2:
                    a = [ta.encode(0.0)] * k
                self.add(a, b, c)
                continue
            if kind == 0:  # below half the smallest subnormal: 0
                v = [Fraction(2) ** (lo - 2) * (-1 if neg else 1)]
            elif kind == 1:  # exactly half the smallest subnormal
                v = [Fraction(2) ** (lo - 1) * (-1 if neg else 1)]
            elif kind == 2:  # three quarters of it
                v = [Fraction(3) * Fraction(2) ** (lo - 2) * (-1 if neg else 1)]
            elif kind == 3:  # many tiny terms that only add up to something representable
                v = [Fraction(2) ** (lo - 3) * (-1 if neg else 1)] * k
            elif kind == 4:  # far below: dropped against the zero exponent
                v = [Fraction(2) ** (lo - 12) * (-1 if neg else 1)] * k
            else:  # tiny difference of two normal products: (1+u)^2*S - (1+2u)*S = u^2*S
                ma = ta.mbits
                x = ta.make(neg, 0, 1)  # 1 + u, u = 2^-ma
                es = td.emin - 3 + 2 * ma  # u^2*S = 2^(emin-3): subnormal in d
                ea = es // 2
                a = [ta.make(neg, ea, 1), ta.make(not neg, es - ea, 2)]
                b = [ta.make(False, es - ea, 1), ta.make(False, ea, 0)]
                a, b = self.fill(a, b)
                self.add(a, b, tc.encode(0.0))
                continue
            if not all(self.representable_product(x) for x in v):
                v = [Fraction(2) ** (2 * ta.emin - ta.mbits) * (-1 if neg else 1)]
            self.from_products(v, tc.encode(0.0))

    def representable_product(self, v):
        try:
            self.exact_pair(v)
            return True
        except AssertionError:
            return False

    def build(self):
        if self.fma:
            plan = [("normal", 4), ("ints", 2), ("spread", 4), ("cancel", 4), ("subnormal", 3),
                    ("zero", 4), ("inf", 4), ("nan", 3), ("overflow", 3), ("underflow", 3)]
        else:
            plan = [("normal", 10 if self.out16 else 14), ("ints", 4),
                    ("spread", 12 if self.out16 else 16), ("cancel", 10),
                    ("subnormal", 10), ("zero", 8), ("inf", 9), ("nan", 8), ("overflow", 6),
                    ("round", 16 if self.out16 else 8)]
            if self.out16:
                plan.append(("near_max16", 18))
            plan.append(("underflow", 6))
        for name, n in plan:
            getattr(self, "cat_" + name)(n)
        return self.cases


def run_case(m, ta, tc, td, case):
    a, b, c, raw = case
    if not raw and ta.pad:  # tf32: random low bits in finite nonzero elements
        a = [(x << ta.pad) | (RNG_PAD.getrandbits(ta.pad) if ta.isfinite(x) and x & ~ta.sign else 0)
             for x in a]
        b = [(x << ta.pad) | (RNG_PAD.getrandbits(ta.pad) if ta.isfinite(x) and x & ~ta.sign else 0)
             for x in b]
    d = m.dpa(to_tensor(ta, a)[None, :], to_tensor(ta, b)[None, :], to_tensor(tc, [c]))
    assert d.dtype == td.dtype and d.shape == (1,), (d.dtype, d.shape)
    return a, b, c, from_tensor(td, d)


def main():
    global RNG_PAD
    torch.set_num_threads(1)
    assert importlib.metadata.version("mmasim") == MMASIM_VERSION
    assert torch.__version__.split("+")[0] == TORCH_VERSION
    out = sys.stdout
    out.write(
        "# Expected results of single mma dot products (d = a.b + c), bit-exact, from mmasim\n"
        f"# {MMASIM_VERSION} (bit-accurate model of NVIDIA mma) with torch {TORCH_VERSION}, generated by\n"
        "#   target/oracle-venv/bin/python scripts/oracles/mma-vectors.py > scripts/oracles/mma-mmasim.txt\n"
        "# (environment: scripts/oracles/install.sh). Do not edit by hand; fixed seeds, regenerating\n"
        "# gives the same bytes.\n"
        "#\n"
        "# One line per case:  ARCH SHAPE_AND_TYPE A B C D\n"
        "#   ARCH: Ampere or Hopper. SHAPE_AND_TYPE: shape.dtype.atype.btype.ctype as in PTX mma.sync,\n"
        "#   e.g. m16n8k16.f32.f16.f16.f32.\n"
        "#   A, B: the K elements of one row of A and one column of B, as hex bit patterns without\n"
        "#   0x, joined by ','; f16/bf16 4 digits, f32 and tf32 8 digits (tf32 as the full f32\n"
        "#   register: its low 13 bits are random and must be ignored), f64 16 digits.\n"
        "#   C: the accumulator element's bits in the C type; D: the expected result's bits in the\n"
        "#   D type: D = sum_k A[k]*B[k] + C as one element of mma's D.\n"
        "# The same inputs are used for Ampere and Hopper where both have the shape. Cases per\n"
        "# combination, in this order: random normal values, small integers, widely spread exponents\n"
        "# (and one dominant term with the rest near the alignment boundary), cancellation,\n"
        "# subnormals, zeros, infinities, NaNs, overflow, rounding ties and sticky tails (not f64),\n"
        "# values near 65504 (f16 results), underflow.\n"
        "# Notes on the model: f16/bf16/tf32 results are computed by mmasim's fused dot-product model\n"
        "# (truncation at alignment, RZ to f32 or RNE to f16, per-architecture widths and chunking); a\n"
        "# NaN result is always 7fffffff / 7fff and a zero result always +0. f64 shapes are a chain of\n"
        "# IEEE fma (k = 0, 1, ...) computed by the host CPU's fma: -0 results are kept, and NaN\n"
        "# bits are the x86 host's (invalid operation fff8000000000000; a NaN operand's payload\n"
        "# propagates quieted), not a claim about the GPU's NaN bits.\n"
    )
    counts = []
    for arch, st in COMBOS:
        assert st in isa_mma.mma_shape_and_type[arch], (arch, st)
        m = sim.MMA(arch, st)
        g = Gen(st)
        cases = g.build()
        RNG_PAD = random.Random("mma-vectors-tf32-pad:" + st)
        ta, tc, td = g.ta, g.tc, g.td
        for case in cases:
            a, b, c, d = run_case(m, ta, tc, td, case)
            out.write(
                f"{arch.replace(' ', '')} {st} "
                + ",".join(f"{x:0{ta.hexw}x}" for x in a) + " "
                + ",".join(f"{x:0{ta.hexw}x}" for x in b) + " "
                + f"{c:0{tc.hexw}x} {d:0{td.hexw}x}\n"
            )
        counts.append((arch, st, len(cases)))
    for arch, st, n in counts:
        print(f"{arch} {st}: {n}", file=sys.stderr)


RNG_PAD = None

if __name__ == "__main__":
    main()
