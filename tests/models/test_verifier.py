"""The verifier's polar view of a rim: what it sees, and what it is blind to by design."""

from __future__ import annotations

import cv2
import numpy as np

from models.verifier import INNER, PATCH_SHAPE, WRAP, rim_patches

RADIUS_PX = 30.0
CENTRE = np.array([[100.0, 100.0]])
NADIR = np.array([0.0, 0.0])


def _base(middle_bgr: tuple[int, int, int] | None, rim_bgr=(30, 30, 35)) -> np.ndarray:
    """A grey mat, a rim, a sand top, and maybe a figure's blob standing in the middle."""
    image = np.full((200, 200, 3), (90, 120, 100), np.uint8)
    cv2.circle(image, (100, 100), int(RADIUS_PX), rim_bgr, -1, cv2.LINE_AA)
    cv2.circle(image, (100, 100), int(RADIUS_PX) - 3, (120, 170, 190), -1, cv2.LINE_AA)
    if middle_bgr is not None:
        cv2.circle(image, (100, 100), int(RADIUS_PX * INNER) - 3, middle_bgr, -1, cv2.LINE_AA)
    return image


def _patch(image: np.ndarray) -> np.ndarray:
    return rim_patches(image, CENTRE, np.array([RADIUS_PX]), NADIR, np.array([32.0]))[0]


def test_the_patch_has_the_shape_the_model_takes():
    assert _patch(_base(None)).shape == PATCH_SHAPE
    empty = rim_patches(_base(None), np.zeros((0, 2)), np.zeros(0), NADIR, np.zeros(0))
    assert empty.shape == (0, *PATCH_SHAPE)


def test_the_verifier_sees_the_ring_and_not_the_middle():
    """The middle is the miniature test's (models/miniature.py): a verifier that weighed it
    took a road line crossing a disc for a figure (README, "Tried, not shipped (session 11)")."""
    np.testing.assert_allclose(_patch(_base((200, 40, 40))), _patch(_base(None)), atol=1e-5)
    assert np.abs(_patch(_base(None, rim_bgr=(200, 200, 210))) - _patch(_base(None))).max() > 1.0


def test_the_wrapped_rays_repeat_the_ring():
    patch = _patch(_base(None))
    np.testing.assert_allclose(patch[:, :WRAP], patch[:, -2 * WRAP : -WRAP], atol=1e-3)
