"""Transport capacity (Combined Arms): how many fighters a vehicle carries against its seats.

«Стандартное количество посадочных мест: 4-16 для автомобиля, 12 для БТР, 6 для танков». The
camera cannot count fighters inside a hull, so the scene says how many are aboard
(`passengers`) and, for a car, how many seats its card gives (`seats`).
"""

from __future__ import annotations

from rules_core.errors import field_error
from rules_core.ruleset import Transport
from rules_core.scene import ModelSpec, Scene


def transport_report(scene: Scene) -> dict[str, dict]:
    """Every transport vehicle with `passengers` set: its seats and whether they suffice."""
    rule = scene.ruleset.transport
    report: dict[str, dict] = {}
    for i, model in enumerate(scene.models):
        if model.type not in rule.vehicle_types or model.passengers is None:
            continue
        seats, span = _card(rule, model)
        if model.seats is not None and span is not None and not span[0] <= model.seats <= span[1]:
            raise field_error(
                ("models", i, "seats"),
                f"{model.seats} seats, a {model.chassis} has {span[0]} to {span[1]}",
                "give the seat count from the vehicle's card",
                model_id=model.id,
            )
        report[model.id] = {
            "chassis": model.chassis,
            "passengers": model.passengers,
            "seats": seats,
            "within_capacity": _fits(model.passengers, seats, span),
        }
    return report


def _fits(passengers: int, seats: int | None, span: tuple[int, int] | None) -> bool | None:
    """Whether the fighters fit: against the seats, or, for a car whose card the scene does not
    give, against the span every car's card lies in (up to 4 fit any car, over 16 none); None
    where it hangs on the card."""
    if seats is not None:
        return passengers <= seats
    if span is None or span[0] < passengers <= span[1]:
        return None
    return passengers <= span[0]


def has_room(scene: Scene, vehicle: ModelSpec) -> bool | None:
    """Whether one more fighter may board: «Перевозка пехоты ведётся автомобилями, БТР и на танках
    согласно количеству мест», so whether one more than are aboard fits. A chassis that carries no
    one (a tractor) has no room; a vehicle whose seats are unknown (no card, no standard count)
    may have room (None), as may a car without its card holding between 4 and 16, and any vehicle
    of a ruleset without transport rules."""
    rule = scene.ruleset.transport
    if rule is None:
        return None
    if vehicle.type not in rule.vehicle_types:
        return False
    return _fits((vehicle.passengers or 0) + 1, *_card(rule, vehicle))


def _card(rule: Transport, vehicle: ModelSpec) -> tuple[int | None, tuple[int, int] | None]:
    """The vehicle's seats (its card's `seats` first, then its chassis' standard count, 0 for a
    chassis that carries no one) and the span a card of its chassis lies in, where there is one."""
    chassis = vehicle.chassis or ""
    seats = vehicle.seats if vehicle.seats is not None else rule.seats.get(chassis)
    if seats is None and chassis in rule.no_seats:
        seats = 0
    return seats, rule.seats_range.get(chassis)
