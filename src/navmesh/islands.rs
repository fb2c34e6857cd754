//! [`Islands`]: the separate parts of a navmesh, the groups of polygons joined by links, which a
//! path can never leave. A goal on another island is never reached (the path is partial), so
//! simulations pick start and goal on one island, and a random goal on the start's island.

use glam::Vec3;
use rustc_hash::FxHashMap;

use super::NavMesh;
use crate::ffi::PolyRef;
use crate::{Aabb, Error, Result};

/// One island of a navmesh ([`NavMesh::islands`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Island {
    /// Its ground polygons (off-mesh links not counted).
    pub polys: usize,
    /// Its surface area in square metres: the sum of its detail triangles' areas in 3D.
    pub area: f32,
    /// The bounds of its detail triangles.
    pub bounds: Aabb,
    /// Its centre: the area-weighted mean of its detail triangles' centroids.
    pub centre: Vec3,
    /// The farthest any of its detail triangles' corners lies from [`Island::centre`]
    /// (habitat-sim's island radius).
    pub radius: f32,
}

/// The islands of a navmesh: connected parts, counting every link (across polygon edges and
/// tile borders, and off-mesh links in either direction) as a connection. Island 0 is the
/// largest by area, then in decreasing area.
///
/// Links are taken as they are, whatever a query filter would let a path use, and both ways:
/// a one-way off-mesh link joins two islands into one even though a path can only take it one
/// way.
///
/// ```
/// # fn f(navmesh: &navkit::NavMesh) -> navkit::Result<()> {
/// let islands = navmesh.islands();
/// println!("{} islands, the largest {:.0} m2", islands.len(), islands.get(0).map_or(0.0, |i| i.area));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Islands {
    of_poly: FxHashMap<PolyRef, u32>,
    islands: Vec<Island>,
    /// Every detail triangle, grouped by island (island `i`'s are
    /// `triangles[starts[i]..starts[i + 1]]`), with its polygon.
    triangles: Vec<(PolyRef, [Vec3; 3])>,
    starts: Vec<usize>,
    /// The running sum of the areas of each island's triangles, for random points.
    cumulative: Vec<f32>,
}

/// Union-find over polygon indices, with path halving.
fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// A triangle's area in 3D.
fn area(t: &[Vec3; 3]) -> f32 {
    0.5 * (t[1] - t[0]).cross(t[2] - t[0]).length()
}

