//! The debug-draw layer (issue 13): every layer's primitives counted against the navmesh's own
//! counts, read independently through the views, and colours against upstream's formulas.

mod common;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::build::SoloBuild;
use navkit::debug_draw::navmesh::{self as dnav, NavMeshDrawOptions, Outlines, PolyColoring};
use navkit::debug_draw::paths::{self, PathKind};
use navkit::debug_draw::{
    Color, DebugDrawSink, Layer, PrimitiveKind, Recorder, Style, geometry as dgeom,
};
use navkit::navmesh::NavMesh;
use navkit::navmesh::view::{EdgeNeighbour, PolyType};
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
use navkit::tilecache::{Obstacle, ObstacleRef, ObstacleShape, ObstacleState};
use navkit::{BuildSettings, InputGeometry, area};

/// nav_test.obj with RecastDemo's jump from the ground onto the raised platform (as
/// tests/offmesh.rs) and a water convex volume.
fn nav_test() -> (InputGeometry, SoloBuild) {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = common::temp(&format!("debug-draw-nav_test-{n}.gset"));
    let text = format!(
        "f {}\nc -0.6 -2.27 -15.5  -0.63 8.33 -12.5  0.6 1 {} 8\nv 4 {} -3 3\n\
         10 -2.3 -18\n14 -2.3 -18\n14 -2.3 -14\n10 -2.3 -14\n",
        common::mesh("nav_test.obj").display(),
        area::JUMP,
        area::WATER,
    );
    std::fs::write(&path, text).unwrap();
    // The mesh is named by its absolute path, outside the `.gset`'s folder: allowed here.
    let anywhere = navkit::geometry::LoadOptions {
        allow_outside_paths: true,
    };
    let geom = InputGeometry::load_with(&path, &anywhere).unwrap();
    assert_eq!(geom.off_mesh_connections.len(), 1);
    assert_eq!(geom.convex_volumes.len(), 1);
    let built = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    (geom, built)
}

fn ground_polys(nav: &NavMesh) -> Vec<navkit::navmesh::view::PolyView<'_>> {
    nav.tiles()
        .flat_map(|t| t.polys().collect::<Vec<_>>())
        .filter(|p| p.poly_type() == PolyType::Ground)
        .collect()
}

#[test]
fn colours_follow_upstream_formulas() {
    // RecastDemo's SampleDebugDraw::areaToCol, packed as duRGBA (r | g<<8 | b<<16 | a<<24).
    assert_eq!(Color::area(area::GROUND).0, 0xffff_c000);
    assert_eq!(Color::area(area::WATER), Color::rgba(0, 0, 255, 255));
    assert_eq!(Color::area(area::ROAD), Color::rgba(50, 20, 12, 255));
    assert_eq!(Color::area(area::DOOR), Color::rgba(0, 255, 255, 255));
    assert_eq!(Color::area(area::GRASS), Color::rgba(0, 255, 0, 255));
    assert_eq!(Color::area(area::JUMP), Color::rgba(255, 255, 0, 255));
    assert_eq!(Color::area(40), Color::rgba(255, 0, 0, 255));
    // duIntToCol(i, a): r = bit1 + 2 bit3 + 1, g = bit2 + 2 bit4 + 1, b = bit0 + 2 bit5 + 1,
    // each times 63.
    assert_eq!(Color::from_int(0, 255), Color::rgba(63, 63, 63, 255));
    assert_eq!(Color::from_int(1, 128), Color::rgba(63, 63, 126, 128));
    assert_eq!(Color::from_int(5, 64), Color::rgba(63, 126, 126, 64));
    assert_eq!(Color::from_int(63, 255), Color::rgba(252, 252, 252, 255));
    // duDebugDraw::areaToCol (DebugUtils' default): 0 light blue, others duIntToCol.
    assert_eq!(Color::area_generic(0), Color::area(area::GROUND));
    assert_eq!(Color::area_generic(5), Color::from_int(5, 255));
    // duTransCol, duDarkenCol, duLerpCol, duMultCol.
    assert_eq!(Color::area(area::GROUND).with_alpha(64).0, 0x40ff_c000);
    assert_eq!(
        Color::rgba(0, 48, 64, 220).darken(),
        Color::rgba(0, 24, 32, 220)
    );
    assert_eq!(
        Color::rgba(0, 0, 0, 255).lerp(Color::rgba(255, 255, 255, 255), 64),
        Color::rgba(64, 64, 64, 255)
    );
    assert_eq!(
        Color::rgba(200, 100, 50, 7).mult(128),
        Color::rgba(100, 50, 25, 7)
    );
}

