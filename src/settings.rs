//! Build settings (in world units, as in RecastDemo's settings panel), poly areas and poly flags.

use crate::Aabb;
use crate::{Error, Result};
use glam::Vec3;

/// How the walkable surface is partitioned into regions before contours are traced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Partition {
    /// Watershed partitioning: the best triangulation, the slowest; RecastDemo's default.
    #[default]
    Watershed,
    /// Monotone partitioning: fastest, may give long thin polygons.
    Monotone,
    /// Layer partitioning: non-overlapping regions, good for tiled meshes with small tiles.
    Layers,
}

impl Partition {
    /// RecastDemo's numeric code (`SAMPLE_PARTITION_*`), as stored in `.gset` files.
    pub fn code(self) -> i32 {
        match self {
            Partition::Watershed => 0,
            Partition::Monotone => 1,
            Partition::Layers => 2,
        }
    }

    /// The partition for a RecastDemo numeric code.
    pub fn from_code(code: i32) -> Option<Self> {
        match code {
            0 => Some(Partition::Watershed),
            1 => Some(Partition::Monotone),
            2 => Some(Partition::Layers),
            _ => None,
        }
    }
}

impl std::str::FromStr for Partition {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "watershed" => Ok(Partition::Watershed),
            "monotone" => Ok(Partition::Monotone),
            "layers" | "layer" => Ok(Partition::Layers),
            other => Err(format!(
                "unknown partition `{other}` (expected watershed, monotone or layers)"
            )),
        }
    }
}

/// Poly area ids, as RecastDemo's `SamplePolyAreas`.
pub mod area {
    /// Ground (Recast's walkable area is renamed to this after the build).
    pub const GROUND: u8 = 0;
    /// Water.
    pub const WATER: u8 = 1;
    /// Road.
    pub const ROAD: u8 = 2;
    /// Door.
    pub const DOOR: u8 = 3;
    /// Grass.
    pub const GRASS: u8 = 4;
    /// Jump (off-mesh connections).
    pub const JUMP: u8 = 5;
    /// Recast's `RC_WALKABLE_AREA`.
    pub const WALKABLE: u8 = 63;
    /// Recast's `RC_NULL_AREA`.
    pub const NULL: u8 = 0;

    /// A readable name for an area id.
    pub fn name(area: u8) -> &'static str {
        match area {
            GROUND => "ground",
            WATER => "water",
            ROAD => "road",
            DOOR => "door",
            GRASS => "grass",
            JUMP => "jump",
            WALKABLE => "walkable",
            _ => "custom",
        }
    }
}

/// Poly flags, as RecastDemo's `SamplePolyFlags`.
pub mod flags {
    /// Ability to walk (ground, grass, road).
    pub const WALK: u16 = 0x01;
    /// Ability to swim (water).
    pub const SWIM: u16 = 0x02;
    /// Ability to move through doors.
    pub const DOOR: u16 = 0x04;
    /// Ability to jump.
    pub const JUMP: u16 = 0x08;
    /// Disabled polygon.
    pub const DISABLED: u16 = 0x10;
    /// All abilities.
    pub const ALL: u16 = 0xffff;

    /// The flags RecastDemo's Solo Mesh sample gives a built polygon of `area` (ground, grass and
    /// road walk; water swims; doors walk and open; any other area, jump included, gets none:
    /// off-mesh connections carry their own flags).
    pub fn for_area(area: u8) -> u16 {
        match area {
            super::area::GROUND | super::area::GRASS | super::area::ROAD => WALK,
            super::area::WATER => SWIM,
            super::area::DOOR => WALK | DOOR,
            _ => 0,
        }
    }
}

