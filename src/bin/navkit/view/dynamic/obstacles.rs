//! `navkit view`'s tile-cache obstacles: shapes checked, added to the cache and settled, removed by
//! id, at a point or all.

use super::*;

/// Every number of an obstacle shape finite and at most 1e7 in size.
pub(super) fn check_shape(shape: &ObstacleShape) -> Result<(), Response> {
    let nums: Vec<f32> = match *shape {
        ObstacleShape::Cylinder {
            pos,
            radius,
            height,
        } => vec![pos.x, pos.y, pos.z, radius, height],
        ObstacleShape::Box { bmin, bmax } => {
            bmin.to_array().into_iter().chain(bmax.to_array()).collect()
        }
        ObstacleShape::OrientedBox {
            center,
            half_extents,
            y_angle,
        } => center
            .to_array()
            .into_iter()
            .chain(half_extents.to_array())
            .chain([y_angle])
            .collect(),
    };
    if nums.iter().any(|x| !x.is_finite() || x.abs() > 1e7) {
        return Err(bad(
            "every number of an obstacle must be finite and at most 1e7 in size",
        ));
    }
    if let ObstacleShape::Box { bmin, bmax } = shape
        && bmin.cmpgt(*bmax).any()
    {
        return Err(bad(format!(
            "the box's bmin {bmin} is above its bmax {bmax} on some axis"
        )));
    }
    Ok(())
}

/// The obstacle shapes a request may give, for messages.
const SHAPES: &str = concat!(
    r#"{"kind": "cylinder", "pos", "radius", "height"}, "#,
    r#"{"kind": "box", "bmin", "bmax"} or "#,
    r#"{"kind": "oriented_box", "center", "half_extents", "y_angle"}"#,
);

/// An obstacle shape given as JSON, checked ([`check_shape`]).
pub(super) fn parse_shape(v: &Value) -> Result<ObstacleShape, Response> {
    let shape: ObstacleShape = serde_json::from_value(v.clone())
        .map_err(|e| bad(format!("not an obstacle ({e}); expected {SHAPES}")))?;
    check_shape(&shape)?;
    Ok(shape)
}

/// Adds an obstacle to the crowd's tile cache (not settled).
pub(super) fn add_to_cache(
    d: &mut Dynamic,
    shape: &ObstacleShape,
    what: &str,
) -> Result<ObstacleRef, Response> {
    let crowd = d.crowd.as_mut().expect("dynamic mode");
    // Detour finishes an obstacle (adding or removing it) only when it rebuilds a tile layer
    // it touches: one that touches none would stay "processing", then "removing", for ever
    // and keep its slot.
    if crowd.tile_cache().layers_touched(shape) == 0 {
        let (lo, hi) = shape.bounds();
        return Err(unprocessable(format!(
            "{what}: its box {lo} .. {hi} touches no tile layer of the navmesh (put it on the \
             navmesh)"
        )));
    }
    crowd
        .tile_cache_mut()
        .add(shape)
        .map_err(|e| refused(what, e))
}

/// The obstacle `POST /api/obstacles/add` asks for, checked, if there is room for it.
pub(super) fn obstacle_request(st: &State, v: &Value) -> Result<ObstacleShape, Response> {
    let shape = parse_shape(v)?;
    if st.dynamic.obstacles().len() >= MAX_OBSTACLES {
        return Err(unprocessable(format!(
            "there are {MAX_OBSTACLES} obstacles already, the most the viewer keeps: remove some"
        )));
    }
    Ok(shape)
}

/// `POST /api/obstacles/add` in dynamic mode (entered first, [`with_cache`]).
pub(super) fn add_obstacle(st: &mut State, v: &Value) -> Result<Value, Response> {
    let shape = obstacle_request(st, v)?;
    ensure_dynamic(st)?;
    let id = add_to_cache(&mut st.dynamic, &shape, "the obstacle was refused")?;
    settle(&mut st.dynamic)?;
    let mut out = status(st);
    out["added"] = json!(id.0);
    Ok(out)
}

