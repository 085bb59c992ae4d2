"""How detections are judged against synthetic truth (the benchmark and the tests share it).

A base counts for recall when at least half its rim is visible; a detection of a base that is
more hidden than that is neither credited nor punished. A match is the nearest truth within
half a radius, one to one (Hungarian), so a detection between two bases cannot count twice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from models.detections import Bases, Vehicles
from models.synth.specs import Truth

MIN_RIM_VISIBLE = 0.5


@dataclass
class BaseScore:
    required: int
    found: int  # required bases matched
    detections: int
    false: int  # detections matching no base at all
    size_right: int
    errors_mm: np.ndarray  # centre errors of matched required bases
    offsets_mm: np.ndarray  # (n, 2) the same as vectors, found minus true, along the table's axes
    matched_truth: np.ndarray  # which truth base each of those errors belongs to


@dataclass
class VehicleScore:
    required: int
    matched: int
    good: int  # within 5 mm and 2 deg (heading modulo 180: a hull's axis)
    centre_mm: np.ndarray
    heading_deg: np.ndarray  # modulo 180
    detections: int
    false: int  # detections near no vehicle at all
    front_right: int  # matched ones whose heading is also right modulo 360 (within 90 deg)


def score_bases(found: Bases, truth: Truth) -> BaseScore:
    t_xy = truth.base_xy_cm()
    t_d = np.array([b.diameter_mm for b in truth.bases])
    visible = np.array([b.rim_visible for b in truth.bases]) >= MIN_RIM_VISIBLE
    if len(found) and len(t_xy):
        dist = np.linalg.norm(found.xy_cm[:, None] - t_xy[None], axis=-1)
        cost = np.where(dist < (t_d[None] / 40), dist, 1e6)
        rows, cols = linear_sum_assignment(cost)
        ok = cost[rows, cols] < 1e6
        rows, cols = rows[ok], cols[ok]
    else:
        rows = cols = np.zeros(0, np.int64)
    req = visible[cols]
    offsets = (found.xy_cm[rows[req]] - t_xy[cols[req]]).reshape(-1, 2) * 10
    return BaseScore(
        required=int(visible.sum()),
        found=int(req.sum()),
        detections=len(found),
        false=len(found) - len(rows),
        size_right=int(np.sum(found.diameter_mm[rows[req]] == t_d[cols[req]])),
        errors_mm=np.linalg.norm(offsets, axis=1),
        offsets_mm=offsets,
        matched_truth=cols[req],
    )


def offsets_along(offsets_mm: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """Each centre's offset along its direction in `directions` (any length, or one for all).

    Averaged, a detector's noise cancels and its bias stays: along the light, where each base
    throws its shadow, a rim fit that takes the shadow's edge for the rim lands on the shadow
    side; away from the camera's nadir, one that takes the top rim for the bottom lands outward.
    """
    directions = np.broadcast_to(np.asarray(directions, dtype=np.float64), offsets_mm.shape)
    unit = directions / np.maximum(np.linalg.norm(directions, axis=1, keepdims=True), 1e-12)
    return np.sum(offsets_mm * unit, axis=1)


def score_vehicles(found: Vehicles, truth: Truth) -> VehicleScore:
    """A vehicle counts when at least half its footprint's outline is visible; a detection near
    a more hidden one is neither credited nor false."""
    required = [v for v in truth.vehicles if v.visible >= MIN_RIM_VISIBLE]
    centre, heading, front = [], [], 0
    for v in required:
        if not len(found):
            break
        d = np.linalg.norm(found.xy_cm - [v.x_cm, v.y_cm], axis=1)
        i = int(np.argmin(d))
        if d[i] < _reach_cm(v):
            centre.append(d[i] * 10)
            diff = (found.heading_deg[i] - v.heading_deg) % 180
            heading.append(min(diff, 180 - diff))
            front += abs((found.heading_deg[i] - v.heading_deg + 180) % 360 - 180) < 90
    near_any = np.zeros(len(found), bool)
    for v in truth.vehicles:
        near_any |= np.linalg.norm(found.xy_cm - [v.x_cm, v.y_cm], axis=1) < _reach_cm(v)
    c, h = np.array(centre), np.array(heading)
    return VehicleScore(
        len(required), len(c), int(np.sum((c <= 5) & (h <= 2))), c, h,
        detections=len(found), false=int(np.sum(~near_any)), front_right=int(front),
    )


def _reach_cm(v) -> float:
    return max(3.0, v.width_cm / 2)
