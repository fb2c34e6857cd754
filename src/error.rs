//! The error type shared by every part of navkit.
//!
//! Every error says what and where: the file and line of bad input, the byte offset (and file)
//! of corrupt navmesh data, the setting of an absurd setting, the build stage that failed, the
//! argument and point of a point off the navmesh. Callers that must act on an error match on
//! its variant, whose fields carry typed data (points as [`Vec3`], poly refs as [`PolyRef`]):
//!
//! | variant | what to do |
//! |---|---|
//! | [`Error::PointOffMesh`] | move the point, or search a bigger box (the same for navmesh and grid) |
//! | [`Error::BlockedCell`] | a grid search's start or goal cell is blocked or off the grid |
//! | [`Error::InvalidPolyRef`], [`Error::StaleHandle`] | the polygon, agent or obstacle is gone: look it up again |
//! | [`Error::QueueFull`] | retry after the next update |
//! | [`Error::PoolFull`] | remove something first, or make a bigger pool |
//! | [`Error::OutOfNodes`] | a query with a bigger node pool |
//! | [`Error::NonFinite`], [`Error::PointOutOfRange`], [`Error::InvalidArgument`] | a bug in the caller, which the error names |
//! | [`Error::VersionMismatch`] | a file of another version: rebuild it with this navkit |
//! | [`Error::Detour`] | Detour refused a call; [`DetourCause`] says why |
//!
//! The enum is `#[non_exhaustive]`: new variants may come. It is `Clone` (I/O errors are
//! shared), so one error can answer several requests.
//!
//! ```
//! use navkit::Error;
//! fn retry_later(e: &Error) -> bool {
//!     matches!(e, Error::QueueFull { .. } | Error::OutOfNodes { .. })
//! }
//! # assert!(!retry_later(&Error::InvalidArgument("x".into())));
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use glam::{UVec2, Vec3};

use crate::poly_ref::PolyRef;
use crate::stage::Stage;
use crate::status::{DetourCause, Status};

