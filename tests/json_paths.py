"""Every place in a JSON document, so fuzz tests can break one field at a time."""

from __future__ import annotations


def paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """The key/index path of every value below `value` (not `value` itself)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found
