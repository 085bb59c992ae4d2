"""`tablesight rules ...` fed broken files: every answer is JSON (exit 0) or one line (exit 2).

The scene fuzz in test_bad_input_fuzz.py goes through the API with valid JSON; this goes
through the command line with the bytes a user's file might hold (truncated, binary, deeply
nested, huge numbers) and with broken user ruleset files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import rules_core
from tests.rules_core.builders import base, hull, scene_data
from tracker.cli import main

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

SCENE = scene_data(
    "world-at-fire",
    [base(20, 30, "a"), base(26, 30, "b"), hull(100, 60, "t"), base(150, 60, "e", side="blue")],
    objectives=[{"id": "o", "x_cm": 90, "y_cm": 60}],
    deployment={"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}},
)
SCENE_TEXT = json.dumps(SCENE)
COMMANDS = [["check", "{f}"], ["measure", "{f}", "a", "e"], ["move", "{v}", "{f}"], ["ranges", "{f}", "a"],
            ["zones", "{f}"], ["template", "{f}", "blast", "20", "30", "--radius", "3"]]


def run_rules(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(["rules", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_clean(code: int, out: str, err: str) -> None:
    assert code in (0, 2), (code, err)
    if code == 0 and not out.startswith("usage:"):  # an id of "-h" asks for help
        json.loads(out)
    else:
        assert err.startswith("tablesight rules: ") and err.count("\n") == 1, err
        assert "Traceback" not in err


file_bytes = st.one_of(
    st.binary(max_size=200),
    st.integers(0, len(SCENE_TEXT)).map(lambda n: SCENE_TEXT[:n].encode()),
    st.tuples(st.integers(0, len(SCENE_TEXT) - 1), st.binary(min_size=1, max_size=3)).map(
        lambda cut: (SCENE_TEXT[: cut[0]].encode() + cut[1] + SCENE_TEXT[cut[0] + 1:].encode())),
    st.sampled_from([b"", b"\xef\xbb\xbf" + SCENE_TEXT.encode(), SCENE_TEXT.encode("utf-16"),
                     b"[" * 100_000, b'{"models": ' * 50_000, SCENE_TEXT.replace("20", "1e400").encode(),
                     SCENE_TEXT.replace("20", "9" * 5000).encode(), b"null", b"[]", b'"scene"']),
)


@FUZZ
@example(raw=b"[" * 100_000, command=0)  # nesting deeper than Python's recursion limit
@example(raw=SCENE_TEXT.replace("20", "9" * 5000).encode(), command=0)  # a number too long to convert
@given(raw=file_bytes, command=st.integers(0, len(COMMANDS) - 1))
def test_any_scene_file_is_json_or_one_line_exit_2(tmp_path_factory, capsys, raw, command):
    folder = tmp_path_factory.mktemp("scene")
    (folder / "scene.json").write_bytes(raw)
    (folder / "valid.json").write_text(SCENE_TEXT)
    argv = [part.format(f=folder / "scene.json", v=folder / "valid.json") for part in COMMANDS[command]]
    assert_clean(*run_rules(argv, capsys))


@FUZZ
@given(a=st.text(max_size=20), b=st.text(max_size=20), kind=st.text(max_size=8),
       number=st.sampled_from(["nan", "inf", "-inf", "1e308", "-0", "3"]))
def test_any_ids_and_numbers_on_the_command_line(tmp_path_factory, capsys, a, b, kind, number):
    scene = tmp_path_factory.mktemp("ids") / "scene.json"
    scene.write_text(SCENE_TEXT)
    for argv in (["measure", str(scene), a, b], ["ranges", str(scene), a], ["show", a],
                 ["template", str(scene), kind, number, number, "--radius", number]):
        assert_clean(*run_rules(argv, capsys))


WORLD_AT_FIRE = (Path(rules_core.__file__).parent / "rulesets" / "world-at-fire.json").read_text("utf-8")
junk = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=6),
                 st.floats(allow_nan=True, allow_infinity=True), st.just([]), st.just({}))


def mutated(text: str, data: st.DataObject) -> str:
    """The shipped ruleset with one field somewhere replaced by junk (or removed)."""
    ruleset = json.loads(text)
    target, key = ruleset, None
    for _ in range(data.draw(st.integers(1, 5))):
        if isinstance(target, dict) and target:
            key = data.draw(st.sampled_from(sorted(target)))
        elif isinstance(target, list) and target:
            key = data.draw(st.integers(0, len(target) - 1))
        else:
            break
        if not isinstance(target[key], dict | list):
            break
        target, key = (target[key], None) if data.draw(st.booleans()) else (target, key)
        if key is None:
            continue
        break
    if key is None:
        return json.dumps(ruleset)
    if isinstance(target, dict) and data.draw(st.booleans()):
        del target[key]
    else:
        target[key] = data.draw(junk)
    return json.dumps(ruleset)


@FUZZ
@given(data=st.data())
def test_a_broken_user_ruleset_is_one_line_naming_the_file(tmp_path_factory, capsys, monkeypatch, data):
    folder = tmp_path_factory.mktemp("rulesets")
    (folder / "world-at-fire.json").write_text(mutated(WORLD_AT_FIRE, data))
    (folder / "scene.json").write_text(SCENE_TEXT)
    monkeypatch.setenv("TABLESIGHT_RULESETS", str(folder))
    for argv in (["show", "world-at-fire"], ["check", str(folder / "scene.json")], ["list"]):
        code, out, err = run_rules(argv, capsys)
        assert_clean(code, out, err)
        if code == 2 and argv[0] != "check":
            assert "world-at-fire.json" in err


@pytest.mark.parametrize("raw", [b"\xff\xfe\x00", b"{", b"[" * 100_000, b'{"id": "world-at-fire"}'])
def test_unreadable_ruleset_files(tmp_path, capsys, monkeypatch, raw):
    (tmp_path / "world-at-fire.json").write_bytes(raw)
    monkeypatch.setenv("TABLESIGHT_RULESETS", str(tmp_path))
    code, out, err = run_rules(["show", "world-at-fire"], capsys)
    assert code == 2 and "world-at-fire.json" in err
    assert_clean(code, out, err)
