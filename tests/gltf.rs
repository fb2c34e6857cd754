//! glTF 2.0 levels (feature `gltf`): RecastDemo's meshes, the demo level and a generated world
//! exported to `.glb` and `.gltf` (external and embedded buffers) load back bit for bit and
//! build the same navmesh as the OBJ; hand-made files with node transforms, strips and fans give
//! known world-space triangles; malformed and hostile files give errors that say what and where.

mod common;

use base64::Engine as _;
use navkit::NavMeshBuilder;
use navkit::geometry::gltf::{GltfOptions, GltfScene};
use navkit::tools::worldgen::{WorldSpec, generate};
use navkit::{BuildSettings, Error, InputGeometry, TriMesh};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A fresh, empty temporary directory.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = common::temp(&format!("gltf-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// `mesh` written as .glb, .gltf with a .bin beside it and .gltf with an embedded buffer.
fn export_all(mesh: &TriMesh, dir: &Path, stem: &str) -> Vec<PathBuf> {
    let glb = dir.join(format!("{stem}.glb"));
    let ext = dir.join(format!("{stem}.gltf"));
    let emb = dir.join(format!("{stem}-embedded.gltf"));
    mesh.write_gltf(&glb).unwrap();
    mesh.write_gltf(&ext).unwrap();
    std::fs::write(&emb, mesh.to_gltf_embedded()).unwrap();
    assert!(dir.join(format!("{stem}.bin")).is_file());
    vec![glb, ext, emb]
}

#[test]
fn recastdemo_meshes_round_trip_and_build_the_same_navmesh() {
    let dir = temp_dir("recastdemo");
    for name in ["dungeon.obj", "nav_test.obj", "undulating.obj"] {
        let obj = InputGeometry::load(common::mesh(name)).unwrap();
        let reference = NavMeshBuilder::new(&obj)
            .settings(BuildSettings::default())
            .solo()
            .unwrap();
        for path in export_all(&obj.mesh, &dir, name.trim_end_matches(".obj")) {
            let geom = InputGeometry::load(&path).unwrap();
            assert_eq!(geom.source.as_deref(), Some(path.as_path()));
            assert_eq!(bits(&geom.mesh.verts), bits(&obj.mesh.verts), "{path:?}");
            assert_eq!(geom.mesh.tris, obj.mesh.tris, "{path:?}");
            let b = NavMeshBuilder::new(&geom)
                .settings(BuildSettings::default())
                .solo()
                .unwrap();
            assert_eq!(
                (b.report().polymesh_polys, b.report().polymesh_verts),
                (
                    reference.report().polymesh_polys,
                    reference.report().polymesh_verts
                )
            );
            assert!(
                b.tile_data() == reference.tile_data(),
                "{path:?}: navmesh differs"
            );
        }
    }
    // RecastDemo's published dungeon counts (tests/api.rs), through the GLB.
    let b = NavMeshBuilder::new(&InputGeometry::load(dir.join("dungeon.glb")).unwrap())
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    assert_eq!(
        (b.report().polymesh_verts, b.report().polymesh_polys),
        (223, 118)
    );
}

#[test]
fn the_demo_level_as_glb_in_its_gset_builds_the_same_navmesh() {
    let gset = Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/demo_level.gset");
    let obj = InputGeometry::load(&gset).unwrap();
    let settings = obj.settings.clone().unwrap();
    let reference = NavMeshBuilder::new(&obj)
        .settings(settings.clone())
        .solo()
        .unwrap();
    let dir = temp_dir("demo");
    obj.mesh.write_gltf(dir.join("level.glb")).unwrap();
    let text = std::fs::read_to_string(&gset).unwrap();
    assert!(text.starts_with("f demo_level.obj\n"));
    let text = text.replacen("f demo_level.obj", "f level.glb", 1);
    std::fs::write(dir.join("demo.gset"), text).unwrap();
    let g = InputGeometry::load(dir.join("demo.gset")).unwrap();
    assert_eq!(bits(&g.mesh.verts), bits(&obj.mesh.verts));
    assert_eq!(g.mesh.tris, obj.mesh.tris);
    assert_eq!(g.settings, obj.settings);
    assert_eq!(g.off_mesh_connections, obj.off_mesh_connections);
    assert_eq!(g.convex_volumes, obj.convex_volumes);
    let b = NavMeshBuilder::new(&g)
        .settings(settings.clone())
        .solo()
        .unwrap();
    assert_eq!(b.report().polymesh_polys, reference.report().polymesh_polys);
    assert!(b.tile_data() == reference.tile_data());
}

#[test]
fn a_generated_world_as_gltf_builds_the_same_tiled_navmesh() {
    let (world, _) = generate(&WorldSpec::new(60_000, 12)).unwrap();
    let dir = temp_dir("world");
    let settings = BuildSettings {
        tile_size: 64,
        ..BuildSettings::default()
    };
    let reference = NavMeshBuilder::new(&world)
        .settings(settings.clone())
        .tiled()
        .unwrap();
    for path in export_all(&world.mesh, &dir, "world") {
        let mesh = TriMesh::load(&path).unwrap();
        assert_eq!(bits(&mesh.verts), bits(&world.mesh.verts));
        assert_eq!(mesh.tris, world.mesh.tris);
        let mut geom = world.clone();
        geom.mesh = mesh;
        let tiled = NavMeshBuilder::new(&geom)
            .settings(settings.clone())
            .tiled()
            .unwrap();
        assert_eq!(tiled.report().tile_count, reference.report().tile_count);
        assert_eq!(tiled.report().data_hash, reference.report().data_hash);
    }
}

#[test]
fn the_command_line_takes_gltf_wherever_it_takes_obj() {
    let dir = temp_dir("cli");
    let obj = common::mesh("nav_test.obj");
    let mesh = TriMesh::load(&obj).unwrap();
    mesh.write_gltf(dir.join("nav_test.gltf")).unwrap();
    mesh.write_gltf(dir.join("nav_test.glb")).unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_navkit"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let (mut saved, mut paths) = (Vec::new(), Vec::new());
    for input in [
        obj.clone(),
        dir.join("nav_test.gltf"),
        dir.join("nav_test.glb"),
    ] {
        let out = dir.join("out.navmesh");
        let json = run(&[
            "build",
            input.to_str().unwrap(),
            "--json",
            "-o",
            out.to_str().unwrap(),
        ]);
        let v: Value = serde_json::from_str(json.trim()).unwrap();
        saved.push((v["polymesh_polys"].clone(), std::fs::read(&out).unwrap()));
        // A path straight off the level file.
        let (from, to) = (
            "18.13855,-2.370003,-21.319118",
            "-19.20618,-2.369133,24.802742",
        );
        let p = run(&[
            "path",
            input.to_str().unwrap(),
            "--from",
            from,
            "--to",
            to,
            "--json",
        ]);
        assert!(p.starts_with(r#"{"status":"complete""#), "{p}");
        paths.push(p);
    }
    assert!(paths.windows(2).all(|w| w[0] == w[1]), "the paths differ");
    assert!(saved[0].0.as_u64().unwrap() > 0);
    assert!(
        saved.windows(2).all(|w| w[0] == w[1]),
        "the navmeshes differ"
    );
}

// ---------------------------------------------------------------------------------------------
// Hand-made files.

/// A tiny glTF writer for hand-made test files: buffer data, accessors and a JSON document
/// around them.
#[derive(Default)]
struct Doc {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    meshes: Vec<Value>,
    nodes: Vec<Value>,
    scenes: Vec<Value>,
    extra: serde_json::Map<String, Value>,
}

impl Doc {
    fn view(&mut self, bytes: &[u8], stride: Option<usize>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut v = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(s) = stride {
            v["byteStride"] = json!(s);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    fn accessor(&mut self, v: Value) -> usize {
        self.accessors.push(v);
        self.accessors.len() - 1
    }

    fn positions(&mut self, p: &[[f32; 3]]) -> usize {
        let bytes: Vec<u8> = p.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, None);
        self.accessor(
            json!({"bufferView": view, "componentType": 5126, "count": p.len(), "type": "VEC3"}),
        )
    }

    fn indices_u8(&mut self, i: &[u8]) -> usize {
        let view = self.view(i, None);
        self.accessor(
            json!({"bufferView": view, "componentType": 5121, "count": i.len(), "type": "SCALAR"}),
        )
    }

    fn indices_u16(&mut self, i: &[u16]) -> usize {
        let bytes: Vec<u8> = i.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, None);
        self.accessor(
            json!({"bufferView": view, "componentType": 5123, "count": i.len(), "type": "SCALAR"}),
        )
    }

    fn indices_u32(&mut self, i: &[u32]) -> usize {
        let bytes: Vec<u8> = i.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, None);
        self.accessor(
            json!({"bufferView": view, "componentType": 5125, "count": i.len(), "type": "SCALAR"}),
        )
    }

    /// A mesh of primitives `(positions accessor, indices accessor, mode)`.
    fn mesh(&mut self, prims: &[(usize, Option<usize>, u32)]) -> usize {
        let prims: Vec<Value> = prims
            .iter()
            .map(|&(p, i, mode)| {
                let mut v = json!({"attributes": {"POSITION": p}, "mode": mode});
                if let Some(i) = i {
                    v["indices"] = json!(i);
                }
                v
            })
            .collect();
        self.meshes.push(json!({ "primitives": prims }));
        self.meshes.len() - 1
    }

    fn node(&mut self, v: Value) -> usize {
        self.nodes.push(v);
        self.nodes.len() - 1
    }

    fn json(&self, uri: Option<String>) -> Value {
        let mut buffer = json!({"byteLength": self.bin.len()});
        if let Some(u) = uri {
            buffer["uri"] = json!(u);
        }
        let mut root = json!({
            "asset": {"version": "2.0"},
            "buffers": [buffer],
            "bufferViews": self.views,
            "accessors": self.accessors,
            "meshes": self.meshes,
            "nodes": self.nodes,
        });
        if !self.scenes.is_empty() {
            root["scenes"] = json!(self.scenes);
        }
        for (k, v) in &self.extra {
            root[k] = v.clone();
        }
        root
    }

    fn glb_of(json: &Value, bin: &[u8]) -> Vec<u8> {
        let mut j = serde_json::to_vec(json).unwrap();
        while !j.len().is_multiple_of(4) {
            j.push(b' ');
        }
        let mut b = bin.to_vec();
        while !b.len().is_multiple_of(4) {
            b.push(0);
        }
        let total = 12 + 8 + j.len() + 8 + b.len();
        let mut out = b"glTF".to_vec();
        for w in [2, total, j.len()] {
            out.extend((w as u32).to_le_bytes());
        }
        out.extend(b"JSON");
        out.extend(j);
        out.extend((b.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(b);
        out
    }

    fn glb(&self) -> Vec<u8> {
        Self::glb_of(&self.json(None), &self.bin)
    }

    fn embedded(&self) -> String {
        let b64 = base64::engine::general_purpose::STANDARD.encode(&self.bin);
        self.json(Some(format!("data:application/octet-stream;base64,{b64}")))
            .to_string()
    }

    fn load(&self) -> navkit::Result<TriMesh> {
        self.load_with(&GltfOptions::default())
    }

    /// Loads the GLB and the embedded .gltf and checks they agree.
    fn load_with(&self, options: &GltfOptions) -> navkit::Result<TriMesh> {
        let a = TriMesh::from_gltf_slice(&self.glb(), None, "t.glb".as_ref(), options);
        let b =
            TriMesh::from_gltf_slice(self.embedded().as_bytes(), None, "t.gltf".as_ref(), options);
        match (&a, &b) {
            (Ok(x), Ok(y)) => assert_eq!(x, y),
            (Err(x), Err(y)) => assert_eq!(
                x.to_string().replace("t.glb", "t.gltf"),
                y.to_string(),
                "the GLB and the .gltf fail differently"
            ),
            _ => panic!("GLB {a:?} but .gltf {b:?}"),
        }
        a
    }
}

/// An up-facing right triangle in local coordinates (Recast's normal `cross(b - a, c - a)` is +y).
const TRI: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]];

/// One node with `node` (its `"mesh": 0` added) instancing an indexed TRI.
fn one_triangle(node: Value) -> Doc {
    let mut d = Doc::default();
    let p = d.positions(&TRI);
    let i = d.indices_u16(&[0, 1, 2]);
    d.mesh(&[(p, Some(i), 4)]);
    let mut node = node;
    node["mesh"] = json!(0);
    d.node(node);
    d.scenes.push(json!({"nodes": [0]}));
    d
}

fn world_tris(m: &TriMesh) -> Vec<[[f32; 3]; 3]> {
    m.tris
        .chunks_exact(3)
        .map(|t| [0, 1, 2].map(|k| m.vertex(t[k] as usize).to_array()))
        .collect()
}

fn close(a: &[[f32; 3]; 3], b: &[[f32; 3]; 3]) -> bool {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .all(|(x, y)| (x - y).abs() < 1e-5)
}

/// Recast's up test: `cross(b - a, c - a).y > 0`.
fn faces_up(t: &[[f32; 3]; 3]) -> bool {
    let e0 = [t[1][0] - t[0][0], t[1][2] - t[0][2]];
    let e1 = [t[2][0] - t[0][0], t[2][2] - t[0][2]];
    e0[1] * e1[0] - e0[0] * e1[1] > 0.0
}

#[test]
fn node_transforms_are_applied() {
    // (node, expected world triangle)
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let cases = [
        (json!({}), TRI),
        (
            json!({"translation": [10.0, 2.0, -3.0]}),
            [[10.0, 2.0, -3.0], [10.0, 2.0, -2.0], [11.0, 2.0, -3.0]],
        ),
        (
            json!({"scale": [2.0, 3.0, 4.0]}),
            [[0.0, 0.0, 0.0], [0.0, 0.0, 4.0], [2.0, 0.0, 0.0]],
        ),
        // 90 degrees about +y: x -> -z, z -> x.
        (
            json!({"rotation": [0.0, s, 0.0, s]}),
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]],
        ),
        // T * R * S, as glTF composes them.
        (
            json!({"translation": [1.0, 0.0, 0.0], "rotation": [0.0, s, 0.0, s], "scale": [2.0, 1.0, 2.0]}),
            [[1.0, 0.0, 0.0], [3.0, 0.0, 0.0], [1.0, 0.0, -2.0]],
        ),
        // A column-major matrix: translation (5, 1, 0), x and z swapped with y scaled by 2...
        (
            json!({"matrix": [0.0, 0.0, 1.0, 0.0,  0.0, 2.0, 0.0, 0.0,  1.0, 0.0, 0.0, 0.0,  5.0, 1.0, 0.0, 1.0]}),
            // ... a mirror (determinant -2): the winding is reversed to keep the face up.
            [[5.0, 1.0, 0.0], [5.0, 1.0, 1.0], [6.0, 1.0, 0.0]],
        ),
    ];
    for (node, want) in cases {
        let m = one_triangle(node.clone()).load().unwrap();
        let got = world_tris(&m);
        assert_eq!(got.len(), 1);
        assert!(close(&got[0], &want), "{node}: {got:?}, expected {want:?}");
        assert!(faces_up(&got[0]), "{node}");
    }
}

#[test]
fn nested_and_mirrored_nodes_compose_and_keep_faces_up() {
    // root: translation (0, 5, 0); child: scale 2; grandchild: translation (1, 0, 0) + mesh.
    let mut d = one_triangle(json!({"translation": [1.0, 0.0, 0.0]}));
    d.node(json!({"scale": [2.0, 2.0, 2.0], "children": [0]}));
    d.node(json!({"translation": [0.0, 5.0, 0.0], "children": [1]}));
    d.scenes = vec![json!({"nodes": [2]})];
    let m = d.load().unwrap();
    assert_eq!(
        world_tris(&m),
        [[[2.0, 5.0, 0.0], [2.0, 5.0, 2.0], [4.0, 5.0, 0.0]]]
    );

    // Mirror in x (scale -1): the vertices mirror, the triangle's corners swap, it faces up.
    let m = one_triangle(json!({"scale": [-1.0, 1.0, 1.0]}))
        .load()
        .unwrap();
    assert_eq!(m.tris, [0, 2, 1]);
    assert_eq!(m.verts, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, -1.0, 0.0, 0.0]);
    assert!(faces_up(&world_tris(&m)[0]));
    // Two mirrors cancel: the parent's scale -1 in z and the child's -1 in x.
    let mut d = one_triangle(json!({"scale": [-1.0, 1.0, 1.0]}));
    d.node(json!({"scale": [1.0, 1.0, -1.0], "children": [0]}));
    d.scenes = vec![json!({"nodes": [1]})];
    let m = d.load().unwrap();
    assert_eq!(m.tris, [0, 1, 2]);
    assert!(faces_up(&world_tris(&m)[0]));
}

