//! Input geometry, convex volumes and tile-cache obstacles.

use glam::Vec3;

use super::{Color, Layer, circle_points};
use crate::geometry::{ConvexVolume, TriMesh};
use crate::tilecache::{Obstacle, ObstacleShape, ObstacleState};

/// Name of the input mesh layer.
pub const MESH_LAYER: &str = "geometry.mesh";
/// Name of the convex volumes layer.
pub const CONVEX_VOLUMES_LAYER: &str = "geometry.convex_volumes";
/// Name of the obstacles layer.
pub const OBSTACLES_LAYER: &str = "geometry.obstacles";

/// The tint of triangles too steep to walk on: `duRGBA(192,128,0,255)`.
pub const UNWALKABLE_TINT: Color = Color::rgba(192, 128, 0, 255);

/// The colour `duDebugDrawTriMeshSlope` gives a triangle of unit normal `n`: grey
/// `a = 220 * (2 + n.x + n.y) / 4` (lit from +x, +y), tinted a quarter of the way toward
/// [`UNWALKABLE_TINT`] when `n.y` is below the cosine of `walkable_slope_deg`.
///
/// ```
/// use glam::Vec3;
/// use navkit::debug_draw::{Color, geometry::slope_color};
/// // A flat floor: 220 * 3 / 4 = 165.
/// assert_eq!(slope_color(Vec3::Y, 45.0), Color::rgba(165, 165, 165, 255));
/// // A wall facing +z: 220 * 2 / 4 = 110, lerped 64/255 toward (192, 128, 0).
/// assert_eq!(slope_color(Vec3::Z, 45.0), Color::rgba(130, 114, 82, 255));
/// ```
pub fn slope_color(n: Vec3, walkable_slope_deg: f32) -> Color {
    let a = (220.0 * (2.0 + n.x + n.y) / 4.0).clamp(0.0, 255.0) as u8;
    let grey = Color::rgba(a, a, a, 255);
    let thr = walkable_slope_deg.to_radians().cos();
    if n.y < thr {
        grey.lerp(UNWALKABLE_TINT, 64)
    } else {
        grey
    }
}

/// The mesh's triangles shaded by slope as RecastDemo draws its input geometry
/// ([`slope_color`]); triangles with out-of-range indices are skipped.
pub fn mesh(mesh: &TriMesh, walkable_slope_deg: f32) -> Layer {
    let mut l = Layer::new(MESH_LAYER);
    let v = |i: i32| -> Option<Vec3> {
        let i = usize::try_from(i).ok()?;
        Some(Vec3::new(
            *mesh.verts.get(i * 3)?,
            *mesh.verts.get(i * 3 + 1)?,
            *mesh.verts.get(i * 3 + 2)?,
        ))
    };
    for t in mesh.tris.chunks_exact(3) {
        let (Some(a), Some(b), Some(c)) = (v(t[0]), v(t[1]), v(t[2])) else {
            continue;
        };
        let n = (b - a).cross(c - a).normalize_or_zero();
        l.triangle([a, b, c], slope_color(n, walkable_slope_deg));
    }
    l
}

/// Convex volumes as RecastDemo's `drawConvexVolumes`: a translucent prism (top fan and
/// walls, area colour alpha 32, darker at the bottom) and its edges (alpha 220, 2 pixels):
/// per vertex a bottom edge, a top edge and an upright, and a 3-pixel point at each corner of
/// the top.
pub fn convex_volumes(volumes: &[ConvexVolume]) -> Layer {
    let mut l = Layer::new(CONVEX_VOLUMES_LAYER);
    for vol in volumes {
        let n = vol.verts.len();
        if n < 3 {
            continue;
        }
        let fill = Color::area(vol.area).with_alpha(32);
        let at = |p: Vec3, y: f32| Vec3::new(p.x, y, p.z);
        for j in 0..n {
            let (va, vb) = (vol.verts[(j + n - 1) % n], vol.verts[j]);
            l.triangle(
                [
                    at(vol.verts[0], vol.hmax),
                    at(vb, vol.hmax),
                    at(va, vol.hmax),
                ],
                fill,
            );
            l.triangle(
                [at(va, vol.hmin), at(va, vol.hmax), at(vb, vol.hmax)],
                fill.darken(),
            );
            l.triangle(
                [at(va, vol.hmin), at(vb, vol.hmax), at(vb, vol.hmin)],
                fill.darken(),
            );
        }
        let edge = Color::area(vol.area).with_alpha(220);
        for j in 0..n {
            let (va, vb) = (vol.verts[(j + n - 1) % n], vol.verts[j]);
            l.line(at(va, vol.hmin), at(vb, vol.hmin), edge.darken(), 2.0);
            l.line(at(va, vol.hmax), at(vb, vol.hmax), edge, 2.0);
            l.line(at(va, vol.hmin), at(va, vol.hmax), edge.darken(), 2.0);
        }
        for &p in &vol.verts {
            l.point(at(p, vol.hmax), edge, 3.0);
        }
    }
    l
}

