"""Second looks at the rims the verifier rejects or doubts, where something says a base is.

The screening fit starts where the votes peak, and a faint rim (a top flocked like its mat)
gives the votes little to hold but its figure or its shadow, which stop the fit millimetres
off the rim; the verifier, which learned bases from fits within 2 mm, then rejects a real
base. Each look refits or moves such a rim from other starts and shows the verifier the
result, keeping it where the verifier likes it more. The looks run in `take`'s order: each
leaves alone what the ones before it accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from models.fitted import CLASSES_MM, FittedCandidates, accept_bar, right_size
from models.marker_squares import on_markers
from models.overlaps import circles_overlap, non_overlapping, overlaps

if TYPE_CHECKING:
    from models.centring import Centring
    from models.verifier import RimVerifier

# A rim scoring between this and its class's acceptance bar is refitted from starts around it, and
# the refit kept if it scores higher (validation tables, four sets of 30: 17 more bases, 2 more
# false rims; 0.3 found one fewer). Few rims qualify, 0-5 a frame.
RETRY_PROBABILITY = 0.1
# A rim the verifier rejects (under RETRY_PROBABILITY) where the base map still expects a base
# (this likely or more) is refitted from starts FAR_RESTART_MM around it: a faint rim, a flocked
# top on a mat of its colour, gives the votes and the screening fit nothing to hold but the
# figure on it or its shadow, which stop them 4-12 mm off it, out of the fit's reach (half the
# path-traced hard validation tables' misses). Six validation sets: 2,984 bases with 19 false
# rims before, 2,997 / 19, 3,006 / 19 and 3,009 / 21 at 0.5 / 0.4 / 0.3 (1, 4 and 13 refits a
# frame; path-traced hard 236 -> 237 / 239 / 241 of 271); 0.15 found 3,011 with 22 from 47.
FAR_RETRY_LIKELIHOOD = 0.4
FAR_RESTART_MM = 5.0
# The verifier sees all nine starts of a far refit, and the best of nine verdicts flatters: a
# far refit is accepted at this. With the one start that explains the most edges verified
# (the refit's own choice), the six sets found 3,006 bases with 19 false rims; with every start
# verified, 3,033 / 25 at the class's bar and 3,029 / 20, 3,027 / 19, 3,025 / 19 at 0.6, 0.7,
# 0.8 (path-traced hard 245 / 243 / 243 / 242 of 271, 4 / 3 / 3 / 3 false).
FAR_ACCEPT_PROBABILITY = 0.7
# The base map's peaks no accepted rim stands on are followed by the centring net this many
# looks (`SecondLooks.mapped`). A base flocked like its mat shows the rim fit no rim: every
# start's fit lands on its figure's or its shadow's edges and is rejected, but the net reads the
# whole view (the figure standing in the middle, the shadow, what rim there is). From a cell's
# centre, up to 11 mm off, it learned only starts within 5 mm, so each look comes part of the
# way: of 39 such peaks on the path-traced hard validation tables (from 0.5, in session 45), none
# started within 2 mm of a base; after one, two, three and four looks 1, 4, 6 and 8 stood within 2 mm.
MAPPED_LOOKS = 4
# A rim still rejected where the base map sees a base at all (this likely or more) is refitted
# from starts SHADOW_STEPS_MM back from the way the shadows fall (`models/shadow.py`), when the
# accepted bases agree on it: a base's shadow and its figure's pull a faint rim's vote peak
# along the light, 6-15 mm on the path-traced hard validation tables, where the nearest peak
# lay for half the bases with no candidate near them. Thirteen validation sets (8,019 bases
# found, 72 false rims): 8,052 / 72 (path-traced hard 548 -> 561 of 636, painted hard
# 3,603 -> 3,623, clean unchanged); starts of 4, 8, 12, 16 mm 8,053 / 72 for a third more work
# (~1.2 ms a rim; 20-25 rims on a hard frame); likely 0.3 8,044 / 74. With the render's own
# light instead of the estimate (3, 6, 9, 12 mm, six of the sets): 26 more bases, 4 more false.
SHADOW_RETRY_LIKELIHOOD = 0.2
SHADOW_STEPS_MM = (5.0, 10.0, 15.0)


class SecondLooks:
    """The looks a `verifier` judges; those that move rims with the `centring` net are skipped
    without one. Every look updates the fitted candidates and their scores in place."""

    def __init__(self, verifier: RimVerifier, centring: Centring | None = None) -> None:
        self.verifier = verifier
        self.centring = centring

    def take(self, c: FittedCandidates, score: np.ndarray, markers: list[np.ndarray]) -> None:
        self.doubtful(c, score)
        self.far(c, score, markers)
        self.against_the_shadows(c, score, markers)
        self.centred(c, score)
        self.mapped(c, score)

    def doubtful(self, c: FittedCandidates, score: np.ndarray) -> None:
        """Refit the rims the verifier doubts from starts around them; keep a refit it likes more.

        Updates `c` and `score` in place.
        """
        from models.rim_fit import best_supported, refits, restart_moves
        from models.verifier import rim_patches

        idx = np.nonzero(c.plausible & (score >= RETRY_PROBABILITY) & (score < accept_bar(c.diameter_mm)))[0]
        if not len(idx):
            return
        centres, radius = best_supported(*refits(
            c.rect, c.centres_px[idx], c.radius_px[idx], c.nominal_radius_px[idx],
            c.nadir_px, c.camera_cm[2] * 10, c.px_per_mm, restart_moves(len(idx), c.px_per_mm),
        ))
        patches = rim_patches(c.rect, centres, radius, c.nadir_px, c.diameter_mm[idx])
        again = self.verifier.probability(patches)
        better = right_size(c.measured(radius), c.diameter_mm[idx]) & (again > score[idx])
        j = idx[better]
        c.centres_px[j], c.radius_px[j], score[j] = centres[better], radius[better], again[better]

    def far(self, c: FittedCandidates, score: np.ndarray, markers: list[np.ndarray]) -> None:
        """Refit the rims the verifier rejects where the base map expects a base, from starts
        FAR_RESTART_MM around them (see FAR_RETRY_LIKELIHOOD). Updates `c` and `score` in place."""
        from models.rim_fit import restart_moves

        if c.likelihood is None:
            return
        idx = unclaimed(c, score, (score < RETRY_PROBABILITY) & (c.likelihood >= FAR_RETRY_LIKELIHOOD))
        self._refit_from(c, score, markers, idx, restart_moves(len(idx), c.px_per_mm, FAR_RESTART_MM))

    def against_the_shadows(
        self, c: FittedCandidates, score: np.ndarray, markers: list[np.ndarray]
    ) -> None:
        """Refit the rims still rejected where the base map sees a base at all from starts
        SHADOW_STEPS_MM back from the way the shadows fall (see SHADOW_RETRY_LIKELIHOOD).
        Updates `c` and `score` in place."""
        from models.shadow import shadow_direction

        if c.likelihood is None:
            return
        bar = accept_bar(c.diameter_mm)
        accepted = np.nonzero(score >= bar)[0]
        # One look at each base: a vote peak's rim and a map peak's on one base would count its
        # shadow twice, the worse-fitted one's crescent askew.
        overlap = overlaps(c.centres_px[accepted], c.nominal_radius_px[accepted])
        accepted = accepted[non_overlapping(overlap, score[accepted], np.ones(len(accepted), bool))]
        falling = shadow_direction(c.rect, c.centres_px[accepted], c.radius_px[accepted], c.px_per_mm)
        if falling is None:
            return
        idx = unclaimed(c, score, (score < bar) & (c.likelihood >= SHADOW_RETRY_LIKELIHOOD))
        back = -np.multiply.outer(np.asarray(SHADOW_STEPS_MM) * c.px_per_mm, falling)  # (starts, 2)
        self._refit_from(c, score, markers, idx, np.broadcast_to(back[:, None], (len(back), len(idx), 2)))

    def centred(self, c: FittedCandidates, score: np.ndarray) -> None:
        """Show the verifier the rims it still rejects where the centring net puts them; keep the
        move where it likes the rim more, accepting at FAR_ACCEPT_PROBABILITY as the far refits do.

        A rim fitted a few millimetres off its base looks off-centre to the verifier, which
        learned bases from fits within 2 mm. On the eight validation sets (4,854 bases found)
        this found 20 more with 7 more false rims (path-traced hard 577 -> 584 of 636, no false
        rim more); accepting at the class's bar instead, 30 more with 19 more false rims.
        Updates `c` and `score` in place.
        """
        from models.verifier import rim_patches

        if self.centring is None:
            return
        bar = accept_bar(c.diameter_mm)
        idx = unclaimed(c, score, c.plausible & (score >= RETRY_PROBABILITY) & (score < bar))
        if not len(idx):
            return
        centres = self.centring.centred(
            c.rect, c.centres_px[idx], c.nominal_radius_px[idx], c.nadir_px, c.diameter_mm[idx], c.px_per_mm
        )
        again = self.verifier.probability(
            rim_patches(c.rect, centres, c.radius_px[idx], c.nadir_px, c.diameter_mm[idx])
        )
        better = (again > score[idx]) & ((again >= FAR_ACCEPT_PROBABILITY) | (again < bar[idx]))
        j = idx[better]
        c.centres_px[j], score[j] = centres[better], again[better]

    def mapped(self, c: FittedCandidates, score: np.ndarray) -> None:
        """Follow the centring net from each of the base map's peaks that no accepted rim stands
        on, and show the verifier the rim where it leads; accepted at its class's bar and clear of
        the accepted bases, it is the base of the candidate started nearest the peak (the peak's
        own, or the vote peak within MAP_PEAK_AWAY_MM that stood for it). See MAPPED_LOOKS.
        Updates `c` and `score` in place.
        """
        from models.candidates import MAP_PEAK_LIKELIHOOD
        from models.verifier import rim_patches

        cands = c.candidates
        if self.centring is None or cands is None:
            return
        start, channels = cands.map_peaks(MAP_PEAK_LIKELIHOOD)
        diameter = np.asarray(CLASSES_MM)[channels]
        radius = diameter / 2 * c.px_per_mm
        free = unclaimed_points(c, score, start, radius)
        start, diameter, radius = start[free], diameter[free], radius[free]
        if not len(start):
            return
        bar = accept_bar(c.diameter_mm)
        centres = self.centring.followed(c.rect, start, radius, c.nadir_px, diameter, MAPPED_LOOKS)
        again = self.verifier.probability(rim_patches(c.rect, centres, radius, c.nadir_px, diameter))
        for i in np.nonzero(again >= accept_bar(diameter))[0]:
            same = np.nonzero(cands.diameter_mm == diameter[i])[0]
            row = same[np.argmin(np.linalg.norm(cands.centres_px[same] - start[i], axis=1))]
            accepted = np.nonzero(score >= bar)[0]
            dist = np.linalg.norm(c.centres_px[accepted] - centres[i], axis=1)
            taken = circles_overlap(dist, radius[i], c.nominal_radius_px[accepted]).any()
            if score[row] >= bar[row] or taken:
                continue
            c.centres_px[row], c.radius_px[row], score[row] = centres[i], radius[i], again[i]
            c.plausible[row] = True

    def _refit_from(
        self,
        c: FittedCandidates,
        score: np.ndarray,
        markers: list[np.ndarray],
        idx: np.ndarray,
        moves: np.ndarray,
    ) -> None:
        """Refit rims `idx` from their own centres moved by each of `moves` (starts, n, 2) and keep
        the start the verifier likes best.

        From the class's radius: a fit that ran onto a figure or a shadow may have bent it. The
        verifier sees every start, not only the one explaining the most edges (that was often a
        figure's outline), and the best of the verdicts is a lenient one: it accepts at
        FAR_ACCEPT_PROBABILITY, or, under the class's bar, may report the rim faint.
        """
        from models.rim_fit import refits
        from models.verifier import rim_patches

        if not len(idx):
            return
        nominal = c.nominal_radius_px[idx]
        centres, radius, _ = refits(
            c.rect, c.centres_px[idx], nominal, nominal, c.nadir_px, c.camera_cm[2] * 10, c.px_per_mm, moves
        )
        starts, n = radius.shape
        diameter = np.tile(c.diameter_mm[idx], starts)
        flat_c, flat_r = centres.reshape(-1, 2), radius.reshape(-1)
        # The verifier sees only the starts of the right size and off the markers.
        fits = right_size(c.measured(flat_r), diameter) & ~on_markers(c.table_cm(flat_c), markers)
        usable = np.flatnonzero(fits)
        verdict = np.full(starts * n, -1.0)
        verdict[usable] = self.verifier.probability(
            rim_patches(c.rect, flat_c[usable], flat_r[usable], c.nadir_px, diameter[usable])
        )
        verdict = verdict.reshape(starts, n)
        best, rims = verdict.argmax(0), np.arange(n)
        again = verdict[best, rims]
        better = (again > score[idx]) & (
            (again >= FAR_ACCEPT_PROBABILITY) | (again < accept_bar(c.diameter_mm[idx]))
        )
        j = idx[better]
        c.centres_px[j], c.radius_px[j] = centres[best, rims][better], radius[best, rims][better]
        score[j] = again[better]
        c.plausible[j] = True


def unclaimed(c: FittedCandidates, score: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The rims in `wanted` farther than their own radius from every accepted one."""
    idx = np.nonzero(wanted)[0]
    return idx[unclaimed_points(c, score, c.centres_px[idx], c.nominal_radius_px[idx])]


def unclaimed_points(
    c: FittedCandidates, score: np.ndarray, points_px: np.ndarray, radius_px: np.ndarray
) -> np.ndarray:
    """Which points lie farther than their radius from every accepted rim's centre: a point
    beside an accepted rim is that base's, found already."""
    accepted = np.nonzero(score >= accept_bar(c.diameter_mm))[0]
    if not len(points_px) or not len(accepted):
        return np.ones(len(points_px), bool)
    gap = np.linalg.norm(points_px[:, None] - c.centres_px[None, accepted], axis=-1).min(1)
    return gap > radius_px
