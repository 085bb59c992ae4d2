"""OpenCV capture: a USB camera, a network stream (RTSP/HTTP) or a video file.

One class because OpenCV treats all three alike; what differs is what a failure means. A
video file that stops has ended; a camera or stream that stops has failed (`CameraFault`), so
`ReconnectingSource` can bring it back. The first frame is read on opening, because a busy or
half-working camera often "opens" and then never delivers.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import cv2
import numpy as np

from calibration.videofile import open_video
from hardware.errors import CameraFault, SizeRefused
from hardware.pixels import as_bgr
from hardware.source import Frame
from rules_core.errors import TablesightError

NETWORK_SCHEMES = ("rtsp://", "rtsps://", "http://", "https://")
# OpenCV's V4L2 backend waits 10 s for each frame of a stalled USB camera (and ignores
# CAP_PROP_READ_TIMEOUT_MSEC); it reads this variable once, at the first capture.
V4L_SELECT_TIMEOUT_S = "2"
COUNTED_CONTAINERS = (".avi", ".mp4", ".m4v", ".mov")
LARGEST_INDEX = 2**31 - 1


def is_network_url(spec: str) -> bool:
    return spec.lower().startswith(NETWORK_SCHEMES)


def _quietly(open_capture, *args) -> cv2.VideoCapture:
    """Open without OpenCV's own warnings: our error says what is wrong and what to do."""
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        return open_capture(*args)
    finally:
        cv2.utils.logging.setLogLevel(level)


def _unreadable_video(path: Path) -> TablesightError:
    """Why OpenCV could not open a video file, in the words that lead to the fix: an empty file
    or an MP4 cut off (its index is written last, so a copy stopped early has none) is to be
    copied again; converting it cannot help."""
    try:
        empty = path.stat().st_size == 0
    except OSError:
        empty = False
    if empty:
        return TablesightError(f"{path} is empty (0 bytes)", "copy the video again, or give another one")
    return _cut_off(path) or TablesightError(
        f"{path} is not a video OpenCV can read", "convert it to MP4 (H.264) or give a folder of images"
    )


def _cut_off(path: Path) -> TablesightError | None:
    try:
        cut = _mp4_cut_off(path)
    except OSError:
        return None
    if not cut:
        return None
    return TablesightError(
        f"{path} looks cut off: {cut}, so no frame of it can be found",
        "copy the whole video again (an MP4's index is written at its end)",
    )


MP4_SUFFIXES = (".mp4", ".m4v", ".mov")
MP4_BOXES = (b"ftyp", b"moov", b"mdat", b"free", b"skip", b"wide", b"uuid", b"pdin", b"moof", b"mfra")


def _mp4_cut_off(path: Path) -> str:
    """How an MP4/MOV file looks cut off, from its top-level boxes: one that runs past the end
    of the file, or no `moov` box (the index); "" for a file that is whole, or no MP4 at all."""
    if path.suffix.lower() not in MP4_SUFFIXES:
        return ""
    with path.open("rb") as handle:
        end = os.fstat(handle.fileno()).st_size
        position, moov = 0, False
        while position + 8 <= end:
            handle.seek(position)
            head = handle.read(16)
            size, kind = int.from_bytes(head[:4], "big"), head[4:8]
            if size == 1 and len(head) == 16:
                size = int.from_bytes(head[8:16], "big")
            elif size == 0:
                size = end - position  # the last box, to the end of the file
            if kind not in MP4_BOXES or size < 8:
                return ""  # not the box structure of an MP4: not ours to judge
            moov = moov or kind == b"moov"
            if position + size > end:
                part = "its index" if kind == b"moov" else "its data" if kind == b"mdat" else "a part"
                return f"it ends inside {part}, {position + size - end} bytes short"
            position += size
    if position == 0:
        return ""
    return "" if moov else "it has no index (moov box)"


