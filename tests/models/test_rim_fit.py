"""The rim fit: each base's bottom rim fitted to the edges along its rays, parallax, shadows,
overhanging figures and slid fits included."""

from __future__ import annotations

import numpy as np
import pytest

from models.rim_fit import (
    _LINEAR,
    PEAKS_PER_RAY,
    SAMPLES,
    SHADOW_DARKER,
    SHADOW_HUE_DEG,
    SHADOW_SIDE_PX,
    RimFit,
    _shadow_edges,
    best_supported,
    fit_rims,
    refits,
    restart_moves,
    settling_moves,
    settling_start,
)


def _two_disc_image(shift_px: float, wall: int) -> tuple[np.ndarray, np.ndarray, float]:
    """A base drawn exactly: bottom disc, then the top disc scaled about the nadir (8x supersampled)."""
    import cv2

    ss, size = 8, 400
    nadir, centre, radius = np.array([100.0, 100.0]), np.array([300.3, 100.6]), 16.0
    s = 1 + max(shift_px, 1e-3) / np.linalg.norm(centre - nadir)  # top disc scale about the nadir
    H = 3.5 * s / (s - 1)  # the camera height (mm) that gives it, for a 3.5 mm base at 1 px/mm
    canvas = np.zeros((size * ss, size * ss), np.uint8)
    for c, r, value in ((centre, radius, 255), (nadir + (centre - nadir) * s, radius * s, wall)):
        cv2.circle(
            canvas,
            tuple(round(((v + 0.5) * ss - 0.5) * 16) for v in c),
            round(r * ss * 16),
            value,
            -1,
            lineType=cv2.LINE_AA,
            shift=4,
        )
    image = cv2.cvtColor(cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA), cv2.COLOR_GRAY2BGR)
    return image, centre, H


@pytest.mark.parametrize("shift_px, wall", [(0.0, 255), (0.5, 255), (0.5, 120), (6.0, 120)])
def test_rim_fit_recovers_the_bottom_disc_despite_parallax(shift_px, wall):
    image, centre, H = _two_disc_image(shift_px, wall)
    fit = fit_rims(image, centre[None] + [1.2, -0.9], np.array([16.0]), np.array([100.0, 100.0]), H, 1.0)
    assert np.linalg.norm(fit.centres_px[0] - centre) < 0.15
    assert fit.coverage[0] > 0.9


def test_only_rims_worth_fitting_get_the_full_rounds():
    image, centre, H = _two_disc_image(0.5, 255)
    starts = centre[None] + np.array([[1.2, -0.9], [-0.8, 0.7]])
    asked: list[np.ndarray] = []

    def worth_fitting(screened: RimFit, index: np.ndarray) -> np.ndarray:
        asked.append(index)
        return index == 0

    nadir = np.array([100.0, 100.0])
    fit = fit_rims(image, starts, np.array([16.0, 16.0]), nadir, H, 1.0, worth_fitting=worth_fitting)
    assert [a.tolist() for a in asked] == [[0, 1]]
    assert fit.coverage[1] == 0 and fit.coverage[0] > 0.9
    assert np.linalg.norm(fit.centres_px[0] - centre) < 0.15


def _base_with_its_shadow(shadow_px: float) -> tuple[np.ndarray, np.ndarray]:
    """A grey-topped base under a low light: its shadow a crescent `shadow_px` wide beyond the
    rim (up the image), the mat in it at 30 % of its light, blurred and grainy like a
    path-traced frame."""
    import cv2

    ss, size, mat = 8, 200, (95, 125, 120)
    centre, radius = np.array([100.3, 99.6]), 16.0
    canvas = np.full((size * ss, size * ss, 3), mat, np.uint8)

    def disc(c: np.ndarray, colour: tuple[int, ...]) -> None:
        at = tuple(round(((v + 0.5) * ss - 0.5) * 16) for v in c)
        cv2.circle(canvas, at, round(radius * ss * 16), colour, -1, lineType=cv2.LINE_AA, shift=4)

    for t in np.linspace(0, shadow_px, 12):
        disc(centre - [0.0, t], tuple(int(0.3 * v) for v in mat))
    disc(centre, (60, 60, 60))
    image = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA).astype(np.float64)
    image = cv2.GaussianBlur(image, (0, 0), 0.8)
    grain = np.random.default_rng(3).normal(0, 2, image.shape)
    return np.clip(image + grain, 0, 255).astype(np.uint8), centre


