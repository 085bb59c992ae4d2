"""A piece added to a list the game keeps whole (objectives, terrain), joined to the list as it stands.

The game takes these lists whole (session_contract.md), and the page sent the list it was shown
with its piece added: two phones placing an objective at the same moment each sent their own
list, and the second wiped out the first phone's objective. A phone now sends only the piece it
adds (`add`); here it joins the list the rig has, under one lock for every write of these lists,
so each tap lands whatever the other phones did meanwhile. The game is sent the whole list, as
the contract has it, and so it is recorded and replayed.
"""

from __future__ import annotations

import contextlib
import threading

from rules_core.errors import TablesightError
from webui.actions import ADDED, validate_action

# What the rig names an added piece that names none, as the page named them: obj3, terrain2.
PREFIXES = {"objectives": "obj", "terrain": "terrain"}

# One for the process: a rig serves one table. Held from reading the list to the game taking it.
_writing = threading.Lock()


def writing(action: str) -> contextlib.AbstractContextManager:
    """Held around a write of a list (`joined`, then the session's `apply`); nothing for others."""
    return _writing if action in PREFIXES else contextlib.nullcontext()


def joined(action: str, payload: dict, state: dict) -> tuple[dict, str | None]:
    """The payload the game takes (the whole list, with the piece in `add` joined to `state`'s),
    and the added piece's id; a whole list as it is. A null `add`, or a null id in it, is as if
    left out (`webui.actions`): the game, and so the recording, never sees either."""
    if action not in PREFIXES:
        return payload, None
    if payload.get("add") is None:
        return {key: value for key, value in payload.items() if key != "add"}, None
    listed = list(state.get(action) or [])
    taken = {piece.get("id") for piece in listed}
    piece = {key: value for key, value in payload["add"].items() if (key, value) != ("id", None)}
    if "id" in piece and piece["id"] in taken:
        raise TablesightError(f"{ADDED[action].capitalize()} {piece['id']} is on the table already",
                              "Leave its id out for the rig to name it, or give another")
    if "id" not in piece:
        n = len(listed) + 1
        while f"{PREFIXES[action]}{n}" in taken:
            n += 1
        piece = {"id": f"{PREFIXES[action]}{n}", **piece}
    # The list's bounds, and their refusal, are the whole list's (`webui.actions`).
    return validate_action(action, {action: [*listed, piece]}), piece["id"]
