//! The optimal path everywhere paths are (issue 22, item 4): `tools::compare` measures every
//! kind against it, the comparison pictures draw it, and the path service computes it.

mod common;

use glam::Vec3;
use navkit::debug_draw::paths::PathKind;
use navkit::query::{OptimalOptions, PathOptions, QueryFilter};
use navkit::render::{ComparisonPaths, comparison_scene};
use navkit::tools::compare::{CompareSettings, Comparer, length_xz};
use navkit::{BuildSettings, NavMeshBuilder};

fn xz(a: Vec3, b: Vec3) -> f32 {
    Vec3::new(a.x - b.x, 0.0, a.z - b.z).length()
}

/// The pillar room without erosion (agent radius 0): the navmesh's hole is the pillar's,
/// to a cell.
fn pillar_settings() -> BuildSettings {
    BuildSettings {
        agent_radius: 0.0,
        ..BuildSettings::default()
    }
}

const FROM: Vec3 = Vec3::new(10.0, 0.0, 2.0);
const TO: Vec3 = Vec3::new(10.0, 0.0, 18.0);

/// The navmesh vertex nearest `(x, z)` on the xz-plane.
fn vertex_near(nav: &navkit::NavMesh, x: f32, z: f32) -> Vec3 {
    let mut best = Vec3::splat(f32::INFINITY);
    for tile in nav.tiles() {
        for v in tile.vertices() {
            let v = Vec3::from_array(*v);
            if xz(v, Vec3::new(x, 0.0, z)) < xz(best, Vec3::new(x, 0.0, z)) {
                best = v;
            }
        }
    }
    best
}

#[test]
fn compare_measures_every_kind_over_the_hand_derived_optimum() {
    let geom = common::pillar_room();
    let builder = NavMeshBuilder::new(&geom).settings(pillar_settings());
    let built = builder.solo().unwrap();
    let grid = builder.grid().unwrap();
    let nav = built.navmesh();
    let mut cmp = Comparer::new(nav, Some(&grid), CompareSettings::default()).unwrap();
    let c = cmp.compare(FROM, TO).unwrap();
    let o = c.optimal.as_ref().expect("an optimal path");
    assert!(o.status.is_complete() && o.exact, "{o:?}");
    // Hand derivation: the taut string from the start round the hole's two corners on the
    // side it takes to the goal. The corners are the navmesh's vertices nearest the
    // pillar's (within a cell of them: no erosion).
    let side = if o.path.iter().any(|p| p.x < 9.0) {
        8.0
    } else {
        12.0
    };
    let (c1, c2) = (vertex_near(nav, side, 6.0), vertex_near(nav, side, 14.0));
    for (v, z) in [(c1, 6.0), (c2, 14.0)] {
        assert!(xz(v, Vec3::new(side, 0.0, z)) < 0.5, "corner {v}");
    }
    let n = c.navmesh.as_ref().unwrap();
    let (s, g) = (n.straight[0], *n.straight.last().unwrap());
    let hand = xz(s, c1) + xz(c1, c2) + xz(c2, g);
    assert!(
        (o.length_xz - hand).abs() < 1e-3,
        "optimal {} hand {hand}",
        o.length_xz
    );
    // ... and the pillar's own corners give 16.944 (2 sqrt(2^2 + 4^2) + 8), within the cell
    // the navmesh's corners may be off by.
    assert!((o.length_xz - 16.944).abs() < 0.6, "{}", o.length_xz);
    assert!((length_xz(&o.path) - o.length_xz).abs() < 1e-3);
    // The same as the library's path query.
    let mut q = nav.query().unwrap();
    let opts = PathOptions {
        optimal: Some(OptimalOptions::default()),
        ..PathOptions::default()
    };
    let lib = q.path(FROM, TO, &QueryFilter::default(), &opts).unwrap();
    assert_eq!(lib.optimal.as_ref().unwrap().length_xz, o.length_xz);
    // Every kind over it: the straight, smooth and spline paths on the navmesh are never
    // shorter (the smooth path may stop up to Detour's 0.01 slop short of the goal); the grid
    // path through cell centres is within its zigzag of it; the followers travel about as far.
    let r = c.over_optimal.expect("ratios");
    let straight = length_xz(&n.straight) / o.length_xz;
    assert_eq!(r.straight, Some(straight));
    assert!((1.0 - 1e-5..1.1).contains(&straight), "straight {straight}");
    for (kind, v) in [("smooth", r.smooth), ("spline", r.spline)] {
        let v = v.unwrap();
        assert!((0.999..1.2).contains(&v), "{kind} {v}");
    }
    let gr = r.grid.unwrap();
    assert!((0.97..1.15).contains(&gr), "grid {gr}");
    for (kind, v) in [
        ("follower straight", r.follower_straight),
        ("follower grid", r.follower_grid),
    ] {
        let v = v.unwrap();
        assert!((0.97..1.2).contains(&v), "{kind} {v}");
    }
    println!("optimal {} hand {hand} ratios {r:?}", o.length_xz);

    // Without the option, no optimal side and no ratios.
    let settings = CompareSettings {
        optimal: None,
        ..CompareSettings::default()
    };
    let c2 = Comparer::new(nav, None, settings)
        .unwrap()
        .compare(FROM, TO)
        .unwrap();
    assert!(c2.optimal.is_none() && c2.over_optimal.is_none());
}

