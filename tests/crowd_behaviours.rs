//! The crowd behaviours (issue 21): on the crowd suite's scenarios (scenarios/crowd/, levels
//! by scripts/crowd-levels.py) and random agents on dungeon and nav_test, every agent arrives
//! with the behaviours on (the default), where plain DetourCrowd
//! (`CrowdBehaviours::detour_crowd()`) leaves some standing; and no overlap is deeper than
//! DetourCrowd's (the deepest overlap: the smallest centre distance of two agents over the
//! sum of their radii, over every frame).
//!
//! Each run is deterministic (fixed time step, seeded pairs, one thread); the baselines are
//! what plain DetourCrowd does here, measured with this file's runner (and the same as
//! `navkit simulate`'s counts over 120 s: corridor_swap 8/20, crossing 22/24,
//! bottleneck_exit 39/40, dungeon seeds 1..5 at 60 s: 97, 96, 95, 91, 98).
//! Run in release: `cargo test --release --all-features --test crowd_behaviours`.

mod common;

use glam::Vec3;
use navkit::agents::crowd::{Activity, AgentParams, Crowd, CrowdBehaviours, StuckCause};
use navkit::navmesh::NavMesh;
use navkit::tools::compare::{CompareSettings, Comparer};
use navkit::tools::simulation::{Scenario, SimSettings, simulate_scenario};
use navkit::{BuildSettings, InputGeometry, NavMeshBuilder};

/// `navkit simulate`'s time step and arrival distance ([`SimSettings::default`]).
const DT: f32 = 1.0 / 30.0;
const ARRIVE: f32 = 1.0;

/// What a run did.
#[derive(Debug)]
struct Outcome {
    agents: usize,
    /// Came within [`ARRIVE`] (xz) of their goal at some frame (as `navkit simulate` counts).
    arrived: usize,
    /// Not arrived but reported unreachable at the end.
    unreachable: usize,
    /// The smallest centre distance over the sum of radii seen (1: touching).
    deepest: f32,
    /// Pair-frames closer than half the sum of their radii.
    deep: usize,
    /// Not arrived: slot, position, activity and stuck cause at the end.
    left: Vec<(usize, Vec3, Activity, Option<StuckCause>)>,
}

/// Runs agents from `starts` to `goals` for `seconds` with `behaviours`.
fn run(
    navmesh: &NavMesh,
    pairs: &[(Vec3, Vec3)],
    behaviours: CrowdBehaviours,
    seconds: f32,
) -> Outcome {
    let mut crowd = Crowd::new(navmesh, pairs.len(), 0.6).unwrap();
    crowd.set_behaviours(behaviours).unwrap();
    let mut agents = Vec::new();
    for &(start, goal) in pairs {
        let h = crowd.add_agent(start, AgentParams::default()).unwrap();
        crowd.request_move_target(h, goal).unwrap();
        // The snapped goal, as the crowd reports it.
        agents.push((h, crowd.agent(h).unwrap().target));
    }
    let mut arrived = vec![false; agents.len()];
    let mut deepest = f32::INFINITY;
    let mut deep = 0;
    let frames = (seconds / DT).ceil() as usize;
    for _ in 0..frames {
        crowd.update(DT).unwrap();
        let states: Vec<_> = agents
            .iter()
            .map(|(h, _)| crowd.agent(*h).unwrap())
            .collect();
        for (i, a) in states.iter().enumerate() {
            let d = a.position - agents[i].1;
            arrived[i] |= Vec3::new(d.x, 0.0, d.z).length() <= ARRIVE;
            for b in &states[i + 1..] {
                let r = a.params.radius + b.params.radius;
                let ratio = a.position.distance(b.position) / r;
                deepest = deepest.min(ratio);
                deep += usize::from(ratio < 0.5);
            }
        }
    }
    let mut left = Vec::new();
    for (i, (h, _)) in agents.iter().enumerate() {
        if !arrived[i] {
            let a = crowd.agent(*h).unwrap();
            left.push((i, a.position, a.activity, a.stuck));
        }
    }
    Outcome {
        agents: agents.len(),
        arrived: arrived.iter().filter(|a| **a).count(),
        unreachable: left
            .iter()
            .filter(|l| l.3 == Some(StuckCause::Unreachable))
            .count(),
        deepest,
        deep,
        left,
    }
}

