"""Marker layouts: both written forms, the shipped defaults, and every way a layout can be wrong."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.layout import Layout, corner_layout, default_layout, load_layout, parse_table
from calibration.marker_sheet import SHEET_SCALE, sheet_reach
from rules_core.errors import TablesightError

SQUARE = [[2.0, 2.0], [12.0, 2.0], [12.0, 12.0], [2.0, 12.0]]


def layout_data(**changes) -> dict:
    data = {"dictionary": "DICT_4X4_50", "table": {"width_cm": 183.0, "depth_cm": 122.0},
            "markers": [{"id": 0, "corners_cm": SQUARE},
                        {"id": 1, "center_cm": [176.0, 7.0], "size_cm": 10.0, "rotation_deg": 0.0},
                        {"id": 2, "center_cm": [176.0, 115.0], "size_cm": 10.0},
                        {"id": 3, "center_cm": [7.0, 115.0], "size_cm": 10.0, "rotation_deg": 90.0}]}
    data.update(changes)
    return data


def with_marker(index: int, marker: dict) -> dict:
    data = layout_data()
    data["markers"][index] = marker
    return data


def test_centre_form_becomes_opencv_ordered_corners():
    layout = Layout.from_dict(layout_data())
    assert np.allclose(layout.corners_by_id[1], [[171, 2], [181, 2], [181, 12], [171, 12]])
    # Turned 90 degrees clockwise: the marker's top edge now runs along +y, on the right-hand side.
    assert np.allclose(layout.corners_by_id[3], [[12, 110], [12, 120], [2, 120], [2, 110]])
    assert Layout.from_dict(layout.to_dict()) == layout


@pytest.mark.parametrize("table", ["122x122", "183x122", "244x183"])
def test_default_layouts_put_markers_in_every_corner(table):
    layout = default_layout(table)
    width, depth = layout.table_size_cm
    assert f"{width:g}x{depth:g}" == table
    centres = np.array([c.mean(0) for c in layout.corners_by_id.values()])
    for corner in ([0, 0], [width, 0], [width, depth], [0, depth]):
        assert np.linalg.norm(centres - corner, axis=1).min() < 12
    assert layout == corner_layout((width, depth))
    assert len(layout.markers_as_synthetic()) == len(layout.markers)


@pytest.mark.parametrize("size_cm", [8.0, 10.0, 15.0])
def test_corner_markers_sheets_touch_the_table_edges(size_cm):
    """The detector clears the same sheets (`calibration.marker_sheet`) that the layout places."""
    layout = corner_layout((183.0, 122.0), size_cm=size_cm)
    sheets = [c.mean(0) + (c - c.mean(0)) * SHEET_SCALE for c in layout.corners_by_id.values()]
    lows, highs = np.min([s.min(0) for s in sheets], axis=0), np.max([s.max(0) for s in sheets], axis=0)
    np.testing.assert_allclose([*lows, *highs], [0, 0, 183, 122], atol=1e-3)
    assert sheet_reach(size_cm) == pytest.approx(sheets[0].max(0)[0] - sheets[0].mean(0)[0])


def test_load_layout_reads_the_file_it_wrote(tmp_path):
    path = tmp_path / "layout.json"
    path.write_text(default_layout("244x183").to_json())
    assert load_layout(path) == default_layout("244x183")


@pytest.mark.parametrize(("data", "message"), [
    (with_marker(2, {"corners_cm": SQUARE}), r"markers\.2\.id: Field required"),
    (with_marker(2, {"id": 50, "center_cm": [176.0, 115.0], "size_cm": 10.0}), "not in DICT_4X4_50"),
    (with_marker(2, {"id": 1, "center_cm": [176.0, 115.0], "size_cm": 10.0}), "listed twice"),
    (with_marker(0, {"id": True, "corners_cm": SQUARE}), r"markers\.0\.id: Input should be a valid integer"),
    (with_marker(0, {"id": "0", "corners_cm": SQUARE}), r"markers\.0\.id: Input should be a valid integer"),
    (with_marker(0, {"id": 0, "corners_cm": [[2, 2], [14, 2], [14, 12], [2, 12]]}), "not a square"),
    (with_marker(0, {"id": 0, "corners_cm": [[2, 2], [12, 12], [12, 2], [2, 12]]}), "self-intersecting"),
    (with_marker(0, {"id": 0, "corners_cm": SQUARE[::-1]}), "counter-clockwise"),
    (with_marker(0, {"id": 0, "corners_cm": SQUARE[:3]}), "4"),
    (with_marker(0, {"id": 0, "center_cm": [171.0, 7.0], "size_cm": 10.0}), "overlap"),
    (layout_data(dictionary="DICT_9X9_50"), "unknown ArUco dictionary"),
    (layout_data(markers=layout_data()["markers"][:3]), "at least 4"),
    (layout_data(table={"width_cm": -1, "depth_cm": 122}), "table.width_cm"),
    # A typing slip that calibration blamed on the printed marker ("moved, bent").
    (with_marker(1, {"id": 1, "center_cm": [505.0, 505.0], "size_cm": 10.0}), "marker 1 lies 388 cm outside"),
])
def test_bad_layouts_name_the_problem_on_one_line(data, message):
    with pytest.raises(TablesightError, match=message) as caught:
        Layout.from_dict(data)
    assert "\n" not in str(caught.value)


def test_unreadable_layout_files_are_user_errors(tmp_path):
    with pytest.raises(TablesightError, match="not found"):
        load_layout(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(TablesightError, match="not readable JSON"):
        load_layout(broken)
    with pytest.raises(TablesightError, match="no default layout"):
        default_layout("100x100")


def test_a_seed_table_size_names_its_default_sheets_unless_a_file_has_that_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_layout("183x122") == corner_layout((183.0, 122.0))
    assert load_layout(Path("244x183")) == default_layout("244x183")
    (tmp_path / "122x122").write_text(json.dumps(default_layout("183x122").to_dict()))
    assert load_layout("122x122") == default_layout("183x122")
    with pytest.raises(TablesightError, match="no default layout for a 100x100 table"):
        load_layout("100x100")


@pytest.mark.parametrize("table", ["nanxnan", "infx122", "183xnan", "1e400x122", "0x122", "-183x122"])
def test_a_table_size_that_is_no_size_names_the_size(table):
    with pytest.raises(TablesightError, match=rf"table size '{table}' must be positive and finite.*183x122"):
        parse_table(table)


def test_a_marker_on_a_sheet_over_the_tables_edge_is_accepted():
    data = with_marker(1, {"id": 1, "center_cm": [185.0, 7.0], "size_cm": 10.0})  # 7 cm past the edge
    assert Layout.from_dict(data).corners_by_id[1][:, 0].max() == 190.0


def test_markers_too_big_for_the_table_are_refused():
    with pytest.raises(TablesightError, match="do not fit"):
        corner_layout((40.0, 40.0), size_cm=15.0)


def test_written_json_is_one_marker_per_line():
    text = default_layout().to_json()
    assert json.loads(text) == default_layout().to_dict()
    assert sum('"id"' in line for line in text.splitlines()) == 4


def test_fields_added_later_are_ignored_and_british_centre_is_understood():
    data = layout_data(name="club table 3")
    data["markers"][1] = {"id": 1, "centre_cm": [176.0, 7.0], "size_cm": 10.0, "label": "top right"}
    layout = Layout.from_dict(data)
    assert np.allclose(layout.corners_by_id[1], [[171, 2], [181, 2], [181, 12], [171, 12]])


def test_a_folder_or_an_empty_name_as_the_layout_is_named_so(tmp_path):
    with pytest.raises(TablesightError) as caught:
        load_layout(tmp_path)
    assert str(caught.value).startswith(f"layout file {tmp_path} is a folder. give a layout JSON file")
    with pytest.raises(TablesightError, match=r"^--layout is empty\. give a layout JSON file"):
        load_layout("")


def test_a_marker_a_kilometre_wide_is_called_too_large_not_negative():
    """size_cm 1e9 was "must be a positive number"."""
    with pytest.raises(TablesightError, match=r"markers\.1: size_cm 1e\+09 is a kilometre or more: give "
                                              r"the marker's side in cm"):
        Layout.from_dict(with_marker(1, {"id": 1, "center_cm": [176.0, 7.0], "size_cm": 1e9}))


@pytest.mark.parametrize("size", ["183X122", "183 x 122", " 183x122 "])
def test_a_table_size_in_capitals_or_with_spaces_is_the_size(size, tmp_path, monkeypatch):
    """They were "layout file 183X122 not found", with no word of the WxD form."""
    monkeypatch.chdir(tmp_path)
    assert load_layout(size) == default_layout("183x122")


@pytest.mark.parametrize(("table", "in_cm"), [("6x4", "183x122"), ("4x4", "122x122"), ("8x4", "244x122")])
def test_a_table_size_in_feet_is_refused_with_its_size_in_cm(table, in_cm):
    message = rf"would be .* cm: sizes are in cm.*{table} feet is {in_cm} cm"
    for read in (parse_table, default_layout, load_layout):
        with pytest.raises(TablesightError, match=message):
            read(table)


@pytest.mark.parametrize("typed", ["183X122", " 183 x 122 ", "183×122", "183x122.0"])
def test_a_table_size_typed_any_common_way_names_its_default_layout(typed):
    """One reading of WxD for --layout, a default layout and a printed sheet (three parsers read
    it three ways: "183x122.0" was taken for a missing file)."""
    assert load_layout(typed).table_size_cm == (183.0, 122.0)
    assert parse_table(typed) == (183.0, 122.0)


def test_a_size_without_a_default_layout_is_named_as_a_size():
    with pytest.raises(TablesightError, match=r"no default layout for a 183\.5x122 table"):
        load_layout("183.5x122")
