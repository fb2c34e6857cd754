"""Pickling (multiprocessing, Ray, Dask ship navmeshes as their MSET bytes)."""

import multiprocessing
import pickle

import numpy as np

import navkit
from conftest import built, random_pairs


def lengths(args: tuple[navkit.NavMesh, np.ndarray, np.ndarray]) -> list[float]:
    mesh, starts, goals = args
    return [p.length for p in mesh.find_paths(starts, goals)]


def test_navmesh_settings_and_filter_round_trip() -> None:
    mesh = built("dungeon")
    again = pickle.loads(pickle.dumps(mesh))
    assert again.to_bytes() == mesh.to_bytes()
    s = navkit.BuildSettings(agent_radius=0.25, bounds=((0, 0, 0), (10, 5, 10)))
    assert pickle.loads(pickle.dumps(s)) == s
    f = navkit.QueryFilter(include_flags=0x3, area_costs={7: 3.5})
    g = pickle.loads(pickle.dumps(f))
    assert (g.include_flags, g.exclude_flags, g.area_cost(7), g.area_cost(1)) == (0x3, 0, 3.5, 10.0)


def test_a_navmesh_goes_to_other_processes() -> None:
    mesh = built("dungeon")
    starts, goals = random_pairs(mesh, 40, seed=9)
    here = lengths((mesh, starts, goals))
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        there = pool.map(lengths, [(mesh, starts[:20], goals[:20]), (mesh, starts[20:], goals[20:])])
    assert there[0] + there[1] == here