#[test]
fn straight_paths_over_the_optimum_on_recastdemo_levels() {
    // Issue 22 measured Detour's straight path at +0.9% .. +1.2% over the optimum on the mean
    // and up to +27% at worst: never below it.
    for mesh in ["dungeon.obj", "nav_test.obj"] {
        let built = common::build(mesh);
        let mut cmp = Comparer::new(built.navmesh(), None, CompareSettings::default()).unwrap();
        let pairs = cmp.random_pairs(40, 3).unwrap();
        let (mut sum, mut worst) = (0.0f64, 0.0f32);
        for (a, b) in pairs {
            let c = cmp.compare(a, b).unwrap();
            let r = c.over_optimal.unwrap().straight.unwrap();
            assert!(r >= 1.0 - 1e-4, "{mesh} {a} {b}: straight/optimal {r}");
            sum += f64::from(r);
            worst = worst.max(r);
        }
        let mean = sum / 40.0;
        println!("{mesh}: straight over optimal: mean {mean:.4}, worst {worst:.4}");
        assert!(mean < 1.1 && worst < 1.5, "{mesh}: {mean} {worst}");
    }
}

#[test]
fn comparison_pictures_draw_the_optimal_path() {
    let geom = common::pillar_room();
    let built = NavMeshBuilder::new(&geom)
        .settings(pillar_settings())
        .solo()
        .unwrap();
    let nav = built.navmesh();
    let c = Comparer::new(nav, None, CompareSettings::default())
        .unwrap()
        .compare(FROM, TO)
        .unwrap();
    let o = c.optimal.as_ref().unwrap();
    let scene = comparison_scene(nav, None, Some(&c), "pillar", ComparisonPaths::ALL);
    let layer = scene
        .overlays
        .layer(PathKind::Optimal.layer_name())
        .expect("the optimal layer");
    // One segment per consecutive pair of points, in the optimal path's own style.
    assert_eq!(layer.lines().count(), o.path.len() - 1);
    assert!(layer.lines().all(|l| l.2 == PathKind::Optimal.style().0));
    let label = |start: &str| {
        scene
            .legend
            .iter()
            .find(|e| e.label.starts_with(start))
            .map(|e| e.label.clone())
            .unwrap_or_else(|| panic!("no legend entry {start}"))
    };
    assert_eq!(
        label("optimal"),
        format!(
            "optimal (shortest) path ({} points, {:.2} long on the xz-plane)",
            o.path.len(),
            o.length_xz
        )
    );
    let r = c.over_optimal.unwrap().straight.unwrap();
    assert!(label("navmesh straight path").ends_with(&format!(", {r:.3}x the optimum)")));
    // Only when asked for.
    let scene = comparison_scene(nav, None, Some(&c), "pillar", ComparisonPaths::STRAIGHT);
    assert!(scene.overlays.layer("path.optimal").is_none());
    assert!(
        ComparisonPaths::NONE
            .with(PathKind::Optimal)
            .has(PathKind::Optimal)
    );
}

#[test]
fn path_service_answers_with_the_optimal_path() {
    use navkit::service::{AgentId, PathOutcome, PathService};
    let nav = std::sync::Arc::new(common::build("dungeon.obj").into_navmesh());
    let mut q = nav.query().unwrap();
    let mut cmp = Comparer::new(&nav, None, CompareSettings::default()).unwrap();
    let pairs = cmp.random_pairs(5, 11).unwrap();
    let opts = PathOptions {
        optimal: Some(OptimalOptions::default()),
        ..PathOptions::default()
    };
    let f = QueryFilter::default();
    // Per request, over a service that does not compute it by default; and service-wide.
    let plain = PathService::new(nav.clone(), 2, PathOptions::default());
    let everyone = PathService::new(nav.clone(), 2, opts);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let want = q.path(a, b, &f, &opts).unwrap();
        let want = want.optimal.unwrap();
        let tickets = [
            plain.request_options(AgentId(i as u64), a, b, f.clone(), opts),
            everyone.request(AgentId(i as u64), a, b, f.clone()),
        ];
        for t in tickets {
            let PathOutcome::Done(Ok(p)) = t.wait() else {
                panic!("no path")
            };
            let o = p.optimal.expect("the optimal path");
            assert_eq!(o.length_xz, want.length_xz);
            assert_eq!(o.points.len(), want.points.len());
        }
        let PathOutcome::Done(Ok(p)) = plain.request(AgentId(99), a, b, f.clone()).wait() else {
            panic!("no path")
        };
        assert!(p.optimal.is_none());
    }
}
