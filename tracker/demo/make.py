"""Rebuild the bundled demo recording: `python -m tracker.demo.make [-o tracker/demo/demo.tsr]`.

A short World at Fire game on a 183x122 cm table, rendered with models.synth and recorded
through the same runner `tablesight record` and live sessions use: deployment, then two turns
in which hands move squads, cavalry and a tank, a model is taken off as a casualty, and one
model is moved too far so the demo shows a rules verdict. The game's preset (sides, units,
deployment, objectives, phase changes) is recorded as controls, so replaying the file brings
it all back. Frames are kept only while hands are over the table and when detection ran
(stills-on-change), at 1920x1080 JPEG quality 70, to keep the file a few MB.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from calibration.layout import default_layout
from hardware.source import Frame
from tracker.demo.scenario import RED_TOP, Piece, Script, render_shots, rig_camera, trooper, two_armies
from tracker.game import Game
from tracker.pipeline import build_pipeline
from tracker.recording import RecordingWriter
from tracker.replay import replay
from tracker.runner import GameRunner, RecordPolicy

OUTPUT = Path(__file__).parent / "demo.tsr"
IMAGE_SIZE = (1920, 1080)
JPEG_QUALITY = 70
SEED = 5
UNITS = {"ra": ("red", "red-inf-1", "infantry"), "rb": ("red", "red-inf-2", "infantry"),
         "rc": ("red", "red-cav-1", "cavalry"), "ba": ("blue", "blue-inf-1", "infantry"),
         "bb": ("blue", "blue-inf-2", "infantry"), "bt": ("blue", "blue-tank-1", "vehicle")}


def demo_script() -> tuple[Script, dict[int, list[tuple[str, dict]]]]:
    """The shots, and the controls a player gives after given shots (by shot index)."""
    pieces, vehicles = two_armies(spacing=5.5)
    script = Script(pieces, vehicles, settle_frames=2).still(2, "deployed")
    controls: dict[int, list[tuple[str, dict]]] = {1: [("phase", {"to": "movement"})]}

    def then(*actions: tuple[str, dict]) -> None:
        controls.setdefault(len(script.shots) - 1, []).extend(actions)

    script.shift(["ra1", "ra2", "ra3", "ra4", "ra5"], 12.0, 2.0, "red infantry advance")
    script.shift(["rc1", "rc2"], 26.0, 0.0, "red cavalry gallop")
    script.shift(["bb1", "bb2", "bb3", "bb4", "bb5"], -13.0, -2.0, "blue infantry advance")
    script.drive("bt1", 22.0, 10.0, "blue tank advances")
    then(("phase", {"to": "shooting"}))
    script.remove("rb2", "red casualty")
    then(("phase", {"to": "assault"}), ("next_turn", {}))
    script.shift(["ra1", "ra2", "ra3", "ra4", "ra5"], 13.0, 0.0, "red infantry advance")
    script.shift(["ba2"], -17.0, 1.0, "blue rifleman runs too far")
    then(("phase", {"to": "shooting"}))
    script.add(Piece("rr1", trooper(60, 108, (90, 30, 140), RED_TOP)), "red reinforcement")
    script.still(1, "end of the demo")
    return script, controls


def preset(pieces: list[Piece], vehicles: list) -> list[dict]:
    """Sides, units, deployment and objectives, with models named by where they stand."""
    groups: dict[tuple[str, str, str], list[list[float]]] = {}
    for piece_id, x, y in [*((p.id, p.base.x_cm, p.base.y_cm) for p in pieces),
                           *((vid, v.x_cm, v.y_cm) for vid, v in vehicles)]:
        groups.setdefault(UNITS[piece_id[:2]], []).append([x, y])
    items = [
        {"action": "deployment",
         "payload": {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}}},
        {"action": "objectives", "payload": {"objectives": [{"id": "obj1", "x_cm": 91.5, "y_cm": 61.0},
                                                            {"id": "obj2", "x_cm": 91.5, "y_cm": 20.0}]}},
    ]
    for (side, unit, kind), points in sorted(groups.items()):
        payload = {"near_cm": points, "side": side, "unit": unit, "type": kind}
        if kind == "vehicle":
            payload["chassis"] = "tracked"
        items.append({"action": "assign", "payload": payload})
    return items


def make(output: Path) -> None:
    layout = default_layout("183x122")
    output.unlink(missing_ok=True)
    script, controls = demo_script()
    setup = preset(script.pieces_at_start, script.vehicles_at_start)
    manifest = {"layout": layout.to_dict(), "intrinsics": None, "ruleset": "world-at-fire", "preset": setup,
                "table": {"width_cm": 183.0, "depth_cm": 122.0}, "source": "tracker/demo/make.py",
                "settings": {"mode": "stills", "jpeg_quality": JPEG_QUALITY}}
    writer = RecordingWriter(output, manifest)
    runner = GameRunner(build_pipeline(layout), Game(log=writer.add_event), writer=writer,
                        policy=RecordPolicy(jpeg_quality=JPEG_QUALITY, heartbeat_s=3.0))
    t = 0.0
    camera = rig_camera(image_size=IMAGE_SIZE)
    for frame, shot in render_shots(script.shots, camera, SEED, noise_sigma=0.0):
        t += 0.5 if shot.hand is not None or "settled" not in shot.label else 1.5
        runner.step(Frame(frame.image, frame.index, round(t, 2), frame.name))
        if frame.index == 0:
            problems = runner.apply_preset(setup)
            if problems:
                print("preset:", "; ".join(problems))
        for action, payload in controls.get(frame.index, []):
            runner.control(action, payload)
        print(f"{frame.index:3d} t={t:5.1f} {shot.label}", flush=True)
    writer.close()
    again = replay(output)
    kinds = [e["kind"] for e in again.events]
    for event in again.events:
        print(f"  turn {event['turn']} {event['phase']:10s} {event['kind']:10s} {event['detail']}")
    print(f"{output}: {output.stat().st_size / 1e6:.1f} MB, {len(again.results)} frames, "
          f"{kinds.count('moved')} moves, {kinds.count('removed')} removed, "
          f"{kinds.count('verdict')} verdicts; replay gives "
          f"{'the same' if again.events_match else 'DIFFERENT'} events")


def main() -> None:
    parser = argparse.ArgumentParser(description="Rebuild the bundled demo recording.")
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT)
    make(parser.parse_args().output)


if __name__ == "__main__":
    main()
