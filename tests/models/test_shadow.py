from __future__ import annotations

import cv2
import numpy as np
import pytest

from models.shadow import MIN_BASES, shadow_direction

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
