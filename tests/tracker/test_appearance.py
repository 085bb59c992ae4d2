import cv2
import numpy as np
import pytest

from tracker.appearance import Look, blend, colour_distance, describe, lightness_difference, seen


def table(mat=(90, 110, 100), paints=((170, 80, 40), (200, 94, 47)), gain=1.0) -> np.ndarray:
    """A mat with two discs of one paint in two shades (the second 1.18x the first), every pixel
    scaled by an exposure `gain`."""
    image = np.empty((240, 320, 3), np.float32)
    image[:] = mat
    for (x, y), paint in zip(((80, 120), (240, 120)), paints, strict=True):
        cv2.circle(image, (x, y), 20, paint, -1)
    return np.clip(image * gain, 0, 255).astype(np.uint8)


def looks(image: np.ndarray) -> list[Look]:
    found = describe(seen(image), np.array([[80.0, 120.0], [240.0, 120.0]]), np.array([12.0, 12.0]))
    assert all(look is not None for look in found)
    return found


def test_two_shades_of_one_hue_differ_in_lightness_not_in_colours():
    dark, light = looks(table())
    assert colour_distance(dark, light) < 0.15  # under the association's floor: colours cannot tell
    assert lightness_difference(dark, light) == pytest.approx(np.log(201 / 171), abs=0.01)


@pytest.mark.parametrize("gain", [0.8, 1.25])
def test_lightness_is_taken_against_the_frame_so_exposure_does_not_move_it(gain):
    before, after = looks(table()), looks(table(gain=gain))
    for a, b in zip(before, after, strict=True):
        assert lightness_difference(a, b) < 0.01
    assert lightness_difference(*after) == pytest.approx(lightness_difference(*before), abs=0.01)


def test_a_disc_off_the_image_has_no_look():
    image = table()
    assert describe(seen(image), np.array([[5.0, 5.0]]), np.array([12.0])) == [None]


def test_blend_moves_both_parts_towards_the_new_look():
    old = Look(np.array([1.0, 0.0]), 0.0)
    new = Look(np.array([0.0, 1.0]), 0.1)
    mixed = blend(old, new)
    assert mixed.colours == pytest.approx([0.7, 0.3])
    assert mixed.lightness == pytest.approx(0.03)
    assert blend(None, new) is new and blend(old, None) is old
