//! `navkit view`'s live crowd: RecastDemo's crowd-tool options, agents added, targeted, removed and
//! stepped, and their bodies and targets as layers.

use super::*;

/// RecastDemo's crowd tool options: speed and acceleration, separation and its weight, the
/// update flags and the avoidance quality (preset 0..=3: low, medium, good, high); and navkit's:
/// whether the crowd behaviours run (off: plain DetourCrowd, to compare) and whether the
/// update is upstream's `dtCrowd::update` (the same results as navkit's, on one core: to
/// compare the step time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct CrowdOptions {
    max_speed: f32,
    max_acceleration: f32,
    separation_weight: f32,
    update_flags: u8,
    avoidance_quality: u8,
    behaviours: bool,
    upstream_update: bool,
}

impl Default for CrowdOptions {
    fn default() -> Self {
        let p = AgentParams::default();
        CrowdOptions {
            max_speed: p.max_speed,
            max_acceleration: p.max_acceleration,
            separation_weight: p.separation_weight,
            update_flags: p.update_flags,
            avoidance_quality: p.obstacle_avoidance_type,
            behaviours: true,
            upstream_update: false,
        }
    }
}

/// Sets the crowd's behaviours and engine from the options (a new crowd, or changed options).
pub(super) fn apply_crowd_mode(
    crowd: &mut Crowd<TileCache>,
    o: &CrowdOptions,
) -> navkit::Result<()> {
    crowd.set_behaviours(if o.behaviours {
        CrowdBehaviours::default()
    } else {
        CrowdBehaviours::detour_crowd()
    })?;
    crowd.set_engine(if o.upstream_update {
        CrowdEngine::Upstream
    } else {
        CrowdEngine::Navkit
    });
    Ok(())
}

/// The update flags by name, as the page and the answers name them.
pub(super) const FLAGS: [(&str, u8); 5] = [
    ("anticipate_turns", update_flags::ANTICIPATE_TURNS),
    ("obstacle_avoidance", update_flags::OBSTACLE_AVOIDANCE),
    ("separation", update_flags::SEPARATION),
    ("optimize_vis", update_flags::OPTIMIZE_VIS),
    ("optimize_topo", update_flags::OPTIMIZE_TOPO),
];

pub(super) fn options_json(o: &CrowdOptions) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("max_speed".into(), num32(o.max_speed));
    m.insert("max_acceleration".into(), num32(o.max_acceleration));
    m.insert("separation_weight".into(), num32(o.separation_weight));
    for (name, bit) in FLAGS {
        m.insert(name.into(), json!(o.update_flags & bit != 0));
    }
    m.insert("avoidance_quality".into(), json!(o.avoidance_quality));
    m.insert("behaviours".into(), json!(o.behaviours));
    m.insert("upstream_update".into(), json!(o.upstream_update));
    Value::Object(m)
}

/// The radius of the viewer's agents (and of its crowds) with build `settings`.
pub(super) fn agent_radius(settings: &BuildSettings) -> f32 {
    settings.agent_radius.max(0.05)
}

/// The parameters of the viewer's agents: RecastDemo's, sized by the build settings, with the
/// crowd options.
pub(super) fn agent_params(st: &State) -> AgentParams {
    let mut p = AgentParams::with_radius(agent_radius(&st.settings));
    p.height = st.settings.agent_height.max(0.1);
    let o = &st.dynamic.options;
    p.max_speed = o.max_speed;
    p.max_acceleration = o.max_acceleration;
    p.separation_weight = o.separation_weight;
    p.update_flags = o.update_flags;
    p.obstacle_avoidance_type = o.avoidance_quality;
    p
}

