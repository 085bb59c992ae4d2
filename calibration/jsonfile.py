"""Reading the JSON files users hand to calibration: layouts, lens intrinsics, calibrations.

All three fail the same ways (missing, unreadable, not JSON, nested or numbered past what
Python parses), and each failure must be one line naming the file and the fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rules_core.errors import TablesightError


def read_json(path: str | Path, what: str, option: str, written_by: str) -> Any:
    """The parsed content of `path`, a `what` file given by `option`, as `written_by` writes it."""
    if not str(path).strip():  # Path("") is the current folder, which would read as a folder
        raise TablesightError(f"{option} is empty", f"give {written_by}")
    try:
        # utf-8-sig: a file saved with a byte order mark (Windows Notepad, PowerShell) reads too
        return json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise TablesightError(f"{what} file {path} not found", f"check the {option} path") from None
    except IsADirectoryError:
        raise TablesightError(f"{what} file {path} is a folder", f"give {written_by}") from None
    except (OSError, ValueError, RecursionError) as error:  # ValueError: bad JSON, text or number
        raise TablesightError(f"{what} file {path} is not readable JSON ({error})",
                              f"give {written_by}") from None