#[test]
fn polys_layer_is_the_detail_triangles_in_area_colours() {
    let (_, built) = nav_test();
    let nav = &built.navmesh();
    let layer = dnav::polys(nav, PolyColoring::Area);
    let header_tris: usize = nav.tiles().map(|t| t.header().detail_tri_count).sum();
    assert!(header_tris > 0);
    assert_eq!(layer.count(PrimitiveKind::Triangles), header_tris);
    assert_eq!(layer.primitives.len(), header_tris);
    assert_eq!(header_tris, built.report().detail_tris);
    // Triangle by triangle, in the tile's detail order, each in its poly's area colour at 64.
    let mut expect = Vec::new();
    for p in ground_polys(nav) {
        let d = p.detail().unwrap();
        for t in d.triangles() {
            expect.push((t.verts, Color::area(p.area()).with_alpha(64)));
        }
    }
    let got: Vec<_> = layer.triangles().collect();
    assert_eq!(got, expect);
    // The water volume made water polys, drawn blue.
    let water = Color::area(area::WATER).with_alpha(64);
    assert!(got.iter().any(|(_, c)| *c == water));
    assert!(got.iter().any(|(_, c)| *c == Color::rgba(0, 192, 255, 64)));
}

#[test]
fn every_poly_has_its_outline_with_walls_thicker() {
    let (_, built) = nav_test();
    let nav = &built.navmesh();
    let straight = dnav::outlines(nav, Outlines::Straight);
    let edges: usize = ground_polys(nav).iter().map(|p| p.vertex_count()).sum();
    let walls: Vec<(Vec3, Vec3)> = ground_polys(nav)
        .iter()
        .flat_map(|p| p.edges().collect::<Vec<_>>())
        .filter(|e| e.neighbour == EdgeNeighbour::Wall)
        .map(|e| (e.start, e.end))
        .collect();
    assert_eq!(straight.count(PrimitiveKind::Lines), edges);
    let thick: Vec<_> = straight
        .lines()
        .filter(|l| l.3 == dnav::WALL_WIDTH)
        .collect();
    assert_eq!(thick.len(), walls.len());
    assert!(thick.iter().all(|l| l.2 == dnav::WALL_COLOR));
    assert!(
        straight
            .lines()
            .filter(|l| l.3 != dnav::WALL_WIDTH)
            .all(|l| l.3 == dnav::INNER_EDGE_WIDTH && l.2.a() < 64)
    );
    // Following the detail mesh, the wall pieces cover the walls exactly: same total length
    // in xz, and at least one piece per wall.
    let detail = dnav::outlines(nav, Outlines::Detail);
    let xz = |a: Vec3, b: Vec3| ((b.x - a.x).powi(2) + (b.z - a.z).powi(2)).sqrt();
    let wall_len: f32 = walls.iter().map(|&(a, b)| xz(a, b)).sum();
    let pieces: Vec<_> = detail.lines().filter(|l| l.3 == dnav::WALL_WIDTH).collect();
    let piece_len: f32 = pieces.iter().map(|l| xz(l.0, l.1)).sum();
    assert!(pieces.len() >= walls.len());
    assert!(
        (piece_len - wall_len).abs() < 1e-3 * wall_len,
        "{piece_len} vs {wall_len}"
    );
}

