"""Without a lens file, the table's edges choose between the markers' one-term and two-term lens.

Four corner markers sit at about one distance from the picture's centre, so with corners 0.3 px
off a lens with k2 and one without straighten them alike; the edges run through every distance
and tell them apart. The corners and the edges are handed to `calibrate` as the searches would
find them (edges 0.1 px off their curve), so each draw costs a fit, not a render.
"""

from __future__ import annotations

import numpy as np
import pytest

import calibration.table as table
from calibration.aruco import Sighting
from calibration.homography import grown_corners
from calibration.layout import Layout
from tests.calibration.conftest import table_camera

BLUR_SHRINK_CM = 0.1
CORNER_NOISE_PX = 0.3
EDGE_NOISE_PX = 0.1


def seen_sides(layout: Layout, camera, rng: np.random.Generator) -> list[np.ndarray]:
    """The table's four sides, clear of the corner markers, as `table_edges` samples them."""
    width, depth = layout.table_size_cm
    corners = np.array([(0, 0), (width, 0), (width, depth), (0, depth)], float)
    along = np.linspace(0.15, 0.85, 40)[:, None]
    sides = []
    for start, end in zip(corners, np.roll(corners, -1, axis=0), strict=True):
        points = start + along * (end - start)
        sides.append(camera.project(points) + rng.normal(0, EDGE_NOISE_PX, (len(points), 2)))
    return sides


def median_error_mm(monkeypatch, layout: Layout, dist: list[float], seed: int) -> float:
    camera = table_camera(layout, tilt_deg=8.0, dist=np.array([*dist, 0.0, 0.0, 0.0]))
    rng = np.random.default_rng(seed)
    shrunk = grown_corners(layout.corners_by_id, -BLUR_SHRINK_CM)
    corners = {i: camera.project(c) + rng.normal(0, CORNER_NOISE_PX, (4, 2)) for i, c in shrunk.items()}
    sides = seen_sides(layout, camera, np.random.default_rng(seed + 100))
    sighting = Sighting(corners=corners, refined_by_lines=sorted(corners), pixels=corners)
    monkeypatch.setattr(table, "find_markers", lambda *args: sighting)
    monkeypatch.setattr(table, "table_edges", lambda *args: sides)
    width, height = camera.image_size
    calibration = table.calibrate(np.zeros((height, width, 3), np.uint8), layout)
    assert calibration.lens_estimated
    table_width, table_depth = layout.table_size_cm
    xs, ys = np.meshgrid(np.linspace(0, table_width, 19), np.linspace(0, table_depth, 13))
    grid = np.column_stack([xs.ravel(), ys.ravel()])
    off_cm = np.linalg.norm(calibration.image_to_table(camera.project(grid)) - grid, axis=1)
    return float(np.median(off_cm) * 10)


@pytest.mark.parametrize("seed", [1, 3, 7, 11, 14])
def test_a_second_term_the_markers_cannot_tell_is_taken_where_the_edges_want_it(monkeypatch, layout, seed):
    """k1 -0.04, k2 -0.045: the markers alone took k1 only (or k2 with the wrong k1), and the
    table was 1.3-1.7 mm off in the median."""
    assert median_error_mm(monkeypatch, layout, [-0.04, -0.045], seed) < 0.5


@pytest.mark.parametrize("dist", [[0.05, 0.0], [-0.11, 0.0]])
def test_a_second_term_fitted_to_corner_noise_is_dropped_where_the_edges_want_none(monkeypatch, layout, dist):
    """A lens with no k2: the markers' noise fitted one (k2 +0.07 with k1 +0.003 for +0.05 in the
    estimate's units), and the table was 1.35 mm off in the median."""
    assert median_error_mm(monkeypatch, layout, dist, 15) < 0.5
