//! The streaming OBJ reader (`TriMesh::from_obj`): the same arrays and the same errors as the
//! reader it replaced (kept in `common/old_obj.rs`, parsing with tobj) on every OBJ in
//! ../shared/meshes, ../shared/hostile and the repository, on generated terrains and on random
//! OBJ-like text; edge cases with their expected result or file:line error.

mod common;
#[path = "common/obj_gen.rs"]
mod obj_gen;
#[path = "common/old_obj.rs"]
mod old_obj;

use navkit::{Error, TriMesh};
use rand::{Rng, SeedableRng};
use std::path::Path;

/// `new` and `old` are the same result: bit-equal vertices and equal triangles, or the same
/// error.
fn assert_same(new: &navkit::Result<TriMesh>, old: &navkit::Result<TriMesh>, what: &str) {
    match (new, old) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.verts.len(), b.verts.len(), "{what}: vertex count");
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert!(bits(&a.verts) == bits(&b.verts), "{what}: vertices differ");
            assert!(a.tris == b.tris, "{what}: triangles differ");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
        (a, b) => panic!(
            "{what}: new {:?} old {:?}",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
}

#[test]
fn every_shared_and_repository_mesh_reads_as_before() {
    let files = common::shared_and_repository_objs();
    assert!(files.len() >= 7, "{files:?}");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let old = old_obj::parse_obj(&String::from_utf8_lossy(&bytes), f);
        let new = TriMesh::from_obj(f);
        assert!(new.is_ok(), "{}: {:?}", f.display(), new.err());
        assert_same(&new, &old, &f.display().to_string());
        assert_eq!(new.as_ref().unwrap().source.as_deref(), Some(f.as_path()));
        assert_same(&TriMesh::from_obj_bytes(&bytes, f), &old, "bytes");
    }
}

