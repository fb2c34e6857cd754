"""navkit-py's benchmark: 100,000 straight-path queries on RecastDemo's dungeon through
`NavMesh.find_paths`, against the same pairs through navkit's Rust API (a rayon loop in the
extension, the GIL released) in the same process, interleaved; and the per-call cost of
`find_path` against the Rust query alone, on one thread.

    target/python/bin/python navkit-py/bench/paths.py [--pairs N] [--rounds R] [--json]

Prints medians and ratios (Python over Rust). Run it on a quiet machine; the ratios hold better
than the times on a shared one.
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import navkit
from navkit import _navkit

ROOT = Path(__file__).resolve().parents[2]
DUNGEON = ROOT.parent / "shared" / "meshes" / "recastdemo" / "dungeon.obj"


def pairs(mesh: navkit.NavMesh, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`n` pairs of polygon centres, picked by a seeded generator."""
    p = mesh.polygons()
    v, off = p["vertices"], p["offsets"]
    c = np.array([v[off[i] : off[i + 1]].mean(axis=0) for i in range(len(off) - 1)])
    c = c[~p["off_mesh"]].astype(np.float32)
    rng = np.random.default_rng(seed)
    return c[rng.integers(0, len(c), n)], c[rng.integers(0, len(c), n)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--single", type=int, default=20_000, help="find_path calls for the per-call cost")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    mesh = navkit.NavMesh.build(DUNGEON)
    starts, goals = pairs(mesh, a.pairs, seed=1)
    mesh.find_paths(starts[:1000], goals[:1000])  # warm the query pool
    py_t, rust_t = [], []
    for _ in range(a.rounds):
        t = time.perf_counter()
        paths = mesh.find_paths(starts, goals)
        py_t.append(time.perf_counter() - t)
        secs, complete = _navkit._rust_find_paths_seconds(mesh, starts, goals)
        rust_t.append(secs)
        assert complete == sum(p.status == "complete" for p in paths)
        del paths
    one_py, one_rust = [], []
    s1, g1 = starts[: a.single], goals[: a.single]
    s1_list, g1_list = s1.tolist(), g1.tolist()
    for _ in range(a.rounds):
        t = time.perf_counter()
        for s, g in zip(s1_list, g1_list):
            mesh.find_path(s, g)
        one_py.append((time.perf_counter() - t) / a.single)
        secs, _ = _navkit._rust_find_paths_seconds(mesh, s1, g1, threads=1)
        one_rust.append(secs / a.single)
    py_m, rust_m = statistics.median(py_t), statistics.median(rust_t)
    one_py_m, one_rust_m = statistics.median(one_py), statistics.median(one_rust)
    out = {
        "pairs": a.pairs,
        "rounds": a.rounds,
        "complete": complete,
        "find_paths_s": round(py_m, 4),
        "rust_s": round(rust_m, 4),
        "ratio": round(py_m / rust_m, 3),
        "find_path_us": round(one_py_m * 1e6, 2),
        "rust_one_thread_us": round(one_rust_m * 1e6, 2),
        "per_call_overhead_us": round((one_py_m - one_rust_m) * 1e6, 2),
    }
    if a.json:
        print(json.dumps(out))
    else:
        print(f"{a.pairs} pairs on dungeon, {a.rounds} rounds interleaved, {complete} complete")
        print(f"  find_paths (Python)       {py_m * 1e3:9.1f} ms")
        print(f"  same pairs, Rust API      {rust_m * 1e3:9.1f} ms   ratio {py_m / rust_m:.3f}x")
        print(f"  find_path, one call       {one_py_m * 1e6:9.2f} us")
        print(f"  Rust query, one thread    {one_rust_m * 1e6:9.2f} us   overhead {(one_py_m - one_rust_m) * 1e6:.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
