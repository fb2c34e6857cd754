//! `navkit view`'s scenarios (saved and loaded, with the view's own part) and saves to a path
//! confined to the working directory: only navkit's own kinds of file (by extension), never
//! over a file of another kind (by content), the level viewed, or inside a dot-folder.

use super::crowd::add_agent;
use super::obstacles::{add_to_cache, check_shape};
use super::*;

/// The current scenario: obstacles, agents (an agent without a target has its goal at its
/// start), kept events, and the viewer's settings (the page adds the path's start and goal).
pub(super) fn scenario(st: &State) -> Scenario {
    let d = &st.dynamic;
    let agents = d
        .agent_states()
        .into_iter()
        .map(|(_, a)| {
            let moving = !matches!(
                a.target_state,
                TargetState::None | TargetState::Failed | TargetState::Velocity
            );
            AgentSpec {
                start: a.position,
                goal: if moving { a.target } else { a.position },
                behaviour: AgentBehaviour::Direct,
                seed: 0,
            }
        })
        .collect();
    Scenario {
        agents,
        obstacles: d
            .obstacles()
            .into_iter()
            .filter(|o| o.state != navkit::tilecache::ObstacleState::Removing)
            .map(|o| o.shape)
            .collect(),
        events: d.events.clone(),
        view: Some(ViewState {
            start: None,
            goal: None,
            settings: st.geometry.as_ref().map(|_| st.settings.clone()),
            tile_size: Some(d.tile_size),
        }),
        ..Scenario::default()
    }
}

pub(super) fn scenario_json(st: &State) -> Value {
    crate::json::to_json(&scenario(st))
}

/// A new dynamic state with `s`'s obstacles and agents (in dynamic mode if it has any, or if
/// `force`).
pub(super) fn dynamic_from(
    st: &State,
    s: &Scenario,
    tile_size: u32,
    force: bool,
) -> Result<Dynamic, Response> {
    let wanted = force || !s.obstacles.is_empty() || !s.agents.is_empty();
    if !wanted {
        return Ok(Dynamic {
            events: s.events.clone(),
            ..st.dynamic.fresh(tile_size)
        });
    }
    populate(st, build_dynamic(st, tile_size)?, s)
}

/// A new dynamic state of the tile cache `built` with `s`'s obstacles, agents and events.
pub(super) fn populate(st: &State, built: CacheBuilt, s: &Scenario) -> Result<Dynamic, Response> {
    let mut d = Dynamic {
        crowd: Some(built.crowd),
        build_ms: built.ms,
        events: s.events.clone(),
        ..st.dynamic.fresh(built.tile_size)
    };
    if let Some(crowd) = d.crowd.as_mut() {
        apply_crowd_mode(crowd, &d.options)
            .map_err(|e| refused("the crowd options were refused", e))?;
    }
    for (i, o) in s.obstacles.iter().enumerate() {
        check_shape(o).map_err(|_| {
            bad(format!(
                "obstacle {i}: every number must be finite and at most 1e7 in size"
            ))
        })?;
        add_to_cache(&mut d, o, &format!("obstacle {i} ({o:?}) was refused"))?;
        if i % 32 == 31 {
            settle(&mut d)?;
        }
    }
    settle(&mut d)?;
    let params = agent_params(st);
    for (i, a) in s.agents.iter().enumerate() {
        let target = (a.goal != a.start).then_some(a.goal);
        add_agent(&mut d, a.start, target, params)
            .map_err(|e| refused(&format!("agent {i} was refused"), e))?;
    }
    Ok(d)
}

