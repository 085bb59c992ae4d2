"""Judging a move from two scenes: before and after, as the camera saw them.

A move is measured as the displacement of the same point of the model (its centre; turning is
free in every seed that allows it). The allowance comes from the unit type in the ruleset,
changed by what the scenes say: crew, wounds, actions, slowest member, terrain crossed,
reversing. Everything wrong with a move becomes a reason with a code and a readable detail.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from rules_core import pathing
from rules_core.coherency import coherency_groups
from rules_core.deployment import deployment_problems, zone_of
from rules_core.errors import SceneError
from rules_core.footprints import measured
from rules_core.proximity import within
from rules_core.ruleset import UnitType
from rules_core.scene import ModelSpec, Scene

TOLERANCE_CM = 1e-6


def _reason(code: str, detail: str) -> dict[str, str]:
    return {"code": code, "detail": detail}


def _fmt(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _angle_between(a_deg: float, b_deg: float) -> float:
    return abs((a_deg - b_deg + 180.0) % 360.0 - 180.0)


def _applies(names: list[str], model: ModelSpec) -> bool:
    return "all" in names or model.type in names or f"{model.type}:{model.chassis}" in names


class MoveJudge:
    """Holds the two scenes and the shared end-state facts every moved model is judged against."""

    def __init__(self, before: Scene, after: Scene) -> None:
        if before.ruleset.id != after.ruleset.id:
            raise SceneError(
                f"after.ruleset: {after.ruleset.id!r} differs from before.ruleset {before.ruleset.id!r}",
                "compare two scenes of the same game",
            )
        self.before, self.after = before, after
        self.rules = after.ruleset
        self.cmu = after.cm_per_unit
        self.terrain = [(t, shapely.Polygon(t.polygon_cm)) for t in after.spec.terrain]
        self.types = [after.unit_type(k) for k in range(len(after.models))]
        self.flies = np.array([t.flies for t in self.types], dtype=bool)
        self._swept_cache: dict[int, shapely.Geometry] = {}
        self.changed = self._changed()
        self._coherency = coherency_groups(after) if self.changed else {}

    def _changed(self) -> list[int]:
        threshold = self.rules.moved_threshold_cm
        changed = []
        for a, model in enumerate(self.after.models):
            b = self.before.index.get(model.id)
            if b is None:
                if self.after.phase == "deployment":
                    changed.append(a)
                continue
            old = self.before.models[b]
            turned = (
                model.heading_deg is not None
                and old.heading_deg is not None
                and _angle_between(model.heading_deg, old.heading_deg) > 1e-6
            )
            if math.hypot(model.x_cm - old.x_cm, model.y_cm - old.y_cm) > threshold or turned:
                changed.append(a)
        return changed

    def report(self) -> dict:
        result: dict = {"models": {self.after.models[a].id: self.judge(a) for a in self.changed}}
        idle = self._idle_must_movers()
        if idle:
            result["not_moved"] = idle
        return result

    def _idle_must_movers(self) -> dict[str, list]:
        """Models that had to move (World at Fire aircraft) but stayed put, reported beside `models`."""
        if self.after.phase != "movement":
            return {}
        moved = set(self.changed)
        idle = {}
        for a, model in enumerate(self.after.models):
            unit_type = self.types[a]
            exempt = any(model.has(flag) for flag in unit_type.must_move_exempt_flags)
            if unit_type.must_move and not exempt and a not in moved and model.id in self.before.index:
                idle[model.id] = [_reason("did_not_move", f"{model.id} ({model.type}) must move every turn")]
        return idle

    # ------------------------------------------------------------------ one model
    def judge(self, a: int) -> dict:
        model = self.after.models[a]
        b = self.before.index.get(model.id)
        unit_type = self.types[a]
        reasons: list[dict[str, str]] = []
        if b is None:
            moved, allowance, extra = None, None, {}
        elif self.after.phase == "deployment":
            old = self.before.models[b]
            moved, allowance, extra = math.hypot(model.x_cm - old.x_cm, model.y_cm - old.y_cm), None, {}
            extra["allowance_notes"] = ["deployment: models are placed, not moved, so no allowance applies"]
        elif unit_type.movement == "aircraft":
            moved, allowance, extra = self._aircraft(a, b, unit_type, reasons)
        else:
            moved, allowance, extra = self._ground(a, b, unit_type, reasons)
        reasons += self._end_state(a, unit_type)
        contacts = self._contacts(a)
        if contacts is not None:
            extra["contacts"] = contacts
        result = {
            "moved_cm": None if moved is None else round(moved, 4),
            "allowance_cm": None if allowance is None else round(allowance, 4),
            "legal": not reasons,
            "reasons": reasons,
            "unit": model.unit,
            "type": model.type,
        }
        result.update(extra)
        return result

    def _ground(self, a: int, b: int, unit_type: UnitType, reasons: list) -> tuple[float, float | None, dict]:
        model, old = self.after.models[a], self.before.models[b]
        start, end = (old.x_cm, old.y_cm), (model.x_cm, model.y_cm)
        moved = math.dist(start, end)
        extra: dict = {}
        allowance, why = self._allowance(a, unit_type)
        allowance, terrain_why = self._terrain_allowance(a, b, unit_type, allowance, reasons)
        why += terrain_why
        cost = moved
        climb = abs((model.z_cm or 0.0) - (old.z_cm or 0.0))
        if (
            unit_type.climb_counts_from is not None
            and climb >= self.after.cm(unit_type.climb_counts_from) - TOLERANCE_CM
        ):
            cost += climb
            why.append(f"climbing {_fmt(climb)} cm counts ({_fmt(moved)} + {_fmt(climb)} cm)")
            extra["climb_cm"] = round(climb, 4)
        if model.jump_range is not None:
            allowance = self.after.cm(model.jump_range)
            cost = moved + climb
            why = [f"jump: length {_fmt(moved)} + height {_fmt(climb)} cm within its jump range"]
        reversed_too_far = False
        if unit_type.movement == "vehicle":
            direction = self._direction(old, model, start, end)
            extra["direction"] = direction
            if direction == "backward" and unit_type.reverse_move is not None:
                reverse = self.after.cm(unit_type.reverse_move)
                allowance = reverse if allowance is None else min(allowance, reverse)
                if cost > allowance + TOLERANCE_CM:
                    reversed_too_far = True
                    reasons.append(
                        _reason(
                            "moved_backwards_too_far",
                            f"reversed {_fmt(cost)} cm, {model.type} may reverse {_fmt(allowance)} cm",
                        )
                    )
        if allowance is not None and not reversed_too_far and cost > allowance + TOLERANCE_CM:
            because = f" ({'; '.join(why)})" if why else ""
            reasons.append(
                _reason(
                    "too_far", f"moved {_fmt(cost)} cm, {model.type} may move {_fmt(allowance)} cm{because}"
                )
            )
        if why:
            extra["allowance_notes"] = why
        reasons += self._path(a, start, end, allowance, moved, extra)
        return moved, allowance, extra

    def _direction(self, old: ModelSpec, model: ModelSpec, start: tuple, end: tuple) -> str:
        """Forward unless it runs against both the start and the end heading: pivot-then-drive is forward."""
        if math.dist(start, end) <= self.rules.moved_threshold_cm:
            return "turn"
        travel = math.degrees(math.atan2(end[1] - start[1], end[0] - start[0]))
        headings = [h for h in (old.heading_deg, model.heading_deg) if h is not None]
        if headings and all(_angle_between(travel, h) > 90.0 + 1e-6 for h in headings):
            return "backward"
        return "forward"

    def _allowance(self, a: int, unit_type: UnitType) -> tuple[float | None, list[str]]:
        allowance, why = self._own_allowance(a, unit_type)
        model = self.after.models[a]
        if unit_type.unit_moves_at_slowest:
            for k, other in enumerate(self.after.models):
                if other.unit == model.unit and k != a:
                    theirs, _ = self._own_allowance(k, self.types[k])
                    if theirs is not None and (allowance is None or theirs < allowance - TOLERANCE_CM):
                        allowance = theirs
                        why = [
                            f"unit moves at its slowest member, {other.id} ({other.type}) {_fmt(theirs)} cm"
                        ]
        return allowance, why

    def _own_allowance(self, a: int, unit_type: UnitType) -> tuple[float | None, list[str]]:
        model = self.after.models[a]
        cm = self.after.cm
        why: list[str] = []
        if self.after.phase in self.rules.dash_phases:
            if model.dash is None:
                return None, [
                    f"a move in the {self.after.phase} phase is a dash: give its dice total as dash"
                ]
            return cm(model.dash), [f"dash of {_fmt(cm(model.dash))} cm"]
        allowance = None if unit_type.move is None else cm(unit_type.move)
        if unit_type.move_per_action is not None:
            actions = model.move_actions if model.move_actions is not None else (unit_type.actions or 1)
            allowance = cm(unit_type.move_per_action) * actions
            why.append(f"{actions} move action(s) of {_fmt(cm(unit_type.move_per_action))} cm")
        if model.crew_of is not None and unit_type.crew_move is not None:
            allowance = cm(unit_type.crew_move)
            why.append(f"crew of {model.crew_of}")
        if model.wounded and unit_type.wounded_move is not None:
            allowance = cm(unit_type.wounded_move)
            why.append("wounded, carried")
        if model.jump and unit_type.jump_move is not None:
            allowance = cm(unit_type.jump_move)
            why.append("jump")
        if model.limbs_lost_pct is not None and allowance is not None:
            if (
                unit_type.immobile_from_limbs_lost_pct is not None
                and model.limbs_lost_pct >= unit_type.immobile_from_limbs_lost_pct
            ):
                allowance = 0.0
                why.append(f"lost {model.limbs_lost_pct:g}% of its limbs, immobile")
            elif (
                unit_type.half_from_limbs_lost_pct is not None
                and model.limbs_lost_pct >= unit_type.half_from_limbs_lost_pct
            ):
                allowance /= 2
                why.append(f"lost {model.limbs_lost_pct:g}% of its limbs, half speed")
        if unit_type.min_crew_to_move is not None:
            crew = sum(1 for m in self.after.models if m.crew_of == model.id)
            if crew < unit_type.min_crew_to_move:
                allowance = 0.0
                why.append(f"needs {unit_type.min_crew_to_move} crew to move, has {crew}")
        return allowance, why

    def _swept(self, a: int, b: int) -> shapely.Geometry:
        """The ground the footprint covers on a straight move (core shape; add the radius to test)."""
        if a not in self._swept_cache:
            self._swept_cache[a] = self._sweep(a, b)
        return self._swept_cache[a]

    def _swept_body(self, a: int, b: int) -> shapely.Geometry:
        """The swept core grown by the base radius: everything the footprint touched on the way."""
        radius = self.after.footprints.radius[a]
        return shapely.buffer(self._swept(a, b), radius) if radius > 0 else self._swept(a, b)

    def _sweep(self, a: int, b: int) -> shapely.Geometry:
        fa, fb = self.after.footprints, self.before.footprints
        if fa.radius[a] > 0:
            return shapely.LineString(
                [shapely.get_coordinates(fb.core[b])[0], shapely.get_coordinates(fa.core[a])[0]]
            )
        return shapely.convex_hull(shapely.union(fb.core[b], fa.core[a]))

    def _terrain_allowance(
        self, a: int, b: int, unit_type: UnitType, allowance: float | None, reasons: list
    ) -> tuple[float | None, list[str]]:
        model = self.after.models[a]
        swept = self._swept_body(a, b)
        why: list[str] = []
        for piece, polygon in self.terrain:
            effect = self.rules.terrain[piece.kind]
            if not swept.intersects(polygon) or swept.touches(polygon):
                continue
            if effect.area and unit_type.area_terrain_move is not None:
                cap = self.after.cm(unit_type.area_terrain_move)
                if allowance is None or cap < allowance:
                    allowance = cap
                    why.append(f"in or through {piece.kind} {piece.id}: {_fmt(cap)} cm")
            if effect.obstacle:
                height = piece.height_cm
                too_high = unit_type.obstacle_max_height
                if too_high is not None and (
                    height is None or height > self.after.cm(too_high) + TOLERANCE_CM
                ):
                    reasons.append(
                        _reason(
                            "impassable_terrain",
                            f"{model.id} ({model.type}) cannot cross {piece.kind} {piece.id}"
                            f"{'' if height is None else f' ({_fmt(height)} cm high)'}, "
                            f"limit {_fmt(self.after.cm(too_high))} cm",
                        )
                    )
                    continue
                slows = unit_type.obstacle_slows_above
                if unit_type.obstacle_move is not None and (
                    slows is None or height is None or height > self.after.cm(slows) + TOLERANCE_CM
                ):
                    cap = self.after.cm(unit_type.obstacle_move)
                    if allowance is None or cap < allowance:
                        allowance = cap
                        why.append(f"crossing {piece.kind} {piece.id}: {_fmt(cap)} cm")
        return allowance, why

    def _blockers(self, a: int) -> tuple[np.ndarray, np.ndarray]:
        """Other units' ground models the mover may not cross, and which of them are enemies."""
        model = self.after.models[a]
        others = np.flatnonzero((self.after.units != model.unit) & ~self.flies)
        return others, self.after.sides[others] != model.side

    def _buffer_cm(self) -> float | None:
        rule = self.rules.enemy_buffer
        if rule is None or self.after.phase not in self.rules.enemy_buffer_phases:
            return None
        return self.after.cm(rule.value)

    def _path(
        self, a: int, start: tuple, end: tuple, allowance: float | None, moved: float, extra: dict
    ) -> list:
        """passes_through_model / too_close_to_enemy / impassable_terrain, only if no way round fits."""
        fa = self.after.footprints
        model = self.after.models[a]
        b = self.before.index[model.id]
        swept = self._swept(a, b)
        mover_r = fa.radius[a]
        clearance = mover_r if mover_r > 0 else (model.base.width_mm / 20.0)
        buffer_cm = self._buffer_cm()
        reach = mover_r + float(fa.radius.max()) + (buffer_cm or 0.0) + TOLERANCE_CM
        near = fa.tree.query(swept, predicate="dwithin", distance=reach)
        near = near[(self.after.units[near] != model.unit) & ~self.flies[near]]
        hit_models: list[int] = []
        hit_buffers: list[int] = []
        hit_terrain = []
        if len(near):
            enemy_near = self.after.sides[near] != model.side
            gap = shapely.distance(swept, fa.core[near]) - mover_r - fa.radius[near]
            body = gap < -self.rules.contact_tolerance_cm
            hit_models = near[body].tolist()
            if buffer_cm is not None:
                hit_buffers = near[~body & enemy_near & (gap < buffer_cm - TOLERANCE_CM)].tolist()
        impassable = [
            (p, poly)
            for p, poly in self.terrain
            if _applies(self.rules.terrain[p.kind].impassable_for, model)
        ]
        swept_body = self._swept_body(a, b)
        for piece, polygon in impassable:
            if (
                swept_body.intersects(polygon)
                and shapely.intersection(swept_body, polygon).area > TOLERANCE_CM
            ):
                hit_terrain.append(piece)
        if not (hit_models or hit_buffers or hit_terrain):
            return []
        budget = allowance if allowance is not None else math.inf
        others, enemy = self._blockers(a)
        obstacles = self._obstacles(others, enemy, clearance, buffer_cm, impassable, start, end, budget)
        length = pathing.shortest_path(start, end, obstacles)
        extra["path_cm"] = None if math.isinf(length) else round(length, 4)
        if length <= budget + TOLERANCE_CM:
            return []
        way = "no way round" if math.isinf(length) else f"the shortest way round is {_fmt(length)} cm"
        limit = "" if allowance is None else f" of {_fmt(allowance)} cm allowed"
        reasons = []
        if hit_models:
            ids = ", ".join(self.after.models[k].id for k in hit_models)
            reasons.append(_reason("passes_through_model", f"{model.id} passes through {ids}; {way}{limit}"))
        if hit_buffers:
            ids = ", ".join(self.after.models[k].id for k in hit_buffers)
            reasons.append(
                _reason(
                    "too_close_to_enemy",
                    f"{model.id} passes closer than {_fmt(buffer_cm)} cm to enemy {ids}; {way}{limit}",
                )
            )
        if hit_terrain:
            ids = ", ".join(f"{p.kind} {p.id}" for p in hit_terrain)
            reasons.append(_reason("impassable_terrain", f"{model.id} crosses {ids}; {way}{limit}"))
        return reasons

    def _obstacles(
        self,
        others: np.ndarray,
        enemy: np.ndarray,
        clearance: float,
        buffer_cm: float | None,
        impassable: list,
        start: tuple,
        end: tuple,
        budget: float,
    ) -> list:
        """Grown obstacles that a path within the budget could touch (inside the start-end ellipse)."""
        fa = self.after.footprints
        shapes: list = []
        if len(others):
            grow = fa.radius[others] + clearance + np.where(enemy, buffer_cm or 0.0, 0.0)
            cores = fa.core[others]
            to_start = shapely.distance(cores, shapely.Point(start))
            near = to_start + shapely.distance(cores, shapely.Point(end)) - 2 * grow <= budget + TOLERANCE_CM
            rounded = fa.radius[others][near] > 0
            grown = pathing.grown(cores[near], np.where(rounded, grow[near], 0.0))
            grown[~rounded] = shapely.buffer(grown[~rounded], grow[near][~rounded], join_style="mitre")
            shapes = list(grown)
        shapes += [shapely.buffer(polygon, clearance, join_style="mitre") for _, polygon in impassable]
        return shapes

    def _contacts(self, a: int) -> list[str] | None:
        """Enemies within melee distance after the move: the mover is the attacker (Bronepehota)."""
        rule = self.rules.melee
        if rule is None:
            return None
        model = self.after.models[a]
        enemies = np.flatnonzero(self.after.sides != model.side)
        if not len(enemies):
            return []
        distance = measured(self.after.footprints, np.full(len(enemies), a), enemies, rule.measured)
        return [self.after.models[k].id for k in enemies[within(self.after, rule, distance)]]

    # ------------------------------------------------------------------ aircraft
    def _aircraft(
        self, a: int, b: int, unit_type: UnitType, reasons: list
    ) -> tuple[float, float | None, dict]:
        model, old = self.after.models[a], self.before.models[b]
        cm = self.after.cm
        start, end = (old.x_cm, old.y_cm), (model.x_cm, model.y_cm)
        moved = math.dist(start, end)
        cost = 0.0
        why = []
        if model.altitude is not None and old.altitude is not None and model.altitude != old.altitude:
            levels = abs(model.altitude - old.altitude)
            diving = model.dive and model.altitude < old.altitude and unit_type.dive_cost is not None
            per_level = unit_type.dive_cost if diving else unit_type.altitude_change_cost
            cost = cm(per_level or 0.0) * levels
            why.append(f"{'dive' if diving else 'altitude change'} costs {_fmt(cost)} cm")
        allowance = None if unit_type.move is None else max(cm(unit_type.move) - cost, 0.0)
        shortest = None if unit_type.min_move is None else max(cm(unit_type.min_move) - cost, 0.0)
        suffix = f" ({'; '.join(why)})" if why else ""
        if allowance is not None and moved > allowance + TOLERANCE_CM:
            reasons.append(
                _reason(
                    "too_far", f"flew {_fmt(moved)} cm, {model.type} may fly {_fmt(allowance)} cm{suffix}"
                )
            )
        if shortest is not None and self.rules.moved_threshold_cm < moved < shortest - TOLERANCE_CM:
            reasons.append(
                _reason(
                    "too_short",
                    f"flew {_fmt(moved)} cm, {model.type} must fly at least {_fmt(shortest)} cm{suffix}",
                )
            )
        if moved > self.rules.moved_threshold_cm:
            travel = math.degrees(math.atan2(end[1] - start[1], end[0] - start[0])) % 360.0
            if old.heading_deg is not None and unit_type.max_turn_deg is not None:
                turn = _angle_between(travel, old.heading_deg)
                if turn > unit_type.max_turn_deg + 1e-6:
                    reasons.append(
                        _reason(
                            "turned_too_far",
                            f"flew at {_fmt(travel)} deg, {_fmt(turn)} deg from its heading "
                            f"{_fmt(old.heading_deg)}; "
                            f"it may turn {_fmt(unit_type.max_turn_deg)} deg before moving",
                        )
                    )
            if (
                model.heading_deg is not None
                and _angle_between(travel, model.heading_deg) > unit_type.heading_tolerance_deg
            ):
                reasons.append(
                    _reason(
                        "not_straight_ahead",
                        f"ends heading {_fmt(model.heading_deg)} deg but flew at {_fmt(travel)} deg; "
                        "aircraft fly straight forward",
                    )
                )
        reasons += self._separation(a, unit_type)
        return moved, allowance, ({"min_cm": round(shortest, 4)} if shortest is not None else {})

    def _separation(self, a: int, unit_type: UnitType) -> list:
        rule = unit_type.separation
        if rule is None:
            return []
        model = self.after.models[a]
        fa = self.after.footprints
        out = []
        for k, other in enumerate(self.after.models):
            if other.side == model.side or not self.flies[k]:
                continue
            gap = float(fa.edge(a, k))
            if model.altitude is not None and other.altitude is not None and model.altitude != other.altitude:
                gap += self.after.cm(unit_type.altitude_separation_bonus)
            if rule.holds(gap, self.cmu):
                out.append(
                    _reason(
                        "too_close_to_enemy",
                        f"ends {_fmt(gap)} cm from enemy aircraft {other.id}, "
                        f"must not be closer than {_fmt(self.after.cm(rule.value))} cm",
                    )
                )
        return out

    # ------------------------------------------------------------------ end state
    def _end_state(self, a: int, unit_type: UnitType) -> list:
        reasons = self._off_table(a)
        if not unit_type.flies:
            reasons += self._overlaps(a) + self._end_near_enemy(a) + self._end_in_terrain(a)
        reasons += self._coherency_reason(a) + self._deployment_reason(a)
        return reasons

    def _off_table(self, a: int) -> list:
        minx, miny, maxx, maxy = shapely.bounds(self.after.footprints.shapes[a])
        fa = self.after.footprints
        if fa.radius[a] > 0:
            x, y = self.after.xy[a]
            minx, miny, maxx, maxy = x - fa.radius[a], y - fa.radius[a], x + fa.radius[a], y + fa.radius[a]
        table = self.after.table
        tol = TOLERANCE_CM
        if minx < -tol or miny < -tol or maxx > table.width_cm + tol or maxy > table.depth_cm + tol:
            return [_reason("off_table", f"{self.after.models[a].id} ends (partly) off the table")]
        return []

    def _overlaps(self, a: int) -> list:
        fa = self.after.footprints
        model = self.after.models[a]
        candidates = np.array(
            [k for k in fa.tree.query(fa.shapes[a]) if k != a and not self.flies[k]],
            dtype=int,
        )
        out = []
        if len(candidates):
            hit = fa.overlapping(np.full(len(candidates), a), candidates, self.rules.contact_tolerance_cm)
            for k in candidates[hit]:
                out.append(_reason("overlaps_model", f"{model.id} ends on {self.after.models[k].id}"))
        objectives = self.rules.objectives
        if objectives is not None and objectives.no_end_on:
            for objective in self.after.spec.objectives:
                radius = (objective.diameter_mm or objectives.marker_mm) / 20.0
                gap = (
                    float(shapely.distance(fa.core[a], shapely.Point(objective.x_cm, objective.y_cm)))
                    - fa.radius[a]
                    - radius
                )
                if gap < -self.rules.contact_tolerance_cm:
                    out.append(
                        _reason(
                            "overlaps_model",
                            f"{model.id} ends on objective {objective.id} (moving through it is allowed)",
                        )
                    )
        return out

    def _end_near_enemy(self, a: int) -> list:
        buffer_cm = self._buffer_cm()
        if buffer_cm is None:
            return []
        model = self.after.models[a]
        fa = self.after.footprints
        reach = buffer_cm + fa.radius[a] + float(fa.radius.max()) + TOLERANCE_CM
        near = fa.tree.query(fa.core[a], predicate="dwithin", distance=reach)
        enemies = near[(self.after.sides[near] != model.side) & ~self.flies[near]]
        if not len(enemies):
            return []
        gaps = fa.edge(np.full(len(enemies), a), enemies)
        rule = self.rules.enemy_buffer
        close = rule.holds(gaps, self.cmu)
        return [
            _reason(
                "too_close_to_enemy",
                f"{model.id} ends {_fmt(g)} cm from enemy {self.after.models[k].id}, "
                f"must stay at least {_fmt(buffer_cm)} cm away",
            )
            for k, g in zip(enemies[close], gaps[close], strict=True)
        ]

    def _end_in_terrain(self, a: int) -> list:
        model = self.after.models[a]
        shape = self.after.footprints.shapes[a]
        out = []
        for piece, polygon in self.terrain:
            if (
                _applies(self.rules.terrain[piece.kind].impassable_for, model)
                and shapely.intersection(shape, polygon).area > 1e-4
            ):
                out.append(
                    _reason(
                        "impassable_terrain",
                        f"{model.id} ends in {piece.kind} {piece.id}, which {model.type} cannot enter",
                    )
                )
        return out

    def _coherency_reason(self, a: int) -> list:
        unit = self.after.models[a].unit
        state = self._coherency.get(unit)
        if state is None or state["coherent"]:
            return []
        rule = self.rules.coherency
        groups = " | ".join(", ".join(g) for g in state["groups"])
        return [
            _reason(
                "breaks_coherency",
                f"unit {unit} ends in {len(state['groups'])} groups ({groups}); models must stay "
                f"{'within' if rule.inclusive else 'less than'} {_fmt(self.after.cm(rule.value))} cm apart "
                f"({rule.measured})",
            )
        ]

    def _deployment_reason(self, a: int) -> list:
        if (
            self.after.phase != "deployment"
            or self.after.spec.deployment is None
            or self.rules.deployment is None
        ):
            return []
        model = self.after.models[a]
        kind = self.rules.deployment.kinds[self.after.spec.deployment.kind]
        problems = deployment_problems(self.after, a, kind, zone_of(self.after, model.side))
        return [_reason("outside_deployment_zone", problem) for problem in problems]


def judge_move(before: Scene, after: Scene) -> dict:
    return MoveJudge(before, after).report()
