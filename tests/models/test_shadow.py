from __future__ import annotations

import cv2
import numpy as np
import pytest

from models.rim_fit import best_supported, refits
from models.shadow import (
    FALL_OFF,
    LONGER_MARGIN,
    MIN_BASES,
    SEARCH_RAYS,
    SHADOW_LENGTHS_MM,
    shadow_direction,
    shadow_offset,
)

PX_PER_MM = 1.0
RADIUS_PX = 16.0


def _table(centres: np.ndarray, shadow_px: float, falling_deg: float, seed: int = 0) -> np.ndarray:
    """A grainy mat with 32 mm bases on it, each with its shadow: the base's disc moved
    `shadow_px` the way the light falls, darker than the mat."""
    rng = np.random.default_rng(seed)
    image = np.clip(rng.normal(150, 6, (400, 600, 3)), 0, 255).astype(np.uint8)
    step = shadow_px * np.array([np.cos(np.radians(falling_deg)), np.sin(np.radians(falling_deg))])
    for x, y in centres:
        cv2.circle(image, (round(x + step[0]), round(y + step[1])), round(RADIUS_PX), (90, 90, 90), -1)
    for x, y in centres:
        cv2.circle(image, (round(x), round(y)), round(RADIUS_PX), (60, 110, 170), -1)
    return image


