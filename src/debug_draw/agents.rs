//! Crowd agents and grid cells.
