"""The phone's words for the rules core's real refusals, taken from the parts each refusal carries
(its `fault`), not read back out of the CLI's words: a CLI message reworded must not leave the
phone showing the scene file's wording."""

from __future__ import annotations

import pytest

from rules_core import api as rules
from rules_core.errors import TablesightError
from tests.webui.fake_session import demo_state
from tracker.game import Assignment, Game
from webui import measuring
from webui.wording import ranges_refusal, refusal

M9 = {"model_ids": ["m9"], "side": "red", "unit": "red-inf-1", "type": "infantry"}
COMBINED_ARMS_ROLES = (
    "commander, crew_commander, flamethrower, hmg, medic, mortar_crew, officer, radio, sapper, scout, sniper"
)


def combined_arms() -> dict:
    """The demo table under Combined Arms, which gives roles and weapons (World at Fire gives neither)."""
    state = demo_state()
    state["ruleset"] = {**state["ruleset"], "id": "combined-arms"}
    state["deployment"] = None
    next(m for m in state["models"] if m["id"] == "g1")["type"] = "gun"
    return state


def game_of(state: dict) -> Game:
    """The tracker's real game holding the state's pieces and assignments."""
    game = Game(state["ruleset"]["id"])
    for m in state["models"]:
        game.pieces[m["id"]] = {"track_id": m["id"], "kind": "model", "x_cm": m["x_cm"], "y_cm": m["y_cm"]}
    for v in state["vehicles"]:
        hull = {k: v[k] for k in ("x_cm", "y_cm", "heading_deg", "length_cm", "width_cm")}
        game.pieces[v["id"]] = {"track_id": v["id"], "kind": "vehicle", **hull}
    game.assignments = {
        p["id"]: Assignment(p["side"], p["unit"], p["type"], chassis=p.get("chassis"))
        for p in [*state["models"], *state["vehicles"]]
        if p["side"]
    }
    game.deployment = state["deployment"]
    return game


def refused(action: str, payload: dict, state: dict) -> TablesightError:
    with pytest.raises(TablesightError) as caught:
        game_of(state).apply(action, payload)
    return caught.value


