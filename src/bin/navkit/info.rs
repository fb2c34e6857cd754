//! `navkit info`: what a navmesh holds, read through the navmesh views: its parameters and ref
//! layout, totals, and with `--tiles` each tile's header and off-mesh connections, with
//! `--polys` each poly with its vertices, edges and links.

use std::io::Write;
use std::path::PathBuf;

use serde_json::{Value, json};

use navkit::Partition;
use navkit::navmesh::NavMesh;
use navkit::navmesh::view::{EdgeNeighbour, PolyType, PolyView, TileOffMeshConnection, TileView};

use crate::exit::{CliResult, Outcome};
use crate::json::{num32, v3};

// `navkit info` arguments.
#[derive(clap::Args)]
pub struct InfoArgs {
    /// The navmesh (MSET), or geometry (MESH.obj, GEOM.gset) to build one from.
    pub input: PathBuf,
    /// Region partitioning when building from geometry (default: the .gset's, else watershed).
    #[arg(long)]
    pub partition: Option<Partition>,
    /// List every tile: header counts, bounds and off-mesh connections.
    #[arg(long)]
    pub tiles: bool,
    /// List every poly (implies --tiles): vertices, edges, links, area, flags.
    #[arg(long)]
    pub polys: bool,
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Counts over the whole navmesh.
#[derive(Default)]
struct Totals {
    polys: usize,
    ground_polys: usize,
    verts: usize,
    links: usize,
    portal_links: usize,
    off_mesh_connections: usize,
    detail_meshes: usize,
    detail_verts: usize,
    detail_tris: usize,
    bv_nodes: usize,
    bytes: usize,
}

fn totals(nav: &NavMesh) -> Totals {
    let mut t = Totals::default();
    for tile in nav.tiles() {
        let h = tile.header();
        t.polys += h.poly_count;
        t.ground_polys += h.off_mesh_base;
        t.verts += h.vert_count;
        for l in tile.links() {
            t.links += 1;
            t.portal_links += usize::from(l.crosses_tiles());
        }
        t.off_mesh_connections += h.off_mesh_con_count;
        t.detail_meshes += h.detail_mesh_count;
        t.detail_verts += h.detail_vert_count;
        t.detail_tris += h.detail_tri_count;
        t.bv_nodes += h.bv_node_count;
    }
    t.bytes = nav.data_size();
    t
}

pub fn run(args: InfoArgs) -> CliResult {
    let nav = crate::common::load_navmesh(&args.input, args.partition)?;
    let tiles = args.tiles || args.polys;
    if args.json {
        out!("{}", info_json(&nav, tiles, args.polys));
    } else {
        print_info(&nav, tiles, args.polys);
    }
    Ok(Outcome::Success)
}

fn off_mesh_json(c: &TileOffMeshConnection) -> Value {
    json!({
        "index": c.index,
        "poly": c.poly,
        "poly_ref": c.poly_ref.0,
        "start": v3(c.start),
        "end": v3(c.end),
        "radius_m": num32(c.radius),
        "bidirectional": c.bidirectional,
        "flags": c.flags,
        "side": c.side,
        "user_id": c.user_id,
    })
}

fn neighbour_json(n: EdgeNeighbour) -> Value {
    match n {
        EdgeNeighbour::Wall => json!("wall"),
        EdgeNeighbour::Internal(i) => json!({"poly": i}),
        EdgeNeighbour::Portal { side } => json!({"portal_side": side}),
    }
}

fn poly_json(p: &PolyView<'_>) -> Value {
    json!({
        "index": p.index(),
        "ref": p.poly_ref().0,
        "type": match p.poly_type() {
            PolyType::Ground => "ground",
            PolyType::OffMeshConnection => "off_mesh_connection",
        },
        "area": p.area(),
        "flags": p.flags(),
        "verts": p.vertex_indices(),
        "positions": p.vertices().map(v3).collect::<Vec<_>>(),
        "neis": p.neis(),
        "edges": p.edges().map(|e| neighbour_json(e.neighbour)).collect::<Vec<_>>(),
        "links": p.links().map(|l| json!({
            "ref": l.target.0,
            "edge": l.edge,
            "side": l.side,
            "bmin": l.bmin,
            "bmax": l.bmax,
        })).collect::<Vec<_>>(),
        "detail_tris": p.detail().map_or(0, |d| d.triangle_count()),
    })
}

fn tile_json(t: &TileView<'_>, polys: bool) -> Value {
    let h = t.header();
    let mut v = json!({
        "index": t.index(),
        "ref": t.tile_ref(),
        "x": h.x,
        "z": h.y,
        "layer": h.layer,
        "salt": t.salt(),
        "user_id": h.user_id,
        "bmin": v3(h.bmin),
        "bmax": v3(h.bmax),
        "polys": h.poly_count,
        "verts": h.vert_count,
        "max_links": h.max_link_count,
        "links": t.links().count(),
        "detail_meshes": h.detail_mesh_count,
        "detail_verts": h.detail_vert_count,
        "detail_tris": h.detail_tri_count,
        "bv_nodes": h.bv_node_count,
        "bv_quant_factor": num32(h.bv_quant_factor),
        "off_mesh_base": h.off_mesh_base,
        "off_mesh_connections": t.off_mesh_connections().map(|c| off_mesh_json(&c)).collect::<Vec<_>>(),
        "walkable_height_m": num32(h.walkable_height),
        "walkable_radius_m": num32(h.walkable_radius),
        "walkable_climb_m": num32(h.walkable_climb),
        "data_bytes": t.data_size(),
    });
    if polys {
        v["poly_list"] = t.polys().map(|p| poly_json(&p)).collect();
    }
    v
}

fn info_json(nav: &NavMesh, tiles: bool, polys: bool) -> Value {
    let p = nav.params();
    let t = totals(nav);
    let l = nav.ref_layout();
    let (salt_bits, tile_bits, poly_bits) = (l.salt_bits, l.tile_bits, l.poly_bits);
    let mut v = json!({
        "params": {
            "origin": p.origin,
            "tile_width_m": num32(p.tile_width),
            "tile_height_m": num32(p.tile_height),
            "max_tiles": p.max_tiles,
            "max_polys": p.max_polys,
        },
        "ref_bits": {"salt": salt_bits, "tile": tile_bits, "poly": poly_bits},
        "tile_count": nav.tile_count(),
        "max_tiles": nav.max_tiles(),
        "polys": t.polys,
        "ground_polys": t.ground_polys,
        "verts": t.verts,
        "links": t.links,
        "portal_links": t.portal_links,
        "off_mesh_connections": t.off_mesh_connections,
        "detail_meshes": t.detail_meshes,
        "detail_verts": t.detail_verts,
        "detail_tris": t.detail_tris,
        "bv_nodes": t.bv_nodes,
        "navmesh_bytes": t.bytes,
    });
    if tiles {
        v["tiles"] = nav.tiles().map(|t| tile_json(&t, polys)).collect();
    }
    v
}

fn print_info(nav: &NavMesh, tiles: bool, polys: bool) {
    let p = nav.params();
    let t = totals(nav);
    let l = nav.ref_layout();
    let (salt_bits, tile_bits, poly_bits) = (l.salt_bits, l.tile_bits, l.poly_bits);
    out!(
        "Tiles:         {} in use of {} ({:.2} x {:.2} units each, origin ({:.3}, {:.3}, {:.3}))",
        nav.tile_count(),
        nav.max_tiles(),
        p.tile_width,
        p.tile_height,
        p.origin[0],
        p.origin[1],
        p.origin[2]
    );
    out!("Refs:          {salt_bits} salt bits, {tile_bits} tile bits, {poly_bits} poly bits");
    out!(
        "Polys:         {} ({} ground, {} off-mesh connections), {} verts",
        t.polys,
        t.ground_polys,
        t.off_mesh_connections,
        t.verts
    );
    out!(
        "Links:         {} ({} across tiles)",
        t.links,
        t.portal_links
    );
    out!(
        "Detail:        {} meshes, {} verts, {} tris",
        t.detail_meshes,
        t.detail_verts,
        t.detail_tris
    );
    out!("BV nodes:      {}", t.bv_nodes);
    out!("Data:          {} bytes", t.bytes);
    if !tiles {
        return;
    }
    for tile in nav.tiles() {
        let h = tile.header();
        out!(
            "tile {} at ({}, {}, layer {}) ref {:#x}: {} polys ({} off-mesh), {} verts, {} links of {}, \
             detail {} verts {} tris, {} BV nodes, bounds ({:.2}, {:.2}, {:.2}) to ({:.2}, {:.2}, {:.2})",
            tile.index(),
            h.x,
            h.y,
            h.layer,
            tile.tile_ref(),
            h.poly_count,
            h.off_mesh_con_count,
            h.vert_count,
            tile.links().count(),
            h.max_link_count,
            h.detail_vert_count,
            h.detail_tri_count,
            h.bv_node_count,
            h.bmin.x,
            h.bmin.y,
            h.bmin.z,
            h.bmax.x,
            h.bmax.y,
            h.bmax.z
        );
        for c in tile.off_mesh_connections() {
            out!(
                "  off-mesh {} (poly {}): ({:.2}, {:.2}, {:.2}) -> ({:.2}, {:.2}, {:.2}) radius {:.2} {} side {} user id {}",
                c.index,
                c.poly,
                c.start.x,
                c.start.y,
                c.start.z,
                c.end.x,
                c.end.y,
                c.end.z,
                c.radius,
                if c.bidirectional {
                    "both ways"
                } else {
                    "one way"
                },
                c.side,
                c.user_id
            );
        }
        if !polys {
            continue;
        }
        for p in tile.polys() {
            let edges: Vec<String> = p
                .edges()
                .map(|e| match e.neighbour {
                    EdgeNeighbour::Wall => "-".to_string(),
                    EdgeNeighbour::Internal(i) => i.to_string(),
                    EdgeNeighbour::Portal { side } => format!("portal{side}"),
                })
                .collect();
            let links: Vec<String> = p.links().map(|l| l.target.to_string()).collect();
            out!(
                "  poly {} ref {} {:?} area {} flags {:#06x} verts {:?} edges [{}] links [{}]",
                p.index(),
                p.poly_ref(),
                p.poly_type(),
                p.area(),
                p.flags(),
                p.vertex_indices(),
                edges.join(", "),
                links.join(", ")
            );
        }
    }
}
