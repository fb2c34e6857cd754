//! Writing a [`TriMesh`] as glTF 2.0 (`.glb`, or `.gltf` with an embedded or separate buffer),
//! so that [`TriMesh::from_gltf`] reads back the same arrays.

use super::*;

/// How [`TriMesh::write_gltf`]'s JSON refers to its buffer.
enum BufferRef<'a> {
    /// The GLB binary chunk.
    Glb,
    /// A base64 `data:` URI.
    Embedded,
    /// A file beside the `.gltf`.
    File(&'a str),
}

impl TriMesh {
    /// The mesh as a binary glTF (`.glb`): one node, one mesh, one triangle primitive whose
    /// POSITION accessor holds every vertex (`FLOAT` VEC3, in order, unreferenced ones too)
    /// and whose indices are the triangles (`UNSIGNED_INT`), so [`TriMesh::from_gltf`] gives
    /// back the same `verts` and `tris`, bit for bit. A mesh without vertices or triangles
    /// gives a file that loading refuses (glTF accessors cannot be empty).
    pub fn to_glb(&self) -> Vec<u8> {
        let mut json = self.gltf_json(BufferRef::Glb).into_bytes();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        let mut bin = self.gltf_bin();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(GLB_MAGIC);
        for word in [2, total, json.len()] {
            out.extend_from_slice(&(word as u32).to_le_bytes());
        }
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        out
    }

    /// The mesh as `.gltf` JSON with its buffer embedded as a base64 `data:` URI (otherwise as
    /// [`TriMesh::to_glb`]).
    pub fn to_gltf_embedded(&self) -> String {
        self.gltf_json(BufferRef::Embedded)
    }

    /// Writes the mesh as glTF, by `path`'s extension: `.glb` ([`TriMesh::to_glb`]), or
    /// `.gltf` with the buffer in a file beside it, named as `path` with the extension `.bin`.
    /// Other extensions are an [`Error::InvalidArgument`].
    pub fn write_gltf(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let write = |p: &Path, bytes: &[u8]| std::fs::write(p, bytes).map_err(|e| Error::io(p, e));
        match ext.as_deref() {
            Some("glb") => write(path, &self.to_glb()),
            Some("gltf") => {
                let bin = path.with_extension("bin");
                let name = bin
                    .file_name()
                    .and_then(|n| n.to_str())
                    .ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "{}: the file name is not valid UTF-8",
                            path.display()
                        ))
                    })?
                    .to_string();
                write(&bin, &self.gltf_bin())?;
                write(path, self.gltf_json(BufferRef::File(&name)).as_bytes())
            }
            _ => Err(Error::InvalidArgument(format!(
                "{}: a glTF file name must end in .gltf or .glb",
                path.display()
            ))),
        }
    }

    /// The vertex coordinates then the indices, little-endian.
    fn gltf_bin(&self) -> Vec<u8> {
        let mut bin = Vec::with_capacity((self.verts.len() + self.tris.len()) * 4);
        for v in &self.verts {
            bin.extend_from_slice(&v.to_le_bytes());
        }
        for &t in &self.tris {
            bin.extend_from_slice(&(t as u32).to_le_bytes());
        }
        bin
    }

    fn gltf_json(&self, buffer: BufferRef<'_>) -> String {
        let vbytes = self.verts.len() * 4;
        let ibytes = self.tris.len() * 4;
        let b = self.bounds();
        // Rust prints finite floats as plain decimals, which JSON reads back exactly.
        let (min, max) = (b.min.to_array(), b.max.to_array());
        let uri = match buffer {
            BufferRef::Glb => String::new(),
            BufferRef::Embedded => format!(
                r#""uri":"data:application/octet-stream;base64,{}","#,
                base64::engine::general_purpose::STANDARD.encode(self.gltf_bin())
            ),
            BufferRef::File(name) => {
                format!(r#""uri":"{}","#, urlencoding::encode(name))
            }
        };
        format!(
            concat!(
                r#"{{"asset":{{"version":"2.0","generator":"navkit {version}"}},"#,
                r#""scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],"#,
                r#""meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1,"mode":4}}]}}],"#,
                r#""accessors":["#,
                r#"{{"bufferView":0,"componentType":5126,"count":{nv},"type":"VEC3","min":[{},{},{}],"max":[{},{},{}]}},"#,
                r#"{{"bufferView":1,"componentType":5125,"count":{ni},"type":"SCALAR"}}],"#,
                r#""bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{vbytes},"target":34962}},"#,
                r#"{{"buffer":0,"byteOffset":{vbytes},"byteLength":{ibytes},"target":34963}}],"#,
                r#""buffers":[{{{uri}"byteLength":{total}}}]}}"#
            ),
            min[0],
            min[1],
            min[2],
            max[0],
            max[1],
            max[2],
            version = env!("CARGO_PKG_VERSION"),
            nv = self.vert_count(),
            ni = self.tris.len(),
            vbytes = vbytes,
            ibytes = ibytes,
            uri = uri,
            total = vbytes + ibytes,
        )
    }
}
