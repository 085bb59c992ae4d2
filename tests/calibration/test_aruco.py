"""Reading markers: the passes that run when markers are still missing read a marker smeared
over its cells' borders, and one with a shadow's edge across it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.aruco import detector, find_markers
from calibration.layout import default_layout

CORNER = (70, 60)  # where the marker's white paper starts, px


def _smeared_marker(side_px: int, blur_px: int, angle_deg: float) -> np.ndarray:
    """Marker 0 on its paper, `side_px` across on grey, smeared by motion blur along
    `angle_deg` and dimmed to 0.6: a dim, motion-blurred frame's marker, in small."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    paper = cv2.copyMakeBorder(
        cv2.aruco.generateImageMarker(dictionary, 0, 120), 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255
    )
    image = np.full((200, 200), 90.0, np.float32)
    x, y = CORNER
    small = cv2.resize(paper, (side_px, side_px), interpolation=cv2.INTER_AREA)
    image[y : y + side_px, x : x + side_px] = small
    kernel = np.zeros((31, 31), np.float32)
    half = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))]) * blur_px / 2
    start, end = (tuple(round(v) for v in 15 + sign * half) for sign in (-1, 1))
    cv2.line(kernel, start, end, 1.0, 1, cv2.LINE_AA)
    image = cv2.filter2D(image, -1, kernel / kernel.sum()) * 0.6
    return np.clip(image, 0, 255).astype(np.uint8)


@pytest.mark.parametrize(("side_px", "blur_px", "angle_deg"), [(40, 7, 90.0), (38, 6, 0.0)])
def test_a_marker_smeared_over_its_cells_borders_is_read_by_the_soft_pass(side_px, blur_px, angle_deg):
    """A dim path-traced hard validation frame (351,004) with 3 px of motion blur lost 3 of its 4
    markers, and its calibration, to the first two passes; the soft one reads each cell nearer
    its centre."""
    image = _smeared_marker(side_px, blur_px, angle_deg)
    for thorough in (False, True):
        _, ids, _ = detector("DICT_4X4_50", thorough=thorough).detectMarkers(image)
        assert ids is None or 0 not in ids.ravel()
    sighting = find_markers(image, default_layout("183x122"))
    assert list(sighting.corners) == [0]
    centre = np.array(CORNER) + side_px / 2
    assert np.all(np.abs(np.nanmean(sighting.corners[0], axis=0) - centre) < 2.0)


@pytest.mark.parametrize(("depth", "angle_deg"), [(0.25, 0.0), (0.35, 30.0), (0.45, 0.0)])
def test_a_marker_half_in_a_shadow_is_read_on_the_image_with_its_light_divided_out(depth, angle_deg):
    """A shadow's sharp edge across a marker (hard benchmark table 50,011's marker 3, under an
    arm's shadow): the shaded white cells are darker than the lit ones' threshold, and no pass
    on the image itself reads it."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    paper = cv2.copyMakeBorder(
        cv2.aruco.generateImageMarker(dictionary, 0, 120), 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255
    )
    image = np.full((300, 300), 120.0, np.float32)
    image[80:240, 90:250] = paper
    rows, cols = np.mgrid[0:300, 0:300]
    t = np.radians(angle_deg)
    shade = (cols - 170) * np.cos(t) + (rows - 160) * np.sin(t) < 0  # through the marker's middle
    image = cv2.GaussianBlur(image * np.where(shade, depth, 1.0), (0, 0), 1.0)
    image = np.clip(image, 0, 255).astype(np.uint8)
    for thorough, soft in ((False, False), (True, False), (True, True)):
        _, ids, _ = detector("DICT_4X4_50", thorough=thorough, soft=soft).detectMarkers(image)
        assert ids is None or 0 not in ids.ravel()
    sighting = find_markers(image, default_layout("183x122"))
    assert list(sighting.corners) == [0]
    assert np.all(np.abs(np.nanmean(sighting.corners[0], axis=0) - (170, 160)) < 1.0)


def _markers_on_grey(placed: list[tuple[int, int, int, int]]) -> np.ndarray:
    """Markers (id, x, y, side px) of DICT_4X4_50, each on its white paper, on a grey mat."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    image = np.full((700, 900), 110, np.uint8)
    for marker_id, x, y, side in placed:
        paper = cv2.copyMakeBorder(cv2.aruco.generateImageMarker(dictionary, marker_id, 120), 30, 30, 30, 30,
                                   cv2.BORDER_CONSTANT, value=255)
        image[y : y + side, x : x + side] = cv2.resize(paper, (side, side), interpolation=cv2.INTER_AREA)
    return image


def test_a_pattern_far_smaller_than_the_markers_is_not_reported_as_a_marker():
    """A base's pattern can decode as a marker (a 32 mm base read as id 17, 32 px across beside
    150 px markers): reported, it sent a user looking for a marker 17 that is not there. Foreign
    markers of a printed marker's size are still named."""
    from hardware.doctor import check_markers_without_layout

    image = _markers_on_grey([(0, 40, 40, 200), (1, 600, 40, 200), (17, 400, 500, 60), (30, 40, 420, 200)])
    layout = default_layout("183x122")
    assert find_markers(image, layout).ignored_ids == [30]
    counted = check_markers_without_layout(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))[0]
    assert counted.ok and counted.finding == "3 markers in view (ids 0, 1, 30)"
