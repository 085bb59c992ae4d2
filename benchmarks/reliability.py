"""A club evening's load on the rig: N phones watching the demo game, measured from outside.

Starts `tablesight demo` on 127.0.0.1 only (a child process, so the clients' own work does
not share its interpreter), then runs N phone clients, each holding the picture stream
(MJPEG) and the state push (SSE) the page opens, reconnecting as a browser would when the
server ends a stream. A probe adds an objective marker every few seconds with the table PIN
and times how long each phone takes to see it: that is the state-push latency. The server's
CPU and memory are sampled throughout, and its pipeline frame rate is compared with an idle
warm-up. Everything stops by itself after the duration.

    python benchmarks/reliability.py                 # 20 phones, 60 s
    python benchmarks/reliability.py --minutes 10    # the full soak
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import psutil

HOST = "127.0.0.1"
PIN = "2468"
BOUNDARY = b"--tablesightframe"


@dataclass
class Phone:
    frames: int = 0
    frame_bytes: int = 0
    events: int = 0
    reconnects: int = 0
    errors: list[str] = field(default_factory=list)
    seen_probes: dict[int, float] = field(default_factory=dict)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def _keep_reading(port: int, path: str, phone: Phone, deadline: float, what: str, timeout_s: float,
                  line_read, headers=dict) -> None:
    """One endpoint's stream, line by line, reopened whenever the server ends or drops it."""
    while time.monotonic() < deadline:
        connection = http.client.HTTPConnection(HOST, port, timeout=timeout_s)
        try:
            connection.request("GET", path, headers=headers())
            stream = connection.getresponse()
            while time.monotonic() < deadline:
                line = stream.fp.readline()
                if not line:
                    break
                line_read(line, stream)
        except OSError as error:
            phone.errors.append(f"{what}: {error}")
            time.sleep(0.5)
        finally:
            connection.close()
        phone.reconnects += 1


def watch_picture(port: int, phone: Phone, deadline: float) -> None:
    """The MJPEG stream, frame by frame."""

    def line_read(line: bytes, stream) -> None:
        if line.lower().startswith(b"content-length:"):
            size = int(line.split(b":")[1])
            stream.fp.readline()
            phone.frame_bytes += len(stream.fp.read(size))
            phone.frames += 1

    _keep_reading(port, "/stream.mjpg", phone, deadline, "picture", 10, line_read)


def watch_state(port: int, phone: Phone, deadline: float) -> None:
    """The SSE state push; notes when each probe's template first shows up."""
    last_id = ""

    def line_read(line: bytes, _stream) -> None:
        nonlocal last_id
        if line.startswith(b"id: "):
            last_id = line[4:].strip().decode()
        elif line.startswith(b"data: "):
            arrived = time.monotonic()
            phone.events += 1
            for objective in json.loads(line[6:]).get("objectives") or []:
                if str(objective.get("id", "")).startswith("probe-"):
                    phone.seen_probes.setdefault(int(objective["id"][6:]), arrived)

    _keep_reading(port, "/api/events", phone, deadline, "state", 40, line_read,
                  headers=lambda: {"Last-Event-ID": last_id} if last_id else {})


def post(port: int, action: str, payload: dict) -> int:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        connection.request("POST", f"/api/action/{action}", body=json.dumps(payload),
                           headers={"Content-Type": "application/json", "X-Table-Pin": PIN})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def get_state(port: int) -> dict:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        connection.request("GET", "/api/state")
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


def probe_pushes(port: int, sent: dict[int, float], deadline: float, every_s: float) -> None:
    """An objective named after the probe number, taken away again before the next one."""
    original = get_state(port).get("objectives") or []
    number = 1
    while time.monotonic() < deadline - every_s:
        sent[number] = time.monotonic()
        probe = {"id": f"probe-{number}", "x_cm": 20.0, "y_cm": 30.0}
        if post(port, "objectives", {"objectives": [*original, probe]}) != 200:
            raise SystemExit("the probe's control was refused")
        time.sleep(every_s / 2)
        post(port, "objectives", {"objectives": original})
        time.sleep(every_s / 2)
        number += 1


def sample_server(process: psutil.Process, port: int, samples: list, stop: threading.Event,
                  every_s: float) -> None:
    process.cpu_percent(None)
    started = time.monotonic()
    while not stop.wait(every_s):
        try:
            fps = get_state(port)["status"]["fps"]
        except (OSError, ValueError, KeyError):
            fps = float("nan")
        with process.oneshot():
            samples.append((time.monotonic() - started, process.cpu_percent(None),
                            process.memory_info().rss / 2**20, process.num_threads(), fps))


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else (
        values[0] if values else float("nan"))


