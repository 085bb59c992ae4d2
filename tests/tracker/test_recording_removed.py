"""The recording's folder deleted (or the file moved away) while a game is recorded: SQLite
goes on writing into the file it holds open, which no name reaches any more, and at the close
`record` said "384 of 384 frames ... in gone/g.tsr" of a file that was not there, then that the
disk was full. The whole game was lost. The recorder still holds it, so it writes it out again."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from tests.demo_files import demo_stills
from tracker.cli import main
from tracker.recording import Recording, RecordingWriter, encode_jpeg, in_wal_mode
from tracker.runner import GameRunner

MANIFEST = {"ruleset": "world-at-fire", "table": {"width_cm": 183.0, "depth_cm": 122.0}}
JPEG = encode_jpeg(np.full((48, 64, 3), 90, np.uint8), 85)

def recorded(stills: Path, game: Path) -> int:
    """`record` of the demo's stills, every frame kept, into `game`: its exit."""
    return main(["record", "--source", str(stills / "frames"), "--layout", str(stills / "layout.json"),
                 "--every", "1", "-o", str(game)])


def frames_in(path: Path) -> list[int]:
    recording = Recording(path)
    try:
        return [frame.index for frame in recording.frames()]
    finally:
        recording.close()


def test_a_recording_whose_folder_was_deleted_is_written_again_whole(tmp_path: Path) -> None:
    path = tmp_path / "games" / "game.tsr"
    writer = RecordingWriter(path, MANIFEST, commit_every_s=0.0)
    writer.add_frame(0, 0.0, "f0", JPEG)
    shutil.rmtree(tmp_path / "games")
    for index in range(1, 5):
        writer.add_frame(index, index * 0.2, f"f{index}", JPEG)
    writer.close()
    assert writer.rescued == path and not writer.error
    assert frames_in(path) == [0, 1, 2, 3, 4] and not in_wal_mode(path)
    assert sorted(p.name for p in path.parent.iterdir()) == ["game.tsr"]


def test_a_recording_moved_away_and_replaced_is_written_beside_what_took_its_name(tmp_path: Path) -> None:
    path = tmp_path / "game.tsr"
    writer = RecordingWriter(path, MANIFEST, commit_every_s=0.0)
    writer.add_frame(0, 0.0, "f0", JPEG)
    path.rename(tmp_path / "moved.tsr")
    path.write_text("someone else's file")
    writer.add_frame(1, 0.2, "f1", JPEG)
    writer.close()
    assert writer.rescued == tmp_path / "game-rescued.tsr"
    assert path.read_text() == "someone else's file"
    assert frames_in(writer.rescued) == [0, 1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game-rescued.tsr", "game.tsr", "moved.tsr"]


def test_a_deleted_recording_that_held_nothing_is_not_left_nor_what_took_its_name(tmp_path: Path) -> None:
    path = tmp_path / "game.tsr"
    writer = RecordingWriter(path, {}, commit_every_s=0.0)
    path.unlink()
    path.write_text("someone else's file")
    writer.close()
    assert writer.holds_nothing
    writer.discard()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.tsr"]
    assert path.read_text() == "someone else's file"


def test_record_says_where_a_deleted_recording_was_written_again(tmp_path: Path, capsys, monkeypatch) -> None:
    stills = demo_stills(tmp_path, 3)
    game = tmp_path / "games" / "game.tsr"
    step = GameRunner.step

    def folder_deleted_after_0(self, frame):
        result = step(self, frame)
        if frame.index == 0:
            shutil.rmtree(game.parent)
        return result

    monkeypatch.setattr(GameRunner, "step", folder_deleted_after_0)
    assert recorded(stills, game) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("tablesight record: 3 of 3 frames and ") and err[0].endswith(f" in {game}")
    assert err[1] == (f"tablesight record: {game} was deleted or moved while recording; the game was "
                      f"written again to {game} from what the recorder held")
    assert frames_in(game) == [0, 1, 2]


def test_a_recording_whose_folder_became_a_file_is_written_again_where_record_runs(
        tmp_path: Path, monkeypatch) -> None:
    """Its name cannot be written to any more: the error said "cannot use ... (Not a directory).
    check the path", and the game held open was lost."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "games" / "game.tsr"
    writer = RecordingWriter(path, MANIFEST, commit_every_s=0.0)
    writer.add_frame(0, 0.0, "f0", JPEG)
    shutil.rmtree(path.parent)
    path.parent.write_text("a file where the folder was")
    writer.add_frame(1, 0.2, "f1", JPEG)
    writer.close()
    assert writer.rescued == tmp_path / "game.tsr" and not writer.error
    assert frames_in(writer.rescued) == [0, 1]


def test_record_names_the_file_a_game_was_written_again_to(tmp_path: Path, capsys, monkeypatch) -> None:
    stills = demo_stills(tmp_path, 3)
    game = tmp_path / "game.tsr"
    step = GameRunner.step

    def moved_and_replaced_after_0(self, frame):
        result = step(self, frame)
        if frame.index == 0:
            game.rename(tmp_path / "moved.tsr")
            game.write_text("someone else's file")
        return result

    monkeypatch.setattr(GameRunner, "step", moved_and_replaced_after_0)
    assert recorded(stills, game) == 0
    rescued = tmp_path / "game-rescued.tsr"
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("tablesight record: 3 of 3 frames and ") and err[0].endswith(f" in {rescued}")
    assert frames_in(rescued) == [0, 1, 2]


def test_record_says_nothing_was_written_again_of_a_deleted_game_that_held_nothing(
        tmp_path: Path, capsys, monkeypatch) -> None:
    stills = demo_stills(tmp_path, 3)
    game = tmp_path / "games" / "game.tsr"

    def deleted_then_stopped(self, frame):
        shutil.rmtree(game.parent)
        raise KeyboardInterrupt

    monkeypatch.setattr(GameRunner, "step", deleted_then_stopped)
    assert recorded(stills, game) == 130
    err = capsys.readouterr().err
    assert "written again" not in err and f"no frame recorded, so {game} was not kept" in err
    assert not game.exists()


def test_a_recording_whose_folder_record_ran_in_was_deleted_is_written_again(tmp_path: Path,
                                                                           monkeypatch) -> None:
    """Where `record` runs was asked for before its folder was tried: gone with it, a traceback and
    the game lost, where the folder made again held it."""
    path = tmp_path / "games" / "game.tsr"
    writer = RecordingWriter(path, MANIFEST, commit_every_s=0.0)
    monkeypatch.chdir(path.parent)
    writer.add_frame(0, 0.0, "f0", JPEG)
    shutil.rmtree(path.parent)
    writer.close()
    assert writer.rescued == path and frames_in(path) == [0]
