//! The walkable spans of the eroded compact heightfield: the mesh-derived grid behind
//! [`crate::grid::mesh::MeshGrid`] (stacked floors, 8-neighbours without corner cutting), built
//! by the solo pipeline's stages up to erosion and convex volumes.

use super::pipeline::walkable_area;
use super::solo::{Stage, solo_config};
use crate::build::stages::{TriChunk, TriIds};
use crate::ffi::context::RecastContext;
use crate::geometry::InputGeometry;
use crate::settings::{BuildSettings, area};
use crate::{Error, Result};

/// A walkable span of [`WalkableSpans`]: one cell column's floor, with its links to the spans of
/// the four neighbouring cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WalkableSpan {
    /// Cell column (x).
    pub x: u32,
    /// Cell row (z).
    pub z: u32,
    /// Floor height in voxels above the grid origin.
    pub y: u16,
    /// Area id; [`area::NULL`] for spans eroded away or otherwise not walkable.
    pub area: u8,
    /// Neighbouring span in directions -x, +z, +x, -z, or `u32::MAX` where the agent cannot step.
    pub neighbours: [u32; 4],
}

/// The walkable surface as Recast sees it after erosion: every span of the compact heightfield,
/// 4-linked through Recast's span connections (so stacked floors, bridges and ramps work). The
/// grid pathfinder's mesh-derived grid is built on this.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WalkableSpans {
    /// Cells along x.
    pub width: u32,
    /// Cells along z.
    pub height: u32,
    /// World position of the grid's minimum corner.
    pub origin: glam::Vec3,
    /// Cell size (xz).
    pub cell_size: f32,
    /// Cell height (y).
    pub cell_height: f32,
    /// Per cell (x + z * width): index of its first span and its span count.
    pub cells: Vec<(u32, u8)>,
    /// The spans.
    pub spans: Vec<WalkableSpan>,
}

/// Direction offsets (dx, dz) of [`WalkableSpan::neighbours`].
pub const SPAN_DIRS: [(i32, i32); 4] = [(-1, 0), (0, 1), (1, 0), (0, -1)];

impl WalkableSpans {
    /// True if span `i` can be stood on.
    pub fn walkable(&self, i: u32) -> bool {
        self.spans
            .get(i as usize)
            .is_some_and(|s| s.area != area::NULL)
    }

    /// World position of span `i`: the centre of its cell, on its floor.
    pub fn position(&self, i: u32) -> glam::Vec3 {
        let s = &self.spans[i as usize];
        self.origin
            + glam::Vec3::new(
                (s.x as f32 + 0.5) * self.cell_size,
                s.y as f32 * self.cell_height,
                (s.z as f32 + 0.5) * self.cell_size,
            )
    }

    /// The walkable neighbour of span `i` in direction `dir` (0..4, see [`SPAN_DIRS`]).
    pub fn step(&self, i: u32, dir: usize) -> Option<u32> {
        let n = *self.spans.get(i as usize)?.neighbours.get(dir)?;
        (n != u32::MAX && self.walkable(n)).then_some(n)
    }

    /// The walkable spans reachable from `i` in one of 8 moves, with their step lengths in cells
    /// (1 or sqrt 2). A diagonal move needs both side moves walkable and both routes to reach the
    /// same span: no corner cutting, as the Moving AI rules.
    pub fn neighbours8(&self, i: u32) -> impl Iterator<Item = (u32, f32)> + '_ {
        let straight = (0..4).filter_map(move |d| self.step(i, d).map(|n| (n, 1.0)));
        let diagonal = (0..4).filter_map(move |d| {
            let e = (d + 1) % 4;
            let a = self.step(self.step(i, d)?, e)?;
            let b = self.step(self.step(i, e)?, d)?;
            (a == b).then_some((a, std::f32::consts::SQRT_2))
        });
        straight.chain(diagonal)
    }

    /// The walkable span nearest `p` in its cell column (by floor height), if any.
    pub fn span_at(&self, p: glam::Vec3) -> Option<u32> {
        let local = (p - self.origin) / self.cell_size;
        if local.x < 0.0 || local.z < 0.0 {
            return None;
        }
        let (x, z) = (local.x as u32, local.z as u32);
        if x >= self.width || z >= self.height {
            return None;
        }
        let (first, count) = self.cells[(x + z * self.width) as usize];
        (first..first + count as u32)
            .filter(|&i| self.walkable(i))
            .min_by(|&a, &b| {
                let da = (self.position(a).y - p.y).abs();
                let db = (self.position(b).y - p.y).abs();
                da.total_cmp(&db)
            })
    }
}

/// Runs the build up to erosion and convex volumes and returns the walkable spans, for grid
/// pathfinding on the same geometry and agent settings as the navmesh.
pub(crate) fn build_walkable_spans(
    geom: &InputGeometry,
    settings: &BuildSettings,
) -> Result<WalkableSpans> {
    let cfg = solo_config(geom, settings)?;
    let mut ctx = RecastContext::new();
    let (chf, _, _) = walkable_area(
        &mut ctx,
        &super::budget::Guard::none(),
        geom,
        settings,
        &cfg,
        std::iter::once(TriChunk {
            tris: &geom.mesh.tris[..],
            ids: TriIds::From(0),
        }),
        1,
        None,
    )?;
    let (cells, raw) = chf.export();
    let (origin, cs, ch) = chf.frame();
    let w = cfg.width.max(0) as u32;
    let mut spans: Vec<WalkableSpan> = Vec::with_capacity(raw.len());
    for (c, &(first, count)) in cells.iter().enumerate() {
        let (x, z) = (c as u32 % w.max(1), c as u32 / w.max(1));
        for i in first..first + count as u32 {
            if let Some(r) = raw.get(i as usize) {
                if spans.len() == i as usize {
                    spans.push(WalkableSpan {
                        x,
                        z,
                        y: r.y,
                        area: r.area,
                        neighbours: r.neighbours,
                    });
                }
            }
        }
    }
    if spans.len() != raw.len() {
        return Err(Error::Build {
            stage: Stage::CompactHeightfield,
            message: "compact heightfield cells do not cover its spans in order".into(),
        });
    }
    Ok(WalkableSpans {
        width: w,
        height: cfg.height.max(0) as u32,
        origin: glam::Vec3::from_array(origin),
        cell_size: cs,
        cell_height: ch,
        cells,
        spans,
    })
}
