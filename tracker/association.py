"""Which detection is which known piece, after the hands have left.

One Hungarian assignment (scipy `linear_sum_assignment`) on a combined cost:

- distance, as a fraction of the piece's move allowance and *squared*, so a group moved
  together keeps its order (for a rigid shift the identity mapping minimises the sum of squares);
  a piece that stayed put costs nearly nothing;
- appearance (colour histogram of the top-down crop): decides between two models that swapped
  places in one hand move, where distance alone would keep the ids on the positions. Only
  the part above `appearance_floor` counts: below it, two crops differ no more than one model
  differs from itself after being picked up and put down, and distance should decide;
- unit membership: a unit's members that moved are re-matched against the unit's common shift;
- hard gates: a different size class, farther than the allowance (with slack for a sloppy
  placement), or nothing alike (a bare patch of mat where the detector saw a phantom base)
  can never match. A piece left without a match is gone, never swapped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from tracker.appearance import appearance_distance

INFEASIBLE = 1e6


@dataclass(frozen=True)
class Weights:
    """How much each clue counts; the defaults were tuned on benchmarks/tracking.py."""

    distance: float = 3.0
    appearance: float = 2.0
    appearance_floor: float = 0.15
    appearance_gate: float = 0.75
    heading: float = 0.3
    allowance_slack: float = 1.25
    slack_cm: float = 3.0
    max_cost: float = 5.0


def assign(cost: np.ndarray, max_cost: float) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Minimum-cost one-to-one matching where leaving a row or a column unmatched costs
    `max_cost`: so a far-off phantom detection can never pull a piece off its own match just
    because a plain rectangular assignment must use every column."""
    rows, cols = cost.shape
    if rows == 0 or cols == 0:
        return [], list(range(rows)), list(range(cols))
    big = INFEASIBLE
    padded = np.full((rows + cols, cols + rows), big)
    padded[:rows, :cols] = np.where(cost <= max_cost, cost, big)
    padded[:rows, cols:] = np.where(np.eye(rows, dtype=bool), max_cost, big)
    padded[rows:, :cols] = np.where(np.eye(cols, dtype=bool), max_cost, big)
    padded[rows:, cols:] = 0.0
    r, c = linear_sum_assignment(padded)
    pairs = [(int(i), int(j)) for i, j in zip(r, c, strict=True)
             if i < rows and j < cols and padded[i, j] < big]
    matched_rows = {i for i, _ in pairs}
    matched_cols = {j for _, j in pairs}
    return (pairs, [i for i in range(rows) if i not in matched_rows],
            [j for j in range(cols) if j not in matched_cols])


def match_cost(old_xy: np.ndarray, new_xy: np.ndarray, allowance_cm: np.ndarray,
               old_appearance: list[np.ndarray | None], new_appearance: list[np.ndarray | None],
               same_class: np.ndarray, weights: Weights, shift_cm: np.ndarray | None = None) -> np.ndarray:
    """(tracks x detections) cost; `shift_cm` (tracks x 2) is each track's expected group shift."""
    delta = new_xy[None, :, :] - old_xy[:, None, :]
    distance = np.linalg.norm(delta, axis=2)
    if shift_cm is not None:
        distance = np.minimum(distance, np.linalg.norm(delta - shift_cm[:, None, :], axis=2))
    reach = allowance_cm[:, None] * weights.allowance_slack + weights.slack_cm
    cost = weights.distance * (distance / reach) ** 2
    for i, a in enumerate(old_appearance):
        for j, b in enumerate(new_appearance):
            if a is not None and b is not None:
                seen = appearance_distance(a, b)
                cost[i, j] += weights.appearance * max(seen - weights.appearance_floor, 0.0)
                if seen > weights.appearance_gate:
                    cost[i, j] = INFEASIBLE
    cost[~same_class] = INFEASIBLE
    cost[np.linalg.norm(delta, axis=2) > reach] = INFEASIBLE
    return cost


def heading_cost(old_deg: np.ndarray, new_deg: np.ndarray) -> np.ndarray:
    """A hull looks the same front and back, so headings are compared modulo 180 degrees."""
    diff = np.abs((new_deg[None, :] - old_deg[:, None] + 90.0) % 180.0 - 90.0)
    return diff / 90.0


def group_shifts(old_xy: np.ndarray, new_xy: np.ndarray, pairs: list[tuple[int, int]],
                 groups: list[str | None]) -> np.ndarray:
    """Each track's unit's median displacement among its members matched in a first pass."""
    shifts = np.zeros_like(old_xy)
    by_group: dict[str, list[np.ndarray]] = {}
    for i, j in pairs:
        if groups[i] is not None:
            by_group.setdefault(groups[i], []).append(new_xy[j] - old_xy[i])
    for i, group in enumerate(groups):
        if group in by_group:
            shifts[i] = np.median(np.array(by_group[group]), axis=0)
    return shifts
