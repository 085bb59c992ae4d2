"""A replayed game as a timeline for the scrubber and as a report players can keep.

The tracker's replay engine produces the report dict; its shape is

    {"ruleset": id, "unit": "cm" | "in" | "step" | ..., "unit_cm": cm in one unit,
     "table": {"width_cm", "depth_cm"}, "terrain": [...], "objectives": [...],
     "deployment": {...} | null,
     "turns": [{"turn": 1, "phases": [{"phase": "movement", "t": 12.0, "frame": 40,
                                       "models": [...], "vehicles": [...], "moves": {"models": {...}}}]}]}

where each phase's `models`/`vehicles` are as in the live state (positions at the end of the
phase, `start_x_cm`/`start_y_cm` where the phase began) and `moves` is the rules core's move
verdict for that phase. A phase snapshot therefore draws with the same overlay code as the
live table, and a turn's trails are each model's positions phase by phase.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SIDE_COLOURS = {
    "red": "#d32f2f",
    "blue": "#1565c0",
    "green": "#2e7d32",
    "yellow": "#f9a825",
    "black": "#212121",
    "white": "#9e9e9e",
    "grey": "#616161",
    "orange": "#ef6c00",
}
PALETTE = ("#d32f2f", "#1565c0", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f")
ILLEGAL = "#c62828"
# Detection jitters by a millimetre or two between phases; a trail starts at a real move.
JITTER_CM = 0.3


def timeline(report: dict, name: str) -> dict:
    """The recording as a flat list of phase snapshots, plus where each turn starts, and what
    cut it short (`stopped`, empty for a whole file) or was refused on the way (`problems`): a
    damaged recording must not pass on a phone for a shorter game."""
    snapshots, turns = [], []
    for turn in report.get("turns", []):
        turns.append({"turn": turn["turn"], "index": len(snapshots)})
        for phase in turn.get("phases", []):
            snapshots.append({"index": len(snapshots), "turn": turn["turn"], **phase})
    scenery = {key: report.get(key)
               for key in ("ruleset", "unit", "unit_cm", "table", "terrain", "objectives", "deployment")}
    damage = {"stopped": report.get("stopped") or "", "problems": list(report.get("problems") or [])}
    return {"name": name, **scenery, "turns": turns, "snapshots": snapshots, **damage}


@dataclass
class Trail:
    """One model's path through one turn, and whether any move in it broke a rule."""

    model_id: str
    side: str | None
    points: list[tuple[float, float]]
    radius_cm: float
    reasons: list[str] = field(default_factory=list)

    @property
    def legal(self) -> bool:
        return not self.reasons

    @property
    def svg_points(self) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in self.points)

    @property
    def moved_cm(self) -> float:
        return sum(
            ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5
            for (ax, ay), (bx, by) in zip(self.points, self.points[1:], strict=False)
        )


def turn_trails(turn: dict) -> list[Trail]:
    """Each piece's path through a turn: where it began the turn, then each phase's end."""
    trails: dict[str, Trail] = {}
    for phase in turn.get("phases", []):
        verdicts = (phase.get("moves") or {}).get("models", {})
        for piece in [*phase.get("models", []), *phase.get("vehicles", [])]:
            trail = trails.get(piece["id"])
            if trail is None:
                start = (piece.get("start_x_cm", piece["x_cm"]), piece.get("start_y_cm", piece["y_cm"]))
                radius = (
                    piece.get("diameter_mm", 32) / 20.0 if "length_cm" not in piece else piece["width_cm"] / 2
                )
                trail = trails[piece["id"]] = Trail(piece["id"], piece.get("side"), [start], radius)
            point = (piece["x_cm"], piece["y_cm"])
            last = trail.points[-1]
            if ((point[0] - last[0]) ** 2 + (point[1] - last[1]) ** 2) ** 0.5 > JITTER_CM:
                trail.points.append(point)
            verdict = verdicts.get(piece["id"])
            if verdict and not verdict.get("legal", True):
                trail.reasons += [
                    f"{phase.get('phase')}: {r.get('detail') or r.get('code')}" for r in verdict["reasons"]
                ]
    return list(trails.values())


def side_colours(report: dict) -> dict[str | None, str]:
    """A stable colour per side: the side's own name when it is a colour, else the palette."""
    sides = sorted(
        {
            piece.get("side")
            for turn in report.get("turns", [])
            for phase in turn.get("phases", [])
            for piece in [*phase.get("models", []), *phase.get("vehicles", [])]
            if piece.get("side")
        }
    )
    colours: dict[str | None, str] = {None: "#757575"}
    for i, side in enumerate(sides):
        colours[side] = SIDE_COLOURS.get(side.lower(), PALETTE[i % len(PALETTE)])
    return colours


def report_context(report: dict, name: str) -> dict:
    """What templates/report.html needs: one plot and one verdict list per turn."""
    table = report.get("table") or {"width_cm": 183.0, "depth_cm": 122.0}
    turns = [
        {
            "turn": turn["turn"],
            "phases": [p.get("phase") for p in turn.get("phases", [])],
            "trails": turn_trails(turn),
        }
        for turn in report.get("turns", [])
    ]
    return {
        "name": name,
        "ruleset": report.get("ruleset"),
        # Moves in the game's own unit, as the table and the replay say them (a report older
        # than the unit says cm).
        "unit": report.get("unit") or "cm",
        "unit_cm": report.get("unit_cm") or 1.0,
        "table": table,
        "terrain": report.get("terrain") or [],
        "objectives": report.get("objectives") or [],
        "turns": turns,
        "stopped": report.get("stopped") or "",
        "problems": list(report.get("problems") or []),
        "colours": side_colours(report),
        "illegal": ILLEGAL,
    }
