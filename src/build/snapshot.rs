//! [`SoloStages`]: owned copies of Recast's intermediate structures from one solo build
//! ([`super::SoloBuild::stages`], [`super::tiled::TiledNavMesh::tile_stages`]), for looking at each stage (see [`crate::debug_draw::stages`]).

use glam::Vec3;

use crate::ffi::recast::{CompactHeightfield, ContourSet, Heightfield, PolyMesh, PolyMeshDetail};

/// The heightfield after the span filters (`rcHeightfield`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeightfieldSnapshot {
    /// Grid origin.
    pub bmin: Vec3,
    /// Cell size (xz).
    pub cs: f32,
    /// Cell height (y).
    pub ch: f32,
    /// Every span, column by column, walkable or not (the build report's `spans` counts the
    /// walkable ones, area not 0).
    pub spans: Vec<HeightfieldSpan>,
}

/// One heightfield span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeightfieldSpan {
    /// Column x.
    pub x: u16,
    /// Column z.
    pub z: u16,
    /// Bottom, in cell heights above `bmin.y`.
    pub smin: u16,
    /// Top, in cell heights above `bmin.y`.
    pub smax: u16,
    /// Area id (0 not walkable, 63 walkable, or a marked area).
    pub area: u8,
}

/// The compact heightfield after partitioning (`rcCompactHeightfield`): walkable spans with
/// their area, region and distance-field value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompactSnapshot {
    /// Grid width in cells.
    pub width: usize,
    /// Grid height (z) in cells.
    pub height: usize,
    /// Grid origin.
    pub bmin: Vec3,
    /// Cell size.
    pub cs: f32,
    /// Cell height.
    pub ch: f32,
    /// The largest distance-field value (0 without one).
    pub max_distance: u16,
    /// One more than the largest region id.
    pub max_regions: u16,
    /// Every span.
    pub spans: Vec<CompactSpanSnapshot>,
}

/// One compact span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompactSpanSnapshot {
    /// Column x.
    pub x: u16,
    /// Column z.
    pub z: u16,
    /// Floor, in cell heights above `bmin.y`.
    pub y: u16,
    /// Area id.
    pub area: u8,
    /// Region id (0: none; the border bit `0x8000` is kept).
    pub region: u16,
    /// Distance-field value (0 without a distance field).
    pub distance: u16,
}

/// The contour set (`rcContourSet`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContoursSnapshot {
    /// Origin.
    pub bmin: Vec3,
    /// Cell size.
    pub cs: f32,
    /// Cell height.
    pub ch: f32,
    /// Border size in cells.
    pub border_size: i32,
    /// The contours.
    pub contours: Vec<ContourSnapshot>,
}

/// One contour: simplified and raw vertices as `[x, y, z, flags]` in voxels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContourSnapshot {
    /// Region id.
    pub region: u16,
    /// Area id.
    pub area: u8,
    /// Simplified vertices.
    pub verts: Vec<[i32; 4]>,
    /// Raw vertices.
    pub raw_verts: Vec<[i32; 4]>,
}

/// The poly mesh (`rcPolyMesh`), areas and flags as given to Detour.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyMeshSnapshot {
    /// Origin.
    pub bmin: Vec3,
    /// Cell size.
    pub cs: f32,
    /// Cell height.
    pub ch: f32,
    /// Border size in cells.
    pub border_size: i32,
    /// Vertices in voxels.
    pub verts: Vec<[u16; 3]>,
    /// Each poly's vertex indices.
    pub polys: Vec<Vec<u16>>,
    /// Each poly's neighbour entries, one per edge (`0xffff` none; `0x8000` bit: a portal
    /// to the border side in the low bits).
    pub neis: Vec<Vec<u16>>,
    /// Area ids.
    pub areas: Vec<u8>,
    /// Flags.
    pub flags: Vec<u16>,
}

impl PolyMeshSnapshot {
    /// Vertex `i` in world units (y one cell height up, as RecastDemo draws it).
    pub fn vertex(&self, i: usize) -> Option<Vec3> {
        let v = self.verts.get(i)?;
        Some(
            self.bmin
                + Vec3::new(
                    f32::from(v[0]) * self.cs,
                    (f32::from(v[1]) + 1.0) * self.ch,
                    f32::from(v[2]) * self.cs,
                ),
        )
    }
}

/// The detail mesh (`rcPolyMeshDetail`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DetailMeshSnapshot {
    /// Per poly: first vertex, vertex count, first triangle, triangle count.
    pub meshes: Vec<[u32; 4]>,
    /// Vertices in world units.
    pub verts: Vec<Vec3>,
    /// Triangles: three local vertex indices (into the submesh's vertices) and edge flags.
    pub tris: Vec<[u8; 4]>,
}

