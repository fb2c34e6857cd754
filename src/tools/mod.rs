//! Tools on top of the library: grid-vs-navmesh comparison, crowd simulations, RecastDemo
//! test-case files and the large-world generator.

pub mod compare;
pub mod crowd_metrics;
pub mod crowd_suite;
pub mod scenario;
pub mod simulation;
pub mod testcase;
pub mod worldgen;
