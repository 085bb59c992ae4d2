"""The `tablesight` entry point itself: what every command shares."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

# An MP4 cut off after its header: FFmpeg says "moov atom not found" when it opens it.
CUT_MP4 = b"\x00\x00\x00\x1cftypisom\x00\x00\x02\x00isomiso2mp41\x00\x00\x00\x08free"


def run_quietly_configured(argv: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`tablesight ARGV` as a user runs it: with none of OpenCV's log settings in the environment."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OPENCV_")}
    return subprocess.run([sys.executable, "-m", "tracker", *argv], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=120, check=False)


def run_into_a_closed_pipe(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """`tablesight ARGV | head -0`, without the race: the reader is gone before the first write."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run([sys.executable, "-m", "tracker", *argv], stdout=writer,
                              stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    finally:
        os.close(writer)


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    done = run_into_a_closed_pipe(["rules", "list"])
    assert done.stderr == ""
    assert done.returncode == 141  # as a shell reports a process ended by SIGPIPE


@pytest.mark.parametrize(("argv", "ours"), [
    (["track", "cut.mp4", "--layout", "183x122"], "cut.mp4 looks cut off: it has no index"),  # FFmpeg's
    (["rectify", "cut.mp4", "--calibration", "c.json", "-o", "x.exr"], "no image format"),  # OpenCV's
])
def test_opencv_and_ffmpeg_print_nothing_before_our_line(tmp_path: Path, argv: list[str], ours: str) -> None:
    (tmp_path / "cut.mp4").write_bytes(CUT_MP4)
    done = run_quietly_configured(argv, tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"tablesight {argv[0]}: ") and ours in done.stderr
    assert done.stderr.count("\n") == 1


class _FullDisk:
    """A stdout on a full disk: every write fails, as `> report.json` there does."""

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        return self.descriptor


def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch) -> None:
    from tracker.cli import main

    with (tmp_path / "stands_for_stdout").open("w") as stand_in:
        monkeypatch.setattr(sys, "stdout", _FullDisk(stand_in.fileno()))
        assert main(["rules", "list"]) == 2
    assert capsys.readouterr().err == (
        "tablesight rules: cannot write the output (No space left on device). "
        "Free some space, or send the output somewhere that can take it.\n"
    )


def test_another_os_error_is_still_a_bug_with_its_traceback(monkeypatch) -> None:
    import tracker.rules_cli
    from tracker.cli import main

    def broken(*args: object) -> None:
        raise OSError(5, "a bug of ours")

    monkeypatch.setattr(tracker.rules_cli, "_print", broken)
    with pytest.raises(OSError, match="a bug of ours"):
        main(["rules", "list"])


def test_a_closed_stdout_runs_the_command_and_prints_nothing() -> None:
    """`tablesight rules list >&-` was a traceback: Python's stdout is None then."""
    done = subprocess.run([sys.executable, "-m", "tracker", "rules", "list"], preexec_fn=lambda: os.close(1),
                          stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    assert (done.returncode, done.stderr) == (0, "")


def test_version_names_the_installed_release(capsys: pytest.CaptureFixture[str]) -> None:
    """A bug report starts with which release it is; the version comes from the installed metadata."""
    from importlib.metadata import version

    from tracker.cli import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"tablesight {version('tablesight')}\n"
