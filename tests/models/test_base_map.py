"""The base map: where the shipped net says bases are, how it ranks candidates, how it is trained."""

from __future__ import annotations

import json

import numpy as np
import pytest

from models.base_map import SHIPPED_BASE_MAP, STRIDE, BaseMap, cell_coordinates
from models.base_map_training import BaseMapRecipe, targets
from models.candidates import MAPPED_SHARE, VOTE_PX_PER_MM, find_candidates, vote_image
from models.detector import rectified
from models.synth.scene import random_camera, random_scene, render_scene
from models.synth.truth_calibration import CameraCalibration


@pytest.fixture(scope="module")
def squad_table(squad_frame):
    scene, camera, rendered = squad_frame
    rect, ppm = rectified(rendered.image, CameraCalibration(camera, scene.table_cm, scene.markers))
    return rect, ppm, rendered.truth


def _vote_px(xy_cm: np.ndarray, ppm: float) -> np.ndarray:
    return xy_cm * 10 * min(ppm, VOTE_PX_PER_MM) - 0.5


def test_the_shipped_map_glows_at_the_bases_and_not_on_the_bare_mat(squad_table):
    rect, ppm, truth = squad_table
    small, _ = vote_image(rect, ppm)
    base_map = BaseMap(SHIPPED_BASE_MAP)
    bases = np.array([[b.x_cm, b.y_cm] for b in truth.bases])
    diameters = np.array([b.diameter_mm for b in truth.bases])
    at_bases = base_map.likelihood(small, _vote_px(bases, ppm), diameters)
    # Each in the other's channel: a 65 mm base's centre is no 32 mm base's, nor the reverse.
    crossed = base_map.likelihood(small, _vote_px(bases, ppm), 97.0 - diameters)
    # Bare felt: a grid over the table, away from every base and the tank (at 140, 35).
    grid = np.stack(np.meshgrid(np.arange(10.0, 180.0, 9.0), np.arange(10.0, 120.0, 9.0)), -1).reshape(-1, 2)
    clear = (np.linalg.norm(grid[:, None] - bases[None], axis=-1).min(1) > 8) & (
        np.linalg.norm(grid - [140.0, 35.0], axis=1) > 20
    )
    for diameter in (32.0, 65.0):
        mat = base_map.likelihood(small, _vote_px(grid[clear], ppm), np.full(clear.sum(), diameter))
        assert np.percentile(mat, 95) < 0.05
    assert np.median(at_bases) > 0.3 and at_bases.min() > 0.05
    assert np.all(crossed < at_bases)


