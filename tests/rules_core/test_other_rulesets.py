"""Tankomaster, mobile infantry, combined arms and Bronepehota: thresholds from the seed wording."""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene, scene_data

TM, MI, CA, BP = "tankomaster", "mobile-infantry", "combined-arms", "bronepehota"
INCH = 2.54


# tm.coherency.group: «не должно превышать 5 см», inclusive.
@pytest.mark.parametrize(("gap", "coherent"), [(5.0, True), (5.01, False)])
def test_tankomaster_coherency_inclusive(gap: float, coherent: bool) -> None:
    s = scene(TM, [base(20, 30, "a"), base(20 + 3.2 + gap, 30, "b")])
    assert api.check(s)["units"]["red-1"]["coherent"] is coherent


# tm.move.infantry: 16 cm, 8 cm when crossing an obstacle.
@pytest.mark.parametrize(("distance", "legal"), [(16.0, True), (16.01, False)])
def test_tankomaster_infantry_16_cm(distance: float, legal: bool) -> None:
    assert moved(TM, [base(20, 30, "a")], [base(20 + distance, 30, "a")])["a"]["legal"] is legal


@pytest.mark.parametrize(("distance", "legal"), [(8.0, True), (8.01, False)])
def test_tankomaster_infantry_8_cm_over_obstacles(distance: float, legal: bool) -> None:
    fence = {"id": "f", "kind": "fence", "polygon_cm": [[24, 0], [24.5, 0], [24.5, 122], [24, 122]]}
    report = moved(TM, [base(20, 30, "a")], [base(20 + distance, 30, "a")], terrain=[fence])["a"]
    assert report["allowance_cm"] == 8.0
    assert report["legal"] is legal


# tm.move.vehicle: 30 cm, reverse halves to 15 cm.
@pytest.mark.parametrize(("distance", "code"), [(15.0, None), (15.01, "moved_backwards_too_far")])
def test_tankomaster_reverse_is_half(distance: float, code: str | None) -> None:
    report = moved(TM, [hull(90, 60, "t", heading=0.0)], [hull(90 - distance, 60, "t", heading=0.0)])["t"]
    assert report["direction"] == "backward"
    assert report["allowance_cm"] == 15.0
    assert codes(report) == ([code] if code else [])


@pytest.mark.parametrize(("distance", "legal"), [(30.0, True), (30.01, False)])
def test_tankomaster_forward_30_cm(distance: float, legal: bool) -> None:
    assert moved(TM, [hull(90, 60, "t")], [hull(90 + distance, 60, "t")])["t"]["legal"] is legal


# tm.move.at_gun: 10 cm with at least 3 crew.
@pytest.mark.parametrize(("crew", "legal"), [(3, True), (2, False)])
def test_tankomaster_at_gun_needs_three_crew(crew: int, legal: bool) -> None:
    gun = hull(50, 50, "g", side="red", unit="gun", type="heavy_gun", length_mm=60, width_mm=40)
    men = [base(44 + 4 * k, 56, f"c{k}", unit="gun", crew_of="g") for k in range(crew)]
    report = moved(TM, [gun, *men], [{**gun, "x_cm": 60}, *men])["g"]
    assert report["legal"] is legal


# tm.melee: «не более 2 см».
@pytest.mark.parametrize(("gap", "contact"), [(2.0, True), (2.01, False)])
def test_tankomaster_melee_2_cm(gap: float, contact: bool) -> None:
    s = scene(TM, [base(20, 30, "a"), base(20 + 3.2 + gap, 30, "e", side="blue")])
    assert bool(api.check(s)["contacts"]) is contact


# tm.ambush: rough terrain, within 30 cm of the own edge, not closer than 20 cm to the enemy.
@pytest.mark.parametrize(("enemy_gap", "ok"), [(20.0, True), (19.99, False)])
def test_tankomaster_ambush(enemy_gap: float, ok: bool) -> None:
    wood = {"id": "w", "kind": "forest", "polygon_cm": [[0, 0], [40, 0], [40, 60], [0, 60]]}
    models = [base(20, 30, "a"), base(20 + 3.2 + enemy_gap, 30, "e", side="blue")]
    s = scene(
        TM,
        models,
        terrain=[wood],
        phase="deployment",
        deployment={"kind": "ambush", "sides": {"red": "left", "blue": "right"}},
    )
    assert api.check(s)["models"]["a"]["in_deployment_zone"] is ok


