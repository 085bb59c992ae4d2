"""Record the flat test game through the same runner a live session uses."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from hardware.source import Frame
from tests.tracker.flat import flat_pipeline, game_frames
from tracker.game import Game
from tracker.recording import RecordingWriter
from tracker.runner import GameRunner, RecordPolicy

MANIFEST = {"ruleset": "world-at-fire", "table": {"width_cm": 183.0, "depth_cm": 122.0},
            "settings": {"mode": "stills"}}
CONTROLS = {
    1: [("assign", {"model_ids": ["m1", "m2"], "side": "red", "unit": "red-1", "type": "infantry"}),
        ("phase", {"to": "next"})],
    6: [("phase", {"to": "shooting"})],
    9: [("phase", {"to": "assault"})],
}


def record_flat_game(path: Path, policy: RecordPolicy | None = None) -> list[dict]:
    writer = RecordingWriter(path, MANIFEST)
    game = Game(log=writer.add_event)
    runner = GameRunner(flat_pipeline(), game, writer=writer, policy=policy or RecordPolicy())
    for frame in game_frames():
        runner.step(frame)
        for action, payload in CONTROLS.get(frame.index, []):
            runner.control(action, payload)
    writer.close()
    return list(game.events)


def record_forever(path: Path) -> None:
    """Keep recording the flat game's frames, as a camera would, until killed."""
    writer = RecordingWriter(path, MANIFEST, commit_every_s=0.2)
    runner = GameRunner(flat_pipeline(), Game(log=writer.add_event), writer=writer,
                        policy=RecordPolicy(mode="every", every=1))
    frames = game_frames()
    index = 0
    while True:
        source = frames[index % len(frames)]
        runner.step(Frame(source.image, index, index / 5.0, f"frame_{index:05d}"))
        if index == len(frames):
            writer.commit()
            print("recording", flush=True)
        index += 1
        time.sleep(0.01)


if __name__ == "__main__":
    record_forever(Path(sys.argv[1]))
