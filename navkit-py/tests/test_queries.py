"""Point queries: nearest point, is-navigable, distance to a wall, raycasts, random points."""

import json
import subprocess

import numpy as np
import pytest

import navkit
from conftest import RECASTDEMO, ROOT, built, cli, poly_centres

DEMO = ROOT / "meshes" / "demo_level.gset"


@pytest.fixture(scope="module")
def demo() -> navkit.NavMesh:
    return navkit.NavMesh.build(DEMO)


def test_nearest_points_project_onto_the_surface(dungeon: navkit.NavMesh) -> None:
    centres = poly_centres(dungeon)
    above = centres + np.float32([0, 1.0, 0])
    at, polys, found = dungeon.nearest_points(above)
    assert found.all() and at.dtype == np.float32 and polys.dtype == np.uint64
    # Over a polygon the nearest point is straight below: the same x and z.
    np.testing.assert_allclose(at[:, [0, 2]], above[:, [0, 2]], atol=1e-4)
    assert np.all(np.abs(at[:, 1] - centres[:, 1]) < 1.0)
    assert set(polys.tolist()) <= set(dungeon.polygons()["refs"].tolist())
    far = np.array([[500.0, 0, 500.0], centres[0]])
    at, polys, found = dungeon.nearest_points(far)
    assert found.tolist() == [False, True] and np.isnan(at[0]).all() and polys[0] == 0
    assert dungeon.nearest_point([500.0, 0.0, 500.0]) is None
    np.testing.assert_array_equal(dungeon.nearest_point(above[3]), at[1] * 0 + dungeon.nearest_points(above[3:4])[0][0])


def test_is_navigable_on_off_and_above(demo: navkit.NavMesh) -> None:
    # The demo level's ground is y = 0 (its README): a point on it, 0.4 above it, 3 m above
    # it, outside the level, and inside the pond (not walkable).
    pts = np.array([[5.0, 0.0, 5.0], [5.0, 0.4, 5.0], [5.0, 3.0, 5.0], [-5.0, 0.0, 5.0]])
    assert demo.is_navigable(pts).tolist() == [True, True, False, False]
    assert demo.is_navigable(pts[2], max_y_delta=3.5) is True
    assert demo.is_navigable([5.0, 0.0, 5.0]) is True
    with pytest.raises(ValueError, match="max_y_delta"):
        demo.is_navigable(pts, max_y_delta=float("nan"))


def test_distance_to_wall_against_the_eroded_edge(demo: navkit.NavMesh) -> None:
    # The level's west edge is x = 0. Recast drops the edge's ledge cell (0.3 m) and erodes by
    # the agent radius (0.6 m = 2 cells): the walkable edge is x = 0.9, 1.1 m from x = 2.
    d = demo.distance_to_wall([2.0, 0.0, 15.0], max_radius=5.0)
    assert isinstance(d, float) and d == pytest.approx(1.1, abs=1e-4)
    ds = demo.distance_to_wall(np.array([[2.0, 0.0, 15.0], [3.0, 0.0, 15.0]]), max_radius=5.0)
    assert ds[1] - ds[0] == pytest.approx(1.0, abs=0.05)
    assert demo.distance_to_wall([2.0, 0.0, 15.0], max_radius=0.5) == pytest.approx(0.5)


def test_raycasts_match_recastdemos_test_cases() -> None:
    """raycast_test.txt (Tile Mesh on nav_test): the points where RecastDemo's rays stop, as
    navkit's `testcase` command (the Rust API) reports them."""
    cases = RECASTDEMO / "raycast_test.txt"
    rows = [l.split() for l in cases.read_text().splitlines() if l.startswith("rc")]
    pairs = np.array([[float(x) for x in r[1:7]] for r in rows])
    out = subprocess.run([cli(), "testcase", str(cases), "--json"], capture_output=True, text=True, check=True)
    rust = [json.loads(l) for l in out.stdout.splitlines() if l.strip()]
    # RecastDemo reads its cases into a list in reverse order; match them by line.
    rust.sort(key=lambda r: r["query"]["line"])
    mesh = navkit.NavMesh.build(RECASTDEMO / "nav_test.obj", tiled=True)
    got = mesh.raycasts(pairs[:, :3], pairs[:, 3:])
    assert len(rust) == len(pairs) == len(got["t"])
    for i, r in enumerate(rust):
        np.testing.assert_allclose(got["points"][i, [0, 2]], np.array(r["straight"][-1])[[0, 2]], atol=1e-4)
    assert not got["hit"].any() and np.all(got["t"] == 1)


