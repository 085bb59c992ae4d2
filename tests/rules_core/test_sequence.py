"""The turn's one order of moves, searched over the related units alone."""

from __future__ import annotations

from rules_core import sequence


def _ring(units: list[str]) -> dict[str, frozenset[str]]:
    """Each unit ends where the next stood: it moves clear only once the next has gone."""
    nxt = {unit: units[(k + 1) % len(units)] for k, unit in enumerate(units)}
    return sequence.related(units, lambda unit, other: (other == nxt[unit], False))


def test_a_chain_is_ordered_so_every_unit_moves_clear() -> None:
    """a needs b gone, b needs c gone: the order c, b, a, whatever the listing."""
    needs = {"a": "b", "b": "c"}
    related = sequence.related(["a", "b", "c"], lambda unit, other: (needs.get(unit) == other, False))

    def moves_clear(unit: str, gone: frozenset[str]) -> int:
        return int(unit not in needs or needs[unit] in gone)

    waiting = sequence.order(related, ["a", "b", "c"], moves_clear)
    assert waiting == {"a": frozenset(), "b": frozenset({"a"}), "c": frozenset({"b"})}


def test_a_ring_leaves_exactly_one_unit_moving_before_the_one_it_needed_gone() -> None:
    units = ["a", "b", "c"]
    related = _ring(units)
    nxt = {"a": "b", "b": "c", "c": "a"}
    waiting = sequence.order(related, units, lambda unit, gone: int(nxt[unit] in gone))
    assert sum(nxt[unit] in waiting[unit] for unit in units) == 1


def test_a_group_too_large_to_search_keeps_each_units_own_order() -> None:
    units = [f"u{k}" for k in range(sequence.MOST_UNITS + 1)]
    calls = []
    waiting = sequence.order(_ring(units), units, lambda unit, gone: calls.append(unit) or 1)
    assert waiting == {} and calls == []


def test_units_whose_moves_meet_no_other_are_left_out() -> None:
    assert sequence.related(["a", "b"], lambda unit, other: (False, False)) == {}
