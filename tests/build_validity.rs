//! Builds that ended in a `NavMeshData` error: navkit's builder produced Detour data that its own
//! tile validator (the one `NavMesh::add_tile` and the MSET loader run) then refused (issue 19:
//! "every build either succeeds or is refused before it starts"). Each input is written out in
//! code; each is now refused up front, naming the setting or the geometry and the allowed range,
//! and the same input just inside that range builds with every tile passing the validator.

use glam::Vec3;
use navkit::build::{MAX_BUILD_COORDINATE, MAX_BV_CELLS, MAX_SOLO_CELLS_PER_AXIS, MIN_CELL_ULPS};
use navkit::navmesh::params::MAX_COORDINATE;
use navkit::navmesh::validate::validate_tile_data;
use navkit::{
    Aabb, BuildSettings, Error, InputGeometry, NavMesh, NavMeshBuilder, OffMeshConnection,
    Partition, TriMesh,
};

/// Every tile of `nav` passes the tile validator; the number of ground polygons.
fn valid(nav: &NavMesh) -> usize {
    let mut polys = 0;
    for t in nav.tiles() {
        let info = validate_tile_data(t.data()).unwrap_or_else(|e| panic!("{e}"));
        polys += info.poly_count - info.off_mesh_con_count;
    }
    polys
}

/// A square floor, `size` on a side, its corner at (x, y, z), as two upward-facing triangles.
fn floor(x: f32, y: f32, z: f32, size: f32) -> TriMesh {
    let verts = vec![
        x,
        y,
        z,
        x + size,
        y,
        z,
        x + size,
        y,
        z + size,
        x,
        y,
        z + size,
    ];
    TriMesh::new(verts, vec![0, 2, 1, 0, 3, 2]).unwrap()
}

/// `Error::Setting` for `name`, or a panic showing what came instead.
fn setting_message<T>(r: navkit::Result<T>, name: &str) -> String {
    match r {
        Err(Error::Setting {
            name: n, reason, ..
        }) if n == name => reason,
        Err(e) => panic!("expected a refused `{name}`, got {e:?}"),
        Ok(_) => panic!("expected a refused `{name}`, the build succeeded"),
    }
}

/// `Error::Geometry`'s message, or a panic showing what came instead.
fn geometry_message<T>(r: navkit::Result<T>) -> String {
    match r {
        Err(Error::Geometry(m)) => m,
        Err(e) => panic!("expected a geometry error, got {e:?}"),
        Ok(_) => panic!("expected a geometry error, the build succeeded"),
    }
}

/// Found by the `gset` target: the line `c 4 0 1  8 1 7777777777777777777777770  0.5 1` (an
/// off-mesh connection ending at z = 7.8e24) on the 9 x 9 quad. The solo build packed the end
/// point into the tile, and the validator refused it ("vertex 40[2] is 7.777778e24, beyond
/// +-1e9"). Now the geometry check refuses a connection beyond Detour's coordinates.
#[test]
fn off_mesh_connection_beyond_the_coordinate_bound_is_refused() {
    let mut g = InputGeometry::from_mesh(floor(0.0, 0.0, 0.0, 9.0));
    let link = |end_z: f32, radius: f32| OffMeshConnection {
        start: Vec3::new(4.0, 0.0, 1.0),
        end: Vec3::new(8.0, 1.0, end_z),
        radius,
        bidirectional: true,
        area: navkit::area::JUMP,
        flags: navkit::flags::JUMP,
        user_id: 1,
    };
    // The bound itself (the validator's MAX_COORDINATE, 1e9) builds: the start lands on the
    // floor, so Detour stores the connection with its far end, which the validator accepts.
    assert_eq!(MAX_COORDINATE, 1.0e9);
    g.off_mesh_connections = vec![link(MAX_COORDINATE, 0.5)];
    let built = NavMeshBuilder::new(&g).solo().unwrap();
    assert!(valid(built.navmesh()) >= 1);
    assert_eq!(
        built
            .navmesh()
            .tiles()
            .next()
            .unwrap()
            .header()
            .off_mesh_con_count,
        1
    );
    // The fuzzed end, the next float past the bound, and a radius past it.
    for (z, r) in [
        (7.777_778e24, 0.5),
        (f32::from_bits(MAX_COORDINATE.to_bits() + 1), 0.5),
        (9.0, 2.0e9),
    ] {
        g.off_mesh_connections = vec![link(z, r)];
        for m in [
            geometry_message(NavMeshBuilder::new(&g).solo()),
            geometry_message(NavMeshBuilder::new(&g).tiled()),
            geometry_message(g.validate()),
        ] {
            assert!(
                m.starts_with("off-mesh connection 0 ") && m.contains("+-1e9"),
                "{m}"
            );
        }
    }
}

