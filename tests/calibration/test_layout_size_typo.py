"""--layout given a table size typed half or wrong ("183x", "183x122x5", "x122")."""

from __future__ import annotations

import pytest

from calibration.layout import load_layout
from rules_core.errors import TablesightError


@pytest.mark.parametrize("typed", ["183x", "x122", "183x122x5", "183 x"])
def test_a_size_typed_wrong_is_named_a_size_not_a_missing_file(typed, tmp_path, monkeypatch) -> None:
    """It was "layout file 183x not found. check the --layout path", with no word of the WxD form."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TablesightError) as caught:
        load_layout(typed)
    assert caught.value.problem == f"--layout {typed} is neither a layout file nor a table size"
    assert caught.value.fix == ("write the size as WIDTHxDEPTH in cm, e.g. 183x122, or give the path of the "
                                "layout JSON (from `tablesight markers`)")


def test_a_missing_file_is_still_called_missing(tmp_path) -> None:
    with pytest.raises(TablesightError, match=r"layout file .*game-183x122\.json not found"):
        load_layout(tmp_path / "game-183x122.json")
