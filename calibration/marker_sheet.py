"""How much paper a printed marker takes: its square and the white quiet zone around it.

The printer (`calibration.sheets`), the default layouts (markers placed with their quiet zone
touching the table's edges) and the detector (nothing on a sheet is a base or a hull) all
need the same figure; it lives here, free of heavy imports, because the detector loads on
every frame source and must not pull in the layout's validation.
"""

from __future__ import annotations

QUIET_ZONE = 0.25  # white margin around the square, as a fraction of its side
SHEET_SCALE = 1 + 2 * QUIET_ZONE  # the sheet's side over the square's


def sheet_reach(side: float) -> float:
    """From a marker's centre to its sheet's edge, square to it (in the side's units)."""
    return side * SHEET_SCALE / 2