/// Everything that can go wrong in navkit, with enough context to say what and where.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying I/O error (shared, so that the error can be cloned).
        #[source]
        source: Arc<std::io::Error>,
    },
    /// An input text file (OBJ, `.gset`, test case, batch file, map, scenario) is malformed.
    #[error("{}{}: {message}", path.display(), line_suffix(*line))]
    Parse {
        /// The file involved.
        path: PathBuf,
        /// 1-based line number (0 when the problem is not tied to one line).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The input geometry cannot be built (empty, non-finite, out of range).
    #[error("invalid geometry: {0}")]
    Geometry(String),
    /// A build setting is out of range.
    #[error("invalid setting `{name}` = {value}: {reason}")]
    Setting {
        /// The setting's name, as in [`crate::BuildSettings`].
        name: &'static str,
        /// The offending value, printed.
        value: String,
        /// Why it is rejected.
        reason: String,
    },
    /// A stage of a build failed.
    #[error("build stage `{stage}` failed: {message}")]
    Build {
        /// The stage.
        stage: Stage,
        /// What Recast reported.
        message: String,
    },
    /// A navmesh or tile cache file, or a tile data blob, is corrupt or of an unknown format.
    #[error("{}invalid navmesh data at byte {offset}: {message}", path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default())]
    NavMeshData {
        /// The file, when the data came from one.
        path: Option<PathBuf>,
        /// Byte offset where the problem was found (in the file, or in the blob).
        offset: usize,
        /// What is wrong.
        message: String,
    },
    /// Detour refused a call for a reason no other variant names ([`Error::OutOfMemory`] and
    /// [`Error::OutOfNodes`] do): `cause` says which.
    #[error("detour: {operation} failed: {cause} ({status})")]
    Detour {
        /// The Detour operation (`dtNavMesh::addTile`, `dtCrowd::requestMoveTarget` ...).
        operation: &'static str,
        /// Why, from the status's detail bits.
        cause: DetourCause,
        /// The decoded status.
        status: Status,
    },
    /// A file, or a blob of data, is of a version this navkit does not read.
    #[error("{}{what} version {found}: this navkit reads version {}", path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default(), supported.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" or "))]
    VersionMismatch {
        /// The file, when the data came from one.
        path: Option<PathBuf>,
        /// What kind of data (`TSET file`, `MSET file`, `tile data` ...).
        what: &'static str,
        /// The version found.
        found: i32,
        /// The versions this navkit reads.
        supported: &'static [i32],
    },
    /// An argument is invalid (a size out of range, bad extents, an empty corridor ...): a bug
    /// in the caller, named in the message. Points and poly refs have variants of their own.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A point or vector argument is NaN or infinite: a bug in the caller.
    #[error("{argument} {value} is not finite")]
    NonFinite {
        /// The argument, as the caller's signature names it (`start`, `goal`, `position` ...).
        argument: &'static str,
        /// Its value.
        value: Vec3,
    },
    /// A point argument lies beyond the coordinates navkit accepts
    /// ([`crate::navmesh::params::MAX_COORDINATE`]: beyond them Detour's float-to-int tile
    /// arithmetic is undefined).
    #[error("{argument} {value} is beyond +-{limit:e}")]
    PointOutOfRange {
        /// The argument, as the caller's signature names it.
        argument: &'static str,
        /// Its value.
        value: Vec3,
        /// The largest coordinate accepted.
        limit: f32,
    },
    /// Nothing walkable near a point: no navmesh polygon, or no walkable cell of a mesh-derived
    /// grid, in the box `point ± half_extents`. Move the point, or search a bigger box.
    #[error("{argument} {point} is off the mesh: nothing walkable within {half_extents} of it")]
    PointOffMesh {
        /// The argument, as the caller's signature names it (`start`, `goal`, `target` ...).
        argument: &'static str,
        /// The point.
        point: Vec3,
        /// The search box's half extents.
        half_extents: Vec3,
    },
    /// A grid cell argument is outside the grid or blocked: a grid search cannot start or end
    /// there (for a mesh-derived grid, a point with no walkable cell near is
    /// [`Error::PointOffMesh`], as on the navmesh).
    #[error("{argument} cell ({}, {}) is {}", cell.x, cell.y, if *outside { "outside the grid" } else { "blocked" })]
    BlockedCell {
        /// The argument, as the caller's signature names it (`start`, `goal`).
        argument: &'static str,
        /// The cell (for a graph node, its grid column).
        cell: UVec2,
        /// True if the cell is outside the grid; false if it is inside but blocked.
        outside: bool,
    },
    /// A poly ref names no polygon of this navmesh: its tile was removed or rebuilt since it was
    /// found (a stale ref: the run-time case, like [`Error::StaleHandle`]), or it never did (0,
    /// or a ref of another navmesh). Look the polygon up again
    /// ([`crate::query::NavMeshQuery::find_nearest_poly`]).
    #[error("{argument} {poly} is not a polygon of this navmesh (stale, or of another navmesh)")]
    InvalidPolyRef {
        /// The argument, as the caller's signature names it (`start`, `poly`, `corridor` ...).
        argument: &'static str,
        /// The ref.
        poly: PolyRef,
    },
    /// A search ran out of its node pool before it could answer: use a query with more
    /// nodes ([`crate::query::NavMeshQuery::new`]).
    #[error("{operation} ran out of search nodes")]
    OutOfNodes {
        /// The operation.
        operation: &'static str,
    },
    /// A request queue is full for now (the tile cache's obstacle requests, ...): retry after
    /// the next update.
    #[error("the {what} queue is full ({capacity} requests); retry after the next update")]
    QueueFull {
        /// Which queue.
        what: &'static str,
        /// Its capacity.
        capacity: usize,
    },
    /// A fixed-size pool is full (crowd agents, obstacles, navmesh tiles ...): remove something
    /// first, or make a bigger one.
    #[error("the {what} pool is full ({capacity})")]
    PoolFull {
        /// Which pool.
        what: &'static str,
        /// Its capacity.
        capacity: usize,
    },
    /// A handle names something that was removed (or belongs to another owner).
    #[error("stale {what}: {handle} was removed or does not belong here")]
    StaleHandle {
        /// What kind of handle (agent, obstacle ...).
        what: &'static str,
        /// The handle, printed.
        handle: String,
    },
    /// Recast, Detour or navkit could not allocate memory.
    #[error("out of memory: {0}")]
    OutOfMemory(String),
    /// Worker threads could not be started.
    #[error("could not start {threads} worker threads: {source}")]
    Threads {
        /// How many were asked for.
        threads: usize,
        /// Why not.
        #[source]
        source: Arc<dyn std::error::Error + Send + Sync>,
    },
    /// A picture could not be made or encoded.
    #[error("render: {0}")]
    Render(String),
    /// A build was cancelled through its [`crate::build::CancelToken`]; it stopped at `stage`
    /// (before it, or inside it where Recast lets it: see [`crate::build::budget`]).
    #[error("build cancelled at stage `{stage}`")]
    Cancelled {
        /// The stage it stopped at.
        stage: Stage,
    },
    /// A build ran past its [`crate::build::Budget::time_limit`]; it stopped at `stage`.
    #[error("build timed out after {limit:?} at stage `{stage}`")]
    TimedOut {
        /// The stage it stopped at.
        stage: Stage,
        /// The time limit.
        limit: std::time::Duration,
    },
    /// A build would exceed a limit of its [`crate::build::Budget`]; refused before building.
    #[error("build refused: {what} would be {estimate}, over the budget's limit of {limit}{}", if hint.is_empty() { String::new() } else { format!(" ({hint})") })]
    OverBudget {
        /// What is limited (grid cells, estimated memory).
        what: &'static str,
        /// The estimate for this build.
        estimate: u64,
        /// The budget's limit.
        limit: u64,
        /// The estimate in words and what to change (the cell size, the bounds, tiles, the
        /// limit), or empty.
        hint: String,
    },
    /// Code run on navkit's behalf panicked (a path service's planner, ...); navkit caught the
    /// panic and carried on, and this is the answer of the one request it spoiled.
    #[error("{what} panicked: {message}")]
    Panicked {
        /// What panicked (the planner, the planner's per-thread setup ...).
        what: &'static str,
        /// The panic's message (or a note that it had none that could be printed).
        message: String,
    },
}

/// `Result` with navkit's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source: Arc::new(source),
        }
    }

    pub(crate) fn parse(path: impl Into<PathBuf>, line: usize, message: impl Into<String>) -> Self {
        Error::Parse {
            path: path.into(),
            line,
            message: message.into(),
        }
    }

    pub(crate) fn data(offset: usize, message: impl Into<String>) -> Self {
        Error::NavMeshData {
            path: None,
            offset,
            message: message.into(),
        }
    }

    /// This error with `file` as the file of [`Error::NavMeshData`] and
    /// [`Error::VersionMismatch`] (other errors, and those that name a file, unchanged).
    pub(crate) fn in_file(mut self, file: &std::path::Path) -> Self {
        if let Error::NavMeshData { path, .. } | Error::VersionMismatch { path, .. } = &mut self
            && path.is_none()
        {
            *path = Some(file.to_path_buf());
        }
        self
    }
}

/// `:LINE` for a 1-based line, nothing for 0 (a problem of the whole file).
fn line_suffix(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}