fn repo(path: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn level(name: &str) -> navkit::build::SoloBuild {
    let geom = InputGeometry::load(repo(&format!("scenarios/crowd/levels/{name}.obj"))).unwrap();
    NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .unwrap()
}

/// How a run's overlaps must compare with plain DetourCrowd's.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Overlap {
    /// The deepest overlap no deeper than DetourCrowd's (the bar).
    NotDeeper,
    /// Better: no deeper than DetourCrowd's and than this (what was measured, rounded down),
    /// and no more pair-frames closer than half the sum of the radii.
    Better(f32),
}

fn check_overlap(what: &str, on: &Outcome, off: &Outcome, overlap: Overlap) {
    match overlap {
        Overlap::NotDeeper => assert!(
            on.deepest >= off.deepest,
            "{what}: deeper overlap: {on:?} vs {off:?}"
        ),
        Overlap::Better(bound) => assert!(
            on.deepest >= bound.max(off.deepest) && on.deep <= off.deep,
            "{what}: {on:?} vs {off:?}"
        ),
    }
}

/// Runs scenario `name` on `level` for 120 s with behaviours off then on, prints both and
/// checks: plain DetourCrowd gets `baseline` agents there; with behaviours all arrive, with
/// `overlap` against DetourCrowd's; and `navkit simulate`'s runner agrees (it has the
/// behaviours on by default).
fn scenario(name: &str, level_name: &str, baseline: usize, overlap: Overlap) {
    let built = level(level_name);
    let sc = Scenario::load(repo(&format!("scenarios/crowd/{name}.json"))).unwrap();
    let pairs: Vec<(Vec3, Vec3)> = sc.agents.iter().map(|a| (a.start, a.goal)).collect();
    let off = run(
        built.navmesh(),
        &pairs,
        CrowdBehaviours::detour_crowd(),
        120.0,
    );
    let on = run(built.navmesh(), &pairs, CrowdBehaviours::default(), 120.0);
    println!("{name}: DetourCrowd {off:?}\n{name}: behaviours {on:?}");
    assert_eq!(
        off.arrived, baseline,
        "{name}: plain DetourCrowd's count changed"
    );
    assert_eq!(
        on.arrived + on.unreachable,
        on.agents,
        "{name}: left {:?}",
        on.left
    );
    check_overlap(name, &on, &off, overlap);
    let settings = SimSettings {
        seconds: 120.0,
        ..SimSettings::default()
    };
    let sim = simulate_scenario(built.navmesh(), &sc.agents, &settings).unwrap();
    assert_eq!(sim.arrived, on.arrived, "{name}: navkit simulate's count");
}

// Baselines: plain DetourCrowd over 120 s, measured here and by `navkit simulate` (see the
// module docs); the door scenarios and the circle already arrive with DetourCrowd, so there
// the behaviours must keep that and not overlap deeper.

#[test]
fn corridor_swap_everyone_arrives() {
    scenario("corridor_swap", "corridor", 8, Overlap::NotDeeper);
}

#[test]
fn crossing_everyone_arrives() {
    scenario("crossing", "crossing", 22, Overlap::NotDeeper);
}

#[test]
fn bottleneck_exit_everyone_arrives() {
    // 40 agents 1.6 m apart (0.4 m between edges) rush the exit. DetourCrowd lets two of them
    // be pressed onto one point beside the exit (its proximity grid gives at most 32 agents
    // around one, so in that crowd they are not each other's neighbours and its collision step
    // never separates them; measured: centre distance 0.025 m). The behaviours' separation
    // keeps every pair at least half the sum of their radii apart where it can (measured:
    // smallest centre distance 0.567 m, 0.47 of the sum; deepest overlap 0.633 m against
    // DetourCrowd's 1.175 m); bound rounded down.
    scenario("bottleneck_exit", "bottleneck", 39, Overlap::Better(0.45));
}

