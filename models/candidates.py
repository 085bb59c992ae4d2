"""Where bases might be: circle evidence at the two known radii on the rectified table.

On the rectified image a base of a given class always has the same radius in pixels, so each
strong edge pixel votes for the centre one radius away along its gradient, in both directions
(a black rim on sand and a sand rim on black mat look alike). Peaks in the vote map are
candidates; the rim fit decides. Colour edges count too: the strongest channel's gradient is
used, because a green rim on brown earth can be flat in grey.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from models.base_map import CLASS_SPLIT_MM, BaseMap, likelihood_at, map_peaks
from models.medians import row_median


@dataclass(frozen=True)
class Candidates:
    centres_px: np.ndarray  # (n, 2) rectified pixels
    diameter_mm: np.ndarray  # (n,) nominal class
    votes: np.ndarray  # (n,) share of the circumference that voted
    map_probability: np.ndarray | None = None  # the base map's (2, h/8, w/8) on the vote image, if one ran
    vote_scale: float = 1.0  # the vote image's size over the rectified image's

    def likelihood(self, centres_px: np.ndarray, diameter_mm: np.ndarray) -> np.ndarray | None:
        """The base map's likelihood at points of the rectified image, None without a map."""
        if self.map_probability is None:
            return None
        return likelihood_at(self.map_probability, (centres_px + 0.5) * self.vote_scale - 0.5, diameter_mm)

    def map_peaks(self, bar: float) -> tuple[np.ndarray, np.ndarray]:
        """The base map's peaks from `bar` (`map_peaks`) in the rectified image's pixels, and
        their channels; none without a map."""
        if self.map_probability is None:
            return np.zeros((0, 2)), np.zeros(0, np.int64)
        peaks, channels = map_peaks(self.map_probability, bar)
        return (peaks + 0.5) / self.vote_scale - 0.5, channels