/// A strip `cells` cells of 1 m long and 8 wide along x, built fast (monotone regions, no edge
/// splitting, no detail sampling; nothing eroded or filtered away at the ledges).
fn strip(cells: f32) -> (InputGeometry, BuildSettings) {
    let mesh = TriMesh::new(
        vec![
            0.0, 0.0, 0.0, cells, 0.0, 0.0, cells, 0.0, 8.0, 0.0, 0.0, 8.0,
        ],
        vec![0, 2, 1, 0, 3, 2],
    )
    .unwrap();
    let s = BuildSettings {
        cell_size: 1.0,
        agent_radius: 0.0,
        region_min_size: 0.0,
        edge_max_len: 0.0,
        detail_sample_dist: 0.0,
        partition: Partition::Monotone,
        filter_ledge_spans: false,
        ..BuildSettings::default()
    };
    (InputGeometry::from_mesh(mesh), s)
}

/// A solo grid 65534 or 65535 cells wide passed the 16-bit check of Recast's poly mesh, but
/// Detour's BV tree quantises the tile's extent plus one cell into 16 bits, and the validator
/// refused the tile ("tile bvQuantFactor 3.3333333 x extent 19660.201 on axis 0 does not fit
/// the 16-bit BV tree coordinates", found with a 19,660 m strip at 0.3 m cells). By hand: the
/// bounds span at most half a cell more than the rounded grid, so q = extent / cs + 1 <=
/// cells + 1.5, below the validator's 65535 for 65533 cells and not for 65534.
#[test]
fn solo_grid_wider_than_the_bv_tree_holds_is_refused() {
    assert_eq!(MAX_SOLO_CELLS_PER_AXIS, 65533);
    let (g, s) = strip(65533.0);
    let built = NavMeshBuilder::new(&g).settings(s.clone()).solo().unwrap();
    // One quad: the strip has no edge to split and no obstacle.
    assert_eq!(valid(built.navmesh()), 1);
    let (g, s) = strip(65534.0);
    let m = geometry_message(NavMeshBuilder::new(&g).settings(s).solo());
    assert!(
        m.contains("65534 cells of 1 m") && m.contains("at most 65533 cells"),
        "{m}"
    );
}

/// A 1 m floor at y = 0 under a stray vertex `rise` higher (the bounds reach up to it), with
/// cells of 0.01 m by 1 m: the level's rise plus the agent's 2 m, in cell sizes, is what
/// Detour's BV tree quantises into 16 bits.
fn tall(rise: f32) -> (InputGeometry, BuildSettings) {
    let mut mesh = floor(0.0, 0.0, 0.0, 1.0);
    mesh.verts.extend_from_slice(&[0.5, rise, 0.5]);
    let s = BuildSettings {
        cell_size: 0.01,
        cell_height: 1.0,
        agent_height: 2.0,
        agent_radius: 0.05,
        detail_sample_dist: 0.0,
        ..BuildSettings::default()
    };
    (InputGeometry::from_mesh(mesh), s)
}

/// A level rising 65534 to 65535 cell sizes (with the agent) passed `to_config`'s "at most
/// 65535", and the validator refused the tile ("tile bvQuantFactor 100 x extent 655.345 on axis
/// 1 does not fit the 16-bit BV tree coordinates", solo and tiled): Recast tops the bounds with
/// the agent's height, `queryPolygonsInTile` adds one cell, and the validator wants the sum
/// below 65535. 65533 cell sizes leaves one for the rounding of the bounds in f32.
#[test]
fn level_rising_more_than_the_bv_tree_holds_is_refused() {
    assert_eq!(MAX_BV_CELLS, 65533.0);
    // 653.329 m + 2 m of agent: 65532.9 cell sizes of 0.01 m (653.33 is 653.33002 in f32,
    // just over 65533).
    let (g, s) = tall(653.329);
    let b = NavMeshBuilder::new(&g).settings(s);
    assert!(valid(b.solo().unwrap().navmesh()) >= 1);
    assert!(valid(b.tiled().unwrap().navmesh()) >= 1);
    for rise in [653.34, 653.345, 653.35] {
        let (g, s) = tall(rise);
        let b = NavMeshBuilder::new(&g).settings(s);
        for m in [
            geometry_message(b.solo()),
            geometry_message(b.tiled()),
            geometry_message(b.tile_cache()),
        ] {
            assert!(m.contains("16 bits of cell sizes (at most 65533)"), "{m}");
        }
    }
}