#[test]
fn door_swap_everyone_arrives() {
    scenario("door_swap", "door", 16, Overlap::NotDeeper);
}

#[test]
fn door_oneway_everyone_arrives() {
    // The queue: measured 1.000 (never closer than touching) against DetourCrowd's 0.794.
    scenario("door_oneway", "door", 30, Overlap::Better(0.99));
}

#[test]
fn circle_swap_everyone_arrives() {
    scenario("circle_swap", "open", 24, Overlap::NotDeeper);
}

/// 100 random agents (`navkit simulate`'s pairs: `Comparer::random_pairs(100, seed)`) for 60 s
/// on `mesh` at each seed: (seed, plain DetourCrowd's count, the count with behaviours, the
/// overlap check).
fn random_agents(mesh: &str, cases: &[(u64, usize, usize, Overlap)]) {
    let built = common::build(mesh);
    let mut failed = Vec::new();
    for &(seed, baseline, expected, overlap) in cases {
        let pairs = Comparer::new(built.navmesh(), None, CompareSettings::default())
            .unwrap()
            .random_pairs(100, seed)
            .unwrap();
        let off = run(
            built.navmesh(),
            &pairs,
            CrowdBehaviours::detour_crowd(),
            60.0,
        );
        let on = run(built.navmesh(), &pairs, CrowdBehaviours::default(), 60.0);
        println!("{mesh} seed {seed}: DetourCrowd {off:?}\n{mesh} seed {seed}: behaviours {on:?}");
        assert_eq!(
            off.arrived, baseline,
            "{mesh} seed {seed}: DetourCrowd's count changed"
        );
        if on.arrived + on.unreachable < expected {
            failed.push((seed, on.arrived, on.unreachable));
        }
        check_overlap(&format!("{mesh} seed {seed}"), &on, &off, overlap);
    }
    assert!(
        failed.is_empty(),
        "{mesh}: (seed, arrived, unreachable): {failed:?}"
    );
}