@pytest.mark.parametrize("shadow_px", [2.5, 3.0])
def test_a_fit_started_on_the_shadow_crescent_comes_back_to_the_rim(shadow_px, monkeypatch):
    """The crescent's outer edge (lit mat against shadow) is a shadow's, not a rim: weighed
    down, it no longer holds a fit started between rim and shadow there."""
    import models.rim_fit

    image, centre = _base_with_its_shadow(shadow_px)
    nadir = centre + np.array([0.0, 1.0])  # just below: the shadow falls on the far side

    def fitted() -> np.ndarray:
        return fit_rims(image, centre[None] + [0.0, -1.5], np.array([16.0]), nadir, 1800.0, 1.0).centres_px[0]

    assert np.linalg.norm(fitted() - centre) < 0.4
    monkeypatch.setattr(models.rim_fit, "SHADOW_EDGE_WEIGHT", 1.0)
    assert np.linalg.norm(fitted() - centre) > 1.0


def _overhung_base(reach_px: float) -> tuple[np.ndarray, np.ndarray, float]:
    """A base far from the nadir (wide wall band) whose miniature leans out over its far rim."""
    import cv2

    image, centre, H = _two_disc_image(2.0, 120)
    tip = np.round(centre + np.array([16.0 + reach_px, 0.0])).astype(int)
    cv2.line(image, tuple(np.round(centre).astype(int).tolist()), tuple(tip.tolist()), (255, 255, 255), 9)
    return image, centre, H


@pytest.mark.parametrize("reach_px", [2.0, 4.0])
def test_rim_fit_holds_the_near_rim_when_a_miniature_overhangs_the_far_one(reach_px):
    image, centre, H = _overhung_base(reach_px)
    nadir = np.array([100.0, 100.0])
    fit = fit_rims(image, centre[None] + [1.5, 0.8], np.array([16.0]), nadir, H, 1.0)
    assert np.linalg.norm(fit.centres_px[0] - centre) < 0.4


def test_settling_brings_a_slid_fit_back_onto_the_rim():
    image, centre, H = _overhung_base(4.0)
    nadir = np.array([100.0, 100.0])
    slid = centre[None] + [2.5, 0.0]  # pushed away from the nadir, onto the miniature
    moves = settling_moves(slid, nadir, 1.0)
    nominal = np.array([16.0])
    settled, radius = best_supported(*refits(image, slid, nominal, nominal, nadir, H, 1.0, moves))
    assert np.linalg.norm(settled[0] - centre) < 0.4
    assert abs(radius[0] - 16.0) < 0.5


def _faint_base_with_a_bright_miniature() -> tuple[np.ndarray, np.ndarray, float]:
    """A top barely lighter than a grainy mat, a white miniature standing towards the far rim."""
    import cv2

    image, centre, H = _two_disc_image(1.0, 255)
    grey = 100 + image[..., :1].astype(np.float64) * (22 / 255)
    grain = np.random.default_rng(5).normal(0, 3, grey.shape)
    image = np.repeat(np.clip(grey + grain, 0, 255), 3, axis=2).astype(np.uint8)
    foot = np.round(centre).astype(int)
    cv2.ellipse(image, (int(foot[0]) + 6, int(foot[1])), (7, 5), 0, 0, 360, (245, 245, 245), -1)
    return image, centre, H


def test_a_bright_miniature_does_not_pull_the_fit_off_a_faint_rim():
    image, centre, H = _faint_base_with_a_bright_miniature()
    nadir = np.array([100.0, 100.0])
    fit = fit_rims(image, centre[None] + [2.0, 1.0], np.array([16.0]), nadir, H, 1.0)
    moves = settling_moves(fit.centres_px, nadir, 1.0)
    nominal = np.array([16.0])
    settled, _ = best_supported(*refits(image, fit.centres_px, fit.radius_px, nominal, nadir, H, 1.0, moves))
    assert np.linalg.norm(settled[0] - centre) < 0.5


