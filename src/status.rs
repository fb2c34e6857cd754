//! Detour status codes, decoded.

use std::fmt;

/// A Detour `dtStatus`: success/failure/in-progress plus detail bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Status(pub u32);

impl Status {
    /// `DT_FAILURE`
    pub const FAILURE: u32 = 1 << 31;
    /// `DT_SUCCESS`
    pub const SUCCESS: u32 = 1 << 30;
    /// `DT_IN_PROGRESS`
    pub const IN_PROGRESS: u32 = 1 << 29;
    /// `DT_WRONG_MAGIC`
    pub const WRONG_MAGIC: u32 = 1 << 0;
    /// `DT_WRONG_VERSION`
    pub const WRONG_VERSION: u32 = 1 << 1;
    /// `DT_OUT_OF_MEMORY`
    pub const OUT_OF_MEMORY: u32 = 1 << 2;
    /// `DT_INVALID_PARAM`
    pub const INVALID_PARAM: u32 = 1 << 3;
    /// `DT_BUFFER_TOO_SMALL`
    pub const BUFFER_TOO_SMALL: u32 = 1 << 4;
    /// `DT_OUT_OF_NODES`
    pub const OUT_OF_NODES: u32 = 1 << 5;
    /// `DT_PARTIAL_RESULT`
    pub const PARTIAL_RESULT: u32 = 1 << 6;
    /// `DT_ALREADY_OCCUPIED`
    pub const ALREADY_OCCUPIED: u32 = 1 << 7;

    /// True if the failure bit is set.
    pub fn failed(self) -> bool {
        self.0 & Self::FAILURE != 0
    }
    /// True if the success bit is set.
    pub fn succeeded(self) -> bool {
        self.0 & Self::SUCCESS != 0
    }
    /// True if the result is partial (the goal was not reached, or a buffer was too small).
    pub fn partial(self) -> bool {
        self.0 & Self::PARTIAL_RESULT != 0
    }
    /// True if a detail bit is set.
    pub fn has(self, detail: u32) -> bool {
        self.0 & detail != 0
    }

    /// Maps a failed status to an error naming the operation ([`Status::error`]).
    pub fn check(self, operation: &'static str) -> crate::Result<Status> {
        if self.failed() || !self.succeeded() && self.0 & Self::IN_PROGRESS == 0 {
            Err(self.error(operation))
        } else {
            Ok(self)
        }
    }

    /// The error for this (failed) status: [`crate::Error::OutOfMemory`] for
    /// [`Status::OUT_OF_MEMORY`], [`crate::Error::OutOfNodes`] for [`Status::OUT_OF_NODES`],
    /// else [`crate::Error::Detour`] with the status and its [`DetourCause`].
    pub fn error(self, operation: &'static str) -> crate::Error {
        if self.has(Self::OUT_OF_MEMORY) {
            crate::Error::OutOfMemory(format!("{operation} ({self})"))
        } else if self.has(Self::OUT_OF_NODES) {
            crate::Error::OutOfNodes { operation }
        } else {
            crate::Error::Detour {
                operation,
                cause: DetourCause::of(self),
                status: self,
            }
        }
    }
}

/// Why Detour refused a call ([`crate::Error::Detour`]), from its status's detail bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DetourCause {
    /// `DT_INVALID_PARAM`: an argument Detour checks was refused (a ref, a position, a
    /// parameter out of range).
    InvalidParam,
    /// `DT_WRONG_MAGIC`: data that is not what the call expects.
    WrongMagic,
    /// `DT_WRONG_VERSION`: data of another Detour version.
    WrongVersion,
    /// `DT_BUFFER_TOO_SMALL`: an output buffer was too small.
    BufferTooSmall,
    /// `DT_ALREADY_OCCUPIED`: a tile is already at that position.
    AlreadyOccupied,
    /// The call failed without a detail bit (or refused without a status, as a `bool`-returning
    /// call does).
    Refused,
}

impl DetourCause {
    /// The cause a status's detail bits name (the first of them, in the order above).
    pub fn of(status: Status) -> DetourCause {
        [
            (Status::INVALID_PARAM, DetourCause::InvalidParam),
            (Status::WRONG_MAGIC, DetourCause::WrongMagic),
            (Status::WRONG_VERSION, DetourCause::WrongVersion),
            (Status::BUFFER_TOO_SMALL, DetourCause::BufferTooSmall),
            (Status::ALREADY_OCCUPIED, DetourCause::AlreadyOccupied),
        ]
        .into_iter()
        .find(|&(bit, _)| status.has(bit))
        .map_or(DetourCause::Refused, |(_, cause)| cause)
    }
}

impl fmt::Display for DetourCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DetourCause::InvalidParam => "invalid parameter",
            DetourCause::WrongMagic => "wrong magic",
            DetourCause::WrongVersion => "wrong version",
            DetourCause::BufferTooSmall => "buffer too small",
            DetourCause::AlreadyOccupied => "already occupied",
            DetourCause::Refused => "refused",
        })
    }
}

/// Whether a path reaches its goal: the one word for "arrived" across navkit, for navmesh
/// corridors and straight paths ([`crate::query::Corridor`], [`crate::query::NavPath`]), grid
/// searches ([`crate::grid::SearchResult`]), comparisons and crowd agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum PathStatus {
    /// The path ends at the goal.
    Complete,
    /// The goal was not reached (it cannot be reached, the search ran out of nodes, or a buffer
    /// was too small): the path leads as near the goal as the search got.
    Partial,
}

impl PathStatus {
    /// True for [`PathStatus::Complete`].
    pub fn is_complete(self) -> bool {
        self == PathStatus::Complete
    }
}

/// The error for a failed raw Detour status word ([`Status::error`]).
pub(crate) fn detour_err(operation: &'static str, status: u32) -> crate::Error {
    Status(status).error(operation)
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if self.failed() {
            parts.push("failure");
        }
        if self.succeeded() {
            parts.push("success");
        }
        if self.has(Self::IN_PROGRESS) {
            parts.push("in progress");
        }
        for (bit, name) in [
            (Self::WRONG_MAGIC, "wrong magic"),
            (Self::WRONG_VERSION, "wrong version"),
            (Self::OUT_OF_MEMORY, "out of memory"),
            (Self::INVALID_PARAM, "invalid parameter"),
            (Self::BUFFER_TOO_SMALL, "buffer too small"),
            (Self::OUT_OF_NODES, "out of nodes"),
            (Self::PARTIAL_RESULT, "partial result"),
            (Self::ALREADY_OCCUPIED, "already occupied"),
        ] {
            if self.has(bit) {
                parts.push(name);
            }
        }
        write!(f, "{} (0x{:08x})", parts.join(", "), self.0)
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Status({self})")
    }
}
