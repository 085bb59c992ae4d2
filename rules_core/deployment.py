"""Deployment zones: strips along a side's table edge, or a corner of its quarter.

The zone depth and shape are ruleset data; whether the whole footprint or only its centre
must be inside is the ruleset's `deployment.reference`. Containment of a round base is
exact: its centre inside the zone and at least its radius from the zone's boundary.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from rules_core.crossing import blocks
from rules_core.footprints import stands_in
from rules_core.proximity import within
from rules_core.ruleset import DeploymentKind
from rules_core.scene import EDGES, Scene

TOLERANCE_CM = 1e-6


def _strip(kind: DeploymentKind, edge: str, width: float, depth: float, d: float) -> Polygon:
    d_x, d_y = min(d, width), min(d, depth)
    return {
        "left": box(0, 0, d_x, depth),
        "right": box(width - d_x, 0, width, depth),
        "top": box(0, 0, width, d_y),
        "bottom": box(0, depth - d_y, width, depth),
    }[edge]


def _corner(kind: DeploymentKind, quarter: str, width: float, depth: float, d: float) -> Polygon:
    half_w, half_d = width / 2, depth / 2
    vertical, horizontal = quarter.split("-")
    x0 = 0.0 if horizontal == "left" else half_w
    y0 = 0.0 if vertical == "top" else half_d
    quarter_box = box(x0, y0, x0 + half_w, y0 + half_d)
    near_x = box(0, 0, d, depth) if horizontal == "left" else box(width - d, 0, width, depth)
    near_y = box(0, 0, width, d) if vertical == "top" else box(0, depth - d, width, depth)
    band = near_x.intersection(near_y) if kind.shape == "corner_square" else near_x.union(near_y)
    return shapely.normalize(quarter_box.intersection(band))


def no_zones(scene: Scene) -> str | None:
    """Why no model of the scene has a deployment zone to be judged by, or None when they have."""
    if scene.ruleset.deployment is None:
        return f"{scene.ruleset.id} has no deployment zones"
    if scene.spec.deployment is None:
        return "the scene gives no deployment (kind and sides)"
    return None


# Tankomaster: the ambush rules bind the soldiers who make up the ambush («не выставляет на поле тех
# солдат, которые и должны составить засаду»); a scene names them with this flag.
AMBUSH_FLAG = "ambush"


def deploying_sides(scene: Scene) -> list[str]:
    """The sides deployment.sides names that deploy by its kind. A `one_sided` kind is the
    defender's alone (Tankomaster: «Правилами для засады пользуется только обороняющийся»), and no
    scene field names the defender: where several sides are named, the one side flagging its
    ambushers is it; where none or several flag, each named side is judged and `check` warns."""
    deployment = scene.spec.deployment
    if no_zones(scene):
        return []
    named = list(deployment.sides)
    if len(named) < 2 or not scene.ruleset.deployment.kinds[deployment.kind].one_sided:
        return named
    flagging = {m.side for m in scene.models if m.has(AMBUSH_FLAG)}
    defenders = [side for side in named if side in flagging]
    return defenders if len(defenders) == 1 else named


def zone_of(scene: Scene, side: str) -> Polygon | None:
    deployment = scene.spec.deployment
    if side not in deploying_sides(scene):
        return None
    kind = scene.ruleset.deployment.kinds[deployment.kind]
    make = _strip if kind.shape == "edge_strip" else _corner
    return make(
        kind, deployment.sides[side], scene.table.width_cm, scene.table.depth_cm, scene.cm(kind.depth)
    )


def deployment_zones(scene: Scene) -> dict[str, list[list[list[float]]]]:
    """side -> list of zone polygons, each a list of [x_cm, y_cm] (closed ring)."""
    zones: dict[str, list[list[list[float]]]] = {}
    for side in deploying_sides(scene):
        zone = zone_of(scene, side)
        parts = list(zone.geoms) if hasattr(zone, "geoms") else [zone]
        zones[side] = [[[round(x, 4), round(y, 4)] for x, y in part.exterior.coords] for part in parts]
    return zones


def inside(scene: Scene, i: int, zone: Polygon) -> bool:
    """Whether model i stands in the zone under the ruleset's reference (footprint or centre)."""
    fp = scene.footprints
    model = scene.models[i]
    reference = scene.ruleset.deployment.reference if scene.ruleset.deployment else "footprint"
    point = shapely.Point(model.x_cm, model.y_cm)
    if reference == "centre":
        return bool(zone.buffer(TOLERANCE_CM).covers(point))
    if fp.radius[i] > 0:
        return bool(zone.covers(point)) and zone.boundary.distance(point) >= fp.radius[i] - TOLERANCE_CM
    return bool(zone.buffer(TOLERANCE_CM).covers(fp.core[i]))


