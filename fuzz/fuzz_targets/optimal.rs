//! The optimal path search (issue 22): random levels of 2 m cells (holes where the bytes say,
//! an optional platform over part of them, an optional off-mesh link), built solo or tiled,
//! and fuzzed pairs, filters and node limits. Never a panic or a hang; every optimal path
//! that arrives is no longer than Detour's straight path between the same points (the
//! upper bound the issue names), and starts and ends where the path's ends are.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use glam::Vec3;
use libfuzzer_sys::fuzz_target;
use navkit::query::{OptimalOptions, PathOptions, QueryFilter};
use navkit::{InputGeometry, NavMeshBuilder, OffMeshConnection, TriMesh};
use navkit_fuzz::P;

/// A point: fuzzed as is (NaN, infinities, far away), or on the level's 16 m square.
#[derive(Debug, Arbitrary)]
enum Pt {
    Any(P),
    On(u8, u8, u8),
}

impl Pt {
    fn at(&self) -> Vec3 {
        match self {
            Pt::Any(p) => p.0,
            Pt::On(x, y, z) => Vec3::new(f32::from(*x) / 16.0, f32::from(*y % 4), f32::from(*z) / 16.0),
        }
    }
}

#[derive(Debug)]
struct Input {
    /// Rows of cells, each a bit mask (bit set: a hole), 2..=8 rows of 8 cells.
    holes: Vec<u8>,
    platform: bool,
    link: bool,
    tiled: bool,
    pairs: Vec<(Pt, Pt, u8, u16)>,
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let rows = 2 + usize::from(u.arbitrary::<u8>()? % 7);
        let holes = (0..rows).map(|_| u.arbitrary()).collect::<arbitrary::Result<_>>()?;
        let (platform, link, tiled) = (u.arbitrary()?, u.arbitrary()?, u.arbitrary()?);
        let mut pairs = Vec::new();
        while !u.is_empty() && pairs.len() < 8 {
            pairs.push(u.arbitrary()?);
        }
        Ok(Input {
            holes,
            platform,
            link,
            tiled,
            pairs,
        })
    }
}

fn quad(verts: &mut Vec<f32>, tris: &mut Vec<i32>, c: [[f32; 3]; 4]) {
    let base = (verts.len() / 3) as i32;
    for p in c {
        verts.extend_from_slice(&p);
    }
    tris.extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
}

fn level(input: &Input) -> Option<InputGeometry> {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    for (r, &row) in input.holes.iter().enumerate() {
        for c in 0..8 {
            if row >> c & 1 == 0 {
                let (x, z) = (c as f32 * 2.0, r as f32 * 2.0);
                quad(&mut v, &mut t, [[x, 0.0, z], [x + 2.0, 0.0, z], [x + 2.0, 0.0, z + 2.0], [x, 0.0, z + 2.0]]);
            }
        }
    }
    if input.platform {
        quad(&mut v, &mut t, [[2.0, 3.0, 0.0], [12.0, 3.0, 0.0], [12.0, 3.0, 4.0], [2.0, 3.0, 4.0]]);
        quad(&mut v, &mut t, [[12.0, 3.0, 0.0], [20.0, 0.0, 0.0], [20.0, 0.0, 4.0], [12.0, 3.0, 4.0]]);
    }
    // Every cell a hole and no platform: no level (TriMesh's typed error).
    let mut geom = InputGeometry::from_mesh(TriMesh::new(v, t).ok()?);
    if input.link {
        geom.off_mesh_connections.push(OffMeshConnection::new(
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(15.0, 0.0, 1.0),
            0.6,
        ));
    }
    Some(geom)
}

fn xz(a: Vec3, b: Vec3) -> f32 {
    Vec3::new(a.x - b.x, 0.0, a.z - b.z).length()
}

fn check(nav: &navkit::NavMesh, input: &Input) {
    let mut q = nav.query().expect("query");
    for (a, b, exclude, limit) in &input.pairs {
        let filter = QueryFilter::default().with_include_exclude(0xffff, u16::from(*exclude));
        let options = PathOptions {
            smooth: None,
            optimal: Some(OptimalOptions {
                max_nodes: usize::from(*limit) * 16,
                crossings: limit % 2 == 0,
            }),
            ..PathOptions::default()
        };
        let Ok(p) = q.path(a.at(), b.at(), &filter, &options) else {
            continue;
        };
        let o = p.optimal.expect("asked for");
        let first = o.points.first().expect("a start").pos;
        assert!(xz(first, p.start.point) < 1e-3, "starts at {first}, not {}", p.start.point);
        if o.status.is_complete() && p.straight.status.is_complete() {
            let last = o.points.last().expect("an end").pos;
            assert!(xz(last, p.goal.point) < 1e-3, "ends at {last}");
            let detour: f32 = p.straight.points.windows(2).map(|w| xz(w[0].pos, w[1].pos)).sum();
            assert!(
                o.length_xz <= detour * (1.0 + 1e-4) + 1e-3,
                "optimal {} longer than Detour's {detour}",
                o.length_xz
            );
        }
    }
}

fuzz_target!(|input: Input| {
    let Some(geom) = level(&input) else {
        return;
    };
    let builder = NavMeshBuilder::new(&geom).tile_size(16);
    if input.tiled {
        if let Ok(t) = builder.tiled() {
            check(t.navmesh(), &input);
        }
    } else if let Ok(s) = builder.solo() {
        check(s.navmesh(), &input);
    }
});
