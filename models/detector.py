"""The detector: every base and vehicle of a frame, in table centimetres.

It works on the rectified top-down image, where a 32 mm base is always the same size. Stages:
candidates (circle votes at the known radii), the parallax-aware rim fit that gives the
millimetres and the measured diameter, the centring net's last word on each accepted centre,
non-maximum suppression in table space (two bases can never overlap), and vehicle footprints
(the hull map's proposals among them, measured like the rest).
Per-stage timings are kept on the detector for the benchmark, because the whole frame has a
budget of ~250 ms.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

from calibration.marker_sheet import sheet_reach
from models.detections import Bases, Detections, Vehicles
from models.verifier import RimVerifier
from rules_core.errors import TablesightError

if TYPE_CHECKING:
    from models.base_map import BaseMap
    from models.candidates import Candidates
    from models.centring import Centring
    from models.focus import FrameBlur
    from models.hull_fit import HullFit
    from models.hull_map import HullMap
    from models.rim_fit import RimFit

_Net = TypeVar("_Net")

CLASSES_MM = (32.0, 65.0)
# Below this a base spans under ~20 px; the rectified image is upsampled so the fit has room.
MIN_PX_PER_MM = 0.8
MAX_PX_PER_MM = 1.5
MIN_COVERAGE = 0.7  # classical fallback only; 0.6 let ~15 % false rims through after the lower edge threshold
MIN_CONTRAST = 1.3
# A bevelled base's fit often settles on the top edge, up to ~1.2 mm inside the bottom rim; a
# base's shadow crescent or its miniature's overhang can widen it by as much (+6 % lost 2.7 % of
# the hard validation bases, fitted within a millimetre; the verifier rejects the wrong ones).
SIZE_TOLERANCE = (0.10, 0.10)  # below, above the nominal diameter
PLAUSIBLE_COVERAGE = 0.25
# Tuned on held-out validation tables, never the benchmark's: six sets of 30 (painted 20,000+,
# 21,000+, 70,000+ and 71,000+, path-traced 300,000+ and 350,000+; 3,897 bases). The score is
# the geometric mean of the verifier's two nets (models/verifier.py), so a rim one net doubts
# scores low. Bars of 0.4 / 0.5 / 0.6 (65 mm: 0.25 / 0.3 / 0.35) found 3,557 / 3,540 / 3,519
# bases with 36 / 27 / 22 false rims (the ring net alone, shipped before, at 0.9 / 0.6: 3,530
# with 46). The lowest keeps precision above the targets on these sets (clean 0.997,
# hard 0.981) and recall is what the detector lacks most. The verifier shipped since (144
# path-traced training tables, cosine schedule) was judged at the same bars on 30 + 30 + 30 + 30
# painted and 12 + 12 path-traced tables (3,135 bases): 2,944 with 20 false rims, where 0.3 / 0.2
# found 2,955 with 27 and the verifier before it 2,924 with 20. Since a doubtful rim's verdict
# is averaged with its mirror image's (models/verifier.py) the same sets read 2,957 bases with
# 15 false rims at these bars' old 0.4 / 0.25 (2,951 with 19 on one look), and 2,963 with 18 at
# 0.35 / 0.22: two bases for each false rim, the trade that chose 0.4 over 0.5 above. Session
# 40's verifier (353 path-traced tables) on the six sets: 3,664 bases with 33 false rims here,
# 3,668 with 36 at 0.3 / 0.19 and 3,661 with 31 at 0.42 / 0.26; neither move trades as well.
ACCEPT_PROBABILITY = 0.35
# A 65 mm circle of rim-like edges is rare on a mat, in grass or among squads, where 32 mm
# blobs are common; and a gun's crew and barrel cover much of its ring, so the verifier scores
# real ones lower. Moved with the 32 mm bar above.
ACCEPT_PROBABILITY_65 = 0.22
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
# looks (`Detector._retry_mapped`). A base flocked like its mat shows the rim fit no rim: every
# start's fit lands on its figure's or its shadow's edges and is rejected, but the net reads the
# whole view (the figure standing in the middle, the shadow, what rim there is). From a cell's
# centre, up to 11 mm off, it learned only starts within 5 mm, so each look comes part of the
# way: of 39 such peaks on the path-traced hard validation tables (from 0.5), none started within
# 2 mm of a base; after one, two, three and four looks 1, 4, 6 and 8 stood within 2 mm.
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
# A rim between this and its class's acceptance bar is reported as faint: the same base seen on the
# next frame can score either side of the bar (noise, a hand's shadow), and a tracked piece
# must not be taken off the table for it. On the six validation sets 0.15 gives 59 faint rims on
# bases and 24 elsewhere (the ring-only verifier at its 0.3, on four of them: 95 and 63).
FAINT_PROBABILITY = 0.15
# After the rim fit's first, screening round the verifier already sees the rim roughly; mat
# texture scoring under this is not worth the two full rounds (most of the fit's time). Only
# the ring net screens (half the pair's cost on ~350 rims a frame). On the four painted
# validation sets and 12 + 12 path-traced tables (300,000+, 350,000+; 3,135 bases) bars of
# 0.005 / 0.01 / 0.02 / 0.05 found 2,916 / 2,916 / 2,913 / 2,910 bases with 29 / 29 / 28 / 28
# false rims; the pair screening at 0.02 had found 2,917 with 29.
SCREEN_PROBABILITY = 0.01
# The verifier learned rims from our renders; a photo, or another renderer, may look different
# enough to lower its scores. A rim found on most rays at three times the texture's edge
# strength, with a miniature on it, is a base whatever it scores. On two sets of validation
# tables no false rim (0 of 523) met this while 43-47 % of the clean tables' bases did, so a
# verifier misled by new imagery still leaves those (0.8 and 2.0 let 4 false rims through).
SURE_COVERAGE = 0.9
SURE_CONTRAST = 3.0
MAX_BASES_ON_A_HULL = 2
EDGE_RADII = 1.25


class Calibration(Protocol):
    """What the detector needs from calibration (calibration.table.TableCalibration has it)."""

    camera_centre_cm: np.ndarray

    def table_to_image(self, points_cm: np.ndarray) -> np.ndarray: ...

    def rectify(self, image: np.ndarray, px_per_mm: float) -> np.ndarray: ...


def native_px_per_mm(calibration: Calibration, table_cm: tuple[float, float]) -> float:
    """Image pixels per table millimetre at the table's centre."""
    cx, cy = table_cm[0] / 2, table_cm[1] / 2
    px = calibration.table_to_image(np.array([[cx - 5, cy], [cx + 5, cy], [cx, cy - 5], [cx, cy + 5]]))
    return float((np.linalg.norm(px[1] - px[0]) + np.linalg.norm(px[3] - px[2])) / 200)


