"""A layout that does not match the markers on the table is refused, not fitted with a lens excuse.

Markers laid in each other's places, the wrong table size named, every marker turned: the fit
then leaves the markers 16-270 mm apart, which no lens explains (good fits, wide lenses without
intrinsics included, stay under 1 mm). calibrate, detect, rectify and the live pipeline must say
so in one line (exit code 2 at the command line) instead of accepting a table map that puts
pieces off the table.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.distortion import estimate_radial
from calibration.homography import corner_moves
from calibration.intrinsics import Intrinsics
from calibration.layout import Layout, corner_layout, default_layout
from calibration.table import WRONG_LAYOUT_MM, TableCalibration, calibrate
from rules_core.errors import TablesightError
from tests.calibration.conftest import Shot, shoot, table_camera
from tracker.cli import main
from tracker.pipeline import Pipeline


def swapped(layout: Layout, a: int, b: int) -> Layout:
    data = layout.to_dict()
    markers = {m["id"]: m for m in data["markers"]}
    markers[a]["corners_cm"], markers[b]["corners_cm"] = markers[b]["corners_cm"], markers[a]["corners_cm"]
    return Layout.from_dict(data)


def turned(layout: Layout) -> Layout:
    """Every marker laid 90 degrees round from where the layout says."""
    data = layout.to_dict()
    for marker in data["markers"]:
        marker["corners_cm"] = marker["corners_cm"][1:] + marker["corners_cm"][:1]
    return Layout.from_dict(data)


WRONG = {
    "markers 0 and 1 swapped": lambda layout: swapped(layout, 0, 1),
    "markers 0 and 2 swapped": lambda layout: swapped(layout, 0, 2),
    "every marker turned 90 degrees": turned,
    "--layout 122x122": lambda layout: default_layout("122x122"),
    "--layout 244x183": lambda layout: default_layout("244x183"),
    "a 183x244 layout": lambda layout: corner_layout((183.0, 244.0)),
}


def assert_names_the_layout(error: TablesightError) -> None:
    assert error.problem.startswith("the markers are not where --layout says (they disagree by up to ")
    assert "check each marker's id against its place on the printed map" in error.fix
    assert "--layout is this table's size" in error.fix
    assert "lens distortion" not in str(error)


@pytest.mark.parametrize("wrong", WRONG.values(), ids=WRONG.keys())
def test_a_layout_that_does_not_match_the_markers_is_refused(straight_shot: Shot, wrong) -> None:
    with pytest.raises(TablesightError) as caught:
        calibrate(straight_shot.image, wrong(straight_shot.layout))
    assert_names_the_layout(caught.value)


@pytest.mark.parametrize("wrong", [WRONG["markers 0 and 1 swapped"], WRONG["--layout 122x122"]],
                         ids=["swapped", "122x122"])
def test_with_intrinsics_a_wrong_layout_is_refused_too(table_shot: Shot, wrong) -> None:
    with pytest.raises(TablesightError) as caught:
        calibrate(table_shot.image, wrong(table_shot.layout), table_shot.intrinsics)
    assert_names_the_layout(caught.value)
    assert "--intrinsics" not in caught.value.fix


@pytest.fixture(scope="module")
def wide_shot(layout: Layout) -> Shot:
    """A wide lens (k1 -0.3): uncorrected, its markers disagree by ~12 mm."""
    return shoot(layout, table_camera(layout, dist=np.array([-0.3, 0.09, 0.0, 0.0, 0.0])), seed=11)


def test_a_wide_lens_without_intrinsics_is_not_taken_for_a_wrong_layout(wide_shot: Shot) -> None:
    calibration = calibrate(wide_shot.image, wide_shot.layout)
    assert calibration.lens_estimated and calibration.max_mm < WRONG_LAYOUT_MM / 3


def test_intrinsics_of_another_lens_are_blamed_on_the_lens_not_the_layout(wide_shot: Shot) -> None:
    """A CAM.json whose distortion bends the other way leaves the markers over WRONG_LAYOUT_MM
    apart, but without it they agree: refused, naming the lens file rather than the layout (it
    was once calibrated so, with centimetres of error and a warning)."""
    camera = wide_shot.camera
    other = Intrinsics(camera.K, -2 * np.asarray(camera.dist, float), camera.image_size)
    with pytest.raises(TablesightError) as caught:
        calibrate(wide_shot.image, wide_shot.layout, other)
    assert caught.value.problem.startswith("the lens calibration (--intrinsics) does not fit this camera")
    assert "--layout" not in str(caught.value)


def test_the_lens_estimate_stays_physical_when_nothing_explains_the_markers(straight_shot: Shot) -> None:
    """On a wrong layout the two-term search once ran off to k1 ~ 1e20; a lens estimate is a
    lens, or none."""
    from calibration.aruco import find_markers

    layout = swapped(straight_shot.layout, 0, 1)
    corners = find_markers(straight_shot.image, layout).corners
    ids = sorted(corners)
    image_pts = np.concatenate([corners[i] for i in ids])
    table_pts = np.concatenate([layout.corners_by_id[i] for i in ids])
    moves = np.concatenate([corner_moves(layout.corners_by_id[i]) for i in ids])
    radial = estimate_radial(image_pts, table_pts, moves, straight_shot.camera.image_size)
    assert radial is None or (np.isfinite(radial).all() and max(map(abs, radial)) < 10)


def test_a_single_moved_marker_is_still_left_out_and_named(layout: Layout) -> None:
    placed = [m if m.id != 1 else type(m)(1, m.corners_cm + np.array([-3.0, 2.0]))
              for m in layout.markers_as_synthetic()]
    shot = shoot(layout, table_camera(layout, tilt_deg=2.0), markers=placed, seed=12)
    calibration = calibrate(shot.image, layout)
    assert calibration.rejected_ids == [1] and calibration.max_mm < 1.0
    assert any("1 ignored" in w for w in calibration.warnings)


@pytest.fixture(scope="module")
def files(tmp_path_factory, straight_shot: Shot) -> dict:
    folder = tmp_path_factory.mktemp("wrong_layout")
    paths = {"table.png": folder / "table.png", "swapped.json": folder / "swapped.json"}
    cv2.imwrite(str(paths["table.png"]), straight_shot.image)
    paths["swapped.json"].write_text(swapped(straight_shot.layout, 0, 1).to_json())
    return paths


def one_line(capsys, command: str) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "Warning" not in err
    assert err.startswith(f"tablesight {command}: the markers are not where --layout says")
    return err


@pytest.mark.parametrize("layout_arg", ["swapped.json", "122x122", "244x183"])
def test_calibrate_exits_2_and_writes_nothing(files, capsys, tmp_path, layout_arg) -> None:
    layout = files.get(layout_arg, layout_arg)
    output = tmp_path / "calib.json"
    assert main(["calibrate", str(files["table.png"]), "--layout", str(layout), "-o", str(output)]) == 2
    one_line(capsys, "calibrate")
    assert not output.exists()


def test_detect_exits_2(files, capsys) -> None:
    assert main(["detect", str(files["table.png"]), "--layout", str(files["swapped.json"]), "--json"]) == 2
    one_line(capsys, "detect")


def test_rectify_refuses_a_calibration_file_fitted_to_a_wrong_layout(files, capsys, tmp_path,
                                                                       straight_shot: Shot) -> None:
    """Files written before calibrate refused wrong layouts: no lens measured, markers 150 mm apart."""
    data = calibrate(straight_shot.image, straight_shot.layout).to_dict()
    data.update(rms_mm=150.37, max_mm=269.33)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    top = tmp_path / "top.png"
    code = main(["rectify", str(files["table.png"]), "--calibration", str(path), "-o", str(top)])
    assert code == 2 and not top.exists()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "markers disagree by up to 269 mm" in err and "calibrate again" in err


def test_a_good_file_with_a_loose_measured_lens_still_loads(straight_shot: Shot) -> None:
    """With a measured lens (not estimated) a loose fit may be the lens's: loaded as before."""
    shot = straight_shot
    data = calibrate(shot.image, shot.layout, shot.intrinsics).to_dict()
    data.update(rms_mm=8.0, max_mm=12.0)
    assert TableCalibration.from_dict(data).max_mm == 12.0


