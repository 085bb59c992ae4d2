"""A model's state on the table (flags, its standing order, a wound), set by assign as the game goes.

The rules core judges by them (docs/rules.md), but an assignment carried only side, unit, type,
role, chassis and weapons: in a live game no rule that depends on a flag, an order or a wound
ever applied.
"""

import pytest

from rules_core.errors import Missing, TablesightError
from tests.tracker.flat import flat_pipeline, game_frames
from tests.tracker.recorded import MANIFEST
from tests.tracker.test_game import START, frame, move
from tracker.game import Game
from tracker.recording import RecordingWriter
from tracker.replay import replay
from tracker.runner import GameRunner
from tracker.tracks import TrackChanges

RED = {"side": "red", "unit": "red-1", "type": "infantry"}


def game_of(ruleset: str, type_: str) -> Game:
    game = Game(ruleset=ruleset)
    game.observe(frame(0, START, TrackChanges(added=list(START))))
    game.apply("assign", {"model_ids": ["m1", "m2"], "side": "red", "unit": "red-1", "type": type_})
    game.apply("assign", {"model_ids": ["m3"], "side": "blue", "unit": "blue-1", "type": type_})
    game.apply("phase", {"to": "movement"})
    return game


def verdict(game: Game, piece_id: str) -> dict:
    return game.verdicts()[1]["models"][piece_id]


def test_a_dismounted_rider_flagged_by_assign_has_10_cm_left():
    """waf.move.cavalry.mount: dismounting costs 5 of an infantryman's 15 cm. Only the flags are
    sent: the models keep their side, unit and type."""
    game = game_of("world-at-fire", "infantry")
    game.observe(move(1, "m1", (31.0, 30.0)))  # 11 cm, still in coherency with m2
    assert verdict(game, "m1")["legal"] is True
    game.apply("assign", {"model_ids": ["m1"], "flags": ["dismounted"]})
    assert verdict(game, "m1")["legal"] is False and verdict(game, "m1")["allowance_cm"] == 10.0
    assert game.assignments["m1"].unit == "red-1" and game.scene()["models"][0]["flags"] == ["dismounted"]
    game.apply("assign", {"model_ids": ["m1"], "flags": []})
    assert verdict(game, "m1")["legal"] is True and "flags" not in game.scene()["models"][0]


def test_a_trooper_on_a_static_order_may_not_move_until_the_order_is_cleared():
    """Mobile Infantry: a static order spends both actions standing (order_move_actions)."""
    game = game_of("mobile-infantry", "trooper")
    game.observe(move(1, "m1", (20.0, 35.0)))
    assert verdict(game, "m1")["legal"] is not False
    game.apply("assign", {"model_ids": ["m1"], "order": "static"})
    assert verdict(game, "m1")["legal"] is False
    game.apply("assign", {"model_ids": ["m1"], "order": None})
    assert verdict(game, "m1")["legal"] is not False and "order" not in game.scene()["models"][0]


def test_a_field_left_out_keeps_what_the_model_had_and_the_state_shows_them():
    game = game_of("combined-arms", "infantry")
    game.apply("assign", {"model_ids": ["m1"], "role": "officer", "flags": ["prone"], "order": "advance"})
    game.apply("assign", {"model_ids": ["m1"], "wounded": True})
    game.apply("assign", {"model_ids": ["m1"], **RED, "unit": "red-2"})  # assigned anew: its state stays
    m1 = game.scene()["models"][0]
    assert (m1["unit"], m1["flags"], m1["order"], m1["wounded"]) == ("red-2", ["prone"], "advance", True)
    assert "role" not in m1  # a new assignment's role is the one sent, as before
    shown = next(m for m in game.snapshot()["models"] if m["id"] == "m1")
    assert (shown["flags"], shown["order"], shown["wounded"]) == (["prone"], "advance", True)
    plain = next(m for m in game.snapshot()["models"] if m["id"] == "m2")
    assert (plain["flags"], plain["order"], plain["wounded"], plain["role"]) == ([], None, False, None)


def test_a_model_not_yet_assigned_needs_its_side_unit_and_type():
    game = game_of("world-at-fire", "infantry")
    game.observe(frame(1, {**START, "m4": (60.0, 60.0)}, TrackChanges(added=["m4"])))
    before = dict(game.assignments)
    with pytest.raises(TablesightError) as refused:
        game.apply("assign", {"model_ids": ["m1", "m4"], "flags": ["prone"]})
    assert refused.value.fault == Missing("assign", "side") and "m4" in str(refused.value)
    assert game.assignments == before


def test_an_assign_with_flags_replays_the_same(tmp_path):
    """Controls are recorded and replayed: the flagged rider's move is judged illegal in both."""
    path = tmp_path / "flags.tsr"
    writer = RecordingWriter(path, MANIFEST)
    game = Game(log=writer.add_event)
    runner = GameRunner(flat_pipeline(), game, writer=writer)
    controls = {1: [("assign", {"model_ids": ["m1", "m2"], **RED}), ("phase", {"to": "next"}),
                    ("assign", {"model_ids": ["m1"], "flags": ["dismounted"], "wounded": True})]}
    for each in game_frames():
        runner.step(each)
        for action, payload in controls.get(each.index, []):
            runner.control(action, payload)
    writer.close()
    verdicts = [e for e in game.events if e["kind"] == "verdict"]
    assert [e["data"]["id"] for e in verdicts] == ["m1"] and "10 cm" in verdicts[0]["detail"]
    replayed = replay(path, make_pipeline=lambda manifest: flat_pipeline())
    assert replayed.events_match and not replayed.problems
    assert next(e for e in replayed.events if e["kind"] == "verdict")["detail"] == verdicts[0]["detail"]


@pytest.mark.parametrize(("weapons", "in_scene"), [(None, None), ([], [])])
def test_the_game_and_the_phones_read_a_model_s_weapons_alike(weapons, in_scene):
    """An emptied weapons list was left out of the game's scene (the type's own weapons) while the
    phones' ranges read it as none: two answers for one model. None is the type's own, [] none."""
    from webui.measuring import scene_from_state

    game = game_of("world-at-fire", "infantry")
    game.apply("assign", {"model_ids": ["m1"], "weapons": ["rifle"]})
    game.apply("assign", {"model_ids": ["m1"], "weapons": weapons})
    in_game = next(m for m in game.scene()["models"] if m["id"] == "m1")
    shown = {"models": game.snapshot()["models"], "vehicles": [], "ruleset": {"id": "world-at-fire"},
             "table": {"width_cm": 183.0, "depth_cm": 122.0}}
    on_phones = next(m for m in scene_from_state(shown)["models"] if m["id"] == "m1")
    assert in_game.get("weapons") == on_phones.get("weapons") == in_scene


def test_another_type_alone_takes_the_new_type_s_own_role_chassis_and_weapons():
    """Only the type sent: the old type's chassis and weapons stayed with the model."""
    game = game_of("world-at-fire", "infantry")
    game.apply("assign", {"model_ids": ["m1"], "weapons": ["rifle"]})
    game.apply("assign", {"model_ids": ["m1"], "flags": ["prone"]})
    game.apply("assign", {"model_ids": ["m1"], "type": "cavalry"})
    m1 = next(m for m in game.snapshot()["models"] if m["id"] == "m1")
    assert (m1["type"], m1["weapons"]) == ("cavalry", None)
    assert (m1["flags"], m1["unit"]) == (["prone"], "red-1")
