//! Writing a world: the OBJ, and the `.gset` beside it.

use super::*;

/// Where [`write_world`] puts the `.gset` of `obj_path`: beside it, same stem.
pub fn gset_path(obj_path: &Path) -> PathBuf {
    obj_path.with_extension("gset")
}

/// Writes `mesh` as a Wavefront OBJ (`v x y z` lines, then `f a b c` with 1-based indices),
/// streaming through a buffer into a temporary file that replaces `path` only when complete.
/// Numbers are written in their shortest form that reads back to
/// the same `f32`, so [`TriMesh::from_obj`] gives back the same arrays.
pub fn write_obj(mesh: &TriMesh, path: &Path) -> Result<()> {
    crate::atomic_file::write_with(path, |w| {
        writeln!(
            w,
            "# navkit gen world: {} vertices, {} triangles",
            mesh.vert_count(),
            mesh.tri_count()
        )?;
        for v in mesh.verts.chunks_exact(3) {
            writeln!(w, "v {} {} {}", v[0], v[1], v[2])?;
        }
        for t in mesh.tris.chunks_exact(3) {
            writeln!(w, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1)?;
        }
        Ok(())
    })
}

/// Writes a world: the mesh as the OBJ `obj_path` ([`write_obj`]) and the geometry set (settings,
/// jump links, water volumes) as a `.gset` beside it ([`gset_path`]) whose `f` line names the OBJ
/// by file name, so the pair can be moved together. [`InputGeometry::load`] of the `.gset` gives
/// back the same mesh, links and volumes.
///
/// `obj_path` must end in `.obj` (else [`Error::InvalidArgument`]).
pub fn write_world(geom: &InputGeometry, obj_path: &Path) -> Result<()> {
    let is_obj = obj_path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("obj"));
    let name = obj_path.file_name().and_then(|n| n.to_str());
    let Some(name) = name.filter(|_| is_obj) else {
        return Err(Error::InvalidArgument(format!(
            "world output `{}` must be a file name ending in .obj",
            obj_path.display()
        )));
    };
    write_obj(&geom.mesh, obj_path)?;
    geom.save_gset(gset_path(obj_path), name)
}