#[test]
fn dungeon_random_agents_all_arrive() {
    // Seed 2 met with the lane rule (`CrowdBehaviours::lanes`, h9): 100 of 100, slot 97 at
    // 48.6 s (`navkit simulate --trajectories`); every suite run and seed stays at 100 and not
    // deeper than DetourCrowd, and the sum of arrival times over dungeon and nav_test seeds 1-5
    // drops from 15,150 s to 14,122 s. Its turn (10 to 25 degrees) and room (3 radii plus the
    // margin) were chosen among variants measured on the whole suite: 15 to 30 degrees or 2
    // radii left the corridor swap at 18 of 20; 10 to 20 degrees at 7 of 20; 10 to 30 degrees
    // seed 2 at 99; holding the turn to oncoming agents in plain walking (not aside) nav_test
    // seed 2's deepest overlap at 0.024 m against DetourCrowd's 0.006 m.
    // Before the lane rule, at seed 2: 99 of 100 arrive; the last (slot 97, a 120 m walk
    // across the level through its busiest corridors, 35 s alone) is still on its way at 60 s,
    // 3.2 m short of
    // its goal (measured, with and without the separation, which never acts here). Where its
    // 23 s go (measured frame by frame): about 6 s yielding (4 s aside at (32.8, 1.0) for an
    // agent backing off into it, until the flow coming the other way has passed or its own
    // yielding has raised its priority), 4 s queued behind slow agents in the corridors at
    // x 11..17 and near (1, -10), and 12 s walking slowed by DetourCrowd's avoidance among
    // agents coming the other way. Tried and dropped, each moving another seed below 100 or an
    // overlap past DetourCrowd's: priority from time lost at any speed, from walking below half
    // the speed, from queued time too, yielding counting double, a 2 s priority step, a
    // shorter look for oncoming agents while aside, and the trip's length (longer first) in
    // 25 to 64 m steps (at 50 m every run arrives but nav_test seed 2's deepest overlap is
    // 0.014 m against DetourCrowd's 0.006 m; at 25 m the corridor swap gets 6 of 20 through).
    // Also tried (h7): an agent waiting aside held only by oncoming agents whose own path
    // passes within the sum of radii plus the margin of its spot (it resumes when its own way
    // is clear, not the whole flow): seed 2 gets 100 (slot 97 at 57.0 s) and every suite run
    // and seed stays at 100 and not deeper than DetourCrowd, but on the viewer's tile-cache
    // corridor swap (tests/view_dynamic.rs) 15 of 20 arrive (17 with the look-ahead path).
    // Tried again (h8, on the merged main; `navkit simulate --suite scenarios/crowd`), none kept:
    // - that release rule (held only by an oncoming agent whose path passes its spot): seed 2
    //   gets 100 (slot 97 at 59.2 s), but here the suite's own corridor swap drops to 7 to 10
    //   of 20 (agents aside at the corridor's mouth resume while the oncoming agent, still in
    //   the corridor, fans out on leaving it, so its path no longer passes their spot) and
    //   nav_test seed 4's deepest overlap is 0.031 m against DetourCrowd's 0.027 m; also
    //   requiring room for it beside the oncoming agent (where it is and halfway to it, by
    //   navmesh raycasts) brings the corridor swap back to 20 but seed 2 back to 99. Slot 97's
    //   4 s aside at (32.8, 0.6) is the same with and without it: the agents that hold it there
    //   walk straight at its spot.
    // - queued agents overtaking a leader slower than 0.8 of their speed where there is room
    //   beside it (raycasts to the points beside and ahead of it, no one there, no one coming
    //   within the look-ahead): nav_test seed 2's deepest overlap 0.047 m against
    //   DetourCrowd's 0.006 m (seed 2 stays 99; with the navmesh also 4.2 m wide at and ahead
    //   of the leader, seed 2 gets 100 but that overlap is 0.043 m); passing only leaders not
    //   queued or yielding: dungeon seeds 1, 4, 5 at 99, 99, 98; passing only those held up
    //   on their own (also slow for `head_on_after`): every run at 100 and not deeper than
    //   DetourCrowd, the view_dynamic toggle (7, 20), and the sum of arrival times over
    //   dungeon and nav_test seeds 1-5 cut from 15,150 s to 14,974 s, but seed 2 unchanged:
    //   slot 97's queued seconds are behind slot 81 at (11.9, -3), itself jostled sideways by
    //   DetourCrowd's avoidance among four agents (never slow long enough for the head-on
    //   rule) with no room to pass.
    // Seed 4's deepest overlap: measured 0.963 of the sum of radii against
    // DetourCrowd's 0.960 (0.935 before agents held up walking slowly gained priority as
    // yielding ones do).
    random_agents(
        "dungeon.obj",
        &[
            (1, 97, 100, Overlap::NotDeeper),
            (2, 96, 100, Overlap::NotDeeper),
            (3, 95, 100, Overlap::NotDeeper),
            (4, 91, 100, Overlap::NotDeeper),
            (5, 98, 100, Overlap::NotDeeper),
        ],
    );
}

#[test]
fn nav_test_random_agents_all_arrive() {
    random_agents(
        "nav_test.obj",
        &[
            (1, 100, 100, Overlap::NotDeeper),
            (2, 98, 100, Overlap::NotDeeper),
            (3, 97, 100, Overlap::NotDeeper),
        ],
    );
}

/// One agent per pair on `navmesh` (a crowd of `n`), each sent to its goal.
fn crowd_of<'a>(
    navmesh: &'a NavMesh,
    pairs: &[(Vec3, Vec3)],
) -> (Crowd<&'a NavMesh>, Vec<navkit::agents::crowd::AgentHandle>) {
    let mut crowd = Crowd::new(navmesh, pairs.len().max(1), 0.6).unwrap();
    let hs = pairs
        .iter()
        .map(|&(s, g)| {
            let h = crowd.add_agent(s, AgentParams::default()).unwrap();
            crowd.request_move_target(h, g).unwrap();
            h
        })
        .collect();
    (crowd, hs)
}

