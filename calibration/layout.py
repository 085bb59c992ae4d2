"""Where the calibration markers lie on the table (the marker layout of CONTRACTS.md).

A layout is the ground truth every calibration is measured against, so a wrong one must fail
loudly on load (a typo in one corner would otherwise bend the whole table by centimetres).
Both written forms, four corners or centre + size + rotation, become corners here, so the
rest of the package only ever sees corners.
"""

from __future__ import annotations

import json
import math
import re
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from shapely.geometry import Polygon

from calibration.jsonfile import read_json
from calibration.marker_sheet import sheet_reach
from calibration.seed_tables import DEFAULT_TABLES
from rules_core.errors import TablesightError, plain_problem

# Printed squares are exact; 2% (2 mm on a 10 cm marker) leaves room for measured layouts.
SQUARE_TOLERANCE = 0.02
LAYOUTS_DIR = "layouts"
MAX_COORDINATE_CM = 1e5
# How far past the table's edge a marker may reach (a sheet laid over the edge, on a side board).
OFF_TABLE_CM = 20.0
# ArUco reads a marker's cells from its pixels: at under 8 across (a 4x4 marker's 6 cells with its
# border) none is read, wherever the camera stands and however the light falls.
MIN_MARKER_PX = 8.0
# No gaming table is a foot across in centimetres; a size this small is a table in feet (6x4).
FEET_AT_MOST = 12.0
CM_PER_FOOT = 30.48


def dictionary_size(name: str) -> int:
    """Number of ids in an OpenCV predefined ArUco dictionary; ValueError if it is not one."""
    import cv2

    code = getattr(cv2.aruco, name, None) if name.startswith("DICT_") else None
    if not isinstance(code, int):
        raise ValueError(f"unknown ArUco dictionary {name!r} (use e.g. DICT_4X4_50)")
    return int(cv2.aruco.getPredefinedDictionary(code).bytesList.shape[0])


def square_corners(center: tuple[float, float], size: float, rotation_deg: float) -> np.ndarray:
    """Corners TL, TR, BR, BL of a square whose top edge runs along +x rotated by rotation_deg."""
    a = np.radians(rotation_deg)
    along, down = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    half = size / 2
    offsets = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    return np.array([np.asarray(center) + half * (sx * along + sy * down) for sx, sy in offsets])


class Table(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)
    width_cm: float = Field(gt=0, lt=MAX_COORDINATE_CM)
    depth_cm: float = Field(gt=0, lt=MAX_COORDINATE_CM)


