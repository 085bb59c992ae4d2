"""The detection benchmark: which seeds it renders, what its bias figure measures, and how it
weighs `tablesight detect`'s memory."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.detection import HARD_SEED_OFFSET, detect_memory_mb, run
from calibration.intrinsics import Intrinsics
from models.detections import Bases, Detections, Vehicles
from models.detector import Detector
from models.synth.scene import random_camera, random_scene, render_scene


class _Rendered(Exception):
    pass


class _Blind:
    """A detector that finds nothing: for what the benchmark does around it."""

    def __init__(self) -> None:
        self.timings_ms: dict[str, float] = {}

    def detect(self, image, calibration) -> Detections:
        return Detections(bases=Bases.empty(), vehicles=Vehicles.empty(), faint=Bases.empty())


@pytest.mark.parametrize("hard", [False, True])
def test_first_seed_moves_both_sets_to_other_held_out_tables(hard):
    seeds: list[int] = []

    def render(scene, camera, seed):
        seeds.append(seed)
        raise _Rendered

    with pytest.raises(_Rendered):
        run("validation", hard, 30, Detector(), truth_calibration=True, render=render, first_seed=20_000)
    assert seeds == [20_000 + (HARD_SEED_OFFSET if hard else 0)]


def test_the_bias_figure_is_a_shift_along_the_light():
    """A detector that puts every base half a millimetre towards where its shadow falls."""
    frames = []

    def render(scene, camera, seed):
        frames.append((scene, render_scene(scene, camera, seed)))
        return frames[-1][1]

    class Shifted:
        def __init__(self) -> None:
            self.timings_ms: dict[str, float] = {}

        def detect(self, image, calibration) -> Detections:
            scene, frame = frames[-1]
            light = np.asarray(scene.light_dir, dtype=np.float64)[:2]
            xy = frame.truth.base_xy_cm() + 0.05 * light / np.linalg.norm(light)
            sizes = np.array([b.diameter_mm for b in frame.truth.bases])
            bases = Bases(xy, sizes, np.ones(len(xy)), sizes)
            return Detections(bases=bases, vehicles=Vehicles.empty(), faint=Bases.empty())

    result = run("clean", False, 1, Shifted(), truth_calibration=True, render=render)
    assert result["totals"]["ours"]["found"] > 5
    assert result["bias"]["light"] == pytest.approx(0.5, abs=1e-6)
    assert abs(result["bias"]["outward"]) < 0.5


def test_the_memory_figure_is_a_detect_command_s_own_peak():
    rng = np.random.default_rng(20_000)
    scene = random_scene(rng)
    camera = random_camera(rng, scene.table_cm)
    frame = render_scene(scene, camera, 20_000)
    lens = Intrinsics(camera.K, camera.dist, camera.image_size)
    detect, loaded = detect_memory_mb(frame.image, lens)
    # The frame's work comes on top of the loaded detector.
    assert 30 < loaded < detect < 1000
    with pytest.raises(RuntimeError, match="tablesight detect"):
        detect_memory_mb(np.full_like(frame.image, 128), lens)  # no markers: the command's error


def test_the_light_option_lowers_the_light_over_the_same_tables():
    scenes = []

    def render(scene, camera, seed):
        scenes.append(scene)
        raise _Rendered

    for light in ("overhead", "low"):
        with pytest.raises(_Rendered):
            run("hard", True, 30, Detector(), truth_calibration=True, render=render, light=light)
    overhead, low = scenes
    assert low.light_dir[2] > overhead.light_dir[2]  # nearer the horizon: z points down, less steeply
    assert low.bases == overhead.bases and low.mat == overhead.mat


def test_every_table_of_a_set_is_lit_as_the_light_option_says():
    """The loop's own use of the light (the bias along it) must not stand in for the option."""
    lit = []

    def render(scene, camera, seed):
        lit.append(scene.light_dir)
        return render_scene(scene, camera, seed)

    run("clean", False, 2, _Blind(), truth_calibration=True, render=render, light="low")
    elevations = [np.degrees(np.arctan2(-z, np.hypot(x, y))) for x, y, z in lit]
    assert len(elevations) == 2 and all(12 <= e <= 35 for e in elevations)


def test_the_table_option_lays_out_calibrates_and_weighs_that_table(monkeypatch):
    """A 244x183 table: its scenes, its default marker sheets for calibrate(), and its layout
    for the memory figure's `tablesight detect`."""
    import benchmarks.detection as bench

    sizes, weighed = [], []

    def render(scene, camera, seed):
        sizes.append(scene.table_cm)
        return render_scene(scene, camera, seed)

    def weigh(image, lens, table):
        weighed.append(table)
        return 1.0, 1.0

    monkeypatch.setattr(bench, "detect_memory_mb", weigh)
    result = run("clean", False, 1, _Blind(), truth_calibration=False, render=render, table="244x183")
    assert sizes == [(244.0, 183.0)] and weighed == ["244x183"]
    assert result["failed_calibrations"] == []