#[test]
fn off_mesh_links_bv_tree_tiles_and_vertices() {
    let (geom, built) = nav_test();
    let nav = &built.navmesh();
    let links: usize = nav.tiles().map(|t| t.header().off_mesh_con_count).sum();
    assert_eq!(links, 1);
    let off = dnav::off_mesh_links(nav);
    // One point at each end of each link, at the geometry's end points.
    let pts: Vec<Vec3> = off.points().map(|p| p.0).collect();
    assert_eq!(pts.len(), 2 * links);
    let c = &geom.off_mesh_connections[0];
    assert!(pts[0].distance(c.start) < 1e-4 && pts[1].distance(c.end) < 1e-4);
    // Jump colour: RecastDemo's yellow, alpha 220, darkened.
    assert_eq!(
        off.points().next().unwrap().1,
        Color::rgba(127, 127, 0, 220)
    );

    // dtCreateNavMeshData stores 2n nodes for n ground polys; its tree uses 2n - 1, one leaf
    // per poly, and the last slot stays zeroed.
    let ground = ground_polys(nav).len();
    let tile = nav.tiles().next().unwrap();
    let nodes: Vec<_> = tile.bv_nodes().collect();
    assert_eq!(nodes.len(), 2 * ground);
    let mut leaf_polys: Vec<usize> = nodes[..2 * ground - 1]
        .iter()
        .filter_map(|n| n.leaf_poly())
        .collect();
    leaf_polys.sort();
    assert_eq!(leaf_polys, (0..ground).collect::<Vec<_>>());
    assert_eq!(nodes[2 * ground - 1].bmax, [0, 0, 0]);
    assert_eq!(dnav::bv_tree(nav).count(PrimitiveKind::Lines), 12 * ground);
    assert_eq!(dnav::tiles(nav).count(PrimitiveKind::Lines), 12);
    let verts: usize = nav.tiles().map(|t| t.header().vert_count).sum();
    assert_eq!(dnav::vertices(nav).count(PrimitiveKind::Points), verts);

    let all = dnav::navmesh(
        nav,
        &NavMeshDrawOptions {
            tiles: true,
            bv_tree: true,
            detail_edges: true,
            ..Default::default()
        },
    );
    let names: Vec<&str> = all.names().collect();
    assert_eq!(
        names,
        [
            dnav::POLYS_LAYER,
            dnav::DETAIL_LAYER,
            dnav::OUTLINES_LAYER,
            dnav::VERTICES_LAYER,
            dnav::TILES_LAYER,
            dnav::OFF_MESH_LAYER,
            dnav::BV_TREE_LAYER
        ]
    );
    let (lo, hi) = all.bounds().unwrap();
    let h = nav.tiles().next().unwrap().header();
    assert!(lo.cmpge(h.bmin - Vec3::splat(1.0)).all() && hi.cmple(h.bmax + Vec3::splat(2.0)).all());
}

#[test]
fn tile_colouring_gives_each_tile_its_colour() {
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let settings = BuildSettings {
        tile_size: 32,
        ..Default::default()
    };
    let tiled = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .tiled()
        .unwrap();
    let nav = tiled.navmesh();
    let layer = dnav::polys(nav, PolyColoring::Tile);
    let mut expect = Vec::new();
    for t in nav.tiles() {
        for p in t.polys().filter(|p| p.poly_type() == PolyType::Ground) {
            let n = p.detail().unwrap().triangle_count();
            expect.extend(std::iter::repeat_n(
                Color::from_int(t.index() as u32, 128),
                n,
            ));
        }
    }
    let got: Vec<Color> = layer.triangles().map(|t| t.1).collect();
    assert_eq!(got, expect);
    assert!(nav.tiles().count() > 4);
    let distinct: std::collections::HashSet<u32> = got.iter().map(|c| c.0).collect();
    assert!(distinct.len() > 4);
    assert_eq!(
        dnav::tiles(nav).count(PrimitiveKind::Lines),
        12 * nav.tiles().count()
    );
}

#[test]
fn input_geometry_and_convex_volumes() {
    let (geom, _) = nav_test();
    let mesh = dgeom::mesh(&geom.mesh, 45.0);
    assert_eq!(mesh.count(PrimitiveKind::Triangles), geom.mesh.tri_count());
    // Flat floors are grey 165, steep walls tinted; both kinds exist in nav_test.
    let flat = Color::rgba(165, 165, 165, 255);
    let tris: Vec<_> = mesh.triangles().collect();
    assert!(tris.iter().any(|t| t.1 == flat));
    assert!(
        tris.iter()
            .any(|t| t.1 == dgeom::slope_color(Vec3::Z, 45.0))
    );
    for (v, c) in &tris {
        let n = (v[1] - v[0]).cross(v[2] - v[0]).normalize_or_zero();
        assert_eq!(*c, dgeom::slope_color(n, 45.0));
    }
    let vols = dgeom::convex_volumes(&geom.convex_volumes);
    // 4 vertices: 3 triangles (top fan and two wall halves) and 3 lines per vertex, a point
    // per vertex.
    assert_eq!(vols.count(PrimitiveKind::Triangles), 12);
    assert_eq!(vols.count(PrimitiveKind::Lines), 12);
    assert_eq!(vols.count(PrimitiveKind::Points), 4);
    assert!(
        vols.points()
            .all(|p| p.1 == Color::area(area::WATER).with_alpha(220) && p.0.y == 3.0)
    );
}

