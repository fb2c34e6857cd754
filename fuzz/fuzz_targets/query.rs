//! The query API on a navmesh: the fixture level's (built once), or one loaded from fuzzed
//! `MSET` bytes. Every query gets fuzzed inputs: points with NaN, infinities and huge values,
//! extents, filters (flags and area costs), counts and polygon refs (real ones and any `u32`).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use navkit::navmesh::NavMesh;
use navkit::query::{
    PathOptions, PolyRef, QueryFilter, RaycastOptions, SmoothPathOptions, StraightPathOptions,
};
use navkit_fuzz::{Count, F, P};

#[derive(Debug, Arbitrary)]
enum Ref {
    /// The `i`-th polygon (modulo the count).
    Poly(u16),
    Raw(u32),
}

#[derive(Debug, Arbitrary)]
enum Op {
    Nearest(P, P),
    Path(Ref, Ref, P, P, Count),
    PathBetween(P, P),
    Straight(P, P, Vec<Ref>, Count, bool, bool),
    Move(Ref, P, P, Count),
    Height(Ref, P),
    Closest(Ref, P),
    Raycast(Ref, P, P, Count),
    Random(Vec<F>),
    Wall(Ref, P, F),
    Circle(Ref, P, F, Count),
    Full(P, P),
    FullWith(P, P, F, F, Count, Count),
    Corridor(P, P),
    SetFlags(Ref, u16),
    SetArea(Ref, u8),
    Filter(u16, u16, u8, F),
    NewQuery(Count),
    // Issue 12, part 1: the rest of dtNavMeshQuery.
    Shape(Ref, Vec<P>, Count),
    Local(Ref, P, F, Count),
    Walls(Ref),
    QueryBox(P, P, Count),
    QueryBoxWith(P, P),
    RandomAround(Ref, P, F, Vec<F>),
    // Issue 19, part 4.
    RandomWithin(Ref, P, F, Vec<F>),
    RaycastWith(Ref, P, P, bool, Option<Ref>, Count),
    Dijkstra(Ref, Count),
    Closed(Ref),
    Boundary(Ref, P),
    ValidRef(Ref),
}

#[derive(Debug)]
struct Input {
    mset: Option<Vec<u8>>,
    ops: Vec<Op>,
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        // One in four inputs brings its own navmesh: a length, then that many bytes.
        let mset = if u.arbitrary::<u8>()? % 4 == 0 {
            let n = u.arbitrary::<u16>()? as usize;
            Some(u.bytes(n.min(u.len()))?.to_vec())
        } else {
            None
        };
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < 32 {
            ops.push(u.arbitrary()?);
        }
        Ok(Input { mset, ops })
    }
}

