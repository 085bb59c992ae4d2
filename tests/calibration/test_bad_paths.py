"""Output and input paths the calibration commands meet (audit 19, P1/P4/P11/P12): a name too
long, `-o DIR/`, and JSON files saved with a UTF-8 byte order mark."""

from __future__ import annotations

import errno
import json

import pytest

from calibration.intrinsics import load_intrinsics
from calibration.layout import default_layout, load_layout
from calibration.output_file import check_output, replace_atomically
from rules_core.errors import TablesightError

BOM = b"\xef\xbb\xbf"
LONG = "a" * 300


def test_check_output_refuses_a_name_ending_in_a_slash_and_makes_no_file(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TablesightError, match="ends in a slash, so it names a folder"):
        check_output("newdir/", "-o", "give -o a file name")
    assert not list(tmp_path.iterdir())


def test_check_output_says_a_name_too_long(tmp_path) -> None:
    too_long = r"cannot use .*a{300}\.json \(File name too long\). give a shorter"
    with pytest.raises(TablesightError, match=too_long):
        check_output(str(tmp_path / f"{LONG}.json"), "-o", "give -o a file name")


def test_unusable_names_the_path_the_reason_and_the_fix() -> None:
    from calibration.output_file import unusable

    error = PermissionError(errno.EACCES, "Permission denied", "x")
    assert str(unusable("rig/x.tsr", error, verb="read")) == (
        "cannot read rig/x.tsr (Permission denied). check that your user may use it and enter every folder "
        "above it (ls -ld), or use a path where it may.")
    assert unusable("x", OSError(errno.EFBIG, "File too large")).fix.startswith("free some disk space")
    # A stick or card mounted read-only: "check the path" sent the user to a path that is right.
    assert unusable("x", OSError(errno.EROFS, "Read-only file system")).fix == (
        "the drive is mounted read-only: give a path on a drive you can write to, or mount it writable")


def test_the_file_written_beside_keeps_its_suffix_for_writers_that_go_by_it(tmp_path) -> None:
    seen = []
    replace_atomically(tmp_path / "top.png",
                       lambda partial: (seen.append(partial.name), partial.write_text("x")))
    assert seen == [".top.partial.png"] and (tmp_path / "top.png").read_text() == "x"


def test_a_layout_saved_with_a_byte_order_mark_is_read(tmp_path) -> None:
    layout = default_layout("183x122")
    path = tmp_path / "layout.json"
    path.write_bytes(BOM + layout.to_json().encode())
    assert load_layout(str(path)).to_dict() == layout.to_dict()


def test_a_lens_calibration_saved_with_a_byte_order_mark_is_read(tmp_path) -> None:
    cam = {"K": [[1000.0, 0, 960], [0, 1000.0, 540], [0, 0, 1]], "dist": [0, 0, 0, 0, 0],
           "image_size": [1920, 1080]}
    path = tmp_path / "CAM.json"
    path.write_bytes(BOM + json.dumps(cam).encode())
    assert load_intrinsics(str(path)).image_size == (1920, 1080)
