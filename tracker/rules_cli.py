"""Subcommands of this package for `tablesight` (see tracker/cli.py)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add this package's subcommands; filled in as the package grows."""
