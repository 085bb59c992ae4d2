from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.capture import CaptureSource
from hardware.folder import FolderSource
from hardware.recording import RecordingSource
from hardware.source import Frame
from hardware.sources import open_source
from rules_core.errors import TablesightError
from tests.hardware.conftest import table_image


def read_all(source) -> list:
    frames = []
    while (frame := source.read()) is not None:
        frames.append(frame)
    return frames


def test_folder_frames_come_in_name_order_with_spaced_timestamps(image_folder: Path) -> None:
    source = open_source(str(image_folder), fps=5.0)
    frames = read_all(source)
    assert [f.name for f in frames] == ["frame_000.png", "frame_001.png", "frame_002.png"]
    assert [f.index for f in frames] == [0, 1, 2]
    assert [f.timestamp_s for f in frames] == pytest.approx([0.0, 0.2, 0.4])
    assert np.array_equal(frames[1].image, table_image(1))
    assert source.read() is None


def test_unpadded_numbers_in_names_play_in_number_order(tmp_path: Path) -> None:
    """frame_10 came before frame_2, and the game played scrambled with nothing said (a blind
    contract check)."""
    for number in (10, 2, 1, 9):
        cv2.imwrite(str(tmp_path / f"frame_{number}.png"), table_image(number))
    frames = read_all(open_source(str(tmp_path)))
    assert [f.name for f in frames] == ["frame_1.png", "frame_2.png", "frame_9.png", "frame_10.png"]


@pytest.mark.parametrize("suffix", [".ppm", ".pgm", ".pnm", ".jp2", ".jpe", ".dib", ".ras", ".sr"])
def test_a_folder_of_any_picture_opencv_reads_is_a_game(tmp_path: Path, suffix: str) -> None:
    """`detect` and a single still took them; a folder of them "held no images" (a blind
    contract check: "a folder of images")."""
    for number in (1, 2):
        picture = table_image(number)
        if suffix == ".pgm":  # grey only: read back as colour, as every still is
            picture = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
        assert cv2.imwrite(str(tmp_path / f"frame_{number}{suffix}"), picture)
    frames = read_all(open_source(str(tmp_path)))
    assert [f.name for f in frames] == [f"frame_1{suffix}", f"frame_2{suffix}"]
    assert frames[0].image.shape == table_image(1).shape


def test_empty_folder_says_so(tmp_path: Path) -> None:
    """In words for every command: `track` takes its source as an argument, not --source."""
    with pytest.raises(TablesightError, match="holds no images") as caught:
        open_source(str(tmp_path))
    assert "--source" not in str(caught.value) and "as the source" in str(caught.value)


def test_an_unreadable_still_is_passed_over_and_named_afterwards(tmp_path: Path) -> None:
    """One photo cut short by its copy costs that photo, not every one after it."""
    for name in ("a.png", "c.png"):
        cv2.imwrite(str(tmp_path / name), table_image(0))
    (tmp_path / "b.jpg").write_bytes(b"not a jpeg")
    source = FolderSource(tmp_path, fps=2)
    assert source.damage() is None
    frames = read_all(source)
    assert [(f.name, f.index, f.timestamp_s) for f in frames] == [("a.png", 0, 0.0), ("c.png", 2, 1.0)]
    damage = source.damage()
    assert damage.problem == (f"1 of the 3 images in {tmp_path} was skipped "
                              "(b.jpg is not an image OpenCV can read)")
    assert damage.fix == "replace those files with good copies and run again for their positions"


def test_a_folder_none_of_whose_stills_can_be_read_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "b.jpg").write_bytes(b"")
    said = r"none of the images in .* can be read \(a\.jpg is not an image OpenCV can read and 1 more\)"
    with pytest.raises(TablesightError, match=said):
        FolderSource(tmp_path).read()