def deployment_report(scene: Scene) -> dict[str, dict]:
    """models.{id}: in_deployment_zone, and why not (problems) when the ruleset adds conditions.
    Under a `one_sided` kind a side that flags some of its models `ambush` deploys only those by it:
    its other models have no zone (null); a side that flags none has every model judged; a side
    named beside the one defender (`deploying_sides`) has no zone."""
    deployment = scene.spec.deployment
    report: dict[str, dict] = {}
    missing = no_zones(scene)
    if missing:
        return {m.id: {"in_deployment_zone": None, "problems": [missing]} for m in scene.models}
    kind = scene.ruleset.deployment.kinds[deployment.kind]
    deploying = deploying_sides(scene)
    zones = {side: zone_of(scene, side) for side in deploying}
    for i, model in enumerate(scene.models):
        zone = zones.get(model.side)
        if zone is None and kind.one_sided:
            why = (
                f"only the defender does, and side {deploying[0]} flags its ambushers {AMBUSH_FLAG}"
                if model.side in deployment.sides
                else "deployment.sides leaves it out"
            )
            away = f"side {model.side} does not deploy by {deployment.kind} ({why})"
            report[model.id] = {"in_deployment_zone": None, "problems": [away]}
            continue
        if _not_an_ambusher(scene, i, kind):
            other = (
                f"{model.id} is not flagged {AMBUSH_FLAG}: side {model.side} deploys only its models "
                f"flagged {AMBUSH_FLAG} by {deployment.kind}"
            )
            report[model.id] = {"in_deployment_zone": None, "problems": [other]}
            continue
        problems = deployment_problems(scene, i, kind, zone)
        placed = forbidden_terrain_problems(scene, i)
        report[model.id] = {"in_deployment_zone": not problems, "problems": problems + placed}
    return report


def _not_an_ambusher(scene: Scene, i: int, kind: DeploymentKind) -> bool:
    """Under a `one_sided` kind, a model of a side that flags its ambushers `ambush` and is not
    one of them: the ambush rules leave it alone."""
    model = scene.models[i]
    return (
        kind.one_sided
        and not model.has(AMBUSH_FLAG)
        and any(m.has(AMBUSH_FLAG) for m in scene.models if m.side == model.side)
    )


def deployment_problems(
    scene: Scene, i: int, kind: DeploymentKind, zone: Polygon | None, keep_away: bool = True
) -> list[str]:
    model = scene.models[i]
    if _not_an_ambusher(scene, i, kind):
        return []
    if zone is None:
        return [f"side {model.side} has no deployment zone in deployment.sides"]
    problems = []
    if not inside(scene, i, zone):
        problems.append(
            f"{model.id} is not inside the {kind.shape.replace('_', ' ')} zone of side {model.side}"
        )
    if kind.rough_terrain_only and not _in_rough_terrain(scene, i, kind):
        kinds = sorted(kind_name for kind_name, effect in scene.ruleset.terrain.items() if effect.rough)
        beside = kind.rough_beside
        also = (
            f", or within {scene.cm(beside.distance.value):g} cm of {', '.join(beside.kinds)}"
            if beside
            else ""
        )
        problems.append(f"{model.id} must deploy in rough terrain ({', '.join(kinds)}{also})")
    return problems + (too_close_to_enemy(scene, i, kind) if keep_away else [])


def too_close_to_enemy(scene: Scene, i: int, kind: DeploymentKind) -> list[str]:
    """The deployment's keep-away from the enemy broken (Tankomaster ambush: «не может находиться
    ближе чем на 20 см к войскам противника»): a move reports it as `too_close_to_enemy`, not as
    being outside the zone; `deployment_problems` lists it with the rest."""
    model = scene.models[i]
    limit = kind.enemy_keep_away
    enemies = np.flatnonzero(scene.sides != model.side)
    if limit is None or not len(enemies):
        return []
    gaps = scene.footprints.edge(np.full(len(enemies), i), enemies)
    if not limit.holds(gaps, scene.cm_per_unit).any():
        return []
    # The enemy the gap is measured to, first by id among equally near ones (not the first listed).
    nearest = min(range(len(enemies)), key=lambda k: (gaps[k], scene.models[enemies[k]].id))
    return [
        f"{model.id} is {float(gaps[nearest]):.2f} cm from enemy {scene.models[enemies[nearest]].id}, "
        f"must not be closer than {scene.cm(limit.value):g} cm"
    ]