/// `POST /api/crowd/options`: any of the options, applied to every agent and the new ones.
pub(super) fn set_options(st: &mut State, v: &Value) -> Result<Value, Response> {
    let mut known = vec![
        "max_speed",
        "max_acceleration",
        "separation_weight",
        "avoidance_quality",
        "behaviours",
        "upstream_update",
    ];
    known.extend(FLAGS.iter().map(|f| f.0));
    fields(v, "crowd options", &known)?;
    let mut o = st.dynamic.options;
    if let Some(x) = number(v, "max_speed", 0.01, 100.0)? {
        o.max_speed = x;
    }
    if let Some(x) = number(v, "max_acceleration", 0.01, 1000.0)? {
        o.max_acceleration = x;
    }
    if let Some(x) = number(v, "separation_weight", 0.0, 100.0)? {
        o.separation_weight = x;
    }
    if let Some(q) = whole(v, "avoidance_quality", 0, 3)? {
        o.avoidance_quality = q as u8;
    }
    for (name, bit) in FLAGS {
        if v.get(name).is_some() {
            if flag(v, name)? {
                o.update_flags |= bit;
            } else {
                o.update_flags &= !bit;
            }
        }
    }
    if v.get("behaviours").is_some() {
        o.behaviours = flag(v, "behaviours")?;
    }
    if v.get("upstream_update").is_some() {
        o.upstream_update = flag(v, "upstream_update")?;
    }
    st.dynamic.options = o;
    let params = agent_params(st);
    if let Some(crowd) = st.dynamic.crowd.as_mut() {
        apply_crowd_mode(crowd, &o).map_err(|e| refused("the options were refused", e))?;
        for &(_, h) in &st.dynamic.agents {
            crowd
                .set_agent_params(h, params)
                .map_err(|e| refused("the options were refused", e))?;
        }
    }
    Ok(status(st))
}

/// What `POST /api/crowd/add` asks for, checked: one agent at a point or `random` ones, and
/// their target if given.
pub(super) struct AgentsRequest {
    spec: AgentsSpec,
    seed: u64,
    target: Option<Vec3>,
}

enum AgentsSpec {
    At(Vec3),
    Random(u64),
}

/// The agents `POST /api/crowd/add` asks for, checked, if there is room for them.
pub(super) fn agents_request(st: &State, v: &Value) -> Result<AgentsRequest, Response> {
    fields(v, "adding agents", &["pos", "random", "seed", "target"])?;
    let random = whole(v, "random", 1, MAX_RANDOM)?;
    let seed = whole(v, "seed", 0, u64::MAX)?.unwrap_or(1);
    let target = if v.get("target").is_some() {
        Some(super::super::paths::point(v, "target")?)
    } else {
        None
    };
    let (spec, more) = match (v.get("pos"), random) {
        (Some(_), None) => (AgentsSpec::At(super::super::paths::point(v, "pos")?), 1),
        (None, Some(n)) => (AgentsSpec::Random(n), n as usize),
        _ => {
            return Err(bad(
                "give either `pos` ([x, y, z], one agent) or `random` (how many random agents)",
            ));
        }
    };
    if st.dynamic.agents.len() + more > MAX_AGENTS {
        return Err(too_many_agents(st.dynamic.agents.len(), more));
    }
    Ok(AgentsRequest { spec, seed, target })
}

/// `POST /api/crowd/add` in dynamic mode (entered first, [`with_cache`]).
pub(super) fn add_agents(st: &mut State, v: &Value) -> Result<Value, Response> {
    let AgentsRequest { spec, seed, target } = agents_request(st, v)?;
    ensure_dynamic(st)?;
    let specs: Vec<(Vec3, Option<Vec3>)> = match spec {
        AgentsSpec::At(pos) => vec![(pos, target)],
        AgentsSpec::Random(n) => {
            let nav = st.navmesh();
            let mut cmp = Comparer::new(nav, None, CompareSettings::default())
                .map_err(|e| unprocessable(format!("no random points: {e}")))?;
            let pairs = cmp
                .random_pairs(n as usize, seed)
                .map_err(|e| unprocessable(format!("no random points: {e}")))?;
            if pairs.is_empty() {
                return Err(unprocessable(
                    "no connected random points were found on this navmesh",
                ));
            }
            pairs
                .into_iter()
                .map(|(a, b)| (a, Some(target.unwrap_or(b))))
                .collect()
        }
    };
    if st.dynamic.agents.len() + specs.len() > MAX_AGENTS {
        return Err(too_many_agents(st.dynamic.agents.len(), specs.len()));
    }
    let params = agent_params(st);
    let mut added = Vec::new();
    for (pos, target) in specs {
        let id = add_agent(&mut st.dynamic, pos, target, params)
            .map_err(|e| refused("the agent was refused", e))?;
        added.push(id);
    }
    let mut out = status(st);
    out["added"] = json!(added);
    Ok(out)
}

