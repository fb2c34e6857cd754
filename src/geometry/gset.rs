//! RecastDemo's `.gset` geometry sets: a mesh path plus build settings, off-mesh connections
//! and convex volumes, read and written.

use super::paths::{LoadOptions, folder_of, resolve_named_file};
use super::{
    ConvexVolume, InputGeometry, MAX_AREA, MAX_CONVEX_VOLUME_VERTS, MAX_CONVEX_VOLUMES,
    MAX_OFF_MESH_CONNECTIONS, OffMeshConnection, TriMesh, TrianglePicker,
};
use crate::Aabb;
use crate::settings::{BuildSettings, Partition};
use crate::text::{LineReader, quote};
use crate::{Error, Result};
use glam::Vec3;
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::Path;

/// The 21 values of a `.gset` `s` line, for error messages.
const SETTING_NAMES: [&str; 21] = [
    "cellSize",
    "cellHeight",
    "agentHeight",
    "agentRadius",
    "agentMaxClimb",
    "agentMaxSlope",
    "regionMinSize",
    "regionMergeSize",
    "edgeMaxLen",
    "edgeMaxError",
    "vertsPerPoly",
    "detailSampleDist",
    "detailSampleMaxError",
    "partitionType",
    "navMeshBMin.x",
    "navMeshBMin.y",
    "navMeshBMin.z",
    "navMeshBMax.x",
    "navMeshBMax.y",
    "navMeshBMax.z",
    "tileSize",
];

fn parse_f32(tok: &str, what: &str) -> std::result::Result<f32, String> {
    match tok.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(format!("{what} `{tok}` is not finite")),
        Err(_) => Err(format!("{what} `{}` is not a number", quote(tok))),
    }
}

fn parse_int(tok: &str, what: &str, min: i64, max: i64) -> std::result::Result<i64, String> {
    match tok.parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        Ok(v) => Err(format!("{what} {v} is out of range {min}..={max}")),
        Err(_) => Err(format!("{what} `{}` is not an integer", quote(tok))),
    }
}

fn parse_vec3(toks: &[&str], what: &str) -> std::result::Result<Vec3, String> {
    Ok(Vec3::new(
        parse_f32(toks[0], what)?,
        parse_f32(toks[1], what)?,
        parse_f32(toks[2], what)?,
    ))
}

/// Loads the mesh of a `.gset` `f` line naming `name`, in the `.gset`'s folder `dir` or, if
/// nothing is there, in its parent (RecastDemo writes paths like `Meshes/x.obj`, relative to
/// its working directory, one level above `Meshes/` where it keeps its `.gset` files); unless
/// `options` allow more, the mesh must lie inside `dir`. Errors are messages for that line.
fn load_gset_mesh(
    dir: &Path,
    name: &str,
    options: &LoadOptions,
    picker: Option<&mut dyn TrianglePicker>,
) -> std::result::Result<TriMesh, String> {
    if name.is_empty() {
        return Err("`f` line without a mesh path".into());
    }
    let mut candidates = vec![(dir.to_path_buf(), dir.to_path_buf())];
    if let Some(parent) = dir.parent() {
        let parent = if parent.as_os_str().is_empty() {
            Path::new("..")
        } else {
            parent
        };
        candidates.push((parent.to_path_buf(), dir.to_path_buf()));
    }
    let p = resolve_named_file(name, &candidates, options)?;
    let mesh = match picker {
        Some(picker) => TriMesh::load_picked(&p, picker),
        None => TriMesh::load(&p),
    };
    mesh.map_err(|e| match e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            format!("mesh file `{}` not found", p.display())
        }
        other => format!("cannot load mesh `{}`: {other}", p.display()),
    })
}

/// The 21 values of a `.gset` `s` line, in file order (the partition code as a float): the
/// first 13 are [`BuildSettings::FIELDS`] in its order.
fn settings_values(
    s: &BuildSettings,
    Aabb {
        min: bmin,
        max: bmax,
    }: Aabb,
) -> [f32; 21] {
    let mut v = [0f32; 21];
    for (slot, field) in v.iter_mut().zip(&BuildSettings::FIELDS[..13]) {
        *slot = (field.get)(s);
    }
    v[13] = s.partition.code() as f32;
    v[14..17].copy_from_slice(&bmin.to_array());
    v[17..20].copy_from_slice(&bmax.to_array());
    v[20] = s.tile_size as f32;
    v
}

