"""Lens intrinsics files and the lens model's two directions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.intrinsics import Intrinsics, load_intrinsics
from rules_core.errors import TablesightError

K = [[1800.0, 0.0, 1151.5], [0.0, 1800.0, 647.5], [0.0, 0.0, 1.0]]


def test_undistort_inverts_distort_across_the_frame():
    lens = Intrinsics(np.array(K), np.array([-0.12, 0.05, 0.001, -0.0005, 0.0]), (2304, 1296))
    ideal = np.stack(np.meshgrid(np.linspace(0, 2303, 9), np.linspace(0, 1295, 7)), -1).reshape(-1, 2)
    assert np.abs(lens.undistort(lens.distort(ideal)) - ideal).max() < 1e-6


def test_load_checks_the_image_size(tmp_path):
    path = tmp_path / "cam.json"
    path.write_text(json.dumps({"K": K, "dist": [0, 0, 0, 0, 0], "image_size": [2304, 1296]}))
    lens = load_intrinsics(path)
    assert lens.image_size == (2304, 1296)
    lens.check_image((2304, 1296))
    with pytest.raises(TablesightError, match="are for 2304x1296 images but the image is 4056x3040"):
        lens.check_image((4056, 3040))


@pytest.mark.parametrize("written", [
    {"K": K, "dist": [0] * 5, "image_size": [2304.0, 1296.0]},
    {"K": [v for row in K for v in row], "dist": [0] * 5, "image_size": [2304, 1296]},
    {"K": K, "dist": None, "image_size": [2304, 1296]},
    {"K": K, "dist": [], "image_size": [2304, 1296]},
    {"K": K, "image_size": [2304, 1296]},
], ids=["size-as-floats", "K-flat", "dist-null", "dist-empty", "no-dist"])
def test_a_lens_file_written_by_other_tools_is_read(tmp_path, written):
    """numpy's JSON writes a size as 2304.0, OpenCV's files K as nine numbers, and a lens without
    distortion may come with no dist: each was refused, every photo of a harness with it."""
    path = tmp_path / "cam.json"
    path.write_text(json.dumps(written))
    lens = load_intrinsics(path)
    assert lens.image_size == (2304, 1296)
    np.testing.assert_array_equal(lens.K, K)
    assert lens.K.shape == (3, 3) and not np.any(lens.dist)


@pytest.mark.parametrize(("data", "message"), [
    ({"dist": [0] * 5, "image_size": [10, 10]}, "has no K"),
    ({"K": [[1, 0], [0, 1]], "dist": [0] * 5, "image_size": [10, 10]}, "3x3"),
    ({"K": K, "dist": [0] * 3, "image_size": [10, 10]}, "3 coefficients"),
    ({"K": K, "dist": [float("nan"), 0, 0, 0, 0], "image_size": [10, 10]}, "dist must be finite numbers"),
    ({"K": K, "dist": [0] * 5, "image_size": [10]}, "image_size"),
    ({"K": K, "dist": [0] * 5, "image_size": [2304.5, 1296]}, "image_size"),
    ({"K": K, "dist": [0] * 5, "image_size": [True, 1296]}, "image_size"),
    ({"K": K, "dist": False, "image_size": [10, 10]}, "1 coefficients"),
    ({"K": K, "dist": 0, "image_size": [10, 10]}, "1 coefficients"),
    ({"K": K, "dist": "", "image_size": [10, 10]}, "must be numbers"),
    ({"K": K, "dist": {}, "image_size": [10, 10]}, "must be numbers"),
    ({"K": "abc", "dist": [0] * 5, "image_size": [10, 10]}, "must be numbers"),
    ({"K": [[1, 2, 3], [1, 2, 3], [1, 2, 3]], "dist": [0] * 5, "image_size": [10, 10]}, "invertible"),
    ({"K": [[1500, 0, 960], [0, 1500, 540], [0, 0, 0]], "dist": [0] * 5, "image_size": [10, 10]},
     "invertible"),
])
def test_malformed_intrinsics_are_user_errors(tmp_path, data, message):
    path = tmp_path / "cam.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TablesightError, match=message):
        load_intrinsics(path)


@pytest.mark.parametrize(("change", "message"), [
    ({"K": [[1800.0, 0.0, 1e7], [0.0, 1800.0, -1e7], [0.0, 0.0, 1.0]]},
     r"principal point \(1e\+07, -1e\+07\) lies outside its 2304x1296 image"),
    ({"K": [[1e12, 0.0, 1151.5], [0.0, 1e12, 647.5], [0.0, 0.0, 1.0]]}, "focal lengths"),
    ({"K": [[1e-3, 0.0, 1151.5], [0.0, 1e-3, 647.5], [0.0, 0.0, 1.0]]}, "focal lengths"),
    ({"K": [[1800.0, 0.0, 1151.5], [0.0, 1800.0, 647.5], [0.0, 0.0, 5.0]]}, "last row must be 0 0 1"),
    ({"K": [[1800.0, 0.0, 1151.5], [3.0, 1800.0, 647.5], [0.0, 0.0, 1.0]]}, "last row must be 0 0 1"),
])
def test_a_lens_no_camera_has_is_refused(tmp_path, change, message):
    """Each loaded, then `detect` ran on it without a word: a principal point 10 km off found 41
    bases on a table of 17 (its pose and parallax absurd), a scaled K found none, with only the
    warning that the lens "may not be this camera's"."""
    path = tmp_path / "cam.json"
    path.write_text(json.dumps({"K": K, "dist": [0] * 5, "image_size": [2304, 1296], **change}))
    with pytest.raises(TablesightError, match=message):
        load_intrinsics(path)


def test_a_long_or_a_wide_lens_is_still_a_lens():
    for focal in (110.0, 60000.0):  # about 170 and 2.2 degrees across 2304 px
        Intrinsics(np.array([[focal, 0, 1151.5], [0, focal, 647.5], [0, 0, 1]]), np.zeros(5), (2304, 1296))


def test_a_lens_no_camera_has_is_named_by_its_file(tmp_path):
    path = tmp_path / "cam.json"
    off = [[1800.0, 0, 1e7], [0, 1800.0, 647.5], [0, 0, 1]]
    path.write_text(json.dumps({"K": off, "image_size": [2304, 1296]}))
    with pytest.raises(TablesightError, match=f"^intrinsics {path} K is no camera's: its principal point"):
        load_intrinsics(path)