def test_a_ray_stops_at_the_edge(demo: navkit.NavMesh) -> None:
    # West from x = 2 toward x = -5: the walkable edge is at x = 0.9 (see above), facing east.
    got = demo.raycasts(np.array([[2.0, 0.0, 15.0], [2.0, 0.0, 15.0]]), np.array([[-5.0, 0.0, 15.0], [3.0, 0.0, 15.0]]))
    assert got["hit"].tolist() == [True, False]
    assert got["t"][0] == pytest.approx(1.1 / 7.0, abs=1e-5)
    np.testing.assert_allclose(got["points"][0, [0, 2]], [0.9, 15.0], atol=1e-4)
    np.testing.assert_allclose(got["normals"][0], [1.0, 0.0, 0.0], atol=1e-5)
    np.testing.assert_allclose(got["points"][1], [3.0, 0.0, 15.0], atol=1e-5)


def test_random_points_are_seeded_and_on_the_mesh(dungeon: navkit.NavMesh) -> None:
    a = dungeon.random_points(500, seed=42)
    assert a.shape == (500, 3) and a.dtype == np.float32
    np.testing.assert_array_equal(a, dungeon.random_points(500, seed=42))
    assert not np.array_equal(a, dungeon.random_points(500, seed=43))
    assert dungeon.is_navigable(a, max_y_delta=0.1).all()
    centre = a[0]
    near = dungeon.random_points(200, seed=1, near=centre, radius=3.0)
    assert dungeon.is_navigable(near, max_y_delta=0.1).all()
    # Detour's circle search picks polygons touching the circle: points lie near it.
    assert np.linalg.norm((near - centre)[:, [0, 2]], axis=1).max() < 3.0 + 15.0
    with pytest.raises(ValueError, match="`near` and `radius`"):
        dungeon.random_points(3, seed=1, near=centre)
    with pytest.raises(ValueError, match="at most"):
        dungeon.random_points(10**12, seed=1)
    with pytest.raises(OverflowError):
        dungeon.random_points(-1, seed=1)


def test_islands_of_the_demo_level(demo: navkit.NavMesh) -> None:
    # The ground, joined by the jump to the block's top; and the inside of the block, a closed
    # box the agent fits in (tests/islands.rs derives its 8.4 x 6.6 m).
    islands = demo.islands()
    assert len(islands["area"]) == 2
    assert islands["area"][1] == pytest.approx(8.4 * 6.6, abs=0.01)
    np.testing.assert_allclose(islands["bounds_min"][1], [28.8, 0.2, 2.7], atol=1e-4)
    np.testing.assert_allclose(islands["centre"][1], [33.0, 0.2, 6.0], atol=1e-3)
    assert islands["radius"][1] == pytest.approx(0.5 * np.hypot(8.4, 6.6), abs=1e-3)
    assert islands["area"][0] > 10 * islands["area"][1]
    assert demo.island_of([5.0, 0.0, 5.0]) == 0
    assert demo.island_of([33.0, 2.5, 6.0]) == 0  # the block's top, up the jump
    assert demo.island_of([33.0, 0.0, 6.0], half_extents=[0.1, 0.5, 0.1]) == 1
    inside = demo.random_points(200, seed=5, island=1)
    assert (demo.island_of(inside) == 1).all()
    assert np.all((inside[:, 0] >= 28.8 - 1e-4) & (inside[:, 0] <= 37.2 + 1e-4))
    on_ground = demo.random_points(500, seed=5, island=0)
    assert (demo.island_of(on_ground, half_extents=[0.1, 0.3, 0.1]) == 0).all()
    assert demo.island_of(np.array([[500.0, 0, 0], [5.0, 0, 5.0]])).tolist() == [-1, 0]
    with pytest.raises(navkit.InvalidArgumentError, match="island 2 of 2"):
        demo.random_points(3, seed=1, island=2)


