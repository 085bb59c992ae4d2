"""The synthetic generator's ground truth agrees with what it draws, parallax included."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from models.synth.scene import (
    LIGHTS,
    PLACEMENTS,
    BaseSpec,
    HandSpec,
    random_camera,
    random_scene,
    render_scene,
)
from models.synth.truth_calibration import CameraCalibration
from tests.models.conftest import rig_camera, squad_scene


def _mean_colour(image: np.ndarray, camera, points_cm: np.ndarray) -> np.ndarray:
    px = np.round(camera.project(points_cm)).astype(int)
    return image[px[:, 1], px[:, 0]].astype(float).mean(0)


def test_truth_lands_on_the_drawn_base(squad_frame):
    scene, camera, frame = squad_frame
    for base, truth in zip(scene.bases, frame.truth.bases, strict=True):
        assert (truth.x_cm, truth.y_cm, truth.diameter_mm) == (base.x_cm, base.y_cm, base.diameter_mm)
        r = base.diameter_mm / 20
        a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        ring = np.column_stack([np.cos(a), np.sin(a)])
        # Just inside the top rim the top colour shows; well outside the bottom rim, the mat.
        inside = _mean_colour(
            frame.image,
            camera,
            np.column_stack(
                [
                    base.x_cm + 0.8 * r * ring[:, 0],
                    base.y_cm + 0.8 * r * ring[:, 1],
                    np.full(24, base.thickness_mm / 10),
                ]
            ),
        )
        outside = _mean_colour(
            frame.image,
            camera,
            np.column_stack([base.x_cm + (r + 0.4) * ring[:, 0], base.y_cm + (r + 0.4) * ring[:, 1]]),
        )
        mat = np.asarray(scene.mat.color)
        assert np.linalg.norm(outside - mat) < np.linalg.norm(inside - mat)


def test_top_rim_leans_away_from_the_nadir():
    """A tall base far from the nadir: its rectified blob is pushed outward by r*h/(H-h)."""
    scene = squad_scene()
    tall = BaseSpec(160.0, 61.0, 65.0, 40.0, (20, 20, 20), (20, 20, 20))
    scene = dataclasses.replace(scene, bases=[tall], vehicles=[])
    camera = rig_camera(0.0)
    frame = render_scene(scene, camera, seed=1)
    ppm = 1.0
    rect = CameraCalibration(camera, scene.table_cm).rectify(frame.image, ppm)
    dark = rect.max(axis=2) < 45
    _ys, xs = np.nonzero(dark[400:820, 1300:1830])
    far_edge_cm = (xs.max() + 1300 + 0.5) / 10
    H = camera.centre_cm[2]
    nadir_x = camera.centre_cm[0]
    expected = nadir_x + (160.0 + 3.25 - nadir_x) * H / (H - 4.0)
    assert abs(far_edge_cm - expected) < 0.15
    assert far_edge_cm > 160.0 + 3.25 + 0.2  # visibly beyond the bottom rim


def test_rendering_is_a_pure_function_of_scene_camera_and_seed():
    rng = np.random.default_rng(11)
    scene = random_scene(rng, hard=True)
    camera = random_camera(rng, scene.table_cm, sensor="cm3-binned")
    a = render_scene(scene, camera, seed=5)
    b = render_scene(scene, camera, seed=5)
    assert np.array_equal(a.image, b.image)
    assert a.truth == b.truth


def test_a_hand_over_a_base_hides_its_rim(squad_frame):
    scene, camera, frame = squad_frame
    base = scene.bases[0]
    hand = HandSpec(base.x_cm, base.y_cm, height_cm=6.0, size_cm=10.0, shoulder_cm=(base.x_cm, -40.0, 45.0))
    covered = render_scene(dataclasses.replace(scene, hands=[hand]), camera, seed=3)
    assert frame.truth.bases[0].rim_visible > 0.9
    assert covered.truth.bases[0].rim_visible < 0.3
    assert covered.truth.bases[-1].rim_visible > 0.9


def test_random_tables_vary():
    rng = np.random.default_rng(5)
    scenes = [random_scene(rng, hard=i % 2 == 1) for i in range(8)]
    assert len({s.mat.style for s in scenes}) >= 4
    assert any(b.diameter_mm == 65 for s in scenes for b in s.bases)
    assert any(d.kind in ("token", "coin") for s in scenes for d in s.distractors)
    assert all(len(s.bases) > 0 for s in scenes)
    cameras = [random_camera(rng, (183.0, 122.0)) for _ in range(12)]
    heights = [c.centre_cm[2] for c in cameras]
    assert min(heights) >= 140 and max(heights) <= 225
    assert len({c.image_size for c in cameras}) >= 2


@pytest.mark.parametrize("name", list(PLACEMENTS))
def test_cameras_stand_and_bend_as_their_placement_says(name):
    placement = PLACEMENTS[name]
    rng = np.random.default_rng(11)
    cameras = [random_camera(rng, (183.0, 122.0), placement=placement) for _ in range(16)]
    heights = np.array([c.centre_cm[2] for c in cameras])
    tilts = np.degrees(np.arccos([c.R[2, 2] for c in cameras]))  # the optical axis off the vertical
    k1 = np.array([c.dist[0] for c in cameras])
    bent = k1 != 0
    assert np.all((heights >= placement.height_cm[0] - 1e-6) & (heights <= placement.height_cm[1] + 1e-6))
    assert np.all((tilts >= placement.tilt_deg[0] - 1e-6) & (tilts <= placement.tilt_deg[1] + 1e-6))
    assert np.all((k1[bent] >= placement.k1[0]) & (k1[bent] <= placement.k1[1]))
    assert bent.all() if placement.distorted_share == 1 else 0 < bent.sum() < len(cameras)


@pytest.mark.parametrize("light", list(LIGHTS))
def test_a_light_stands_as_high_as_its_range_says_over_the_same_table(light):
    """The benchmark's `--light low` measures the tables of its seeds with only the light moved."""
    for seed in range(12):
        overhead = random_scene(np.random.default_rng(seed), hard=seed % 2 == 1)
        lit = random_scene(np.random.default_rng(seed), hard=seed % 2 == 1, light=light)
        x, y, z = lit.light_dir
        elevation = np.degrees(np.arctan2(-z, np.hypot(x, y)))
        low, high = LIGHTS[light]
        assert low - 1e-9 <= elevation <= high + 1e-9
        assert np.arctan2(y, x) == pytest.approx(np.arctan2(*overhead.light_dir[1::-1]))
        assert pickle.dumps(dataclasses.replace(lit, light_dir=overhead.light_dir)) == pickle.dumps(overhead)