class LayoutMarker(BaseModel):
    """One marker; always held as its 4 corners in OpenCV order (TL, TR, BR, BL), in cm."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)
    id: int = Field(ge=0, strict=True)  # lax, `true` became id 1 and was reported as listed twice
    corners_cm: list[list[float]]

    @model_validator(mode="before")
    @classmethod
    def _centre_form_to_corners(cls, data: Any) -> Any:
        if isinstance(data, dict) and "centre_cm" in data and "center_cm" not in data:
            data = {**{k: v for k, v in data.items() if k != "centre_cm"}, "center_cm": data["centre_cm"]}
        if not isinstance(data, dict) or "corners_cm" in data:
            if isinstance(data, dict) and {"center_cm", "size_cm"} & set(data):
                raise ValueError("give either corners_cm or center_cm + size_cm, not both")
            return data
        if "center_cm" not in data or "size_cm" not in data:
            raise ValueError("needs corners_cm, or center_cm + size_cm (+ rotation_deg)")
        rest = {k: v for k, v in data.items() if k not in ("center_cm", "size_cm", "rotation_deg")}
        center, size = data["center_cm"], data["size_cm"]
        if not (isinstance(center, list | tuple) and len(center) == 2
                and all(isinstance(v, int | float) and abs(v) < MAX_COORDINATE_CM for v in center)):
            raise ValueError("center_cm must be [x, y], table positions in cm")
        if not isinstance(size, int | float) or not size > 0:  # not NaN either
            raise ValueError("size_cm must be a positive number")
        if not size < MAX_COORDINATE_CM:
            raise ValueError(f"size_cm {size:g} is a kilometre or more: give the marker's side in cm")
        rotation = data.get("rotation_deg", 0.0)
        if not isinstance(rotation, int | float) or not math.isfinite(rotation):
            raise ValueError("rotation_deg must be a number")
        corners = square_corners(tuple(center), float(size), float(rotation))
        return {**rest, "corners_cm": corners.tolist()}

    @field_validator("corners_cm")
    @classmethod
    def _a_printed_square(cls, corners: list[list[float]]) -> list[list[float]]:
        pts = np.asarray(corners, dtype=np.float64)
        if pts.shape != (4, 2):
            raise ValueError("corners_cm must be 4 [x, y] points")
        if np.abs(pts).max() > MAX_COORDINATE_CM:
            raise ValueError("corners_cm lie kilometres away: give table positions in cm")
        if not Polygon(pts).is_valid:
            raise ValueError("corners_cm are self-intersecting; list them TL, TR, BR, BL around the square")
        sides = np.linalg.norm(np.roll(pts, -1, axis=0) - pts, axis=1)
        diagonals = np.linalg.norm(pts[2:] - pts[:2], axis=1)
        side = sides.mean()
        if (
            side <= 0
            or np.ptp(sides) > SQUARE_TOLERANCE * side
            or abs(diagonals - side * np.sqrt(2)).max() > SQUARE_TOLERANCE * side
        ):
            raise ValueError(f"corners_cm are not a square (sides {', '.join(f'{s:.2f}' for s in sides)} cm)")
        # Shoelace in the y-down table frame: a face-up marker's TL, TR, BR, BL run clockwise.
        area = np.sum(pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1) * pts[:, 1])
        if area < 0:
            raise ValueError("corners_cm run counter-clockwise (a mirrored marker); list them TL, TR, BR, BL")
        return pts.tolist()


class Layout(BaseModel):
    """A validated marker layout: dictionary, table size and at least 4 markers."""

    # Extra fields are ignored: CONTRACTS.md lets layouts grow by adding fields.
    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)
    dictionary: str
    table: Table
    markers: list[LayoutMarker] = Field(min_length=4)

    @field_validator("dictionary")
    @classmethod
    def _known_dictionary(cls, name: str) -> str:
        dictionary_size(name)
        return name

    @model_validator(mode="after")
    def _ids_and_overlaps(self) -> Layout:
        size = dictionary_size(self.dictionary)
        ids = [m.id for m in self.markers]
        for marker in self.markers:
            if marker.id >= size:
                raise ValueError(f"marker id {marker.id} is not in {self.dictionary} (ids 0-{size - 1})")
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"marker id {duplicates[0]} is listed twice")
        width, depth = self.table.width_cm, self.table.depth_cm
        for marker in self.markers:
            corners = np.asarray(marker.corners_cm, dtype=np.float64)
            # A marker lies on the table (a little past its edge on the same board is fine): one
            # far off it is a typing slip, which calibration would blame on the printed marker.
            beyond = max(float(np.max(-corners)), float(np.max(corners - [width, depth])))
            if beyond > OFF_TABLE_CM:
                raise ValueError(
                    f"marker {marker.id} lies {beyond:.0f} cm outside the {width:g} x {depth:g} cm table "
                    "(positions are table cm from its top-left corner)"
                )
        squares = [Polygon(m.corners_cm) for m in self.markers]
        for i, a in enumerate(squares):
            for j in range(i + 1, len(squares)):
                if a.intersects(squares[j]):
                    raise ValueError(f"markers {ids[i]} and {ids[j]} overlap")
        return self

    @cached_property
    def corners_by_id(self) -> dict[int, np.ndarray]:
        return {m.id: np.asarray(m.corners_cm, dtype=np.float64) for m in self.markers}

    @property
    def ids(self) -> list[int]:
        return [m.id for m in self.markers]

    @property
    def table_size_cm(self) -> tuple[float, float]:
        return (self.table.width_cm, self.table.depth_cm)

    def check_markers_can_show(self, image_size: tuple[int, int]) -> None:
        """Refuse a picture too small to show a marker (a thumbnail, a preview), which calibration
        would report as markers not found, to be put in view, flat and lit: even with the table
        filling the picture, its largest marker would be too few pixels across to be read."""
        width, height = image_size
        table_w, table_d = self.table_size_cm
        px_per_cm = max(min(width / table_w, height / table_d), min(width / table_d, height / table_w))
        side_cm = max(float(np.linalg.norm(c[1] - c[0])) for c in self.corners_by_id.values())
        if side_cm * px_per_cm < MIN_MARKER_PX:
            raise TablesightError(
                f"the image is only {width}x{height} pixels: the layout's {side_cm:.3g} cm markers would be "
                f"{side_cm * px_per_cm:.0f} pixels across at most, too few to be read",
                "give the photo at the camera's full size",
            )

    def markers_as_synthetic(self) -> list:
        """The layout as the synthetic renderer's markers, to render exactly this table."""
        from calibration.synthetic import Marker

        return [Marker(id=i, corners_cm=c.copy()) for i, c in self.corners_by_id.items()]

    def to_dict(self) -> dict:
        """The layout JSON, every marker in the corners form."""
        return {
            "dictionary": self.dictionary,
            "table": {"width_cm": self.table.width_cm, "depth_cm": self.table.depth_cm},
            "markers": [{"id": m.id, "corners_cm": m.corners_cm} for m in self.markers],
        }

    def to_json(self) -> str:
        """The layout JSON as people read it: one marker per line."""
        markers = ",\n".join(f"    {json.dumps(m)}" for m in self.to_dict()["markers"])
        return (
            f'{{\n  "dictionary": {json.dumps(self.dictionary)},\n'
            f'  "table": {json.dumps(self.to_dict()["table"])},\n'
            f'  "markers": [\n{markers}\n  ]\n}}\n'
        )

    @classmethod
    def from_dict(cls, data: Any, source: str = "layout") -> Layout:
        """Validate layout JSON, turning the first problem into one user-facing line."""
        try:
            return cls.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "layout"
            message = plain_problem(first["msg"])
            raise TablesightError(
                f"{source}: {where}: {message}",
                "fix the layout JSON (its form: docs/calibration.md), or write a fresh one with "
                "`tablesight markers --table WxD -o markers.pdf`",
            ) from None


