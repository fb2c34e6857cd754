//! glTF 2.0 levels (`.gltf` and `.glb`) as [`TriMesh`]es (cargo feature `gltf`).
//!
//! The JSON (or the GLB container's JSON chunk) is parsed and validated by the [`gltf`] crate;
//! navkit reads the buffers itself: the GLB's `BIN` chunk, base64 `data:` URIs and files
//! beside the level (never outside the level's folder), each bounded by the file's own length.
//!
//! What a level is: every triangle primitive of every mesh instanced by a node of the chosen
//! scene ([`GltfOptions::scene`]; by default the file's `scene`, else its first scene, else, in
//! a file without scenes, every node that is no other node's child), in the order of a
//! depth-first walk of the scene's nodes (children in the order listed), each with its node's
//! world transform (the product of the `matrix` or `translation * rotation * scale` of the
//! node and all its ancestors) applied. glTF is in metres, +Y up and right-handed, as Recast's
//! convention is, so positions are taken as they are: a level exported from a glTF tool comes
//! out the right way up, at its size.
//!
//! - Triangles, triangle strips (alternate triangles wound `v[i], v[i+2], v[i+1]` so every face
//!   keeps the strip's facing, as the glTF specification defines) and triangle fans
//!   (`v[i+1], v[i+2], v[0]`), indexed (8-, 16- or 32-bit indices) or not. Points and lines
//!   primitives are skipped: they have no surface to walk on.
//! - Each primitive adds its vertices in accessor order (unreferenced ones too) and its
//!   triangles in order, so a mesh written with [`TriMesh::to_glb`] loads back bit for bit.
//!   A node whose world transform is the identity leaves the coordinates untouched; others are
//!   transformed in `f64` and rounded once. A transform with a negative determinant (a mirror)
//!   reverses each triangle's winding so that faces keep facing up.
//! - Positions may be `FLOAT` or, as `KHR_mesh_quantization` allows, normalized or plain
//!   integers; sparse accessors are applied. Morph targets are ignored while their weights (the
//!   node's, else the mesh's) are all zero, which is the mesh as modelled; a level whose rest
//!   pose has a non-zero weight is refused, as are skinned meshes (their shape depends on a
//!   skeleton pose) and files that require an extension (`extensionsRequired`) other than
//!   `KHR_mesh_quantization` (Draco or meshopt compression ...).
//! - Every error is an [`Error::Parse`] naming the file (the line for JSON syntax errors, else
//!   line 0) and what is wrong where (`mesh 2 primitive 0 (node 4): POSITION: accessor 5 ...`),
//!   an [`Error::Io`] for a file that cannot be read, or an [`Error::Geometry`] for a scene
//!   without triangles. Limits: [`GltfOptions::max_vertices`],
//!   [`GltfOptions::max_triangles`] (checked before anything is allocated for them), node
//!   hierarchies are walked without recursion and a node reached twice (a cycle, or a child of
//!   two parents) is an error.
//!
//! ```no_run
//! use navkit::geometry::gltf::{GltfOptions, GltfScene};
//! use navkit::TriMesh;
//! let options = GltfOptions {
//!     scene: Some(GltfScene::Name("Gameplay".into())),
//!     ..GltfOptions::default()
//! };
//! let gameplay = TriMesh::from_gltf_with("level.gltf", &options)?;
//! TriMesh::from_obj("dungeon.obj")?.write_gltf("dungeon.glb")?;
//! # Ok::<(), navkit::Error>(())
//! ```
//!
//! ```
//! use navkit::TriMesh;
//! let floor = TriMesh::new(vec![0., 0., 0., 0., 0., 1., 1., 0., 0.], vec![0, 1, 2])?;
//! let glb = floor.to_glb();
//! let back = TriMesh::from_gltf_slice(&glb, None, "floor.glb".as_ref(), &Default::default())?;
//! assert_eq!((back.verts, back.tris), (floor.verts, floor.tris));
//! # Ok::<(), navkit::Error>(())
//! ```

use super::TriMesh;
use crate::{Error, Result};
use base64::Engine as _;
use glam::{DMat4, DQuat, DVec3};
use gltf::json::{self, validation::Checked};
use std::path::{Component, Path, PathBuf};

