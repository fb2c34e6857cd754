"""A typed use of navkit's stubs, checked by `mypy --strict` (scripts/test-python.sh): the names
and types an IDE sees. Not a test of behaviour (pytest does not collect it)."""

import numpy as np
import numpy.typing as npt

import navkit


def shortest(mesh: navkit.NavMesh, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    path: navkit.Path = mesh.find_path(a, b, smooth=True, optimal=True)
    if path.status == "complete" and path.optimal_length is not None:
        return path.optimal_length
    return path.length


def build(vertices: npt.NDArray[np.float32], triangles: npt.NDArray[np.int32]) -> navkit.NavMesh:
    settings = navkit.BuildSettings(agent_radius=0.4)
    settings.cell_size = 0.2
    mesh = navkit.NavMesh.build(vertices, triangles, settings=settings, tiled=True, threads=2)
    polys = mesh.polygons()
    _offsets: npt.NDArray[np.int64] = polys["offsets"]
    paths: list[navkit.Path] = mesh.find_paths(vertices[:3], vertices[3:6], filter=navkit.QueryFilter())
    _corners: npt.NDArray[np.float32] = paths[0].straight
    here: bool = mesh.is_navigable([1.0, 0.0, 1.0])
    wall: float = mesh.distance_to_wall([1.0, 0.0, 1.0], max_radius=3.0)
    points = mesh.random_points(100, seed=7)
    _snapped, _refs, _found = mesh.nearest_points(points)
    rays = mesh.raycasts(points, points[::-1])
    _stops: npt.NDArray[np.float32] = rays["points"]
    print(here, wall)
    cache = navkit.TileCache.build(vertices, triangles)
    cache.add_cylinder([1.0, 0.0, 1.0], 0.5, 2.0)
    cache.update()
    crowd = navkit.Crowd(cache, max_agents=4)
    agents = crowd.add_agents(points[:2])
    crowd.set_targets(agents, points[2:4])
    crowd.update(0.1)
    _where: npt.NDArray[np.float32] = crowd.positions()
    _done: bool = bool(crowd.arrived().all())
    grid = navkit.Grid(np.ones((8, 8), dtype=bool))
    cost: float = grid.find_path((0, 0), (7, 5), algorithm="jps").cost
    print(cost)
    try:
        navkit.NavMesh.load("missing.navmesh")
    except navkit.CorruptFileError as e:
        print(e)
    except navkit.NavkitError:
        raise
    shard = navkit.build_shard(vertices, 0, 2, triangles, tile_store="tiles")
    part: bytes = shard["part"]
    merged, data_hash = navkit.merge_parts([part, navkit.build_shard(vertices, 1, 2, triangles)["part"]])
    print(shard["tiles_built"] + shard["tiles_reused"], data_hash, merged.info())
    return mesh


def on_dask(client: object) -> str:
    from navkit.cluster import build_on_dask

    _mesh, data_hash, figures = build_on_dask(client, "world.gset", 4, tile_store="tiles", threads=1)
    return f"{data_hash}: {len(figures)} shards"

