//! Lists the islands (connected groups of polygons) of a navmesh built from a mesh, with their
//! bounds and area: handy for placing off-mesh connections.
//!
//! `cargo run --release --example islands -- ../shared/meshes/recastdemo/nav_test.obj`
use std::collections::HashMap;

use navkit::{InputGeometry, NavMeshBuilder};

fn main() -> navkit::Result<()> {
    let path = std::env::args()
        .nth(1)
        .expect("usage: islands MESH.obj|GEOM.gset");
    let geom = InputGeometry::load(&path)?;
    let built = NavMeshBuilder::new(&geom).solo()?;
    let polys = built.navmesh().polys();
    let index: HashMap<_, _> = polys.iter().enumerate().map(|(i, p)| (p.poly, i)).collect();
    let mut comp = vec![usize::MAX; polys.len()];
    let mut n = 0;
    for s in 0..polys.len() {
        if comp[s] != usize::MAX || polys[s].off_mesh {
            continue;
        }
        let mut stack = vec![s];
        comp[s] = n;
        while let Some(i) = stack.pop() {
            for nb in built.navmesh().neighbours(polys[i].poly) {
                if let Some(&j) = index.get(&nb) {
                    if comp[j] == usize::MAX && !polys[j].off_mesh {
                        comp[j] = n;
                        stack.push(j);
                    }
                }
            }
        }
        n += 1;
    }
    for c in 0..n {
        let members: Vec<_> = (0..polys.len()).filter(|&i| comp[i] == c).collect();
        let mut lo = glam::Vec3::splat(f32::MAX);
        let mut hi = glam::Vec3::splat(f32::MIN);
        for &i in &members {
            for v in &polys[i].verts {
                lo = lo.min(*v);
                hi = hi.max(*v);
            }
        }
        let first = &polys[members[0]];
        let centre = first.verts.iter().copied().sum::<glam::Vec3>() / first.verts.len() as f32;
        println!(
            "island {c}: {} polys, bounds {lo:.2} .. {hi:.2}, a point {centre:.3}",
            members.len()
        );
    }
    Ok(())
}
