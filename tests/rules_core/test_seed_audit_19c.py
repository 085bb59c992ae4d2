"""Nineteenth audit pass (tbm), rules-core leftovers: Mobile Infantry bridges and the grenade's
height range, and a Tankomaster AT gun brushing a hill.

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, moved, scene

TM = "tankomaster"
MI = "mobile-infantry"
TABLE = {"width_cm": 140, "depth_cm": 120}


def _piece(id: str, kind: str, x0: float, x1: float, y0: float, y1: float, **extra: object) -> dict:
    return {"id": id, "kind": kind, "polygon_cm": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], **extra}


# --- 2. Mobile Infantry bridges ------------------------------------------------------------------


def _walk(start: tuple[float, float], end: tuple[float, float], terrain: list[dict]) -> dict:
    trooper = base(*start, "t1", type="trooper", speed=150)
    after = {**trooper, "x_cm": end[0], "y_cm": end[1]}
    return moved(MI, [trooper], [after], terrain=terrain, table=TABLE)["t1"]


@pytest.mark.parametrize(
    ("start", "end", "legal"),
    [
        ((35, 60), (45, 60), True),  # along the road onto the level-2 hill
        ((45, 60), (35, 60), True),  # and down it again
        ((35, 50), (45, 62), True),  # steps onto the road and crosses the outline on it (y 56)
        ((35, 30), (45, 30), False),  # onto the hill away from the road
        ((35, 60), (45, 40), False),  # starts on the road, crosses the outline beside it (y 50)
    ],
)
def test_mi_a_road_across_a_barrier_is_a_bridge(
    start: tuple[float, float], end: tuple[float, float], legal: bool
) -> None:
    """001: «Барьеры одноэтажные и двухэтажные могут быть соединены мостами (мосты не дают штрафов
    при передвижении)» (one- and two-storey barriers may be joined by bridges; bridges give no
    movement penalty). CONTRACTS has no bridge kind, so a road piece laid across the barrier is the
    bridge. A trooper walking along it onto a level-2 hill was refused (impassable_terrain: he
    crosses up to level 1); now a move whose path crosses the outline on the road is free of the
    barrier rule, and one that crosses it beside the road is still refused."""
    hill = _piece("h2", "hill", 40, 100, 0, 120, level=2)
    road = _piece("br", "road", 30, 50, 55, 65)
    report = _walk(start, end, [hill, road])
    assert report["legal"] is legal
    assert ("impassable_terrain" in codes(report)) is not legal


def test_mi_a_road_across_a_two_storey_wall_bridges_it() -> None:
    """001: «Барьеры одноэтажные и двухэтажные могут быть соединены мостами»: a sheer wall counts as
    two storeys («2-х уровневый барьер»); a road laid across it lets a trooper walk over it (he was
    refused), and walking through the wall beside the road is still refused."""
    wall = _piece("w", "wall", 40, 41, 0, 120)
    road = _piece("br", "road", 30, 50, 55, 65)
    assert _walk((35, 60), (45, 60), [wall, road])["legal"] is True
    assert "impassable_terrain" in codes(_walk((35, 40), (45, 40), [wall, road]))


@pytest.mark.parametrize(
    ("road", "level"),
    [
        ((30, 38), 2),  # a road that stops 2 cm short of the barrier bridges nothing
        ((30, 50), 3),  # three storeys: «трехэтажные- категорически непреодолимые», no bridge
    ],
)
def test_mi_no_bridge_where_the_road_does_not_span_a_one_or_two_storey_barrier(
    road: tuple[float, float], level: int
) -> None:
    """001: bridges join only «Барьеры одноэтажные и двухэтажные», and a bridge has to reach the
    barrier: a road ending short of the hill, or laid onto a three-storey one, leaves the move
    impassable, as it was."""
    hill = _piece("h", "hill", 40, 100, 0, 120, level=level)
    report = _walk((35, 60), (45, 60), [hill, _piece("br", "road", *road, 55, 65)])
    assert report["legal"] is False
    assert "impassable_terrain" in codes(report)


# --- 11. the grenade gains no height range -------------------------------------------------------


def _reach_from_hill(weapons: list[str], edge_mm: float) -> list[str]:
    shooter = base(15, 15, "t", type="trooper", weapons=weapons)
    target = base(15 + 3.2 + edge_mm / 10, 15, "b", side="blue", type="bug")
    hill = _piece("h1", "hill", 0, 30, 0, 30, level=1)
    report = api.ranges(scene(MI, [shooter, target], terrain=[hill], table=TABLE), "t")
    return report["targets"][0]["weapons"]


@pytest.mark.parametrize(
    ("edge_mm", "reaching"),
    [
        (150, ["assault_rifle", "grenade", "hand_grenade", "grenade_launcher"]),  # grenade 140 + 10 mm
        (185, ["assault_rifle", "grenade_launcher"]),  # rifle 140 + 35 + 10; grenade not
        (255, ["grenade_launcher"]),  # the underbarrel launcher is fired, not thrown: 210 + 35 + 10
    ],
)
def test_mi_the_thrown_grenade_gains_no_range_from_height(edge_mm: float, reaching: list[str]) -> None:
    """001: «Рельеф дает важное тактическое преимущество: каждый уровень высоты добавляет дальности
    стрелковому оружию на +35 мм» (each height level adds +35 mm to small arms' range). A grenade
    is thrown («граната ..., которую можно бросать через препятствия»), not small arms: from a
    level-1 hill it reached a bug 185 mm away (140 + 35 + 10); now it reaches 150 mm only, while the
    rifle and the underbarrel grenade launcher keep the +35 mm."""
    weapons = ["assault_rifle", "grenade", "hand_grenade", "grenade_launcher"]
    assert _reach_from_hill(weapons, edge_mm) == reaching


# --- 1. an AT gun brushing a hill is not on it ---------------------------------------------------


def _gun_to(x: float) -> dict:
    crew = [base(24, 24 + 4 * k, f"c{k}", unit="G", crew_of="g") for k in range(3)]
    gun = base(32, 30, "g", unit="G", type="heavy_gun", diameter_mm=50)
    hill = _piece("h1", "hill", 40, 80, 0, 60)
    return moved(TM, [gun, *crew], [{**gun, "x_cm": x}, *crew], terrain=[hill], table=TABLE)["g"]


@pytest.mark.parametrize(
    ("x", "legal"),
    [
        (37.5, True),  # its 50 mm base touches the hill exactly
        (37.55, True),  # 0.05 cm into the hill's outline: camera noise
        (37.6, True),  # 0.1 cm into it: the contact tolerance
        (37.8, False),  # 0.3 cm into it: on the slope
        (41.0, False),  # its centre on the hill
    ],
)
def test_tm_an_at_gun_touching_a_hill_is_not_on_it(x: float, legal: bool) -> None:
    """003: «Противотанковое орудие может двигаться только по ровной местности» (an AT gun moves on
    flat ground only). A gun that stopped with its base 0.05 cm into a hill, its centre on flat
    ground, was refused (impassable_terrain: g ends in hill h1); a base touching the hill within the
    contact tolerance (0.1 cm) is beside it, as a move brushing a piece does not cross it. A base
    further in, or a centre on the hill, is still refused."""
    report = _gun_to(x)
    assert report["legal"] is legal
    assert ("impassable_terrain" in codes(report)) is not legal


@pytest.mark.parametrize(("end_x", "legal"), [(37.55, True), (38.0, False)])
def test_tm_an_at_gun_on_a_square_base_touching_a_hill_is_not_on_it(end_x: float, legal: bool) -> None:
    """«Противотанковое орудие может двигаться только по ровной местности»: a gun on a 50 mm
    square base stopped against a hill, half a millimetre in, stands on flat ground, as one on a
    round base does; 5 mm in, it is on the hill."""
    hill = {"id": "h1", "kind": "hill", "polygon_cm": [[40, 0], [80, 0], [80, 60], [40, 60]]}
    gun = {"id": "g", "side": "red", "unit": "G", "type": "heavy_gun", "x_cm": 32, "y_cm": 30,
           "heading_deg": 0, "base": {"shape": "rect", "length_mm": 50, "width_mm": 50}}
    crew = [base(24, 24 + 4 * k, f"c{k}", unit="G", crew_of="g") for k in range(3)]
    report = moved(TM, [gun, *crew], [{**gun, "x_cm": end_x}, *crew], terrain=[hill])["g"]
    assert report["legal"] is legal


def test_tm_an_at_gun_set_in_ambush_in_a_wood_breaks_no_placing_rule() -> None:
    """An ambush stands «в кустах, в лесу или в доме» (in bushes, a wood or a house), and an AT gun
    «может двигаться только по ровной местности» (moves only over flat ground): that limits its
    moves, not where it is set up. Check at deployment reported it as placed where it may not be."""
    wood = {"id": "f", "kind": "forest", "polygon_cm": [[10, 5], [40, 5], [40, 25], [10, 25]]}
    gun = {"id": "g", "side": "red", "unit": "red-g", "type": "heavy_gun", "x_cm": 20, "y_cm": 15,
           "heading_deg": 0.0, "base": {"shape": "rect", "length_mm": 30, "width_mm": 30}}
    enemy = base(150, 100, "e", side="blue", unit="blue-1")
    deployment = {"kind": "ambush", "sides": {"red": "top"}}
    report = api.check(scene(TM, [gun, enemy], terrain=[wood], phase="deployment", deployment=deployment))
    assert report["models"]["g"]["problems"] == []


@pytest.mark.parametrize(("bug_ends_x", "legal"), [(62.5, True), (70.0, False)])
def test_mi_an_enemy_walking_into_the_fire_zone_sets_the_interception_off_this_turn(
    bug_ends_x: float, legal: bool
) -> None:
    """001: «Активация приказа прерывает у вступившей в зону эффективного огня фигуры 2 действие»
    (the order goes off during the move of the figure that enters the fire zone) and «Данный
    приказ позволяет производить любые действия после его активации». A bug walking from 22 cm
    to 12.5 cm ahead of a trooper on interception (rifle 140 mm) set the order off, yet the
    trooper stepping 3 cm was held at 0 (check on AFTER said the order was triggered); one that
    stops 20 cm ahead, out of reach, leaves him waiting."""
    trooper = {"id": "r1", "side": "red", "unit": "red-r1", "type": "trooper", "x_cm": 50, "y_cm": 60,
               "order": "interception", "heading_deg": 0, "speed": 100, "weapons": ["assault_rifle"]}
    bug = {"id": "b1", "side": "blue", "unit": "blue-b1", "type": "bug", "x_cm": 72, "y_cm": 60}
    report = moved(MI, [trooper, bug], [{**trooper, "x_cm": 53}, {**bug, "x_cm": bug_ends_x}])
    assert report["r1"]["legal"] is legal