def table_size_cm(calibration) -> tuple[float, float]:
    """Table size from the calibration's layout (or the render's table for synthetic ones)."""
    if hasattr(calibration, "table_cm"):
        return tuple(calibration.table_cm)
    layout = calibration.layout
    return (layout.table.width_cm, layout.table.depth_cm)


@dataclass
class FittedCandidates:
    """Every candidate after the rim fit, before anything is accepted (shared with training)."""

    rect: np.ndarray
    px_per_mm: float
    camera_cm: np.ndarray  # the camera's centre over the table (x, y, height)
    nadir_px: np.ndarray
    centres_px: np.ndarray
    radius_px: np.ndarray
    diameter_mm: np.ndarray
    coverage: np.ndarray
    contrast: np.ndarray
    plausible: np.ndarray  # right size, not on a marker, some rim found
    likelihood: np.ndarray | None = None  # the base map's at each fitted centre, None without one
    candidates: Candidates | None = None  # where the fits started, and the base map they were read with

    @property
    def xy_cm(self) -> np.ndarray:
        return self.table_cm(self.centres_px)

    def table_cm(self, points_px: np.ndarray) -> np.ndarray:
        """Points of the rectified image in table centimetres (a pixel's centre is its +0.5)."""
        return (points_px + 0.5) / (10 * self.px_per_mm)

    @property
    def measured_mm(self) -> np.ndarray:
        return self.measured(self.radius_px)

    def measured(self, radius_px: np.ndarray) -> np.ndarray:
        """The diameter (mm) a fitted radius of the rectified image measures."""
        return 2 * radius_px / self.px_per_mm

    @property
    def nominal_radius_px(self) -> np.ndarray:
        """Each candidate's class radius in pixels of the rectified image."""
        return self.diameter_mm / 2 * self.px_per_mm


