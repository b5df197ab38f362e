"""A numba-cuda project's tests, as they run on a GPU or, in CI without one, on libcuda-shim
(examples/ci/github-actions-python.yml)."""

import numpy as np
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def block_sums(x, out):
    # One sum per block through shared memory and a tree reduction.
    shared = cuda.shared.array(256, dtype=np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    shared[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            shared[t] += shared[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = shared[0]


def test_saxpy():
    n = 10_000
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    out = cuda.device_array(n, dtype=np.float32)
    saxpy[(n + 255) // 256, 256](np.float32(2.0), cuda.to_device(x), cuda.to_device(y), out)
    # Integers below 2**24: exact in float32, fused or not.
    np.testing.assert_array_equal(out.copy_to_host(), 2.0 * x + y)


def test_block_sums():
    n = 100_000
    x = np.arange(n, dtype=np.int64)
    blocks = (n + 255) // 256
    out = cuda.device_array(blocks, dtype=np.int64)
    block_sums[blocks, 256](cuda.to_device(x), out)
    expected = np.add.reduceat(x, np.arange(0, n, 256))
    np.testing.assert_array_equal(out.copy_to_host(), expected)
