"""Calibration and lens files edited by hand, tried through the commands that read them.

Each case here passed the loaders before: a lens file holding a whole number too long for a
float (a typo of many nines) ended `detect`, `calibrate` and `doctor` in a traceback; a
calibration whose homography was turned into its mirror image drew the table mirrored; one whose
pose K was emptied printed numpy's warnings around the top-down view; one whose max_mm read NaN
passed the check that refuses files fitted to a wrong layout.
"""

from __future__ import annotations

import copy
import json

import cv2
import numpy as np
import pytest

from calibration.cli import load_calibration
from calibration.intrinsics import load_intrinsics
from calibration.table import calibrate
from rules_core.errors import TablesightError
from tests.calibration.conftest import Shot
from tracker.cli import main

# 400 nines: JSON reads it as a whole number, which no float holds.
TOO_LONG = int("9" * 400)


@pytest.fixture(scope="module")
def photo(tmp_path_factory, table_shot: Shot):
    path = tmp_path_factory.mktemp("hand_edits") / "table.png"
    cv2.imwrite(str(path), table_shot.image)
    return path


@pytest.fixture(scope="module")
def calibrated(table_shot: Shot) -> dict:
    fitted = calibrate(table_shot.image, table_shot.layout, table_shot.intrinsics)
    return json.loads(json.dumps(fitted.to_dict()))


def edited(data: dict, path: tuple, value: object) -> dict:
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


def written(tmp_path, data: dict, name: str):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def one_line(capsys, command: str) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"tablesight {command}: ")
    return err


LENS_EDITS = {"K": ("K", 0, 0), "dist": ("dist", 0), "image_size": ("image_size", 0)}


@pytest.mark.parametrize("where", LENS_EDITS.values(), ids=LENS_EDITS.keys())
def test_a_lens_file_with_a_number_too_long_for_a_float_is_one_line(table_shot, tmp_path, where) -> None:
    path = written(tmp_path, edited(table_shot.intrinsics.to_dict(), where, TOO_LONG), "cam.json")
    with pytest.raises(TablesightError, match=f"intrinsics {path} "):
        load_intrinsics(path)


@pytest.mark.parametrize("command", ["detect", "calibrate"])
def test_commands_that_read_a_lens_file_say_one_line_for_a_number_too_long(
    table_shot, photo, tmp_path, capsys, command
) -> None:
    path = written(tmp_path, edited(table_shot.intrinsics.to_dict(), ("K", 0, 0), TOO_LONG), "cam.json")
    argv = {"detect": ["detect", str(photo), "--json"],
            "calibrate": ["calibrate", str(photo), "-o", str(tmp_path / "calib.json")]}[command]
    assert main([*argv, "--layout", "183x122", "--intrinsics", str(path)]) == 2
    assert "K and dist must be numbers" in one_line(capsys, command)


