//! # navkit
//!
//! Navigation meshes and pathfinding for games and simulations: Recast and Detour (through
//! [`recastnavigation-sys`](https://docs.rs/recastnavigation-sys)) behind a safe Rust API that
//! gives RecastDemo's results, with crowds, run-time obstacles, grids and debug drawing around it.
//!
//! ```
//! use navkit::prelude::*;
//!
//! let level = InputGeometry::load("meshes/demo_level.gset")?;     // OBJ, .gset (glTF: `gltf`)
//! let built = NavMeshBuilder::new(&level).solo()?;                // or .tiled(), .tile_cache(), .grid()
//! let mut query = built.navmesh().query()?;
//! let path = query.path(Vec3::new(2.0, 0.0, 2.0), Vec3::new(33.0, 2.5, 6.0),
//!                       &QueryFilter::default(), &PathOptions::default())?;
//! assert_eq!(path.status(), PathStatus::Complete);
//! println!("{} polys, {} corners, {} smooth points", path.corridor.polys.len(),
//!          path.straight.points.len(), path.smooth.points.len());
//! # Ok::<(), navkit::Error>(())
//! ```
//!
//! One way to do each thing: [`NavMeshBuilder`] builds every kind of navmesh (and the grid of
//! the same level), [`NavMeshQuery::path`] finds a path between two points (its docs say which
//! lower-level query fits other cases), [`TileCache::add`] adds an obstacle, [`Crowd`] moves
//! agents, and whether a path arrives is [`PathStatus`] everywhere. [`prelude`] imports the types
//! a game touches; [`glam`] is the math crate of the API, re-exported.
//!
//! Data flows one way, and each layer imports only the ones below it:
//!
//! ```text
//! geometry (OBJ / .gset / glTF) -> build (Recast stages) -> navmesh (Detour) -> query -> paths
//!   |                         \-> tiled (tiles on every core) ----^                 -> crowd
//!   |                         \-> tilecache (layers, obstacles) ---^
//!   \-> walkable spans -> grid (A*, JPS) ------------------------------------> follower, compare
//! ```
//!
//! Large worlds are built tiled ([`build::tiled`]) on every core (feature `parallel`) with the
//! same bytes as one thread; worlds that change at run time go through a tile cache
//! ([`tilecache`]) whose obstacles a [`Crowd`] owning it walks around while they come and go.
//! [`tools::worldgen`](tools/worldgen/index.html) (feature `tools`) makes test worlds of any size.
//!
//! Grid pathfinding ([`grid`]) runs on Moving AI maps or on the walkable cells of the same
//! geometry; [`tools::compare`](tools/compare/index.html) sets grid paths beside navmesh paths,
//! [`agents::follower`] moves an agent along either, [`service`] answers many agents' requests
//! from worker threads, [`debug_draw`] draws it in any engine and
//! [`render`](render/index.html) (feature `render`) into pictures.
//!
//! The default features are what a game needs; `parallel`, `serde`, `render`, `tools`, `cli`
//! (the `navkit` program), `mint`, `large-refs` and `gltf` (glTF 2.0 levels) are opt-in (see the
//! README's "Features").
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![warn(missing_debug_implementations)]
#![warn(unnameable_types)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod aabb;
pub mod agents;
pub mod atomic_file;
pub mod build;
mod builder;
pub mod debug_draw;
pub mod error;
mod ffi;
pub mod geometry;
pub mod grid;
pub mod navmesh;
mod open_list;
mod par;
mod poly_ref;
pub mod query;
#[cfg(feature = "render")]
#[cfg_attr(docsrs, doc(cfg(feature = "render")))]
pub mod render;
pub mod service;
mod settings;
mod stage;
pub mod status;
pub mod text;
pub mod tilecache;
#[cfg(feature = "tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "tools")))]
pub mod tools;

/// glam, the math types of navkit's API (0.33, Bevy 0.20's): use `navkit::glam` rather than a
/// `glam` dependency of your own, so the versions always match.
pub use glam;

pub use aabb::Aabb;
pub use agents::crowd::{AgentParams, Crowd};
pub use builder::{NavMeshBuilder, Progress};
pub use error::{Error, Result};
pub use geometry::{ConvexVolume, InputGeometry, OffMeshConnection, TriMesh};
pub use navmesh::{NavMesh, TileCoord};
pub use query::{NavMeshQuery, NavPath, PathOptions, PolyRef, QueryFilter};
pub use settings::{BuildSettings, Partition, area, flags};
pub use status::PathStatus;
pub use tilecache::{ObstacleShape, TileCache};

/// The types a game touches, in one import: `use navkit::prelude::*;`.
pub mod prelude {
    pub use crate::glam::{UVec2, Vec3};
    pub use crate::{
        Aabb, AgentParams, BuildSettings, Crowd, Error, InputGeometry, NavMesh, NavMeshBuilder,
        NavMeshQuery, NavPath, ObstacleShape, OffMeshConnection, PathOptions, PathStatus, PolyRef,
        QueryFilter, Result, TileCache, area, flags,
    };
}

/// The README's examples, compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
