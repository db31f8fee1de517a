"""cardenvs.core.jit: kernels are compiled with numba, and are plain Python without it."""
import numpy as np
import pytest

from cardenvs.core import jit


def _count_positive(values):
    """Count entries > 0 with an explicit loop, as kernels are written."""
    total = 0
    for i in range(values.shape[0]):
        if values[i] > 0:
            total += 1
    return total


def test_kernel_compiles_with_numba():
    pytest.importorskip("numba")
    compiled = jit.kernel(_count_positive)
    assert jit.COMPILED
    assert compiled is not _count_positive
    assert compiled.py_func is _count_positive  # a numba dispatcher over the same function
    values = np.array([3, -1, 0, 7, 2], dtype=np.int8)
    assert compiled(values) == 3 == _count_positive(values)


def test_kernel_is_plain_python_without_numba(monkeypatch):
    monkeypatch.setattr(jit, "_numba", None)
    assert jit.kernel(_count_positive) is _count_positive
