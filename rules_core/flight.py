"""Aircraft moves (World at Fire): straight ahead, 60-110 cm, after a turn of up to 90 degrees.

The camera sees the stand's base before and after. Its centre's displacement is the flight
(the turn pivots on the stand); the end heading must point along the flight (back along it
after a loop, `loop_flags`), and the flight within the allowed turn of the start heading.
Altitude changes eat into both the minimum and the maximum. Aircraft ignore ground models,
but must keep apart from enemy aircraft.
"""

from __future__ import annotations

import math

import numpy as np

from rules_core.reasons import TOLERANCE_CM, angle_between, fmt, reason
from rules_core.ruleset import UnitType
from rules_core.scene import ModelSpec, Scene


def altitude_cost(
    unit_type: UnitType, old: ModelSpec, model: ModelSpec, cm_per_unit: float
) -> tuple[float, str]:
    if model.altitude is None or old.altitude is None or model.altitude == old.altitude:
        return 0.0, ""
    levels = abs(model.altitude - old.altitude)
    diving = model.dive and model.altitude < old.altitude and unit_type.dive_cost is not None
    per_level = unit_type.dive_cost if diving else unit_type.altitude_change_cost
    cost = (per_level or 0.0) * cm_per_unit * levels
    return cost, f"{'dive' if diving else 'altitude change'} costs {fmt(cost)} cm"


def flight_limits(
    after: Scene, unit_type: UnitType, old: ModelSpec, model: ModelSpec
) -> tuple[float | None, float | None, str]:
    """The shortest and longest flight (cm; None where the type gives none), its altitude change
    paid out of both, and what that change cost."""
    cost, why = altitude_cost(unit_type, old, model, after.cm_per_unit)
    longest = None if unit_type.move is None else max(after.cm(unit_type.move) - cost, 0.0)
    shortest = None if unit_type.min_move is None else max(after.cm(unit_type.min_move) - cost, 0.0)
    return shortest, longest, why


def must_move(unit_type: UnitType, model: ModelSpec) -> bool:
    """Whether the model must move every turn («обязан двигаться каждый свой ход, он не может
    зависать»), its state not exempting it (a heavy bomber may hover)."""
    return unit_type.must_move and not any(model.has(flag) for flag in unit_type.must_move_exempt_flags)


def judge_flight(
    before: Scene, after: Scene, a: int, b: int, flies: np.ndarray
) -> tuple[float, float | None, dict, list[dict[str, str]]]:
    """moved_cm, allowance_cm, extra fields and reasons for one aircraft."""
    model, old = after.models[a], before.models[b]
    unit_type = after.unit_type(a)
    start, end = (old.x_cm, old.y_cm), (model.x_cm, model.y_cm)
    moved = math.dist(start, end)
    shortest, allowance, why = flight_limits(after, unit_type, old, model)
    suffix = f" ({why})" if why else ""
    reasons = []
    if allowance is not None and moved > allowance + TOLERANCE_CM:
        reasons.append(
            reason("too_far", f"flew {fmt(moved)} cm, {model.type} may fly {fmt(allowance)} cm{suffix}")
        )
    # A plane that only turned where it was has hovered, which only those exempt may do («он не
    # может зависать»); one that stayed put is `not_moved` instead.
    flew = moved > after.ruleset.moved_threshold_cm or must_move(unit_type, model)
    if shortest is not None and flew and moved < shortest - TOLERANCE_CM:
        reasons.append(
            reason(
                "too_short",
                f"flew {fmt(moved)} cm, {model.type} must fly at least {fmt(shortest)} cm{suffix}",
            )
        )
    if moved > after.ruleset.moved_threshold_cm:
        reasons += _heading_reasons(unit_type, old, model, start, end)
    reasons += separation_reasons(after, a, flies)
    extra: dict = {"min_cm": round(shortest, 4)} if shortest is not None else {}
    headings = {"its turn before": old.heading_deg, "its flying straight ahead": model.heading_deg}
    unjudged = [what for what, heading in headings.items() if heading is None]
    if unjudged and unit_type.max_turn_deg is not None and moved > after.ruleset.moved_threshold_cm:
        extra["allowance_notes"] = [
            f"{' and '.join(unjudged)} not judged: give the aircraft's heading_deg before and after"
        ]
    return moved, allowance, extra, reasons


