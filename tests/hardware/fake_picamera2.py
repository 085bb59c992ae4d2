"""A stand-in for the `picamera2` package, faithful where tablesight depends on it.

Modelled on picamera2 (raspberrypi/picamera2, picamera2.py, request.py, controls.py):
- `Picamera2(n)` looks the camera up in `global_camera_info()`, so a missing camera is an
  IndexError; a camera held elsewhere fails with RuntimeError("Camera __init__ sequence did not
  complete.") raised from "Failed to acquire camera: Device or resource busy".
- configure() only while stopped; start() only once configured; lores no larger than main and
  YUV (the Pi 4 ISP); sizes even; a size beyond the sensor is adjusted by libcamera, not refused.
- RGB888 arrays are (h, w, 3) in B, G, R order; YUV420 arrays are (h * 3 // 2, stride).
- Controls not advertised by the camera are a RuntimeError (a fixed-focus HQ camera has no AfMode).
- Autofocus starts in manual mode (libcamera's default): the lens only moves once AfMode asks.
- Captures wait for a frame; a camera that stopped delivering times out (the real one blocks
  for ever without `wait`, which a test cannot do, so this one times out then too).

Tests control the hardware through `rig`: plug cameras in, pull them, lend them to another process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

CAMERA_MODULE_3 = {"Model": "imx708", "sensor": (4608, 2592), "autofocus": True}
HQ_CAMERA = {"Model": "imx477", "sensor": (4056, 3040), "autofocus": False}
# A monochrome sensor: libcamera runs no white balance for it, so it has no AwbEnable or
# ColourGains control and no ColourGains in its metadata.
MONO_GLOBAL_SHUTTER = {"Model": "imx296_mono", "sensor": (1456, 1088), "autofocus": False, "colour": False}

AF_MODE_MANUAL, AF_MODE_AUTO, AF_MODE_CONTINUOUS = 0, 1, 2
KNOWN_FORMATS = {"RGB888", "BGR888", "XBGR8888", "XRGB8888", "YUV420", "YVU420"}
STREAM_KEYS = {"format", "size", "stride", "framesize", "preserve_ar"}


@dataclass
class FakeSensor:
    model: str
    size: tuple[int, int]
    autofocus: bool
    colour: bool = True
    plugged: bool = True
    held_elsewhere: bool = False
    delivering: bool = True
    acquired: bool = False
    scene: np.ndarray | None = None
    frames_delivered: int = 0
    last_wait: Any = field(default=None)


class Rig:
    """The cameras attached to the fake Pi."""

    def __init__(self) -> None:
        self.sensors: list[FakeSensor] = []

    def reset(self, *cameras: dict[str, Any]) -> None:
        self.sensors = [FakeSensor(c["Model"], tuple(c["sensor"]), c["autofocus"], c.get("colour", True))
                        for c in cameras]

    def plugged(self) -> list[FakeSensor]:
        return [s for s in self.sensors if s.plugged]


rig = Rig()
rig.reset(CAMERA_MODULE_3)


def _even(size: Any) -> bool:
    return len(size) == 2 and all(isinstance(v, int) and v > 0 and v % 2 == 0 for v in size)


def _stride(fmt: str, width: int) -> int:
    bytes_per_pixel = {"RGB888": 3, "BGR888": 3, "XBGR8888": 4, "XRGB8888": 4}.get(fmt, 1)
    return -(-width * bytes_per_pixel // 64) * 64


class Picamera2:
    @staticmethod
    def global_camera_info() -> list[dict[str, Any]]:
        return [{"Model": s.model, "Num": i, "Id": f"/base/fake/{s.model}@{i}"}
                for i, s in enumerate(rig.plugged())]

    def __init__(self, camera_num: int = 0, tuning: Any = None) -> None:
        self.is_open = False
        self.started = False
        camera_num = self.global_camera_info()[camera_num]["Num"]
        sensor = rig.plugged()[camera_num]
        if sensor.held_elsewhere or sensor.acquired:
            try:
                raise RuntimeError("Failed to acquire camera: Device or resource busy")
            except RuntimeError as error:
                raise RuntimeError("Camera __init__ sequence did not complete.") from error
        sensor.acquired = True
        self._sensor = sensor
        self.is_open = True
        self.sensor_resolution = sensor.size
        self.camera_config: dict[str, Any] = {}
        self._controls: dict[str, Any] = {}
        self._auto = {"ExposureTime": 10000, "AnalogueGain": 1.5, "ColourGains": (1.9, 1.6),
                      "LensPosition": 1.2}

    @property
    def camera_controls(self) -> dict[str, tuple[Any, Any, Any]]:
        controls = {
            "AeEnable": (False, True, True),
            "AwbEnable": (False, True, True),
            "ExposureTime": (100, 1_000_000, 20000),
            "AnalogueGain": (1.0, 16.0, 1.0),
            "ColourGains": (0.0, 32.0, None),
            "FrameDurationLimits": (33333, 1_000_000, 33333),
        }
        if self._sensor.autofocus:
            controls |= {"AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0), "LensPosition": (0.0, 15.0, 1.0)}
        if not self._sensor.colour:
            del controls["AwbEnable"], controls["ColourGains"]
        return controls

    @property
    def camera_properties(self) -> dict[str, Any]:
        return {"Model": self._sensor.model, "PixelArraySize": self._sensor.size}

    def _require_open(self) -> None:
        if not self.is_open:
            raise RuntimeError("Camera not opened")

    def _stream(self, defaults: dict[str, Any], given: dict[str, Any] | None) -> dict[str, Any] | None:
        if given is None:
            return None
        bad = set(given) - STREAM_KEYS
        if bad:
            raise ValueError(f"Bad key {sorted(bad)[0]!r}: valid stream configuration keys are {STREAM_KEYS}")
        return defaults | dict(given)

    def _configuration(self, main: dict, lores: dict | None, buffer_count: int, controls: dict) -> dict:
        self._require_open()
        main_stream = self._stream({"format": "XBGR8888", "size": (1280, 720)}, main)
        assert main_stream is not None
        lores_stream = self._stream({"format": "YUV420", "size": main_stream["size"]}, lores)
        return {"buffer_count": buffer_count, "main": main_stream, "lores": lores_stream, "raw": None,
                "controls": dict(controls)}

    def create_video_configuration(self, main: dict | None = None, lores: dict | None = None,
                                   buffer_count: int = 6, controls: dict | None = None, **_: Any) -> dict:
        return self._configuration(main or {}, lores, buffer_count, controls or {})

    def create_still_configuration(self, main: dict | None = None, lores: dict | None = None,
                                   buffer_count: int = 1, controls: dict | None = None, **_: Any) -> dict:
        return self._configuration({"size": self.sensor_resolution} | (main or {}), lores, buffer_count,
                                   controls or {})

    def configure(self, camera_config: dict | None = None) -> None:
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        self._require_open()
        config = camera_config if camera_config is not None else self.create_video_configuration()
        config = {k: (dict(v) if isinstance(v, dict) else v) for k, v in config.items()}
        for name in ("main", "lores"):
            stream = config.get(name)
            if stream is None:
                continue
            if stream["format"] not in KNOWN_FORMATS:
                raise RuntimeError(f"Bad format {stream['format']} in stream {name}")
            if not _even(tuple(stream["size"])):
                raise RuntimeError("width and height should be even")
        if config["lores"] is not None:
            lw, lh = config["lores"]["size"]
            mw, mh = config["main"]["size"]
            if lw > mw or lh > mh:
                raise RuntimeError("lores stream dimensions may not exceed main stream")
            if not config["lores"]["format"].startswith("YU"):
                raise RuntimeError("lores stream must be YUV")
        self._adjust_to_sensor(config["main"])
        for name in ("main", "lores"):
            if config.get(name) is not None:
                config[name]["stride"] = _stride(config[name]["format"], config[name]["size"][0])
        self.camera_config = config
        self.set_controls(config.get("controls", {}))

    def _adjust_to_sensor(self, main: dict[str, Any]) -> None:
        """libcamera answers an impossible size with the nearest it can do ("adjusted")."""
        sw, sh = self.sensor_resolution
        w, h = main["size"]
        main["size"] = (min(w, sw), min(h, sh))

    def camera_configuration(self) -> dict[str, Any]:
        return self.camera_config

    def start(self, config: dict | None = None, show_preview: bool | None = False) -> None:
        if not self.camera_config and config is None:
            config = self.create_video_configuration()
        if config is not None:
            self.configure(config)
        self.started = True

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        if not self.is_open:
            return
        self.stop()
        self._sensor.acquired = False
        self.is_open = False
        self.camera_config = {}

    def set_controls(self, controls: dict[str, Any]) -> None:
        advertised = self.camera_controls
        for name in controls:
            real = "FrameDurationLimits" if name == "FrameRate" else name
            if real not in advertised:
                raise RuntimeError(f"Control {real} is not advertised by libcamera")
        self._controls.update(controls)

    def _next_request(self, wait: Any) -> None:
        self._sensor.last_wait = wait
        if not self.started or not self._sensor.delivering or not self._sensor.plugged:
            raise TimeoutError()
        self._sensor.frames_delivered += 1
        if self._controls.get("AeEnable", True):
            self._auto["ExposureTime"] += 50
        if self._controls.get("AfMode", AF_MODE_MANUAL) != AF_MODE_MANUAL:
            self._auto["LensPosition"] += 0.01

    def _metadata(self) -> dict[str, Any]:
        auto = dict(self._auto)
        for name in ("ExposureTime", "AnalogueGain", "ColourGains", "LensPosition"):
            if name in self._controls:
                auto[name] = self._controls[name]
        if not self._sensor.autofocus:
            auto.pop("LensPosition")
        if not self._sensor.colour:
            auto.pop("ColourGains")
        return auto | {"SensorTimestamp": self._sensor.frames_delivered * 33_333_000}

    def _array(self, name: str) -> np.ndarray:
        stream = self.camera_config.get(name)
        if stream is None:
            raise RuntimeError(f"Stream {name!r} is not defined")
        w, h = stream["size"]
        scene = self._sensor.scene
        if scene is None:
            scene = np.full((h, w, 3), (40, 90, 30), np.uint8)
            cv2.putText(scene, str(self._sensor.frames_delivered), (w // 10, h // 2),
                        cv2.FONT_HERSHEY_SIMPLEX, max(w / 400, 0.5), (255, 255, 255), 2)
        bgr = cv2.resize(scene, (w, h), interpolation=cv2.INTER_AREA)
        fmt = stream["format"]
        if fmt == "RGB888":
            return bgr
        if fmt == "BGR888":
            return bgr[:, :, ::-1].copy()
        if fmt in ("XBGR8888", "XRGB8888"):
            return cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA if fmt == "XRGB8888" else cv2.COLOR_BGR2RGBA)
        return self._planar_yuv(cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420), w, h, stream["stride"])

    @staticmethod
    def _planar_yuv(i420: np.ndarray, w: int, h: int, stride: int) -> np.ndarray:
        """Lay I420 out as the ISP does: Y rows padded to `stride`, U and V rows to `stride // 2`."""
        flat = i420.reshape(-1)
        planes = [(flat[: w * h], w, h, stride)]
        quarter = (w // 2) * (h // 2)
        for start in (w * h, w * h + quarter):
            planes.append((flat[start : start + quarter], w // 2, h // 2, stride // 2))
        padded = []
        for plane, pw, ph, pstride in planes:
            rows = np.zeros((ph, pstride), np.uint8)
            rows[:, :pw] = plane.reshape(ph, pw)
            padded.append(rows.reshape(-1))
        return np.concatenate(padded).reshape(h * 3 // 2, stride)

    def capture_array(self, name: str = "main", wait: Any = None) -> np.ndarray:
        self._next_request(wait)
        return self._array(name)

    def capture_arrays(self, names: list[str] | None = None, wait: Any = None) -> tuple[list, dict]:
        self._next_request(wait)
        return [self._array(n) for n in (names or ["main"])], self._metadata()

    def capture_metadata(self, wait: Any = None) -> dict[str, Any]:
        self._next_request(wait)
        return self._metadata()