/// A count stored as a float in `.gset` files (`vertsPerPoly`, `tileSize`), converted as
/// RecastDemo does (`(int)value`, towards zero); negative or non-finite values are errors.
fn whole(v: f32, what: &str) -> std::result::Result<u32, String> {
    if v.is_finite() && (0.0..=u32::MAX as f32).contains(&v) {
        Ok(v as u32)
    } else {
        Err(format!("{what} must be a finite number >= 0, not {v}"))
    }
}

fn parse_settings(toks: &[&str]) -> std::result::Result<BuildSettings, String> {
    if toks.len() != 21 {
        return Err(format!(
            "settings (`s`) line has {} values, expected 21",
            toks.len()
        ));
    }
    let mut v = [0f32; 21];
    for (k, t) in toks.iter().enumerate().filter(|(k, _)| *k != 13) {
        v[k] = parse_f32(t, SETTING_NAMES[k])?;
    }
    let code = parse_int(toks[13], "partitionType", i32::MIN.into(), i32::MAX.into())?;
    let partition = Partition::from_code(code as i32).ok_or_else(|| {
        format!("unknown partitionType {code} (0 watershed, 1 monotone, 2 layers)")
    })?;
    let vec = |i: usize| Vec3::new(v[i], v[i + 1], v[i + 2]);
    Ok(BuildSettings {
        cell_size: v[0],
        cell_height: v[1],
        agent_height: v[2],
        agent_radius: v[3],
        agent_max_climb: v[4],
        agent_max_slope: v[5],
        region_min_size: v[6],
        region_merge_size: v[7],
        edge_max_len: v[8],
        edge_max_error: v[9],
        verts_per_poly: whole(v[10], SETTING_NAMES[10])?,
        detail_sample_dist: v[11],
        detail_sample_max_error: v[12],
        partition,
        bounds: Some(Aabb::new(vec(14), vec(17))),
        tile_size: whole(v[20], SETTING_NAMES[20])?,
        ..BuildSettings::default()
    })
}

fn parse_connection(toks: &[&str], user_id: u32) -> std::result::Result<OffMeshConnection, String> {
    if toks.len() != 8 && toks.len() != 10 {
        let n = toks.len();
        return Err(format!(
            "off-mesh connection (`c`) line has {n} values, expected 10 (or 8)"
        ));
    }
    let radius = parse_f32(toks[6], "radius")?;
    if radius <= 0.0 {
        return Err(format!("off-mesh connection radius {radius} must be > 0"));
    }
    let (area, flags) = match toks.len() {
        10 => (
            parse_int(toks[8], "area", 0, MAX_AREA)?,
            parse_int(toks[9], "flags", 0, 0xffff)?,
        ),
        _ => (0, 0),
    };
    Ok(OffMeshConnection {
        start: parse_vec3(&toks[0..3], "start coordinate")?,
        end: parse_vec3(&toks[3..6], "end coordinate")?,
        radius,
        bidirectional: parse_int(toks[7], "bidir", 0, 1)? == 1,
        area: area as u8,
        flags: flags as u16,
        user_id,
    })
}

/// A volume without points from a `v nverts area hmin hmax` line, and `nverts`.
fn parse_volume_header(toks: &[&str]) -> std::result::Result<(ConvexVolume, usize), String> {
    if toks.len() != 4 {
        return Err(format!(
            "convex volume (`v`) line has {} values, expected 4",
            toks.len()
        ));
    }
    let max = MAX_CONVEX_VOLUME_VERTS as i64;
    let n = parse_int(toks[0], "convex volume point count", 3, max)? as usize;
    let area = parse_int(toks[1], "area", 0, MAX_AREA)? as u8;
    let (hmin, hmax) = (parse_f32(toks[2], "hmin")?, parse_f32(toks[3], "hmax")?);
    if hmin > hmax {
        return Err(format!("convex volume hmin {hmin} > hmax {hmax}"));
    }
    let verts = Vec::with_capacity(n);
    Ok((
        ConvexVolume {
            verts,
            hmin,
            hmax,
            area,
        },
        n,
    ))
}

