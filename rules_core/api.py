"""The rules core as the tracker, the web UI and the CLI call it: JSON-ready dicts in and out.

Every function returns exactly what the matching `tablesight rules` command prints, so a
web page and a terminal can never disagree about a verdict.
"""

from __future__ import annotations

from typing import Any

from rules_core import API, library
from rules_core.checks import check_report
from rules_core.deployment import deployment_zones as _zones
from rules_core.errors import OffTable, RulesetError, SceneError
from rules_core.footprints import measured
from rules_core.movement import judge_move
from rules_core.reach import ranges_report
from rules_core.ruleset import Ruleset
from rules_core.scene import MAX_TABLE_CM, Scene
from rules_core.scene import parse_scene as _parse_scene
from rules_core.templates import scatter_report, under_template_report


def list_rulesets() -> list[dict]:
    """`rules list`: id, title, source and unit of measure of every available ruleset; a file that
    does not load is listed with its `error`, so one broken user file hides nothing else."""
    rows = []
    for ruleset_id in library.ruleset_ids():
        try:
            ruleset = library.load_ruleset(ruleset_id)
        except RulesetError as error:
            rows.append({"id": ruleset_id, "error": str(error)})
            continue
        rows.append(
            {
                "id": ruleset.id,
                "title": ruleset.title,
                "source": ruleset.source,
                "unit": ruleset.unit,
                "unit_of_measure": ruleset.unit,
            }
        )
    return rows


def load_ruleset(id: str) -> Ruleset:
    return library.load_ruleset(id)


def ruleset_dict(id: str) -> dict:
    """`rules show ID`: every parameter of the ruleset, defaults included."""
    return library.load_ruleset(id).model_dump(mode="json")


def parse_scene(data: dict, allow_off_table: bool = False) -> Scene:
    """Validate a scene; raises SceneError / RulesetError naming the field at fault."""
    return _parse_scene(data, allow_off_table=allow_off_table)


def _ruler_allowed(scene: Scene) -> None:
    """A ruleset that has orders given by eye takes no ruler until they are carried out (Mobile
    Infantry: «все приказы назначаются без прикладывания линейки ... Линейка прикладывается только
    во время исполнения приказов!»), so a distance asked in its orders phase is refused, not given."""
    if scene.phase == "orders" and not scene.ruleset.premeasure_allowed:
        raise SceneError(
            f"phase orders: no ruler in the orders phase of {scene.ruleset.id}, orders are given by eye "
            "(«все приказы назначаются без прикладывания линейки»)",
            "judge the distance by eye now, and measure once the orders are carried out "
            "(phase movement, shooting or assault)",
        )


def measure(scene: Scene, a_id: str, b_id: str) -> dict:
    """`rules measure`: edge (closest footprint points, 0 when touching) and centre distances."""
    _ruler_allowed(scene)
    a, b = scene.model_index(a_id, "A"), scene.model_index(b_id, "B")
    edge = float(measured(scene.footprints, a, b, "edge"))
    centre = float(measured(scene.footprints, a, b, "centre"))
    return {
        "a": a_id,
        "b": b_id,
        "edge_cm": round(edge, 4),
        "centre_cm": round(centre, 4),
        "edge_in_ruleset_units": round(scene.in_units(edge), 4),
        "unit_of_measure": scene.ruleset.unit,
    }


def check(scene: Scene) -> dict:
    """`rules check`: units (coherency), objectives, deployment and the ruleset's extra checks."""
    return check_report(scene)


def move(before: Scene, after: Scene) -> dict:
    """`rules move`: every model whose position changed, with allowance, legality and reasons."""
    return judge_move(before, after)


def ranges(scene: Scene, from_id: str) -> dict:
    """`rules ranges`: every enemy model with its distance and the shooter's weapons that reach it."""
    _ruler_allowed(scene)
    return ranges_report(scene, from_id)


def deployment_zones(scene: Scene) -> dict[str, list[list[list[float]]]]:
    """side -> zone polygons as lists of [x_cm, y_cm]; empty without a deployment."""
    return _zones(scene)


def under_template(scene: Scene, kind: str, x_cm: float, y_cm: float, **params: Any) -> dict:
    """Who is under a blast circle or smoke strip centred at (x_cm, y_cm); params: radius, heading_deg."""
    _ruler_allowed(scene)
    if scene.ruleset.template(kind) is not None:  # a kind it lacks is named first, by the report
        _centred_on_table(scene, kind, x_cm, y_cm)
    return under_template_report(scene, kind, x_cm, y_cm, **params)


def _centred_on_table(scene: Scene, kind: str, x_cm: float, y_cm: float) -> None:
    """A template is laid where it lands on the table, so a centre typed off it is a slip (mm for
    cm, x and y swapped) that would hit nobody without a word. Only the centre must be on the table,
    edges included: a blast or strip may reach past the edge. A grenade's scatter (`grenade_scatter`)
    is the die's, not typed, and may carry it off. A centre past the edge by float noise is on it
    (`TableSpec.holds`)."""
    table = scene.table
    if not table.holds(x_cm, y_cm):
        raise SceneError(
            f"template {kind}: centre ({x_cm:.10g}, {y_cm:.10g}) is off the "
            f"{table.width_cm:g}x{table.depth_cm:g} cm table",
            f"give x_cm from 0 to {table.width_cm:g} and y_cm from 0 to {table.depth_cm:g}, in cm (not mm), "
            "x along the width",
            fault=OffTable("template", kind, x_cm, y_cm, table.width_cm, table.depth_cm),
        )


__all__ = ["SceneError", *API]  # the names the package re-exports lazily, and the scene's error


def grenade_scatter(scene: Scene, thrower_id: str, target_id: str, roll: int, kind: str = "grenade") -> dict:
    """Bronepehota: the grenade bursts `roll` steps from the thrower towards the target; who is hit."""
    return scatter_report(scene, kind, thrower_id, target_id, roll)


def hex_centre(ruleset_id: str, col: int, row: int) -> dict:
    """Table cm of a tactical-map hex (mobile infantry: hexes x 40 mm + 20 mm from the table edges)."""
    ruleset = library.load_ruleset(ruleset_id)
    if ruleset.hex_mm is None:
        raise SceneError(
            f"ruleset {ruleset_id} has no hex map", "use a ruleset with hex_mm (mobile-infantry)"
        )
    if col < 0 or row < 0:
        raise SceneError(f"hex ({col}, {row}): negative index", "count hexes from 0 at the table's top-left")
    size_cm = ruleset.hex_mm / 10.0
    x_cm, y_cm = col * size_cm + size_cm / 2, row * size_cm + size_cm / 2
    if max(x_cm, y_cm) > MAX_TABLE_CM:
        far_m = max(x_cm, y_cm) / 100
        raise SceneError(f"hex ({col}, {row}) lies {far_m:g} m from the table's edge, past any table",
                         "count hexes from 0 at the table's top-left")
    return {"col": col, "row": row, "x_cm": x_cm, "y_cm": y_cm}