def test_tankomaster_ambush_needs_rough_terrain() -> None:
    s = scene(
        TM, [base(20, 30, "a")], phase="deployment", deployment={"kind": "ambush", "sides": {"red": "left"}}
    )
    assert api.check(s)["models"]["a"]["in_deployment_zone"] is False


# mi.move.bug: 50 mm per move action, 100 mm with two; half at 50 % limbs lost; each + the 1 cm
# misjudgement in the player's favour («Во всех случаях ... этот сантиметр идет в пользу игрока»).
@pytest.mark.parametrize(
    ("distance_cm", "actions", "legal"),
    [(11.0, None, True), (11.01, None, False), (6.0, 1, True), (6.01, 1, False)],
)
def test_bug_moves_50_mm_per_action(distance_cm: float, actions: int | None, legal: bool) -> None:
    extra = {} if actions is None else {"move_actions": actions}
    report = moved(
        MI, [base(20, 30, "b", type="bug")], [base(20 + distance_cm, 30, "b", type="bug", **extra)]
    )["b"]
    assert report["legal"] is legal


def test_bug_with_half_its_limbs_lost_moves_half() -> None:
    lamed = base(26.01, 30, "b", type="bug", limbs_lost_pct=50)
    report = moved(MI, [base(20, 30, "b", type="bug")], [lamed])["b"]
    assert report["allowance_cm"] == 5.0
    assert "too_far" in codes(report)


def test_trooper_jet_jump_140_mm() -> None:
    report = moved(
        MI, [base(20, 30, "t", type="trooper")], [base(35.01, 30, "t", type="trooper", jump=True)]
    )["t"]
    assert "too_far" in codes(report)
    plain = moved(MI, [base(20, 30, "t", type="trooper")], [base(40, 30, "t", type="trooper")])["t"]
    assert plain["allowance_cm"] is None


# mi.measure.tolerance and mi.fire.ranges: rifle 140 mm, +10 mm in the player's favour; 155 mm misses.
@pytest.mark.parametrize(("edge_mm", "reaches"), [(150.0, True), (150.1, False), (155.0, False)])
def test_mobile_infantry_rifle_range_with_tolerance(edge_mm: float, reaches: bool) -> None:
    s = scene(
        MI,
        [base(20, 30, "t", type="trooper"), base(20 + 3.2 + edge_mm / 10, 30, "b", side="blue", type="bug")],
    )
    target = api.ranges(s, "t")["targets"][0]
    assert ("assault_rifle" in target["weapons"]) is reaches
    assert target["edge_in_ruleset_units"] == pytest.approx(edge_mm)


def test_mobile_infantry_height_adds_35_mm_per_level() -> None:
    s = scene(
        MI,
        [base(20, 30, "t", type="trooper", level=1), base(20 + 3.2 + 18, 30, "b", side="blue", type="bug")],
    )
    assert api.ranges(s, "t")["targets"][0]["weapons"] == ["assault_rifle"]


def test_bug_attacks_what_it_touches() -> None:
    touching = scene(MI, [base(20, 30, "t", type="trooper"), base(23.2, 30, "b", side="blue", type="bug")])
    apart = scene(MI, [base(20, 30, "t", type="trooper"), base(23.6, 30, "b", side="blue", type="bug")])
    assert api.check(touching)["contacts"] and not api.check(apart)["contacts"]


# ca.command.distance: within 12" of an officer; snipers exempt; radio net relays 6".
@pytest.mark.parametrize(("gap_in", "ok"), [(12.0, True), (12.01, False)])
def test_combined_arms_command_distance(gap_in: float, ok: bool) -> None:
    s = scene(CA, [base(20, 30, "o", role="officer"), base(20 + 3.2 + gap_in * INCH, 30, "a")])
    assert api.check(s)["command"]["a"]["in_command"] is ok


def test_combined_arms_radio_relay_and_sniper() -> None:
    models = [
        base(10, 30, "o", role="officer"),
        base(20, 30, "r1", role="radio"),
        base(150, 30, "r2", role="radio"),
        base(150, 40, "a"),
        base(150, 100, "s", role="sniper"),
        base(100, 100, "lost"),
    ]
    command = api.check(scene(CA, models))["command"]
    assert command["a"]["in_command"] and command["a"]["via"] == "r2"
    assert command["s"]["in_command"] and command["s"]["exempt"]
    assert not command["lost"]["in_command"]