#[test]
fn strips_fans_index_types_and_instances() {
    let quad = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0],
        [1.0, 0.0, 1.0],
        [2.0, 0.0, 0.0],
    ];
    let mut d = Doc::default();
    let p = d.positions(&quad);
    // A strip of 5: triangles (0 1 2), (1 3 2), (2 3 4): all facing up.
    let strip = d.indices_u8(&[0, 1, 2, 3, 4]);
    // A fan around 0 of the corners 0 1 3 2: (1 3 0), (3 2 0), i.e. (0 1 3) and (0 3 2) rotated.
    let fan = d.indices_u32(&[0, 1, 3, 2]);
    // Non-indexed triangles (3 of the 5 positions would be a bad count: use a 3-vertex one).
    let tri = d.positions(&TRI);
    // Points and lines are skipped.
    let lines = d.indices_u16(&[0, 1, 1, 2]);
    d.mesh(&[
        (p, Some(strip), 5),
        (p, Some(fan), 6),
        (tri, None, 4),
        (p, Some(lines), 1),
        (p, None, 0),
        (p, None, 5), // a non-indexed strip: triangles (0 1 2), (1 3 2), (2 3 4)
    ]);
    d.node(json!({"mesh": 0}));
    d.node(json!({"mesh": 0, "translation": [0.0, 1.0, 0.0]}));
    d.scenes.push(json!({"nodes": [0, 1]}));
    let m = d.load().unwrap();
    let one: Vec<i32> = [
        vec![0, 1, 2, 1, 3, 2, 2, 3, 4],
        vec![5 + 1, 5 + 3, 5, 5 + 3, 5 + 2, 5],
        vec![10, 11, 12],
        vec![13, 14, 15, 14, 16, 15, 15, 16, 17],
    ]
    .concat();
    // Each primitive adds its vertices (5, 5, 3, 5 = 18), then the second instance again.
    assert_eq!(m.vert_count(), 36);
    let mut want = one.clone();
    want.extend(one.iter().map(|i| i + 18));
    assert_eq!(m.tris, want);
    for t in world_tris(&m) {
        assert!(faces_up(&t), "{t:?}");
    }
    assert_eq!(m.vertex(18 + 4).to_array(), [2.0, 1.0, 0.0]);
}

