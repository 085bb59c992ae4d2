"""Random tables: what a club night puts in front of the camera, clean or hard.

`hard` adds what broke the Hough baseline: bases flocked like the mat, circles printed on
the mat, coins and tokens, hands, low light, blur, deep shadows, tall overhanging models,
terrain hiding rims and wide lenses that leave a base ~14 px across.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from shapely.geometry import Point, Polygon

from calibration.camera import SENSORS, Camera, focal_to_fit
from calibration.synthetic import Look, Marker
from models.synth.specs import (
    BaseSpec,
    DistractorSpec,
    Figure,
    HandSpec,
    Mat,
    TableScene,
    TerrainSpec,
    VehicleSpec,
)

MATS = {  # style: (BGR, roughness)
    "grass": ((45, 105, 65), 20.0),
    "dark_grass": ((35, 75, 50), 16.0),
    "sand": ((120, 165, 195), 16.0),
    "snow": ((232, 232, 236), 6.0),
    "felt_green": ((50, 120, 40), 5.0),
    "felt_blue": ((120, 60, 30), 5.0),
    "map": ((170, 190, 200), 10.0),
    "urban": ((105, 105, 108), 12.0),
    "mud": ((50, 75, 95), 18.0),
}
RIMS = [(25, 25, 25), (30, 45, 70), (40, 80, 45), (110, 150, 180), (90, 90, 90)]
TABLES = {"183x122": (183.0, 122.0), "122x122": (122.0, 122.0), "244x183": (244.0, 183.0)}


def _color(rng: np.random.Generator) -> tuple[float, float, float]:
    return tuple(float(c) for c in rng.uniform(20, 230, 3))


def table_markers(table: str) -> tuple[str, list[Marker]]:
    """The shipped default marker layout for the table size (calibration's, when it exists)."""
    from calibration.layout import default_layout

    layout = default_layout(table)
    return layout.dictionary, layout.markers_as_synthetic()


@dataclass(frozen=True)
class Placement:
    """Where a random camera stands and how its lens bends: the rig guide's ranges by default.

    The others reach past them, for the benchmark's `--camera`: the detector trained on the
    rig's ranges only, and a club's rig will not always keep to them.
    """

    height_cm: tuple[float, float] = (150.0, 220.0)
    tilt_deg: tuple[float, float] = (0.0, 10.0)
    distorted_share: float = 0.4  # of cameras whose lens bends at all
    k1: tuple[float, float] = (-0.12, 0.06)
    k2: tuple[float, float] = (-0.05, 0.05)


PLACEMENTS = {
    "rig": Placement(),
    "tilted": Placement(tilt_deg=(15.0, 25.0)),
    "low": Placement(height_cm=(100.0, 130.0)),
    "high": Placement(height_cm=(260.0, 320.0)),
    "barrel": Placement(distorted_share=1.0, k1=(-0.3, -0.2), k2=(0.0, 0.08)),
}

# How high the key light stands over the table (degrees above it), for `random_scene`: lamps
# over a club's table by default, every training table's. "low" reaches past them for the
# benchmark's `--light`, as `PLACEMENTS` does for the camera: a window's or a wall lamp's light
# throws each figure's shadow several base widths across its neighbours' rims.
LIGHTS = {"overhead": (35.0, 80.0), "low": (12.0, 35.0)}


def random_camera(
    rng: np.random.Generator,
    table_cm: tuple[float, float],
    *,
    sensor: str | None = None,
    wide: bool = False,
    placement: Placement = PLACEMENTS["rig"],
) -> Camera:
    """A rig camera (150-220 cm up, tilted up to 10 deg unless `placement` says otherwise) on
    one of the Pi sensor modes."""
    sensor = sensor or str(rng.choice(list(SENSORS)))
    size = SENSORS[sensor]
    height = rng.uniform(*placement.height_cm)
    tilt = rng.uniform(*placement.tilt_deg)
    margin = rng.uniform(1.4, 1.9) if wide else rng.uniform(1.06, 1.2)
    focal = focal_to_fit(table_cm, height, size, margin)
    target = (table_cm[0] / 2 + rng.uniform(-3, 3), table_cm[1] / 2 + rng.uniform(-3, 3))
    dist = None
    if rng.random() < placement.distorted_share:
        dist = np.array([rng.uniform(*placement.k1), rng.uniform(*placement.k2), 0.0, 0.0, 0.0])
    return Camera.looking_at(
        target,
        height,
        image_size=size,
        focal_px=focal,
        tilt_deg=tilt,
        tilt_towards_deg=rng.uniform(0, 360),
        roll_deg=rng.uniform(-2, 2),
        dist=dist,
    )


class _Floor:
    """Free space on the table: keeps models from standing inside one another."""

    def __init__(self, table_cm: tuple[float, float], markers: list[Marker]) -> None:
        self.table = table_cm
        self.taken = [Polygon(m.corners_cm).buffer(3.0) for m in markers]

    def fits(self, shape, margin: float = 0.05) -> bool:
        minx, miny, maxx, maxy = shape.bounds
        if minx < 1 or miny < 1 or maxx > self.table[0] - 1 or maxy > self.table[1] - 1:
            return False
        grown = shape.buffer(margin)
        return not any(grown.intersects(t) for t in self.taken)

    def take(self, shape) -> None:
        self.taken.append(shape)


def _figures(rng: np.random.Generator, diameter_mm: float, hard: bool) -> tuple[Figure, ...]:
    lean_max = 18 if hard else 8
    reach = rng.uniform(1.5, 3.0) if (hard and rng.random() < 0.5) else rng.uniform(0, 1.5)
    color = _color(rng)
    if diameter_mm < 50:
        return (
            Figure(
                "trooper",
                rng.uniform(-0.3, 0.3),
                rng.uniform(-0.3, 0.3),
                rng.uniform(2.0, 6.0 if hard else 4.5),
                color,
                rng.uniform(0, lean_max),
                rng.uniform(0, 360),
                rng.uniform(0, 360),
                reach,
            ),
        )
    facing = rng.uniform(0, 360)
    if rng.random() < 0.5:
        crew = [
            Figure(
                "crew",
                rng.uniform(-2, 2),
                rng.uniform(-2, 2),
                rng.uniform(2.5, 4.0),
                _color(rng),
                rng.uniform(0, lean_max),
                rng.uniform(0, 360),
                rng.uniform(0, 360),
                0.0,
            )
            for _ in range(int(rng.integers(1, 4)))
        ]
        return (Figure("gun", 0.0, 0.0, rng.uniform(1.5, 2.5), color, 0, 0, facing, rng.uniform(3, 5)), *crew)
    return (
        Figure(
            "rider",
            0.0,
            0.0,
            rng.uniform(4.0, 6.5),
            color,
            rng.uniform(0, lean_max / 2),
            rng.uniform(0, 360),
            facing,
            0.0,
        ),
    )


def _base_look(rng: np.random.Generator, mat: Mat, hard: bool) -> dict:
    if hard and rng.random() < 0.3:  # flocked to match the mat: the hardest rim there is
        tone = tuple(float(c) for c in np.clip(np.asarray(mat.color) * rng.uniform(0.85, 1.15), 0, 255))
        return {"rim_color": tone, "top_color": tone}
    rim = RIMS[int(rng.integers(len(RIMS)))]
    top = (
        tuple(float(c) for c in np.clip(np.asarray(mat.color) * rng.uniform(0.7, 1.3, 3), 0, 255))
        if rng.random() < 0.5
        else _color(rng)
    )
    return {"rim_color": tuple(float(c) for c in rim), "top_color": top}


def _squad(
    rng: np.random.Generator, floor: _Floor, mat: Mat, hard: bool, diameter_mm: float, count: int
) -> list[BaseSpec]:
    r = diameter_mm / 20
    centre = np.array([rng.uniform(10, floor.table[0] - 10), rng.uniform(10, floor.table[1] - 10)])
    look = _base_look(rng, mat, hard)
    bevel = rng.uniform(0.5, 1.2) if rng.random() < 0.25 else 0.0
    thickness = rng.uniform(30.0, 40.0) / 10
    bases: list[BaseSpec] = []
    spot = anchor = centre
    for _ in range(count * 6):
        if len(bases) == count:
            break
        disc = Point(*spot).buffer(r, 32)
        if floor.fits(disc):
            floor.take(disc)
            bases.append(
                BaseSpec(
                    float(spot[0]),
                    float(spot[1]),
                    diameter_mm,
                    thickness,
                    bevel_mm=bevel,
                    figures=_figures(rng, diameter_mm, hard),
                    **look,
                )
            )
            anchor = spot
        gap = 0.0 if rng.random() < 0.25 else rng.uniform(1.0, 5.0)
        angle = rng.uniform(0, 2 * np.pi)
        spot = anchor + (2 * r + gap) * np.array([np.cos(angle), np.sin(angle)])
    return bases


def _vehicle(rng: np.random.Generator, floor: _Floor) -> VehicleSpec | None:
    length = rng.uniform(12, 30)
    width = length * rng.uniform(0.4, 0.6)
    for _ in range(20):
        x, y = rng.uniform(10, floor.table[0] - 10), rng.uniform(10, floor.table[1] - 10)
        heading = rng.uniform(0, 360)
        t = np.radians(heading)
        along, across = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
        corners = [
            np.array([x, y]) + a * length / 2 * along + b * width / 2 * across
            for a, b in ((1, -1), (1, 1), (-1, 1), (-1, -1))
        ]
        hull = Polygon(corners)
        if floor.fits(hull, 1.0):
            floor.take(hull)
            hull_color = _color(rng)
            return VehicleSpec(
                x,
                y,
                length,
                width,
                heading,
                height_cm=rng.uniform(3.0, 5.5),
                hull_color=hull_color,
                turret=bool(rng.random() < 0.75),
                turret_color=tuple(float(c) for c in np.clip(np.asarray(hull_color) * 1.1, 0, 255)),
            )
    return None


def _terrain(rng: np.random.Generator, floor: _Floor, mat: Mat) -> TerrainSpec | None:
    kind = str(rng.choice(["hill", "tree", "wall", "ruins", "building"]))
    for _ in range(20):
        x, y = rng.uniform(15, floor.table[0] - 15), rng.uniform(15, floor.table[1] - 15)
        if kind == "hill":
            a = np.sort(rng.uniform(0, 2 * np.pi, 7))
            rad = rng.uniform(10, 22)
            foot = np.column_stack(
                [
                    x + rad * np.cos(a) * rng.uniform(0.8, 1.2, 7),
                    y + rad * np.sin(a) * rng.uniform(0.8, 1.2, 7),
                ]
            )
            foot = np.asarray(Polygon(foot).convex_hull.exterior.coords)[:-1]
            height = rng.uniform(3, 8)
            color = tuple(float(c) for c in np.asarray(mat.color) * 0.8)
            top = tuple(float(c) for c in np.asarray(mat.color) * 0.95)
        elif kind == "tree":
            rad = rng.uniform(4, 8)
            foot = np.asarray(Point(x, y).buffer(rad, 8).exterior.coords)[:-1]
            height = rng.uniform(10, 18)
            color = (float(rng.uniform(20, 50)), float(rng.uniform(70, 120)), float(rng.uniform(30, 60)))
            top = color
        else:
            length = rng.uniform(8, 25)
            width = {"wall": rng.uniform(1, 2), "ruins": rng.uniform(1.5, 3)}.get(kind, rng.uniform(10, 18))
            heading = rng.uniform(0, 180)
            t = np.radians(heading)
            along, across = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
            foot = np.array(
                [
                    np.array([x, y]) + a * length / 2 * along + b * width / 2 * across
                    for a, b in ((1, -1), (1, 1), (-1, 1), (-1, -1))
                ]
            )
            height = {"wall": rng.uniform(2, 5), "ruins": rng.uniform(4, 10)}.get(kind, rng.uniform(8, 20))
            color = _color(rng)
            top = tuple(float(c) for c in np.clip(np.asarray(color) * 1.2, 0, 255))
        # A tree's canopy may shade bases beneath it; only its trunk takes floor space.
        shape = Point(x, y).buffer(1.0) if kind == "tree" else Polygon(foot)
        if floor.fits(shape, 0.5):
            floor.take(shape)
            return TerrainSpec(kind, tuple(map(tuple, foot.tolist())), float(height), color, top)
    return None


def _distractors(rng: np.random.Generator, floor: _Floor, mat: Mat, hard: bool) -> list[DistractorSpec]:
    kinds = ["die", "card", "tape", "token", "coin"] + (["printed_circle", "printed_ring"] if hard else [])
    out = []
    for _ in range(int(rng.integers(2, 10 if hard else 5))):
        kind = str(rng.choice(kinds))
        x, y = rng.uniform(5, floor.table[0] - 5), rng.uniform(5, floor.table[1] - 5)
        size = {
            "die": rng.uniform(1.2, 1.6),
            "token": float(rng.choice([rng.uniform(2.0, 2.7), rng.uniform(4.0, 5.5)])),
            "coin": rng.uniform(1.6, 2.8),
            "tape": rng.uniform(5.5, 7.0),
            "card": 8.8,
            "printed_circle": float(rng.choice([3.2, 6.5])),
            "printed_ring": float(rng.choice([3.2, 6.5])),
        }[kind]
        extent = {"tape": 30.0, "card": 6.0}.get(kind, size / 2)
        shape = Point(x, y).buffer(extent)
        if kind.startswith("printed"):
            color = tuple(float(c) for c in np.clip(np.asarray(mat.color) * rng.uniform(0.3, 0.6), 0, 255))
        elif kind == "coin":
            color = (float(rng.uniform(60, 120)), float(rng.uniform(140, 190)), float(rng.uniform(170, 220)))
        else:
            color = _color(rng)
        if floor.fits(shape, 0.3):
            if not kind.startswith("printed"):
                floor.take(shape)
            out.append(
                DistractorSpec(
                    kind,
                    float(x),
                    float(y),
                    float(size),
                    float(rng.uniform(0, 360)),
                    color,
                    length_cm=float(rng.uniform(10, 40)),
                )
            )
    return out


def _hand(rng: np.random.Generator, table_cm: tuple[float, float]) -> HandSpec:
    x, y = rng.uniform(10, table_cm[0] - 10), rng.uniform(10, table_cm[1] - 10)
    edge = int(rng.integers(4))
    shoulder = [
        (x + rng.uniform(-20, 20), -35.0),
        (x + rng.uniform(-20, 20), table_cm[1] + 35),
        (-35.0, y + rng.uniform(-20, 20)),
        (table_cm[0] + 35, y + rng.uniform(-20, 20)),
    ][edge]
    return HandSpec(
        float(x),
        float(y),
        float(rng.uniform(4, 25)),
        float(rng.uniform(8, 11)),
        (float(shoulder[0]), float(shoulder[1]), float(rng.uniform(35, 55))),
        skin=(float(rng.uniform(60, 160)), float(rng.uniform(100, 180)), float(rng.uniform(140, 230))),
        sleeve=_color(rng),
    )


def _mat(rng: np.random.Generator, hard: bool) -> Mat:
    style = str(rng.choice(list(MATS)))
    color, roughness = MATS[style]
    color = tuple(float(c) for c in np.clip(np.asarray(color) * rng.uniform(0.85, 1.15, 3), 0, 255))
    lines = []
    if style in ("map", "urban"):
        ink = tuple(float(c) for c in np.asarray(color) * 0.55)
        for _ in range(int(rng.integers(4, 12))):
            p0 = tuple(float(v) for v in rng.uniform(0, 240, 2))
            p1 = tuple(float(v) for v in rng.uniform(0, 240, 2))
            lines.append((p0, p1, float(rng.uniform(0.2, 3.0 if style == "map" else 0.4)), ink))
    return Mat(style, color, roughness * (1.4 if hard else 1.0), tuple(lines))


def _look(rng: np.random.Generator, hard: bool) -> Look:
    if not hard:
        return Look(
            light_gradient=rng.uniform(0.05, 0.25),
            vignette=rng.uniform(0.1, 0.3),
            brightness=rng.uniform(0.85, 1.1),
            blur_px=rng.uniform(0, 0.6),
            noise_sigma=rng.uniform(1, 3),
            jpeg_quality=int(rng.integers(85, 96)),
        )
    glare = [
        (rng.uniform(0, 180), rng.uniform(0, 120), rng.uniform(10, 30), rng.uniform(0.1, 0.35))
        for _ in range(int(rng.integers(0, 3)))
    ]
    return Look(
        light_gradient=rng.uniform(0.1, 0.5),
        vignette=rng.uniform(0.2, 0.5),
        brightness=rng.uniform(0.45, 1.1),
        glare=glare,
        blur_px=rng.uniform(0, 1.4),
        motion_blur_px=float(rng.choice([0.0, rng.uniform(1, 3)])),
        motion_angle_deg=rng.uniform(0, 180),
        noise_sigma=rng.uniform(2, 7),
        jpeg_quality=int(rng.integers(60, 90)),
    )


def random_scene(
    rng: np.random.Generator, hard: bool = False, table: str = "183x122", light: str = "overhead"
) -> TableScene:
    """A random table: squads of bases, vehicles, terrain, clutter; `hard` turns it all up.

    `light` (a key of `LIGHTS`) changes only how high the light stands: the one draw is spread
    over the other range, so a seed gives the same table, camera and light's azimuth either way."""
    for name, given, known in (("light", light, LIGHTS), ("table", table, TABLES)):
        if given not in known:  # checked before the table is drawn, not found as a KeyError after it
            raise ValueError(f"unknown {name} {given!r}; the known ones are {', '.join(map(repr, known))}")
    table_cm = TABLES[table]
    dictionary, markers = table_markers(table)
    mat = _mat(rng, hard)
    floor = _Floor(table_cm, markers)
    terrain = [t for t in (_terrain(rng, floor, mat) for _ in range(int(rng.integers(1, 6)))) if t]
    vehicles = [v for v in (_vehicle(rng, floor) for _ in range(int(rng.integers(0, 4)))) if v]
    bases: list[BaseSpec] = []
    for _ in range(int(rng.integers(2, 7))):
        diameter = 65.0 if rng.random() < 0.2 else 32.0
        count = int(rng.integers(1, 4)) if diameter > 50 else int(rng.integers(3, 11))
        bases += _squad(rng, floor, mat, hard, diameter, count)
    distractors = _distractors(rng, floor, mat, hard)
    hands = (
        [_hand(rng, table_cm) for _ in range(int(rng.integers(0, 3)))] if hard and rng.random() < 0.5 else []
    )
    elevation = np.radians(rng.uniform(*LIGHTS[light]))
    azimuth = rng.uniform(0, 2 * np.pi)
    light_dir = (
        float(np.cos(elevation) * np.cos(azimuth)),
        float(np.cos(elevation) * np.sin(azimuth)),
        float(-np.sin(elevation)),
    )
    return TableScene(
        table_cm=table_cm,
        dictionary=dictionary,
        markers=markers,
        mat=mat,
        bases=bases,
        vehicles=vehicles,
        terrain=terrain,
        distractors=distractors,
        hands=hands,
        look=_look(rng, hard),
        light_dir=light_dir,
        shadow_strength=float(rng.uniform(0.4, 0.7) if hard else rng.uniform(0.15, 0.4)),
    )
