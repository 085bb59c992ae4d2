"""Paths the system refuses (audit 19, P1/P4/P12): a file or folder the user may not read or
list, a name longer than the file system takes, `-o DIR/`. Each is one line naming the path,
the reason and what to do, with exit code 2 and no traceback, for every command."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rules_core.errors import TablesightError
from tests.demo_files import demo_layout_and_frames
from tracker.cli import main
from tracker.recording import Recording, RecordingWriter, is_recording
from tracker.session import DEMO_RECORDING

LONG = "a" * 300  # past the 255 bytes a file name may have
NO_CAPS = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"]  # root obeying file modes


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """The demo game's layout, a photo of its table and the recording itself, in tmp_path."""
    layout, jpegs = demo_layout_and_frames()
    (tmp_path / "layout.json").write_text(layout)
    (tmp_path / "frame0.jpg").write_bytes(jpegs[0])
    shutil.copy(DEMO_RECORDING, tmp_path / "demo.tsr")
    return tmp_path


def one_line(done_err: str, command: str) -> str:
    assert done_err.startswith(f"tablesight {command}: "), done_err
    assert done_err.count("\n") == 1 and "Traceback" not in done_err, done_err
    return done_err


@pytest.mark.parametrize("argv", [
    ["calibrate", "frame0.jpg", "--layout", "layout.json", "-o", f"{LONG}.json"],
    ["calibrate-lens", "frame0.jpg", "-o", f"{LONG}.json"],
    ["markers", "-o", f"{LONG}.pdf"],
    ["charuco-board", "-o", f"{LONG}.png"],
    ["replay", "demo.tsr", "--report", f"{LONG}.json"],
    ["replay", f"{LONG}.tsr"],
    ["track", f"{LONG}.mp4", "--layout", "layout.json", "--json"],
    ["track", LONG, "--fps", "5", "--layout", "layout.json"],  # met by the last-resort handler
    ["record", "--source", f"{LONG}.mp4", "--layout", "layout.json", "-o", "g.tsr"],
    ["record", "--source", "frame0.jpg", "--layout", "layout.json", "-o", f"{LONG}.tsr"],
    ["detect", "frame0.jpg", "--layout", "layout.json", "--weights", f"{LONG}.onnx", "--json"],
    ["doctor", "--source", f"{LONG}.mp4"],
    ["train", "-o", f"{LONG}.onnx", "--scenes", "1"],
    ["train", "--dataset", f"{LONG}.npz", "--scenes", "1", "-o", "t.onnx"],
], ids=lambda argv: "-".join(a for a in argv[:3] if LONG not in a))
def test_a_name_too_long_is_one_line_and_exit_2(table, monkeypatch, capsys, argv) -> None:
    monkeypatch.chdir(table)
    before = set(os.listdir(table))
    rc = main(argv)
    err = one_line(capsys.readouterr().err, argv[0])
    assert rc == 2, err
    assert "File name too long" in err and "shorter name" in err
    assert set(os.listdir(table)) == before


def test_the_last_resort_names_the_path_of_any_refused_os_call(monkeypatch, capsys) -> None:
    def refuses(args) -> int:
        raise PermissionError(errno.EACCES, "Permission denied", "some/where.json")

    monkeypatch.setattr("tracker.rules_cli._list", refuses)
    assert main(["rules", "list"]) == 2
    assert capsys.readouterr().err == (
        "tablesight rules: cannot use some/where.json (Permission denied). check that your user may use it "
        "and enter every folder above it (ls -ld), or use a path where it may.\n"
    )


def test_the_recording_entry_points_say_a_name_too_long(tmp_path: Path) -> None:
    long = tmp_path / f"{LONG}.tsr"
    for attempt in (lambda: is_recording(long), lambda: Recording(long),
                    lambda: RecordingWriter(long, {"ruleset": "world-at-fire"})):
        with pytest.raises(TablesightError, match="File name too long"):
            attempt()


@pytest.mark.parametrize(("argv", "example"), [
    (["calibrate", "frame0.jpg", "--layout", "layout.json", "-o", "newdir/"], "newdir/calibration.json"),
    (["calibrate-lens", "frame0.jpg", "-o", "lensdir/"], "lensdir/CAM.json"),
    (["replay", "demo.tsr", "--report", "repdir/"], "repdir/report.json"),
    (["record", "--source", "frame0.jpg", "--layout", "layout.json", "-o", "recdir/"], "recdir/game.tsr"),
    (["rectify", "frame0.jpg", "--calibration", "c.json", "-o", "outdir/"], "outdir/top.png"),
    (["markers", "-o", "mkdir/"], "mkdir/markers.pdf"),
    (["charuco-board", "-o", "bddir/"], "bddir/board.pdf"),
    (["train", "--dataset", "dsdir/", "--scenes", "1", "-o", "t.onnx"], "dsdir/rims.npz"),
], ids=lambda v: v[0] if isinstance(v, list) else None)
def test_an_output_ending_in_a_slash_is_refused_and_no_file_takes_its_name(
        table, monkeypatch, capsys, argv, example) -> None:
    monkeypatch.chdir(table)
    before = set(os.listdir(table))
    assert main(argv) == 2
    err = one_line(capsys.readouterr().err, argv[0])
    assert "ends in a slash, so it names a folder" in err and example in err
    assert set(os.listdir(table)) == before


needs_no_caps = pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None,
                                   reason="root reads every file; setpriv drops that")


def as_user(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`tablesight ARGV` as a user without root's right to read any file."""
    prefix = NO_CAPS if os.geteuid() == 0 else []
    return subprocess.run([*prefix, sys.executable, "-m", "tracker", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


@needs_no_caps
@pytest.mark.parametrize("argv", [
    ["replay", "noperm.tsr"],
    ["track", "noperm.tsr", "--json"],
    ["record", "--source", "noperm.jpg", "--layout", "layout.json", "-o", "x.tsr"],
    ["doctor", "--source", "noperm.jpg"],
    ["track", "nolist", "--layout", "layout.json", "--json"],
    ["replay", "locked/demo.tsr"],
    ["calibrate", "frame0.jpg", "--layout", "layout.json", "-o", "locked/c.json"],
    ["replay", "demo.tsr", "--report", "locked/r.json"],
    ["markers", "-o", "locked/m.pdf"],
    ["record", "--source", "frame0.jpg", "--layout", "layout.json", "-o", "locked/g.tsr"],
    ["detect", "frame0.jpg", "--layout", "layout.json", "--weights", "locked/w.onnx", "--json"],
], ids=lambda argv: "-".join(argv[:2]))
def test_a_file_or_folder_the_user_may_not_read_is_one_line_and_exit_2(table: Path, argv) -> None:
    shutil.copy(table / "demo.tsr", table / "noperm.tsr")
    shutil.copy(table / "frame0.jpg", table / "noperm.jpg")
    (table / "nolist").mkdir()
    shutil.copy(table / "frame0.jpg", table / "nolist" / "f.jpg")
    (table / "locked").mkdir()
    shutil.copy(table / "demo.tsr", table / "locked" / "demo.tsr")
    (table / "locked" / "w.onnx").write_bytes(b"")
    for path, mode in (("noperm.tsr", 0), ("noperm.jpg", 0), ("nolist", 0o311), ("locked", 0)):
        (table / path).chmod(mode)
    try:
        done = as_user(argv, table)
    finally:
        for path in ("nolist", "locked"):
            (table / path).chmod(0o755)
    err = one_line(done.stderr, argv[0])
    assert done.returncode == 2, err
    assert "(Permission denied)" in err
    assert not (table / "x.tsr").exists()