# ca.melee: within 1".
@pytest.mark.parametrize(("gap_in", "contact"), [(1.0, True), (1.01, False)])
def test_combined_arms_melee_1_inch(gap_in: float, contact: bool) -> None:
    s = scene(CA, [base(20, 30, "a"), base(20 + 3.2 + gap_in * INCH, 30, "e", side="blue")])
    assert bool(api.check(s)["contacts"]) is contact


# ca.weapon.*: rifle «до 12 дюймов», inclusive.
@pytest.mark.parametrize(("gap_in", "reaches"), [(12.0, True), (12.01, False)])
def test_combined_arms_rifle_12_inches(gap_in: float, reaches: bool) -> None:
    s = scene(CA, [base(20, 30, "a"), base(20 + 3.2 + gap_in * INCH, 30, "e", side="blue")])
    assert ("rifle" in api.ranges(s, "a")["targets"][0]["weapons"]) is reaches


# ca.mortar.blast: heavy mortar, killed within 1", wounded to 3".
def test_heavy_mortar_bands() -> None:
    s = scene(
        CA, [base(50, 30, "a"), base(50, 30 + 1.6 + 2 * INCH, "b"), base(50, 30 + 1.6 + 3.01 * INCH, "c")]
    )
    under = api.under_template(s, "heavy_mortar", 50, 30)
    assert [(m["id"], m["band"]) for m in under["models"]] == [("a", "killed"), ("b", "wounded")]


def test_smoke_strip_5_by_1_inches() -> None:
    s = scene(CA, [base(50 + 2.5 * INCH + 1.5, 30, "a"), base(50, 30 + 0.5 * INCH + 1.7, "b")])
    under = api.under_template(s, "smoke", 50, 30, heading_deg=0.0)
    assert [m["id"] for m in under["models"]] == ["a"]


# ca.wounded.carry: a wounded fighter is carried up to 6".
@pytest.mark.parametrize(("distance_in", "legal"), [(6.0, True), (6.01, False)])
def test_wounded_carried_6_inches(distance_in: float, legal: bool) -> None:
    carrier = [base(20, 33.3, "c"), base(20 + distance_in * INCH, 33.3, "c")]  # ends 1 mm from it
    report = moved(
        CA,
        [base(20, 30, "w", wounded=True), carrier[0]],
        [base(20 + distance_in * INCH, 30, "w", wounded=True), carrier[1]],
    )["w"]
    assert report["legal"] is legal


def test_combined_arms_mortar_crew_within_1_inch() -> None:
    mortar = hull(50, 50, "m", side="red", unit="mortar", type="gun", length_mm=40, width_mm=40)
    crew = [
        base(50 + 2 + 1.6 + 2.54, 50, "c1", unit="mortar", crew_of="m"),
        base(50 - 2 - 1.6 - 2.55, 50, "c2", unit="mortar", crew_of="m"),
    ]
    assert api.check(scene(CA, [mortar, *crew]))["guns"]["m"]["can_fire"] is False


# bp.grenade.blast: within 1 step of the explosion; the step length is a per-table setting.
@pytest.mark.parametrize(("step_cm", "under"), [(2.5, False), (3.0, True)])
def test_bronepehota_grenade_one_step(step_cm: float, under: bool) -> None:
    s = api.parse_scene(scene_data(BP, [base(50 + 1.6 + 2.75, 30, "a")], step_cm=step_cm))
    assert bool(api.under_template(s, "grenade", 50, 30)["models"]) is under


def test_bronepehota_measures_in_steps() -> None:
    s = api.parse_scene(
        scene_data(
            BP,
            [base(20, 30, "a"), base(33.2, 30, "b")],
            table={"width_cm": 183, "depth_cm": 122, "step_cm": 2.0},
        )
    )
    assert api.measure(s, "a", "b")["edge_in_ruleset_units"] == pytest.approx(5.0)