pub(super) fn too_many_agents(have: usize, more: usize) -> Response {
    unprocessable(format!(
        "{have} agents and {more} more would pass the viewer's limit of {MAX_AGENTS} agents"
    ))
}

pub(super) fn add_agent(
    d: &mut Dynamic,
    pos: Vec3,
    target: Option<Vec3>,
    params: AgentParams,
) -> navkit::Result<u32> {
    let crowd = d
        .crowd
        .as_mut()
        .ok_or_else(|| navkit::Error::InvalidArgument("not in dynamic mode".into()))?;
    let h = crowd.add_agent(pos, params)?;
    if let Some(t) = target
        && let Err(e) = crowd.request_move_target(h, t)
    {
        let _ = crowd.remove_agent(h);
        return Err(e);
    }
    let id = d.next_agent;
    d.next_agent += 1;
    d.agents.push((id, h));
    Ok(id)
}

pub(super) fn agent_id(v: &Value, d: &Dynamic) -> Result<Option<(usize, AgentHandle)>, Response> {
    let Some(x) = v.get("id") else {
        return Ok(None);
    };
    let id = x
        .as_u64()
        .ok_or_else(|| bad("`id` must be an agent id (a whole number)"))?;
    d.agents
        .iter()
        .position(|(i, _)| u64::from(*i) == id)
        .map(|k| Some((k, d.agents[k].1)))
        .ok_or_else(|| {
            Response::error(
                404,
                format!("there is no agent {id} (GET /api/dynamic lists them)"),
            )
        })
}

pub(super) fn set_target(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "crowd target", &["pos", "id"])?;
    let p = super::super::paths::point(v, "pos")?;
    let one = agent_id(v, &st.dynamic)?;
    let handles: Vec<AgentHandle> = match one {
        Some((_, h)) => vec![h],
        None => st.dynamic.agents.iter().map(|a| a.1).collect(),
    };
    if let Some(crowd) = st.dynamic.crowd.as_mut() {
        for h in handles {
            crowd
                .request_move_target(h, p)
                .map_err(|e| refused("the target was refused", e))?;
        }
    }
    Ok(status(st))
}

pub(super) fn remove_agents(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "agent removal", &["id", "at", "all"])?;
    let all = flag(v, "all")?;
    let by_id = agent_id(v, &st.dynamic)?;
    let at = match v.get("at") {
        Some(_) => Some(super::super::paths::point(v, "at")?),
        None => None,
    };
    if [all, by_id.is_some(), at.is_some()]
        .iter()
        .filter(|b| **b)
        .count()
        != 1
    {
        return Err(bad(
            "give exactly one of `id` (an agent id), `at` ([x, y, z]) and `all` (true)",
        ));
    }
    let one = match (by_id, at) {
        (Some(a), _) => Some(a),
        (None, Some(p)) => {
            // The agent whose body is under the point (half a metre of slack around it).
            let hit = st
                .dynamic
                .agent_states()
                .into_iter()
                .zip(0..)
                .filter(|((_, a), _)| {
                    let d = Vec3::new(a.position.x - p.x, 0.0, a.position.z - p.z).length();
                    d <= a.params.radius + 0.5
                        && p.y >= a.position.y - 1.0
                        && p.y <= a.position.y + a.params.height + 1.0
                })
                .min_by(|((_, a), _), ((_, b), _)| {
                    a.position.distance(p).total_cmp(&b.position.distance(p))
                });
            match hit {
                Some(((id, _), _)) => {
                    let k = st.dynamic.agents.iter().position(|x| x.0 == id);
                    k.map(|k| (k, st.dynamic.agents[k].1))
                }
                None => {
                    return Err(Response::error(404, format!("no agent stands at {p}")));
                }
            }
        }
        _ => None,
    };
    let d = &mut st.dynamic;
    let gone: Vec<(usize, AgentHandle)> = match one {
        Some(a) => vec![a],
        None => d.agents.iter().map(|a| a.1).enumerate().collect(),
    };
    if let Some(crowd) = d.crowd.as_mut() {
        for (_, h) in &gone {
            let _ = crowd.remove_agent(*h);
        }
    }
    match one {
        Some((k, _)) => {
            d.agents.remove(k);
        }
        None => d.agents.clear(),
    }
    Ok(status(st))
}

