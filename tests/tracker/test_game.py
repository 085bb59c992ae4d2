import pytest

from rules_core.errors import TablesightError
from tracker.game import Game, phases_of
from tracker.tracks import FrameResult, TrackChanges


def frame(index: int, positions: dict[str, tuple[float, float]], changes: TrackChanges | None = None):
    models = [{"track_id": i, "x_cm": x, "y_cm": y, "diameter_mm": 32, "visible": True}
              for i, (x, y) in positions.items()]
    return FrameResult(index, f"f{index}", True, models, [], changes or TrackChanges(),
                       timestamp_s=index * 0.2)


def move(index: int, piece_id: str, to: tuple[float, float]) -> FrameResult:
    return frame(index, {**START, piece_id: to}, TrackChanges(moved={piece_id: (START[piece_id], to)}))


START = {"m1": (20.0, 30.0), "m2": (23.5, 30.0), "m3": (100.0, 60.0)}


@pytest.fixture
def game() -> Game:
    game = Game()
    game.observe(frame(0, START, TrackChanges(added=list(START))))
    game.apply("assign", {"model_ids": ["m1", "m2"], "side": "red", "unit": "red-1", "type": "infantry"})
    game.apply("assign", {"model_ids": ["m3"], "side": "blue", "unit": "blue-1", "type": "infantry"})
    game.apply("phase", {"to": "movement"})
    return game


def test_a_move_too_far_is_judged_against_the_start_of_the_phase(game):
    moved = {**START, "m1": (35.2, 30.0), "m2": (38.5, 30.0)}
    events = game.observe(frame(1, moved, TrackChanges(moved={"m1": (START["m1"], moved["m1"]),
                                                              "m2": (START["m2"], moved["m2"])})))
    assert [e["kind"] for e in events] == ["moved", "moved", "verdict"]
    assert "infantry may move 15 cm" in events[-1]["detail"]
    _, moves = game.verdicts()
    assert moves["models"]["m1"]["legal"] is False and moves["models"]["m2"]["legal"] is True


def test_undo_restores_the_phase_and_its_start_positions(game):
    game.observe(move(1, "m1", (30.0, 30.0)))
    game.apply("phase", {"to": "next"})
    assert game.phase == "shooting" and game.start["m1"]["x_cm"] == 30.0
    game.apply("undo", {})
    assert game.phase == "movement" and game.start["m1"]["x_cm"] == 20.0
    assert game.events[-1]["kind"] == "undo"


def test_reset_model_puts_it_back_in_the_record(game):
    game.observe(move(1, "m3", (90.0, 60.0)))
    reply = game.apply("reset_model", {"model_id": "m3"})
    assert (reply["x_cm"], reply["y_cm"]) == START["m3"]
    assert game.verdicts()[1]["models"] == {}


def test_a_casualty_is_logged_and_leaves_the_scene(game):
    events = game.observe(frame(1, {k: v for k, v in START.items() if k != "m2"},
                                TrackChanges(removed=["m2"])))
    assert [e["kind"] for e in events] == ["removed"] and "casualty" in events[0]["detail"]
    assert [m["id"] for m in game.scene()["models"]] == ["m1", "m3"]


def test_a_piece_the_camera_had_lost_is_back_in_its_unit_and_its_move_judged_from_the_start(game):
    game.observe(frame(1, {k: v for k, v in START.items() if k != "m2"}, TrackChanges(removed=["m2"])))
    back = (40.0, 30.0)
    events = game.observe(frame(2, {**START, "m2": back},
                                TrackChanges(moved={"m2": (START["m2"], back)}, returned=["m2"])))
    assert [e["kind"] for e in events] == ["returned", "moved", "verdict"]
    assert "not a casualty" in events[0]["detail"]
    assert "infantry may move 15 cm" in events[-1]["detail"]
    assert [m["unit"] for m in game.scene()["models"] if m["id"] == "m2"] == ["red-1"]


def test_next_turn_after_the_last_phase(game):
    for _ in range(2):
        game.apply("phase", {"to": "next"})
    assert game.apply("phase", {"to": "next"}) == {"ok": True, "turn": 2, "phase": "movement"}


def test_unit_coherency_is_checked_after_moves(game):
    check, _ = game.verdicts()
    assert check["units"]["red-1"]["coherent"] is True
    game.observe(move(1, "m2", (33.0, 30.0)))
    check, _ = game.verdicts()
    assert check["units"]["red-1"]["coherent"] is False


def test_bad_controls_change_nothing(game):
    before = (dict(game.assignments), game.turn, game.phase, len(game.events))
    for action, payload in [("assign", {"model_ids": ["m1"], "side": "red", "unit": "r", "type": "dragon"}),
                            ("phase", {"to": 3}), ("reset_model", {}), ("objectives", {"objectives": "x"})]:
        with pytest.raises(TablesightError):
            game.apply(action, payload)
    assert (dict(game.assignments), game.turn, game.phase, len(game.events)) == before


def test_order_based_rulesets_give_orders_first():
    assert phases_of("tankomaster")[:2] == ["deployment", "orders"]
    assert phases_of("world-at-fire") == ["deployment", "movement", "shooting", "assault"]


