"""The example script runs and draws its picture."""

import subprocess
import sys
from pathlib import Path

from conftest import ROOT, mesh_path


def test_the_dungeon_example_draws_a_png(tmp_path: Path) -> None:
    out = tmp_path / "paths.png"
    run = subprocess.run(
        [sys.executable, str(ROOT / "navkit-py" / "examples" / "dungeon_paths.py"), str(mesh_path("dungeon")), str(out)],
        capture_output=True, text=True, check=True,
    )
    assert "300 paths" in run.stdout and "complete" not in run.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 30_000
