"""Tile caches (obstacles carved at run time) and crowds, against navkit's Rust API (the
`navkit path --scenario` command carves the same obstacles through its own tile cache)."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import navkit
from conftest import RECASTDEMO, ROOT, built, cli

DEMO = ROOT / "meshes" / "demo_level.gset"
S, G = [2.0, 0.0, 2.0], [33.0, 2.5, 6.0]


def rust_path(tmp_path: Path, obstacles: list[dict]) -> dict:
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"obstacles": obstacles}))
    out = subprocess.run(
        [cli(), "path", str(DEMO), "--from", "2,0,2", "--to", "33,2.5,6", "--scenario", str(scenario), "--json"],
        capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout)


def test_an_obstacle_changes_the_path_as_the_rust_api_does(tmp_path: Path) -> None:
    cache = navkit.TileCache.build(DEMO)
    before = cache.navmesh().find_path(S, G)
    assert before.status == "complete"
    corner = before.straight[len(before.straight) // 2]
    barrel = cache.add_cylinder(corner, 1.5, 2.0)
    assert "updates pending" in repr(cache)
    assert cache.update() is True and cache.info()["obstacles"] == 1
    after = cache.navmesh().find_path(S, G)
    assert after.length > before.length
    rust = rust_path(tmp_path, [{"kind": "cylinder", "pos": corner.tolist(), "radius": 1.5, "height": 2.0}])
    np.testing.assert_array_equal(after.straight, np.array(rust["straight"], dtype=np.float32))
    assert after.polys.tolist() == rust["polys"]
    cache.remove(barrel)
    cache.update()
    again = cache.navmesh().find_path(S, G)
    np.testing.assert_array_equal(again.straight, before.straight)


def test_boxes_and_bad_obstacles() -> None:
    cache = navkit.TileCache.build(DEMO)
    a = cache.add_box([10.0, -1.0, 0.0], [11.0, 3.0, 30.0])
    b = cache.add_oriented_box([20.0, 1.0, 15.0], [3.0, 2.0, 0.5], 0.6)
    assert a != b and cache.update(seconds=10.0) in (True, False)
    cache.update()
    with pytest.raises(navkit.InvalidArgumentError, match="radius"):
        cache.add_cylinder([5.0, 0.0, 5.0], -1.0, 2.0)
    with pytest.raises(ValueError, match="`pos` is not finite"):
        cache.add_cylinder([np.nan, 0.0, 5.0], 1.0, 2.0)
    with pytest.raises(navkit.NavkitError):
        cache.remove(123456)
    with pytest.raises(ValueError, match="seconds"):
        cache.update(seconds=-1.0)


def test_tile_cache_files(tmp_path: Path) -> None:
    cache = navkit.TileCache.build(DEMO)
    cache.save(tmp_path / "demo.tset")
    again = navkit.TileCache.load(tmp_path / "demo.tset", links_from=DEMO)
    assert navkit.TileCache.load(tmp_path / "demo.tset").navmesh().info()["polygons"] == cache.navmesh().info()["polygons"] - 1
    # Rebuilt from the same layers: the same polygons and paths (tiles may get other refs).
    ours, theirs_again = cache.navmesh(), again.navmesh()
    a, b = ours.polygons()["vertices"], theirs_again.polygons()["vertices"]
    np.testing.assert_array_equal(a[np.lexsort(a.T)], b[np.lexsort(b.T)])
    assert ours.info()["polygons"] == theirs_again.info()["polygons"]
    np.testing.assert_array_equal(ours.find_path(S, G).straight, theirs_again.find_path(S, G).straight)
    theirs = navkit.TileCache.load(RECASTDEMO.parent / "recastdemo-files" / "dungeon_all_tiles_tilecache.bin")
    mesh = theirs.navmesh()
    assert mesh.info()["tiles"] > 1
    assert mesh.find_path([28.6, 15.0, -78.8], [47.8, 10.2, -0.9]).status == "complete"
    with pytest.raises(navkit.CorruptFileError):
        bad = tmp_path / "bad.tset"
        bad.write_bytes(cache.to_bytes()[:100])
        navkit.TileCache.load(bad)


def walk(crowd: navkit.Crowd, steps: int, dt: float = 0.05) -> int:
    for i in range(steps):
        crowd.update(dt)
        if crowd.arrived().all():
            return i
    return steps


def test_a_crowd_arrives() -> None:
    mesh = built("dungeon")
    starts = mesh.random_points(8, seed=2, island=0)
    goals = mesh.random_points(8, seed=3, island=0)
    crowd = navkit.Crowd(mesh, max_agents=16)
    agents = crowd.add_agents(starts)
    assert agents.tolist() == list(range(8)) and len(crowd) == 8
    crowd.set_targets(agents, goals)
    steps = walk(crowd, 4000)
    assert steps < 4000, [crowd.agent(a)["activity"] for a in agents]
    # Each stops within its radius of its target (the navmesh point nearest the goal).
    near, _, _ = mesh.nearest_points(goals)
    d = np.linalg.norm((crowd.positions() - near)[:, [0, 2]], axis=1)
    assert d.max() < 0.6 + 0.05, d
    assert crowd.velocities().shape == (8, 3)
    assert crowd.agent(int(agents[0]))["activity"] == "arrived"
    crowd.remove_agent(int(agents[3]))
    assert len(crowd) == 7 and 3 not in crowd.handles.tolist()
    with pytest.raises(ValueError, match="no agent has handle 3"):
        crowd.positions([3])
    with pytest.raises(navkit.InvalidArgumentError, match="time step"):
        crowd.update(0.0)
    with pytest.raises(ValueError, match="one target per agent"):
        crowd.set_targets([0, 1], goals[:1])


def test_a_crowd_walks_around_an_obstacle_dropped_in_its_way() -> None:
    cache = navkit.TileCache.build(DEMO)
    crowd = navkit.Crowd(cache, max_agents=4)
    with pytest.raises(RuntimeError, match="belongs to a Crowd"):
        cache.add_cylinder([5.0, 0.0, 5.0], 1.0, 2.0)
    a = crowd.add_agents(np.array([[4.0, 0.0, 15.0]]))
    crowd.set_targets(a, np.array([[20.0, 0.0, 25.0]]))
    walk(crowd, 20)
    here = crowd.positions()[0]
    ahead = here + np.float32([2.5, 0.0, 1.5])
    barrel = crowd.add_cylinder(ahead, 1.0, 2.0)
    closest = np.inf
    for _ in range(2000):
        crowd.update(0.05)
        p = crowd.positions()[0]
        closest = min(closest, float(np.hypot(p[0] - ahead[0], p[2] - ahead[2])))
        if crowd.arrived()[0]:
            break
    assert crowd.arrived()[0]
    assert closest > 1.0 - 0.35, closest  # outside the carved cylinder (cells of 0.3 m)
    crowd.remove_obstacle(barrel)
    crowd.update(0.05)
    with pytest.raises(TypeError, match="TileCache"):
        navkit.Crowd(built("dungeon")).add_cylinder([0.0, 0.0, 0.0], 1.0, 1.0)