/// Loads a scenario: the settings first (a rebuild if they differ), then a new dynamic state
/// with its obstacles and agents. Nothing changes if any of it is refused.
pub(super) fn load_scenario(st: &mut State, text: &str) -> Result<Value, Response> {
    let s =
        Scenario::from_json_str(text, Path::new("the scenario")).map_err(|e| bad(e.to_string()))?;
    if s.obstacles.len() > MAX_OBSTACLES {
        return Err(Response::error(
            413,
            format!(
                "the scenario has {} obstacles; the viewer keeps at most {MAX_OBSTACLES}",
                s.obstacles.len()
            ),
        ));
    }
    if s.agents.len() > MAX_AGENTS {
        return Err(Response::error(
            413,
            format!(
                "the scenario has {} agents; the viewer keeps at most {MAX_AGENTS}",
                s.agents.len()
            ),
        ));
    }
    let view = s.view.clone().unwrap_or_default();
    let tile_size = match view.tile_size {
        None => st.dynamic.tile_size,
        Some(t) if TILE_SIZES.contains(&u64::from(t)) => t,
        Some(t) => {
            return Err(bad(format!(
                "view.tile_size {t} must be from {} to {} cells",
                TILE_SIZES.start(),
                TILE_SIZES.end()
            )));
        }
    };
    let new_settings = match &view.settings {
        Some(ns) if *ns != st.settings => {
            if st.geometry.is_none() {
                return Err(unprocessable(
                    "the scenario has build settings, but the viewer was started on a saved \
                     navmesh: there is no geometry to rebuild from",
                ));
            }
            // The viewer's own ranges for the settings the page can change.
            Some(super::super::settings::request_for(st, ns)?)
        }
        _ => None,
    };
    // The new dynamic state is made (with the scenario's settings) before anything changes.
    let old_settings = st.settings.clone();
    if let Some(ns) = &new_settings {
        st.settings = ns.settings.clone();
    }
    let keep_on = st.dynamic.crowd.is_some();
    let made = dynamic_from(st, &s, tile_size, keep_on);
    st.settings = old_settings;
    let d = made?;
    // A build in flight would put in what the scenario replaces.
    super::super::settings::cancel_build(st, None);
    let mut rebuilt = Value::Null;
    if let Some(ns) = new_settings {
        // The static navmesh with the new settings; the new dynamic state goes in after it.
        let keep = std::mem::take(&mut st.dynamic);
        match super::super::settings::rebuild(st, ns) {
            Ok(v) => rebuilt = v,
            Err(r) => {
                st.dynamic = keep;
                return Err(r);
            }
        }
    }
    st.dynamic = d;
    let mut out = status(st);
    out["view"] = crate::json::to_json(&view);
    out["rebuilt"] = rebuilt;
    out["warnings"] = json!(if s.events.is_empty() {
        Vec::<String>::new()
    } else {
        vec![format!(
            "{} timed obstacle events are kept for saving but not played by the viewer \
             (navkit simulate --scenario plays them)",
            s.events.len()
        )]
    });
    Ok(out)
}

/// A path under the working directory: relative, no `..`, no name starting with `.` (hidden
/// files and folders such as `.git`), its folder an existing one inside.
pub(super) fn confined(path: &str) -> Result<PathBuf, Response> {
    if path.is_empty() || path.len() > 255 {
        return Err(bad("`path` must be a file name of 1 to 255 bytes"));
    }
    let p = Path::new(path);
    let hidden = || {
        bad(format!(
            "`{}`: names starting with `.` (hidden files and folders such as .git) are not \
             saved to",
            http::clip(path)
        ))
    };
    for c in p.components() {
        match c {
            Component::Normal(name) if name.to_string_lossy().starts_with('.') => {
                return Err(hidden());
            }
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => {
                return Err(bad(format!(
                    "`{}`: `..` is not allowed; files are saved under the working directory",
                    http::clip(path)
                )));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(bad(format!(
                    "`{}`: absolute paths are not allowed; files are saved under the working \
                     directory",
                    http::clip(path)
                )));
            }
        }
    }
    if p.file_name().is_none() || path.ends_with('/') {
        return Err(bad(format!("`{}` does not name a file", http::clip(path))));
    }
    let cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .map_err(|e| unprocessable(format!("no working directory: {e}")))?;
    let parent = cwd.join(p.parent().unwrap_or(Path::new("")));
    let parent = parent.canonicalize().map_err(|_| {
        bad(format!(
            "`{}`: its folder does not exist under the working directory",
            http::clip(path)
        ))
    })?;
    // A symbolic link could lead out: the real folder must be inside.
    let Ok(inside) = parent.strip_prefix(&cwd) else {
        return Err(bad(format!(
            "`{}` leads outside the working directory",
            http::clip(path)
        )));
    };
    // A link inside may also lead into a hidden folder.
    if inside
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
    {
        return Err(hidden());
    }
    let target = parent.join(p.file_name().unwrap_or_default());
    if target.is_dir() {
        return Err(bad(format!("`{}` is a folder", http::clip(path))));
    }
    Ok(target)
}