/// Default [`GltfOptions::max_vertices`]: 2^26 (768 MiB of coordinates).
pub const MAX_GLTF_VERTICES: usize = 1 << 26;
/// Default [`GltfOptions::max_triangles`]: 2^26.
pub const MAX_GLTF_TRIANGLES: usize = 1 << 26;

/// Which scene of a glTF file is the level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GltfScene {
    /// The scene at this index of the file's `scenes`.
    Index(usize),
    /// The first scene with this `name`.
    Name(String),
}

/// How [`TriMesh::from_gltf_with`] reads a glTF file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GltfOptions {
    /// The scene to load; `None`: the file's default `scene`, else its first scene, else (a
    /// file without scenes) every root node.
    pub scene: Option<GltfScene>,
    /// Most vertices the level may have (all instances together); more is an error.
    pub max_vertices: usize,
    /// Most triangles the level may have (all instances together); more is an error.
    pub max_triangles: usize,
}

impl Default for GltfOptions {
    fn default() -> Self {
        GltfOptions {
            scene: None,
            max_vertices: MAX_GLTF_VERTICES,
            max_triangles: MAX_GLTF_TRIANGLES,
        }
    }
}

impl TriMesh {
    /// Reads a glTF 2.0 level (`.gltf` with external or embedded buffers, or `.glb`) with the
    /// default [`GltfOptions`]: see the [module documentation](crate::geometry::gltf) for what
    /// is read and how. Whether the file is GLB or JSON is told by its first bytes, not its
    /// extension. External buffers are read relative to the file's folder and must lie inside
    /// it.
    pub fn from_gltf(path: impl AsRef<Path>) -> Result<TriMesh> {
        Self::from_gltf_with(path, &GltfOptions::default())
    }

    /// [`TriMesh::from_gltf`] with a chosen scene and limits.
    pub fn from_gltf_with(path: impl AsRef<Path>, options: &GltfOptions) -> Result<TriMesh> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut mesh = Self::from_gltf_slice(&bytes, Some(&dir), path, options)?;
        mesh.source = Some(path.to_path_buf());
        Ok(mesh)
    }

    /// Reads glTF or GLB bytes as [`TriMesh::from_gltf_with`] does. External buffers are read
    /// from `base_dir` (and must lie inside it); with `None` they are an error.
    /// `path_for_errors` only names the bytes in errors (the result's `source` is `None`).
    pub fn from_gltf_slice(
        bytes: &[u8],
        base_dir: Option<&Path>,
        path_for_errors: &Path,
        options: &GltfOptions,
    ) -> Result<TriMesh> {
        Loader {
            path: path_for_errors,
            options,
        }
        .load(bytes, base_dir)
    }
}

/// The GLB header's `glTF` magic.
const GLB_MAGIC: &[u8; 4] = b"glTF";

struct Loader<'a> {
    path: &'a Path,
    options: &'a GltfOptions,
}

/// One accessor's layout, checked against its buffer.
struct Layout<'b> {
    /// The bytes from the first element's start to the last element's end.
    data: &'b [u8],
    stride: usize,
    count: usize,
    ty: json::accessor::ComponentType,
    normalized: bool,
}

impl Layout<'_> {
    fn component(&self, element: usize, comp: usize) -> f64 {
        use json::accessor::ComponentType as C;
        let size = component_size(self.ty);
        let at = element * self.stride + comp * size;
        let b = &self.data[at..at + size];
        let n = self.normalized;
        match self.ty {
            C::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            C::U32 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            C::U16 => {
                let v = f64::from(u16::from_le_bytes([b[0], b[1]]));
                if n { v / 65535.0 } else { v }
            }
            C::I16 => {
                let v = f64::from(i16::from_le_bytes([b[0], b[1]]));
                if n { (v / 32767.0).max(-1.0) } else { v }
            }
            C::U8 => {
                let v = f64::from(b[0]);
                if n { v / 255.0 } else { v }
            }
            C::I8 => {
                let v = f64::from(b[0] as i8);
                if n { (v / 127.0).max(-1.0) } else { v }
            }
        }
    }

    /// An integer component (indices), exactly.
    fn index(&self, element: usize) -> u32 {
        let at = element * self.stride;
        let b = &self.data[at..];
        match self.ty {
            json::accessor::ComponentType::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            json::accessor::ComponentType::U16 => u32::from(u16::from_le_bytes([b[0], b[1]])),
            _ => u32::from(b[0]),
        }
    }
}

