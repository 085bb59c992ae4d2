"""Sixth audit of Bronepehota (seed 004) and Mobile Infantry (seed 001) against the Russian text.

Each test quotes the seed sentence it follows, translated in the docstring, and failed before its fix.
"""

from __future__ import annotations

from tests.rules_core.builders import base, codes, moved

BP = "bronepehota"
MI = "mobile-infantry"


# --- 004 Bronepehota -------------------------------------------------------------------------


def test_bp_a_jet_pack_trooper_who_walks_is_judged_on_his_speed() -> None:
    """004: «Прыжок выполняется вместо обычного передвижения. Поэтому перед движением каждого воина с
    ранцевым ускорителем игрок должен выбрать ..., прыжком или шагами будет передвигаться его
    пехотинец» (a jump replaces the ordinary move; before each jet-pack trooper moves the player
    chooses whether he jumps or walks): with Ск 6 and Пр4 a 6-step walk is legal, a 6-step jump
    is not."""
    before = base(20, 30, "a", speed=6, jump_range=4)
    walk = moved(BP, [before], [{**before, "x_cm": 35}])["a"]
    assert walk["legal"] is True
    assert walk["allowance_cm"] == 15.0
    jump = moved(BP, [before], [{**before, "x_cm": 35, "jump": True}])["a"]
    assert codes(jump) == ["too_far"]
    assert jump["allowance_cm"] == 10.0
