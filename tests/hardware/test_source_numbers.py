"""Camera numbers past what a C int holds (`camera:99999999999999999999`, a typo of a long
number) met OpenCV's overload error with a traceback; the line a camera that is not there gets
is the one for these too. And `doctor --intrinsics` of a file that is not there, given without
--layout, was passed over in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.doctor import run_doctor
from tracker.cli import main

HUGE = ["2147483648", "99999999999999999999"]


@pytest.mark.parametrize("number", HUGE)
@pytest.mark.parametrize("command", ["track", "record", "doctor"])
def test_a_camera_number_past_any_camera_is_one_line(number: str, command: str, capsys, tmp_path) -> None:
    argv = {"track": ["track", f"camera:{number}", "--layout", "183x122"],
            "record": ["record", "--source", f"camera:{number}", "--layout", "183x122",
                       "-o", str(tmp_path / "g.tsr")],
            "doctor": ["doctor", "--source", f"camera:{number}"]}[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    # Not "try camera:100000000000000000000": cameras count from 0, one a camera.
    assert err.splitlines()[-1] == (f"tablesight {command}: no camera answers at index {number} "
                                    f"(camera:{number}). camera numbers count the cameras plugged in from "
                                    "0: try camera:0.")
    assert not list(tmp_path.iterdir())


def test_doctor_names_a_missing_lens_file_given_without_a_layout(image_folder: Path, tmp_path: Path) -> None:
    report = run_doctor(str(image_folder), intrinsics_path=tmp_path / "cam.json", disk_path=tmp_path)
    lens = {check.name: check for check in report.checks}["Lens calibration"]
    assert not lens.ok and "cam.json not found" in lens.finding
    assert report.exit_code == 1