/// The lines of a `.gset` that say something (blank lines and `#` comments skipped), trimmed,
/// with their numbers.
struct GsetLines<R> {
    lines: LineReader<R>,
}

impl<R: BufRead> GsetLines<R> {
    fn next(&mut self) -> Result<Option<(usize, String)>> {
        while let Some((n, raw)) = self.lines.next_line()? {
            let text = String::from_utf8_lossy(raw);
            let line = text.trim();
            if !line.is_empty() && !line.starts_with('#') {
                return Ok(Some((n, line.to_string())));
            }
        }
        Ok(None)
    }
}

/// The `n` point lines of the convex volume `vol` whose `v` line is line `ln`.
fn read_volume_points<R: BufRead>(
    lines: &mut GsetLines<R>,
    mut vol: ConvexVolume,
    n: usize,
    ln: usize,
    gset_path: &Path,
) -> Result<ConvexVolume> {
    let perr = |line: usize, msg: String| Error::parse(gset_path, line, msg);
    while vol.verts.len() < n {
        let Some((pl, p)) = lines.next()? else {
            let have = vol.verts.len();
            return Err(perr(
                ln,
                format!("convex volume has {have} of its {n} points"),
            ));
        };
        let pt: Vec<&str> = p.split_whitespace().collect();
        if pt.len() != 3 {
            let msg = format!("convex volume point has {} values, expected 3", pt.len());
            return Err(perr(pl, msg));
        }
        vol.verts
            .push(parse_vec3(&pt, "point coordinate").map_err(|m| perr(pl, m))?);
    }
    Ok(vol)
}

/// Reads the `.gset` at `path` ([`InputGeometry::from_gset_with`]), its mesh through `picker`
/// if given ([`InputGeometry::load_picked`]).
pub(super) fn parse_gset_file(
    path: &Path,
    options: &LoadOptions,
    picker: Option<&mut dyn TrianglePicker>,
) -> Result<InputGeometry> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    InputGeometry::parse_gset(std::io::BufReader::new(file), path, options, picker)
}

impl InputGeometry {
    /// Reads a RecastDemo geometry set; see [`InputGeometry::from_gset_str`]. The mesh must
    /// lie inside the `.gset`'s folder ([`InputGeometry::from_gset_with`] allows more).
    pub fn from_gset(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_gset_with(path, &LoadOptions::default())
    }

    /// [`InputGeometry::from_gset`] with `options` saying where the mesh may lie. The file is
    /// read a line at a time; a line longer than [`crate::text::MAX_LINE_BYTES`] is an error.
    pub fn from_gset_with(path: impl AsRef<Path>, options: &LoadOptions) -> Result<Self> {
        parse_gset_file(path.as_ref(), options, None)
    }

    /// Parses a RecastDemo geometry set (`InputGeom::loadGeomSet`'s format). `gset_path` names
    /// the file in errors and locates relative mesh paths.
    ///
    /// Lines (blank lines and `#` comments are skipped; a byte-order mark at the start too):
    /// - `f <mesh path>`: the mesh ([`TriMesh::load`]: OBJ, or glTF/GLB with the `gltf`
    ///   feature, by extension), exactly once, relative to the `.gset`'s directory (or, failing
    ///   that, to its parent, as RecastDemo's own files are) and inside that directory: absolute
    ///   paths, `..` and symbolic links leading out are refused unless
    ///   [`LoadOptions::allow_outside_paths`] ([`InputGeometry::from_gset_str_with`]).
    ///   RecastDemo discards connections and volumes read before an `f` line and replaces the mesh
    ///   at a second one; here `c`/`v` lines may come before `f` and keep their order, and a second
    ///   `f` line is an error.
    /// - `s` + 21 numbers: build settings (`partitionType` an integer code, see
    ///   [`Partition::from_code`]; the bounds become [`BuildSettings::bounds`]; span filters keep
    ///   their defaults). At most once.
    /// - `c sx sy sz ex ey ez radius bidir [area flags]`: an off-mesh connection (radius > 0,
    ///   bidir 0 or 1, area 0..=63, flags 0..=65535; area and flags default to 0 as in RecastDemo);
    ///   the `i`-th gets user id `1000 + i`. At most 256.
    /// - `v nverts area hmin hmax` and `nverts` lines `x y z`: a convex volume of 3..=12 points,
    ///   `hmin <= hmax`. At most 256.
    ///
    /// RecastDemo silently ignores extra connections, volumes and malformed numbers; here any
    /// malformed line (or one longer than [`crate::text::MAX_LINE_BYTES`]) is an
    /// [`Error::Parse`] naming it.
    pub fn from_gset_str(text: &str, gset_path: &Path) -> Result<Self> {
        Self::from_gset_str_with(text, gset_path, &LoadOptions::default())
    }

