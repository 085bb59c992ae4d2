"""Which detection is which known piece, after the hands have left.

One Hungarian assignment (scipy `linear_sum_assignment`) on a combined cost:

- distance, as a fraction of the piece's move allowance and *squared*, so a group moved
  together keeps its order (for a rigid shift the identity mapping minimises the sum of squares);
  a piece that stayed put costs nearly nothing;
- appearance (colour histogram and lightness of the top-down crop, `tracker.appearance`):
  decides between two models that swapped places in one hand move, where distance alone would
  keep the ids on the positions. Only the part above `appearance_floor` and
  `lightness_floor` counts: below them, two crops differ no more than one model differs from
  itself after being picked up and put down, and distance should decide. The lightness's
  share is capped at `lightness_cap`: a model carried into a building's shadow darkens far
  more than two shades of one paint differ, and is still the same model;
- a rigid move: pieces lifted together are set down as they stood, so the displacement most
  of a unit's pieces share (or of the unit-less pieces') is found by its support (how many
  pieces it carries onto a detection), not from a first matching, and a piece matched along
  it costs by its residual against the sloppiness of a placement. A block wheeled as one
  (turned on its tray) shares no one displacement: its move is read as a shift and a turn. A
  squad moved along its own line with one piece unseen kept its order only by squared
  distance, which prefers shorter moves: every track slid one place along. Each distinct
  move a reading makes costs `rigid_shift`, or a squad read as two moves a spacing apart,
  each carrying part of it, tied with the one move it made (identically painted, noise chose);
- a move the picture did not see costs `unseen_move`: from a spot that looks as it did at the last
  detection, or onto a detection where nothing changed (`Tracker._unseen_moves`): the piece
  there is one the detector missed, or one the first look missed;
- hard gates: a different size class, farther than the allowance (with slack for a sloppy
  placement), or nothing alike (a bare patch of mat where the detector saw a phantom base)
  can never match, nor a base seen at the last detection one off its spot whose own spot is
  wholly as it was (nothing was put there). A piece left without a match is gone, never swapped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from tracker.appearance import Look, colour_distance, lightness_difference

INFEASIBLE = 1e6


@dataclass(frozen=True)
class Weights:
    """How much each clue counts; the defaults were tuned on benchmarks/tracking.py."""

    distance: float = 3.0
    appearance: float = 2.0
    appearance_floor: float = 0.15
    appearance_gate: float = 0.75
    lightness: float = 40.0
    lightness_floor: float = 0.04
    lightness_cap: float = 1.0
    heading: float = 0.3
    unseen_move: float = 1.0
    allowance_slack: float = 1.25
    slack_cm: float = 3.0
    max_cost: float = 5.0
    rigid_cm: float = 1.5
    rigid_members: int = 2
    rigid_readings: int = 4
    rigid_neighbour_cm: float = 6.0
    rigid_shift: float = 0.3
    wheel_members: int = 3
    wheel_deg: tuple[float, float] = (2.0, 30.0)
    wheel_fits: int = 3
    wheel_gap_cm: float = 0.2
    wheel_mate_cm: float = 8.0

    @property
    def as_itself(self) -> float:
        """How far a look may read from a piece's own and still be that piece painted as itself,
        where the pictures alone must say so (moved between stills, back after being retired,
        exchanged with another): a model against its own look after a move reads at most 0.19,
        another paint on the same base top 0.53 or more."""
        return 2 * self.appearance_floor

    def reach_cm(self, allowance_cm: np.ndarray) -> np.ndarray:
        """How far from where it stood a piece allowed `allowance_cm` may be found: its move with
        slack for a generous hand, and a few centimetres more."""
        return allowance_cm * self.allowance_slack + self.slack_cm


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
               old_appearance: list[Look | None], new_appearance: list[Look | None],
               same_class: np.ndarray, weights: Weights, shift_cm: np.ndarray | None = None) -> np.ndarray:
    """(tracks x detections) cost; `shift_cm` (tracks x 2) is each track's rigid move, zero
    for none: a detection along it costs by the residual as a share of `slack_cm`, or as any
    other by its distance as a share of the allowance, whichever is less."""
    delta = new_xy[None, :, :] - old_xy[:, None, :]
    distance = np.linalg.norm(delta, axis=2)
    reach = weights.reach_cm(allowance_cm)[:, None]
    cost = weights.distance * (distance / reach) ** 2
    if shift_cm is not None:
        residual = np.linalg.norm(delta - shift_cm[:, None, :], axis=2)
        rigid = np.linalg.norm(shift_cm, axis=1) > 0
        cost[rigid] = np.minimum(cost[rigid], weights.distance * (residual[rigid] / weights.slack_cm) ** 2)
    cost += appearance_cost(old_appearance, new_appearance, weights)
    cost[~same_class] = INFEASIBLE
    cost[np.linalg.norm(delta, axis=2) > reach] = INFEASIBLE
    return cost


def appearance_cost(old_appearance: list[Look | None], new_appearance: list[Look | None],
                    weights: Weights) -> np.ndarray:
    """(tracks x detections) cost of the looks alone: 0 where they differ no more than a model
    differs from itself, INFEASIBLE where nothing is alike."""
    cost = np.zeros((len(old_appearance), len(new_appearance)))
    for i, a in enumerate(old_appearance):
        for j, b in enumerate(new_appearance):
            if a is not None and b is not None:
                seen = colour_distance(a, b)
                shade = weights.lightness * max(lightness_difference(a, b) - weights.lightness_floor, 0.0)
                cost[i, j] = (INFEASIBLE if seen > weights.appearance_gate else
                              weights.appearance * max(seen - weights.appearance_floor, 0.0)
                              + min(shade, weights.lightness_cap))
    return cost


def kept_on_their_spots(old_xy: np.ndarray, new_xy: np.ndarray, cost: np.ndarray,
                        pairs: list[tuple[int, int]], lost: list[int], max_cost: float,
                        alike: Callable[[int, int], bool], spot_cm: float,
                        rigid_cm: float) -> tuple[list[tuple[int, int]], list[int]]:
    """A piece with a detection on its own spot (within `spot_cm`) keeps it, against a move
    the looks do not confirm. The assignment weighs looks against distance and counts no
    changes, so a look that a card's edge partly covered, more like a squad-mate's than its
    own, moved pieces onto each other's spots (a blind check's card sequence: the mate the card
    hid took the partly covered base's id, and when the card went, the base took the mate's).
    Two readings are undone, each a piece moved alone (no other matched piece moved by the same
    step), its look not as the same model's at its end:
    - it came from a spot now empty onto the spot of a piece left without a match: one piece
      unseen, not one carried onto another's very spot while that one vanished;
    - it left its spot while a detection there went unclaimed: it stayed, and the far one is
      another piece (one found again, or new).
    A mover whose look matches as the same model is believed: a neighbour moved into a
    casualty's place."""
    pairs, lost = list(pairs), list(lost)
    claimed = {j for _, j in pairs}

    def alone(k: int) -> bool:
        i, j = pairs[k]
        step = new_xy[j] - old_xy[i]
        return (np.linalg.norm(step) > spot_cm and not alike(i, j)
                and all(np.linalg.norm(new_xy[b] - old_xy[a] - step) > rigid_cm for a, b in pairs if a != i))

    on_spot = np.linalg.norm(new_xy[None, :, :] - old_xy[:, None, :], axis=2) <= spot_cm
    for k in range(len(pairs)):
        i, _ = pairs[k]
        own = [j for j in np.flatnonzero(on_spot[i]) if j not in claimed and cost[i, j] <= max_cost]
        if own and alone(k):
            claimed.discard(pairs[k][1])
            pairs[k] = (i, int(own[0]))
            claimed.add(int(own[0]))
    for t in list(lost):
        for k, (s, j) in enumerate(pairs):
            if on_spot[t, j] and cost[t, j] <= max_cost and not on_spot[s].any() and alone(k):
                pairs[k] = (t, j)
                lost[lost.index(t)] = s
                break
    return pairs, lost


