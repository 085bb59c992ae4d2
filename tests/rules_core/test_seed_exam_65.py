"""Session 65: the orders phase with no ruler (001) and the ambush that is the defender's alone (003)."""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene

MI, TM, WAF = "mobile-infantry", "tankomaster", "world-at-fire"

# --- 001 Mobile Infantry: no ruler while orders are given ---------------------------------------


def _mi_orders(phase: str) -> api.Scene:
    trooper = base(10, 10, "t", side="mi", unit="sq", type="trooper", weapons=["rifle"])
    return scene(MI, [trooper, base(10, 25, "b", side="bugs", unit="hive", type="bug")], phase=phase)


@pytest.mark.parametrize(
    "ask",
    [
        lambda s: api.ranges(s, "t"),
        lambda s: api.measure(s, "t", "b"),
        lambda s: api.under_template(s, "grenade", 10.0, 20.0, radius=20.0),
    ],
    ids=["ranges", "measure", "template"],
)
def test_mi_no_distance_is_measured_while_orders_are_given(ask) -> None:
    """001: «ВАЖНО! В игре все приказы назначаются без прикладывания линейки, все измерения на
    момент назначения приказов производятся игроком глазомером. Линейка прикладывается только во
    время исполнения приказов!» (orders are given without a ruler, every distance judged by eye;
    the ruler comes out only when the orders are carried out). A scene in the orders phase was
    refused as an unknown phase; now it is taken, and a ruler, a range or a template's distances
    asked in it are refused naming the phase, while the same scene in the movement phase is
    measured."""
    with pytest.raises(api.SceneError, match=r"orders phase.*без прикладывания линейки"):
        ask(_mi_orders("orders"))
    assert ask(_mi_orders("movement"))


def test_mi_the_orders_phase_still_has_its_state_report_and_tankomaster_measures_in_it() -> None:
    """The ban is Mobile Infantry's (`premeasure_allowed: false`): `check` in its orders phase
    reports the table as in any phase, and Tankomaster, whose orders come with no such ban, measures
    in its orders phase (the web UI's ruler there sent phase orders and was refused)."""
    assert api.check(_mi_orders("orders"))["phase"] == "orders"
    tm = scene(TM, [base(10, 10, "a"), base(10, 25, "e", side="blue")], phase="orders")
    assert api.measure(tm, "a", "e")["edge_cm"] == pytest.approx(11.8)


# --- 003 Tankomaster: only the defender ambushes ------------------------------------------------

WOOD = [{"id": "w", "kind": "forest", "polygon_cm": [[0, 40], [40, 40], [40, 80], [0, 80]]}]
BOTH = {"kind": "ambush", "sides": {"red": "left", "blue": "right"}}


def _armies(flag_red: bool = True, flag_blue: bool = False) -> list[dict]:
    """Red: a in the wood by its left edge; blue: e in the open 10 cm from its right edge."""
    return [
        base(20, 60, "a", unit="amb", **({"flags": ["ambush"]} if flag_red else {})),
        base(173, 60, "e", side="blue", unit="ea", **({"flags": ["ambush"]} if flag_blue else {})),
    ]


def test_tm_with_both_edges_named_the_side_flagging_ambushers_is_the_defender() -> None:
    """003: «Правилами для засады пользуется только обороняющийся» (only the defender uses the
    ambush rules) and «он не выставляет на поле тех солдат, которые и должны составить засаду» (the
    soldiers making up the ambush are held back: the flag `ambush`). With both sides named and red
    alone flagging ambushers, red defends: blue's soldier in the open was judged an ambusher out of
    rough terrain (in_deployment_zone false, `outside_deployment_zone`); now blue has no zone."""
    extra = {"phase": "deployment", "deployment": BOTH, "terrain": WOOD}
    report = api.check(scene(TM, _armies(), **extra))
    assert report["models"]["a"]["in_deployment_zone"] is True
    assert report["models"]["e"]["in_deployment_zone"] is None
    assert "only the defender" in report["models"]["e"]["problems"][0]
    assert report["deployment"]["warnings"] == []
    assert "outside_deployment_zone" not in codes(moved(TM, _armies()[:1], _armies(), **extra)["e"])
    assert list(api.deployment_zones(scene(TM, _armies(), **extra))) == ["red"]


@pytest.mark.parametrize(("flag_red", "flag_blue"), [(False, False), (True, True)])
def test_tm_an_ambush_naming_both_sides_with_no_one_defender_says_so(flag_red: bool, flag_blue: bool) -> None:
    """003: only the defender ambushes, but the scene has no field naming the defender: where both
    sides are named and neither, or both, flag their ambushers, each is still judged by the ambush
    rules (which of them defends cannot be known), and `check` now says so in deployment.warnings
    with what to change, instead of judging both in silence."""
    extra = {"phase": "deployment", "deployment": BOTH, "terrain": WOOD}
    report = api.check(scene(TM, _armies(flag_red, flag_blue), **extra))
    assert report["models"]["e"]["in_deployment_zone"] is False
    (warning,) = report["deployment"]["warnings"]
    assert "only the defender" in warning and "red, blue" in warning and "name only" in warning


# --- 000 World at Fire: a vehicle's move measured at the same point, its turns free --------------


@pytest.mark.parametrize(
    ("after", "moved_cm", "legal"),
    [
        ({"heading_deg": 180.0}, 0.0, True),
        ({"x_cm": 80.0, "heading_deg": 180.0}, 30.0, True),
        ({"y_cm": 80.0, "heading_deg": 90.0}, 30.0, True),
        ({"x_cm": 80.2, "heading_deg": 180.0}, 30.2, False),
    ],
)
def test_waf_a_tanks_turns_cost_nothing_and_its_drive_is_measured_in_full(after, moved_cm, legal) -> None:
    """000: «от переда гусеницы танка до переда той же гусеницы после перемещения» (measured from the
    front of a track to the front of the same track) and «может совершать повороты сколько угодно в
    начале движения, во время движения и в конце движения» (it turns as it likes at the start,
    during and at the end): a turn about its centre costs nothing and a straight drive moves every
    point alike, so the centre's displacement is the drive. The front of a track taken literally
    would charge a half-turn on the spot 22 cm and make a 30 cm drive ending in one 14 cm."""
    tank = hull(50, 50, "t", side="red", length_mm=200, width_mm=100)
    entry = moved(WAF, [tank], [{**tank, **after}])["t"]
    assert entry["moved_cm"] == pytest.approx(moved_cm) and entry["legal"] is legal