/// A crowd on the corridor level: agent A arrived (its goal where it stands) in the middle of
/// the corridor at (18, 5.1), on the south side, which the path of B, from the west room to the
/// east one, hugs (its corners at the corridor ends are on z = 5.1).
fn arrived_in_corridor(
    navmesh: &NavMesh,
) -> (Crowd<&NavMesh>, Vec<navkit::agents::crowd::AgentHandle>) {
    let goal_a = Vec3::new(18.0, 0.0, 5.1);
    crowd_of(
        navmesh,
        &[
            (goal_a, goal_a),
            (Vec3::new(6.0, 0.0, 3.0), Vec3::new(30.0, 0.0, 3.0)),
        ],
    )
}

#[test]
fn an_arrived_agent_in_a_corridor_steps_aside_keeps_its_goal_and_returns() {
    // Hand-made (`arrived_in_corridor`, the corridor 3 m wide: centres z 5.1..6.9): B walks
    // along the side where A stands. With give way on, A steps aside (its activity says so) while its
    // target stays its goal, B passes, A goes back to within arrival distance of its goal.
    let built = level("corridor");
    let (mut crowd, hs) = arrived_in_corridor(built.navmesh());
    let (a, b) = (hs[0], hs[1]);
    // Snapped onto the navmesh (the corridor's south edge).
    let goal_a = crowd.agent(a).unwrap().target;
    let mut gave_way = false;
    let mut closest = f32::INFINITY;
    for _ in 0..(40.0 / DT) as usize {
        crowd.update(DT).unwrap();
        let (sa, sb) = (crowd.agent(a).unwrap(), crowd.agent(b).unwrap());
        gave_way |= sa.activity == Activity::GivingWay;
        // The user's target, whatever the behaviour steers to.
        assert!(
            sa.target.distance(goal_a) < 0.3,
            "A's target {:?}",
            sa.target
        );
        closest = closest.min(sa.position.distance(sb.position));
    }
    let (sa, sb) = (crowd.agent(a).unwrap(), crowd.agent(b).unwrap());
    println!(
        "A {:?} at {:?}, B {:?} at {:?}, closest {closest}",
        sa.activity, sa.position, sb.activity, sb.position
    );
    assert!(gave_way, "A never gave way");
    assert_eq!(sb.activity, Activity::Arrived, "B arrived");
    assert_eq!(sa.activity, Activity::Arrived, "A is back");
    assert!(Vec3::new(sa.position.x - goal_a.x, 0.0, sa.position.z - goal_a.z).length() <= 0.6);
    // They never overlapped deeper than a tenth of their radii (measured: they kept apart).
    assert!(closest > 1.08, "closest {closest}");
}

#[test]
fn a_new_request_cancels_the_behaviour_in_progress() {
    // As above, until A is giving way; then the user sends A elsewhere: it is moving there at
    // once (its dtCrowd target is the user's, not the spot), and the next frame too.
    let built = level("corridor");
    let (mut crowd, hs) = arrived_in_corridor(built.navmesh());
    let a = hs[0];
    let mut frames = 0;
    while crowd.agent(a).unwrap().activity != Activity::GivingWay {
        crowd.update(DT).unwrap();
        frames += 1;
        assert!(frames < 600, "A never gave way");
    }
    let elsewhere = Vec3::new(3.0, 0.0, 9.0);
    crowd.request_move_target(a, elsewhere).unwrap();
    let s = crowd.agent(a).unwrap();
    assert_eq!(s.activity, Activity::Moving);
    assert!(s.target.distance(elsewhere) < 0.5);
    crowd.update(DT).unwrap();
    assert!(crowd.agent(a).unwrap().target.distance(elsewhere) < 0.5);
    crowd.reset_move_target(a).unwrap();
    assert_eq!(crowd.agent(a).unwrap().activity, Activity::Idle);
}

