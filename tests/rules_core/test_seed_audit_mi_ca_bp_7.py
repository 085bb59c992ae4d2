"""Seventh audit of mobile-infantry (001), combined-arms (002) and bronepehota (004), played blind
as a grader would: contract fields only, expected answers from the Russian text.

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

from rules_core import api
from tests.rules_core.builders import base, scene

CA = "combined-arms"
INCH = 2.54


# --- 002 Combined arms -----------------------------------------------------------------------


def test_a_wounded_fighter_does_not_fight() -> None:
    """002: «После выздоровления 1 полный ход раненый пехотинец имеет право только передвигаться. В
    следующем ходу пехотинец полностью восстанавливает свои функции» (after recovering, a wounded
    infantryman may only move for one full turn; the turn after he regains his functions), and
    prisoners are taken when «в радиусе 4 дюймов нет боеспособных солдат противника» (no
    combat-capable enemy within 4"), the wounded not counting. A wounded fighter, still short of
    that recovery, neither shoots nor starts a melee; a sound foe may still attack him."""
    hurt = base(20, 30, "w", wounded=True, weapons=["rifle", "pistol", "melee"])
    foe = base(20 + 3.2 + 0.5 * INCH, 30, "e", side="blue")
    board = scene(CA, [hurt, foe])
    assert api.ranges(board, "w")["targets"][0]["weapons"] == []
    assert [{c["a"], c["b"]} for c in api.check(board)["contacts"]] == [{"w", "e"}]
    both_hurt = scene(CA, [hurt, {**foe, "wounded": True}])
    assert api.check(both_hurt)["contacts"] == []
