"""navkit: navigation meshes and pathfinding (Recast/Detour) for Python.

Build a navmesh from a level file or numpy arrays, find paths (one, or thousands on every core
with the GIL released), save and load RecastDemo's files, pickle navmeshes for multiprocessing,
Ray or Dask.

>>> import navkit
>>> mesh = navkit.NavMesh.build("dungeon.obj")                     # doctest: +SKIP
>>> path = mesh.find_path([-5.0, 0.2, -3.0], [20.0, 10.0, 5.0])     # doctest: +SKIP
>>> path.status, path.straight.shape                                # doctest: +SKIP
('complete', (7, 3))
"""

from ._navkit import (
    AREA_DOOR,
    AREA_GRASS,
    AREA_GROUND,
    AREA_JUMP,
    AREA_ROAD,
    AREA_WATER,
    BuildError,
    BuildSettings,
    CorruptFileError,
    Crowd,
    DetourError,
    GeometryError,
    Grid,
    GridPath,
    InvalidArgumentError,
    NavkitError,
    NavkitIOError,
    NavMesh,
    Path,
    PointOffMeshError,
    QueryFilter,
    SettingError,
    TileCache,
    __version__,
    build_shard,
    load_movingai_scenario,
    merge_parts,
)

__all__ = [
    "AREA_DOOR",
    "AREA_GRASS",
    "AREA_GROUND",
    "AREA_JUMP",
    "AREA_ROAD",
    "AREA_WATER",
    "BuildError",
    "BuildSettings",
    "CorruptFileError",
    "Crowd",
    "DetourError",
    "GeometryError",
    "Grid",
    "GridPath",
    "InvalidArgumentError",
    "NavkitError",
    "NavkitIOError",
    "NavMesh",
    "Path",
    "PointOffMeshError",
    "QueryFilter",
    "SettingError",
    "TileCache",
    "__version__",
    "build_shard",
    "load_movingai_scenario",
    "merge_parts",
]
