"""Transport capacity (Combined Arms): how many fighters a vehicle carries against its seats.

«Стандартное количество посадочных мест: 4-16 для автомобиля, 12 для БТР, 6 для танков». The
camera cannot count fighters inside a hull, so the scene says how many are aboard
(`passengers`) and, for a car, how many seats its card gives (`seats`).
"""

from __future__ import annotations

from rules_core.errors import SceneError
from rules_core.scene import Scene


def transport_report(scene: Scene) -> dict[str, dict]:
    """Every transport vehicle with `passengers` set: its seats and whether they suffice."""
    rule = scene.ruleset.transport
    report: dict[str, dict] = {}
    for i, model in enumerate(scene.models):
        if model.type not in rule.vehicle_types or model.passengers is None:
            continue
        seats = model.seats if model.seats is not None else rule.seats.get(model.chassis or "")
        span = rule.seats_range.get(model.chassis or "")
        if model.seats is not None and span is not None and not span[0] <= model.seats <= span[1]:
            raise SceneError(
                f"scene field models[{i}].seats (model {model.id!r}): {model.seats} seats, "
                f"a {model.chassis} has {span[0]} to {span[1]}",
                "give the seat count from the vehicle's card",
            )
        report[model.id] = {
            "chassis": model.chassis,
            "passengers": model.passengers,
            "seats": seats,
            "within_capacity": None if seats is None else model.passengers <= seats,
        }
    return report
