//! Crowd update time per frame through navkit's `Crowd` against raw `dtCrowd` calls, in one
//! run, for 25, 100, 500 and 1000 agents on nav_test.obj; and steering throughput per agent.
//!
//! Both crowds are built over the same tile data with the same agents, parameters, avoidance
//! presets and targets, so they do the same work frame for frame (DetourCrowd is
//! deterministic); frames are timed in interleaved blocks and the medians compared.
//!
//! `cargo bench --bench crowd` (about a minute) or `-- --quick`.
//!
//! The raw baseline is, with `benches/navmesh.rs`, the only place outside `src/ffi` with
//! `unsafe` code; each block has a `SAFETY` comment.

use std::hint::black_box;
use std::time::Instant;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::agents::crowd::{AgentParams, AvoidanceParams, AvoidanceQuality, Crowd};
use navkit::agents::steering::{Agent, Arrive, Behaviour, Leave};
use navkit::tools::compare::{CompareSettings, Comparer};
use navkit::{BuildSettings, InputGeometry};
use recastnavigation_sys as sys;

/// A raw dtNavMesh (owning a copy of the tile data) and a dtCrowd over it.
struct RawCrowd {
    nav: *mut sys::dtNavMesh,
    crowd: *mut sys::dtCrowd,
}

impl RawCrowd {
    fn new(tile_data: &[u8], max_agents: i32) -> RawCrowd {
        let size = tile_data.len();
        // SAFETY: dtAlloc returns null or `size` bytes; checked.
        let buf = unsafe { sys::dtAlloc(size, sys::dtAllocHint_DT_ALLOC_PERM) } as *mut u8;
        assert!(!buf.is_null());
        // SAFETY: `buf` holds `size` bytes, no overlap.
        unsafe { std::ptr::copy_nonoverlapping(tile_data.as_ptr(), buf, size) };
        // SAFETY: constructed navmesh or null; checked.
        let nav = unsafe { sys::dtAllocNavMesh() };
        assert!(!nav.is_null());
        // SAFETY: live navmesh; `buf` is tile data from dtCreateNavMeshData, owned by the
        // navmesh from here on (DT_TILE_FREE_DATA).
        let st = unsafe {
            sys::dtNavMesh_init1(
                nav,
                buf,
                size as i32,
                sys::dtTileFlags_DT_TILE_FREE_DATA as i32,
            )
        };
        assert!(st & sys::DT_FAILURE == 0);
        // SAFETY: constructed crowd or null; checked.
        let crowd = unsafe { sys::dtAllocCrowd() };
        assert!(!crowd.is_null());
        // SAFETY: live crowd and navmesh; the navmesh outlives the crowd (Drop frees the crowd
        // first).
        assert!(unsafe { sys::dtCrowd_init(crowd, max_agents, 0.6, nav) });
        for q in [
            AvoidanceQuality::Low,
            AvoidanceQuality::Medium,
            AvoidanceQuality::Good,
            AvoidanceQuality::High,
        ] {
            let p = AvoidanceParams::preset(q);
            let raw = sys::dtObstacleAvoidanceParams {
                velBias: p.vel_bias,
                weightDesVel: p.weight_des_vel,
                weightCurVel: p.weight_cur_vel,
                weightSide: p.weight_side,
                weightToi: p.weight_toi,
                horizTime: p.horiz_time,
                gridSize: p.grid_size,
                adaptiveDivs: p.adaptive_divs,
                adaptiveRings: p.adaptive_rings,
                adaptiveDepth: p.adaptive_depth,
            };
            // SAFETY: live crowd, slot 0..4, pointer to a local.
            unsafe { sys::dtCrowd_setObstacleAvoidanceParams(crowd, q as i32, &raw) };
        }
        // navkit's filter 0 is RecastDemo's (water 10, grass 2, jump 1.5); the raw crowd gets
        // the same.
        // SAFETY: live crowd; m_filters is a plain array in it.
        let f = unsafe { &mut (*crowd).m_filters[0] };
        f.m_areaCost[1] = 10.0;
        f.m_areaCost[4] = 2.0;
        f.m_areaCost[5] = 1.5;
        f.m_includeFlags = 0xffff ^ 0x10;
        f.m_excludeFlags = 0;
        RawCrowd { nav, crowd }
    }

    fn add(&mut self, pos: Vec3, p: &AgentParams) -> i32 {
        let raw = sys::dtCrowdAgentParams {
            radius: p.radius,
            height: p.height,
            maxAcceleration: p.max_acceleration,
            maxSpeed: p.max_speed,
            collisionQueryRange: p.collision_query_range,
            pathOptimizationRange: p.path_optimization_range,
            separationWeight: p.separation_weight,
            updateFlags: p.update_flags,
            obstacleAvoidanceType: p.obstacle_avoidance_type,
            queryFilterType: p.query_filter_type,
            userData: std::ptr::null_mut(),
        };
        // SAFETY: live crowd; pointers to locals.
        unsafe { sys::dtCrowd_addAgent(self.crowd, pos.to_array().as_ptr(), &raw) }
    }

    fn target(&mut self, idx: i32, poly: sys::dtPolyRef, pos: Vec3) {
        // SAFETY: live crowd, index returned by addAgent, pointer to a local.
        assert!(unsafe {
            sys::dtCrowd_requestMoveTarget(self.crowd, idx, poly, pos.to_array().as_ptr())
        });
    }

