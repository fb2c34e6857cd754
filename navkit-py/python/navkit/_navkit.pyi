"""Type stubs of navkit's extension module (re-exported by the `navkit` package)."""

import os
from typing import Any, Literal, Optional, Sequence, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

AREA_GROUND: int
AREA_WATER: int
AREA_ROAD: int
AREA_DOOR: int
AREA_GRASS: int
AREA_JUMP: int

PathLike = Union[str, "os.PathLike[str]"]
#: One point: three numbers (a sequence or an array of shape (3,)).
Point = Union[Sequence[float], npt.NDArray[Any]]
#: Points: an (N, 3) array of real numbers (or a nested sequence of them).
Points = Union[npt.NDArray[Any], Sequence[Sequence[float]]]
F32x3 = np.ndarray[tuple[int, int], np.dtype[np.float32]]

class NavkitError(Exception):
    """Every error navkit raises."""

class PointOffMeshError(NavkitError):
    """A point with no walkable polygon near it (within the query's half extents)."""

class CorruptFileError(NavkitError):
    """A malformed, truncated or other-version file."""

class SettingError(NavkitError):
    """A build setting out of its range, or settings that cannot build together."""

class GeometryError(NavkitError):
    """Input geometry that cannot be built."""

class BuildError(NavkitError):
    """A build that failed, was refused by its budget, or timed out."""

class InvalidArgumentError(NavkitError):
    """An argument navkit refuses (out of range, stale)."""

class NavkitIOError(NavkitError):
    """A file that could not be read or written."""

class DetourError(NavkitError):
    """Detour refused an operation (out of memory or search nodes)."""

class BuildSettings:
    """Build settings: RecastDemo's defaults, every field a checked attribute."""

    cell_size: float
    cell_height: float
    agent_height: float
    agent_radius: float
    agent_max_climb: float
    agent_max_slope: float
    region_min_size: float
    region_merge_size: float
    edge_max_len: float
    edge_max_error: float
    verts_per_poly: int
    detail_sample_dist: float
    detail_sample_max_error: float
    tile_size: int
    partition: Literal["watershed", "monotone", "layers"]
    bounds: Optional[tuple[tuple[float, float, float], tuple[float, float, float]]]
    filter_low_hanging_obstacles: bool
    filter_ledge_spans: bool
    filter_walkable_low_height_spans: bool

    def __init__(self, **settings: Any) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(text: str) -> BuildSettings: ...
    def validate(self) -> None: ...

class QueryFilter:
    """Which polygons a query may visit (by flags) and what each area costs."""

    include_flags: int
    exclude_flags: int

    def __init__(
        self,
        *,
        include_flags: Optional[int] = None,
        exclude_flags: Optional[int] = None,
        area_costs: Optional[dict[int, float]] = None,
    ) -> None: ...
    def area_cost(self, area: int) -> float: ...
    def set_area_cost(self, area: int, cost: float) -> None: ...

class Path:
    """A path between two points: corridor, corners, and the smooth and optimal paths if asked."""

    @property
    def status(self) -> Literal["complete", "partial"]: ...
    @property
    def polys(self) -> np.ndarray[tuple[int], np.dtype[np.uint64]]: ...
    @property
    def straight(self) -> F32x3: ...
    @property
    def straight_flags(self) -> np.ndarray[tuple[int], np.dtype[np.uint8]]: ...
    @property
    def length(self) -> float: ...
    @property
    def smooth(self) -> Optional[F32x3]: ...
    @property
    def smooth_stuck(self) -> bool: ...
    @property
    def optimal(self) -> Optional[F32x3]: ...
    @property
    def optimal_length(self) -> Optional[float]: ...
    @property
    def optimal_length_xz(self) -> Optional[float]: ...
    @property
    def optimal_expanded(self) -> Optional[int]: ...
    @property
    def optimal_exact(self) -> Optional[bool]: ...
    def __len__(self) -> int: ...

class PolygonArrays(TypedDict):
    vertices: F32x3
    offsets: np.ndarray[tuple[int], np.dtype[np.int64]]
    refs: np.ndarray[tuple[int], np.dtype[np.uint64]]
    areas: np.ndarray[tuple[int], np.dtype[np.uint8]]
    flags: np.ndarray[tuple[int], np.dtype[np.uint16]]
    off_mesh: np.ndarray[tuple[int], np.dtype[np.bool_]]

class RaycastArrays(TypedDict):
    hit: np.ndarray[tuple[int], np.dtype[np.bool_]]
    t: np.ndarray[tuple[int], np.dtype[np.float32]]
    points: F32x3
    normals: F32x3

class IslandArrays(TypedDict):
    area: np.ndarray[tuple[int], np.dtype[np.float32]]
    polys: np.ndarray[tuple[int], np.dtype[np.uint64]]
    centre: F32x3
    radius: np.ndarray[tuple[int], np.dtype[np.float32]]
    bounds_min: F32x3
    bounds_max: F32x3

