"""A full disk keeps the file a command meant to replace (audit 19, P5): `markers`,
`charuco-board` (PDF and PNG) and `rectify` write beside it and rename, as `calibrate` does,
and a PNG OpenCV failed to write is an error, never "wrote"."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.demo_files import demo_layout_and_frames


def tablesight(argv: list[str], cwd: Path, limit_bytes: int | None = None) -> subprocess.CompletedProcess:
    def full_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run([sys.executable, "-m", "tracker", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False, preexec_fn=full_disk if limit_bytes else None)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    layout, jpegs = demo_layout_and_frames()
    (tmp_path / "layout.json").write_text(layout)
    (tmp_path / "frame0.jpg").write_bytes(jpegs[0])
    done = tablesight(["calibrate", "frame0.jpg", "--layout", "layout.json", "-o", "calib.json"], tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path


@pytest.mark.parametrize("argv", [
    ["markers", "-o", "mk.pdf"],
    ["charuco-board", "-o", "bd.pdf"],
    ["charuco-board", "-o", "bd.png"],
    ["rectify", "frame0.jpg", "--calibration", "calib.json", "-o", "top.png"],
], ids=lambda argv: f"{argv[0]}-{Path(argv[-1]).suffix[1:]}")
def test_a_full_disk_keeps_the_old_file_and_exits_2(table: Path, argv: list[str]) -> None:
    out = table / argv[-1]
    first = tablesight(argv, table)
    assert first.returncode == 0, first.stderr
    kept = {path.name: path.read_bytes() for path in table.iterdir() if path.is_file()}
    done = tablesight(argv, table, limit_bytes=1024)
    assert done.returncode == 2, done.stderr
    ours = [line for line in done.stderr.splitlines() if line.startswith("tablesight")]
    assert len(ours) == 1, done.stderr
    assert ours[0].startswith(f"tablesight {argv[0]}: cannot write {out.name}"), done.stderr
    assert "wrote" not in done.stdout
    assert {path.name: path.read_bytes() for path in table.iterdir() if path.is_file()} == kept


def test_a_board_png_that_cannot_be_written_is_no_success(tmp_path: Path) -> None:
    done = tablesight(["charuco-board", "-o", "new.png"], tmp_path, limit_bytes=1024)
    assert done.returncode == 2 and "wrote" not in done.stdout, done.stderr
    assert "tablesight charuco-board: cannot write new.png" in done.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("argv", [
    ["charuco-board", "-o"],
    ["rectify", "frame0.jpg", "--calibration", "calib.json", "-o"],
], ids=lambda argv: argv[0])
def test_a_png_named_in_latin_1_is_written(table: Path, argv: list[str]) -> None:
    """OpenCV takes file names as UTF-8 and died of a segmentation fault writing to a Latin-1 one
    (an é off an older system's stick), with no word at all."""
    name = b"plateau-\xe9.png"
    done = subprocess.run([sys.executable, "-m", "tracker", *argv, name], cwd=table, capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == 0, (done.returncode, done.stderr)
    with open(os.fsencode(table) + b"/" + name, "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"
