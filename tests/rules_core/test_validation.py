"""Bad scenes and bad ruleset files: one clear message naming the field (and file and line)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from rules_core import api
from rules_core.errors import RulesetError, SceneError, TablesightError
from tests.rules_core.builders import base, hull, scene_data


def problem_of(data: dict) -> str:
    with pytest.raises(SceneError) as caught:
        api.parse_scene(data)
    return str(caught.value)


def test_unknown_ruleset_names_the_field() -> None:
    assert "ruleset" in problem_of(scene_data("chess", [base(10, 10)]))


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"type": "dragon"}, "models[0].type", "unknown unit type"),
        ({"x_cm": math.nan}, "models[0].x_cm", "finite"),
        ({"x_cm": 500.0}, "models[0].x_cm/y_cm", "off the"),
        ({"y_cm": -1.0}, "models[0].x_cm/y_cm", "off the"),
        ({"base": {"shape": "round", "diameter_mm": -32}}, "models[0].base.diameter_mm", "greater than 0"),
        ({"base": {"shape": "rect", "length_mm": 100}}, "models[0].base", "width_mm"),
        ({"crew_of": "nobody"}, "models[0].crew_of", "unknown model id"),
        ({"chassis": "hover"}, "models[0].chassis", "unknown chassis"),
        ({"x_cm": True}, "models[0].x_cm", "must be a number, not true"),
        ({"y_cm": "20"}, "models[0].y_cm", 'must be a number, not "20"'),
        ({"wounds": True}, "models[0].wounds", "must be a number"),
        ({"base": {"shape": "round", "diameter_mm": "32"}}, "models[0].base.diameter_mm", "must be a number"),
        ({"wounded": "yes"}, "models[0].wounded", 'must be true or false, not "yes"'),
    ],
)
def test_bad_model_fields_are_named(change: dict, field: str, words: str) -> None:
    model = {**base(10, 10, "a"), **change}
    if "chassis" in change:
        model = {**model, "type": "vehicle"}
    message = problem_of(scene_data("world-at-fire", [model]))
    assert field in message and words in message


@pytest.mark.parametrize(
    ("models", "said"),
    [
        (["r1"], "models[0]: Input should be a JSON object."),
        ([{**base(10, 10, "a"), "base": "round"}], "models[0].base (model 'a'): Input should be a JSON"),
        ([{**base(10, 10, "a"), "base": {"shape": "rect", "length_mm": 100}}], "a rect base needs"),
    ],
)
def test_a_message_names_the_files_json_not_our_classes(models: list, said: str) -> None:
    """pydantic's words leaked: "a valid dictionary or instance of ModelSpec", "Value error, ..."."""
    message = problem_of(scene_data("world-at-fire", models))
    assert said in message
    assert "instance of" not in message and "Value error" not in message and "dictionary" not in message


def test_unknown_weapon_is_named_where_the_ruleset_has_a_weapon_table() -> None:
    message = problem_of(scene_data("combined-arms", [base(10, 10, weapons=["phaser"])]))
    assert "models[0].weapons" in message and "unknown weapon 'phaser'" in message


def test_weapon_aliases_and_rulesets_without_weapon_table() -> None:
    ca = api.parse_scene(
        scene_data(
            "combined-arms", [base(10, 10, "a", weapons=["hand_grenade"]), base(20, 10, "e", side="blue")]
        )
    )
    assert api.ranges(ca, "a")["targets"][0]["weapons"] == ["hand_grenade"]
    waf = api.parse_scene(
        scene_data("world-at-fire", [base(10, 10, "a", weapons=["rifle"]), base(20, 10, "e", side="blue")])
    )
    assert api.ranges(waf, "a")["targets"][0]["weapons"] == []


