"""`tablesight serve` and `tablesight demo`: the players' web UI on the rig.

The tracker's session (tracker/session.py) and Flask are imported inside the handlers so
`tablesight rules ...` starts without them.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
from collections.abc import Callable

from calibration.seed_tables import LAYOUT_HELP
from hardware.cli import SIZE_HELP, camera_size
from rules_core.errors import TablesightError

# After the camera's own fix (a busy camera, a ribbon cable, picamera2 missing), which starting
# the demo would not mend.
NO_CAMERA_FIX = (
    "or start the demo game with `tablesight demo`, or pass --source camera:N, a video file, "
    "a folder of images or a recording"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="the web UI for a live table",
        description="Run the camera pipeline and serve the players' overlay on phones (LAN).",
    )
    serve.add_argument(
        "--source",
        default="picamera2",
        help="picamera2 (default), camera:N, a video file, a folder of images, or a recording",
    )
    serve.add_argument("--layout", help=LAYOUT_HELP + " (default: 183x122)")
    serve.add_argument(
        "--intrinsics",
        metavar="CAM.json",
        help="lens calibration JSON (from `tablesight calibrate-lens`); a recording's own by default",
    )
    serve.add_argument("--size", type=camera_size, metavar="WxH", help=SIZE_HELP)
    serve.add_argument("--ruleset", default="world-at-fire", help="ruleset id (default world-at-fire)")
    _common(serve, default_host="0.0.0.0")
    serve.set_defaults(func=run_serve)

    demo = subparsers.add_parser(
        "demo",
        help="the web UI on the bundled demo game, no camera needed",
        description="Serve the web UI on the bundled demo recording, replayed in a loop.",
    )
    _common(demo, default_host="0.0.0.0")
    demo.set_defaults(func=run_demo)


def _common(parser: argparse.ArgumentParser, default_host: str) -> None:
    parser.add_argument("--host", default=default_host, help=f"address to listen on (default {default_host})")
    parser.add_argument("--port", type=_port, default=8080, help="port, 1-65535 (default 8080)")
    parser.add_argument(
        "--pin",
        help="table PIN for control actions (default: $TABLESIGHT_PIN, else a random 4 digits, printed)",
    )
    parser.add_argument("--recordings", help="folder of recordings to offer for replay")


def _port(text: str) -> int:
    """A TCP port a phone can be sent to: waitress would take 0 for any free port, and the
    address printed for the players would then be wrong."""
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number from 1 to 65535")
    return int(text)


def run_serve(args: argparse.Namespace) -> int:
    sessions = _session_module()
    try:
        session = sessions.open_session(
            args.source, layout_path=args.layout, ruleset=args.ruleset, recordings_dir=args.recordings,
            intrinsics_path=args.intrinsics, size=args.size,
        )
    except sessions.SourceUnavailable as error:
        if args.source.startswith(("picamera2", "camera:")):
            raise TablesightError(f"No camera: {error.problem}", f"{error.fix}; {NO_CAMERA_FIX}") from None
        raise
    return _serve(session, args, "live table")


def run_demo(args: argparse.Namespace) -> int:
    sessions = _session_module()
    demo = getattr(sessions, "DEMO_RECORDING", None)
    if args.recordings is None and demo is not None:
        args.recordings = str(demo.parent)  # so the Replay tab has the demo game to open
    elif args.recordings is not None and not os.path.isdir(args.recordings):
        # The demo records nothing, so it makes no folder: a wrong path would only leave the
        # Replay tab empty, with nothing said where it was typed.
        raise TablesightError(
            f"--recordings {args.recordings} is not a folder",
            "give the folder that holds the .tsr recordings, or leave --recordings out",
        )
    return _serve(sessions.open_demo_session(), args, "demo game")


def _session_module():
    try:
        session = importlib.import_module("tracker.session")
    except ImportError as error:
        raise TablesightError(
            f"The table session is missing from this install ({error})",
            "Reinstall tablesight with `pip install .`",
        ) from None
    return session


def _serve(session, args: argparse.Namespace, what: str) -> int:
    from webui.pin import random_pin
    from webui.serve import lan_address
    from webui.stream import end_streams

    # From the environment, a fixed PIN stays out of `ps` and, not being printed, of the journal.
    from_environment = not args.pin and bool(os.environ.get("TABLESIGHT_PIN"))
    pin = args.pin or os.environ.get("TABLESIGHT_PIN") or random_pin()
    try:
        app, server = _listen(session, pin, args)
    except BaseException:
        # The session is open (its camera, a new recording in --recordings): closing it lets
        # the camera go and takes away the recording that never got a frame.
        session.stop()
        raise
    session.start()
    shown_pin = "as set in TABLESIGHT_PIN" if from_environment else pin
    address = f"http://{lan_address(args.host)}:{args.port}/"
    print(f"tablesight {args.command}: {what} on {address}  table PIN {shown_pin}", flush=True)
    # A dropped ssh session's SIGHUP stops it the same way, unless it runs under nohup.
    hangup = () if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN else (signal.SIGHUP,)
    stops = (signal.SIGTERM, signal.SIGINT, *hangup)
    previous = {signum: signal.signal(signum, _stop_serving(app)) for signum in stops}
    try:
        server.run()
    finally:
        end_streams(app)
        server.close()
        session.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


def _listen(session, pin: str, args: argparse.Namespace) -> tuple:
    from webui.app import create_app
    from webui.serve import make_server

    if not (pin.isdigit() and 4 <= len(pin) <= 6):
        raise TablesightError("The table PIN is not 4-6 digits",
                              "Pass --pin or TABLESIGHT_PIN with 4 to 6 digits")
    app = create_app(session, pin, args.recordings)
    try:
        return app, make_server(app, args.host, args.port)
    except OSError as error:
        if error.errno == errno.EADDRNOTAVAIL:  # an address, but another machine's
            raise _not_this_machine(args.host) from None
        fix = ("Pick a --port of 1024 or more (lower ones need root)" if error.errno == errno.EACCES
               else "Pick another --port, or stop the program using it")
        raise TablesightError(f"Cannot listen on {args.host}:{args.port} ({error.strerror})", fix) from None
    except ValueError:
        # waitress's word for a --host that is neither an address nor a name that resolves.
        raise _not_this_machine(args.host) from None


def _not_this_machine(host: str) -> TablesightError:
    return TablesightError(
        f"Cannot listen on {host}: not an address of this machine",
        "Pass --host 0.0.0.0 (every network), 127.0.0.1 (this machine only) or one of its addresses",
    )


def _stop_serving(app) -> Callable[[int, object], None]:
    """`systemctl stop` sends SIGTERM, Ctrl-C SIGINT, a dropped ssh session SIGHUP: leave through
    `_serve`'s clean stop, so the recording is closed (flushed, its -wal file folded in) instead of
    the process dying mid-write.
    The open streams are told first: waitress's own stop waits up to 5 s for their threads, and
    phones keep their state streams open all game. A second signal while stopping is let be: it
    would break off the very stop that keeps the recording whole, which takes a second or two."""
    from webui.stream import end_streams, streams_ending

    def stop(signum: int, frame: object) -> None:
        if streams_ending(app):
            return
        end_streams(app)
        raise SystemExit(0)

    return stop
