"""`tablesight`: one command line for the whole rig.

Each package registers its own subcommands (`register(subparsers)`), so the CLI grows with the
packages and this module stays a dispatcher. Handlers import their heavy dependencies lazily:
`tablesight rules ...` must not pay for OpenCV or Flask.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from rules_core.errors import TablesightError
from tracker.stdout import WatchedStdout, discard_stdout, fill_closed_streams

COMMAND_MODULES = (
    "calibration.cli",
    "models.cli",
    "tracker.track_cli",
    "tracker.rules_cli",
    "webui.cli",
    "hardware.cli",
)


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are user errors too: one line and exit code 2, like every other."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}. Run '{self.prog} --help' for the usage.\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tablesight",
        description="An overhead camera that measures a wargame table in centimetres and checks the rules.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def _quiet_opencv() -> None:
    """OpenCV and its FFmpeg print their own warnings ("moov atom not found", "OpenEXR codec is
    disabled") before our one line says what is wrong; both read these once, so they are set
    before any handler imports cv2. A developer's own setting wins."""
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET


def main(argv: Sequence[str] | None = None) -> int:
    _quiet_opencv()
    fill_closed_streams()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:
        return int(done.code or 0)
    stdout = sys.stdout
    sys.stdout = watched = WatchedStdout(stdout)
    try:
        return _run(args, watched)
    finally:
        sys.stdout = stdout


def _run(args: argparse.Namespace, watched: WatchedStdout) -> int:
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # inside the try: a reader gone by now is as quiet as one gone mid-output
        return code
    except BrokenPipeError:
        return _reader_went_away()
    except OSError:
        if watched.error is None:
            raise
        print(
            f"tablesight {args.command}: cannot write the output ({watched.error.strerror}). "
            "Free some space, or send the output somewhere that can take it.",
            file=sys.stderr,
        )
        discard_stdout()
        return 2
    except TablesightError as error:
        print(f"tablesight {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tablesight {args.command}: interrupted.", file=sys.stderr)
        return 130


def _reader_went_away() -> int:
    """`tablesight ... | head -1`: the reader has all it wanted, which is no error to report.
    The exit status is a shell's for a process ended by SIGPIPE."""
    discard_stdout()
    return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