# bp.jump: length + height within Пр.
@pytest.mark.parametrize(("length_steps", "legal"), [(2, True), (4, False)])
def test_bronepehota_jump_length_plus_height(length_steps: int, legal: bool) -> None:
    before = base(20, 30, "a", z_cm=0.0)
    after = base(20 + length_steps * 2.5, 30, "a", z_cm=5.0, jump_range=5)
    assert moved(BP, [before], [after])["a"]["legal"] is legal


# bp.jump: height from the take-off point, so a jump down from 3 steps up counts its length alone.
@pytest.mark.parametrize(("from_z_cm", "to_z_cm", "legal"), [(7.5, 0.0, True), (0.0, 7.5, False)])
def test_bronepehota_jump_height_counts_only_the_rise(from_z_cm: float, to_z_cm: float, legal: bool) -> None:
    before = base(20, 30, "a", z_cm=from_z_cm)
    after = base(25, 30, "a", z_cm=to_z_cm, jump_range=4)
    assert moved(BP, [before], [after])["a"]["legal"] is legal


# bp.melee.contact: touching within the camera tolerance.
@pytest.mark.parametrize(("gap", "contact"), [(0.2, True), (0.3, False)])
def test_bronepehota_contact_tolerance(gap: float, contact: bool) -> None:
    s = scene(BP, [base(20, 30, "a"), base(23.2 + gap, 30, "e", side="blue")])
    assert bool(api.check(s)["contacts"]) is contact


# ca.capture.test: a vehicle with damaged running gear, at least 4 enemy infantry within 2" of the
# hull, no friend of the vehicle within 12".
@pytest.mark.parametrize(
    ("crowd", "friend_gap_in", "met"), [(4, 12.01, True), (3, 12.01, False), (4, 12.0, False)]
)
def test_combined_arms_capture_test(crowd: int, friend_gap_in: float, met: bool) -> None:
    tank = hull(100, 60, "v", side="blue", length_mm=100, width_mm=60, flags=["running_gear_damaged"])
    raiders = [base(100 - 3 + 2 * k, 60 - 3 - 1.6 - 2 * INCH, f"r{k}") for k in range(crowd)]
    friend = base(100 + 5 + 1.6 + friend_gap_in * INCH, 60, "f", side="blue")
    report = api.check(scene(CA, [tank, *raiders, friend]))["proximity"]["capture_test"]["v"]
    assert report["met"] is met


def test_combined_arms_prisoner_and_medic() -> None:
    wounded = base(50, 60, "w", side="blue", wounded=True)
    captor = base(50 + 3.2 + INCH, 60, "c")
    guard = base(50 - 3.2 - 4.01 * INCH, 60, "g", side="blue")
    assert api.check(scene(CA, [wounded, captor, guard]))["proximity"]["take_prisoner"]["w"]["met"] is True
    near_guard = {**guard, "x_cm": 50 - 3.2 - 4 * INCH}
    guarded = api.check(scene(CA, [wounded, captor, near_guard]))["proximity"]["take_prisoner"]["w"]
    assert guarded["met"] is False and guarded["blocked_by"] == ["g"]
    for gap_in, healed in ((1.0, True), (1.01, False)):
        medic = base(50, 60 + 3.2 + gap_in * INCH, "m", side="blue", role="medic")
        assert api.check(scene(CA, [wounded, medic]))["proximity"]["medic_heal"]["w"]["met"] is healed


# bp.capture.gun and bp.repair.infantry: touching, within the camera tolerance.
def test_bronepehota_gun_capture_and_repair() -> None:
    gun = hull(50, 50, "g", side="blue", type="gun", length_mm=40, width_mm=40)
    raider = base(50 + 2 + 1.6 + 0.1, 50, "r")
    report = api.check(scene(BP, [gun, raider]))["proximity"]
    assert report["capture_gun"]["g"]["met"] is True
    assert report["repair"]["g"]["met"] is False
    defender = base(50 - 2 - 1.6, 50, "d", side="blue")
    report = api.check(scene(BP, [gun, raider, defender]))["proximity"]
    assert report["capture_gun"]["g"]["met"] is False
    assert report["repair"]["g"]["blocked_by"] == ["r"]


# bp.melee.contact: the model that moved into contact is the attacker.
def test_bronepehota_move_into_contact_lists_the_attacked() -> None:
    enemy = base(40, 30, "e", side="blue")
    report = moved(BP, [base(20, 30, "a"), enemy], [base(36.8, 30, "a"), enemy])["a"]
    assert report["contacts"] == ["e"]


