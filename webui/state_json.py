"""The state as JSON a browser can parse, whatever floats the pipeline put in it.

Python writes NaN and Infinity into JSON; `JSON.parse` on a phone rejects them and the page
would stop updating. A calibration that failed oddly or an fps over a zero interval must
show as "unknown" (null), not freeze every viewer.
"""

from __future__ import annotations

import json
import math


def served(state: dict, run: str) -> dict:
    """The session's state with `status.run`, the run of the rig serving it (`create_app`)."""
    return {**state, "status": {**state["status"], "run": run}}


def dumps_state(state: dict) -> str:
    try:
        return json.dumps(state, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return json.dumps(_finite(state), separators=(",", ":"), allow_nan=False)


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