class DetailArrays(TypedDict):
    vertices: F32x3
    triangles: np.ndarray[tuple[int, int], np.dtype[np.int64]]
    polys: np.ndarray[tuple[int], np.dtype[np.uint64]]

class NavMesh:
    """A navigation mesh (Detour's dtNavMesh); immutable, safe to query from many threads."""

    @staticmethod
    def build(
        source: Union[PathLike, Points],
        triangles: Optional[npt.ArrayLike] = None,
        *,
        areas: Optional[npt.ArrayLike] = None,
        settings: Optional[BuildSettings] = None,
        tiled: bool = False,
        tile_size: Optional[int] = None,
        threads: Optional[int] = None,
        max_memory: Optional[int] = ...,
        timeout: Optional[float] = None,
    ) -> NavMesh: ...
    @staticmethod
    def load(path: PathLike) -> NavMesh: ...
    def save(self, path: PathLike) -> None: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> NavMesh: ...
    def info(self) -> dict[str, Any]: ...
    def polygons(self) -> PolygonArrays: ...
    def decode_polys(
        self, refs: Sequence[int]
    ) -> np.ndarray[tuple[int, int], np.dtype[np.uint32]]: ...
    def find_path(
        self,
        start: Point,
        goal: Point,
        *,
        smooth: bool = False,
        optimal: bool = False,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> Path: ...
    def find_paths(
        self,
        starts: Points,
        goals: Points,
        *,
        smooth: bool = False,
        optimal: bool = False,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> list[Path]: ...
    def nearest_points(
        self,
        points: Points,
        *,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> tuple[
        F32x3,
        np.ndarray[tuple[int], np.dtype[np.uint64]],
        np.ndarray[tuple[int], np.dtype[np.bool_]],
    ]: ...
    def nearest_point(
        self,
        point: Point,
        *,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> Optional[np.ndarray[tuple[int], np.dtype[np.float32]]]: ...
    @overload
    def is_navigable(
        self, points: Sequence[float], *, max_y_delta: float = 0.5, filter: Optional[QueryFilter] = None
    ) -> bool: ...
    @overload
    def is_navigable(
        self, points: Union[npt.NDArray[Any], Sequence[Sequence[float]]], *, max_y_delta: float = 0.5,
        filter: Optional[QueryFilter] = None,
    ) -> Union[bool, np.ndarray[tuple[int], np.dtype[np.bool_]]]: ...
    @overload
    def distance_to_wall(
        self,
        points: Sequence[float],
        *,
        max_radius: float = 2.0,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> float: ...
    @overload
    def distance_to_wall(
        self,
        points: Union[npt.NDArray[Any], Sequence[Sequence[float]]],
        *,
        max_radius: float = 2.0,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> Union[float, np.ndarray[tuple[int], np.dtype[np.float32]]]: ...
    def raycasts(
        self,
        starts: Points,
        ends: Points,
        *,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> RaycastArrays: ...
    def try_steps(
        self,
        starts: Points,
        ends: Points,
        *,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> F32x3: ...
    def random_points(
        self,
        n: int,
        *,
        seed: int,
        near: Optional[Point] = None,
        radius: Optional[float] = None,
        island: Optional[int] = None,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> F32x3: ...
    def islands(self) -> IslandArrays: ...
    @overload
    def island_of(
        self, points: Sequence[float], *, half_extents: Optional[Point] = None, filter: Optional[QueryFilter] = None
    ) -> int: ...
    @overload
    def island_of(
        self,
        points: Union[npt.NDArray[Any], Sequence[Sequence[float]]],
        *,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> Union[int, np.ndarray[tuple[int], np.dtype[np.int64]]]: ...
    def find_path_to_nearest(
        self,
        start: Point,
        goals: Points,
        *,
        smooth: bool = False,
        optimal: bool = False,
        half_extents: Optional[Point] = None,
        filter: Optional[QueryFilter] = None,
    ) -> tuple[int, Path]: ...
    def topdown(
        self,
        meters_per_pixel: float,
        height: float,
        *,
        max_y_delta: float = 0.5,
        bounds: Optional[tuple[tuple[float, float], tuple[float, float]]] = None,
        filter: Optional[QueryFilter] = None,
    ) -> tuple[np.ndarray[tuple[int, int], np.dtype[np.bool_]], tuple[float, float]]: ...
    def detail_mesh(self) -> DetailArrays: ...

class TileCache:
    """A navmesh whose tiles are rebuilt when obstacles come and go (RecastDemo's Temp Obstacles)."""

    @staticmethod
    def build(
        source: Union[PathLike, Points],
        triangles: Optional[npt.ArrayLike] = None,
        *,
        areas: Optional[npt.ArrayLike] = None,
        settings: Optional[BuildSettings] = None,
        tile_size: Optional[int] = None,
        threads: Optional[int] = None,
        max_memory: Optional[int] = ...,
        timeout: Optional[float] = None,
    ) -> TileCache: ...
    @staticmethod
    def load(path: PathLike, *, links_from: Optional[PathLike] = None) -> TileCache: ...
    def save(self, path: PathLike) -> None: ...
    def to_bytes(self) -> bytes: ...
    def add_cylinder(self, pos: Point, radius: float, height: float) -> int: ...
    def add_box(self, bmin: Point, bmax: Point) -> int: ...
    def add_oriented_box(self, center: Point, half_extents: Point, y_angle: float) -> int: ...
    def remove(self, handle: int) -> None: ...
    def update(self, seconds: Optional[float] = None) -> bool: ...
    def navmesh(self) -> NavMesh: ...
    def info(self) -> dict[str, Any]: ...

class AgentInfo(TypedDict):
    position: list[float]
    velocity: list[float]
    target: list[float]
    activity: Literal["idle", "moving", "arrived", "giving_way", "yielding", "queued"]
    path_status: Literal["complete", "partial"]
    corners: F32x3
    off_mesh: bool

class Crowd:
    """Agents walking a navmesh (or a tile cache the crowd then owns)."""

    def __init__(
        self, navmesh: Union[NavMesh, TileCache], *, max_agents: int = 128, max_agent_radius: float = 0.6
    ) -> None: ...
    def add_agents(
        self,
        positions: Points,
        *,
        radius: float = 0.6,
        height: float = 2.0,
        max_speed: float = 3.5,
        max_acceleration: float = 8.0,
        separation_weight: float = 2.0,
    ) -> np.ndarray[tuple[int], np.dtype[np.int64]]: ...
    def remove_agent(self, handle: int) -> None: ...
    def set_targets(self, handles: Union[Sequence[int], npt.NDArray[np.int64]], targets: Points) -> None: ...
    def update(self, dt: float) -> None: ...
    @property
    def handles(self) -> np.ndarray[tuple[int], np.dtype[np.int64]]: ...
    def positions(self, handles: Optional[Sequence[int]] = None) -> F32x3: ...
    def velocities(self, handles: Optional[Sequence[int]] = None) -> F32x3: ...
    def arrived(self, handles: Optional[Sequence[int]] = None) -> np.ndarray[tuple[int], np.dtype[np.bool_]]: ...
    def agent(self, handle: int) -> AgentInfo: ...
    def add_cylinder(self, pos: Point, radius: float, height: float) -> int: ...
    def remove_obstacle(self, handle: int) -> None: ...
    def __len__(self) -> int: ...

class GridPath:
    """One grid search's answer."""

    status: Literal["complete", "partial"]
    cost: float
    expanded: int
    cells: np.ndarray[tuple[int, int], np.dtype[np.int64]]

class GridPathArrays(TypedDict):
    cost: np.ndarray[tuple[int], np.dtype[np.float64]]
    complete: np.ndarray[tuple[int], np.dtype[np.bool_]]
    expanded: np.ndarray[tuple[int], np.dtype[np.uint32]]

Algorithm = Literal["astar", "jps"]
CornerCutting = Literal["never", "if_one_side_free", "always"]

class Grid:
    """A grid of passable and blocked cells for A* and JPS (Moving AI's rules by default)."""

    def __init__(self, passable: np.ndarray[tuple[int, int], np.dtype[np.bool_]]) -> None: ...
    @staticmethod
    def load_movingai(path: PathLike) -> Grid: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    def to_array(self) -> np.ndarray[tuple[int, int], np.dtype[np.bool_]]: ...
    def find_path(
        self,
        start: tuple[int, int],
        goal: tuple[int, int],
        *,
        algorithm: Algorithm = "astar",
        corner_cutting: CornerCutting = "never",
    ) -> GridPath: ...
    def find_paths(
        self,
        starts: npt.ArrayLike,
        goals: npt.ArrayLike,
        *,
        algorithm: Algorithm = "astar",
        corner_cutting: CornerCutting = "never",
    ) -> GridPathArrays: ...

class ScenarioArrays(TypedDict):
    starts: np.ndarray[tuple[int, int], np.dtype[np.int64]]
    goals: np.ndarray[tuple[int, int], np.dtype[np.int64]]
    optimal_length: np.ndarray[tuple[int], np.dtype[np.float64]]
    bucket: np.ndarray[tuple[int], np.dtype[np.uint32]]

def load_movingai_scenario(path: PathLike) -> ScenarioArrays: ...

class ShardResult(TypedDict):
    part: bytes
    shard: tuple[int, int]
    tiles: int
    tiles_built: int
    tiles_reused: int
    store_entries_refused: int
    data_hash: str
    build_ms: float
    peak_rss_bytes: Optional[int]

def build_shard(
    source: Union[PathLike, Points],
    index: int,
    count: int,
    triangles: Optional[npt.ArrayLike] = None,
    *,
    areas: Optional[npt.ArrayLike] = None,
    settings: Optional[BuildSettings] = None,
    tile_size: Optional[int] = None,
    threads: Optional[int] = None,
    tile_store: Optional[PathLike] = None,
    max_memory: Optional[int] = ...,
    timeout: Optional[float] = None,
) -> ShardResult: ...
def merge_parts(parts: Sequence[bytes]) -> tuple[NavMesh, str]: ...
