"""Frames per second and read latency of each frame source on this machine.

    python benchmarks/sources.py [--frames 30]

Sources: a folder of JPEG stills, a folder of PNG stills, an MJPEG video file, the Pi camera
source against the fake picamera2 (measures tablesight's own per-frame work: the copy out of
the camera buffer and the lores YUV -> BGR conversion, plus the fake's frame synthesis; not
the sensor), and the same behind ReconnectingSource (its overhead). Test data is generated
in a temporary folder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hardware.source import FrameSource
from hardware.sources import open_source
from tests.hardware import fake_picamera2


def table_frames(n: int, size: tuple[int, int]) -> list[np.ndarray]:
    w, h = size
    rng = np.random.default_rng(0)
    base = rng.integers(30, 140, (h // 8, w // 8, 3), dtype=np.uint8)
    mat = cv2.resize(base, (w, h), interpolation=cv2.INTER_LINEAR)
    frames = []
    for i in range(n):
        frame = mat.copy()
        for j in range(20):
            x, y = (w * (j + 1)) // 22, h // 2 + int(h / 4 * np.sin(i / 5 + j))
            cv2.circle(frame, (x, y), max(w // 120, 4), (90, 90, 90), -1)
        frames.append(frame)
    return frames


def measure(open_it: Callable[[], FrameSource], frames: int) -> tuple[float, float, float, str]:
    source = open_it()
    source.read()  # warm-up: decoder set-up, first allocation
    latencies = []
    started = time.perf_counter()
    shape = ""
    for _ in range(frames):
        t0 = time.perf_counter()
        frame = source.read()
        latencies.append(time.perf_counter() - t0)
        if frame is None:
            break
        shape = f"{frame.image.shape[1]}x{frame.image.shape[0]}"
    elapsed = time.perf_counter() - started
    source.close()
    ms = np.array(latencies) * 1000
    return len(latencies) / elapsed, float(np.median(ms)), float(np.percentile(ms, 95)), shape


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30)
    args = parser.parse_args()
    n = args.frames
    sys.modules["picamera2"] = fake_picamera2
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for size in ((1920, 1080), (4608, 2592)):
            images = table_frames(n + 1, size)
            for suffix in ("jpg", "png"):
                folder = root / f"{suffix}-{size[0]}"
                folder.mkdir()
                for i, image in enumerate(images):
                    cv2.imwrite(str(folder / f"frame_{i:04d}.{suffix}"), image)
        video = root / "game.avi"
        writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (1920, 1080))
        for image in table_frames(n + 1, (1920, 1080)):
            writer.write(image)
        writer.release()

        def pi_camera(size: tuple[int, int], reconnect: bool = False) -> Callable[[], FrameSource]:
            def opened() -> FrameSource:
                fake_picamera2.rig.reset(fake_picamera2.CAMERA_MODULE_3)
                fake_picamera2.rig.sensors[0].scene = table_frames(1, size)[0]
                return open_source("picamera2", size=size, reconnect=reconnect)
            return opened

        rows = [
            ("folder of JPEG", lambda: open_source(str(root / "jpg-1920"))),
            ("folder of JPEG", lambda: open_source(str(root / "jpg-4608"))),
            ("folder of PNG", lambda: open_source(str(root / "png-1920"))),
            ("folder of PNG", lambda: open_source(str(root / "png-4608"))),
            ("video file (MJPEG .avi)", lambda: open_source(str(video))),
            ("picamera2 (fake), binned", pi_camera((2304, 1296))),
            ("picamera2 (fake), full", pi_camera((4608, 2592))),
            ("picamera2 (fake), full, reconnecting", pi_camera((4608, 2592), reconnect=True)),
        ]
        print(f"{n} frames per source, {cv2.getNumberOfCPUs()} CPUs seen by OpenCV\n")
        print("| source | frame | fps | read ms (median) | read ms (p95) |")
        print("| --- | --- | ---: | ---: | ---: |")
        for name, open_it in rows:
            fps, median, p95, shape = measure(open_it, n)
            print(f"| {name} | {shape} | {fps:.1f} | {median:.1f} | {p95:.1f} |")


if __name__ == "__main__":
    main()
