"""Layouts, lens intrinsics and calibration files as users break them: a TablesightError or a
valid object, never another exception (the CLI turns the former into one line and exit 2)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.cli import load_calibration
from calibration.intrinsics import load_intrinsics
from calibration.layout import default_layout, load_layout
from calibration.table import TableCalibration
from rules_core.errors import TablesightError
from tests.json_paths import paths
from tracker.cli import main

FUZZ = settings(max_examples=80, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

LAYOUT = default_layout("183x122").to_dict()
LAYOUT["markers"][1] = {"id": LAYOUT["markers"][1]["id"], "center_cm": [176.0, 7.0], "size_cm": 10.0,
                        "rotation_deg": 0.0}
INTRINSICS = {"K": [[1500.0, 0, 1151.5], [0, 1500.0, 647.5], [0, 0, 1]], "dist": [-0.05, 0.015, 0, 0, 0],
              "image_size": [2304, 1296]}
CALIBRATION = {"layout": default_layout("183x122").to_dict(), "image_size": [2304, 1296],
               "K": None, "dist": None,
               "homography": [[0.08, 0.001, -10.0], [0.0005, 0.08, -5.0], [0.0, 0.00001, 1.0]],
               "marker_ids": [0, 1, 2, 3], "rms_mm": 0.3, "max_mm": 0.7}

junk = st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9), st.text(max_size=5),
                 st.floats(allow_nan=True, allow_infinity=True), st.just([]), st.just({}),
                 st.just([[0, 0], [1, 1]]), st.just([1e308, -1e308]), st.just([[1, 2, 3]] * 3))


def broken(data: dict, path: tuple, new: object, delete: bool) -> dict:
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    if delete and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = new
    return data


def text_of(data: dict, raw: bytes | None) -> str:
    return raw.decode("latin-1") if raw is not None else json.dumps(data)


LOADERS = [(LAYOUT, load_layout), (INTRINSICS, load_intrinsics), (CALIBRATION, load_calibration)]


@FUZZ
@given(which=st.integers(0, 2), data=st.data(), new=junk, delete=st.booleans())
def test_one_broken_field_is_a_user_error_or_a_valid_file(tmp_path_factory, which, data, new, delete):
    valid, load = LOADERS[which]
    path = data.draw(st.sampled_from(paths(valid)))
    file = tmp_path_factory.mktemp("files") / "broken.json"
    file.write_text(json.dumps(broken(valid, path, new, delete)))
    try:
        loaded = load(file)
    except TablesightError as error:
        assert str(error) and "\n" not in str(error)
        return
    if isinstance(loaded, TableCalibration):  # a calibration that loads must be usable
        out = loaded.image_to_table(np.array([[100.0, 100.0]]))
        assert out.shape == (1, 2)


@FUZZ
@given(which=st.integers(0, 2), raw=st.one_of(
    st.binary(max_size=200), st.sampled_from([b"[" * 100_000, b'{"K": ' + b"9" * 5000 + b"}", b"",
                                              b"\xff\xfe", b"null", b"[]"])))
def test_any_bytes_are_a_user_error(tmp_path_factory, which, raw):
    _, load = LOADERS[which]
    file = tmp_path_factory.mktemp("bytes") / "file.json"
    file.write_bytes(raw)
    with pytest.raises(TablesightError):
        load(file)


@pytest.mark.parametrize("option", ["--layout", "--intrinsics"])
def test_the_calibrate_command_says_one_line_for_a_broken_file(tmp_path: Path, capsys, option):
    import cv2

    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.full((120, 160, 3), 128, np.uint8))
    broken_file = tmp_path / "broken.json"
    broken_file.write_bytes(b"[" * 100_000)
    good_layout = tmp_path / "layout.json"
    good_layout.write_text(json.dumps(LAYOUT))
    layout = broken_file if option == "--layout" else good_layout
    argv = ["calibrate", str(image), "--layout", str(layout), "-o", str(tmp_path / "out.json")]
    if option == "--intrinsics":
        argv += ["--intrinsics", str(broken_file)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablesight calibrate: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("homography",), [[1, 2, 3]] * 3, "not an invertible 3x3"),
        (("homography",), [[0.0] * 3] * 3, "not an invertible 3x3"),
        (("homography", 0, 0), float("nan"), "not an invertible 3x3"),
        (("image_size",), [], "image_size must be"),
        (("image_size", 0), -5, "image_size must be"),
        (("pose",), {"K": [[1500, 0, 1151.5], [0, 1500, 647.5], [0, 0, 1]], "rvec": None, "tvec": [0, 0, 1]},
         "pose rvec"),
        (("pose",), {"K": [1, 2, 3], "rvec": [0, 0, 0], "tvec": [0, 0, 1]}, "pose K"),
        (("marker_rms_mm",), None, "marker_rms_mm"),
        (("marker_ids", 0), 1e400, "wrong kind"),
        # Found by the fuzz test above: the pose solver's own error, a traceback.
        (("homography", 2, 0), -182344, "not a camera's view of its table"),
        (("homography", 2, 0), 5.0, "not a camera's view of its table"),
    ],
)
def test_a_calibration_file_that_could_not_be_used_is_refused_on_loading(tmp_path, path, value, message):
    """Each loaded before, then failed in `rectify` (or `detect`'s parallax) as a traceback."""
    file = tmp_path / "calibration.json"
    file.write_text(json.dumps(broken(CALIBRATION, path, value, delete=False)))
    with pytest.raises(TablesightError, match=message):
        load_calibration(file)


def test_a_calibration_from_the_markers_in_view_loads_though_others_lie_behind_the_camera(monkeypatch):
    """A wide camera low over one end, tilted 60 degrees across a 244x183 table, sees markers 1, 2,
    4 and 5; 0 and 3 lie behind it. Its own file was refused on loading as "not a camera's view"
    when every marker of the layout was held to being in sight, not only those it was fitted to."""
    import calibration.synthetic as synthetic
    from calibration.camera import Camera
    from calibration.synthetic import render_markers
    from calibration.table import calibrate

    layout = default_layout("244x183")
    size = (2028, 1520)
    focal = size[0] / 2 / np.tan(np.radians(51))  # 102 degrees across
    camera = Camera.looking_at((190, 91.5), 80, image_size=size, focal_px=focal, tilt_deg=60,
                               tilt_towards_deg=0)
    monkeypatch.setattr(synthetic.Canvas, "draw_table", lambda self, table_cm, texture: self.fill_polygon(
        np.array([[70, 0], [244, 0], [244, 183], [70, 183]], float), (60, 90, 60)))
    seen = [m for m in layout.markers_as_synthetic() if m.id in (1, 2, 4, 5)]
    calibration = calibrate(render_markers(camera, (244, 183), seen).image, layout)
    assert calibration.marker_ids == [1, 2, 4, 5]
    for data in (calibration.to_dict(), {k: v for k, v in calibration.to_dict().items() if k != "pose"}):
        loaded = TableCalibration.from_dict(json.loads(json.dumps(data)))
        assert np.allclose(loaded.homography, calibration.homography)