/// A level 1e9 m up, or a floor whose far corner is at x = 1e9 + 3000 (built with 100 m
/// cells), gave tiles whose bounds and vertices lie beyond the validator's +-1e9 ("tile bmax[0]
/// is 1000003000, beyond +-1e9", solo; tiled: "navmesh params origin[0] is 1010000000").
/// Builds now take levels within +-5e8 (half the bound, for the tiles, borders and agent
/// height a build adds), naming the bounds setting when it is the bounds that reach too far.
#[test]
fn level_beyond_the_coordinate_bound_is_refused() {
    assert_eq!(MAX_BUILD_COORDINATE, MAX_COORDINATE / 2.0);
    let s = BuildSettings {
        cell_size: 100.0,
        cell_height: 1.0,
        agent_radius: 0.0,
        region_min_size: 0.0,
        ..BuildSettings::default()
    };
    // Far up, near the origin in x and z: y has no clipping precision to lose.
    let high = InputGeometry::from_mesh(floor(0.0, 4.9e8, 0.0, 3000.0));
    let b = NavMeshBuilder::new(&high).settings(s.clone());
    assert!(valid(b.solo().unwrap().navmesh()) >= 1);
    assert!(valid(b.tiled().unwrap().navmesh()) >= 1);
    assert!(valid(b.tile_cache().unwrap().navmesh()) >= 1);
    for g in [
        floor(0.0, 1.0e9, 0.0, 3000.0),
        floor(0.0, 5.1e8, 0.0, 3000.0),
        floor(1.0e9 - 3000.0, 0.0, 0.0, 6000.0),
    ] {
        let g = InputGeometry::from_mesh(g);
        let b = NavMeshBuilder::new(&g).settings(s.clone());
        for m in [
            geometry_message(b.solo()),
            geometry_message(b.tiled()),
            geometry_message(b.tile_cache()),
        ] {
            assert!(m.contains("must lie within +-5e8 m of the origin"), "{m}");
        }
    }
    // Build bounds up there, around a level at the origin: the setting is named.
    let g = InputGeometry::from_mesh(floor(0.0, 0.0, 0.0, 10.0));
    let up = BuildSettings {
        bounds: Some(Aabb::new(
            Vec3::new(0.0, 1.0e9, 0.0),
            Vec3::new(10.0, 1.0e9, 10.0),
        )),
        ..s
    };
    let m = setting_message(NavMeshBuilder::new(&g).settings(up).solo(), "bounds");
    assert!(m.contains("must lie within +-5e8 m"), "{m}");
}

/// Found by a randomized sweep of levels far from the origin (issue 19): a 3 m floor at x = z
/// = 5e6 with 0.1 m cells, where floats are 0.5 m apart, crashed the process (SIGBUS; under
/// AddressSanitizer a stack-buffer-overflow in Recast's `dividePoly`, `rcRasterizeTriangles`):
/// clipped in f32 on cells narrower than the float spacing, a triangle's pieces stop being
/// convex and outgrow the clipping buffers. Cells must now be at least 16 float steps wide at
/// the level's farthest x or z (0.5 m x 16 = 8 m there).
#[test]
fn cells_narrower_than_the_float_spacing_are_refused() {
    assert_eq!(MIN_CELL_ULPS, 16.0);
    let s = BuildSettings {
        cell_size: 0.1,
        ..BuildSettings::default()
    };
    let g = InputGeometry::from_mesh(floor(5.0e6, 0.0, 5.0e6, 3.0));
    let b = NavMeshBuilder::new(&g).settings(s.clone());
    for m in [
        setting_message(b.solo(), "cell_size"),
        setting_message(b.tiled(), "cell_size"),
        setting_message(b.tile_cache(), "cell_size"),
    ] {
        assert!(
            m.starts_with("must be at least 8 m for a level reaching 5000003 m")
                && m.contains("floats are 0.5 m apart"),
            "{m}"
        );
    }
    // Build bounds out there, around nothing of a level at the origin: the same limit.
    let far_bounds = BuildSettings {
        bounds: Some(Aabb::new(
            Vec3::new(0.0, -1.0, 5.0e6),
            Vec3::new(10.0, 1.0, 5.0e6 + 10.0),
        )),
        ..s.clone()
    };
    let g = InputGeometry::from_mesh(floor(0.0, 0.0, 0.0, 10.0));
    let m = setting_message(
        NavMeshBuilder::new(&g).settings(far_bounds).tiled(),
        "cell_size",
    );
    assert!(m.starts_with("must be at least 8 m"), "{m}");
    // 20 km out floats are 1/512 m apart: 0.1 m cells are 51 steps wide, and build.
    let g = InputGeometry::from_mesh(floor(2.0e4, 0.0, -2.0e4, 10.0));
    let b = NavMeshBuilder::new(&g).settings(s);
    assert!(valid(b.solo().unwrap().navmesh()) >= 1);
    assert!(valid(b.tiled().unwrap().navmesh()) >= 1);
    assert!(valid(b.tile_cache().unwrap().navmesh()) >= 1);
}

