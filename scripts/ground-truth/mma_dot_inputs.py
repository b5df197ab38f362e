#!/usr/bin/env python3
"""Writes the inputs of mma dot-product cases that no model answers for Hopper, for tests/cuda/mma_dots.cu
to run on a GPU: the f8 kinds (e4m3/e5m2, k16 and k32, f32 and f16 accumulators) and the
quad-pair m8n8k4 f16 shape. Lines are "Hopper SHAPE_AND_TYPE A B C -" in the format of
scripts/oracles/mma-mmasim.txt, whose own Hopper lines tests/cuda/mma_dots.cu also runs. Deterministic:

    /path/to/oracle-venv/bin/python scripts/ground-truth/mma_dot_inputs.py > mma-dot-inputs.txt
    python3 scripts/ground-truth/mma_dot_inputs.py --design   # plain Python: the design cases

The m8n8k4 cases come from scripts/oracles/mma-vectors.py's generator (its categories for f16);
the f8 ones from the categories below (plain Python, bits only).
"""

import importlib.util
import os
import random
import struct
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))


class F8:
    def __init__(self, name, ebits, mbits):
        self.name, self.ebits, self.mbits = name, ebits, mbits
        self.bias = (1 << (ebits - 1)) - 1

    def is_nan(self, x):
        x &= 0x7F
        if self.name == "e4m3":
            return x == 0x7F
        return (x >> 2) == 0x1F and (x & 3) != 0

    def is_inf(self, x):
        return self.name == "e5m2" and (x & 0x7F) == 0x7C

    def val(self, x):
        neg = x & 0x80
        e = (x >> self.mbits) & ((1 << self.ebits) - 1)
        f = x & ((1 << self.mbits) - 1)
        if e == 0:
            v = Fraction(f) * Fraction(2) ** (1 - self.bias - self.mbits)
        else:
            v = Fraction((1 << self.mbits) | f) * Fraction(2) ** (e - self.bias - self.mbits)
        return -v if neg else v

    def finite(self):
        return [x for x in range(256) if not self.is_nan(x) and not self.is_inf(x)]

    def with_exp(self, lo, hi):
        """Finite nonzero normal bit patterns with unbiased exponent in [lo, hi]."""
        out = []
        for x in self.finite():
            e = (x >> self.mbits) & ((1 << self.ebits) - 1)
            if e and lo <= e - self.bias <= hi:
                out.append(x)
        return out

    def subnormals(self):
        return [x for x in range(256) if (x >> self.mbits) & ((1 << self.ebits) - 1) == 0 and x & 0x7F]


E4M3, E5M2 = F8("e4m3", 4, 3), F8("e5m2", 5, 2)


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", float(v)))[0]


def f16_bits(v):
    return struct.unpack("<H", struct.pack("<e", float(v)))[0]


