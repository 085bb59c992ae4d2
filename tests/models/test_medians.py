import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from models.medians import row_median

# Few distinct values, so ties and repeated middle elements are common.
values = st.sampled_from([0.0, 0.5, 1.0, 2.25, 7.0, 1e6, -3.0])
shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9)


@settings(deadline=None)  # a stalled CPU must not fail a correct median
@given(hnp.arrays(np.float32, shapes, elements=values))
def test_row_median_is_numpys_median_bit_for_bit(a):
    assert np.array_equal(row_median(a), np.median(a, axis=-1))


def test_row_median_of_edge_samples_matches_numpy():
    rng = np.random.default_rng(1)
    samples = rng.gamma(2.0, 3.0, (400, 24 * 40)).astype(np.float32)
    assert np.array_equal(row_median(samples), np.median(samples, axis=-1))
    grey = rng.random(140_001).astype(np.float32)
    assert row_median(grey) == np.median(grey)


@settings(deadline=None)
@given(hnp.arrays(np.float32, shapes, elements=values), st.integers(0, 2))
def test_row_median_along_any_axis_is_numpys(a, axis):
    axis = axis % a.ndim
    assert np.array_equal(row_median(a, axis=axis), np.median(a, axis=axis))


def test_row_median_of_nothing_is_numpys_nan():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        nothing = np.zeros((0, 3))
        assert np.array_equal(row_median(nothing, axis=0), np.median(nothing, axis=0), equal_nan=True)