def test_detail_mesh_has_dotrecasts_triangle_counts() -> None:
    # DotRecast's RecastSoloMeshTest: dungeon 291 detail triangles, nav_test 561.
    for name, count in (("dungeon", 291), ("nav_test", 561)):
        d = built(name).detail_mesh()
        assert d["triangles"].shape == (count, 3) and d["vertices"].shape == (3 * count, 3)
        assert set(d["polys"].tolist()) <= set(built(name).polygons()["refs"].tolist())


def test_the_path_to_the_nearest_goal(dungeon: navkit.NavMesh) -> None:
    starts = dungeon.random_points(1, seed=8)
    goals = dungeon.random_points(12, seed=9)
    index, path = dungeon.find_path_to_nearest(starts[0], goals)
    each = dungeon.find_paths(np.repeat(starts, 12, axis=0), goals)
    complete = [i for i, p in enumerate(each) if p.status == "complete"]
    assert complete and index == min(complete, key=lambda i: each[i].length)
    np.testing.assert_array_equal(path.straight, each[index].straight)
    far = np.vstack([[[500.0, 0.0, 500.0]], goals])
    assert dungeon.find_path_to_nearest(starts[0], far)[0] == index + 1
    with pytest.raises(navkit.PointOffMeshError, match="goals"):
        dungeon.find_path_to_nearest(starts[0], far[:1])
    with pytest.raises(ValueError, match="`goals` is empty"):
        dungeon.find_path_to_nearest(starts[0], np.empty((0, 3)))


def test_topdown_map_of_the_ground_floor(demo: navkit.NavMesh) -> None:
    grid, origin = demo.topdown(0.5, 0.2)
    assert grid.dtype == np.bool_ and origin == pytest.approx((0.9, 0.9))
    assert grid.shape == (int(np.ceil((29.1 - 0.9) / 0.5)), int(np.ceil((39.0 - 0.9) / 0.5)))
    # The cells at the ground's height cover the detail triangles lying there (y < 0.7).
    d = demo.detail_mesh()
    v = d["vertices"].reshape(-1, 3, 3)
    low = v[:, :, 1].max(axis=1) < 0.7
    a = 0.5 * np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]), axis=1)
    assert grid.sum() * 0.25 == pytest.approx(a[low].sum(), rel=0.05)
    # Cell (row 28, column 2) is at x 2.15, z 15.15: open ground.
    assert grid[28, 2]
    up, _ = demo.topdown(0.5, 2.2)
    assert 0 < up.sum() < grid.sum()  # the platform (and the ramp's top) only
    with pytest.raises(ValueError, match="meters_per_pixel"):
        demo.topdown(0.0, 0.0)
    with pytest.raises(ValueError, match="at most"):
        demo.topdown(1e-4, 0.0)


def test_steps_slide_along_the_wall(demo: navkit.NavMesh) -> None:
    # From x = 2 west into the walkable edge at x = 0.9 (see above): stopped there; aimed
    # south-west, it slides along the edge to z = 20; a free step arrives. Heights are the
    # surface's (0.2: the ground rounded up to the cell height).
    at = demo.try_steps(np.array([[2.0, 0.0, 15.0]] * 3), np.array([[-5.0, 0.0, 15.0], [-5.0, 0.0, 20.0], [3.0, 0.0, 16.0]]))
    np.testing.assert_allclose(at, [[0.9, 0.2, 15.0], [0.9, 0.2, 20.0], [3.0, 0.2, 16.0]], atol=1e-5)
    with pytest.raises(navkit.PointOffMeshError, match="pair 1"):
        demo.try_steps(np.array([[2.0, 0.0, 15.0], [-50.0, 0.0, 0.0]]), np.zeros((2, 3)))
