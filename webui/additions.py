"""A piece added to a list the game keeps whole (objectives, terrain), joined to the list as it stands.

The game takes these lists whole (session_contract.md), and the page sent the list it was shown
with its piece added: two phones placing an objective at the same moment each sent their own
list, and the second wiped out the first phone's objective. A phone now sends only the piece it
adds (`add`), and the session joins it to the game's list under the lock the game changes under
(`TableSession.apply`'s `join`), so each tap lands whatever the other phones, or the recording a
replay plays, did meanwhile. The game is sent the whole list, as the contract has it, and so it is
recorded and replayed.
"""

from __future__ import annotations

from rules_core.errors import TablesightError
from webui.actions import ADDED, validate_action

# What the rig names an added piece that names none, as the page named them: obj3, terrain2.
PREFIXES = {"objectives": "obj", "terrain": "terrain"}


class Addition:
    """One piece for `action`'s list, joined when the session calls it with the list; then
    `payload` is the whole list the game was given (a refusal's wording looks pieces up in it)
    and `added` the piece's id."""

    def __init__(self, action: str, piece: dict) -> None:
        self.action = action
        # A null id is as if left out (`webui.actions`): the rig names the piece.
        self.piece = {key: value for key, value in piece.items() if (key, value) != ("id", None)}
        self.payload: dict = {action: [self.piece]}
        self.added: str | None = None

    def __call__(self, listed: list[dict]) -> dict:
        taken = {piece.get("id") for piece in listed}
        piece = self.piece
        if "id" in piece and piece["id"] in taken:
            raise TablesightError(f"{ADDED[self.action].capitalize()} {piece['id']} is on the table already",
                                  "Leave its id out for the rig to name it, or give another")
        if "id" not in piece:
            n = len(listed) + 1
            while f"{PREFIXES[self.action]}{n}" in taken:
                n += 1
            piece = {"id": f"{PREFIXES[self.action]}{n}", **piece}
        # The list's bounds, and their refusal, are the whole list's (`webui.actions`).
        self.payload = validate_action(self.action, {self.action: [*listed, piece]})
        self.added = piece["id"]
        return self.payload


def addition(action: str, payload: dict) -> tuple[dict, Addition | None]:
    """The payload as the game takes it, and the `Addition` to join when it carries one. A null
    `add` beside a whole list is as if left out: the game, and so the recording, never sees it."""
    if action not in PREFIXES:
        return payload, None
    if payload.get("add") is None:
        return {key: value for key, value in payload.items() if key != "add"}, None
    return payload, Addition(action, payload["add"])
