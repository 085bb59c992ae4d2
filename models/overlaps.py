"""One base to a place: bases may touch, never overlap, so of overlapping rims one stands.

The rims contend after the verifier and the second looks have scored them; accepted rims win
their places best first, then faint ones fill what gaps are left.
"""

from __future__ import annotations

import numpy as np


def non_overlapping(overlap: np.ndarray, score: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Best-first: a base may touch its neighbours but never overlap them.

    A circle overlapping two or more accepted rims that fit side by side loses to them when
    together they score more: in a squad of touching 32 mm bases a 65 mm circle through their
    outer rims, or a 32 mm circle in the gap between three of them, gathers real rim edges
    and can outscore each single base it covers, but not the bases together.
    """
    order = [int(i) for i in np.argsort(-score, kind="stable") if keep[i]]
    blocked = np.zeros(len(score), bool)
    chosen: list[int] = []
    for i in order:
        if blocked[i]:
            continue
        side_by_side: list[int] = []
        for j in order:
            if overlap[i, j] and not blocked[j] and not overlap[j, side_by_side].any():
                side_by_side.append(j)
        if len(side_by_side) >= 2 and score[side_by_side].sum() > score[i]:
            blocked[i] = True
            continue
        chosen.append(i)
        blocked |= overlap[i]
        blocked[i] = True
    return np.array(chosen, dtype=np.int64)


def overlaps(centres: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Which circles overlap one another (`circles_overlap`)."""
    dist = np.linalg.norm(centres[:, None] - centres[None], axis=-1)
    pairs = circles_overlap(dist, radius[:, None], radius[None])
    np.fill_diagonal(pairs, False)
    return pairs


def circles_overlap(dist: np.ndarray, radius: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Whether circles this far apart overlap (touching, with a quarter radius of slack for the
    fit, is not)."""
    return dist <= radius + other - 0.25 * np.minimum(radius, other)


def in_the_gaps(overlap: np.ndarray, score: np.ndarray, faint: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Faint rims, best first, where neither an accepted base nor a better faint one stands."""
    taken = list(chosen)
    out: list[int] = []
    for i in np.argsort(-score, kind="stable"):
        if faint[i] and not overlap[i, taken].any():
            taken.append(int(i))
            out.append(int(i))
    return np.array(out, dtype=np.int64)
