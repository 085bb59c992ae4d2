"""The Flask application factory: one app per table session.

The app holds no game logic. It turns HTTP into calls on the tracker's `TableSession`
(`state`, `wait_for_change`, `latest_jpeg`, `topdown_jpeg`, `apply`) and on `rules_core`, and
every failure a user can cause into a JSON 4xx with a sentence, never an HTML traceback:
phones show the message as it is.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from rules_core.errors import TablesightError
from webui.compression import gzip_responses
from webui.pin import PinGuard
from webui.report_cache import ReportCache
from webui.serve import VIEWERS

log = logging.getLogger(__name__)

ReportLoader = Callable[[Path], dict]

DEFAULTS: dict[str, Any] = {
    # Control actions carry a few KB of JSON at most; a terrain list of many polygons fits.
    "MAX_CONTENT_LENGTH": 256 * 1024,
    "PIN_MAX_FAILURES": 5,
    "PIN_WINDOW_S": 60.0,
    # SSE: a connection lives this long then the browser reconnects, so a waitress thread is
    # never held by one phone for ever; heartbeats keep proxies and phones from idling it out.
    "SSE_MAX_S": 30.0,
    "SSE_HEARTBEAT_S": 5.0,  # the page takes 2.5 of them without a word for a stalled stream (api.js)
    "MJPEG_MAX_FPS": 5.0,
    "MJPEG_MAX_S": 600.0,
    "TOPDOWN_MAX_AGE_S": 1.0,
    # Streams (SSE and MJPEG) each hold a server thread for their whole life. Past this many
    # the next one is refused with a 503, so the threads left over always answer the API and
    # the players' controls however many phones watch. `webui.serve` sizes its pool above it.
    "MAX_STREAMS": 2 * VIEWERS,
    # Replays (`webui.report_cache`): each loads the whole pipeline again, and its report holds
    # every phase of the game. A few at once, so one long game does not hold the others.
    "REPLAYS_AT_ONCE": 2,
    "REPLAY_REPORTS_KEPT": 4,
    # How long an ask for a replay waits for a load slot (or another phone's load of the same game)
    # before it is answered 503, to ask again this much later: each waiting ask holds a thread.
    "REPLAY_SLOT_WAIT_S": 3.0,
    "REPLAY_RETRY_AFTER_S": 5,
}


def create_app(
    session: Any,
    pin: str,
    recordings_dir: str | None = None,
    *,
    report_loader: ReportLoader | None = None,
    config: dict[str, Any] | None = None,
) -> Flask:
    """Build the web UI for one `TableSession`.

    `pin` guards every control action. `recordings_dir` is the only folder the replay pages
    may read. `report_loader(path) -> report dict` runs the tracker's replay engine; by default
    `tracker.replay.game_report`, imported on first use so the page works without it.
    """
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    app.json.sort_keys = False
    app.extensions["tablesight"] = {
        "session": session,
        "pin_guard": PinGuard(pin, app.config["PIN_MAX_FAILURES"], app.config["PIN_WINDOW_S"]),
        "recordings_dir": Path(recordings_dir).resolve() if recordings_dir else None,
        "report_loader": report_loader,
        "reports": ReportCache(app.config["REPLAY_REPORTS_KEPT"], app.config["REPLAYS_AT_ONCE"],
                               app.config["REPLAY_SLOT_WAIT_S"]),
        "topdown_lock": threading.Lock(),
        "stream_slots": threading.BoundedSemaphore(app.config["MAX_STREAMS"]),
        "closing": threading.Event(),
        # This run of the rig, in every state served (`webui.state_json.served`): a restarted rig
        # begins its game again and counts versions from 1 again, so a phone left open across the
        # restart tells the new game from the old by this alone.
        "run": secrets.token_hex(8),
    }

    from webui.api import api
    from webui.pages import pages
    from webui.recordings import recordings
    from webui.stream import stream

    for blueprint in (pages, api, stream, recordings):
        app.register_blueprint(blueprint)
    _register_error_handlers(app)
    app.after_request(_security_headers)
    gzip_responses(app)
    return app


# The page may load only what the rig serves: no CDN can sneak in, and a table without
# internet behaves exactly like one with it.
PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


def _security_headers(response):
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", PAGE_POLICY)
    return response


def _register_error_handlers(app: Flask) -> None:
    """Every error leaves as `{"error", "message"}` so the page can show it as it is.

    A `TablesightError` from the session or the rules core is the user's to fix: 400.
    """

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        response = jsonify(error=error.name, message=error.description)
        response.status_code = error.code or 500
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            response.headers["Retry-After"] = str(int(retry_after))
        return response

    @app.errorhandler(TablesightError)
    def user_error(error: TablesightError):
        response = jsonify(error="Bad Request", message=str(error))
        response.status_code = 400
        return response

    @app.errorhandler(Exception)
    def unexpected_error(error: Exception):
        log.exception("unhandled error in the web UI")
        response = jsonify(
            error="Internal Server Error", message="Something went wrong on the rig; see its log."
        )
        response.status_code = 500
        return response
