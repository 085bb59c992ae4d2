"""`tablesight rules ...` in the orders phase of an order-based game (Mobile Infantry, 001)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules_core.builders import base, scene_data
from tests.tracker.test_rules_cli import run, write


@pytest.fixture
def orders_scene(tmp_path: Path) -> str:
    models = [
        base(10, 10, "t", side="mi", unit="sq", type="trooper", weapons=["rifle"]),
        base(10, 25, "b", side="bugs", unit="hive", type="bug"),
    ]
    return write(tmp_path, "orders.json", scene_data("mobile-infantry", models, 88, 144, phase="orders"))


@pytest.mark.parametrize("argv", [("ranges", "t"), ("measure", "t", "b")])
def test_no_ruler_while_orders_are_given(
    capsys: pytest.CaptureFixture[str], orders_scene: str, argv: tuple[str, ...]
) -> None:
    """001: «все приказы назначаются без прикладывания линейки ... Линейка прикладывается только во
    время исполнения приказов!»: `ranges` and `measure` in the orders phase exit 2 with one line
    saying why and when to measure (they said the phase was not one); `check` still reports."""
    code, out, err = run(capsys, argv[0], orders_scene, *argv[1:])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "no ruler in the orders phase of mobile-infantry" in err and "phase movement" in err
    code, report, err = run(capsys, "check", orders_scene)
    assert code == 0 and report["phase"] == "orders" and err == ""
