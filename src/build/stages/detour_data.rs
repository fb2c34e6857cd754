//! Stage `detour_data`: RecastDemo's poly areas and flags, polygons the detail mesh left
//! without an outline triangle triangulated again (`detail_repair`), then `dtCreateNavMeshData`,
//! which packs a tile with the input's off-mesh connections.

use super::detail_repair::repair_detail;
use crate::build::SoloStages;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::detour::{AgentDims, DetailInput, OffMeshInput, create_nav_mesh_data};
use crate::ffi::recast::{PolyMesh, PolyMeshDetail};
use crate::geometry::OffMeshConnection;
use crate::settings::{BuildSettings, area, flags};
use crate::stage::Stage;
use crate::{Error, Result};

/// Off-mesh connections as `dtCreateNavMeshData` (and `dtTileCache`) take them: one array per
/// field.
pub(crate) struct OffMeshArrays {
    verts: Vec<f32>,
    radii: Vec<f32>,
    flags: Vec<u16>,
    areas: Vec<u8>,
    dirs: Vec<u8>,
    ids: Vec<u32>,
}

impl OffMeshArrays {
    /// The arrays of `cons`, in their order.
    pub(crate) fn new(cons: &[OffMeshConnection]) -> Self {
        OffMeshArrays {
            verts: cons
                .iter()
                .flat_map(|c| [c.start.to_array(), c.end.to_array()].concat())
                .collect(),
            radii: cons.iter().map(|c| c.radius).collect(),
            flags: cons.iter().map(|c| c.flags).collect(),
            areas: cons.iter().map(|c| c.area).collect(),
            dirs: cons.iter().map(|c| u8::from(c.bidirectional)).collect(),
            ids: cons.iter().map(|c| c.user_id).collect(),
        }
    }

    /// The arrays, borrowed.
    pub(crate) fn input(&self) -> OffMeshInput<'_> {
        OffMeshInput {
            verts: &self.verts,
            radii: &self.radii,
            flags: &self.flags,
            areas: &self.areas,
            dirs: &self.dirs,
            user_ids: &self.ids,
        }
    }
}

/// Gives the polygons of `pmesh` RecastDemo's areas (Recast's walkable area becomes ground)
/// and flags ([`flags::for_area`]), copies the meshes into `capture` when given, and packs the
/// Detour data of tile `tile` with `cons`. Polygons that `dmesh` leaves without a triangle on
/// their outline are packed as a fan of their own vertices instead (`detail_repair`), with a
/// warning in `ctx`'s log.
#[allow(clippy::too_many_arguments)]
pub(crate) fn create_detour_data(
    ctx: &mut RecastContext,
    guard: &Guard,
    pmesh: &mut PolyMesh,
    dmesh: &PolyMeshDetail,
    cons: &[OffMeshConnection],
    settings: &BuildSettings,
    tile: [i32; 2],
    capture: Option<&mut SoloStages>,
) -> Result<Vec<u8>> {
    guard.check(Stage::DetourData)?;
    for a in pmesh.areas_mut() {
        if *a == area::WALKABLE {
            *a = area::GROUND;
        }
    }
    let poly_flags: Vec<u16> = pmesh.areas().iter().map(|&a| flags::for_area(a)).collect();
    pmesh.flags_mut().copy_from_slice(&poly_flags);
    if let Some(c) = capture {
        c.take_meshes(pmesh, dmesh);
    }
    if pmesh.nverts() >= 0xffff {
        return Err(Error::Build {
            stage: Stage::DetourData,
            message: format!(
                "tile {tile:?} has {} vertices; Detour allows at most 65534 per tile (use smaller tiles)",
                pmesh.nverts()
            ),
        });
    }
    let detail = DetailInput::of(dmesh);
    let repaired = detail.and_then(|d| repair_detail(pmesh, &d));
    if let Some(r) = &repaired {
        ctx.warn(format!(
            "the detail mesh left {} polygon(s) without a triangle on their outline ({:?}); \
             they were triangulated from their own vertices",
            r.polys.len(),
            r.polys
        ));
    }
    let detail = match (&repaired, &detail) {
        (Some(r), Some(d)) => Some(r.input(d)),
        _ => detail,
    };
    create_nav_mesh_data(
        pmesh,
        detail,
        &poly_flags,
        &OffMeshArrays::new(cons).input(),
        &AgentDims {
            height: settings.agent_height,
            radius: settings.agent_radius,
            climb: settings.agent_max_climb,
        },
        tile,
    )
    .ok_or_else(|| Error::Build {
        stage: Stage::DetourData,
        message: format!(
            "dtCreateNavMeshData refused tile {tile:?} ({} verts, {} polys)",
            pmesh.nverts(),
            pmesh.npolys()
        ),
    })
}