impl NavMesh {
    /// The navmesh's islands (see [`Islands`]).
    pub fn islands(&self) -> Islands {
        let polys = self.polys();
        let index: FxHashMap<PolyRef, usize> =
            polys.iter().enumerate().map(|(i, p)| (p.poly, i)).collect();
        let mut parent: Vec<usize> = (0..polys.len()).collect();
        let mut around = Vec::new();
        for (i, p) in polys.iter().enumerate() {
            self.neighbours_into(p.poly, &mut around);
            for n in &around {
                if let Some(&j) = index.get(n) {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        let roots: Vec<usize> = (0..polys.len()).map(|i| find(&mut parent, i)).collect();
        let mut tris: Vec<(usize, PolyRef, [Vec3; 3])> = Vec::new();
        for (i, p) in polys.iter().enumerate() {
            if let Some(d) = self.poly(p.poly).and_then(|v| v.detail()) {
                tris.extend(d.triangles().map(|t| (roots[i], p.poly, t.verts)));
            }
        }
        Islands::from_parts(&polys, &roots, tris)
    }
}

/// Each island's summary, by root: ground polygons, area, bounds, centre and radius.
fn summaries(
    polys: &[super::PolyInfo],
    roots: &[usize],
    tris: &[(usize, PolyRef, [Vec3; 3])],
) -> FxHashMap<usize, Island> {
    let mut by_root: FxHashMap<usize, Island> = FxHashMap::default();
    for (i, p) in polys.iter().enumerate() {
        let e = by_root.entry(roots[i]).or_insert(Island {
            polys: 0,
            area: 0.0,
            bounds: Aabb::new(Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            centre: Vec3::ZERO,
            radius: 0.0,
        });
        e.polys += usize::from(!p.off_mesh);
    }
    for (root, _, t) in tris {
        let e = by_root
            .get_mut(root)
            .expect("every triangle's poly has a root");
        let a = area(t);
        e.area += a;
        // The weighted centroids' sum for now; divided by the area below.
        e.centre += (t[0] + t[1] + t[2]) / 3.0 * a;
        let b = Aabb::from_points(t.iter().copied()).expect("three points");
        e.bounds = e.bounds.union(&b);
    }
    for e in by_root.values_mut() {
        e.centre = if e.area > 0.0 {
            e.centre / e.area
        } else {
            e.bounds.center()
        };
    }
    for (root, _, t) in tris {
        let e = by_root
            .get_mut(root)
            .expect("every triangle's poly has a root");
        e.radius = t.iter().fold(e.radius, |r, v| r.max(v.distance(e.centre)));
    }
    by_root
}

impl Islands {
    /// The islands from each polygon's root (the smallest polygon index of its part) and the
    /// detail triangles with their roots.
    fn from_parts(
        polys: &[super::PolyInfo],
        roots: &[usize],
        mut tris: Vec<(usize, PolyRef, [Vec3; 3])>,
    ) -> Islands {
        let by_root = summaries(polys, roots, &tris);
        // The roots by decreasing area.
        let mut order: Vec<usize> = by_root.keys().copied().collect();
        order.sort_by(|a, b| by_root[b].area.total_cmp(&by_root[a].area).then(a.cmp(b)));
        let rank: FxHashMap<usize, u32> = order
            .iter()
            .enumerate()
            .map(|(k, &r)| (r, k as u32))
            .collect();
        let of_poly = polys
            .iter()
            .enumerate()
            .map(|(i, p)| (p.poly, rank[&roots[i]]))
            .collect();
        tris.sort_by_key(|t| rank[&t.0]);
        let mut starts = vec![0; order.len() + 1];
        for t in &tris {
            starts[rank[&t.0] as usize + 1] += 1;
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        let mut cumulative = Vec::with_capacity(tris.len());
        for k in 0..order.len() {
            let mut sum = 0.0;
            for t in &tris[starts[k]..starts[k + 1]] {
                sum += area(&t.2);
                cumulative.push(sum);
            }
        }
        Islands {
            of_poly,
            islands: order.iter().map(|r| by_root[r]).collect(),
            triangles: tris.into_iter().map(|(_, r, t)| (r, t)).collect(),
            starts,
            cumulative,
        }
    }

    /// How many islands there are.
    pub fn len(&self) -> usize {
        self.islands.len()
    }

    /// True for a navmesh without polygons.
    pub fn is_empty(&self) -> bool {
        self.islands.is_empty()
    }

    /// Island `index` (0 is the largest).
    pub fn get(&self, index: usize) -> Option<&Island> {
        self.islands.get(index)
    }

    /// Every island, largest first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Island> {
        self.islands.iter()
    }

    /// The island polygon `poly` belongs to; `None` for a polygon of no island here (stale, or
    /// of another navmesh).
    pub fn island_of(&self, poly: PolyRef) -> Option<usize> {
        self.of_poly.get(&poly).map(|&i| i as usize)
    }

    /// A random point of island `index`, uniform over its surface (its detail triangles,
    /// weighted by area), and its polygon. `random` gives numbers in [0, 1) (others are
    /// clamped); the same numbers give the same point. An island out of range, or one without
    /// surface (off-mesh links alone), is [`Error::InvalidArgument`].
    pub fn random_point(
        &self,
        index: usize,
        mut random: impl FnMut() -> f32,
    ) -> Result<(PolyRef, Vec3)> {
        let bad = || {
            Error::InvalidArgument(format!(
                "island {index} of {} has no surface to draw a point from",
                self.len()
            ))
        };
        let (a, b) = match (self.starts.get(index), self.starts.get(index + 1)) {
            (Some(&a), Some(&b)) if b > a => (a, b),
            _ => return Err(bad()),
        };
        let sums = &self.cumulative[a..b];
        let total = sums[sums.len() - 1];
        let unit = |r: f32| {
            if r.is_finite() {
                r.clamp(0.0, 1.0)
            } else {
                0.5
            }
        };
        let pick = unit(random()) * total;
        let k = sums.partition_point(|&s| s <= pick).min(sums.len() - 1);
        let (poly, t) = self.triangles[a + k];
        let (mut u, mut v) = (unit(random()), unit(random()));
        if u + v > 1.0 {
            (u, v) = (1.0 - u, 1.0 - v);
        }
        Ok((poly, t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v))
    }
}