def test_a_corner_written_as_text_is_named() -> None:
    wood = {"id": "t", "kind": "forest", "polygon_cm": [[0, 0], [10, "0"], [10, 10]]}
    data = scene_data("world-at-fire", [base(50, 50, "a")], terrain=[wood])
    assert "terrain[0].polygon_cm: must be [x, y] numbers" in problem_of(data)


def test_whole_floats_still_count() -> None:
    """Generators write `2.0` for a count; only booleans and strings are refused as numbers."""
    parsed = api.parse_scene(scene_data("world-at-fire", [{**base(10, 10, "a"), "wounds": 2.0, "z_cm": 1}]))
    assert parsed.models[0].wounds == 2 and parsed.models[0].z_cm == 1.0


def test_missing_field_is_named() -> None:
    model = base(10, 10, "a")
    del model["side"]
    assert "models[0].side (model 'a'): missing" in problem_of(scene_data("world-at-fire", [model]))


def test_a_unit_on_two_sides_is_named() -> None:
    models = [base(10, 10, "a", unit="u1"), base(20, 10, "b", side="blue", unit="u1")]
    assert "models[1].side" in problem_of(scene_data("world-at-fire", models))


def test_missing_table_is_named() -> None:
    data = scene_data("world-at-fire", [base(10, 10)])
    del data["table"]
    assert "table: missing" in problem_of(data)


def test_unknown_side_against_deployment() -> None:
    data = scene_data(
        "world-at-fire",
        [base(10, 10, side="green")],
        deployment={"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}},
    )
    assert "models[0].side" in problem_of(data)


def test_unknown_side_against_declared_sides() -> None:
    data = scene_data("world-at-fire", [base(10, 10, side="green")], sides=["red", "blue"])
    assert "unknown side 'green'" in problem_of(data)


def test_duplicate_ids_and_unknown_terrain_and_deployment() -> None:
    assert "duplicate" in problem_of(scene_data("world-at-fire", [base(10, 10, "a"), base(20, 10, "a")]))
    terrain = [{"id": "t", "kind": "lava", "polygon_cm": [[0, 0], [1, 0], [1, 1]]}]
    assert "terrain[0].kind" in problem_of(scene_data("world-at-fire", [base(10, 10)], terrain=terrain))
    deployment = {"kind": "pincer", "sides": {"red": "left"}}
    assert "deployment.kind" in problem_of(scene_data("world-at-fire", [base(10, 10)], deployment=deployment))


def test_unknown_ids_in_queries() -> None:
    s = api.parse_scene(scene_data("world-at-fire", [base(10, 10, "a")]))
    with pytest.raises(SceneError, match="B: unknown model id"):
        api.measure(s, "a", "zz")
    with pytest.raises(SceneError, match="FROM"):
        api.ranges(s, "zz")
    with pytest.raises(SceneError, match="template"):
        api.under_template(s, "nuke", 10, 10)


def test_vehicle_without_hull_needs_base() -> None:
    model = {**base(10, 10), "type": "vehicle"}
    del model["base"]
    assert "models[0].base" in problem_of(scene_data("world-at-fire", [model]))


def test_every_shipped_ruleset_loads_and_lists() -> None:
    ids = {row["id"] for row in api.list_rulesets()}
    assert ids == {"world-at-fire", "mobile-infantry", "combined-arms", "tankomaster", "bronepehota"}
    for ruleset_id in ids:
        shown = api.ruleset_dict(ruleset_id)
        assert shown["id"] == ruleset_id and shown["unit_types"]
        assert shown["premeasure_allowed"] is (ruleset_id != "mobile-infantry")


def _user_ruleset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, name: str = "house.json"
) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv("TABLESIGHT_RULESETS", str(tmp_path))


def test_user_folder_adds_a_ruleset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    house = api.ruleset_dict("world-at-fire") | {"id": "house", "title": "House rules"}
    house["unit_types"]["infantry"]["move"] = 20
    _user_ruleset(tmp_path, monkeypatch, json.dumps(house, indent=2))
    assert "house" in {row["id"] for row in api.list_rulesets()}
    assert api.load_ruleset("house").unit_types["infantry"].move == 20


