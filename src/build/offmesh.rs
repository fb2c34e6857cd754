//! [`OffMeshIssue`]: the off-mesh links of a build that paths can never take, read back from
//! the built navmesh: links no query filter includes, and links an end of which Detour could not
//! connect to a polygon.

use glam::Vec3;

use crate::geometry::OffMeshConnection;
use crate::navmesh::view::{PolyType, TileView};
use crate::navmesh::{NavMesh, TileCoord};
use crate::settings::flags;

/// The poly flags the default query filter (`QueryFilter::default()`, as RecastDemo's)
/// includes: every flag but [`flags::DISABLED`]; it excludes none.
const DEFAULT_FILTER_INCLUDE: u16 = flags::ALL ^ flags::DISABLED;

/// One end of an off-mesh link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum LinkEnd {
    /// The start point (where a one-way link is entered).
    Start,
    /// The end point.
    End,
}

impl std::fmt::Display for LinkEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LinkEnd::Start => "start",
            LinkEnd::End => "end",
        })
    }
}

/// Why paths can never take an off-mesh link.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum OffMeshProblem {
    /// Its flags are 0 (the `.gset` default): Detour lets a query filter pass a polygon only if
    /// its flags share a bit with the filter's include flags, so no filter ever passes it.
    NoFlags,
    /// Its flags are only ones the default query filter leaves out ([`flags::DISABLED`]): paths
    /// with the default filter never take it.
    ExcludedByDefaultFilter {
        /// The link's flags.
        flags: u16,
    },
    /// An end lands on no polygon: Detour connects each end to the nearest polygon within the
    /// link's radius in x and z and the agent's climb in y, and found none. (A link whose start
    /// does not connect is not connected at its end either.)
    EndOffMesh {
        /// Which end.
        end: LinkEnd,
        /// The end's position.
        point: Vec3,
        /// The nearest point of the navmesh's polygons (their detail surface), if it has any.
        nearest: Option<Vec3>,
        /// The distance in x and z from the end to `nearest` (infinite without one).
        horizontal: f32,
        /// The end's height above `nearest` (negative below it; infinite without one).
        vertical: f32,
        /// The link's radius: the most `horizontal` may be.
        radius: f32,
        /// The agent's climb: the most `vertical` may be, either way.
        climb: f32,
    },
    /// The end lies more than one tile away from the tile of the start: Detour connects an end
    /// only in the start's tile or one of the 8 around it, so this one never connects, whatever
    /// is under it (use bigger tiles, or a shorter link).
    EndBeyondNeighbourTiles {
        /// The tile the start lies in (where Detour stores the link).
        start_tile: TileCoord,
        /// The tile the end lies in.
        end_tile: TileCoord,
    },
}

/// An off-mesh link of the input that paths can never take, and why: see [`OffMeshProblem`].
/// Build reports list them (`off_mesh_issues`); a link with two problems is listed twice.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OffMeshIssue {
    /// The link's index in the geometry's `off_mesh_connections`.
    pub index: usize,
    /// The link's user id.
    pub user_id: u32,
    /// What is wrong.
    pub problem: OffMeshProblem,
}

