//! navkit's crowd update (`CrowdEngine::Navkit`, the per-agent phases on several threads)
//! gives upstream's `dtCrowd::update` (`CrowdEngine::Upstream`) results to the bit, frame after
//! frame, and the same results for any thread count.
//!
//! The reference is DetourCrowd itself: twin crowds over the same navmesh, with the same
//! agents, parameters and requests, one updated by `dtCrowd_update`, the other by navkit's
//! update; after every frame every agent's position, velocity, desired and planned velocity,
//! corners, target state and target, off-mesh flag, path status, corridor and neighbours must
//! have the same bits. Scenes: 1000 random agents on nav_test, dungeon, a level with an
//! off-mesh jump, agents with every avoidance preset and each update flag off with removals,
//! new targets, velocity requests and resets mid-run, and a tile-cache crowd with obstacles
//! added and removed under it.
//!
//! Every crowd here runs the crowd behaviours but the lane rule (`CrowdBehaviours::lanes`),
//! which turns desired velocities inside navkit's update and has no counterpart in upstream's
//! (`no_lanes`); `lanes_give_the_same_results_for_1_2_and_3_threads` checks navkit's update
//! with it over thread counts.

mod common;

use std::time::Duration;

use glam::Vec3;
use navkit::agents::crowd::{
    AgentParams, Crowd, CrowdBehaviours, CrowdEngine, CrowdNavMesh, update_flags,
};
use navkit::navmesh::NavMesh;
use navkit::tilecache::{ObstacleShape, TileCache, TileCacheSettings};
use navkit::tools::compare::{CompareSettings, Comparer};
use navkit::{BuildSettings, InputGeometry, NavMeshBuilder};

const DT: f32 = 1.0 / 30.0;

/// The crowd behaviours upstream's update can run too: all but the lane rule.
fn no_lanes<N: CrowdNavMesh>(crowd: &mut Crowd<N>) {
    let b = CrowdBehaviours {
        lanes: false,
        ..CrowdBehaviours::default()
    };
    crowd.set_behaviours(b).unwrap();
}

/// Every compared value of every agent, as bits, by slot.
fn snapshot<N: CrowdNavMesh>(crowd: &Crowd<N>) -> Vec<(usize, Vec<u64>)> {
    let bits = |out: &mut Vec<u64>, v: Vec3| out.extend(v.to_array().map(|f| f.to_bits() as u64));
    crowd
        .handles()
        .into_iter()
        .map(|h| {
            let a = crowd.agent(h).unwrap();
            let mut out = Vec::new();
            for v in [a.position, a.velocity, a.desired_velocity, a.target] {
                bits(&mut out, v);
            }
            out.push(a.corners.len() as u64);
            for &c in &a.corners {
                bits(&mut out, c);
            }
            out.push(a.target_state as u64);
            out.push(u64::from(a.off_mesh));
            out.push(a.path_status as u64);
            let (corridor, planned) = crowd.corridor(h).unwrap();
            bits(&mut out, planned);
            out.push(corridor.len() as u64);
            out.extend(corridor.iter().map(|r| r.to_u64()));
            for n in crowd.neighbours(h).unwrap() {
                out.push(n.agent.index() as u64);
                out.push(n.distance_squared.to_bits() as u64);
            }
            (h.index(), out)
        })
        .collect()
}

/// Asserts that `ours` is `reference` to the bit; names the first agent that differs.
fn assert_same<N: CrowdNavMesh, M: CrowdNavMesh>(
    reference: &Crowd<N>,
    ours: &Crowd<M>,
    what: &str,
) {
    let (r, o) = (snapshot(reference), snapshot(ours));
    assert_eq!(r.len(), o.len(), "{what}: agent counts differ");
    if let Some((a, b)) = r.iter().zip(&o).find(|(a, b)| a != b) {
        let (ra, oa) = (
            reference.agent(reference.handles()[r.iter().position(|x| x == a).unwrap()]),
            ours.agent(ours.handles()[o.iter().position(|x| x == b).unwrap()]),
        );
        panic!(
            "{what}: agent {} differs:\n upstream {ra:?}\n navkit   {oa:?}",
            a.0
        );
    }
}

