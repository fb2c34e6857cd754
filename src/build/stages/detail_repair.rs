//! Polygons that Recast's detail mesh leaves without a usable triangulation, triangulated again
//! from their own vertices before the tile is packed.
//!
//! `rcBuildPolyMeshDetail` can leave a polygon with no detail triangles at all: its Delaunay
//! triangulation of the polygon's outline and height samples sometimes ends without a face (found
//! by a randomized sweep of settings and levels, issue 19: three overlapping sloped triangles
//! with 0.3 m cells, written out in `tests/build_validity.rs`). Detour cannot take such a
//! polygon, nor one whose detail triangles have no edge flagged as the polygon's outline
//! (`DT_DETAIL_EDGE_BOUNDARY`): `closestPointOnPoly` looks for the nearest outline edge among
//! the detail triangles and dereferences a null pointer when there is none. navkit's tile
//! validator refuses both, so the build ended in a `NavMeshData` error. Such a polygon is given
//! what Detour itself builds for every polygon of a tile without detail mesh: a fan of
//! triangles over the polygon's own vertices, each outline edge flagged; its heights are then
//! those of its vertices. The build's report says which polygons were triangulated so.

use crate::ffi::detour::DetailInput;
use crate::ffi::recast::PolyMesh;
use recastnavigation_sys::dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY as BOUNDARY;

/// `DT_DETAIL_EDGE_BOUNDARY` in any of a detail triangle's three 2-bit edge fields.
const ANY_BOUNDARY: u8 = (BOUNDARY | BOUNDARY << 2 | BOUNDARY << 4) as u8;

/// A detail mesh's sub-mesh table and triangles, with the polygons in `polys` given a fan of
/// triangles appended after Recast's.
pub(crate) struct RepairedDetail {
    /// 4 entries per polygon: vertex base and count (Recast's), triangle base and count.
    pub(crate) meshes: Vec<u32>,
    /// Recast's triangles, then the fans.
    pub(crate) tris: Vec<u8>,
    /// The polygons triangulated again, in order.
    pub(crate) polys: Vec<usize>,
}

impl RepairedDetail {
    /// The detail mesh to pack: `detail`'s vertices with these sub-meshes and triangles.
    pub(crate) fn input<'a>(&'a self, detail: &DetailInput<'a>) -> DetailInput<'a> {
        DetailInput {
            meshes: &self.meshes,
            verts: detail.verts,
            tris: &self.tris,
        }
    }
}

/// True if the `count` triangles of `tris` from `base` include one with an outline edge; false
/// for none (and for a range past the triangles: the tile validator reports that one).
fn has_outline(tris: &[u8], base: usize, count: usize) -> bool {
    let range = base
        .checked_mul(4)
        .zip(base.checked_add(count).and_then(|e| e.checked_mul(4)))
        .and_then(|(a, b)| tris.get(a..b));
    range.is_some_and(|t| t.chunks_exact(4).any(|t| t[3] & ANY_BOUNDARY != 0))
}

/// The fan of a polygon of `nv` vertices: triangles (0, j - 1, j) for j in 2..nv, each with its
/// edges on the outline flagged: (j - 1, j) always, (0, 1) in the first, (nv - 1, 0) in the last.
/// Indices below `nv` name the polygon's own vertices in Detour's detail triangles.
fn fan(nv: usize, out: &mut Vec<u8>) {
    for j in 2..nv {
        let mut flags = BOUNDARY << 2;
        if j == 2 {
            flags |= BOUNDARY;
        }
        if j == nv - 1 {
            flags |= BOUNDARY << 4;
        }
        // nv is at most DT_VERTS_PER_POLYGON (6): every index and flag fits a byte.
        out.extend_from_slice(&[0, (j - 1) as u8, j as u8, flags as u8]);
    }
}

/// `detail` with every polygon of `pmesh` whose sub-mesh has no triangle, or none with an
/// outline edge, triangulated as a fan of its own vertices; `None` if every polygon has one.
pub(crate) fn repair_detail(pmesh: &PolyMesh, detail: &DetailInput<'_>) -> Option<RepairedDetail> {
    let nvp = pmesh.nvp().max(1);
    let polys = pmesh.polys().chunks_exact(2 * nvp);
    let needs: Vec<(usize, usize)> = polys
        .zip(detail.meshes.chunks_exact(4))
        .enumerate()
        .filter(|(_, (_, m))| !has_outline(detail.tris, m[2] as usize, m[3] as usize))
        .map(|(i, (p, _))| (i, p[..nvp].iter().take_while(|&&v| v != 0xffff).count()))
        .filter(|&(_, nv)| nv >= 3)
        .collect();
    if needs.is_empty() {
        return None;
    }
    let mut meshes = detail.meshes.to_vec();
    let mut tris = detail.tris.to_vec();
    for &(i, nv) in &needs {
        let base = tris.len() / 4;
        fan(nv, &mut tris);
        // The tile's triangle count is an `int`; past it the tile validator reports the range.
        meshes[i * 4 + 2] = u32::try_from(base).unwrap_or(u32::MAX);
        meshes[i * 4 + 3] = (nv - 2) as u32;
    }
    Some(RepairedDetail {
        meshes,
        tris,
        polys: needs.into_iter().map(|(i, _)| i).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: a hexagon's fan is 4 triangles, (0,1,2) with edges 0-1 and 1-2 on the outline,
    /// (0,2,3) and (0,3,4) with their middle edge, (0,4,5) with 4-5 and 5-0.
    #[test]
    fn fan_flags_every_outline_edge_once() {
        let mut t = Vec::new();
        fan(6, &mut t);
        assert_eq!(
            t,
            [
                0, 1, 2, 0b000101, //
                0, 2, 3, 0b000100, //
                0, 3, 4, 0b000100, //
                0, 4, 5, 0b010100,
            ]
        );
        let mut t = Vec::new();
        fan(3, &mut t);
        assert_eq!(t, [0, 1, 2, 0b010101]);
    }

    #[test]
    fn outline_found_only_in_range() {
        let tris = [0, 1, 2, 0, 0, 2, 3, 0b000100];
        assert!(!has_outline(&tris, 0, 1));
        assert!(has_outline(&tris, 0, 2));
        assert!(has_outline(&tris, 1, 1));
        assert!(!has_outline(&tris, 1, 0));
        assert!(!has_outline(&tris, 2, 1));
        assert!(!has_outline(&tris, usize::MAX, 2));
    }
}
