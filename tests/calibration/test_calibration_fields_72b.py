"""A calibration file's lists, edited by hand, are read as what `calibrate` writes or refused.

`warnings: "abc"` loaded as three warnings "a", "b", "c", and `marker_ids: "0123"` as markers
0-3 (a string is a list of its letters to Python); marker ids the layout has not, or the same id
twice, loaded as they were. A calibration padded to 24 MB (8 million marker ids) took 2.35 s and
235 MB to load: a calibration JSON is a few KB, and one for a 1,024-marker layout half a MB.
"""

from __future__ import annotations

import copy
import json

import pytest

from calibration.cli import load_calibration
from calibration.table import calibrate
from rules_core.errors import TablesightError
from tests.calibration.conftest import Shot


@pytest.fixture(scope="module")
def calibrated(table_shot: Shot) -> dict:
    fitted = calibrate(table_shot.image, table_shot.layout, table_shot.intrinsics)
    data = json.loads(json.dumps(fitted.to_dict()))
    assert data["marker_ids"] == [0, 1, 2, 3] and data["layout"]["markers"][3]["id"] == 3
    return data


def written(tmp_path, data: dict, **changes) -> str:
    data = {**copy.deepcopy(data), **changes}
    path = tmp_path / "calib.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize(("changes", "message"), [
    ({"warnings": "abc"}, "warnings must be a list of texts"),
    ({"warnings": ["markers 1 not found", 3]}, "warnings must be a list of texts"),
    ({"marker_ids": "0123"}, "marker_ids must be a list of marker ids"),
    ({"marker_ids": [0, 1, "2", 3]}, "marker_ids must be a list of marker ids"),
    ({"marker_ids": [0, 1, True, 3]}, "marker_ids must be a list of marker ids"),
    ({"marker_ids": [0, 1, 2.5, 3]}, "marker_ids must be a list of marker ids"),
    ({"rejected_marker_ids": "3"}, "rejected_marker_ids must be a list of marker ids"),
], ids=["warnings text", "warnings number", "ids text", "id text", "id true", "id fraction", "rejected text"])
def test_a_list_of_the_wrong_kind_is_refused(calibrated, tmp_path, changes, message):
    path = written(tmp_path, calibrated, **changes)
    with pytest.raises(TablesightError, match=f"^calibration {path} {message}") as caught:
        load_calibration(path)
    assert "tablesight calibrate" in caught.value.fix


@pytest.mark.parametrize(("ids", "message"), [
    ([0, 1, 2, 3, 3], "marker_ids names marker 3 more than once"),
    ([0, 1, 2, 3, 0, 1, 2, 3], "marker_ids names markers 0, 1, 2, 3 more than once"),
    ([0, 1, 2, 17], "marker_ids names marker 17, which its layout has not"),
    ([0, 1, 2, 3, 49, 17], "marker_ids names markers 49, 17, which its layout has not"),
    ([2], "marker_ids names 1 marker, where a calibration is fitted to 2 or more"),
])
def test_marker_ids_not_in_the_layout_or_named_twice_are_refused(calibrated, tmp_path, ids, message):
    path = written(tmp_path, calibrated, marker_ids=ids)
    with pytest.raises(TablesightError, match=f"^calibration {path} {message}"):
        load_calibration(path)


def test_rejected_marker_ids_not_in_the_layout_are_refused(calibrated, tmp_path):
    path = written(tmp_path, calibrated, rejected_marker_ids=[40])
    message = f"^calibration {path} rejected_marker_ids names marker 40, which its layout has not"
    with pytest.raises(TablesightError, match=message):
        load_calibration(path)


def test_marker_ids_written_as_whole_floats_still_load(calibrated, tmp_path):
    """As a tool that keeps every number as a float writes them back."""
    loaded = load_calibration(written(tmp_path, calibrated, marker_ids=[0.0, 1.0, 2.0, 3.0]))
    assert loaded.marker_ids == [0, 1, 2, 3] and all(type(i) is int for i in loaded.marker_ids)


def test_a_calibration_file_megabytes_long_is_refused_before_it_is_parsed(calibrated, tmp_path):
    path = written(tmp_path, calibrated, marker_ids=list(range(4)) * 500_000)
    with pytest.raises(TablesightError, match=f"^calibration file {path} is over 2 MB: no calibration file"):
        load_calibration(path)


def test_a_calibration_file_for_a_thousand_markers_is_under_the_cap(calibrated, tmp_path):
    """The largest a real one could be: every id of the largest ArUco dictionary used, seen and
    each with its own figure, each marker's corners to 15 digits, and warnings naming them all."""
    markers = [{"id": i, "corners_cm": [[123.456789012345 + i, 23.4567890123456]] * 4} for i in range(1024)]
    data = {**copy.deepcopy(calibrated),
            "layout": {**calibrated["layout"], "dictionary": "DICT_ARUCO_ORIGINAL", "markers": markers},
            "marker_ids": list(range(1024)),
            "marker_rms_mm": {str(i): 0.1234 for i in range(1024)},
            "warnings": [f"markers {', '.join(map(str, range(1024)))} not found"] * 4}
    path = tmp_path / "calib.json"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(TablesightError) as caught:
        load_calibration(str(path))
    assert "MB" not in caught.value.problem  # read and judged on what it says, not refused for its size