    /// [`InputGeometry::from_gset_str`] with `options` saying where the mesh may lie.
    pub fn from_gset_str_with(text: &str, gset_path: &Path, options: &LoadOptions) -> Result<Self> {
        Self::parse_gset(text.as_bytes(), gset_path, options, None)
    }

    fn parse_gset(
        reader: impl BufRead,
        gset_path: &Path,
        options: &LoadOptions,
        mut picker: Option<&mut dyn TrianglePicker>,
    ) -> Result<Self> {
        let perr = |line: usize, msg: String| Error::parse(gset_path, line, msg);
        let dir = folder_of(gset_path);
        let mut geom = InputGeometry::from_mesh(TriMesh::default());
        let mut have_mesh = false;
        let mut lines = GsetLines {
            lines: LineReader::new(reader, gset_path),
        };
        while let Some((ln, line)) = lines.next()? {
            let mut words = line.split_whitespace();
            let kw = words.next().unwrap_or("");
            let toks: Vec<&str> = words.collect();
            let (conns, vols) = (geom.off_mesh_connections.len(), geom.convex_volumes.len());
            match kw {
                "f" if have_mesh => {
                    return Err(perr(
                        ln,
                        "a second `f` line: a geometry set has one mesh".into(),
                    ));
                }
                "f" => {
                    geom.mesh = load_gset_mesh(&dir, line[1..].trim(), options, picker.take())
                        .map_err(|m| perr(ln, m))?;
                    have_mesh = true;
                }
                "s" if geom.settings.is_some() => {
                    return Err(perr(ln, "a second settings (`s`) line".into()));
                }
                "s" => geom.settings = Some(parse_settings(&toks).map_err(|m| perr(ln, m))?),
                "c" if conns >= MAX_OFF_MESH_CONNECTIONS => {
                    let msg = format!("more than {MAX_OFF_MESH_CONNECTIONS} off-mesh connections");
                    return Err(perr(ln, msg));
                }
                "c" => {
                    let c =
                        parse_connection(&toks, 1000 + conns as u32).map_err(|m| perr(ln, m))?;
                    geom.off_mesh_connections.push(c);
                }
                "v" if vols >= MAX_CONVEX_VOLUMES => {
                    return Err(perr(
                        ln,
                        format!("more than {MAX_CONVEX_VOLUMES} convex volumes"),
                    ));
                }
                "v" => {
                    let (vol, n) = parse_volume_header(&toks).map_err(|m| perr(ln, m))?;
                    geom.convex_volumes
                        .push(read_volume_points(&mut lines, vol, n, ln, gset_path)?);
                }
                _ => {
                    let msg = format!("unknown line type `{}` (expected f, s, c or v)", quote(kw));
                    return Err(perr(ln, msg));
                }
            }
        }
        if !have_mesh {
            return Err(perr(0, "no `f <mesh file>` line".into()));
        }
        geom.source = Some(gset_path.to_path_buf());
        Ok(geom)
    }

