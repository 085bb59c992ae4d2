"""The turn's one order of moves, from where each unit's straight moves meet the others."""

from __future__ import annotations

from rules_core import sequence


def _meets(stood: dict[str, str], stopped: dict[str, str] | None = None):
    """`stood[u] = v`: u's line meets v where v stood; `stopped[u] = v`: where v stopped."""
    stopped = stopped or {}
    return lambda unit, other: (stood.get(unit) == other, stopped.get(unit) == other)


def test_a_chain_moves_front_first() -> None:
    """a walks into where b stood, b into where c stood: c, b, a, each before the next."""
    order = sequence.order(["a", "b", "c"], _meets({"a": "b", "b": "c"}))
    assert order.later == {"c": frozenset({"b"}), "b": frozenset({"a"}), "a": frozenset()}


def test_a_unit_whose_line_meets_where_another_stopped_moved_before_it() -> None:
    """a's line meets where c stopped and where b stood: b, a, then c."""
    order = sequence.order(["a", "b", "c"], _meets({"a": "b"}, {"a": "c"}))
    assert order.later["a"] == frozenset({"c"}) and order.later["b"] == frozenset({"a"})


def test_a_line_meeting_another_where_it_stood_and_stopped_fixes_no_order() -> None:
    order = sequence.order(["a", "b"], lambda unit, other: (unit == "a", unit == "a"))
    assert order.bound == {} and order.later == {}


def test_a_ring_is_broken_at_the_first_id_and_the_listing_does_not_matter() -> None:
    """Each ends where the next stood: no order explains it. 'a' goes first, into the way of 'b'
    still standing, whichever order the units are listed in."""
    ring = _meets({"a": "b", "b": "c", "c": "a"})
    for listed in (["a", "b", "c"], ["c", "b", "a"], ["b", "c", "a"]):
        order = sequence.order(listed, ring)
        assert order.later == {"a": frozenset({"b", "c"}), "b": frozenset(), "c": frozenset({"b"})}
