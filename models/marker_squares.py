"""The calibration markers as the detector sees them: their sheets lie on the table among the
bases, and the printed bits inside a square make circles of their own."""

from __future__ import annotations

import numpy as np

from calibration.marker_sheet import sheet_reach


def marker_squares_cm(calibration) -> list[np.ndarray]:
    """The calibration markers' squares (their printed circles of bits are not bases)."""
    layout = getattr(calibration, "layout", None)
    if layout is not None and hasattr(layout, "corners_by_id"):
        return list(layout.corners_by_id.values())
    return list(getattr(calibration, "markers_cm", []))


def on_markers(xy_cm: np.ndarray, squares: list[np.ndarray]) -> np.ndarray:
    """Centres on a marker sheet (square plus its white margin, plus a base radius)."""
    hit = np.zeros(len(xy_cm), bool)
    for corners in squares:
        centre = corners.mean(0)
        side = np.linalg.norm(corners[1] - corners[0])
        hit |= np.linalg.norm(xy_cm - centre, axis=1) < sheet_reach(side) + 2.0
    return hit