/// Owned copies of a solo build's intermediate Recast stages.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SoloStages {
    /// Heightfield after the filters.
    pub heightfield: HeightfieldSnapshot,
    /// Compact heightfield after partitioning.
    pub compact: CompactSnapshot,
    /// Contours.
    pub contours: ContoursSnapshot,
    /// Poly mesh.
    pub poly_mesh: PolyMeshSnapshot,
    /// Detail mesh.
    pub detail_mesh: DetailMeshSnapshot,
}

impl SoloStages {
    pub(crate) fn take_heightfield(&mut self, hf: &Heightfield) {
        let (spans, bmin, cs, ch) = hf.export_spans();
        self.heightfield = HeightfieldSnapshot {
            bmin: Vec3::from_array(bmin),
            cs,
            ch,
            spans: spans
                .into_iter()
                .map(|s| HeightfieldSpan {
                    x: s.x,
                    z: s.z,
                    smin: s.smin,
                    smax: s.smax,
                    area: s.area,
                })
                .collect(),
        };
    }

    pub(crate) fn take_compact(&mut self, chf: &CompactHeightfield) {
        let (w, h, _) = chf.dims();
        let (w, h) = (w.max(0) as usize, h.max(0) as usize);
        let (cells, spans) = chf.export();
        let (regs, dist) = chf.export_regions_and_distances();
        let (bmin, cs, ch) = chf.frame();
        let (max_distance, max_regions) = chf.distance_and_regions();
        let mut out = Vec::with_capacity(spans.len());
        for (ci, &(first, count)) in cells.iter().enumerate() {
            for i in first as usize..first as usize + usize::from(count) {
                let Some(s) = spans.get(i) else { continue };
                out.push(CompactSpanSnapshot {
                    x: (ci % w.max(1)) as u16,
                    z: (ci / w.max(1)) as u16,
                    y: s.y,
                    area: s.area,
                    region: regs.get(i).copied().unwrap_or(0),
                    distance: dist.get(i).copied().unwrap_or(0),
                });
            }
        }
        self.compact = CompactSnapshot {
            width: w,
            height: h,
            bmin: Vec3::from_array(bmin),
            cs,
            ch,
            max_distance,
            max_regions,
            spans: out,
        };
    }

    pub(crate) fn take_contours(&mut self, cset: &ContourSet) {
        let (conts, bmin, cs, ch, border_size) = cset.export();
        self.contours = ContoursSnapshot {
            bmin: Vec3::from_array(bmin),
            cs,
            ch,
            border_size,
            contours: conts
                .into_iter()
                .map(|c| ContourSnapshot {
                    region: c.reg,
                    area: c.area,
                    verts: c.verts,
                    raw_verts: c.raw_verts,
                })
                .collect(),
        };
    }

    pub(crate) fn take_meshes(&mut self, pmesh: &PolyMesh, dmesh: &PolyMeshDetail) {
        let nvp = pmesh.nvp().max(1);
        let (bmin, _) = pmesh.bounds();
        let (cs, ch) = pmesh.cell();
        let polys = pmesh.polys();
        let mut pv = Vec::new();
        let mut pn = Vec::new();
        for p in polys.chunks_exact(nvp * 2) {
            let n = p[..nvp].iter().take_while(|&&v| v != 0xffff).count();
            pv.push(p[..n].to_vec());
            pn.push(p[nvp..nvp + n].to_vec());
        }
        self.poly_mesh = PolyMeshSnapshot {
            bmin: Vec3::from_array(bmin),
            cs,
            ch,
            border_size: pmesh.border_size(),
            verts: pmesh
                .verts()
                .chunks_exact(3)
                .map(|v| [v[0], v[1], v[2]])
                .collect(),
            polys: pv,
            neis: pn,
            areas: pmesh.areas().to_vec(),
            flags: pmesh.flags().to_vec(),
        };
        self.detail_mesh = DetailMeshSnapshot {
            meshes: dmesh
                .meshes()
                .chunks_exact(4)
                .map(|m| [m[0], m[1], m[2], m[3]])
                .collect(),
            verts: dmesh
                .verts()
                .chunks_exact(3)
                .map(|v| Vec3::new(v[0], v[1], v[2]))
                .collect(),
            tris: dmesh
                .tris()
                .chunks_exact(4)
                .map(|t| [t[0], t[1], t[2], t[3]])
                .collect(),
        };
    }
}
