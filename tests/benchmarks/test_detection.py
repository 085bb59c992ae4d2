"""The detection benchmark's tables: which seeds it renders."""

from __future__ import annotations

import pytest

from benchmarks.detection import HARD_SEED_OFFSET, run
from models.detector import Detector


class _Rendered(Exception):
    pass


@pytest.mark.parametrize("hard", [False, True])
def test_first_seed_moves_both_sets_to_other_held_out_tables(hard):
    seeds: list[int] = []

    def render(scene, camera, seed):
        seeds.append(seed)
        raise _Rendered

    with pytest.raises(_Rendered):
        run("validation", hard, 30, Detector(), truth_calibration=True, render=render, first_seed=20_000)
    assert seeds == [20_000 + (HARD_SEED_OFFSET if hard else 0)]
