"""`tablesight rules ...` through the real dispatcher: JSON out, exit 0; bad input exit 2, one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.rules_core.builders import base, hull, scene_data
from tracker.cli import main


def write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object, str]:
    code = main(["rules", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else out), err


@pytest.fixture
def scene_file(tmp_path: Path) -> str:
    models = [
        base(20, 30, "r1", unit="red-inf-1"),
        base(28.19, 30, "r2", unit="red-inf-1"),
        hull(100, 60, "t1", heading=90.0, length_mm=200, width_mm=95),
    ]
    return write(
        tmp_path,
        "scene.json",
        scene_data("world-at-fire", models, objectives=[{"id": "obj1", "x_cm": 91.5, "y_cm": 61.0}]),
    )


def test_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, _ = run(capsys, "list")
    assert code == 0 and {"id", "title", "source", "unit"} <= set(rows[0])
    code, shown, _ = run(capsys, "show", "tankomaster")
    assert code == 0 and shown["coherency"]["inclusive"] is True and shown["unit"] == "cm"


@pytest.mark.parametrize("argv", [["list"], ["show", "tankomaster"], ["check", "SCENE"],
                                  ["measure", "SCENE", "r1", "r2"], ["ranges", "SCENE", "r1"],
                                  ["zones", "SCENE"]])
def test_every_rules_command_takes_json_as_detect_and_track_do(capsys, scene_file, argv) -> None:
    """A caller adding --json to every command, as detect and track take it, was refused on each
    rules command ("unrecognized arguments"): their output is JSON anyway, the same either way."""
    argv = [scene_file if a == "SCENE" else a for a in argv]
    plain = run(capsys, *argv)
    assert plain[0] == 0 and run(capsys, *argv, "--json") == plain


def test_measure(capsys: pytest.CaptureFixture[str], scene_file: str) -> None:
    code, result, _ = run(capsys, "measure", scene_file, "r1", "r2")
    assert code == 0
    assert result["edge_cm"] == pytest.approx(4.99) and result["centre_cm"] == pytest.approx(8.19)
    assert result["edge_in_ruleset_units"] == pytest.approx(4.99)


def test_check(capsys: pytest.CaptureFixture[str], scene_file: str) -> None:
    code, result, _ = run(capsys, "check", scene_file)
    assert code == 0
    assert result["units"]["red-inf-1"] == {"coherent": True, "groups": [["r1", "r2"]], "applies": True}
    assert result["objectives"]["obj1"]["controlled_by"] is None


def test_check_reveals_a_mine_an_enemy_sapper_reached(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sapper = base(20 + 1.6 + 5 * 2.54, 30, "s", side="blue", role="sapper")
    mine = {"id": "m1", "side": "red", "x_cm": 20, "y_cm": 30}
    path = write(tmp_path, "s.json", scene_data("combined-arms", [sapper], mines=[mine]))
    code, result, _ = run(capsys, "check", path)
    assert code == 0
    assert result["mines"]["m1"] == {
        "kind": "mine", "side": "red", "revealed": True, "sappers": ["s"], "triggered_by": []
    }


def test_move(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    before = write(tmp_path, "before.json", scene_data("world-at-fire", [base(20, 30, "r1")]))
    after = write(tmp_path, "after.json", scene_data("world-at-fire", [base(35.1, 30, "r1")]))
    code, result, _ = run(capsys, "move", before, after)
    assert code == 0
    entry = result["models"]["r1"]
    assert (
        entry["moved_cm"] == pytest.approx(15.1) and entry["allowance_cm"] == 15.0 and entry["legal"] is False
    )
    assert entry["reasons"][0]["code"] == "too_far" and "15.1" in entry["reasons"][0]["detail"]


def test_a_model_only_in_after_with_no_rule_to_come_on_is_said_not_judged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """It was left out of the answer without a word: a model missing from BEFORE by mistake
    read as an arrival nobody judged. A moved one is judged as ever, and nothing is said then."""
    def scene(name: str, *models: dict) -> str:
        return write(tmp_path, name, scene_data("world-at-fire", list(models), phase="movement"))

    before = scene("before.json", base(20, 30, "r1"))
    after = scene("after.json", base(25, 30, "r1"), base(60, 60, "r9"))
    code, result, err = run(capsys, "move", before, after)
    assert code == 0 and list(result["models"]) == ["r1"]
    assert "r9 is in AFTER only, with no rule to come on now, so not judged" in err
    code, _, err = run(capsys, "move", before, scene("moved.json", base(25, 30, "r1")))
    assert code == 0 and err == ""


def test_ranges(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    models = [
        base(20, 30, "a", weapons=["rifle", "pistol"]),
        base(20 + 3.2 + 12 * 2.54, 30, "e", side="blue"),
    ]
    path = write(tmp_path, "s.json", scene_data("combined-arms", models))
    code, result, _ = run(capsys, "ranges", path, "a")
    assert code == 0
    assert result["from"] == "a"
    assert result["targets"][0]["id"] == "e" and result["targets"][0]["weapons"] == ["rifle"]
    assert result["targets"][0]["edge_in_ruleset_units"] == pytest.approx(12.0)


def test_zones_and_template(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.json",
        scene_data(
            "world-at-fire",
            [base(20, 30, "a")],
            phase="deployment",
            deployment={"kind": "breakthrough", "sides": {"red": "left"}},
        ),
    )
    code, zones, _ = run(capsys, "zones", path)
    assert code == 0 and set(zones) == {"red"}
    ca = write(tmp_path, "ca.json", scene_data("combined-arms", [base(20, 30, "a")]))
    code, under, _ = run(capsys, "template", ca, "grenade", "21", "30")
    assert code == 0 and under["models"][0]["id"] == "a"


def _bad(tmp_path: Path, data: object) -> str:
    return write(tmp_path, "bad.json", data)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("{not json", "invalid JSON at line 1"),
        (scene_data("chess", [base(10, 10)]), "ruleset"),
        (scene_data("world-at-fire", [base(10, 10, type="dragon")]), "models[0].type"),
        (scene_data("world-at-fire", [base(10, 10, side="")]), "models[0].side"),
        (scene_data("world-at-fire", [{**base(10, 10), "x_cm": "NaN"}]), "models[0].x_cm"),
        (scene_data("world-at-fire", [base(10, 10, diameter_mm=-32)]), "models[0].base.diameter_mm"),
        (
            scene_data(
                "combined-arms", [base(10, 10)], mines=[{"id": "m", "side": "red", "x_cm": "NaN", "y_cm": 1}]
            ),
            "mines[0].x_cm",
        ),
        (
            scene_data("combined-arms", [hull(50, 50, chassis="car", passengers=2, seats=20)]),
            "models[0].seats",
        ),
        (scene_data("world-at-fire", [base(10, 10, placed_order=0)]), "models[0].placed_order"),
        ({"ruleset": "world-at-fire", "models": []}, "table: missing"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_bad_scene_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: object, words: str
) -> None:
    code, _, err = run(capsys, "check", _bad(tmp_path, data))
    assert code == 2
    assert words in err
    assert err.count("\n") == 1 and err.startswith("tablesight rules: ")
    assert "Traceback" not in err


def test_nan_literal_in_json_is_rejected(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = json.dumps(scene_data("world-at-fire", [base(10, 10)])).replace('"x_cm": 10', '"x_cm": NaN')
    code, _, err = run(capsys, "check", _bad(tmp_path, text))
    assert code == 2 and "models[0].x_cm" in err


@pytest.mark.parametrize(
    "argv",
    [
        ("measure", "{scene}", "r1", "nobody"),
        ("ranges", "{scene}", "nobody"),
        ("check", "/no/such/file.json"),
        ("show", "chess"),
        ("move", "{scene}", "/no/such/file.json"),
    ],
)
def test_bad_arguments_exit_2(
    capsys: pytest.CaptureFixture[str], scene_file: str, argv: tuple[str, ...]
) -> None:
    code, _, err = run(capsys, *(a.format(scene=scene_file) for a in argv))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_malformed_user_ruleset_exits_2_naming_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "rulesets"
    folder.mkdir()
    (folder / "house.json").write_text('{\n  "id": "house",\n  "title": 5\n}', encoding="utf-8")
    monkeypatch.setenv("TABLESIGHT_RULESETS", str(folder))
    code, _, err = run(capsys, "show", "house")
    assert code == 2 and "house.json line" in err and "title" in err


@pytest.mark.parametrize(
    "raw", [b"[" * 100_000, b'{"x": ' + b"9" * 5000 + b"}", b"\xff\xfe\x00", b"\xef\xbb\xbf{"]
)
def test_unusable_bytes_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, raw: bytes
) -> None:
    path = tmp_path / "scene.json"
    path.write_bytes(raw)
    code, _, err = run(capsys, "check", str(path))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_a_broken_user_ruleset_breaks_only_itself(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "house.json").write_bytes(b"\xff\xfe\x00")
    monkeypatch.setenv("TABLESIGHT_RULESETS", str(tmp_path))
    code, rows, _ = run(capsys, "list")
    assert code == 0
    broken = next(row for row in rows if row["id"] == "house")
    assert "house.json" in broken["error"]
    assert {"world-at-fire", "tankomaster"} <= {row["id"] for row in rows if "error" not in row}
    code, _, err = run(capsys, "show", "house")
    assert code == 2 and "house.json" in err


@pytest.mark.parametrize(
    "argv", [("template", "{scene}", "grenade", "nan", "1"), ("template", "{scene}"), ("measure", "{scene}")]
)
def test_usage_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], scene_file: str, argv: tuple[str, ...]
) -> None:
    code = main(["rules", *(a.format(scene=scene_file) for a in argv)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("tablesight rules: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("path", "reason"), [("a" * 5000 + ".json", "File name too long"), (".", "Is a directory")]
)
def test_a_scene_path_the_system_refuses_says_why(capsys, path, reason):
    """The system's reason, not its exception's class: "cannot read (OSError)" left a player with
    a 5,000-character name guessing."""
    code, _, err = run(capsys, "check", path)
    assert code == 2 and f"cannot read ({reason})" in err and err.count("\n") == 1


def test_a_model_whose_side_changed_between_before_and_after_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """It was judged without a word: a side cannot change during a move, so one of the files is wrong."""
    before = write(tmp_path, "before.json", scene_data("world-at-fire", [base(20, 30, "r1")]))
    after = write(tmp_path, "after.json", scene_data("world-at-fire", [base(25, 30, "r1", side="blue")]))
    code, _, err = run(capsys, "move", before, after)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "model 'r1' is on side 'red' in BEFORE but on side 'blue' in AFTER" in err
    assert "fix" in err


def test_a_model_whose_unit_changed_is_judged_with_its_after_unit_and_said(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A dismount or a crew leaving its gun makes a new unit, so it is legal, but it was taken
    without a word: a unit mistyped in one file read as a new unit nobody was told of."""
    before = write(
        tmp_path, "before.json",
        scene_data("world-at-fire", [base(20, 30, "r1", unit="red-1"), base(28, 30, "r2", unit="red-1")]),
    )
    after = write(
        tmp_path, "after.json",
        scene_data("world-at-fire", [base(20, 30, "r1", unit="red-1"), base(33, 30, "r2", unit="red-2")]),
    )
    code, result, err = run(capsys, "move", before, after)
    assert code == 0 and result["models"]["r2"]["unit"] == "red-2"
    assert err.count("\n") == 1 and err.startswith("tablesight rules move: ")
    assert "r2 (unit red-1 in BEFORE, red-2 in AFTER)" in err