def colour_gradient(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel, the gradient (gx, gy, magnitude) of whichever colour channel changes most."""
    best_gx = best_gy = best = None
    for channel in cv2.split(image):
        gx = cv2.Sobel(channel, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(channel, cv2.CV_32F, 0, 1, ksize=3)
        mag = cv2.magnitude(gx, gy)
        if best is None:
            best_gx, best_gy, best = gx, gy, mag
            continue
        # Copied in place under OpenCV's mask: the same pixels as three np.where, in 40 % of the time.
        more = cv2.compare(mag, best, cv2.CMP_GT)
        for chosen, candidate in ((best_gx, gx), (best_gy, gy), (best, mag)):
            cv2.copyTo(candidate, more, chosen)
    return best_gx, best_gy, best


@dataclass(frozen=True)
class EdgePixels:
    """The pixels that vote: where they are, their unit gradient and their vote's weight."""

    xs: np.ndarray
    ys: np.ndarray
    ux: np.ndarray
    uy: np.ndarray
    weight: np.ndarray
    shape: tuple[int, int]


def edge_pixels(gx: np.ndarray, gy: np.ndarray, mag: np.ndarray, threshold: float) -> EdgePixels:
    """Found once and shared by every size class's vote map (half the voting's cost)."""
    xs, ys = _where(cv2.compare(mag, threshold, cv2.CMP_GT))
    m = mag[ys, xs]
    return EdgePixels(xs, ys, gx[ys, xs] / m, gy[ys, xs] / m, np.minimum(m / (3 * threshold), 1.0), mag.shape)


def _where(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x and y of a mask's set pixels (bool or 0/255), in np.nonzero's order: OpenCV lists
    them in a third to half of numpy's time."""
    found = cv2.findNonZero(mask.view(np.uint8))
    if found is None:
        return np.zeros(0, np.int32), np.zeros(0, np.int32)
    found = found.reshape(-1, 2)  # (n, 1, 2) from OpenCV 4, (n, 2) from OpenCV 5
    return found[:, 0], found[:, 1]


def vote_map(edges: EdgePixels, radius_px: float) -> np.ndarray:
    """Each edge pixel adds one vote at +-radius along its gradient; blurred to absorb parallax."""
    h, w = edges.shape
    # Both directions at once: a dark rim on a light mat and a light rim on a dark one.
    dx, dy = radius_px * edges.ux, radius_px * edges.uy
    cx = np.rint(np.concatenate([edges.xs + dx, edges.xs - dx])).astype(np.int64)
    cy = np.rint(np.concatenate([edges.ys + dy, edges.ys - dy])).astype(np.int64)
    # Votes off the image go to one spare bin past its end, cheaper than picking out the rest.
    at = cy * w + cx
    at[(cx < 0) | (cx >= w) | (cy < 0) | (cy >= h)] = h * w
    votes = np.bincount(at, weights=np.tile(edges.weight, 2), minlength=h * w + 1)[: h * w]
    sigma = max(1.0, radius_px * 0.08)
    smooth = cv2.GaussianBlur(votes.reshape(h, w).astype(np.float32), (0, 0), sigma)
    # Normalise so that a full, sharp circle scores about 1 whatever its size.
    return smooth * (2 * np.pi * sigma**2) / (2 * np.pi * radius_px)


# Edges weaker than this many times the frame's median gradient do not vote. Low, so that a
# rim barely differing from the mat (brown on mud, flock on grass) still gathers votes: the
# rim fit and the verifier do the rejecting (2.5 lost ~3 % of hard bases before the fit).
EDGE_THRESHOLD = 1.8
VOTE_PX_PER_MM = 0.5  # a 32 mm base is 16 px across here: plenty to vote, 4x cheaper than full size
# A peak need only be the highest within this share of the radius (+-2 mm for a 32 mm base).
# A base's miniature, its shadow or a neighbour can raise a stronger, false peak 5-15 mm from a
# faint rim's centre; suppressing within 0.45 radius hid a third of the hard validation misses,
# and the rim fit started from the false peak could not reach the rim (recall there 0.862 ->
# 0.889, fresh hard tables 0.829 -> 0.858, false rims 18 -> 16 over four sets).
PEAK_SPACING = 0.15
# The larger class's vote map peaks on mat texture about as often as the 32 mm one, but a table
# holds a few 65 mm bases against dozens of 32 mm ones: ranked together, 56-109 of a textured
# frame's 400 candidates were 65 mm peaks, and faint 32 mm rims fell below the cut. Capped at an
# eighth (50 of 400), six validation sets gained 5 bases and lost 2 false rims; the clean
# sets did not change.
LARGER_SHARE = 0.125
# Ranked by the base map, fewer candidates reach more bases: the six validation sets found
# 2,985 / 2,984 / 2,985 / 2,984 / 2,980 bases with 24 / 23 / 21 / 19 / 16 false rims keeping
# all 400 / 300 / 250 / 200 / 150 (the votes alone: 2,963 with 19 at 400); at 150 the
# path-traced hard tables lost 3. Half the candidates also halve the rim fit's work.
MAPPED_SHARE = 0.5
# The base map's own peaks join the candidates where no kept vote peak of their class lies
# within MAP_PEAK_AWAY_MM: a base flocked like its mat, or blurred, raises no vote peak (30 of
# the 52 path-traced hard validation misses had none of their class within 5 mm), but its
# figure and its shadow show on the map (65 of the 75 path-traced hard bases without a
# candidate had a map peak of 0.4 or more within a cell). A cell's centre lies up to 11 mm from
# the base, and the far refits start around it (`models/detector.py`). On the eight validation
# sets (5,075 bases) 4,894 -> 4,927 bases, false rims 47 -> 50 (path-traced hard 589 -> 597
# with 3). A kept peak farther than 5 mm seldom reaches its base: away 8 mm, 4,910 with 48;
# 3 mm, 4 more on the six hard sets for 3 more false rims. Placed within its cell by a
# parabola through its neighbours (away 8 mm), a peak did no better than the cell's centre
# (4,911 / 47 from 0.5, 4,916 / 50 from 0.4, 4,908 / 48 from 0.6). From 0.4 rather than 0.5 since
# session 65, once the centring net followed the map's peaks (`SecondLooks.mapped`): a base
# flocked like its mat is often rated under even odds, and followed from there the verifier
# accepted it (path-traced hard 602 -> 608 of 636 with 4 false rims as before; five painted hard
# sets 3,009 -> 3,014 with 45 -> 47; clean sets unchanged; from 0.3, 611 and 3,015 with 53).
MAP_PEAK_LIKELIHOOD = 0.4
MAP_PEAK_AWAY_MM = 5.0


def vote_image(image: np.ndarray, px_per_mm: float) -> tuple[np.ndarray, float]:
    """The table at the vote scale (or as it is, when coarser) and the factor it was shrunk by."""
    f = min(1.0, VOTE_PX_PER_MM / px_per_mm)
    return (cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else image), f


def find_candidates(
    image: np.ndarray,
    px_per_mm: float,
    classes_mm: tuple[float, ...] = (32.0, 65.0),
    min_votes: float = 0.13,
    limit: int = 400,
    base_map: BaseMap | None = None,
) -> Candidates:
    """Vote-map peaks for every size class, in `image` pixels (the rim fit refines them).

    With a `base_map` the peaks are ranked by their votes times the square root of its
    likelihood there for their class (`models/base_map.py`), and `MAPPED_SHARE` of `limit` kept;
    after them come the map's own peaks that no kept peak of their class stands near
    (`MAP_PEAK_LIKELIHOOD`, `MAP_PEAK_AWAY_MM`).
    """
    small, f = vote_image(image, px_per_mm)
    vote_ppm = px_per_mm * f
    gx, gy, mag = colour_gradient(small)
    sample = mag[::2, ::2]  # a quarter of the pixels gives the same median, 4x cheaper
    valid = sample[sample > 0]
    threshold = float(max(10.0, EDGE_THRESHOLD * row_median(valid))) if len(valid) else 10.0
    edges = edge_pixels(gx, gy, mag, threshold)
    found_px, classes, scores, maps = [], [], [], []
    for diameter in classes_mm:
        radius = diameter / 2 * vote_ppm
        votes = vote_map(edges, radius)
        maps.append(votes)
        size = int(2 * round(radius * PEAK_SPACING) + 1)
        peaks = (votes == cv2.dilate(votes, np.ones((size, size), np.uint8))) & (votes > min_votes)
        xs, ys = _where(peaks)
        found_px.append(np.column_stack([xs, ys]).astype(np.float64))
        classes.append(np.full(len(xs), diameter))
        scores.append(votes[ys, xs].astype(np.float64))
    # Peaks stay in the vote image's pixels until chosen: the base map reads that image.
    votes, classes, peak_px = np.concatenate(scores), np.concatenate(classes), np.vstack(found_px)
    rank, probability = votes, None
    if base_map is not None:
        probability = base_map.probabilities(small)
        rank = votes * np.sqrt(likelihood_at(probability, peak_px, classes))
        limit = round(MAPPED_SHARE * limit)
    # The rim fit's cost grows with the count; keep the likeliest, few of them of the larger sizes.
    order = np.argsort(-rank, kind="stable")
    larger = classes[order] > min(classes_mm)
    best = order[~(larger & (np.cumsum(larger) > LARGER_SHARE * limit))][:limit]
    peak_px, classes, votes = peak_px[best], classes[best], votes[best]
    if probability is not None:
        unvoted, unvoted_mm, unvoted_votes = _unvoted_peaks(
            probability, peak_px, classes, dict(zip(classes_mm, maps, strict=True)), vote_ppm
        )
        peak_px, classes = np.vstack([peak_px, unvoted]), np.concatenate([classes, unvoted_mm])
        votes = np.concatenate([votes, unvoted_votes])
    return Candidates((peak_px + 0.5) / f - 0.5, classes, votes, probability, f)


def _unvoted_peaks(
    probability: np.ndarray,
    kept_px: np.ndarray,
    kept_mm: np.ndarray,
    vote_maps: dict[float, np.ndarray],
    vote_ppm: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The base map's peaks (MAP_PEAK_LIKELIHOOD and up) farther than MAP_PEAK_AWAY_MM from every
    kept peak of their class: (n, 2) vote-image pixels, (n,) classes and the votes there (each
    class's vote map, by diameter, in `vote_maps`)."""
    centres, channels = map_peaks(probability, MAP_PEAK_LIKELIHOOD)
    chosen_px, chosen_mm, chosen_votes = [np.zeros((0, 2))], [np.zeros(0)], [np.zeros(0)]
    for diameter, votes in vote_maps.items():
        mine = centres[channels == int(diameter > CLASS_SPLIT_MM)]
        kept = kept_px[kept_mm == diameter]
        if len(mine) and len(kept):
            gap = np.linalg.norm(mine[:, None] - kept[None], axis=-1).min(1) / vote_ppm
            mine = mine[gap > MAP_PEAK_AWAY_MM]
        # The map's last row and column of cells may reach a few pixels past the image's edge.
        at = np.clip(np.rint(mine).astype(np.int64), 0, np.array(votes.shape[::-1]) - 1)
        chosen_px.append(mine)
        chosen_mm.append(np.full(len(mine), diameter))
        chosen_votes.append(votes[at[:, 1], at[:, 0]].astype(np.float64))
    return np.vstack(chosen_px), np.concatenate(chosen_mm), np.concatenate(chosen_votes)