def test_a_faint_rim_held_off_sideways_comes_back_when_restarted_around_it():
    """A bright arm across the line to the nadir holds the fit where settling cannot reach."""
    import cv2

    image, centre, H = _faint_base_with_a_bright_miniature()
    arm = np.round(centre + np.array([0.0, 20.0])).astype(int)
    cv2.line(image, tuple(np.round(centre).astype(int).tolist()), tuple(arm.tolist()), (255, 255, 255), 13)
    nadir = np.array([100.0, 100.0])
    held = centre[None] + [0.0, 4.0]
    radius = np.array([16.0])
    along_line = settling_moves(held, nadir, 1.0)
    along, _ = best_supported(*refits(image, held, radius, radius, nadir, H, 1.0, along_line))
    assert np.linalg.norm(along[0] - centre) > 1.0
    every_way = restart_moves(1, 1.0)
    around, fitted = best_supported(*refits(image, held, radius, radius, nadir, H, 1.0, every_way))
    assert np.linalg.norm(around[0] - centre) < 0.4
    assert abs(fitted[0] - 16.0) < 0.5


def test_settling_starts_half_a_parallax_shift_towards_the_nadir():
    nadir, centre, H = np.array([100.0, 100.0]), np.array([[900.0, 100.0]]), 1803.5
    start = settling_start(centre, nadir, H)  # the top disc sits 800 * 3.5 / 1800 = 1.56 px out
    assert np.allclose(start, [[900.0 - 0.5 * 800 * 3.5 / 1800, 100.0]], atol=1e-3)
    assert np.allclose(settling_start(nadir[None], nadir, H), [nadir])


def _shadow_edges_of_the_interleaved_profile(
    profile: np.ndarray, at: np.ndarray, step: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`_shadow_edges` as it read colour triples from the (n, K, S, 3) profile, with einsum."""
    n, rays, samples, channels = profile.shape
    first = (np.arange(n * rays, dtype=np.int32) * samples).reshape(n, rays, 1)
    near = np.maximum(1, np.round(SHADOW_SIDE_PX[0] / step)).astype(np.int32)
    far = np.maximum(near + 1, np.round(SHADOW_SIDE_PX[1] / step)).astype(np.int32)
    offsets = np.stack([-near, -far, near, far])[:, :, None, None]
    where = first + np.clip(at.astype(np.int32) + offsets, 0, samples - 1)
    levels = np.clip(np.take(profile.reshape(-1, channels), where, axis=0), 0, 255).astype(np.uint8)
    light = np.take(_LINEAR, levels)
    inside, outside = light[0] + light[1], light[2] + light[3]
    same_hue = np.einsum("...c,...c->...", inside, outside) > np.cos(np.radians(SHADOW_HUE_DEG)) * np.sqrt(
        np.einsum("...c,...c->...", inside, inside) * np.einsum("...c,...c->...", outside, outside)
    )
    darker = np.einsum("...c->...", inside) < SHADOW_DARKER * np.einsum("...c->...", outside)
    return darker, same_hue


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_shadow_edges_read_from_the_colour_planes_as_from_the_interleaved_profile(dtype):
    """Bit for bit, on a frame's bytes and on a sharpened frame's floats (below 0, above 255)."""
    import cv2

    rng = np.random.default_rng(3)
    n, rays = 7, 24
    # Shades of one colour and others: both tests go either way.
    base = rng.uniform(20, 235, (n, rays, 1, 3)) * rng.uniform(0.3, 1.0, (n, rays, SAMPLES, 1))
    profile = (base + rng.normal(0, 12, (n, rays, SAMPLES, 3))).clip(-20, 275)
    profile = profile.clip(0, 255).round().astype(np.uint8) if dtype == np.uint8 else profile.astype(dtype)
    at = rng.integers(1, SAMPLES - 1, (n, rays, PEAKS_PER_RAY))
    step = rng.uniform(0.4, 1.6, n).astype(np.float32)
    planes = cv2.split(profile.reshape(n, rays * SAMPLES, 3))
    darker, same_hue = _shadow_edges(planes, at, step)
    want_darker, want_hue = _shadow_edges_of_the_interleaved_profile(profile, at, step)
    np.testing.assert_array_equal(darker, want_darker)
    np.testing.assert_array_equal(same_hue, want_hue)
    assert 0 < darker.mean() < 1 and 0 < same_hue.mean() < 1