def test_malformed_ruleset_names_file_field_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    house = api.ruleset_dict("tankomaster") | {"id": "house"}
    house["unit_types"]["infantry"]["move"] = -3
    text = json.dumps(house, indent=2)
    _user_ruleset(tmp_path, monkeypatch, text)
    with pytest.raises(RulesetError) as caught:
        api.load_ruleset("house")
    message = str(caught.value)
    expected_line = next(n for n, line in enumerate(text.splitlines(), 1) if '"move": -3' in line)
    assert (
        "house.json" in message
        and "unit_types.infantry.move" in message
        and f"line {expected_line}" in message
    )


def test_ruleset_with_invalid_json_names_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _user_ruleset(tmp_path, monkeypatch, '{\n  "id": "house",\n  "unit": cm\n}')
    with pytest.raises(RulesetError, match=r"house.json line 3"):
        api.load_ruleset("house")


def test_unknown_ruleset_id_is_a_user_error() -> None:
    with pytest.raises(TablesightError, match="unknown ruleset"):
        api.load_ruleset("chess")


def test_self_intersecting_terrain_is_named() -> None:
    bowtie = [{"id": "t", "kind": "forest", "polygon_cm": [[0, 0], [10, 10], [10, 0], [0, 10]]}]
    assert "terrain[0].polygon_cm" in problem_of(scene_data("world-at-fire", [base(50, 50)], terrain=bowtie))


@pytest.mark.parametrize(
    ("ruleset", "model", "said"),
    [
        ("world-at-fire", base(30, 30, "c", chassis="tracked"),
         "chassis: chassis 'tracked' on a model of type infantry, which has no chassis in world-at-fire. "
         "leave `chassis` out: only models of type vehicle have one"),
        ("world-at-fire", base(30, 30, "c", type="heavy_gun", diameter_mm=65, chassis="wheeled"),
         "chassis: chassis 'wheeled' on a model of type heavy_gun"),
        ("combined-arms", base(30, 30, "c", chassis="tank"),
         "chassis: chassis 'tank' on a model of type infantry"),
        ("tankomaster", hull(30, 30, "c", chassis="tracked"),
         "chassis: chassis 'tracked' on a model of type vehicle, which has no chassis in tankomaster. "
         "leave `chassis` out: this ruleset gives its models no chassis"),
        ("combined-arms", hull(30, 30, "c", role="sniper"),
         "role: role 'sniper' on a model of type vehicle, which holds no role in combined-arms. "
         "leave `role` out: only models of type infantry or gun hold one"),
    ],
)
def test_a_chassis_or_role_on_a_type_that_has_none_is_named(ruleset: str, model: dict, said: str) -> None:
    """CONTRACTS gives a chassis to vehicles and Combined Arms' roles to its fighters: an
    infantryman given `tracked` was read as a plain one, and a tank given `sniper` fired at
    infantry only."""
    models = [base(10, 10, "a"), base(12, 10, "b"), model]
    field, detail = said.split(": ", 1)
    assert f"scene field models[2].{field}: {detail}" in problem_of(scene_data(ruleset, models))


def test_a_chassis_and_a_role_where_the_ruleset_gives_them_are_taken() -> None:
    waf = api.parse_scene(scene_data("world-at-fire", [hull(50, 50, "t", chassis="half_tracked")]))
    assert waf.models[0].chassis == "half_tracked"
    ca = [hull(50, 50, "t", chassis="apc"), base(10, 10, "o", role="officer"),
          base(20, 20, "g", type="gun", role="hmg")]
    roles = [m.role for m in api.parse_scene(scene_data("combined-arms", ca)).models]
    assert roles == [None, "officer", "hmg"]