class _NoDetector:
    def detect(self, image, calibration):  # pragma: no cover - never reached uncalibrated
        raise AssertionError("detection without a calibration")


def test_the_live_pipeline_takes_a_wrong_layout_for_a_failed_calibration(straight_shot: Shot) -> None:
    from hardware.source import Frame

    layout = swapped(straight_shot.layout, 0, 1)
    pipeline = Pipeline(calibrate=lambda image: calibrate(image, layout), detector=_NoDetector())
    result = pipeline.process(Frame(index=0, image=straight_shot.image, timestamp_s=0.0, name="f0"))
    assert pipeline.calibration is None and not pipeline.status.calibrated
    assert pipeline.status.message.startswith("calibration failed: the markers are not where --layout says")
    assert result.models == [] and result.vehicles == []


def test_two_markers_of_a_wrong_layout_are_warned_of_as_a_layout_that_may_not_be_this_tables(
    layout: Layout,
) -> None:
    """With only two markers in view a wrong layout leaves them a few mm apart, under the refusal
    (the fit takes in most of their wrong distance), so the warning must name the layout as a
    cause, not only the lens and flatness (a user's 150x90 printout on a 183x122 table)."""
    top_edge = [m for m in layout.markers_as_synthetic() if m.id in (0, 1)]
    shot = shoot(layout, table_camera(layout), markers=top_edge, seed=4)
    fitted = calibrate(shot.image, corner_layout((150.0, 90.0)))
    assert fitted.max_mm < WRONG_LAYOUT_MM
    disagree = [w for w in fitted.warnings if w.startswith("markers disagree by up to")]
    assert len(disagree) == 1 and "--layout is this table's size" in disagree[0]
    assert not any("disagree" in w for w in calibrate(shot.image, layout).warnings)
