"""Judging a move from two scenes: before and after, as the camera saw them.

A move is the displacement of the same point of the model (its centre; turning is free in
every seed that allows it, but not for a hull that may not move at all), against an allowance
from the ruleset (allowance.py). The camera sees no path, so a move only `passes_through_model`
(or too near an enemy, or across impassable terrain) when no way round fits in the allowance
(pathing.py). Aircraft have their own rules (flight.py); where a move may end is end_state.py.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import NamedTuple

import numpy as np
import shapely

from rules_core import crossing, end_state, mines, pathing, sequence
from rules_core.allowance import (
    climb_limit,
    climbs_freely,
    flag_limits,
    terrain_allowance,
    towed_allowance,
    unit_allowance,
)
from rules_core.coherency import coherency_groups
from rules_core.crew import apart_from_crew
from rules_core.deployment import deploying_sides
from rules_core.errors import SceneError
from rules_core.flight import judge_flight, must_move, no_flight_stays_on
from rules_core.footprints import gaps, measured, overlapping_across, reaches_into
from rules_core.orders import intercepted_on_the_way, interception_report
from rules_core.panic import panic_reasons
from rules_core.proximity import from_rear_edges, held_off_by, proximity_report, selected, within
from rules_core.reasons import TOLERANCE_CM, angle_between, fmt, fmt_over, reason
from rules_core.ruleset import UnitType
from rules_core.scene import LENGTH, ModelSpec, Scene


class MoveJudge:
    """The two scenes and the facts every moved model is judged against (types, terrain, groups)."""

    def __init__(self, before: Scene, after: Scene) -> None:
        if before.ruleset.id != after.ruleset.id:
            raise SceneError(
                f"after.ruleset: {after.ruleset.id!r} differs from before.ruleset {before.ruleset.id!r}",
                "compare two scenes of the same game",
            )
        _check_same_table(before, after)
        _check_same_step(before, after)
        _check_ids_shared(before, after)
        _check_sides_kept(before, after)
        self.after = after
        self.rules = after.ruleset
        self.terrain = [(t, shapely.Polygon(t.polygon_cm)) for t in after.spec.terrain]
        self.types = [after.unit_type(k) for k in range(len(after.models))]
        self.flies = np.array([t.flies for t in self.types], dtype=bool)
        buffer_rule = self.rules.enemy_buffer
        in_phase = buffer_rule is not None and after.phase in self.rules.enemy_buffer_phases
        self.buffer_cm = after.cm(buffer_rule.value) if in_phase else None
        self._bound = {name: rule for name, rule in self.rules.proximity.items() if rule.binds_move}
        # What moved is seen on the camera's BEFORE; it is judged from where a vehicle carried its riders.
        self.changed = self._changed(before)
        self.before, self.carriers = carried(before, after)
        self.coherency = coherency_groups(after) if self.changed else {}
        self._swept: dict[int, shapely.Geometry] = {}
        self._company: dict[str, dict[str, dict]] | None = None
        self._ordered: dict[str, set[str]] | None = None
        self._intercepting: dict[str, dict] | None = None
        self._waylaid: dict[int, list[str] | None] = {}
        self._standing_cores: dict[frozenset[str], np.ndarray] = {}
        self._moved_units = frozenset(self.after.models[k].unit for k in self.changed)

    def _changed(self, before: Scene) -> list[int]:
        """Models whose position, height (`z_cm`: a climb in place, a jump straight up) or heading
        changed since `before`, and models newly placed while deploying or coming on in play."""
        changed = []
        for a, model in enumerate(self.after.models):
            b = before.index.get(model.id)
            if b is None:
                comes_on = self._arrives(a) or self._dropped(a) or self._placed(a)
                if self.after.phase == "deployment" or comes_on:
                    changed.append(a)
                continue
            old = before.models[b]
            turned = (
                model.heading_deg is not None
                and old.heading_deg is not None
                and angle_between(model.heading_deg, old.heading_deg) > self.rules.turned_threshold_deg
            )
            climbed = abs((model.z_cm or 0.0) - (old.z_cm or 0.0)) > self.rules.moved_threshold_cm
            if (
                math.hypot(model.x_cm - old.x_cm, model.y_cm - old.y_cm) > self.rules.moved_threshold_cm
                or turned
                or climbed
            ):
                changed.append(a)
        return changed

    def _arrives(self, a: int) -> bool:
        """A model new to the table after deployment that has a rule to come on late in the enemy's
        zone (World at Fire «Диверсия», «С Небес»)."""
        rule = self.rules.deployment_order
        return (
            self.after.phase != "deployment"
            and rule is not None
            and rule.late_arrive_in_enemy_zone
            and any(self.after.models[a].has(flag) for flag in rule.late_flags)
        )

    def _placed(self, a: int) -> bool:
        """A model new to the table during the game, of a side whose deployment comes on in play
        (Tankomaster's ambush, placed by an order in the defender's turn)."""
        spec, rules = self.after.spec.deployment, self.rules.deployment
        if self.after.phase == "deployment" or spec is None or rules is None:
            return False
        side = self.after.models[a].side
        return rules.kinds[spec.kind].placed_in_play and side in deploying_sides(self.after)

    def _dropped(self, a: int) -> bool:
        """A model new to the table that a rule binding where it may stand picks (Combined Arms:
        infantry a vehicle drops off, flag disembarked, «высадить пехоту на расстояние до 4
        дюймов от КТ техники»): it is judged where it appears."""
        model = self.after.models[a]
        return any(selected(model, rule.subject) for rule in self._bound.values())

    def _walkers(self) -> list[tuple[int, int]]:
        """The moved ground models, AFTER and BEFORE index: those that took a way across the table."""
        if self.after.phase == "deployment":
            return []
        return [
            (a, self.before.index[self.after.models[a].id])
            for a in self.changed
            if self.after.models[a].id in self.before.index and not self.flies[a]
        ]

    @functools.cached_property
    def _order(self) -> sequence.Order:
        """The turn's one order of moves, where the units' straight moves fix it (sequence.py)."""
        walkers = self._walkers()
        units = sorted({self.after.models[a].unit for a, _ in walkers})
        meetings = self._meetings(walkers) if len(units) > 1 else {}
        return sequence.order(units, lambda unit, other: meetings.get((unit, other), (False, False)))

    def _meetings(self, walkers: list[tuple[int, int]]) -> dict[tuple[str, str], tuple[bool, bool]]:
        """(unit, other unit) -> whether a straight move of the unit's meets the other where it
        stood, and where it stopped: its base, or an enemy's buffer. Where the other stood or
        stopped on the mover's own start is no meeting of the mover's (it left from there), nor
        where both stopped on each other (`overlaps_model` says so, whatever the order)."""
        fa, fb = self.after.footprints, self.before.footprints
        meetings: dict[tuple[str, str], tuple[bool, bool]] = {}
        for a, b in walkers:
            unit = self.after.models[a].unit
            others = [(k, bk) for k, bk in walkers if self.after.models[k].unit != unit]
            if not others:
                continue
            ks, bks = (np.array(column) for column in zip(*others, strict=True))
            limit = self._kept_off(a, ks)
            swept, tolerance = self._sweep(a, b), self.rules.contact_tolerance_cm
            start, r = fb.core[b], fa.radius[a]
            stood = gaps(swept, r, fb.core[bks], fb.radius[bks], tolerance) < limit
            stood &= gaps(start, r, fb.core[bks], fb.radius[bks], tolerance) >= -tolerance
            stopped = gaps(swept, r, fa.core[ks], fa.radius[ks], tolerance) < limit
            stopped &= gaps(start, r, fa.core[ks], fa.radius[ks], tolerance) >= -tolerance
            stopped &= gaps(fa.core[a], r, fa.core[ks], fa.radius[ks], tolerance) >= -tolerance
            for k, then, now in zip(ks, stood, stopped, strict=True):
                if not (then or now) or self._together(a, k):
                    continue
                key = (unit, self.after.models[k].unit)
                was = meetings.get(key, (False, False))
                meetings[key] = (was[0] or bool(then), was[1] or bool(now))
        return meetings

    def _kept_off(self, a: int, others: np.ndarray) -> np.ndarray:
        """How far model `a` stays from each of `others` (a gap below it is a hit): clear of their
        bases, within the camera's contact tolerance, and of an enemy's the buffer too."""
        limit = np.full(len(others), -self.rules.contact_tolerance_cm)
        if self.buffer_cm is not None:
            limit[held_off_by(self.after, a)[others]] = self.buffer_cm - TOLERANCE_CM
        return limit

    def report(self) -> dict:
        result: dict = {"models": {self.after.models[a].id: self.judge(a) for a in self.changed}}
        idle = self._idle_must_movers()
        if idle:
            result["not_moved"] = idle
        return result

    def _idle_must_movers(self) -> dict[str, list]:
        """Models that had to move (World at Fire aircraft) but stayed put, reported beside `models`.
        They must move in their own turn («каждый свой ход»), and a player moves only his own units,
        so once any model moved only the sides that moved are judged; with none moved, every side.
        A panicked model must run too (Bronepehota: «Паникующий пехотинец ... передвигается на
        расстояние, равное его скорости ... в направлении ближайшей границы игрового поля»), unless
        the ruleset holds it still (allowance 0: the vehicle its panicked pilot left)."""
        if self.after.phase != "movement":
            return {}
        moved = set(self.changed)
        movers = {self.after.models[a].side for a in moved}
        panic = self.rules.panic_heading_tolerance_deg is not None
        idle = {}
        for a, model in enumerate(self.after.models):
            in_turn = not movers or model.side in movers
            stayed = a not in moved and model.id in self.before.index
            if not (in_turn and stayed):
                continue
            if must_move(self.types[a], model):
                idle[model.id] = [reason("did_not_move", f"{model.id} ({model.type}) must move every turn")]
            elif panic and model.has("panicked"):
                allowance, _ = unit_allowance(self.after, a, self.types)
                if allowance is None or allowance > TOLERANCE_CM:
                    said = f"{model.id} panicked: it must run its speed towards the nearest table edge"
                    idle[model.id] = [reason("did_not_move", said)]
        return idle

    def judge(self, a: int) -> dict:
        model = self.after.models[a]
        b = self.before.index.get(model.id)
        reasons: list[dict[str, str]] = []
        forced_off = False
        if b is None:
            moved, allowance, extra = None, None, {}
            if self._arrives(a):
                reasons += end_state.outside_enemy_zone(self.after, a)
            if self._placed(a):
                reasons += end_state.outside_zone(self.after, a, placed_in_play=True)
            if self._dropped(a) and self.after.phase != "deployment":  # placing is no move
                reasons += self._unaccompanied(a)
        elif self.after.phase == "deployment":
            old = self.before.models[b]
            moved, allowance = math.hypot(model.x_cm - old.x_cm, model.y_cm - old.y_cm), None
            extra = {"allowance_notes": ["deployment: models are placed, not moved, so no allowance applies"]}
        elif self.types[a].movement == "aircraft":
            moved, allowance, extra, reasons = judge_flight(self.before, self.after, a, b, self.flies)
            off = bool(end_state.off_table(self.after, a))
            forced_off = off and no_flight_stays_on(self.before, self.after, a, b)
            if forced_off:
                extra.setdefault("allowance_notes", []).append(
                    "no flight it may make ends on the table: "
                    "it misses a turn and comes back at the opposite edge"
                )
        else:
            moved, allowance, extra, reasons = self._ground(a, b)
        reasons += self._end_state(a, forced_off)
        if b is not None and self.after.phase != "deployment":
            crossed = mines.set_off_on_the_way(self.after, a, self._sweep(a, b))
            if crossed is not None:
                extra["mines_set_off"] = crossed
            waylaid = self._intercepted(a, b)
            if waylaid is not None:
                extra["intercepted_by"] = waylaid
        contacts = end_state.contacts_after(self.after, a)
        if contacts is not None:
            extra["contacts"] = contacts
            sudden = end_state.sudden_attacks(self.after, a, contacts)
            if sudden:
                extra["sudden_attack_on"] = sudden
        return {
            "moved_cm": None if moved is None else round(moved, 4),
            "allowance_cm": None if allowance is None else round(allowance, 4),
            "legal": not reasons,
            "reasons": reasons,
            "unit": model.unit,
            "type": model.type,
            **extra,
        }

    def _end_state(self, a: int, forced_off: bool = False) -> list:
        after = self.after
        deserting = after.ruleset.panic_heading_tolerance_deg is not None and after.models[a].has("panicked")
        reasons = [] if deserting or forced_off else end_state.off_table(after, a)
        old = self.before.index.get(after.models[a].id)
        if not self.flies[a]:
            reasons += end_state.overlaps(after, a, self.flies)
            reasons += end_state.near_enemy(after, a, self.flies, self.buffer_cm)
            reasons += end_state.in_forbidden_terrain(after, a, self.terrain)
            if old is not None:  # placed on the table, it climbed nothing
                reasons += end_state.hangs_mid_climb(after, a, self.flies, self.before.models[old].z_cm)
        # A unit set on the table in play is being set up: held to the set-up spacing in any phase.
        placed = old is None and self._placed(a)
        reasons += end_state.split_unit(after, a, self.coherency, placed_in_play=placed)
        return reasons + end_state.outside_zone(after, a)

    def _ground(self, a: int, b: int) -> tuple[float, float | None, dict, list]:
        model, old = self.after.models[a], self.before.models[b]
        unit_type = self.types[a]
        start, end = (old.x_cm, old.y_cm), (model.x_cm, model.y_cm)
        moved = math.dist(start, end)
        extra: dict = {}
        allowance, why = unit_allowance(self.after, a, self.types)
        if self._waiting(old):
            allowance = 0.0
            why = [*why, f"its {old.order} order holds it until an enemy enters its front fire zone"]
        towed = towed_allowance(self.before, self.after, a)
        if towed is not None:
            allowance, why = towed[0], [towed[1]]
        allowance, terrain_why, reasons = terrain_allowance(
            self.after,
            a,
            lambda polygon: self._crosses(a, b, polygon),
            self.terrain,
            allowance,
            stays_on=lambda polygon: bool(shapely.covers(polygon, self._sweep(a, b))),
            starts_against=lambda polygon: self._against(b, polygon),
        )
        why += terrain_why
        if a in self.carriers:
            why.append(f"carried on {self.carriers[a]}: only the walk from where it took him counts")
        if unit_type.terrain_caps_unit:
            allowance, why = self._unit_terrain_cap(a, allowance, why)
        cost = moved
        approach = self._tow_approach(a, b)
        if approach is not None and approach[0] > cost + TOLERANCE_CM:
            cost = approach[0]
            why.append(approach[1])
        climbs_from = unit_type.climb_counts_from
        if climbs_from is not None:
            # World at Fire: «до верха препятствия (или низа в случае со рвом или окопом)»,
            # «спуститься ... в окоп ... по такой же схеме»: a trench's bottom is where its man stands.
            climb = abs(self._floor_height(model) - self._floor_height(old))
        else:
            climb = abs((model.z_cm or 0.0) - (old.z_cm or 0.0))
        over = 0.0 if climbs_from is None else self._over_obstacles(a, b, self.after.cm(climbs_from))
        if over > 0:
            cost += over
            why.append(f"up and down obstacles: {fmt(over)} cm counts ({fmt(moved)} + {fmt(over)} cm)")
            extra["climb_cm"] = round(over, 4)
        elif (
            climbs_from is not None
            and climbs_freely(self.after, a, unit_type, old)
            and not any(
                self.rules.terrain[piece.kind].obstacle
                and piece.height_cm is not None
                and piece.height_cm >= self.after.cm(climbs_from) - TOLERANCE_CM
                and self._crosses(a, b, polygon)
                for piece, polygon in self.terrain
            )
        ):
            # Up or down a hill's slope, over no obstacle of the climb's height (World at Fire: the
            # climb counts for «препятствие равное или выше 5 сантиметров»; a hill is none).
            if climb >= self.after.cm(climbs_from) - TOLERANCE_CM:
                why.append(f"up or down a slope, {fmt(climb)} cm of height: no climb counts")
        elif climbs_from is not None and climb >= self.after.cm(climbs_from) - TOLERANCE_CM:
            cost += climb
            why.append(f"climbing {fmt(climb)} cm counts ({fmt(moved)} + {fmt(climb)} cm)")
            extra["climb_cm"] = round(climb, 4)
        most, what = climb_limit(self.after, a, unit_type, old)
        if most is not None and climb > most + TOLERANCE_CM:
            reasons.append(
                reason(
                    "impassable_terrain",
                    f"{model.id} ({model.type}) changed height by {fmt(climb)} cm; it climbs or "
                    f"descends at most {fmt(most)} cm{what}",
                )
            )
        # A jump replaces the walk and the player says which it is (Bronepehota: «игрок должен
        # выбрать ..., прыжком или шагами будет передвигаться его пехотинец»): `jump`, or, not
        # said, a jump range with no speed to walk at. Measured from the take-off point
        # («измеряются от той точки, с которой пехотинец начал прыжок»): a jump down rises over
        # nothing, one onto a platform rises to its top (`z_cm`, else the piece's `height_cm`).
        if model.jump_range is not None and (model.jump or (model.jump is None and model.speed is None)):
            rise = max(self._standing_height(model) - self._standing_height(old), 0.0)
            height = max(rise, self._jump_clearance(a, b))
            cost = moved + height
            allowance, why = flag_limits(
                self.after,
                a,
                unit_type,
                self.after.cm(model.jump_range),
                [f"jump: length {fmt(moved)} + height {fmt(height)} = {fmt(cost)} cm against its jump range"],
                dashing=False,
            )
            reasons += self._jumped_with_gun(a)
        code = "too_far"
        if unit_type.movement == "vehicle":
            given = (self.before.spec.models[b].heading_deg, self.after.spec.models[a].heading_deg)
            extra["direction"] = self._direction(given, start, end)
            reverse = self._reverse(model, unit_type)
            if extra["direction"] == "backward" and reverse is not None:
                allowance = reverse if allowance is None else min(allowance, reverse)
                code = "moved_backwards_too_far"
            reasons += self._pivoted_immobile(given, extra["direction"], allowance, why)
        # Only a move on the table is judged by eye; a march on the map goes hex to hex.
        # Nor is there a distance to misjudge for a model that may not move at all («Обездвиженный
        # персонаж застывает на одном месте»).
        judged_by_eye = self.after.phase != "map" and (allowance is None or allowance > TOLERANCE_CM)
        slack = self.after.cm(self.rules.move_tolerance) if judged_by_eye else 0.0
        if allowance is not None and slack > 0:
            why.append(f"a misjudgement of up to {fmt(slack)} cm counts for the player")
        if allowance is not None and cost > allowance + slack + TOLERANCE_CM:
            because = f" ({'; '.join(why)})" if why else ""
            verb = "reversed" if code == "moved_backwards_too_far" else "moved"
            may = "reverse" if code == "moved_backwards_too_far" else "move"
            said = f"{verb} {fmt_over(cost, allowance)} cm, {model.type} may {may} {fmt(allowance)} cm"
            reasons.append(reason(code, said + because))
        if allowance is None and moved > TOLERANCE_CM:
            # Legal by distance only because nothing bounds it: say so, not a bare verdict.
            why.append(
                f"not judged by distance: {self.rules.id} gives a {model.type} no move of its own; "
                "give the model's `speed` in the scene (its move in the army list or its order, in "
                "the ruleset's unit) to judge it"
            )
        if why:
            extra["allowance_notes"] = why
        reasons += self._path(a, b, None if allowance is None else allowance + slack, extra)
        if not any(r["code"] == "passes_through_model" for r in reasons):
            reasons += self._swapped(a, b)
        reasons += panic_reasons(self.before, self.after, a, b, allowance, extra.get("path_cm"))
        reasons += self._unaccompanied(a)
        reasons += self._left_in_tow(a)
        reasons += self._apart_from_crew(a, b)
        return moved, allowance, extra, reasons

    def _apart_from_crew(self, a: int, b: int) -> list[dict]:
        """A crewman ending apart from his gun, or a gun from any of its crew, where the crew rule
        says where they stand (`crew.binds_move`). A model that only turned or climbed in place
        left no one."""
        old, now = self.before.models[b], self.after.models[a]
        if math.hypot(now.x_cm - old.x_cm, now.y_cm - old.y_cm) <= self.rules.moved_threshold_cm:
            return []
        apart = apart_from_crew(self.after, a)
        if not apart:
            return []
        limit = self.after.cm(self.rules.crew.distance.value)
        return [
            reason(
                "moved_unaccompanied",
                f"{model_id} ends {fmt_over(gap, limit)} cm from {other}; a gun's crew stand within "
                f"{fmt(limit)} cm of it",
            )
            for model_id, other, gap in apart
        ]

    def _tow_approach(self, a: int, b: int) -> tuple[float, str] | None:
        """The least a tug drove: up to what it tows, then on with it as far as that went («подвигать
        тягач так, чтобы он стал с техникой в базовый контакт, а затем на оставшееся расстояние
        подвигаться вместе с техникой»); None where it tows nothing that moved."""
        model = self.after.models[a]
        towed = model.towing
        if towed is None or towed not in self.before.index or self.rules.tow is None:
            return None
        if self.rules.tow.towed_moves_as_tug:  # the object follows the tug: no approach to add
            return None
        k, bk = self.after.index[towed], self.before.index[towed]
        old, now = self.before.models[bk], self.after.models[k]
        dragged = math.hypot(now.x_cm - old.x_cm, now.y_cm - old.y_cm)
        if dragged <= self.rules.moved_threshold_cm:
            return None
        gap = float(self.before.footprints.edge(b, bk))
        if gap <= self.rules.contact_tolerance_cm + TOLERANCE_CM:  # hitched already, as the camera sees it
            gap = 0.0
        return gap + dragged, f"drove {fmt(gap)} cm to reach {towed}, then towed it {fmt(dragged)} cm"

    def _left_in_tow(self, a: int) -> list[dict]:
        """A tug and what it tows (`towing`) that do not end within the ruleset's tow contact: the
        tow was left behind or dragged apart, not moved «вместе ... в базовом контакте»."""
        contact = self.rules.tow.contact if self.rules.tow is not None else None
        if contact is None:
            return []
        after = self.after
        model = after.models[a]
        partners = [model.towing] if model.towing is not None else []
        partners += [other.id for other in after.models if other.towing == model.id]
        reasons = []
        for partner in partners:
            k = after.index[partner]
            towed, tug = (k, a) if model.towing == partner else (a, k)
            where = ""
            if contact.measured == "rear_edge":  # what is towed touches the tug's rear (Bronepehota)
                gap = float(from_rear_edges(after, np.array([towed]), np.array([tug]))[0, 0])
                where = f" ({after.models[towed].id} to {after.models[tug].id}'s rear edge)"
            else:
                gap = float(measured(after.footprints, a, k, contact.measured))
            if not within(after, contact, gap):
                reasons.append(
                    reason(
                        "moved_unaccompanied",
                        f"{model.id} ends {fmt(gap)} cm from {partner}{where}, which it tows or is towed "
                        f"by; they move on together within {fmt(after.cm(contact.value))} cm",
                    )
                )
        return reasons

    def _unaccompanied(self, a: int) -> list[dict]:
        """The proximity rules that bind this model's move (`binds_move`) and do not hold where
        it ends: it moved without the company the rule asks for."""
        if not self._bound:
            return []
        if self._company is None:
            self._company = proximity_report(self.after)
        model_id = self.after.models[a].id
        return [
            reason("moved_unaccompanied", f"{model_id} moved without what {name} needs: {rule.note}")
            for name, rule in self._bound.items()
            if not self._company[name].get(model_id, {"met": True})["met"]
        ]

    def _waiting(self, old: ModelSpec) -> bool:
        """Whether the model, as BEFORE has it, waited under an interception order no enemy had
        triggered (Mobile Infantry: «фигура остается на своем месте до тех пор, пока в зоне ее
        эффективного огня по фронту не появляется фигура противника»; once triggered it may take
        any action). Judged where it waited, against the enemies where they stood before, where
        they ended and on their straight way: one that walked into its front fire zone this turn,
        and on out of it, set it off too («Активация приказа прерывает у вступившей в зону
        эффективного огня фигуры 2 действие»: it acts within the enemy's move). Without a heading
        its front is unknown."""
        rule = self.rules.interception
        if rule is None or old.order != rule.order:
            return False
        if self._interceptions()[old.id]["triggered_by"] != []:
            return False
        waited = tuple(old if model.id == old.id else model for model in self.after.models)
        arrived = interception_report(dataclasses.replace(self.after, models=waited))
        if old.id not in arrived or arrived[old.id]["triggered_by"] != []:
            return False
        return not any(old.id in (self._intercepted(k, bk) or []) for k, bk in self._walkers())

    def _interceptions(self) -> dict[str, dict]:
        """`check`'s interception report on BEFORE: the orders as they stood when the move began."""
        if self._intercepting is None:
            self._intercepting = interception_report(self.before)
        return self._intercepting

    @functools.cached_property
    def _lying_in_wait(self) -> tuple[Scene, list[int]]:
        """AFTER with every interceptor whose order still stood in BEFORE (given out of contact,
        with a front, no enemy yet in its zone) put back where it waited, and their indices."""
        standing = [
            model_id
            for model_id, order in self._interceptions().items()
            if order["allowed"] and order["triggered_by"] == [] and model_id in self.after.index
        ]
        models = list(self.after.models)
        for model_id in standing:
            models[self.after.index[model_id]] = self.before.models[self.before.index[model_id]]
        waiting = [self.after.index[model_id] for model_id in standing]
        return dataclasses.replace(self.after, models=tuple(models)), waiting

    def _intercepted(self, a: int, b: int) -> list[str] | None:
        """The enemy interceptors whose front fire zone the model's straight move entered (Mobile
        Infantry: «Активация приказа прерывает у вступившей в зону эффективного огня фигуры 2
        действие. В случае если фигура противника при этом не была уничтожена, она может продолжать
        свое 2 действие»: the order goes off on the way, and the enemy may walk on out of the zone,
        where `check` no longer sees it). None where the ruleset has no interception, BEFORE has
        no model under the order, or no order is carried out (orders, map phase)."""
        rule = self.rules.interception
        if rule is None or self.after.phase in ("orders", "map") or not self._interceptions():
            return None
        if a not in self._waylaid:
            scene, waiting = self._lying_in_wait
            start = (self.before.models[b].x_cm, self.before.models[b].y_cm)
            self._waylaid[a] = intercepted_on_the_way(scene, self.after.models[a], start, waiting)
        return self._waylaid[a]

    def _ordered_with(self, model_id: str) -> set[str] | None:
        """The ids of the coherency group the model stood in before the move (None where no
        coherency rule binds it): Tankomaster gives an order to a group, and «Отдельным солдатам,
        находящимся на расстоянии более 5 см от ближайшего бойца своей части, следует отдавать
        отдельный приказ» (a soldier more than 5 cm from his nearest squad-mate gets an order of
        his own), so a squad split in battle moves as separate groups."""
        if self._ordered is None:
            self._ordered = {
                member: set(group)
                for unit in coherency_groups(self.before).values()
                if unit["applies"]
                for group in unit["groups"]
                for member in group
            }
        return self._ordered.get(model_id)

    def _unit_terrain_cap(
        self, a: int, allowance: float | None, why: list[str]
    ) -> tuple[float | None, list[str]]:
        """Tankomaster: «Если в ходе движения оно [подразделение] пересекает какие-либо препятствия, то
        передвигается только на 8 см»: the unit crosses, so a moved unit-mate's terrain cap binds it too,
        if they took one order (see `_ordered_with`)."""
        unit = self.after.models[a].unit
        together = self._ordered_with(self.after.models[a].id)
        for k in self.changed:
            other = self.after.models[k]
            b = self.before.index.get(other.id)
            if k == a or b is None or other.unit != unit or not self.types[k].terrain_caps_unit:
                continue
            if together is not None and other.id not in together:
                continue
            cap, _, _ = terrain_allowance(
                self.after,
                k,
                lambda polygon, k=k, b=b: self._crosses(k, b, polygon),
                self.terrain,
                None,
                stays_on=lambda polygon, k=k, b=b: bool(shapely.covers(polygon, self._sweep(k, b))),
            )
            if cap is not None and (allowance is None or cap < allowance - TOLERANCE_CM):
                allowance = cap
                why = [*why, f"its unit crosses terrain with {other.id}: {fmt(cap)} cm"]
        return allowance, why

    def _jumped_with_gun(self, a: int) -> list[dict]:
        """A crewman who jumped with the gun he crews: Bronepehota, «С мобильным орудием пехотинец
        прыгать не может» (with a mobile gun an infantryman may not jump). With it: the gun went
        somewhere (not only turned), not behind a tug, and he ends at it, touching."""
        model = self.after.models[a]
        gun = model.crew_of
        k, bk = self.after.index.get(gun), self.before.index.get(gun)
        if gun is None or k is None or bk is None or any(m.towing == gun for m in self.after.models):
            return []
        old, now = self.before.models[bk], self.after.models[k]
        went = math.hypot(now.x_cm - old.x_cm, now.y_cm - old.y_cm) > self.rules.moved_threshold_cm
        if not went or self.after.footprints.edge(a, k) > self.rules.contact_tolerance_cm + TOLERANCE_CM:
            return []
        return [
            reason(
                "jump_not_allowed",
                f"{model.id} jumped, ending at {gun}, the gun it crews, which moved with it; "
                "an infantryman moving a mobile gun may not jump",
            )
        ]

    def _jump_clearance(self, a: int, b: int) -> float:
        """How high a straight jump must rise over the pieces it passes, from the take-off height
        (Bronepehota: «высота препятствий, через которые ... может прыгнуть пехотинец»); a piece it
        takes off from or lands on counts through z_cm instead."""
        model, old = self.after.models[a], self.before.models[b]
        ends = shapely.points([(old.x_cm, old.y_cm), (model.x_cm, model.y_cm)])
        tops = [
            piece.height_cm
            for piece, polygon in self.terrain
            if piece.height_cm is not None
            and not shapely.covers(polygon, ends).any()
            and self._crosses(a, b, polygon)
        ]
        return max(max(tops, default=0.0) - self._standing_height(old), 0.0)

    def _standing_height(self, model: ModelSpec) -> float:
        """How high the model stands: its `z_cm`, else the top of the highest platform with a
        `height_cm` under its centre, else the table."""
        if model.z_cm is not None:
            return model.z_cm
        here = shapely.Point(model.x_cm, model.y_cm)
        return max(
            (piece.height_cm for piece, polygon in self.terrain
             if piece.height_cm is not None and self.rules.terrain[piece.kind].platform
             and polygon.covers(here)),
            default=0.0,
        )

    def _floor_height(self, model: ModelSpec) -> float:
        """Where a model whose climb counts stands: its `z_cm`, else the bottom of the deepest sunken
        piece with a `height_cm` under its centre (World at Fire: «низа в случае со рвом или
        окопом»), else the table."""
        if model.z_cm is not None:
            return model.z_cm
        here = shapely.Point(model.x_cm, model.y_cm)
        return -max(
            (piece.height_cm for piece, polygon in self.terrain
             if piece.height_cm is not None and self.rules.terrain[piece.kind].sunken
             and polygon.covers(here)),
            default=0.0,
        )

    def _over_obstacles(self, a: int, b: int, counts_from: float) -> float:
        """The climb up and down the obstacles of at least `counts_from` the move passes over
        (World at Fire: «отмерить полное расстояние до верха препятствия ... а затем добавить
        расстояние от этого верха ... до конечной точки»), from the start's height to each top and
        down to the end's. A piece the model starts or ends on is a climb onto it (its z_cm, or a
        sunken piece's bottom: `_floor_height`), and a piece without height_cm has no number to add."""
        model, old = self.after.models[a], self.before.models[b]
        z_start, z_end = self._floor_height(old), self._floor_height(model)
        ends = shapely.points([(old.x_cm, old.y_cm), (model.x_cm, model.y_cm)])
        crossed = [
            (piece.height_cm, polygon)
            for piece, polygon in self.terrain
            if self.rules.terrain[piece.kind].obstacle
            and piece.height_cm is not None
            and piece.height_cm >= counts_from - TOLERANCE_CM
            and piece.height_cm > max(z_start, z_end) + TOLERANCE_CM
            and not shapely.covers(polygon, ends).any()
            and self._crosses(a, b, polygon)
        ]
        tops = _climbs(crossed, 2 * float(self.after.footprints.radius[a]))
        return 2 * sum(tops) - z_start - z_end if tops else 0.0

    def _reverse(self, model: ModelSpec, unit_type: UnitType) -> float | None:
        """How far the vehicle may reverse (cm), None where the ruleset says nothing of it."""
        speed = model.speed if model.speed is not None else unit_type.move
        if unit_type.reverse_share is None or speed is None:
            return None
        return self.after.cm(speed * unit_type.reverse_share)

    def _pivoted_immobile(
        self,
        given: tuple[float | None, float | None],
        direction: str,
        allowance: float | None,
        why: list[str],
    ) -> list:
        """A hull that may not move at all may not pivot either: its turn is free only within a
        move (Combined Arms: running gear damaged, «техника теряет возможность движения до конца
        игры»; World at Fire: abandoned or without a driver)."""
        if direction != "turn" or allowance is None or allowance > TOLERANCE_CM or None in given:
            return []
        turned = angle_between(given[0], given[1])
        if turned <= self.rules.turned_threshold_deg:
            return []
        because = f" ({'; '.join(why)})" if why else ""
        return [reason("too_far", f"turned {fmt(turned)} deg in place, but may not move at all{because}")]

    def _direction(self, given: tuple[float | None, float | None], start: tuple, end: tuple) -> str:
        """Forward unless it runs against both the start and the end heading: pivot-then-drive is forward.

        Only headings the scenes give count: a hull laid along x for want of one has no known
        front, so it is not judged to reverse (Tankomaster halves a reverse, «задним ходом»)."""
        if math.dist(start, end) <= self.rules.moved_threshold_cm:
            return "turn"
        travel = math.degrees(math.atan2(end[1] - start[1], end[0] - start[0]))
        headings = [h for h in given if h is not None]
        if headings and all(angle_between(travel, h) > 90.0 + 1e-6 for h in headings):
            return "backward"
        return "forward"

    def _sweep(self, a: int, b: int) -> shapely.Geometry:
        """The core shape swept by a straight move: a segment for a base, the hull of both hulls."""
        if a not in self._swept:
            fa, fb = self.after.footprints, self.before.footprints
            if fa.radius[a] > 0:
                ends = [shapely.get_coordinates(fb.core[b])[0], shapely.get_coordinates(fa.core[a])[0]]
                self._swept[a] = shapely.LineString(ends)
            else:
                self._swept[a] = shapely.convex_hull(shapely.union(fb.core[b], fa.core[a]))
        return self._swept[a]

    def _crosses(self, a: int, b: int, polygon: shapely.Geometry) -> bool:
        """Whether the footprint, moving straight, entered the polygon (touching its outline is not).

        A base that only touches the piece, overlapping its outline by no more than the camera's
        contact_tolerance_cm at the start, at the end or brushing along it, does not cross it
        (Tankomaster: «Если в ходе движения оно пересекает какие-либо препятствия»): only where no
        point of the move goes deeper into it than the start or the end. A base squeezing mid-move
        through a gap narrower than itself still crosses (World at Fire: a breach «по ширине равен
        или больше 32мм»)."""
        sweep = self._sweep(a, b)
        radius = self.after.footprints.radius[a]
        if radius > 0:
            gap = float(shapely.distance(sweep, polygon))
            if gap >= radius - TOLERANCE_CM:
                return False
            if gap < radius - self.rules.contact_tolerance_cm - TOLERANCE_CM:
                return True
            return self._deeper_mid_move(sweep, polygon, gap)
        return reaches_into(sweep, polygon, self.rules.contact_tolerance_cm)

    def _against(self, b: int, polygon: shapely.Geometry) -> bool:
        """Whether the model stood against the piece's outline before its move (its footprint
        within contact_tolerance_cm of it, from either side)."""
        gap = float(self.before.footprints.edge_to(polygon.boundary, b))
        return gap <= self.rules.contact_tolerance_cm + TOLERANCE_CM

    @staticmethod
    def _deeper_mid_move(sweep: shapely.Geometry, polygon: shapely.Geometry, gap: float) -> bool:
        """Whether the centre's path comes nearer the polygon (`gap`) somewhere between its ends
        than at either end: a base that only touches it leaves it, reaches it or runs alongside."""
        ends = shapely.points(shapely.get_coordinates(sweep)[[0, -1]])
        return bool(gap < float(shapely.distance(ends, polygon).min()) - TOLERANCE_CM)

    def _path(self, a: int, b: int, allowance: float | None, extra: dict) -> list:
        """passes_through_model / too_close_to_enemy / impassable_terrain, only if no way round fits;
        passes_through_model too for ending on a unit that, in the turn's order, had not yet left."""
        model = self.after.models[a]
        waiting = self._order.later.get(model.unit, frozenset())
        way = self._way_round(a, b, allowance, waiting, self._order.bound.get(model.unit, frozenset()))
        reasons = []
        if way.ended_on:
            ids = ", ".join(self.after.models[k].id for k in way.ended_on)
            reasons.append(
                reason(
                    "passes_through_model",
                    f"{model.id} ends where {ids} stood: no order of this turn's moves lets every "
                    f"unit move clear, and in the one kept (a ring broken by unit id) {ids} had not yet left",
                )
            )
        if way.length is None:
            return reasons
        extra["path_cm"] = None if math.isinf(way.length) else round(way.length, 4)
        old = self.before.models[b]
        straight = math.hypot(model.x_cm - old.x_cm, model.y_cm - old.y_cm)
        if way.fits(allowance) or way.length <= straight + TOLERANCE_CM:
            return reasons  # a straight way, too long, is too_far alone
        shortest = f"the shortest way round is {fmt(way.length)} cm"
        where = "no way round" if math.isinf(way.length) else shortest
        limit = "" if allowance is None else f" of {fmt(allowance)} cm allowed"
        if way.models:
            ids = ", ".join(self.after.models[k].id for k in way.models)
            reasons.append(reason("passes_through_model", f"{model.id} passes through {ids}; {where}{limit}"))
        if way.buffers:
            ids = ", ".join(self.after.models[k].id for k in way.buffers)
            reasons.append(
                reason(
                    "too_close_to_enemy",
                    f"{model.id} passes closer than {fmt(self.buffer_cm)} cm to enemy {ids}; {where}{limit}",
                )
            )
        if way.terrain:
            ids = ", ".join(f"{piece.kind} {piece.id}" for piece in way.terrain)
            reasons.append(reason("impassable_terrain", f"{model.id} crosses {ids}; {where}{limit}"))
        return reasons

    def _way_round(
        self, a: int, b: int, allowance: float | None, waiting: frozenset[str], fixed: frozenset[str]
    ) -> Way:
        """The straight move's hits and the shortest way round, the units in `waiting` still where
        they stood (they moved after this one) and every other model where it stopped. The moved
        units whose order the turn leaves open (not in `fixed`: no straight move meets them) may
        have moved after it too: the shorter way round counts."""
        fa = self.after.footprints
        model = self.after.models[a]
        cores = self._standing(waiting)
        swept = self._sweep(a, b)
        mover_r = fa.radius[a]
        reach = mover_r + float(fa.radius.max()) + (self.buffer_cm or 0.0) + TOLERANCE_CM
        still = self._models_of(waiting)
        near = np.union1d(fa.tree.query(swept, predicate="dwithin", distance=reach), still)
        near = near[(self.after.units[near] != model.unit) & ~self.flies[near]]
        if self._jumps(a):  # it flies over the models below, as aircraft do; where it lands is end_state's
            near = near[:0]
        if a in self.carriers:  # a rider walks on the deck of the vehicle carrying him, not through it
            near = near[near != self.after.index[self.carriers[a]]]
        still = np.array([k for k in still if not self._together(a, k)], dtype=int)
        tolerance = self.rules.contact_tolerance_cm
        stood_on = gaps(fa.core[a], mover_r, cores[still], fa.radius[still], tolerance) < -tolerance
        stands_on = gaps(fa.core[a], mover_r, fa.core[still], fa.radius[still], tolerance) < -tolerance
        ended_on = still[stood_on & ~stands_on]  # ending on it where it stopped too is `overlaps_model`
        hit_models: list[int] = []
        hit_buffers: list[int] = []
        if len(near):
            gap = gaps(swept, mover_r, cores[near], fa.radius[near], tolerance)
            body = gap < -tolerance
            hit_models = near[body].tolist()
            hit_buffers = near[~body & (gap < self._kept_off(a, near))].tolist()
        impassable = [
            (piece, polygon)
            for piece, polygon in self.terrain
            if crossing.blocks(self.after, model, piece, polygon, ending=False)
        ]
        hit_terrain = [piece for piece, polygon in impassable if self._crosses(a, b, polygon)]
        if not (hit_models or hit_buffers or hit_terrain):
            return Way(None, [], [], [], ended_on.tolist())
        if self._jumps(a):  # «только прямо»: the straight line is its only way
            return Way(math.inf, hit_models, hit_buffers, hit_terrain, ended_on.tolist())
        budget = allowance if allowance is not None else math.inf
        old = self.before.models[b]
        start, end = (old.x_cm, old.y_cm), (model.x_cm, model.y_cm)
        length = self._shortest(a, impassable, start, end, budget, cores)
        open_order = self._moved_units - {model.unit} - fixed
        if length > budget + TOLERANCE_CM and open_order:
            first = self._standing(waiting | open_order)
            length = min(length, self._shortest(a, impassable, start, end, budget, first))
        return Way(length, hit_models, hit_buffers, hit_terrain, ended_on.tolist())

    def _jumps(self, a: int) -> bool:
        """The move is a jump, flown straight over what stands below («Выполняется прыжок только
        прямо – изменять направление полёта во время прыжка пехотинец не может»): Bronepehota's
        `jump_range` with `jump` (or no `speed`, as `_ground` reads it), Mobile Infantry's `jump`
        where the type has a `jump_move`."""
        model = self.after.models[a]
        if model.jump_range is not None and (model.jump or (model.jump is None and model.speed is None)):
            return True
        return bool(model.jump) and self.types[a].jump_move is not None

    def _shortest(
        self, a: int, impassable: list, start: tuple, end: tuple, budget: float, cores: np.ndarray
    ) -> float:
        """The way round, drawn coarsely, and again finely where it comes near the budget; for a
        ground mover, on the table (`pathing.table_room`)."""
        room = None
        if not self.flies[a]:
            table, fa = self.after.table, self.after.footprints
            clearance = fa.radius[a] if fa.radius[a] > 0 else self.after.models[a].base.width_mm / 20.0
            room = pathing.table_room(table.width_cm, table.depth_cm, clearance, start, end)
        coarse = self._obstacles(a, impassable, start, end, budget, cores)
        length = pathing.shortest_path(start, end, coarse, room)
        if math.isfinite(budget) and abs(length - budget) <= pathing.NEAR_BUDGET * budget:
            fine = self._obstacles(a, impassable, start, end, budget, cores, pathing.FINE_SEGS)
            length = pathing.shortest_path(start, end, fine, room)
        return length

    def _swapped(self, a: int, b: int) -> list:
        """Two models of different units that took each other's places: whichever moved first
        ended on the other's base, still standing there («не могут ... заканчивать движение на
        подставках друг друга»), in either order, so no order of moves explains the pair."""
        fa, fb = self.after.footprints, self.before.footprints
        model = self.after.models[a]
        others = [
            (k, self.before.index[other.id])
            for k in self.changed
            if k != a
            and (other := self.after.models[k]).id in self.before.index
            and other.unit != model.unit
            and not self.flies[k]
        ]
        if self.flies[a] or not others:
            return []
        ks, bks = (np.array(column) for column in zip(*others, strict=True))
        tolerance = self.rules.contact_tolerance_cm
        both = overlapping_across(fa, a, fb, bks, tolerance) & overlapping_across(fa, ks, fb, b, tolerance)
        swapped = [self.after.models[k].id for k in ks[both] if not self._together(a, k)]
        if not swapped:
            return []
        ids = ", ".join(swapped)
        return [
            reason(
                "passes_through_model",
                f"{model.id} and {ids} took each other's places: whichever moved first ended on the other",
            )
        ]

    def _together(self, a: int, k: int) -> bool:
        """A rider and a vehicle he stands on (or was carried by), a crewman and his gun: one may
        stand on the other's base, so neither passes through nor ends on the other."""
        model, other = self.after.models[a], self.after.models[k]
        if other.crew_of == model.id or model.crew_of == other.id:
            return True
        if self.carriers.get(a) == other.id or self.carriers.get(k) == model.id:
            return True
        pairs = [(self.after, a, k), (self.after, k, a)]
        b, bk = self.before.index.get(model.id), self.before.index.get(other.id)
        if b is not None and bk is not None:
            pairs += [(self.before, b, bk), (self.before, bk, b)]
        return any(end_state.on_top(scene, x, y) for scene, x, y in pairs)

    def _models_of(self, units: frozenset[str]) -> np.ndarray:
        """AFTER indices of the models of `units` that stood on the table BEFORE."""
        return np.array(
            [k for k, m in enumerate(self.after.models) if m.unit in units and m.id in self.before.index],
            dtype=int,
        )

    def _standing(self, waiting: frozenset[str]) -> np.ndarray:
        """Every model's core where it stands while the units in `waiting` have not yet moved."""
        if waiting not in self._standing_cores:
            cores = self.after.footprints.core.copy()
            for k in self._models_of(waiting):
                cores[k] = self.before.footprints.core[self.before.index[self.after.models[k].id]]
            self._standing_cores[waiting] = cores
        return self._standing_cores[waiting]

    def _obstacles(
        self,
        a: int,
        impassable: list,
        start: tuple,
        end: tuple,
        budget: float,
        cores: np.ndarray,
        quad_segs: int = pathing.COARSE_SEGS,
    ) -> list:
        """Other units' ground models (their `cores` where they stand as this one moves) and
        impassable terrain, grown by the mover's clearance (and the enemy buffer), kept only where a
        path within the budget could touch them (the start-end ellipse). A hull mover turns freely,
        so its clearance is half its width."""
        fa = self.after.footprints
        model = self.after.models[a]
        clearance = fa.radius[a] if fa.radius[a] > 0 else model.base.width_mm / 20.0
        others = np.flatnonzero((self.after.units != model.unit) & ~self.flies)
        shapes: list = []
        if len(others):
            enemy = held_off_by(self.after, a)[others]
            body = fa.radius[others] + clearance
            cores = cores[others]
            to_start = shapely.distance(cores, shapely.Point(start))
            to_end = shapely.distance(cores, shapely.Point(end))
            buffer = np.where(enemy, self.buffer_cm or 0.0, 0.0)
            grow = _cut_back(body, body + buffer, np.minimum(to_start, to_end), quad_segs)
            ellipse = to_start + to_end
            near = ellipse - 2 * grow <= budget + TOLERANCE_CM
            rounded = fa.radius[others][near] > 0
            grown = pathing.grown(cores[near], np.where(rounded, grow[near], 0.0), quad_segs)
            # A hull grown by a round base's clearance has rounded corners; drawn around, as the
            # bases' circles are (mitred corners reached 0.66 cm past a 1.6 cm clearance's arc and
            # closed real gaps beside a tank).
            grown[~rounded] = shapely.buffer(
                grown[~rounded], grow[near][~rounded] * pathing.circumscribe(quad_segs), quad_segs=quad_segs
            )
            shapes = list(grown)
        return shapes + [shapely.buffer(polygon, clearance, join_style="mitre") for _, polygon in impassable]


class Way(NamedTuple):
    """A move's straight line and its way round: the length (None: nothing in the straight way),
    what the straight line hits, and the models it ends on that had not yet left."""

    length: float | None
    models: list[int]
    buffers: list[int]
    terrain: list
    ended_on: list[int]

    def fits(self, allowance: float | None) -> bool:
        """Nothing in the straight way, or a way round within the allowance."""
        budget = math.inf if allowance is None else allowance
        return self.length is None or self.length <= budget + TOLERANCE_CM

    def clear(self, allowance: float | None) -> bool:
        """It fits, and ends on no unit still standing there."""
        return not self.ended_on and self.fits(allowance)


def _climbs(crossed: list[tuple[float, shapely.Polygon]], base_cm: float) -> list[float]:
    """The tops a move climbs over: pieces nearer each other than the mover's base is wide are
    one obstacle to it, since it cannot stand down between them (a wall drawn in two touching
    pieces, or cracked narrower than the base, «через разлом в стене если он по ширине равен или
    больше 32мм»), climbed once at the highest of them."""
    groups: list[tuple[float, shapely.Geometry]] = []
    for height, polygon in crossed:
        near = [g for g in groups if shapely.distance(g[1], polygon) < base_cm - TOLERANCE_CM]
        groups = [g for g in groups if g not in near]
        groups.append(
            (max([height, *(g[0] for g in near)]), shapely.union_all([polygon, *(g[1] for g in near)]))
        )
    return [height for height, _ in groups]


def _cut_back(body: np.ndarray, grow: np.ndarray, nearest: np.ndarray, quad_segs: int) -> np.ndarray:
    """How far each other model's obstacle reaches (`grow`: its `body`, base and the mover's
    clearance, and any enemy buffer), the buffer cut back to where the mover starts or ends
    inside it (`nearest`: the nearer of the two, from the model's core). A mover that stood
    within an enemy's buffer may walk away, or stop where it stood, but come no nearer on its
    way: dropped whole (as `pathing._freed` drops an obstacle a start lies deep inside), the
    straight line through the enemy's base counted as the way round. A start or end on a body
    itself (a misjudged overlap) is left to `pathing._freed`."""
    # Each drawn shape reaches past its grown outline by at most pathing.circumscribe(quad_segs).
    room = nearest / pathing.circumscribe(quad_segs) - 2 * pathing.SLACK_CM
    return np.minimum(grow, np.maximum(room, body))


def _stands_on(scene: Scene, rider: int, vehicle: int) -> bool:
    """The rider stands on the vehicle: above it (`end_state.on_top`), his centre over its hull."""
    if not end_state.on_top(scene, rider, vehicle):
        return False
    fp, model = scene.footprints, scene.models[rider]
    gap = shapely.distance(fp.core[vehicle], shapely.Point(model.x_cm, model.y_cm)) - fp.radius[vehicle]
    return bool(gap <= TOLERANCE_CM)


def carried(before: Scene, after: Scene) -> tuple[Scene, dict[int, str]]:
    """BEFORE with each rider put where his vehicle's drive and turn took him, and who carried
    whom (AFTER index -> vehicle id). A rider stands on a friendly vehicle of a type he may stand on
    (`stands_on`) in both scenes: he rode it (World at Fire: «передвигаться на броне танков»), so
    only his walk from there counts against his own move."""
    models = list(before.models)
    carriers: dict[int, str] = {}
    for a, rider in enumerate(after.models):
        b = before.index.get(rider.id)
        # Only a model standing above the ground may be on a hull (`end_state.on_top`).
        if b is None or (rider.z_cm or 0.0) <= TOLERANCE_CM or not after.unit_type(a).stands_on:
            continue
        for v, vehicle in enumerate(after.models):
            w = before.index.get(vehicle.id)
            if w is None or v == a or vehicle.side != rider.side:
                continue
            if not (_stands_on(after, a, v) and _stands_on(before, b, w)):
                continue
            old, then = before.models[b], before.models[w]
            turn = math.radians((vehicle.heading_deg or 0.0) - (then.heading_deg or 0.0))
            dx, dy = old.x_cm - then.x_cm, old.y_cm - then.y_cm
            x = vehicle.x_cm + dx * math.cos(turn) - dy * math.sin(turn)
            y = vehicle.y_cm + dx * math.sin(turn) + dy * math.cos(turn)
            if math.hypot(x - old.x_cm, y - old.y_cm) > after.ruleset.moved_threshold_cm:
                models[b] = old.model_copy(update={"x_cm": x, "y_cm": y})
                carriers[a] = vehicle.id
            break
    return (dataclasses.replace(before, models=tuple(models)) if carriers else before), carriers


def _check_same_table(before: Scene, after: Scene) -> None:
    """A move is judged on AFTER's table, so a table that changed size is a file of another game,
    and judging it would hold each model to an edge it never had."""
    was, now = before.table, after.table
    if (
        abs(was.width_cm - now.width_cm) > TOLERANCE_CM
        or abs(was.depth_cm - now.depth_cm) > TOLERANCE_CM
    ):
        raise SceneError(
            f"after.table: {now.width_cm:{LENGTH}}x{now.depth_cm:{LENGTH}} cm differs from before.table "
            f"{was.width_cm:{LENGTH}}x{was.depth_cm:{LENGTH}} cm",
            "compare two scenes of the same game, on one table",
        )


def _check_same_step(before: Scene, after: Scene) -> None:
    """A ruleset measured in steps (bronepehota) is judged in AFTER's step, so a step of another
    length is a file of another table, and judging it would hold each model to an allowance in a
    unit BEFORE never had. A step left out is the ruleset's default, so the lengths in force are
    compared; a ruleset not in steps has one length whatever step_cm a scene carries."""
    if abs(before.cm_per_unit - after.cm_per_unit) > TOLERANCE_CM:
        raise SceneError(
            f"after.step_cm: {_step_said(after)} differs from before.step_cm {_step_said(before)}",
            "compare two scenes of the same game, measured in one step: give both the same step_cm",
        )


def _step_said(scene: Scene) -> str:
    length = f"{scene.cm_per_unit:{LENGTH}} cm"
    if scene.spec.step_cm is None and scene.spec.table.step_cm is None:
        return f"{length} (not given: {scene.ruleset.id}'s default)"
    return length


def _check_ids_shared(before: Scene, after: Scene) -> None:
    """A model is followed by its id, so AFTER without any of BEFORE's ids (every model renamed, or
    another game's file) has no move in it, and was answered with none. Some ids missing is a
    game's casualties, and none left is every model a casualty; BEFORE with no model is a first
    deployment onto an empty table."""
    if before.models and after.models and not any(model.id in before.index for model in after.models):
        raise SceneError(
            f"AFTER shares no model id with BEFORE (BEFORE has {_named(before)}; AFTER has {_named(after)})",
            "compare two scenes of the same game, each model under the same id in both "
            "(a casualty may be left out of AFTER)",
        )


def _named(scene: Scene, at_most: int = 5) -> str:
    ids = [model.id for model in scene.models]
    more = f" and {len(ids) - at_most} more" if len(ids) > at_most else ""
    return ", ".join(ids[:at_most]) + more


def _check_sides_kept(before: Scene, after: Scene) -> None:
    """A model never changes side during a move (its unit may: a dismount, a crew leaving its gun),
    so a side that differs is a slip in one of the two files, and judging it would hold the model
    to the other side's enemies and zone."""
    for model in after.models:
        b = before.index.get(model.id)
        if b is not None and before.models[b].side != model.side:
            raise SceneError(
                f"model {model.id!r} is on side {before.models[b].side!r} in BEFORE but on side "
                f"{model.side!r} in AFTER: a side cannot change during a move",
                "fix its side in the file that is wrong",
            )


def judge_move(before: Scene, after: Scene) -> dict:
    return MoveJudge(before, after).report()
