"""`open_source()`: one spec string in, a `FrameSource` out, for every kind of camera or file.

The spec is what users type after `--source`: "picamera2" (or "picamera2:1"), "camera:N" for a
USB camera, an rtsp/http URL, a video file, a folder of images, a single image, or a recording.
A recording's format belongs to the tracker, so its reader is passed in (`recording_reader`:
path -> its frames, or None when the path is not a recording) rather than known here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from calibration.output_file import using
from hardware.capture import CaptureSource, is_network_url
from hardware.folder import IMAGE_SUFFIXES, FolderSource
from hardware.reconnect import ReconnectingSource, SourceStatus
from hardware.recording import RecordedFrame, RecordingSource
from hardware.source import FrameSource
from rules_core.errors import TablesightError

RecordingReader = Callable[[Path], Iterable[RecordedFrame] | None]

_PICAMERA = re.compile(r"picamera2(?::(\d+))?$")
_USB_CAMERA = re.compile(r"camera:(\d+)$")


def open_source(
    spec: str,
    *,
    reconnect: bool = False,
    on_status: Callable[[SourceStatus], None] | None = None,
    recording_reader: RecordingReader | None = None,
    **options: Any,
) -> FrameSource:
    """Open what `spec` names; with `reconnect`, a live camera is reopened whenever it drops.

    `options` go to the source: `size=(w, h)` (None: the camera's own) and `timeout_s` for
    cameras, `controls` for picamera2, `fps` for folders. The first open always raises a
    `TablesightError` naming the camera and the fix; only later faults are absorbed by reconnecting.
    """
    if options.get("size") is None:
        options.pop("size", None)  # the camera's own, and no word for a file that takes none
    opener = _opener(spec.strip(), recording_reader, options)
    source = opener()
    if reconnect and getattr(source, "live", False):
        first = [source]
        return ReconnectingSource(lambda: first.pop() if first else opener(), on_status=on_status)
    return source


# `--size`: even sides, as the Pi's ISP needs and every camera mode is; past the largest sensors a
# Pi takes (64 MP, 9152x6944) a size is a typing slip.
SIZE_SIDES = (16, 16384)


def is_camera(spec: str) -> bool:
    """picamera2 or camera:N: the sources whose resolution is ours to choose."""
    spec = spec.strip()
    return bool(_PICAMERA.match(spec) or _USB_CAMERA.match(spec))


def check_size_for(spec: str, size: tuple[int, int]) -> None:
    """`--size` is for a camera this machine drives: a file's, a folder's or a recording's frames
    are the size they were taken at, and a network camera sends what its own settings say."""
    if is_camera(spec):
        return
    asked = f"--size {size[0]}x{size[1]}"
    if is_network_url(spec.strip()):
        raise TablesightError(
            f"{asked}: the stream {spec} comes at the size set in the camera's own settings",
            "leave --size out, and set the resolution in the network camera's settings",
        )
    raise TablesightError(f"{asked}: {spec} is not a camera, and its frames are the size they were taken at",
                          "leave --size out (it is for picamera2 and camera:N)")


def _opener(
    spec: str, recording_reader: RecordingReader | None, options: dict[str, Any]
) -> Callable[[], FrameSource]:
    if not spec:
        raise TablesightError("no source given", "use picamera2, camera:0, a URL, a video file or a folder")
    if match := _PICAMERA.match(spec):
        from hardware.picamera import PicameraSource

        camera_num = int(match.group(1) or 0)
        options.setdefault("controls", {})
        return lambda: PicameraSource(camera_num, **options)
    if match := _USB_CAMERA.match(spec):
        return lambda: CaptureSource(int(match.group(1)), **options)
    if is_network_url(spec):
        return lambda: CaptureSource(spec, **options)
    path = Path(spec).expanduser()
    with using(spec, verb="read"):  # a file or folder the user may not read, a name too long
        exists, folder, regular = path.exists(), path.is_dir(), path.is_file()
    if recording_reader is not None and exists:
        frames = recording_reader(path)
        if frames is not None:
            return lambda: RecordingSource(frames, description=f"recording {path}")
    if folder:
        return lambda: FolderSource(path, **options)
    if regular:
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return lambda: FolderSource(path, **options)
        return lambda: CaptureSource(path, **options)
    if exists:  # there, so "no existing file" would send the user looking for one
        raise TablesightError(
            f"{spec} is a pipe or a device, not a video, image or folder",
            "save what it carries to a file and give that, or use picamera2, camera:N or a URL for a camera",
        )
    raise TablesightError(
        f"{spec} is neither a camera nor an existing file or folder",
        "use picamera2, camera:N, an rtsp:// or http:// URL, a video file or a folder of images",
    )