def rectified(image: np.ndarray, calibration) -> tuple[np.ndarray, float]:
    """The table seen from straight above at the detector's scale (px/mm), white-balanced on
    the markers' paper: what every stage after it reads."""
    from models.white_balance import balanced

    native = native_px_per_mm(calibration, table_size_cm(calibration))
    ppm = float(np.clip(native, MIN_PX_PER_MM, MAX_PX_PER_MM))
    return balanced(calibration.rectify(image, ppm), ppm, marker_squares_cm(calibration)), ppm


class Detector:
    """Finds bases (and vehicles) on one frame; holds no state between frames but timings.

    With a `verifier` (the shipped ONNX model) a small CNN accepts or rejects each fitted rim;
    without one, fixed thresholds on rim coverage and contrast do (the classical fallback). With
    a `centring` net the accepted rims are moved where it says their centres lie, and with a
    `hull_fit` net each measured hull's sides halfway to where it places them.
    """

    def __init__(
        self,
        verifier: RimVerifier | None = None,
        base_map: BaseMap | None = None,
        centring: Centring | None = None,
        hull_map: HullMap | None = None,
        hull_fit: HullFit | None = None,
    ) -> None:
        self.verifier = verifier
        self.base_map = base_map
        self.centring = centring
        self.hull_map = hull_map
        self.hull_fit = hull_fit
        self.timings_ms: dict[str, float] = {}

    def fitted_candidates(self, image: np.ndarray, calibration) -> FittedCandidates:
        from models.candidates import find_candidates
        from models.rim_fit import fit_rims

        t0 = time.perf_counter()
        rect, ppm = rectified(image, calibration)
        markers = marker_squares_cm(calibration)
        t1 = time.perf_counter()
        cands = find_candidates(rect, ppm, CLASSES_MM, base_map=self.base_map)
        t2 = time.perf_counter()
        camera = np.asarray(calibration.camera_centre_cm, dtype=np.float64)
        nadir_px = camera[:2] * 10 * ppm - 0.5
        worth_fitting = None
        if self.verifier is not None:
            from models.verifier import rim_patches

            def worth_fitting(screened: RimFit, index: np.ndarray) -> np.ndarray:
                patches = rim_patches(
                    rect, screened.centres_px, screened.radius_px, nadir_px, cands.diameter_mm[index]
                )
                return (self.verifier.ring_probability(patches) >= SCREEN_PROBABILITY) | _sure(screened)

        fit = fit_rims(
            rect, cands.centres_px, cands.diameter_mm / 2 * ppm, nadir_px, camera[2] * 10, ppm,
            worth_fitting=worth_fitting,
        )
        out = FittedCandidates(
            rect,
            ppm,
            camera,
            nadir_px,
            fit.centres_px,
            fit.radius_px,
            cands.diameter_mm,
            fit.coverage,
            fit.contrast,
            np.zeros(len(fit.coverage), bool),
            cands.likelihood(fit.centres_px, cands.diameter_mm),
            cands,
        )
        out.plausible = (
            _right_size(out.measured_mm, cands.diameter_mm)
            & (fit.coverage >= PLAUSIBLE_COVERAGE)
            & ~_on_markers(out.xy_cm, markers)
        )
        self.timings_ms = {
            "rectify": (t1 - t0) * 1000,
            "candidates": (t2 - t1) * 1000,
            "rim_fit": (time.perf_counter() - t2) * 1000,
        }
        return out

    def detect(self, image: np.ndarray, calibration) -> Detections:
        from models.hull_view import foreground
        from models.miniature import carries_a_miniature
        from models.vehicles import ON_A_HULL_CM, clear_of_bases, find_vehicles

        c = self.fitted_candidates(image, calibration)
        markers = marker_squares_cm(calibration)
        t0 = time.perf_counter()
        if self.verifier is not None:
            from models.verifier import rim_patches

            score = np.zeros(len(c.coverage))
            idx = np.nonzero(c.plausible)[0]
            patches = rim_patches(c.rect, c.centres_px[idx], c.radius_px[idx], c.nadir_px, c.diameter_mm[idx])
            score[idx] = self.verifier.probability(patches)
            sure = c.plausible & _sure(c)
            score[sure] = np.maximum(score[sure], ACCEPT_PROBABILITY)
            self._retry_doubtful(c, score)
            self._retry_far(c, score, markers)
            self._retry_against_the_shadows(c, score, markers)
            self._retry_centred(c, score)
            self._retry_mapped(c, score)
            keep = score >= _accept_bar(c.diameter_mm)
            faint = c.plausible & ~keep & (score >= FAINT_PROBABILITY)
        else:
            faint = np.zeros(len(c.coverage), bool)
            keep = c.plausible & (c.coverage >= MIN_COVERAGE) & (c.contrast >= MIN_CONTRAST)
            score = c.coverage * np.minimum(c.contrast / (3 * MIN_CONTRAST), 1.0)
        kept = np.nonzero(keep | faint)[0]
        bare = kept[~carries_a_miniature(c.rect, c.centres_px[kept], c.radius_px[kept])]
        keep[bare] = faint[bare] = False
        blur = None
        if keep.any():
            from models.focus import measure_blur

            blur = measure_blur(c.rect, markers, c.px_per_mm)
            self._settle(c, np.nonzero(keep)[0], blur)
        # Only accepted and faint rims contend: all ~400 candidates' overlaps took ~10 ms.
        contest = np.nonzero(keep | faint)[0]
        overlap = _overlaps(c.centres_px[contest], c.nominal_radius_px[contest])
        won = _non_overlapping(overlap, score[contest], keep[contest])
        gaps = _in_the_gaps(overlap, score[contest], faint[contest], won)
        chosen, faint_chosen = contest[won], contest[gaps]
        joined = self._squad_mates(c, chosen, faint_chosen)
        if joined.any():  # then some rim was accepted, and `blur` read for it
            self._settle(c, faint_chosen[joined], blur, shadows_of=chosen)
            chosen, faint_chosen = np.concatenate([chosen, faint_chosen[joined]]), faint_chosen[~joined]
        bases, faint_bases = (
            Bases(
                c.xy_cm[i],
                c.diameter_mm[i].astype(np.float64),
                np.clip(score[i], 0, 1),
                c.measured_mm[i],
            )
            for i in (chosen, faint_chosen)
        )
        t1 = time.perf_counter()
        # A turret ring looks like a base, but nothing stands on a hull; a blob holding several
        # bases, though, is a squad standing close, not a vehicle.
        view = foreground(c.rect, c.px_per_mm, markers, self.hull_map, c.camera_cm)
        hulls = find_vehicles(view, c.camera_cm, Bases.empty(), refine=False)
        on_hull = np.zeros(len(bases), bool)
        for i in range(len(hulls)):
            inside = _on_vehicles(bases.xy_cm, hulls[i]) & ~_against(bases, hulls[i], c.camera_cm)
            if inside.sum() <= MAX_BASES_ON_A_HULL:
                on_hull |= inside
        faint_bases = faint_bases[~_on_vehicles(faint_bases.xy_cm, hulls)]
        vehicles = find_vehicles(view, c.camera_cm, bases[~on_hull], hull_fit=self.hull_fit)
        if self.hull_fit is not None:
            vehicles = self.hull_fit.fitted(c.rect, c.px_per_mm, c.camera_cm, vehicles)
        # A rough blob is not yet a hull: a base it swallowed (a gun's crew beside a wall, a
        # squad in a sharpened frame) comes back unless a measured vehicle stands on it.
        on_hull &= _on_vehicles(bases.xy_cm, vehicles)
        for i in range(len(vehicles)):
            # A rim on a measured hull or just past its side (ON_A_HULL_CM) is the hull's own
            # edge or turret, which the rough blob may have missed.
            inside = _on_vehicles(bases.xy_cm, vehicles[i], ON_A_HULL_CM)
            if inside.sum() <= MAX_BASES_ON_A_HULL:
                on_hull |= inside
        bases = bases[~on_hull]
        vehicles = clear_of_bases(vehicles, bases)
        self.timings_ms.update(verify=(t1 - t0) * 1000, vehicles=(time.perf_counter() - t1) * 1000)
        return Detections(bases=bases, vehicles=vehicles, faint=faint_bases)

    def _settle(
        self,
        c: FittedCandidates,
        idx: np.ndarray,
        blur: FrameBlur | None,
        shadows_of: np.ndarray | None = None,
    ) -> None:
        """Settle rims `idx` on their bottom discs, sharpened against the frame's `blur`
        (`models.focus.measure_blur`), the way the shadows fall read beside them (or beside the
        rims `shadows_of`), and centre them with a centring net. Updates `c` in place.

        Only accepted rims are settled, so the few extra fits cost little. Only they see the
        deblurred frame: the verifier and the screening learned the frame as it is.
        """
        from models.focus import deblurred
        from models.rim_fit import best_supported, refits, settling_moves, settling_reach, settling_start
        from models.shadow import shadow_offset

        height_mm = c.camera_cm[2] * 10
        lit = idx if shadows_of is None else shadows_of
        cast = shadow_offset(
            c.rect, c.centres_px[lit], c.radius_px[lit], c.nominal_radius_px[lit], c.nadir_px, height_mm,
            c.px_per_mm,
        )
        start = settling_start(c.centres_px[idx], c.nadir_px, height_mm)
        moves = settling_moves(start, c.nadir_px, c.px_per_mm)
        reach = settling_reach(c.radius_px[idx], c.px_per_mm)
        shadow = None
        if cast is not None:  # each base's shadow fitted as its own circle, and a start back from it
            shadow = np.broadcast_to(cast, (len(idx), 2))
            moves = np.concatenate([moves, -shadow[None]])
            reach = reach + float(np.linalg.norm(cast))
        sharpened = deblurred(c.rect, blur, start, reach)
        centres, radius = best_supported(*refits(
            sharpened, start, c.radius_px[idx], c.nominal_radius_px[idx],
            c.nadir_px, height_mm, c.px_per_mm, moves, shadow,
        ))
        ok = _right_size(c.measured(radius), c.diameter_mm[idx])  # else keep the verified fit
        c.centres_px[idx[ok]], c.radius_px[idx[ok]] = centres[ok], radius[ok]
        if self.centring is not None:
            c.centres_px[idx] = self.centring.centred(
                c.rect, c.centres_px[idx], c.nominal_radius_px[idx], c.nadir_px, c.diameter_mm[idx],
                c.px_per_mm,
            )

    def _squad_mates(self, c: FittedCandidates, chosen: np.ndarray, faint: np.ndarray) -> np.ndarray:
        """(len(faint),) which faint rims stand among their squad (`models/squad.py`): bases the
        verifier doubts beside an accepted base of their size and paint."""
        from models.squad import among_its_squad

        cands = c.candidates
        likelihood = None if cands is None else cands.likelihood(c.centres_px[faint], c.diameter_mm[faint])
        if likelihood is None:  # no base map: nothing vouches for the place
            return np.zeros(len(faint), bool)
        return among_its_squad(
            c.rect, c.px_per_mm, c.centres_px[faint], c.diameter_mm[faint], likelihood,
            c.centres_px[chosen], c.diameter_mm[chosen],
        )

    def _retry_far(self, c: FittedCandidates, score: np.ndarray, markers: list[np.ndarray]) -> None:
        """Refit the rims the verifier rejects where the base map expects a base, from starts
        FAR_RESTART_MM around them (see FAR_RETRY_LIKELIHOOD). Updates `c` and `score` in place."""
        from models.rim_fit import restart_moves

        if c.likelihood is None:
            return
        idx = _unclaimed(c, score, (score < RETRY_PROBABILITY) & (c.likelihood >= FAR_RETRY_LIKELIHOOD))
        self._refit_from(c, score, markers, idx, restart_moves(len(idx), c.px_per_mm, FAR_RESTART_MM))

    def _retry_against_the_shadows(
        self, c: FittedCandidates, score: np.ndarray, markers: list[np.ndarray]
    ) -> None:
        """Refit the rims still rejected where the base map sees a base at all from starts
        SHADOW_STEPS_MM back from the way the shadows fall (see SHADOW_RETRY_LIKELIHOOD).
        Updates `c` and `score` in place."""
        from models.shadow import shadow_direction

        if c.likelihood is None:
            return
        bar = _accept_bar(c.diameter_mm)
        accepted = np.nonzero(score >= bar)[0]
        # One look at each base: a vote peak's rim and a map peak's on one base would count its
        # shadow twice, the worse-fitted one's crescent askew.
        overlap = _overlaps(c.centres_px[accepted], c.nominal_radius_px[accepted])
        accepted = accepted[_non_overlapping(overlap, score[accepted], np.ones(len(accepted), bool))]
        falling = shadow_direction(c.rect, c.centres_px[accepted], c.radius_px[accepted], c.px_per_mm)
        if falling is None:
            return
        idx = _unclaimed(c, score, (score < bar) & (c.likelihood >= SHADOW_RETRY_LIKELIHOOD))
        back = -np.multiply.outer(np.asarray(SHADOW_STEPS_MM) * c.px_per_mm, falling)  # (starts, 2)
        self._refit_from(c, score, markers, idx, np.broadcast_to(back[:, None], (len(back), len(idx), 2)))

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
        fits = _right_size(c.measured(flat_r), diameter) & ~_on_markers(c.table_cm(flat_c), markers)
        usable = np.flatnonzero(fits)
        verdict = np.full(starts * n, -1.0)
        verdict[usable] = self.verifier.probability(
            rim_patches(c.rect, flat_c[usable], flat_r[usable], c.nadir_px, diameter[usable])
        )
        verdict = verdict.reshape(starts, n)
        best, rims = verdict.argmax(0), np.arange(n)
        again = verdict[best, rims]
        better = (again > score[idx]) & (
            (again >= FAR_ACCEPT_PROBABILITY) | (again < _accept_bar(c.diameter_mm[idx]))
        )
        j = idx[better]
        c.centres_px[j], c.radius_px[j] = centres[best, rims][better], radius[best, rims][better]
        score[j] = again[better]
        c.plausible[j] = True

    def _retry_doubtful(self, c: FittedCandidates, score: np.ndarray) -> None:
        """Refit the rims the verifier doubts from starts around them; keep a refit it likes more.

        Updates `c` and `score` in place.
        """
        from models.rim_fit import best_supported, refits, restart_moves
        from models.verifier import rim_patches

        idx = np.nonzero(c.plausible & (score >= RETRY_PROBABILITY) & (score < _accept_bar(c.diameter_mm)))[0]
        if not len(idx):
            return
        centres, radius = best_supported(*refits(
            c.rect, c.centres_px[idx], c.radius_px[idx], c.nominal_radius_px[idx],
            c.nadir_px, c.camera_cm[2] * 10, c.px_per_mm, restart_moves(len(idx), c.px_per_mm),
        ))
        patches = rim_patches(c.rect, centres, radius, c.nadir_px, c.diameter_mm[idx])
        again = self.verifier.probability(patches)
        better = _right_size(c.measured(radius), c.diameter_mm[idx]) & (again > score[idx])
        j = idx[better]
        c.centres_px[j], c.radius_px[j], score[j] = centres[better], radius[better], again[better]

    def _retry_centred(self, c: FittedCandidates, score: np.ndarray) -> None:
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
        bar = _accept_bar(c.diameter_mm)
        idx = _unclaimed(c, score, c.plausible & (score >= RETRY_PROBABILITY) & (score < bar))
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

    def _retry_mapped(self, c: FittedCandidates, score: np.ndarray) -> None:
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
        free = _unclaimed_points(c, score, start, radius)
        start, diameter, radius = start[free], diameter[free], radius[free]
        if not len(start):
            return
        bar = _accept_bar(c.diameter_mm)
        centres = self.centring.followed(c.rect, start, radius, c.nadir_px, diameter, MAPPED_LOOKS)
        again = self.verifier.probability(rim_patches(c.rect, centres, radius, c.nadir_px, diameter))
        for i in np.nonzero(again >= _accept_bar(diameter))[0]:
            same = np.nonzero(cands.diameter_mm == diameter[i])[0]
            row = same[np.argmin(np.linalg.norm(cands.centres_px[same] - start[i], axis=1))]
            accepted = np.nonzero(score >= bar)[0]
            dist = np.linalg.norm(c.centres_px[accepted] - centres[i], axis=1)
            if score[row] >= bar[row] or _overlap(dist, radius[i], c.nominal_radius_px[accepted]).any():
                continue
            c.centres_px[row], c.radius_px[row], score[row] = centres[i], radius[i], again[i]
            c.plausible[row] = True