def load_layout(path: str | Path) -> Layout:
    """Read and validate a layout JSON file, or name a seed table's size ("183x122").

    The size stands for the layout `tablesight markers --table 183x122` prints by default, so a
    player who printed those sheets needs no file; a file of that name still wins.
    """
    size = _size_in(str(path))
    if size and not Path(path).exists():
        return default_layout(f"{size[0]:g}x{size[1]:g}")
    if _HALF_A_SIZE.fullmatch(str(path)) and not Path(path).exists():  # "file 183x not found": no word of WxD
        raise TablesightError(
            f"--layout {path} is neither a layout file nor a table size",
            "write the size as WIDTHxDEPTH in cm, e.g. 183x122, or give the path of the layout JSON "
            "(from `tablesight markers`)",
        )
    data = read_json(path, "layout", "--layout", "a layout JSON file as written by `tablesight markers`")
    if isinstance(data, dict) and "markers" not in data and ("homography" in data or "K" in data):
        # The three JSON files of a rig look alike in a folder; said as pydantic sees it, a
        # calibration given as the layout was "dictionary: Field required".
        what = "a calibration (`tablesight calibrate`)" if "homography" in data else "a lens calibration"
        raise TablesightError(
            f"{path} is {what}, not a marker layout",
            "give --layout the layout JSON written beside the marker sheets (`tablesight markers`), "
            "or the table size, e.g. --layout 183x122",
        )
    return Layout.from_dict(data, source=f"layout {path}")


# Digits, dots and spaces around an x: a table size typed wrong, not a file's name.
_HALF_A_SIZE = re.compile(r"[\d.\s]*[xX×][\d.\sxX×]*")


