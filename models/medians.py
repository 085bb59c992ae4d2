"""np.median along the last axis, bit for bit, at a fraction of its time.

np.median partitions around both middle elements at once, which is several times slower
than one partition: ~2,000 edge samples per candidate took 12 ms of a 400-candidate rim-fit
round, and the median gradient of a vote-resolution frame 2.3 ms. One partition and the
largest element of the lower half give the same two middle elements.
"""

from __future__ import annotations

import numpy as np


def row_median(values: np.ndarray) -> np.ndarray:
    """The median of each row (the last axis); a scalar array for 1-D input. No NaN handling."""
    m = values.shape[-1] // 2
    part = np.partition(values, m, axis=-1)
    upper = part[..., m]
    if values.shape[-1] % 2:
        return upper
    return (part[..., :m].max(axis=-1) + upper) / 2