/// Settings of a solo navmesh build, in world units, with RecastDemo's defaults.
///
/// The voxel conversions (`walkableHeight = ceil(agent_height / cell_height)` and so on) are done
/// by [`BuildSettings::to_config`] exactly as RecastDemo's Solo Mesh sample does them.
///
/// ```
/// let s = navkit::BuildSettings::default();
/// assert_eq!(s.cell_size, 0.3);
/// assert!(s.validate().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct BuildSettings {
    /// Voxel size on the xz-plane (world units).
    pub cell_size: f32,
    /// Voxel size on the y axis (world units).
    pub cell_height: f32,
    /// Height of the agent (world units).
    pub agent_height: f32,
    /// Radius of the agent (world units).
    pub agent_radius: f32,
    /// Largest step the agent can climb (world units).
    pub agent_max_climb: f32,
    /// Steepest walkable slope (degrees).
    pub agent_max_slope: f32,
    /// Regions smaller than this (in cells, squared) are removed.
    pub region_min_size: f32,
    /// Regions smaller than this (in cells, squared) are merged into neighbours.
    pub region_merge_size: f32,
    /// Longest contour edge (world units).
    pub edge_max_len: f32,
    /// Largest distance a simplified contour may stray from the raw one (in cells).
    pub edge_max_error: f32,
    /// Most vertices per polygon (3..=6).
    pub verts_per_poly: u32,
    /// Detail mesh sample spacing (in cells; below 0.9 means no sampling: no Recast detail mesh,
    /// Detour triangulates each polygon from its own vertices).
    pub detail_sample_dist: f32,
    /// Detail mesh largest height error (in cell heights).
    pub detail_sample_max_error: f32,
    /// The region partitioning method.
    pub partition: Partition,
    /// Build only inside these bounds (defaults to the mesh bounds).
    pub bounds: Option<Aabb>,
    /// Tile size in cells (used by tiled builds; stored in `.gset` files).
    pub tile_size: u32,
    /// Remove spans an agent could step up onto from below (`rcFilterLowHangingWalkableObstacles`).
    pub filter_low_hanging_obstacles: bool,
    /// Remove spans at ledges (`rcFilterLedgeSpans`).
    pub filter_ledge_spans: bool,
    /// Remove spans with too little headroom (`rcFilterWalkableLowHeightSpans`).
    pub filter_walkable_low_height_spans: bool,
}

impl Default for BuildSettings {
    fn default() -> Self {
        BuildSettings {
            cell_size: 0.3,
            cell_height: 0.2,
            agent_height: 2.0,
            agent_radius: 0.6,
            agent_max_climb: 0.9,
            agent_max_slope: 45.0,
            region_min_size: 8.0,
            region_merge_size: 20.0,
            edge_max_len: 12.0,
            edge_max_error: 1.3,
            verts_per_poly: 6,
            detail_sample_dist: 6.0,
            detail_sample_max_error: 1.0,
            partition: Partition::Watershed,
            bounds: None,
            tile_size: 32,
            filter_low_hanging_obstacles: true,
            filter_ledge_spans: true,
            filter_walkable_low_height_spans: true,
        }
    }
}

/// One numeric field of [`BuildSettings`], as RecastDemo's settings panel shows it: the names
/// (ours, RecastDemo's `.gset` name and its panel label), the panel's slider range, the range a
/// setting may take at all, and a getter and setter. [`BuildSettings::FIELDS`] lists them all,
/// in RecastDemo's panel (and `.gset`) order, so that a settings panel, a file format or a
/// request parser need not list them again.
///
/// ```
/// use navkit::BuildSettings;
/// let mut s = BuildSettings::default();
/// let f = BuildSettings::field("cell_size").unwrap();
/// assert_eq!((f.label, f.slider), ("Cell Size", (0.1, 1.0, 0.01)));
/// (f.set)(&mut s, 0.5);
/// assert_eq!((f.get)(&s), 0.5);
/// assert!(f.check(1e9).is_err());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SettingField {
    /// Our name (the struct field, the serde and JSON key): `cell_size`.
    pub name: &'static str,
    /// RecastDemo's name (`Sample` member and `.gset` order): `cellSize`.
    pub gset_name: &'static str,
    /// The label of RecastDemo's slider: `Cell Size`.
    pub label: &'static str,
    /// The heading it sits under in RecastDemo's panel: `Rasterization`, `Agent`, `Region`,
    /// `Polygonization`, `Detail Mesh` or `Tiling`.
    pub group: &'static str,
    /// The unit of the value (`m`, `degrees`, `cells`, `cell sizes`, `cell heights`, ...).
    pub unit: &'static str,
    /// RecastDemo's slider: smallest, largest, step.
    pub slider: (f32, f32, f32),
    /// The smallest value accepted (it may be below the slider's).
    pub min: f32,
    /// The largest value accepted (it may be above the slider's). [`BuildSettings::validate`]
    /// checks further limits that depend on other fields (voxel units).
    pub max: f32,
    /// A whole number (`verts_per_poly`, `tile_size`).
    pub whole: bool,
    /// Reads the field.
    pub get: fn(&BuildSettings) -> f32,
    /// Writes the field (a whole-number field is truncated; check first with
    /// [`check`](Self::check)).
    pub set: fn(&mut BuildSettings, f32),
}

