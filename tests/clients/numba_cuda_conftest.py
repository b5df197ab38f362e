"""pytest plugin for numba-cuda's own tests run from the installed wheel (`-p numba_cuda_conftest`).

The wheel's CUDATestCase uses the fixture `initialize_from_pytest_config` and the option
`--dump-failed-filechecks`, which numba-cuda defines in its repository-root conftest.py; that file
is not in the wheel, so without this plugin every CUDATestCase test errors at setup.
"""
import pytest


def pytest_addoption(parser):
    parser.addoption("--dump-failed-filechecks", action="store_true",
                     help="Dump reproducers for FileCheck tests that fail.")


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")
