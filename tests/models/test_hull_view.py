"""The vehicle stage's view of the table: a roof ringed by edges is one region, the frame and the
unseen table are off it, and a marker's paper is grey where a sleeve is not."""

from __future__ import annotations

import cv2
import numpy as np

from models.hull_view import PAPER_CHROMA, PX_PER_CM, _enclosed, _grey, _off_table


def test_a_roof_split_by_its_gun_barrel_is_one_hull():
    outline = np.zeros((120, 160), np.uint8)
    length, width = round(20 * PX_PER_CM), round(10 * PX_PER_CM)
    cv2.rectangle(outline, (30, 30), (30 + length, 30 + width), 1, 1)
    for y in (41, 44):  # the two sides of an 8 mm barrel running over the whole roof
        cv2.line(outline, (30, y), (30 + length, y), 1, 1)
    roof = _enclosed(outline > 0, np.ones(outline.shape, bool)) > 0
    count, _ = cv2.connectedComponents(roof.astype(np.uint8))
    assert count - 1 == 1
    assert roof[35, 60] and roof[50, 60]  # both sides of the barrel

def test_a_roof_a_pixel_short_of_the_views_frame_is_on_the_table_and_an_arm_into_it_is_not():
    """The frame of the view is off the table, and so is whatever the camera does not see and the
    pixel around it; the pixel inside the frame is not (a hull's roof may end there)."""
    small = np.full((40, 60, 3), 120, np.uint8)
    small[:, 50:] = 0  # past the camera's view
    off = _off_table(small)
    assert off[0].all() and off[-1].all() and off[:, 0].all()
    assert off[:, 49].all() and not off[1:-1, 48].any()  # the unseen part and one pixel around it
    assert not off[1, 1:48].any() and not off[1:-1, 1].any()  # a pixel inside the frame

def test_grey_is_paper_and_print_not_a_pale_sleeve():
    """A marker's white-balanced paper and print differ across the channels by a few levels; a
    pale pink sleeve (benchmark table 50,011) by 69, and the spread is the same whichever
    channel is brightest."""
    pixels = np.array(
        [[[236, 240, 229], [22, 30, 25], [180, 196, 249], [249, 196, 180], [0, 0, PAPER_CHROMA]]], np.uint8
    )
    assert _grey(pixels).tolist() == [[True, True, False, False, False]]
    rng = np.random.default_rng(4)
    image = rng.integers(0, 256, (40, 50, 3)).astype(np.uint8)
    spread = image.max(axis=-1).astype(int) - image.min(axis=-1)
    assert np.array_equal(_grey(image), spread < PAPER_CHROMA)