#[test]
fn obstacles_of_every_shape() {
    let ob = |shape, state| Obstacle {
        obstacle: ObstacleRef(1),
        shape,
        state,
    };
    let list = [
        ob(
            ObstacleShape::Cylinder {
                pos: Vec3::ZERO,
                radius: 1.0,
                height: 2.0,
            },
            ObstacleState::Processed,
        ),
        ob(
            ObstacleShape::Box {
                bmin: Vec3::ZERO,
                bmax: Vec3::ONE,
            },
            ObstacleState::Processing,
        ),
        ob(
            ObstacleShape::OrientedBox {
                center: Vec3::ZERO,
                half_extents: Vec3::new(2.0, 1.0, 1.0),
                y_angle: std::f32::consts::FRAC_PI_2,
            },
            ObstacleState::Removing,
        ),
    ];
    let one = |o: &Obstacle| dgeom::obstacles(std::slice::from_ref(o));
    let cyl = one(&list[0]);
    assert_eq!(cyl.count(PrimitiveKind::Triangles), 16 * 2 + 14);
    assert_eq!(cyl.count(PrimitiveKind::Lines), 32 + 4);
    assert_eq!(
        cyl.bounds().unwrap(),
        (Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 2.0, 1.0))
    );
    let bx = one(&list[1]);
    assert_eq!(bx.count(PrimitiveKind::Triangles), 12);
    assert_eq!(bx.count(PrimitiveKind::Lines), 12);
    assert!(
        bx.lines()
            .all(|l| l.2 == Color::rgba(255, 255, 0, 128).darken())
    );
    // Turned a quarter: the long side lies along z.
    let (lo, hi) = one(&list[2]).bounds().unwrap();
    assert!((hi.z - lo.z - 4.0).abs() < 1e-5 && (hi.x - lo.x - 2.0).abs() < 1e-5);
    assert_eq!(
        dgeom::obstacles(&list).primitives.len(),
        cyl.primitives.len() + bx.primitives.len() + 24
    );
}

#[test]
fn path_layers_have_one_segment_per_pair_of_points() {
    let (_, built) = nav_test();
    let nav = &built.navmesh();
    let mut q = NavMeshQuery::new(nav, 2048).unwrap();
    let p = q
        .path(
            Vec3::new(20.161, -2.27, -18.1),
            Vec3::new(-0.629, 8.33, -7.66),
            &QueryFilter::default(),
            &PathOptions::default(),
        )
        .unwrap();
    assert!(p.is_complete());
    let corners = p.straight.points.len();
    assert!(corners > 2);
    let straight = paths::straight(&p.straight);
    assert_eq!(straight.count(PrimitiveKind::Lines), corners - 1);
    assert_eq!(straight.count(PrimitiveKind::Points), corners);
    // The jump's start corner is marked in RecastDemo's off-mesh colour.
    assert_eq!(
        straight
            .points()
            .filter(|pt| pt.1 == Color::rgba(128, 96, 0, 220))
            .count(),
        1
    );
    let smooth = paths::smooth(&p.smooth);
    assert_eq!(
        smooth.count(PrimitiveKind::Lines),
        p.smooth.points.len() - 1
    );
    // The corridor: every ground poly's triangles, plus the first and last again on top.
    let corridor = paths::corridor(nav, &p.corridor.polys);
    let tris = |r| {
        nav.poly(r)
            .and_then(|p| p.detail())
            .map_or(0, |d| d.triangle_count())
    };
    let sum: usize = p.corridor.polys.iter().map(|&r| tris(r)).sum();
    let first = tris(p.corridor.polys[0]);
    let last = tris(*p.corridor.polys.last().unwrap());
    assert_eq!(corridor.count(PrimitiveKind::Triangles), sum + first + last);
    // Every kind has its own colour and dash.
    let styles: std::collections::HashSet<(u32, u8)> = PathKind::ALL
        .iter()
        .map(|k| (k.style().0.0, k.style().2 as u8))
        .collect();
    assert_eq!(styles.len(), PathKind::ALL.len());
    let tr = paths::trajectories(&[
        vec![Vec3::ZERO, Vec3::X, Vec3::Z],
        vec![Vec3::ONE; 2],
        vec![],
    ]);
    assert_eq!(tr.count(PrimitiveKind::Lines), 3);
    assert_eq!(paths::spline(&[Vec3::ZERO]).primitives.len(), 0);
}

