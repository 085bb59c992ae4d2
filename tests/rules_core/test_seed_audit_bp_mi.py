"""Sixth audit of Bronepehota (seed 004) and Mobile Infantry (seed 001) against the Russian text.

Each test quotes the seed sentence it follows, translated in the docstring, and failed before its fix.
"""

from __future__ import annotations

from tests.rules_core.builders import base, codes, hull, moved

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


def test_bp_what_a_helix_tows_ends_touching_it() -> None:
    """004: «После этого транспортируемый объект движется следом за транспортной машиной, касаясь
    её» (the towed object then follows the transport machine, touching it): a gun that went its
    HELIX's 5 cm but ends apart from it, or a HELIX that drove off without it, was not towed."""
    helix = hull(50, 50, "h", side="red", unit="helix", role="helix", length_mm=60, width_mm=40, towing="g")
    gun = hull(45, 50, "g", side="red", unit="guns", type="gun", length_mm=40, width_mm=40)
    together = moved(BP, [helix, gun], [{**helix, "x_cm": 55}, {**gun, "x_cm": 50}])
    assert together["h"]["legal"] is True
    assert together["g"]["legal"] is True
    apart = moved(BP, [helix, gun], [{**helix, "x_cm": 55}, {**gun, "y_cm": 55}])
    assert codes(apart["g"]) == ["moved_unaccompanied"]
    assert codes(apart["h"]) == ["moved_unaccompanied"]
    left = moved(BP, [helix, gun], [{**helix, "x_cm": 55}, gun])
    assert codes(left["h"]) == ["moved_unaccompanied"]
