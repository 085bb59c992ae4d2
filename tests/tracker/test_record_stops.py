"""How `record` ends (audit 19, P2/P6): a disk already full when it starts, SIGTERM or SIGHUP
(a `systemctl stop`, `timeout`, a dropped ssh session), and a recording copied without the
-wal file that a killed recorder leaves its game in."""

from __future__ import annotations

import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rules_core.errors import TablesightError
from tests.demo_files import demo_stills
from tracker.recording import Recording, RecordingWriter

MANIFEST = {"ruleset": "world-at-fire", "table": {"width_cm": 183.0, "depth_cm": 122.0}}


@pytest.fixture
def frames(tmp_path: Path) -> Path:
    """The demo game's layout, and a folder of its frames long enough to be stopped part-way."""
    return demo_stills(tmp_path, 400)


def tablesight(argv: list[str], cwd: Path, **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tracker", *argv], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **options)


def test_a_disk_full_when_recording_starts_is_one_line_and_leaves_no_file(frames: Path) -> None:
    def full_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    argv = ["record", "--source", "frames", "--layout", "layout.json", "-o", "full.tsr"]
    done = tablesight(argv, frames, preexec_fn=full_disk)
    _, err = done.communicate(timeout=120)
    assert done.returncode == 2, err
    assert err.startswith("tablesight record: cannot create full.tsr (") and "disk full" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not list(frames.glob("full.tsr*")), "nothing left to block the same command run again"


def test_the_writer_on_a_full_disk_raises_its_error_and_removes_its_file(tmp_path: Path) -> None:
    path = tmp_path / "g.tsr"
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, limit[1]))
    try:
        with pytest.raises(TablesightError, match="is the disk full"):
            RecordingWriter(path, MANIFEST)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_record_stopped_by_a_signal_folds_its_game_into_the_file(frames: Path, signum: int) -> None:
    """The file is closed whole, and the status says the game was stopped, not that its source
    ended (it was 0, where track and replay give 128 + the signal: session 63, m1)."""
    game = frames / "game.tsr"
    log = frames / "game.tsr-wal"
    argv = ["record", "--source", "frames", "--layout", "layout.json", "-o", "game.tsr", "--every", "1"]
    done = tablesight(argv, frames)
    deadline = time.monotonic() + 60
    while not (log.exists() and log.stat().st_size > 100_000) and time.monotonic() < deadline:
        time.sleep(0.05)  # a few frames committed, all still in the -wal file
    done.send_signal(signum)
    _, err = done.communicate(timeout=60)
    assert done.returncode == 128 + signum, err
    said = "stopped by the user." if signum == signal.SIGINT else f"stopped ({signal.Signals(signum).name})."
    assert f"tablesight record: {said}\n" in err and "Traceback" not in err
    assert not log.exists(), "the log is folded into the recording"
    copy = frames / "copy"
    copy.mkdir()
    shutil.copy(game, copy)  # the .tsr alone, as a user copies it off the rig
    recording = Recording(copy / "game.tsr")
    assert recording.frame_count() > 0
    recording.close()


def test_a_recording_copied_without_its_wal_says_to_copy_that_too(tmp_path: Path) -> None:
    path = tmp_path / "game.tsr"
    writer = RecordingWriter(path, MANIFEST)  # left open: what a killed recorder leaves
    writer.add_frame(0, 0.0, "f", b"\xff\xd8" + b"\0" * 1000)
    writer.commit()
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(path, copy)
    with pytest.raises(TablesightError, match=r"game\.tsr-wal, which is not beside it: copy that file too"):
        Recording(copy / "game.tsr")
    shutil.copy(path.with_name("game.tsr-wal"), copy)
    Recording(copy / "game.tsr").close()  # with it beside, the game is there
    writer.close()


def test_a_recording_cut_to_its_header_still_says_nothing_can_be_replayed(tmp_path: Path) -> None:
    path = tmp_path / "game.tsr"
    writer = RecordingWriter(path, MANIFEST)
    writer.close()  # closed: no longer in WAL mode, so no -wal file was ever its to lose
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(TablesightError, match="nothing in it can be replayed"):
        Recording(path)