/// `n` start/goal pairs on `navmesh` (the crowd benchmark's, seed 3).
fn pairs(navmesh: &NavMesh, n: usize) -> Vec<(Vec3, Vec3)> {
    let mut cmp = Comparer::new(navmesh, None, CompareSettings::default()).unwrap();
    cmp.random_pairs(n, 3).unwrap()
}

/// Crowds over `navmesh`, one per engine/threads choice, each with an agent per pair.
fn crowds<'a>(
    navmesh: &'a NavMesh,
    pairs: &[(Vec3, Vec3)],
    setups: &[(CrowdEngine, usize)],
) -> Vec<Crowd<&'a NavMesh>> {
    setups
        .iter()
        .map(|&(engine, threads)| {
            let mut c = Crowd::new(navmesh, pairs.len().max(1), 0.6).unwrap();
            no_lanes(&mut c);
            c.set_engine(engine);
            c.set_threads(threads).unwrap();
            for &(a, b) in pairs {
                let h = c.add_agent(a, AgentParams::default()).unwrap();
                c.request_move_target(h, b).unwrap();
            }
            c
        })
        .collect()
}

/// Runs `frames` frames, checking every crowd against the first after each.
fn run_checked(crowds: &mut [Crowd<&NavMesh>], frames: usize, what: &str) {
    for f in 0..frames {
        for c in crowds.iter_mut() {
            c.update(DT).unwrap();
        }
        for (k, c) in crowds.iter().enumerate().skip(1) {
            assert_same(&crowds[0], c, &format!("{what}, crowd {k}, frame {f}"));
        }
    }
}

#[test]
fn nav_test_1000_agents_move_as_dtcrowd_moves_them_for_300_frames() {
    // The crowd benchmark's 1000-agent row, for 10 s of frames (the paths take longer: agents
    // are still walking, meeting and queueing at the end).
    let b = common::build("nav_test.obj");
    let p = pairs(b.navmesh(), 1000);
    let mut c = crowds(
        b.navmesh(),
        &p,
        &[(CrowdEngine::Upstream, 1), (CrowdEngine::Navkit, 2)],
    );
    run_checked(&mut c, 300, "nav_test 1000");
    let moved = c[1]
        .handles()
        .iter()
        .filter(|&&h| c[1].agent(h).unwrap().velocity.length() > 0.1)
        .count();
    // Measured: 898 of the 1000 still walking at frame 300, so the frames compared are busy
    // ones (meetings, avoidance, collisions), not a crowd at rest.
    eprintln!("agents walking at frame 300: {moved}");
    assert!(moved > 800, "most agents still walking: {moved}");
}

#[test]
fn dungeon_agents_move_as_dtcrowd_moves_them() {
    let b = common::build("dungeon.obj");
    let p = pairs(b.navmesh(), 300);
    let mut c = crowds(
        b.navmesh(),
        &p,
        &[(CrowdEngine::Upstream, 1), (CrowdEngine::Navkit, 2)],
    );
    run_checked(&mut c, 300, "dungeon 300");
}

#[test]
fn results_are_the_same_for_1_2_and_3_threads() {
    let b = common::build("nav_test.obj");
    let p = pairs(b.navmesh(), 500);
    let setups = [
        (CrowdEngine::Navkit, 1),
        (CrowdEngine::Navkit, 2),
        (CrowdEngine::Navkit, 3),
        (CrowdEngine::Upstream, 1),
    ];
    let mut c = crowds(b.navmesh(), &p, &setups);
    // Without the `parallel` feature every crowd runs on the calling thread.
    let threads = if cfg!(feature = "parallel") {
        [1, 2, 3, 1]
    } else {
        [1; 4]
    };
    assert_eq!(c.iter().map(|c| c.threads()).collect::<Vec<_>>(), threads);
    run_checked(&mut c, 200, "threads");
}

