"""The seed rules' three table sizes, for which marker layouts ship.

Kept apart from `calibration.layout` (pydantic, shapely: ~0.4 s to import) so that every
command's argument parser can name them without loading it.
"""

DEFAULT_TABLES = ("122x122", "183x122", "244x183")
LAYOUT_HELP = (
    f"marker layout JSON (from `tablesight markers`), or {', '.join(DEFAULT_TABLES[:-1])} or "
    f"{DEFAULT_TABLES[-1]} for its default sheets"
)