#[test]
fn scenes_are_chosen_by_default_index_or_name() {
    let mut d = Doc::default();
    let p = d.positions(&TRI);
    d.mesh(&[(p, None, 4)]);
    for y in [0.0, 1.0, 2.0] {
        d.node(json!({"mesh": 0, "translation": [0.0, y, 0.0]}));
    }
    d.scenes = vec![
        json!({"name": "low", "nodes": [0]}),
        json!({"name": "mid", "nodes": [1]}),
        json!({"name": "high", "nodes": [2]}),
    ];
    let y = |m: TriMesh| m.verts[1];
    // No `scene`: the first.
    assert_eq!(y(d.load().unwrap()), 0.0);
    d.extra.insert("scene".into(), json!(2));
    assert_eq!(y(d.load().unwrap()), 2.0);
    let with = |s: GltfScene| GltfOptions {
        scene: Some(s),
        ..GltfOptions::default()
    };
    assert_eq!(y(d.load_with(&with(GltfScene::Index(1))).unwrap()), 1.0);
    assert_eq!(
        y(d.load_with(&with(GltfScene::Name("low".into()))).unwrap()),
        0.0
    );
    let e = d.load_with(&with(GltfScene::Index(3))).unwrap_err();
    assert!(
        e.to_string().contains("no scene 3: the file has 3 scenes"),
        "{e}"
    );
    let e = d
        .load_with(&with(GltfScene::Name("roof".into())))
        .unwrap_err();
    assert!(e.to_string().contains("no scene is named `roof`"), "{e}");
    // No scenes at all: every root node (1 is 0's child here, so 0 and 2).
    d.extra.clear();
    d.scenes.clear();
    d.nodes[0]["children"] = json!([1]);
    let m = d.load().unwrap();
    assert_eq!(m.vert_count(), 9);
    assert_eq!([m.verts[1], m.verts[10], m.verts[19]], [0.0, 1.0, 2.0]);
}