# ca.sapper.task, ca.hmg.crew, ca.scout.
def test_combined_arms_sapper_hmg_and_scout() -> None:
    wire = {"id": "wire", "kind": "fence", "polygon_cm": [[28, 20], [29, 20], [29, 40], [28, 40]]}
    hmg = hull(40, 60, "g", side="red", unit="hmg", type="gun", role="hmg", length_mm=40, width_mm=40)
    models = [
        base(20, 30, "s", role="sapper"),
        hmg,
        base(40 + 2 + 1.6 + INCH, 60, "c1", unit="hmg"),
        base(150, 30, "e", side="blue", role="scout"),
    ]
    report = api.check(scene(CA, models, terrain=[wire]))["proximity"]
    assert report["sapper_at_work"]["s"] == {"met": True, "near": ["wire"], "blocked_by": []}
    assert report["hmg_can_fire"]["g"]["met"] and not report["hmg_can_move"]["g"]["met"]
    assert not report["observed_by_scout"]["s"]["met"]
    assert report["observed_by_scout"]["e"]["met"] is False


# mi.fire.aimed: aimed fire reaches 35 mm further.
@pytest.mark.parametrize(("aimed", "reaches"), [(True, True), (False, False)])
def test_mobile_infantry_aimed_fire_adds_35_mm(aimed: bool, reaches: bool) -> None:
    shooter = base(20, 30, "t", type="trooper", flags=["aimed"] if aimed else [])
    s = scene(MI, [shooter, base(20 + 3.2 + 18.5, 30, "b", side="blue", type="bug")])
    assert ("assault_rifle" in api.ranges(s, "t")["targets"][0]["weapons"]) is reaches


# mi.map.hex: hex centre = hexes x 40 mm + 20 mm from the table edges.
def test_mobile_infantry_hex_centre() -> None:
    assert api.hex_centre(MI, 3, 0) == {"col": 3, "row": 0, "x_cm": 14.0, "y_cm": 2.0}
    with pytest.raises(api.SceneError):
        api.hex_centre(TM, 0, 0)


# tm.cover: the target's cover save comes from the terrain it stands in.
def test_tankomaster_cover_from_terrain() -> None:
    wood = {"id": "w", "kind": "forest", "polygon_cm": [[90, 0], [130, 0], [130, 60], [90, 60]]}
    s = scene(
        TM,
        [base(20, 30, "a"), base(100, 30, "e1", side="blue"), base(100, 90, "e2", side="blue")],
        terrain=[wood],
    )
    covers = {t["id"]: t["cover"] for t in api.ranges(s, "a")["targets"]}
    assert covers == {"e1": "5+", "e2": None}


# ca.grenade, ca.charge, ca.hmg.blast, ca.mine: template radii in inches, rim included.
@pytest.mark.parametrize(("kind", "radius_in"), [("grenade", 1), ("charge", 4), ("hmg", 3), ("mine", 3)])
def test_combined_arms_blast_radii(kind: str, radius_in: float) -> None:
    rim = base(50 + 1.6 + radius_in * INCH, 30, "rim")
    out = base(50, 30 + 1.6 + (radius_in + 0.01) * INCH, "out")
    under = api.under_template(scene(CA, [rim, out]), kind, 50, 30)
    assert [m["id"] for m in under["models"]] == ["rim"]


# ca.transport.embark / disembark / desant_fire, ca.sapper.kill_vehicle, ca.wounded.carry.
def test_combined_arms_transport_and_sapper() -> None:
    apc = hull(100, 60, "v", side="red", unit="apc", length_mm=100, width_mm=60, weapons=["desant_fire"])
    touching = base(100 + 5 + 1.6, 60, "in")
    dropped = base(100, 60 + 3 + 1.6 + 4 * INCH, "out", flags=["disembarked"])
    too_far = base(100, 60 - 3 - 1.6 - 4.01 * INCH, "far", flags=["disembarked"])
    sapper = base(100 - 5 - 1.6 - 2 * INCH, 60, "sap", side="blue", role="sapper", flags=["prone"])
    target = base(100 + 5 + 1.6 + 6 * INCH, 60, "e", side="blue")
    s = scene(CA, [apc, touching, dropped, too_far, sapper, target])
    proximity = api.check(s)["proximity"]
    assert proximity["embark"]["in"]["met"] and not proximity["embark"]["out"]["met"]
    assert proximity["disembark"]["out"]["met"] and not proximity["disembark"]["far"]["met"]
    assert proximity["sapper_kills_vehicle"]["v"]["near"] == ["sap"]
    reach = {t["id"]: t["weapons"] for t in api.ranges(s, "v")["targets"]}
    assert reach["e"] == ["desant_fire"]


