"""The Raspberry Pi camera through picamera2, the way the rig needs it.

One configuration, two streams from the same exposure: "main" at full resolution for
detection and a small "lores" one for the phones' live view, so the Pi never rescales a
12-megapixel frame just to show it. picamera2 only installs on a Pi (from apt), so it is
imported when a camera is opened, never at module import.

A game is measured against a calibration, and a calibration is only as good as the focus and
the light it was taken in: once the table is calibrated, `hold_for_the_game()` locks the focus
and the exposure where the camera's automatics have settled them, so autofocus hunting when a
hand comes close (which changes the picture's scale under the calibration) or auto-exposure
reacting to a hand cannot shift what the detector sees. The locks live in the `controls` dict
the source was given, so a camera reopened after a fault with the same dict comes back locked.
"""

from __future__ import annotations

import importlib
import logging
import time
from typing import Any

import cv2
import numpy as np

from hardware.errors import CameraFault, SizeRefused
from hardware.pixels import as_bgr
from hardware.source import Frame
from rules_core.errors import TablesightError

log = logging.getLogger(__name__)

AF_MODE_MANUAL = 0
AF_MODE_CONTINUOUS = 2
PREVIEW_WIDTH = 640
# Autofocus and auto-exposure settle within a second or two of the camera starting or being let
# go; locked sooner, the lens could be held mid-sweep for the whole game.
SETTLE_S = 3.0


def _picamera2() -> Any:
    try:
        return importlib.import_module("picamera2")
    except ImportError as error:
        raise TablesightError(
            "picamera2 is not installed (it comes with Raspberry Pi OS, not from PyPI)",
            "run `sudo deploy/install-pi.sh` on the Pi, or use --source camera:0 for a USB camera",
        ) from error
    except ValueError as error:
        # apt's simplejpeg is built for the system numpy; pip put a newer numpy in the venv.
        raise TablesightError(
            f"picamera2 does not load with this numpy ({error})",
            "run `/opt/tablesight/venv/bin/pip install --force-reinstall --no-deps simplejpeg`",
        ) from error


def _causes(error: BaseException) -> str:
    """The messages of an error and everything it was raised from, for telling busy from broken."""
    messages = []
    current: BaseException | None = error
    while current is not None:
        messages.append(str(current))
        current = current.__cause__ or current.__context__
    return " ".join(messages).lower()


def preview_size(main_size: tuple[int, int], width: int = PREVIEW_WIDTH) -> tuple[int, int]:
    """A lores size with the main stream's shape, both sides even as the ISP requires."""
    main_w, main_h = main_size
    width = min(width, main_w) // 2 * 2
    return width, max(2, round(width * main_h / main_w / 2) * 2)


