"""Eighteenth audit pass against the Russian seed texts (session 54).

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, hull, scene

CA = "combined-arms"


@pytest.mark.parametrize(
    ("chassis", "passengers", "seats", "boards"),
    [
        ("apc", 11, None, True),
        ("apc", 12, None, False),
        ("tank", 6, None, False),
        ("car", 5, 6, True),
        ("car", 6, 6, False),
        ("car", 16, None, False),
        ("car", 9, None, True),
        ("tractor", None, None, False),
    ],
)
def test_ca_a_fighter_boards_only_a_vehicle_with_a_free_seat(
    chassis: str, passengers: int | None, seats: int | None, boards: bool
) -> None:
    """002: «Перевозка пехоты ведётся автомобилями, БТР и на танках согласно количеству мест»
    (infantry ride in cars, APCs and on tanks according to the number of seats); «Стандартное
    количество посадочных мест: 4-16 для автомобиля, 12 для БТР, 6 для танков». A fighter touching
    a full APC's hull met `embark` all the same, and so did one touching a tractor. Now a full
    vehicle or a tractor takes no one; a car whose card is not given, with 9 aboard, may have room."""
    card = {"chassis": chassis}
    if passengers is not None:
        card["passengers"] = passengers
    if seats is not None:
        card["seats"] = seats
    vehicle = hull(100, 60, "v", side="red", unit="ride", length_mm=100, width_mm=60, **card)
    fighter = base(100 + 5 + 1.6, 60, "f")
    embark = api.check(scene(CA, [vehicle, fighter]))["proximity"]["embark"]["f"]
    assert embark["met"] is boards
    assert embark["near"] == (["v"] if boards else [])


def test_ca_a_tractor_carries_no_fighters() -> None:
    """002: a tractor tows guns («либо на гусеничных тягачах») but infantry ride «автомобилями, БТР и
    на танках»: a tractor with passengers is over its capacity, not left undecided."""
    tractor = hull(100, 60, "v", side="red", unit="tug", chassis="tractor", passengers=2)
    report = api.check(scene(CA, [tractor]))["transport"]["v"]
    assert report["seats"] == 0 and report["within_capacity"] is False