def heading_cost(old_deg: np.ndarray, new_deg: np.ndarray) -> np.ndarray:
    """A hull looks the same front and back, so headings are compared modulo 180 degrees."""
    diff = np.abs((new_deg[None, :] - old_deg[:, None] + 90.0) % 180.0 - 90.0)
    return diff / 90.0


@dataclass(frozen=True)
class Reading:
    """One way to read the moves as rigid ones: every track's rigid move (tracks x 2, zero for
    none), and how many distinct moves that makes (each costs `rigid_shift`)."""

    shift_cm: np.ndarray
    moves: int


def rigid_readings(old_xy: np.ndarray, new_xy: np.ndarray, groups: list[str | None],
                   reach_cm: np.ndarray, weights: Weights) -> list[Reading]:
    """The ways to read the moves as rigid ones (each a shift, or a shift and a turn: `_wheeled`).

    Within each group (a unit, or all tracks of no unit) the displacement that carries the
    most of the group's tracks, at least `rigid_members`, each onto a detection within
    `rigid_cm`, is the group's move; its members are taken out and the rest searched again.
    Every displacement from a track to a detection within its reach is tried: a squad a hand
    rested on is carried onto itself by standing still, one place along onto all but one.
    Each displacement carrying that many is a reading of its own, up to `rigid_readings`, the
    best carried first: the matching's whole cost (appearance, what is left over) chooses.
    Pieces best read as standing still are read so alone (a table of squads under a resting
    hand would otherwise branch on every one).
    Part of a grid moved with pieces the first look missed fits a move one spacing short
    that carries one more (a piece left standing lands on a moved one's place); a line moved
    along itself with an end piece unseen fits two moves a spacing apart, and with nothing
    to tell them apart the shorter wins, the prior that a player moves no further than he
    means to.
    """
    if not len(new_xy):
        return []
    tree = cKDTree(new_xy)
    in_group = [np.array([g == key for g in groups]) for key in dict.fromkeys(groups)]
    readings: list[Reading] = []
    pending = [(np.zeros_like(old_xy), np.ones(len(old_xy), bool), 0)]
    while pending and len(readings) < weights.rigid_readings:
        shifts, unread, moves = pending.pop()
        split = _next_moves(old_xy, new_xy, in_group, reach_cm, weights, tree, unread)
        if split is None:
            if shifts.any():
                readings.append(Reading(shifts, moves))
            continue
        if np.linalg.norm(split[0][0], axis=1).max() <= weights.rigid_cm:
            split = split[:1]  # pieces standing where they stood: no other reading of them
        # Depth first, the best move on top: a reading is finished group by group, where taking
        # every group's alternatives first grew the queue fourfold a group before any reading was
        # done (8 look-alike units on a lattice: 5,500 searches, 7.6 s, for the same 4 readings).
        for steps, members in reversed(split):
            branch, left = shifts.copy(), unread.copy()
            branch[members], left[members] = steps, False
            pending.append((branch, left, moves + int(steps.any())))
    return readings