def test_role_types_are_unit_types_of_the_ruleset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    house = api.ruleset_dict("combined-arms") | {"id": "house", "role_types": ["infantry", "tank"]}
    _user_ruleset(tmp_path, monkeypatch, json.dumps(house, indent=2))
    with pytest.raises(RulesetError, match=r"role_types names unknown unit types \['tank'\]"):
        api.load_ruleset("house")


@pytest.mark.parametrize(
    ("polygon", "span"),
    [
        ([[1000, 1000], [3000, 1000], [3000, 2500]], "x 1000 to 3000, y 1000 to 2500"),  # mm for cm
        ([[-30, -30], [-10, -30], [-10, -10]], "x -30 to -10, y -30 to -10"),
        ([[-10, 10], [0, 10], [0, 30]], "x -10 to 0, y 10 to 30"),  # touching the edge from outside
    ],
)
def test_terrain_wholly_off_the_table_is_named(polygon: list, span: str) -> None:
    """A wood given in mm lay far off the table, silently without effect on any move or sight."""
    wood = [{"id": "w", "kind": "forest", "polygon_cm": [[10, 10], [30, 10], [30, 25]]},
            {"id": "far", "kind": "forest", "polygon_cm": polygon}]
    message = problem_of(scene_data("world-at-fire", [base(50, 50)], terrain=wood))
    assert message == (
        f"scene field terrain[1].polygon_cm: terrain piece 'far' ({span}) lies wholly off the 183x122 cm "
        "table. give its corners in table cm, from (0, 0) at the top-left corner to (183, 122), or remove it."
    )


def test_terrain_partly_on_the_table_is_taken() -> None:
    wood = [{"id": "w", "kind": "forest", "polygon_cm": [[-10, 10], [10, 10], [10, 30], [-10, 30]]},
            {"id": "hill", "kind": "hill", "polygon_cm": [[170, 100], [200, 100], [200, 150]]}]
    assert len(api.parse_scene(scene_data("world-at-fire", [base(50, 50)], terrain=wood)).spec.terrain) == 2


@pytest.mark.parametrize(
    ("given", "read"), [(-90.0, 270.0), (450.0, 90.0), (360.0, 0.0), (359.5, 359.5), (-1e-14, 0.0)]
)
def test_a_heading_outside_one_turn_is_read_in_the_contracts_form(given: float, read: float) -> None:
    parsed = api.parse_scene(scene_data("world-at-fire", [hull(50, 50, heading=given)]))
    assert parsed.models[0].heading_deg == pytest.approx(read)


def test_a_side_that_changes_during_a_move_is_named() -> None:
    """It was judged as a move of the other side's model: the web UI and the CLI alike refuse it now."""
    before = api.parse_scene(scene_data("world-at-fire", [base(10, 10, "r1"), base(50, 10, "r2")]))
    moved = [base(10, 10, "r1"), base(55, 10, "r2", side="blue")]
    after = api.parse_scene(scene_data("world-at-fire", moved))
    with pytest.raises(SceneError, match="model 'r2' is on side 'red' in BEFORE but on side 'blue' in AFTER"):
        api.move(before, after)


def test_ranges_from_an_id_of_a_model_and_of_a_unit_holding_others_is_named() -> None:
    """FROM took the model silently; a one-model unit named as its model is no clash."""
    models = [base(10, 10, "a", unit="x"), base(20, 10, "x", unit="y"), base(150, 10, "e", side="blue")]
    s = api.parse_scene(scene_data("world-at-fire", models))
    with pytest.raises(SceneError, match=r"FROM 'x' is both a model id and a unit id \(unit 'x' holds a\)"):
        api.ranges(s, "x")
    assert api.ranges(s, "y")["from"] == "y"
    models = [base(10, 10, "a", unit="a"), base(150, 10, "e", side="blue")]
    alone = api.parse_scene(scene_data("world-at-fire", models))
    assert [t["id"] for t in api.ranges(alone, "a")["targets"]] == ["e"]