    /// Writes RecastDemo's `.gset` format (`InputGeom::saveGeomSet`, numbers as `%f`, six
    /// decimals) with `f mesh_path_in_file` as the mesh line. Settings without bounds are
    /// written with the mesh bounds, as RecastDemo does; user ids are not stored.
    ///
    /// ```
    /// use navkit::{InputGeometry, TriMesh};
    /// let mesh = TriMesh::new(vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0], vec![0, 1, 2])?;
    /// let geom = InputGeometry::from_mesh(mesh);
    /// assert_eq!(geom.to_gset_string("Meshes/tri.obj"), "f Meshes/tri.obj\n");
    /// # Ok::<(), navkit::Error>(())
    /// ```
    pub fn to_gset_string(&self, mesh_path_in_file: &str) -> String {
        let mut s = format!("f {mesh_path_in_file}\n");
        if let Some(st) = &self.settings {
            let bounds = st.bounds.unwrap_or_else(|| self.mesh.bounds());
            s.push('s');
            for (k, v) in settings_values(st, bounds).iter().enumerate() {
                let _ = match k {
                    13 => write!(s, " {}", st.partition.code()),
                    _ => write!(s, " {v:.6}"),
                };
            }
            s.push('\n');
        }
        for c in &self.off_mesh_connections {
            let (a, b) = (c.start, c.end);
            let _ = writeln!(
                s,
                "c {:.6} {:.6} {:.6}  {:.6} {:.6} {:.6}  {:.6} {} {} {}",
                a.x, a.y, a.z, b.x, b.y, b.z, c.radius, c.bidirectional as i32, c.area, c.flags
            );
        }
        for v in &self.convex_volumes {
            let _ = writeln!(
                s,
                "v {} {} {:.6} {:.6}",
                v.verts.len(),
                v.area,
                v.hmin,
                v.hmax
            );
            for p in &v.verts {
                let _ = writeln!(s, "{:.6} {:.6} {:.6}", p.x, p.y, p.z);
            }
        }
        s
    }

