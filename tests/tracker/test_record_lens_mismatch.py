"""`record` of a folder none of whose stills fit the lens file: the lens is what is wrong, and
that alone is said, as `track` says it. It also said "32 of the 32 images were skipped ...
remove the stills of another size from the folder", which would have removed the whole game."""

from __future__ import annotations

import json
from pathlib import Path

from tests.demo_files import demo_stills
from tracker.cli import main


def test_record_of_stills_none_of_which_fit_the_lens_blames_only_the_lens(tmp_path: Path, capsys) -> None:
    stills = demo_stills(tmp_path, 3)
    cam = tmp_path / "cam.json"
    cam.write_text(json.dumps({"K": [[1500.0, 0, 320], [0, 1500.0, 240], [0, 0, 1]], "dist": [0.0] * 5,
                               "image_size": [640, 480]}))
    game = tmp_path / "game.tsr"
    argv = ["record", "--source", str(stills / "frames"), "--layout", str(stills / "layout.json"),
            "--intrinsics", str(cam), "-o", str(game)]
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"tablesight record: no frame recorded, so {game} was not kept",
        f"tablesight record: intrinsics are for 640x480 images but {stills / 'frames' / 'f0000.jpg'} is "
        "1920x1080. calibrate the lens at 1920x1080 (`tablesight calibrate-lens`) or capture at 640x480.",
    ]
