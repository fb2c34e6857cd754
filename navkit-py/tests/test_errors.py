"""Hostile input: every mistake is an exception that says what, never a crash."""

from pathlib import Path

import numpy as np
import pytest

import navkit
from conftest import mesh_path

S, G = [28.6, 15.0, -78.8], [47.8, 10.2, -0.9]


def test_points_with_nan_wrong_shapes_or_dtypes(dungeon: navkit.NavMesh) -> None:
    with pytest.raises(ValueError, match="`start` is not finite"):
        dungeon.find_path([np.nan, 0, 0], G)
    with pytest.raises(ValueError, match="`goal` is not finite"):
        dungeon.find_path(S, [0, np.inf, 0])
    with pytest.raises(ValueError, match="`start` must be three numbers"):
        dungeon.find_path([1.0, 2.0], G)
    with pytest.raises(TypeError, match="`goal` must be an array of real numbers"):
        dungeon.find_path(S, ["a", "b", "c"])
    with pytest.raises(TypeError, match="`start`"):
        dungeon.find_path(np.array([1 + 2j, 0, 0]), G)
    with pytest.raises(TypeError, match="`start`"):
        dungeon.find_path(None, G)  # type: ignore[arg-type]
    starts = np.zeros((5, 3))
    starts[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"`starts\[3\]` is not finite"):
        dungeon.find_paths(starts, np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"shape \(N, 3\)"):
        dungeon.find_paths(np.zeros((5, 2)), np.zeros((5, 2)))
    with pytest.raises(ValueError, match="5 rows and `goals` 4"):
        dungeon.find_paths(np.zeros((5, 3)), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="half_extents"):
        dungeon.find_path(S, G, half_extents=[0, 1, 1])
    with pytest.raises(navkit.InvalidArgumentError):
        dungeon.find_path([1e30, 0, 0], G)


def test_points_off_the_mesh(dungeon: navkit.NavMesh) -> None:
    with pytest.raises(navkit.PointOffMeshError, match="start .* is off the mesh"):
        dungeon.find_path([500.0, 0.0, 500.0], G)
    with pytest.raises(navkit.NavkitError):
        dungeon.find_path(S, [500.0, 0.0, 500.0])


def test_corrupt_and_missing_files(tmp_path: Path, dungeon: navkit.NavMesh) -> None:
    data = dungeon.to_bytes()
    for cut in (0, 3, 12, len(data) // 2, len(data) - 1):
        with pytest.raises(navkit.CorruptFileError):
            navkit.NavMesh.from_bytes(data[:cut])
    flipped = bytearray(data)
    flipped[40] ^= 0xFF
    try:
        navkit.NavMesh.from_bytes(bytes(flipped))  # a flipped byte may still be a valid file
    except navkit.NavkitError:
        pass
    bad = tmp_path / "bad.navmesh"
    bad.write_bytes(b"MSET" + b"\xff" * 40)
    with pytest.raises(navkit.CorruptFileError, match="bad.navmesh"):
        navkit.NavMesh.load(bad)
    with pytest.raises(navkit.NavkitIOError, match="missing"):
        navkit.NavMesh.load(tmp_path / "missing.navmesh")
    obj = tmp_path / "broken.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 0 one\nf 1 2 3\n")
    with pytest.raises(navkit.CorruptFileError, match="broken.obj:3"):
        navkit.NavMesh.build(obj)
    with pytest.raises(navkit.CorruptFileError, match="unsupported"):
        navkit.NavMesh.build(tmp_path / "level.stl")


def test_absurd_settings_and_geometry() -> None:
    with pytest.raises(navkit.SettingError, match="cell_size"):
        navkit.BuildSettings(cell_size=0)
    s = navkit.BuildSettings()
    with pytest.raises(navkit.SettingError, match="verts_per_poly"):
        s.verts_per_poly = 7
    with pytest.raises(TypeError):
        s.agent_radius = "wide"
    with pytest.raises(AttributeError, match="no setting `cell_sise`"):
        s.cell_sise = 0.2
    with pytest.raises(navkit.SettingError):
        s.partition = "voronoi"
    with pytest.raises(navkit.SettingError, match="unknown setting"):
        navkit.BuildSettings.from_json('{"cell_sise": 0.2}')
    with pytest.raises(navkit.SettingError):
        navkit.BuildSettings.from_json("[1, 2]")
    # A build far over its memory budget is refused before it starts.
    tiny = navkit.BuildSettings(cell_size=0.01, cell_height=0.01)
    with pytest.raises(navkit.BuildError, match="budget"):
        navkit.NavMesh.build(mesh_path("dungeon"), settings=tiny, max_memory=1 << 30)
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1]], dtype=np.float32)
    with pytest.raises(ValueError, match=r"`triangles\[0, 2\]` = 3 is not a vertex index"):
        navkit.NavMesh.build(verts, np.array([[0, 1, 3]]))
    with pytest.raises(ValueError, match="not a vertex index"):
        navkit.NavMesh.build(verts, np.array([[0, 1, -1]]))
    with pytest.raises(TypeError, match="integer array"):
        navkit.NavMesh.build(verts, np.array([[0.0, 1.0, 2.0]]))
    with pytest.raises(ValueError, match="not finite"):
        navkit.NavMesh.build(np.full((3, 3), np.nan), np.array([[0, 1, 2]]))
    with pytest.raises(TypeError, match="`source` must be a path"):
        navkit.NavMesh.build(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timeout"):
        navkit.NavMesh.build(mesh_path("dungeon"), timeout=-1.0)
    with pytest.raises(ValueError):
        navkit.QueryFilter(area_costs={64: 1.0})
    with pytest.raises(ValueError):
        navkit.QueryFilter(area_costs={1: float("nan")})
    with pytest.raises(ValueError):
        navkit.QueryFilter(include_flags=1 << 16)
