"""`rules scatter` and `rules hex`: the grenade's scatter (bp.grenade.scatter) and the tactical map's
hexes (mi.map.hex) were in the rules core's Python API only, out of reach of a player."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules_core.builders import base, scene_data
from tests.tracker.test_rules_cli import run, write


@pytest.mark.parametrize(("roll", "hit"), [("4", ["t"]), ("1", ["a"])])
def test_a_grenade_bursts_roll_steps_towards_its_target(capsys, tmp_path: Path, roll: str, hit: list) -> None:
    scene = write(tmp_path, "scene.json",
                  scene_data("bronepehota", [base(20, 30, "a"), base(30, 30, "t", side="blue")]))
    code, burst, _ = run(capsys, "scatter", scene, "a", "t", roll)
    assert code == 0
    assert burst["x_cm"] == pytest.approx(20 + int(roll) * 2.5)
    assert [m["id"] for m in burst["models"]] == hit


@pytest.mark.parametrize(("argv", "said"), [
    (("a", "t", "0"), "not a result of the d6"),
    (("a", "t", "three"), "invalid int value"),
    (("a", "nobody", "3"), "nobody"),
    (("a", "t", "3", "--kind", "smoke"), "no such template in ruleset bronepehota. give --kind grenade"),
])
def test_a_throw_that_cannot_be_is_one_line_and_exit_2(capsys, tmp_path: Path, argv, said) -> None:
    scene = write(tmp_path, "scene.json",
                  scene_data("bronepehota", [base(20, 30, "a"), base(30, 30, "t", side="blue")]))
    code, out, err = run(capsys, "scatter", scene, *argv)
    assert code == 2 and out == "" and said in err and len(err.strip().splitlines()) == 1


def test_a_hex_of_the_tactical_map_in_table_cm(capsys) -> None:
    assert run(capsys, "hex", "mobile-infantry", "3", "0")[:2] == (0, {"col": 3, "row": 0, "x_cm": 14.0,
                                                                       "y_cm": 2.0})
    code, _, err = run(capsys, "hex", "tankomaster", "0", "0")
    assert code == 2 and "has no hex map" in err


def test_a_template_that_does_not_scatter_is_laid_with_rules_template(capsys, tmp_path: Path) -> None:
    scene = write(tmp_path, "ca.json",
                  scene_data("combined-arms", [base(20, 30, "a"), base(30, 30, "t", side="blue")]))
    code, _, err = run(capsys, "scatter", scene, "a", "t", "3", "--kind", "grenade")
    assert code == 2 and "does not scatter" in err
    assert "lay it where it lands with `tablesight rules template SCENE.json grenade X_CM Y_CM`" in err


@pytest.mark.parametrize(("argv", "said"), [
    (("a", "t", "7"), "not a result of the d6 it scatters on"),  # the seed's d6
    (("a", "a", "3"), "a throws at itself"),
])
def test_a_roll_past_the_die_or_a_throw_at_oneself_is_refused(capsys, tmp_path: Path, argv, said) -> None:
    scene = write(tmp_path, "scene.json",
                  scene_data("bronepehota", [base(20, 30, "a"), base(30, 30, "t", side="blue")]))
    code, _, err = run(capsys, "scatter", scene, *argv)
    assert code == 2 and said in err


def test_a_hex_past_any_table_is_refused(capsys) -> None:
    code, _, err = run(capsys, "hex", "mobile-infantry", "99999999", "0")
    assert code == 2 and "past any table" in err
