"""Session 66: a blind examination against the seeds; what it found that earlier sessions missed."""

from __future__ import annotations

import pytest

from tests.rules_core.builders import base, hull, moved

CA = "combined-arms"
INCH = 2.54

# --- 002 Combined Arms: a mine set off by an enemy passing through its radius --------------------

_MINE = {"id": "mn", "side": "red", "x_cm": 60.0, "y_cm": 60.0, "kind": "mine"}


def _walk(start_x: float, end_x: float, y: float, side: str = "blue", mines: list | None = None) -> dict:
    soldier = {"side": side, "unit": f"{side}-1", "speed": 20}
    before = [base(start_x, y, "e", **soldier)]
    after = [base(end_x, y, "e", **soldier)]
    return moved(CA, before, after, mines=[_MINE] if mines is None else mines)["e"]


@pytest.mark.parametrize(
    ("offset_in", "crossed"),
    [(3.0, True), (3.05, False)],
    ids=["base-edge-at-3in", "just-past-3in"],
)
def test_ca_an_enemy_walking_through_a_mines_radius_sets_it_off(offset_in: float, crossed: bool) -> None:
    """002: «Если противник пересёк радиус 3Д от метки мины и продолжил движение, то после
    окончания фазы движения он считается подорванным, если хозяин мины объявит о её подрыве в
    течение этого хода» (if the enemy crossed the 3" radius of the mine marker and moved on, he
    counts as blown up once the movement phase is over, if the mine's owner declares it this
    turn). `check` saw only where a model stood (`triggered_by`), so a walk straight past a mine,
    ending beyond its radius, set off nothing; the move entry now names the mines its straight
    path came within 3" of (base edge to the mine's point, 3" included, as `triggered_by`)."""
    y = 60.0 + 1.6 + offset_in * INCH
    entry = _walk(40.0, 80.0, y)
    assert entry["mines_set_off"] == (["mn"] if crossed else [])
    assert entry["legal"]


def test_ca_a_friendly_mine_a_charge_and_a_walk_short_of_the_radius_set_off_nothing() -> None:
    """002: only «противник» sets a mine off, and a charge («Подорвать его сапёр может в свой ход
    с любого расстояния») is blown by its sapper, never by walking past it."""
    assert _walk(40.0, 80.0, 60.0, side="red")["mines_set_off"] == []
    assert _walk(40.0, 80.0, 60.0, mines=[dict(_MINE, kind="charge")])["mines_set_off"] == []
    assert _walk(40.0, 60.0 - 1.6 - 3.1 * INCH, 60.0)["mines_set_off"] == []


def test_ca_a_vehicle_driving_past_a_mine_sets_it_off() -> None:
    """002: an anti-tank mine «наносит 1 повреждение (+ повреждение гусениц) технике»: a hull
    whose swept footprint passes within 3" of the marker sets it off as a soldier does."""
    before = [hull(30, 60 + 5 + 2.9 * INCH, "t", side="blue", unit="blue-t", speed=20)]
    after = [hull(90, 60 + 5 + 2.9 * INCH, "t", side="blue", unit="blue-t", speed=20)]
    assert moved(CA, before, after, mines=[_MINE])["t"]["mines_set_off"] == ["mn"]


def test_ca_a_move_with_no_mines_in_the_scene_has_no_mine_field() -> None:
    """No mines entered: the move entry stays as it was."""
    assert "mines_set_off" not in _walk(40.0, 50.0, 60.0, mines=[])