/// True if `p` stands inside the obstacle's footprint (within its height, with 1 unit of
/// slack below and above).
pub(super) fn contains(shape: &ObstacleShape, p: Vec3) -> bool {
    let (bmin, bmax) = shape.bounds();
    if p.y < bmin.y - 1.0 || p.y > bmax.y + 1.0 {
        return false;
    }
    match *shape {
        ObstacleShape::Cylinder { pos, radius, .. } => (p.x - pos.x).hypot(p.z - pos.z) <= radius,
        ObstacleShape::Box { bmin, bmax } => {
            p.x >= bmin.x && p.x <= bmax.x && p.z >= bmin.z && p.z <= bmax.z
        }
        ObstacleShape::OrientedBox {
            center,
            half_extents: h,
            y_angle,
        } => {
            // Back into the box's frame: the inverse of x' = c x + s z, z' = -s x + c z.
            let (s, c) = y_angle.sin_cos();
            let (dx, dz) = (p.x - center.x, p.z - center.z);
            let (lx, lz) = (c * dx - s * dz, s * dx + c * dz);
            lx.abs() <= h.x && lz.abs() <= h.z
        }
    }
}

pub(super) fn shape_centre(shape: &ObstacleShape) -> Vec3 {
    let (a, b) = shape.bounds();
    (a + b) * 0.5
}

pub(super) fn remove_obstacle(st: &mut State, v: &Value) -> Result<Value, Response> {
    fields(v, "obstacle removal", &["id", "at", "all"])?;
    let given = ["id", "at", "all"]
        .iter()
        .filter(|k| v.get(**k).is_some())
        .count();
    if given != 1 {
        return Err(bad(
            "give exactly one of `id` (an obstacle id), `at` ([x, y, z]) and `all` (true)",
        ));
    }
    let obstacles = st.dynamic.obstacles();
    let live = |o: &&Obstacle| o.state != navkit::tilecache::ObstacleState::Removing;
    let targets: Vec<ObstacleRef> = if flag(v, "all")? {
        obstacles.iter().filter(live).map(|o| o.obstacle).collect()
    } else if v.get("all").is_some() {
        Vec::new()
    } else if let Some(id) = v.get("id") {
        let id = id
            .as_u64()
            .filter(|&n| n <= u64::from(u32::MAX))
            .ok_or_else(|| bad("`id` must be an obstacle id (a whole number)"))?;
        let Some(o) = obstacles
            .iter()
            .filter(live)
            .find(|o| u64::from(o.obstacle.0) == id)
        else {
            return Err(Response::error(
                404,
                format!("there is no obstacle {id} (GET /api/dynamic lists them)"),
            ));
        };
        vec![o.obstacle]
    } else {
        let p = super::super::paths::point(v, "at")?;
        let hit = obstacles
            .iter()
            .filter(live)
            .filter(|o| contains(&o.shape, p))
            .min_by(|a, b| {
                let d = |o: &Obstacle| shape_centre(&o.shape).distance(p);
                d(a).total_cmp(&d(b))
            });
        match hit {
            Some(o) => vec![o.obstacle],
            None => {
                return Err(Response::error(404, format!("no obstacle stands at {p}")));
            }
        }
    };
    for (i, r) in targets.iter().enumerate() {
        if let Some(crowd) = st.dynamic.crowd.as_mut() {
            crowd
                .tile_cache_mut()
                .remove(*r)
                .map_err(|e| refused("the obstacle could not be removed", e))?;
        }
        // Detour queues at most 64 requests: settle as we go.
        if i % 32 == 31 {
            settle(&mut st.dynamic)?;
        }
    }
    settle(&mut st.dynamic)?;
    let mut out = status(st);
    out["removed"] = json!(targets.iter().map(|r| r.0).collect::<Vec<_>>());
    Ok(out)
}