/// A sink that checks begin/vertex/end are balanced and counts vertices per kind.
#[derive(Default)]
struct Counter {
    open: Option<PrimitiveKind>,
    batches: usize,
    vertices: [usize; 3],
}

impl DebugDrawSink for Counter {
    fn begin(&mut self, _layer: &str, kind: PrimitiveKind, _style: Style) {
        assert!(self.open.is_none());
        self.open = Some(kind);
        self.batches += 1;
    }
    fn vertex(&mut self, _pos: Vec3, _color: Color) {
        let k = self.open.expect("vertex outside begin/end");
        self.vertices[k as usize] += 1;
    }
    fn end(&mut self) {
        assert!(self.open.take().is_some());
    }
}

#[test]
fn sinks_get_every_vertex_in_batches_and_a_recorder_gets_the_layers_back() {
    let (_, built) = nav_test();
    let draw = dnav::navmesh(
        built.navmesh(),
        &NavMeshDrawOptions {
            bv_tree: true,
            ..Default::default()
        },
    );
    let mut c = Counter::default();
    draw.feed(&mut c);
    let count = |k| {
        draw.layers
            .iter()
            .map(|l: &Layer| l.count(k))
            .sum::<usize>()
    };
    assert_eq!(
        c.vertices[PrimitiveKind::Points as usize],
        count(PrimitiveKind::Points)
    );
    assert_eq!(
        c.vertices[PrimitiveKind::Lines as usize],
        2 * count(PrimitiveKind::Lines)
    );
    assert_eq!(
        c.vertices[PrimitiveKind::Triangles as usize],
        3 * count(PrimitiveKind::Triangles)
    );
    // Batched: far fewer batches than primitives.
    assert!(c.batches < 64, "{} batches", c.batches);
    let mut r = Recorder::default();
    draw.feed(&mut r);
    for (a, b) in r.draw.layers.iter().zip(&draw.layers) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.primitives.len(), b.primitives.len(), "{}", a.name);
        for (x, y) in a.primitives.iter().zip(&b.primitives) {
            assert_eq!(x, y, "{}", a.name);
        }
    }
    assert_eq!(r.draw, draw);
    let mut only = Recorder::default();
    draw.feed_filtered(&mut only, |n| n == dnav::POLYS_LAYER);
    assert_eq!(only.draw.layers.len(), 1);
}

