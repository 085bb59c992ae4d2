"""A template centred off the table is refused (a slip: mm for cm, x and y swapped), naming the
centre and the table; one centred on it, the edge included, may reach past the edge."""

from __future__ import annotations

import pytest

from rules_core import api
from rules_core.errors import SceneError
from tests.rules_core.builders import base, scene, scene_data

CA, BP, MI = "combined-arms", "bronepehota", "mobile-infantry"
# The template's arguments are table cm in every ruleset; only a radius is in the ruleset's units.
RADIUS = {CA: {}, BP: {}, MI: {"radius": 20.0}}  # mobile-infantry's seed gives no radius: 20 mm
TYPE = {CA: "infantry", BP: "infantry", MI: "trooper"}


@pytest.mark.parametrize("ruleset", [CA, BP, MI])
@pytest.mark.parametrize(
    ("x", "y", "said"),
    [
        (1e9, 10, "(1000000000, 10)"),
        (1830, 610, "(1830, 610)"),  # a centre in mm
        (30, 150, "(30, 150)"),  # x and y swapped on a 183x122 table
        (-0.5, 61, "(-0.5, 61)"),
        (183.5, 61, "(183.5, 61)"),
        (91.5, 122.01, "(91.5, 122.01)"),
    ],
)
def test_a_template_centred_off_the_table_is_refused(ruleset: str, x: float, y: float, said: str) -> None:
    s = scene(ruleset, [base(20, 30, "a", type=TYPE[ruleset])])
    with pytest.raises(SceneError) as caught:
        api.under_template(s, "grenade", x, y, **RADIUS[ruleset])
    assert caught.value.problem == f"template grenade: centre {said} is off the 183x122 cm table"
    assert caught.value.fix == (
        "give x_cm from 0 to 183 and y_cm from 0 to 122, in cm (not mm), x along the width"
    )


@pytest.mark.parametrize("ruleset", [CA, BP, MI])
@pytest.mark.parametrize(("x", "y"), [(0, 0), (183, 122), (183, 61), (0, 122)])
def test_a_template_centred_on_the_edge_reaches_past_it(ruleset: str, x: float, y: float) -> None:
    s = scene(ruleset, [base(x, y, "a", type=TYPE[ruleset])])
    assert [m["id"] for m in api.under_template(s, "grenade", x, y, **RADIUS[ruleset])["models"]] == ["a"]


@pytest.mark.parametrize("heading", [0.0, 90.0, 45.0])
def test_a_smoke_strip_centred_on_the_table_may_reach_past_its_edge(heading: float) -> None:
    s = scene(CA, [base(1, 61, "a")])
    under = api.under_template(s, "smoke", 1, 61, heading_deg=heading)
    assert [m["id"] for m in under["models"]] == ["a"]
    assert min(x for x, _ in under["polygon_cm"]) < 0


def test_a_smoke_strip_centred_off_the_table_is_refused_whatever_its_heading() -> None:
    s = scene(CA, [base(1, 61, "a")])
    with pytest.raises(SceneError, match=r"template smoke: centre \(-1, 61\) is off the 183x122 cm table"):
        api.under_template(s, "smoke", -1, 61, heading_deg=90.0)


def test_the_table_is_the_scenes_own() -> None:
    s = api.parse_scene(scene_data(CA, [base(20, 30, "a")], width=120, depth=120))
    assert api.under_template(s, "grenade", 30, 120)["models"] == []
    with pytest.raises(SceneError, match=r"centre \(150, 30\) is off the 120x120 cm table"):
        api.under_template(s, "grenade", 150, 30)


def test_a_grenade_scattering_off_the_table_still_lands() -> None:
    """The landing point is the die's, not typed: a grenade that scatters off the table hits nobody."""
    s = api.parse_scene(
        scene_data(BP, [base(180, 61, "t"), base(181, 61, "e", side="blue")], step_cm=2.5)
    )
    landed = api.grenade_scatter(s, "t", "e", 6)
    assert landed["x_cm"] == pytest.approx(195.0) and landed["models"] == []