impl SettingField {
    /// `Ok` if `value` is finite, within `min..=max` and whole where it must be; else an
    /// [`Error::Setting`] that says which range.
    pub fn check(&self, value: f64) -> Result<()> {
        let ok = value.is_finite()
            && value >= f64::from(self.min)
            && value <= f64::from(self.max)
            && (!self.whole || value.fract() == 0.0);
        if ok {
            Ok(())
        } else {
            Err(setting_err(
                self.name,
                value,
                &format!(
                    "must be {}from {} to {}",
                    if self.whole {
                        "a whole number "
                    } else {
                        "a finite number "
                    },
                    self.min,
                    self.max
                ),
            ))
        }
    }
}

macro_rules! setting_fields {
    ($( $name:ident, $gset:literal, $label:literal, $group:literal, $unit:literal,
        ($smin:expr, $smax:expr, $step:expr), $min:expr, $max:expr, $ty:ident; )*) => {
        &[$(SettingField {
            name: stringify!($name),
            gset_name: $gset,
            label: $label,
            group: $group,
            unit: $unit,
            slider: ($smin, $smax, $step),
            min: $min,
            max: $max,
            whole: setting_fields!(@whole $ty),
            get: |s| s.$name as f32,
            set: |s, v| s.$name = v as $ty,
        }),*]
    };
    (@whole f32) => { false };
    (@whole u32) => { true };
}

impl BuildSettings {
    /// Every numeric setting of RecastDemo's settings panel, in its order (the `.gset` order
    /// for the first 13): cell size and height, agent height, radius, climb and slope, region
    /// sizes, edge length and error, verts per poly, detail sampling, and the tile size of
    /// tiled builds. The partition (an enum), bounds and filter switches are not numbers and
    /// not listed.
    pub const FIELDS: &'static [SettingField] = setting_fields! {
        cell_size, "cellSize", "Cell Size", "Rasterization", "m", (0.1, 1.0, 0.01), 0.01, 100.0, f32;
        cell_height, "cellHeight", "Cell Height", "Rasterization", "m", (0.1, 1.0, 0.01), 0.01, 100.0, f32;
        agent_height, "agentHeight", "Height", "Agent", "m", (0.1, 5.0, 0.1), 0.01, 1000.0, f32;
        agent_radius, "agentRadius", "Radius", "Agent", "m", (0.0, 5.0, 0.1), 0.0, 1000.0, f32;
        agent_max_climb, "agentMaxClimb", "Max Climb", "Agent", "m", (0.1, 5.0, 0.1), 0.0, 1000.0, f32;
        agent_max_slope, "agentMaxSlope", "Max Slope", "Agent", "degrees", (0.0, 90.0, 1.0), 0.0, 90.0, f32;
        region_min_size, "regionMinSize", "Min Region Size", "Region", "cells", (0.0, 150.0, 1.0), 0.0, 10000.0, f32;
        region_merge_size, "regionMergeSize", "Merged Region Size", "Region", "cells", (0.0, 150.0, 1.0), 0.0, 10000.0, f32;
        edge_max_len, "edgeMaxLen", "Max Edge Length", "Polygonization", "m", (0.0, 50.0, 1.0), 0.0, 100000.0, f32;
        edge_max_error, "edgeMaxError", "Max Edge Error", "Polygonization", "cells", (0.1, 3.0, 0.1), 0.0, 1000.0, f32;
        verts_per_poly, "vertsPerPoly", "Verts Per Poly", "Polygonization", "vertices", (3.0, 6.0, 1.0), 3.0, 6.0, u32;
        detail_sample_dist, "detailSampleDist", "Sample Distance", "Detail Mesh", "cell sizes", (0.0, 16.0, 1.0), 0.0, 10000.0, f32;
        detail_sample_max_error, "detailSampleMaxError", "Max Sample Error", "Detail Mesh", "cell heights", (0.0, 16.0, 1.0), 0.0, 10000.0, f32;
        tile_size, "tileSize", "TileSize", "Tiling", "cells", (16.0, 1024.0, 16.0), 8.0, 1024.0, u32;
    };

    /// The field named `name` (ours, as `cell_size`), if there is one.
    pub fn field(name: &str) -> Option<&'static SettingField> {
        Self::FIELDS.iter().find(|f| f.name == name)
    }
}

