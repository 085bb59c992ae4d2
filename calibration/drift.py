"""Is the calibration still good? A per-frame check that the camera has not moved.

A bumped camera or a nudged rig shifts every marker in the image at once; a hand over one
marker, a shadow or sensor noise does not. So each marker's neighbourhood is compared with the
reference frame by phase correlation (a translation estimate good to a few hundredths of a
pixel, blind to brightness changes) on small downscaled patches, and the camera is called
moved only when most markers agree they moved. Costs a few milliseconds at 2304x1296 because
only the patches around the markers are ever read.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.table import TableCalibration
from rules_core.errors import TablesightError

# Shift (full-resolution px) that counts as movement: about half a millimetre on the table.
SHIFT_PX = 0.5
# Below this peak the patch no longer looks like the reference (hand, shadow, glare): no vote.
MIN_RESPONSE = 0.08
# A patch whose grey levels spread less than this shows no marker at all (a covered lens, a dead
# frame): phase correlation of a flat mid-grey patch peaked at 0.08-0.14 somewhere ~80 px off,
# and three markers "agreed" the camera had moved.
MIN_SPREAD = 8.0
# Patches are downscaled to about this many pixels across the marker.
MARKER_SIDE_PX = 48


@dataclass(frozen=True)
class DriftReport:
    drifted: bool
    shift_px: float
    shift_mm: float
    reason: str
    markers_seen: int  # markers that still look as they did at calibration (none: nothing to go by)


@dataclass(frozen=True)
class _Patch:
    marker_id: int
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in full-resolution pixels
    scale: float
    mm_per_px: float
    reference: np.ndarray


class DriftWatch:
    """Compares new frames with the frame a calibration was made on."""

    def __init__(
        self, calibration: TableCalibration, reference_image: np.ndarray, shift_px: float = SHIFT_PX
    ) -> None:
        self.calibration = calibration
        self.shift_px = shift_px
        width, height = calibration.image_size
        if reference_image.shape[1::-1] != (width, height):
            raise TablesightError(
                f"the reference frame is {reference_image.shape[1]}x{reference_image.shape[0]} but the "
                f"calibration is for {width}x{height}",
                "watch for drift with a frame from the camera mode that was calibrated",
            )
        layout = calibration.layout.corners_by_id
        self._patches: list[_Patch] = []
        for marker_id in calibration.marker_ids:
            corners_cm = layout[marker_id]
            corners_px = calibration.table_to_image(corners_cm)
            centre = corners_px.mean(0)
            side = float(np.linalg.norm(corners_px[1] - corners_px[0]))
            half = side  # the marker plus half a side of paper and mat around it
            x0, y0 = (np.floor(centre - half).astype(int)).clip(0)
            x1, y1 = int(min(np.ceil(centre[0] + half), width)), int(min(np.ceil(centre[1] + half), height))
            if x1 - x0 < 16 or y1 - y0 < 16:
                continue
            scale = min(1.0, MARKER_SIDE_PX / side)
            mm_per_px = float(np.linalg.norm(corners_cm[1] - corners_cm[0]) * 10 / side)
            box = (int(x0), int(y0), int(x1), int(y1))
            self._patches.append(
                _Patch(marker_id, box, scale, mm_per_px, self._patch(reference_image, box, scale))
            )
        self._window = {
            p.marker_id: cv2.createHanningWindow(p.reference.shape[::-1], cv2.CV_32F) for p in self._patches
        }

    @staticmethod
    def _patch(image: np.ndarray, box: tuple[int, int, int, int], scale: float) -> np.ndarray:
        x0, y0, x1, y1 = box
        roi = image[y0:y1, x0:x1]
        if roi.ndim == 3:
            roi = cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY)
        if scale < 1.0:
            roi = cv2.resize(roi, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        return roi.astype(np.float32)

    def check(self, frame: np.ndarray) -> DriftReport:
        """Has the camera (or the table) moved since the reference frame?"""
        if frame.shape[1::-1] != tuple(self.calibration.image_size):
            return DriftReport(
                True, float("inf"), float("inf"), "the frame size differs from the calibration's", 0
            )
        moved: dict[int, float] = {}
        still: dict[int, float] = {}
        mm_per_px: dict[int, float] = {}
        for patch in self._patches:
            current = self._patch(frame, patch.box, patch.scale)
            if float(current.std()) < MIN_SPREAD:
                continue
            # A copy: OpenCV multiplies its inputs by the window in place, and the reference
            # decayed by it at every check (5 px of "shift" of a still table after 100 frames).
            reference = patch.reference.copy()
            (dx, dy), response = cv2.phaseCorrelate(reference, current, self._window[patch.marker_id])
            if response < MIN_RESPONSE:
                continue
            shift = float(np.hypot(dx, dy) / patch.scale)
            mm_per_px[patch.marker_id] = patch.mm_per_px
            (moved if shift > self.shift_px else still)[patch.marker_id] = shift
        return self._verdict(moved, still, mm_per_px)

    def _verdict(
        self, moved: dict[int, float], still: dict[int, float], mm_per_px: dict[int, float]
    ) -> DriftReport:
        voting = len(moved) + len(still)
        hidden = len(self._patches) - voting
        if voting == 0:
            return DriftReport(
                True,
                float("nan"),
                float("nan"),
                "no marker looks like it did at calibration (covered, or the camera moved far)",
                0,
            )
        shifts = {**moved, **still}
        shift = float(np.median(list(shifts.values())))
        shift_mm = float(np.median([shifts[i] * mm_per_px[i] for i in shifts]))
        note = f"; {hidden} marker(s) hidden" if hidden else ""
        if len(moved) >= 2 and len(moved) * 2 > voting:
            ids = ", ".join(map(str, sorted(moved)))
            return DriftReport(
                True, shift, shift_mm, f"markers {ids} shifted by ~{shift:.1f} px: camera moved{note}", voting
            )
        if moved and len(moved) + hidden > len(still):
            # A knock of a few degrees throws most patches out of recognition; the one that still
            # matches shifted, so "camera moved" explains more markers than "marker nudged" does.
            ids = ", ".join(map(str, sorted(moved)))
            return DriftReport(
                True, shift, shift_mm,
                f"marker(s) {ids} shifted, the rest unrecognisable: camera moved{note}", voting,
            )
        if moved:
            ids = ", ".join(map(str, sorted(moved)))
            return DriftReport(
                False, shift, shift_mm, f"only marker(s) {ids} shifted: marker moved or covered{note}", voting
            )
        return DriftReport(False, shift, shift_mm, f"steady{note}", voting)
