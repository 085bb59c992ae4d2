"""Rule cases whose scenes use only the contract's model fields (id, side, unit, type, x_cm,
y_cm, base, heading_deg, z_cm, wounded, crew_of, chassis, role, weapons), checked against the
seed lines they quote."""

from __future__ import annotations

import pytest

from tests.rules_core.builders import base, codes, moved


@pytest.mark.parametrize(
    ("end_x", "overlap"),
    [(36.5, False), (37.0, True), (38.0, True), (40.0, True)],
)
def test_waf_a_move_may_not_end_partly_on_another_base(end_x: float, overlap: bool) -> None:
    # «отряды не могут проходить друг через друга, заканчивать движение на подставках друг друга»:
    # two 32 mm bases overlap whenever their centres are less than 3.2 cm apart, not only when
    # one centre lies on the other base.
    before = [base(30, 50, id="a", unit="red-1"), base(40, 50, id="b", unit="red-2")]
    after = [base(end_x, 50, id="a", unit="red-1"), base(40, 50, id="b", unit="red-2")]
    entry = moved("world-at-fire", before, after)["a"]
    assert ("overlaps_model" in codes(entry)) is overlap
    assert entry["legal"] is not overlap
