"""The detector: every base and vehicle of a frame, in table centimetres.

It works on the rectified top-down image, where a 32 mm base is always the same size. Stages:
candidates (circle votes at the known radii), the parallax-aware rim fit that gives the
millimetres and the measured diameter, the centring net's last word on each accepted centre,
non-maximum suppression in table space (two bases can never overlap), and vehicle footprints
(the hull map's proposals among them, measured like the rest). The verifier's second looks at
rims it rejects live in `second_looks.py`, the merge in `overlaps.py`, the hulls' claims on
bases in `hull_claims.py`.
Per-stage timings are kept on the detector for the benchmark, because the whole frame has a
budget of ~250 ms.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

from models.detections import Bases, Detections
from models.fitted import ACCEPT_PROBABILITY, CLASSES_MM, FittedCandidates, accept_bar, right_size, sure
from models.marker_squares import marker_squares_cm, on_markers
from models.overlaps import in_the_gaps, non_overlapping, overlaps
from models.verifier import RimVerifier
from rules_core.errors import TablesightError

if TYPE_CHECKING:
    from models.base_map import BaseMap
    from models.centring import Centring
    from models.focus import FrameBlur
    from models.hull_fit import HullFit
    from models.hull_map import HullMap
    from models.rim_fit import RimFit

_Net = TypeVar("_Net")

# Below this a base spans under ~20 px; the rectified image is upsampled so the fit has room.
MIN_PX_PER_MM = 0.8
MAX_PX_PER_MM = 1.5
MIN_COVERAGE = 0.7  # classical fallback only; 0.6 let ~15 % false rims through after the lower edge threshold
MIN_CONTRAST = 1.3
PLAUSIBLE_COVERAGE = 0.25
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
                return (self.verifier.ring_probability(patches) >= SCREEN_PROBABILITY) | sure(screened)

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
            right_size(out.measured_mm, cands.diameter_mm)
            & (fit.coverage >= PLAUSIBLE_COVERAGE)
            & ~on_markers(out.xy_cm, markers)
        )
        self.timings_ms = {
            "rectify": (t1 - t0) * 1000,
            "candidates": (t2 - t1) * 1000,
            "rim_fit": (time.perf_counter() - t2) * 1000,
        }
        return out

    def detect(self, image: np.ndarray, calibration) -> Detections:
        from models.hull_claims import hulls_and_bases
        from models.miniature import carries_a_miniature
        from models.second_looks import SecondLooks

        c = self.fitted_candidates(image, calibration)
        markers = marker_squares_cm(calibration)
        t0 = time.perf_counter()
        if self.verifier is not None:
            from models.verifier import rim_patches

            score = np.zeros(len(c.coverage))
            idx = np.nonzero(c.plausible)[0]
            patches = rim_patches(c.rect, c.centres_px[idx], c.radius_px[idx], c.nadir_px, c.diameter_mm[idx])
            score[idx] = self.verifier.probability(patches)
            certain = c.plausible & sure(c)
            score[certain] = np.maximum(score[certain], ACCEPT_PROBABILITY)
            SecondLooks(self.verifier, self.centring).take(c, score, markers)
            keep = score >= accept_bar(c.diameter_mm)
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
        overlap = overlaps(c.centres_px[contest], c.nominal_radius_px[contest])
        won = non_overlapping(overlap, score[contest], keep[contest])
        gaps = in_the_gaps(overlap, score[contest], faint[contest], won)
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
        bases, vehicles, faint_bases = hulls_and_bases(
            c, bases, faint_bases, markers, self.hull_map, self.hull_fit
        )
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
        ok = right_size(c.measured(radius), c.diameter_mm[idx])  # else keep the verified fit
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

SHIPPED_WEIGHTS = Path(__file__).parent / "weights" / "rim_verifier.onnx"


# A damaged shipped model: the product is installed with `pip install .`, so a checkout restored
# by git is not the file that was read until it is installed again.
RESTORE_SHIPPED = ("reinstall tablesight to restore it (`git checkout -- models/weights`, then "
                   "`pip install .` in its repository), or re-create it with `tablesight train{option}`")


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
    from calibration.output_file import using

    with using(path, verb="read"):  # a file or folder the user may not read, a name too long
        folder, regular = path.is_dir(), path.is_file()
        if regular:
            path.open("rb").close()
    if folder:
        # The folder the weights ship in is the likelier mistake: the file inside must be named.
        raise TablesightError(
            f"--weights {path} is a folder, not a model file",
            "pass the .onnx file itself (e.g. models/weights/rim_verifier.onnx), or leave the option out",
        )
    if not regular:
        raise TablesightError(
            f"model file {path} {'is a pipe or a device, not a file' if path.exists() else 'does not exist'}",
            "pass a .onnx file made by `tablesight train`, or leave the option out to use the shipped model",
        )
    verifier = _loaded(
        RimVerifier, path, f"model file {path} is not a usable rim-verifier ONNX model",
        "re-create it with `tablesight train`, or leave the option out to use the shipped model"
        if weights is not None else RESTORE_SHIPPED.format(option=""),
    )
    return Detector(verifier, base_map, centring, hull_map, hull_fit)


@functools.cache
def shipped_detector() -> Detector:
    """The shipped detector, loaded once a process for every pipeline that runs in it (the
    demo's fresh game each loop, a replay from the web UI beside the live table): its ONNX
    sessions loaded anew and dropped each time kept their native memory, and the demo grew by
    ~100 MB a minute (2 GB after 16 min); with one detector it stays level. It keeps no state
    between frames but its timings, and onnxruntime runs a session from several threads."""
    return load_detector()


def _shipped_net(load: Callable[[Path], _Net], path: Path, name: str, option: str) -> _Net | None:
    """A net the detector ships beside the verifier, None where its file is absent (a source
    checkout without weights); a file that is there must load."""
    if not path.exists():
        return None
    return _loaded(load, path, f"{name} {path} is not a usable ONNX model",
                   RESTORE_SHIPPED.format(option=f" {option}"))


def _loaded(load: Callable[[Path], _Net], path: Path, problem: str, fix: str) -> _Net:
    """`load(path)`, or one line naming the file and what to do: onnxruntime raises its own
    exception types for unreadable models, with messages of many lines."""
    try:
        return load(path)
    except Exception as error:
        raise TablesightError(f"{problem} ({error})".split("\n")[0], fix) from error