def _squad(count: int) -> np.ndarray:
    return np.array([[80 + 90 * (i % 5), 90 + 150 * (i // 5)] for i in range(count)], dtype=np.float64)


@pytest.mark.parametrize("falling_deg", [30.0, 200.0])
def test_the_way_the_shadows_fall_is_read_off_the_bases(falling_deg):
    centres = _squad(8)
    found = shadow_direction(_table(centres, 5.0, falling_deg), centres, np.full(8, RADIUS_PX), PX_PER_MM)
    assert found is not None
    falling = np.radians(falling_deg)
    assert np.degrees(np.arccos(found @ [np.cos(falling), np.sin(falling)])) < 5


def test_bases_without_shadows_give_no_direction():
    centres = _squad(8)
    assert shadow_direction(_table(centres, 0.0, 0.0), centres, np.full(8, RADIUS_PX), PX_PER_MM) is None


def test_too_few_bases_give_no_direction():
    centres = _squad(MIN_BASES - 1)
    image = _table(centres, 5.0, 30.0)
    assert shadow_direction(image, centres, np.full(len(centres), RADIUS_PX), PX_PER_MM) is None


NADIR_PX, CAMERA_MM = np.array([300.0, 200.0]), 1800.0


def _flocked_table(centres: np.ndarray, cast_px: np.ndarray, seed: int = 0) -> np.ndarray:
    """Bases flocked like their green mat (tops 3 levels paler, no rim of their own), each
    casting its disc `cast_px` (x, y) away into a shade lit by light bounced off the mat, so
    greener than the mat, as on the path-traced tables."""
    ss, rows, cols = 4, 400, 600
    mat = np.array([60.0, 120.0, 70.0])  # BGR
    canvas = np.empty((rows * ss, cols * ss, 3))
    canvas[:] = mat

    def disc(centre: np.ndarray, colour: np.ndarray) -> None:
        at = tuple(int(v) for v in np.round(((centre + 0.5) * ss - 0.5) * 16))
        cv2.circle(canvas, at, round(RADIUS_PX * ss * 16), tuple(map(float, colour)), -1, cv2.LINE_AA, 4)

    for centre in centres:
        for share in np.linspace(0, 1, 12):
            disc(centre + share * cast_px, mat * [0.35, 0.6, 0.35])
    for centre in centres:
        disc(centre, mat + 3)
    image = cv2.GaussianBlur(cv2.resize(canvas, (cols, rows), interpolation=cv2.INTER_AREA), (0, 0), 0.8)
    return np.clip(image + np.random.default_rng(seed).normal(0, 2.0, image.shape), 0, 255).astype(np.uint8)


def _flocked_squad() -> np.ndarray:
    return np.array([[80.3 + 110 * (i % 5), 90.6 + 150 * (i // 5)] for i in range(10)])


def _cast(length_px: float, falling_deg: float) -> np.ndarray:
    return length_px * np.array([np.cos(np.radians(falling_deg)), np.sin(np.radians(falling_deg))])


@pytest.mark.parametrize(("length_px", "falling_deg"), [(2.5, 30.0), (4.0, 200.0)])
def test_how_far_and_which_way_the_shadows_fall_is_read_off_the_bases(length_px, falling_deg):
    centres, radius = _flocked_squad(), np.full(10, RADIUS_PX)
    image = _flocked_table(centres, _cast(length_px, falling_deg))
    found = shadow_offset(image, centres, radius, radius, NADIR_PX, CAMERA_MM, PX_PER_MM)
    assert found is not None
    assert abs(np.linalg.norm(found) - length_px) <= 1.1  # the lengths tried lie 1-1.5 mm apart
    assert np.degrees(np.arccos(found @ _cast(1.0, falling_deg) / np.linalg.norm(found))) < 5


def test_bases_without_shadows_give_no_offset():
    centres, radius = _flocked_squad(), np.full(10, RADIUS_PX)
    image = _flocked_table(centres, np.zeros(2))
    assert shadow_offset(image, centres, radius, radius, NADIR_PX, CAMERA_MM, PX_PER_MM) is None


@pytest.mark.parametrize(("length_px", "falling_deg"), [(2.5, 30.0), (4.0, 200.0)])
def test_the_shadows_length_is_read_without_refitting_a_rim_from_its_own_start_twice(
    length_px, falling_deg, monkeypatch
):
    """With no shadow cast the start back from it is the rim's own: fitted once, every fit's
    edge weight, and so the offset read, is that of fitting both starts of every length."""
    import models.rim_fit

    centres, radius = _flocked_squad(), np.full(10, RADIUS_PX)
    image = _flocked_table(centres, _cast(length_px, falling_deg))
    falling = shadow_direction(image, centres, radius, PX_PER_MM)
    assert falling is not None
    casts = np.multiply.outer(np.array((0.0, *SHADOW_LENGTHS_MM)) * PX_PER_MM, falling)
    shadow = np.repeat(casts, 10, axis=0)
    _, _, both = refits(
        image, np.tile(centres, (len(casts), 1)), np.tile(radius, len(casts)), np.tile(radius, len(casts)),
        NADIR_PX, CAMERA_MM, PX_PER_MM, -shadow[None], shadow, rays=SEARCH_RAYS,
    )
    np.testing.assert_array_equal(both[1, :10], both[0, :10])  # none cast: one start, fitted twice
    fitted = []
    real = models.rim_fit.refits

    def recording(*args, **kwargs):
        out = real(*args, **kwargs)
        fitted.append(out[2])
        return out

    monkeypatch.setattr(models.rim_fit, "refits", recording)
    found = shadow_offset(image, centres, radius, radius, NADIR_PX, CAMERA_MM, PX_PER_MM)
    (support,) = fitted
    np.testing.assert_array_equal(support[0], np.concatenate([both[0], both[1, 10:]]))
    totals = both.max(axis=0).reshape(len(casts), -1).sum(axis=1)
    none, totals = totals[0], totals[1:]
    best = int(np.argmax(totals))
    if totals[best] < none * (1 + LONGER_MARGIN) or totals[best] < totals[-1] + FALL_OFF * none:
        assert found is None
    else:
        np.testing.assert_array_equal(found, casts[1 + best])


def test_a_base_flocked_like_its_mat_is_placed_by_its_shadow():
    """Its only edge on the shadow's side is the shadow's: taken for the rim it holds the fit
    a shadow's length off; fitted to the shadow's own circle it places the base."""
    centres, radius = _flocked_squad(), np.full(10, RADIUS_PX)
    cast = np.broadcast_to(_cast(4.0, 200.0), (10, 2))
    image = _flocked_table(centres, cast[0])
    held = centres + cast  # where the shadow's edge, taken for the rim, holds a fit

    def errors(shadow: np.ndarray | None) -> np.ndarray:
        fitted, _ = best_supported(*refits(
            image, held, radius, radius, NADIR_PX, CAMERA_MM, PX_PER_MM, -cast[None], shadow
        ))
        return np.linalg.norm(fitted - centres, axis=1)

    assert errors(cast).max() < 0.8
    assert np.median(errors(None)) > 2.5
