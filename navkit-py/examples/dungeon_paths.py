"""Build RecastDemo's dungeon from numpy arrays, find paths, and draw them with matplotlib.

    target/python/bin/python navkit-py/examples/dungeon_paths.py [dungeon.obj] [out.png]

Reads the OBJ into two arrays (vertices and triangles) with a few lines of numpy, builds the
navmesh from them, finds paths between random points of the largest island on every core
(Detour's straight paths and the shortest paths), and draws the navmesh from above, polygons
shaded by height, with the six longest paths on it, into a PNG.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PolyCollection

import navkit

ROOT = Path(__file__).resolve().parents[2]


def read_obj(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """An OBJ's vertices (N, 3) and its faces fanned into triangles (M, 3)."""
    verts, tris = [], []
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts[:1] == ["v"]:
            verts.append([float(x) for x in parts[1:4]])
        elif parts[:1] == ["f"]:
            idx = [int(p.split("/")[0]) - 1 for p in parts[1:]]
            tris += [[idx[0], idx[k - 1], idx[k]] for k in range(2, len(idx))]
    return np.array(verts, dtype=np.float32), np.array(tris, dtype=np.int32)


def main() -> int:
    obj = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/meshes/recastdemo/dungeon.obj"
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("dungeon_paths.png")
    vertices, triangles = read_obj(obj)
    mesh = navkit.NavMesh.build(vertices, triangles, settings=navkit.BuildSettings(agent_radius=0.5))
    islands = mesh.islands()
    starts = mesh.random_points(300, seed=1, island=0)
    goals = mesh.random_points(300, seed=2, island=0)
    every = mesh.find_paths(starts, goals, optimal=True)
    print(f"{mesh}: {len(islands['area'])} islands, the largest {islands['area'][0]:.0f} m2")

    # Lengths on the ground plane (x, z), which the shortest path minimises. On dungeon's
    # corridors Detour's paths are nearly always the shortest; draw the six longest.
    def xz(points: np.ndarray) -> float:
        return float(np.linalg.norm(np.diff(points[:, [0, 2]], axis=0), axis=1).sum())

    over = np.array([xz(p.straight) / p.optimal_length_xz for p in every])
    mean, worst = (max(0.0, 100 * (r - 1)) for r in (over.mean(), over.max()))  # no "-0.00"
    print(f"{len(every)} paths: Detour's is {mean:.2f}% over the shortest on the mean, {worst:.1f}% at worst")
    paths = [every[i] for i in np.argsort([-p.optimal_length_xz for p in every])[:6]]
    for p in paths:
        print(f"  Detour's {xz(p.straight):.2f} m, the shortest {p.optimal_length_xz:.2f} m")

    polys = mesh.polygons()
    v, off = polys["vertices"], polys["offsets"]
    shapes = [v[off[i] : off[i + 1]][:, [0, 2]] for i in range(len(off) - 1) if not polys["off_mesh"][i]]
    heights = [v[off[i] : off[i + 1], 1].mean() for i in range(len(off) - 1) if not polys["off_mesh"][i]]
    fig, ax = plt.subplots(figsize=(8, 10), dpi=120)
    cells = PolyCollection(shapes, array=np.array(heights), cmap="Greys_r", edgecolors="#7a8a99", linewidths=0.4)
    ax.add_collection(cells)
    fig.colorbar(cells, ax=ax, shrink=0.5, label="polygon height (m)")
    for i, p in enumerate(paths):
        ax.plot(p.straight[:, 0], p.straight[:, 2], color="tab:orange", lw=2.2, label="Detour's path" if i == 0 else None)
        ax.plot(p.optimal[:, 0], p.optimal[:, 2], color="tab:blue", lw=1.2, ls="--", label="shortest path" if i == 0 else None)
        ax.plot(*p.straight[0, [0, 2]], "o", color="tab:green", ms=5, label="start" if i == 0 else None)
        ax.plot(*p.straight[-1, [0, 2]], "s", color="tab:red", ms=5, label="goal" if i == 0 else None)
    ax.set_aspect("equal")
    ax.autoscale()
    ax.invert_yaxis()
    ax.set_xlabel("x (m)")
    ax.set_ylabel("z (m)")
    ax.set_title(f"{obj.name}: {mesh.info()['polygons']} polygons; the six longest of 300 paths")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out)
    print(f"drew {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
