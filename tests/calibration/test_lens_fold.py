"""A lens model fitted by `calibrate-lens` must still be a lens over the whole picture.

The standard model (k1 k2 p1 p2 k3) fitted to a wide lens from board views that stay off the
picture's corners bends back inside it: a Camera Module 3 Wide (102 degrees across) seen with the
board within three quarters of the frame folded 912 px from the centre, where the picture's
corners lie 1101 px out. `calibrate` then refused the file as "another camera's". The rational
model (`--wide`) follows such a lens; it is fitted instead, and said so.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.lens import fit_lens

SIZE = (1920, 1080)


def fisheye_views(across_deg: float, reach: float, count: int = 30) -> tuple[list, list]:
    """A 9x6 board's corners seen by an equidistant lens, every view within `reach` of the
    picture's half-width and half-height."""
    width, height = SIZE
    focal = width / 2 / np.radians(across_deg / 2)
    rng = np.random.default_rng(1)
    gx, gy = np.meshgrid(np.arange(9), np.arange(6))
    board = np.stack([gx.ravel(), gy.ravel(), np.zeros(54)], axis=1) * 3.0
    objects, images = [], []
    while len(objects) < count:
        turn = cv2.Rodrigues(rng.normal(0, 0.35, 3))[0]
        at = np.array([rng.uniform(-40, 40), rng.uniform(-25, 25), rng.uniform(35, 70)])
        points = (board - board.mean(0)) @ turn.T + at
        off_axis = np.arctan2(np.hypot(points[:, 0], points[:, 1]), points[:, 2])
        around = np.arctan2(points[:, 1], points[:, 0])
        pixels = np.stack([width / 2 + focal * off_axis * np.cos(around),
                           height / 2 + focal * off_axis * np.sin(around)], axis=1)
        if np.any(np.abs(pixels - (width / 2, height / 2)) > (reach * width / 2, reach * height / 2)):
            continue
        objects.append(board.astype(np.float32))
        images.append((pixels + rng.normal(0, 0.2, pixels.shape)).astype(np.float32))
    return objects, images


def picture_edge() -> np.ndarray:
    width, height = SIZE
    return np.array([[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1],
                     [width / 2, 0], [0, height / 2]], dtype=float)


def test_a_standard_fit_that_folds_inside_the_picture_gives_way_to_the_rational_model() -> None:
    objects, images = fisheye_views(102.0, 0.75)
    fitted = fit_lens(objects, images, SIZE, wide=False)
    assert fitted.model == "rational"
    assert not fitted.intrinsics.reach.beyond(picture_edge()).any()
    assert any("turns back inside the picture" in note for note in fitted.notes)


def test_a_standard_fit_that_holds_over_the_picture_stays_standard() -> None:
    objects, images = fisheye_views(60.0, 0.9)
    fitted = fit_lens(objects, images, SIZE, wide=False)
    assert (fitted.model, fitted.notes) == ("standard", ())