def test_a_ruleset_sharing_no_unit_type_is_reached_by_retyping_or_unassigning(game):
    """Mobile Infantry knows troopers and bugs, World at Fire infantry: a setup that left the
    models' types as they were was refused, and the models could not be given a trooper's type
    under World at Fire either, so the game could never change to Mobile Infantry."""
    table = {"width_cm": 183.0, "depth_cm": 122.0}
    with pytest.raises(TablesightError, match="infantry"):
        game.apply("setup", {"ruleset": "mobile-infantry", "table": table})
    game.apply("setup", {"ruleset": "mobile-infantry", "table": table, "retype": {"infantry": "trooper"}})
    assert {a.type for a in game.assignments.values()} == {"trooper"}
    assert [m["type"] for m in game.scene()["models"]] == ["trooper"] * 3
    game.apply("setup", {"ruleset": "world-at-fire", "table": table, "retype": {"trooper": None}})
    assert game.assignments == {} and game.events[-1]["detail"].endswith("m1, m2, m3 unassigned")


@pytest.mark.parametrize("retype", [["infantry"], {"infantry": 3}, {"infantry": "tank"}])
def test_a_bad_retype_changes_nothing(game, retype):
    before = dict(game.assignments), game.ruleset_id
    with pytest.raises(TablesightError):
        game.apply("setup", {"ruleset": "mobile-infantry", "table": game.table, "retype": retype})
    assert (dict(game.assignments), game.ruleset_id) == before


def test_a_role_the_new_ruleset_lacks_is_dropped_and_one_it_has_kept(game):
    table = {"width_cm": 183.0, "depth_cm": 122.0}
    game.apply("setup", {"ruleset": "combined-arms", "table": table})
    red = {"side": "red", "unit": "red-1", "type": "infantry"}
    game.apply("assign", {"model_ids": ["m1"], **red, "role": "officer"})
    with pytest.raises(TablesightError, match="role"):
        game.apply("assign", {"model_ids": ["m2"], **red, "role": "wizard"})
    game.apply("setup", {"ruleset": "combined-arms", "table": table})
    assert game.assignments["m1"].role == "officer"
    game.apply("setup", {"ruleset": "world-at-fire", "table": table})
    assert game.assignments["m1"].role is None and game.assignments["m1"].type == "infantry"


@pytest.mark.parametrize(("ruleset", "chassis", "to"), [
    ("world-at-fire", "tracked", "tankomaster"),  # Tankomaster's vehicles have no chassis
    ("combined-arms", "car", "world-at-fire"),  # World at Fire has no cars
])
def test_a_chassis_the_new_ruleset_lacks_is_dropped_and_one_it_has_kept(ruleset, chassis, to):
    """The rules core refuses a chassis on a type that has none, so a tank's carried into a
    ruleset without it refused the whole setup."""
    table = {"width_cm": 183.0, "depth_cm": 122.0}
    game = Game()
    tank = {"track_id": "v1", "x_cm": 90.0, "y_cm": 60.0, "heading_deg": 0.0, "visible": True}
    game.observe(FrameResult(0, "f0", True, [], [tank], TrackChanges(added=["v1"])))
    game.apply("setup", {"ruleset": ruleset, "table": table})
    game.apply("assign", {"model_ids": ["v1"], "side": "red", "unit": "red-1", "type": "vehicle",
                          "chassis": chassis})
    game.apply("setup", {"ruleset": ruleset, "table": table})
    assert game.assignments["v1"].chassis == chassis
    game.apply("setup", {"ruleset": to, "table": table})
    assert game.assignments["v1"].chassis is None and game.assignments["v1"].type == "vehicle"


@pytest.mark.parametrize(("count", "said"), [(1, "1 terrain piece"), (2, "2 terrain pieces")])
def test_the_log_counts_terrain_pieces_in_words(game, count, said):
    wood = {"kind": "forest", "polygon_cm": [[10, 10], [30, 10], [30, 25]]}
    game.apply("terrain", {"terrain": [{**wood, "id": f"w{i}"} for i in range(count)]})
    assert game.events[-1]["detail"] == said


@pytest.mark.parametrize(("action", "payload", "said"), [
    ("assign", {"model_ids": ["m1"], "side": None, "unit": "red-1", "type": "infantry"},
     "assign: 'side' must be text, not null"),
    ("assign", {"model_ids": ["m1"], "side": "red", "unit": 7, "type": "infantry"},
     "assign: 'unit' must be text, not a number"),
    ("phase", {"to": ["next"]}, "phase: 'to' must be text, not a list"),
    ("objectives", {"objectives": {"id": "o1"}}, "objectives: 'objectives' must be a list, not an object"),
    ("assign", {"model_ids": ["m1"], "wounded": "yes"}, "assign: 'wounded' must be true or false, not text"),
])
def test_a_field_of_the_wrong_kind_is_named_in_json_words(game, action, payload, said):
    """A script's null side was refused as 'the wrong type (NoneType)': Python's word for what a
    player sent as JSON, with no word of what the field takes."""
    with pytest.raises(TablesightError) as refused:
        game.apply(action, payload)
    assert str(refused.value).startswith(said)
    assert "NoneType" not in refused.value.fix and "session contract" not in refused.value.fix
