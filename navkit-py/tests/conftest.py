"""Shared fixtures: the repository, ../shared's RecastDemo meshes, navmeshes built once, and the
`navkit` program (NAVKIT_CLI, set by scripts/test-python.sh) the answers are compared with."""

import functools
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import navkit

ROOT = Path(__file__).resolve().parents[2]
RECASTDEMO = ROOT.parent / "shared" / "meshes" / "recastdemo"
MESHES = ("dungeon", "nav_test", "undulating")


def mesh_path(name: str) -> Path:
    path = RECASTDEMO / f"{name}.obj"
    if not path.exists():
        pytest.fail(f"{path} is missing: ../shared must sit beside the repository")
    return path


@functools.lru_cache(maxsize=None)
def built(name: str) -> navkit.NavMesh:
    """RecastDemo's Solo Mesh of a RecastDemo mesh, default settings, built once."""
    return navkit.NavMesh.build(mesh_path(name))


def read_obj(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """An OBJ's vertices and fan-triangulated faces, as RecastDemo reads them (1-based, or
    negative relative indices; texture and normal indices after '/' ignored)."""
    verts, tris = [], []
    for line in path.read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            verts.append([float(x) for x in parts[1:4]])
        elif parts[0] == "f":
            idx = []
            for p in parts[1:]:
                i = int(p.split("/")[0])
                idx.append(i - 1 if i > 0 else len(verts) + i)
            for k in range(2, len(idx)):
                tris.append([idx[0], idx[k - 1], idx[k]])
    return np.array(verts, dtype=np.float32), np.array(tris, dtype=np.int32)


def cli() -> str:
    exe = os.environ.get("NAVKIT_CLI")
    if not exe or not Path(exe).exists():
        pytest.fail(
            "NAVKIT_CLI must name the `navkit` program built with 32-bit refs "
            "(scripts/test-python.sh sets it)"
        )
    return exe


def rust_paths(mesh: Path, pairs: np.ndarray, *extra: str) -> list[dict]:
    """The Rust API's answers for `pairs` ((N, 6): start, goal), through `navkit path --batch`."""
    batch = mesh.parent / "unused"
    lines = "\n".join(" ".join(repr(float(v)) for v in row) for row in pairs)
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(lines + "\n")
        batch = Path(f.name)
    try:
        out = subprocess.run(
            [cli(), "path", str(mesh), "--batch", str(batch), *extra],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        batch.unlink()
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert len(rows) == len(pairs), out.stderr
    return rows


@pytest.fixture(scope="session")
def dungeon() -> navkit.NavMesh:
    return built("dungeon")


def poly_centres(mesh: navkit.NavMesh) -> np.ndarray:
    """The centre of every surface polygon (not off-mesh links), float32 (N, 3)."""
    p = mesh.polygons()
    v, off = p["vertices"], p["offsets"]
    centres = [v[off[i] : off[i + 1]].mean(axis=0) for i in range(len(off) - 1)]
    return np.array(centres, dtype=np.float32)[~p["off_mesh"]]


def random_pairs(mesh: navkit.NavMesh, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`n` start and goal points: polygon centres picked by a seeded generator."""
    c = poly_centres(mesh)
    rng = np.random.default_rng(seed)
    return c[rng.integers(0, len(c), n)], c[rng.integers(0, len(c), n)]