#[test]
fn stage_layers_match_the_build_report() {
    use navkit::debug_draw::stages;
    let (geom, plain) = nav_test();
    let built = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .capture_stages(true)
        .solo()
        .unwrap();
    let st = built.stages().unwrap();
    // Capturing changes nothing in the navmesh.
    assert_eq!(built.tile_data(), plain.tile_data());
    assert!(plain.stages().is_none());
    let r = built.report();
    // The report counts walkable spans (rcGetHeightFieldSpanCount); the heightfield holds
    // the unwalkable ones too.
    let walkable = st.heightfield.spans.iter().filter(|s| s.area != 0).count();
    assert_eq!(walkable, r.spans as usize);
    assert!(st.heightfield.spans.len() > walkable);
    assert_eq!(
        stages::heightfield(&st.heightfield).count(PrimitiveKind::Triangles),
        12 * st.heightfield.spans.len()
    );
    assert_eq!(st.compact.spans.len(), r.compact_spans as usize);
    assert_eq!(st.compact.max_distance, r.max_distance);
    assert_eq!(st.compact.max_regions, r.max_regions);
    for layer in [
        stages::compact(&st.compact),
        stages::distance_field(&st.compact),
        stages::regions(&st.compact),
    ] {
        assert_eq!(
            layer.count(PrimitiveKind::Triangles),
            2 * r.compact_spans as usize
        );
    }
    // Regions: every region id below max_regions, and some spans in regions.
    assert!(
        st.compact
            .spans
            .iter()
            .all(|s| (s.region & 0x7fff) < r.max_regions)
    );
    assert_eq!(st.contours.contours.len(), r.contours as usize);
    let raw_verts: usize = st.contours.contours.iter().map(|c| c.raw_verts.len()).sum();
    let verts: usize = st.contours.contours.iter().map(|c| c.verts.len()).sum();
    let raw = stages::raw_contours(&st.contours);
    assert_eq!(raw.count(PrimitiveKind::Lines), raw_verts);
    assert_eq!(raw.count(PrimitiveKind::Points), raw_verts);
    assert_eq!(
        stages::contours(&st.contours).count(PrimitiveKind::Lines),
        verts
    );
    assert!(raw_verts > verts && verts >= 3 * r.contours as usize);
    // The poly mesh: its counts, one fan per poly, one edge per poly side.
    let pm = &st.poly_mesh;
    assert_eq!(pm.verts.len(), r.polymesh_verts);
    assert_eq!(pm.polys.len(), r.polymesh_polys);
    let layer = stages::poly_mesh(pm);
    let fan: usize = pm.polys.iter().map(|p| p.len() - 2).sum();
    let sides: usize = pm.polys.iter().map(|p| p.len()).sum();
    assert_eq!(layer.count(PrimitiveKind::Triangles), fan);
    assert_eq!(layer.count(PrimitiveKind::Lines), sides);
    assert_eq!(layer.count(PrimitiveKind::Points), r.polymesh_verts);
    // The same polys as the navmesh's ground polys, vertex counts and areas alike.
    let ground = ground_polys(built.navmesh());
    assert_eq!(
        ground
            .iter()
            .map(|p| (p.vertex_count(), p.area()))
            .collect::<Vec<_>>(),
        pm.polys
            .iter()
            .zip(&pm.areas)
            .map(|(p, &a)| (p.len(), a))
            .collect::<Vec<_>>()
    );
    let dm = stages::detail_mesh(&st.detail_mesh);
    assert_eq!(dm.count(PrimitiveKind::Triangles), r.detail_tris);
    assert_eq!(st.detail_mesh.meshes.len(), r.detail_meshes);
    assert_eq!(stages::all(st).layers.len(), 8);
}

#[test]
fn crowd_agents_corners_and_velocities() {
    use navkit::agents::crowd::{AgentParams, Crowd};
    use navkit::debug_draw::agents;
    let (_, built) = nav_test();
    let mut crowd = Crowd::new(built.navmesh(), 8, 0.6).unwrap();
    let a = crowd
        .add_agent(Vec3::new(20.161, -2.27, -18.1), AgentParams::default())
        .unwrap();
    let b = crowd
        .add_agent(Vec3::new(18.0, -2.27, -18.1), AgentParams::default())
        .unwrap();
    for h in [a, b] {
        crowd
            .request_move_target(h, Vec3::new(-0.6, -2.27, -15.5))
            .unwrap();
    }
    for _ in 0..10 {
        crowd.update(0.1).unwrap();
    }
    let states = vec![crowd.agent(a).unwrap(), crowd.agent(b).unwrap()];
    let corners: usize = states.iter().map(|s| s.corners.len()).sum();
    assert!(corners > 0);
    assert_eq!(agents::agents(&states).count(PrimitiveKind::Lines), 2 * 17);
    let c = agents::corners(&states);
    assert_eq!(c.count(PrimitiveKind::Lines), corners);
    assert_eq!(c.count(PrimitiveKind::Points), corners);
    let v = agents::velocities(&states);
    assert_eq!(v.count(PrimitiveKind::Lines), 2 * 6);
    // The velocity arrow's shaft is the agent's velocity.
    let shaft = v.lines().nth(3).unwrap();
    assert!((shaft.1 - shaft.0 - states[0].velocity).length() < 1e-5);
    assert!(states[0].velocity.length() > 0.1);
}
