"""core.buffers: large output arrays are recycled once dropped, never while
held, and each writer gets back only its own record of what it wrote."""

from __future__ import annotations

import numpy as np
import pytest

from cardenvs.core import buffers

SHAPE = (1024, 4096)  # 4 MB of bool: pooled
UNKNOWN = 4096


def test_a_new_array_has_an_unknown_record_and_a_dropped_one_comes_back_with_its_record():
    out, written = buffers.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert written.shape == (SHAPE[0],) and (written == UNKNOWN).all()
    out[:] = False
    written[:] = 0
    written[5] = 17
    address = out.__array_interface__["data"][0]
    del out
    again, record = buffers.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert again.__array_interface__["data"][0] == address
    assert record[5] == 17 and record[0] == 0


def test_another_writer_gets_an_unknown_record():
    out, written = buffers.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    written[:] = 3
    address = out.__array_interface__["data"][0]
    del out
    other, record = buffers.recycled_rows(SHAPE, np.bool_, "test.b", UNKNOWN)
    assert other.__array_interface__["data"][0] == address
    assert (record == UNKNOWN).all()
    del other
    # and the first writer's old record is void too: test.b wrote there since
    _, record = buffers.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert (record == UNKNOWN).all()


def test_a_held_array_or_a_view_of_it_is_never_handed_out_again():
    out, _ = buffers.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    handed = buffers.read_only(out)
    del out
    second, _ = buffers.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert not np.shares_memory(second, handed)
    part = handed[10:20]
    del handed
    third, _ = buffers.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    assert not np.shares_memory(third, part) and not np.shares_memory(third, second)


def test_pooled_arrays_are_handed_out_read_only_small_ones_as_they_are():
    out, _ = buffers.recycled_rows(SHAPE, np.bool_, "test.a", UNKNOWN)
    handed = buffers.read_only(out)
    with pytest.raises(ValueError, match="read-only"):
        handed[0, 0] = True
    small, written = buffers.recycled_rows((4, 8), np.int16, "test.a", 8)
    assert (written == 8).all()
    assert buffers.read_only(small) is small and small.flags.writeable
