"""Eighth audit of Bronepehota (seed 004) and Mobile Infantry (seed 001) against the Russian text.

Each test quotes the seed sentence it follows, translated in the docstring, and failed before its fix.
"""

from __future__ import annotations

import pytest

from rules_core import api
from rules_core.errors import SceneError
from tests.rules_core.builders import base, codes, hull, moved, scene

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


@pytest.mark.parametrize("jump", [False, True])
def test_bp_an_infantryman_repairing_does_not_move(jump: bool) -> None:
    """004: «чтобы отремонтировать 1 повреждение, пехотинец должен пропустить все свои действия в
    текущем игровом туре ... – передвижение, стрельбу и ближний бой» and «Поскольку одно из действий
    он уже произвёл (завершил передвижение), то ремонтировать орудие в этом туре он не сможет» (to
    repair one point of damage the infantryman skips all his actions this round, the move included;
    one who has moved cannot repair this round): with the flag repairing a trooper of Ск 6 and Пр4
    moves nowhere, walking or jumping."""
    before = base(20, 30, "a", speed=6, jump_range=4, flags=["repairing"])
    report = moved(BP, [before], [{**before, "x_cm": 22.5, "jump": jump}])["a"]
    assert codes(report) == ["too_far"]
    assert report["allowance_cm"] == 0.0


def test_bp_a_vehicle_whose_pilot_repairs_it_does_not_move_but_a_repair_helix_does() -> None:
    """004: «Если воин, который пилотирует боевую машину, умеет производить ремонт, то он может
    ремонтировать свою машину, не выходя из неё. Но обратите внимание, что при этом ремонт
    производится вместо действий машины – т.е. пока пилот занят ремонтом, машина (вместе с пилотом)
    пропускает свой ход» (while its pilot repairs it, the vehicle skips its turn), but for the repair
    HELIX «Ремонт производится во время действий ремонтной машины, вместо действия «Стрельба»» and
    «Передвижение и ближний бой ремонтной машины производятся согласно выше описанным правилам» (it
    repairs instead of shooting and moves as before): a vehicle flagged repairing stays put, a
    HELIX flagged repairing still drives its speed."""
    vehicle = hull(50, 50, "w", speed=6, flags=["repairing"])
    report = moved(BP, [vehicle], [{**vehicle, "x_cm": 55}])["w"]
    assert codes(report) == ["too_far"]
    assert report["allowance_cm"] == 0.0
    helix = hull(50, 50, "h", speed=6, role="helix", flags=["repairing"])
    assert moved(BP, [helix], [{**helix, "x_cm": 55}])["h"]["legal"] is True


@pytest.mark.parametrize(
    ("tug", "towed"),
    [
        (hull(50, 50, "h", side="red", unit="helix", length_mm=60, width_mm=40, towing="g"),
         hull(45, 50, "g", side="red", unit="guns", type="gun", length_mm=40, width_mm=40)),
        (base(50, 50, "h", towing="g"),
         hull(45, 50, "g", side="red", unit="guns", type="gun", length_mm=40, width_mm=40)),
        (hull(50, 50, "h", side="red", unit="helix", role="helix", length_mm=60, width_mm=40, towing="g"),
         base(45, 50, "g")),
    ],
    ids=["vehicle_without_platform", "infantryman", "helix_towing_infantry"],
)
def test_bp_only_a_helix_tows_and_only_vehicles_and_guns(tug: dict, towed: dict) -> None:
    """004: «Описанная в предыдущем разделе боевая машина HELIX, оборудованная ремонтно-транспортной
    платформой, может буксировать другие боевые машины или мобильные орудия» (the HELIX with the
    repair-transport platform may tow other combat vehicles or mobile guns): a scene in which a
    vehicle that is no HELIX, or an infantryman, tows, or a HELIX tows an infantryman, is refused
    naming models[i].towing; a HELIX towing a gun is accepted."""
    with pytest.raises(SceneError, match=r"models\[0\]\.towing"):
        scene(BP, [tug, towed])
    helix = hull(50, 50, "h", side="red", unit="helix", role="helix", length_mm=60, width_mm=40, towing="g")
    scene(BP, [helix, hull(45, 50, "g", side="red", unit="guns", type="gun", length_mm=40, width_mm=40)])


# --- 001 Mobile Infantry ---------------------------------------------------------------------


@pytest.mark.parametrize("jump", [False, True])
def test_mi_a_trooper_in_a_stupor_neither_moves_nor_fires(jump: bool) -> None:
    """001: «Реакция паники бывает 3-х типов: ... Ступор, 1-2 (стоит на одном месте и не
    предпринимает никаких действий)» (a panic reaction of 1-2 is a stupor: he stands on one spot
    and takes no action): a trooper with the flag stupor moves nowhere, walking or by jet jump, and
    his rifle reaches no bug; a sound trooper walks and reaches it."""
    trooper, bug = base(20, 30, "t", type="trooper", speed=50), base(30, 30, "b", side="blue", type="bug")
    assert moved(MI, [trooper, bug], [{**trooper, "x_cm": 21.5, "jump": jump}, bug])["t"]["legal"] is True
    assert api.ranges(scene(MI, [trooper, bug]), "t")["targets"][0]["weapons"] == ["assault_rifle"]
    dazed = {**trooper, "flags": ["stupor"]}
    report = moved(MI, [dazed, bug], [{**dazed, "x_cm": 21.5, "jump": jump}, bug])["t"]
    assert codes(report) == ["too_far"]
    assert report["allowance_cm"] == 0.0
    assert api.ranges(scene(MI, [dazed, bug]), "t")["targets"][0]["weapons"] == []


def test_mi_a_bug_spends_at_most_two_actions_moving() -> None:
    """001: «В 1 ход каждый персонаж любой из сторон может совершить 2 действия ... Для рядового
    жука 1 действие передвижения составляет 50 мм, 2 действия 50Х2=100 мм» and «Каждый из приказов
    включает в себя максимум 2 действия» (two actions a turn; a bug's two moves are 100 mm): a bug
    said to spend 3 move actions is refused naming models[i].move_actions; 2 pass."""
    bug = base(20, 30, "b", type="bug", move_actions=3)
    with pytest.raises(SceneError, match=r"models\[0\]\.move_actions"):
        scene(MI, [bug])
    two = {**bug, "move_actions": 2}
    assert moved(MI, [two], [{**two, "x_cm": 30}])["b"]["legal"] is True
