"""The one error type users see.

Every package raises `TablesightError` (or a subclass) for anything a user can fix: a bad file,
a missing marker, an unknown ruleset. The CLI and the web UI turn it into one line and exit
code 2 / a 4xx, so a traceback always means a bug of ours, never a mistake of the user's.
It lives in `rules_core` because that is the package every other one may import.
"""

from __future__ import annotations

import re


class TablesightError(Exception):
    """A problem the user can fix, with what is wrong and what to do about it."""

    def __init__(self, problem: str, fix: str = "") -> None:
        self.problem = problem.rstrip(".")
        self.fix = fix.rstrip(".")
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.problem}. {self.fix}." if self.fix else f"{self.problem}."


class RulesetError(TablesightError):
    """A ruleset file that cannot be used: names the file, the field and the line."""


class SceneError(TablesightError):
    """A scene (or move, or command argument) that does not fit its ruleset: names the field."""


def plain_problem(message: str) -> str:
    """A pydantic error message as a user reads it: without the "Value error, " our own
    validators' messages get, or the model class a nested object should be an instance of
    ("a valid dictionary or instance of ModelSpec" names our code, not the file's JSON)."""
    message = message.removeprefix("Value error, ").replace("a valid dictionary", "a JSON object")
    return re.sub(r" or instance of \w+", "", message)
