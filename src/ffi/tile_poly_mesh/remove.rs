//! Removal of the border vertices the contours flag (Detour's `canRemoveVertex` and
//! `removeVertex`): the polygons around such a vertex are taken out and the hole they leave is
//! triangulated and merged again. Buffers are sized for everything Detour allows (48 edges);
//! a hole that does not close keeps its vertex (see the parent module's doc).

use super::triangulate::triangulate;
use super::{
    MAX_REM_EDGES, NULL_IDX, NVP, TOO_SMALL, TilePolyMesh, count_poly_verts, merge_polys,
    triangle_polys,
};

/// Removes every vertex flagged in `vflags` (one flag a vertex, kept in step with the mesh's
/// vertices) that can be removed, as Detour's loop over the mesh's vertices. `max_tris` caps
/// the polygons a hole adds (Detour's `maxTris`).
pub(super) fn remove_border_vertices(
    mesh: &mut TilePolyMesh,
    vflags: &mut Vec<u8>,
    max_tris: usize,
) -> Result<(), u32> {
    let mut i = 0;
    while i < mesh.nverts() {
        let rem = i as u16;
        if vflags.get(i).is_some_and(|&f| f != 0) && can_remove_vertex(mesh, rem) {
            if remove_vertex(mesh, rem, max_tris)? {
                vflags.remove(i);
                continue;
            }
            mesh.kept_open_holes += 1;
        }
        i += 1;
    }
    Ok(())
}

/// Detour's `canRemoveVertex`: false if too few edges would remain to make a polygon, if more
/// than 48 edges would be involved, or if more than two open edges meet at `rem` (two polygons
/// touching only at it). Every distinct edge at `rem` is counted (Detour's array holds only 16
/// of the 48 it lets through, and writes the rest past its end).
fn can_remove_vertex(mesh: &TilePolyMesh, rem: u16) -> bool {
    let (mut touched, mut remaining) = (0usize, 0usize);
    for i in 0..mesh.npolys() {
        let p = mesh.poly(i);
        let nv = count_poly_verts(p);
        let removed = p[..nv].iter().filter(|&&v| v == rem).count();
        touched += removed;
        if removed > 0 {
            remaining += nv - (removed + 1);
        }
    }
    if remaining <= 2 || touched * 2 > MAX_REM_EDGES {
        return false;
    }
    // (rem, other end, number of polygons sharing the edge)
    let mut edges: Vec<[u16; 3]> = Vec::with_capacity(touched * 2);
    for i in 0..mesh.npolys() {
        let p = mesh.poly(i);
        let nv = count_poly_verts(p);
        for j in 0..nv {
            let k = if j == 0 { nv - 1 } else { j - 1 };
            if p[j] != rem && p[k] != rem {
                continue;
            }
            let (a, b) = if p[k] == rem {
                (p[k], p[j])
            } else {
                (p[j], p[k])
            };
            let mut exists = false;
            for e in edges.iter_mut().filter(|e| e[1] == b) {
                e[2] += 1;
                exists = true;
            }
            if !exists {
                edges.push([a, b, 1]);
            }
        }
    }
    edges.iter().filter(|e| e[2] < 2).count() <= 2
}

/// The edges (start, end, area) of the polygons holding `rem` that do not touch it, in
/// Detour's order, and the polygon order after those polygons are taken out (each replaced by
/// the last, as Detour does): `order[slot]` is the polygon's index before.
fn hole_edges(mesh: &TilePolyMesh, rem: u16) -> Result<(Vec<[u16; 3]>, Vec<usize>), u32> {
    let mut order: Vec<usize> = (0..mesh.npolys()).collect();
    let mut edges = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let p = mesh.poly(order[i]);
        let nv = count_poly_verts(p);
        if !p[..nv].contains(&rem) {
            i += 1;
            continue;
        }
        for j in 0..nv {
            let k = if j == 0 { nv - 1 } else { j - 1 };
            if p[j] != rem && p[k] != rem {
                if edges.len() >= MAX_REM_EDGES {
                    return Err(TOO_SMALL);
                }
                edges.push([p[k], p[j], u16::from(mesh.areas[order[i]])]);
            }
        }
        order.swap_remove(i);
    }
    Ok((edges, order))
}

