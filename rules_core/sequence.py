"""In which order the units moved: one order for the whole turn, not one per unit.

The camera sees a turn's moves all at once, but the player made them one unit at a time, and
«отряды не могут проходить друг через друга, заканчивать движение на подставках друг друга»
(units may not pass through one another nor end on one another's bases) holds at each move:
a unit passes where another stood only if that one had already gone, and may end where
another stood only after it left. Judging each unit against its own convenient order let two
units walk head-on through each other, and three take each other's places in a ring, all
"legal". So the units whose straight moves meet another moved unit, where it stood or where
it stopped (`related`), are put in the one order that lets the most of their models move clear
(`order`); the rest keep any order, as no straight move of theirs meets a moved unit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

# Orders are searched exhaustively over the subsets of one group of related units; a larger
# group (a whole army moving nose to tail) keeps each unit's own best order, as before.
MOST_UNITS = 10


def related(
    units: Sequence[str], meets: Callable[[str, str], tuple[bool, bool]]
) -> dict[str, frozenset[str]]:
    """Each unit's moved units that its straight moves meet, as `meets(unit, other)` says (where
    the other stood, where it stopped), both ways round: their order decides its verdict."""
    found: dict[str, set[str]] = {unit: set() for unit in units}
    for unit in units:
        for other in units:
            if other != unit and any(meets(unit, other)):
                found[unit].add(other)
                found[other].add(unit)
    return {unit: frozenset(others) for unit, others in found.items() if others}


def order(
    related_units: dict[str, frozenset[str]],
    listed: Sequence[str],
    moves_clear: Callable[[str, frozenset[str]], int],
) -> dict[str, frozenset[str]]:
    """For each related unit, the related units that moved after it (still where they stood):
    the order that lets the most models move clear, `moves_clear(unit, gone)` saying how many of
    a unit's models move clear once its related units in `gone` have moved. Ties keep the first order
    found, units tried in the order the scene lists them, so a verdict never depends on chance."""
    waiting: dict[str, frozenset[str]] = {}
    for group in _groups(related_units, listed):
        if len(group) > MOST_UNITS:
            continue
        waiting.update(_best_order(group, related_units, moves_clear))
    return waiting


def _groups(related_units: dict[str, frozenset[str]], listed: Sequence[str]) -> list[list[str]]:
    """Connected groups of related units, each in listing order."""
    seen: set[str] = set()
    groups = []
    for unit in listed:
        if unit not in related_units or unit in seen:
            continue
        group, todo = {unit}, [unit]
        while todo:
            for other in related_units[todo.pop()]:
                if other not in group:
                    group.add(other)
                    todo.append(other)
        seen |= group
        groups.append([u for u in listed if u in group])
    return groups


def _best_order(
    group: list[str],
    related_units: dict[str, frozenset[str]],
    moves_clear: Callable[[str, frozenset[str]], int],
) -> dict[str, frozenset[str]]:
    """The most models moving clear over every order of the group (a search over the subsets
    already moved, each unit's verdict depending only on which of its related units had gone)."""

    @cache
    def clear(unit: str, gone: frozenset[str]) -> int:
        return moves_clear(unit, gone)

    everyone = frozenset(group)
    best: dict[frozenset[str], tuple[int, tuple[str, ...]]] = {frozenset(): (0, ())}
    for size in range(len(group)):
        for done, (count, sequence) in [(k, v) for k, v in best.items() if len(k) == size]:
            for unit in group:
                if unit in done:
                    continue
                then = (count + clear(unit, done & related_units[unit]), (*sequence, unit))
                key = done | {unit}
                if key not in best or then[0] > best[key][0]:
                    best[key] = then
    sequence = best[everyone][1]
    return {
        unit: related_units[unit] & frozenset(sequence[position + 1 :])
        for position, unit in enumerate(sequence)
    }