def test_check_judges_a_scene_with_a_model_off_the_table_and_names_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`move` reports a model off the table as `off_table`, while `check` refused the whole scene:
    a model waiting beside the table (in reserve) stopped the state report."""
    models = [
        base(20, 30, "r1", unit="red-1"), base(25, 30, "r2", unit="red-1"), base(-10, 30, "r3", unit="red-2")
    ]
    path = write(
        tmp_path, "s.json",
        scene_data("world-at-fire", models, objectives=[{"id": "obj1", "x_cm": 91.5, "y_cm": 61.0}]),
    )
    code, result, err = run(capsys, "check", path)
    assert code == 0
    assert result["units"]["red-1"]["groups"] == [["r1", "r2"]]
    assert result["objectives"]["obj1"]["controlled_by"] is None
    assert err.count("\n") == 1 and err.startswith("tablesight rules check: r3 is off the 183x122 cm table")
    code, _, err = run(capsys, "measure", path, "r1", "r2")
    assert code == 2 and "off the" in err


@pytest.mark.parametrize("command", ["check", "move"])
def test_a_scene_in_mm_is_refused_though_models_beside_the_table_are_taken(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    """A review: with models off the table taken, a scene written in mm (every model ten times too
    far out) passed `check` with a full report and a note; `move` took it as the AFTER scene."""
    def placed(scale: float) -> dict:
        at = [(20, 30, "r1", "red"), (25, 30, "r2", "red"), (150, 60, "b1", "blue")]
        return scene_data("world-at-fire", [base(scale * x, scale * y, i, side=side) for x, y, i, side in at])

    before, in_mm = write(tmp_path, "before.json", placed(1)), write(tmp_path, "after.json", placed(10))
    code, _, err = run(capsys, command, *([in_mm] if command == "check" else [before, in_mm]))
    assert code == 2 and "model 'r1' at (200.0, 300.0) is further off the" in err and "in mm" in err


def test_check_in_the_deployment_phase_without_a_deployment_says_what_to_add_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """in_deployment_zone is null for every model (it cannot be known), and nothing said why."""
    models = [base(20, 30, "r1"), base(25, 30, "r2"), base(150, 30, "b1", side="blue")]
    path = write(tmp_path, "s.json", scene_data("world-at-fire", models, phase="deployment"))
    code, result, err = run(capsys, "check", path)
    assert code == 0 and {m["in_deployment_zone"] for m in result["models"].values()} == {None}
    assert err.count("\n") == 1 and err.startswith("tablesight rules check: ")
    assert '"deployment"' in err and "breakthrough, ambush, diversion" in err
    deployment = {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}}
    path = write(
        tmp_path, "d.json", scene_data("world-at-fire", models, phase="deployment", deployment=deployment)
    )
    code, _, err = run(capsys, "check", path)
    assert code == 0 and err == ""
    path = write(tmp_path, "ca.json", scene_data("combined-arms", models, phase="deployment"))
    code, result, err = run(capsys, "check", path)
    assert code == 0 and err.count("\n") == 1 and "combined-arms has no deployment zones" in err


def test_ranges_from_an_id_that_is_both_a_model_and_a_unit_of_others_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """FROM took the model silently, though the unit of that name holds other models."""
    models = [base(20, 30, "a", unit="x"), base(26, 30, "x", unit="y"), base(150, 30, "e", side="blue")]
    path = write(tmp_path, "s.json", scene_data("world-at-fire", models))
    code, _, err = run(capsys, "ranges", path, "x")
    assert code == 2 and err.count("\n") == 1
    assert "FROM 'x' is both a model id and a unit id" in err and "rename the unit" in err
    models = [base(20, 30, "a", unit="a"), base(150, 30, "e", side="blue")]
    path = write(tmp_path, "one.json", scene_data("world-at-fire", models))
    code, result, _ = run(capsys, "ranges", path, "a")
    assert code == 0 and result["from"] == "a"
