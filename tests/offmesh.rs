//! Off-mesh connections and convex volumes from .gset files, on nav_test.obj; the links the
//! build reports say paths cannot take.

mod common;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::build::{LinkEnd, OffMeshIssue, OffMeshProblem};
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
use navkit::{BuildSettings, InputGeometry, OffMeshConnection, TriMesh, area, flags};

/// Ground floor (y -2.27) near the east side, and the raised platform at y 8.33 in the middle
/// of nav_test.obj, which no walkable slope reaches from the ground.
const GROUND: Vec3 = Vec3::new(20.161, -2.27, -18.1);
const PLATFORM: Vec3 = Vec3::new(-0.629, 8.33, -7.66);
/// A jump from the ground up onto the platform.
const JUMP_START: Vec3 = Vec3::new(-0.6, -2.27, -15.5);
const JUMP_END: Vec3 = Vec3::new(-0.63, 8.33, -12.5);
/// A landing further onto the platform: the tiled builds' polygons reach it too (they stop
/// about 0.76 m short of `JUMP_END`, more than the link's radius).
const LANDING: Vec3 = Vec3::new(-0.63, 8.33, -11.0);

/// The `.gset` names the shared mesh by its absolute path, outside the `.gset`'s folder:
/// loaded with that allowed.
fn load(gset: std::path::PathBuf) -> navkit::Result<InputGeometry> {
    let anywhere = navkit::geometry::LoadOptions {
        allow_outside_paths: true,
    };
    InputGeometry::load_with(gset, &anywhere)
}