#[test]
fn generated_terrains_read_as_before_and_as_built() {
    let dir = common::temp("obj_loader");
    std::fs::create_dir_all(&dir).unwrap();
    for cells in [1, 2, 3, 40, 301] {
        let path = dir.join(format!("grid{cells}.obj"));
        obj_gen::write_grid_obj(&path, cells).unwrap();
        let mesh = TriMesh::from_obj(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_same(&Ok(mesh.clone()), &old_obj::parse_obj(&text, &path), "grid");
        // Known answers: (cells + 1)^2 vertices on the 0.5 grid, 2 cells^2 triangles, each
        // cell's two triangles covering its four corners.
        let n = cells + 1;
        assert_eq!(
            (mesh.vert_count(), mesh.tri_count()),
            (n * n, 2 * cells * cells)
        );
        for (k, v) in mesh.verts.chunks(3).enumerate() {
            let (i, j) = (k % n, k / n);
            assert_eq!(
                (v[0], v[2]),
                (i as f32 * 0.5 - 100.0, j as f32 * 0.5 - 100.0)
            );
        }
        for (c, t) in mesh.tris.chunks(6).enumerate() {
            let a = ((c / cells) * n + c % cells) as i32;
            let mut got = t.to_vec();
            got.sort();
            got.dedup();
            assert_eq!(got, [a, a + 1, a + n as i32, a + n as i32 + 1], "cell {c}");
        }
    }
}

/// Expects `text` to read as `verts` (count) and `tris`, or to fail at `line` (0: a Geometry
/// error) with a message containing `what`; and the old reader to agree.
fn check(text: &[u8], expect: std::result::Result<(usize, &[i32]), (usize, &str)>) {
    let p = Path::new("edge.obj");
    let new = TriMesh::from_obj_bytes(text, p);
    assert_same(
        &new,
        &old_obj::parse_obj(&String::from_utf8_lossy(text), p),
        &format!("{text:?}"),
    );
    match (new, expect) {
        (Ok(m), Ok((nv, tris))) => {
            assert_eq!((m.vert_count(), &m.tris[..]), (nv, tris), "{text:?}")
        }
        (
            Err(Error::Parse {
                path,
                line,
                message,
            }),
            Err((l, what)),
        ) => {
            assert_eq!((path.as_path(), line), (p, l), "{text:?}: {message}");
            assert!(message.contains(what), "{text:?}: {message}");
        }
        (Err(Error::Geometry(m)), Err((0, what))) => {
            assert!(
                m.starts_with("edge.obj: ") && m.contains(what),
                "{text:?}: {m}"
            )
        }
        (got, want) => panic!("{text:?}: got {got:?}, expected {want:?}"),
    }
}

#[test]
fn edge_cases() {
    let tri: &[i32] = &[0, 1, 2];
    // No newline at the end, CRLF, tabs and other whitespace.
    check(b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3", Ok((3, tri)));
    check(
        b"v 0 0 0\r\nv 1 0 0\r\nv 0 0 1\r\nf 1 2 3\r\n",
        Ok((3, tri)),
    );
    check(
        b"v 0 0 0\r\nv 1 0 0\r\nv 0 x 1\r\nf 1 2 3\r\n",
        Err((3, "`x` is not a number")),
    );
    check(
        b"\tv\t0 0\t0\nv 1\x0b0 0\x0c\nv  0 0 1 \n \t f\t1 2\t3\t",
        Ok((3, tri)),
    );
    // Non-ASCII whitespace (U+00A0, U+3000) separates words as str::split_whitespace does.
    check(
        "v 0\u{a0}0 0\nv 1 0 0\nv\u{3000}0 0 1\nf 1 2 3".as_bytes(),
        Ok((3, tri)),
    );
    // Corners with texture and normal indices; relative indices; quads fan out.
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nvt 0 0\nvn 0 1 0\nf 1/1/1 2//1 3/1\n",
        Ok((3, tri)),
    );
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nv 1 0 1\nf -4 -3 -1 -2\n",
        Ok((4, &[0, 1, 3, 0, 3, 2])),
    );
    check(b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf +1 +2 +3\n", Ok((3, tri)));
    // Vertex colours and w ignored; a vertex after the last face kept.
    check(
        b"v 0 0 0 1 0 0\nv 1 0 0 1\nv 0 0 1\nf 1 2 3\nv 9 9 9\n",
        Ok((4, tri)),
    );
    // Indices out of range, huge, zero, malformed.
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4294967299\n",
        Err((4, "vertex 4294967299")),
    );
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 -9223372036854775808\n",
        Err((4, "vertex -9223372036854775808")),
    );
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 9223372036854775808\n",
        Err((4, "invalid face vertex `9223372036854775808`")),
    );
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 -0\n",
        Err((4, "index 0")),
    );
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3x\n",
        Err((4, "invalid face vertex `3x`")),
    );
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 - 3\n",
        Err((4, "invalid face vertex `-`")),
    );
    // Too few corners: no triangle (alone: no triangles at all).
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2\nf\nf 3\nf 1 2 3\n",
        Ok((3, tri)),
    );
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2\n",
        Err((0, "no triangles")),
    );
    // Garbage numbers.
    check(b"v 0 0 0\nv 1 2 3abc\n", Err((2, "`3abc` is not a number")));
    check(b"v 0 0 0\nv 1e 0 0\n", Err((2, "`1e` is not a number")));
    check(b"v 0 0 0\nv 1,5 0 0\n", Err((2, "not a number")));
    check(b"v 1e39 0 0\n", Err((1, "`1e39` is not finite")));
    check(b"v -NaN 0 0\n", Err((1, "not finite")));
    check(b"v 0 0 \xff\n", Err((1, "`\u{fffd}` is not a number")));
    // Nothing to read.
    check(b"", Err((0, "no vertices")));
    check(b"\n\r\n\t\n", Err((0, "no vertices")));
    check(
        b"# a comment\n#v 1 2 3\n   # another\n",
        Err((0, "no vertices")),
    );
    check(b"# only\r\n# comments\r\n", Err((0, "no vertices")));
    // Comments after a face, numbers after them an error.
    check(b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3 #x\n", Ok((3, tri)));
    check(
        b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3 # x -2\n",
        Err((4, "after a `#`")),
    );
    // A line far longer than the reader's chunk (256 KiB), as the last line without a newline,
    // of up to 32 corners (as many as RecastDemo, and the old reader, read of a face), then
    // padding: `0 1 2 0 1 2 ...`, fanned from the first.
    let mut long = b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf".to_vec();
    long.extend(b" 1 2 3".repeat(10));
    long.extend(b" 1 2\t");
    long.extend(std::iter::repeat_n(b' ', 900_000));
    let corners: Vec<i32> = (0..32).map(|i| i % 3).collect();
    let fan: Vec<i32> = (2..32)
        .flat_map(|i| [0, corners[i - 1], corners[i]])
        .collect();
    check(&long, Ok((3, &fan)));
}

