"""A calibration file whose own lens folds back before its markers is refused as it is read.

`calibrate` refuses a lens file that turns back before the markers the photo shows, but a
calibration file carries its lens with it: one edited afterwards (dist k1 -5 for -0.05) loaded,
and `rectify` drew the table through it without a word, every pixel undistorted to the same
wrong place whatever the term (a table corner 2.2 cm off for k1 -1, -5 and -50 alike).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from calibration.cli import load_calibration
from calibration.layout import Layout
from calibration.table import calibrate
from rules_core.errors import TablesightError
from tests.calibration.conftest import Shot, shoot, table_camera
from tests.calibration.test_wrong_lens import FOLDING
from tracker.cli import main


@pytest.fixture(scope="module")
def calibrated(table_shot: Shot) -> dict:
    fitted = calibrate(table_shot.image, table_shot.layout, table_shot.intrinsics)
    return json.loads(json.dumps(fitted.to_dict()))


def written(tmp_path, data: dict, name: str = "calib.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("dist", FOLDING.values(), ids=FOLDING.keys())
def test_a_calibration_whose_lens_was_edited_to_fold_before_its_markers_is_refused(calibrated, tmp_path,
                                                                                     dist) -> None:
    path = written(tmp_path, {**calibrated, "dist": dist})
    with pytest.raises(TablesightError) as caught:
        load_calibration(str(path))
    error = caught.value
    assert re.fullmatch(rf"calibration {re.escape(str(path))} has a lens \(K, dist\) that does not reach its "
                        r"markers: its distortion turns back \d+ px from the principal point, and its "
                        r"homography puts markers? [0-9, ]+ beyond that, where no light comes through it "
                        r"\(the file was edited or damaged\)", error.problem), error.problem
    assert "`tablesight calibrate`" in error.fix and "`tablesight calibrate-lens --wide`" in error.fix


def test_rectify_exits_2_on_a_calibration_whose_lens_folds_and_writes_nothing(
    calibrated, table_shot, tmp_path, capsys
) -> None:
    """It wrote the top-down view through the folded lens."""
    import cv2

    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), table_shot.image)
    path = written(tmp_path, {**calibrated, "dist": FOLDING["k1 -5"]})
    top = tmp_path / "top.png"
    assert main(["rectify", str(photo), "--calibration", str(path), "-o", str(top)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"tablesight rectify: calibration {path} has a lens (K, dist) that does not reach")
    assert not top.exists()


def test_the_calibration_calibrate_wrote_loads_and_maps_as_it_did(calibrated, table_shot, tmp_path) -> None:
    loaded = load_calibration(str(written(tmp_path, calibrated)))
    fresh = calibrate(table_shot.image, table_shot.layout, table_shot.intrinsics)
    corners = np.array([[0.0, 0.0], [2303.0, 1295.0], [1152.0, 648.0]])
    assert np.allclose(loaded.image_to_table(corners), fresh.image_to_table(corners), atol=1e-6)


def test_a_right_lens_that_folds_just_past_the_markers_loads(layout: Layout, tmp_path) -> None:
    """The detection benchmark's barrel lens (k1 -0.3) turns back in the picture's corners,
    outside the table: its calibration file is the camera's own."""
    shot = shoot(layout, table_camera(layout, dist=np.array([-0.3, 0.0, 0.0, 0.0, 0.0])))
    data = calibrate(shot.image, layout, shot.intrinsics).to_dict()
    assert shot.intrinsics.reach.folds
    load_calibration(str(written(tmp_path, json.loads(json.dumps(data)))))
