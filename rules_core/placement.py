"""Deployment order (World at Fire): units are placed one at a time, the players alternating.

«Игрок, который ходит первым, должен теперь разместить один свой отряд в своей зоне
расстановки, затем один свой отряд размещает второй игрок, и так дальше по очереди ... (кроме
отрядов с правилом «Диверсия» и «С Небес» - они прибывают на второй ход в зону противника)».
The camera sees where units stand, not when they were put down, so the scene numbers each
placement (`placed_order` on the unit's models) and may name the `first_player`.
"""

from __future__ import annotations

from rules_core.scene import Scene


def placement_report(scene: Scene) -> dict:
    """The placement sequence by unit, the units placed out of turn, and the units that may not
    be on the table at deployment (they arrive on turn 2)."""
    rule = scene.ruleset.deployment_order
    placed: dict[str, tuple[int, str]] = {}
    early: list[str] = []
    for model in scene.models:
        if model.placed_order is not None:
            order, _ = placed.get(model.unit, (model.placed_order, model.side))
            placed[model.unit] = (min(order, model.placed_order), model.side)
        if any(model.has(flag) for flag in rule.late_flags) and model.unit not in early:
            early.append(model.unit)
    sequence = sorted(placed, key=lambda unit: (placed[unit][0], unit))
    sides = [placed[unit][1] for unit in sequence]
    out_of_turn = []
    first = scene.spec.first_player
    for k, unit in enumerate(sequence):
        if k == 0:
            if first is not None and sides[0] != first:
                out_of_turn.append(unit)
            continue
        other_left = any(side != sides[k - 1] for side in sides[k:])
        if sides[k] == sides[k - 1] and other_left:
            out_of_turn.append(unit)
    return {
        "sequence": sequence,
        "alternating": not out_of_turn,
        "out_of_turn": out_of_turn,
        "arrive_later": early if scene.phase == "deployment" else [],
    }
