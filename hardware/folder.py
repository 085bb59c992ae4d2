"""Stills on disk: a folder of photographs of the table, replayed in name order.

Photos taken by hand (or by `tablesight record` in stills mode) are named so that name order
is time order; timestamps are spaced by `fps` because a folder has no clock of its own.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from calibration.imagefile import decode_quietly
from calibration.output_file import using
from hardware.source import Frame
from rules_core.errors import TablesightError

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})


def image_files(folder: Path) -> list[Path]:
    """The pictures in `folder`, in name order (other files, e.g. a README, are not frames), with
    the numbers in names read as numbers: frame_2 before frame_10, where the characters' order
    played a game of unpadded names scrambled, with nothing said."""
    fix = "check that your user may list the folder (ls -ld), or copy the photos somewhere it can"
    with using(folder, fix, verb="list"):
        pictures = [p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
    return sorted(pictures, key=_name_order)


def _name_order(path: Path) -> tuple:
    """frame_10.jpg -> ("frame_", 10, ".jpg"), with the name itself last to break ties
    (frame_01 and frame_1)."""
    parts = re.split(r"(\d+)", path.name)
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in parts), path.name


class FolderSource:
    """Each image of a folder (or a single image file) becomes one frame."""

    live = False

    def __init__(self, path: str | Path, fps: float = 10.0) -> None:
        path = Path(path)
        with using(path, verb="read"):
            folder = path.is_dir()
            single = not folder and path.is_file()
        if folder:
            self._paths = image_files(path)
            if not self._paths:
                raise TablesightError(
                    f"the folder {path} holds no images (.jpg, .png, ...)",
                    "point --source at the folder of photos, or at a video file",
                )
            # A bad still in a folder can be taken out; a single still can only be replaced.
            self._fix_unreadable = "remove or replace that file in the folder"
        elif single:
            self._paths = [path]
            self._fix_unreadable = "give a JPEG or PNG photo instead"
        else:
            raise TablesightError(f"{path} does not exist", "check the path given as the source")
        if not math.isfinite(fps) or fps <= 0:  # nan or inf would leave every frame at one time
            raise TablesightError(f"fps must be a number above 0, got {fps}", "give a frame rate such as 10")
        self.description = f"images in {path}"
        self._fps = fps
        self._next = 0

    def read(self) -> Frame | None:
        if self._next >= len(self._paths):
            return None
        index = self._next
        path = self._paths[index]
        self._next += 1
        try:
            data = np.fromfile(path, dtype=np.uint8)
        except OSError as error:
            raise TablesightError(
                f"cannot read {path} ({error.strerror})", "check the file is still there and readable"
            ) from None
        image = decode_quietly(data)
        if image is None:
            raise TablesightError(
                f"{path} is not an image OpenCV can read", self._fix_unreadable
            )
        return Frame(image=image, index=index, timestamp_s=index / self._fps, name=path.name)

    def close(self) -> None:
        self._next = len(self._paths)
