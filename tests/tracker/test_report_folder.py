"""`replay --report`'s folder is tried for a new file once before the replay, whether it is there
yet or not: a report into a folder not made yet tried its nearest folder twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.cli import main
from tracker.replay import Replay


@pytest.fixture
def probes(monkeypatch) -> list[Path]:
    """The folders a file was touched in to try them, with the replay itself left out."""
    touched: list[Path] = []
    touch = Path.touch

    def counted(self: Path, *args, **kwargs) -> None:
        if self.name.endswith(".probe"):
            touched.append(self.parent)
        touch(self, *args, **kwargs)

    monkeypatch.setattr(Path, "touch", counted)
    monkeypatch.setattr("tracker.replay.replay",
                        lambda path, on_result=None: Replay(report={"recording": "g.tsr", "events": []}))
    return touched


@pytest.mark.parametrize("report", ["report.json", "reports/game1/report.json"],
                         ids=["there", "not-made-yet"])
def test_the_report_folder_is_tried_once(tmp_path, probes, report) -> None:
    assert main(["replay", str(tmp_path / "g.tsr"), "--report", str(tmp_path / report)]) == 0
    assert probes == [tmp_path]
    assert (tmp_path / report).is_file()


def test_a_file_where_the_report_folder_goes_is_said_without_trying_a_folder(tmp_path, probes,
                                                                             capsys) -> None:
    in_the_way = tmp_path / "game.tsr"
    in_the_way.write_bytes(b"")
    report = in_the_way / "new" / "report.json"
    assert main(["replay", str(tmp_path / "g.tsr"), "--report", str(report)]) == 2
    assert capsys.readouterr().err == (
        f"tablesight replay: --report {report}: {in_the_way} is a file, not a folder, so no folder can be "
        "made in it. give --report a new file name, e.g. report.json.\n")
    assert probes == []


def test_a_folder_not_made_yet_in_one_that_refuses_files_is_said_once(tmp_path, probes, capsys) -> None:
    assert main(["replay", str(tmp_path / "g.tsr"), "--report", "/proc/reports/report.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablesight replay: --report /proc/reports/report.json cannot be written: /proc "
                          "refuses a new file (")
    assert err.endswith("). give --report a new file name, e.g. report.json.\n") and err.count("\n") == 1
    assert probes == [Path("/proc")]
