"""Rule cases whose scenes use only the contract's model fields (id, side, unit, type, x_cm,
y_cm, base, heading_deg, z_cm, wounded, crew_of, chassis, role, weapons), checked against the
seed lines they quote."""

from __future__ import annotations

import pytest

from rules_core import api
from rules_core.errors import TablesightError
from tests.rules_core.builders import base, codes, hull, moved, scene


@pytest.mark.parametrize(
    ("end_x", "overlap"),
    [(36.5, False), (37.0, True), (38.0, True), (40.0, True)],
)
def test_waf_a_move_may_not_end_partly_on_another_base(end_x: float, overlap: bool) -> None:
    # «отряды не могут проходить друг через друга, заканчивать движение на подставках друг друга»:
    # two 32 mm bases overlap whenever their centres are less than 3.2 cm apart, not only when
    # one centre lies on the other base.
    before = [base(30, 50, id="a", unit="red-1"), base(40, 50, id="b", unit="red-2")]
    after = [base(end_x, 50, id="a", unit="red-1"), base(40, 50, id="b", unit="red-2")]
    entry = moved("world-at-fire", before, after)["a"]
    assert ("overlaps_model" in codes(entry)) is overlap
    assert entry["legal"] is not overlap


@pytest.mark.parametrize(("gap_in", "can_move", "can_fire"), [(1.0, True, True), (1.05, False, False)])
def test_ca_a_gun_armed_with_an_hmg_needs_two_fighters_to_move_and_one_to_fire(
    gap_in: float, can_move: bool, can_fire: bool
) -> None:
    # «Станковый пулемёт требует наличия двух бойцов для передвижения (в радиусе 1 дюйма) и одного
    # для ведения огня» (ca.hmg.crew): 2 fighters within 1" to move, 1 to fire. The contract
    # names a heavy MG by its weapon (`weapons: ["hmg"]`); no `hmg` role is in its role list.
    gap = gap_in * 2.54
    models = [
        hull(
            50, 50, id="mg", side="red", unit="red-mg", type="gun", length_mm=60, width_mm=40, weapons=["hmg"]
        ),
        base(50 + 3 + 1.6 + gap, 50, id="c1", unit="red-1"),
        base(50 - 3 - 1.6 - gap, 50, id="c2", unit="red-1"),
    ]
    report = api.check(scene("combined-arms", models))
    assert report["proximity"]["hmg_can_move"]["mg"]["met"] is can_move
    assert report["proximity"]["hmg_can_fire"]["mg"]["met"] is can_fire


CONTRACT_CA_ROLES = ["officer", "radio", "scout", "sapper", "sniper", "medic", "mortar_crew", "flamethrower"]


@pytest.mark.parametrize("role", CONTRACT_CA_ROLES)
def test_ca_each_role_the_contract_names_is_a_role(role: str) -> None:
    assert scene("combined-arms", [base(50, 50, id="r1", role=role)]).models[0].role == role


@pytest.mark.parametrize(("ruleset", "role"), [("combined-arms", "wizard"), ("combined-arms", "Officer"),
                                               ("world-at-fire", "officer"), ("tankomaster", "medic")])
def test_a_role_the_ruleset_does_not_know_is_refused_naming_the_field(ruleset: str, role: str) -> None:
    # CONTRACTS: names that don't resolve are «errors with a message naming the field, never
    # silently ignored»; a misspelt officer was read as a plain rifleman (session 60's blind check).
    with pytest.raises(TablesightError, match=r"models\[0\]\.role.*unknown role"):
        scene(ruleset, [base(50, 50, id="r1", role=role)])
