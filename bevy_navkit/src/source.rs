//! What the navmesh is built from: [`NavMeshSource`] marks an entity with a mesh, or the root of a
//! scene, and [`world_triangles`] reads a Bevy [`Mesh`] as world-space triangles.

use bevy::ecs::component::Component;
use bevy::mesh::{Mesh, PrimitiveTopology, VertexAttributeValues};
use bevy::transform::components::GlobalTransform;
use glam::Vec3;
use navkit::Aabb;

use crate::error::SourceError;

/// Marks what the navmesh is built from: the entity's own [`Mesh3d`](bevy::mesh::Mesh3d), if it
/// has one, and the meshes of all its descendants (so a glTF scene is marked at its root, and
/// the child meshes it spawns are counted as they appear).
///
/// Moving, changing or despawning a source, or removing this component, rebuilds only the
/// navmesh tiles it touched, where it was and where it is.
///
/// ```
/// use bevy_navkit::NavMeshSource;
/// let marker = NavMeshSource::default();
/// # let _ = marker;
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct NavMeshSource {}

/// A source mesh in world space: vertices (`x, y, z` triples), triangles (indices into them),
/// and their bounds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SourceGeometry {
    pub verts: Vec<f32>,
    pub tris: Vec<i32>,
    pub bounds: Option<Aabb>,
}

/// `mesh`'s triangles placed by `transform`, checked: a triangle list, positions as three
/// floats, every index in range, every placed vertex finite. Meshes of points or lines have no
/// walkable surface: their [`SourceError::NotTriangles`] tells the caller to skip them.
pub(crate) fn world_triangles(
    mesh: &Mesh,
    transform: &GlobalTransform,
) -> Result<SourceGeometry, SourceError> {
    let topology = mesh.primitive_topology();
    if topology != PrimitiveTopology::TriangleList {
        return Err(SourceError::NotTriangles(format!("{topology:?}")));
    }
    let positions = match mesh.try_attribute_option(Mesh::ATTRIBUTE_POSITION) {
        Err(_) => return Err(SourceError::NotInMainWorld),
        Ok(None) => return Err(SourceError::NoPositions),
        Ok(Some(VertexAttributeValues::Float32x3(p))) => p,
        Ok(Some(other)) => {
            return Err(SourceError::PositionFormat(format!(
                "{:?}",
                other.enum_variant_name()
            )));
        }
    };
    let indices: Vec<usize> = match mesh.try_indices_option() {
        Err(_) => return Err(SourceError::NotInMainWorld),
        Ok(Some(i)) => i.iter().collect(),
        Ok(None) => (0..positions.len()).collect(),
    };
    check_indices(&indices, positions.len())?;
    if indices.is_empty() {
        return Err(SourceError::Empty);
    }
    let affine = transform.affine();
    let mut verts = Vec::with_capacity(positions.len() * 3);
    for (i, p) in positions.iter().enumerate() {
        let w = affine.transform_point3(Vec3::from_array(*p));
        if !w.is_finite() {
            return Err(SourceError::NotFinite { vertex: i });
        }
        verts.extend_from_slice(&w.to_array());
    }
    let bounds = Aabb::from_points(verts.chunks_exact(3).map(Vec3::from_slice));
    let tris = indices.iter().map(|&i| i as i32).collect();
    Ok(SourceGeometry {
        verts,
        tris,
        bounds,
    })
}

/// Indices make whole triangles of vertices that exist, and fit navkit's `i32` indices.
fn check_indices(indices: &[usize], vertices: usize) -> Result<(), SourceError> {
    if !indices.len().is_multiple_of(3) {
        return Err(SourceError::PartialTriangle {
            indices: indices.len(),
        });
    }
    if vertices > i32::MAX as usize {
        return Err(SourceError::TooManyVertices(vertices));
    }
    match indices.iter().position(|&i| i >= vertices) {
        Some(at) => Err(SourceError::IndexOutOfRange {
            at,
            index: indices[at],
            vertices,
        }),
        None => Ok(()),
    }
}