/// The voxel-unit configuration derived from [`BuildSettings`] (Recast's `rcConfig`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct VoxelConfig {
    /// Grid width in cells.
    pub width: i32,
    /// Grid height (depth, along z) in cells.
    pub height: i32,
    /// Cell size.
    pub cs: f32,
    /// Cell height.
    pub ch: f32,
    /// Bounds minimum.
    pub bmin: [f32; 3],
    /// Bounds maximum.
    pub bmax: [f32; 3],
    /// Steepest walkable slope in degrees.
    pub walkable_slope_angle: f32,
    /// Agent height in voxels.
    pub walkable_height: i32,
    /// Agent climb in voxels.
    pub walkable_climb: i32,
    /// Agent radius in voxels.
    pub walkable_radius: i32,
    /// Longest contour edge in voxels.
    pub max_edge_len: i32,
    /// Contour simplification error.
    pub max_simplification_error: f32,
    /// Smallest region area (cells).
    pub min_region_area: i32,
    /// Region merge area (cells).
    pub merge_region_area: i32,
    /// Most vertices per polygon.
    pub max_verts_per_poly: i32,
    /// Detail sample distance (world units).
    pub detail_sample_dist: f32,
    /// Detail sample max error (world units).
    pub detail_sample_max_error: f32,
    /// Tile size in cells (0 for a solo build).
    pub tile_size: i32,
    /// Border around the tile in cells (0 for a solo build; agent radius + 3 for tiles).
    pub border_size: i32,
}

/// The most cells of height a level may rise from its lowest to its highest point: Recast's
/// spans store heights in 13 bits (`RC_SPAN_MAX_HEIGHT`).
pub const MAX_SPAN_HEIGHT: i32 = (1 << 13) - 1;

/// The largest grid (width x height, in cells) a build accepts; beyond it memory use explodes.
pub const MAX_GRID_CELLS: i64 = 1 << 28;

/// The most cell sizes a level may rise (from its lowest point to its highest, plus the agent's
/// height, which Recast adds on top): Detour's BV tree stores a tile's heights as 16-bit counts
/// of cell sizes, and navkit's tile validator (which every built tile passes) accepts a tile
/// whose extent in cell sizes, plus the one cell `queryPolygonsInTile` adds, stays below 65535.
/// One cell is left for the rounding of the bounds Recast computes in `f32`.
pub const MAX_BV_CELLS: f64 = 65533.0;

