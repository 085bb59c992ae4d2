"""Small shared pieces of a move verdict: a reason record, numbers for people, angles."""

from __future__ import annotations

from rules_core.scene import ModelSpec

TOLERANCE_CM = 1e-6


def reason(code: str, detail: str) -> dict[str, str]:
    """One thing wrong with a move: a stable code for programs, a sentence for players."""
    return {"code": code, "detail": detail}


def fmt(value: float) -> str:
    """A length as a player reads it: 15, 15.1, 15.01 (never 15.000000001)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def fmt_over(value: float, limit: float) -> str:
    """`value` with as many decimals as it takes to read apart from `limit` (six tell apart any
    two a threshold's TOLERANCE_CM does): a move refused for 15.2425 cm against 15.24 read "moved
    15.24 cm, may move 15.24 cm"."""
    text = fmt(value)
    for digits in (3, 4, 5, 6):
        if text != fmt(limit):
            break
        text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return text


def angle_between(a_deg: float, b_deg: float) -> float:
    return abs((a_deg - b_deg + 180.0) % 360.0 - 180.0)


def names_model(names: list[str], model: ModelSpec) -> bool:
    """Whether a ruleset list of type names ("all", "vehicle", "vehicle:wheeled") covers the model."""
    return "all" in names or model.type in names or f"{model.type}:{model.chassis}" in names
