"""`tablesight rules template` off the table and `rules move` across two games: one line, exit 2.

Both exited 0 saying nothing: a grenade centred 10,000 km off the table hit nobody, and a move
onto another table size (or with every model renamed) was {"models": {}}."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.rules_core.builders import base, scene_data
from tracker.cli import main


def write(tmp_path: Path, name: str, data: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(["rules", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    return err.rstrip("\n")


def test_a_template_centred_off_the_table_is_one_line_exit_2(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", scene_data("combined-arms", [base(20, 30, "a")]))
    assert refused(capsys, "template", path, "grenade", "1e9", "10") == (
        "tablesight rules: template grenade: centre (1000000000, 10) is off the 183x122 cm table. "
        "give x_cm from 0 to 183 and y_cm from 0 to 122, in cm (not mm), x along the width."
    )


def test_a_strip_centred_on_the_edge_is_laid(capsys, tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", scene_data("combined-arms", [base(182, 61, "a")]))
    assert main(["rules", "template", path, "smoke", "183", "61", "--heading", "90"]) == 0
    assert [m["id"] for m in json.loads(capsys.readouterr().out)["models"]] == ["a"]


def test_a_move_onto_another_table_size_is_one_line_exit_2(capsys, tmp_path: Path) -> None:
    before = write(tmp_path, "before.json", scene_data("world-at-fire", [base(20, 30, "r1")]))
    after = write(tmp_path, "after.json", scene_data("world-at-fire", [base(20, 30, "r1")], width=122))
    assert refused(capsys, "move", before, after) == (
        "tablesight rules: after.table: 122x122 cm differs from before.table 183x122 cm. "
        "compare two scenes of the same game, on one table."
    )


def test_a_move_with_every_model_renamed_is_one_line_exit_2(capsys, tmp_path: Path) -> None:
    before = write(tmp_path, "before.json", scene_data("world-at-fire", [base(20, 30, "r1")]))
    after = write(tmp_path, "after.json", scene_data("world-at-fire", [base(20, 30, "red-1")]))
    assert refused(capsys, "move", before, after) == (
        "tablesight rules: AFTER shares no model id with BEFORE (BEFORE has r1; AFTER has red-1). "
        "compare two scenes of the same game, each model under the same id in both "
        "(a casualty may be left out of AFTER)."
    )
