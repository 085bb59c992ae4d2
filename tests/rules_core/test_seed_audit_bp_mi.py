"""Sixth audit of Bronepehota (seed 004) and Mobile Infantry (seed 001) against the Russian text.

Each test quotes the seed sentence it follows, translated in the docstring, and failed before its fix.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene

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


# --- 001 Mobile Infantry ---------------------------------------------------------------------


def _hill_under(x1: float, level: int) -> dict:
    return {"id": "h", "kind": "hill", "level": level, "polygon_cm": [[0, 0], [x1, 0], [x1, 122], [0, 122]]}


def test_mi_a_trooper_standing_on_a_height_level_shoots_35_mm_further_down() -> None:
    """001: «При нахождении назначенной цели ниже на 1 уровень высоты рельефа к эффективной дальности
    стрельбы прибавляется значение + 35 мм, и так за каждый уровень высоты (см. рельеф)» and «Рельеф
    местности представлен несколькими уровнями высоты» (a target one relief level below adds 35 mm
    per level): a trooper on a level-1 hill, given no level of his own, reaches a bug on the ground
    180 mm off with his 140 mm rifle (+ 10 mm misjudgement + 35 mm); from the ground he does not."""
    shooter, bug = base(20, 30, "t", type="trooper"), base(20 + 3.2 + 18, 30, "b", side="blue", type="bug")
    on_hill = api.ranges(scene(MI, [shooter, bug], terrain=[_hill_under(25, 1)]), "t")["targets"][0]
    assert on_hill["weapons"] == ["assault_rifle"]
    below = api.ranges(scene(MI, [shooter, bug], terrain=[_hill_under(10, 1)]), "t")["targets"][0]
    assert below["weapons"] == []
    own_level = api.ranges(scene(MI, [{**shooter, "level": 0}, bug], terrain=[_hill_under(25, 1)]), "t")
    assert own_level["targets"][0]["weapons"] == []


@pytest.mark.parametrize("jump", [False, True])
def test_mi_a_trooper_hit_in_a_leg_does_not_move(jump: bool) -> None:
    """001: «1и 2. - Попадание в левую и правую ноги. Попадание означает обездвиживание фигур ...
    Обездвиженный персонаж застывает на одном месте» (a hit in either leg immobilises the figure; it
    stays on one spot): a trooper with the flag leg_hit moves nowhere, walking or by jet jump."""
    before = base(20, 30, "t", type="trooper", speed=50, flags=["leg_hit"])
    report = moved(MI, [before], [{**before, "x_cm": 21.5, "jump": jump}])["t"]
    assert report["allowance_cm"] == 0.0
    assert codes(report) == ["too_far"]


def test_mi_a_trooper_hit_in_the_right_arm_fires_no_automatic_weapon() -> None:
    """001: «Правая рука отвечает за активацию спускового механизма на автоматическом оружии. Ранение
    в правую руку лишает возможности для персонажа вести автоматический огонь» (a right-arm wound
    takes away automatic fire): his rifle reaches nothing, his sniper rifle still does."""
    trooper = base(20, 30, "t", type="trooper", weapons=["assault_rifle", "sniper_rifle"])
    bug = base(20 + 3.2 + 10, 30, "b", side="blue", type="bug")
    assert api.ranges(scene(MI, [trooper, bug]), "t")["targets"][0]["weapons"] == [
        "assault_rifle",
        "sniper_rifle",
    ]
    hurt = {**trooper, "flags": ["right_arm_hit"]}
    assert api.ranges(scene(MI, [hurt, bug]), "t")["targets"][0]["weapons"] == ["sniper_rifle"]


def test_mi_a_trooper_hit_in_the_left_arm_takes_no_aimed_fire_bonus() -> None:
    """001: «попадание в левую руку. Левая рука используется вспомогательно, поэтому в случае
    попадания по ней, персонаж не может использовать прицельную стрельбу» (hit in the left arm, he
    cannot use aimed fire): his rifle does not gain the aimed 35 mm on a bug 180 mm off."""
    trooper = base(20, 30, "t", type="trooper", flags=["aimed"])
    bug = base(20 + 3.2 + 18, 30, "b", side="blue", type="bug")
    assert api.ranges(scene(MI, [trooper, bug]), "t")["targets"][0]["weapons"] == ["assault_rifle"]
    hurt = {**trooper, "flags": ["aimed", "left_arm_hit"]}
    assert api.ranges(scene(MI, [hurt, bug]), "t")["targets"][0]["weapons"] == []
