"""Scripted games on synthetic tables: hands lift, place, swap and take off models.

The benchmark and the bundled demo both need sequences where the truth is known frame by
frame: which physical model is where, and whether a hand is over the table. A `Script` starts
from a table of two armies and appends hand moves; each move gives three frames with a hand
(reaching in, pieces lifted, pieces set down) and then hand-free frames. Rendering is
`models.synth.render_scene`; a scene state is rendered once and repeated frames only get fresh
sensor noise, so a sequence costs one render per distinct picture.

The armies were set out on the 183x122 table; on the other seed tables (`TABLES`) each unit's
place scales with the table's sides, so each army keeps its share of the table, while what the
game measures (the spacing within a squad, a move's length) stays as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.camera import SENSORS, Camera, focal_to_fit
from hardware.source import Frame
from models.synth.scene import (
    TABLES,
    BaseSpec,
    Figure,
    HandSpec,
    RenderedScene,
    TableScene,
    VehicleSpec,
    random_scene,
    render_scene,
)

TABLE = "183x122"  # the table the armies and moves were set out on
RED_TOP, BLUE_TOP = (70, 120, 150), (80, 110, 70)
RED_PAINT = [(40, 40, 170), (30, 70, 140), (60, 60, 200), (20, 90, 180), (80, 50, 150), (40, 120, 200)]
BLUE_PAINT = [(170, 80, 40), (140, 120, 30), (200, 100, 60), (180, 60, 90), (150, 140, 60), (210, 130, 20)]


@dataclass(frozen=True)
class Piece:
    """A physical model with its truth id; `base` carries position and look."""

    id: str
    base: BaseSpec


@dataclass(frozen=True)
class Shot:
    """One frame of a script: what is on the table, and the hand over it (if any)."""

    pieces: tuple[Piece, ...]
    vehicles: tuple[tuple[str, VehicleSpec], ...]
    hand: HandSpec | None
    label: str


def trooper(x: float, y: float, paint: tuple, top: tuple, diameter_mm: float = 32.0) -> BaseSpec:
    kind, height = ("rider", 5.5) if diameter_mm > 50 else ("trooper", 3.8)
    return BaseSpec(x, y, diameter_mm, 3.5, rim_color=(25, 25, 25), top_color=top,
                    figures=(Figure(kind, 0.0, 0.0, height, paint, 4.0, 45.0, 90.0, 0.5),))


def squad(prefix: str, x: float, y: float, count: int, paints: list, top: tuple,
          spacing: float = 4.6) -> list[Piece]:
    return [Piece(f"{prefix}{i + 1}", trooper(x + spacing * (i % 3), y + spacing * (i // 3),
                                              paints[i % len(paints)], top)) for i in range(count)]


def placed(x: float, y: float, table: str = TABLE) -> tuple[float, float]:
    """Where a place set out on the 183x122 table lies on `table`: the same share of its width
    and depth, so armies stay on a smaller table and spread over a larger one."""
    if table == TABLE:
        return x, y  # as written: the demo recording's preset holds these numbers as they are
    width, depth = TABLES[table]
    return x * (width / TABLES[TABLE][0]), y * (depth / TABLES[TABLE][1])


def two_armies(spacing: float = 4.6, table: str = TABLE) -> tuple[list[Piece], list[tuple[str, VehicleSpec]]]:
    """Red on the left, blue on the right: two squads each, cavalry, a tank. Each unit's place
    follows the table (`placed`); the cavalry's two riders stay 8 cm apart, as on 183x122."""
    cavalry_x, cavalry_y = placed(22, 60, table)
    pieces = [*squad("ra", *placed(30, 30, table), 5, RED_PAINT, RED_TOP, spacing),
              *squad("rb", *placed(30, 80, table), 5, RED_PAINT[2:], RED_TOP, spacing),
              Piece("rc1", trooper(cavalry_x, cavalry_y, (30, 30, 120), RED_TOP, 65.0)),
              Piece("rc2", trooper(cavalry_x + 8, cavalry_y, (50, 80, 160), RED_TOP, 65.0)),
              *squad("ba", *placed(140, 30, table), 5, BLUE_PAINT, BLUE_TOP, spacing),
              *squad("bb", *placed(140, 80, table), 5, BLUE_PAINT[1:], BLUE_TOP, spacing)]
    tank = VehicleSpec(*placed(158, 62, table), 20.0, 10.0, 180.0, height_cm=4.5, hull_color=(60, 95, 85),
                       turret_color=(70, 105, 95))
    return pieces, [("bt1", tank)]


