#!/usr/bin/env bash
# Install everything the test suite needs on a fresh Debian machine, then run it.
# Browser tests drive Debian's Chromium (never a Playwright-downloaded browser); training tests
# need the `train` extra (torch, and Mitsuba 3 for the path-traced tables), which also covers
# the second renderer's tests; torch is pinned first to the build that pip finds on this
# machine's disk.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check "torch==2.14.1"
python3 -m pip install -q --disable-pip-version-check -e '.[dev,train]'

ruff check .
# Two workers: the suite is mostly browser pages, subprocesses and small renders, each on one
# core, so two cores take it from ~9.5 minutes to ~6. A fixed two, not one a core: a container
# limited to two cores may still see all of its host's.
python3 -m pytest -q -n 2 "$@"
