//! Crowds that keep walking while obstacles are added and removed under them: a cylinder added
//! on an agent's way, a box that closes a corridor (the agent takes another way, or stops short
//! with a partial path when there is none) and whose removal opens it again, scenario events.

mod common;

use std::time::Duration;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::agents::crowd::{AgentHandle, AgentParams, Crowd};
use navkit::query::{
    DEFAULT_HALF_EXTENTS, NavMeshQuery, PathOptions, QueryFilter, RaycastOptions,
    StraightPathOptions,
};
use navkit::tilecache::{ObstacleShape, TileCache, TileCacheSettings};
use navkit::tools::simulation::{
    AgentBehaviour, AgentSpec, ObstacleEvent, Scenario, SimSettings, simulate_dynamic,
};
use navkit::tools::testcase::TestCase;
use navkit::{BuildSettings, InputGeometry, PathStatus};
use rand::SeedableRng;

fn setup() -> (InputGeometry, Vec3, Vec3) {
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    (geom, case.queries[0].start, case.queries[0].end)
}

/// The middle of the longest leg of the straight path from `a` to `b`.
fn longest_leg_middle(cache: &TileCache, a: Vec3, b: Vec3) -> Vec3 {
    let mut q = NavMeshQuery::new(cache.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    let p = q
        .path(a, b, &f, &PathOptions::corridor_only())
        .map(|p| p.corridor)
        .unwrap();
    let st = q
        .find_straight_path(a, b, &p.polys, &StraightPathOptions::default())
        .unwrap()
        .positions();
    let leg = st
        .windows(2)
        .max_by(|x, y| x[0].distance(x[1]).total_cmp(&y[0].distance(y[1])))
        .unwrap();
    (leg[0] + leg[1]) * 0.5
}

fn xz_distance(p: Vec3, c: Vec3) -> f32 {
    Vec3::new(p.x - c.x, 0.0, p.z - c.z).length()
}

#[test]
fn an_obstacle_added_ahead_of_a_walking_agent_is_walked_around() {
    let (geom, a, b) = setup();
    let settings = BuildSettings::default();
    let cache = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let centre = longest_leg_middle(&cache, a, b);
    let radius = 1.0 + 0.6;
    let cylinder = ObstacleShape::Cylinder {
        pos: centre - Vec3::Y,
        radius,
        height: 3.0,
    };

    // Through the Crowd API: the crowd owns the cache and keeps walking while the obstacle is
    // added and carved in.
    let mut crowd = Crowd::with_tile_cache(cache, 4, 0.6).unwrap();
    let agent = crowd.add_agent(a, AgentParams::default()).unwrap();
    crowd.request_move_target(agent, b).unwrap();
    let dt = 1.0 / 30.0;
    let mut added_at = None;
    let mut trajectory = Vec::new();
    let mut rebuilt = 0;
    for frame in 0..(40.0 / dt) as usize {
        let t = frame as f32 * dt;
        if t >= 2.0 && added_at.is_none() {
            let pos = crowd.agent(agent).unwrap().position;
            assert!(
                xz_distance(pos, centre) > 8.0,
                "the agent must still be far from the obstacle when it appears"
            );
            crowd.tile_cache_mut().add(&cylinder).unwrap();
            added_at = Some(t);
        }
        rebuilt += crowd
            .tile_cache_mut()
            .update(Duration::from_millis(2))
            .unwrap()
            .tiles_rebuilt;
        crowd.update(dt).unwrap();
        trajectory.push(crowd.agent(agent).unwrap().position);
    }
    eprintln!(
        "obstacle at {centre} (r {radius}) added at {added_at:?} s; {rebuilt} tiles rebuilt; \
         closest approach {:.2}; ends {:.2} from the goal",
        trajectory
            .iter()
            .map(|&p| xz_distance(p, centre))
            .fold(f32::INFINITY, f32::min),
        xz_distance(*trajectory.last().unwrap(), b)
    );
    assert!(rebuilt >= 1);
    assert_eq!(crowd.tile_cache().obstacles().len(), 1);
    let end = *trajectory.last().unwrap();
    assert!(
        xz_distance(end, b) < 1.0,
        "the agent arrives: ends at {end}"
    );
    let closest = trajectory
        .iter()
        .map(|&p| xz_distance(p, centre))
        .fold(f32::INFINITY, f32::min);
    assert!(
        closest > radius - 0.35,
        "the agent came within {closest} of the cylinder's axis (radius {radius})"
    );
    // The crowd gives its cache back, the obstacle in it. (A crowd that borrows its navmesh has
    // no obstacle calls at all: asking one for a tile cache does not compile, as the
    // compile_fail example in navkit::agents::crowd's docs checks.)
    let cache = crowd.into_tile_cache();
    assert_eq!(cache.obstacles().len(), 1);
    let fixed = Crowd::new(cache.navmesh(), 1, 0.6).unwrap();
    assert_eq!(fixed.len(), 0);
}

#[test]
fn scenario_events_add_and_remove_obstacles_during_a_simulation() {
    let (geom, a, b) = setup();
    let settings = BuildSettings::default();
    let cache = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let centre = longest_leg_middle(&cache, a, b);
    let radius = 1.6;
    let agent = AgentSpec {
        start: a,
        goal: b,
        behaviour: AgentBehaviour::Direct,
        seed: 0,
    };
    let event = |at: f32, add: bool| ObstacleEvent {
        at,
        add: add.then_some(ObstacleShape::Cylinder {
            pos: centre - Vec3::Y,
            radius,
            height: 3.0,
        }),
        remove: (!add).then(|| "pillar".to_string()),
        name: add.then(|| "pillar".to_string()),
    };
    let sim = SimSettings {
        seconds: 40.0,
        record_every: 1,
        ..SimSettings::default()
    };
    let closest = |r: &navkit::tools::simulation::SimReport| {
        r.agents_detail[0]
            .trajectory
            .iter()
            .map(|&p| xz_distance(p, centre))
            .fold(f32::INFINITY, f32::min)
    };

    // Added at 2 s and kept: walked around.
    let kept = Scenario {
        agents: vec![agent.clone()],
        events: vec![event(2.0, true)],
        ..Scenario::default()
    };
    let r = simulate_dynamic(&geom, &settings, &kept, &sim).unwrap();
    eprintln!(
        "kept: arrived at {:?} s, closest {:.2}, tiles rebuilt {}",
        r.agents_detail[0].arrived_at,
        closest(&r),
        r.tiles_rebuilt
    );
    assert_eq!((r.arrived, r.obstacle_events), (1, 1));
    assert!(r.tiles_rebuilt >= 1);
    assert!(closest(&r) > radius - 0.35, "{}", closest(&r));

    // Added at 1 s, removed at 2 s (before the agent gets there): walked straight through.
    let gone = Scenario {
        agents: vec![agent],
        events: vec![event(2.0, false), event(1.0, true)],
        ..Scenario::default()
    };
    let r = simulate_dynamic(&geom, &settings, &gone, &sim).unwrap();
    eprintln!(
        "added and removed: arrived at {:?} s, closest {:.2}",
        r.agents_detail[0].arrived_at,
        closest(&r)
    );
    assert_eq!((r.arrived, r.obstacle_events), (1, 2));
    assert!(closest(&r) < 0.5, "{}", closest(&r));

    // Bad events are errors.
    for bad in [
        vec![event(1.0, false)],
        vec![event(f32::NAN, true)],
        vec![ObstacleEvent {
            at: 1.0,
            add: None,
            remove: None,
            name: None,
        }],
        vec![event(1.0, true), event(2.0, true)],
    ] {
        let s = Scenario {
            events: bad.clone(),
            ..Scenario::default()
        };
        assert!(s.check_events().is_err(), "{bad:?}");
    }
}

#[test]
fn scenario_event_files_and_many_events_at_once() {
    let path = common::temp("dynamic-events.json");
    std::fs::write(
        &path,
        r#"{"agents": [{"start": [1, 0, 2], "goal": [20, 0, 5]}],
            "events": [
              {"at": 10.0, "add": {"kind": "box", "bmin": [0, 0, 0], "bmax": [1, 2, 6]}, "name": "gate"},
              {"at": 4.0, "add": {"kind": "cylinder", "pos": [5, 0, 3], "radius": 1, "height": 2}},
              {"at": 20.0, "remove": "gate"}
            ]}"#,
    )
    .unwrap();
    let s = Scenario::load(&path).unwrap();
    assert_eq!(s.events.len(), 3);
    assert_eq!(s.events[2].remove.as_deref(), Some("gate"));
    // Old files (no events) still load; unknown fields, removals of unknown names, events
    // both adding and removing, and bad times are errors naming the file.
    for (text, ok) in [
        (r#"{"obstacles": []}"#, true),
        (r#"{"events": []}"#, true),
        (r#"{"events": [{"at": 1, "remove": "x"}]}"#, false),
        (
            r#"{"events": [{"at": 1, "add": {"kind": "cylinder", "pos": [0, 0, 0], "radius": 1, "height": 2}, "colour": "red"}]}"#,
            false,
        ),
        (
            r#"{"events": [{"at": 1, "add": {"kind": "cylinder", "pos": [0, 0, 0], "radius": 1, "height": 2, "colour": "red"}}]}"#,
            false,
        ),
        (
            r#"{"events": [{"at": -1, "add": {"kind": "box", "bmin": [0, 0, 0], "bmax": [1, 1, 1]}}]}"#,
            false,
        ),
        (
            r#"{"events": [{"at": 1, "add": {"kind": "box", "bmin": [0, 0, 0], "bmax": [1, 1, 1]}, "name": "a"}, {"at": 2, "remove": "a", "add": {"kind": "box", "bmin": [0, 0, 0], "bmax": [1, 1, 1]}}]}"#,
            false,
        ),
        (
            r#"{"events": [{"at": 2, "remove": "a"}, {"at": 1, "add": {"kind": "box", "bmin": [0, 0, 0], "bmax": [1, 1, 1]}, "name": "a"}]}"#,
            true,
        ),
    ] {
        std::fs::write(&path, text).unwrap();
        let r = Scenario::load(&path);
        assert_eq!(r.is_ok(), ok, "{text}: {r:?}");
        if let Err(e) = r {
            assert!(e.to_string().contains("dynamic-events.json"), "{e}");
        }
    }

    // Eighty small pillars dropped at once at 1 s (more tile rebuilds than Detour queues at
    // once: the later ones wait a few frames), and an event after the end of the run.
    let (geom, a, b) = setup();
    let settings = BuildSettings::default();
    let cache = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let mut q = NavMeshQuery::new(cache.navmesh(), 2048).unwrap();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(3);
    let mut events = Vec::new();
    while events.len() < 80 {
        let (_, p) = q
            .find_random_point(&QueryFilter::default(), &mut rng)
            .unwrap();
        if xz_distance(p, a) > 3.0 && xz_distance(p, b) > 3.0 {
            events.push(ObstacleEvent {
                at: 1.0,
                add: Some(ObstacleShape::Cylinder {
                    pos: p - Vec3::Y * 0.5,
                    radius: 0.5,
                    height: 2.0,
                }),
                remove: None,
                name: Some(format!("pillar {}", events.len())),
            });
        }
    }
    let scenario = Scenario {
        agents: vec![AgentSpec {
            start: a,
            goal: b,
            behaviour: AgentBehaviour::Direct,
            seed: 0,
        }],
        events,
        ..Scenario::default()
    };
    let sim = SimSettings {
        seconds: 40.0,
        ..SimSettings::default()
    };
    let r = simulate_dynamic(&geom, &settings, &scenario, &sim).unwrap();
    eprintln!(
        "80 pillars at once: {} events applied, {} tiles rebuilt, settled after {:.2} s; \
         agent arrived at {:?} s",
        r.obstacle_events, r.tiles_rebuilt, r.obstacle_settle_max, r.agents_detail[0].arrived_at
    );
    assert_eq!(r.obstacle_events, 80);
    assert!(r.tiles_rebuilt >= 10, "{}", r.tiles_rebuilt);
    // The later pillars waited at least a frame for room in the queue.
    assert!(r.obstacle_settle_max > 0.03 && r.obstacle_settle_max < 5.0);
    assert_eq!(r.arrived, 1);
    let mut late = scenario.clone();
    late.events[0].at = 40.0;
    let e = simulate_dynamic(&geom, &settings, &late, &sim).unwrap_err();
    assert!(e.to_string().contains("end of the"), "{e}");
}

/// A route's corners, completeness and length.
struct Route {
    points: Vec<Vec3>,
    complete: bool,
    length: f32,
}

fn route(cache: &TileCache, a: Vec3, b: Vec3) -> Route {
    let mut q = NavMeshQuery::new(cache.navmesh(), 4096).unwrap();
    let f = QueryFilter::default();
    let p = q
        .path(a, b, &f, &PathOptions::corridor_only())
        .map(|p| p.corridor)
        .unwrap();
    let sp = q
        .find_straight_path(a, b, &p.polys, &StraightPathOptions::default())
        .unwrap();
    Route {
        points: sp.positions(),
        complete: p.is_complete(),
        length: sp.length(),
    }
}

/// An axis-aligned box obstacle standing on `c` with half width `h` in x and z.
fn square(c: Vec3, h: f32) -> ObstacleShape {
    ObstacleShape::Box {
        bmin: c - Vec3::new(h, 0.5, h),
        bmax: c + Vec3::new(h, 2.5, h),
    }
}

/// How far `p` is outside the box's footprint in xz (negative inside).
fn outside(shape: &ObstacleShape, p: Vec3) -> f32 {
    let ObstacleShape::Box { bmin, bmax } = *shape else {
        unreachable!()
    };
    let dx = (bmin.x - p.x).max(p.x - bmax.x);
    let dz = (bmin.z - p.z).max(p.z - bmax.z);
    if dx > 0.0 && dz > 0.0 {
        dx.hypot(dz)
    } else {
        dx.max(dz)
    }
}

/// A square box across a narrow place of the route `a` -> `b`, at least `min_along` metres along
/// it and 5 m before its end, wide enough to close the corridor there (its width plus the
/// agent radius each side): the first that makes the route partial (`want_partial`), or
/// complete but at least 2 m longer. The narrow places are found as in tests/tilecache.rs, with
/// two raycasts across the route every 0.5 m. The cache is left without the box.
fn find_blocking_box(
    cache: &mut TileCache,
    a: Vec3,
    b: Vec3,
    want_partial: bool,
    min_along: f32,
) -> Option<(ObstacleShape, Vec3, Route)> {
    let before = route(cache, a, b);
    let f = QueryFilter::default();
    let mut candidates = Vec::new();
    {
        let mut q = NavMeshQuery::new(cache.navmesh(), 4096).unwrap();
        let mut walked = 0.0;
        for w in before.points.windows(2) {
            let seg = w[1] - w[0];
            let len = seg.length();
            let dir = seg / len;
            let side = Vec3::new(-dir.z, 0.0, dir.x).normalize_or_zero();
            let mut t = 1.0;
            while t < len - 1.0 {
                let along = walked + t;
                t += 0.5;
                if along < min_along || along > before.length - 5.0 {
                    continue;
                }
                let Ok(n) = q.find_nearest_poly(w[0] + dir * (t - 0.5), DEFAULT_HALF_EXTENTS, &f)
                else {
                    continue;
                };
                let mut reach = [10.0f32; 2];
                for (k, sgn) in [1.0f32, -1.0].into_iter().enumerate() {
                    if let Ok(hit) = q.raycast(
                        n.poly,
                        n.point,
                        n.point + side * (10.0 * sgn),
                        &f,
                        &RaycastOptions::default(),
                    ) {
                        if hit.hit() {
                            reach[k] = hit.t * 10.0;
                        }
                    }
                }
                let width = reach[0] + reach[1];
                if width < 6.0 {
                    candidates.push((width, n.point + side * ((reach[0] - reach[1]) * 0.5)));
                }
            }
            walked += len;
        }
    }
    candidates.sort_by(|x, y| x.0.total_cmp(&y.0));
    for &(width, c) in candidates.iter().take(40) {
        let shape = square(c, width * 0.5 + 0.6);
        if outside(&shape, a) < 2.0 || outside(&shape, b) < 2.0 {
            continue;
        }
        let ob = cache.add(&shape).unwrap();
        cache.update_until_done().unwrap();
        let with = route(cache, a, b);
        cache.remove(ob).unwrap();
        cache.update_until_done().unwrap();
        let wanted = if want_partial {
            !with.complete
        } else {
            with.complete && with.length > before.length + 2.0
        };
        if wanted {
            return Some((shape, c, with));
        }
    }
    None
}

/// What one agent did in [`walk`].
struct Walk {
    /// Positions every frame, with the time after the frame.
    trajectory: Vec<(f32, Vec3)>,
    /// When it came within 1 m (xz) of its goal.
    arrived_at: Option<f32>,
}

/// A change to a crowd at a time (seconds) of [`walk`].
type Change<'a> = (f32, &'a mut dyn FnMut(&mut Crowd<TileCache>));

/// Runs the crowd for `seconds`, the tile cache rebuilding for at most 2 ms each frame, and
/// records `agent`. At `change.0` seconds `change.1` is applied to the crowd. Returns the walk
/// and the time the cache was up to date again after the change.
fn walk(
    crowd: &mut Crowd<TileCache>,
    agent: AgentHandle,
    goal: Vec3,
    seconds: f32,
    mut change: Option<Change<'_>>,
) -> (Walk, Option<f32>) {
    let dt = 1.0 / 30.0;
    let mut w = Walk {
        trajectory: Vec::new(),
        arrived_at: None,
    };
    let mut settled = None;
    let mut changed = false;
    for frame in 0..(seconds / dt) as usize {
        let t = frame as f32 * dt;
        if let Some((at, f)) = change.as_mut() {
            if t >= *at && !changed {
                f(crowd);
                changed = true;
            }
        }
        let u = crowd
            .tile_cache_mut()
            .update(Duration::from_millis(2))
            .unwrap();
        if changed && settled.is_none() && u.up_to_date {
            settled = Some(t);
        }
        crowd.update(dt).unwrap();
        let p = crowd.agent(agent).unwrap().position;
        w.trajectory.push((t + dt, p));
        if w.arrived_at.is_none() && xz_distance(p, goal) < 1.0 {
            w.arrived_at = Some(t + dt);
        }
    }
    (w, settled)
}

fn path_length(points: &[(f32, Vec3)]) -> f32 {
    points.windows(2).map(|w| w[0].1.distance(w[1].1)).sum()
}

/// A box closes a corridor ahead of a walking agent: `partial` says whether the level has
/// another way (the agent must take it and arrive) or not (it must stop short of the box with
/// a partial path). Either way it never enters the box once the tiles are rebuilt. Then the box
/// is removed: the first agent carries on if it was stopped, and a second agent on the same
/// route walks straight through where the box stood, the shorter way.
fn box_closes_a_corridor(mesh: &str, a: Vec3, b: Vec3, want_partial: bool) {
    let geom = InputGeometry::load(common::mesh(mesh)).unwrap();
    let mut cache = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let free = route(&cache, a, b);
    assert!(free.complete);
    let (shape, centre, with) = find_blocking_box(&mut cache, a, b, want_partial, 18.0)
        .unwrap_or_else(|| panic!("no box closes the way {a} -> {b} (partial {want_partial})"));
    let what = format!(
        "{mesh} {}",
        if want_partial { "dead end" } else { "detour" }
    );
    // Time enough to walk the route 1.5 times at 3.5 m/s.
    let seconds = free.length / 3.5 * 1.5 + 10.0;
    eprintln!(
        "{what}: {shape:?} at {centre}; route {:.1} m, with the box {} {:.1} m",
        free.length,
        if with.complete { "complete" } else { "partial" },
        with.length
    );

    let mut crowd = Crowd::with_tile_cache(cache, 4, 0.6).unwrap();
    let first = crowd.add_agent(a, AgentParams::default()).unwrap();
    crowd.request_move_target(first, b).unwrap();
    let mut box_ref = None;
    let mut add = |c: &mut Crowd<TileCache>| {
        let p = c.agent(first).unwrap().position;
        assert!(
            outside(&shape, p) > 4.0,
            "{what}: the agent at {p} is already near the box when it is added"
        );
        box_ref = Some(c.tile_cache_mut().add(&shape).unwrap());
    };
    let (w1, settled) = walk(&mut crowd, first, b, seconds, Some((2.0, &mut add)));
    let settled = settled.expect("the tile cache caught up");
    let box_ref = box_ref.unwrap();
    let after: Vec<(f32, Vec3)> = w1
        .trajectory
        .iter()
        .copied()
        .filter(|&(t, _)| t > settled + 1.0 / 30.0)
        .collect();
    let (closest_t, closest_p) = after
        .iter()
        .copied()
        .min_by(|x, y| outside(&shape, x.1).total_cmp(&outside(&shape, y.1)))
        .unwrap();
    let state = crowd.agent(first).unwrap();
    eprintln!(
        "{what}: box added at 2.00 s, tiles rebuilt by {settled:.2} s; agent 1 closest to the box \
         {:.2} m at {closest_t:.2} s ({closest_p}); arrived {:?}; at the end at {} ({:.1} m from the \
         goal, partial {}), walked {:.1} m",
        outside(&shape, closest_p),
        w1.arrived_at,
        state.position,
        xz_distance(state.position, b),
        !state.path_status.is_complete(),
        path_length(&w1.trajectory)
    );
    assert!(settled < 2.5, "{what}: tiles rebuilt only by {settled} s");
    // The walkable area is not eroded around obstacles; the box has the agent radius (0.6) of
    // clearance, so the centre keeps out of it but for the cell size's rounding (0.3).
    assert!(
        outside(&shape, closest_p) > -0.35,
        "{what}: the agent entered the box at {closest_p} at {closest_t} s"
    );
    if want_partial {
        assert_eq!(w1.arrived_at, None, "{what}: it cannot get through");
        assert_eq!(
            state.path_status,
            PathStatus::Partial,
            "{what}: its path is partial"
        );
        let end = *with.points.last().unwrap();
        assert!(
            xz_distance(state.position, end) < 1.0 && state.velocity.length() < 0.1,
            "{what}: it stops at {}, not where the partial path ends ({end})",
            state.position
        );
    } else {
        assert!(w1.arrived_at.is_some(), "{what}: it arrives the other way");
        assert_eq!(state.path_status, PathStatus::Complete);
        assert!(
            path_length(&w1.trajectory) > with.length - 1.0,
            "{what}: it takes the way round"
        );
    }

    // The box goes: the first agent (if stopped) goes on by itself, DetourCrowd replanning its
    // partial path; a second agent walks the first route straight through the box's place.
    let mut remove = |c: &mut Crowd<TileCache>| c.tile_cache_mut().remove(box_ref).unwrap();
    let (_, settled) = walk(&mut crowd, first, b, 1.0, Some((0.0, &mut remove)));
    assert!(settled.is_some());
    assert!(crowd.tile_cache().obstacles().is_empty());
    let second = crowd.add_agent(a, AgentParams::default()).unwrap();
    crowd.request_move_target(second, b).unwrap();
    let (w2, _) = walk(&mut crowd, second, b, seconds, None);
    let first_end = crowd.agent(first).unwrap().position;
    let deepest = w2
        .trajectory
        .iter()
        .map(|&(_, p)| outside(&shape, p))
        .fold(f32::INFINITY, f32::min);
    eprintln!(
        "{what}: box removed at 0 s, tiles rebuilt by {:?} s; agent 2 arrived after {:?} s, walked \
         {:.1} m (route {:.1} m), {deepest:.2} m deep inside the box's place; agent 1 ends {:.2} \
         m from the goal",
        settled,
        w2.arrived_at,
        path_length(&w2.trajectory),
        free.length,
        xz_distance(first_end, b)
    );
    assert!(w2.arrived_at.is_some(), "{what}: the second agent arrives");
    assert!(
        deepest < -0.5,
        "{what}: the second agent goes through where the box stood"
    );
    // The first route: as long as it (give or take the crowd's corners), and shorter than the
    // way round the box if there was one.
    let bound = if want_partial {
        free.length + 3.0
    } else {
        with.length
    };
    assert!(
        path_length(&w2.trajectory) < bound,
        "{what}: the second agent takes the first route"
    );
    assert!(
        xz_distance(first_end, b) < 1.0,
        "{what}: the first agent arrives too"
    );
    // The crowd gives the cache back, box gone, route as before.
    let cache = crowd.into_tile_cache();
    assert!((route(&cache, a, b).length - free.length).abs() < 1e-3);
}

#[test]
fn a_box_closing_a_corridor_ahead_sends_the_agent_round_and_its_removal_reopens_it() {
    let (_, a, b) = setup();
    box_closes_a_corridor("nav_test.obj", a, b, false);
}

#[test]
fn a_box_closing_the_only_way_stops_the_agent_short_until_it_is_removed() {
    // nav_test.obj has a loop round every corridor; dungeon.obj has rooms with one door. Of
    // seeded random routes of 25 to 60 m, the first that one box shuts.
    let geom = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    let mut cache = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let f = QueryFilter::default();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(7);
    let mut pairs = Vec::new();
    {
        let mut q = NavMeshQuery::new(cache.navmesh(), 4096).unwrap();
        for _ in 0..40 {
            let (_, a) = q.find_random_point(&f, &mut rng).unwrap();
            let (_, b) = q.find_random_point(&f, &mut rng).unwrap();
            pairs.push((a, b));
        }
    }
    pairs.retain(|&(a, b)| {
        let r = route(&cache, a, b);
        r.complete && (25.0..60.0).contains(&r.length)
    });
    let (a, b) = pairs
        .into_iter()
        .find(|&(a, b)| find_blocking_box(&mut cache, a, b, true, 18.0).is_some())
        .expect("dungeon: no route of 40 that one box shuts");
    box_closes_a_corridor("dungeon.obj", a, b, true);
}
