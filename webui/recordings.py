"""Replay: the recordings on the rig, their timelines, and the game report.

Only names of entries directly inside the recordings folder are accepted, so a crafted name
(`../`, an absolute path, a symlink pointing out) can never make the rig read another file.
The replay engine is the tracker's; it is imported on first use and its reports kept by file
modification time (`webui.report_cache`), because a replay reruns the pipeline.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify, render_template
from werkzeug.exceptions import BadRequest, NotFound, ServiceUnavailable

from rules_core.errors import TablesightError
from webui.report import report_context, timeline
from webui.report_cache import Busy

recordings = Blueprint("recordings", __name__, url_prefix="/api/recordings")


def _root() -> Path | None:
    return current_app.extensions["tablesight"]["recordings_dir"]


@recordings.get("")
def listing():
    root = _root()
    try:
        names = sorted(root.iterdir()) if root is not None and root.is_dir() else None
    except OSError as error:  # a folder the server's user may not list or enter
        return jsonify(recordings=[], message=f"The rig cannot list its recordings folder "
                       f"({error.strerror}). Let the user tablesight runs as read it, then reload.")
    if names is None:
        return jsonify(
            recordings=[], message="No recordings folder on this rig. Start it with one to replay games."
        )
    is_recording = _recording_test()
    listed = []
    for path in names:
        if path.name.startswith("."):
            continue
        try:
            if is_recording(path):
                listed.append(_describe(path))
        except (TablesightError, OSError):
            # One the server may not read is listed when named like a recording (opening it then
            # says why it cannot be replayed), and never hides the others.
            if path.suffix.lower() == ".tsr":
                with contextlib.suppress(OSError):
                    listed.append(_describe(path))
    return jsonify(recordings=listed)


@recordings.get("/<path:name>/report")
def report(name: str):
    path = recording_path(name)
    html = render_template("report.html", **report_context(_load(path), path.name))
    return Response(
        html,
        mimetype="text/html",
        headers={
            "Content-Disposition": f'attachment; filename="{path.name}-report.html"',
            # self-contained: its own inline style, nothing fetched from anywhere
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
        },
    )


@recordings.get("/<path:name>")
def open_recording(name: str):
    path = recording_path(name)
    return jsonify(timeline(_load(path), path.name))


def recording_path(name: str) -> Path:
    """The recording called `name`, only if it lies directly inside the recordings folder."""
    root = _root()
    if root is None:
        raise NotFound("This rig has no recordings folder.")
    if "/" in name or "\\" in name or "\0" in name or name in (".", ".."):
        raise BadRequest(f"'{name}' is not a recording name. Pick one from the list.")
    try:
        candidate = (root / name).resolve()
        exists = candidate.exists()
    except OSError:  # a name too long for the file system cannot be a recording
        exists = False
    if not exists:
        raise NotFound(f"No recording '{name}'. Pick one from the list.")
    if candidate.parent != root:
        raise BadRequest(f"'{name}' is not a recording name. Pick one from the list.")
    return candidate


def _recording_test():
    """The tracker's own test of what is a recording, so the list skips stray files."""
    try:
        from tracker.recording import is_recording
    except ImportError:
        return lambda path: True
    return is_recording


def _describe(path: Path) -> dict:
    stat = path.stat()
    return {"name": path.name, "size_bytes": stat.st_size, "modified": stat.st_mtime}


def _load(path: Path) -> dict:
    """The replay report, made once per recording version even when several phones ask at once."""
    extension = current_app.extensions["tablesight"]
    loader = extension["report_loader"] or _tracker_report_loader()
    try:
        return extension["reports"].get(str(path), path.stat().st_mtime, lambda: loader(path))
    except TablesightError as error:
        raise _unreplayable(path, error) from None
    except Busy as busy:
        raise _busy(path, busy) from None


def _busy(path: Path, busy: Busy) -> ServiceUnavailable:
    """A replay that must wait its turn, said to a phone, whose Replay tab asks again by itself."""
    if busy.same:
        doing = f"{path.name} is being replayed for another phone: it opens when that is done"
    elif busy.at_once == 1:
        doing = (f"The rig is replaying another game for another phone (it replays 1 at a time). "
                 f"{path.name} opens when it is done")
    else:
        doing = (f"The rig is replaying {busy.at_once} other games for other phones (it replays "
                 f"{busy.at_once} at a time). {path.name} opens when one is done")
    return ServiceUnavailable(f"{doing}: this tab asks again by itself.",
                              retry_after=current_app.config["REPLAY_RETRY_AFTER_S"])


def _unreplayable(path: Path, error: TablesightError) -> BadRequest:
    """A recording that cannot be replayed, said to a phone: by its name, not the rig's path, and
    with what a player can do (the CLI's fix speaks of commands and files)."""
    problem = error.problem
    if problem.startswith(f"{path} "):  # named once, in front: "x.tsr cannot be replayed: it ..."
        problem = "it" + problem[len(str(path)):]
    problem = problem.replace(str(path), path.name).replace(str(path.parent) + "/", "")
    # The -wal only where the recording's own fix speaks of it: a newer format needs no -wal.
    wal = "; a copy from another machine needs its -wal file beside it" if "-wal" in error.fix else ""
    return BadRequest(f"{path.name} cannot be replayed: {problem}. "
                      f"Pick another recording from the list{wal}.")


def _tracker_report_loader():
    try:
        from tracker.replay import game_report
    except ImportError as error:
        raise ServiceUnavailable(
            f"Replay is not available on this rig ({error}). Reinstall tablesight."
        ) from None
    return game_report