Moves = list[tuple[np.ndarray, np.ndarray]]


def _next_moves(old_xy: np.ndarray, new_xy: np.ndarray, in_group: list[np.ndarray], reach_cm: np.ndarray,
                weights: Weights, tree: cKDTree, unread: np.ndarray) -> Moves | None:
    """The first group's moves carrying at least `rigid_members` of the tracks not yet read,
    each as its members' steps and the tracks it carries, the most carried first (then the
    least spread, then the shortest); None when no group has one. A group best read as
    standing still is read so at once; a moved group's displacements are taken as turns where
    a turn carries as many and fits closer (`_wheeled`), and turns read off pairs of pieces are
    added where they carry more (`_paired_turns`)."""
    for members in in_group:
        idx = np.flatnonzero(unread & members)
        if len(idx) < weights.rigid_members:
            continue
        old = old_xy[idx]
        delta = new_xy[None, :, :] - old[:, None, :]
        within = np.linalg.norm(delta, axis=2) <= reach_cm[idx][:, None]
        tried = np.vstack([np.zeros((1, 2)), delta[within]])
        fields = np.repeat(tried[:, None, :], len(idx), axis=1)
        gap, _ = tree.query(old[None, :, :] + fields)
        carried, support, missed = _carried(gap, weights)
        if support.max() < weights.rigid_members:
            continue
        length = np.linalg.norm(tried, axis=1)
        best = np.lexsort((length, np.round(missed, 1), -support))[0]
        moved = length[best] > weights.rigid_cm
        if moved:
            # Moved, not standing: turns are tried. A shift that sets its pieces down to the
            # detector's jitter is no turn: only one whose carried pieces miss by more on
            # average is tried as one.
            loose = missed > weights.wheel_gap_cm * support
            for b in np.flatnonzero((support >= weights.wheel_members) & (length > weights.rigid_cm) & loose):
                fields[b], gap[b] = _wheeled(old, tree, fields[b], gap[b], weights)
            carried, support, missed = _carried(gap, weights)
            length = np.linalg.norm(fields, axis=2).mean(axis=1)
        if moved or (support[best] < len(idx) and gap[best, carried[best]].max() > weights.wheel_gap_cm):
            # Turns read off pairs too, also where standing carries only part of the group, some
            # of it off its spot: a block wheeled 15 degrees and carried 5 cm along its rows
            # lands half near its old spots, and standing still carried more of it than any shift.
            paired, paired_gap = _paired_turns(old, tree, within, ~carried[best], int(support.max()), weights)
            if len(paired):
                fields, gap = np.concatenate([fields, paired]), np.concatenate([gap, paired_gap])
                length = np.concatenate([length, np.linalg.norm(paired, axis=2).mean(axis=1)])
                carried, support, missed = _carried(gap, weights)
        moves: Moves = []
        kept: list[np.ndarray] = []
        for b in np.lexsort((length, np.round(missed, 1), -support)):
            if support[b] < weights.rigid_members or len(moves) == weights.rigid_readings:
                break
            if all(np.linalg.norm(fields[b] - other, axis=1).max() > weights.rigid_cm for other in kept):
                kept.append(fields[b])
                moves.append((fields[b][carried[b]], idx[carried[b]]))
        return moves
    return None