#[test]
fn sparse_interleaved_and_quantized_positions() {
    let mut d = Doc::default();
    // Interleaved: position then 4 bytes of something else, stride 16.
    let mut bytes = Vec::new();
    for p in TRI {
        bytes.extend(p.iter().flat_map(|x| x.to_le_bytes()));
        bytes.extend([0xff; 4]);
    }
    let v = d.view(&bytes, Some(16));
    let a = d.accessor(
        json!({"bufferView": v, "componentType": 5126, "count": 3, "type": "VEC3",
        "sparse": {"count": 1,
            "indices": {"bufferView": 0, "componentType": 5121},
            "values": {"bufferView": 0, "byteOffset": 0}}}),
    );
    // Sparse: replace vertex 2 by (4, 5, 6).
    let idx = d.view(&[2], None);
    let val: Vec<u8> = [4.0f32, 5.0, 6.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let val = d.view(&val, None);
    d.accessors[a]["sparse"]["indices"]["bufferView"] = json!(idx);
    d.accessors[a]["sparse"]["values"]["bufferView"] = json!(val);
    // Quantized: normalized shorts (32767 = 1.0, -32768 clamps to -1.0).
    let q: Vec<u8> = [0i16, 0, 0, 32767, -32768, 16384]
        .iter()
        .chain(&[0, 0, 0])
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let qv = d.view(&q, None);
    let qa = d.accessor(json!({"bufferView": qv, "componentType": 5122, "normalized": true, "count": 3, "type": "VEC3"}));
    d.mesh(&[(a, None, 4), (qa, None, 4)]);
    d.node(json!({"mesh": 0}));
    d.scenes.push(json!({"nodes": [0]}));
    let m = d.load().unwrap();
    assert_eq!(
        m.verts,
        [
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            1.0,
            4.0,
            5.0,
            6.0, //
            0.0,
            0.0,
            0.0,
            1.0,
            -1.0,
            (16384.0f64 / 32767.0) as f32,
            0.0,
            0.0,
            0.0
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Errors.

/// The error of loading `d` (GLB and embedded agree), as text.
fn fails(d: &Doc) -> String {
    match d.load() {
        Ok(m) => panic!("loaded {m:?}"),
        Err(e) => {
            assert!(
                matches!(e, Error::Parse { .. } | Error::Geometry(_)),
                "{e:?}"
            );
            e.to_string()
        }
    }
}

fn expect(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "`{msg}` does not say `{p}`");
    }
}

#[test]
fn malformed_documents_are_errors_that_say_where() {
    // Index out of range.
    let mut d = one_triangle(json!({}));
    d.accessors[1] = json!({"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"});
    let bad: Vec<u8> = [0u16, 1, 7].iter().flat_map(|x| x.to_le_bytes()).collect();
    let v = d.view(&bad, None);
    d.accessors[1]["bufferView"] = json!(v);
    expect(
        &fails(&d),
        &[
            "t.glb: mesh 0",
            "mesh 0 primitive 0 (node 0): indices",
            "element 2 is vertex 7",
            "POSITION has 3",
        ],
    );

    // Accessor past the end of its view; absurd count.
    let mut d = one_triangle(json!({}));
    d.accessors[0]["count"] = json!(4);
    expect(
        &fails(&d),
        &[
            "POSITION: accessor 0",
            "4 elements of 12 bytes",
            "past the end of buffer view 0 (36 bytes)",
        ],
    );
    d.accessors[0]["count"] = json!(1u64 << 60);
    expect(&fails(&d), &["past the end of buffer view 0"]);
    d.accessors[0]["count"] = json!(3);
    d.accessors[0]["byteOffset"] = json!(u64::MAX);
    assert!(!fails(&d).is_empty());

    // View past the end of the buffer.
    let mut d = one_triangle(json!({}));
    d.views[0]["byteLength"] = json!(4000);
    expect(
        &fails(&d),
        &["buffer view 0 (bytes 0..+4000) ends past the end of buffer 0"],
    );

    // NaN and infinite positions.
    for bad in [f32::NAN, f32::INFINITY] {
        let mut d = one_triangle(json!({}));
        d.bin[4..8].copy_from_slice(&bad.to_le_bytes());
        expect(
            &fails(&d),
            &["POSITION: accessor 0 element 0 has a non-finite coordinate"],
        );
    }
    // A transform that overflows f32.
    let mut d = one_triangle(json!({"scale": [1e30, 1e30, 1e30]}));
    d.node(json!({"scale": [1e30, 1e30, 1e30], "children": [0]}));
    d.scenes = vec![json!({"nodes": [1]})];
    expect(
        &fails(&d),
        &["mesh 0 primitive 0 (node 0): a vertex is not finite in world space"],
    );
    let d = one_triangle(json!({"rotation": [0.0, 0.0, 0.0, 2.0]}));
    expect(
        &fails(&d),
        &["node 0: the rotation quaternion has length 2"],
    );

    // Cyclic node graphs and a child of two parents.
    let mut d = one_triangle(json!({"children": [1]}));
    d.node(json!({"children": [0]}));
    expect(&fails(&d), &["node 0 is reached twice"]);
    let mut d = one_triangle(json!({}));
    d.node(json!({"children": [0]}));
    d.node(json!({"children": [0]}));
    d.scenes = vec![json!({"nodes": [1, 2]})];
    expect(&fails(&d), &["node 0 is reached twice"]);
    let mut d = one_triangle(json!({"children": [0]}));
    d.scenes = vec![json!({"nodes": [0]})];
    expect(&fails(&d), &["node 0 is reached twice"]);

    // References to things that do not exist (the gltf crate's validation, with the path).
    let mut d = one_triangle(json!({}));
    d.nodes[0]["mesh"] = json!(5);
    expect(&fails(&d), &["invalid glTF: nodes[0].mesh"]);
    // Fuzz find: the gltf crate's validation indexed `accessors` with an out-of-range
    // POSITION and panicked.
    let mut d = one_triangle(json!({}));
    d.meshes[0]["primitives"][0]["attributes"]["POSITION"] = json!(7);
    expect(
        &fails(&d),
        &[
            r#"meshes[0].primitives[0].attributes["POSITION"] is accessor 7, but the file has 2 accessors"#,
        ],
    );
    let mut d = one_triangle(json!({}));
    d.accessors[0]["componentType"] = json!(9999);
    expect(&fails(&d), &["invalid glTF", "accessors[0]"]);

    // Triangles whose corner count is not a multiple of 3; no triangles at all.
    let mut d = Doc::default();
    let p = d.positions(&[TRI[0], TRI[1], TRI[2], TRI[0]]);
    d.mesh(&[(p, None, 4)]);
    d.node(json!({"mesh": 0}));
    d.scenes.push(json!({"nodes": [0]}));
    expect(&fails(&d), &["4 triangle corners is not a multiple of 3"]);
    d.meshes[0]["primitives"][0]["mode"] = json!(1);
    expect(&fails(&d), &["empty mesh: the scene has no triangles"]);

    // Unsupported: required extensions, skins, morph targets in use, sparse indices.
    let mut d = one_triangle(json!({}));
    d.extra.insert(
        "extensionsRequired".into(),
        json!(["KHR_draco_mesh_compression"]),
    );
    d.extra.insert(
        "extensionsUsed".into(),
        json!(["KHR_draco_mesh_compression"]),
    );
    expect(
        &fails(&d),
        &["requires the glTF extension `KHR_draco_mesh_compression`"],
    );
    let mut d = one_triangle(json!({}));
    d.meshes[0]["primitives"][0]["targets"] = json!([{"POSITION": 0}]);
    assert_eq!(
        d.load().unwrap().tri_count(),
        1,
        "zero weights: the modelled mesh"
    );
    d.meshes[0]["weights"] = json!([0.5]);
    expect(
        &fails(&d),
        &["morph targets with non-zero weights are not supported"],
    );
    d.nodes[0]["weights"] = json!([0.0]);
    assert_eq!(d.load().unwrap().tri_count(), 1, "the node's weights win");

    // Limits.
    let d = one_triangle(json!({}));
    let small = GltfOptions {
        max_vertices: 2,
        ..GltfOptions::default()
    };
    let e = d.load_with(&small).unwrap_err().to_string();
    expect(&e, &["accessor 0 has 3 vertices", "limit of 2 vertices"]);
    let small = GltfOptions {
        max_triangles: 0,
        ..GltfOptions::default()
    };
    let e = d.load_with(&small).unwrap_err().to_string();
    expect(
        &e,
        &["indices: accessor 1 has 3 indices, over the limit of 0 triangles"],
    );
}

#[test]
fn broken_containers_and_json_are_errors() {
    let d = one_triangle(json!({}));
    let glb = d.glb();
    let load = |b: &[u8]| {
        TriMesh::from_gltf_slice(b, None, "x.glb".as_ref(), &GltfOptions::default())
            .unwrap_err()
            .to_string()
    };
    // Every truncation of a GLB is an error, never a panic.
    for n in 0..glb.len() {
        let e = load(&glb[..n]);
        assert!(e.starts_with("x.glb:"), "{n}: {e}");
    }
    expect(&load(&glb[..8]), &["shorter than its 12-byte header"]);
    expect(&load(&glb[..100]), &["GLB header gives a length of"]);
    let mut v = glb.clone();
    v[4] = 1;
    expect(&load(&v), &["GLB version 1"]);
    let mut v = glb.clone();
    v[8..12].copy_from_slice(&3u32.to_le_bytes());
    expect(&load(&v), &["length of 3 bytes"]);
    // The GLB's binary chunk shorter than the buffer's byteLength.
    let mut j = d.json(None);
    j["buffers"][0]["byteLength"] = json!(d.bin.len() + 100);
    expect(
        &load(&Doc::glb_of(&j, &d.bin)),
        &["buffer 0 has byteLength", "but only"],
    );
    // No binary chunk.
    let j = d.json(None);
    let mut no_bin = Doc::glb_of(&j, &[]);
    let json_len = u32::from_le_bytes(no_bin[12..16].try_into().unwrap()) as usize;
    no_bin.truncate(20 + json_len);
    let total = no_bin.len() as u32;
    no_bin[8..12].copy_from_slice(&total.to_le_bytes());
    expect(
        &load(&no_bin),
        &["buffer 0 has no uri and the file has no GLB binary chunk"],
    );
    // Bad JSON: the line is given.
    let e = TriMesh::from_gltf_slice(
        b"{\n\"asset\": {\"version\": \"2.0\"},\n\"nodes\": [,]\n}",
        None,
        "x.gltf".as_ref(),
        &GltfOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, Error::Parse { line: 3, .. }), "{e:?}");
    expect(&e.to_string(), &["x.gltf:3: not valid glTF JSON"]);
    // Bad base64.
    let mut j = d.json(Some("data:application/octet-stream;base64,@@@@".into()));
    let e = TriMesh::from_gltf_slice(
        j.to_string().as_bytes(),
        None,
        "x.gltf".as_ref(),
        &Default::default(),
    )
    .unwrap_err();
    expect(&e.to_string(), &["buffer 0: bad base64 data"]);
    j["buffers"][0]["uri"] = json!("data:text/plain,hello");
    let e = TriMesh::from_gltf_slice(
        j.to_string().as_bytes(),
        None,
        "x.gltf".as_ref(),
        &Default::default(),
    )
    .unwrap_err();
    expect(&e.to_string(), &["data URI must be base64"]);
}

#[test]
fn external_buffers_stay_inside_the_level_folder() {
    let root = temp_dir("outside");
    let dir = root.join("level");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let d = one_triangle(json!({}));
    std::fs::write(root.join("secret.bin"), &d.bin).unwrap();
    std::fs::write(dir.join("sub/tri data.bin"), &d.bin).unwrap();
    let write = |name: &str, uri: &str| {
        let p = dir.join(name);
        std::fs::write(&p, d.json(Some(uri.into())).to_string()).unwrap();
        p
    };
    // Inside, in a subfolder, percent-encoded: fine, and the same as the GLB.
    let ok = TriMesh::load(write("ok.gltf", "sub/tri%20data.bin")).unwrap();
    assert_eq!(ok.verts, d.load().unwrap().verts);
    assert_eq!(ok.source, Some(dir.join("ok.gltf")));
    for (uri, what) in [
        ("../secret.bin", "not a file inside the level's folder"),
        (
            "sub/../../secret.bin",
            "not a file inside the level's folder",
        ),
        ("%2e%2e/secret.bin", "not a file inside the level's folder"),
        (
            root.join("secret.bin").to_str().unwrap(),
            "not a file inside the level's folder",
        ),
        ("file:///etc/passwd", "has a scheme"),
        ("http://example.com/x.bin", "has a scheme"),
        ("..\\secret.bin", "not a file inside the level's folder"),
    ] {
        let p = write("bad.gltf", uri);
        let e = TriMesh::load(&p).unwrap_err();
        assert!(matches!(e, Error::Parse { .. }), "{uri}: {e:?}");
        expect(
            &e.to_string(),
            &[&format!("{}: buffer 0", p.display()), what],
        );
    }
    // A symbolic link inside the folder that points outside it.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root.join("secret.bin"), dir.join("link.bin")).unwrap();
        let e = TriMesh::load(write("link.gltf", "link.bin")).unwrap_err();
        expect(
            &e.to_string(),
            &["resolves to", "outside the level's folder"],
        );
    }
    // A missing file is an I/O error naming it.
    let e = TriMesh::load(write("missing.gltf", "nowhere.bin")).unwrap_err();
    assert!(
        matches!(&e, Error::Io { path, .. } if path.ends_with("nowhere.bin")),
        "{e:?}"
    );
    // Bytes without a folder cannot name files.
    let e = TriMesh::from_gltf_slice(
        d.json(Some("a.bin".into())).to_string().as_bytes(),
        None,
        "x.gltf".as_ref(),
        &GltfOptions::default(),
    )
    .unwrap_err();
    expect(&e.to_string(), &["without a folder"]);
    // The .gset `f` line error names the mesh file.
    std::fs::write(dir.join("l.gset"), "f bad.gltf\n").unwrap();
    let e = InputGeometry::load(dir.join("l.gset"))
        .unwrap_err()
        .to_string();
    expect(&e, &["l.gset:1:", "bad.gltf"]);
}

