//! Centripetal Catmull-Rom splines through navmesh straight paths, sampled by arc length and
//! projected onto the navmesh: every `pf` query of nav_mesh_test.txt on nav_test.obj.

mod common;

use glam::Vec3;
use navkit::agents::spline::{Spline, project_onto_navmesh, spline_path};

use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
use navkit::tools::testcase::{TestCase, TestKind};

/// RecastDemo's default agent radius.
const AGENT_RADIUS: f32 = 0.6;
const SPACING: f32 = 0.25;

fn xz(a: Vec3, b: Vec3) -> f32 {
    Vec3::new(a.x - b.x, 0.0, a.z - b.z).length()
}

#[test]
fn splines_through_recastdemo_straight_paths() {
    let built = common::build("nav_test.obj");
    let case = TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt"))
        .expect("load test case");
    let mut q = NavMeshQuery::new(built.navmesh(), 2048).expect("query");
    let filter = QueryFilter::default();

    let (mut queries, mut samples_total, mut slid) = (0, 0, 0);
    let mut worst_end: f32 = 0.0; // projected first/last sample to the path's nearest-poly ends
    let mut worst_end_xz: f32 = 0.0; // ... to the straight path's ends, in xz
    let mut worst_end_y: f32 = 0.0; // ... to the straight path's ends, in height
    let mut worst_xz: f32 = 0.0; // projected sample to its unprojected sample, in xz
    let mut worst_off: f32 = 0.0; // projected sample to the navmesh, in xz (0: over a polygon)
    let (mut min_ratio, mut max_ratio) = (f32::INFINITY, 0.0f32); // spline / straight length
    let mut worst_gap: f32 = 0.0; // relative error of unprojected sample spacing (last excluded)
    for t in case.queries.iter().filter(|t| t.kind == TestKind::Pathfind) {
        let fp = q
            .path(t.start, t.end, &filter, &PathOptions::default())
            .unwrap_or_else(|e| panic!("line {}: {e}", t.line));
        let corners = fp.straight.positions();
        if corners.len() < 2 {
            continue;
        }
        queries += 1;
        let spline = Spline::new(&corners).unwrap();
        let samples = spline.sample_by_arc_length(SPACING).unwrap();
        let projected = project_onto_navmesh(&mut q, &filter, &samples)
            .unwrap_or_else(|e| panic!("line {}: {e}", t.line));
        assert_eq!(projected.len(), samples.len());
        samples_total += samples.len();

        let (first, last) = (corners[0], *corners.last().unwrap());
        assert_eq!(samples[0], first, "line {}", t.line);
        assert_eq!(*samples.last().unwrap(), last, "line {}", t.line);
        // The straight path starts and ends at the query points themselves, whose heights are
        // those of the level geometry; on the navmesh they are the nearest-poly points, at the
        // height of the detail surface (here up to 0.1 above). Compare with those in 3D, and with
        // the straight path's ends in xz.
        let e = projected[0]
            .distance(fp.start.point)
            .max(projected.last().unwrap().distance(fp.goal.point));
        let e_xz = xz(projected[0], first).max(xz(*projected.last().unwrap(), last));
        assert!(
            e < 0.05 && e_xz < 0.05,
            "line {}: ends moved by {e} ({e_xz} in xz): {first} {last} -> {} {}",
            t.line,
            projected[0],
            projected.last().unwrap()
        );
        worst_end = worst_end.max(e);
        worst_end_xz = worst_end_xz.max(e_xz);
        worst_end_y = worst_end_y
            .max((projected[0].y - first.y).abs())
            .max((projected.last().unwrap().y - last.y).abs());

        for (i, (&s, &p)) in samples.iter().zip(&projected).enumerate() {
            let d = xz(s, p);
            let off = match q.find_nearest_poly(p, Vec3::new(1.0, 4.0, 1.0), &filter) {
                Ok(n) if n.over_poly => 0.0,
                Ok(n) => xz(n.point, p),
                Err(_) => f32::INFINITY,
            };
            assert!(
                off < 1e-3,
                "line {}: sample {i} {p} off the mesh by {off}",
                t.line
            );
            assert!(
                d <= AGENT_RADIUS,
                "line {}: sample {i} moved {d} in xz",
                t.line
            );
            worst_xz = worst_xz.max(d);
            slid += usize::from(d > 1e-3);
            worst_off = worst_off.max(off);
        }
        for w in samples[..samples.len() - 1].windows(2) {
            worst_gap = worst_gap.max((w[0].distance(w[1]) - SPACING).abs() / SPACING);
        }

        // The spline is at least as long as the straight path through the same corners, and
        // not much longer: measured at most 1.0055 times over these 21 queries (printed below).
        let (ls, lp) = (spline.length(), fp.straight.length());
        assert!(
            ls >= lp - 1e-3 && ls <= 1.01 * lp,
            "line {}: spline {ls} vs straight path {lp}",
            t.line
        );
        min_ratio = min_ratio.min(ls / lp);
        max_ratio = max_ratio.max(ls / lp);

        // The one-call pipeline gives the same points.
        assert_eq!(
            spline_path(&mut q, &filter, &corners, SPACING).unwrap(),
            projected
        );
    }
    assert!(queries > 0, "no pf query");
    println!(
        "{queries} pf queries, {samples_total} samples every {SPACING}: worst end error {worst_end:.5} \
         (straight-path ends: {worst_end_xz:.5} in xz, {worst_end_y:.4} in height), \
         worst xz move by projection {worst_xz:.4} \
         (limit {AGENT_RADIUS}; {slid} samples moved more than 1e-3), worst off-mesh {worst_off:.5}, \
         spacing error {:.3}%, spline/straight length {min_ratio:.4}..{max_ratio:.4}",
        worst_gap * 100.0
    );
    assert!(worst_gap < 0.05, "spacing error {worst_gap}");
}

#[test]
fn projection_errors_name_the_sample() {
    let built = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(built.navmesh(), 2048).expect("query");
    let filter = QueryFilter::default();
    let far = [Vec3::new(1000.0, 1000.0, 1000.0)];
    let e = project_onto_navmesh(&mut q, &filter, &far).unwrap_err();
    assert!(e.to_string().contains("sample 0"), "{e}");
    let fp = q
        .path(
            Vec3::new(18.13855, -2.370003, -21.319118),
            Vec3::new(-19.20618, -2.369133, 24.802742),
            &filter,
            &PathOptions::default(),
        )
        .unwrap();
    let mut pts = fp.straight.positions();
    pts.push(Vec3::new(f32::NAN, 0.0, 0.0));
    let e = project_onto_navmesh(&mut q, &filter, &pts).unwrap_err();
    assert!(
        e.to_string().contains(&format!("sample {}", pts.len() - 1)),
        "{e}"
    );
    assert!(
        project_onto_navmesh(&mut q, &filter, &[])
            .unwrap()
            .is_empty()
    );
}
