"""A folder's --fps so small that its images' times overflow: `--fps 1e-310` put every image
after the first at an infinite time, and `replay --report` wrote `Infinity` into the report,
which is no JSON (the web UI's report page cannot parse it)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from hardware.sources import open_source
from rules_core.errors import TablesightError


@pytest.mark.parametrize("fps", [1e-310, 1e-300, 1e-6])
def test_a_rate_slower_than_one_image_a_day_is_refused(image_folder: Path, fps: float) -> None:
    slower = "fps must be a number above 0, no slower than one image a day "
    with pytest.raises(TablesightError, match=slower):
        open_source(str(image_folder), fps=fps)


def test_one_image_a_day_gives_finite_times_that_json_can_carry(image_folder: Path) -> None:
    source = open_source(str(image_folder), fps=1 / 86400)
    times = []
    while (frame := source.read()) is not None:
        times.append(frame.timestamp_s)
    assert times == [0.0, 86400.0, 172800.0] and all(map(math.isfinite, times))
    json.dumps(times, allow_nan=False)
