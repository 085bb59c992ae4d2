"""In which order the units moved: one order for the whole turn, not one per unit.

The camera sees a turn's moves all at once, but the player made them one unit at a time, and
«отряды не могут проходить друг через друга, заканчивать движение на подставках друг друга»
(units may not pass through one another nor end on one another's bases) holds at each move:
a unit passes where another stood only if that one had already gone, and may end where
another stood only after it left. Judging each unit against its own convenient order let two
units walk head-on through each other, and three take each other's places in a ring, all
"legal". So the units whose straight moves meet another moved unit are put in one order: a
unit whose line meets another only where that one stood moved after it, one whose line meets
another only where that one stopped moved before it (a line meeting both passes it either way,
so those two may have moved in any order). Where the lines ask for a ring, no order explains
the turn, and the ring is broken at the unit first by id: it moved first, into the way of one
still standing, and is judged so. Ids, not the scene's listing, decide, so the verdicts do not
change with the order a tracker lists models in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Order:
    """The turn's order where the moves fix it: for each unit, the units its order is fixed
    against (`bound`), and those of them that moved after it, still standing where they stood
    while it moved (`later`). Units not bound to each other may have moved either way round."""

    bound: dict[str, frozenset[str]]
    later: dict[str, frozenset[str]]


def order(units: Sequence[str], meets: Callable[[str, str], tuple[bool, bool]]) -> Order:
    """The one order of the units' moves that their straight lines ask for (`meets(unit, other)`:
    the unit's line meets the other where it stood, where it stopped). A line that meets another
    in both places passes it either way, so it fixes nothing."""
    first: dict[str, set[str]] = {unit: set() for unit in units}  # who must have moved before
    bound: dict[str, set[str]] = {}
    for unit in units:
        for other in units:
            stood, stopped = meets(unit, other) if other != unit else (False, False)
            if stood == stopped:
                continue
            earlier, later = (other, unit) if stood else (unit, other)
            first[later].add(earlier)
            bound.setdefault(unit, set()).add(other)
            bound.setdefault(other, set()).add(unit)
    sequence: list[str] = []
    left = set(bound)
    while left:
        ready = [unit for unit in left if not first[unit] & left]
        # A ring: the unit still waiting for the fewest, first by id, goes anyway.
        unit = min(ready) if ready else min(left, key=lambda u: (len(first[u] & left), u))
        sequence.append(unit)
        left.remove(unit)
    position = {unit: k for k, unit in enumerate(sequence)}
    return Order(
        bound={unit: frozenset(others) for unit, others in bound.items()},
        later={
            unit: frozenset(other for other in others if position[other] > position[unit])
            for unit, others in bound.items()
        },
    )