def test_an_unreadable_single_still_is_to_be_replaced(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(TablesightError, match=r"a\.jpg is not an image.*JPEG or PNG photo instead") as caught:
        FolderSource(tmp_path / "a.jpg").read()
    assert "folder" not in str(caught.value)


def test_a_cut_off_jpeg_gets_our_line_without_the_decoders_warning(tmp_path: Path, capfd) -> None:
    _, jpeg = cv2.imencode(".jpg", table_image(0))
    (tmp_path / "a.jpg").write_bytes(jpeg.tobytes()[: len(jpeg) // 2])
    with pytest.raises(TablesightError, match=r"a\.jpg is not an image"):
        FolderSource(tmp_path / "a.jpg").read()
    assert capfd.readouterr().err == ""


def test_a_still_damaged_inside_its_jpeg_is_used_and_named(tmp_path: Path, capfd) -> None:
    _, jpeg = cv2.imencode(".jpg", table_image(0))
    data = bytearray(jpeg.tobytes())
    data[len(data) // 2 : len(data) // 2 + 40] = bytes(40)
    (tmp_path / "a.jpg").write_bytes(bytes(data))
    source = FolderSource(tmp_path)
    assert len(read_all(source)) == 1
    damage = source.damage().problem
    assert damage == "a.jpg is damaged inside the JPEG and used as far as the picture decodes"
    assert capfd.readouterr().err == ""


def test_many_stills_damaged_inside_their_jpeg_are_named_three_and_counted(tmp_path: Path) -> None:
    """Named all, 300 of them made one line of thousands of characters (as the skipped ones did)."""
    _, jpeg = cv2.imencode(".jpg", table_image(0))
    data = bytearray(jpeg.tobytes())
    data[len(data) // 2 : len(data) // 2 + 40] = bytes(40)
    for name in "abcde":
        (tmp_path / f"{name}.jpg").write_bytes(bytes(data))
    source = FolderSource(tmp_path)
    assert len(read_all(source)) == 5
    damage = source.damage().problem
    assert damage == (
        "a.jpg, b.jpg, c.jpg and 2 more are damaged inside the JPEG and used as far as the picture decodes"
    )


def test_a_still_removed_after_the_folder_was_listed_is_named(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), table_image(0))
    cv2.imwrite(str(tmp_path / "b.png"), table_image(1))
    source = FolderSource(tmp_path)
    (tmp_path / "a.png").unlink()
    assert [f.name for f in read_all(source)] == ["b.png"]
    assert "a.png cannot be read (No such file or directory)" in source.damage().problem


def test_single_image_is_a_one_frame_source(image_folder: Path) -> None:
    frames = read_all(open_source(str(image_folder / "frame_001.png")))
    assert len(frames) == 1 and frames[0].name == "frame_001.png"


def test_missing_path_is_an_error() -> None:
    with pytest.raises(TablesightError, match="neither a camera nor an existing file"):
        open_source("/no/such/table.mp4")


@pytest.fixture
def video_file(tmp_path: Path) -> Path:
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (320, 240))
    for i in range(6):
        writer.write(table_image(i))
    writer.release()
    return path


def test_video_file_plays_to_its_end(video_file: Path) -> None:
    source = open_source(str(video_file))
    assert not source.live
    frames = read_all(source)
    assert len(frames) == 6
    assert frames[0].image.shape == (240, 320, 3)
    assert [f.timestamp_s for f in frames] == pytest.approx([i / 10 for i in range(6)], abs=1e-6)
    source.close()


def test_a_video_file_has_no_resolution_to_choose(video_file: Path) -> None:
    with pytest.raises(TablesightError, match="fixed by the sender"):
        open_source(str(video_file), size=(640, 480))


def test_garbage_video_file_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "broken.mp4"
    path.write_bytes(b"\x00" * 1000)
    with pytest.raises(TablesightError, match=r"broken\.mp4"):
        open_source(str(path))


def _mp4(path: Path) -> bytes:
    """An mp4v MP4 as a phone or OpenCV writes it: its index (the moov box) after its data."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10.0, (320, 240))
    for i in range(6):
        writer.write(table_image(i))
    writer.release()
    return path.read_bytes()


@pytest.mark.parametrize(("share", "where"), [(0.5, "its data"), (0.95, "its index")])
def test_an_mp4_cut_off_is_told_to_be_copied_again_not_converted(tmp_path: Path, share, where) -> None:
    """Session 63 (D6): an MP4 cut short by its copy was told to "convert it to MP4 (H.264)"."""
    whole = _mp4(tmp_path / "whole.mp4")
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(whole[: int(len(whole) * share)])
    with pytest.raises(TablesightError) as refused:
        open_source(str(cut))
    assert refused.value.problem.startswith(f"{cut} looks cut off: it ends inside {where}, ")
    assert refused.value.fix == "copy the whole video again (an MP4's index is written at its end)"
    assert len(read_all(open_source(str(tmp_path / "whole.mp4")))) == 6


@pytest.mark.parametrize("name", ["empty.mp4", "empty.avi"])
def test_an_empty_video_file_is_called_empty(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"")
    with pytest.raises(TablesightError) as refused:
        open_source(str(tmp_path / name))
    assert refused.value.problem == f"{tmp_path / name} is empty (0 bytes)"
    assert refused.value.fix == "copy the video again, or give another one"


def test_a_file_that_is_no_video_is_still_told_to_be_converted(tmp_path: Path) -> None:
    path = tmp_path / "notes.mp4"
    path.write_bytes(b"some notes, not a video at all" * 10)
    with pytest.raises(TablesightError, match=r"is not a video OpenCV can read.*convert it to MP4"):
        open_source(str(path))


def test_missing_usb_camera_names_the_index_and_the_fix() -> None:
    with pytest.raises(TablesightError) as caught:
        open_source("camera:57")
    assert "index 57" in caught.value.problem
    assert "plug the USB camera in" in caught.value.fix


def test_url_that_does_not_answer(unused_port: int) -> None:
    with pytest.raises(TablesightError, match="does not answer"):
        CaptureSource(f"http://127.0.0.1:{unused_port}/stream.mjpg", timeout_s=1.0)


@pytest.fixture
def unused_port() -> Iterator[int]:
    """A port bound but not listening for the whole test: connecting is refused, and no other
    test running beside it (two workers) can start a server there, as on a port let go."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def test_recording_source_takes_frames_from_any_reader() -> None:
    def reader():
        for i in range(3):
            yield table_image(i), 100.0 + i * 0.5, f"rec_{i}.jpg"

    frames = read_all(RecordingSource(reader(), description="game 7"))
    assert [(f.index, f.timestamp_s, f.name) for f in frames] == [
        (0, 100.0, "rec_0.jpg"), (1, 100.5, "rec_1.jpg"), (2, 101.0, "rec_2.jpg")]


def test_a_recording_opens_through_the_reader_it_is_given(tmp_path: Path, image_folder: Path) -> None:
    recording = tmp_path / "game.tsr"
    recording.write_bytes(b"a recording")

    def reader(path: Path):
        if path.suffix != ".tsr":
            return None
        return iter([Frame(table_image(0), 7, 12.5, "f0"), (table_image(1), 13.0, "f1")])

    source = open_source(str(recording), recording_reader=reader)
    assert source.description == f"recording {recording}"
    assert [(f.index, f.timestamp_s, f.name) for f in read_all(source)] == [(0, 12.5, "f0"), (1, 13.0, "f1")]
    assert isinstance(open_source(str(image_folder), recording_reader=reader), FolderSource)


@pytest.mark.parametrize("fps", [0.0, -5.0, float("nan"), float("inf")])
def test_a_folder_frame_rate_must_be_a_number_above_0(image_folder: Path, fps: float) -> None:
    """nan or inf were taken: every frame then stood at one time, or the timers never ran out."""
    with pytest.raises(TablesightError, match="fps must be a number above 0"):
        open_source(str(image_folder), fps=fps)
