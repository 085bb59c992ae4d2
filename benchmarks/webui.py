"""How the web UI holds up on a phone and under a club's worth of viewers, on loopback.

    python benchmarks/webui.py [--seconds 60] [--viewers 20] [--session fake|demo]

Prints: time to first paint and to first overlay in Chromium at 390x844 (median of 5 loads),
state-push latency (a model moves -> the SSE event arrives, median and p95 of 30; and -> the
phone page has redrawn it, median of 10), and for
`--viewers` clients each holding the SSE state stream and the MJPEG stream for `--seconds`:
frames and states delivered, errors, and the server's memory before and after. The server
runs in a child process (the same waitress set-up as `tablesight serve`) so its memory is
its own; the fake session moves a model 5 times a second like a camera would.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BOUNDARY = b"--tablesightframe"


def serve(port: int, session_kind: str) -> None:
    """Child process: the app on 127.0.0.1, with a camera-like change 5 times a second."""
    import tempfile

    from tests.webui.fake_replay import load_report
    from tests.webui.fake_session import FakeSession
    from webui.app import create_app
    from webui.serve import make_server

    if session_kind == "demo":
        from tracker.session import open_demo_session

        session = open_demo_session()
    else:
        session = FakeSession()

        def camera() -> None:
            step = 0
            while True:
                step += 1
                session.move_model("b1", 78.0 + (step % 20) * 0.5, 44.0)
                time.sleep(0.2)

        threading.Thread(target=camera, daemon=True).start()
    session.start()
    recordings = Path(tempfile.mkdtemp())
    app = create_app(session, "1234", str(recordings), report_loader=load_report)
    # Benchmark control: a move on demand, so push latency is timed from the change itself.
    app.add_url_rule("/bench/move", "bench_move", lambda: _bench_move(session), methods=["POST"])
    make_server(app, "127.0.0.1", port).run()


def _bench_move(session) -> dict:
    moved_at = time.time()
    session.move_model("r5", 45.0 + (moved_at % 10), 92.0)
    return {"version": session.state()["version"], "t": moved_at}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def wait_until_up(base: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(base + "/api/state", timeout=1).read()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the web UI did not start within 30 s")


def page_timings(base: str, loads: int = 5) -> tuple[list[float], list[float]]:
    from tests.webui.browser import PHONE, chromium

    paints, overlays = [], []
    with chromium() as browser:
        for _ in range(loads):
            context = browser.new_context(**PHONE)
            page = context.new_page()
            page.goto(base + "/")
            page.wait_for_selector("#pieces circle")
            overlay_ms = page.evaluate(
                "performance.getEntriesByName('tablesight-first-overlay')[0].startTime"
            )
            paint = page.evaluate(
                "performance.getEntriesByType('paint')"
                ".filter(e => e.name === 'first-paint').map(e => e.startTime)"
            )
            paints.append(paint[0] if paint else float("nan"))
            overlays.append(overlay_ms)
            context.close()
    return paints, overlays


def phone_push_latency(base: str, samples: int = 10) -> list[float]:
    """A model moves on the rig -> its circle has moved on the phone's page (SSE, JSON, redraw)."""
    from tests.webui.browser import PHONE, chromium

    latencies = []
    with chromium() as browser:
        context = browser.new_context(**PHONE, bypass_csp=True)
        page = context.new_page()
        page.goto(base + "/")
        page.wait_for_selector("#pieces circle[data-id='r5']")
        for _ in range(samples):
            before = page.get_attribute("#pieces circle[data-id='r5']", "cx")
            started = time.perf_counter()
            urllib.request.urlopen(
                urllib.request.Request(base + "/bench/move", method="POST"), timeout=5
            ).read()
            page.wait_for_function(
                "b => document.querySelector(\"#pieces circle[data-id='r5']\").getAttribute('cx') !== b",
                arg=before,
                polling="raf",
            )
            latencies.append((time.perf_counter() - started) * 1000)
            time.sleep(0.2)
        context.close()
    return latencies


def sse_lines(port: int, stop: threading.Event, on_state) -> int:
    """Read the SSE stream (reconnecting as the server closes it) until `stop`; returns errors."""
    errors = 0
    while not stop.is_set():
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
            connection.request("GET", "/api/events")
            response = connection.getresponse()
            buffer = b""
            while not stop.is_set():
                chunk = response.read1(65536)
                if not chunk:
                    break
                buffer += chunk
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    for line in block.split(b"\n"):
                        if line.startswith(b"data: "):
                            on_state(json.loads(line[6:]))
            connection.close()
        except (OSError, http.client.HTTPException):
            errors += 1
            time.sleep(0.5)
    return errors


