#!/usr/bin/env python3
"""Writes navkit's demo level: demo_level.obj (geometry) and demo_level.gset (geometry set with
build settings, an off-mesh jump and a water volume). Run from anywhere; writes beside itself.

The level (y is up, units are metres):
- a 40 x 30 ground floor;
- a wall across the middle (x = 20) with a 4 m doorway;
- a 2.5 m high block in the east, too high to climb: reached only by a jump (off-mesh link);
- a platform in the north-west, 2 m up, reached by a ramp;
- a pond in the south-west, marked as water by a convex volume (costly to cross);
- a pillar in the east room to walk around.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
verts = []
faces = []


def v(x, y, z):
    verts.append((x, y, z))
    return len(verts)  # OBJ indices are 1-based


def quad_up(x0, z0, x1, z1, y):
    """A horizontal quad facing up."""
    a, b, c, d = v(x0, y, z0), v(x0, y, z1), v(x1, y, z1), v(x1, y, z0)
    faces.append((a, b, c, d))


def box(x0, z0, x1, z1, y0, y1):
    """A closed box (top facing up, sides facing out)."""
    p = {}
    for i, x in enumerate((x0, x1)):
        for j, y in enumerate((y0, y1)):
            for k, z in enumerate((z0, z1)):
                p[i, j, k] = v(x, y, z)
    faces.append((p[0, 1, 0], p[0, 1, 1], p[1, 1, 1], p[1, 1, 0]))  # top
    faces.append((p[0, 0, 0], p[1, 0, 0], p[1, 0, 1], p[0, 0, 1]))  # bottom
    faces.append((p[0, 0, 0], p[0, 1, 0], p[1, 1, 0], p[1, 0, 0]))  # z0 side
    faces.append((p[0, 0, 1], p[1, 0, 1], p[1, 1, 1], p[0, 1, 1]))  # z1 side
    faces.append((p[0, 0, 0], p[0, 0, 1], p[0, 1, 1], p[0, 1, 0]))  # x0 side
    faces.append((p[1, 0, 0], p[1, 1, 0], p[1, 1, 1], p[1, 0, 1]))  # x1 side


def ramp(x0, x1, z0, z1, y0, y1):
    """A ramp rising along +z from height y0 at z0 to y1 at z1."""
    a, b, c, d = v(x0, y0, z0), v(x0, y1, z1), v(x1, y1, z1), v(x1, y0, z0)
    faces.append((a, b, c, d))


quad_up(0, 0, 40, 30, 0.0)                 # ground
box(19.5, 0, 20.5, 13, 0, 3)               # wall, south part
box(19.5, 17, 20.5, 30, 0, 3)              # wall, north part (doorway z 13..17)
box(28, 2, 38, 10, 0, 2.5)                 # the block, reached by jumping
box(4, 22, 12, 28, 0, 2)                   # the platform
ramp(6, 10, 14, 22, 0, 2)                  # ramp up to the platform (14 degrees)
box(30, 18, 32, 20, 0, 3)                  # a pillar

with open(os.path.join(HERE, "demo_level.obj"), "w") as f:
    f.write("# navkit demo level, written by make_demo_level.py\n")
    for x, y, z in verts:
        f.write(f"v {x:g} {y:g} {z:g}\n")
    for face in faces:
        f.write("f " + " ".join(str(i) for i in face) + "\n")

with open(os.path.join(HERE, "demo_level.gset"), "w") as f:
    f.write("f demo_level.obj\n")
    # RecastDemo's default Solo Mesh settings, bounds = the mesh bounds, tile size 32.
    f.write("s 0.3 0.2 2.0 0.6 0.9 45 8 20 12 1.3 6 6 1 0 0 0 0 40 3 30 32\n")
    # A jump onto the block: start on the ground, end on top; bidirectional, area jump (5),
    # flags jump (8).
    f.write("c 26.6 0 6  29.4 2.5 6  0.6 1 5 8\n")
    # The pond: water (area 1) from y -1 to 1.
    f.write("v 4 1 -1 1\n8 0 4\n8 0 12\n16 0 12\n16 0 4\n")
    # The demo's path: from the south-west corner to the top of the block.
    f.write("# demo-path 2 0 2 33 2.5 6\n")
print("wrote demo_level.obj and demo_level.gset")
