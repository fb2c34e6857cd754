//! Recast stages.
