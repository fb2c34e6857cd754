"""Figures for a large world built by one process and sharded over local workers (issue 25).

Generates a world with `navkit gen`, then builds it three ways, one after the other:
1. one process, `navkit build --tiled --threads W` (all W cores);
2. N shards as `navkit build --shard I/N --threads 1` processes, W at a time, merged with
   `navkit merge` (each process's own peak memory);
3. N shards as tasks on a Dask LocalCluster of W worker processes of one thread each
   (`navkit.cluster.build_on_dask`, each worker's peak memory over its tasks).
Prints wall time, peak memory per process or worker, tiles per second per core, and checks
that every way gives the same data hash.

    target/python/bin/python navkit-py/bench/cluster.py --navkit target/release/navkit \\
        --tris 16M --workers 2 --shards 16 [--keep DIR] [--json]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any


def run_json(cmd: list[str]) -> dict[str, Any]:
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def one_process(navkit: str, gset: Path, workers: int) -> dict[str, Any]:
    t = time.perf_counter()
    r = run_json([navkit, "build", "--tiled", "--threads", str(workers), "--json", str(gset)])
    return {
        "wall_s": time.perf_counter() - t,
        "peak_rss_bytes": r["peak_rss_bytes"],
        "data_hash": r["data_hash"],
        "tile_positions": r["tiles_built"],
        "tiles": r["tile_count"],
        "navmesh_bytes": r["navmesh_bytes"],
        "input_tris": r["input_tris"],
    }


def shard_processes(navkit: str, gset: Path, workers: int, shards: int, out: Path) -> dict[str, Any]:
    def shard(i: int) -> dict[str, Any]:
        part = out / f"part{i}.mset"
        r = run_json([
            navkit, "build", "--shard", f"{i}/{shards}", "--threads", "1",
            "-o", str(part), "--json", str(gset),
        ])
        return {"part": str(part), "peak_rss_bytes": r["peak_rss_bytes"],
                "input_tris": r["input_tris"], "total_ms": r["total_ms"]}

    t = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(shard, range(shards)))
    built_s = time.perf_counter() - t
    merged = run_json([navkit, "merge", *[r["part"] for r in results],
                       "-o", str(out / "merged.mset"), "--json"])
    wall = time.perf_counter() - t
    return {
        "wall_s": wall,
        "build_s": built_s,
        "merge_s": wall - built_s,
        "peak_rss_bytes_max": max(r["peak_rss_bytes"] for r in results),
        "peak_rss_bytes_mean": sum(r["peak_rss_bytes"] for r in results) / shards,
        "shard_tris_max": max(r["input_tris"] for r in results),
        "data_hash": merged["data_hash"],
    }


def on_dask(gset: Path, workers: int, shards: int, store: Path) -> dict[str, Any]:
    from dask.distributed import Client, LocalCluster

    import navkit.cluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None, silence_logs=50,
                      memory_limit=0) as cluster, Client(cluster) as client:
        t = time.perf_counter()
        _mesh, data_hash, figures = navkit.cluster.build_on_dask(
            client, gset, shards, tile_store=store, threads=1)
        wall = time.perf_counter() - t
        peaks = client.run(lambda: _peak())
    return {
        "wall_s": wall,
        "peak_rss_bytes_per_worker": sorted(peaks.values()),
        "data_hash": data_hash,
        "tiles_built": sum(f["tiles_built"] for f in figures),
    }


def _peak() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--navkit", default=os.environ.get("NAVKIT_CLI", "target/release/navkit"))
    ap.add_argument("--tris", default="16M")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--keep", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="navkit-cluster-") as tmp:
        d = args.keep or Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        gset = d / "world.gset"
        if not gset.exists():
            subprocess.run([args.navkit, "gen", "--tris", args.tris, "--seed", args.seed,
                            "-o", str(d / "world.obj")], check=True, capture_output=True)
        single = one_process(args.navkit, gset, args.workers)
        sharded = shard_processes(args.navkit, gset, args.workers, args.shards, d)
        dask = on_dask(gset, args.workers, args.shards, d / f"store-{time.time_ns()}")
    positions = single["tile_positions"]
    cores = args.workers
    report = {
        "world_tris": single["input_tris"], "tile_positions": positions,
        "tiles": single["tiles"], "navmesh_bytes": single["navmesh_bytes"],
        "workers": cores, "shards": args.shards,
        "one_process": single, "shard_processes": sharded, "dask": dask,
        "same_data_hash": single["data_hash"] == sharded["data_hash"] == dask["data_hash"],
        "tiles_per_s_per_core": {
            "one_process": positions / single["wall_s"] / cores,
            "shard_processes": positions / sharded["wall_s"] / cores,
            "dask": positions / dask["wall_s"] / cores,
        },
    }
    if args.json:
        print(json.dumps(report))
        return
    mb = 1 / 2**20
    print(f"world: {report['world_tris']} tris, {positions} tile positions, {single['tiles']} tiles, "
          f"navmesh {single['navmesh_bytes'] * mb:.0f} MiB; {cores} cores")
    print(f"one process, {cores} threads: {single['wall_s']:.1f} s, peak {single['peak_rss_bytes'] * mb:.0f} MiB")
    print(f"{args.shards} shard processes, {cores} at a time: {sharded['wall_s']:.1f} s "
          f"(merge {sharded['merge_s']:.1f} s), peak per process {sharded['peak_rss_bytes_max'] * mb:.0f} MiB max, "
          f"{sharded['peak_rss_bytes_mean'] * mb:.0f} MiB mean")
    print(f"dask, {cores} workers x 1 thread: {dask['wall_s']:.1f} s, peak per worker "
          + ", ".join(f"{p * mb:.0f}" for p in dask["peak_rss_bytes_per_worker"]) + " MiB")
    t = report["tiles_per_s_per_core"]
    print(f"tiles per second per core: one process {t['one_process']:.0f}, shard processes "
          f"{t['shard_processes']:.0f}, dask {t['dask']:.0f}; same data hash: {report['same_data_hash']}")


if __name__ == "__main__":
    main()
