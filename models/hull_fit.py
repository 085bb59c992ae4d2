"""The last step for each measured hull: where its whole picture says the footprint lies.

The vehicle stage measures a hull side by side, each from the straightest colour step across
it. Where a side hardly shows that step it takes the next one: a near side at the roof's edge
over dark tracks in shade, an end pulled in by a turret's shadow or out by a base against it.
On the eight validation sets 15 of the 359 hulls were found but placed 5-40 mm off, mostly an end
1-2 cm in. A small CNN reads the hull's picture cut along its measured axis (the roof, the walls
in shade, the shadow and the ground at once) and says where the footprint's centre lies, which
way it points and how long and wide it is; trained on pictures cut a little off the truth of
synthetic tables (`models/hull_fit_training.py`), it answers the same for a measured hull.
Its sides and the measured ones miss in different places, so each side ends halfway between
the two (NET_SHARE). Where the measuring refuses a blob the hull map is sure of (no straight
side shows), the net places that hull alone (`HullFit.placed`, used by `models.vehicles`).

Its view is a fixed piece of table (CROP_CM at PX_PER_CM) around the hull, so sizes are read in
centimetres; beside the colours it reads each pixel's lean (`models/hull_map.lean`: the offset
from the camera's nadir over its height), since a roof is seen pushed away from the nadir.
Runs with onnxruntime; torch is only needed to train it.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from models.detections import Vehicles, heading_axes
from models.verifier import checked_session

SHIPPED_HULL_FIT = Path(__file__).parent / "weights" / "hull_fit.onnx"
PX_PER_CM = 5.0  # 2 mm a pixel: a side's step is a pixel or two wide
CROP_CM = (40.0, 28.0)  # along and across the hull: the longest (30 cm) and widest with their shadows
CROP_PX = (round(CROP_CM[1] * PX_PER_CM), round(CROP_CM[0] * PX_PER_CM))  # rows, cols
VIEW_REACH_CM = float(np.hypot(*CROP_CM)) / 2  # a view's corner from its centre, at any heading
CHANNELS = 5  # the normalised colours, and the lean along and across the hull
OUTPUT = "footprint"
# The net's answer: the centre's offset along and across the measured axis (cm), the length and
# width (cm) and the turn from the measured heading (degrees). A measured hull keeps its own
# heading, the finer (0.17 degrees off in the validation median, the net's held-out 0.21); the
# turn heads only the hulls the net places alone (`HullFit.placed`).
ANSWERS = 5
# Mirroring the view along or across the hull mirrors the footprint: these answers change sign.
MIRRORED_SIGNS = {
    "along": np.array([-1.0, 1.0, 1.0, 1.0, -1.0]),
    "across": np.array([1.0, -1.0, 1.0, 1.0, -1.0]),
}
# Each side ends where the measuring and the net put it, on average: the two miss in different
# places (on the eight validation sets each placed 11 hulls more than 5 mm off that the other
# placed within), and the measuring's sides lie inside the footprint (ends 1.6 mm, long sides
# 1 mm, median) where the net's do not. The mean placed 334 of 343 found hulls within 5 mm, against
# 329 measured and 327 by the net alone (shares 0.25 and 0.75: 333 and 329); taking the net's
# side only where the two differ by more than 4-8 mm, 326-327.
NET_SHARE = 0.5
# Placing a hull the measuring refused, the net looks again from where it first put it, turned
# by its own turn: it learned from views cut about a centimetre and 1.5 degrees off the truth,
# and a blob can start further off (validation 71,017: the hull map's axis 3.8 degrees off).
PLACING_LOOKS = 2
TABLE_SAMPLE = 4  # the table's colour statistics are read from every 4th pixel each way


def table_statistics(rect: np.ndarray) -> tuple[np.ndarray, float]:
    """Each colour's mean over the table and one over its spread, as `models.base_map.normalised`
    reads them: the net must see that a wall is darker than the mat, not whether the room was."""
    mean, spread = cv2.meanStdDev(rect[::TABLE_SAMPLE, ::TABLE_SAMPLE])
    return mean[:, 0].astype(np.float32), float(1.0 / (float(spread.mean()) + 1.0))


def window(
    rect: np.ndarray, px_per_mm: float, centre_cm: np.ndarray, half_cm: float
) -> tuple[np.ndarray, np.ndarray]:
    """The square of table `half_cm` either side of `centre_cm`, resampled to PX_PER_CM (area
    averaged, so the finer rectified image does not alias), and its top-left corner in table cm.
    Off the rectified image it is black."""
    rect_per_cm = px_per_mm * 10
    side = int(np.ceil(2 * half_cm * PX_PER_CM))
    origin = np.floor((np.asarray(centre_cm, np.float64) - half_cm) * PX_PER_CM) / PX_PER_CM
    first = np.maximum(np.floor(origin * rect_per_cm).astype(int), 0)
    last = np.ceil((origin + side / PX_PER_CM) * rect_per_cm).astype(int)
    last = np.minimum(last, [rect.shape[1], rect.shape[0]])
    if np.any(last <= first):
        return np.zeros((side, side, 3), np.uint8), origin
    piece = rect[first[1] : last[1], first[0] : last[0]]
    size = np.maximum(1, np.round((last - first) / rect_per_cm * PX_PER_CM)).astype(int)
    small = cv2.resize(piece, (int(size[0]), int(size[1])), interpolation=cv2.INTER_AREA)
    scale = (last - first) / size  # rectified pixels to a small one
    # A window pixel's centre in table cm, in rectified pixels, then in the small image's.
    gain = rect_per_cm / PX_PER_CM / scale
    shift = ((origin + 0.5 / PX_PER_CM) * rect_per_cm - first) / scale - 0.5
    to_small = np.array([[gain[0], 0, shift[0]], [0, gain[1], shift[1]]])
    out = cv2.warpAffine(small, to_small, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out, origin


def view(
    piece: np.ndarray, origin_cm: np.ndarray, centre_cm: np.ndarray, heading_deg: float,
    camera_cm: np.ndarray, statistics: tuple[np.ndarray, float],
) -> np.ndarray:
    """(CHANNELS, *CROP_PX) float32: the hull's view cut from a `window`, its columns along the
    heading and its rows across it, normalised, with each pixel's lean in the view's frame."""
    along, across = heading_axes(heading_deg)
    rows, cols = CROP_PX
    # A view pixel's centre in table cm, then in the window's pixels.
    start = np.asarray(centre_cm, np.float64) - along * CROP_CM[0] / 2 - across * CROP_CM[1] / 2
    first_cm = start + (along + across) * 0.5 / PX_PER_CM
    to_window = np.column_stack([along, across, (first_cm - origin_cm) * PX_PER_CM - 0.5])
    colours = cv2.warpAffine(piece, to_window, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    mean, scale = statistics
    out = np.empty((CHANNELS, rows, cols), np.float32)
    out[:3] = (colours.transpose(2, 0, 1).astype(np.float32) - mean[:, None, None]) * scale
    u = (np.arange(cols, dtype=np.float64) + 0.5) / PX_PER_CM - CROP_CM[0] / 2
    v = (np.arange(rows, dtype=np.float64) + 0.5) / PX_PER_CM - CROP_CM[1] / 2
    from_nadir = np.asarray(centre_cm, np.float64) - camera_cm[:2]
    out[3] = ((from_nadir @ along + u)[None, :] / camera_cm[2]).astype(np.float32)
    out[4] = ((from_nadir @ across + v)[:, None] / camera_cm[2]).astype(np.float32)
    return out


def mirrored(views: np.ndarray, way: str) -> np.ndarray:
    """Views mirrored along the hull (its ends swap) or across it (its sides swap), lean too."""
    axis, lean = (3, 3) if way == "along" else (2, 4)
    out = np.ascontiguousarray(np.flip(views, axis=axis))
    out[:, lean] *= -1
    return out


def _looked(views: np.ndarray, answer) -> np.ndarray:
    """The mean answer over a view and its three mirror images (each mirrored back)."""
    ways = [(), ("along",), ("across",), ("along", "across")]
    total = np.zeros((len(views), ANSWERS))
    for way in ways:
        seen = views
        signs = np.ones(ANSWERS)
        for w in way:
            seen = mirrored(seen, w)
            signs = signs * MIRRORED_SIGNS[w]
        total += answer(seen) * signs
    return total / len(ways)


class HullFit:
    """An ONNX model mapping hull views (n, CHANNELS, *CROP_PX) to (n, ANSWERS) footprints."""

    def __init__(self, path: str | Path) -> None:
        self.session, self.input = checked_session(path, (CHANNELS, *CROP_PX), OUTPUT, "hull-fit")

    def answers(self, views: np.ndarray) -> np.ndarray:
        """(n, ANSWERS), each the mean over the view and its mirror images: a hull seen mirrored
        is a hull, and the four looks' errors partly cancel."""
        if not len(views):
            return np.zeros((0, ANSWERS))
        return _looked(views, lambda v: self.session.run(None, {self.input: v})[0].astype(np.float64))

    def fitted(
        self, rect: np.ndarray, px_per_mm: float, camera_cm: np.ndarray, vehicles: Vehicles
    ) -> Vehicles:
        """The hulls with each side moved NET_SHARE of the way to where the net places it; the
        measured heading (and its front) and each hull's confidence are kept."""
        if not len(vehicles):
            return vehicles
        statistics = table_statistics(rect)
        views = [
            _hull_view(rect, px_per_mm, centre, float(heading), camera_cm, statistics)
            for centre, heading in zip(vehicles.xy_cm, vehicles.heading_deg, strict=True)
        ]
        answer = self.answers(np.stack(views))
        zero = np.zeros(len(vehicles))
        measured = _sides(zero, zero, vehicles.length_cm, vehicles.width_cm)
        seen = _sides(answer[:, 0], answer[:, 1], answer[:, 2], answer[:, 3])
        sides = measured + NET_SHARE * (seen - measured)
        along, across = heading_axes(vehicles.heading_deg)
        middle = np.stack([sides[:, 0] + sides[:, 1], sides[:, 2] + sides[:, 3]], 1) / 2
        return Vehicles(
            vehicles.xy_cm + middle[:, :1] * along + middle[:, 1:] * across,
            sides[:, 0] - sides[:, 1], sides[:, 2] - sides[:, 3], vehicles.heading_deg, vehicles.confidence,
        )


    def placed(
        self, rect: np.ndarray, px_per_mm: float, camera_cm: np.ndarray, centre_cm: np.ndarray,
        heading_deg: float,
    ) -> tuple[np.ndarray, float, float, float]:
        """The footprint the net alone gives a hull seen near `centre_cm` along `heading_deg`
        (mod 180): its centre (table cm), length, width and heading (its own turn taken)."""
        statistics = table_statistics(rect)
        centre, heading = np.asarray(centre_cm, np.float64), float(heading_deg)
        for _ in range(PLACING_LOOKS):
            seen = _hull_view(rect, px_per_mm, centre, heading, camera_cm, statistics)
            answer = self.answers(seen[None])[0]
            along, across = heading_axes(heading)
            centre = centre + answer[0] * along + answer[1] * across
            length, width = float(answer[2]), float(answer[3])
            heading += float(answer[4])
        return centre, length, width, heading % 180


def _hull_view(
    rect: np.ndarray, px_per_mm: float, centre_cm: np.ndarray, heading_deg: float, camera_cm: np.ndarray,
    statistics: tuple[np.ndarray, float],
) -> np.ndarray:
    """A hull's `view`, cut from a `window` just wide enough for it at any heading."""
    piece, origin = window(rect, px_per_mm, centre_cm, VIEW_REACH_CM + 1.0)
    return view(piece, origin, centre_cm, heading_deg, camera_cm, statistics)


def _sides(along: np.ndarray, across: np.ndarray, length: np.ndarray, width: np.ndarray) -> np.ndarray:
    """(n, 4) where a footprint's ends (ahead, behind) and long sides (across, +/-) lie in the
    measured hull's frame, in cm from its centre."""
    return np.stack([along + length / 2, along - length / 2, across + width / 2, across - width / 2], 1)