#[test]
fn options_are_checked_and_detour_crowd_turns_everything_off() {
    let built = level("open");
    let mut crowd = Crowd::new(built.navmesh(), 4, 0.6).unwrap();
    assert_eq!(crowd.behaviours(), &CrowdBehaviours::default());
    assert!(!CrowdBehaviours::default().all_off());
    assert!(CrowdBehaviours::detour_crowd().all_off());
    for bad in [f32::NAN, -1.0, f32::INFINITY] {
        let b = CrowdBehaviours {
            margin: bad,
            ..CrowdBehaviours::default()
        };
        assert!(crowd.set_behaviours(b).is_err(), "{bad}");
    }
    assert_eq!(crowd.behaviours(), &CrowdBehaviours::default());
    crowd
        .set_behaviours(CrowdBehaviours::detour_crowd())
        .unwrap();
    assert!(crowd.behaviours().all_off());
}

#[test]
fn an_agent_whose_goal_is_on_a_disconnected_floor_is_reported_unreachable() {
    // Two floors 10 m apart with nothing between (common::two_floors): the path is partial,
    // the agent walks to the edge nearest the goal and stops; stuck detection says why, and
    // says nothing with it off.
    let geom = common::two_floors();
    let built = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    for on in [true, false] {
        let (mut crowd, hs) = crowd_of(
            built.navmesh(),
            &[(Vec3::new(5.0, 0.0, 10.0), Vec3::new(45.0, 0.0, 10.0))],
        );
        if !on {
            crowd
                .set_behaviours(CrowdBehaviours {
                    stuck_detection: false,
                    ..CrowdBehaviours::default()
                })
                .unwrap();
        }
        for _ in 0..(15.0 / DT) as usize {
            crowd.update(DT).unwrap();
        }
        let s = crowd.agent(hs[0]).unwrap();
        assert_eq!(s.path_status, navkit::PathStatus::Partial);
        assert!(s.position.x > 19.0, "at the edge: {:?}", s.position);
        assert_eq!(s.stuck, on.then_some(StuckCause::Unreachable));
        assert_eq!(s.activity, Activity::Moving);
    }
}

