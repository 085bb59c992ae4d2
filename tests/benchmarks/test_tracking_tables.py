"""The scripted tracking game on each seed table: every piece stays on the table, clear of the
markers and of the other pieces, inside the rig camera's picture, and the hands reach in over
the nearer long edge. Checked on the script's truth, nothing rendered."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from shapely.geometry import Point, Polygon

import benchmarks.tracking as tracking
from calibration.layout import default_layout
from models.detections import Vehicles
from models.synth.scene import TABLES
from tracker.demo.scenario import Shot, benchmark_script, rig_camera, two_armies

FIGURE_TOP_CM = 6.0  # above the tallest scripted figure (a rider on its base)


class _Stop(Exception):
    pass


def footprints(shot: Shot) -> dict[str, Polygon]:
    """Each piece's base disc and the tank's hull on the table (cm)."""
    out = {p.id: Point(p.base.x_cm, p.base.y_cm).buffer(p.base.diameter_mm / 20) for p in shot.pieces}
    hulls = Vehicles.placed([v for _, v in shot.vehicles]).corners_cm()
    out.update({vid: Polygon(corners) for (vid, _), corners in zip(shot.vehicles, hulls, strict=True)})
    return out


@pytest.mark.parametrize("table", list(TABLES))
def test_every_piece_stays_on_the_table_clear_of_markers_and_others(table):
    width, depth = TABLES[table]
    board = Polygon([(0, 0), (width, 0), (width, depth), (0, depth)])
    markers = [Polygon(c) for c in default_layout(table).corners_by_id.values()]
    for shot in benchmark_script(table=table).shots:
        shapes = footprints(shot)
        for name, shape in shapes.items():
            assert board.contains(shape), f"{table}, {shot.label}: {name} off the table"
            assert not any(shape.intersects(m) for m in markers), f"{table}, {shot.label}: {name} on a marker"
        names = list(shapes)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                assert not shapes[a].intersects(shapes[b]), f"{table}, {shot.label}: {a} on {b}"


@pytest.mark.parametrize("table", list(TABLES))
def test_the_rig_camera_sees_every_piece_and_the_whole_table(table):
    width, depth = TABLES[table]
    camera = rig_camera(table=table)
    w, h = camera.image_size
    corners = np.array([[0, 0], [width, 0], [width, depth], [0, depth]], dtype=np.float64)
    points = [corners]
    for shot in benchmark_script(table=table).shots:
        for shape in footprints(shot).values():
            outline = np.array(shape.exterior.coords)
            points += [np.c_[outline, np.full(len(outline), z)] for z in (0.0, FIGURE_TOP_CM)]
    for p in points:
        pixels = camera.project(p)
        assert (pixels >= 0).all() and (pixels[:, 0] < w).all() and (pixels[:, 1] < h).all(), table


@pytest.mark.parametrize("table", list(TABLES))
def test_hands_reach_in_over_the_nearer_long_edge(table):
    width, depth = TABLES[table]
    hands = [s.hand for s in benchmark_script(table=table).shots if s.hand is not None]
    assert len(hands) == 18
    for hand in hands:
        assert 0 <= hand.x_cm <= width and 0 <= hand.y_cm <= depth
        shoulder_y = hand.shoulder_cm[1]
        assert shoulder_y < 0 if hand.y_cm < depth / 2 else shoulder_y > depth


def test_the_default_table_keeps_the_places_the_demo_recording_holds():
    """tracker/demo/demo.tsr's preset lists these places as written (the riders' and the tank's as
    integers in its JSON)."""
    pieces, vehicles = two_armies(spacing=5.5)
    first = {p.id: [p.base.x_cm, p.base.y_cm] for p in pieces if p.id in ("ra1", "rc1", "rc2", "bb1")}
    first["bt1"] = [vehicles[0][1].x_cm, vehicles[0][1].y_cm]
    assert json.dumps(first) == (
        '{"ra1": [30.0, 30.0], "rc1": [22, 60], "rc2": [30, 60], "bb1": [140.0, 80.0], "bt1": [158, 62]}'
    )


def test_the_benchmark_plays_on_the_table_asked_for(monkeypatch):
    """Its pipeline, its baseline, the script, the camera and the rendered table all take the
    table asked for (stopped before the first picture is rendered)."""
    asked: dict = {}

    def render_shots(shots, camera, seed, **kw):
        asked.update(shots=shots, camera=camera, table=kw.get("table"))
        raise _Stop

    monkeypatch.setattr(sys, "argv", ["tracking.py", "--table", "244x183"])
    monkeypatch.setattr(tracking, "build_pipeline", lambda layout: asked.setdefault("layout", layout))
    monkeypatch.setattr(tracking, "NearestNeighbourBaseline",
                        lambda table: asked.setdefault("baseline", table))
    monkeypatch.setattr(tracking, "render_shots", render_shots)
    with pytest.raises(_Stop):
        tracking.main()
    assert asked["layout"].table_size_cm == (244.0, 183.0) and len(asked["layout"].ids) == 6
    assert asked["baseline"] == asked["table"] == "244x183"
    assert np.allclose(asked["camera"].K, rig_camera(table="244x183").K)
    assert asked["shots"] == benchmark_script(settle_frames=3, table="244x183").shots
