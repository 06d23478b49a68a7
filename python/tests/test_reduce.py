# SPDX-License-Identifier: Apache-2.0
"""The reductions from Python (src/ops/reduce): the segment reductions against TensorFlow's documented
examples and their bad inputs."""
import math

import numpy as np
import pytest

import spt
from sparse_util import DATA


def test_segment_sum_mean_sqrt_n_exact():
    got = spt.segment_sum(DATA, [8, 3, 0, 9], [0, 2, 2, 2])
    assert got.dtype == np.float32 and got.tolist() == [[33, 34, 35, 36], [0, 0, 0, 0], [51, 54, 57, 60]]
    got = spt.segment_mean(DATA, indices=np.array([8, 3, 0, 9], np.int32), segment_ids=[0, 2, 2, 2], num_segments=4)
    assert got.tolist() == [[33, 34, 35, 36], [0] * 4, [17, 18, 19, 20], [0] * 4]
    got = spt.segment_sqrt_n(DATA.astype(np.float64), [8, 3, 0, 9], [0, 2, 2, 2])
    assert np.allclose(got[2], np.array([51, 54, 57, 60]) / math.sqrt(3), rtol=1e-15, atol=0)
    # integers wrap in their dtype; a repeated index counts each time
    assert spt.segment_sum(np.array([[2 ** 31 - 1]], np.int32), [0, 0], [0, 0]).tolist() == [[-2]]


@pytest.mark.parametrize("kw,err,text", [
    (dict(indices=[8, 3, 0, 10], segment_ids=[0, 1, 2, 2]), spt.OutOfRangeError, "indices[3] == 10"),
    (dict(indices=[0, 1], segment_ids=[1, 0]), spt.InvalidArgumentError, "not increasing"),
    (dict(indices=[0, 1], segment_ids=[0, -1]), spt.SptError, ""),
    (dict(indices=[0, 1], segment_ids=[0, 5], num_segments=5), spt.OutOfRangeError, "num_segments"),
    (dict(indices=[0, 1], segment_ids=[0]), spt.InvalidArgumentError, "same size"),
    (dict(indices=[0.0, 1.0], segment_ids=[0, 0]), spt.DtypeError, ""),
    (dict(indices=[0, 1], segment_ids=[0, 0], num_segments=-1), spt.InvalidArgumentError, "num_segments"),
    (dict(indices=[0, 1], segment_ids=[0, 0], num_segments=2 ** 63), spt.OverflowError, "num_segments"),
    (dict(indices=[0, 1], segment_ids=[0, 0], num_segments=1.0), spt.DtypeError, "num_segments"),
    (dict(indices=[0, 1], segment_ids=[0, 0], num_segments=True), spt.DtypeError, "num_segments"),
])
def test_segment_bad_inputs(kw, err, text):
    with pytest.raises(err) as ei:
        spt.segment_sum(DATA, **kw)
    assert text in str(ei.value)


def test_segment_mean_refuses_integers():
    with pytest.raises(spt.DtypeError):
        spt.segment_mean(np.ones((2, 2), np.int32), [0, 1], [0, 0])