/// What the old reader (and RecastDemo) did wrong, done right: faces of more than 32 corners
/// read whole (with a warning), where the old reader dropped the corners after the 32nd; a
/// line longer than 1 MiB refused, where the old reader read it all.
#[test]
fn long_faces_and_lines_as_the_old_reader_did_not() {
    let p = Path::new("long.obj");
    let mut face = b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf".to_vec();
    face.extend(b" 1 2 3".repeat(170_000)); // 1,020,001 bytes: under the limit.
    let old = old_obj::parse_obj(&String::from_utf8_lossy(&face), p).unwrap();
    assert_eq!(old.tri_count(), 30);
    let new = TriMesh::from_obj_bytes(&face, p).unwrap();
    // 510,000 corners `0 1 2 0 1 2 ...`: 509,998 triangles, fanned from the first.
    assert_eq!(new.tri_count(), 509_998);
    assert!(
        new.tris
            .chunks(3)
            .enumerate()
            .all(|(i, t)| t == [0, ((i + 1) % 3) as i32, ((i + 2) % 3) as i32])
    );
    assert_eq!(new.warnings.len(), 1, "{:?}", new.warnings);
    assert_eq!(TriMesh::from_obj_reader(&face[..], p).unwrap(), new);
    face.extend(b" 1 2 3".repeat(5_000)); // 1,050,001 bytes: over.
    for err in [
        TriMesh::from_obj_bytes(&face, p).unwrap_err(),
        TriMesh::from_obj_reader(&face[..], p).unwrap_err(),
    ] {
        assert!(
            matches!(&err, Error::Parse { line: 4, message, .. }
                if message.starts_with("line longer than 1048576 bytes (the limit): `f 1 2 3 1 2 3")),
            "{err}"
        );
    }
    assert!(old_obj::parse_obj(&String::from_utf8_lossy(&face), p).is_ok());
}