def start_server(port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [sys.executable, "-m", "tracker", "demo", "--host", HOST, "--port", str(port), "--pin", PIN],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = server.stdout.readline()
    if "demo game on" not in line:
        server.kill()
        raise SystemExit(f"the demo did not start: {line.strip()}")
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20, help="phones (default 20)")
    parser.add_argument("--seconds", type=float, default=60.0, help="load duration (default 60)")
    parser.add_argument("--minutes", type=float, help="load duration in minutes (overrides --seconds)")
    parser.add_argument("--warmup", type=float, default=35.0,
                        help="idle seconds before the phones join (default 35: one loop of the demo game)")
    parser.add_argument("--probe-every", type=float, default=3.0, help="seconds between push probes")
    args = parser.parse_args()
    duration = args.minutes * 60 if args.minutes else args.seconds

    port = free_port()
    server = start_server(port)
    process = psutil.Process(server.pid)
    samples: list = []
    stop = threading.Event()
    sampler = threading.Thread(target=sample_server, args=(process, port, samples, stop, 2.0), daemon=True)
    try:
        sampler.start()
        time.sleep(args.warmup)
        idle = list(samples)
        deadline = time.monotonic() + duration
        phones = [Phone() for _ in range(args.clients)]
        sent: dict[int, float] = {}
        threads = [threading.Thread(target=watch, args=(port, phone, deadline), daemon=True)
                   for phone in phones for watch in (watch_picture, watch_state)]
        threads.append(threading.Thread(target=probe_pushes, args=(port, sent, deadline, args.probe_every),
                                        daemon=True))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()) + 45)
        loaded = [s for s in samples if s[0] > args.warmup]
    finally:
        stop.set()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    report(args, duration, phones, sent, idle, loaded, server.returncode)
    return 0


def report(args, duration: float, phones: list[Phone], sent: dict, idle: list, loaded: list, code) -> None:
    latencies = [seen - sent[probe] for phone in phones
                 for probe, seen in phone.seen_probes.items() if probe in sent]
    missed = sum(1 for phone in phones for probe in sent if probe not in phone.seen_probes)
    frames = [phone.frames for phone in phones]
    events = [phone.events for phone in phones]
    rss = [s[2] for s in loaded]
    minutes = [s[0] / 60 for s in loaded]
    slope = statistics.linear_regression(minutes, rss).slope if len(loaded) > 2 else float("nan")
    third = max(1, len(loaded) // 3)
    print(f"tablesight reliability: {args.clients} phones on the demo for {duration:.0f} s (127.0.0.1)\n")
    print("| figure | value |\n| --- | ---: |")
    rows = [
        ("picture frames per phone (min / median / max)",
         f"{min(frames)} / {statistics.median(frames):.0f} / {max(frames)}"),
        ("picture frames per phone per second (median)", f"{statistics.median(frames) / duration:.2f}"),
        ("picture KB per phone per second (median)",
         f"{statistics.median(phone.frame_bytes for phone in phones) / duration / 1000:.0f}"),
        ("starving: slowest phone's frames / fastest's", f"{min(frames) / max(max(frames), 1):.2f}"),
        ("state pushes per phone (min / median / max)",
         f"{min(events)} / {statistics.median(events):.0f} / {max(events)}"),
        ("push probes sent / missed by a phone", f"{len(sent)} / {missed}"),
        ("state-push latency P50 / P95 / max (ms)",
         f"{percentile(latencies, 50) * 1000:.0f} / {percentile(latencies, 95) * 1000:.0f} / "
         f"{max(latencies, default=float('nan')) * 1000:.0f}"),
        ("pipeline fps idle / while watched (median)",
         f"{statistics.median([s[4] for s in idle] or [float('nan')]):.1f} / "
         f"{statistics.median([s[4] for s in loaded] or [float('nan')]):.1f}"),
        ("server CPU % (median / max; 100 = one core)",
         f"{statistics.median([s[1] for s in loaded]):.0f} / {max(s[1] for s in loaded):.0f}"),
        ("server memory MB: first third / last third / max",
         f"{statistics.median(rss[:third]):.0f} / {statistics.median(rss[-third:]):.0f} / {max(rss):.0f}"),
        ("server memory trend (MB per minute)", f"{slope:+.2f}"),
        ("server threads (max)", f"{max(s[3] for s in loaded)}"),
        ("stream reconnects (all phones)", f"{sum(p.reconnects for p in phones)}"),
        ("client errors", f"{sum(len(p.errors) for p in phones)}"),
        ("server exit after SIGTERM", f"{code}"),
    ]
    for name, value in rows:
        print(f"| {name} | {value} |")
    print("\nserver over time (s, CPU %, RSS MB, threads, pipeline fps):")
    for t, cpu, mem, threads, fps in loaded[:: max(1, len(loaded) // 12)]:
        print(f"  {t:6.0f}  {cpu:5.0f}  {mem:6.1f}  {threads:3d}  {fps:5.1f}")
    errors = [e for p in phones for e in p.errors][:5]
    if errors:
        print("\nfirst client errors:", *errors, sep="\n  ")


if __name__ == "__main__":
    sys.exit(main())