impl std::fmt::Display for OffMeshIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "off-mesh link {} (user id {}): ",
            self.index, self.user_id
        )?;
        match self.problem {
            OffMeshProblem::NoFlags => {
                f.write_str("flags 0: no query filter includes it; give it flags (e.g. JUMP)")
            }
            OffMeshProblem::ExcludedByDefaultFilter { flags } => write!(
                f,
                "flags {flags:#x}: the default query filter excludes it (disabled)"
            ),
            OffMeshProblem::EndOffMesh {
                end,
                point,
                nearest: Some(nearest),
                horizontal,
                vertical,
                radius,
                climb,
            } => write!(
                f,
                "its {end} ({:.2}, {:.2}, {:.2}) lands on no polygon: the nearest polygon, at \
                 ({:.2}, {:.2}, {:.2}), is {horizontal:.2} away in x and z (radius {radius:.2}) \
                 and {:.2} {} in y (climb {climb:.2})",
                point.x,
                point.y,
                point.z,
                nearest.x,
                nearest.y,
                nearest.z,
                vertical.abs(),
                if vertical >= 0.0 {
                    "below it"
                } else {
                    "above it"
                },
            ),
            OffMeshProblem::EndOffMesh { end, point, .. } => write!(
                f,
                "its {end} ({:.2}, {:.2}, {:.2}) lands on no polygon: the navmesh has none",
                point.x, point.y, point.z
            ),
            OffMeshProblem::EndBeyondNeighbourTiles {
                start_tile,
                end_tile,
            } => write!(
                f,
                "its end is in tile {end_tile}, more than one tile from its start's, {start_tile}: \
                 Detour connects an end only in the start's tile or the 8 around it (use bigger \
                 tiles or a shorter link)"
            ),
        }
    }
}

/// What the navmesh stores of one input link: whether Detour connected its start and its end.
#[derive(Default)]
struct Stored {
    /// The tile the link is stored in (its start's).
    tile: Option<TileCoord>,
    flags: Option<u16>,
    start: bool,
    end: bool,
}

/// The issues of the links `cons` in `navmesh` (built from them with the agent's `climb`):
/// each link is found among the tiles' off-mesh connections (Detour stores a link in the tile
/// its start lies in, and leaves out one whose start is above or below every polygon of its
/// tile), and its ends are connected if its poly has a link across edge 0 (start) or 1 (end).
pub(crate) fn off_mesh_issues(
    navmesh: &NavMesh,
    cons: &[OffMeshConnection],
    climb: f32,
) -> Vec<OffMeshIssue> {
    if cons.is_empty() {
        return Vec::new();
    }
    let stored = stored_links(navmesh, cons);
    let mut out = Vec::new();
    for (index, (c, s)) in cons.iter().zip(&stored).enumerate() {
        let mut issue = |problem| {
            out.push(OffMeshIssue {
                index,
                user_id: c.user_id,
                problem,
            })
        };
        let link_flags = s.flags.unwrap_or(c.flags);
        if link_flags == 0 {
            issue(OffMeshProblem::NoFlags);
        } else if link_flags & DEFAULT_FILTER_INCLUDE == 0 {
            issue(OffMeshProblem::ExcludedByDefaultFilter { flags: link_flags });
        }
        let end_off = |end, point| {
            let nearest = nearest_point(navmesh, point);
            end_off_mesh(end, point, nearest, c.radius, climb)
        };
        if !s.start {
            issue(end_off(LinkEnd::Start, c.start));
            // Detour did not try the end: judge it by distance.
            if let p @ OffMeshProblem::EndOffMesh {
                horizontal,
                vertical,
                ..
            } = end_off(LinkEnd::End, c.end)
                && (horizontal > c.radius || vertical.abs() > climb)
            {
                issue(p);
            }
        } else if !s.end {
            issue(match (s.tile, navmesh.calc_tile_loc(c.end)) {
                (Some(start_tile), Ok(end_tile))
                    if (start_tile.x - end_tile.x).abs() > 1
                        || (start_tile.z - end_tile.z).abs() > 1 =>
                {
                    OffMeshProblem::EndBeyondNeighbourTiles {
                        start_tile: start_tile.with_layer(0),
                        end_tile,
                    }
                }
                _ => end_off(LinkEnd::End, c.end),
            });
        }
    }
    out
}