fn gset(extra: &str) -> std::path::PathBuf {
    let path = common::temp(&format!("jump-{}.gset", extra.len()));
    let text = format!("f {}\n{extra}", common::mesh("nav_test.obj").display());
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn off_mesh_connection_joins_two_levels() {
    let with = load(gset(&format!(
        "c {} {} {}  {} {} {}  0.6 1 {} 8\n",
        JUMP_START.x,
        JUMP_START.y,
        JUMP_START.z,
        JUMP_END.x,
        JUMP_END.y,
        JUMP_END.z,
        area::JUMP
    )))
    .unwrap();
    assert_eq!(with.off_mesh_connections.len(), 1);
    let without = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let f = QueryFilter::default();
    let opts = PathOptions::default();

    // Without the connection the platform cannot be reached: partial.
    let b0 = NavMeshBuilder::new(&without)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    let mut q0 = NavMeshQuery::new(b0.navmesh(), 2048).unwrap();
    let p0 = q0.path(GROUND, PLATFORM, &f, &opts).unwrap();
    assert!(!p0.is_complete());
    assert!(!p0.straight.is_complete());
    assert_eq!(p0.smooth.off_mesh_jumps, 0);

    // With it: complete, through the connection, and the smooth path jumps.
    let b1 = NavMeshBuilder::new(&with)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    assert_eq!(b1.report().off_mesh_connections, 1);
    let mut q1 = NavMeshQuery::new(b1.navmesh(), 2048).unwrap();
    let p1 = q1.path(GROUND, PLATFORM, &f, &opts).unwrap();
    assert!(p1.is_complete());
    let off: Vec<_> = b1
        .navmesh()
        .polys()
        .into_iter()
        .filter(|p| p.off_mesh)
        .collect();
    assert_eq!(off.len(), 1);
    assert_eq!(off[0].area, area::JUMP);
    assert!(
        p1.corridor.polys.contains(&off[0].poly),
        "the corridor uses the connection"
    );
    assert!(
        p1.straight
            .points
            .iter()
            .any(|p| p.flags & navkit::query::straight_flags::OFFMESH_CONNECTION != 0)
    );
    assert_eq!(p1.smooth.off_mesh_jumps, 1);
    assert!(p1.smooth.reached_end && !p1.smooth.stuck);
    // Somewhere consecutive smooth points are ~10 units apart vertically: the jump.
    let biggest_rise = p1
        .smooth
        .points
        .windows(2)
        .map(|w| w[1].y - w[0].y)
        .fold(0.0, f32::max);
    assert!(biggest_rise > 9.0, "largest rise {biggest_rise}");
    assert!((p1.smooth.points.last().unwrap().y - PLATFORM.y).abs() < 0.2);

    // Excluding the jump flag makes the path partial again.
    let no_jump = QueryFilter::default().with_include_exclude(0xffff, navkit::flags::JUMP);
    let p2 = q1.path(GROUND, PLATFORM, &no_jump, &opts).unwrap();
    assert!(!p2.is_complete());
}

#[test]
fn convex_volume_marks_its_area() {
    // Two water volumes on the ground floor (y -2.27): a pond at x 5..15, z 5..15 (mostly over a
    // hole in the floor, x 6.4..15.5, z 6..16: only slivers at its corners are walkable), and a
    // 1 m stream at z 11..12 across the 4 m corridor that runs north-south at x 1.2..5.1, west
    // of that hole.
    let vol = "v 4 1 -5 5\n5 -2.27 5\n15 -2.27 5\n15 -2.27 15\n5 -2.27 15\n\
               v 4 1 -5 5\n0 -2.27 11\n6 -2.27 11\n6 -2.27 12\n0 -2.27 12\n";
    let geom = load(gset(vol)).unwrap();
    assert_eq!(geom.convex_volumes.len(), 2);
    let b = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    let water: Vec<_> = b
        .navmesh()
        .polys()
        .into_iter()
        .filter(|p| p.area == area::WATER)
        .collect();
    assert!(!water.is_empty());
    let in_pond = |v: &Vec3| (4.0..=16.0).contains(&v.x) && (4.0..=16.0).contains(&v.z);
    let in_stream = |v: &Vec3| (-1.0..=7.0).contains(&v.x) && (10.0..=13.0).contains(&v.z);
    for p in &water {
        assert_eq!(p.flags, navkit::flags::SWIM);
        assert!(
            p.verts.iter().all(in_pond) || p.verts.iter().all(in_stream),
            "{:?}",
            p.verts
        );
    }
    assert!(water.iter().any(|p| p.verts.iter().all(in_stream)));
    // Up the corridor across the stream: the default filter (water costs 10 per metre) wades
    // straight through, 6 m, rather than walk 40 m or more round the hole.
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let (a, z) = (Vec3::new(3.0, -2.27, 8.5), Vec3::new(3.0, -2.27, 14.5));
    let is_water =
        |poly: &navkit::query::PolyRef| b.navmesh().poly_area(*poly).unwrap() == area::WATER;
    let wet = q
        .path(a, z, &QueryFilter::default(), &PathOptions::default())
        .unwrap();
    assert!(wet.is_complete());
    assert!(
        wet.corridor.polys.iter().any(is_water),
        "the default path wades"
    );
    assert!(
        (wet.straight.length() - 6.0).abs() < 0.01,
        "{}",
        wet.straight.length()
    );
    // Swimming excluded: no water poly in the path, which goes round the hole instead
    // (measured 44.6 m).
    let dry = QueryFilter::default().with_include_exclude(navkit::flags::WALK, 0);
    let p = q.path(a, z, &dry, &PathOptions::default()).unwrap();
    assert!(p.is_complete());
    assert!(!p.corridor.polys.iter().any(is_water), "the dry path wades");
    let len = p.straight.length();
    assert!((44.0..45.0).contains(&len), "{len}");
}

/// The off-mesh issues of the solo build of `geom`; the tiled (32-cell tiles of 9.6 m) and
/// tile-cache (48-cell tiles) builds must report the same (to the centimetre: their polygons
/// differ by float rounding).
fn issues(geom: &InputGeometry) -> Vec<OffMeshIssue> {
    let solo = NavMeshBuilder::new(geom).solo().unwrap();
    let tiled = NavMeshBuilder::new(geom).tile_size(32).tiled().unwrap();
    let cache = NavMeshBuilder::new(geom)
        .tile_size(48)
        .tile_cache()
        .unwrap();
    let r = solo.report().off_mesh_issues.clone();
    let text = |i: &[OffMeshIssue]| i.iter().map(|i| i.to_string()).collect::<Vec<_>>();
    assert_eq!(text(&tiled.report().off_mesh_issues), text(&r), "tiled");
    assert_eq!(
        text(&cache.report().off_mesh_issues),
        text(&r),
        "tile cache"
    );
    r
}

/// The horizontal and vertical distances of the one issue in `found`, which must be `end`
/// landing on no polygon.
fn only_end_off(found: &[OffMeshIssue], end: LinkEnd) -> (f32, f32) {
    match found {
        [
            OffMeshIssue {
                problem:
                    OffMeshProblem::EndOffMesh {
                        end: e,
                        horizontal,
                        vertical,
                        ..
                    },
                ..
            },
        ] if *e == end => (*horizontal, *vertical),
        _ => panic!("not just the {end} off the mesh: {found:?}"),
    }
}

/// nav_test.obj with `links`.
fn nav_test_with(links: Vec<OffMeshConnection>) -> InputGeometry {
    let mut g = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    g.off_mesh_connections = links;
    g
}

/// A flat 20 m square floor at y = 0 with `links`.
fn floor_with(links: Vec<OffMeshConnection>) -> InputGeometry {
    let verts = vec![
        0.0, 0.0, 0.0, 0.0, 0.0, 20.0, 20.0, 0.0, 20.0, 20.0, 0.0, 0.0,
    ];
    let mut g = InputGeometry::from_mesh(TriMesh::new(verts, vec![0, 1, 2, 0, 2, 3]).unwrap());
    g.off_mesh_connections = links;
    g
}

#[test]
fn a_link_is_made_as_recastdemos_tool_makes_it() {
    let c = OffMeshConnection::new(JUMP_START, JUMP_END, 0.6);
    assert_eq!(
        c,
        OffMeshConnection {
            start: JUMP_START,
            end: JUMP_END,
            radius: 0.6,
            bidirectional: true,
            area: area::JUMP,
            flags: flags::JUMP,
            user_id: 0,
        }
    );
    let d = c
        .clone()
        .one_way()
        .with_area(area::WATER)
        .with_user_id(1000);
    assert!(!d.bidirectional);
    assert_eq!(
        (d.area, d.flags, d.user_id),
        (area::WATER, flags::SWIM, 1000)
    );
    assert_eq!(d.clone().with_flags(flags::ALL).flags, flags::ALL);
    assert!(d.with_bidirectional(true).bidirectional);
    // The jump made with the constructor joins the two levels (the test above, by hand).
    let b = NavMeshBuilder::new(&nav_test_with(vec![c])).solo().unwrap();
    assert!(ground_to_platform_complete(b.navmesh()));
}

#[test]
fn good_links_give_no_issues() {
    // nav_test's jump onto the platform, the other way too.
    let jump = OffMeshConnection::new(JUMP_START, LANDING, 0.6).with_user_id(1000);
    let back = OffMeshConnection::new(LANDING, JUMP_START, 0.6).one_way();
    assert_eq!(issues(&nav_test_with(vec![jump, back])), []);
    // The demo level's jump onto the block (its .gset), with its own settings.
    let demo = InputGeometry::load("meshes/demo_level.gset").unwrap();
    assert_eq!(demo.off_mesh_connections.len(), 1);
    assert_eq!(issues(&demo), []);
    // A jump across dungeon.obj into the next tile (the default 32-cell tiles of 9.6 m).
    let mut dungeon = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    let jump = |start, end| OffMeshConnection::new(start, end, 0.6).with_user_id(1000);
    let across = jump(Vec3::new(18.0, 10.2, -46.0), Vec3::new(12.0, 10.2, -38.0));
    dungeon.off_mesh_connections = vec![across];
    assert_eq!(issues(&dungeon), []);
    // The tiled tests' long jump ends at x 19, where there is no floor: 6.5 m from the
    // nearest polygon.
    let long = |end| jump(Vec3::new(18.0, 9.998, -46.0), end);
    dungeon.off_mesh_connections = vec![long(Vec3::new(19.0, 9.998, -20.0))];
    let solo = NavMeshBuilder::new(&dungeon).solo().unwrap();
    let (horizontal, _) = only_end_off(&solo.report().off_mesh_issues, LinkEnd::End);
    assert!((6.4..6.6).contains(&horizontal), "{horizontal}");
    // On the floor at x 11 it lands in the solo build; the tiled build cannot connect it: its
    // end is 2 tiles from its start's (26 m of 9.6 m tiles).
    dungeon.off_mesh_connections = vec![long(Vec3::new(11.0, 9.998, -20.0))];
    assert_eq!(
        NavMeshBuilder::new(&dungeon)
            .solo()
            .unwrap()
            .report()
            .off_mesh_issues,
        []
    );
    let tiled = NavMeshBuilder::new(&dungeon).tiled().unwrap();
    let found = &tiled.report().off_mesh_issues;
    let [
        OffMeshIssue {
            problem:
                OffMeshProblem::EndBeyondNeighbourTiles {
                    start_tile,
                    end_tile,
                },
            ..
        },
    ] = found[..]
    else {
        panic!("{found:?}")
    };
    assert!(
        (end_tile.z - start_tile.z).abs() > 1,
        "{start_tile} {end_tile}"
    );
    assert!(
        found[0].to_string().contains("bigger tiles"),
        "{}",
        found[0]
    );
}

#[test]
fn a_link_no_filter_includes_is_reported() {
    // Flags 0, the .gset default when a `c` line has no area and flags.
    let jump = OffMeshConnection::new(JUMP_START, LANDING, 0.6);
    let g = nav_test_with(vec![jump.clone().with_flags(0).with_user_id(1000)]);
    let found = issues(&g);
    assert_eq!(
        found,
        [OffMeshIssue {
            index: 0,
            user_id: 1000,
            problem: OffMeshProblem::NoFlags,
        }]
    );
    assert!(found[0].to_string().contains("flags 0"), "{}", found[0]);
    // Built and counted all the same, and no path takes it.
    let b = NavMeshBuilder::new(&g).solo().unwrap();
    assert_eq!(b.report().off_mesh_connections, 1);
    assert!(!ground_to_platform_complete(b.navmesh()));

    // Only the flag the default filter excludes; the good link before it is not listed.
    let g = nav_test_with(vec![jump.clone(), jump.with_flags(flags::DISABLED)]);
    assert_eq!(
        issues(&g),
        [OffMeshIssue {
            index: 1,
            user_id: 0,
            problem: OffMeshProblem::ExcludedByDefaultFilter {
                flags: flags::DISABLED
            },
        }]
    );
}

#[test]
fn a_link_whose_end_floats_above_the_mesh_is_reported_with_the_distance() {
    // From the floor at (12, 0, 12) to 30 m above (15, 0, 15). Detour looks for a polygon within
    // the radius (0.6) in x and z and the climb (0.9) in y of each end: the start has the
    // floor, the end none. The nearest polygon point to the end is the floor right under it:
    // 0 away in x and z, and 30 m below less the navmesh's height over the triangles there
    // (Recast puts the floor of a flat ground at most a cell height or two, 0.2 m each, above
    // the triangles).
    let start = Vec3::new(12.0, 0.0, 12.0);
    let end = Vec3::new(15.0, 30.0, 15.0);
    let link = OffMeshConnection::new(start, end, 0.6).with_user_id(1000);
    let found = issues(&floor_with(vec![link.clone()]));
    assert_eq!(found.len(), 1, "{found:?}");
    let OffMeshProblem::EndOffMesh {
        end: which,
        point,
        nearest: Some(nearest),
        horizontal,
        vertical,
        radius,
        climb,
    } = found[0].problem
    else {
        panic!("{found:?}")
    };
    assert_eq!((found[0].index, found[0].user_id), (0, 1000));
    assert_eq!((which, point, radius, climb), (LinkEnd::End, end, 0.6, 0.9));
    assert!(horizontal < 1e-3, "{horizontal}");
    assert!((0.0..=0.4).contains(&nearest.y), "{nearest}");
    assert!((29.6..=30.0).contains(&vertical), "{vertical}");
    assert_eq!(vertical, end.y - nearest.y);
    let text = found[0].to_string();
    assert!(
        text.contains("its end (15.00, 30.00, 15.00) lands on no polygon")
            && text.contains("below it in y (climb 0.90)"),
        "{text}"
    );

    // The other way round the start floats: Detour then leaves the link out of the tile
    // (the start is above every polygon), and the end, on the floor, is fine.
    let back = OffMeshConnection::new(end, start, 0.6);
    let found = issues(&floor_with(vec![back]));
    assert!(
        matches!(
            found[..],
            [OffMeshIssue {
                problem: OffMeshProblem::EndOffMesh {
                    end: LinkEnd::Start,
                    ..
                },
                ..
            }]
        ),
        "{found:?}"
    );
    // An end 2 m past the floor's side (x = 20), at its height: the walkable area stops the
    // agent radius (0.6 m) short of the side, so the nearest polygon is about 2.6 m away in x.
    let side = OffMeshConnection::new(start, Vec3::new(22.0, 0.0, 10.0), 0.6);
    let (horizontal, vertical) = only_end_off(&issues(&floor_with(vec![side])), LinkEnd::End);
    assert!((2.0..=3.0).contains(&horizontal), "{horizontal}");
    assert!(vertical.abs() < 0.5, "{vertical}");
}

#[test]
fn a_link_that_lands_in_the_solo_build_but_not_between_tiles_is_reported_for_the_tiles() {
    // nav_test's jump as the first test makes it: the solo build's platform polygon reaches
    // its end; the tiled build's (32-cell tiles) and the tile cache's stop 0.73 to 0.76 m short
    // of it in x and z, past the link's radius, and their paths onto the platform are partial.
    let g = nav_test_with(vec![OffMeshConnection::new(JUMP_START, JUMP_END, 0.6)]);
    let solo = NavMeshBuilder::new(&g).solo().unwrap();
    assert_eq!(solo.report().off_mesh_issues, []);
    let tiled = NavMeshBuilder::new(&g).tile_size(32).tiled().unwrap();
    let cache = NavMeshBuilder::new(&g).tile_size(32).tile_cache().unwrap();
    for (what, found, nav) in [
        ("tiled", &tiled.report().off_mesh_issues, tiled.navmesh()),
        (
            "tile cache",
            &cache.report().off_mesh_issues,
            cache.navmesh(),
        ),
    ] {
        let (horizontal, vertical) = only_end_off(found, LinkEnd::End);
        assert!((0.7..0.8).contains(&horizontal), "{what}: {horizontal}");
        assert!(vertical.abs() < 0.01, "{what}: {vertical}");
        assert!(!ground_to_platform_complete(nav), "{what}");
    }
}

/// Whether the corridor from the ground to the platform of nav_test (the jump's two levels)
/// arrives, on `nav`.
fn ground_to_platform_complete(nav: &navkit::NavMesh) -> bool {
    let mut q = NavMeshQuery::new(nav, 2048).unwrap();
    let options = PathOptions::corridor_only();
    let p = q.path(GROUND, PLATFORM, &QueryFilter::default(), &options);
    p.unwrap().is_complete()
}
