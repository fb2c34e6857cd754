"""Sharded builds from Python and on a Dask cluster (issue 25, parts 2 to 4): shards merged,
and a build spread over a local Dask cluster (several worker processes on 127.0.0.1, started
and stopped here) with a worker killed mid-build, give the data hash of the `navkit` program's
single-machine build of the same generated world; a tile store shared by the builds makes the
second build build nothing."""

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import navkit
from navkit.cluster import build_on_dask

from conftest import cli


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated world of 300k triangles (900 tiles), written by `navkit gen`."""
    d = tmp_path_factory.mktemp("world")
    subprocess.run(
        [cli(), "gen", "--tris", "300k", "--seed", "3", "-o", str(d / "world.obj")],
        check=True,
        capture_output=True,
    )
    return d / "world.gset"


@pytest.fixture(scope="module")
def single_machine(world: Path) -> dict[str, Any]:
    """`navkit build --tiled --json` of the world: the reference."""
    out = subprocess.run(
        [cli(), "build", "--tiled", "--json", str(world)], check=True, capture_output=True
    )
    report: dict[str, Any] = json.loads(out.stdout)
    assert report["tiles_built"] == report["grid"]["tiles_x"] * report["grid"]["tiles_z"]
    return report


def test_shards_and_the_store_give_the_single_machine_build(
    world: Path, single_machine: dict[str, Any], tmp_path: Path
) -> None:
    parts = [navkit.build_shard(world, i, 3) for i in reversed(range(3))]
    assert [p["shard"] for p in parts] == [(2, 3), (1, 3), (0, 3)]
    mesh, data_hash = navkit.merge_parts([p["part"] for p in parts])
    assert data_hash == single_machine["data_hash"]
    assert sum(p["tiles"] for p in parts) == mesh.info()["tiles"] == single_machine["tile_count"]
    store = tmp_path / "tiles"
    first = navkit.build_shard(world, 0, 1, tile_store=store)
    second = navkit.build_shard(world, 0, 1, tile_store=store)
    positions = first["tiles_built"]
    assert positions == single_machine["tiles_built"]
    assert (second["tiles_built"], second["tiles_reused"]) == (0, positions)
    assert navkit.merge_parts([second["part"]])[1] == single_machine["data_hash"]


def test_bad_shards_and_parts_are_refused(world: Path) -> None:
    with pytest.raises(navkit.InvalidArgumentError, match="below the count"):
        navkit.build_shard(world, 3, 3)
    parts = [navkit.build_shard(world, i, 3)["part"] for i in range(3)]
    with pytest.raises(navkit.InvalidArgumentError, match=r"missing \[1\]"):
        navkit.merge_parts([parts[0], parts[2]])
    with pytest.raises(navkit.InvalidArgumentError, match=r"more than once \[0\]"):
        navkit.merge_parts([parts[0], parts[0], parts[1], parts[2]])
    with pytest.raises(navkit.NavkitError):
        navkit.merge_parts([parts[0][:-1], parts[1], parts[2]])
    with pytest.raises(navkit.NavkitError):
        navkit.merge_parts([b"MSET"])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def kill_a_busy_worker(client: Any, pids: dict[str, int]) -> tuple[str, list[str]]:
    """Waits for a worker to run a task, lets it build for a moment, then kills its process
    (SIGKILL); returns its address and the tasks it held."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        busy = {a: keys for a, keys in client.processing().items() if keys}
        if busy:
            victim, keys = next(iter(busy.items()))
            time.sleep(0.1)
            os.kill(pids[victim], signal.SIGKILL)
            return victim, [str(k) for k in keys]
        time.sleep(0.01)
    raise AssertionError("no worker started a task within 60 s")


def test_a_dask_cluster_with_a_worker_killed_builds_the_same_navmesh(
    world: Path, single_machine: dict[str, Any], tmp_path: Path
) -> None:
    from dask.distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=3,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=50,
    ) as cluster, Client(cluster) as client:
        mesh, data_hash, figures = build_on_dask(
            client, world, 6, tile_store=tmp_path / "tiles", threads=1
        )
        assert data_hash == single_machine["data_hash"]
        assert [f["shard"] for f in figures] == [(i, 6) for i in range(6)]
        assert sum(f["tiles_built"] for f in figures) == single_machine["tiles_built"]
        # Again over the shared store: nothing to build.
        _, again, figures = build_on_dask(client, world, 6, tile_store=tmp_path / "tiles", threads=1)
        assert again == data_hash
        assert sum(f["tiles_built"] for f in figures) == 0

        # A fresh store, and one worker killed while it builds.
        pids: dict[str, int] = client.run(os.getpid)
        assert len(pids) == 3
        out: dict[str, Any] = {}

        def run() -> None:
            out["result"] = build_on_dask(
                client, world, 6, tile_store=tmp_path / "tiles2", threads=1
            )

        driver = threading.Thread(target=run)
        driver.start()
        victim, held = kill_a_busy_worker(client, pids)
        driver.join(timeout=300)
        assert not driver.is_alive(), "the build did not finish after the kill"
        assert held, "the killed worker held a task"
        assert not alive(pids[victim])
        _, killed_hash, figures = out["result"]
        assert killed_hash == single_machine["data_hash"]
        assert [f["shard"] for f in figures] == [(i, 6) for i in range(6)]
        assert mesh.info()["tiles"] == single_machine["tile_count"]