/// An obstacle's colour by state, as RecastDemo's `drawObstacles`: processing yellow
/// `duRGBA(255,255,0,128)`, in the navmesh orange `duRGBA(255,192,0,192)`, being removed red
/// `duRGBA(220,0,0,128)`.
pub fn obstacle_color(state: ObstacleState) -> Color {
    match state {
        ObstacleState::Processed => Color::rgba(255, 192, 0, 192),
        ObstacleState::Removing => Color::rgba(220, 0, 0, 128),
        ObstacleState::Processing => Color::rgba(255, 255, 0, 128),
    }
}

/// One obstacle shape: a cylinder as 16 side quads and its top cap (triangles) with its rims
/// and 4 uprights (lines); a box, axis-aligned or turned about y, as its 6 faces (12
/// triangles) and 12 edges. Fill `color`, edges darkened, 2 pixels.
pub fn obstacle_shape(l: &mut Layer, shape: &ObstacleShape, color: Color) {
    let edge = color.darken();
    match *shape {
        ObstacleShape::Cylinder {
            pos,
            radius,
            height,
        } => {
            const N: usize = 16;
            let bottom = circle_points(pos, radius, N);
            let top: Vec<Vec3> = bottom.iter().map(|p| *p + Vec3::Y * height).collect();
            for i in 0..N {
                let j = (i + 1) % N;
                l.triangle([bottom[i], top[i], top[j]], color.darken());
                l.triangle([bottom[i], top[j], bottom[j]], color.darken());
                if (1..N - 1).contains(&i) {
                    l.triangle([top[0], top[i], top[j]], color);
                }
            }
            for i in 0..N {
                let j = (i + 1) % N;
                l.line(bottom[i], bottom[j], edge, 2.0);
                l.line(top[i], top[j], edge, 2.0);
            }
            for i in (0..N).step_by(N / 4) {
                l.line(bottom[i], top[i], edge, 2.0);
            }
        }
        ObstacleShape::Box { bmin, bmax } => {
            let c = |i: usize| {
                Vec3::new(
                    if i & 1 != 0 { bmax.x } else { bmin.x },
                    if i & 2 != 0 { bmax.y } else { bmin.y },
                    if i & 4 != 0 { bmax.z } else { bmin.z },
                )
            };
            box_faces(l, std::array::from_fn(c), color);
            l.box_wire(bmin, bmax, edge, 2.0);
        }
        ObstacleShape::OrientedBox {
            center,
            half_extents: h,
            y_angle,
        } => {
            let (s, co) = y_angle.sin_cos();
            let c = |i: usize| {
                let lx = if i & 1 != 0 { h.x } else { -h.x };
                let ly = if i & 2 != 0 { h.y } else { -h.y };
                let lz = if i & 4 != 0 { h.z } else { -h.z };
                center + Vec3::new(co * lx + s * lz, ly, -s * lx + co * lz)
            };
            let corners: [Vec3; 8] = std::array::from_fn(c);
            box_faces(l, corners, color);
            for i in 0..8usize {
                for bit in [1usize, 2, 4] {
                    if i & bit == 0 {
                        l.line(corners[i], corners[i | bit], edge, 2.0);
                    }
                }
            }
        }
    }
}

/// The 12 triangles of a box whose corner `i` has bit 0 for +x, bit 1 for +y, bit 2 for +z.
fn box_faces(l: &mut Layer, c: [Vec3; 8], color: Color) {
    const FACES: [[usize; 4]; 6] = [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ];
    for (k, f) in FACES.iter().enumerate() {
        // Top face full colour, the others darker, as duCalcBoxColors.
        let col = if k == 3 { color } else { color.darken() };
        l.triangle([c[f[0]], c[f[1]], c[f[2]]], col);
        l.triangle([c[f[0]], c[f[2]], c[f[3]]], col);
    }
}

/// Tile-cache obstacles ([`crate::tilecache::TileCache::obstacles`] or
/// a crowd's, [`crate::agents::crowd::Crowd::tile_cache`]), coloured by state ([`obstacle_color`]).
pub fn obstacles(obstacles: &[Obstacle]) -> Layer {
    let mut l = Layer::new(OBSTACLES_LAYER);
    for o in obstacles {
        obstacle_shape(&mut l, &o.shape, obstacle_color(o.state));
    }
    l
}