#[test]
fn load_dispatches_on_the_extension() {
    let dir = temp_dir("dispatch");
    let mesh = TriMesh::new(TRI.iter().flatten().copied().collect(), vec![0, 1, 2]).unwrap();
    mesh.write_gltf(dir.join("A.GLB")).unwrap();
    assert_eq!(TriMesh::load(dir.join("A.GLB")).unwrap().tris, [0, 1, 2]);
    let e = mesh.write_gltf(dir.join("a.obj")).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    let e = TriMesh::load(dir.join("a.fbx")).unwrap_err().to_string();
    expect(&e, &["unsupported mesh file type"]);
}

#[test]
fn the_fuzz_seeds_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/gltf");
    for (name, tris, verts) in [
        ("quad", 2, 4),
        // Two instances (TRS; a mirroring matrix) of a strip of 8 (6 triangles) and a fan
        // of 6 (4 triangles) over the same 8 positions; the lines and points are skipped.
        ("nodes", 20, 32),
        // Sparse + interleaved, and quantized (KHR_mesh_quantization), both non-indexed.
        ("sparse", 2, 6),
    ] {
        for ext in ["glb", "gltf"] {
            let m = TriMesh::load(dir.join(format!("{name}.{ext}"))).unwrap();
            assert_eq!(
                (m.tri_count(), m.vert_count()),
                (tris, verts),
                "{name}.{ext}"
            );
            for t in world_tris(&m) {
                assert!(faces_up(&t), "{name}.{ext}: {t:?}");
            }
        }
    }
    let m = TriMesh::load(dir.join("sparse.glb")).unwrap();
    assert_eq!(&m.verts[6..9], [4.0, 0.0, 6.0]);
    assert_eq!(
        &m.verts[9..],
        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, -1.0]
    );
}