/// The fewest `f32` steps (at the level's farthest x or z coordinate from the origin) a cell may
/// be wide. Recast clips each triangle into cells along x and z in `f32`; when a cell is
/// narrower than the spacing of the floats there, the clipped polygons stop being convex and
/// Recast writes past its fixed-size clipping buffers on the stack (`rcRasterizeTriangles`,
/// found with AddressSanitizer at a cell of half the float spacing; from one spacing up, none
/// in thousands of random triangles). A margin of 16 keeps builds well away from that: with
/// cells of 0.3 m a level may reach 131 km from the origin, with cells of 0.1 m 65 km.
pub const MIN_CELL_ULPS: f32 = 16.0;

/// The farthest from the origin (on any axis) the build bounds may reach: half of
/// [`MAX_COORDINATE`](crate::navmesh::params::MAX_COORDINATE), the most navkit's tile validator
/// accepts in navmesh data, leaving the other half for what builds add around the bounds
/// (tiles rounded up, borders, the agent's height).
pub const MAX_BUILD_COORDINATE: f32 = crate::ffi::validate::MAX_COORDINATE / 2.0;

fn setting_err(name: &'static str, value: impl ToString, reason: &str) -> Error {
    Error::Setting {
        name,
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

impl BuildSettings {
    /// Checks every value for sanity. Absurd values (non-finite, zero or negative sizes,
    /// slopes outside 0..90, more than 6 vertices per polygon ...) are errors naming the setting.
    pub fn validate(&self) -> Result<()> {
        self.check_sizes()?;
        self.check_ranges()?;
        self.check_voxel_limits()?;
        if let Some(b) = self.bounds {
            if !b.is_valid() {
                return Err(setting_err("bounds", b, "must be finite with min <= max"));
            }
        }
        Ok(())
    }

    /// The cell and agent sizes: finite, above 0, cells at least 0.001.
    fn check_sizes(&self) -> Result<()> {
        let positive = [
            ("cell_size", self.cell_size),
            ("cell_height", self.cell_height),
            ("agent_height", self.agent_height),
        ];
        for (name, v) in positive {
            if !v.is_finite() || v <= 0.0 {
                return Err(setting_err(name, v, "must be a finite number > 0"));
            }
        }
        if self.cell_size < 1e-3 || self.cell_height < 1e-3 {
            return Err(setting_err(
                if self.cell_size < 1e-3 {
                    "cell_size"
                } else {
                    "cell_height"
                },
                self.cell_size.min(self.cell_height),
                "must be at least 0.001",
            ));
        }
        Ok(())
    }

    /// The other numbers: finite and not negative, the slope in 0..=90 degrees, 3..=6
    /// vertices per polygon.
    fn check_ranges(&self) -> Result<()> {
        let non_negative = [
            ("agent_radius", self.agent_radius),
            ("agent_max_climb", self.agent_max_climb),
            ("region_min_size", self.region_min_size),
            ("region_merge_size", self.region_merge_size),
            ("edge_max_len", self.edge_max_len),
            ("edge_max_error", self.edge_max_error),
            ("detail_sample_dist", self.detail_sample_dist),
            ("detail_sample_max_error", self.detail_sample_max_error),
        ];
        for (name, v) in non_negative {
            if !v.is_finite() || v < 0.0 {
                return Err(setting_err(name, v, "must be a finite number >= 0"));
            }
        }
        if !(0.0..=90.0).contains(&self.agent_max_slope) {
            return Err(setting_err(
                "agent_max_slope",
                self.agent_max_slope,
                "must be between 0 and 90 degrees",
            ));
        }
        if !(3..=6).contains(&self.verts_per_poly) {
            return Err(setting_err(
                "verts_per_poly",
                self.verts_per_poly,
                "must be between 3 and 6 (Detour's DT_VERTS_PER_POLYGON)",
            ));
        }
        Ok(())
    }

    /// Voxel quantities are stored in 16 bits or fewer inside Recast: each within the most
    /// supported, in voxel units.
    fn check_voxel_limits(&self) -> Result<()> {
        let (cs, ch) = (self.cell_size, self.cell_height);
        // (name, value, the size of its voxel unit, that unit, the most supported in it)
        let limits = [
            ("agent_height", self.agent_height, ch, "cell heights", 255.0),
            (
                "agent_max_climb",
                self.agent_max_climb,
                ch,
                "cell heights",
                255.0,
            ),
            ("agent_radius", self.agent_radius, cs, "cell sizes", 255.0),
            ("region_min_size", self.region_min_size, 1.0, "cells", 1.0e4),
            (
                "region_merge_size",
                self.region_merge_size,
                1.0,
                "cells",
                1.0e4,
            ),
            ("edge_max_len", self.edge_max_len, cs, "cell sizes", 1.0e6),
            ("edge_max_error", self.edge_max_error, 1.0, "cells", 1.0e4),
            (
                "detail_sample_dist",
                self.detail_sample_dist,
                1.0,
                "cell sizes",
                1.0e4,
            ),
            (
                "detail_sample_max_error",
                self.detail_sample_max_error,
                1.0,
                "cell heights",
                1.0e4,
            ),
        ];
        for (name, value, unit_size, unit, max) in limits {
            // (Dividing by 1.0 gives the value itself, bit for bit.)
            let voxels = value / unit_size;
            if voxels > max {
                return Err(setting_err(
                    name,
                    value,
                    &format!("is {voxels} {unit}; at most {max} is supported"),
                ));
            }
        }
        Ok(())
    }

    /// Refuses a level too far from the origin for its cells: build bounds (`bmin`, `bmax`)
    /// beyond +-[`MAX_BUILD_COORDINATE`], or a cell narrower than [`MIN_CELL_ULPS`] float steps
    /// at the farthest x or z of the bounds or of the `mesh` bounds (triangles reaching into
    /// build bounds are clipped with their own coordinates).
    fn check_reach(&self, bmin: Vec3, bmax: Vec3, mesh: (Vec3, Vec3)) -> Result<()> {
        let far = bmin.abs().max(bmax.abs());
        if far.max_element() > MAX_BUILD_COORDINATE {
            let why = format!(
                "a level must lie within +-{MAX_BUILD_COORDINATE:e} m of the origin (navmesh \
                 data holds coordinates within +-{:e} m, and builds add tiles and borders \
                 around the bounds)",
                crate::ffi::validate::MAX_COORDINATE
            );
            return Err(match self.bounds {
                Some(b) => setting_err(
                    "bounds",
                    b,
                    &format!("reach {} m from the origin; {why}", far.max_element()),
                ),
                None => Error::Geometry(format!(
                    "the level's bounds {bmin} .. {bmax} reach {} m from the origin; {why}: move \
                     it nearer the origin",
                    far.max_element()
                )),
            });
        }
        let xz = |v: Vec3| v.x.abs().max(v.z.abs());
        let reach = xz(far).max(xz(mesh.0)).max(xz(mesh.1));
        // The spacing of the floats at `reach`: 2^-23 of its power of two (0 below the normals).
        let step = f32::from_bits(reach.to_bits() & 0x7f80_0000) * f32::EPSILON;
        let least = step * MIN_CELL_ULPS;
        if self.cell_size < least {
            return Err(setting_err(
                "cell_size",
                self.cell_size,
                &format!(
                    "must be at least {least} m for a level reaching {reach} m from the origin \
                     along x or z, where floats are {step} m apart: Recast clips triangles into \
                     cells in f32 and overflows its clipping buffers on cells narrower than \
                     that (use a bigger cell size or move the level nearer the origin)"
                ),
            ));
        }
        Ok(())
    }

    /// Converts to voxel units for the given bounds, as RecastDemo's Solo Mesh sample does.
    /// Fails if the settings are invalid, the grid would be absurdly large, the level rises
    /// more than Recast's spans or Detour's BV tree hold ([`MAX_SPAN_HEIGHT`], [`MAX_BV_CELLS`]),
    /// or it lies too far from the origin for its cells (`check_reach`: [`MAX_BUILD_COORDINATE`],
    /// [`MIN_CELL_ULPS`]).
    pub fn to_config(&self, bmin: Vec3, bmax: Vec3) -> Result<VoxelConfig> {
        self.validate()?;
        let mesh = (bmin, bmax);
        let (bmin, bmax) = self.bounds.map_or((bmin, bmax), Into::into);
        if !bmin.is_finite() || !bmax.is_finite() {
            return Err(Error::Geometry(format!(
                "bounds {bmin} .. {bmax} are not finite"
            )));
        }
        // Bounds too far out first: no cell size grids them, so it is not the cell size's fault.
        self.check_reach(bmin, bmax, mesh)?;
        let cs = self.cell_size;
        let width = ((bmax.x - bmin.x) / cs + 0.5) as i64;
        let height = ((bmax.z - bmin.z) / cs + 0.5) as i64;
        if width.saturating_mul(height) > MAX_GRID_CELLS || width > i32::MAX as i64 / 4 {
            return Err(setting_err(
                "cell_size",
                cs,
                &format!(
                    "gives a {width} x {height} grid; at most {MAX_GRID_CELLS} cells are allowed"
                ),
            ));
        }
        // Heights: Recast's spans store heights in 13 bits of cells (RC_SPAN_MAX_HEIGHT) and
        // clamp anything above, and Detour quantises heights into 16 bits of cell sizes for
        // the BV tree (clamped too): either would build a wrong navmesh without a word.
        let ch = self.cell_height;
        let walkable_height = (self.agent_height / ch).ceil();
        let rise = bmax.y - bmin.y;
        let rise_cells = (rise / ch).ceil() as f64;
        if rise_cells > MAX_SPAN_HEIGHT as f64 {
            return Err(Error::Geometry(format!(
                "the level rises {rise} m from y = {} to {}: {rise_cells} cells of {ch} m; Recast \
                 stores heights in at most {MAX_SPAN_HEIGHT} cells (13 bits). Use a cell height of \
                 at least {:.3} m, set build bounds that cut off what no agent reaches, or remove \
                 stray vertices far above or below",
                bmin.y,
                bmax.y,
                (rise / MAX_SPAN_HEIGHT as f32 * 1000.0).ceil() / 1000.0,
            )));
        }
        let bv_rise = (rise as f64 + walkable_height as f64 * ch as f64) / cs as f64;
        if bv_rise > MAX_BV_CELLS {
            return Err(Error::Geometry(format!(
                "the level rises {rise} m, {bv_rise:.0} cell sizes of {cs} m with the agent's \
                 height; Detour's BV tree quantises heights into 16 bits of cell sizes (at most \
                 {MAX_BV_CELLS}): use a bigger cell size or build bounds that cut off what no \
                 agent reaches"
            )));
        }
        Ok(VoxelConfig {
            width: width as i32,
            height: height as i32,
            cs,
            ch: self.cell_height,
            bmin: bmin.to_array(),
            bmax: bmax.to_array(),
            walkable_slope_angle: self.agent_max_slope,
            walkable_height: (self.agent_height / self.cell_height).ceil() as i32,
            walkable_climb: (self.agent_max_climb / self.cell_height).floor() as i32,
            walkable_radius: (self.agent_radius / self.cell_size).ceil() as i32,
            max_edge_len: (self.edge_max_len / self.cell_size) as i32,
            max_simplification_error: self.edge_max_error,
            min_region_area: (self.region_min_size * self.region_min_size) as i32,
            merge_region_area: (self.region_merge_size * self.region_merge_size) as i32,
            max_verts_per_poly: self.verts_per_poly as i32, // 3..=6, checked above
            detail_sample_dist: if self.detail_sample_dist < 0.9 {
                0.0
            } else {
                self.cell_size * self.detail_sample_dist
            },
            detail_sample_max_error: self.cell_height * self.detail_sample_max_error,
            tile_size: 0,
            border_size: 0,
        })
    }
}
