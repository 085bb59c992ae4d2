"""A recorded game: frames, controls, events and a manifest in ONE append-only SQLite file.

SQLite in WAL mode is the crash-safety: every commit is a complete, checksummed append to the
log, so a kill -9 or a pulled plug loses at most what was not yet committed, and the writer
commits at least once a second. The file opens after a crash with nothing to repair by hand.

Reading is defensive: a damaged or truncated file yields frames up to its last good one and
says where it stopped (`Recording.stopped`); a file written by a newer format says so. From
format 2 every frame carries a CRC-32 of its JPEG, so a frame damaged where the JPEG still
decodes without a word from libjpeg (a flipped bit in its image data) is found too.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import shutil
import sqlite3
import struct
import tempfile
import time
import urllib.parse
import weakref
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NoReturn

import cv2
import numpy as np

from calibration.imagefile import decode_checked
from calibration.output_file import check_no_file_in_the_way, unusable, using
from hardware.source import Frame
from rules_core.errors import TablesightError

# 2: frames carry `crc`. Format 1 files (the shipped demo, games recorded before) are read as
# they always were, without it.
FORMAT_VERSION = 2
FIRST_CHECKSUMMED = 2
SUFFIX = ".tsr"
SQLITE_HEADER = b"SQLite format 3\x00"
# SQLite's result codes (the low byte of `sqlite_errorcode`) that say the file could not be
# used, not that it is damaged: a lock, the user's rights, a full disk, no memory.
NOT_DAMAGE = {sqlite3.SQLITE_PERM, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_NOMEM,
              sqlite3.SQLITE_READONLY, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_AUTH}
# How long a close waits for another program to let go of the file before leaving it in WAL mode.
FOLD_WAIT_S = 2.0
# C's struct flock (l_type, l_whence, l_start, l_len, l_pid), with the 64-bit offsets Python is built with.
FLOCK = "hhqqi0q"
# The (device, inode) of the files this process's writers have open: never read in place.
_RECORDING: set[tuple[int, int]] = set()

SCHEMA = """
CREATE TABLE IF NOT EXISTS manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS frames (idx INTEGER PRIMARY KEY, t REAL NOT NULL, name TEXT NOT NULL,
                                   jpeg BLOB NOT NULL, crc INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS controls (seq INTEGER PRIMARY KEY AUTOINCREMENT, frame INTEGER NOT NULL,
                                     action TEXT NOT NULL, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, frame INTEGER NOT NULL,
                                   t REAL NOT NULL, turn INTEGER NOT NULL, phase TEXT NOT NULL,
                                   kind TEXT NOT NULL, detail TEXT NOT NULL, data TEXT NOT NULL);
"""


def is_recording(path: str | Path) -> bool:
    """A file that starts like SQLite: worth opening as a recording (the name may be anything)."""
    path = Path(path)
    with using(path, verb="read"):  # a file or folder the user may not read, a name too long
        if not path.is_file():
            return False
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def meant_as_recording(spec: str | Path) -> bool:
    """A recording, or a file named like one: an empty or cut-off .tsr is a broken recording to
    say so of, not a video for OpenCV to fail on."""
    return is_recording(spec) or str(spec).lower().endswith(SUFFIX)


def encode_jpeg(image: np.ndarray, quality: int) -> bytes:
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise TablesightError("a frame could not be encoded as JPEG", "check the camera's image format")
    return buffer.tobytes()


class RecordingWriter:
    """Appends to a recording; `commit_every_s` bounds what a crash can lose."""

    def __init__(self, path: str | Path, manifest: dict, commit_every_s: float = 1.0) -> None:
        self.path = Path(path)
        # Where the game was written again, its file deleted or moved away while recording.
        self.rescued: Path | None = None
        with using(self.path):  # a folder on the way the user may not enter, a name too long
            if self.path.is_dir():
                raise TablesightError(
                    f"{self.path} is a folder, not a recording file",
                    f"give a file name for the recording, e.g. {self.path / 'game.tsr'}",
                )
            if self.path.exists():
                raise TablesightError(f"{self.path} already exists", "record to a new file name")
            check_no_file_in_the_way(self.path, str(self.path), "record into a folder, or a new one")
            self.path.parent.mkdir(parents=True, exist_ok=True)  # as every output of the CLI
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False)
        except sqlite3.Error as error:
            raise TablesightError(
                f"cannot create {self.path} ({error})", "record into a folder you can write to"
            ) from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            self._db.executemany(
                "INSERT INTO manifest VALUES (?, ?)",
                [(k, json.dumps(v)) for k, v in {**manifest, "format_version": FORMAT_VERSION}.items()],
            )
            self._db.commit()
        except sqlite3.Error as error:
            # A disk full before the first frame: the file is new (checked above) and holds
            # nothing, so it goes, and the same command can be run again once there is room.
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            with contextlib.suppress(OSError):
                self.discard()
            raise TablesightError(
                f"cannot create {self.path} ({error}; is the disk full?)",
                "free some disk space, or record into another folder",
            ) from None
        stat = self.path.stat()
        self._file = (stat.st_dev, stat.st_ino)
        _RECORDING.add(self._file)
        self.commit_every_s = commit_every_s
        self._last_commit = time.monotonic()
        self.frames_written = 0  # committed, so it is what a crash or a full disk keeps
        # What the file holds once closed (counted there, not taken from the game in memory).
        self.events_written = 0
        self.controls_written = 0
        self._uncommitted_frames = 0
        self._frames_before_block = 0
        self.error = ""
        self._held = 0
        # Closed with another program reading it: part of the game may be in the -wal beside it.
        self.log_left_beside = False

    @contextmanager
    def together(self) -> Iterator[None]:
        """Rows written inside are committed in one go, or not at all. A control is written
        after the events it caused; a commit between them, then a crash, would keep events that
        a replay cannot reproduce (found by the kill -9 test). A block that ends in an exception
        (Ctrl-C or SIGTERM between a frame's events and its frame row) is rolled back to where
        it began, so closing the file after it keeps neither half; what came before it stays."""
        outermost = not self._held
        if outermost:
            self._begin_block()
        self._held += 1
        try:
            yield
        except BaseException:
            self._held -= 1
            if outermost:
                self._drop_block()
            raise
        self._held -= 1
        if outermost:
            self._end_block()
        self._maybe_commit()

    def _begin_block(self) -> None:
        """A savepoint inside the open transaction (begun here if none is), so that releasing it
        never commits by itself and rolling back to it undoes only the block."""
        if self.error:
            return
        try:
            if not self._db.in_transaction:
                self._db.execute("BEGIN")
            self._db.execute("SAVEPOINT together")
        except sqlite3.Error as error:
            self._fail(error)
        self._frames_before_block = self._uncommitted_frames

    def _end_block(self) -> None:
        if self.error:
            return
        try:
            self._db.execute("RELEASE together")
        except sqlite3.Error as error:
            self._fail(error)

    def _drop_block(self) -> None:
        if self.error:  # a failed write already rolled everything uncommitted back
            return
        try:
            self._db.execute("ROLLBACK TO together")
            self._db.execute("RELEASE together")
            self._uncommitted_frames = self._frames_before_block
        except sqlite3.Error:
            # Not even the block could be undone: drop everything since the last commit (at
            # most a second) rather than let close() commit half a frame.
            with contextlib.suppress(sqlite3.Error):
                self._db.rollback()
            self._uncommitted_frames = 0

    def add_frame(self, index: int, timestamp_s: float, name: str, jpeg: bytes) -> None:
        if self._write("INSERT INTO frames VALUES (?, ?, ?, ?, ?)",
                       (index, timestamp_s, name, jpeg, zlib.crc32(jpeg))):
            self._uncommitted_frames += 1

    def add_control(self, frame: int, action: str, payload: dict) -> None:
        self._write(
            "INSERT INTO controls (frame, action, payload) VALUES (?, ?, ?)",
            (frame, action, json.dumps(payload)),
        )

    def add_event(self, event: dict) -> None:
        self._write(
            "INSERT INTO events (frame, t, turn, phase, kind, detail, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                event["frame"],
                event["t"],
                event["turn"],
                event["phase"],
                event["kind"],
                event["detail"],
                json.dumps(event.get("data", {})),
            ),
        )

    def _write(self, sql: str, row: tuple) -> bool:
        """One row. A write that fails (a full disk) stops the recording for good: raised once as
        a clear error, later writes ignored, and everything committed before stays readable."""
        if self.error:
            return False
        try:
            self._db.execute(sql, row)
            self._maybe_commit()
        except sqlite3.Error as error:
            self._fail(error)
        return True

    def _fail(self, error: sqlite3.Error) -> NoReturn:
        with contextlib.suppress(sqlite3.Error):
            self._db.rollback()
        # A commit that reports a full disk may still have reached the log: count the file.
        self._count_file()
        self._uncommitted_frames = 0
        if self.frames_written or self.events_written or self.controls_written:
            self.error = (f"recording {self.path} stopped after {self.frames_written} frames "
                          f"({error}; is the disk full?)")
            fix = "free some disk space and record anew; the game up to a second before this is kept"
        else:
            self.error = f"recording {self.path} stopped before its first frame ({error}; is the disk full?)"
            fix = "free some disk space and record again"
        raise TablesightError(self.error, fix) from None

    def _count_file(self) -> None:
        """What the file holds, committed: what a crash, a full disk or the summary goes by."""
        with contextlib.suppress(sqlite3.Error):
            self.frames_written, self.events_written, self.controls_written = self._db.execute(
                "SELECT (SELECT count(*) FROM frames), (SELECT count(*) FROM events), "
                "(SELECT count(*) FROM controls)"
            ).fetchone()

    @property
    def holds_nothing(self) -> bool:
        """No frame, event or control committed: a file only in the way of the same command
        run again (counted when the writer closed or failed)."""
        return not (self.frames_written or self.events_written or self.controls_written)

    def _maybe_commit(self) -> None:
        if not self._held and not self.error and time.monotonic() - self._last_commit >= self.commit_every_s:
            self.commit()

    def commit(self) -> None:
        if self._held:  # inside a block: it is committed whole once the block ends
            return
        try:
            self._db.commit()
        except sqlite3.Error as error:
            self._fail(error)
        self.frames_written += self._uncommitted_frames
        self._uncommitted_frames = 0
        self._last_commit = time.monotonic()

    def close(self) -> None:
        """Commits what is whole and folds the log into the file. A block still open (another
        thread mid-frame) is rolled back first: half a frame is not committed."""
        try:
            if self._held:
                self._drop_block()
                self._held = 0
            if not self.error:
                self.commit()
                self.rescued = self._write_again_if_gone()
                if self.rescued is None:
                    self._fold_log()
        except sqlite3.Error as error:
            self._fail(error)
        finally:
            if not self.error:
                self._count_file()
            self._db.close()
            _RECORDING.discard(self._file)
            if self.rescued is not None:  # its log, left by a fold refused, beside what took its name
                for left in (_beside(self.path, "-wal"), _beside(self.path, "-shm")):
                    with contextlib.suppress(OSError):  # a file where its folder was
                        left.unlink(missing_ok=True)

    def _write_again_if_gone(self) -> Path | None:
        """The game written out again where its file no longer is at its name (its folder deleted,
        or it moved away): SQLite goes on writing into the file it holds open, which no name
        reaches, and refuses only the fold at the close. Written to its name, or beside whatever
        took that name, or where `record` runs when its folder cannot be written to (made a
        file); None where the file is still there."""
        try:
            stat = self.path.stat()
            if (stat.st_dev, stat.st_ino) == self._file:
                return None
        except OSError:  # not there, or a file stands where its folder was
            pass
        tried = []
        for folder in (lambda: self.path.parent, Path.cwd):
            target = self.path
            try:
                target = _free_name(folder() / self.path.name)  # where record runs may be gone too
                target.parent.mkdir(parents=True, exist_ok=True)
                with contextlib.closing(sqlite3.connect(target)) as copy:
                    self._db.backup(copy)
                    copy.execute("PRAGMA journal_mode=DELETE")  # the copy takes WAL mode from its header
                return target
            except (OSError, sqlite3.Error) as error:
                tried.append(f"{target}: {getattr(error, 'strerror', None) or error}")
        raise TablesightError(
            f"{self.path} was deleted or moved while recording, and the game could not be written "
            f"again ({'; '.join(tried)})",
            "record to a folder nothing removes while a game is played",
        )

    def _fold_log(self) -> None:
        """Folds the log into the file and leaves WAL mode, so the recording is one file again.

        Another program with the file open (sqlite3, a database browser) makes SQLite refuse the
        second step at once (SQLITE_BUSY, without waiting), which was taken for a failed write: the
        recording "stopped (is the disk full?)" with its game whole on disk. It is tried again for
        a while, then the file is left in WAL mode, as a recording never closed is: read so, whole,
        with its -wal beside it (`log_left_beside`, which the recorder says).
        """
        deadline = time.monotonic() + FOLD_WAIT_S
        while True:
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._db.execute("PRAGMA journal_mode=DELETE")
                return
            except sqlite3.OperationalError as error:
                if _result_code(error) != sqlite3.SQLITE_BUSY:
                    raise
                if time.monotonic() >= deadline:
                    self.log_left_beside = True
                    return
            time.sleep(0.1)

    def discard(self) -> None:
        """Removes the closed recording, and the journal files SQLite may have left beside it
        (a close that failed): for a run that recorded nothing. One written again elsewhere (see
        `rescued`) is removed there: its name may be another file's by now."""
        kept = self.rescued or self.path
        for path in (kept, _beside(kept, "-wal"), _beside(kept, "-shm")):
            path.unlink(missing_ok=True)


MANIFEST_FIELDS = {"ruleset": str, "table": dict, "preset": list, "layout": dict, "intrinsics": dict}


def _free_name(path: Path) -> Path:
    """`path`, or beside it the first of NAME-rescued, NAME-rescued1, ... that nothing has taken."""
    names = (path.with_name(f"{path.stem}-rescued{n or ''}{path.suffix}") for n in itertools.count())
    return path if not _taken(path) else next(name for name in names if not _taken(name))


def _taken(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # a file where a folder on its way should be: nothing is written there either
        return True


def _check_manifest(path: Path, manifest: dict) -> None:
    """The manifest fields a replay relies on, by shape: a hand-edited one is named, not a traceback."""
    fix = "give a .tsr file written by `tablesight record`, or undo the edit to its manifest"
    for key, kind in MANIFEST_FIELDS.items():
        if manifest.get(key) is not None and not isinstance(manifest[key], kind):
            raise TablesightError(f"{path} manifest: {key} is not a JSON {kind.__name__}", fix)
    table = manifest.get("table")
    if table is not None and not all(
            isinstance(table.get(k), int | float) and not isinstance(table[k], bool) and table[k] > 0
            for k in ("width_cm", "depth_cm")):
        raise TablesightError(f"{path} manifest: table needs positive width_cm and depth_cm", fix)
    for item in manifest.get("preset") or []:
        if not (isinstance(item, dict) and isinstance(item.get("action"), str)
                and isinstance(item.get("payload"), dict)):
            raise TablesightError(f"{path} manifest: preset items need an action and a payload object", fix)


def _cut_short(path: Path) -> str:
    """How much is there of a file cut short (a copy or a download stopped early), in words; ""
    for one as long as its header says, or one still in WAL mode, whose file may be shorter while
    its log holds the rest. SQLite's header gives the file's size in pages, trusted where its
    check number matches, as SQLite trusts it."""
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
        size = path.stat().st_size
    except OSError:
        return ""
    if len(header) < 100 or 2 in header[18:20] or header[24:28] != header[92:96]:
        return ""
    page_size = int.from_bytes(header[16:18], "big")
    expected = int.from_bytes(header[28:32], "big") * (65536 if page_size == 1 else page_size)
    return f"it holds {size:,} of the {expected:,} bytes its header gives" if size < expected else ""


def _log_left_behind(path: Path) -> bool:
    """A recording still in WAL mode (its recorder ended before folding the log into the file)
    whose -wal file is not beside it: copied alone, everything past its header is in that file.
    (SQLite, opening it, makes an empty one.)"""
    log = _beside(path, "-wal")
    try:
        return in_wal_mode(path) and (not log.exists() or log.stat().st_size == 0)
    except OSError:
        return False


def _beside(path: Path, suffix: str) -> Path:
    """A file SQLite keeps beside a recording: its log (`-wal`) or the log's index (`-shm`)."""
    return path.with_name(path.name + suffix)


def in_wal_mode(path: Path) -> bool:
    """Whether the file's header says WAL mode: its recorder never closed it (a kill, a power
    cut, a full disk, or it is still recording), so part of its game may be in a -wal file."""
    try:
        with path.open("rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    return 2 in header[18:20]  # SQLite goes by either byte: a copy is safe where one is flipped


def _open_for_reading(path: Path, wal: bool) -> tuple[sqlite3.Connection, Path | None]:
    """A connection that reads the recording and never writes beside it, with the folder a
    private copy is in (None when read in place).

    A closed recording (rollback journal mode) is read in place, read-only. So is one still in
    WAL mode whose recorder is gone, with no lock and the log's index in memory (`unix-none`,
    `locking_mode=EXCLUSIVE`): SQLite's usual reading of a -wal needs a -shm file it must create
    or write beside it, which a read-only folder (an SD card, another user's folder) refuses, and
    where allowed the last reader folded the log into the recording and deleted it. With no -wal
    beside it (already folded in) it is read as it lies (`immutable=1`): opening the log would
    create one. One still being recorded would change under such a lock-free reader, as its
    recorder folds the log in and starts it over: it is copied, with its -wal, into a private
    temporary folder and read there."""
    path = path.resolve()  # through a link, its -wal and -shm lie beside the file, not the link
    # Quoted as the name's bytes: a name that is not UTF-8 (a Latin-1 é) could not be, as text.
    uri = f"file:{urllib.parse.quote(os.fsencode(path))}?mode=ro"
    if not wal:
        return sqlite3.connect(uri, uri=True, check_same_thread=False), None
    if not _being_recorded(path):
        log = _beside(path, "-wal").exists()
        db = sqlite3.connect(uri + ("&vfs=unix-none" if log else "&immutable=1"), uri=True,
                             check_same_thread=False)
        db.execute("PRAGMA locking_mode=EXCLUSIVE")  # before the first read: no -shm
        return db, None
    copy = _private_copy(path)
    try:
        return sqlite3.connect(str(copy / "game.tsr"), check_same_thread=False), copy
    except sqlite3.Error:
        shutil.rmtree(copy, ignore_errors=True)
        raise


def _being_recorded(path: Path) -> bool:
    """Whether a recorder still has the file open: a writer of this process, or a connection of
    another, which holds a read lock on one byte of the -shm (SQLite's unix "dead man switch",
    byte 128) for as long as it is open. Not asked of the file itself: any close of it in the
    recorder's process drops that process's locks on it, and `serve` lists its recordings so.
    Unsure (a -shm that cannot be opened) counts as recorded: the copy is right either way."""
    try:
        stat = path.stat()
        if (stat.st_dev, stat.st_ino) in _RECORDING:
            return True  # asked of its -shm here, the close would drop this process's own lock
        with _beside(path, "-shm").open("rb") as shm:
            asked = struct.pack(FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 128, 1, 0)
            return struct.unpack(FLOCK, fcntl.fcntl(shm, fcntl.F_GETLK, asked))[0] != fcntl.F_UNLCK
    except FileNotFoundError:  # no -shm: no connection has it open
        return False
    except OSError:
        return True


def _private_copy(path: Path) -> Path:
    """The recording and its -wal file, copied into a new temporary folder as game.tsr and
    game.tsr-wal. A recorder still writing may fold its log into the file meanwhile: the copy is
    taken again until the file and the log's header (which a restarted log changes) stayed the
    same throughout, so the two copies belong together."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="tablesight-replay-"))
    except OSError as error:
        raise TablesightError(
            f"cannot read {path}: its recorder did not close it, and no temporary folder to read a copy "
            f"of it from can be made ({error.strerror})",
            "point TMPDIR to a folder you can write to",
        ) from None
    log = _beside(path, "-wal")
    try:
        for _attempt in range(5):
            before = _copy_state(path, log)
            shutil.copyfile(path, folder / "game.tsr")
            (folder / "game.tsr-wal").unlink(missing_ok=True)
            with contextlib.suppress(FileNotFoundError):  # folded in and removed meanwhile
                shutil.copyfile(log, folder / "game.tsr-wal")
            if _copy_state(path, log) == before:
                break
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        if error.filename is not None and str(error.filename).startswith(str(folder)):
            raise TablesightError(
                f"cannot read {path}: its recorder did not close it, and the copy it is read from "
                f"does not fit in {folder.parent} ({error.strerror})",
                "free some space there, or point TMPDIR to a folder with room",
            ) from None
        raise unusable(error.filename or path, error, verb="read") from None
    return folder


def _copy_state(path: Path, log: Path) -> tuple:
    stat = path.stat()
    try:
        with log.open("rb") as handle:
            header = handle.read(32)
    except FileNotFoundError:
        header = None
    return stat.st_size, stat.st_mtime_ns, stat.st_ino, header


def _close_reader(db: sqlite3.Connection, copy: Path | None) -> None:
    with contextlib.suppress(sqlite3.Error):
        db.close()
    if copy is not None:
        shutil.rmtree(copy, ignore_errors=True)


def _result_code(error: sqlite3.Error) -> int:
    """SQLite's primary result code of an error; 0 for one Python's sqlite3 raised itself (a text
    value whose bytes are not UTF-8, as a flipped bit leaves it), which carries none."""
    return (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF


def _cannot_read(path: Path, error: sqlite3.Error) -> TablesightError:
    """An error that is not damage: the file may be whole, so it is not called damaged."""
    code = _result_code(error)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return TablesightError(f"cannot read {path} ({error}): another program holds it locked",
                               "wait until that program is done with it, or replay a copy of it")
    if code in (sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_FULL):
        return TablesightError(f"cannot read {path} ({error})",
                               "free some memory or disk space, then run the command again")
    return TablesightError(f"cannot read {path} ({error})",
                           "check that your user may read the file and the folder it is in (ls -l)")


def recorded_layout(manifest: dict):
    """The marker layout a recording was made with, or None where its manifest holds none."""
    from calibration.layout import Layout

    recorded = manifest.get("layout")
    return Layout.from_dict(recorded, source="the recording's layout") if recorded else None


def recorded_lens(manifest: dict):
    """The lens calibration a recording was made with, or None where it was made without one;
    named so where a message doubts it (no lens file was given)."""
    from calibration.intrinsics import Intrinsics

    lens = manifest.get("intrinsics")
    if not lens:
        return None
    return replace(Intrinsics.from_dict(lens, source="the recording's intrinsics"),
                   label="the recording's lens calibration")


@dataclass(frozen=True)
class Control:
    frame: int
    action: str
    payload: dict


class Recording:
    """A recording opened for reading: manifest, controls, events, frames in order."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        with using(self.path, verb="read"):
            if self.path.is_dir():
                raise TablesightError(
                    f"{self.path} is a folder, not a recording", "give the .tsr file inside it"
                )
            if self.path.exists() and not self.path.is_file():
                raise TablesightError(
                    f"{self.path} is not a regular file (a pipe or a device)", "give the .tsr file itself"
                )
            if not self.path.is_file():
                raise TablesightError(f"{self.path} does not exist", "check the recording's path")
        if not is_recording(self.path):
            raise TablesightError(
                f"{self.path} is not a tablesight recording",
                "give a .tsr file written by `tablesight record`",
            )
        self.stopped = ""
        self.frames_stopped = ""  # where `frames` met damage; `stopped` may be earlier damage elsewhere
        self.damaged_frames: list[int] = []  # frames that decode, but with part of their JPEG corrupt
        self.in_wal_mode = in_wal_mode(self.path)  # a -wal file belongs with it (never closed)
        self.cut_off = _cut_short(self.path)
        self._db = None
        try:
            self._db, copy = _open_for_reading(self.path, self.in_wal_mode)
            self._closer = weakref.finalize(self, _close_reader, self._db, copy)
            # A truncated file is shorter than its header says; SQLite refuses such a file
            # unless the schema is "writable", which only relaxes that check (we never write).
            self._db.execute("PRAGMA writable_schema=ON")
            self.manifest = {k: json.loads(v) for k, v in self._db.execute("SELECT key, value FROM manifest")}
        except sqlite3.DatabaseError as error:
            self.close()
            if _result_code(error) in NOT_DAMAGE:
                raise _cannot_read(self.path, error) from None
            self._refuse_if_cut_off()
            fix = "nothing in it can be replayed; use another recording"
            if _log_left_behind(self.path):
                fix = (f"its game is in the file {self.path.name}-wal, which is not beside it: copy that "
                       "file too, into the same folder (a recording stopped by a kill or a power cut "
                       "keeps it)")
            raise TablesightError(f"{self.path} is damaged beyond its header ({error})", fix) from None
        except (ValueError, TypeError, RecursionError):  # json.loads of a cut-off or missing value
            self.close()
            self._refuse_if_cut_off()
            raise TablesightError(
                f"{self.path} is damaged beyond its header: its manifest cannot be read",
                "nothing in it can be replayed; use another recording",
            ) from None
        _check_manifest(self.path, self.manifest)
        version = self.manifest.get("format_version")
        # JSON's true is a Python int, and formats count from 1: true, 0 or -1 is a damaged
        # manifest, as is 1.5, which was said to be missing.
        if "format_version" not in self.manifest:
            self.close()
            self._refuse_if_cut_off()
            raise TablesightError(
                f"{self.path} has no format version in its manifest",
                "give a .tsr file written by `tablesight record`",
            )
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise TablesightError(
                f"{self.path} has format version {json.dumps(version)} in its manifest, which no "
                "tablesight writes (they count from 1)",
                "its manifest is damaged: give a .tsr file written by `tablesight record`",
            )
        if version > FORMAT_VERSION:
            raise TablesightError(
                f"{self.path} was recorded by a newer tablesight (format {version}; this one reads "
                f"up to {FORMAT_VERSION})",
                "update tablesight to replay it",
            )
        self._checksummed = version >= FIRST_CHECKSUMMED
        self.controls = self._rows(
            "SELECT frame, action, payload FROM controls ORDER BY seq",
            lambda r: Control(r[0], r[1], json.loads(r[2])),
            "controls",
        )
        self.events = self._rows(
            "SELECT frame, t, turn, phase, kind, detail, data FROM events ORDER BY seq",
            lambda r: {
                "frame": r[0],
                "t": r[1],
                "turn": r[2],
                "phase": r[3],
                "kind": r[4],
                "detail": r[5],
                "data": json.loads(r[6]),
            },
            "events",
        )

    def _refuse_if_cut_off(self) -> None:
        if self.cut_off:
            raise TablesightError(f"{self.path} is cut off before its manifest ({self.cut_off})",
                                  "nothing in it can be replayed; copy the whole file again (a copy or "
                                  "download of it stopped early)")

    def _damage(self, error: sqlite3.Error) -> tuple[str, str]:
        """Damage met reading and why, said as the cut where the file is cut short."""
        return ("cut off", self.cut_off) if self.cut_off else ("damaged", str(error))

    def _rows(self, sql: str, convert, what: str) -> list:
        rows = []
        try:
            for row in self._db.execute(sql):
                rows.append(convert(row))
        except sqlite3.DatabaseError as error:
            damage, why = self._damage(error)
            self._stop(f"its {what} are {damage} after {len(rows)} entries ({why})")
        except (ValueError, TypeError, RecursionError):  # json.loads of a cut-off or NULL value
            self._stop(f"its {what} are damaged after {len(rows)} entries (entry {len(rows) + 1} is cut off)")
        return rows

    def _stop(self, message: str) -> None:
        if not self.stopped:
            self.stopped = message

    def _stop_frames(self, message: str) -> None:
        self.frames_stopped = message
        self._stop(message)

    def frame_count(self) -> int:
        try:
            return int(self._db.execute("SELECT COUNT(*) FROM frames").fetchone()[0])
        except sqlite3.DatabaseError:
            return 0

    def holds_no_frame(self) -> bool:
        """No frame at all (as `frames` reads them), where one that cannot be read is damage
        that `frames` says the place of."""
        try:
            return self._db.execute("SELECT 1 FROM frames WHERE idx >= 0 LIMIT 1").fetchone() is None
        except sqlite3.DatabaseError:
            return False

    def no_frame(self, verb: str) -> TablesightError:
        """A recording that holds no frame, said as what it is. A recorder removes a file it
        kept nothing in, and commits a frame before any event or control that followed it; so a
        file without a frame is whole only where it was never closed (a kill in its first second)
        or holds nothing but settings a player gave before the camera's first frame. Any other
        lost its frames: deleted by hand, or damaged."""
        problem = f"{self.path} holds no frame to {verb}"
        at_frames = any(e["frame"] >= 0 for e in self.events) or any(c.frame >= 0 for c in self.controls)
        if at_frames or not (self.in_wal_mode or self.controls):
            return TablesightError(
                f"{problem}: its frames were deleted or lost, so the file is damaged or was edited by hand",
                "use another copy of the recording",
            )
        fix = "record the game again"
        if self.in_wal_mode:
            fix = f"if it was copied from another machine, copy its -wal file beside it; else {fix}"
        return TablesightError(f"{problem}: it was stopped before its first frame was kept", fix)

    def frames(self) -> Iterator[Frame]:
        """Frames in order, one query each, so damage ends the iteration at the last good frame.

        A frame whose JPEG does not match its checksum ends it too, rather than being passed over:
        what replays is then an exact prefix of the game, whose events compare with the recorded
        ones as far as both go, where a game with a frame missing from its middle would track
        differently from there on and its events be blamed on the pipeline."""
        crc = "crc" if self._checksummed else "NULL"
        last, count = -1, 0
        while True:
            # Before any frame there is no "frame -1" to have stopped after.
            where = "stopped before its first frame"
            if count:
                where = f"stopped after frame {last} ({count} frame{'' if count == 1 else 's'} read)"
            try:
                row = self._db.execute(
                    f"SELECT idx, t, name, jpeg, {crc} FROM frames WHERE idx > ? ORDER BY idx LIMIT 1",
                    (last,),
                ).fetchone()
            except sqlite3.DatabaseError as error:
                damage, why = self._damage(error)
                self._stop_frames(f"{where}: the file is {damage} there ({why})")
                return
            if row is None:
                return
            whole = isinstance(row[3], bytes) and isinstance(row[1], int | float)  # damage reads as NULL
            image, damaged = decode_checked(np.frombuffer(row[3], np.uint8)) if whole else (None, False)
            if image is None:
                self._stop_frames(f"{where}: frame {row[0]} is not a readable JPEG")
                return
            # Checked after the decode, so a frame that does not decode at all is still called so.
            if self._checksummed and row[4] != zlib.crc32(row[3]):
                self._stop_frames(f"{where}: frame {row[0]} is damaged: its JPEG does not match the checksum "
                                  "it was recorded with")
                return
            last = int(row[0])
            count += 1
            if damaged:
                self.damaged_frames.append(last)
            yield Frame(image=image, index=last, timestamp_s=float(row[1]), name=str(row[2]))

    def damage(self) -> str:
        """The frames read so far that were damaged inside their JPEG, in words; "" when none.
        Such a frame is still used (what decodes of it), so its positions may be off."""
        if not self.damaged_frames:
            return ""
        which = ", ".join(str(index) for index in self.damaged_frames)
        if len(self.damaged_frames) == 1:
            return (f"frame {which} of {self.path.name} is damaged inside its JPEG and was used as far as "
                    "it decodes")
        return (f"frames {which} of {self.path.name} are damaged inside their JPEG and were used as far as "
                "they decode")

    def close(self) -> None:
        """Closes the file, and removes the private copy it was read from, if any."""
        closer = getattr(self, "_closer", None)
        if closer is not None:
            closer()


def holding_frames(recording: Recording, verb: str) -> Recording:
    """The recording, unless it holds no frame at all, refused (and closed) as `verb` finds it:
    `track` of such a file exited 0 having printed nothing, `record` from it kept nothing as if
    that were a success, and `serve` asked for a video or a folder of photos instead."""
    if recording.holds_no_frame():
        recording.close()
        raise recording.no_frame(verb)
    return recording


class RecordingSource:
    """A FrameSource over a recording: `--source GAME.tsr` works wherever a camera does."""

    live = False

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self.description = f"recording {recording.path.name}"
        self._frames = recording.frames()
        self._given = 0

    def read(self) -> Frame | None:
        """The next frame; None at the end. Damage is a failure, not an end: `track` and
        `record` would otherwise stop at it in silence, as if the game had been that short."""
        frame = next(self._frames, None)
        if frame is None and self.recording.frames_stopped:
            raise TablesightError(
                self.recording.frames_stopped,
                "the frames before the damage were used; use another copy of the recording for the rest"
                if self._given
                else "no frame of it could be used; use another copy of the recording",
            )
        self._given += frame is not None
        return frame

    def damage(self) -> TablesightError | None:
        """The frames damaged inside their JPEG so far and what to do, as a folder's source
        says its unreadable stills."""
        if damage := self.recording.damage():
            return TablesightError(damage, "a clean copy of the recording gives its exact positions")
        return None

    def close(self) -> None:
        self._frames.close()