def push_latency(base: str, port: int, samples: int = 30) -> list[float]:
    arrived: dict[int, float] = {}
    stop = threading.Event()
    reader = threading.Thread(
        target=sse_lines, args=(port, stop, lambda s: arrived.setdefault(s["version"], time.time()))
    )
    reader.start()
    time.sleep(1.0)
    latencies = []
    for _ in range(samples):
        request = urllib.request.Request(base + "/bench/move", method="POST")
        moved = json.loads(urllib.request.urlopen(request, timeout=5).read())
        deadline = time.monotonic() + 5
        while moved["version"] not in arrived and time.monotonic() < deadline:
            time.sleep(0.001)
        if moved["version"] in arrived:
            latencies.append((arrived[moved["version"]] - moved["t"]) * 1000)
        time.sleep(0.1)
    stop.set()
    reader.join()
    return latencies


def viewer(port: int, seconds: float, tally: dict, lock: threading.Lock) -> None:
    stop = threading.Event()
    states = [0]
    sse = threading.Thread(
        target=lambda: tally_errors(sse_lines(port, stop, lambda s: states.__setitem__(0, states[0] + 1)))
    )

    def tally_errors(n: int) -> None:
        with lock:
            tally["errors"] += n

    sse.start()
    frames, errors, deadline = 0, 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
            connection.request("GET", "/stream.mjpg")
            response = connection.getresponse()
            tail = b""
            while time.monotonic() < deadline:
                chunk = response.read1(65536)
                if not chunk:
                    break
                data = tail + chunk
                frames += data.count(BOUNDARY)
                tail = data[-len(BOUNDARY) + 1 :]
            connection.close()
        except (OSError, http.client.HTTPException):
            errors += 1
            time.sleep(0.5)
    stop.set()
    sse.join()
    with lock:
        tally["frames"] += frames
        tally["states"] += states[0]
        tally["errors"] += errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the viewers watch (default 60)")
    parser.add_argument("--viewers", type=int, default=20, help="concurrent viewers (default 20)")
    parser.add_argument("--session", choices=("fake", "demo"), default="fake")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.session)
        return

    from tests.webui.browser import free_port

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(port), "--session", args.session], cwd=ROOT
    )
    try:
        wait_until_up(base)
        print(f"web UI benchmark on {base} ({args.session} session)")
        paints, overlays = page_timings(base)
        print(f"first paint     median {statistics.median(paints):7.1f} ms   (390x844, {len(paints)} loads)")
        print(f"first overlay   median {statistics.median(overlays):7.1f} ms   max {max(overlays):.1f} ms")
        if args.session == "fake":
            latencies = sorted(push_latency(base, port))
            p95 = latencies[int(0.95 * (len(latencies) - 1))]
            median = statistics.median(latencies)
            print(f"state push      median {median:7.1f} ms   p95 {p95:.1f} ms ({len(latencies)} moves, SSE)")
            on_phone = phone_push_latency(base)
            phone_median = statistics.median(on_phone)
            print(f"push to phone   median {phone_median:7.1f} ms   max {max(on_phone):.1f} ms (redrawn)")
        before = rss_mb(child.pid)
        tally, lock = {"frames": 0, "states": 0, "errors": 0}, threading.Lock()
        threads = [
            threading.Thread(target=viewer, args=(port, args.seconds, tally, lock))
            for _ in range(args.viewers)
        ]
        for thread in threads:
            thread.start()
        peak = before
        while any(thread.is_alive() for thread in threads):
            peak = max(peak, rss_mb(child.pid))
            time.sleep(0.5)
        fps = tally["frames"] / args.viewers / args.seconds
        print(
            f"{args.viewers} viewers x {args.seconds:.0f} s: {tally['frames']} frames ({fps:.2f} fps each), "
            f"{tally['states']} states pushed, {tally['errors']} errors"
        )
        print(f"server memory   {before:.0f} MB before, {peak:.0f} MB peak, {rss_mb(child.pid):.0f} MB after")
    finally:
        child.terminate()
        child.wait(timeout=10)


if __name__ == "__main__":
    main()