def test_each_point_reads_its_own_class_channel_at_its_own_cell():
    class Fixed:
        """A session whose map is known: channel 0 rises with x, channel 1 is 0.9 everywhere."""

        def run(self, outputs, feeds):
            _, _, h, w = feeds["table"].shape
            logits = np.zeros((1, 2, h // STRIDE, w // STRIDE), np.float32)
            logits[0, 0] = np.arange(w // STRIDE)[None, :] - 5.0
            logits[0, 1] = np.log(9.0)
            return [logits]

    base_map = BaseMap.__new__(BaseMap)
    base_map.session, base_map.input = Fixed(), "table"
    image = np.zeros((160, 240, 3), np.uint8)
    points = np.array([[5 * STRIDE + 3.5, 40.0], [8 * STRIDE + 3.5, 40.0], [5 * STRIDE + 3.5, 40.0]])
    p = base_map.likelihood(image, points, np.array([32.0, 32.0, 65.0]))
    np.testing.assert_allclose(p, [0.5, 1 / (1 + np.exp(-3.0)), 0.9], rtol=1e-5)
    np.testing.assert_allclose(cell_coordinates(points[:1]), [[5.0, 40.5 / STRIDE - 0.5]])


def test_ranked_with_the_map_more_bases_reach_the_rim_fit():
    """A hard painted table (seed 603: none of the benchmark's, validation's or training's) where
    the mat's texture outvotes a third of the rims."""
    rng = np.random.default_rng(603)
    scene = random_scene(rng, hard=True)
    camera = random_camera(rng, scene.table_cm, sensor="cm3-binned")
    rendered = render_scene(scene, camera, 603)
    rect, ppm = rectified(rendered.image, CameraCalibration(camera, scene.table_cm, scene.markers))
    visible = [b for b in rendered.truth.bases if b.rim_visible >= 0.5]

    def places(candidates, ranked: int) -> np.ndarray:
        """Each visible base's best-ranked candidate of its class within 5 mm among the first
        `ranked` (its place in the list), or infinity where none reaches it."""
        xy = (candidates.centres_px[:ranked] + 0.5) / (10 * ppm)
        found = []
        for b in visible:
            close = np.linalg.norm(xy - [b.x_cm, b.y_cm], axis=1) < 0.5
            near = close & (candidates.diameter_mm[:ranked] == b.diameter_mm)
            found.append(np.argmax(near) if near.any() else np.inf)
        return np.array(found)

    mapped_candidates = find_candidates(rect, ppm, base_map=BaseMap(SHIPPED_BASE_MAP))
    voted_candidates = find_candidates(rect, ppm)
    ranked = round(MAPPED_SHARE * len(voted_candidates.votes))
    assert ranked == 200
    # The vote peaks the map ranked come first; after them, the map's own peaks that none stands near.
    mapped, voted = places(mapped_candidates, ranked), places(voted_candidates, len(voted_candidates.votes))
    assert np.isfinite(mapped).sum() > np.isfinite(voted).sum()  # with half the candidates
    assert np.median(mapped) < np.median(voted)


def test_targets_peak_at_visible_bases_and_leave_hidden_ones_alone():
    recipe = BaseMapRecipe()
    bases = np.array([[43.5, 83.5, 32.0, 1.0], [123.5, 43.5, 65.0, 0.9], [203.5, 163.5, 32.0, 0.1]])
    target, ignore = targets(bases, (256, 256), recipe)
    assert target.shape == ignore.shape == (2, 32, 32)
    assert target[0, 10, 5] == pytest.approx(1.0) and target[1, 5, 15] == pytest.approx(1.0)
    assert target[1, 10, 5] == 0 and target[0, 5, 15] < 0.01  # each class in its own channel
    assert target[0, 20, 25] == 0 and ignore[0, 20, 25] == 1  # too hidden: neither base nor mat
    assert ignore[0, 10, 5] == 0 and ignore[0, 2, 2] == 0
    between, _ = targets(np.array([[43.5 + 0.45 * STRIDE, 83.5, 32.0, 1.0]]), (256, 256), recipe)
    assert between[0, 10, 5] == 1.0 and between[0, 10, 6] < 1.0  # its nearest cell is its peak


@pytest.mark.slow
def test_train_a_tiny_base_map_that_the_runtime_loads(tmp_path, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    out = tmp_path / "map.onnx"
    args = ["train", "--base-map", "--scenes", "1", "--physical-scenes", "0", "--steps", "2", "-o", str(out)]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == str(out) and report["tables"] == 1
    image = np.zeros((200, 300, 3), np.uint8)
    p = BaseMap(out).likelihood(image, np.array([[100.0, 50.0]]), np.array([65.0]))
    assert p.shape == (1,) and 0 < p[0] < 1


def test_the_verifiers_options_are_refused_with_the_base_map(capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    assert main(["train", "--base-map", "--epochs", "3"]) == 2
    assert "--epochs" in capsys.readouterr().err
    assert main(["train", "--steps", "3"]) == 2
    assert "--steps" in capsys.readouterr().err


def test_the_candidates_keep_the_map_to_answer_at_any_rectified_point(squad_table):
    rect, ppm, truth = squad_table
    base_map = BaseMap(SHIPPED_BASE_MAP)
    cands = find_candidates(rect, ppm, base_map=base_map)
    bases = np.array([[b.x_cm, b.y_cm] for b in truth.bases])
    diameters = np.array([b.diameter_mm for b in truth.bases])
    small, _ = vote_image(rect, ppm)
    # A rectified pixel and the vote image's pixel over the same table point read one likelihood.
    at_rect = cands.likelihood(bases * 10 * ppm - 0.5, diameters)
    assert np.allclose(at_rect, base_map.likelihood(small, _vote_px(bases, ppm), diameters), atol=1e-6)
    assert find_candidates(rect, ppm).likelihood(bases * 10 * ppm - 0.5, diameters) is None
