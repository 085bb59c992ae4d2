"""Pure rules core: rulesets as data, scenes in table cm, verdicts as JSON-ready dicts.

No OpenCV, no Flask, no clock; the only files read are ruleset data files. The public API
lives in `rules_core.api` and is re-exported here lazily, because every package imports
`rules_core.errors` and should not pay for shapely and scipy to do so.
"""

from __future__ import annotations

from typing import Any

API = (
    "check",
    "deployment_zones",
    "grenade_scatter",
    "hex_centre",
    "list_rulesets",
    "load_ruleset",
    "measure",
    "move",
    "parse_scene",
    "ranges",
    "ruleset_dict",
    "under_template",
)


def __getattr__(name: str) -> Any:
    if name in API:
        from rules_core import api

        return getattr(api, name)
    raise AttributeError(f"module 'rules_core' has no attribute {name!r}")