class PicameraSource:
    """Frames from a Pi camera (Camera Module 3, HQ camera, ...) in BGR, as OpenCV expects."""

    live = True

    def __init__(
        self,
        camera_num: int = 0,
        size: tuple[int, int] | None = None,
        timeout_s: float = 2.0,
        controls: dict[str, Any] | None = None,
        buffer_count: int = 3,
    ) -> None:
        self.description = f"Raspberry Pi camera {camera_num}"
        self.controls = controls if controls is not None else {}
        self.metadata: dict[str, Any] = {}
        self._timeout_s = timeout_s
        self._index = 0
        self._preview: np.ndarray | None = None
        self._free_since = time.monotonic()
        self._refused_hold = False  # the locks failed once: it plays on unlocked until let go
        self._camera = self._acquire(_picamera2(), camera_num)
        if self.has_autofocus:
            # libcamera starts the lens in manual mode at 1 m; the table is further away.
            self.controls.setdefault("AfMode", AF_MODE_CONTINUOUS)
        try:
            self._configure(size, buffer_count)
            self._camera.start()
        except BaseException:
            self._camera.close()
            raise

    def _acquire(self, picamera2: Any, camera_num: int) -> Any:
        try:
            return picamera2.Picamera2(camera_num)
        except IndexError as error:
            raise TablesightError(
                f"no Raspberry Pi camera found at number {camera_num}",
                "check the ribbon cable (contacts facing the right way, latch closed), then run "
                "`rpicam-hello --list-cameras`",
            ) from error
        except RuntimeError as error:
            causes = _causes(error)
            if "busy" in causes or "acquire" in causes:
                raise TablesightError(
                    f"{self.description} is in use by another program",
                    "stop it (another tablesight, rpicam-hello, or `sudo systemctl stop tablesight`) "
                    "and try again",
                ) from error
            if "not found" in causes or "no camera" in causes:
                raise TablesightError(
                    f"no Raspberry Pi camera found at number {camera_num}",
                    "check the ribbon cable, then run `rpicam-hello --list-cameras`",
                ) from error
            raise TablesightError(
                f"{self.description} could not be opened ({error})",
                "reboot the Pi; if it persists, run `rpicam-hello --list-cameras`",
            ) from error

    def _configure(self, size: tuple[int, int] | None, buffer_count: int) -> None:
        sensor = tuple(self._camera.sensor_resolution)
        main = tuple(size) if size is not None else sensor
        if len(main) != 2 or any(v <= 0 or v % 2 for v in main) or main[0] > sensor[0] or main[1] > sensor[1]:
            raise SizeRefused(
                f"{self.description} cannot deliver {'x'.join(map(str, main))}",
                f"give --size an even size up to its sensor's {sensor[0]}x{sensor[1]}, or leave --size out",
            )
        config = self._camera.create_video_configuration(
            main={"size": main, "format": "RGB888"},
            lores={"size": preview_size(main), "format": "YUV420"},
            buffer_count=buffer_count,
            controls=dict(self.controls),
        )
        try:
            self._camera.configure(config)
        except RuntimeError as error:
            raise SizeRefused(
                f"{self.description} refused {main[0]}x{main[1]} ({error})",
                "leave --size out to use the full sensor",
            ) from error
        got = tuple(self._camera.camera_configuration()["main"]["size"])
        if got != main:
            raise SizeRefused(
                f"{self.description} cannot deliver {main[0]}x{main[1]}, only {got[0]}x{got[1]}",
                f"give --size {got[0]}x{got[1]}",
            )
        self.size: tuple[int, int] = main
        self.preview_size: tuple[int, int] = tuple(self._camera.camera_configuration()["lores"]["size"])

    def read(self) -> Frame | None:
        try:
            (main, lores), metadata = self._camera.capture_arrays(["main", "lores"], wait=self._timeout_s)
        except (TimeoutError, RuntimeError) as error:
            raise CameraFault(
                f"{self.description} stopped delivering frames",
                "check the ribbon cable and the Pi's power supply, then start again: what came before "
                "was kept",
            ) from error
        self.metadata = metadata
        width = self.preview_size[0]
        self._preview = cv2.cvtColor(lores, cv2.COLOR_YUV2BGR_I420)[:, :width]
        index = self._index
        self._index += 1
        return Frame(image=as_bgr(main), index=index, timestamp_s=time.monotonic(),
                     name=f"frame_{index:06d}")

    def preview(self) -> np.ndarray | None:
        """The small BGR picture taken with the last frame, for the live view."""
        return self._preview

    def _current(self) -> dict[str, Any]:
        try:
            return self._camera.capture_metadata(wait=self._timeout_s)
        except (TimeoutError, RuntimeError) as error:
            raise CameraFault(f"{self.description} stopped delivering frames", "check the cable") from error

    def _set(self, controls: dict[str, Any]) -> None:
        try:
            self._camera.set_controls(controls)
        except RuntimeError as error:  # a control this camera does not advertise
            raise CameraFault(f"{self.description} refused {sorted(controls)} ({error})",
                              "run `rpicam-hello --list-cameras` to see what it takes") from error
        self.controls.update(controls)

    @property
    def has_white_balance(self) -> bool:
        """A monochrome sensor has none: libcamera offers it no AwbEnable or ColourGains."""
        return "AwbEnable" in self._camera.camera_controls

    @property
    def sensor_size(self) -> tuple[int, int]:
        """The largest picture it takes (`--size`)."""
        return tuple(self._camera.sensor_resolution)

    @property
    def has_autofocus(self) -> bool:
        return "AfMode" in self._camera.camera_controls

    def lock_focus(self) -> float | None:
        """Hold the lens where autofocus has put it; None for fixed-focus lenses (HQ camera)."""
        if not self.has_autofocus:
            return None
        position = float(self._current()["LensPosition"])
        self._set({"AfMode": AF_MODE_MANUAL, "LensPosition": position})
        return position

    def lock_exposure(self) -> dict[str, Any]:
        """Freeze exposure, gain and white balance at what auto-exposure chose just now."""
        current = self._current()
        locked = {
            "AeEnable": False,
            "ExposureTime": int(current["ExposureTime"]),
            "AnalogueGain": float(current["AnalogueGain"]),
        }
        if self.has_white_balance and "ColourGains" in current:
            locked |= {"AwbEnable": False, "ColourGains": tuple(float(g) for g in current["ColourGains"])}
        self._set(locked)
        return locked

    def unlock(self) -> None:
        """Back to automatic focus, exposure and white balance (e.g. to recalibrate)."""
        released = {"AeEnable": True}
        if self.has_white_balance:
            released["AwbEnable"] = True
        if self.has_autofocus:
            released["AfMode"] = AF_MODE_CONTINUOUS
        for name in ("ExposureTime", "AnalogueGain", "ColourGains", "LensPosition"):
            self.controls.pop(name, None)
        self._set(released)
        self._free_since = time.monotonic()
        self._refused_hold = False

    def hold_for_the_game(self) -> bool:
        """Lock focus and exposure, once they have had `SETTLE_S` to settle since the camera
        started or was let go; True when this call locked them. Asked at every calibrated frame,
        so it costs nothing while held. A camera that cannot be locked plays on unlocked, tried
        once rather than at every frame (each try waits on it twice): the lock is a nicety, and
        its failure stopped `record` and killed the live session's thread."""
        if (self._refused_hold or self.controls.get("AeEnable") is False
                or time.monotonic() - self._free_since < SETTLE_S):
            return False
        try:
            self.lock_focus()
            self.lock_exposure()
        except Exception:
            self._refused_hold = True
            log.warning("%s plays on with automatic focus and exposure: they could not be locked",
                        self.description, exc_info=True)
            return False
        return True

    def close(self) -> None:
        self._camera.close()
