"""Paths: batches equal loops, threads in Python query at once, filters and options apply."""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import navkit
from conftest import built, random_pairs


def xz_length(points: np.ndarray) -> float:
    return float(np.linalg.norm(np.diff(points[:, [0, 2]], axis=0), axis=1).sum())


def same(a: navkit.Path, b: navkit.Path) -> bool:
    return (
        a.status == b.status
        and np.array_equal(a.polys, b.polys)
        and np.array_equal(a.straight, b.straight)
        and (a.smooth is None) == (b.smooth is None)
        and (a.smooth is None or np.array_equal(a.smooth, b.smooth))
    )


def test_find_paths_equals_a_loop_of_find_path() -> None:
    mesh = built("nav_test")
    starts, goals = random_pairs(mesh, 500, seed=11)
    batch = mesh.find_paths(starts, goals, smooth=True)
    assert len(batch) == 500
    for i in range(500):
        assert same(batch[i], mesh.find_path(starts[i], goals[i], smooth=True)), i


def test_python_threads_query_one_navmesh_at_once(dungeon: navkit.NavMesh) -> None:
    starts, goals = random_pairs(dungeon, 400, seed=5)
    expected = [dungeon.find_path(s, g, smooth=True) for s, g in zip(starts, goals)]
    barrier = threading.Barrier(4)

    def work(k: int) -> list[navkit.Path]:
        barrier.wait()
        order = range(400) if k % 2 == 0 else reversed(range(400))
        got = {i: dungeon.find_path(starts[i], goals[i], smooth=True) for i in order}
        return [got[i] for i in range(400)]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(4)))
    for r in results:
        assert all(same(a, b) for a, b in zip(r, expected))


def test_smooth_and_optimal_only_when_asked(dungeon: navkit.NavMesh) -> None:
    s, g = [28.6, 15.0, -78.8], [47.8, 10.2, -0.9]
    plain = dungeon.find_path(s, g)
    assert plain.smooth is None and plain.optimal is None and not plain.smooth_stuck
    assert plain.optimal_length is None
    both = dungeon.find_path(s, g, smooth=True, optimal=True)
    assert both.status == "complete"
    assert both.smooth.dtype == np.float32 and both.smooth.shape[1] == 3
    assert both.optimal_length_xz <= xz_length(both.straight) + 1e-3
    assert both.optimal_exact is True
    assert both.optimal_expanded > 0
    np.testing.assert_array_equal(both.straight[0], np.float32(s))
    assert "complete" in repr(both)


def test_an_unreachable_goal_is_partial_and_a_filter_can_make_one(dungeon: navkit.NavMesh) -> None:
    s, g = [28.6, 15.0, -78.8], [47.8, 10.2, -0.9]
    assert dungeon.find_path(s, g).status == "complete"
    nothing = navkit.QueryFilter(include_flags=0)
    with pytest.raises(navkit.PointOffMeshError):
        dungeon.find_path(s, g, filter=nothing)
    # Water made unaffordable does not make it unreachable: costs change the route, not reach.
    costly = navkit.QueryFilter(area_costs={navkit.AREA_GROUND: 50.0})
    assert costly.area_cost(navkit.AREA_GROUND) == 50.0
    assert dungeon.find_path(s, g, filter=costly).status == "complete"


def test_half_extents_reach_far_points(dungeon: navkit.NavMesh) -> None:
    far = [28.6, 23.0, -78.8]  # 8 m above the floor, under no other
    with pytest.raises(navkit.PointOffMeshError, match="start"):
        dungeon.find_path(far, [47.8, 10.2, -0.9])
    p = dungeon.find_path(far, [47.8, 10.2, -0.9], half_extents=[2, 10, 2])
    assert p.status == "complete"


def test_batch_errors_name_the_pair(dungeon: navkit.NavMesh) -> None:
    starts, goals = random_pairs(dungeon, 300, seed=2)
    starts[137] = [500.0, 0.0, 500.0]
    with pytest.raises(navkit.PointOffMeshError, match="pair 137"):
        dungeon.find_paths(starts, goals)
    assert dungeon.find_paths(np.empty((0, 3)), np.empty((0, 3))) == []


def test_a_signal_stops_a_long_batch(dungeon: navkit.NavMesh) -> None:
    import signal
    import time

    starts, goals = random_pairs(dungeon, 1_000_000, seed=4)  # about 4 s on 2 cores

    def alarm(signum: int, frame: object) -> None:
        raise TimeoutError("stopped")

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        t = time.perf_counter()
        with pytest.raises(TimeoutError):
            dungeon.find_paths(starts, goals)
        assert time.perf_counter() - t < 1.5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert len(dungeon.find_paths(starts[:10], goals[:10])) == 10
