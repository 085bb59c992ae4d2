"""Stills on disk: a folder of photographs of the table, replayed in name order.

Photos taken by hand (or by `tablesight record` in stills mode) are named so that name order
is time order; timestamps are spaced by `fps` because a folder has no clock of its own.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np

from calibration.imagefile import UnfitForLens, decode_checked
from calibration.output_file import using
from hardware.source import Frame
from rules_core.errors import TablesightError

# The 8-bit pictures OpenCV reads (`detect` takes any): a folder of .ppm or .jp2 stills "held no
# images". Its float formats (.exr, .hdr, .pfm) are no camera's stills.
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".jpe", ".png", ".bmp", ".dib", ".tif", ".tiff", ".webp",
                            ".jp2", ".avif", ".pbm", ".pgm", ".ppm", ".pnm", ".sr", ".ras"})
# The stills passed over (or damaged) that the end-of-run note names, the rest counted: 300 made
# one line of 15,000 characters.
NAMED_AT_MOST = 3
SLOWEST_FPS = 1 / 86400


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
    """Each image of a folder (or a single image file) becomes one frame.

    A still of a folder that cannot be read (a copy cut short, a file of another kind), or that
    the reader cannot use (`pass_over`), is passed over and named by `damage()`: ending the run
    there would leave every later still of the game to a second run, for want of one photo. A
    single still, or a folder none of whose stills can be read, is an error.
    """

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
                    "give the folder of photos, or a video file, as the source",
                )
        elif single:
            self._paths = [path]
        else:
            raise TablesightError(f"{path} does not exist", "check the path given as the source")
        # nan or inf would leave every frame at one time; a rate near 0 put them at an infinite one
        # (1e-310), which a report's JSON cannot hold.
        if not math.isfinite(fps) or fps < SLOWEST_FPS:
            raise TablesightError(
                f"fps must be a number above 0, no slower than one image a day ({SLOWEST_FPS:.3g}), "
                f"got {fps}",
                "give --fps a frame rate such as 10",
            )
        self.description = f"images in {path}"
        self._where = path
        self._folder = folder
        self._fps = fps
        self._next = 0
        self._skipped: list[str] = []
        self._unfit: list[UnfitForLens] = []
        self._damaged: list[str] = []

    def read(self) -> Frame | None:
        while self._next < len(self._paths):
            index = self._next
            path = self._paths[index]
            self._next += 1
            image, problem = self._load(path)
            if image is not None:
                return Frame(image=image, index=index, timestamp_s=index / self._fps, name=path.name)
            if not self._folder:
                raise TablesightError(f"{path} {problem}", "give a JPEG or PNG photo instead")
            if not os.path.isdir(self._where):  # each later still went with it: no reason to skip them
                raise TablesightError(
                    f"the folder {self._where} is gone after {index} of its {len(self._paths)} images "
                    "(deleted, moved, or its drive unplugged)",
                    "put the folder back and run again",
                )
            self._skipped.append(f"{path.name} {problem}")
        if len(self._skipped) == len(self._paths):  # not one still could be read
            more = f" and {len(self._skipped) - 1} more" if len(self._skipped) > 1 else ""
            raise TablesightError(
                f"none of the images in {self._where} can be read ({self._skipped[0]}{more})",
                "remove or replace those files in the folder",
            )
        return None

    def _load(self, path: Path) -> tuple[np.ndarray | None, str]:
        """The still's picture, or None and what is wrong with the file."""
        try:
            data = np.fromfile(path, dtype=np.uint8)
        except OSError as error:
            return None, f"cannot be read ({error.strerror})"
        image, damaged = decode_checked(data)
        if image is None:
            return None, "is not an image OpenCV can read"
        if damaged:
            self._damaged.append(path.name)
        return image, ""

    def file_of(self, frame: Frame) -> Path:
        """The file `frame` was read from."""
        return self._paths[frame.index]

    def pass_over(self, frame: Frame, unfit: UnfitForLens) -> bool:
        """Pass over a still of another size than the lens calibration's (a stray preview, a shot
        its EXIF orientation tag turns), to be named by `damage()` with the unreadable ones rather
        than end the run. False for a single still, which is the whole source: the caller's error
        stands."""
        if self._folder:
            self._unfit.append(unfit)
        return self._folder

    def damage(self) -> TablesightError | None:
        """The stills passed over, and those damaged inside their JPEG (used as far as they
        decode), with what to do: a finding to print once the run is over, not raised."""
        said = []
        skipped = self._skipped + [unfit.reason for unfit in self._unfit]
        if skipped:
            were = "was" if len(skipped) == 1 else "were"
            said.append(f"{len(skipped)} of the {len(self._paths)} images in {self._where} {were} "
                        f"skipped ({_named(skipped)})")
        if self._damaged:
            said.append(f"{_named(self._damaged)} {'is' if len(self._damaged) == 1 else 'are'} damaged "
                        "inside the JPEG and used as far as the picture decodes")
        if not said:
            return None
        return TablesightError("; ".join(said), "; ".join(self._fixes()))

    def _fixes(self) -> list[str]:
        """What to do about each kind of still named: a copy again is no use for one of another
        size, which a copy would only bring back, or for one its EXIF tag turns."""
        fixes = []
        if self._skipped or self._damaged:
            files = "the unreadable or damaged files" if self._unfit else "those files"
            fixes.append(f"replace {files} with good copies and run again for their positions")
        if any(not unfit.turned for unfit in self._unfit):
            fixes.append("remove the stills of another size from the folder")
        if any(unfit.turned for unfit in self._unfit):
            fixes.append("strip the EXIF orientation tag from the turned stills (e.g. `exiftool "
                         "-Orientation=1 -n PHOTO`) and run again for their positions")
        return fixes

    def close(self) -> None:
        self._next = len(self._paths)


def _named(items: list[str]) -> str:
    more = f" and {len(items) - NAMED_AT_MOST} more" if len(items) > NAMED_AT_MOST else ""
    return ", ".join(items[:NAMED_AT_MOST]) + more
