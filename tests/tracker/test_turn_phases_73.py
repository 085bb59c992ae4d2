"""A ruleset orders its own turn: the order-based games were two ids written into the tracker, so
a player's own order-based ruleset was played without its orders phase."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from rules_core.errors import TablesightError
from rules_core.library import load_ruleset
from tracker.game import Game, phases_of

TABLE = {"width_cm": 183.0, "depth_cm": 122.0}


def house_rules(folder: Path, **changes) -> None:
    shipped = resources.files("rules_core") / "rulesets" / "world-at-fire.json"
    ruleset = json.loads(shipped.read_text("utf-8"))
    ruleset.update(id="house", title="House rules", **changes)
    (folder / "house.json").write_text(json.dumps(ruleset, ensure_ascii=False), encoding="utf-8")


def test_a_players_order_based_ruleset_is_played_with_its_orders_phase(tmp_path, monkeypatch) -> None:
    house_rules(tmp_path, turn_phases=["deployment", "orders", "movement", "shooting", "assault"])
    monkeypatch.setenv("TABLESIGHT_RULESETS", str(tmp_path))
    game = Game()
    game.apply("setup", {"ruleset": "house", "table": TABLE})
    assert game.phases == ["deployment", "orders", "movement", "shooting", "assault"]
    game.apply("phase", {"to": "next"})
    assert game.phase == "orders"


def test_the_shipped_order_based_games_keep_theirs() -> None:
    assert phases_of("mobile-infantry") == phases_of("tankomaster") == [
        "deployment", "orders", "movement", "shooting", "assault"]
    assert phases_of("combined-arms") == ["deployment", "movement", "shooting", "assault"]


@pytest.mark.parametrize(("phases", "said"), [
    (["deployment", "movement", "movement"], "twice"),
    (["deployment", "charge"], "turn_phases"),
    ([], "turn_phases"),
])
def test_a_turn_that_cannot_be_played_is_refused_naming_it(tmp_path, monkeypatch, phases, said) -> None:
    house_rules(tmp_path, turn_phases=phases)
    monkeypatch.setenv("TABLESIGHT_RULESETS", str(tmp_path))
    with pytest.raises(TablesightError, match=said):
        load_ruleset("house")


def test_a_players_older_copy_of_an_order_based_ruleset_keeps_its_orders_phase(tmp_path, monkeypatch) -> None:
    """Copied with `rules show` before rulesets said their turn: the copy has no turn_phases, and
    Tankomaster lost its orders phase (a recording of it then refused its own phase controls)."""
    shipped = resources.files("rules_core") / "rulesets" / "tankomaster.json"
    ruleset = json.loads(shipped.read_text("utf-8"))
    del ruleset["turn_phases"]
    (tmp_path / "tankomaster.json").write_text(json.dumps(ruleset, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setenv("TABLESIGHT_RULESETS", str(tmp_path))
    assert phases_of("tankomaster") == ["deployment", "orders", "movement", "shooting", "assault"]
    assert load_ruleset("tankomaster").source == ruleset["source"]  # the player's file, still