def f8_cases(st):
    shape, d, a, b, c = st.split(".")
    k = int(shape.split("k")[1])
    ta, tb = {"e4m3": E4M3, "e5m2": E5M2}[a], {"e4m3": E4M3, "e5m2": E5M2}[b]
    c16 = c == "f16"
    r = random.Random("mma-dot-inputs:" + st)
    enc = f16_bits if c16 else f32_bits

    def rc(lo, hi):  # a random C value with exponent in [lo, hi]
        m = r.uniform(1, 2) * (1 if r.random() < 0.5 else -1)
        return enc(m * 2.0 ** r.randint(lo, hi))

    cases = []
    fa, fb = ta.finite(), tb.finite()
    for i in range(40):  # uniformly random finite bytes
        cases.append(([r.choice(fa) for _ in range(k)], [r.choice(fb) for _ in range(k)],
                      enc(0.0) if i % 5 == 4 else rc(-10, 10)))
    for _ in range(8):  # small integers: exact
        ia = [x for x in fa if ta.val(x).denominator == 1 and abs(ta.val(x)) <= 8]
        ib = [x for x in fb if tb.val(x).denominator == 1 and abs(tb.val(x)) <= 8]
        cases.append(([r.choice(ia) for _ in range(k)], [r.choice(ib) for _ in range(k)],
                      enc(r.randint(-100, 100))))
    for i in range(16):  # one dominant product, the rest 2^-20..2^-30 below it
        big_a, big_b = r.choice(ta.with_exp(4, 7)), r.choice(tb.with_exp(4, 7))
        pe = int(ta.val(big_a).numerator.bit_length() - ta.val(big_a).denominator.bit_length())
        sa, sb = [big_a], [big_b]
        while len(sa) < k:
            drop = r.randint(18, 28)
            x = r.choice(ta.with_exp(-6, 1) or fa)
            ex = (x >> ta.mbits) - ta.bias
            want = pe + 4 - drop - ex
            cand = tb.with_exp(want, want) or tb.subnormals()
            sa.append(x)
            sb.append(r.choice(cand))
        idx = list(range(k))
        r.shuffle(idx)
        sa, sb = [sa[j] for j in idx], [sb[j] for j in idx]
        cases.append((sa, sb, enc(0.0) if i % 2 else rc(-22, -14)))
    for i in range(16):  # cancellation: x*y - x*y pairs plus a small rest, or c cancels
        sa, sb = [], []
        for _ in range(k // 2):
            x, y = r.choice(fa), r.choice(fb)
            sa += [x, x ^ 0x80]
            sb += [y, y]
        if i % 2:
            sa[-1] = r.choice(ta.subnormals())
        idx = list(range(k))
        r.shuffle(idx)
        sa, sb = [sa[j] for j in idx], [sb[j] for j in idx]
        cases.append((sa, sb, enc(0.0) if i % 4 < 2 else enc(-0.0)))
    for _ in range(8):  # c = -(exact sum of integer products): an exact zero
        ia = [x for x in fa if ta.val(x).denominator == 1 and abs(ta.val(x)) <= 4]
        ib = [x for x in fb if tb.val(x).denominator == 1 and abs(tb.val(x)) <= 4]
        sa, sb = [r.choice(ia) for _ in range(k)], [r.choice(ib) for _ in range(k)]
        s = sum(ta.val(x) * tb.val(y) for x, y in zip(sa, sb))
        cases.append((sa, sb, enc(-s)))
    for i in range(10):  # subnormal factors
        cases.append(([r.choice(ta.subnormals()) for _ in range(k)],
                      [r.choice(fb) for _ in range(k)], enc(0.0) if i % 2 else rc(-24, -16)))
    for i in range(8):  # zeros of either sign, c +-0
        cases.append(([r.choice([0, 0x80]) for _ in range(k)], [r.choice(fb) for _ in range(k)],
                      enc(-0.0) if i % 2 else enc(0.0)))
    for i in range(14):  # NaN and infinity operands, NaN and infinite c
        sa, sb = [r.choice(fa) for _ in range(k)], [r.choice(fb) for _ in range(k)]
        cc = rc(-4, 4)
        kind = i % 7
        nan_a = [x for x in range(256) if ta.is_nan(x)]
        nan_b = [x for x in range(256) if tb.is_nan(x)]
        if kind == 0:
            sa[r.randrange(k)] = r.choice(nan_a)
        elif kind == 1:
            sb[r.randrange(k)] = r.choice(nan_b)
        elif kind == 2:
            cc = 0x7E00 | r.randint(1, 0x1FF) if c16 else 0x7FC00000 | r.randint(1, 0x3FFFFF)
        elif kind == 3:
            cc = 0xFC00 if c16 else 0xFF800000
        elif kind == 4 and ta.name == "e5m2":
            sa[0] = 0x7C
        elif kind == 5 and ta.name == "e5m2":
            sa[0], sa[1], sb[0], sb[1] = 0x7C, 0xFC, 0x3C, 0x3C  # inf - inf
        else:
            sa[0], sb[0] = r.choice(nan_a), 0
        cases.append((sa, sb, cc))
    big_a, big_b = ta.with_exp(6, 15), tb.with_exp(6, 15)
    for i in range(10):  # large sums: f16 overflow, f32 far from it
        cases.append(([r.choice(big_a) & 0x7F for _ in range(k)],
                      [r.choice(big_b) & 0x7F for _ in range(k)],
                      enc(65504.0 if c16 else 3.0e38) if i % 2 else enc(0.0)))
    for i in range(8):  # c dominant over tiny products (alignment to c's exponent)
        cases.append(([r.choice(ta.with_exp(-6, -2)) for _ in range(k)],
                      [r.choice(tb.with_exp(-6, -2)) for _ in range(k)], rc(8, 12)))
    return [(st, a_, b_, c_, 2, 4 if c16 else 8) for a_, b_, c_ in cases]


def design():
    """Dominant-term designs that pin down the f8 and m8n8k4 arithmetic: one large product and
    one small one at every exponent gap and position (either sign), and several small terms
    below the truncation point together, with C = 0."""
    def e4(e, m=0):  # e4m3 with exponent e (normal, -6..8), mantissa m (0..7)
        assert -6 <= e <= 8
        return ((e + 7) << 3) | m
    def e5(e, m=0):
        assert -14 <= e <= 15
        return ((e + 15) << 2) | m
    def f16(e, m=0):
        return ((e + 15) << 10) | m
    out = []
    def add(shape, a, b, c, w, cw):
        out.append(f"Hopper {shape} " + ",".join(f"{x:0{w}x}" for x in a) + " " + ",".join(f"{x:0{w}x}" for x in b) + f" {c:0{cw}x} -")
    for shape, k, cw in (("m16n8k16.f32.e4m3.e4m3.f32", 16, 8), ("m16n8k32.f32.e4m3.e4m3.f32", 32, 8),
                         ("m16n8k16.f16.e4m3.e4m3.f16", 16, 4), ("m16n8k32.f16.e4m3.e4m3.f16", 32, 4)):
        big = 8 if "f32" in shape.split(".")[1] else 3   # product 2^16 (f32) or 2^6 (f16 output)
        for pos in sorted(set([1, 7, 8, 15, k - 1, 16 % k])):
            for g in range(8, 31):
                for sign in (0, 0x80):
                    for m in (0, 7):
                        pe = 2 * big - g  # small product exponent
                        ea = max(-6, min(8, pe // 2)); eb = pe - ea
                        if not (-6 <= eb <= 8): continue
                        a = [0] * k; b = [0] * k
                        a[0], b[0] = e4(big), e4(big)
                        a[pos], b[pos] = e4(ea, m) | sign, e4(eb, 7)
                        add(shape, a, b, 0, 2, cw)
        # several small terms below the grid: do they add up before truncation?
        for g in range(18, 30):
            for n in (2, 3, 7):
                pe = 2 * big - g
                ea = max(-6, min(8, pe // 2)); eb = pe - ea
                if not (-6 <= eb <= 8): continue
                a = [0] * k; b = [0] * k
                a[0], b[0] = e4(big), e4(big)
                for j in range(1, n + 1):
                    a[j], b[j] = e4(ea, 7), e4(eb, 7)
                add(shape, a, b, 0, 2, cw)
                a[0] |= 0x80  # negative dominant term: truncation toward zero or down
                add(shape, a, b, 0, 2, cw)
    # m8n8k4 f16: the same with k=4
    for shape, cw in (("m8n8k4.f32.f16.f16.f32", 8), ("m8n8k4.f16.f16.f16.f16", 4)):
        big = 8 if "f32" in shape else 3
        for pos in (1, 2, 3):
            for g in range(8, 34):
                for sign in (0, 0x8000):
                    pe = 2 * big - g
                    ea = max(-14, min(15, pe // 2)); eb = pe - ea
                    a = [0] * 4; b = [0] * 4
                    a[0], b[0] = f16(big), f16(big)
                    a[pos], b[pos] = f16(ea, 1023) | sign, f16(eb, 1023)
                    add(shape, a, b, 0, 4, cw)
    return out


def main():
    if sys.argv[1:] == ["--design"]:
        print("\n".join(design()))
        return
    out = sys.stdout
    out.write("# Inputs for tests/cuda/mma_dots.cu (no expected values: the GPU gives them).\n")
    out.write("# Generated by scripts/ground-truth/mma_dot_inputs.py; deterministic.\n")
    for k in (32, 16):
        for d in ("f32", "f16"):
            for a in ("e4m3", "e5m2"):
                for b in ("e4m3", "e5m2"):
                    st = f"m16n8k{k}.{d}.{a}.{b}.{d}"
                    for st_, sa, sb, c, hw, cw in f8_cases(st):
                        out.write(f"Hopper {st_} " + ",".join(f"{x:02x}" for x in sa) + " "
                                  + ",".join(f"{x:02x}" for x in sb) + f" {c:0{cw}x} -\n")
    # m8n8k4 f16: the f16 categories of the mmasim vector generator.
    spec = importlib.util.spec_from_file_location(
        "mma_vectors", os.path.join(HERE, "..", "oracles", "mma-vectors.py"))
    mv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mv)
    for st, like in (("m8n8k4.f32.f16.f16.f32", None), ("m8n8k4.f32.f16.f16.f16", "f16c"),
                     ("m8n8k4.f16.f16.f16.f16", None)):
        gen_st = st if like is None else "m8n8k4.f32.f16.f16.f32"
        g = mv.Gen(gen_st)
        for a, b, c, _raw in g.build():
            if like == "f16c":  # the f32 generator's c, rounded to f16
                c = f16_bits(struct.unpack("<f", struct.pack("<I", c))[0]) if abs(
                    struct.unpack("<f", struct.pack("<I", c))[0]) < 65504 else (c >> 16) & 0x8000 | 0x7C00
            cw = 4 if st.endswith("f16") else 8
            out.write(f"Hopper {st} " + ",".join(f"{x:04x}" for x in a) + " "
                      + ",".join(f"{x:04x}" for x in b) + f" {c:0{cw}x} -\n")


if __name__ == "__main__":
    main()