def forbidden_terrain_problems(scene: Scene, i: int) -> list[str]:
    """Terrain the model stands in that its type may cross but not stop in: World at Fire's
    cavalry and motorcycles cross a narrow trench, yet «не может быть помещена в бункер или окоп».
    Pieces a type may not enter at all are no placing rule: what a gun may not be moved onto it
    may be set down on (World at Fire: «пушки между этажами зданий во время игры передвигать
    вообще нельзя ... но можно разместить во время расстановки»), and a Tankomaster ambush
    stands in the wood its gun cannot drive into. Its zone is not at stake,
    so in_deployment_zone does not change; flying models stand in nothing."""
    model = scene.models[i]
    if scene.ruleset.unit_types[model.type].flies:
        return []
    tolerance = scene.ruleset.contact_tolerance_cm
    problems = []
    for piece in scene.spec.terrain:
        polygon = shapely.Polygon(piece.polygon_cm)
        if (
            blocks(scene, model, piece, polygon, ending=True)
            and not blocks(scene, model, piece, polygon, ending=False)
            and stands_in(scene.footprints, i, polygon, tolerance)
        ):
            problems.append(
                f"{model.id} stands in {piece.kind} {piece.id}, which {model.type} may not be placed in"
            )
    return problems


def _in_rough_terrain(scene: Scene, i: int, kind: DeploymentKind) -> bool:
    """Its centre in a rough piece, or its base within `rough_beside` of a piece of the kinds named
    there: a house shelters an ambush behind it as well as in it («в доме или за домом»)."""
    model = scene.models[i]
    point = shapely.Point(model.x_cm, model.y_cm)
    beside = kind.rough_beside
    for piece in scene.spec.terrain:
        polygon = shapely.Polygon(piece.polygon_cm)
        if scene.ruleset.terrain[piece.kind].rough and polygon.covers(point):
            return True
        if (
            beside is not None
            and piece.kind in beside.kinds
            and within(scene, beside.distance, scene.footprints.edge_to(polygon, i))
        ):
            return True
    return False


OPPOSITE = {
    "left": "right",
    "right": "left",
    "top": "bottom",
    "bottom": "top",
    "top-left": "bottom-right",
    "bottom-right": "top-left",
    "top-right": "bottom-left",
    "bottom-left": "top-right",
}


def edge_warnings(scene: Scene) -> list[str]:
    """Sides set on an edge the deployment kind does not use (breakthrough: short edges, ambush: long),
    and, where the ruleset has armies face each other, two sides not on opposite edges or quarters."""
    deployment = scene.spec.deployment
    if deployment is None or scene.ruleset.deployment is None:
        return []
    return _facing_warnings(scene) + _kind_edge_warnings(scene) + _defender_warnings(scene)


def _defender_warnings(scene: Scene) -> list[str]:
    """A one-sided kind (the defender's) naming several sides, none of them alone flagging its
    ambushers: which side defends is unknown, so each is judged as if it did; said, with the fix."""
    deployment = scene.spec.deployment
    deploying = deploying_sides(scene)
    if not scene.ruleset.deployment.kinds[deployment.kind].one_sided or len(deploying) < 2:
        return []
    return [
        f"only the defender deploys by {deployment.kind}, but deployment.sides names "
        f"{', '.join(deploying)} and no one side flags its ambushers {AMBUSH_FLAG}, so each is judged "
        f"as the defender: name only the defender's side, or flag its ambushers {AMBUSH_FLAG}"
    ]


def _facing_warnings(scene: Scene) -> list[str]:
    deployment = scene.spec.deployment
    if not scene.ruleset.deployment.opposite_sides:
        return []
    places = list(deployment.sides.items())
    return [
        f"sides {side} ({place}) and {other} ({other_place}) do not face each other: {deployment.kind} "
        f"puts them on opposite {'quarters' if '-' in place else 'edges'}"
        for k, (side, place) in enumerate(places)
        for other, other_place in places[k + 1 :]
        if OPPOSITE.get(place) != other_place
    ]


def _kind_edge_warnings(scene: Scene) -> list[str]:
    deployment = scene.spec.deployment
    kind = scene.ruleset.deployment.kinds[deployment.kind]
    width, depth = scene.table.width_cm, scene.table.depth_cm
    if kind.shape != "edge_strip" or kind.edges == "any" or width == depth:
        return []
    side_edges = ("left", "right") if depth < width else ("top", "bottom")
    wanted = side_edges if kind.edges == "short" else tuple(e for e in EDGES if e not in side_edges)
    return [
        f"side {side} deploys on the {edge} edge, but {deployment.kind} uses the {kind.edges} edges "
        f"({', '.join(wanted)})"
        for side, edge in deployment.sides.items()
        if edge not in wanted
    ]
