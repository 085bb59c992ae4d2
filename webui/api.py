"""JSON routes: the state, control actions (PIN), and read-only measurements.

Measurements are computed on demand by `rules_core` from the scene in the current state,
so the Pi does no work for them until a player asks.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import BadRequest, Conflict, Forbidden, NotFound, TooManyRequests

from rules_core.errors import TablesightError
from webui import additions, measuring, settings
from webui.actions import ACTIONS, LIMITS, number_rule, validate_action
from webui.state_json import dumps_state, served
from webui.wording import ranges_refusal, refusal

api = Blueprint("api", __name__, url_prefix="/api")


@api.app_context_processor
def limits() -> dict:
    """The bounds the rig takes (`webui.actions.LIMITS`), and its words for them, for the page's
    fields: one source."""
    return {"limits": LIMITS, "number_rule": number_rule}


def _extension() -> dict:
    return current_app.extensions["tablesight"]


@api.get("/state")
def state():
    return Response(
        dumps_state(served(_extension()["session"].state(), _extension()["run"])),
        mimetype="application/json",
        headers={"Cache-Control": "no-store"},
    )


@api.post("/action/<action>")
def action(action: str):
    if action not in ACTIONS:
        raise NotFound(f"No action '{action}'. Known actions: {', '.join(ACTIONS)}.")
    _require_pin()
    payload = validate_action(action, _json_body())
    session = _extension()["session"]
    payload, join = additions.addition(action, payload)
    if action == "setup":
        join = settings.Filling(payload)
    try:
        reply = session.apply(action, payload, join=join) if join else session.apply(action, payload)
    except TablesightError as error:
        # A refused action changes nothing, so the state now is the one the refusal judged.
        raise refusal(action, error, join.payload if join else payload, session.state()) from None
    return jsonify({**reply, "added": join.added} if join and join.added else reply)


@api.get("/rulesets")
def rulesets():
    return jsonify(rulesets=measuring.rulesets())


@api.get("/rulesets/<ruleset_id>")
def ruleset_tools(ruleset_id: str):
    return jsonify(measuring.ruleset_tools(ruleset_id))


@api.get("/ranges")
def ranges():
    model_id = request.args.get("from", "").strip()
    if not model_id:
        raise BadRequest("Say which model to measure from: /api/ranges?from=ID.")
    current = _measurable_state()
    try:
        return jsonify(measuring.ranges(current, model_id))
    except TablesightError as error:
        raise ranges_refusal(error) from None


@api.get("/measure")
def measure():
    a, b = request.args.get("a", "").strip(), request.args.get("b", "").strip()
    if not a or not b:
        raise BadRequest("Give two ends: /api/measure?a=ID&b=ID, or a point as a=X,Y in table cm.")
    current = _measurable_state()
    return jsonify(measuring.measure(current, a, b))


def _measurable_state() -> dict:
    current = _extension()["session"].state()
    if not measuring.measuring_allowed(current):
        raise Conflict(
            f"Measuring is not allowed during the {current.get('phase')} phase of this ruleset. "
            "Judge by eye until the orders are given."
        )
    return current


def _require_pin() -> None:
    guard = _extension()["pin_guard"]
    client = request.remote_addr or "unknown"
    wait_s = guard.retry_after_s(client)
    if wait_s > 0:
        raise TooManyRequests(
            f"Too many wrong PINs from this device. Wait {int(wait_s) + 1} s and try again.",
            retry_after=int(wait_s) + 1,
        )
    if not guard.check(client, request.headers.get("X-Table-Pin")):
        raise Forbidden("Wrong or missing table PIN. Use the PIN the rig printed at start-up.")


def _json_body() -> object:
    if not request.get_data(cache=True):
        return {}
    try:
        return request.get_json(force=True)  # `null` is JSON too: `validate_action` says it is no object
    except BadRequest:
        raise BadRequest("The body is not valid JSON. Send a JSON object.") from None
