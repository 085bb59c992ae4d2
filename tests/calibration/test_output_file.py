"""Writing a command's output whole."""

from pathlib import Path

import pytest

from calibration.output_file import replace_atomically


def test_a_failed_export_leaves_the_model_it_would_replace(tmp_path: Path) -> None:
    model = tmp_path / "rim.onnx"
    model.write_bytes(b"the shipped model")

    def interrupted(partial: Path) -> None:
        partial.write_bytes(b"half a mod")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        replace_atomically(model, interrupted)
    assert model.read_bytes() == b"the shipped model" and list(tmp_path.iterdir()) == [model]
