"""Twenty-first audit pass, finding 3: a jet-pack jump is a straight flight, not a walk.

Each test cites the seed sentence it checks; the sentence is translated in the docstring. The
tests marked so failed before the fix (the jump was judged as a walk: refused as
`passes_through_model` over a model in its line, or let through by a curved way round).
"""

from __future__ import annotations

import pytest

from tests.rules_core.builders import base, codes, moved

BP = "bronepehota"
MI = "mobile-infantry"


@pytest.mark.parametrize("lands_x", [32, 30], ids=["12-cm-jump", "10-cm-jump"])
def test_bp_a_straight_jump_over_an_enemy_is_legal_with_no_way_round(lands_x: float) -> None:
    """004: «Ранцевый ускоритель позволяет пехотинцу перемещаться прыжком, что делает возможным
    преодоление высоких препятствий» and «Выполняется прыжок только прямо – изменять направление
    полёта во время прыжка пехотинец не может» (the jet pack lets him move by a jump, over high
    obstacles; the jump goes straight only, he cannot change direction in flight). A Пр5 jumper
    (12.5 cm) jumping straight over an enemy in his line flies over him: legal, as a flight and
    not as a curved way round (12 cm was `passes_through_model`, «the shortest way round is
    13.84 cm»; 10 cm passed with `path_cm` 12.14, a walk round the enemy's base, which a jump that
    cannot change direction does not have)."""
    jumper = base(20, 60, "p1", jump_range=5, jump=True)
    enemy = base(26, 60, "e1", side="blue")
    report = moved(BP, [jumper, enemy], [{**jumper, "x_cm": lands_x}, enemy])["p1"]
    assert report["legal"] is True, report["reasons"]
    assert report.get("path_cm") is None


def test_bp_a_jump_landing_on_an_enemy_base_is_refused() -> None:
    """004: «Пехотинец не может приземляться на лестнице или в другом месте, где невозможно
    установить его фигурку» (he may not land where his figure cannot be placed): a jump over
    nothing that lands on an enemy's base still overlaps it."""
    jumper = base(20, 60, "p1", jump_range=5, jump=True)
    enemy = base(30, 60, "e1", side="blue")
    report = moved(BP, [jumper, enemy], [{**jumper, "x_cm": 31}, enemy])["p1"]
    assert report["legal"] is False
    assert "overlaps_model" in codes(report)
    assert "passes_through_model" not in codes(report)


def test_bp_a_walk_over_the_same_enemy_is_still_refused() -> None:
    """004: «игрок должен выбрать ..., прыжком или шагами будет передвигаться его пехотинец» (the
    player chooses whether he jumps or walks): the same 12 cm through the enemy, walked at speed 5
    (12.5 cm, `jump` false), finds no way round within his speed: `passes_through_model`."""
    walker = base(20, 60, "p1", jump_range=5, jump=False, speed=5)
    enemy = base(26, 60, "e1", side="blue")
    report = moved(BP, [walker, enemy], [{**walker, "x_cm": 32}, enemy])["p1"]
    assert "passes_through_model" in codes(report)


def test_bp_a_jump_takes_no_curved_way_round_impassable_terrain() -> None:
    """004: «Выполняется прыжок только прямо – изменять направление полёта во время прыжка
    пехотинец не может»: a jump whose straight line crosses an `impassable` piece is refused,
    though a curved way round the 1 cm piece fits in the jump range (it was legal by that way
    round, `path_cm` 11.36 of 12.5 cm)."""
    square = [[24.5, 59.5], [25.5, 59.5], [25.5, 60.5], [24.5, 60.5]]
    piece = {"id": "i", "kind": "impassable", "polygon_cm": square}
    jumper = base(20, 60, "p1", jump_range=5, jump=True)
    report = moved(BP, [jumper], [{**jumper, "x_cm": 30}], terrain=[piece])["p1"]
    assert codes(report) == ["impassable_terrain"]
    assert "no way round" in report["reasons"][0]["detail"]


def test_mi_a_jet_jump_over_a_bug_is_legal() -> None:
    """001: «Передвижение реактивным прыжком ... переместить миниатюру МП на 140 мм по полю или
    преодолеть отвесную стену, 2-х уровневый барьер» (a jet jump moves the trooper 140 mm across
    the table, or over a sheer wall or a 2-level barrier): a 140 mm jump straight over a bug is a
    flight over it, legal (it was `passes_through_model`, a way round of 15.5 of 15 cm)."""
    trooper = base(20, 60, "t1", side="mi", unit="A", type="trooper", jump=True)
    bug = base(27, 60, "b1", side="bugs", unit="B", type="bug")
    report = moved(MI, [trooper, bug], [{**trooper, "x_cm": 34}, bug], sides=["mi", "bugs"])["t1"]
    assert report["legal"] is True, report["reasons"]


def test_mi_a_jet_jump_landing_on_a_bug_and_a_walk_through_it_are_refused() -> None:
    """001: the jump «с промежуточным приземлением на поверхность стола» (landing on the table
    surface) lands where a figure stands free: landing on the bug's base overlaps it; and a trooper
    walking the same 14 cm (no `jump`, speed 140 mm) through a bug in his line still finds no way
    round within 15 cm: `passes_through_model`."""
    trooper = base(20, 60, "t1", side="mi", unit="A", type="trooper", jump=True)
    bug = base(30, 60, "b1", side="bugs", unit="B", type="bug")
    landed = moved(MI, [trooper, bug], [{**trooper, "x_cm": 31}, bug], sides=["mi", "bugs"])["t1"]
    assert "overlaps_model" in codes(landed)
    walker, bug = {**trooper, "jump": False, "speed": 140}, {**bug, "x_cm": 27}
    walked = moved(MI, [walker, bug], [{**walker, "x_cm": 34}, bug], sides=["mi", "bugs"])["t1"]
    assert "passes_through_model" in codes(walked)
