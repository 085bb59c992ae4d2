"""Eighth audit of Bronepehota (seed 004) and Mobile Infantry (seed 001) against the Russian text.

Each test quotes the seed sentence it follows, translated in the docstring, and failed before its fix.
"""

from __future__ import annotations

import pytest

from tests.rules_core.builders import base, codes, moved

BP = "bronepehota"
MI = "mobile-infantry"


# --- 004 Bronepehota -------------------------------------------------------------------------


@pytest.mark.parametrize("jump", [False, True])
def test_bp_an_infantryman_taking_aimed_fire_does_not_move(jump: bool) -> None:
    """004: «Игрок, чей пехотинец будет стрелять, должен перед выстрелом объявить противникам о том,
    что его пехотинец в этом туре ведёт прицельную стрельбу и, следовательно, не будет ни
    передвигаться, ни атаковать противника в ближнем бою» (a player who declares aimed fire for his
    infantryman this round says he will neither move nor attack in melee): with the flag aimed a
    trooper of Ск 6 and Пр4 moves nowhere, walking or jumping; without it the same 1-step move passes."""
    before = base(20, 30, "a", speed=6, jump_range=4)
    plain = moved(BP, [before], [{**before, "x_cm": 22.5, "jump": jump}])["a"]
    assert plain["legal"] is True
    aimed = {**before, "flags": ["aimed"]}
    report = moved(BP, [aimed], [{**aimed, "x_cm": 22.5, "jump": jump}])["a"]
    assert codes(report) == ["too_far"]
    assert report["allowance_cm"] == 0.0