/// Found by the randomized sweep (a level of 52 random triangles 30 km out, cut down to the
/// three of them that matter, moved to the origin and rounded to centimetres): with these
/// settings Recast's detail mesh gives polygon 24 no triangles at all, and the validator refused
/// the tile ("detail mesh 24 has no triangles; ground poly 24 needs at least one"): Detour's
/// `closestPointOnPoly` would dereference a null pointer on it. The build now triangulates such
/// a polygon as a fan of its own vertices (what Detour does for a tile without detail mesh) and
/// says so in its report.
#[test]
fn polygon_left_without_detail_triangles_is_triangulated_from_its_vertices() {
    let verts = vec![
        -9.93, 2.79, 24.51, -21.23, 4.97, -22.91, 6.08, -5.33, -21.9, 21.01, 3.59, 12.59, -24.55,
        4.44, -11.67, -15.55, 5.83, -12.31, 19.88, 6.39, 16.38, 9.98, 6.41, -19.89, -21.63, 2.45,
        0.84,
    ];
    let g = InputGeometry::from_mesh(TriMesh::new(verts, vec![0, 2, 1, 3, 5, 4, 6, 7, 8]).unwrap());
    let s = BuildSettings {
        cell_size: 0.3,
        cell_height: 0.019162873,
        agent_height: 0.01,
        agent_radius: 0.019032614,
        agent_max_climb: 0.9,
        agent_max_slope: 22.694784,
        region_min_size: 0.0,
        region_merge_size: 0.5,
        edge_max_len: 12.0,
        edge_max_error: 3.7177866,
        verts_per_poly: 5,
        detail_sample_dist: 6.0,
        detail_sample_max_error: 0.21272987,
        bounds: Some(Aabb::new(
            Vec3::new(-26.0, -6.63, -26.43),
            Vec3::new(26.49, 6.63, 25.86),
        )),
        filter_ledge_spans: false,
        ..BuildSettings::default()
    };
    let built = NavMeshBuilder::new(&g).settings(s).solo().unwrap();
    // 39 polygons, measured; every one passes the validator.
    assert_eq!(valid(built.navmesh()), 39);
    let w = &built.report().warnings;
    assert!(
        w.iter()
            .any(|m| m.starts_with("the detail mesh left 1 polygon(s)")
                && m.contains("([24])")
                && m.ends_with("triangulated from their own vertices")),
        "{w:?}"
    );
    // Polygon 24's detail: the fan of its own vertices, each outline edge flagged once.
    let tile = built.navmesh().tiles().next().unwrap();
    let poly = tile.poly(24).unwrap();
    let nv = poly.vertex_count();
    let detail = poly.detail().unwrap();
    assert_eq!(detail.triangle_count(), nv - 2);
    let outline: usize = detail
        .triangles()
        .map(|t| (0..3).filter(|&k| t.is_boundary_edge(k)).count())
        .sum();
    assert_eq!(outline, nv);
    for (j, t) in detail.triangles().enumerate() {
        assert_eq!(t.indices, [0, j as u8 + 1, j as u8 + 2]);
    }
}
