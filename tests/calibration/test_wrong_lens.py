"""A lens calibration that is not this camera's is named, not taken for the truth.

A K no camera has (transposed, or its principal point off the picture) is refused as it is
read. A wild `dist`, another lens's file: the markers then disagree by millimetres to
centimetres where, without the file, they agree to a few hundredths. Over 2 mm (the table's
points a centimetre off) that is refused naming the lens file (the layout is right: the
markers agree without it), and no calibration file is written; under it, when the file still
fits the markers clearly worse than none, a warning names the file and both figures. A model
that folds back before the markers is refused on sight. A right lens file changes nothing.
"""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from calibration.intrinsics import Intrinsics
from calibration.layout import Layout, default_layout
from calibration.synthetic import Look, Marker
from calibration.table import LENS_DOUBT_MM, calibrate
from rules_core.errors import TablesightError
from tests.calibration.conftest import Shot, shoot, table_camera
from tracker.cli import main


def lens(shot: Shot, K: np.ndarray | None = None, dist: list[float] | None = None) -> Intrinsics:
    camera = shot.camera
    return Intrinsics(camera.K if K is None else K, camera.dist if dist is None else np.array(dist),
                      camera.image_size, label="lens file cam.json")


def principal_point_off(shot: Shot) -> np.ndarray:
    K = shot.camera.K.copy()
    K[:2, 2] = [5000.0, -3000.0]
    return K


NO_CAMERAS = {
    "K transposed": (lambda shot: lens(shot, K=shot.camera.K.T), "last row must be 0 0 1"),
    "principal point off the picture": (lambda shot: lens(shot, K=principal_point_off(shot)),
                                        r"principal point \(5000, -3000\) lies outside"),
}
WRONG = {
    "k1 50": lambda shot: lens(shot, dist=[50.0, 0.0, 0.0, 0.0, 0.0]),
    # 9.6 mm at the markers, under the layout's bound: only warned of, and measured with.
    "k1 0.5": lambda shot: lens(shot, dist=[0.5, 0.0, 0.0, 0.0, 0.0]),
}
# Barrel terms so strong that the lens model turns back inside the picture: past the fold it
# sends no ray, and undistorting a marker seen there gave a number all the same. k1 -1 to -50
# fitted the markers to 0.87 mm, and `detect` measured with such a file on a warning.
FOLDING = {f"k1 {k1:g}": [k1, 0.0, 0.0, 0.0, 0.0] for k1 in (-1.0, -5.0, -50.0)} | {
    "k3 -5": [0.0, 0.0, 0.0, 0.0, -5.0], "tangential": [-2.0, 0.0, 0.05, -0.05, 0.0],
}


@pytest.mark.parametrize(("made", "message"), NO_CAMERAS.values(), ids=NO_CAMERAS.keys())
def test_a_lens_file_with_a_k_no_camera_has_is_refused_as_it_is_read(table_shot: Shot, made, message) -> None:
    with pytest.raises(TablesightError, match=f"intrinsics K is no camera's: .*{message}"):
        made(table_shot)


@pytest.mark.parametrize("wrong", WRONG.values(), ids=WRONG.keys())
def test_a_lens_file_that_puts_the_markers_centimetres_apart_is_refused_naming_it(table_shot: Shot,
                                                                                   wrong) -> None:
    with pytest.raises(TablesightError) as caught:
        calibrate(table_shot.image, table_shot.layout, wrong(table_shot))
    error = caught.value
    assert error.problem.startswith("lens file cam.json does not fit this camera (with it the markers "
                                    "disagree by up to ")
    assert "without it by 0.0" in error.problem and "another camera's" in error.problem
    assert "`tablesight calibrate-lens`" in error.fix and "leave --intrinsics out" in error.fix
    assert "--layout" not in str(error)


@pytest.mark.parametrize("dist", FOLDING.values(), ids=FOLDING.keys())
def test_a_lens_file_that_folds_before_the_markers_is_refused_naming_it(table_shot: Shot, dist) -> None:
    with pytest.raises(TablesightError) as caught:
        calibrate(table_shot.image, table_shot.layout, lens(table_shot, dist=dist))
    error = caught.value
    assert re.fullmatch(r"lens file cam\.json does not reach the markers: its distortion turns back \d+ px "
                        r"from the principal point, and markers [0-9, ]+ are seen beyond that, where it "
                        r"sends no light \(another camera's file, or a wide lens fitted without --wide\)",
                        error.problem), error.problem
    assert "`tablesight calibrate-lens --wide`" in error.fix and error.fix.endswith("leave --intrinsics out")


def test_a_right_lens_file_that_folds_only_beyond_the_markers_calibrates(layout: Layout) -> None:
    """The detection benchmark's barrel lenses (k1 -0.3, no k2) turn back in the picture's
    corners, outside the table: the markers are seen well inside the fold."""
    shot = shoot(layout, table_camera(layout, dist=np.array([-0.3, 0.0, 0.0, 0.0, 0.0])))
    calibration = calibrate(shot.image, layout, shot.intrinsics)
    assert calibration.max_mm < LENS_DOUBT_MM and len(calibration.marker_ids) == 4


