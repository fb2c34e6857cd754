"""Tiled builds spread over a Dask cluster: one task per shard, merged into one navmesh.

Each task runs :func:`navkit.build_shard` in its worker process (the build itself on the
worker's threads, GIL released) and returns the shard's part; the client merges the parts with
:func:`navkit.merge_parts`, which checks that every shard is there once and every tile in its
own shard, and gives the data hash the single-machine build gives. Workers share a tile store
(``tile_store``, a folder every worker sees), so a rebuilt world builds only what changed and a
task that is run again after its worker died reuses the tiles that worker already stored.

A worker that dies mid-build loses nothing: the scheduler runs its tasks again on another
worker (Dask's ``distributed.scheduler.allowed-failures``, 3 by default, bounds how often), and
a half-written tile-store entry is never read (entries are renamed into place whole, and a
damaged one is refused and rebuilt).

Start a cluster on one machine::

    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=4, threads_per_worker=1, host="127.0.0.1") as cluster, \\
            Client(cluster) as client:
        mesh, data_hash, shards = navkit.cluster.build_on_dask(
            client, "world.gset", shards=16, tile_store="/tmp/tiles")

or on many: ``dask scheduler`` on one machine, ``dask worker tcp://SCHEDULER:8786 --nthreads 1``
on each of the others (all seeing the level's files and the tile store at the same paths, for
example over NFS), then ``Client("tcp://SCHEDULER:8786")``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from ._navkit import NavMesh, build_shard, merge_parts

if TYPE_CHECKING:  # pragma: no cover
    from ._navkit import BuildSettings, PathLike, ShardResult

__all__ = ["build_on_dask", "shard_task"]


def shard_task(
    source: "PathLike",
    index: int,
    count: int,
    options: dict[str, Any],
) -> "ShardResult":
    """One Dask task: shard ``index`` of ``count`` of ``source``, built in this process."""
    return build_shard(source, index, count, **options)


def build_on_dask(
    client: Any,
    source: "PathLike",
    shards: int,
    *,
    tile_store: Optional["PathLike"] = None,
    settings: Optional["BuildSettings"] = None,
    tile_size: Optional[int] = None,
    threads: Optional[int] = None,
    retries: int = 2,
) -> Tuple[NavMesh, str, List[dict[str, Any]]]:
    """Builds ``source`` tiled, cut into ``shards`` tasks on ``client``'s cluster.

    ``source`` is a level file (OBJ, glTF, ``.gset``) at a path every worker can read.
    ``threads`` is each task's build threads (default: every core of its worker's machine; give
    1 with one worker per core). ``retries`` is how often a task that raised is tried again;
    tasks of a worker that died are run again by the scheduler whatever it is. Returns the
    merged navmesh, its data hash (the unsharded build's) and each shard's result (without its
    part bytes), in shard order.
    """
    if shards < 1:
        raise ValueError(f"`shards` must be at least 1, not {shards}")
    options: dict[str, Any] = {
        "tile_store": None if tile_store is None else str(tile_store),
        "settings": settings,
        "tile_size": tile_size,
        "threads": threads,
    }
    futures = client.map(
        shard_task,
        [str(source)] * shards,
        list(range(shards)),
        [shards] * shards,
        [options] * shards,
        pure=False,
        retries=retries,
    )
    results: List["ShardResult"] = client.gather(futures)
    mesh, data_hash = merge_parts([r["part"] for r in results])
    figures = [{k: v for k, v in r.items() if k != "part"} for r in results]
    return mesh, data_hash, figures