def no_flight_stays_on(before: Scene, after: Scene, a: int, b: int) -> bool:
    """Whether every flight the aircraft may make (its turn, its shortest to longest distance) ends
    with its stand at least partly off the table. Flying off is then no foul: World at Fire, «если
    по какой-то причине самолету ничего не остается, как вылететь за край стола, то он должен
    будет пропустить один ход и появиться на противоположном краю поля» (if a plane has no choice
    but to fly off the edge, it misses a turn and comes back at the opposite edge). The flights
    are sampled every quarter degree and every centimetre or so."""
    old = before.models[b]
    unit_type = after.unit_type(a)
    least, longest, _ = flight_limits(after, unit_type, old, after.models[a])
    if longest is None:
        return False
    shortest = min(least or 0.0, longest)
    free = old.heading_deg is None or unit_type.max_turn_deg is None
    turn = 180.0 if free else unit_type.max_turn_deg
    angles = np.radians((0.0 if free else old.heading_deg) + np.arange(-turn, turn + 0.125, 0.25))
    distances = np.linspace(shortest, longest, max(2, math.ceil(longest - shortest) + 1))
    x = old.x_cm + distances[:, None] * np.cos(angles)[None, :]
    y = old.y_cm + distances[:, None] * np.sin(angles)[None, :]
    r = float(after.footprints.radius[a]) - TOLERANCE_CM
    table = after.table
    on = (x >= r) & (x <= table.width_cm - r) & (y >= r) & (y <= table.depth_cm - r)
    return not on.any()


def _heading_reasons(unit_type: UnitType, old: ModelSpec, model: ModelSpec, start: tuple, end: tuple) -> list:
    travel = math.degrees(math.atan2(end[1] - start[1], end[0] - start[0])) % 360.0
    reasons = []
    if old.heading_deg is not None and unit_type.max_turn_deg is not None:
        turn = angle_between(travel, old.heading_deg)
        if turn > unit_type.max_turn_deg + 1e-6:
            reasons.append(
                reason(
                    "turned_too_far",
                    f"flew at {fmt(travel)} deg, {fmt(turn)} deg from its heading {fmt(old.heading_deg)}; "
                    f"it may turn {fmt(unit_type.max_turn_deg)} deg before moving",
                )
            )
    looped = any(model.has(flag) for flag in unit_type.loop_flags)
    facing = (travel + 180.0) % 360.0 if looped else travel
    if (
        model.heading_deg is not None
        and angle_between(facing, model.heading_deg) > unit_type.heading_tolerance_deg
    ):
        why = "a loop turns it about after the flight" if looped else "aircraft fly straight forward"
        reasons.append(
            reason(
                "not_straight_ahead",
                f"ends heading {fmt(model.heading_deg)} deg but flew at {fmt(travel)} deg; {why}",
            )
        )
    return reasons


def separation_reasons(after: Scene, a: int, flies: np.ndarray) -> list[dict[str, str]]:
    """Ending too close to an enemy aircraft: shadow edge distance, plus a bonus across altitudes.

    The bonus never excuses ending over or under it (World at Fire: «закончить движение ближе 5
    сантиметров или даже под/над вражеским самолетом»): shadows overlapping are too close."""
    unit_type = after.unit_type(a)
    rule = unit_type.separation
    if rule is None:
        return []
    model = after.models[a]
    tolerance = after.ruleset.contact_tolerance_cm
    reasons = []
    for k, other in enumerate(after.models):
        if other.side == model.side or not flies[k]:
            continue
        gap = float(after.footprints.edge(a, k))
        apart = model.altitude is not None and other.altitude is not None and model.altitude != other.altitude
        if apart and not after.footprints.overlapping(np.array([a]), np.array([k]), tolerance)[0]:
            gap += after.cm(unit_type.altitude_separation_bonus)
        if rule.holds(gap, after.cm_per_unit):
            where = " (over or under it)" if apart else ""
            reasons.append(
                reason(
                    "too_close_to_enemy",
                    f"ends {fmt(gap)} cm from enemy aircraft {other.id}{where}, "
                    f"must not be closer than {fmt(after.cm(rule.value))} cm",
                )
            )
    return reasons
