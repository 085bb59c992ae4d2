"""The way round stays on the table (session 55's audit of World at Fire).

«Во время движения отряды не могут проходить друг через друга» (units may not pass through each
other while moving), and a wall's breach lets a base through only if it is 32 mm wide or more:
a way round is a way across the table. The path search had no edge, so a move blocked by a rock
or a line of enemies touching the edge was legal by a path round them off the table.
"""

from __future__ import annotations

import pytest

from tests.rules_core.builders import base, codes, moved

WAF = "world-at-fire"


def _rock(x0: float, x1: float, y0: float, y1: float) -> dict:
    return {"id": "rock", "kind": "impassable", "polygon_cm": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


def test_a_rock_touching_the_edge_is_passed_round_its_far_end_not_off_the_table() -> None:
    """A rock from the edge 40 cm into the table, a rifleman 3 cm from the edge beside it: the way
    round off the table was 14.6 cm of his 15 and legal; on the table it is 80 cm."""
    report = moved(WAF, [base(56, 3, "a")], [base(65, 3, "a")], terrain=[_rock(60, 61, 0, 40)])["a"]
    assert codes(report) == ["impassable_terrain"]
    assert report["path_cm"] > 75


def test_a_line_of_enemies_along_the_edge_is_no_gap_to_slip_round() -> None:
    """Two enemy bases from the edge out, a rifleman beside the edge walking past them: round them
    on the table, 2 cm clear, is 22 cm of his 15; the way off the table, 13 cm, was legal."""
    enemies = [base(61, 1.6 + 3.2 * k, f"e{k}", side="blue", unit="blue-1") for k in range(2)]
    before = [base(55, 2, "a"), *enemies]
    after = [base(67, 2, "a"), *enemies]
    report = moved(WAF, before, after)["a"]
    assert codes(report) == ["passes_through_model"]
    assert report["path_cm"] > 20


def test_a_wall_across_the_whole_table_leaves_no_way_round() -> None:
    """Impassable from edge to edge: there is no way round at all, not one round its ends."""
    report = moved(WAF, [base(50, 60, "a")], [base(60, 60, "a")], terrain=[_rock(54, 55, 0, 122)])["a"]
    assert codes(report) == ["impassable_terrain"]
    assert report["path_cm"] is None
    assert "no way round" in report["reasons"][0]["detail"]


@pytest.mark.parametrize("y", [1.6, 5.0])
def test_a_way_round_between_a_rock_and_the_edge_that_the_base_fits_is_taken(y: float) -> None:
    """A rock 6 cm from the edge leaves a lane a 32 mm base fits: a rifleman beside the edge (or
    touching it) walks round the rock's near end, on the table, within his 15 cm."""
    report = moved(WAF, [base(50, y, "a")], [base(60, y, "a")], terrain=[_rock(54, 56, 6.0, 40)])["a"]
    assert report["legal"], report


@pytest.mark.parametrize(("start_y", "end_y"), [(1.0, 3.0), (1.3, 1.7)], ids=["over-the-edge", "both-near"])
def test_a_base_hanging_over_the_edge_finds_no_way_round_off_the_table(start_y: float, end_y: float) -> None:
    """A rifleman whose base hangs 0.6 cm over the edge (camera noise, a base set down on the
    edge), or 0.3 cm over it and ending just short of touching: the floor beyond was dropped as
    an obstacle he overlapped, and the way round off the table (12-13 cm) was legal again."""
    report = moved(WAF, [base(56, start_y, "a")], [base(65, end_y, "a")], terrain=[_rock(60, 61, 0, 40)])["a"]
    assert codes(report) == ["impassable_terrain"]
    assert report["path_cm"] > 75