#[test]
fn a_closed_corridor_is_reported_and_walked_through_once_opened() {
    // The corridor level as a tile cache; a box closes the corridor (x 17..19) before the agent
    // sets off from the west room to the east one: it walks as near as it can, stops, and is
    // reported stuck (unreachable: its path is partial; or blocked by the obstacle). The box
    // goes at 20 s: the agent replans and arrives.
    let geom = InputGeometry::load(repo("scenarios/crowd/levels/corridor.obj")).unwrap();
    let cache = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .cache_settings(navkit::tilecache::TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let mut crowd = Crowd::with_tile_cache(cache, 2, 0.6).unwrap();
    let gate = crowd
        .tile_cache_mut()
        .add(&navkit::tilecache::ObstacleShape::Box {
            bmin: Vec3::new(17.0, -1.0, 3.0),
            bmax: Vec3::new(19.0, 3.0, 9.0),
        })
        .unwrap();
    crowd.tile_cache_mut().update_until_done().unwrap();
    let goal = Vec3::new(30.0, 0.0, 6.0);
    let h = crowd
        .add_agent(Vec3::new(4.0, 0.0, 6.0), AgentParams::default())
        .unwrap();
    crowd.request_move_target(h, goal).unwrap();
    let mut cause = None;
    for frame in 0..(45.0 / DT) as usize {
        if frame == (20.0 / DT) as usize {
            crowd.tile_cache_mut().remove(gate).unwrap();
        }
        crowd
            .tile_cache_mut()
            .update(std::time::Duration::from_millis(50))
            .unwrap();
        crowd.update(DT).unwrap();
        if frame == (19.0 / DT) as usize {
            cause = crowd.agent(h).unwrap().stuck;
        }
    }
    let s = crowd.agent(h).unwrap();
    println!(
        "cause before opening {cause:?}; at the end {:?} {:?}",
        s.position, s.activity
    );
    assert!(
        matches!(
            cause,
            Some(StuckCause::Unreachable | StuckCause::BlockedByObstacle)
        ),
        "{cause:?}"
    );
    assert_eq!(s.activity, Activity::Arrived);
    assert_eq!(s.stuck, None);
}

/// Flat floor rectangles (x0, z0, x1, z1) at y = 0, as scripts/crowd-levels.py writes them.
fn rects(rs: &[(f32, f32, f32, f32)]) -> InputGeometry {
    let (mut verts, mut tris) = (Vec::new(), Vec::new());
    for (i, &(x0, z0, x1, z1)) in rs.iter().enumerate() {
        for (x, z) in [(x0, z0), (x0, z1), (x1, z1), (x1, z0)] {
            verts.extend([x, 0.0, z]);
        }
        let b = 4 * i as i32;
        tris.extend([b, b + 1, b + 2, b, b + 2, b + 3]);
    }
    InputGeometry::from_mesh(navkit::TriMesh::new(verts, tris).unwrap())
}

#[test]
fn an_agent_blocked_by_agents_in_one_corridor_takes_the_other() {
    // Hand-made: two 10 m rooms joined by a single-file corridor (2.1 m wide, 0.9 m for
    // centres) at z 3..5 and a wide one (3 m) at z 14..17. Six idle agents stand in the narrow
    // one; with give way and head-on off they stay there, and an agent sent from the west room
    // to the east one along z = 4 is stuck behind them (blocked by agents). Replanning finds
    // the way around them (our search over the polygon graph without the polygons under them)
    // and it arrives through the wide corridor; without replanning it is still stuck at 60 s.
    let geom = rects(&[
        (0.0, 0.0, 10.0, 20.0),
        (10.0, 2.95, 20.0, 5.05),
        (10.0, 14.0, 20.0, 17.0),
        (20.0, 0.0, 30.0, 20.0),
    ]);
    let built = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    for replan in [true, false] {
        let mut pairs = vec![(Vec3::new(5.0, 0.0, 4.0), Vec3::new(25.0, 0.0, 4.0))];
        pairs.extend((0..6).map(|i| {
            let p = Vec3::new(11.5 + 1.5 * i as f32, 0.0, 4.0);
            (p, p)
        }));
        let (mut crowd, hs) = crowd_of(built.navmesh(), &pairs);
        for &h in &hs[1..] {
            crowd.reset_move_target(h).unwrap();
        }
        crowd
            .set_behaviours(CrowdBehaviours {
                give_way: false,
                head_on: false,
                replan,
                ..CrowdBehaviours::default()
            })
            .unwrap();
        let (mut north, mut cause) = (0.0f32, None);
        for _ in 0..(60.0 / DT) as usize {
            crowd.update(DT).unwrap();
            let a = crowd.agent(hs[0]).unwrap();
            north = north.max(a.position.z);
            cause = cause.or(a.stuck);
        }
        let a = crowd.agent(hs[0]).unwrap();
        println!(
            "replan {replan}: {:?} at {:?}, north {north}, first cause {cause:?}",
            a.activity, a.position
        );
        assert_eq!(cause, Some(StuckCause::BlockedByAgents));
        if replan {
            assert_eq!(a.activity, Activity::Arrived);
            assert!(north > 14.0, "through the wide corridor: {north}");
        } else {
            assert_ne!(a.activity, Activity::Arrived);
        }
    }
}

#[test]
fn two_agents_on_one_point_are_pushed_apart_along_the_navmesh() {
    // Two standing agents (no target) added at one point of open ground. DetourCrowd never
    // separates them: its collision step pushes agents on top of each other only sideways to
    // their desired velocity, which is zero. The behaviours' separation pushes a pair closer
    // than half the sum of their radii (0.6 m here) apart to 0.6 of it (0.72 m), each half the
    // way, agents on one point along x (the higher slot the positive way): after one update
    // they stand 0.36 m either side of the point (hand derivation), on the navmesh.
    let built = level("open");
    for on in [true, false] {
        let mut crowd = Crowd::new(built.navmesh(), 2, 0.6).unwrap();
        if !on {
            crowd
                .set_behaviours(CrowdBehaviours::detour_crowd())
                .unwrap();
        }
        let p = Vec3::new(20.0, 0.0, 20.0);
        let a = crowd.add_agent(p, AgentParams::default()).unwrap();
        let b = crowd.add_agent(p, AgentParams::default()).unwrap();
        let start = crowd.agent(a).unwrap().position;
        crowd.update(DT).unwrap();
        let (pa, pb) = (
            crowd.agent(a).unwrap().position,
            crowd.agent(b).unwrap().position,
        );
        if !on {
            assert_eq!(pa, pb, "DetourCrowd moved them");
            continue;
        }
        assert!((pa.x - (start.x - 0.36)).abs() < 1e-3, "{pa} from {start}");
        assert!((pb.x - (start.x + 0.36)).abs() < 1e-3, "{pb} from {start}");
        assert!((pa.z - start.z).abs() < 1e-3 && (pb.z - start.z).abs() < 1e-3);
        assert!((pa.y - start.y).abs() < 0.05 && (pb.y - start.y).abs() < 0.05);
        // Then DetourCrowd's own collision step keeps them apart.
        for _ in 0..60 {
            crowd.update(DT).unwrap();
        }
        let d = crowd.agent(a).unwrap().position - crowd.agent(b).unwrap().position;
        assert!(d.length() >= 0.72 - 1e-3, "{d}");
    }
}

/// Two rows of five agents walking at each other across the corridor level's west room
/// (12 m square), one from each row on each line z = 3, 4.5, .. 9, from x = 1 to 11 and back:
/// the sum of their arrival times (within [`ARRIVE`]; 40 s for one that never arrives).
fn rows_meeting(behaviours: CrowdBehaviours) -> f32 {
    let built = level("corridor");
    let mut pairs = Vec::new();
    for z in [3.0, 4.5, 6.0, 7.5, 9.0] {
        let (w, e) = (Vec3::new(1.0, 0.0, z), Vec3::new(11.0, 0.0, z));
        pairs.push((w, e));
        pairs.push((e, w));
    }
    let (mut crowd, hs) = crowd_of(built.navmesh(), &pairs);
    crowd.set_behaviours(behaviours).unwrap();
    let mut arrived_at = vec![None; hs.len()];
    for f in 1..(40.0 / DT) as usize {
        crowd.update(DT).unwrap();
        for (k, &h) in hs.iter().enumerate() {
            let (p, g) = (crowd.agent(h).unwrap().position, pairs[k].1);
            if arrived_at[k].is_none() && Vec3::new(p.x - g.x, 0.0, p.z - g.z).length() <= ARRIVE {
                arrived_at[k] = Some(f as f32 * DT);
            }
        }
    }
    arrived_at.iter().map(|t| t.unwrap_or(40.0)).sum()
}

#[test]
fn two_rows_meeting_head_on_pass_sooner_on_lanes() {
    // Measured (sum of the ten arrival times): lanes 41.5 s; the other behaviours without
    // lanes 44.2 s; plain DetourCrowd 44.2 s (its avoidance has the pairs brake and side-step
    // into each other). Two agents alone meeting head-on here are not helped (7.9 s with
    // lanes against DetourCrowd's 7.5 s: its avoidance already splits a lone symmetric pair);
    // the gain is in flows.
    let lanes = rows_meeting(CrowdBehaviours::default());
    let no_lanes = rows_meeting(CrowdBehaviours {
        lanes: false,
        ..CrowdBehaviours::default()
    });
    let detour = rows_meeting(CrowdBehaviours::detour_crowd());
    println!("lanes {lanes} s, without lanes {no_lanes} s, DetourCrowd {detour} s");
    assert!(
        lanes < 0.97 * no_lanes,
        "lanes {lanes} s, without {no_lanes} s"
    );
    assert!(
        lanes < 0.97 * detour,
        "lanes {lanes} s, DetourCrowd {detour} s"
    );
}
