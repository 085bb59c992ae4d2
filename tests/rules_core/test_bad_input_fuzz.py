"""Any JSON a user can write either parses or raises TablesightError: never another exception."""

from __future__ import annotations

import contextlib
import copy
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core import api
from rules_core.errors import TablesightError
from tests.json_paths import paths
from tests.rules_core.builders import base, hull, scene_data

VALID = scene_data(
    "world-at-fire",
    [base(20, 30, "a"), base(26, 30, "b"), hull(100, 60, "t"), base(150, 60, "e", side="blue")],
    objectives=[{"id": "o", "x_cm": 90, "y_cm": 60}],
    terrain=[{"id": "w", "kind": "forest", "polygon_cm": [[10, 10], [30, 10], [30, 25]]}],
    deployment={"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}},
)

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.just([]),
    st.just({}),
    st.just([[0, 0], [1, 1]]),
    st.just(math.nan),
)


ALL_PATHS = paths(VALID)


def replaced(path: tuple, new: object) -> dict:
    data = copy.deepcopy(VALID)
    target = data
    for key in path[:-1]:
        target = target[key]
    if new is DELETE and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = None if new is DELETE else new
    return data


DELETE = object()


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ALL_PATHS), st.one_of(junk, st.just(DELETE)))
def test_any_broken_field_is_a_user_error_or_a_valid_scene(path: tuple, new: object) -> None:
    data = replaced(path, new)
    try:
        scene = api.parse_scene(data)
    except TablesightError:
        return
    before = api.parse_scene(VALID)
    api.check(scene)
    if scene.models:
        with contextlib.suppress(TablesightError):  # an id both a model's and a unit's is refused
            api.ranges(scene, scene.models[0].id)
    with contextlib.suppress(TablesightError):
        api.move(before, scene)