pub(super) fn save(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "saving", &["what", "path"])?;
    let what = v.get("what").and_then(Value::as_str).unwrap_or("");
    let path = v
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("`path` must be a file name (a string)"))?;
    let bytes = match what {
        "navmesh" => st.navmesh().to_mset_bytes(),
        "tilecache" => tset_bytes(st)?,
        "scenario" => {
            let mut text = serde_json::to_string_pretty(&scenario_json(st))
                .map_err(|e| unprocessable(e.to_string()))?;
            text.push('\n');
            text.into_bytes()
        }
        _ => {
            return Err(bad(
                "`what` must be \"navmesh\", \"tilecache\" or \"scenario\"",
            ));
        }
    };
    let target = confined(path)?;
    may_save_over(st, &target, what, path)?;
    navkit::atomic_file::write(&target, &bytes)
        .map_err(|e| unprocessable(format!("saving failed: {e}")))?;
    Ok(json!({"saved": target.display().to_string(), "bytes": bytes.len(), "what": what}))
}

/// The extensions a save of `what` may have.
fn extensions(what: &str) -> &'static [&'static str] {
    match what {
        "navmesh" => &["bin", "navmesh", "mset"],
        "tilecache" => &["bin", "tset", "tilecache"],
        _ => &["json"],
    }
}

/// What kind of navkit file `path` holds, by its content: `navmesh` (RecastDemo's MSET),
/// `tilecache` (its TSET), `scenario` (a scenario that loads), or `None`.
fn kind_of(path: &Path, len: u64) -> Option<&'static str> {
    use std::io::Read;
    let mut magic = [0u8; 4];
    let mut file = std::fs::File::open(path).ok()?;
    if file.read_exact(&mut magic).is_ok() {
        match i32::from_le_bytes(magic) {
            navkit::navmesh::mset::MSET_MAGIC => return Some("navmesh"),
            TSET_MAGIC => return Some("tilecache"),
            _ => {}
        }
    }
    // A scenario is at most what a request can bring, with room for pretty-printing.
    if len > 16 * http::MAX_BODY_BYTES as u64 {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    Scenario::from_json_str(&text, path)
        .is_ok()
        .then_some("scenario")
}

/// Refuses a save of `what` to `target` (asked as `asked`) that would lose something: another
/// extension than its kind's, the level being viewed, something other than a regular file, or
/// an existing file that is not of its kind by content.
fn may_save_over(st: &State, target: &Path, what: &str, asked: &str) -> Result<(), Response> {
    let exts = extensions(what);
    if !crate::output::has_extension(target, exts) {
        let list: Vec<String> = exts.iter().map(|e| format!(".{e}")).collect();
        return Err(bad(format!(
            "`{}`: a {what} is saved to a name ending in {}",
            http::clip(asked),
            list.join(", ")
        )));
    }
    if crate::output::same_file(target, &st.input) {
        return Err(bad(format!(
            "`{}` is the level being viewed: it is not saved over",
            http::clip(asked)
        )));
    }
    let Ok(meta) = std::fs::symlink_metadata(target) else {
        return Ok(()); // a new file
    };
    if !meta.file_type().is_file() {
        return Err(bad(format!(
            "`{}` exists and is not a regular file (a link, device or pipe): it is not saved \
             over",
            http::clip(asked)
        )));
    }
    if kind_of(target, meta.len()) != Some(what) {
        return Err(bad(format!(
            "`{}` exists and is not a navkit {what} file: it is not saved over",
            http::clip(asked)
        )));
    }
    Ok(())
}
