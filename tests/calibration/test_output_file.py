"""Writing a command's output whole, and refusing an output whose replacement would lose data."""

from pathlib import Path

import pytest

from calibration.output_file import check_folder_writable, check_output, replace_atomically
from rules_core.errors import TablesightError


def test_a_failed_export_leaves_the_model_it_would_replace(tmp_path: Path) -> None:
    model = tmp_path / "rim.onnx"
    model.write_bytes(b"the shipped model")

    def interrupted(partial: Path) -> None:
        partial.write_bytes(b"half a mod")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        replace_atomically(model, interrupted)
    assert model.read_bytes() == b"the shipped model" and list(tmp_path.iterdir()) == [model]


def test_a_pipe_or_device_is_written_into_never_renamed_over(tmp_path: Path) -> None:
    """`--report /dev/stdout` or `/dev/null`: renaming over one replaced the node itself, so
    `--report /dev/full` left the system a regular file there (found as root)."""
    import os
    import stat
    import threading

    fifo = tmp_path / "stdout"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    replace_atomically(fifo, lambda target: target.write_text('{"frames": 3}'))
    reader.join(10)
    assert got == [b'{"frames": 3}'] and stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stdout"]


def test_a_link_stays_a_link_and_its_file_is_replaced(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "report.json"
    link.symlink_to(real)
    replace_atomically(link, lambda partial: partial.write_text("new"))
    assert link.is_symlink() and real.read_text() == "new"


FIX = "give -o a new file name"


def test_an_output_that_is_an_input_is_refused(tmp_path: Path) -> None:
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"\xff\xd8 the only copy")
    same = tmp_path / "same.jpg"
    same.hardlink_to(photo)
    for name in (photo, same):
        with pytest.raises(TablesightError, match="is the input"):
            check_output(str(name), "-o", FIX, inputs=[str(photo)])
    assert check_output(str(tmp_path / "calib.json"), "-o", FIX, inputs=[str(photo)]).name == "calib.json"


def test_a_json_output_does_not_replace_a_file_that_holds_other_data(tmp_path: Path) -> None:
    photo = tmp_path / "other.jpg"
    photo.write_bytes(b"\xff\xd8\xff\xe0 a photo")
    with pytest.raises(TablesightError, match="holds no JSON"):
        check_output(str(photo), "-o", FIX, json_only=True)
    old = tmp_path / "calib.json"
    old.write_text('{"homography": []}')
    assert check_output(str(old), "-o", FIX, json_only=True) == old


def test_a_json_output_of_a_kind_replaces_only_json_of_that_kind(tmp_path: Path) -> None:
    kind = ("calibration", lambda data: isinstance(data, dict) and "homography" in data)
    scene = tmp_path / "scene.json"
    scene.write_text('{"ruleset": "world-at-fire"}')
    with pytest.raises(TablesightError, match="holds other JSON than a calibration"):
        check_output(str(scene), "-o", FIX, json_only=True, same_kind=kind)
    old = tmp_path / "calib.json"
    old.write_text('{"homography": []}')
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert check_output(str(old), "-o", FIX, json_only=True, same_kind=kind) == old
    assert check_output(str(empty), "-o", FIX, json_only=True, same_kind=kind) == empty


def test_a_special_file_is_refused_unless_a_stream_may_take_the_output(tmp_path: Path) -> None:
    import os
    import socket

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert check_output(str(fifo), "-o", FIX) == fifo
    with pytest.raises(TablesightError, match="not a regular file"):
        check_output(str(fifo), "-o", FIX, streams=False)
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        with pytest.raises(TablesightError, match="not a regular file"):
            check_output(str(tmp_path / "sock"), "-o", FIX)


@pytest.mark.parametrize(("name", "said"), [("", "-o is empty"), ("missing/x.json", "does not exist")])
def test_no_name_or_no_folder_is_refused(tmp_path: Path, monkeypatch, name: str, said: str) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TablesightError, match=said):
        check_output(name, "-o", FIX)


def test_a_folder_that_refuses_a_new_file_is_found_before_the_work(tmp_path: Path) -> None:
    """Permissions do not tell: root may write anywhere they allow, and still not into /proc."""
    if not Path("/proc/self").is_dir():
        pytest.skip("needs a /proc file system")
    with pytest.raises(TablesightError, match="/proc refuses a new file"):
        check_folder_writable(Path("/proc/rim.onnx"), "-o", FIX)
    check_folder_writable(tmp_path / "new" / "rim.onnx", "-o", FIX)
    assert list(tmp_path.iterdir()) == []


def test_a_descriptor_name_redirected_to_a_file_is_written_into(tmp_path: Path) -> None:
    """`--report /dev/stdout > out.json`: renamed over, the shell's own file was replaced and
    the rest of its output went to a deleted one."""
    import os

    redirected = tmp_path / "out.json"
    with redirected.open("w") as shell:
        name = f"/dev/fd/{shell.fileno()}"
        if not Path(name).exists():
            pytest.skip("needs /dev/fd")
        inode = redirected.stat().st_ino
        assert check_output(name, "--report", FIX, json_only=True) == Path(name)
        replace_atomically(Path(name), lambda target: target.write_text('{"frames": 3}'))
    assert redirected.read_text() == '{"frames": 3}' and redirected.stat().st_ino == inode
    assert os.listdir(tmp_path) == ["out.json"]


def test_with_make_folders_a_missing_folder_is_no_refusal_and_is_not_made_yet(tmp_path: Path) -> None:
    """The writer makes it (replace_atomically), so a refused or failed command leaves no empty folder."""
    name = tmp_path / "new" / "deeper" / "x.json"
    assert check_output(str(name), "-o", FIX, make_folders=True) == name
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "notes").write_text("a file, not a folder")
    with pytest.raises(TablesightError, match="notes is a file, not a folder"):
        check_output(str(tmp_path / "notes" / "new" / "x.json"), "-o", FIX, make_folders=True)