def test_combined_arms_carry_needs_an_unwounded_fighter_within_1_inch() -> None:
    wounded = base(50, 60, "w", wounded=True)
    for gap_in, met in ((1.0, True), (1.01, False)):
        carrier = base(50 + 3.2 + gap_in * INCH, 60, "c")
        assert api.check(scene(CA, [wounded, carrier]))["proximity"]["carry_wounded"]["w"]["met"] is met


# bp.capture.vehicle and bp.melee.locked: touching a pilotless vehicle; touching pairs stay in contacts.
def test_bronepehota_pilotless_vehicle_capture_and_locked_melee() -> None:
    walker = hull(50, 50, "v", side="blue", length_mm=60, width_mm=40, flags=["pilotless"])
    raider = base(50 + 3 + 1.6, 50, "r")
    report = api.check(scene(BP, [walker, raider]))
    assert report["proximity"]["capture_vehicle"]["v"]["met"] is True
    assert [{c["a"], c["b"]} for c in report["contacts"]] == [{"v", "r"}]


# ca.weapon.*: effect bands (shotgun kills to 3", wounds to 6") and the hmg's 14" only when dug in.
@pytest.mark.parametrize(("gap_in", "effect"), [(3.0, "kills"), (3.01, "wounds"), (6.0, "wounds")])
def test_combined_arms_shotgun_bands(gap_in: float, effect: str) -> None:
    s = scene(
        CA, [base(20, 30, "a", weapons=["shotgun"]), base(20 + 3.2 + gap_in * INCH, 30, "e", side="blue")]
    )
    assert api.ranges(s, "a")["targets"][0]["effects"] == {"shotgun": effect}


@pytest.mark.parametrize(("flags", "reaches"), [(["dug_in"], True), ([], False)])
def test_combined_arms_hmg_14_inches_when_dug_in(flags: list[str], reaches: bool) -> None:
    gunner = base(20, 30, "a", weapons=["hmg"], flags=flags)
    s = scene(CA, [gunner, base(20 + 3.2 + 14 * INCH, 30, "e", side="blue")])
    assert (api.ranges(s, "a")["targets"][0]["weapons"] == ["hmg"]) is reaches


# bp.panic: full speed («Ск», scene field speed) towards the nearest edge.
@pytest.mark.parametrize(
    ("end", "codes_expected"),
    [
        ((10.0 - 4 * 2.5, 50.0), []),
        ((10.0, 50.0 + 4 * 2.5), ["panic_not_to_nearest_edge"]),
        ((10.0 - 2.5, 50.0), ["panic_too_short"]),
    ],
)
def test_bronepehota_panic_runs_to_the_nearest_edge(
    end: tuple[float, float], codes_expected: list[str]
) -> None:
    before = base(10, 50, "p", speed=4)
    after = base(*end, "p", speed=4, flags=["panicked"])
    assert codes(moved(BP, [before], [after])["p"]) == codes_expected


def test_speed_from_the_army_list_sets_the_allowance() -> None:
    report = moved(CA, [base(20, 30, "a")], [base(20 + 6.01 * INCH, 30, "a", speed=6)])["a"]
    assert report["allowance_cm"] == pytest.approx(6 * INCH)
    assert "too_far" in codes(report)


# bp.repair.helix / bp.tow.helix: the rear edge of the HELIX platform touches the object.
@pytest.mark.parametrize(("helix_heading", "met"), [(0.0, True), (180.0, False)])
def test_bronepehota_helix_rear_edge(helix_heading: float, met: bool) -> None:
    gun = hull(50, 50, "g", side="red", unit="guns", type="gun", length_mm=40, width_mm=40)
    helix = hull(
        50 + 2 + 3,
        50,
        "h",
        side="red",
        unit="helix",
        role="helix",
        heading=helix_heading,
        length_mm=60,
        width_mm=40,
    )
    proximity = api.check(scene(BP, [gun, helix]))["proximity"]
    assert proximity["helix_tow"]["g"]["met"] is met
    assert proximity["helix_repair"]["g"]["met"] is met