pub(super) fn step(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "crowd step", &["dt", "steps"])?;
    let dt = match v.get("dt") {
        None => 1.0 / 30.0,
        Some(x) => x
            .as_f64()
            .filter(|d| d.is_finite() && *d > 0.0 && *d <= MAX_DT)
            .ok_or_else(|| {
                bad(format!(
                    "`dt` must be a number of seconds above 0 and at most {MAX_DT}"
                ))
            })?,
    };
    let steps = whole(v, "steps", 1, MAX_STEPS)?.unwrap_or(1);
    let d = &mut st.dynamic;
    let t = Instant::now();
    if let Some(crowd) = d.crowd.as_mut() {
        for _ in 0..steps {
            // Obstacle changes are settled when made; this keeps any leftover work moving.
            crowd
                .tile_cache_mut()
                .update(std::time::Duration::from_millis(2))
                .map_err(|e| unprocessable(format!("the tile cache update failed: {e}")))?;
            crowd
                .update(dt as f32)
                .map_err(|e| bad(format!("the crowd update failed: {e}")))?;
            d.time += dt;
        }
    }
    let step_ms = t.elapsed().as_secs_f64() * 1e3;
    // Steps leave the navmesh as it is: no counts (they walk every tile), 30 times a second.
    let mut out = status_without_counts(st);
    out["step_ms"] = json!(step_ms);
    Ok(out)
}

/// Each agent's body, as RecastDemo's crowd tool fills it: a cylinder of its radius and height
/// (12 sides and a top cap) in its agent's colour (`duIntToCol(i + 1)`), see-through.
pub(super) fn bodies_layer(agents: &[AgentState]) -> Layer {
    const N: usize = 12;
    let mut l = Layer::new("crowd.bodies");
    for (i, a) in agents.iter().enumerate() {
        let c = Color::from_int(i as u32 + 1, 255).to_array();
        let col = Color::rgba(c[0], c[1], c[2], 140);
        let (r, h) = (a.params.radius, a.params.height);
        let ring: Vec<Vec3> = (0..N)
            .map(|k| {
                let t = k as f32 / N as f32 * std::f32::consts::TAU;
                a.position + Vec3::new(t.cos() * r, 0.0, t.sin() * r)
            })
            .collect();
        let up = Vec3::Y * h;
        for k in 0..N {
            let (p, q) = (ring[k], ring[(k + 1) % N]);
            l.triangle([p, p + up, q + up], col.darken());
            l.triangle([p, q + up, q], col.darken());
            l.triangle([a.position + up, p + up, q + up], col);
        }
    }
    l
}

/// Each agent's target: a small cross and an upright, in its agent's colour.
pub(super) fn targets_layer(agents: &[AgentState]) -> Layer {
    let mut l = Layer::new("crowd.targets");
    for (i, a) in agents.iter().enumerate() {
        if matches!(
            a.target_state,
            TargetState::None | TargetState::Failed | TargetState::Velocity
        ) {
            continue;
        }
        let col = Color::from_int(i as u32 + 1, 220);
        let r = a.params.radius;
        let t = a.target;
        l.line(t - Vec3::X * r, t + Vec3::X * r, col, 2.0);
        l.line(t - Vec3::Z * r, t + Vec3::Z * r, col, 2.0);
        l.line(t, t + Vec3::Y * a.params.height * 0.5, col, 2.0);
    }
    l
}
