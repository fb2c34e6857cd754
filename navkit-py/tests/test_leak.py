"""A million queries do not grow the process (queries are pooled, arrays owned by numpy)."""

import resource
from pathlib import Path

from conftest import built, random_pairs


def rss_mib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / (1 << 20)


def test_a_million_queries_do_not_leak() -> None:
    mesh = built("dungeon")
    starts, goals = random_pairs(mesh, 100_000, seed=1)
    for _ in range(2):  # warm up: pools, allocator arenas
        paths = mesh.find_paths(starts, goals)
    del paths
    before = rss_mib()
    for _ in range(8):
        paths = mesh.find_paths(starts, goals)
        _ = [p.straight for p in paths[:1000]]
        del paths
    for i in range(20_000):
        mesh.find_path(starts[i], goals[i])
    grown = rss_mib() - before
    assert grown < 16, f"resident memory grew {grown:.1f} MiB over a million queries"