fuzz_target!(|input: Input| {
    let mut owned = match &input.mset {
        Some(bytes) => match NavMesh::from_mset_bytes(bytes) {
            Ok(n) => Some(n),
            Err(_) => return,
        },
        None => None,
    };
    // Flag and area changes need a navmesh of our own: a copy of the fixture.
    if owned.is_none()
        && input
            .ops
            .iter()
            .any(|o| matches!(o, Op::SetFlags(..) | Op::SetArea(..)))
    {
        owned = NavMesh::from_mset_bytes(&navkit_fuzz::level_navmesh().to_mset_bytes()).ok();
    }
    let polys: Vec<PolyRef> = match &owned {
        Some(n) => n.polys().iter().map(|p| p.poly).collect(),
        None => navkit_fuzz::level_navmesh()
            .polys()
            .iter()
            .map(|p| p.poly)
            .collect(),
    };
    let r = |x: &Ref| match *x {
        Ref::Poly(i) if !polys.is_empty() => polys[i as usize % polys.len()],
        Ref::Poly(i) => PolyRef(i.into()),
        Ref::Raw(v) => PolyRef(v),
    };
    // Navmesh edits first (a query borrows the navmesh).
    if let Some(nav) = owned.as_mut() {
        for op in &input.ops {
            match op {
                Op::SetFlags(p, f) => {
                    let _ = nav.set_poly_flags(r(p), *f);
                }
                Op::SetArea(p, a) => {
                    let _ = nav.set_poly_area(r(p), *a);
                }
                _ => {}
            }
        }
    }
    let nav: &NavMesh = owned
        .as_ref()
        .unwrap_or_else(|| navkit_fuzz::level_navmesh());
    let Ok(mut q) = nav.query() else { return };
    let mut filter = QueryFilter::default();
    for op in &input.ops {
        match op {
            Op::Nearest(c, e) => {
                let _ = q.find_nearest_poly(c.0, e.0, &filter);
            }
            Op::Path(a, b, sp, ep, n) => {
                let _ = q.find_path(r(a), r(b), sp.0, ep.0, &filter, n.0);
                // The node pool after the search (RecastDemo's nodes view): every parent is
                // another node of the pool.
                let nodes = q.search_nodes();
                for (i, node) in nodes.iter().enumerate() {
                    if let Some(p) = node.parent {
                        assert!(p < nodes.len() && p != i, "node {i}'s parent {p}");
                    }
                }
            }
            Op::PathBetween(a, b) => {
                let _ = q.path(a.0, b.0, &filter, &PathOptions::corridor_only());
            }
            Op::Straight(a, b, corridor, n, area, all) => {
                let c: Vec<PolyRef> = corridor.iter().map(r).collect();
                let opts = StraightPathOptions {
                    area_crossings: *area,
                    all_crossings: *all,
                    max_points: n.0,
                };
                let _ = q.find_straight_path(a.0, b.0, &c, &opts);
            }
            Op::Move(p, a, b, n) => {
                let _ = q.move_along_surface(r(p), a.0, b.0, &filter, n.0);
            }
            Op::Height(p, a) => {
                let _ = q.poly_height(r(p), a.0);
            }
            Op::Closest(p, a) => {
                let _ = q.closest_point_on_poly(r(p), a.0);
            }
            Op::Raycast(p, a, b, n) => {
                let opts = RaycastOptions {
                    max_path: n.0,
                    ..RaycastOptions::default()
                };
                let _ = q.raycast(r(p), a.0, b.0, &filter, &opts);
            }
            Op::Random(vals) => {
                let mut it = vals.iter().map(|f| f.0).cycle();
                let _ = q.find_random_point_with(&filter, || it.next().unwrap_or(0.5));
            }
            Op::Wall(p, c, rad) => {
                let _ = q.find_distance_to_wall(r(p), c.0, rad.0, &filter);
            }
            Op::Circle(p, c, rad, n) => {
                let _ = q.find_polys_around_circle(r(p), c.0, rad.0, &filter, n.0);
            }
            Op::Full(a, b) => {
                let _ = q.path(a.0, b.0, &filter, &PathOptions::default());
            }
            Op::FullWith(a, b, step, slop, pts, ps) => {
                let opts = SmoothPathOptions {
                    step_size: step.0,
                    slop: slop.0,
                    max_points: pts.0,
                    max_polys: ps.0,
                };
                let with = PathOptions {
                    smooth: Some(opts),
                    ..PathOptions::default()
                };
                let _ = q.path(a.0, b.0, &filter, &with);
            }
            Op::Corridor(a, b) => {
                let corners = PathOptions {
                    smooth: None,
                    ..PathOptions::default()
                };
                let _ = q.path(a.0, b.0, &filter, &corners);
            }
            Op::Filter(inc, exc, area, cost) => {
                filter = QueryFilter::with_flags(*inc, *exc);
                filter.set_area_cost(*area, cost.0);
            }
            Op::NewQuery(n) => {
                if let Ok(nq) = navkit::query::NavMeshQuery::new(nav, n.0) {
                    q = nq;
                }
            }
            Op::Shape(p, verts, n) => {
                let v: Vec<glam::Vec3> = verts.iter().map(|v| v.0).collect();
                let _ = q.find_polys_around_shape(r(p), &v, &filter, n.0);
            }
            Op::Local(p, c, rad, n) => {
                let _ = q.find_local_neighbourhood(r(p), c.0, rad.0, &filter, n.0);
            }
            Op::Walls(p) => {
                let _ = q.poly_wall_segments(r(p), &filter);
            }
            Op::QueryBox(c, h, n) => {
                let _ = q.query_polygons(c.0, h.0, &filter, n.0);
            }
            Op::QueryBoxWith(c, h) => {
                // (A collector's panic is tested in tests/queries.rs: libFuzzer's panic hook
                // aborts on any panic, caught or not.)
                let mut seen = 0usize;
                let _ = q.query_polygons_with(c.0, h.0, &filter, |b| seen += b.len());
            }
            Op::RandomAround(p, c, rad, vals) => {
                let mut it = vals.iter().map(|f| f.0).cycle();
                let _ = q.find_random_point_around_circle_with(r(p), c.0, rad.0, &filter, || {
                    it.next().unwrap_or(0.5)
                });
            }
            Op::RandomWithin(p, c, rad, vals) => {
                let mut it = vals.iter().map(|f| f.0).cycle();
                let got = q.find_random_point_within_circle_with(r(p), c.0, rad.0, &filter, || {
                    it.next().unwrap_or(0.5)
                });
                if let Ok((poly, at)) = got {
                    // On a polygon of the navmesh, inside the circle up to f32 rounding.
                    let slack = 1e-4 * (rad.0 + c.0.abs().max_element() + 1.0);
                    let (dx, dz) = (at.x - c.0.x, at.z - c.0.z);
                    assert!(nav.is_valid(poly) && at.is_finite(), "{poly} {at}");
                    assert!((dx * dx + dz * dz).sqrt() <= rad.0 + slack, "{at} outside");
                }
            }
            Op::RaycastWith(p, a, b, costs, prev, n) => {
                let opts = navkit::query::RaycastOptions {
                    use_costs: *costs,
                    prev_poly: prev.as_ref().map(r),
                    max_path: n.0,
                };
                let _ = q.raycast(r(p), a.0, b.0, &filter, &opts);
            }
            Op::Dijkstra(p, n) => {
                let _ = q.path_from_dijkstra_search(r(p), n.0);
            }
            Op::Closed(p) => {
                let _ = q.is_in_closed_list(r(p));
            }
            Op::Boundary(p, a) => {
                let _ = q.closest_point_on_poly_boundary(r(p), a.0);
            }
            Op::ValidRef(p) => {
                let _ = q.is_valid_poly_ref(r(p), &filter);
            }
            Op::SetFlags(..) | Op::SetArea(..) => {}
        }
    }
});
