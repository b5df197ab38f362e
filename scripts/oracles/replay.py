"""The input generator that tests/cuda/mma_kinds.cu and tests/cuda/tcgen05_kinds.cu share,
replayed in Python by the oracle scripts beside this file (mma-kinds.py, tcgen05-kinds.py),
which import it. The programs draw every input from one linear congruential sequence in a fixed
order; these functions draw the same values in the same order."""

import re

import numpy as np
import torch


class Rng:
    """The programs' generator: s = s * 1664525 + 1013904223 (mod 2^32), yielding s >> 8."""

    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s * 1664525 + 1013904223) & 0xFFFFFFFF
        return self.s >> 8


def element(rng, ty, style):
    """A multiplicand byte of type `ty` for trial style `style` (0: any byte; 1: e4m3/e5m2
    exponents within two binades of the middle; 2: e4m3/e5m2 finite only); fp6 and fp4
    containers are any byte."""
    v = rng.next() & 0xFF
    e5 = ty == "e5m2"
    if ty != "e4m3" and not e5:
        return v
    if style == 1:
        sign = v & 0x80
        mant = rng.next() & (3 if e5 else 7)
        mid = 15 if e5 else 7
        return sign | ((mid - 1 + rng.next() % 3) << (2 if e5 else 3)) | mant
    if style == 2:
        while ((v & 0x7C) == 0x7C) if e5 else ((v & 0x7F) == 0x7F):
            v = rng.next() & 0xFF
    return v


def scale_byte(rng, ue4m3):
    """A scale factor byte: ue8m0 mostly within 2^-15..2^16, sometimes NaN or any byte; ue4m3
    mostly near 1, sometimes any byte."""
    if ue4m3:
        return rng.next() & 0xFF if rng.next() % 8 == 0 else 0x28 + rng.next() % 0x20
    r = rng.next() % 64
    return 0xFF if r == 0 else (rng.next() & 0xFF if r == 1 else 112 + rng.next() % 32)


def f32(x):
    return np.float32(x)


def accumulator(rng, trial):
    """An element of C: 0 in trial 0, else a random f32 (as the programs compute it)."""
    if trial == 0:
        return f32(0.0)
    m = rng.next() % 20001 - 10000
    return f32(f32(m) / f32(100.0)) * f32(1 << (rng.next() % 8))


def configs(program):
    """The program's `names` table, in order."""
    text = open(program).read()
    table = text[text.index("static const char* names[] = {") :]
    table = table[: table.index("};")]
    return re.findall(r'"([^"]+)"', table)


def as_type(mat, ty):
    """A byte matrix as mmasim takes elements of PTX type `ty` (fp6/fp4 stay bytes)."""
    t = torch.from_numpy(mat.astype(np.uint8))
    if ty == "e4m3":
        return t.view(torch.float8_e4m3fn)
    if ty == "e5m2":
        return t.view(torch.float8_e5m2)
    return t
