"""What a hull is and where its roof appears: hull sizes, the blob a mask finds, and the
parallax between them.

The rectified image shows the table plane, so anything at height z appears pushed away from the
camera's nadir by the factor H / (H - z). A blob's sides facing the nadir are therefore the
footprint's bottom edges, seen directly, with the wall above them as a band that widens with the
side's distance from the nadir; its far sides are roof edges, pulled back by the parallax of a
typical hull height.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.detections import heading_axes

# What a hull is: 28 mm-scale vehicles 12-30 cm long; real hulls run 1.75-2.5 times as long as
# wide (Tiger 1.77, StuG 1.83, Sherman and T-34 2.2, armoured cars to 2.5, half-tracks and
# trucks up to ~2.8), squarish buildings and thin walls do not. The lower bound leaves room
# for a centimetre of error on a 10 cm wide hull.
LENGTH_CM = (10.0, 36.0)
WIDTH_CM = (4.0, 20.0)
ASPECT = (1.6, 3.2)
HULL_HEIGHT_CM = 4.0  # a typical roof: the far sides' parallax is undone with it
MIN_HULL_HEIGHT_CM = 2.5
MAX_HULL_HEIGHT_CM = 8.0  # a turret's top: no hull's wall shows a wider band than this height's
MAX_ROOF_CM = 6.5  # a hull's first edge above its footprint is at most its roof (1/48: 3 m)
GEAR_CM = 3.0  # a hull's running gear (tracks, wheels, skirts): ~1.2 m, 2.5 cm at 1/48


def _footprint(extent: tuple[float, float], nadir: float, scale: float) -> tuple[float, float]:
    """Undo the roof's parallax on one axis: near-side extremes are footprint, far ones roof."""
    low, high = extent
    low = low if low >= nadir else nadir + (low - nadir) / scale
    high = high if high <= nadir else nadir + (high - nadir) / scale
    return low, high


@dataclass
class Blob:
    """A hull candidate as a rectangle on its own axes, first as a mask saw it, then as its sides
    were measured; its roof's parallax is still in it (`hull_footprint` takes it out)."""

    heading_deg: float
    axes: np.ndarray  # rows: along, across (unit vectors in table cm)
    extent: np.ndarray  # [[along low, high], [across low, high]] in cm
    fill: float
    cut: bool = False  # cut from a blob of two things touching: no side may be made up

    def __post_init__(self) -> None:
        """The axis in [0, 180), with `axes` along it: a hull's front is read as the low or high
        end of `axes` (models.gun) and added to `heading_deg` as 0 or 180, so the two must agree.
        Blobs are made from any heading and its axes, and reduced here; they were made with the
        heading reduced and the axes not: a hull whose axis came out at
        -0.01 degrees (or 359.99) had its axes along +x and its heading at 179.99, and its front
        was given backwards (a tank still on the table read facing 180 and 0 by turns, a blind
        path-traced tracking check)."""
        axis = self.heading_deg % 180.0
        if float(heading_axes(axis)[0] @ self.axes[0]) < 0.0:
            self.axes, self.extent = -self.axes, -self.extent[:, ::-1]
        self.heading_deg = axis

    @property
    def centre_cm(self) -> np.ndarray:
        return self.axes.T @ self.extent.mean(axis=1)

    @property
    def size_cm(self) -> np.ndarray:
        return self.extent[:, 1] - self.extent[:, 0]


def axes_of(heading_deg: float) -> np.ndarray:
    """The rows (along, across) a blob's extent is measured on."""
    return np.array(heading_axes(heading_deg))


def hull_footprint(
    blob: Blob, camera_cm: np.ndarray, slack_cm: float = 0
) -> tuple[np.ndarray, float, float] | None:
    """Footprint centre, length, width of a blob, or None when no hull is that size and shape."""
    scale = camera_cm[2] / (camera_cm[2] - HULL_HEIGHT_CM)
    nadir = blob.axes @ camera_cm[:2]
    along = _footprint(tuple(blob.extent[0]), nadir[0], scale)
    across = _footprint(tuple(blob.extent[1]), nadir[1], scale)
    length, width = along[1] - along[0], across[1] - across[0]
    if (
        not LENGTH_CM[0] - slack_cm <= length <= LENGTH_CM[1] + slack_cm
        or not WIDTH_CM[0] - slack_cm <= width <= WIDTH_CM[1] + slack_cm
        or not ASPECT[0] * (width - slack_cm) <= length + slack_cm
        or not length - slack_cm <= ASPECT[1] * (width + slack_cm)
    ):
        return None
    return blob.axes.T @ np.array([sum(along) / 2, sum(across) / 2]), length, width


def roof_blob(
    centre: np.ndarray, length: float, width: float, heading: float, camera_cm: np.ndarray, fill: float
) -> Blob:
    """A footprint seen as the masks see a hull: its far sides pushed out by a typical roof's
    parallax (which measuring takes back off)."""
    scale = camera_cm[2] / (camera_cm[2] - HULL_HEIGHT_CM)
    axes = axes_of(heading)
    middle, nadir = axes @ centre, axes @ camera_cm[:2]
    half = np.array([length / 2, width / 2])
    extent = np.stack([middle - half, middle + half], axis=1)
    far = np.stack([extent[:, 0] < nadir, extent[:, 1] > nadir], axis=1)
    extent = np.where(far, nadir[:, None] + (extent - nadir[:, None]) * scale, extent)
    return Blob(heading, axes, extent, fill)


def wall_band(
    blob: Blob, camera_cm: np.ndarray, axis: int, end: int, height_cm: float = MAX_HULL_HEIGHT_CM
) -> float:
    """How wide a wall this tall (by default the tallest hull's) shows above this near side (cm)."""
    d = nadir_distance(blob, camera_cm, axis, end)
    return d * height_cm / (camera_cm[2] - height_cm)


def nadir_distance(blob: Blob, camera_cm: np.ndarray, axis: int, end: int) -> float:
    """How far a side lies from the camera's nadir across it (cm): its wall's band grows with it."""
    return abs(float(blob.axes[axis] @ camera_cm[:2]) - blob.extent[axis, end])


def rotated_extent(blob: Blob, extent: np.ndarray, turn_deg: float) -> np.ndarray:
    """Side offsets re-expressed on axes turned by turn_deg about the rectangle's centre."""
    centre = blob.axes.T @ extent.mean(axis=1)
    new_axes = axes_of(blob.heading_deg + turn_deg)
    c = new_axes @ centre
    half = (extent[:, 1] - extent[:, 0]) / 2
    return np.column_stack([c - half, c + half])


def near_sides_of(blob: Blob, camera_cm: np.ndarray) -> list[tuple[int, int]]:
    """The (axis, end) of each side facing the camera's nadir: the ones whose wall shows."""
    nadir = blob.axes @ camera_cm[:2]
    facing = ((nadir < blob.extent[:, 0]), (nadir > blob.extent[:, 1]))
    return [(axis, end) for axis in (0, 1) for end in (0, 1) if facing[end][axis]]