# bp.grenade.scatter: d6 steps from the thrower towards the target; on a 1 the thrower is in its own blast.
@pytest.mark.parametrize(("roll", "hit"), [(4, ["t"]), (1, ["a"])])
def test_bronepehota_grenade_scatter(roll: int, hit: list[str]) -> None:
    s = scene(BP, [base(20, 30, "a"), base(30, 30, "t", side="blue")])
    burst = api.grenade_scatter(s, "a", "t", roll)
    assert burst["x_cm"] == pytest.approx(20 + roll * 2.5)
    assert [m["id"] for m in burst["models"]] == hit


# bp.melee.rear: touching an enemy from outside its field of view is a sudden attack.
@pytest.mark.parametrize(("enemy_heading", "sudden"), [(0.0, True), (180.0, False)])
def test_bronepehota_sudden_attack_from_behind(enemy_heading: float, sudden: bool) -> None:
    enemy = base(40, 30, "e", side="blue", heading_deg=enemy_heading)
    report = moved(BP, [base(20, 30, "a"), enemy], [base(36.8, 30, "a"), enemy])["a"]
    assert ("sudden_attack_on" in report) is sudden


# mi.fire.ranges: grenade 70 mm sure hit, 140 mm by the scatter template (+10 mm tolerance each).
@pytest.mark.parametrize(("edge_mm", "effect"), [(80.0, "sure_hit"), (80.5, "scatter")])
def test_mobile_infantry_grenade_sure_hit(edge_mm: float, effect: str) -> None:
    thrower = base(20, 30, "t", type="trooper", weapons=["grenade"])
    s = scene(MI, [thrower, base(20 + 3.2 + edge_mm / 10, 30, "b", side="blue", type="bug")])
    assert api.ranges(s, "t")["targets"][0]["effects"] == {"grenade": effect}


# mi.fire.los: a wall between shooter and target blocks the rifle, not the grenade.
def test_mobile_infantry_line_of_sight() -> None:
    wall = {"id": "w", "kind": "wall", "polygon_cm": [[29, 20], [30, 20], [30, 40], [29, 40]]}
    shooter = base(20, 30, "t", type="trooper", weapons=["assault_rifle", "grenade"])
    s = scene(MI, [shooter, base(34, 30, "b", side="blue", type="bug")], terrain=[wall])
    target = api.ranges(s, "t")["targets"][0]
    assert target["line_of_sight"] is False
    assert target["weapons"] == ["grenade"]


# mi.terrain.barriers: troopers cross level 1, level 2 only jumping; bugs level 2; nobody level 3.
@pytest.mark.parametrize(
    ("level", "type_", "jump", "blocked"),
    [
        (1, "trooper", False, False),
        (2, "trooper", False, True),
        (2, "trooper", True, False),
        (2, "bug", False, False),
        (3, "bug", False, True),
    ],
)
def test_mobile_infantry_barriers(level: int, type_: str, jump: bool, blocked: bool) -> None:
    barrier = {
        "id": "b",
        "kind": "wall",
        "level": level,
        "polygon_cm": [[24, 0], [25, 0], [25, 122], [24, 122]],
    }
    report = moved(
        MI, [base(20, 30, "m", type=type_)], [base(29, 30, "m", type=type_, jump=jump)], terrain=[barrier]
    )
    assert ("impassable_terrain" in codes(report["m"])) is blocked


@pytest.mark.parametrize(("ruleset", "model", "why"), [
    ("world-at-fire", base(20, 30, "a"), "the scene gives no deployment (kind and sides)"),
    ("mobile-infantry", base(20, 30, "a", type="trooper"), "mobile-infantry has no deployment zones"),
])
def test_a_model_without_a_deployment_zone_is_told_whether_the_scene_or_the_ruleset_lacks_it(
    ruleset: str, model: dict, why: str
) -> None:
    """A ruleset without zones cannot be given a deployment: asking the scene for one misleads."""
    report = api.check(scene(ruleset, [model], phase="deployment"))["models"]["a"]
    assert report == {"in_deployment_zone": None, "problems": [why]}