def _carried(gap: np.ndarray, weights: Weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each tried move (a row of `gap`, each track's miss): the tracks it carries onto a
    detection within `rigid_cm`, how many, and by how much they miss in all."""
    carried = gap <= weights.rigid_cm
    return carried, np.count_nonzero(carried, axis=1), np.where(carried, gap, 0.0).sum(axis=1)


def _wheeled(old: np.ndarray, tree: cKDTree, field: np.ndarray, gap: np.ndarray,
             weights: Weights) -> tuple[np.ndarray, np.ndarray]:
    """A displacement `field` turned where a turn carries as many of the group or more: the
    rigid motion (a turn and a shift, Kabsch's least squares) that best sets the carried tracks
    on their detections, fitted again on what it carries while that grows. Only a turn within
    `wheel_deg` is taken: under 2 degrees a block's steps differ by the detector's jitter, and
    a shift carries it as well. The steps and each track's gap to its nearest detection.

    A block of look-alikes wheeled as one (a regiment turned 10 degrees on its tray) moves
    each piece by a step that differs across the block by a centimetre: no single
    displacement carries it whole, while one a spacing short carries most of each row
    exactly, and its ids passed along the rows. Three carried tracks at least are fitted; a
    pair fits any turn."""
    low, high = weights.wheel_deg
    for _ in range(weights.wheel_fits):
        carried = gap <= weights.rigid_cm
        if np.count_nonzero(carried) < weights.wheel_members:
            break
        _, near = tree.query(old[carried] + field[carried])
        angle, turn, shift = _rigid_fit(old[carried], tree.data[near])
        if not low <= abs(np.degrees(angle)) <= high:
            break
        fitted = old @ turn.T + shift - old
        fitted_gap, _ = tree.query(old + fitted)
        more = np.count_nonzero(fitted_gap <= weights.rigid_cm) - np.count_nonzero(carried)
        if more < 0:
            break
        field, gap = fitted, fitted_gap
        if more == 0:
            break
    return field, gap


def _paired_turns(old: np.ndarray, tree: cKDTree, within: np.ndarray, unexplained: np.ndarray,
                  carried: int, weights: Weights) -> tuple[np.ndarray, np.ndarray]:
    """Turns read off pairs, for blocks wheeled too far for any shift to carry (`_wheeled`).

    Wheeled 15-25 degrees, a block of 10-16 moves its far corners by steps up to 4 cm apart:
    a shift carries only a band of it, often a spacing off, and the turn fitted to that band
    was wrong, so the ids slid along the rows. A pair of pieces keeps its length in any rigid
    move, so each tried step of a track (onto a detection within its reach, `within`) is paired
    with its nearest group-mate (within `wheel_mate_cm`) and every detection as far from the
    step's end: the two give one turn and shift, kept within `wheel_deg`, and scored by how
    many of the group it carries. The best few distinct ones carrying more than the shifts
    and their turns do (`carried`) are fitted again on what they carry (`_wheeled`). Not as
    many: a squad set down sloppily fits a turn a little closer than its shift, and where a
    reading one spacing off cost nearly as little, that tipped it (10 ids in a fuzz of sloppy
    moves). A shift, or a lattice of look-alikes standing or shifted, gives turns of 0 or
    45-90 degrees here and adds nothing. The turns' steps and each track's gap, as `_wheeled`."""
    n = len(old)
    nothing = np.zeros((0, n, 2)), np.zeros((0, n))
    if n < weights.wheel_members:
        return nothing
    mates = cKDTree(old)
    spacing, mate = mates.query(old, k=2, distance_upper_bound=weights.wheel_mate_cm)
    # A block wheeled as one stood as one: a turn carries only the anchor's block, pieces linked by
    # mates within `wheel_mate_cm`, where one about a far pivot set bits of every squad down on a
    # detection of a table whose squads were all moved loosely (24 ids in a fuzz of sloppy moves).
    linked = mates.sparse_distance_matrix(mates, weights.wheel_mate_cm, output_type="coo_matrix")
    _, block = connected_components(linked, directed=False)
    paired = np.isfinite(spacing[:, 1]) & (spacing[:, 1] > 0)  # two tracks on one spot give no arm
    # Anchored only on the tracks the best reading leaves where they were not (`unexplained`):
    # a turn that carries more carries some of them, and any piece of a rigid block anchors the
    # same turn; anchored on every track, a table of 144 look-alikes set down loosely took twice
    # as long to read.
    track, anchor = np.nonzero(within & (paired & unexplained)[:, None])
    if not len(track):
        return nothing
    # Each track's arm to its mate as a complex number, so that a turn is a product (a track with
    # no mate is no anchor, whatever its arm).
    arm = old[np.minimum(mate[:, 1], n - 1)] - old
    arm, span = arm[:, 0] + 1j * arm[:, 1], spacing[:, 1]
    # Every detection's neighbours as far as a mate may be, once; each tried step takes its end's.
    near = tree.query_pairs(span[paired].max() + weights.rigid_cm, output_type="ndarray")
    near = np.vstack([near, near[:, ::-1]])
    near = near[np.argsort(near[:, 0], kind="stable")]
    count = np.bincount(near[:, 0], minlength=len(tree.data))[anchor]
    step = np.repeat(np.arange(len(track)), count)
    offset = np.arange(len(step)) - np.repeat(np.cumsum(count) - count, count)
    first = np.searchsorted(near[:, 0], anchor)
    track, ends = track[step], tree.data[anchor[step]]
    toward = tree.data[near[first[step] + offset, 1]] - ends
    toward = toward[:, 0] + 1j * toward[:, 1]
    spin = toward / arm[track]
    turn = np.abs(np.angle(spin, deg=True))
    low, high = weights.wheel_deg
    keep = (np.abs(np.abs(toward) - span[track]) <= weights.rigid_cm) & (turn >= low) & (turn <= high)
    track, ends, spin = track[keep], ends[keep], spin[keep] / np.abs(spin[keep])
    if not len(track):
        return nothing
    arms = (old[:, 0] + 1j * old[:, 1])[None, :] - (old[track, 0] + 1j * old[track, 1])[:, None]
    turned = spin[:, None] * arms
    fields = ends[:, None, :] + np.stack([turned.real, turned.imag], axis=2) - old[None, :, :]
    gap, _ = tree.query(old[None, :, :] + fields)
    outside = block[None, :] != block[track][:, None]
    gap[outside] = np.inf
    _, support, missed = _carried(gap, weights)
    best: list[int] = []
    for b in np.lexsort((np.round(missed, 1), -support)):
        if support[b] < max(weights.wheel_members, carried + 1) or len(best) == weights.rigid_readings:
            break
        if all(np.linalg.norm(fields[b] - fields[k], axis=1).max() > weights.rigid_cm for k in best):
            best.append(int(b))
    for b in best:
        fields[b], gap[b] = _wheeled(old, tree, fields[b], gap[b], weights)
        gap[b, outside[b]] = np.inf
    return fields[best], gap[best]


def _rigid_fit(source: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The turn (its angle in radians and its matrix) and shift that take `source` points nearest
    to `target` (least squares, no mirror): scipy's Rotation.align_vectors does this in 3D; in
    the plane it is two lines."""
    a, b = source - source.mean(axis=0), target - target.mean(axis=0)
    angle = np.arctan2(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]), np.sum(a * b))
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return float(angle), turn, target.mean(axis=0) - source.mean(axis=0) @ turn.T


def exchanged(old_xy: np.ndarray, new_xy: np.ndarray, pairs: list[tuple[int, int]],
              looks_apart: Callable[[int, int], float | None], same_class: np.ndarray, spot_cm: float,
              bound: float, reach_cm: np.ndarray) -> list[tuple[int, int]]:
    """Two pieces each matched on its own spot, each painted unlike itself there and like the
    other: a player swapped them. Distance outweighed the looks across 25 cm (a blind check:
    two reds 0.41-0.49 apart in colour, each 0.05-0.12 from its own look at the other's spot,
    kept the ids on the spots: 2 identity switches). Look-alikes, which no look tells apart,
    are left on the spots."""
    pairs = list(pairs)
    stayed = [k for k, (i, j) in enumerate(pairs) if np.linalg.norm(new_xy[j] - old_xy[i]) <= spot_cm]
    done: set[int] = set()
    for x in stayed:
        for y in stayed:
            if x >= y or x in done or y in done:
                continue
            (i, j), (k, m) = pairs[x], pairs[y]
            own, other = (looks_apart(i, j), looks_apart(k, m)), (looks_apart(i, m), looks_apart(k, j))
            if None in own or None in other or not (same_class[i, m] and same_class[k, j]):
                continue
            near = np.linalg.norm(old_xy[i] - old_xy[k]) <= min(reach_cm[i], reach_cm[k])
            if near and min(own) > bound and max(other) <= bound:
                pairs[x], pairs[y] = (i, m), (k, j)
                done |= {x, y}
    return pairs
