"""Writing a command's output file whole: a model, a report, a calibration.

The output may replace one the user keeps (the shipped model, last game's report), so it is
written beside it and renamed over it; a failed write (a full disk, an interrupted run)
leaves the old file as it was instead of half a new one. Before any work, `check_output`
refuses the names whose replacement would lose something the user did not mean to give up.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from rules_core.errors import TablesightError

DESCRIPTOR_NAMES = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/")

# What to do about a path the system refuses, by its reason; anything else: check the path.
_NOT_ALLOWED = (
    "check that your user may use it and enter every folder above it (ls -ld), or use a path where it may"
)
_FULL = "free some disk space, then run the command again"
_ADVICE = {
    errno.EACCES: _NOT_ALLOWED,
    errno.EPERM: _NOT_ALLOWED,
    errno.ENAMETOOLONG: "give a shorter name: a file or folder name may be at most 255 bytes",
    errno.ELOOP: "a symbolic link on the way points round in a circle; fix or remove it",
    errno.EFBIG: _FULL,
    errno.ENOSPC: _FULL,
    errno.EDQUOT: _FULL,
    errno.EROFS: "the drive is mounted read-only: give a path on a drive you can write to, or mount it "
                 "writable",
}


def unusable(path: str | Path, error: OSError, fix: str = "", verb: str = "use") -> TablesightError:
    """The one line for a path the system will not let a command use: a file or folder the user
    may not read or enter, a name too long, a link loop, a full disk. Python's `Path.is_dir()`,
    `exists()` and kin answer only "missing" for themselves; every other refusal is an OSError,
    and every command says it this way. `fix` replaces the advice the reason implies."""
    reason = error.strerror or str(error) or type(error).__name__
    advice = _ADVICE.get(error.errno, "check the path")
    return TablesightError(f"cannot {verb} {path} ({reason})", fix or advice)


@contextlib.contextmanager
def using(path: str | Path, fix: str = "", verb: str = "use") -> Iterator[None]:
    """Checks of `path` inside raise `unusable` instead of an OSError."""
    try:
        yield
    except OSError as error:
        raise unusable(path, error, fix, verb) from None


def replace_atomically(out: Path, write: Callable[[Path], object]) -> None:
    """`write` a file beside `out`, then rename it over `out`; its errors propagate, and
    removing the half-written file never hides them.

    A character device or a pipe (`/dev/stdout`, `/dev/null`, a shell's `>(...)`) is written
    into, as a shell's `>` would: renaming over it would replace the device node itself, and as
    root that breaks `/dev/null` for the whole system. A link keeps pointing where it did: the
    file it names is the one replaced.
    """
    if is_stream(out):
        write(out)
        return
    out = Path(os.path.realpath(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    # The suffix stays last: a writer that picks the format by it (OpenCV, numpy) still can.
    partial = out.with_name(f".{out.stem}.partial{out.suffix}")
    try:
        write(partial)
        os.replace(partial, out)
    finally:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def is_stream(path: str | Path) -> bool:
    """Something written into, never replaced: an existing character device or pipe, or a name
    for one of the process's own descriptors (`/dev/stdout` redirected to a file is that file,
    and renaming over it would leave the shell writing the rest of its output to a deleted one)."""
    if str(Path(path).absolute()).startswith(DESCRIPTOR_NAMES):
        return Path(path).exists()
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def check_output(
    name: str,
    option: str,
    fix: str,
    *,
    inputs: Iterable[str | Path] = (),
    json_only: bool = False,
    streams: bool = True,
    same_kind: tuple[str, Callable[[object], bool]] | None = None,
    make_folders: bool = False,
) -> Path:
    """The output path, checked before the work whose result it would hold.

    Refused: no name, a folder, a missing folder (with `make_folders`, only one that cannot be
    made: the writer, `replace_atomically`, makes it), one of the command's `inputs` (the only copy
    of the photo or the recording would be replaced by what was made from it), a special file
    other than a stream (or any, without `streams`), and, with `json_only`, an existing file
    that holds no JSON: a command that writes JSON has no business replacing a photo or a
    recording that happens to bear the name. With `same_kind` (what the command writes, and a
    test of a file's JSON), an existing JSON file of another kind is refused too: a scene or a
    layout is the user's work, and only an earlier output of this kind is written over.
    """
    if not name.strip():
        raise TablesightError(f"{option} is empty: it needs a file name", fix)
    path = Path(name)
    with using(name):
        if path.is_dir():
            raise TablesightError(f"{option} {name} is a folder, not a file", fix)
        if name.endswith((os.sep, "/")):  # Path() drops the slash, and would write a file so named
            raise TablesightError(f"{option} {name} ends in a slash, so it names a folder, not a file", fix)
        if not path.parent.is_dir():
            if not make_folders:
                raise TablesightError(f"{option} {name}: the folder {path.parent} does not exist", fix)
            _check_folders_can_be_made(path, option, fix)
            return path
        if not path.exists():
            return path
    for source in inputs:
        if _same_file(path, source):
            raise TablesightError(f"{option} {name} is the input {source}: writing it would replace it", fix)
    if streams and is_stream(path):
        return path
    if not path.is_file() or is_stream(path):
        raise TablesightError(f"{option} {name} is not a regular file, so it cannot be replaced", fix)
    if json_only and not _holds_json(path):
        raise TablesightError(f"{option} {name} exists and holds no JSON, so it is not replaced", fix)
    if same_kind is not None and not is_stream(path) and not _of_kind(path, same_kind[1]):
        raise TablesightError(
            f"{option} {name} holds other JSON than a {same_kind[0]} (a scene, a layout?), "
            "so it is not replaced",
            fix,
        )
    return path


def nearest_existing_folder(path: Path) -> Path:
    """The folder above `path` that exists (or whatever stands in a folder's place): the folders
    missing below it are the ones a write makes."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def check_folder_writable(path: Path, option: str, fix: str) -> None:
    """Try a file in the nearest existing folder of `path`: permissions alone do not say that a
    read-only mount, or a pseudo file system such as /proc, refuses it, least of all to root."""
    folder = nearest_existing_folder(path)
    probe = folder / f".{path.name}.{os.getpid()}.probe"
    try:
        probe.touch(exist_ok=False)
        probe.unlink()
    except OSError as error:
        raise TablesightError(
            f"{option} {path} cannot be written: {folder} refuses a new file ({error.strerror})", fix
        ) from None


def check_no_file_in_the_way(path: Path, said: str, fix: str) -> None:
    """Refuse a file standing where a folder of `path` goes (`-o photo.jpg/calib.json`), said
    after `said` (the option and path), before the work rather than by the write after it."""
    folder = nearest_existing_folder(path)
    if not folder.is_dir():
        raise TablesightError(
            f"{said}: {folder} is a file, not a folder, so no folder can be made in it", fix
        )


def _check_folders_can_be_made(path: Path, option: str, fix: str) -> None:
    """Said before the work, not by the write after it: a file standing where a folder goes, or
    a folder that refuses the new one."""
    check_no_file_in_the_way(path, f"{option} {path}", fix)
    check_folder_writable(path, option, fix)


def _same_file(path: Path, other: str | Path) -> bool:
    try:
        return os.path.samefile(path, other)
    except (OSError, ValueError):
        return False


def _of_kind(path: Path, test: Callable[[object], bool]) -> bool:
    """Whether an existing file is empty or holds JSON that passes `test`."""
    import json

    try:
        text = path.read_text(encoding="utf-8-sig")
        return not text.strip() or test(json.loads(text))
    except (OSError, ValueError, RecursionError):
        return False


def _holds_json(path: Path) -> bool:
    """Empty, or starting like a JSON document: what this project writes starts with `{`, and
    reading the whole of a large file only to refuse it would cost what the check is meant to save."""
    try:
        with path.open("rb") as handle:
            start = handle.read(64).lstrip()
    except OSError:
        return False
    return start[:1] in (b"", b"{", b"[")