#[test]
fn lanes_give_the_same_results_for_1_2_and_3_threads() {
    // The lane rule on (the default behaviours): navkit's update alone, over thread counts
    // (the first three crowds of `results_are_the_same_for_1_2_and_3_threads`).
    let b = common::build("nav_test.obj");
    let p = pairs(b.navmesh(), 500);
    let mut c = crowds(b.navmesh(), &p, &[(CrowdEngine::Navkit, 1); 3]);
    for (threads, crowd) in (1..).zip(c.iter_mut()) {
        crowd.set_threads(threads).unwrap();
        crowd.set_behaviours(CrowdBehaviours::default()).unwrap();
    }
    run_checked(&mut c, 200, "lanes, threads");
    // The rule acted: without it the same crowd ends elsewhere.
    let mut off = crowds(b.navmesh(), &p, &[(CrowdEngine::Navkit, 1)]);
    run_checked(&mut off, 200, "no lanes");
    assert_ne!(
        snapshot(&off[0]),
        snapshot(&c[0]),
        "the lanes never turned anyone"
    );
}

/// Parameters varied by agent: the four avoidance presets, each update flag off in turn,
/// separation weights and radii.
fn varied_params(k: usize) -> AgentParams {
    let flags = [
        update_flags::ALL,
        update_flags::ALL ^ update_flags::ANTICIPATE_TURNS,
        update_flags::ALL ^ update_flags::OBSTACLE_AVOIDANCE,
        update_flags::ALL ^ update_flags::SEPARATION,
        update_flags::ALL ^ update_flags::OPTIMIZE_VIS,
        update_flags::ALL ^ update_flags::OPTIMIZE_TOPO,
        0,
    ];
    let mut p = AgentParams::with_radius([0.6, 0.45, 0.3][k % 3]);
    p.update_flags = flags[k % flags.len()];
    p.obstacle_avoidance_type = (k % 4) as u8;
    p.separation_weight = [2.0, 0.5, 4.0][k % 3];
    p
}

#[test]
fn varied_agents_with_removals_new_targets_and_velocities_mid_run() {
    let b = common::build("nav_test.obj");
    let p = pairs(b.navmesh(), 400);
    // Room for the 300 agents and the re-added ones.
    let mut c: Vec<_> = [CrowdEngine::Upstream, CrowdEngine::Navkit]
        .into_iter()
        .map(|e| {
            let mut crowd = Crowd::new(b.navmesh(), 320, 0.6).unwrap();
            no_lanes(&mut crowd);
            crowd.set_engine(e);
            crowd.set_threads(2).unwrap();
            for (k, &(a, g)) in p[..300].iter().enumerate() {
                let h = crowd.add_agent(a, varied_params(k)).unwrap();
                crowd.request_move_target(h, g).unwrap();
            }
            crowd
        })
        .collect();
    for f in 0..400 {
        for crowd in c.iter_mut() {
            let hs = crowd.handles();
            match f {
                // Removals, then new agents into the freed slots.
                60 => hs
                    .iter()
                    .step_by(7)
                    .for_each(|&h| crowd.remove_agent(h).unwrap()),
                61 => {
                    for (k, &(a, g)) in p[300..340].iter().enumerate() {
                        let h = crowd.add_agent(a, varied_params(k)).unwrap();
                        crowd.request_move_target(h, g).unwrap();
                    }
                }
                // New targets for some, velocities for others, resets for a few.
                120 => {
                    for (k, &h) in hs.iter().enumerate().step_by(5) {
                        crowd.request_move_target(h, p[(k * 13) % 400].1).unwrap();
                    }
                }
                150 => {
                    for &h in hs.iter().skip(1).step_by(11) {
                        crowd
                            .request_move_velocity(h, Vec3::new(1.5, 0.0, -0.5))
                            .unwrap();
                    }
                    for &h in hs.iter().skip(2).step_by(17) {
                        crowd.reset_move_target(h).unwrap();
                    }
                }
                200 => {
                    for (k, &h) in hs.iter().enumerate().step_by(9) {
                        crowd.set_agent_params(h, varied_params(k + 1)).unwrap();
                    }
                }
                _ => {}
            }
            crowd.update(DT).unwrap();
        }
        assert_same(&c[0], &c[1], &format!("varied, frame {f}"));
    }
}

