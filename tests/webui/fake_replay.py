"""A replayed two-turn game in the report shape webui/report.py documents.

Stands in for tracker.replay.game_report in tests: red advances on turn 1 (r3 too far) and
again on turn 2; blue's tank drives up the middle.
"""

from __future__ import annotations

from pathlib import Path

from tests.webui.fake_session import demo_state


def _phase(
    phase: str, t: float, frame: int, positions: dict, starts: dict, moves: dict | None = None
) -> dict:
    base = demo_state()
    models = []
    for model in [*base["models"], *base["vehicles"]]:
        x, y = positions.get(model["id"], (model["x_cm"], model["y_cm"]))
        sx, sy = starts.get(model["id"], (x, y))
        models.append({**model, "x_cm": x, "y_cm": y, "start_x_cm": sx, "start_y_cm": sy})
    return {
        "phase": phase,
        "t": t,
        "frame": frame,
        "models": [m for m in models if "length_cm" not in m],
        "vehicles": [m for m in models if "length_cm" in m],
        "moves": {"models": moves or {}},
    }


def demo_report() -> dict:
    start = {"r1": (20.0, 30.0), "r2": (23.0, 34.0), "r3": (20.0, 40.0), "t1": (120.0, 62.0)}
    turn1 = {"r1": (32.0, 30.0), "r2": (35.0, 34.0), "r3": (36.2, 40.0), "t1": (105.0, 62.0)}
    turn2 = {"r1": (44.0, 31.0), "r2": (47.0, 35.0), "r3": (47.0, 41.0), "t1": (90.0, 60.0)}
    too_far = {
        "moved_cm": 16.2,
        "allowance_cm": 15.0,
        "legal": False,
        "reasons": [{"code": "too_far", "detail": "moved 16.2 cm, infantry may move 15 cm"}],
    }
    base = demo_state()
    return {
        "ruleset": "world-at-fire",
        "table": base["table"],
        "terrain": base["terrain"],
        "objectives": base["objectives"],
        "deployment": base["deployment"],
        "turns": [
            {
                "turn": 1,
                "phases": [
                    _phase("movement", 10.0, 40, turn1, start, {"r3": too_far}),
                    _phase("shooting", 20.0, 80, turn1, turn1),
                ],
            },
            {
                "turn": 2,
                "phases": [
                    _phase("movement", 30.0, 120, turn2, turn1),
                    _phase("shooting", 40.0, 160, turn2, turn2),
                ],
            },
        ],
    }


def load_report(path: Path) -> dict:
    """What the tracker's replay engine returns for any recording in the test folder; one whose
    bytes say `cut` is damaged part-way, as game_report tells."""
    report = demo_report()
    if b"cut" in path.read_bytes():
        report["turns"] = report["turns"][:1]
        report["stopped"] = "stopped after frame 99 (100 frames read): the file is damaged there"
        report["problems"] = ["frame 60: phase refused: no such phase"]
    return report
