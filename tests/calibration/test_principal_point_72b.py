"""A lens whose principal point lies at the edge of its picture is no lens a table is seen through.

Such a lens file (cx 0, or cy the picture's height: a hand edit, or K of another resolution)
loaded; `calibrate` took it without a word and `detect` only warned that it "may not be this
camera's" (markers 1.66 mm apart). `calibrate-lens` fits put the principal point within a tenth
of the half-width of the centre, from board views kept to half the frame with a barrel lens of
k1 -0.3; most within a fiftieth. Past six tenths is refused.
"""

from __future__ import annotations

import copy
import json

import cv2
import numpy as np
import pytest

from calibration.cli import load_calibration
from calibration.intrinsics import Intrinsics, load_intrinsics
from calibration.table import calibrate
from rules_core.errors import TablesightError
from tests.calibration.conftest import Shot
from tracker.cli import main

WIDTH, HEIGHT = 2304, 1296
# Principal points at the picture's edges, and one a third of the width off the centre.
OFF_CENTRE = {"cx 0": (0, 2, 0.0), "cy the height": (1, 2, float(HEIGHT)), "cx a third out": (0, 2, 1920.0)}


def with_principal_point(K: list, where: tuple) -> list:
    K = copy.deepcopy(K)
    K[where[0]][where[1]] = where[2]
    return K


@pytest.fixture(scope="module")
def photo(tmp_path_factory, table_shot: Shot):
    path = tmp_path_factory.mktemp("principal_point") / "table.png"
    cv2.imwrite(str(path), table_shot.image)
    return path


@pytest.mark.parametrize("where", OFF_CENTRE.values(), ids=OFF_CENTRE.keys())
def test_a_lens_file_with_its_principal_point_off_the_middle_is_refused(table_shot, tmp_path, where):
    lens = table_shot.intrinsics.to_dict()
    lens["K"] = with_principal_point(lens["K"], where)
    path = tmp_path / "cam.json"
    path.write_text(json.dumps(lens))
    message = f"^intrinsics {path} K is no camera's: its principal point"
    with pytest.raises(TablesightError, match=message) as caught:
        load_intrinsics(path)
    assert "calibrate-lens" in caught.value.fix


@pytest.mark.parametrize("command", ["calibrate", "detect"])
def test_commands_refuse_a_lens_file_with_its_principal_point_at_the_edge(
    table_shot, photo, tmp_path, capsys, command
):
    lens = table_shot.intrinsics.to_dict()
    lens["K"] = with_principal_point(lens["K"], OFF_CENTRE["cx 0"])
    path = tmp_path / "cam.json"
    path.write_text(json.dumps(lens))
    argv = {"calibrate": ["calibrate", str(photo), "-o", str(tmp_path / "calib.json")],
            "detect": ["detect", str(photo), "--json"]}[command]
    assert main([*argv, "--layout", "183x122", "--intrinsics", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"tablesight {command}: intrinsics {path} K is no camera's: its principal point (0")
    assert "tablesight calibrate-lens" in err
    assert not (tmp_path / "calib.json").exists()


def test_principal_points_as_far_off_as_a_real_lens_puts_them_load():
    """A tenth of the half-side out, as the poorest `calibrate-lens` fit measured, and four times
    that: still a lens."""
    half_width, half_height = WIDTH / 2, HEIGHT / 2
    for cx, cy in ((half_width * 0.9, half_height), (half_width * 1.1, half_height * 1.1),
                   (half_width * 0.6, half_height * 1.4)):
        Intrinsics(np.array([[1500.0, 0, cx], [0, 1500.0, cy], [0, 0, 1]]), np.zeros(5), (WIDTH, HEIGHT))


@pytest.fixture(scope="module")
def calibrated(table_shot: Shot) -> dict:
    fitted = calibrate(table_shot.image, table_shot.layout, table_shot.intrinsics)
    return json.loads(json.dumps(fitted.to_dict()))


@pytest.mark.parametrize("where", OFF_CENTRE.values(), ids=OFF_CENTRE.keys())
def test_a_calibration_whose_lens_has_its_principal_point_off_the_middle_is_refused(
    calibrated, tmp_path, where
):
    """Its pose K edited alike, so that the two agree as `calibrate` writes them."""
    data = copy.deepcopy(calibrated)
    data["K"] = with_principal_point(data["K"], where)
    data["pose"]["K"] = data["K"]
    path = tmp_path / "calib.json"
    path.write_text(json.dumps(data))
    message = f"^calibration {path} K is no camera's: its principal point"
    with pytest.raises(TablesightError, match=message) as caught:
        load_calibration(str(path))
    assert "tablesight calibrate" in caught.value.fix


def test_a_calibration_without_a_lens_whose_pose_has_its_principal_point_at_the_edge_is_refused(
    straight_shot: Shot, tmp_path
):
    data = json.loads(json.dumps(calibrate(straight_shot.image, straight_shot.layout).to_dict()))
    assert data["K"] is None
    data["pose"]["K"] = with_principal_point(data["pose"]["K"], OFF_CENTRE["cy the height"])
    path = tmp_path / "calib.json"
    path.write_text(json.dumps(data))
    message = f"^calibration {path} pose K is no camera's: its principal point"
    with pytest.raises(TablesightError, match=message):
        load_calibration(str(path))
