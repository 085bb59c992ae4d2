"""`tablesight`: one command line for the whole rig.

Each package registers its own subcommands (`register(subparsers)`), so the CLI grows with the
packages and this module stays a dispatcher. Handlers import their heavy dependencies lazily:
`tablesight rules ...` must not pay for OpenCV or Flask.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from importlib.metadata import version
from typing import Any, NoReturn

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
    """Usage mistakes are user errors too: one line and exit code 2, like every other.

    A value that starts with a minus and a digit is a value, not an option: argparse takes only
    plain numbers (-5, -0.5) for negative numbers, so `--table -5x100` or `--size-cm -1e3` met
    "expected one argument" instead of the command's own word on what the size must be. No
    option of ours starts with a digit.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}. Run '{self.prog} --help' for the usage.\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tablesight",
        description="An overhead camera that measures a wargame table in centimetres and checks the rules.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('tablesight')}")
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
        with _stops_like_ctrl_c():
            return _run(args, watched)
    finally:
        sys.stdout = stdout


class Stopped(KeyboardInterrupt):
    """SIGTERM (`systemctl stop`, `timeout`, `kill`) or SIGHUP (the ssh session dropped): met
    where Ctrl-C is, so `record` closes its recording (the log folded into the .tsr) and says
    it stopped, instead of dying with the game left in its -wal file."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _stops_like_ctrl_c() -> Iterator[None]:
    """Only where the signal would kill the process (an ignored SIGHUP, as under `nohup`, stays
    ignored) and only in the main thread (the only one Python lets handle signals). A second
    signal while stopping is let be: it would break off the very stop that keeps the file whole.
    A command's own handler (`serve`'s) replaces these while it runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        for each in previous:
            signal.signal(each, signal.SIG_IGN)
        raise Stopped(signum)

    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}
    previous = {signum: handler for signum, handler in previous.items() if handler == signal.SIG_DFL}
    for signum in previous:
        signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _run(args: argparse.Namespace, watched: WatchedStdout) -> int:
    try:
        _refuse_folder_names(args)
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # inside the try: a reader gone by now is as quiet as one gone mid-output
        return code
    except BrokenPipeError:
        return _reader_went_away()
    except OSError as error:
        if watched.error is None:
            if error.filename is None:
                raise
            # The last resort for a path some check missed: the refusal is the user's to fix.
            from calibration.output_file import unusable

            print(f"tablesight {args.command}: {unusable(error.filename, error)}", file=sys.stderr)
            return 2
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
    except Stopped as stopped:
        print(f"tablesight {args.command}: stopped ({signal.Signals(stopped.signum).name}).", file=sys.stderr)
        return 128 + stopped.signum
    except KeyboardInterrupt:
        print(f"tablesight {args.command}: interrupted.", file=sys.stderr)
        return 130


# The options that name a file to write, by their attribute; a name ending in a slash means a
# folder, and Path() would drop the slash and write a file named like that folder.
FILE_OPTIONS = {"output": "-o", "report": "--report", "dataset": "--dataset"}


def _refuse_folder_names(args: argparse.Namespace) -> None:
    for attribute, option in FILE_OPTIONS.items():
        name = getattr(args, attribute, None)
        if isinstance(name, str) and name.endswith((os.sep, "/")):
            raise TablesightError(
                f"{option} {name} ends in a slash, so it names a folder, not a file",
                f"give {option} a file name, e.g. {name}{_example_name(args, attribute)}",
            )


def _example_name(args: argparse.Namespace, attribute: str) -> str:
    if attribute != "output":
        return "report.json" if attribute == "report" else "rims.npz"
    examples = {"record": "game.tsr", "markers": "markers.pdf", "rectify": "top.png",
                "charuco-board": "board.pdf", "calibrate-lens": "CAM.json", "train": "rim.onnx"}
    return examples.get(args.command, "calibration.json")


def _reader_went_away() -> int:
    """`tablesight ... | head -1`: the reader has all it wanted, which is no error to report.
    The exit status is a shell's for a process ended by SIGPIPE."""
    discard_stdout()
    return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
