//! The scene's triangles for one build: every source's world-space triangles, shared with the
//! tracking (the main thread only clones their handles), joined into one navkit geometry on the
//! build's task, so that frames never wait on copying a large level.

use std::sync::Arc;

use navkit::{Aabb, InputGeometry, TriMesh};

use crate::source::SourceGeometry;
use crate::tracking::Sources;

/// Every source's triangles, in entity order (the same scene always gives the same navmesh).
pub(crate) struct SceneGeometry {
    parts: Vec<Arc<SourceGeometry>>,
    /// The bounds of every vertex (the joined mesh's bounds).
    pub bounds: Aabb,
}

impl SceneGeometry {
    /// The sources' triangles now, or `None` if there are none.
    pub(crate) fn of(sources: &Sources) -> Option<SceneGeometry> {
        let mut parts: Vec<_> = sources
            .tracked
            .iter()
            .filter_map(|(e, t)| Some((*e, t.geometry.as_ref()?)))
            .filter(|(_, g)| !g.tris.is_empty())
            .collect();
        parts.sort_by_key(|(e, _)| *e);
        let parts: Vec<Arc<SourceGeometry>> = parts.into_iter().map(|(_, g)| g.clone()).collect();
        let bounds = parts
            .iter()
            .filter_map(|g| g.bounds)
            .reduce(|a, b| a.union(&b))?;
        Some(SceneGeometry { parts, bounds })
    }

    /// The triangles as one navkit geometry (checked by navkit).
    pub(crate) fn join(&self) -> navkit::Result<InputGeometry> {
        let verts_len = self.parts.iter().map(|g| g.verts.len()).sum();
        let tris_len = self.parts.iter().map(|g| g.tris.len()).sum();
        if verts_len / 3 > i32::MAX as usize {
            // navkit's indices are i32: every index (below the vertex count) must fit.
            return Err(navkit::Error::InvalidArgument(format!(
                "the sources have {} vertices; at most 2^31 - 1 fit",
                verts_len / 3
            )));
        }
        let (mut verts, mut tris) = (Vec::with_capacity(verts_len), Vec::with_capacity(tris_len));
        for g in &self.parts {
            let base = (verts.len() / 3) as i32; // fits: checked above
            verts.extend_from_slice(&g.verts);
            tris.extend(g.tris.iter().map(|&i| i + base));
        }
        Ok(InputGeometry::from_mesh(TriMesh::new(verts, tris)?))
    }
}