#[test]
fn files_read_as_their_bytes_do() {
    // The reader streams the file in chunks: lines across chunk boundaries, a last line
    // without newline, and errors name the file and the line.
    let dir = common::temp("obj_loader_files");
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::new();
    for i in 0..40_000 {
        text += &format!("v {} {}.25 -{}\r\n", i, i % 7, i as f32 / 3.0);
        if i >= 2 {
            text += &format!("f {} {} -1\t# tri\n", i - 1, i);
        }
    }
    let path = dir.join("chunks.obj");
    std::fs::write(&path, &text).unwrap();
    let from_file = TriMesh::from_obj(&path).unwrap();
    let from_text = TriMesh::from_obj_str(&text, &path).unwrap();
    assert_same(&Ok(from_file.clone()), &Ok(from_text), "file vs text");
    assert_same(
        &Ok(from_file),
        &old_obj::parse_obj(&text, &path),
        "file vs old",
    );
    text += "v 1 2 oops";
    std::fs::write(&path, &text).unwrap();
    match TriMesh::from_obj(&path) {
        Err(Error::Parse {
            path: p,
            line,
            message,
        }) => {
            assert_eq!((p, line), (path.clone(), 40_000 * 2 - 2 + 1), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// Gives `ok` bytes, then fails.
struct Failing<'a>(&'a [u8]);

impl std::io::Read for Failing<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() {
            return Err(std::io::Error::other("disk on fire"));
        }
        let n = out.len().min(self.0.len()).min(5);
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn readers_stream_and_report_read_errors() {
    let text = b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n";
    let p = Path::new("stream.obj");
    let mesh = TriMesh::from_obj_reader(&text[..], p).unwrap();
    assert_eq!(
        (mesh.verts.len(), &mesh.tris[..], mesh.source),
        (9, &[0, 1, 2][..], None)
    );
    match TriMesh::from_obj_reader(Failing(text), p) {
        Err(Error::Io { path, source }) => {
            assert_eq!(
                (path.as_path(), source.to_string()),
                (p, "disk on fire".into())
            )
        }
        other => panic!("{other:?}"),
    }
}

/// Random OBJ-like text: mostly valid `v` and `f` lines, now and then a malformed number,
/// an index out of range, a comment, odd whitespace or bytes.
fn random_obj(rng: &mut impl Rng) -> Vec<u8> {
    let good_nums = [
        "0", "1", "-1", "0.5", "-.25", "12.75", "3.", "1e3", "+4", "-0",
    ];
    let good_idx = [
        "1", "2", "3", "-1", "-2", "1/2", "2//3", "3/1/1", "+2", "#", "#1",
    ];
    let bad = [
        "1e40",
        "nan",
        "x",
        "/1",
        "0",
        "99999999999999999999",
        "9",
        "-9",
        "",
        "0x1",
        "1..2",
    ];
    let kws = [
        "v", "v", "v", "f", "f", "f", "vt", "vn", "#", "o", "g", "vp", "fo", "l", "#v",
    ];
    let spaces: [&[u8]; 7] = [
        b" ",
        b" ",
        b"\t",
        b"\r",
        b"\x0b",
        "\u{a0}".as_bytes(),
        b"\xff",
    ];
    let mut out = Vec::new();
    for line in 0..rng.gen_range(0..14) {
        if rng.gen_bool(0.1) {
            out.extend(spaces[rng.gen_range(0..spaces.len())]);
        }
        let kw = if line < 3 {
            "v"
        } else {
            kws[rng.gen_range(0..kws.len())]
        };
        out.extend(kw.as_bytes());
        let good: &[&str] = if kw == "f" { &good_idx } else { &good_nums };
        for _ in 0..rng.gen_range(if kw == "v" { 3..5 } else { 0..8 }) {
            let kinds = if rng.gen_bool(0.95) { 3 } else { spaces.len() };
            out.extend(spaces[rng.gen_range(0..kinds)]);
            let w = if rng.gen_bool(0.97) {
                good[rng.gen_range(0..good.len())]
            } else {
                bad[rng.gen_range(0..bad.len())]
            };
            out.extend(w.as_bytes());
        }
        out.extend(if rng.gen_bool(0.2) {
            &b"\r\n"[..]
        } else {
            b"\n"
        });
    }
    out
}

#[test]
fn random_text_reads_as_before() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(12);
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..20_000 {
        let text = random_obj(&mut rng);
        let p = Path::new("r.obj");
        let new = TriMesh::from_obj_bytes(&text, p);
        let old = old_obj::parse_obj(&String::from_utf8_lossy(&text), p);
        assert_same(&new, &old, &format!("{:?}", String::from_utf8_lossy(&text)));
        if new.is_ok() { ok += 1 } else { failed += 1 }
    }
    // Both outcomes are well represented.
    assert!(ok > 500 && failed > 500, "{ok} read, {failed} refused");
}
