//! What moves along paths: DetourCrowd agents, the turn-boundary follower, steering behaviours,
//! the wander walker and splines.

pub mod crowd;
pub mod follower;
pub mod spline;
pub mod steering;
pub mod walker;
