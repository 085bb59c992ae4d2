"""A setup's settings left out are the game's own, filled in from the game as it stands.

The game takes its settings whole (session_contract.md: `setup` needs the ruleset and the table,
and a step left out is the ruleset's own). A phone clearing the deployment sent the ruleset, table
and step it was shown beside it, and put back the ones another phone had changed a moment before.
A phone now sends only what its control changes, and the rig fills in the rest here, from the
game's settings as they stand under the session's lock (`TableSession.apply`'s `join`): filled
from the state last published, a change another phone made within the frame was still undone.
"""

from __future__ import annotations


def filled(payload: dict, state: dict) -> dict:
    """`payload` with the ruleset and table it leaves out (or sends as null) taken from `state`,
    and the game's step where it keeps the game's ruleset: another ruleset's step is its own."""
    ruleset = state["ruleset"]
    whole = {**payload}
    if whole.get("ruleset") is None:
        whole["ruleset"] = ruleset["id"]
    if whole.get("table") is None:
        whole["table"] = {"width_cm": state["table"]["width_cm"], "depth_cm": state["table"]["depth_cm"]}
    if "step_cm" not in whole and whole["ruleset"] == ruleset["id"] and ruleset.get("unit") == "step":
        whole["step_cm"] = ruleset["unit_cm"]
    return whole


class Filling:
    """`filled` as `TableSession.apply`'s `join` calls it; then `payload` is the setup the game was
    given (a refusal's wording reads it). Adds no piece, so `added` stays None."""

    added = None

    def __init__(self, payload: dict) -> None:
        self.payload = payload

    def __call__(self, standing: dict) -> dict:
        self.payload = filled(self.payload, standing)
        return self.payload
