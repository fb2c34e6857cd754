//! The error type shared by every part of navkit.

use std::path::PathBuf;

/// Everything that can go wrong in navkit, with enough context to say what and where.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An input file (OBJ, `.gset`, test case, batch file) is malformed.
    #[error("{path}:{line}: {message}")]
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
    /// A stage of the Recast build failed.
    #[error("build stage `{stage}` failed: {message}")]
    Build {
        /// The stage name (see [`crate::build::Stage`]).
        stage: &'static str,
        /// What Recast reported.
        message: String,
    },
    /// A navmesh file or tile data blob is corrupt or of an unknown format.
    #[error("invalid navmesh data at byte {offset}: {message}")]
    NavMeshData {
        /// Byte offset where the problem was found.
        offset: usize,
        /// What is wrong.
        message: String,
    },
    /// A Detour call failed.
    #[error("detour: {operation} failed: {status}")]
    Detour {
        /// The Detour operation.
        operation: &'static str,
        /// The decoded status.
        status: crate::status::Status,
    },
    /// A query argument is invalid (NaN coordinates, bad extents, unknown poly ref ...).
    #[error("invalid query argument: {0}")]
    InvalidArgument(String),
    /// No polygon was found near a point.
    #[error("no navmesh polygon within ({ext_x}, {ext_y}, {ext_z}) of ({x}, {y}, {z})", ext_x = .extents[0], ext_y = .extents[1], ext_z = .extents[2], x = .point[0], y = .point[1], z = .point[2])]
    NoPolygonNear {
        /// The query point.
        point: [f32; 3],
        /// The search half extents.
        extents: [f32; 3],
    },
}

/// `Result` with navkit's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
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
            offset,
            message: message.into(),
        }
    }
}