def rig_camera(sensor: str = "cm3-binned", height_cm: float = 190.0, tilt_deg: float = 4.0,
               image_size: tuple[int, int] | None = None, table: str = TABLE) -> Camera:
    """The rig over `table`: as the detection benchmark's cameras, the focal length that fits
    the whole table in the picture at the camera's height, with 12 % to spare."""
    width, depth = TABLES[table]
    size = image_size or SENSORS[sensor]
    return Camera.looking_at((width / 2, depth / 2), height_cm, image_size=size,
                             focal_px=focal_to_fit((width, depth), height_cm, size, 1.12), tilt_deg=tilt_deg,
                             tilt_towards_deg=30.0)


def hand_at(x: float, y: float, table: tuple[float, float]) -> HandSpec:
    """A hand reaching in from the nearest long edge, as a player standing there would."""
    shoulder_y = -35.0 if y < table[1] / 2 else table[1] + 35.0
    return HandSpec(x, y, 10.0, 9.5, (x + 10.0, shoulder_y, 45.0))


@dataclass
class Script:
    """Builds the shots of a game; `settle_frames` hand-free frames follow each move."""

    pieces: list[Piece]
    vehicles: list[tuple[str, VehicleSpec]]
    settle_frames: int = 3
    shots: list[Shot] = field(default_factory=list)
    table: str = TABLE  # whose long edges the hands reach in from

    def __post_init__(self) -> None:
        self.pieces_at_start = list(self.pieces)
        self.vehicles_at_start = list(self.vehicles)

    def _hand(self, x: float, y: float) -> HandSpec:
        return hand_at(x, y, TABLES[self.table])

    def _shot(self, hand: HandSpec | None, label: str, pieces=None, vehicles=None) -> None:
        self.shots.append(Shot(tuple(self.pieces if pieces is None else pieces),
                               tuple(self.vehicles if vehicles is None else vehicles), hand, label))

    def still(self, frames: int, label: str = "still") -> Script:
        for _ in range(frames):
            self._shot(None, label)
        return self

    def lift_and_place(self, targets: dict[str, tuple[float, float]], label: str,
                       via: tuple[float, float] | None = None) -> Script:
        """A hand picks up `targets`' models and sets each down at its target (table cm).

        `via`: where the hand passes in between (e.g. over a marker), else halfway.
        """
        moving = [p for p in self.pieces if p.id in targets]
        start = np.mean([[p.base.x_cm, p.base.y_cm] for p in moving], axis=0)
        end = np.mean(list(targets.values()), axis=0)
        middle = via or tuple((start + end) / 2)
        staying = [p for p in self.pieces if p.id not in targets]
        self._shot(self._hand(*start), f"{label}: hand reaches in")
        self._shot(self._hand(*middle), f"{label}: models in the hand", pieces=staying)
        self.pieces = [replace(p, base=replace(p.base, x_cm=targets[p.id][0], y_cm=targets[p.id][1]))
                       if p.id in targets else p for p in self.pieces]
        self._shot(self._hand(*end), f"{label}: models set down")
        return self.still(self.settle_frames, f"{label}: settled")

    def shift(self, ids: list[str], dx: float, dy: float, label: str, **kw) -> Script:
        where = {p.id: (p.base.x_cm + dx, p.base.y_cm + dy) for p in self.pieces if p.id in ids}
        return self.lift_and_place(where, label, **kw)

    def swap(self, a: str, b: str, label: str = "swap") -> Script:
        pa, pb = (next(p for p in self.pieces if p.id == i) for i in (a, b))
        return self.lift_and_place({a: (pb.base.x_cm, pb.base.y_cm), b: (pa.base.x_cm, pa.base.y_cm)}, label)

    def remove(self, piece_id: str, label: str = "casualty") -> Script:
        piece = next(p for p in self.pieces if p.id == piece_id)
        self._shot(self._hand(piece.base.x_cm, piece.base.y_cm), f"{label}: hand reaches in")
        self.pieces = [p for p in self.pieces if p.id != piece_id]
        self._shot(self._hand(piece.base.x_cm + 6, piece.base.y_cm + 8), f"{label}: model taken off")
        return self.still(self.settle_frames, f"{label}: settled")

    def add(self, piece: Piece, label: str = "new model") -> Script:
        self._shot(self._hand(piece.base.x_cm, piece.base.y_cm), f"{label}: hand brings it")
        self.pieces = [*self.pieces, piece]
        self._shot(self._hand(piece.base.x_cm + 5, piece.base.y_cm + 6), f"{label}: set down")
        return self.still(self.settle_frames, f"{label}: settled")

    def drive(self, vehicle_id: str, forward_cm: float, turn_deg: float, label: str = "drive") -> Script:
        index = next(i for i, (vid, _) in enumerate(self.vehicles) if vid == vehicle_id)
        vehicle = self.vehicles[index][1]
        heading = vehicle.heading_deg + turn_deg
        t = math.radians(heading)
        moved = replace(vehicle, x_cm=vehicle.x_cm + forward_cm * math.cos(t),
                        y_cm=vehicle.y_cm + forward_cm * math.sin(t), heading_deg=heading % 360)
        self._shot(self._hand(vehicle.x_cm, vehicle.y_cm), f"{label}: hand on the hull")
        self.vehicles[index] = (vehicle_id, moved)
        self._shot(self._hand(moved.x_cm, moved.y_cm), f"{label}: driven")
        return self.still(self.settle_frames, f"{label}: settled")


