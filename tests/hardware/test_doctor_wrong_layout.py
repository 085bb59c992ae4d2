"""`tablesight doctor` with a layout that does not match the table: the layout is named, and the
detail line never reads "one pixel covers inf mm"."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.table import calibrate
from hardware import doctor
from hardware.doctor import check_calibration
from tests.hardware.test_doctor import table  # noqa: F401  (the rendered small table)


def test_swapped_markers_are_blamed_on_the_layout(table: tuple[Path, Path]) -> None:  # noqa: F811
    folder, layout_path = table
    data = json.loads(layout_path.read_text())
    data["markers"][0]["center_cm"], data["markers"][1]["center_cm"] = (data["markers"][1]["center_cm"],
                                                                        data["markers"][0]["center_cm"])
    checks = check_calibration(cv2.imread(str(folder / "frame_0.png")), Layout.from_dict(data))
    assert [c.name for c in checks] == ["Markers"] and not checks[0].ok
    assert checks[0].finding.startswith("the markers are not where --layout says")
    assert "inf" not in " ".join(c.finding for c in checks)


def test_a_table_mapped_onto_no_area_is_not_inf_mm(table: tuple[Path, Path]) -> None:  # noqa: F811
    folder, layout_path = table
    image = cv2.imread(str(folder / "frame_0.png"))
    calibration = calibrate(image, Layout.from_dict(json.loads(layout_path.read_text())))
    calibration.table_to_image = lambda cm: np.full((len(cm), 2), np.nan)
    detail = {c.name: c for c in doctor._coverage(calibration)}["Detail"]
    assert not detail.ok and "inf" not in detail.finding
    assert detail.finding.startswith("not measured: the calibration maps the table onto no area")
    assert "--layout is this table's size" in detail.fix
