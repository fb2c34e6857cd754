#!/usr/bin/env python3
"""Writes the crowd scenario suite's levels (scenarios/crowd/levels/*.obj) and its scenario
files (scenarios/crowd/*.json: each names its level and length; the hand-made ones list their
agents, the ones on RecastDemo's levels draw random agents over five seeds). Run from the
repository root; the output is committed, this script documents where it comes from.

Every level is a flat floor at y = 0 made of axis-aligned rectangles (two triangles each); the
navmesh's boundary is the floor's outline, eroded by the agent radius (0.6 with the default
build settings), so a passage W metres wide leaves W - 1.2 m for agents' centres: two agents of
radius 0.6 pass each other where that is at least 1.2 m (W >= 2.4 m).
"""
import json
import math
import os

LEVELS = {
    # Two 12 m rooms joined by a corridor 3 m wide and 12 m long (1.8 m for centres: two
    # agents pass only if each keeps to its side).
    "corridor": [(0, 0, 12, 12), (12, 4.5, 24, 7.5), (24, 0, 36, 12)],
    # Two 12 m rooms joined by a door 2.1 m wide and 1 m deep (0.9 m for centres: one agent
    # at a time; at 1.8 m Recast leaves the door out of the navmesh).
    "door": [(0, 0, 12, 12), (12, 4.95, 13, 7.05), (13, 0, 25, 12)],
    # Two corridors 6 m wide and 40 m long crossing at right angles.
    "crossing": [(0, 17, 17, 23), (17, 17, 23, 23), (23, 17, 40, 23),
                 (17, 0, 23, 17), (17, 23, 23, 40)],
    # A 40 m square of open ground.
    "open": [(0, 0, 40, 40)],
    # A 16 m room whose only exit is a passage 2.1 m wide and 2 m long (0.9 m for centres:
    # single file) into a 16 m yard.
    "bottleneck": [(0, 0, 16, 16), (16, 6.95, 18, 9.05), (18, 0, 34, 16)],
}


def write_obj(path, rects):
    lines = ["# navkit crowd suite level (scripts/crowd-levels.py): flat floor rectangles"]
    faces = []
    for (x0, z0, x1, z1) in rects:
        base = len([l for l in lines if l.startswith("v ")])
        for (x, z) in [(x0, z0), (x0, z1), (x1, z1), (x1, z0)]:
            lines.append(f"v {x:g} 0 {z:g}")
        # Counter-clockwise seen from above (+y): Recast's walkable side up.
        faces.append(f"f {base + 1} {base + 2} {base + 3}")
        faces.append(f"f {base + 1} {base + 3} {base + 4}")
    with open(path, "w") as f:
        f.write("\n".join(lines + faces) + "\n")


def grid(x0, z0, cols, rows, step):
    return [(x0 + c * step, z0 + r * step) for r in range(rows) for c in range(cols)]


def agent(start, goal):
    (sx, sz), (gx, gz) = start, goal
    return {"start": [round(sx, 3), 0, round(sz, 3)], "goal": [round(gx, 3), 0, round(gz, 3)]}


def scenarios():
    out = {}
    # Corridor swap: 10 agents per room (5 x 2 blocks, 1.6 m apart), each to the mirror place
    # in the other room.
    left = [(x, z) for (x, z) in grid(2.0, 2.8, 4, 3, 1.6)][:10]
    right = [(36 - x, z) for (x, z) in left]
    out["corridor_swap"] = [agent(a, b) for a, b in zip(left, right)] + \
        [agent(b, a) for a, b in zip(left, right)]
    # Door, one way: 30 agents in room A (6 x 5, 1.6 m apart) to the same places in room B.
    a = grid(2.0, 2.4, 6, 5, 1.6)
    out["door_oneway"] = [agent(p, (x + 13, z)) for p, (x, z) in zip(a, a)]
    # Door, both ways: 8 agents per room swapping to the mirror place.
    a = grid(3.0, 3.0, 4, 2, 1.8)
    out["door_swap"] = [agent(p, (25 - p[0], p[1])) for p in a] + \
        [agent((25 - p[0], p[1]), p) for p in a]
    # Crossing flows: 12 agents west to east (3 x 4 block, 1.3 m apart across) and 12 south to north.
    west = grid(2.0, 18.1, 3, 4, 1.3)
    south = [(z, x) for (x, z) in west]
    out["crossing"] = [agent(p, (40 - p[0], p[1])) for p in west] + \
        [agent(p, (p[0], 40 - p[1])) for p in south]
    # Circle swap: 24 agents on a circle of radius 12 about the square's centre, each to the
    # opposite point.
    n, r = 24, 12.0
    ring = [(20 + r * math.cos(2 * math.pi * i / n), 20 + r * math.sin(2 * math.pi * i / n))
            for i in range(n)]
    out["circle_swap"] = [agent(p, ring[(i + n // 2) % n]) for i, p in enumerate(ring)]
    # Bottleneck exit: 40 agents in the room (8 x 5, 1.6 m apart) to a grid of places in the
    # yard.
    room = grid(2.0, 4.0, 8, 5, 1.6)
    yard = grid(21.0, 4.0, 8, 5, 1.6)
    out["bottleneck_exit"] = [agent(p, q) for p, q in zip(room, yard)]
    return out


LEVEL_OF = {"corridor_swap": "corridor", "door_oneway": "door", "door_swap": "door",
            "crossing": "crossing", "circle_swap": "open", "bottleneck_exit": "bottleneck"}

# Random agents on RecastDemo's levels, which lie beside the repository (../shared, not part of
# it): a scenario names them by a path that leaves the suite's folder, so, like a .gset naming a
# mesh outside its folder, it is read only with --allow-outside-paths (the suite's benchmark and
# tests allow it for the project's own suite).
RECASTDEMO = "../../../shared/meshes/recastdemo"
RANDOM = {"dungeon_random": "dungeon.obj", "nav_test_random": "nav_test.obj"}

if __name__ == "__main__":
    os.makedirs("scenarios/crowd/levels", exist_ok=True)
    for name, rects in LEVELS.items():
        write_obj(f"scenarios/crowd/levels/{name}.obj", rects)
    files = {name: {"level": f"levels/{LEVEL_OF[name]}.obj", "seconds": 120, "agents": agents}
             for name, agents in scenarios().items()}
    for name, mesh in RANDOM.items():
        files[name] = {"level": f"{RECASTDEMO}/{mesh}", "seconds": 60,
                       "random": {"agents": 100, "seeds": [1, 2, 3, 4, 5]}}
    for name, scenario in files.items():
        with open(f"scenarios/crowd/{name}.json", "w") as f:
            json.dump(scenario, f, indent=1)
            f.write("\n")