    /// Writes [`InputGeometry::to_gset_string`] to `path`.
    pub fn save_gset(&self, path: impl AsRef<Path>, mesh_path_in_file: &str) -> Result<()> {
        let path = path.as_ref();
        crate::atomic_file::write(path, self.to_gset_string(mesh_path_in_file).as_bytes())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::geometry::test_support::*;

    pub(in crate::geometry) fn sample_geometry() -> InputGeometry {
        let mut g = InputGeometry::from_mesh(TriMesh::from_obj(mesh_path("nav_test.obj")).unwrap());
        g.settings = Some(BuildSettings {
            cell_size: 0.25,
            agent_max_slope: 50.5,
            partition: Partition::Layers,
            bounds: Some(Aabb::new(
                Vec3::new(-1.5, -2.25, -3.125),
                Vec3::new(10.0, 20.5, 30.75),
            )),
            ..BuildSettings::default()
        });
        g.off_mesh_connections = (0..3)
            .map(|i| OffMeshConnection {
                start: Vec3::new(1.25 + i as f32, 2.0, -3.5),
                end: Vec3::new(4.0, 5.123456, 6.0),
                radius: 0.6,
                bidirectional: i != 1,
                area: crate::area::JUMP,
                flags: crate::flags::JUMP | (0x100 * i as u16),
                user_id: 1000 + i,
            })
            .collect();
        g.convex_volumes = vec![ConvexVolume {
            verts: vec![
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(3.5, 1.0, 0.0),
                Vec3::new(3.5, 1.5, -2.0),
                Vec3::new(0.0, 1.2, -2.0),
            ],
            hmin: -0.5,
            hmax: 4.25,
            area: crate::area::WATER,
        }];
        g
    }

    #[test]
    fn the_settings_line_follows_the_settings_table() {
        for (k, field) in BuildSettings::FIELDS.iter().enumerate().take(13) {
            assert_eq!(SETTING_NAMES[k], field.gset_name);
        }
        assert_eq!(
            SETTING_NAMES[20],
            BuildSettings::field("tile_size").unwrap().gset_name
        );
    }

    #[test]
    fn gset_round_trip_and_relative_paths() {
        let g = sample_geometry();
        g.validate().unwrap();
        let dir = temp_dir("rt");
        let abs = mesh_path("nav_test.obj").canonicalize().unwrap();
        let gset = dir.join("level.GSET");
        g.save_gset(&gset, abs.to_str().unwrap()).unwrap();
        // The mesh is named by its absolute path: allowed by the option only.
        let anywhere = LoadOptions {
            allow_outside_paths: true,
        };
        let back = InputGeometry::load_with(&gset, &anywhere).unwrap();
        assert_eq!(back.mesh.verts, g.mesh.verts);
        assert_eq!(back.mesh.tris, g.mesh.tris);
        assert_eq!(back.settings, g.settings);
        assert_eq!(back.off_mesh_connections, g.off_mesh_connections);
        assert_eq!(back.convex_volumes, g.convex_volumes);
        assert_eq!(back.source.as_deref(), Some(gset.as_path()));
        assert_eq!(
            back.nav_bounds(),
            g.settings.as_ref().unwrap().bounds.unwrap()
        );
        let text = g.to_gset_string("Meshes/nav_test.obj");
        assert!(text.contains("\ns 0.250000 0.200000 2.000000 0.600000 0.900000 50.500000 8.000000 20.000000 12.000000 1.300000 6.000000 6.000000 1.000000 2 -1.500000 -2.250000 -3.125000 10.000000 20.500000 30.750000 32.000000\n"), "{text}");
        assert!(
            text.contains(
                "\nc 1.250000 2.000000 -3.500000  4.000000 5.123456 6.000000  0.600000 1 5 8\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("\nv 4 1 -0.500000 4.250000\n0.000000 1.000000 0.000000\n"),
            "{text}"
        );

        // Relative to the .gset's directory, and RecastDemo's layout (relative to its parent).
        std::fs::create_dir_all(dir.join("Meshes")).unwrap();
        std::fs::copy(&abs, dir.join("Meshes/m.obj")).unwrap();
        std::fs::write(dir.join("Meshes/a.gset"), "# mesh\n\nf m.obj\r\n").unwrap();
        std::fs::write(
            dir.join("Meshes/b.gset"),
            "c 0 0 0 1 1 1 0.5 1\nf Meshes/m.obj\n",
        )
        .unwrap();
        let a = InputGeometry::load(dir.join("Meshes/a.gset")).unwrap();
        assert_eq!(
            (a.mesh.vert_count(), a.mesh.tri_count(), &a.settings),
            (884, 1612, &None)
        );
        assert_eq!(a.nav_bounds(), a.mesh.bounds());
        let b = InputGeometry::from_gset(dir.join("Meshes/b.gset")).unwrap();
        assert_eq!(b.mesh.verts, a.mesh.verts);
        assert_eq!(
            (
                b.off_mesh_connections[0].area,
                b.off_mesh_connections[0].flags
            ),
            (0, 0)
        );
        // Settings without bounds are written with the mesh bounds.
        let mut c = b.clone();
        c.settings = Some(BuildSettings::default());
        let back =
            InputGeometry::from_gset_str(&c.to_gset_string("m.obj"), &dir.join("Meshes/c.gset"))
                .unwrap();
        let Aabb { min: lo, max: hi } = back.nav_bounds();
        assert!(
            (lo - a.mesh.bounds().min).abs().max_element() < 1e-6
                && (hi - a.mesh.bounds().max).abs().max_element() < 1e-6
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn gset_meshes_stay_inside_the_folder_unless_allowed() {
        // The finding: `f` lines read meshes by absolute and `..` paths, where glTF buffers
        // may not leave the level's folder.
        let dir = temp_dir("confined");
        let level = dir.join("level");
        std::fs::create_dir_all(level.join("sub")).unwrap();
        let tri = "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n";
        for f in [
            "level/m.obj",
            "level/sub/m.obj",
            "outside.obj",
            "Meshes/r.obj",
        ] {
            std::fs::create_dir_all(dir.join(f).parent().unwrap()).unwrap();
            std::fs::write(dir.join(f), tri).unwrap();
        }
        let outside = dir.join("outside.obj").canonicalize().unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, level.join("link.obj")).unwrap();
            std::os::unix::fs::symlink("..", level.join("up")).unwrap();
        }
        let gset = level.join("l.gset");
        let anywhere = LoadOptions {
            allow_outside_paths: true,
        };
        let abs = format!("f {}\n", outside.display());
        let mut refused = vec![
            ("f ../outside.obj\n".to_string(), "goes up a folder (`..`)"),
            (
                "# x\n\nf sub/../../outside.obj\n".into(),
                "goes up a folder",
            ),
            (abs.clone(), "is absolute"),
            // Found beside the folder by RecastDemo's fallback (relative to its parent),
            // which is outside this `.gset`'s folder.
            ("f Meshes/r.obj\n".into(), "outside the folder"),
        ];
        if cfg!(unix) {
            refused.push(("f link.obj\n".into(), "outside the folder"));
            refused.push(("f up/outside.obj\n".into(), "outside the folder"));
        }
        for (text, what) in &refused {
            let line = text.lines().count();
            match InputGeometry::from_gset_str(text, &gset) {
                Err(Error::Parse {
                    line: l, message, ..
                }) => {
                    assert_eq!(l, line, "{text:?}: {message}");
                    assert!(message.contains(what), "{text:?}: {message}");
                    assert!(message.contains("--allow-outside-paths"), "{message}");
                }
                other => panic!("{text:?}: {:?}", other.map(|g| g.source)),
            }
            let g = InputGeometry::from_gset_str_with(text, &gset, &anywhere).unwrap();
            assert_eq!(g.mesh.tri_count(), 1, "{text:?}");
        }
        // Inside the folder: plain, in a subfolder, through `.`; and from a file.
        for text in ["f m.obj\n", "f sub/m.obj\n", "f ./sub/./m.obj\n"] {
            let g = InputGeometry::from_gset_str(text, &gset).unwrap();
            assert_eq!(g.mesh.tri_count(), 1, "{text:?}");
        }
        std::fs::write(&gset, &abs).unwrap();
        let err = InputGeometry::load(&gset).unwrap_err();
        assert!(err.to_string().contains("is absolute"), "{err}");
        assert_eq!(
            InputGeometry::load_with(&gset, &anywhere)
                .unwrap()
                .mesh
                .tri_count(),
            1
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn gset_byte_order_marks_long_lines_and_invisible_characters() {
        let dir = temp_dir("bom");
        std::fs::write(dir.join("m.obj"), "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n").unwrap();
        let gset = dir.join("b.gset");
        // A byte-order mark (as Windows editors write) was refused as `unknown line type
        // `\u{feff}f``, the BOM invisible in the message.
        std::fs::write(&gset, "\u{feff}f m.obj\r\nc 0 0 0 1 1 1 0.5 1\r\n").unwrap();
        let g = InputGeometry::from_gset(&gset).unwrap();
        assert_eq!((g.mesh.tri_count(), g.off_mesh_connections.len()), (1, 1));
        // Anywhere else it is a character like another, and shown escaped.
        let err = InputGeometry::from_gset_str("f m.obj\n\u{200b}c 0 0 0 1 1 1 0.5 1\n", &gset)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:2: unknown line type `\\u{{200b}}c` (expected f, s, c or v)",
                gset.display()
            )
        );
        // A line over the limit is refused with its number and a clipped quote.
        let long = format!("f m.obj\n# {}\n", "x".repeat(crate::text::MAX_LINE_BYTES));
        std::fs::write(&gset, &long).unwrap();
        for err in [
            InputGeometry::from_gset(&gset).unwrap_err(),
            InputGeometry::from_gset_str(&long, &gset).unwrap_err(),
        ] {
            let Error::Parse { line, message, .. } = &err else {
                panic!("{err}")
            };
            assert_eq!(*line, 2);
            let quoted = format!("`# {}…`", "x".repeat(78));
            assert!(message.ends_with(&quoted), "{message}");
            assert!(message.contains("longer than 1048576 bytes"), "{message}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn gset_errors_name_the_line() {
        let dir = temp_dir("bad");
        let abs = mesh_path("nav_test.obj").canonicalize().unwrap();
        let f = format!("f {}\n", abs.display());
        let s = "s 0.3 0.2 2 0.6 0.9 45 8 20 12 1.3 6 6 1 0 0 0 0 1 1 1 32\n";
        let c = "c 0 0 0 1 1 1 0.5 1 5 8\n";
        let vol = "v 3 1 0 1\n0 0 0\n1 0 0\n1 0 1\n";
        let cases: Vec<(String, usize, &str)> = vec![
            (format!("{f}x 1 2 3\n"), 2, "unknown line type"),
            (format!("{f}{f}"), 2, "second `f`"),
            ("f\n".into(), 1, "without a mesh path"),
            ("f nowhere.obj\n".into(), 1, "not found"),
            ("f bad.obj\n".into(), 1, "bad.obj:2"),
            (c.to_string(), 0, "no `f"),
            (format!("{f}{s}{s}"), 3, "second settings"),
            (format!("{f}s 0.3 0.2 2\n"), 2, "3 values"),
            (
                format!("{f}{}", s.replace(" 45 ", " nan ")),
                2,
                "agentMaxSlope `nan` is not finite",
            ),
            (
                format!("{f}{}", s.replace(" 1 0 0 ", " 1 7 0 ")),
                2,
                "partitionType 7",
            ),
            (
                format!("{f}{}", s.replace(" 1 0 0 ", " 1 1.5 0 ")),
                2,
                "not an integer",
            ),
            (
                format!("{f}{}", s.replace(" 32\n", " -32\n")),
                2,
                "tileSize must be a finite number >= 0, not -32",
            ),
            (
                format!("{f}{}", s.replace(" 6 6 1 ", " -6 6 1 ")),
                2,
                "vertsPerPoly must be",
            ),
            (format!("{f}c 0 0 0 1 1 1 0.5\n"), 2, "7 values"),
            (format!("{f}c 0 0 0 1 1 1 0 1 5 8\n"), 2, "radius"),
            (format!("{f}c 0 0 0 1 1 1 0.5 2 5 8\n"), 2, "bidir 2"),
            (format!("{f}c 0 0 0 1 1 1 0.5 1 64 8\n"), 2, "area 64"),
            (
                format!("{f}c 0 0 0 1 1 1 0.5 1 5 65536\n"),
                2,
                "flags 65536",
            ),
            (format!("{f}c 0 0 x 1 1 1 0.5 1 5 8\n"), 2, "not a number"),
            (format!("{f}{}", c.repeat(257)), 258, "more than 256"),
            (
                format!("{f}{}", vol.repeat(257)),
                2 + 256 * 4,
                "more than 256",
            ),
            (format!("{f}v 2 1 0 1\n0 0 0\n1 0 0\n"), 2, "point count 2"),
            (format!("{f}v 13 1 0 1\n"), 2, "point count 13"),
            (
                format!("{f}v 3 1 2 1\n0 0 0\n1 0 0\n1 0 1\n"),
                2,
                "hmin 2 > hmax 1",
            ),
            (
                format!("{f}v 3 1 0 1\n0 0 0\n\n# c\n1 0\n1 0 1\n"),
                6,
                "2 values",
            ),
            (
                format!("{f}v 3 1 0 1\n0 0 0\n1 0 inf\n1 0 1\n"),
                4,
                "not finite",
            ),
            (
                format!("{f}v 3 1 0 1\n0 0 0\n1 0 0\n"),
                2,
                "2 of its 3 points",
            ),
            (format!("{f}v 3 1 0\n"), 2, "3 values"),
        ];
        std::fs::write(dir.join("bad.obj"), "v 0 0 0\nv 1 x 0\n").unwrap();
        let gset = dir.join("t.gset");
        // The mesh is named by its absolute path: allowed by the option only.
        let anywhere = LoadOptions {
            allow_outside_paths: true,
        };
        for (text, line, what) in &cases {
            match InputGeometry::from_gset_str_with(text, &gset, &anywhere) {
                Err(Error::Parse {
                    path,
                    line: l,
                    message,
                }) => {
                    assert_eq!((path.as_path(), l), (gset.as_path(), *line), "{message}");
                    assert!(message.contains(what), "{what:?} not in {message:?}");
                }
                other => panic!("{text:.200}: {:?}", other.map(|g| g.source)),
            }
        }
        // At the limits is fine.
        let ok = InputGeometry::from_gset_str_with(
            &format!("{}{f}{}", c.repeat(256), vol.repeat(256)),
            &gset,
            &anywhere,
        )
        .unwrap();
        assert_eq!(
            (ok.off_mesh_connections.len(), ok.convex_volumes.len()),
            (256, 256)
        );
        assert_eq!(ok.off_mesh_connections[255].user_id, 1255);
        ok.validate().unwrap();
        // Unreadable file and unknown extension.
        assert!(matches!(
            InputGeometry::from_gset(dir.join("none.gset")),
            Err(Error::Io { .. })
        ));
        assert!(matches!(
            InputGeometry::load(dir.join("x.txt")),
            Err(Error::Parse { line: 0, .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
