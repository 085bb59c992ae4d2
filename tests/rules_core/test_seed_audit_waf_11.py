"""Eleventh audit of World at Fire (seed 000): numbers and boundaries.

Each test failed before its fix; the docstring quotes the seed sentence and translates it.
"""

from __future__ import annotations

import pytest

from tests.rules_core.builders import base, codes, moved

WAF = "world-at-fire"


# --- waf.aircraft.separation: never end over or under an enemy aircraft -------------------------


@pytest.mark.parametrize(
    ("offset_cm", "altitude", "legal"),
    [
        (0.0, 2, False),  # right over it, one altitude apart
        (3.0, 3, False),  # shadows overlapping, two altitudes apart
        (6.5, 2, True),  # shadows touching: beside it, not over it
        (8.0, 2, True),  # 1.5 cm apart in the shadow, +50 cm across altitudes
        (8.0, 1, False),  # the same 1.5 cm at the same altitude: closer than 5 cm
    ],
)
def test_an_aircraft_may_not_end_over_or_under_an_enemy_aircraft(
    offset_cm: float, altitude: int, legal: bool
) -> None:
    """000: «Самолет не может заканчивать свое движение ближе чем в 5 сантиметрах от вражеского
    самолета (измеряются расстояния теней самолетов плюс 50 сантиметров если на разных высотах),
    если же по какой-то причине вам ничего не остается как закончить движение ближе 5 сантиметров
    или даже под/над вражеским самолетом, то считается что вы не справились с управлением»
    (an aircraft may not end its move closer than 5 cm to an enemy aircraft, measured between the
    aircraft's shadows plus 50 cm if at different altitudes; if you have no choice but to end
    closer than 5 cm or even under/over an enemy aircraft, you have lost control). Being under or
    over an aircraft is only possible at another altitude, so the +50 cm does not excuse it: an
    aircraft whose shadow ends overlapping an enemy aircraft's is too close at any altitude."""
    enemy = base(
        100 + offset_cm,
        60,
        "e",
        side="blue",
        type="aircraft",
        diameter_mm=65,
        heading_deg=180.0,
        altitude=altitude,
    )
    plane = base(20, 60, "p", type="aircraft", diameter_mm=65, heading_deg=0.0, altitude=1)
    entry = moved(WAF, [plane, enemy], [{**plane, "x_cm": 100}, enemy])["p"]
    assert entry["legal"] is legal, entry
    assert ("too_close_to_enemy" in codes(entry)) is not legal