fn component_size(ty: json::accessor::ComponentType) -> usize {
    use json::accessor::ComponentType as C;
    match ty {
        C::I8 | C::U8 => 1,
        C::I16 | C::U16 => 2,
        C::U32 | C::F32 => 4,
    }
}

fn type_components(ty: json::accessor::Type) -> usize {
    use json::accessor::Type as T;
    match ty {
        T::Scalar => 1,
        T::Vec2 => 2,
        T::Vec3 => 3,
        T::Vec4 | T::Mat2 => 4,
        T::Mat3 => 9,
        T::Mat4 => 16,
    }
}

/// The JSON line of a syntax error, if the error has one.
fn json_line(e: &gltf::Error) -> usize {
    match e {
        gltf::Error::Deserialize(j) => j.line(),
        _ => 0,
    }
}

impl<'a> Loader<'a> {
    fn err(&self, message: impl Into<String>) -> Error {
        Error::parse(self.path, 0, message)
    }

    fn load(&self, bytes: &[u8], base_dir: Option<&Path>) -> Result<TriMesh> {
        let bytes = self.check_glb_header(bytes)?;
        let gltf = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| {
            let what = if bytes.starts_with(GLB_MAGIC) {
                "not a valid GLB file"
            } else {
                "not valid glTF JSON"
            };
            Error::parse(self.path, json_line(&e), format!("{what}: {e}"))
        })?;
        let root = gltf.document.as_json();
        if let Some(ext) = root
            .extensions_required
            .iter()
            .find(|e| e.as_str() != "KHR_mesh_quantization")
        {
            return Err(self.err(format!(
                "the file requires the glTF extension `{ext}`, which navkit does not support"
            )));
        }
        self.validate(root)?;
        let buffers = self.buffers(root, gltf.blob.as_deref(), base_dir)?;
        let roots = self.scene_roots(root)?;
        self.walk(root, &buffers, &roots)
    }

    /// For GLB input: the bytes the header's length covers, after checking the header
    /// ourselves (the gltf crate subtracts before it compares).
    fn check_glb_header<'b>(&self, bytes: &'b [u8]) -> Result<&'b [u8]> {
        if !bytes.starts_with(GLB_MAGIC) {
            return Ok(bytes);
        }
        let word = |at: usize| {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let (Some(version), Some(length)) = (word(4), word(8)) else {
            return Err(self.err(format!(
                "GLB file of {} bytes is shorter than its 12-byte header",
                bytes.len()
            )));
        };
        if version != 2 {
            return Err(self.err(format!("GLB version {version}: only glTF 2.0 is supported")));
        }
        if length < 20 || length > bytes.len() {
            return Err(self.err(format!(
                "GLB header gives a length of {length} bytes, but the file has {} (a GLB file has at least 20)",
                bytes.len()
            )));
        }
        Ok(&bytes[..length])
    }

    fn validate(&self, root: &json::Root) -> Result<()> {
        use json::validation::Validate;
        // The gltf crate's primitive check indexes `accessors` with POSITION unchecked (a panic
        // on a file whose POSITION names a missing accessor; found by the fuzzer).
        for (m, mesh) in root.meshes.iter().enumerate() {
            for (p, prim) in mesh.primitives.iter().enumerate() {
                let pos = prim
                    .attributes
                    .get(&Checked::Valid(json::mesh::Semantic::Positions));
                if let Some(a) = pos.filter(|a| a.value() >= root.accessors.len()) {
                    return Err(self.err(format!(
                        "invalid glTF: meshes[{m}].primitives[{p}].attributes[\"POSITION\"] is accessor {}, but the file has {} accessors",
                        a.value(),
                        root.accessors.len()
                    )));
                }
            }
        }
        let mut first: Option<String> = None;
        let mut count = 0usize;
        root.validate(root, json::Path::new, &mut |path, error| {
            // POSITION's `min`/`max` are required by the specification but unused here, and
            // some exporters leave them out.
            let path = path().to_string();
            if matches!(error, json::validation::Error::Missing)
                && (path.ends_with(".min") || path.ends_with(".max"))
            {
                return;
            }
            // Required extensions were checked above (KHR_mesh_quantization only).
            if matches!(error, json::validation::Error::Unsupported)
                && path.starts_with("extensionsRequired")
            {
                return;
            }
            count += 1;
            if first.is_none() {
                first = Some(format!("{path}: {error}"));
            }
        });
        match first {
            None => Ok(()),
            Some(f) => Err(self.err(format!(
                "invalid glTF: {f}{}",
                if count > 1 {
                    format!(" (and {} more problems)", count - 1)
                } else {
                    String::new()
                }
            ))),
        }
    }

    /// Every buffer's bytes, each exactly `byteLength` long.
    fn buffers<'b>(
        &self,
        root: &json::Root,
        blob: Option<&'b [u8]>,
        base_dir: Option<&Path>,
    ) -> Result<Vec<std::borrow::Cow<'b, [u8]>>> {
        use std::borrow::Cow;
        let mut out = Vec::with_capacity(root.buffers.len());
        for (i, b) in root.buffers.iter().enumerate() {
            let len = usize::try_from(b.byte_length.0).unwrap_or(usize::MAX);
            let data: Cow<'b, [u8]> = match b.uri.as_deref() {
                None => {
                    let blob = blob.ok_or_else(|| {
                        self.err(format!(
                            "buffer {i} has no uri and the file has no GLB binary chunk"
                        ))
                    })?;
                    Cow::Borrowed(blob)
                }
                Some(uri) if uri.starts_with("data:") => Cow::Owned(self.data_uri(i, uri)?),
                Some(uri) => Cow::Owned(self.external(i, uri, base_dir)?),
            };
            if data.len() < len {
                return Err(self.err(format!(
                    "buffer {i} has byteLength {len} but only {} bytes of data",
                    data.len()
                )));
            }
            out.push(match data {
                Cow::Borrowed(d) => Cow::Borrowed(&d[..len]),
                Cow::Owned(mut d) => {
                    d.truncate(len);
                    Cow::Owned(d)
                }
            });
        }
        Ok(out)
    }

    fn data_uri(&self, i: usize, uri: &str) -> Result<Vec<u8>> {
        let (head, payload) = uri.split_once(',').unwrap_or((uri, ""));
        if !head.ends_with(";base64") {
            return Err(self.err(format!(
                "buffer {i}: a data URI must be base64 (`data:...;base64,...`)"
            )));
        }
        base64::engine::general_purpose::STANDARD
            .decode(payload)
            .map_err(|e| self.err(format!("buffer {i}: bad base64 data: {e}")))
    }

    /// An external buffer file, which must be a relative path inside `base_dir`.
    fn external(&self, i: usize, uri: &str, base_dir: Option<&Path>) -> Result<Vec<u8>> {
        let shown = crate::text::quote(uri);
        let Some(dir) = base_dir else {
            return Err(self.err(format!(
                "buffer {i} refers to the file `{shown}`, but the level was given as bytes without a folder"
            )));
        };
        if uri.split('/').next().is_some_and(|s| s.contains(':')) {
            return Err(self.err(format!(
                "buffer {i}: the URI `{shown}` has a scheme; only relative file names and data: URIs are read"
            )));
        }
        let decoded = urlencoding::decode(uri)
            .map_err(|_| self.err(format!("buffer {i}: the URI `{shown}` is not valid UTF-8")))?;
        let rel = Path::new(decoded.as_ref());
        let inside = rel
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
            && rel.components().any(|c| matches!(c, Component::Normal(_)));
        if !inside || decoded.contains('\\') {
            return Err(self.err(format!(
                "buffer {i}: `{shown}` is not a file inside the level's folder (absolute paths and `..` are refused)"
            )));
        }
        let file = dir.join(rel);
        // Through symbolic links too: the file must resolve to somewhere inside the folder.
        let real_dir = dir.canonicalize().map_err(|e| Error::io(dir, e))?;
        let real = file.canonicalize().map_err(|e| Error::io(&file, e))?;
        if !real.starts_with(&real_dir) {
            return Err(self.err(format!(
                "buffer {i}: `{shown}` resolves to `{}`, outside the level's folder",
                real.display()
            )));
        }
        std::fs::read(&file).map_err(|e| Error::io(&file, e))
    }

    /// The chosen scene's root nodes.
    fn scene_roots(&self, root: &json::Root) -> Result<Vec<usize>> {
        let scene = match &self.options.scene {
            Some(GltfScene::Index(i)) => Some(root.scenes.get(*i).ok_or_else(|| {
                self.err(format!(
                    "there is no scene {i}: the file has {} scenes",
                    root.scenes.len()
                ))
            })?),
            Some(GltfScene::Name(name)) => Some(
                root.scenes
                    .iter()
                    .find(|s| s.name.as_deref() == Some(name))
                    .ok_or_else(|| {
                        let names: Vec<&str> = root
                            .scenes
                            .iter()
                            .filter_map(|s| s.name.as_deref())
                            .collect();
                        self.err(format!(
                            "no scene is named `{}` (the file's scene names: {names:?})",
                            crate::text::quote(name)
                        ))
                    })?,
            ),
            None => match root.scene {
                Some(s) => root.scenes.get(s.value()),
                None => root.scenes.first(),
            },
        };
        if let Some(scene) = scene {
            return Ok(scene.nodes.iter().map(|n| n.value()).collect());
        }
        // No scenes at all: every node that is no other node's child.
        let mut is_child = vec![false; root.nodes.len()];
        for n in &root.nodes {
            for c in n.children.iter().flatten() {
                if let Some(slot) = is_child.get_mut(c.value()) {
                    *slot = true;
                }
            }
        }
        Ok((0..root.nodes.len()).filter(|&i| !is_child[i]).collect())
    }

    /// Walks the node trees depth first, appending every instanced triangle primitive.
    fn walk(
        &self,
        root: &json::Root,
        buffers: &[std::borrow::Cow<'_, [u8]>],
        roots: &[usize],
    ) -> Result<TriMesh> {
        let mut mesh = TriMesh::default();
        let mut seen = vec![false; root.nodes.len()];
        // (node, parent's world matrix); pushed in reverse so children go in listed order.
        let mut stack: Vec<(usize, DMat4)> =
            roots.iter().rev().map(|&n| (n, DMat4::IDENTITY)).collect();
        while let Some((n, parent)) = stack.pop() {
            let node = root
                .nodes
                .get(n)
                .ok_or_else(|| self.err(format!("node {n} does not exist")))?;
            if std::mem::replace(&mut seen[n], true) {
                return Err(self.err(format!(
                    "node {n} is reached twice in the scene (a cycle, or a child of two parents)"
                )));
            }
            let world = parent * self.local_matrix(n, node)?;
            if !world.is_finite() {
                return Err(self.err(format!("node {n}: the world transform is not finite")));
            }
            if let Some(m) = node.mesh {
                if node.skin.is_some() {
                    return Err(self.err(format!(
                        "node {n}: skinned meshes are not supported (their shape depends on a skeleton pose)"
                    )));
                }
                self.add_mesh(root, buffers, n, m.value(), world, &mut mesh)?;
            }
            for c in node.children.iter().flatten().rev() {
                stack.push((c.value(), world));
            }
        }
        if mesh.tris.is_empty() {
            return Err(Error::Geometry(format!(
                "{}: empty mesh: the scene has no triangles",
                self.path.display()
            )));
        }
        Ok(mesh)
    }

    fn local_matrix(&self, n: usize, node: &json::scene::Node) -> Result<DMat4> {
        let f = |a: &[f32]| a.iter().all(|x| x.is_finite());
        if let Some(m) = node.matrix {
            if !f(&m) {
                return Err(self.err(format!("node {n}: the matrix has a non-finite entry")));
            }
            return Ok(DMat4::from_cols_array(&m.map(f64::from)));
        }
        let t = node.translation.unwrap_or([0.0; 3]);
        let r = node.rotation.map(|q| q.0).unwrap_or([0.0, 0.0, 0.0, 1.0]);
        let s = node.scale.unwrap_or([1.0; 3]);
        if !f(&t) || !f(&r) || !f(&s) {
            return Err(self.err(format!(
                "node {n}: translation, rotation or scale has a non-finite value"
            )));
        }
        let [x, y, z, w] = r.map(f64::from);
        let q = DQuat::from_xyzw(x, y, z, w);
        let len = q.length();
        if (len - 1.0).abs() > 1e-3 {
            return Err(self.err(format!(
                "node {n}: the rotation quaternion has length {len}, not 1"
            )));
        }
        Ok(DMat4::from_scale_rotation_translation(
            DVec3::from_array(s.map(f64::from)),
            q / len,
            DVec3::from_array(t.map(f64::from)),
        ))
    }

    /// An accessor's data, checked: its type is one of `comps_allowed` with a component type
    /// accepted by `component_ok`; its elements lie inside its view and the view inside its
    /// buffer. `None` data for an accessor without a buffer view (all zeros before sparse
    /// substitution).
    fn layout<'b, 'r>(
        &self,
        root: &'r json::Root,
        buffers: &'b [std::borrow::Cow<'_, [u8]>],
        a: usize,
        what: &str,
    ) -> Result<(Option<Layout<'b>>, &'r json::Accessor)> {
        let acc = root
            .accessors
            .get(a)
            .ok_or_else(|| self.err(format!("{what}: accessor {a} does not exist")))?;
        let (Checked::Valid(ct), Checked::Valid(ty)) = (&acc.component_type, &acc.type_) else {
            return Err(self.err(format!("{what}: accessor {a} has an invalid type")));
        };
        let count = usize::try_from(acc.count.0).unwrap_or(usize::MAX);
        let Some(view) = acc.buffer_view else {
            return Ok((None, acc));
        };
        let offset = acc.byte_offset.map_or(0, |o| o.0);
        let layout = self.view_slice(
            root,
            buffers,
            view.value(),
            offset,
            count,
            ct.0,
            type_components(*ty),
            &format!("{what}: accessor {a}"),
        )?;
        Ok((
            Some(Layout {
                normalized: acc.normalized,
                ..layout
            }),
            acc,
        ))
    }

    /// `count` elements of `comps` components of type `ty` from `offset` in view `v`.
    #[allow(clippy::too_many_arguments)]
    fn view_slice<'b>(
        &self,
        root: &json::Root,
        buffers: &'b [std::borrow::Cow<'_, [u8]>],
        v: usize,
        offset: u64,
        count: usize,
        ty: json::accessor::ComponentType,
        comps: usize,
        what: &str,
    ) -> Result<Layout<'b>> {
        let view = root
            .buffer_views
            .get(v)
            .ok_or_else(|| self.err(format!("{what}: buffer view {v} does not exist")))?;
        let b = view.buffer.value();
        let buffer = buffers
            .get(b)
            .ok_or_else(|| self.err(format!("{what}: buffer {b} does not exist")))?;
        let vstart = view.byte_offset.map_or(0, |o| o.0);
        let vlen = view.byte_length.0;
        if vstart
            .checked_add(vlen)
            .is_none_or(|e| e > buffer.len() as u64)
        {
            return Err(self.err(format!(
                "{what}: buffer view {v} (bytes {vstart}..+{vlen}) ends past the end of buffer {b} ({} bytes)",
                buffer.len()
            )));
        }
        let elem = (component_size(ty) * comps) as u64;
        let stride = view.byte_stride.map_or(elem, |s| s.0 as u64);
        let stride = if stride == 0 { elem } else { stride };
        if stride < elem {
            return Err(self.err(format!(
                "{what}: buffer view {v} has byteStride {stride}, less than the {elem}-byte element"
            )));
        }
        let span = if count == 0 {
            Some(0)
        } else {
            (count as u64 - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(elem))
        };
        let end = span.and_then(|s| s.checked_add(offset));
        if end.is_none_or(|e| e > vlen) {
            return Err(self.err(format!(
                "{what}: {count} elements of {elem} bytes every {stride} from byte {offset} run past the end of buffer view {v} ({vlen} bytes)"
            )));
        }
        let (start, end) = (
            (vstart + offset) as usize,
            (vstart + end.unwrap_or(0)) as usize,
        );
        Ok(Layout {
            data: &buffer[start..end],
            stride: stride as usize,
            count,
            ty,
            normalized: false,
        })
    }

    /// Appends the positions of a POSITION accessor (VEC3, sparse substitution applied, as
    /// `f32`) to `out`; returns how many.
    fn read_positions(
        &self,
        root: &json::Root,
        buffers: &[std::borrow::Cow<'_, [u8]>],
        a: usize,
        what: &str,
        out: &mut Vec<f32>,
    ) -> Result<usize> {
        let (layout, acc) = self.layout(root, buffers, a, what)?;
        if acc.type_ != Checked::Valid(json::accessor::Type::Vec3) {
            return Err(self.err(format!("{what}: accessor {a} is not VEC3")));
        }
        let count = usize::try_from(acc.count.0).unwrap_or(usize::MAX);
        let have = out.len() / 3;
        if count > self.options.max_vertices.saturating_sub(have) {
            return Err(self.err(format!(
                "{what}: accessor {a} has {count} vertices, which would take the level over the limit of {} vertices",
                self.options.max_vertices
            )));
        }
        let start = out.len();
        out.reserve(count * 3);
        match &layout {
            Some(l) => {
                for i in 0..count {
                    out.extend((0..3).map(|c| l.component(i, c) as f32));
                }
            }
            None => out.resize(start + count * 3, 0.0),
        }
        let region = &mut out[start..];
        if let Some(sparse) = &acc.sparse {
            let what = format!("{what}: sparse accessor {a}");
            let n = usize::try_from(sparse.count.0).unwrap_or(usize::MAX);
            if n > count {
                return Err(self.err(format!("{what}: {n} sparse values for {count} elements")));
            }
            let Checked::Valid(ict) = sparse.indices.component_type else {
                return Err(self.err(format!("{what}: invalid index type")));
            };
            if !matches!(
                ict.0,
                json::accessor::ComponentType::U8
                    | json::accessor::ComponentType::U16
                    | json::accessor::ComponentType::U32
            ) {
                return Err(self.err(format!("{what}: indices must be unsigned integers")));
            }
            let idx = self.view_slice(
                root,
                buffers,
                sparse.indices.buffer_view.value(),
                sparse.indices.byte_offset.0,
                n,
                ict.0,
                1,
                &format!("{what} indices"),
            )?;
            let Checked::Valid(ct) = acc.component_type else {
                return Err(self.err(format!("{what}: invalid component type")));
            };
            let mut vals = self.view_slice(
                root,
                buffers,
                sparse.values.buffer_view.value(),
                sparse.values.byte_offset.0,
                n,
                ct.0,
                3,
                &format!("{what} values"),
            )?;
            vals.normalized = acc.normalized;
            let mut prev: Option<u32> = None;
            for k in 0..n {
                let i = idx.index(k);
                if prev.is_some_and(|p| i <= p) || i as usize >= count {
                    return Err(self.err(format!(
                        "{what}: sparse index {k} is {i}; indices must increase and be below {count}"
                    )));
                }
                prev = Some(i);
                for c in 0..3 {
                    region[i as usize * 3 + c] = vals.component(k, c) as f32;
                }
            }
        }
        if let Some(i) = region.iter().position(|c| !c.is_finite()) {
            return Err(self.err(format!(
                "{what}: accessor {a} element {} has a non-finite coordinate",
                i / 3
            )));
        }
        Ok(count)
    }

    fn add_mesh(
        &self,
        root: &json::Root,
        buffers: &[std::borrow::Cow<'_, [u8]>],
        n: usize,
        m: usize,
        world: DMat4,
        mesh: &mut TriMesh,
    ) -> Result<()> {
        use json::mesh::{Mode, Semantic};
        let jm = root
            .meshes
            .get(m)
            .ok_or_else(|| self.err(format!("node {n}: mesh {m} does not exist")))?;
        let weights = root.nodes[n].weights.as_ref().or(jm.weights.as_ref());
        let identity = world == DMat4::IDENTITY;
        let flip = world.determinant() < 0.0;
        for (p, prim) in jm.primitives.iter().enumerate() {
            let what = format!("mesh {m} primitive {p} (node {n})");
            let Checked::Valid(mode) = prim.mode else {
                return Err(self.err(format!("{what}: invalid mode")));
            };
            if !matches!(
                mode,
                Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
            ) {
                continue; // points and lines: nothing to walk on
            }
            if let Some(targets) = &prim.targets {
                let moved =
                    weights.is_some_and(|w| w.iter().take(targets.len()).any(|&x| x != 0.0));
                if moved {
                    return Err(self.err(format!(
                        "{what}: morph targets with non-zero weights are not supported"
                    )));
                }
            }
            let Some(pa) = prim.attributes.get(&Checked::Valid(Semantic::Positions)) else {
                return Err(self.err(format!("{what}: no POSITION attribute")));
            };
            let base = mesh.vert_count();
            let what_pos = format!("{what}: POSITION");
            let npos =
                self.read_positions(root, buffers, pa.value(), &what_pos, &mut mesh.verts)?;
            // The corner list: the indices, or 0..count.
            let corners: Vec<u32> = match prim.indices {
                None => (0..npos as u64).map(|i| i as u32).collect(),
                Some(ia) => self.read_indices(root, buffers, ia.value(), npos, &what)?,
            };
            let tris_before = mesh.tri_count();
            let ntris = match mode {
                Mode::Triangles => {
                    if !corners.len().is_multiple_of(3) {
                        return Err(self.err(format!(
                            "{what}: {} triangle corners is not a multiple of 3",
                            corners.len()
                        )));
                    }
                    corners.len() / 3
                }
                _ => corners.len().saturating_sub(2),
            };
            if tris_before + ntris > self.options.max_triangles {
                return Err(self.err(format!(
                    "{what}: the level would have {} triangles, over the limit of {}",
                    tris_before + ntris,
                    self.options.max_triangles
                )));
            }
            if !identity {
                for v in mesh.verts[base * 3..].chunks_exact_mut(3) {
                    let w = world
                        .transform_point3(DVec3::new(v[0].into(), v[1].into(), v[2].into()))
                        .as_vec3();
                    if !w.is_finite() {
                        return Err(self.err(format!(
                            "{what}: a vertex is not finite in world space (the node transform overflows f32)"
                        )));
                    }
                    v.copy_from_slice(&w.to_array());
                }
            }
            mesh.tris.reserve(ntris * 3);
            let b = base as i64;
            let mut push = |a: u32, c: u32, d: u32| {
                let (c, d) = if flip { (d, c) } else { (c, d) };
                mesh.tris
                    .extend([a, c, d].map(|x| (b + i64::from(x)) as i32));
            };
            match mode {
                Mode::Triangles => {
                    for t in corners.chunks_exact(3) {
                        push(t[0], t[1], t[2]);
                    }
                }
                Mode::TriangleStrip => {
                    for i in 0..ntris {
                        if i % 2 == 0 {
                            push(corners[i], corners[i + 1], corners[i + 2]);
                        } else {
                            push(corners[i], corners[i + 2], corners[i + 1]);
                        }
                    }
                }
                _ => {
                    for i in 0..ntris {
                        push(corners[i + 1], corners[i + 2], corners[0]);
                    }
                }
            }
        }
        Ok(())
    }

    fn read_indices(
        &self,
        root: &json::Root,
        buffers: &[std::borrow::Cow<'_, [u8]>],
        a: usize,
        nverts: usize,
        what: &str,
    ) -> Result<Vec<u32>> {
        let what = format!("{what}: indices");
        let (layout, acc) = self.layout(root, buffers, a, &what)?;
        use json::accessor::ComponentType as C;
        let ok_type = matches!(
            acc.component_type,
            Checked::Valid(json::accessor::GenericComponentType(
                C::U8 | C::U16 | C::U32
            ))
        );
        if acc.type_ != Checked::Valid(json::accessor::Type::Scalar) || !ok_type || acc.normalized {
            return Err(self.err(format!(
                "{what}: accessor {a} must be SCALAR unsigned bytes, shorts or ints"
            )));
        }
        if acc.sparse.is_some() {
            return Err(self.err(format!(
                "{what}: accessor {a}: sparse indices are not supported"
            )));
        }
        let Some(l) = layout else {
            return Err(self.err(format!("{what}: accessor {a} has no buffer view")));
        };
        if l.count
            > self
                .options
                .max_triangles
                .saturating_mul(3)
                .saturating_add(2)
        {
            return Err(self.err(format!(
                "{what}: accessor {a} has {} indices, over the limit of {} triangles",
                l.count, self.options.max_triangles
            )));
        }
        let mut out = Vec::with_capacity(l.count);
        for k in 0..l.count {
            let i = l.index(k);
            if i as usize >= nverts {
                return Err(self.err(format!(
                    "{what}: accessor {a} element {k} is vertex {i}, but POSITION has {nverts}"
                )));
            }
            out.push(i);
        }
        Ok(out)
    }
}

// Writing levels as glTF (`TriMesh::to_glb`, `write_gltf`).
mod write;
