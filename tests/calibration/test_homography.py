"""The robust fit on exact marker corners: which markers it trusts and which it throws out."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.homography import apply, fit_homography, grown_corners
from calibration.layout import default_layout
from tests.calibration.conftest import table_camera


def corners_seen(camera, layout, noise_px: float = 0.02, seed: int = 0) -> dict[int, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {i: camera.project(c) + rng.normal(0, noise_px, (4, 2)) for i, c in layout.corners_by_id.items()}


def test_clean_markers_are_all_used():
    layout = default_layout("244x183")
    fit = fit_homography(corners_seen(table_camera(layout), layout), layout.corners_by_id)
    assert fit.used_ids == [0, 1, 2, 3, 4, 5] and fit.rejected_ids == []


def test_two_wrong_markers_of_six_are_rejected():
    layout = default_layout("244x183")
    camera = table_camera(layout)
    seen = corners_seen(camera, layout)
    seen[1] = camera.project(layout.corners_by_id[1] + [0.0, 4.0])
    seen[4] = np.roll(seen[4], 1, axis=0)
    fit = fit_homography(seen, layout.corners_by_id)
    assert fit.rejected_ids == [1, 4]
    table = np.array([[50.0, 50.0], [200.0, 150.0]])
    assert np.abs(apply(fit.image_to_table, camera.project(table)) - table).max() < 0.01


def test_a_bent_lens_without_intrinsics_keeps_every_marker():
    """Disagreement no single marker explains is the lens, and dropping markers would only extrapolate."""
    layout = default_layout("183x122")
    camera = table_camera(layout, dist=np.array([-0.08, 0.02, 0.0, 0.0, 0.0]))
    fit = fit_homography(corners_seen(camera, layout), layout.corners_by_id)
    assert fit.used_ids == [0, 1, 2, 3]


@pytest.mark.parametrize("seed", [3, 6])
def test_corner_noise_drops_no_marker_when_a_pose_judges(seed):
    """Any three of four markers nearly fix a homography, which can then misplace the fourth by
    far more than its corners' noise (these seeds); a camera pose (6 unknowns, not 8) predicts it
    within that noise."""
    layout = default_layout("183x122")
    camera = table_camera(layout, tilt_deg=3.0)
    seen = corners_seen(camera, layout, noise_px=0.3, seed=seed)
    assert fit_homography(seen, layout.corners_by_id).rejected_ids != []
    fit = fit_homography(seen, layout.corners_by_id, camera.K)
    assert fit.used_ids == [0, 1, 2, 3] and fit.rejected_ids == []


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_a_blurred_marker_makes_no_sharp_one_misplaced(seed):
    """Three markers with a blurred one among them bend the free fit until the sharp marker across
    the table looks 4 mm off; leaving the blurred one out instead, the rest agree better and it is
    only a little off: inexact, not moved, so all four are kept (before: the sharp one was
    dropped and the table was up to 4.4 mm wrong)."""
    layout = default_layout("183x122")
    camera = table_camera(layout)
    seen = corners_seen(camera, layout, noise_px=0.05, seed=seed)
    seen[3] = seen[3] + np.random.default_rng(100 + seed).normal(0, 0.6, (4, 2))
    fit = fit_homography(seen, layout.corners_by_id)
    assert fit.rejected_ids == []
    xs, ys = np.meshgrid(np.linspace(0, 183, 10), np.linspace(0, 122, 7))
    table = np.column_stack([xs.ravel(), ys.ravel()])
    assert np.abs(apply(fit.image_to_table, camera.project(table)) - table).max() < 0.1


def test_a_marker_moved_4_mm_is_dropped_where_a_set_leaving_out_another_agrees_a_little_better():
    """Six markers with 0.2 px of noise, one moved 4 mm: leaving out an unmoved one agrees to
    0.366 mm (it 1.8 mm off), leaving out the moved one to 0.406 (it 3.7 mm off). Both explain the
    markers about alike, so the moved one is dropped, as it was before the best-agreeing set was
    asked first (which dropped none and left the table 3.7 mm off)."""
    layout = default_layout("244x183")
    camera = table_camera(layout)
    rng = np.random.default_rng(12)
    seen = {i: camera.project(c) + rng.normal(0, 0.2, (4, 2)) for i, c in layout.corners_by_id.items()}
    angle = rng.uniform(0, 2 * np.pi)
    moved = layout.corners_by_id[0] + 0.4 * np.array([np.cos(angle), np.sin(angle)])
    seen[0] = camera.project(moved) + rng.normal(0, 0.2, (4, 2))
    assert fit_homography(seen, layout.corners_by_id).rejected_ids == [0]


@pytest.mark.parametrize("moved_cm", [1.0, 2.0, 4.0])
def test_a_pose_still_rejects_a_moved_marker(moved_cm):
    layout = default_layout("183x122")
    camera = table_camera(layout, tilt_deg=3.0)
    seen = corners_seen(camera, layout, noise_px=0.1)
    seen[1] = camera.project(layout.corners_by_id[1] + [moved_cm, 0.0])
    fit = fit_homography(seen, layout.corners_by_id, camera.K)
    assert fit.rejected_ids == [1]
    table = np.array([[50.0, 50.0], [150.0, 100.0]])
    assert np.abs(apply(fit.image_to_table, camera.project(table)) - table).max() < 0.02


def test_two_corners_measured_on_an_object_over_a_marker_s_edge_are_left_out():
    """Three markers in view, one with its top edge covered: the marker cannot be dropped whole,
    but its two wrong corners can, and its other two still count."""
    layout = default_layout("183x122")
    camera = table_camera(layout, tilt_deg=5.0)
    seen = corners_seen(camera, layout, noise_px=0.1)
    del seen[0]
    seen[2][:2] = camera.project(layout.corners_by_id[2][:2] + np.array([[0.3, 0.0], [1.0, 0.4]]))
    table = np.array([[20.0, 20.0], [90.0, 60.0], [170.0, 110.0]])
    plain = fit_homography(seen, layout.corners_by_id, camera.K)
    fit = fit_homography(seen, layout.corners_by_id, camera.K, stray_corners=True)
    assert fit.used_ids == [1, 2, 3] and fit.stray_ids == [2]
    assert np.isnan(fit.corners[2][:2]).all() and np.isfinite(fit.corners[2][2:]).all()
    assert np.abs(apply(fit.image_to_table, camera.project(table)) - table).max() < 0.1  # 1 mm, at marker 0
    assert np.abs(apply(plain.image_to_table, camera.project(table)) - table).max() > 0.3


@pytest.mark.parametrize("seed", range(5))
def test_corner_noise_leaves_every_corner_in(seed):
    layout = default_layout("183x122")
    camera = table_camera(layout, tilt_deg=5.0)
    seen = corners_seen(camera, layout, noise_px=0.6, seed=seed)
    del seen[0]
    fit = fit_homography(seen, layout.corners_by_id, camera.K, stray_corners=True)
    assert fit.stray_ids == [] and all(np.isfinite(c).all() for c in fit.corners.values())


def _worst_table_error_cm(fit, camera, table_cm) -> float:
    xs, ys = np.meshgrid(np.linspace(5, table_cm[0] - 5, 8), np.linspace(5, table_cm[1] - 5, 6))
    grid = np.stack([xs.ravel(), ys.ravel()], 1)
    return float(np.abs(apply(fit.image_to_table, camera.project(grid)) - grid).max())


def test_with_k_measured_three_markers_hold_the_far_corner():
    """Three markers nearly fix a free homography, which then swings the fourth corner of the
    table by their corners' noise times tens; the measured K's pose has 6 unknowns and holds it."""
    layout = default_layout("183x122")
    camera = table_camera(layout, tilt_deg=3.0)
    free, posed = [], []
    for seed in range(8):
        seen = corners_seen(camera, layout, noise_px=0.3, seed=seed)
        del seen[3]
        fit = fit_homography(seen, layout.corners_by_id, camera.K, stray_corners=True)
        assert fit.used_ids == [0, 1, 2]
        posed.append(_worst_table_error_cm(fit, camera, layout.table_size_cm))
        plain = fit_homography(seen, layout.corners_by_id)
        free.append(_worst_table_error_cm(plain, camera, layout.table_size_cm))
    assert max(posed) < 0.07
    assert np.median(free) > 4 * np.median(posed)


def test_a_k_that_is_not_this_camera_s_keeps_the_free_homography():
    """Intrinsics from another zoom: the pose cannot explain the markers, the free fit still can."""
    layout = default_layout("183x122")
    camera = table_camera(layout, tilt_deg=8.0)
    seen = corners_seen(camera, layout, noise_px=0.02)
    wrong = camera.K.copy()
    wrong[0, 0] *= 1.6
    wrong[1, 1] *= 1.6
    fit = fit_homography(seen, layout.corners_by_id, wrong, stray_corners=True)
    assert fit.used_ids == [0, 1, 2, 3]
    assert _worst_table_error_cm(fit, camera, layout.table_size_cm) < 0.02


@pytest.mark.parametrize(
    "offset_cm",
    [(-0.12, 0.0, -0.12), (0.0, 0.0, 0.0), (0.08, 0.0, 0.08), (-0.12, 0.0, -0.02), (-0.03, 0.0, -0.09)],
)
def test_markers_measured_smaller_or_larger_all_alike_are_fitted_so(offset_cm):
    """Blur in a camera's encoded levels (or a print scaled to the page) moves the edges of every
    marker alike, the edges across a motion blur most: measured so, the markers agree to their
    corners' noise again."""
    layout = default_layout("183x122")
    camera = table_camera(layout, tilt_deg=5.0)
    rng = np.random.default_rng(2)
    grown = grown_corners(layout.corners_by_id, np.array(offset_cm))
    seen = {i: camera.project(c) + rng.normal(0, 0.05, (4, 2)) for i, c in grown.items()}
    fit = fit_homography(seen, layout.corners_by_id, camera.K, stray_corners=True)
    assert np.abs(fit.edge_offset_cm - offset_cm).max() < 0.01
    assert max(r.max() for r in fit.corner_residuals_mm.values()) < 0.15
    assert fit.used_ids == [0, 1, 2, 3] and fit.stray_ids == []
    assert _worst_table_error_cm(fit, camera, layout.table_size_cm) < 0.01
    plain = fit_homography(seen, layout.corners_by_id, camera.K, stray_corners=True, edge_offset=False)
    if any(offset_cm):
        assert max(r.max() for r in plain.corner_residuals_mm.values()) > 1.0


@pytest.mark.parametrize("fault", ["moved", "turned"])
def test_a_bad_marker_is_rejected_when_the_others_are_measured_small(fault):
    """One edge offset measured over all markers, the bad one included, skews the fit the bad
    one is judged by until it is not rejected: each set of markers kept is fitted with its own."""
    layout = default_layout("183x122")
    camera = table_camera(layout, tilt_deg=4.0)
    rng = np.random.default_rng(4)
    grown = grown_corners(layout.corners_by_id, -0.1)
    seen = {i: camera.project(c) + rng.normal(0, 0.05, (4, 2)) for i, c in grown.items()}
    if fault == "moved":
        seen[2] = camera.project(grown[2] + [-3.0, -2.0])
    else:
        seen[2] = np.roll(seen[2], 1, axis=0)
    fit = fit_homography(seen, layout.corners_by_id, camera.K, stray_corners=True)
    assert fit.rejected_ids == [2] and fit.used_ids == [0, 1, 3]
    assert np.abs(fit.edge_offset_cm - [-0.1, 0.0, -0.1]).max() < 0.01
    assert _worst_table_error_cm(fit, camera, layout.table_size_cm) < 0.02
