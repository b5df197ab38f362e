"""pytest plugin: `pytest -p cuda_shim.pytest_plugin ...` runs the tests with libcuda-shim as the
CUDA driver of the test process (and of each pytest-xdist worker, which loads the same plugins),
without LD_PRELOAD. The header names the library used.
"""

import pytest

import cuda_shim


def _load():
    try:
        cuda_shim.load()
    except cuda_shim.ShimError as e:
        # A usage error: pytest prints the message alone and stops, running no test off the shim.
        raise pytest.UsageError(f"cuda_shim: {e}") from None


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # The earliest hook a `-p` plugin gets: before any conftest.py is imported, so before a
    # conftest can make the first CUDA call.
    _load()


def pytest_configure(config):
    # For a plugin registered too late for the hook above (`pytest_plugins` in a conftest);
    # load() does nothing the second time.
    _load()


def pytest_report_header(config):
    return f"cuda-shim: libcuda.so.1 is {cuda_shim.loaded()}"
