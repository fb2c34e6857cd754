"""Building, saving, loading: counts from DotRecast's suite, arrays giving the file's bytes."""

from pathlib import Path

import numpy as np
import pytest

import navkit
from conftest import ROOT, RECASTDEMO, built, mesh_path, read_obj


def test_dungeon_and_nav_test_have_recastdemos_polygon_counts() -> None:
    # DotRecast's RecastSoloMeshTest: dungeon 118 polys, nav_test 155 (default settings).
    assert built("dungeon").info()["polygons"] == 118
    assert built("nav_test").info()["polygons"] == 155
    assert built("dungeon").info()["tiles"] == 1


def test_arrays_build_the_same_bytes_as_the_file(dungeon: navkit.NavMesh) -> None:
    verts, tris = read_obj(mesh_path("dungeon"))
    assert verts.shape == (5101, 3) and tris.shape == (10133, 3)  # RecastDemo's README counts
    from_arrays = navkit.NavMesh.build(verts, tris)
    assert from_arrays.to_bytes() == dungeon.to_bytes()
    # float64 vertices and int64 indices convert; lists do too.
    assert navkit.NavMesh.build(verts.astype(np.float64), tris.astype(np.int64)).to_bytes() == dungeon.to_bytes()


def test_settings_change_the_build_and_round_trip_through_json() -> None:
    s = navkit.BuildSettings(agent_radius=0.3, partition="monotone")
    assert s.cell_size == 0.3 and s.agent_radius == 0.3 and s.partition == "monotone"
    assert navkit.BuildSettings.from_json(s.to_json()) == s
    assert navkit.BuildSettings() == navkit.BuildSettings.from_json("{}")
    narrow = navkit.NavMesh.build(mesh_path("dungeon"), settings=s)
    assert narrow.info()["polygons"] != 118
    assert narrow.to_bytes() == navkit.NavMesh.build(mesh_path("dungeon"), settings=s).to_bytes()
    assert "agent_radius=0.3" in repr(s)


def test_tiled_builds_are_the_same_bytes_on_any_thread_count() -> None:
    one = navkit.NavMesh.build(mesh_path("dungeon"), tiled=True, threads=1)
    two = navkit.NavMesh.build(mesh_path("dungeon"), tiled=True, threads=2)
    assert one.info()["tiles"] > 1
    assert one.to_bytes() == two.to_bytes()
    p = one.find_path([28.6, 15.0, -78.8], [47.8, 10.2, -0.9])
    assert p.status == "complete"


def test_a_gset_brings_its_settings_and_links() -> None:
    demo = navkit.NavMesh.build(ROOT / "meshes" / "demo_level.gset")
    # The README's quick start: 46 polygons, and the path up onto the block takes its jump.
    assert demo.info()["polygons"] == 46 + int(demo.polygons()["off_mesh"].sum())
    p = demo.find_path([2.0, 0.0, 2.0], [33.0, 2.5, 6.0], smooth=True)
    assert p.status == "complete" and len(p.polys) == 13 and len(p.straight) == 8
    assert p.length == pytest.approx(43.0, abs=0.05)
    assert 4 in p.straight_flags  # the off-mesh jump's start


def test_save_load_and_recastdemos_own_file(tmp_path: Path, dungeon: navkit.NavMesh) -> None:
    target = tmp_path / "dungeon.navmesh"
    dungeon.save(target)
    assert navkit.NavMesh.load(target).to_bytes() == dungeon.to_bytes()
    assert navkit.NavMesh.load(str(target)).info() == dungeon.info()
    # A tiled navmesh RecastDemo wrote (64-bit refs), read and queried.
    theirs = navkit.NavMesh.load(RECASTDEMO.parent / "recastdemo-files" / "dungeon_all_tiles_navmesh.bin")
    assert theirs.info()["tiles"] > 1
    assert theirs.find_path([28.6, 15.0, -78.8], [47.8, 10.2, -0.9]).status == "complete"


def floor() -> tuple[np.ndarray, np.ndarray]:
    """A flat 20 x 20 m floor of 1 m squares, two triangles each (row by row, west to east)."""
    xs, zs = np.meshgrid(np.arange(21.0), np.arange(21.0))
    verts = np.stack([xs.ravel(), np.zeros(441), zs.ravel()], axis=1)
    i = (np.arange(20)[:, None] * 21 + np.arange(20)[None, :]).ravel()
    tris = np.concatenate([np.stack([i, i + 21, i + 1], 1), np.stack([i + 1, i + 21, i + 22], 1)])
    return verts, tris


def test_per_triangle_areas() -> None:
    verts, tris = floor()
    east = verts[tris].mean(axis=1)[:, 0] > 10
    areas = np.where(east, navkit.AREA_WATER, navkit.AREA_GROUND).astype(np.uint8)
    mesh = navkit.NavMesh.build(verts, tris, areas=areas)
    polys = mesh.polygons()
    v, off = polys["vertices"], polys["offsets"]
    cx = np.array([v[off[k] : off[k + 1], 0].mean() for k in range(len(off) - 1)])
    # Ground west of x = 10, water east of it (to the 0.3 m cell edge nearest the line).
    assert set(polys["areas"][cx < 9.5]) == {navkit.AREA_GROUND}
    assert set(polys["areas"][cx > 10.5]) == {navkit.AREA_WATER}
    water_flags = int(polys["flags"][cx > 10.5][0])
    dry = navkit.QueryFilter(exclude_flags=water_flags)
    assert mesh.find_path([2.0, 0.0, 10.0], [18.0, 0.0, 10.0]).status == "complete"
    with pytest.raises(navkit.PointOffMeshError, match="goal"):
        mesh.find_path([2.0, 0.0, 10.0], [18.0, 0.0, 10.0], filter=dry)
    # Without areas every polygon is ground.
    assert set(navkit.NavMesh.build(verts, tris).polygons()["areas"]) == {navkit.AREA_GROUND}
    with pytest.raises(ValueError, match=r"`areas\[3\]` = 64 is not an area id"):
        navkit.NavMesh.build(verts, tris, areas=np.where(np.arange(len(tris)) == 3, 64, 0))
    with pytest.raises(ValueError, match="one area per triangle"):
        navkit.NavMesh.build(verts, tris, areas=areas[:-1])
    with pytest.raises(TypeError, match="integer array"):
        navkit.NavMesh.build(verts, tris, areas=areas.astype(float))


def test_a_signal_stops_a_long_build() -> None:
    import signal
    import time

    # A tiled build of dungeon at 3 cm cells takes seconds (5.4 s here, 2,057 tiles); an alarm
    # 0.3 s in stops it at its next tile, and the alarm's exception comes out.
    fine = navkit.BuildSettings(cell_size=0.03, cell_height=0.05)

    def alarm(signum: int, frame: object) -> None:
        raise TimeoutError("stopped")

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        t = time.perf_counter()
        with pytest.raises(TimeoutError):
            navkit.NavMesh.build(mesh_path("dungeon"), settings=fine, tiled=True)
        assert time.perf_counter() - t < 1.5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    # The next build runs as usual.
    assert navkit.NavMesh.build(mesh_path("dungeon")).info()["polygons"] == 118
