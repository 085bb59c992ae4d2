"""Identities through hands: every model and vehicle keeps one track id for the whole game.

The pipeline calls `hold()` on every unsettled frame (hands over the table) and `update()`
with fresh detections once the scene has settled. Nothing moves while unsettled, so a move is
one step from the last settled position to the next, which `association` resolves with
distance, size class, appearance, unit membership and the move allowance.

>>> from models.detections import Bases, Detections
>>> tracker = Tracker()
>>> bases = Bases(np.array([[10.0, 10.0]]), np.array([32.0]), np.array([0.9]))
>>> tracker.update(Detections(bases=bases)).added
['m1']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from models.detections import Detections
from tracker.appearance import Look, blend, colour_distance
from tracker.association import (
    INFEASIBLE,
    Reading,
    Weights,
    appearance_cost,
    assign,
    exchanged,
    heading_cost,
    kept_on_their_spots,
    match_cost,
    rigid_readings,
)
from tracker.tracks import Track, TrackChanges, spot_points

Appearance = Sequence[Look | None]
InPlay = Callable[[np.ndarray], np.ndarray]
Alike = Callable[[list[Track]], np.ndarray]
Covered = Callable[[list[Track]], np.ndarray]
# A piece retired as missing that a hand puts down within its move of where it stood, this soon,
# is that piece back: a player lifts a model off the table to weigh a move, hand out of view,
# and sets it down a few centimetres on (a blind check: a new id every time, even for the one
# red model on the table, and the old one a casualty). As long as a resting hand may hold one
# (tracker.pipeline.HELD_S); later, or elsewhere, it is a new piece (a reinforcement).
CARRIED_OFF_S = 20.0


class Tracker:
    """Tracks in table cm, held while unsettled and re-associated when the scene settles.

    `allowance_cm` and `unit_of` (by track id) are filled in by the game once models are
    assigned to units; until then every piece gets `default_allowance_cm`.
    `confirm_missing`: a piece must be missing from this many settled detections in a row
    before it is reported removed, so one missed detection never makes a casualty.
    """

    def __init__(self, weights: Weights | None = None, default_allowance_cm: float = 30.0,
                 confirm_missing: int = 2, moved_cm: float = 0.5, still_cm: float = 1.5) -> None:
        self.weights = weights or Weights()
        self.default_allowance_cm = default_allowance_cm
        self.confirm_missing = confirm_missing
        self.moved_cm = moved_cm
        self.still_cm = still_cm
        self.tracks: dict[str, Track] = {}
        self.removed: dict[str, Track] = {}
        self.allowance_cm: dict[str, float] = {}
        self.unit_of: dict[str, str] = {}
        self._counter = {"model": 0, "vehicle": 0}
        self._unhanded: InPlay | None = None
        self._relit = False
        self.candidates: dict[str, list[np.ndarray]] = {"model": [], "vehicle": []}
        self._under_hand: InPlay | None = None
        self._hand_holds = False
        self._covered: Covered | None = None
        self._put_down: InPlay | None = None
        self._now_differs: InPlay | None = None
        self._now_s: float | None = None

    def models(self) -> list[Track]:
        return [t for t in self.tracks.values() if t.kind == "model"]

    def vehicles(self) -> list[Track]:
        return [t for t in self.tracks.values() if t.kind == "vehicle"]

    def hold(self, hidden: Iterable[str]) -> None:
        """An unsettled frame: positions stay; pieces under hands or in flight are not visible,
        nor is one the last detection missed: it is no more there for a hand passing (a
        casualty missed once showed at its old place until the next detection)."""
        hidden = set(hidden)
        for track in self.tracks.values():
            track.visible = track.id not in hidden and not (track.missed or track.covered or track.under_hand)

    def place(self, track_id: str, xy_cm: Sequence[float]) -> None:
        """Put a track at a position by hand (a correction), as if it had settled there."""
        self.tracks[track_id].xy_cm = np.asarray(xy_cm, dtype=np.float64).copy()

    def update(self, detections: Detections, model_appearance: Appearance | None = None,
               vehicle_appearance: Appearance | None = None, in_play: InPlay | None = None,
               under_hand: InPlay | None = None, now_differs: InPlay | None = None,
               unhanded: InPlay | None = None, relit: bool = False, hand_holds: bool = False,
               covered: Covered | None = None, now_s: float | None = None) -> TrackChanges:
        """A settled frame's detections: re-associate, add the new, retire the gone.

        `in_play(xy_cm) -> bool array` says where the picture changed since the last detection
        (hands, moved pieces). Nothing changes on a table without a hand, so elsewhere a piece
        can neither move far, vanish nor appear: a missed or doubled detection there is the
        detector's flicker, not the game's. None: everything is in play (the first look).
        `under_hand(xy_cm)`: where a hand resting still (a player measuring) may hide pieces;
        a piece missing there is held unseen, never counted towards its removal, and nothing
        found there starts a track (a palm read as a hull was a phantom vehicle). With
        `hand_holds`, that hand may hold a piece lifted from anywhere: none missing is retired.
        `now_differs(xy_cm)`: where the picture now differs from the last detection's, not
        counting what hands covered on the way (default: `in_play`): where a piece missing
        now may have been put, so where it may be found again (see `_revive`).
        `unhanded(xy_cm)`: where no hand was over the table since the last detection (None:
        nowhere known), so where a piece can have moved only as between two stills (see
        `_moved_between_stills`) and, if `relit` (the room's light changed since), where a look
        may have changed while its piece stood still (see `_kept_in_place`).
        `covered(tracks)`: which missing tracks have something laid over them (`tracker.cover`):
        held unseen and not counted towards their removal, as under a resting hand.
        `now_s`: the frame's time in seconds, which tells a piece carried off and set down again
        (`CARRIED_OFF_S`) from a new one; None: never.
        """
        self._now_s = now_s
        self._under_hand, self._put_down, self._hand_holds = under_hand, now_differs or in_play, hand_holds
        self._covered = covered
        self._now_differs, self._unhanded, self._relit = now_differs, unhanded, relit
        changes = TrackChanges()
        # Faint bases (see Detections.faint) may keep a track, never start one.
        bases, vehicles = detections.bases_to_track(), detections.vehicles
        strong = np.arange(len(bases)) < len(detections.bases)
        model_look = list(model_appearance) if model_appearance is not None else [None] * len(bases)
        vehicle_look = list(vehicle_appearance) if vehicle_appearance is not None else [None] * len(vehicles)
        diameters = bases.diameter_mm

        def same_base(tracks: list[Track]) -> np.ndarray:
            return np.array([t.diameter_mm for t in tracks]).reshape(-1, 1) == diameters[None, :]

        def same_hull(tracks: list[Track]) -> np.ndarray:
            lengths = np.array([t.length_cm for t in tracks]).reshape(-1, 1)
            ratio = vehicles.length_cm[None, :] / np.maximum(lengths, 1e-6)
            return (ratio > 0.8) & (ratio < 1.25)

        for track, j in self._match("model", self.models(), bases.xy_cm, model_look, same_base, None, in_play,
                                    changes, strong=strong, radius_cm=bases.diameter_mm / 20.0):
            track.diameter_mm = float(bases.diameter_mm[j])
        vehicle_tracks = self.vehicles()
        extra = (self.weights.heading * heading_cost(np.array([t.heading_deg for t in vehicle_tracks]),
                                                     vehicles.heading_deg) if vehicle_tracks else None)
        for track, j in self._match("vehicle", vehicle_tracks, vehicles.xy_cm, vehicle_look, same_hull, extra,
                                    in_play, changes, headings=vehicles.heading_deg):
            track.length_cm = float(vehicles.length_cm[j])
            track.width_cm = float(vehicles.width_cm[j])
            heading = float(vehicles.heading_deg[j]) % 360.0
            # The detector reads a hull's front from a barrel's ridge that may lead by little, so
            # from one look to the next a hull standing where it stood can turn round on paper:
            # one that did not move (nor turn its axis) keeps the front it had, unless the picture
            # changed at both its ends: a player may have turned it round on the spot, which
            # changes its outline too little to see (a symmetric hull, a short barrel; a blind
            # check's 180-degree turn read as no turn at all until it was next driven).
            turned_round = abs((heading - track.heading_deg + 180.0) % 360.0 - 180.0) > 90.0
            stood = track.id not in changes.moved and track.id not in changes.added
            if stood and turned_round and not self._both_ends_changed(track, in_play):
                heading = (heading + 180.0) % 360.0
            elif stood and turned_round:
                changes.moved[track.id] = (tuple(map(float, track.xy_cm)), tuple(map(float, track.xy_cm)))
            track.heading_deg = heading
        return changes

    def _both_ends_changed(self, hull: Track, in_play: InPlay | None) -> bool:
        """Whether the picture changed since the last detection at both ends of a hull (their
        inner parts), or at its turret and one end: turned round, its barrel left one end and
        came to the other. A trooper
        set against one end changes that end only, and its figure, read as a barrel, had turned
        a tank nobody touched round on paper (a blind check: 180 -> 359.6 degrees, `moved`)."""
        if in_play is None:
            return True
        axis = np.radians(hull.heading_deg)
        along = np.array([np.cos(axis), np.sin(axis)]) * hull.length_cm * 0.35
        centre, *ends = in_play(np.array([hull.xy_cm, hull.xy_cm - along, hull.xy_cm + along]))
        # Or its turret and one end: a barrel painted as the hull leaves no change at the end it
        # left (a blind check: a tank turned round kept its old front 2 s, until it was driven).
        # Where the picture now differs would miss it: the turret turned round looks as it did.
        return bool(all(ends) or (centre and any(ends)))

    def _match(self, kind: str, tracks: list[Track], xy: np.ndarray, look: list, alike: Alike,
               extra: np.ndarray | None, in_play: InPlay | None, changes: TrackChanges,
               headings: np.ndarray | None = None, strong: np.ndarray | None = None,
               radius_cm: np.ndarray | None = None) -> list[tuple[Track, int]]:
        """Associate one kind of piece; returns (track, detection) for new and matched tracks.

        Only `strong` detections (all, if None) may start a track. `alike(tracks)`: which
        detections are of each track's size class. `radius_cm`: each detection's footprint, for
        pieces whose spot wholly changes when one is put down (bases; see `_unseen_moves`)."""
        same_size = alike(tracks)
        played = np.ones(len(tracks), bool) if in_play is None or not tracks else (
            in_play(np.array([t.xy_cm for t in tracks]))
            | np.array([t.missed > 0 or t.covered for t in tracks]))
        if tracks and len(xy):
            distance = cdist([t.xy_cm for t in tracks], xy)
            stood = self._stood_still(tracks, distance, look, same_size)
            stood &= ~self._carried_along(tracks, xy, distance, played & ~stood, stood)
            played &= ~(stood | self._kept_in_place(tracks, distance, look, same_size))
        fresh = np.ones(len(xy), bool) if in_play is None or not len(xy) else in_play(xy)
        taken: set[int] = set()
        out: list[tuple[Track, int]] = []
        untouched = [i for i in range(len(tracks)) if not played[i]]
        stayed: set[int] = set()
        if untouched and len(xy):
            old = np.array([tracks[i].xy_cm for i in untouched])
            cost = np.linalg.norm(old[:, None, :] - xy[None, :, :], axis=2)
            cost[~same_size[untouched]] = np.inf
            pairs, _, _ = assign(np.where(np.isfinite(cost), cost, 1e6), self.still_cm)
            for a, j in pairs:
                self._follow(tracks[untouched[a]], xy[j], look[j], changes, headings, j)
                out.append((tracks[untouched[a]], j))
                taken.add(j)
                stayed.add(untouched[a])
        # Where the picture is as it was, a piece is as it was: seen, or still under the hand
        # resting over it at the last detection (a forearm leant on the table for 14 s showed
        # the pieces under it all along).
        for i in untouched:
            tracks[i].visible = not tracks[i].under_hand
        moving = [i for i in range(len(tracks)) if played[i]]
        free = [j for j in range(len(xy)) if j not in taken]
        cost_extra = extra[np.ix_(moving, free)] if extra is not None and moving and free else None
        put, touched = fresh, None  # a hull's spot may stay under it as it is driven (see `_unseen_moves`)
        if radius_cm is not None and in_play is not None and len(xy):
            spots = spot_points(xy, radius_cm, 0.6).reshape(-1, 2)
            put, touched = (self._put_down(spots).reshape(-1, 5).any(axis=1),
                            in_play(spots).reshape(-1, 5).any(axis=1))
        unseen = None
        if in_play is not None and moving and free:
            on_spot = distance <= self.still_cm
            unseen = self._unseen_moves([tracks[i] for i in moving], ~on_spot[np.ix_(moving, free)],
                                        put[free], None if touched is None else touched[free],
                                        on_spot.any(axis=1)[moving], on_spot.any(axis=0)[free])
        if unseen is not None:
            cost_extra = unseen if cost_extra is None else cost_extra + unseen
        pairs, lost, shifts = self._associate([tracks[i] for i in moving], xy[free], [look[j] for j in free],
                                              same_size[np.ix_(moving, free)], cost_extra)
        went_along = self._went_along([tracks[i] for i in moving], pairs, lost, shifts)
        for a, b in pairs:
            self._follow(tracks[moving[a]], xy[free[b]], look[free[b]], changes, headings, free[b])
            out.append((tracks[moving[a]], free[b]))
            taken.add(free[b])
        matched = {moving[a] for a, _ in pairs}
        self._retire([tracks[i] for i in moving if i not in matched], changes, went_along)
        vacant = [i for i in untouched if i not in stayed]
        for track, j in self._moved_between_stills([tracks[i] for i in vacant], same_size[vacant], xy, look,
                                                   fresh & ~np.isin(np.arange(len(xy)), list(taken)), strong,
                                                   changes, headings):
            out.append((track, j))
            taken.add(j)
        seen_before, self.candidates[kind] = self.candidates[kind], []
        starting: list[int] = []
        under_hand = (self._under_hand(xy) if self._under_hand is not None and len(xy)
                      else np.zeros(len(xy), bool))
        for j in self._in_reading_order(xy, taken):
            if (strong is not None and not strong[j]) or under_hand[j]:
                continue
            if fresh[j] or self._seen_again(xy[j], seen_before):
                starting.append(j)
            elif self._clear_of_tracks(xy[j], tracks):
                self.candidates[kind].append(xy[j].copy())
        found_again = [j for j in starting if not fresh[j]]
        for track, j in self._revive(kind, xy[found_again], [look[j] for j in found_again], alike,
                                     found_again, changes, headings):
            out.append((track, j))
            starting.remove(j)
        put_back = [j for j in starting if fresh[j]]
        for track, j in self._revive(kind, xy[put_back], [look[j] for j in put_back], alike, put_back,
                                     changes, headings, on_its_spot=True):
            out.append((track, j))
            starting.remove(j)
        out += [(self._new(kind, xy[j], look[j], changes), j) for j in starting]
        return out

    def _moved_between_stills(self, tracks: list[Track], same_size: np.ndarray, xy: np.ndarray, look: list,
                              put: np.ndarray, strong: np.ndarray | None, changes: TrackChanges,
                              headings: np.ndarray | None) -> list[tuple[Track, int]]:
        """Pieces missing from their spot where the picture did not change, found where it did,
        with no hand over either since the last detection: a base lifted and set down 10 cm away
        between two stills (a folder of photos) whose gate thumbnail did not see the spot it left
        (a dark base on a dark mat, 14 levels against 18) stood there visible over an empty spot,
        and took a new id where it was put (a blind contract check: 17 ids for 12 bases over 500
        stills). A track is matched to such a detection (`put`: unclaimed, where the picture
        changed) of its size class, within its move, painted much as itself: within twice the
        colour a model differs from itself by (10 cm along, a blind check's base read 0.19 from
        its own look, 0.15 the floor), whatever its shade (the light differs across a table)."""
        if self._unhanded is None or not tracks or not put.any():
            return []
        if strong is not None:
            put = put & strong
        put_at = np.flatnonzero(put)
        columns = put_at[self._unhanded(xy[put_at])].tolist()
        rows = np.flatnonzero(self._unhanded(np.array([t.xy_cm for t in tracks])))
        if not columns or not len(rows):
            return []
        movers = [tracks[i] for i in rows]
        old_looks, new_looks = [t.appearance for t in movers], [look[j] for j in columns]
        alike = _painted_as_themselves(old_looks, new_looks, self.weights.as_itself)
        old = np.array([t.xy_cm for t in movers])
        cost = match_cost(old, xy[columns], self._allowances(movers), old_looks, new_looks,
                          same_size[np.ix_(rows, columns)] & alike, self.weights)
        pairs, _, _ = assign(cost, self.weights.max_cost)
        for a, b in pairs:
            self._follow(movers[a], xy[columns[b]], look[columns[b]], changes, headings, columns[b])
        return [(movers[a], columns[b]) for a, b in pairs]

    def _stood_still(self, tracks: list[Track], distance: np.ndarray, look: list,
                     same_size: np.ndarray) -> np.ndarray:
        """Which tracks stand where the picture has not changed since the last detection, with a
        detection as alike as the same model within `still_cm`: they stood still while the hand
        went past (a look-alike put in one's place cannot be told from it). Left in play, squared
        distance slid them along their line when a squad-mate was lifted past them: three short
        moves cost less than one long one."""
        if self._now_differs is None:
            return np.zeros(len(tracks), bool)
        near = (distance <= self.still_cm) & same_size
        # Looks only for the pairs near enough to count: all of them cost 140 ms at 200 pieces.
        rows, columns = np.nonzero(near)
        alike = np.array([appearance_cost([tracks[i].appearance], [look[j]], self.weights)[0, 0] == 0.0
                          for i, j in zip(rows, columns, strict=True)], bool)
        stood = np.zeros(len(tracks), bool)
        stood[rows[alike]] = True
        unchanged = self._spot_unchanged(tracks) & np.array([t.missed == 0 for t in tracks])
        return unchanged & stood

    def _carried_along(self, tracks: list[Track], xy: np.ndarray, distance: np.ndarray, moving: np.ndarray,
                       stood: np.ndarray) -> np.ndarray:
        """Which tracks taken to have stood still (`stood`) a move of the pieces in play
        (`moving`) carries too: one step that sets `rigid_members` of them or more, and the
        track, each within `rigid_cm` of a detection no track stood on. A block of look-alikes
        carried less than a spacing short of a whole one along its rows set each of its rear
        pieces 0.6 cm from where a front one stood, which under the thumbnail's blur looked as
        it did; taken to have stood still, the front pieces left the block one short, matched
        piece by piece (a blind check's tight squad: all 6 ids wrong). A squad-mate lifted past
        pieces that stood still is one piece, and steps that carry two or more onto the spots
        of pieces standing (a line moved one place along) are no such move."""
        carried = np.zeros(len(tracks), bool)
        if np.count_nonzero(moving) < self.weights.rigid_members or not stood.any():
            return carried
        old = np.array([t.xy_cm for t in tracks])
        free = xy[distance[stood].min(axis=0) > self.still_cm]  # `distance`: tracks to detections
        if len(free) < self.weights.rigid_members + 1:
            return carried
        movers = old[moving]
        reach = self.weights.reach_cm(self._allowances([t for t, m in zip(tracks, moving, strict=True) if m]))
        steps = free[None, :, :] - movers[:, None, :]
        steps = steps[np.linalg.norm(steps, axis=2) <= reach[:, None]]
        tree, standing = cKDTree(free), np.flatnonzero(stood)
        gap, _ = tree.query(movers[None, :, :] + steps[:, None, :])
        steps = steps[np.count_nonzero(gap <= self.weights.rigid_cm, axis=1) >= self.weights.rigid_members]
        if len(steps):
            gap, _ = tree.query(old[standing][None, :, :] + steps[:, None, :])
            carried[standing[(gap <= self.weights.rigid_cm).any(axis=0)]] = True
        return carried

    def _spot_unchanged(self, tracks: list[Track]) -> np.ndarray:
        """Which tracks' spots are partly as at the last detection: their centre or a point 0.6 of
        their radius out in any of four ways. A piece lifted changes all of its spot; the change
        of one set down against it (grown by the thumbnail's blur, ~2 cm) reaches over its near
        half only. Judged at the centre alone, a look-alike put 2 mm from the end of its line
        left its neighbour in play, and squared distance slid the ids along the line."""
        return ~self._spot_differs(tracks).all(axis=1)

    def _spot_differs(self, tracks: list[Track]) -> np.ndarray:
        """(tracks x 5): where each track's spot (`spot_points`, 0.6 of its radius out) now differs."""
        radius = np.array([max(t.diameter_mm / 20.0, t.width_cm / 2.0) for t in tracks])
        points = spot_points(np.array([t.xy_cm for t in tracks]), radius, 0.6)
        return self._now_differs(points.reshape(-1, 2)).reshape(points.shape[:2])

    def _unseen_moves(self, tracks: list[Track], far: np.ndarray, put: np.ndarray, touched: np.ndarray | None,
                      found: np.ndarray, known: np.ndarray) -> np.ndarray | None:
        """(tracks x detections) cost of the moves the picture did not see, by pieces seen at the last
        detection: from a spot that looks as it did then (`_spot_unchanged`: the piece stands there
        and the detector missed it; a mate set against it changes its near side only), or onto a
        detection whose spot looks as it did (`put` false: a piece the first look missed). An arm
        sweeps over a whole squad, so all of it is in play, and squared distance chose such moves
        when shorter: a trooper the detector missed took the place a mate was lifted to, the mate
        left unseen on its bare spot (session 66's blind check, a small game with 2 % misses: 9
        identity switches in five runs, now none). Only for a track with no detection on its spot
        (`found`) and a detection on no track's spot (`known`): where one is, looks decide who it
        is, finer than the thumbnail (two blues swapped there show no change in it, and stayed put
        on paper: the tracking benchmark's 2 switches). A cost and no gate: a dark base on a dark mat
        leaves and lands on spots the gate's thumbnail may see no change in, and then it is the
        only taker.

        `far`: which detections lie off each track's spot (farther than `still_cm`); `put`: which
        detections' spots now differ anywhere (their centre or 0.6 of their radius
        out); `touched`: which changed at all since the last detection, a hand passing included
        (None: a hull's, driven along itself by less than its length, stays under it). Onto a
        base's spot nothing touched, no base moved at all (infeasible): a gun turned on its spot
        and missed that look took the detection of another the first look had missed 20 cm away,
        which no cost outweighs, as leaving both unmatched costs more, and its own took a new id.
        A base kept so from a move the thumbnail missed whole (stills, no hand seen) is missed
        once and taken there by the next look, which runs at once."""
        if self._now_differs is None or not tracks or not far.shape[1]:
            return None
        steady = np.array([t.missed == 0 for t in tracks])
        as_it_was = steady & self._spot_unchanged(tracks)
        unseen = (as_it_was & ~found)[:, None] | (steady[:, None] & (~put & ~known)[None, :])
        cost = self.weights.unseen_move * (far & unseen)
        if touched is not None:
            cost[far & steady[:, None] & ~touched[None, :]] = INFEASIBLE
        return cost

    def _kept_in_place(self, tracks: list[Track], distance: np.ndarray, look: list,
                       same_size: np.ndarray) -> np.ndarray:
        """Which tracks where the light changed and no hand was (`relit`, `unhanded`) still have a
        detection on their spot (within `still_cm`) that nothing else explains better: none of
        the detections within their reach is as alike as the same model, or the one on their
        spot is. A hand that exchanged two pieces put each where the other looks as it did, and
        a hand that moved a squad along its row one spacing put a look-alike on each spot, so
        only where no hand was; there a change of light (a white balance step, a lamp) made
        every look less alike and none alike, and squad-mates standing still were matched by
        whichever look the light had moved least (5 and 13 identity switches on two blind
        sequences). One unlike beyond the gate (`appearance_gate`) is left to the
        association: pieces exchanged by hand may look that different, each on the other's spot,
        though neither looks quite as it did (a lamp that blows a red model out to white does
        too, and it takes a new id)."""
        kept = np.zeros(len(tracks), bool)
        if not self._relit or self._unhanded is None:
            return kept
        old = np.array([t.xy_cm for t in tracks])
        near = (distance <= self.still_cm) & same_size
        reach = self.weights.reach_cm(self._allowances(tracks))
        for i in np.flatnonzero((near.sum(axis=1) == 1) & self._unhanded(old)):
            own = int(np.flatnonzero(near[i])[0])
            others = np.flatnonzero((distance[i] <= reach[i]) & same_size[i])
            cost = appearance_cost([tracks[i].appearance], [look[j] for j in others], self.weights)[0]
            own_cost = cost[others == own][0]
            kept[i] = own_cost < INFEASIBLE and (own_cost == 0.0 or not (cost == 0.0).any())
        return kept

    def _revive(self, kind: str, xy: np.ndarray, look: list, alike: Alike, columns: list[int],
                changes: TrackChanges, headings: np.ndarray | None,
                on_its_spot: bool = False) -> list[tuple[Track, int]]:
        """A piece found twice where nothing changed is one that was there all along: if it fits
        a piece retired as missing (same size class, within its move of where it was last
        seen, alike; near where the rigid move of the pieces beside it would have put it, if
        they moved as one), it is that piece back, not a new one. A detector that missed a model
        twice after it was moved had retired it, and its next sighting started a new id.
        A piece the first look missed was not put where it is found (see `_put_there`), unless
        it stands where the lost one stood (a piece a hand passed over, missed twice).

        `on_its_spot`: pieces put down where the picture changed, each back only on the spot
        (its own footprint) where a piece as alike was retired: a model lifted and put back by a
        player who changed their mind, or one a card or a tape lay over long enough to be
        missed twice. Both took new ids; a reinforcement put on a casualty's very spot, looking
        as it did, is rarer than either, and elsewhere it is a new piece, unless it was retired
        within `CARRIED_OFF_S` and is put down within its move of where it stood: carried off
        the table in a hand and set down again."""
        gone = [t for t in self.removed.values() if t.kind == kind and t.id not in changes.removed]
        if not gone or not len(xy):
            return []
        stood = np.array([t.xy_cm for t in gone])
        distance = cdist(stood, xy)
        if on_its_spot:
            footprint = np.array([max(t.diameter_mm / 20.0, t.width_cm / 2.0) for t in gone])
            reach = self.weights.reach_cm(self._allowances(gone))
            carried_off = np.array([self._now_s is not None and t.retired_s is not None
                                    and self._now_s - t.retired_s <= CARRIED_OFF_S for t in gone])
            where = (distance <= footprint[:, None]) | (carried_off[:, None] & (distance <= reach[:, None]))
            # Painted as itself, as a piece moved between stills must be: other paints on one army's
            # base top read 0.53-0.74 apart (the gate's 0.75 let them through), and another paint
            # put there was taken for the casualty.
            painted = _painted_as_themselves([t.appearance for t in gone], look, self.weights.as_itself)
            possible = alike(gone)[:, columns] & where & painted
            shift = None
        else:
            expected = np.array([t.looked_for_xy for t in gone])
            along = cdist(expected, xy) <= self.weights.slack_cm
            along |= np.array([t.expected_xy is None for t in gone])[:, None]
            put_there = np.array([self._put_there(t, xy) for t in gone])
            possible = alike(gone)[:, columns] & ((along & put_there) | (distance <= self.still_cm))
            shift = expected - stood
        cost = match_cost(stood, xy, self._allowances(gone), [t.appearance for t in gone], look, possible,
                          self.weights, shift)
        pairs, _, _ = assign(cost, self.weights.max_cost)
        back = []
        for a, b in pairs:
            track = self.removed.pop(gone[a].id)
            self.tracks[track.id] = track
            changes.returned.append(track.id)
            self._follow(track, xy[b], look[b], changes, headings, columns[b])
            back.append((track, columns[b]))
        return back

    @staticmethod
    def _put_there(track: Track, xy: np.ndarray) -> np.ndarray:
        """Which of `xy` a hand may have put the track on while it went missing: where the
        picture came to differ. A piece the first look missed stands where nothing did, even
        when a hand passed over it."""
        there = np.zeros(len(xy), bool)
        for put_down in track.lost_in:
            there |= True if put_down is None else put_down(xy)
        return there

    def _seen_again(self, xy: np.ndarray, candidates: list[np.ndarray]) -> bool:
        """A detection where nothing changed is flicker, unless the next detection has it too:
        then it is a piece the first look missed."""
        return any(np.linalg.norm(xy - c) <= self.still_cm for c in candidates)

    def _clear_of_tracks(self, xy: np.ndarray, tracks: list[Track]) -> bool:
        """Not a second, shifted detection of a piece already tracked (bases do not overlap)."""
        reach = [max(t.diameter_mm / 20.0, t.width_cm / 2.0) * 1.6 for t in tracks]
        return all(np.linalg.norm(xy - t.xy_cm) > r for t, r in zip(tracks, reach, strict=True))

    def _associate(self, tracks: list[Track], new_xy: np.ndarray, new_appearance: list,
                   same_class: np.ndarray, extra: np.ndarray | None):
        if not tracks or not len(new_xy):
            return [], list(range(len(tracks))), None
        old_xy = np.array([t.xy_cm for t in tracks])
        allowance = self._allowances(tracks)
        old_appearance = [t.appearance for t in tracks]
        groups = [self.unit_of.get(t.id) for t in tracks]

        def solve(reading: Reading | None):
            shift = None if reading is None else reading.shift_cm
            cost = match_cost(old_xy, new_xy, allowance, old_appearance, new_appearance, same_class,
                              self.weights, shift)
            if extra is not None:
                cost = cost + extra
            pairs, lost, unclaimed = assign(cost, self.weights.max_cost)
            total = (sum(cost[i, j] for i, j in pairs) + self.weights.max_cost * (len(lost) + len(unclaimed))
                     + (0.0 if reading is None else self.weights.rigid_shift * reading.moves))
            return pairs, lost, shift, total, cost

        reach = self.weights.reach_cm(allowance)
        readings = rigid_readings(old_xy, new_xy, groups, reach, self.weights)
        solved = [solve(reading) for reading in readings] or [solve(None)]
        pairs, lost, shift, _, cost = min(solved, key=lambda solution: solution[3])

        def alike(i: int, j: int) -> bool:
            return appearance_cost([old_appearance[i]], [new_appearance[j]], self.weights)[0, 0] == 0.0

        pairs, lost = kept_on_their_spots(old_xy, new_xy, cost, pairs, lost, self.weights.max_cost, alike,
                                          self.still_cm, self.weights.rigid_cm)

        def looks_apart(i: int, j: int) -> float | None:
            a, b = old_appearance[i], new_appearance[j]
            return None if a is None or b is None else colour_distance(a, b)

        pairs = exchanged(old_xy, new_xy, pairs, looks_apart, same_class, self.still_cm,
                          self.weights.as_itself, reach)
        return pairs, lost, shift

    def _allowances(self, tracks: list[Track]) -> np.ndarray:
        """How far each piece may have moved since it was last seen (cm)."""
        return np.array([self.allowance_cm.get(t.id, self.default_allowance_cm) for t in tracks])

    def _went_along(self, tracks: list[Track], pairs: list[tuple[int, int]], lost: list[int],
                    shifts: np.ndarray | None) -> dict[str, np.ndarray]:
        """Where each lost track would be had it moved with the rigid move of the nearest piece
        matched along one (within `rigid_neighbour_cm`): pieces lifted together stood together.
        A piece found again later is looked for there, not anywhere its allowance reaches,
        where a neighbour the first look missed would pass for it."""
        if shifts is None or not lost:
            return {}
        carried = [i for i, _ in pairs if shifts[i].any()]
        if not carried:
            return {}
        carried_xy = np.array([tracks[i].xy_cm for i in carried])
        out = {}
        for i in lost:
            track = tracks[i]
            gap = np.linalg.norm(carried_xy - track.looked_for_xy, axis=1)
            if gap.min() <= self.weights.rigid_neighbour_cm:
                out[track.id] = track.looked_for_xy + shifts[carried[int(np.argmin(gap))]]
        return out

    def _follow(self, track: Track, xy: np.ndarray, appearance: Look | None, changes: TrackChanges,
                headings: np.ndarray | None = None, j: int = 0) -> None:
        # Modulo 180: the detector knows a hull's front only when it sees the gun, so a heading
        # flipping by 180 degrees between frames is the same pose, not a turn.
        force_moved = headings is not None and abs(
            (headings[j] - track.heading_deg + 90.0) % 180.0 - 90.0) > 2.0
        before = track.xy_cm.copy()
        track.xy_cm = np.asarray(xy, dtype=np.float64).copy()
        track.appearance = blend(track.appearance, appearance)
        track.visible = True
        track.covered = track.under_hand = False
        track.missed = 0
        track.lost_in.clear()
        track.expected_xy = None
        if force_moved or np.linalg.norm(track.xy_cm - before) > self.moved_cm:
            changes.moved[track.id] = ((float(before[0]), float(before[1])),
                                       (float(track.xy_cm[0]), float(track.xy_cm[1])))

    def _retire(self, unmatched: list[Track], changes: TrackChanges,
                went_along: dict[str, np.ndarray]) -> None:
        hidden = (self._under_hand(np.array([t.xy_cm for t in unmatched]))
                  if self._under_hand is not None and unmatched else np.zeros(len(unmatched), bool))
        left = [t for t, under_hand in zip(unmatched, hidden, strict=True) if not under_hand]
        covered = self._covered(left) if self._covered is not None and left else np.zeros(len(left), bool)
        for track, under_hand in zip(unmatched, hidden, strict=True):
            track.visible, track.under_hand = False, bool(under_hand)
        for track, under in zip(left, covered, strict=True):
            track.covered = bool(under)
            if under:
                continue
            track.missed += 1
            track.lost_in.append(self._put_down)
            track.expected_xy = went_along.get(track.id, track.expected_xy)
            if track.missed >= self.confirm_missing and not self._hand_holds:
                track.retired_s = self._now_s
                self.removed[track.id] = self.tracks.pop(track.id)
                changes.removed.append(track.id)

    def _new(self, kind: str, xy: np.ndarray, appearance: Look | None,
             changes: TrackChanges) -> Track:
        self._counter[kind] += 1
        track_id = f"{'m' if kind == 'model' else 'v'}{self._counter[kind]}"
        track = Track(id=track_id, kind=kind, xy_cm=np.asarray(xy, dtype=np.float64).copy(),
                      appearance=appearance)
        self.tracks[track_id] = track
        changes.added.append(track_id)
        return track

    @staticmethod
    def _in_reading_order(xy: np.ndarray, taken: set[int]) -> list[int]:
        """New ids go top-left to bottom-right, so the same table always gets the same names."""
        free = [j for j in range(len(xy)) if j not in taken]
        return sorted(free, key=lambda j: (round(float(xy[j][1]), 1), round(float(xy[j][0]), 1)))


def _painted_as_themselves(old_looks: Appearance, new_looks: Appearance, bound: float) -> np.ndarray:
    """Which new looks may be each old piece painted as itself (within `bound`); a look not
    taken, either side, may."""
    return np.array([[a is None or b is None or colour_distance(a, b) <= bound for b in new_looks]
                     for a in old_looks], bool).reshape(len(old_looks), len(new_looks))