    fn position(&self, idx: i32) -> Vec3 {
        // SAFETY: live crowd, index returned by addAgent; the agent is read and copied at once.
        let a = unsafe { &*sys::dtCrowd_getAgent(self.crowd, idx) };
        Vec3::from_array(a.npos)
    }

    fn update(&mut self, dt: f32) {
        // SAFETY: live crowd; null debug info allowed.
        unsafe { sys::dtCrowd_update(self.crowd, dt, std::ptr::null_mut()) }
    }
}

impl Drop for RawCrowd {
    fn drop(&mut self) {
        // SAFETY: both allocated by Detour in `new`, freed once, the crowd first.
        unsafe {
            sys::dtFreeCrowd(self.crowd);
            sys::dtFreeNavMesh(self.nav);
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let bench_mode = args.iter().any(|a| a == "--bench");
    let (rounds, frames) = match (bench_mode, quick) {
        (false, _) => (1, 2),
        (true, true) => (5, 10),
        (true, false) => (15, 20),
    };
    let mesh = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/meshes/recastdemo/nav_test.obj"
    );
    let geom = InputGeometry::load(mesh).expect("nav_test.obj beside the repository");
    let built = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .expect("build");
    let mut cmp = Comparer::new(built.navmesh(), None, CompareSettings::default()).unwrap();
    let pairs = cmp.random_pairs(1000, 3).unwrap();
    let mut q = navkit::query::NavMeshQuery::new(built.navmesh(), 2048).unwrap();
    let filter = navkit::query::QueryFilter::default();
    let dt = 1.0 / 30.0;
    println!(
        "crowd update per frame on nav_test.obj, navkit Crowd vs raw dtCrowd, {rounds} interleaved rounds of {frames} frames, medians"
    );
    println!("| agents | navkit us/frame | raw us/frame | ratio |");
    println!("|---:|---:|---:|---:|");
    for n in [25usize, 100, 500, 1000] {
        let params = AgentParams::default();
        let mut crowd = Crowd::new(built.navmesh(), n, 0.6).unwrap();
        let mut raw = RawCrowd::new(built.tile_data(), n as i32);
        for &(a, b) in &pairs[..n] {
            let h = crowd.add_agent(a, params).unwrap();
            crowd.request_move_target(h, b).unwrap();
            let start = q
                .find_nearest_poly(a, navkit::query::DEFAULT_HALF_EXTENTS, &filter)
                .unwrap();
            let goal = q
                .find_nearest_poly(b, navkit::query::DEFAULT_HALF_EXTENTS, &filter)
                .unwrap();
            let idx = raw.add(start.point, &params);
            assert_eq!(idx as usize, h.index());
            raw.target(idx, goal.poly.0, goal.point);
        }
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for r in 0..rounds {
            let mut run_ours = |v: &mut Vec<f64>| {
                let t = Instant::now();
                for _ in 0..frames {
                    crowd.update(black_box(dt)).unwrap();
                }
                v.push(t.elapsed().as_secs_f64() * 1e6 / frames as f64);
            };
            let mut run_raw = |v: &mut Vec<f64>| {
                let t = Instant::now();
                for _ in 0..frames {
                    raw.update(black_box(dt));
                }
                v.push(t.elapsed().as_secs_f64() * 1e6 / frames as f64);
            };
            if r % 2 == 0 {
                run_ours(&mut ours);
                run_raw(&mut theirs);
            } else {
                run_raw(&mut theirs);
                run_ours(&mut ours);
            }
        }
        // Same work: after the same frames every agent is at the same place, to the bit.
        let same = crowd
            .handles()
            .iter()
            .filter(|h| crowd.agent(**h).unwrap().position == raw.position(h.index() as i32))
            .count();
        assert_eq!(same, n, "{n} agents: navkit and raw crowds diverged");
        let (a, b) = (median(ours), median(theirs));
        println!("| {n} | {a:.1} | {b:.1} | {:.3} |", a / b);
    }

    // Steering throughput: Arrive blended with Leave, per agent update.
    let mut agents: Vec<Agent> = pairs
        .iter()
        .map(|&(a, _)| Agent::new(a, 3.5, 8.0))
        .collect();
    let behaviours: Vec<Behaviour> = pairs
        .iter()
        .map(|&(a, b)| {
            Behaviour::Blend(vec![
                (1.0, Behaviour::Arrive(Arrive::new(b, 0.2, 3.0))),
                (0.5, Behaviour::Leave(Leave::new(a, 1.0, 4.0))),
            ])
        })
        .collect();
    let steps = if bench_mode { 200 } else { 2 };
    let t = Instant::now();
    for _ in 0..steps {
        for (a, b) in agents.iter_mut().zip(&behaviours) {
            let s = b.steer(a);
            a.integrate(s, dt);
        }
    }
    black_box(&agents);
    let per = t.elapsed().as_secs_f64() * 1e9 / (steps * agents.len()) as f64;
    println!(
        "\nsteering (Arrive + Leave blend, integrate): {per:.1} ns per agent update ({:.1} M agent updates/s)",
        1e3 / per
    );
}
