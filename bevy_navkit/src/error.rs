//! Why a source mesh was left out, or a build failed.

use std::sync::Arc;

/// Why a [`NavMeshSource`](crate::NavMeshSource)'s mesh was left out of the navmesh (sent in
/// [`NavMeshSourceSkipped`](crate::NavMeshSourceSkipped); the rest of the scene still builds).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// Not a triangle list (points, lines, strips): nothing to walk on.
    #[error("the mesh is a {0}, not a triangle list")]
    NotTriangles(String),
    /// Its vertex data lives only in the render world (`RenderAssetUsages` without
    /// `MAIN_WORLD`), where systems cannot read it.
    #[error("the mesh's data was moved to the render world: give it RenderAssetUsages::MAIN_WORLD")]
    NotInMainWorld,
    /// It has no vertices, or no triangles.
    #[error("the mesh is empty: no triangles")]
    Empty,
    /// It has no `Mesh::ATTRIBUTE_POSITION`.
    #[error("the mesh has no vertex positions")]
    NoPositions,
    /// Its positions are not three 32-bit floats.
    #[error("the mesh's positions are {0}, not Float32x3")]
    PositionFormat(String),
    /// The index count is not a multiple of three.
    #[error("{indices} indices do not make whole triangles")]
    PartialTriangle {
        /// How many indices there are.
        indices: usize,
    },
    /// An index names a vertex that does not exist.
    #[error("index {at} is {index}, but the mesh has {vertices} vertices")]
    IndexOutOfRange {
        /// Where in the index list.
        at: usize,
        /// The index.
        index: usize,
        /// The mesh's vertex count.
        vertices: usize,
    },
    /// More vertices than navkit's 32-bit indices address.
    #[error("{0} vertices: more than navkit's 32-bit indices address")]
    TooManyVertices(usize),
    /// A vertex is NaN or infinite once placed by the entity's transform.
    #[error("vertex {vertex} is not finite once placed by the entity's GlobalTransform")]
    NotFinite {
        /// The vertex index.
        vertex: usize,
    },
}

/// A navkit error, shared so that messages can be cloned.
pub type BuildError = Arc<navkit::Error>;

/// Why a query on the scene's navmesh failed.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// No navmesh yet (before the first build, or no source has triangles).
    #[error("the scene has no navmesh yet")]
    NoNavMesh,
    /// navkit's error: a point off the navmesh, NaN, a path not found...
    #[error(transparent)]
    Navkit(#[from] navkit::Error),
}