class CaptureSource:
    """Frames from `cv2.VideoCapture`: `camera` is a USB index, a URL or a video file path."""

    def __init__(
        self,
        camera: int | str | Path,
        size: tuple[int, int] | None = None,
        timeout_s: float = 5.0,
    ) -> None:
        self.live = not isinstance(camera, Path)
        self._suffix = camera.suffix.lower() if isinstance(camera, Path) else ""
        self._capture = self._open(camera, timeout_s)
        try:
            self._pending: np.ndarray | None = self._first_frame(camera, size)
        except TablesightError:
            self._capture.release()
            raise
        self._index = 0
        self._fps = self._capture.get(cv2.CAP_PROP_FPS) or 0.0

    def _first_frame(self, camera: int | str | Path, size: tuple[int, int] | None) -> np.ndarray:
        if size is not None:
            self._request_size(camera, size)
        first = self._grab()
        if first is None:
            raise self._silent_error(camera)
        got = (first.shape[1], first.shape[0])
        if size is not None and got != tuple(size):
            raise SizeRefused(
                f"{self.description} does not support {size[0]}x{size[1]}: it delivers {got[0]}x{got[1]}",
                f"give --size {got[0]}x{got[1]}, or leave --size out",
            )
        return first

    def _open(self, camera: int | str | Path, timeout_s: float) -> cv2.VideoCapture:
        if isinstance(camera, int):
            self.description = f"USB camera {camera}"
            os.environ.setdefault("OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT", V4L_SELECT_TIMEOUT_S)
            # OpenCV takes a C int: a number past it met an overload error, not a missing camera.
            capture = _quietly(cv2.VideoCapture, camera) if camera <= LARGEST_INDEX else None
            if capture is None:
                raise TablesightError(f"no camera answers at index {camera} (camera:{camera})",
                                      "camera numbers count the cameras plugged in from 0: try camera:0")
            if not capture.isOpened():
                raise TablesightError(
                    f"no camera answers at index {camera} (camera:{camera})",
                    "plug the USB camera in, close any other program using it, or try camera:"
                    f"{camera + 1}",
                )
            return capture
        if isinstance(camera, Path):
            self.description = f"video file {camera}"
            if not camera.is_file():
                raise TablesightError(f"{camera} does not exist", "check the path given as the source")
            capture = open_video(camera)
            if not capture.isOpened():
                raise _unreadable_video(camera)
            return capture
        self.description = f"stream {camera}"
        timeout_ms = int(timeout_s * 1000)
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, timeout_ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, timeout_ms]
        capture = _quietly(cv2.VideoCapture, camera, cv2.CAP_FFMPEG, params)
        if not capture.isOpened():
            raise TablesightError(
                f"the stream {camera} does not answer",
                "check that the camera is on and on this network, and that the URL, port and "
                "password are right",
            )
        return capture

    def _request_size(self, camera: int | str | Path, size: tuple[int, int]) -> None:
        if not isinstance(camera, int):
            raise SizeRefused(
                f"the resolution of {self.description} is fixed by the sender",
                "leave --size out for streams and files",
            )
        self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def _silent_error(self, camera: int | str | Path) -> TablesightError:
        if isinstance(camera, Path):
            if cut := _cut_off(camera):  # opened, then no frame: an index cut short may do that too
                return cut
            return TablesightError(f"{camera} holds no frames", "check that the video is not empty or cut")
        return TablesightError(
            f"{self.description} opened but delivers no picture",
            "close any other program using the camera, then unplug and replug it",
        )

    def _grab(self) -> np.ndarray | None:
        ok, image = self._capture.read()
        return as_bgr(image) if ok and image is not None and image.size else None

    def read(self) -> Frame | None:
        if self._pending is not None:
            image, self._pending = self._pending, None
        else:
            image = self._grab()
        if image is None:
            if self.live:
                raise CameraFault(
                    f"{self.description} stopped delivering frames",
                    "check its cable or network, then start again: what came before was kept",
                )
            return None
        index = self._index
        self._index += 1
        return Frame(image=image, index=index, timestamp_s=self._timestamp(index), name=f"frame_{index:06d}")

    def declared_frames(self) -> int | None:
        """How many frames a video file's header says it holds, where that is a count: AVI and
        MP4/MOV headers list every frame, while other containers' figure is duration times rate,
        an estimate that a cut-off check must not trust. None for cameras and streams."""
        if self.live or self._suffix not in COUNTED_CONTAINERS:
            return None
        declared = self._capture.get(cv2.CAP_PROP_FRAME_COUNT)
        return int(declared) if declared > 0 else None

    def _timestamp(self, index: int) -> float:
        if self.live:
            return time.monotonic()
        position_ms = self._capture.get(cv2.CAP_PROP_POS_MSEC)
        if position_ms > 0 or index == 0:
            return position_ms / 1000.0
        return index / self._fps if self._fps > 0 else float(index)

    def close(self) -> None:
        self._capture.release()
