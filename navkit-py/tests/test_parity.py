"""The Python package answers as navkit's Rust API does (through the `navkit` program, on the
same meshes, settings and pairs): the same corridors, straight and smooth points, bit for bit."""

import numpy as np
import pytest

from conftest import MESHES, RECASTDEMO, built, mesh_path, random_pairs, rust_paths


def f32(points: list) -> np.ndarray:
    return np.array(points, dtype=np.float64).astype(np.float32).reshape(-1, 3)


def assert_same(py_path, rust: dict, mesh) -> None:
    assert py_path.status == rust["status"]
    # The program here has 32-bit refs, as the package: the same numbers.
    assert py_path.polys.tolist() == rust["polys"]
    np.testing.assert_array_equal(py_path.straight, f32(rust["straight"]))
    np.testing.assert_array_equal(py_path.smooth, f32(rust["smooth"]))
    assert py_path.smooth_stuck == rust["smooth_stuck"]


@pytest.mark.parametrize("name", MESHES)
def test_find_paths_equals_the_rust_api(name: str) -> None:
    mesh = built(name)
    starts, goals = random_pairs(mesh, 200, seed=7)
    paths = mesh.find_paths(starts, goals, smooth=True)
    rust = rust_paths(mesh_path(name), np.hstack([starts, goals]))
    for p, r in zip(paths, rust):
        assert_same(p, r, mesh)
    statuses = {p.status for p in paths}
    assert "complete" in statuses
    assert sum(len(p.smooth) for p in paths) > 200 * 5


def test_recastdemo_nav_mesh_test_cases() -> None:
    """RecastDemo's own test cases for nav_test.obj (include 0x3, exclude 0x0)."""
    rows = []
    for line in (RECASTDEMO / "nav_mesh_test.txt").read_text().splitlines():
        parts = line.split()
        if parts and parts[0] == "pf":
            assert parts[7:9] == ["0x3", "0x0"]
            rows.append([float(x) for x in parts[1:7]])
    pairs = np.array(rows)
    assert len(pairs) == 21
    mesh = built("nav_test")
    import navkit

    flt = navkit.QueryFilter(include_flags=0x3, exclude_flags=0x0)
    paths = mesh.find_paths(pairs[:, :3], pairs[:, 3:], smooth=True, filter=flt)
    rust = rust_paths(mesh_path("nav_test"), pairs, "--include", "3", "--exclude", "0")
    for p, r in zip(paths, rust):
        assert_same(p, r, mesh)
    assert all(p.status == "complete" for p in paths)


def test_optimal_paths_equal_the_rust_api_and_are_never_longer() -> None:
    mesh = built("dungeon")
    starts, goals = random_pairs(mesh, 60, seed=3)
    paths = mesh.find_paths(starts, goals, optimal=True)
    rust = rust_paths(mesh_path("dungeon"), np.hstack([starts, goals]), "--optimal")
    for p, r in zip(paths, rust):
        np.testing.assert_array_equal(p.optimal, f32(r["optimal"]["points"]))
        assert p.optimal_length == pytest.approx(r["optimal"]["length_m"], rel=1e-6)
        straight = p.straight[:, [0, 2]]
        straight_xz = np.linalg.norm(np.diff(straight, axis=0), axis=1).sum()
        assert p.optimal_length_xz <= straight_xz + 1e-3