/// For each of `cons`, what the navmesh's tiles store of it (matched by its end points,
/// radius, direction, user id, area and flags; Detour copies them unchanged).
fn stored_links(navmesh: &NavMesh, cons: &[OffMeshConnection]) -> Vec<Stored> {
    let mut stored: Vec<Stored> = cons.iter().map(|_| Stored::default()).collect();
    for tile in navmesh.tiles() {
        for sc in tile.off_mesh_connections() {
            let Some(poly) = tile.poly(sc.poly) else {
                continue;
            };
            let same = |c: &OffMeshConnection| {
                c.start == sc.start
                    && c.end == sc.end
                    && c.radius == sc.radius
                    && c.bidirectional == sc.bidirectional
                    && c.user_id == sc.user_id
                    && c.area == poly.area()
                    && c.flags == poly.flags()
            };
            let (start, end) = poly.links().fold((false, false), |(s, e), l| {
                (s || l.edge == 0, e || l.edge == 1)
            });
            for (c, s) in cons.iter().zip(stored.iter_mut()) {
                if same(c) {
                    s.tile = Some(tile.coord());
                    s.flags = Some(poly.flags());
                    s.start |= start;
                    s.end |= end;
                }
            }
        }
    }
    stored
}

/// The [`OffMeshProblem::EndOffMesh`] of `end` at `point`, `nearest` the navmesh's nearest
/// point to it.
fn end_off_mesh(
    end: LinkEnd,
    point: Vec3,
    nearest: Option<Vec3>,
    radius: f32,
    climb: f32,
) -> OffMeshProblem {
    let (horizontal, vertical) = match nearest {
        Some(n) => ((point - n).with_y(0.0).length(), point.y - n.y),
        None => (f32::INFINITY, f32::INFINITY),
    };
    OffMeshProblem::EndOffMesh {
        end,
        point,
        nearest,
        horizontal,
        vertical,
        radius,
        climb,
    }
}

/// The point of the navmesh's ground polygons (their detail triangles) nearest to `p`.
fn nearest_point(navmesh: &NavMesh, p: Vec3) -> Option<Vec3> {
    let mut best: Option<(f32, Vec3)> = None;
    for tile in navmesh.tiles() {
        if let Some(q) = nearest_in_tile(&tile, p)
            && best.is_none_or(|(d, _)| q.distance_squared(p) < d)
        {
            best = Some((q.distance_squared(p), q));
        }
    }
    best.map(|(_, q)| q)
}

fn nearest_in_tile(tile: &TileView<'_>, p: Vec3) -> Option<Vec3> {
    let mut best: Option<(f32, Vec3)> = None;
    for poly in tile.polys() {
        if poly.poly_type() != PolyType::Ground {
            continue;
        }
        let Some(detail) = poly.detail() else {
            continue;
        };
        for t in detail.triangles() {
            let q = closest_on_triangle(p, t.verts);
            if q.is_finite() && best.is_none_or(|(d, _)| q.distance_squared(p) < d) {
                best = Some((q.distance_squared(p), q));
            }
        }
    }
    best.map(|(_, q)| q)
}

/// The point of triangle `[a, b, c]` nearest to `p` (Ericson, Real-Time Collision Detection,
/// 5.1.5).
fn closest_on_triangle(p: Vec3, [a, b, c]: [Vec3; 3]) -> Vec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_filter_includes_what_the_report_says() {
        let f = crate::query::QueryFilter::default();
        assert_eq!(f.include_flags(), DEFAULT_FILTER_INCLUDE);
        assert_eq!(f.exclude_flags(), 0);
    }

    #[test]
    fn closest_point_on_a_triangle() {
        let t = [
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 2.0),
        ];
        let q = |p: Vec3| closest_on_triangle(p, t);
        assert_eq!(q(Vec3::new(0.5, 30.0, 0.5)), Vec3::new(0.5, 0.0, 0.5));
        assert_eq!(q(Vec3::new(-1.0, 0.0, -1.0)), Vec3::ZERO);
        assert_eq!(q(Vec3::new(3.0, 1.0, 0.0)), Vec3::new(2.0, 0.0, 0.0));
        assert_eq!(q(Vec3::new(1.0, 0.0, -1.0)), Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(q(Vec3::new(2.0, 0.0, 2.0)), Vec3::new(1.0, 0.0, 1.0));
    }
}