def test_another_lens_s_file_that_fits_a_little_worse_is_warned_of_with_both_figures(
    straight_shot: Shot,
) -> None:
    """Another lens at the same resolution (k1 off by 0.05): about a millimetre at the markers and
    several millimetres over the table, where the markers alone agree to a few hundredths."""
    calibration = calibrate(straight_shot.image, straight_shot.layout,
                            lens(straight_shot, dist=[-0.05, 0.01, 0.0, 0.0, 0.0]))
    doubts = [w for w in calibration.warnings if w.startswith("lens file cam.json may not be this camera's")]
    assert len(doubts) == 1, calibration.warnings
    figures = f"with it the markers disagree by up to {calibration.max_mm:.2f} mm, without it by 0.0"
    assert figures in doubts[0]
    assert "leave --intrinsics out" in doubts[0]
    assert not any(w.startswith("markers disagree") for w in calibration.warnings)


def test_the_right_lens_file_is_not_doubted(layout: Layout) -> None:
    """A camera knocked as it shot: an 8 px motion smear leaves the markers 0.8 mm apart with the
    right lens, over the bound at which they are read again without it to judge the lens file.
    Without it they agree no better, so the file is not blamed for the smear."""
    camera = table_camera(layout, dist=np.array([-0.05, 0.015, 0.0, 0.0, 0.0]))
    shot = shoot(layout, camera, look=Look(blur_px=0.6, motion_blur_px=8.0))
    calibration = calibrate(shot.image, layout, shot.intrinsics)
    assert calibration.max_mm > LENS_DOUBT_MM and len(calibration.marker_ids) == 4
    assert calibration.warnings == []


def test_the_right_lens_file_on_hand_laid_markers_is_not_doubted() -> None:
    """Six markers each laid a few mm and up to a degree off their place: read without the lens
    the markers' own fit dropped three of them and agreed to 0.4 mm, against 5.6 mm over all six
    with the right lens. Only the same markers are compared."""
    layout = default_layout("244x183")
    rng = np.random.default_rng(7)
    placed = []
    for marker in layout.markers_as_synthetic():
        centre, turn = marker.corners_cm.mean(0), np.radians(rng.uniform(-1, 1))
        rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        placed.append(Marker(marker.id, (marker.corners_cm - centre) @ rotation.T + centre
                             + rng.uniform(-0.6, 0.6, 2)))
    camera = table_camera(layout, tilt_deg=float(rng.uniform(0, 10)), dist=np.array([-0.05, 0.015, 0, 0, 0]))
    shot = shoot(layout, camera, markers=placed, seed=7)
    calibration = calibrate(shot.image, layout, shot.intrinsics)
    assert calibration.max_mm > 1.5 and len(calibration.marker_ids) == 6
    assert not any("may not be this camera's" in w for w in calibration.warnings)


@pytest.fixture(scope="module")
def files(tmp_path_factory, table_shot: Shot) -> dict:
    folder = tmp_path_factory.mktemp("wrong_lens")
    paths = {"table.png": folder / "table.png", "cam.json": folder / "cam.json",
             "wild.json": folder / "wild.json", "other.json": folder / "other.json",
             "folding.json": folder / "folding.json"}
    cv2.imwrite(str(paths["table.png"]), table_shot.image)
    right = table_shot.intrinsics.to_dict()
    paths["cam.json"].write_text(json.dumps(right))
    paths["wild.json"].write_text(json.dumps({**right, "dist": [50.0, 0.0, 0.0, 0.0, 0.0]}))
    paths["folding.json"].write_text(json.dumps({**right, "dist": FOLDING["k1 -5"]}))
    other = {**right, "dist": (np.array(right["dist"]) + np.array([-0.05, 0.01, 0, 0, 0])).tolist()}
    paths["other.json"].write_text(json.dumps(other))
    return paths


def one_line(capsys, command: str, lens_file) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "Warning" not in err
    assert err.startswith(f"tablesight {command}: lens file {lens_file} does not fit this camera")
    return err


def test_calibrate_refuses_a_wrong_lens_file_and_keeps_the_calibration_there(files, capsys, tmp_path) -> None:
    output = tmp_path / "calib.json"
    assert main(["calibrate", str(files["table.png"]), "--layout", "183x122", "--intrinsics",
                 str(files["cam.json"]), "-o", str(output)]) == 0
    before = output.read_bytes()
    capsys.readouterr()
    assert main(["calibrate", str(files["table.png"]), "--layout", "183x122", "--intrinsics",
                 str(files["wild.json"]), "-o", str(output)]) == 2
    one_line(capsys, "calibrate", files["wild.json"])
    assert output.read_bytes() == before


def test_detect_exits_2_on_a_wrong_lens_file(files, capsys) -> None:
    assert main(["detect", str(files["table.png"]), "--layout", "183x122", "--intrinsics",
                 str(files["wild.json"]), "--json"]) == 2
    one_line(capsys, "detect", files["wild.json"])
    assert capsys.readouterr().out == ""


def test_detect_exits_2_on_a_lens_file_that_folds_before_the_markers(files, capsys) -> None:
    """It measured on, with a warning that positions may be millimetres off (the markers fitted to
    0.87 mm through it)."""
    assert main(["detect", str(files["table.png"]), "--layout", "183x122", "--intrinsics",
                 str(files["folding.json"]), "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"tablesight detect: lens file {files['folding.json']} does not reach the markers")


def test_detect_warns_on_another_lens_s_file_naming_it(files, capsys) -> None:
    assert main(["detect", str(files["table.png"]), "--layout", "183x122", "--intrinsics",
                 str(files["other.json"]), "--json"]) == 0
    err = capsys.readouterr().err
    assert f"lens file {files['other.json']} may not be this camera's (with it the markers disagree" in err