def benchmark_script(settle_frames: int = 3, table: str = TABLE) -> Script:
    """Every hard case once: four bases in one hand past a marker, a swap, a whole squad at the
    allowance, a casualty, a tank driven and turned, a reinforcement, cavalry at 25 cm.

    Marker 0 stands in the top-left corner of every default layout, so the hand passes over it
    at the same place on every table."""
    pieces, vehicles = two_armies(table=table)
    script = Script(pieces, vehicles, settle_frames, table=table).still(2)
    script.shift(["ra1", "ra2", "ra3", "ra4"], 12.0, 3.0, "four bases, hand over marker 0", via=(8.0, 10.0))
    script.swap("ba1", "ba3", "two models swapped")
    script.shift([f"bb{i}" for i in range(1, 6)], -14.5, 0.0, "whole squad at the allowance")
    script.remove("rb2")
    script.drive("bt1", 20.0, 15.0, "tank forward 20 cm, turning")
    script.add(Piece("rr1", trooper(*placed(90, 108, table), (90, 30, 140), RED_TOP)), "reinforcement")
    script.shift(["rc1", "rc2"], 25.0, -4.0, "cavalry 25 cm")
    return script


def table_scene(seed: int, table: str = TABLE) -> TableScene:
    """The table (mat, light, markers) the scripts play on; terrain kept off the armies' ground."""
    scene = random_scene(np.random.default_rng(seed), table=table)
    return replace(scene, bases=[], vehicles=[], terrain=[], distractors=[], hands=[])


Render = Callable[[TableScene, Camera, int], RenderedScene]


def painted(scene: TableScene, camera: Camera, seed: int) -> RenderedScene:
    return render_scene(scene, camera, seed=seed, supersample=1)


def render_shots(shots: list[Shot], camera: Camera, seed: int, fps: float = 5.0,
                 noise_sigma: float = 1.5, render: Render = painted,
                 table: str = TABLE) -> Iterator[tuple[Frame, Shot]]:
    """Frames of a script; a picture identical to the previous one gets only new sensor noise.
    `render`: the painter (what the detector trained on), or e.g. a path tracer to see the
    pipeline on pictures made another way. `table`: the seed table the script plays on."""
    bare = table_scene(seed, table)
    rng = np.random.default_rng(seed + 1)
    previous_key, picture = None, None
    for index, shot in enumerate(shots):
        key = (shot.pieces, shot.vehicles, shot.hand)
        if key != previous_key:
            scene = replace(bare, bases=[p.base for p in shot.pieces],
                            vehicles=[v for _, v in shot.vehicles], hands=[shot.hand] if shot.hand else [])
            picture = render(scene, camera, seed).image
            previous_key = key
        noise = rng.normal(0, noise_sigma, picture.shape).astype(np.float32)
        image = np.clip(picture.astype(np.float32) + noise, 0, 255).astype(np.uint8)
        yield Frame(image, index, index / fps, f"frame_{index:04d}.jpg"), shot


def truth_positions(shot: Shot) -> dict[str, tuple[float, float]]:
    out = {p.id: (p.base.x_cm, p.base.y_cm) for p in shot.pieces}
    out.update({vid: (v.x_cm, v.y_cm) for vid, v in shot.vehicles})
    return out


def encode(image: np.ndarray, quality: int = 85) -> np.ndarray:
    """What the camera's JPEG does to a frame (the recorder stores JPEG)."""
    _, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buffer, cv2.IMREAD_COLOR)
