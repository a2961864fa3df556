"""vision/stats.py: each statistic gives numpy's number to the last bit."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kkvision.vision.stats import grey_percentile, grey_percentiles, median, percentile


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=90),
       st.sampled_from([0.0, 0.5, 1.0, 25.0, 50.0, 75.0, 99.5, 100.0]), st.booleans())
def test_percentile_is_numpys_to_the_last_bit(values, q, single):
    v = np.asarray(values, np.float32 if single else np.float64)
    assert percentile(v, q) == float(np.percentile(v, q))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=90),
       st.sampled_from([np.float64, np.float32, np.uint8, np.int64]))
def test_median_is_numpys_to_the_last_bit(values, dtype):
    v = np.asarray(values).astype(dtype) if dtype in (np.float64, np.float32) else np.abs(np.asarray(values) % 256).astype(dtype)
    assert median(v) == float(np.median(v))
    assert median(v.reshape(1, -1)) == float(np.median(v.reshape(1, -1)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=1, max_size=400), st.integers(1, 3),
       st.sampled_from([0.0, 0.5, 1.0, 25.0, 50.0, 75.0, 90.0, 99.5, 100.0]))
def test_grey_percentiles_from_histograms_are_numpys_to_the_last_bit(values, rows, q):
    grey = np.asarray(values * rows, np.uint8).reshape(rows, -1)
    assert grey_percentile(grey, q) == float(np.percentile(grey, q))
    expect = np.percentile(grey.astype(np.float32), q, axis=1)  # labels.normalise_all's numbers, per crop
    got = grey_percentiles(grey, q)
    assert got.dtype == expect.dtype and np.array_equal(got, expect)
