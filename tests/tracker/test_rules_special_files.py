"""A scene named by a pipe nothing writes into, or by a device, is refused: the first hung
`rules check` without end, the second read /dev/zero until memory ran out (a traceback)."""

from __future__ import annotations

import io
import os
import sys
import threading

import calibration.jsonfile
from tracker.cli import main


def test_a_scene_in_a_named_pipe_nothing_writes_into_is_refused(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(calibration.jsonfile, "PIPE_WAIT_S", 0.2)
    fifo = tmp_path / "scene.json"
    os.mkfifo(fifo)
    answer: list[int] = []
    runner = threading.Thread(target=lambda: answer.append(main(["rules", "check", str(fifo)])), daemon=True)
    runner.start()
    runner.join(10)
    if runner.is_alive():  # unblock the hung read so the test process can end
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert answer == [2]
    assert f"SCENE file {fifo} is a pipe nothing wrote into for 0.2 s" in capsys.readouterr().err


def test_a_scene_that_is_a_device_is_refused_without_reading_it_whole(capsys) -> None:
    assert main(["rules", "check", "/dev/zero"]) == 2
    assert "SCENE file /dev/zero is over 64 MB" in capsys.readouterr().err


def test_a_scene_on_standard_input_is_read_only_so_far(monkeypatch, capsys) -> None:
    monkeypatch.setattr(calibration.jsonfile, "MAX_BYTES", 100)
    monkeypatch.setattr(sys, "stdin", io.StringIO(" " * 1000 + "{}"))
    assert main(["rules", "check", "-"]) == 2
    assert "SCENE on standard input is over" in capsys.readouterr().err