def _size_in(text: str) -> tuple[float, float] | None:
    """A table size as people type it ("183x122", "183X122", "183 x 122", "183×122"), else None:
    the one reading of WxD for a layout named by size, a default layout and a printed sheet."""
    try:
        width, depth = (float(v) for v in text.lower().replace("×", "x").split("x"))
    except ValueError:
        return None
    return width, depth


def parse_table(table: str) -> tuple[float, float]:
    """'183x122' -> (183.0, 122.0)."""
    size = _size_in(table)
    if size is None:
        raise TablesightError(f"table size {table!r} is not WIDTHxDEPTH in cm", "write it like 183x122")
    width, depth = size
    if not all(math.isfinite(side) and side > 0 for side in (width, depth)):
        raise TablesightError(f"table size {table!r} must be positive and finite", "write it like 183x122")
    _not_in_feet(table, width, depth)
    if max(width, depth) >= MAX_COORDINATE_CM:  # else refused later as a broken layout JSON
        raise TablesightError(
            f"table size {table!r} is {MAX_COORDINATE_CM / 100_000:g} km or more across",
            "write it in cm, like 183x122",
        )
    return width, depth


def _not_in_feet(table: str, width: float, depth: float) -> None:
    """Refuse a size in feet ("6x4"), which read as centimetres asks for a postcard-sized table."""
    if max(width, depth) <= FEET_AT_MOST:
        in_cm = f"{width * CM_PER_FOOT:.0f}x{depth * CM_PER_FOOT:.0f}"
        raise TablesightError(
            f"a table size of {table} would be {width:g} by {depth:g} cm: sizes are in cm",
            f"{table} feet is {in_cm} cm: write {in_cm}",
        )


def corner_layout(
    table_cm: tuple[float, float], size_cm: float = 10.0, dictionary: str = "DICT_4X4_50"
) -> Layout:
    """Markers in the four corners, plus mid-edge ones on long tables (beyond 200 cm).

    Each square sits with its white quiet zone (a quarter of its side) touching the table edges,
    so the markers span as much of the table as they can: calibration interpolates between them
    instead of extrapolating.
    """
    if not (math.isfinite(size_cm) and size_cm > 0):  # else refused later as a broken layout JSON
        raise TablesightError(
            f"a marker size of {size_cm:g} cm cannot be printed", "give --size-cm a positive size, e.g. 10"
        )
    width, depth = table_cm
    inset = sheet_reach(size_cm)
    if width < 2 * inset + 2 * size_cm or depth < 2 * inset + 2 * size_cm:
        raise TablesightError(
            f"{size_cm:g} cm markers do not fit on a {width:g}x{depth:g} cm table",
            "use smaller markers (--size-cm)",
        )
    centres = [(inset, inset), (width - inset, inset), (width - inset, depth - inset), (inset, depth - inset)]
    if width > 200:
        centres += [(width / 2, inset), (width / 2, depth - inset)]
    markers = [
        {"id": i, "center_cm": [round(x, 4), round(y, 4)], "size_cm": size_cm, "rotation_deg": 0.0}
        for i, (x, y) in enumerate(centres)
    ]
    return Layout.from_dict(
        {"dictionary": dictionary, "table": {"width_cm": width, "depth_cm": depth}, "markers": markers}
    )


def default_layout(table: str = "183x122") -> Layout:
    """The shipped layout for one of the seed table sizes (122x122, 183x122, 244x183)."""
    if table not in DEFAULT_TABLES:
        size = _size_in(table)
        if size and all(0 < side < math.inf for side in size):
            _not_in_feet(table, *size)
        raise TablesightError(
            f"no default layout for a {table} table",
            f"use one of {', '.join(DEFAULT_TABLES)}, or print sheets for it with `tablesight markers "
            f"--table {table} -o markers.pdf` and give --layout markers.json",
        )
    text = resources.files("calibration").joinpath(LAYOUTS_DIR, f"{table}.json").read_text()
    return Layout.from_dict(json.loads(text), source=f"default layout {table}")