def test_doctor_names_a_lens_file_with_a_number_too_long_as_its_one_thing_to_fix(table_shot, photo, tmp_path,
                                                                                  capsys) -> None:
    path = written(tmp_path, edited(table_shot.intrinsics.to_dict(), ("K", 0, 0), TOO_LONG), "cam.json")
    assert main(["doctor", "--source", str(photo), "--layout", "183x122", "--intrinsics", str(path)]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    assert [line for line in out.splitlines() if line.startswith("FIX")] == [
        f"FIX  Lens calibration: intrinsics {path} K and dist must be numbers. Use a CAM.json with K "
        "(3x3), image_size [w, h] and dist (none for a lens without distortion), as `tablesight "
        "calibrate-lens` writes."]


def mirrored(homography: list, width_cm: float) -> list:
    """The same map followed by the table turned over left to right: each marker lands where
    its mirror image lies, so every marker is still in sight."""
    flip = np.array([[-1.0, 0.0, width_cm], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    return (flip @ np.asarray(homography)).tolist()


def rectified(photo, calibration, top) -> int:
    return main(["rectify", str(photo), "--calibration", str(calibration), "--px-per-mm", "0.5",
                 "-o", str(top)])


def test_a_calibration_whose_homography_mirrors_the_table_is_refused(calibrated, photo, tmp_path,
                                                                     capsys) -> None:
    """rectify wrote the table mirrored left to right. A camera above the table cannot see it
    mirrored (its markers would not even read), so such a map was edited."""
    width = calibrated["layout"]["table"]["width_cm"]
    path = written(tmp_path, edited(calibrated, ("homography",), mirrored(calibrated["homography"], width)),
                   "calib.json")
    top = tmp_path / "top.png"
    assert rectified(photo, path, top) == 2
    err = one_line(capsys, "rectify")
    assert f"calibration {path} homography shows its table mirrored" in err
    assert "`tablesight calibrate`" in err
    assert not top.exists()


POSE_K = {"zero": [[0.0] * 3] * 3, "negative focal": [[-1700.0, 0, 1151.5], [0, -1700.0, 647.5], [0, 0, 1]],
          "last row": [[1700.0, 0, 1151.5], [0, 1700.0, 647.5], [1, 0, 1]]}


@pytest.mark.parametrize("K", POSE_K.values(), ids=POSE_K.keys())
def test_a_calibration_whose_pose_k_is_no_camera_s_is_refused(calibrated, photo, tmp_path, capsys, K) -> None:
    """An emptied pose K printed two lines of numpy's warnings around rectify's own line; a
    negative one put the camera under the table without a word."""
    path = written(tmp_path, edited(calibrated, ("pose", "K"), K), "calib.json")
    top = tmp_path / "top.png"
    assert rectified(photo, path, top) == 2
    assert f"calibration {path} pose K must be a camera matrix" in one_line(capsys, "rectify")


FIGURES = {"rms_mm NaN": ("rms_mm", float("nan")), "max_mm NaN": ("max_mm", float("nan")),
           "max_mm infinite": ("max_mm", float("inf")), "rms_mm negative": ("rms_mm", -0.3)}


@pytest.mark.parametrize(("key", "value"), FIGURES.values(), ids=FIGURES.keys())
def test_a_calibration_whose_fit_figures_are_not_millimetres_is_refused(calibrated, tmp_path, key,
                                                                        value) -> None:
    path = written(tmp_path, edited(calibrated, (key,), value), "calib.json")
    with pytest.raises(TablesightError, match=f"calibration {path} {key} must be a number of millimetres"):
        load_calibration(str(path))


def test_a_lensless_calibration_whose_max_mm_reads_nan_no_longer_slips_past_the_layout_check(
    calibrated, tmp_path
) -> None:
    """Without a measured lens a fit 269 mm off is refused as a wrong layout; NaN compared as
    no number at all and loaded."""
    lensless = {**calibrated, "K": None, "dist": None}
    assert load_calibration(str(written(tmp_path, lensless, "good.json")))
    with pytest.raises(TablesightError, match="max_mm must be a number of millimetres"):
        load_calibration(str(written(tmp_path, {**lensless, "max_mm": float("nan")}, "nan.json")))


def scaled_focal(K: list) -> list:
    return [[K[0][0] * 1.1, K[0][1], K[0][2]], K[1], K[2]]


def skewed(K: list) -> list:
    return [[K[0][0], 1e6, K[0][2]], K[1], K[2]]


LENS_K_EDITS = {"focal length 10% longer": scaled_focal, "skew 1e6": skewed}


@pytest.mark.parametrize("edit", LENS_K_EDITS.values(), ids=LENS_K_EDITS.keys())
def test_a_calibration_whose_lens_k_was_edited_is_refused(calibrated, photo, tmp_path, capsys, edit) -> None:
    """The homography was fitted to pixels undistorted through the K it was made with: another K
    put points 2-4 mm off (focal 10% longer) to 26-34 m (a skew of 1e6), and rectify drew it."""
    path = written(tmp_path, {**calibrated, "K": edit(calibrated["K"])}, "calib.json")
    top = tmp_path / "top.png"
    assert rectified(photo, path, top) == 2
    err = one_line(capsys, "rectify")
    assert f"calibration {path} K is not the K its pose was solved with" in err
    assert "`tablesight calibrate`" in err and not top.exists()


def test_a_calibration_whose_k_was_removed_but_not_its_dist_is_refused(calibrated, tmp_path) -> None:
    """Without K its lens was left out without a word: the table's corners 1.5-3 cm off."""
    path = written(tmp_path, {**calibrated, "K": None}, "calib.json")
    with pytest.raises(TablesightError, match=rf"calibration {path} has dist but no K"):
        load_calibration(str(path))


def test_a_calibration_whose_lens_estimated_is_not_true_or_false_is_refused(calibrated, tmp_path) -> None:
    """"false" read as true, and the check that its K is its pose's was skipped."""
    path = written(tmp_path, {**calibrated, "lens_estimated": "false"}, "calib.json")
    with pytest.raises(TablesightError, match=rf"calibration {path} lens_estimated must be true or false"):
        load_calibration(str(path))
