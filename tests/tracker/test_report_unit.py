"""A replayed game's report says the unit its game measured in, as the live state does: the web
UI's replay drew a combined-arms game's moves in cm, where the live table said inches."""

from __future__ import annotations

import pytest

from tests.tracker.flat import flat_pipeline
from tracker.game import Game
from tracker.runner import GameRunner


@pytest.mark.parametrize(
    ("ruleset", "unit", "unit_cm"),
    [("world-at-fire", "cm", 1.0), ("combined-arms", "in", 2.54), ("bronepehota", "step", 3.0)],
)
def test_a_report_says_its_game_s_unit_in_cm(ruleset: str, unit: str, unit_cm: float) -> None:
    game = Game(ruleset, (183.0, 122.0))
    if unit == "step":  # the players' own step length, set in the game's setup
        game.apply("setup", {"ruleset": ruleset, "table": {"width_cm": 183, "depth_cm": 122}, "step_cm": 3.0})
    report = GameRunner(flat_pipeline(), game).report()
    assert (report["unit"], report["unit_cm"]) == (unit, pytest.approx(unit_cm))