# (action, payload, state, the phone's words, whether the phone's fix is its own rather than the CLI's)
CASES = {
    "no edge": (
        "assign", {**M9, "side": "green", "unit": "green-1"}, demo_state,
        "m9 can't be on side green: the breakthrough deployment places only blue, red. "
        "Give it one of those sides, or tap Clear deployment under Deployment first.", True,
    ),
    "another side's unit": (
        "assign", {**M9, "side": "blue", "unit": "red-inf-2"}, demo_state,
        "m9 can't join unit red-inf-2 on side blue: red-inf-2 is red's (r4, r5 in it). "
        "Type another Unit for blue, or the Side red.", True,
    ),
    "unknown unit type": (
        "assign", {**M9, "type": "dragon"}, demo_state,
        "m9: world-at-fire has no unit type dragon. "
        "Under Type, use one of infantry, cavalry, motorbike, heavy_gun, vehicle, aircraft.", True,
    ),
    "unknown role": (
        "assign", {**M9, "role": "bard"}, combined_arms,
        f"m9: combined-arms has no role bard. Under Role, use one of {COMBINED_ARMS_ROLES}.", True,
    ),
    "a role where the ruleset has none": (
        "assign", {**M9, "role": "bard"}, demo_state,
        "m9: world-at-fire has no role bard. Leave Role empty: this ruleset gives its models no roles.", True,
    ),
    "unknown weapon": (
        "assign", {**M9, "weapons": ["ray gun"]}, combined_arms,
        "m9: combined-arms has no weapon ray gun. Under Weapons, use one of pistol, melee, shotgun, smg, "
        "rifle, assault_rifle, sniper_rifle, heavy_sniper_rifle, grenade_launcher, lmg, hmg, flamethrower, "
        "at_rifle, manpads, at_grenade_launcher, heavy_at_grenade_launcher, grenade, desant_fire, "
        "light_mortar, heavy_mortar, cannon, howitzer, aa_gun, aa_autocannon.", True,
    ),
    "unknown chassis": (
        "assign", {**M9, "type": "vehicle", "chassis": "hover"}, demo_state,
        "m9: world-at-fire has no chassis hover. Under Chassis, use one of wheeled, half_tracked, tracked.",
        True,
    ),
    "a chassis on a type without one": (
        "assign", {**M9, "chassis": "tracked"}, demo_state,
        "m9: a model of type infantry has no chassis in world-at-fire, so not tracked. "
        "Leave Chassis empty: only models of type vehicle have one.", True,
    ),
    "an empty name": ("assign", {**M9, "unit": ""}, demo_state, "m9: Unit is empty. Fill in Unit.", True),
    "a role on a type holding none": (
        "assign", {**M9, "role": "medic", "type": "vehicle", "chassis": "tank"}, combined_arms,
        "m9: Role 'medic' on a model of type vehicle, which holds no role in combined-arms. "
        "Leave Role empty: only models of type infantry or gun hold one.", True,
    ),
    "an objective off the table": (
        "objectives", {"objectives": [{"id": "obj1", "x_cm": 191.5, "y_cm": 61.0}]}, demo_state,
        "Objective obj1 at (191.5, 61.0) cm would be off a 183 × 122 cm table. "
        "Pick a bigger table, or tap Clear objectives under Objectives first.", True,
    ),
    "a field left out": (
        "assign", {"model_ids": ["m9"], "unit": "u", "type": "infantry"}, demo_state,
        "Say the models' side. Fill in Side, then tap Assign.", True,
    ),
    "a model gone": (
        "assign", {**M9, "model_ids": ["zz"]}, demo_state,
        "zz is no longer on the table. Pick models shown on it and assign again.", True,
    ),
    "another scene field": (
        "deployment", {"kind": "pincer", "sides": {"red": "left", "blue": "right"}}, demo_state,
        "Unknown deployment kind 'pincer' for ruleset world-at-fire. "
        "Use one of breakthrough, ambush, diversion.",
        False,
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_real_refusal_is_said_in_a_players_words(case):
    action, payload, make_state, told, _ = CASES[case]
    state = make_state()
    assert str(refusal(action, refused(action, payload, state), payload, state)) == told


@pytest.mark.parametrize("case", CASES)
def test_the_players_words_do_not_hang_on_the_clis(case):
    """The same refusal, its CLI words changed: the phone says what it said."""
    action, payload, make_state, told, own_fix = CASES[case]
    state = make_state()
    error = refused(action, payload, state)
    reworded = TablesightError("Refused: the CLI says this its own way",
                               "do it otherwise" if own_fix else error.fix, fault=error.fault)
    assert str(refusal(action, reworded, payload, state)) == told


def test_a_model_off_the_table_is_said_for_a_phone_whatever_the_cli_says():
    state = demo_state()
    next(m for m in state["models"] if m["id"] == "r1").update(x_cm=300.0)
    with pytest.raises(TablesightError) as caught:
        rules.parse_scene(measuring.scene_from_state(state))
    reworded = TablesightError("Refused", "do it otherwise", fault=caught.value.fault)
    assert str(refusal("setup", reworded, {}, state)) == (
        "Model r1 at (300.0, 30.0) cm would be off a 183 × 122 cm table. Pick a table it stands on."
    )


def test_a_name_shared_by_a_model_and_a_unit_is_said_for_a_phone_whatever_the_cli_says():
    state = demo_state()
    for model in state["models"]:
        if model["id"] in ("r4", "r5"):
            model["unit"] = "r1"
    with pytest.raises(TablesightError) as caught:
        measuring.ranges(state, "r1")
    told = (
        "Model r1 and unit r1 (r4, r5) share one name, so the rig can't tell whose ranges you asked for. "
        "Rename the unit: under Setup, Assign models, pick r4, r5, type another Unit (e.g. r1-unit) "
        "and tap Assign."
    )
    assert str(ranges_refusal(caught.value)) == told
    reworded = TablesightError("Refused", "do it otherwise", fault=caught.value.fault)
    assert str(ranges_refusal(reworded)) == told
