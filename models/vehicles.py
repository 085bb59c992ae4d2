"""Vehicles: hull footprints as oriented rectangles, found coarse and measured at full resolution.

The stage runs once the bases are final. Each hull-sized, solid, rectangular blob of the coarse
masks (`models/hull_view.py`, `models/hull_blobs.py`) is measured on the full-resolution
rectified table side by side (`models/hull_sides.py`): the sides facing the camera's nadir are
the footprint's bottom edges, sought out past the band of the tallest hull's wall (a mask may
end at the roof), and the far sides are roof edges, pulled back by the parallax of a typical
hull height (`models/hull_shape.py`); the sides' slopes turn the heading. A blob whose walls are
a building's is none (`models/hull_walls.py`). The hull map's footprints are measured too, and a
blob the measuring refused is placed by the hull-fit net where the map is sure of it. Hulls
cannot overlap each other or a found base (a side measured over a base standing against it
moves back to touch it), and the end the gun sticks out of is the front (`models/gun.py`).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import TYPE_CHECKING

import cv2
import numpy as np
from shapely.geometry import Polygon

from models.detections import Bases, Vehicles, heading_axes
from models.gun import gun_end, gun_scores
from models.hull_blobs import coarse_blobs, found_under, ground_in_shadow, occluded_blobs
from models.hull_shape import (
    GEAR_CM,
    LENGTH_CM,
    WIDTH_CM,
    Blob,
    axes_of,
    hull_footprint,
    near_sides_of,
    roof_blob,
    rotated_extent,
    wall_band,
)
from models.hull_sides import (
    MAX_TILT_DEG,
    SEARCH_CM,
    SIDE_ALONG_PX,
    WIDE_SEARCH_CM,
    averaged_near_side,
    fit_side,
    lighter_than_ground,
    side_offsets,
)
from models.hull_view import PX_PER_CM, TableView
from models.hull_walls import a_building

if TYPE_CHECKING:
    from models.hull_fit import HullFit

SIDES = ((0, 0), (0, 1), (1, 0), (1, 1))  # (axis, end): the two ends, then the two long sides
PIECE_SHARE = 0.75  # a hull found whole over a pieced one covers at least this share of it
OVERLAP = 0.25  # share of a footprint another may cover (a measuring error, not a second hull)
# How far a found base's disc may reach over a measured hull's side: a base touching a hull,
# both measured to a few millimetres (validation, 13 sets: every overlap up to 0.28 cm was on a
# hull placed within 5 mm but one; path-traced 300,017 and 300,024 reach 1.03 and 0.70 cm, the
# hulls' ends measured on the bases' rims).
BASE_OVERLAP_CM = 0.4
# A rim centred on a measured hull, or up to this past its side (a quarter of a 32 mm base's
# radius), is the hull's own edge or turret, which the detector drops: a base standing against
# a hull is centred a whole radius out.
ON_A_HULL_CM = 0.4
# The hull map's mean probability over a footprint: a hull the masks found needs some (a tree,
# a building or a painted patch of the mat it has learned are none), one it proposed much.
MIN_SUPPORT = 0.2
LEARNED_SUPPORT = 0.6
# A blob the measuring refused is placed by the hull-fit net where the map is surer still over
# the net's footprint (eight validation sets: the two such hulls placed right had 0.87 and
# 0.94, the false ones 0.63 at most).
NET_PLACED_SUPPORT = 0.75
COARSE_SLACK_CM = 1.5  # the coarse blob's sides may be this far off the measured ones
NEAR_REACH_CM = 1.0  # a near side is sought this far past the band of the tallest hull's wall
NEAR_SIDE_WEIGHT = 0.7  # a near side's line is a wall's foot, often in shade: its slope counts for less
SETTLED_DEG = 0.2
MIN_CONFIDENCE = 0.7  # a hull is solid and straight-sided (fill times share of profiles on the lines)
# A far side the coarse outline stands in for is no measured line, but no crooked one either: counted
# as none (0), a dark roof on a busy mat whose other sides are a little ragged fell under
# MIN_CONFIDENCE (tuning tables: +1 hull of 182 on hard tables at 0.3-0.5, false ones from 0.8).
STOOD_IN_STRAIGHT = 0.4
# A hull the map barely supports is kept beside a platoon mate it is sure of (`_in_a_platoon`):
# measured this solid and straight, within this gap, this far turned and of its size to this share.
PLATOON_CONFIDENCE = 0.85
PLATOON_GAP_CM = 3.0
PLATOON_DEG = 10.0
PLATOON_SIZE = 0.15
# Two fronts this close, the hulls nose to nose (turned within FACING_DEG of it), show one
# barrel between them: a column's leader sees its follower's gun over its own rear deck.
FACING_CM = 6.0
FACING_DEG = 30.0
# A hull turned away from the gap only where its other end shows this share of what the gap
# end shows: a column's leader's own gun (0.7-0.93 of it on the blind check's columns), not
# the bare rear deck of a tank that faces the other.
REAR_SHARE = 0.5


def find_vehicles(
    view: TableView, camera_cm: np.ndarray, bases: Bases, refine: bool = True, hull_fit: HullFit | None = None
) -> Vehicles:
    """Hull footprints on the table, with the found bases (and what stands on them) cut out.

    Without `refine` only the coarse blobs of the plain mask are measured: enough to know where
    hulls stand (to tell a turret ring from a base). Hulls an arm lies across are pieced
    together last; such a hull gives way to one found whole of about its size there. With a
    `hull_fit` net, blobs the measuring refused that the hull map is sure of are placed by it.
    """
    found: list[tuple] = []
    refused: list[Blob] = []
    # The masks mostly see the same hulls: the most solid blob of a hull is measured, the rest
    # of its blobs (centred on it) are passed over, which also halves the measuring.
    for blob in sorted(coarse_blobs(view, bases, len(view.masks) if refine else 1), key=lambda b: -b.fill):
        if refine and _on_found(blob, found):
            continue
        hull = _measured(view, blob, camera_cm) if refine else _coarse(view, blob, camera_cm)
        if hull is not None:
            found.append(_clear_of_bases(hull, bases) if refine else hull)
        elif refine:
            refused.append(blob)
    if refine:
        for blob in occluded_blobs(view, bases, found):
            hull = _measured(view, blob, camera_cm)
            if hull is not None and not _over_a_whole_hull(hull, found):
                found.append(_clear_of_bases(hull, bases))
        for blob in _learned_blobs(view, camera_cm):
            if _on_found(blob, found):
                continue
            hull = _measured(view, blob, camera_cm)
            if hull is not None and _map_support(view, hull) >= LEARNED_SUPPORT:
                found.append(_clear_of_bases(hull, bases))
            elif hull is None:
                refused.append(blob)
        if hull_fit is not None and view.hulls is not None:
            for blob in refused:
                hull = None if _on_found(blob, found) else _placed_by_the_net(view, blob, camera_cm, hull_fit)
                if hull is not None and not _over_a_whole_hull(hull, found):
                    found.append(_clear_of_bases(hull, bases))
        if view.hulls is not None:
            support = [_map_support(view, hull) for hull in found]
            found = [
                hull for hull, shown in zip(found, support, strict=True)
                if shown >= MIN_SUPPORT or _in_a_platoon(hull, found, support)
            ]
    if not found:
        return Vehicles.empty()
    vehicles = _as_vehicles(found)
    vehicles = vehicles[_distinct(vehicles)]
    return _one_barrel_between(view, camera_cm, vehicles) if refine else vehicles


def _one_barrel_between(view: TableView, camera_cm: np.ndarray, vehicles: Vehicles) -> Vehicles:
    """Hulls nose to nose turned so that only one points its gun into the gap between them.

    In a column 1-3 cm apart the follower's barrel lies over the leader's rear deck, and the
    leader's rear end showed it more than its own front showed its gun: the leader was turned
    round (a blind check: 4 of 7 columns). Both ends facing the gap see the one barrel; the
    hull it belongs to shows it down the whole third of its roof the search covers, the other
    only where it overhangs, so the end that shows it less is turned away, where its other end
    shows a gun of its own: two tanks that really face each other each have a bare rear deck
    (a review's renders: 6 of 7 such pairs had one turned round without that). A hull turned
    round points to another gap: the pairs are looked at again after each turn, in any order the
    hulls were found (a column of three read facing back kept its rear hull turned round where
    the pair with it came first).
    """
    heading = vehicles.heading_deg.copy()
    for _ in range(2 * len(vehicles)):  # bounded: a later turn could undo an earlier one
        away = _turned_away(view, camera_cm, vehicles, heading)
        if away is None:
            break
        heading[away] = (heading[away] + 180.0) % 360
    return replace(vehicles, heading_deg=heading)


def _turned_away(
    view: TableView, camera_cm: np.ndarray, vehicles: Vehicles, heading: np.ndarray
) -> int | None:
    """The first hull of a pair nose to nose that shows the barrel between them less, where its
    other end shows a gun of its own (see `_one_barrel_between`); None where no hull is."""
    along, _ = heading_axes(heading)
    fronts = vehicles.xy_cm + along * (vehicles.length_cm / 2)[:, None]
    for i, j in combinations(range(len(vehicles)), 2):
        if (np.linalg.norm(fronts[i] - fronts[j]) > FACING_CM
                or along[i] @ along[j] > -np.cos(np.radians(FACING_DEG))):
            continue
        (front_i, rear_i), (front_j, rear_j) = (
            _ends_show(view, vehicles[k], heading[k], camera_cm) for k in (i, j)
        )
        away, front, rear = (j, front_j, rear_j) if front_j < front_i else (i, front_i, rear_i)
        if rear >= REAR_SHARE * front:
            return away
    return None


def _in_a_platoon(hull: tuple, found: list[tuple], support: list[float]) -> bool:
    """Whether a solid, straight-sided hull the map barely supports stands in a row with a hull
    it is sure of: parallel, of its size, within PLATOON_GAP_CM. The map learned from hulls
    standing apart and may miss one of a column or a row parked close (a blind check: supports
    0.04-0.19 on tanks measured within 1-5 mm, their mates at 0.8); a tree or a building the
    masks took for a hull is not the size and heading of the tank beside it."""
    if hull[4] < PLATOON_CONFIDENCE:
        return False
    footprint = Polygon(_as_vehicles([hull]).corners_cm()[0])
    for other, shown in zip(found, support, strict=True):
        if other is hull or shown < LEARNED_SUPPORT:
            continue
        turned = abs((other[3] - hull[3] + 90.0) % 180.0 - 90.0)
        alike = abs(other[1] / hull[1] - 1) <= PLATOON_SIZE and abs(other[2] / hull[2] - 1) <= PLATOON_SIZE
        near = footprint.distance(Polygon(_as_vehicles([other]).corners_cm()[0])) <= PLATOON_GAP_CM
        if turned <= PLATOON_DEG and alike and near:
            return True
    return False


def _ends_show(view: TableView, hull: Vehicles, heading: float, camera_cm: np.ndarray) -> tuple[float, float]:
    """How strongly a barrel shows at the end of one hull its heading points to, and at the other."""
    blob = roof_blob(hull.xy_cm[0], hull.length_cm[0], hull.width_cm[0], heading, camera_cm, 1.0)
    low, high = gun_scores(view, blob)
    return (high, low) if heading_axes(heading)[0] @ blob.axes[0] > 0 else (low, high)


def _map_support(view: TableView, hull: tuple) -> float:
    """The hull map's mean probability over a measured footprint."""
    corners = _as_vehicles([hull]).corners_cm()[0] * PX_PER_CM - 0.5
    box = cv2.boundingRect(np.round(corners).astype(np.int32))
    x0, y0 = max(0, box[0]), max(0, box[1])
    window = view.hulls[y0 : box[1] + box[3] + 1, x0 : box[0] + box[2] + 1]
    inside = np.zeros(window.shape, np.uint8)
    cv2.fillPoly(inside, [np.round(corners - [x0, y0]).astype(np.int32)], 1)
    return float(window[inside > 0].mean()) if inside.any() else 0.0


def _placed_by_the_net(
    view: TableView, blob: Blob, camera_cm: np.ndarray, hull_fit: HullFit
) -> tuple | None:
    """The hull the hull-fit net places in a blob the measuring refused, or None.

    Some hulls show no straight colour step on a side: a hull whose shadow the coarse blob took
    in on both long sides, the end of one standing against a building's shadow. The net reads
    the whole picture, so where the hull map is sure of the blob and surer still of the net's
    footprint, that footprint is the hull (eight validation sets: 333 -> 335 of 359 placed
    within 5 mm and 2 degrees, no false hull more; given the true footprints 3 degrees and a
    centimetre off, it placed half of the 16 hulls found nowhere else). A building passes
    neither wall test, as for a measured hull.
    """
    coarse = hull_footprint(blob, camera_cm)
    if coarse is None or _map_support(view, (*coarse, blob.heading_deg, 1.0)) < LEARNED_SUPPORT:
        return None
    centre, length, width, heading = hull_fit.placed(
        view.rect, view.px_per_mm, camera_cm, coarse[0], blob.heading_deg
    )
    placed = roof_blob(centre, length, width, heading, camera_cm, 1.0)
    if hull_footprint(placed, camera_cm) is None:
        return None
    support = _map_support(view, (centre, length, width, heading, 1.0))
    if support < NET_PLACED_SUPPORT:
        return None
    if a_building(view, placed, camera_cm):
        return None
    front = placed.heading_deg + (180.0 if gun_end(view, placed) < 0 else 0.0)
    return centre, length, width, front % 360, support


def _learned_blobs(view: TableView, camera_cm: np.ndarray) -> list[Blob]:
    """The hull map's footprints as blobs to measure, each seen as the masks see a hull."""
    if view.hulls is None:
        return []
    from models.hull_map import footprints

    return [
        roof_blob(centre, length, width, heading, camera_cm, 1.0)
        for centre, length, width, heading in footprints(view.hulls, PX_PER_CM)
        if LENGTH_CM[0] * 0.9 <= length <= LENGTH_CM[1] and WIDTH_CM[0] * 0.9 <= width <= WIDTH_CM[1]
    ]


def _as_vehicles(found: list[tuple]) -> Vehicles:
    """Hulls as measured here, (centre, length, width, heading, confidence) each, in one array set."""
    return Vehicles(*(np.array([hull[k] for hull in found]) for k in range(5)))


def _coarse(view: TableView, blob: Blob, camera_cm: np.ndarray) -> tuple | None:
    hull = hull_footprint(blob, camera_cm)
    if hull is None or (blob.cut and ground_in_shadow(view, blob)):
        return None
    return (*hull, blob.heading_deg % 360, blob.fill)


def _measured(view: TableView, blob: Blob, camera_cm: np.ndarray) -> tuple | None:
    """The hull a coarse blob holds, measured at full resolution, or None when it holds none."""
    if hull_footprint(blob, camera_cm, COARSE_SLACK_CM) is None:
        return None
    blob = _refined(view, blob, camera_cm)
    if blob is None:
        return None
    hull = hull_footprint(blob, camera_cm)
    if hull is None or blob.fill < MIN_CONFIDENCE:
        return None
    if blob.cut and ground_in_shadow(view, blob):
        return None
    if a_building(view, blob, camera_cm):
        return None
    heading = blob.heading_deg + (180.0 if gun_end(view, blob) < 0 else 0.0)
    return (*hull, heading % 360, blob.fill)


def clear_of_bases(vehicles: Vehicles, bases: Bases) -> Vehicles:
    """Measured hulls with every side that runs over one of these bases moved back to touch it.

    For the bases the rough blobs had swallowed: measuring leaves them out (they might be a
    turret ring), and those found off the measured hull come back only afterwards, so a side
    measured on such a base's rim is moved back here (path-traced 300,024: an end 12.4 mm out
    over a touching squad's rim).
    """
    measured = zip(
        vehicles.xy_cm, vehicles.length_cm, vehicles.width_cm, vehicles.heading_deg, vehicles.confidence,
        strict=True,
    )
    hulls = [_clear_of_bases(hull, bases) for hull in measured]
    return _as_vehicles(hulls) if hulls else vehicles


def _clear_of_bases(hull: tuple, bases: Bases) -> tuple:
    """The hull with every side that runs over a found base moved back until it only touches it.

    A base standing against a hull lends the hull its rim: the measured end or side then lies
    on the base, which no hull can, since both stand on the table. Off a corner, the side that
    ran over the rim is the one the base's centre lies the less far past (a side measured
    true has it a radius out, squarely or at a slant). Rims on the hull or just past its side
    are its own turret ring or edge (the detector drops them), so they move nothing; and a
    hull left too small for one is kept as measured.
    """
    xy, length, width, heading, confidence = hull
    axes = axes_of(heading)
    extent = np.array([[-length / 2, length / 2], [-width / 2, width / 2]])
    for centre, diameter in zip(bases.xy_cm, bases.diameter_mm, strict=True):
        rel = axes @ (centre - xy)
        beyond = np.maximum(extent[:, 0] - rel, rel - extent[:, 1])  # past each pair of sides
        if beyond.max() <= ON_A_HULL_CM:
            continue  # the hull's own edge or turret
        past = np.maximum(beyond, 0.0)  # the centre's offset from the footprint, per axis
        radius = diameter / 20
        if radius - np.linalg.norm(past) <= BASE_OVERLAP_CM:
            continue
        # The side that ran over the rim: the one the centre lies past (off a corner, the less
        # far past), moved back until the rim clears the footprint.
        k = int(np.argmin(np.where(beyond > 0, beyond, np.inf)))
        back = np.sqrt(radius**2 - past[1 - k] ** 2) - past[k]
        extent[k, int(rel[k] > 0)] -= np.copysign(back, rel[k])
    size = extent[:, 1] - extent[:, 0]
    if size[0] < LENGTH_CM[0] or size[1] < WIDTH_CM[0]:
        return hull
    return xy + axes.T @ extent.mean(axis=1), float(size[0]), float(size[1]), heading, confidence


def _over_a_whole_hull(hull: tuple, found: list[tuple]) -> bool:
    """Whether a hull pieced together across an arm, or placed by the net, lies over one measured
    whole: a hull measured from one piece is much the smaller (a piece of it), one the pieced
    hull's size was the hull itself, cut by a shadow or blotch the paint test took for an
    occluder. Two hulls of one kit parked 2 cm apart, staggered, make one blob a diagonal
    hull's size: the net placed a hull across the gap there, larger than either measured one."""
    corners = _as_vehicles([hull, *found]).corners_cm()
    pieced = Polygon(corners[0])
    return any(
        pieced.intersection(whole := Polygon(other)).area > OVERLAP * whole.area
        and whole.area >= PIECE_SHARE * pieced.area
        for other in corners[1:]
    )


def _on_found(blob: Blob, found: list[tuple]) -> bool:
    """Whether the blob's centre lies on a hull found already."""
    return bool(found_under(blob.centre_cm, found))


def _distinct(vehicles: Vehicles) -> np.ndarray:
    """Hulls cannot overlap: of footprints that do (two masks saw one hull, or a turret and barrel
    cut a piece off a roof), the largest, whole one is kept."""
    footprints = [Polygon(corners) for corners in vehicles.corners_cm()]
    kept: list[int] = []
    for i in np.argsort(-vehicles.length_cm * vehicles.width_cm, kind="stable"):
        if all(footprints[i].intersection(footprints[j]).area <= OVERLAP * footprints[i].area for j in kept):
            kept.append(int(i))
    return np.array(kept, dtype=np.int64)


def _refined(view: TableView, blob: Blob, camera_cm: np.ndarray) -> Blob | None:
    """The blob's four sides measured at full resolution (heading from the sides' slopes).

    The sides are measured again on the turned axes; should they come out less straight there
    (a side pulled off by the hull's shadow or a base at its end), the first measure places
    the hull, at the confidence of the second (tuning tables: clean 146 -> 147 of 153 found,
    hard false 12 -> 11; keeping the first's confidence too found one more hard hull but let
    two trees and buildings through).
    """
    coarse_fill = blob.fill
    first: Blob | None = None
    for _ in range(2):
        near_sides = near_sides_of(blob, camera_cm)
        fits = []
        stood_in = False
        for side in SIDES:
            near = side in near_sides
            fit = _side_fit(view, blob, camera_cm, side, near, first is not None)
            if fit is None and not near and not stood_in and not blob.cut:
                # A roof the mat's colour may show no straight edge on one far side; the
                # coarse outline stands in there, once, and counts as a side half seen.
                fit, stood_in = (float(blob.extent[side]), 0.0, STOOD_IN_STRAIGHT), True
            if fit is None:
                return None
            fits.append(fit)
        for axis, least in ((0, LENGTH_CM[0]), (1, WIDTH_CM[0])):
            if fits[2 * axis + 1][0] - fits[2 * axis][0] >= least:
                continue
            # Both sides of an axis were sought past a shadow and met inside (a dark brown hull
            # on sand is the mat's hue darkened, and its gun's line stopped both). A hull casts
            # its shadow on one long side and one end at most, never on two opposite sides: there
            # the lines outside are the hull's own.
            own = [
                _side_fit(view, blob, camera_cm, side, side in near_sides, first is not None, False)
                for side in SIDES[2 * axis : 2 * axis + 2]
            ]
            if None not in own:
                fits[2 * axis : 2 * axis + 2] = own
        # Offsets were measured along +/- normals; a side's slope turns the axes.
        slopes = [-fits[0][1], -fits[1][1], fits[2][1], fits[3][1]]
        length, width = blob.size_cm
        lengths = [width, width, length, length]  # the ends span the width, the long sides the length
        near_weights = [NEAR_SIDE_WEIGHT if side in near_sides else 1.0 for side in SIDES]
        turn = _turn_deg(np.array(slopes), np.array(lengths) * near_weights)
        extent = np.array([[fits[0][0], fits[1][0]], [fits[2][0], fits[3][0]]])
        heading = blob.heading_deg + turn
        # Confidence: how solid the blob was and how straight its four sides are.
        straight = float(np.mean([f[2] for f in fits]))
        extent = rotated_extent(blob, extent, turn)
        blob = Blob(heading, axes_of(heading), extent, coarse_fill * straight, blob.cut)
        if first is not None and first.fill > blob.fill:
            return replace(first, fill=blob.fill)
        first = blob
        if abs(turn) < SETTLED_DEG or hull_footprint(blob, camera_cm, COARSE_SLACK_CM / 3) is None:
            break
    return blob


def _side_fit(
    view: TableView,
    blob: Blob,
    camera_cm: np.ndarray,
    side: tuple[int, int],
    near: bool,
    again: bool,
    past_shadows: bool = True,
) -> tuple[float, float, float] | None:
    """One side's line (offset, slope, straightness), `again` on the turned axes, or None.

    With `past_shadows` a line whose inside is its outside darkened is taken for the hull's
    shadow and the side sought further in (`models.hull_sides.side_offsets`).
    """
    a, e = side
    wall = wall_band(blob, camera_cm, a, e) if near else 0.0
    gear = wall_band(blob, camera_cm, a, e, GEAR_CM) if near else 0.0
    # The coarse blob may be short of a side by more than the window; a side not quite
    # along the coarse heading is smeared by the averaging of neighbouring profiles.
    # The coarse blob may end at a near side's roof edge: its footprint lies out past the wall.
    search = (SEARCH_CM[0], max(SEARCH_CM[1], wall + NEAR_REACH_CM))
    if again and near:
        # Measured again on the turned axes, a near side starts from its foot, found past
        # the wall already: reaching out by the wall's band again, it ran on to the far
        # edge of the hull's own long shadow (two hard validation hulls 1.6-2.6 cm long).
        search = (SEARCH_CM[0], NEAR_REACH_CM)
    for window, along_px in ((search, SIDE_ALONG_PX), (WIDE_SEARCH_CM, SIDE_ALONG_PX), (search, 1)):
        offsets = side_offsets(view, blob, a, e, near, window, gear, along_px, past_shadows=past_shadows)
        fit = fit_side(*offsets)
        if fit is not None:
            return fit
    if near:
        fit = fit_side(*averaged_near_side(view, blob, a, e))
        if fit is None and lighter_than_ground(view, blob, a, e, search):
            # A near side whose hull differs from the mat in lightness alone (light green on
            # dark grass), blurred: the lightness that counts for little there is all it
            # shows, and a step down onto the ground is no shadow's edge, so it is measured
            # as a far side would be (+3 hulls on 12 painted validation sets, 733 hulls; none false).
            fit = fit_side(*side_offsets(view, blob, a, e, False, search, past_shadows=past_shadows))
        return fit
    return None


def _turn_deg(slopes: np.ndarray, weights: np.ndarray) -> float:
    """How far the sides' lines turn the blob's axes (degrees): their slopes' mean, each weighted
    by its side's length, over the sides that agree.

    A rectangle's sides turn together. A side's line is sought within MAX_TILT_DEG of the
    coarse axes, so one whose fitted slope lies further than that from the weighted median of
    all four is ragged (a short end across a gun barrel or a turret's curve, its offsets
    scattered) and is left out: an end at 10-12 degrees turned two short hulls 2.1-2.5 degrees
    off. On 246 validation tables: hard hulls 145 -> 147 of 165, from cameras past the rig's
    ranges 78 -> 80 of 90, clean 123 of 125 with false ones 7 -> 6; the heading's P90 over
    all 357 hulls placed within 3 cm 0.64 -> 0.52 degrees.

    The weights are the sides' lengths, a near side's times NEAR_SIDE_WEIGHT: its line is a
    wall's foot, often in the hull's own shade or against its shadow, and off the hull's true
    heading by more than a far side's roof edge (on 13 validation sets, 845 measures: P90 1.0
    against 0.56 degrees on the long sides, 2.6 against 1.3 on the ends). Two near sides that
    agree with each other then no longer outweigh two far ones (76,022: near sides at -5.2 and
    -4.4 degrees, far ones at 0 and 0.65, turned a hull 4.6 degrees off).
    """
    order = np.argsort(slopes)
    cumulative = np.cumsum(weights[order])
    median = slopes[order][np.searchsorted(cumulative, cumulative[-1] / 2)]
    agree = np.abs(slopes - median) <= np.tan(np.radians(MAX_TILT_DEG))
    return float(np.degrees(np.arctan(np.average(slopes[agree], weights=weights[agree]))))
