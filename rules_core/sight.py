"""Who sees whom: a straight line from centre to centre that no sight-blocking piece crosses.

Each ruleset says which terrain kinds screen sight (`blocks_sight`: buildings, walls, relief);
fire, a leader's eye, an interception's trigger and a scout's observation all read it.
"""

from __future__ import annotations

import numpy as np
import shapely

from rules_core.scene import Scene


def sight_blockers(scene: Scene) -> list[shapely.Polygon]:
    """The scene's pieces that screen sight, as polygons."""
    return [
        shapely.Polygon(t.polygon_cm)
        for t in scene.spec.terrain
        if scene.ruleset.terrain[t.kind].blocks_sight
    ]


def sight_between(scene: Scene, seers: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """(seers x seen) True where one sees the other, centre to centre. A wood or a building hides
    what stands behind it, not what stands in it; a piece that screens fire as well (a smoke
    screen: «непростреливаема», nothing sees through it) hides what stands in it too."""
    terrain = scene.ruleset.terrain
    screens = [t for t in scene.spec.terrain if terrain[t.kind].blocks_sight]
    open_inside = [shapely.Polygon(t.polygon_cm) for t in screens if not terrain[t.kind].blocks_fire]
    closed = [shapely.Polygon(t.polygon_cm) for t in screens if terrain[t.kind].blocks_fire]
    return sight_lines(open_inside, seers, seen) & sight_lines(closed, seers, seen, seen_in=False)


def fire_blockers(scene: Scene) -> list[shapely.Polygon]:
    """The scene's pieces no fire crosses (a smoke screen), as polygons."""
    return [
        shapely.Polygon(t.polygon_cm)
        for t in scene.spec.terrain
        if scene.ruleset.terrain[t.kind].blocks_fire
    ]


def sight_lines(
    blockers: list[shapely.Polygon], shooters: np.ndarray, targets: np.ndarray, seen_in: bool = True
) -> np.ndarray:
    """(shooters x targets) True where the centre-to-centre line crosses no blocking piece. With
    `seen_in` a piece either model stands in does not block: it shoots out of it, or is seen in
    it (a wood, a building). Without, a line that enters the piece at all is blocked: a smoke
    screen «непростреливаема», so no one fires into it or out of it."""
    clear = np.ones((len(shooters), len(targets)), dtype=bool)
    if not blockers:
        return clear
    pairs = np.stack(
        [np.repeat(shooters, len(targets), axis=0), np.tile(targets, (len(shooters), 1))], axis=1
    )
    lines = shapely.linestrings(pairs)
    from_points, to_points = shapely.points(shooters), shapely.points(targets)
    for piece in blockers:
        shapely.prepare(piece)
        if not seen_in:
            entering = shapely.intersects(lines, piece) & ~shapely.touches(lines, piece)
            clear &= ~entering.reshape(len(shooters), len(targets))
            continue
        crossing = shapely.crosses(lines, piece).reshape(len(shooters), len(targets))
        clear &= ~(
            crossing
            & ~shapely.covers(piece, from_points)[:, None]
            & ~shapely.covers(piece, to_points)[None, :]
        )
    return clear
