"""Finding the layout's markers in a photo, with corners as precise as the image allows.

OpenCV's ArucoDetector finds and identifies the squares, in up to four passes, each only while
layout markers are still missing: plain; thorough (uneven light); soft (a blurred frame); and
soft on the image with its light divided out (a shadow's edge across a marker). The corners
then come from edge-line fits (`edges.py`), falling back to OpenCV's own sub-pixel corners for
a marker none of whose edges can be fitted (half hidden, crushed by glare). Ids outside the
layout are somebody else's markers and are ignored; the same layout id twice means two printed
copies, which no calibration can untangle, so it is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.edges import refine_by_edges
from calibration.layout import Layout
from rules_core.errors import TablesightError

REFINEMENTS = ("lines", "subpix", "apriltag", "contour", "none")
# Below this many well-measured corners the fit takes the detector's corners for the rest.
MIN_MEASURED_CORNERS = 8
# A second detection of an id smaller than this fraction of the first is noise, not a copy.
DUPLICATE_SIZE_RATIO = 0.5
# The light is smoothed over this fraction of the image's larger side (23 px at 2304): a fifth of
# a 10 cm marker seen from 1.5-2.2 m.
FLATTEN_FRACTION = 100


@dataclass
class Sighting:
    """The layout markers seen in one image: corners per id (undistorted px when intrinsics).

    A corner row is NaN where glare or an occluder left its edges unmeasurable; fits skip it.
    `pixels` keeps the detector's corners as the picture shows them, before any lens is undone:
    only there can a lens file be caught sending no ray where a marker is seen.
    """

    corners: dict[int, np.ndarray]
    refined_by_lines: list[int] = field(default_factory=list)
    ignored_ids: list[int] = field(default_factory=list)
    pixels: dict[int, np.ndarray] = field(default_factory=dict)


def detector(
    dictionary: str, refinement: str = "lines", thorough: bool = False, soft: bool = False
) -> cv2.aruco.ArucoDetector:
    """An ArucoDetector for large markers seen from 1.5-2.2 m; `thorough` for uneven light,
    `soft` for a blurred frame.

    The thorough one thresholds at more and wider window sizes, which keeps a marker whole
    under a glare gradient or soft focus, at three times the cost. The soft one reads each bit
    from more samples nearer its cell's centre: motion blur spreads a cell's neighbours over
    its border (a dim, path-traced hard validation frame, 351,004, with 3 px of motion blur
    and JPEG 63: 1 of its 4 unhidden markers read, all 4 so).
    """
    params = cv2.aruco.DetectorParameters()
    method = {
        "apriltag": cv2.aruco.CORNER_REFINE_APRILTAG,
        "contour": cv2.aruco.CORNER_REFINE_CONTOUR,
        "none": cv2.aruco.CORNER_REFINE_NONE,
    }.get(refinement, cv2.aruco.CORNER_REFINE_SUBPIX)
    params.cornerRefinementMethod = method
    params.cornerRefinementWinSize = 5
    params.cornerRefinementMaxIterations = 50
    params.cornerRefinementMinAccuracy = 0.01
    if thorough:
        params.adaptiveThreshWinSizeMin = 5
        params.adaptiveThreshWinSizeMax = 53
        params.adaptiveThreshWinSizeStep = 8
    params.minMarkerPerimeterRate = 0.02
    params.polygonalApproxAccuracyRate = 0.05
    params.perspectiveRemoveIgnoredMarginPerCell = 0.2
    if soft:
        params.perspectiveRemovePixelPerCell = 8
        params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    params.errorCorrectionRate = 0.5
    aruco_dict = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.ArucoDetector(aruco_dict, params)


def to_gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _side(quad: np.ndarray) -> float:
    return float(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1).mean())


def _the_one_copy(marker_id: int, copies: list[np.ndarray]) -> np.ndarray:
    """The marker among its detections; two printed copies are an error.

    A false detection in the mat's texture is far smaller than the real marker, which every
    layout marker is at one table distance; only copies of comparable size count as two.
    """
    copies = sorted(copies, key=_side, reverse=True)
    if len(copies) > 1 and _side(copies[1]) > DUPLICATE_SIZE_RATIO * _side(copies[0]):
        raise TablesightError(
            f"marker id {marker_id} is seen twice in the image",
            "remove the extra copy: each layout marker must appear once on the table",
        )
    return copies[0]


def _detect(
    aruco: cv2.aruco.ArucoDetector, gray: np.ndarray, wanted: set[int]
) -> tuple[dict[int, list[np.ndarray]], dict[int, float]]:
    """Every detection of each wanted id, and the ids seen that are not wanted with the side of
    their largest detection (px)."""
    found, ids, _ = aruco.detectMarkers(gray)
    quads: dict[int, list[np.ndarray]] = {}
    ignored: dict[int, float] = {}
    for quad, marker_id in zip(found, [] if ids is None else ids.ravel(), strict=True):
        square = quad.reshape(4, 2).astype(np.float64)
        if int(marker_id) in wanted:
            quads.setdefault(int(marker_id), []).append(square)
        else:
            ignored[int(marker_id)] = max(ignored.get(int(marker_id), 0.0), _side(square))
    return quads, ignored


def markers_in_view(gray: np.ndarray, dictionary: str) -> list[int]:
    """The ids of the printed markers of `dictionary` in view, with no layout to look for."""
    _, sides = _detect(detector(dictionary, "subpix"), gray, set())
    return _printed_sized(sides, max(sides.values(), default=0.0))


def _printed_sized(sides: dict[int, float], largest: float) -> list[int]:
    """The ids whose detections (side in px) are of a printed marker's size beside the `largest`
    marker seen, not a pattern that decodes as one: a 32 mm base read as id 17, 32 px across where
    the markers were 150 (a blind walkthrough's table sent its user looking for a marker 17)."""
    return sorted(i for i, side in sides.items() if side >= DUPLICATE_SIZE_RATIO * largest)


def _flattened(gray: np.ndarray) -> np.ndarray:
    """The image divided by its light, smoothed over a fraction of a marker: a shadow's edge
    across a marker (an arm's, a building's) leaves its shaded white cells darker than the
    threshold that the lit ones set, and since a shadow scales the light, dividing it out
    makes them white again (hard benchmark table 50,011's marker 3, under an arm's shadow: read by no
    other pass). Only markers are found on it: corners are still measured on the image itself."""
    # The light is smooth, so it is blurred at an eighth of the size (at full size: 290 ms).
    small = cv2.resize(gray, None, fx=1 / 8, fy=1 / 8, interpolation=cv2.INTER_AREA).astype(np.float32)
    small = cv2.GaussianBlur(small, (0, 0), max(gray.shape) / FLATTEN_FRACTION / 8)
    light = cv2.resize(small, (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_LINEAR)
    return cv2.convertScaleAbs(gray.astype(np.float32) / np.maximum(light, 1.0), alpha=128.0)


def find_markers(
    image: np.ndarray,
    layout: Layout,
    refinement: str = "lines",
    undistort: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Sighting:
    """Detect the layout's markers; corners in undistorted pixels when `undistort` is given."""
    if refinement not in REFINEMENTS:
        raise ValueError(f"unknown corner refinement {refinement!r}, one of {REFINEMENTS}")
    gray = to_gray(image)
    wanted = set(layout.ids)
    quads, ignored = _detect(detector(layout.dictionary, refinement), gray, wanted)
    for soft, flatten in ((False, False), (True, False), (True, True)):  # while markers are missing
        if set(quads) == wanted:
            break
        seen = _flattened(gray) if flatten else gray
        more, _ = _detect(detector(layout.dictionary, refinement, True, soft), seen, wanted - set(quads))
        quads.update(more)
    corners = {marker_id: _the_one_copy(marker_id, copies) for marker_id, copies in quads.items()}
    ignored_ids = _printed_sized(ignored, max((_side(q) for q in corners.values()), default=0.0))
    detected = {i: undistort(q) if undistort is not None else q for i, q in corners.items()}
    if refinement != "lines":
        return Sighting(corners=dict(sorted(detected.items())), ignored_ids=ignored_ids, pixels=corners)
    gray_f = gray.astype(np.float32)
    bits = int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.dictionary)).markerSize)
    refined = {i: refine_by_edges(gray_f, q, bits, undistort) for i, q in corners.items()}
    by_lines = sorted(i for i, r in refined.items() if r is not None)
    measured = {i: detected[i] if r is None else r for i, r in refined.items()}
    if sum(np.isfinite(c).all(axis=1).sum() for c in measured.values()) < MIN_MEASURED_CORNERS:
        measured = {i: np.where(np.isfinite(c), c, detected[i]) for i, c in measured.items()}
    return Sighting(
        corners=dict(sorted(measured.items())), refined_by_lines=by_lines, ignored_ids=ignored_ids,
        pixels=corners,
    )