def _unclaimed(c: FittedCandidates, score: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The rims in `wanted` farther than their own radius from every accepted one."""
    idx = np.nonzero(wanted)[0]
    return idx[_unclaimed_points(c, score, c.centres_px[idx], c.nominal_radius_px[idx])]


def _unclaimed_points(
    c: FittedCandidates, score: np.ndarray, points_px: np.ndarray, radius_px: np.ndarray
) -> np.ndarray:
    """Which points lie farther than their radius from every accepted rim's centre: a point
    beside an accepted rim is that base's, found already."""
    accepted = np.nonzero(score >= _accept_bar(c.diameter_mm))[0]
    if not len(points_px) or not len(accepted):
        return np.ones(len(points_px), bool)
    gap = np.linalg.norm(points_px[:, None] - c.centres_px[None, accepted], axis=-1).min(1)
    return gap > radius_px


def _accept_bar(diameter_mm: np.ndarray) -> np.ndarray:
    return np.where(diameter_mm > 50, ACCEPT_PROBABILITY_65, ACCEPT_PROBABILITY)


def _sure(fit: RimFit | FittedCandidates) -> np.ndarray:
    return (fit.coverage >= SURE_COVERAGE) & (fit.contrast >= SURE_CONTRAST)


def _right_size(measured_mm: np.ndarray, nominal_mm: np.ndarray) -> np.ndarray:
    ratio = measured_mm / nominal_mm - 1
    return (ratio > -SIZE_TOLERANCE[0]) & (ratio < SIZE_TOLERANCE[1])


def marker_squares_cm(calibration) -> list[np.ndarray]:
    """The calibration markers' squares (their printed circles of bits are not bases)."""
    layout = getattr(calibration, "layout", None)
    if layout is not None and hasattr(layout, "corners_by_id"):
        return list(layout.corners_by_id.values())
    return list(getattr(calibration, "markers_cm", []))


def _on_markers(xy_cm: np.ndarray, squares: list[np.ndarray]) -> np.ndarray:
    """Centres on a marker sheet (square plus its white margin, plus a base radius)."""
    hit = np.zeros(len(xy_cm), bool)
    for corners in squares:
        centre = corners.mean(0)
        side = np.linalg.norm(corners[1] - corners[0])
        hit |= np.linalg.norm(xy_cm - centre, axis=1) < sheet_reach(side) + 2.0
    return hit


def _on_vehicles(xy_cm: np.ndarray, vehicles: Vehicles, margin_cm: float = 1.0) -> np.ndarray:
    """Base centres inside a hull footprint (turret rings, hatches, wheels seen from above)."""
    hit = np.zeros(len(xy_cm), bool)
    for i in range(len(vehicles)):
        hit |= _depth_inside(xy_cm, vehicles[i]) > -margin_cm
    return hit


def _depth_inside(xy_cm: np.ndarray, hull: Vehicles) -> np.ndarray:
    """How far each point lies inside one hull's footprint, to its nearest side (cm; negative
    outside, along or across)."""
    t = np.radians(hull.heading_deg[0])
    rel = xy_cm - hull.xy_cm[0]
    along = np.abs(rel @ [np.cos(t), np.sin(t)])
    across = np.abs(rel @ [-np.sin(t), np.cos(t)])
    return np.minimum(hull.length_cm[0] / 2 - along, hull.width_cm[0] / 2 - across)


def _against(bases: Bases, hull: Vehicles, camera_cm: np.ndarray) -> np.ndarray:
    """Bases standing against a rough hull (a squad beside a tank), which its blob took in, not
    turret rings: seen where a ring on the roof would stand on the footprint (the parallax of
    a roof's height undone), their centres lie within EDGE_RADII of their radius inside the
    outline, where a turret ring sits a radius and a half in (it spans 0.64 of the width)."""
    from models.hull_shape import HULL_HEIGHT_CM

    nadir = camera_cm[:2]
    on_roof = nadir + (bases.xy_cm - nadir) * (camera_cm[2] - HULL_HEIGHT_CM) / camera_cm[2]
    return _depth_inside(on_roof, hull) < EDGE_RADII * bases.diameter_mm / 20


def _non_overlapping(overlap: np.ndarray, score: np.ndarray, keep: np.ndarray) -> np.ndarray:
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


def _overlaps(centres: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Which circles overlap one another (`_overlap`)."""
    dist = np.linalg.norm(centres[:, None] - centres[None], axis=-1)
    overlap = _overlap(dist, radius[:, None], radius[None])
    np.fill_diagonal(overlap, False)
    return overlap


def _overlap(dist: np.ndarray, radius: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Whether circles this far apart overlap (touching, with a quarter radius of slack for the
    fit, is not)."""
    return dist <= radius + other - 0.25 * np.minimum(radius, other)


def _in_the_gaps(overlap: np.ndarray, score: np.ndarray, faint: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Faint rims, best first, where neither an accepted base nor a better faint one stands."""
    taken = list(chosen)
    out: list[int] = []
    for i in np.argsort(-score, kind="stable"):
        if faint[i] and not overlap[i, taken].any():
            taken.append(int(i))
            out.append(int(i))
    return np.array(out, dtype=np.int64)


SHIPPED_WEIGHTS = Path(__file__).parent / "weights" / "rim_verifier.onnx"


def load_detector(weights: str | None = None) -> Detector:
    """The detector with its rim verifier, base map, centring net, hull map and hull-fit net;
    `weights` names the verifier's ONNX file (None: the shipped one). The other four are always
    the shipped ones: they rank and place the rims of any verifier, and draw and place the hulls.

    Should a shipped file be absent (a source checkout without weights), the classical
    thresholds run instead of the verifier, the votes alone rank the candidates, the rim fit
    alone places them, the masks alone find the hulls and their measured sides stand; a file
    the user names must exist and load.
    """
    from models.base_map import SHIPPED_BASE_MAP, BaseMap
    from models.centring import SHIPPED_CENTRING, Centring
    from models.hull_fit import SHIPPED_HULL_FIT, HullFit
    from models.hull_map import SHIPPED_HULL_MAP, HullMap

    base_map = _shipped_net(BaseMap, SHIPPED_BASE_MAP, "the base map", "--base-map")
    centring = _shipped_net(Centring, SHIPPED_CENTRING, "the centring net", "--centring")
    hull_map = _shipped_net(HullMap, SHIPPED_HULL_MAP, "the hull map", "--hull-map")
    hull_fit = _shipped_net(HullFit, SHIPPED_HULL_FIT, "the hull-fit net", "--hull-fit")
    path = Path(weights) if weights is not None else SHIPPED_WEIGHTS
    if weights is None and not path.exists():
        return Detector(base_map=base_map, centring=centring, hull_map=hull_map, hull_fit=hull_fit)
    if path.is_dir():
        # The folder the weights ship in is the likelier mistake: the file inside must be named.
        raise TablesightError(
            f"--weights {path} is a folder, not a model file",
            "pass the .onnx file itself (e.g. models/weights/rim_verifier.onnx), or leave the option out",
        )
    if not path.is_file():
        raise TablesightError(
            f"model file {path} does not exist",
            "pass a .onnx file made by `tablesight train`, or leave the option out to use the shipped model",
        )
    verifier = _loaded(
        RimVerifier, path, f"model file {path} is not a usable rim-verifier ONNX model",
        "re-create it with `tablesight train`, or leave the option out to use the shipped model",
    )
    return Detector(verifier, base_map, centring, hull_map, hull_fit)


def _shipped_net(load: Callable[[Path], _Net], path: Path, name: str, option: str) -> _Net | None:
    """A net the detector ships beside the verifier, None where its file is absent (a source
    checkout without weights); a file that is there must load."""
    if not path.exists():
        return None
    return _loaded(
        load, path, f"{name} {path} is not a usable ONNX model",
        "restore it from the repository (git checkout -- models/weights), or re-create it with "
        f"`tablesight train {option}`",
    )


def _loaded(load: Callable[[Path], _Net], path: Path, problem: str, fix: str) -> _Net:
    """`load(path)`, or one line naming the file and what to do: onnxruntime raises its own
    exception types for unreadable models, with messages of many lines."""
    try:
        return load(path)
    except Exception as error:
        raise TablesightError(f"{problem} ({error})".split("\n")[0], fix) from error
