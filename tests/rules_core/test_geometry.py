"""Geometry invariants of footprint distances (hypothesis), checked against closed forms."""

from __future__ import annotations

import math

import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core import pathing
from rules_core.footprints import Footprints
from rules_core.scene import BaseSpec, ModelSpec

coord = st.floats(min_value=-200, max_value=200, allow_nan=False)
size_mm = st.floats(min_value=10, max_value=300, allow_nan=False)
angle = st.floats(min_value=0, max_value=360, allow_nan=False, exclude_max=True)


@st.composite
def footprints(draw: st.DrawFn) -> dict:
    if draw(st.booleans()):
        return {
            "x": draw(coord),
            "y": draw(coord),
            "heading": 0.0,
            "base": BaseSpec(shape="round", diameter_mm=draw(size_mm)),
        }
    return {
        "x": draw(coord),
        "y": draw(coord),
        "heading": draw(angle),
        "base": BaseSpec(shape="rect", length_mm=draw(size_mm), width_mm=draw(size_mm)),
    }


def edge(a: dict, b: dict, dx: float = 0.0, dy: float = 0.0, turn: float = 0.0) -> float:
    models = []
    for k, f in enumerate((a, b)):
        c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
        x, y = f["x"] + dx, f["y"] + dy
        x, y = c * x - s * y, s * x + c * y
        models.append(
            ModelSpec(
                id=str(k),
                side="s",
                unit="u",
                type="infantry",
                x_cm=x,
                y_cm=y,
                heading_deg=(f["heading"] + turn) % 360,
                base=f["base"],
            )
        )
    return float(Footprints.of_models(models).edge(0, 1))


@settings(max_examples=60, deadline=None)
@given(footprints(), footprints())
def test_edge_distance_is_symmetric(a: dict, b: dict) -> None:
    assert math.isclose(edge(a, b), edge(b, a), abs_tol=1e-9)


@settings(max_examples=60, deadline=None)
@given(footprints(), footprints(), coord, coord, angle)
def test_edge_distance_is_invariant_under_translation_and_rotation(
    a: dict, b: dict, dx: float, dy: float, turn: float
) -> None:
    assert math.isclose(edge(a, b), edge(a, b, dx, dy, turn), abs_tol=1e-6)


@settings(max_examples=60, deadline=None)
@given(coord, coord, size_mm, size_mm, angle)
def test_touching_round_bases_are_at_zero_and_overlaps_stay_zero(
    x: float, y: float, d1: float, d2: float, direction: float
) -> None:
    gap = (d1 + d2) / 20
    for factor in (1.0, 0.5):
        b = {
            "x": x + factor * gap * math.cos(math.radians(direction)),
            "y": y + factor * gap * math.sin(math.radians(direction)),
            "heading": 0.0,
            "base": BaseSpec(shape="round", diameter_mm=d2),
        }
        a = {"x": x, "y": y, "heading": 0.0, "base": BaseSpec(shape="round", diameter_mm=d1)}
        assert edge(a, b) == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=0, max_value=100), st.floats(min_value=-5, max_value=5), size_mm, angle)
def test_round_base_beside_a_hull_matches_the_closed_form(
    gap: float, offset: float, d: float, heading: float
) -> None:
    """A 200x100 mm hull; a base beside its long side, within the side's span: distance = gap."""
    hull = {
        "x": 0.0,
        "y": 0.0,
        "heading": heading,
        "base": BaseSpec(shape="rect", length_mm=200, width_mm=100),
    }
    h = math.radians(heading)
    along, across = (math.cos(h), math.sin(h)), (-math.sin(h), math.cos(h))
    reach = 5 + d / 20 + gap
    x = offset * along[0] + reach * across[0]
    y = offset * along[1] + reach * across[1]
    round_base = {"x": x, "y": y, "heading": 0.0, "base": BaseSpec(shape="round", diameter_mm=d)}
    assert math.isclose(edge(hull, round_base), gap, abs_tol=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=0.1, max_value=50), size_mm)
def test_round_base_off_a_hull_corner_is_the_corner_distance(gap: float, d: float) -> None:
    hull = {"x": 0.0, "y": 0.0, "heading": 0.0, "base": BaseSpec(shape="rect", length_mm=200, width_mm=100)}
    r = d / 20
    away = (gap + r) / math.sqrt(2)
    round_base = {
        "x": 10 + away,
        "y": 5 + away,
        "heading": 0.0,
        "base": BaseSpec(shape="round", diameter_mm=d),
    }
    assert math.isclose(edge(hull, round_base), gap, abs_tol=1e-6)


@settings(max_examples=40, deadline=None)
@given(
    st.tuples(st.floats(0, 100), st.floats(0, 100)),
    st.tuples(st.floats(0, 100), st.floats(0, 100)),
    st.lists(st.tuples(st.floats(0, 100), st.floats(0, 100), st.floats(1, 8)), max_size=6),
)
def test_way_round_is_never_shorter_than_straight_and_is_symmetric(
    start: tuple, end: tuple, discs: list
) -> None:
    obstacles = [shapely.Point(x, y).buffer(r, quad_segs=3) for x, y, r in discs]
    there = pathing.shortest_path(start, end, obstacles)
    back = pathing.shortest_path(end, start, obstacles)
    assert there >= math.dist(start, end) - 1e-9
    assert there == back or math.isclose(there, back, rel_tol=1e-9, abs_tol=1e-9)
    assert pathing.shortest_path(start, end, []) == math.dist(start, end)