/// Chains the hole's edges into its boundary (vertices and the area of the edge each starts),
/// appending edges at either end until none fits, as Detour does. An empty boundary if there is
/// no edge.
fn chain_hole(mut edges: Vec<[u16; 3]>) -> Result<(Vec<u16>, Vec<u16>), u32> {
    let Some(first) = edges.first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let (mut hole, mut harea) = (vec![first[0]], vec![first[2]]);
    while !edges.is_empty() {
        let mut matched = false;
        let mut i = 0;
        while i < edges.len() {
            let [ea, eb, a] = edges[i];
            let at_front = hole[0] == eb;
            if !at_front && hole[hole.len() - 1] != ea {
                i += 1;
                continue;
            }
            if hole.len() >= MAX_REM_EDGES {
                return Err(TOO_SMALL);
            }
            if at_front {
                hole.insert(0, ea);
                harea.insert(0, a);
            } else {
                hole.push(eb);
                harea.push(a);
            }
            edges.swap_remove(i);
            matched = true;
        }
        if !matched {
            break;
        }
    }
    Ok((hole, harea))
}

/// Detour's `removeVertex`: takes out the polygons around `rem` and the vertex, then fills the
/// hole with merged triangles (at most up to `max_tris` polygons in the mesh). `Ok(false)`, the
/// mesh untouched, when the hole's edges chain into fewer than 3 vertices (Detour's undefined
/// case); `Ok(true)` once removed; `Err` (a Detour status) past Detour's 48-edge limits.
fn remove_vertex(mesh: &mut TilePolyMesh, rem: u16, max_tris: usize) -> Result<bool, u32> {
    let (edges, order) = hole_edges(mesh, rem)?;
    let had_edges = !edges.is_empty();
    let (mut hole, harea) = chain_hole(edges)?;
    if had_edges && hole.len() < 3 {
        return Ok(false);
    }
    take_out(mesh, &order, rem);
    for v in hole.iter_mut().filter(|v| **v > rem) {
        *v -= 1;
    }
    if hole.is_empty() {
        return Ok(true);
    }
    let mut tverts = Vec::with_capacity(hole.len() * 4);
    for &v in &hole {
        let p = &mesh.verts[usize::from(v) * 3..usize::from(v) * 3 + 3];
        tverts.extend([p[0] as u8, p[1] as u8, p[2] as u8, 0]);
    }
    let mut tpoly: Vec<u16> = (0..hole.len() as u16).collect();
    let tris = triangulate(hole.len(), &tverts, &mut tpoly);
    if tris.len() / 3 > MAX_REM_EDGES {
        return Err(TOO_SMALL);
    }
    let mut polys = triangle_polys(&tris, |t| hole[usize::from(t)]);
    let mut pareas: Vec<u8> = tris
        .chunks_exact(3)
        .filter(|t| t[0] != t[1] && t[0] != t[2] && t[1] != t[2])
        .map(|t| harea[usize::from(t[0])] as u8)
        .collect();
    merge_polys(&mut polys, Some(&mut pareas), &mesh.verts);
    for (p, &area) in polys.iter().zip(&pareas) {
        if mesh.npolys() >= max_tris {
            break;
        }
        mesh.push_poly(p, area);
    }
    Ok(true)
}

/// Keeps the polygons in `order` (the others held `rem`), removes vertex `rem` and renumbers
/// the vertices after it.
fn take_out(mesh: &mut TilePolyMesh, order: &[usize], rem: u16) {
    let mut polys = Vec::with_capacity(order.len() * 2 * NVP);
    let mut areas = Vec::with_capacity(order.len());
    for &o in order {
        polys.extend_from_slice(mesh.poly(o));
        polys.extend_from_slice(&[NULL_IDX; NVP]);
        areas.push(mesh.areas[o]);
    }
    let r = usize::from(rem) * 3;
    mesh.verts.drain(r..r + 3);
    for p in polys.chunks_exact_mut(2 * NVP) {
        let nv = count_poly_verts(p);
        for v in p[..nv].iter_mut().filter(|v| **v > rem) {
            *v -= 1;
        }
    }
    mesh.polys = polys;
    mesh.areas = areas;
}
