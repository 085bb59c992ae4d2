"""Where rulesets come from: the shipped files, then the user's folder.

A user adds a game by dropping `<id>.json` into `$TABLESIGHT_RULESETS` (a folder, or several
separated by the OS path separator) or, when that is unset, `~/.config/tablesight/rulesets`.
A user file with a shipped id replaces the shipped one, so house rules need no fork. A file
that does not validate is reported with its path, the field and the line, because the person
who has to fix it is looking at that file in an editor.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from rules_core.errors import RulesetError, plain_problem
from rules_core.ruleset import Ruleset

USER_FOLDER_ENV = "TABLESIGHT_RULESETS"
DEFAULT_USER_FOLDER = Path("~/.config/tablesight/rulesets")


def user_folders() -> list[Path]:
    configured = os.environ.get(USER_FOLDER_ENV)
    if configured:
        return [Path(part).expanduser() for part in configured.split(os.pathsep) if part]
    return [DEFAULT_USER_FOLDER.expanduser()]


def _sources() -> dict[str, tuple[str, Callable[[], bytes]]]:
    """Ruleset id -> (file name for messages, how to read its bytes), user files last so they win.

    Files are only read when their ruleset is asked for, so one broken file in the user folder
    breaks that ruleset alone.
    """
    found: dict[str, tuple[str, Callable[[], bytes]]] = {}
    shipped = resources.files("rules_core") / "rulesets"
    for entry in sorted(shipped.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            found[entry.name[: -len(".json")]] = (f"rules_core/rulesets/{entry.name}", entry.read_bytes)
    for folder in user_folders():
        if folder.is_dir():
            for path in sorted(folder.glob("*.json")):
                found[path.stem] = (str(path), path.read_bytes)
    return found


def _text(name: str, read: Callable[[], bytes]) -> str:
    try:
        return read().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RulesetError(f"ruleset file {name}: not UTF-8 text", "save it as UTF-8 JSON") from None
    except OSError as error:
        raise RulesetError(
            f"ruleset file {name}: cannot be read ({error.strerror})", "check the file"
        ) from None


def _line_of(text: str, loc: tuple[str | int, ...]) -> int:
    """Best line for a pydantic error location: follow the keys through the text in order."""
    position = 0
    for part in loc:
        if isinstance(part, int):
            continue
        found = text.find(f'"{part}"', position)
        if found < 0:
            break
        position = found
    return text.count("\n", 0, position) + 1


def parse_ruleset(text: str, name: str) -> Ruleset:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RulesetError(
            f"ruleset file {name} line {error.lineno}: invalid JSON ({error.msg})",
            "fix the JSON syntax at that line",
        ) from None
    except (ValueError, RecursionError):
        # a number longer than Python converts, or lists nested deeper than its stack
        raise RulesetError(
            f"ruleset file {name}: unusable JSON (a number too long or lists nested too deep)",
            "write plain numbers and shallow lists",
        ) from None
    try:
        ruleset = Ruleset.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top level)"
        line = _line_of(text, tuple(first["loc"]))
        raise RulesetError(
            f"ruleset file {name} line {line}: field {field}: {plain_problem(first['msg'])}",
            "correct that field (see `tablesight rules show world-at-fire` for a complete example)",
        ) from None
    if ruleset.id != Path(name).stem:
        raise RulesetError(
            f"ruleset file {name} line {_line_of(text, ('id',))}: field id: "
            f"{ruleset.id!r} differs from the file name",
            f"name the file {ruleset.id}.json or change its id",
        )
    return ruleset


def ruleset_ids() -> list[str]:
    return sorted(_sources())


@lru_cache(maxsize=32)
def _cached(name: str, text: str) -> Ruleset:
    return parse_ruleset(text, name)


def load_ruleset(ruleset_id: str) -> Ruleset:
    sources = _sources()
    if ruleset_id not in sources:
        raise RulesetError(
            f"unknown ruleset {ruleset_id!r}",
            f"use one of {', '.join(sorted(sources))} or add "
            f"{ruleset_id if str(ruleset_id).isprintable() else 'ID'}.json to {user_folders()[0]}",
        )
    name, read = sources[ruleset_id]
    text = _text(name, read)
    ruleset = _cached(name, text)
    shipped = resources.files("rules_core") / "rulesets" / f"{ruleset_id}.json"
    if name.startswith("rules_core/") or "turn_phases" in ruleset.model_fields_set or not shipped.is_file():
        return ruleset
    return _with_shipped_turn(name, text, shipped.read_text(encoding="utf-8"))


@lru_cache(maxsize=32)
def _with_shipped_turn(name: str, text: str, shipped_text: str) -> Ruleset:
    """A player's copy of a shipped ruleset made before rulesets said their turn (`rules show`
    prints it since session 73) keeps the shipped game's: Tankomaster's copy lost its orders phase.
    Made once, as `_cached` parses once: a copy made at every load costs its `known_roles` anew."""
    ruleset, own = _cached(name, text), _cached(f"rules_core/rulesets/{Path(name).name}", shipped_text)
    return ruleset.model_copy(update={"turn_phases": own.turn_phases})
