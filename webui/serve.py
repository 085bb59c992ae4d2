"""Serving the app with waitress, sized for a club table's worth of phones.

Each viewer holds one thread for its state stream (SSE) and one more while it watches the
camera (MJPEG), so the pool is sized for `viewers` phones doing both, plus room for the
short API requests that must never queue behind them. The app refuses streams beyond its
`MAX_STREAMS` (2 x VIEWERS), so those spare threads stay free with any number of phones.
"""

from __future__ import annotations

import socket

from flask import Flask

VIEWERS = 24
SPARE_THREADS = 8
# Waitress keeps everything a streaming response has sent in one in-memory buffer until that
# buffer has taken this many bytes (default 16 MB): per MJPEG viewer that was ~16 MB held, and
# 20 phones grew the rig by ~130 MB a minute. 1 MB bounds it and still buffers a few frames.
OUTBUF_BYTES = 1 << 20
# Waitress reads a request's whole body, into a file past 512 KB, before the app sees it: up to
# 1 GB by default, written to the rig's card (200 MB in /tmp for one request) and then refused by
# the app's 256 KB limit. Past this, waitress answers 413 itself as soon as the length is said;
# under it the app's own 413 says what to do.
MAX_BODY_BYTES = 1 << 20


def thread_count(viewers: int = VIEWERS) -> int:
    return 2 * viewers + SPARE_THREADS


def lan_address(host: str) -> str:
    """The address a phone should open: the machine's LAN address when bound to all of them."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # no packet is sent; this only picks a route
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def make_server(app: Flask, host: str, port: int, viewers: int = VIEWERS):
    """A waitress server not yet running (call `.run()`; `.close()` stops it), for tests and the CLI."""
    from waitress.server import create_server

    return create_server(
        app,
        host=host,
        port=port,
        threads=thread_count(viewers),
        channel_timeout=120,
        connection_limit=max(100, 4 * viewers),
        outbuf_high_watermark=OUTBUF_BYTES,
        max_request_body_size=MAX_BODY_BYTES,
        ident="tablesight",
    )