#[test]
fn agents_over_an_off_mesh_jump_move_as_dtcrowd_moves_them() {
    // The demo level's jump onto the block (its .gset: from (26.6, 0, 6) to (29.4, 2.5, 6),
    // both ways): agents on the floor sent onto the block, and back.
    let geom = InputGeometry::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/meshes/demo_level.gset"
    ))
    .unwrap();
    let built = NavMeshBuilder::new(&geom).solo().unwrap();
    let nav = built.navmesh();
    let mut c = crowds(
        nav,
        &[],
        &[(CrowdEngine::Upstream, 1), (CrowdEngine::Navkit, 2)],
    );
    for crowd in c.iter_mut() {
        *crowd = Crowd::new(nav, 12, 0.6).unwrap();
        no_lanes(crowd);
    }
    c[1].set_threads(2).unwrap();
    c[0].set_engine(CrowdEngine::Upstream);
    for crowd in c.iter_mut() {
        for k in 0..12 {
            let start = Vec3::new(18.0 + (k % 4) as f32 * 1.5, 0.0, 3.0 + (k / 4) as f32 * 2.0);
            let h = crowd
                .add_agent(start, AgentParams::with_radius(0.4))
                .unwrap();
            crowd
                .request_move_target(h, Vec3::new(31.0, 2.5, 6.0))
                .unwrap();
        }
    }
    let mut off_mesh_seen = 0;
    for f in 0..450 {
        for crowd in c.iter_mut() {
            if f == 300 {
                for h in crowd.handles() {
                    crowd
                        .request_move_target(h, Vec3::new(20.0, 0.0, 5.0))
                        .unwrap();
                }
            }
            crowd.update(DT).unwrap();
        }
        assert_same(&c[0], &c[1], &format!("off-mesh, frame {f}"));
        off_mesh_seen += c[1]
            .handles()
            .iter()
            .filter(|&&h| c[1].agent(h).unwrap().off_mesh)
            .count();
    }
    // The jump is used: measured 264 agent-frames on the connection (agents up and back down).
    eprintln!("agent-frames off-mesh: {off_mesh_seen}");
    assert!(
        off_mesh_seen > 200,
        "agent-frames off-mesh: {off_mesh_seen}"
    );
}

#[test]
fn a_tile_cache_crowd_with_obstacles_added_and_removed_moves_as_dtcrowd_moves_it() {
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let cache = || -> TileCache {
        NavMeshBuilder::new(&geom)
            .settings(BuildSettings::default())
            .cache_settings(TileCacheSettings::default())
            .tile_cache()
            .unwrap()
    };
    let p = pairs(cache().navmesh(), 150);
    let mut c: Vec<Crowd<TileCache>> = [CrowdEngine::Upstream, CrowdEngine::Navkit]
        .into_iter()
        .map(|e| {
            let mut crowd = Crowd::with_tile_cache(cache(), 150, 0.6).unwrap();
            no_lanes(&mut crowd);
            crowd.set_engine(e);
            crowd.set_threads(2).unwrap();
            for &(a, b) in &p {
                let h = crowd.add_agent(a, AgentParams::default()).unwrap();
                crowd.request_move_target(h, b).unwrap();
            }
            crowd
        })
        .collect();
    // Cylinders where agents walk (the first agents' starts), added then removed.
    let shapes: Vec<ObstacleShape> = p[..12]
        .iter()
        .map(|&(a, b)| ObstacleShape::Cylinder {
            pos: (a + b) * 0.5 - Vec3::Y,
            radius: 1.2,
            height: 3.0,
        })
        .collect();
    let mut placed: Vec<Vec<_>> = vec![Vec::new(); 2];
    let mut rebuilt = 0;
    for f in 0..360 {
        for (k, crowd) in c.iter_mut().enumerate() {
            if f % 30 == 10 && f / 30 < shapes.len() {
                let r = crowd.tile_cache_mut().add(&shapes[f / 30]).unwrap();
                placed[k].push(r);
            }
            if f % 45 == 40 && !placed[k].is_empty() {
                let r = placed[k].remove(0);
                crowd.tile_cache_mut().remove(r).unwrap();
            }
            rebuilt += crowd
                .tile_cache_mut()
                .update(Duration::from_secs(10))
                .unwrap()
                .tiles_rebuilt;
            crowd.update(DT).unwrap();
        }
        assert_same(&c[0], &c[1], &format!("tile cache, frame {f}"));
    }
    // Measured: 42 tiles rebuilt (both crowds' caches), so agents replanned around changes.
    eprintln!("tiles rebuilt under the crowds: {rebuilt}");
    assert!(rebuilt > 30, "tiles rebuilt under the crowds: {rebuilt}");
}
