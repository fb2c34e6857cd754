//! Phase 6's velocity sampling, in Rust: the adaptive sampling of Detour's obstacle-avoidance
//! query (`dtObstacleAvoidanceQuery::sampleVelocityAdaptive`) with the same float results, laid
//! out so that the compiler can run several candidate velocities per instruction.
//!
//! Detour scores the candidates of a sampling ring one after the other, each against every
//! obstacle, and stops scoring a candidate as soon as it cannot beat the best so far (an early
//! out that depends on the candidates before it). Here, for every candidate of a ring, the
//! parts of its score that do not depend on the others (its distance from the desired and the
//! current velocity, its side bias, its earliest time of impact) are computed first, obstacle
//! by obstacle over all candidates at once; then one pass in Detour's order applies Detour's
//! early out and keeps the best. The early out is a test on the final time of impact: Detour
//! tests each new earliest impact as it is found, and the earliest impacts only decrease, so
//! one of them passes the test if and only if the last one does. Every operation is Detour's,
//! in Detour's order, so each score rounds the same.
//!
//! A pattern with an even number of divisions reads a sample Detour never writes (its pattern
//! leaves a gap); those presets go to Detour's own query instead (see `avoidance`).

// Negated comparisons (`!(a < b)`, `!(t < 0 || t > 1)`) are Detour's tests as written: true
// for NaN, where a range's `contains` is false.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::manual_range_contains)]

use super::vecmath::clamp;

/// Most divisions and rings of a sampling pattern (`DT_MAX_PATTERN_DIVS`, `_RINGS`).
const MAX_DIVS: usize = 32;
const MAX_RINGS: usize = 4;
/// Most candidates of one ring of sampling.
const MAX_SAMPLES: usize = MAX_DIVS * MAX_RINGS + 1;
/// Candidates scored together: a vector of 16 floats (AVX-512), two of 8 (AVX2), four of 4
/// (SSE).
const LANES: usize = 16;
/// Room for the candidates of a ring, whole chunks of [`LANES`].
const RING_CAP: usize = MAX_SAMPLES.div_ceil(LANES) * LANES;
/// Detour's pi (`3.14159265f`), which rounds to the same float as Rust's.
const PI: f32 = std::f32::consts::PI;

/// A moving circle to avoid: another agent.
#[derive(Clone, Copy, Default)]
pub(super) struct Circle {
    /// Position.
    pub(super) p: [f32; 3],
    /// Radius.
    pub(super) rad: f32,
    /// Velocity.
    pub(super) vel: [f32; 3],
    /// Desired velocity.
    pub(super) dvel: [f32; 3],
}

/// A wall segment to avoid, from `p` to `q`.
#[derive(Clone, Copy, Default)]
pub(super) struct Segment {
    pub(super) p: [f32; 3],
    pub(super) q: [f32; 3],
}

/// An avoidance preset (`dtObstacleAvoidanceParams`, adaptive sampling).
#[derive(Clone, Copy)]
pub(super) struct Params {
    pub(super) vel_bias: f32,
    pub(super) weight_des_vel: f32,
    pub(super) weight_cur_vel: f32,
    pub(super) weight_side: f32,
    pub(super) weight_toi: f32,
    pub(super) horiz_time: f32,
    pub(super) divs: u8,
    pub(super) rings: u8,
    pub(super) depth: u8,
}

/// The agent sampling: its position, radius, top speed, velocity and desired velocity.
#[derive(Clone, Copy)]
pub(super) struct Agent {
    pub(super) pos: [f32; 3],
    pub(super) rad: f32,
    pub(super) vmax: f32,
    pub(super) vel: [f32; 3],
    pub(super) dvel: [f32; 3],
}

/// Whether [`sample_adaptive`] gives Detour's answer for `params` (an odd number of
/// divisions, after Detour's clamping).
pub(super) fn supported(params: &Params) -> bool {
    (params.divs as usize).clamp(1, MAX_DIVS) % 2 == 1
}

/// A circle with what the sampling reads of it, computed once.
#[derive(Clone, Copy, Default)]
struct PreparedCircle {
    /// Unit direction to it (x, z) and the side direction (x, z).
    dp: [f32; 2],
    np: [f32; 2],
    /// Its velocity (x, z).
    vel: [f32; 2],
    /// From the agent to it (x, z), and `|s|^2 - (r0 + r1)^2`.
    s: [f32; 2],
    c: f32,
}

/// A segment with what the sampling reads of it.
#[derive(Clone, Copy, Default)]
struct PreparedSegment {
    /// The agent touches it: then only the normal (x, z) matters.
    touch: bool,
    normal: [f32; 2],
    /// `q - p` and `pos - p` (x, z), and `perp(v, w)`.
    v: [f32; 2],
    w: [f32; 2],
    vw: f32,
}

/// `dtDistancePtSegSqr2D`.
fn dist_pt_seg_sqr_2d(pt: [f32; 3], p: [f32; 3], q: [f32; 3]) -> f32 {
    let pqx = q[0] - p[0];
    let pqz = q[2] - p[2];
    let dx = pt[0] - p[0];
    let dz = pt[2] - p[2];
    let d = pqx * pqx + pqz * pqz;
    let mut t = pqx * dx + pqz * dz;
    if d > 0.0 {
        t /= d;
    }
    t = clamp(t, 0.0, 1.0);
    let dx = p[0] + t * pqx - pt[0];
    let dz = p[2] + t * pqz - pt[2];
    dx * dx + dz * dz
}

/// The obstacles as the sampling reads them (`dtObstacleAvoidanceQuery::prepare`).
fn prepare(agent: &Agent, circles: &[Circle], segments: &[Segment]) -> Prepared {
    let mut out = Prepared::default();
    let pos = agent.pos;
    for (k, cir) in circles.iter().enumerate() {
        let mut dp = [cir.p[0] - pos[0], cir.p[1] - pos[1], cir.p[2] - pos[2]];
        let d = 1.0 / (dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]).sqrt();
        dp = [dp[0] * d, dp[1] * d, dp[2] * d];
        let dv = [cir.dvel[0] - agent.dvel[0], cir.dvel[2] - agent.dvel[2]];
        // dtTriArea2D(origin, dp, dv).
        let a = dv[0] * dp[2] - dp[0] * dv[1];
        let np = if a < 0.01 {
            [-dp[2], dp[0]]
        } else {
            [dp[2], -dp[0]]
        };
        let s = [cir.p[0] - pos[0], cir.p[2] - pos[2]];
        let r = agent.rad + cir.rad;
        out.circles[k] = PreparedCircle {
            dp: [dp[0], dp[2]],
            np,
            vel: [cir.vel[0], cir.vel[2]],
            s,
            c: (s[0] * s[0] + s[1] * s[1]) - r * r,
        };
    }
    out.ncircles = circles.len();
    for (k, seg) in segments.iter().enumerate() {
        let r = 0.01f32;
        let touch = dist_pt_seg_sqr_2d(pos, seg.p, seg.q) < r * r;
        let sdir = [seg.q[0] - seg.p[0], seg.q[2] - seg.p[2]];
        let w = [pos[0] - seg.p[0], pos[2] - seg.p[2]];
        out.segments[k] = PreparedSegment {
            touch,
            normal: [-sdir[1], sdir[0]],
            v: sdir,
            w,
            vw: sdir[1] * w[0] - sdir[0] * w[1],
        };
    }
    out.nsegments = segments.len();
    out
}

/// The prepared obstacles (at most 6 circles and 8 segments: what dtCrowd's query holds).
#[derive(Default)]
struct Prepared {
    circles: [PreparedCircle; 6],
    ncircles: usize,
    segments: [PreparedSegment; 8],
    nsegments: usize,
}

/// The candidates of one ring of sampling and their scores' parts, by candidate.
struct Ring {
    n: usize,
    vx: [f32; RING_CAP],
    vz: [f32; RING_CAP],
    tmin: [f32; RING_CAP],
    /// The penalties for straying from the desired and from the current velocity.
    vpen: [f32; RING_CAP],
    vcpen: [f32; RING_CAP],
    /// The whole penalty (Detour's, when it does not take its early out).
    penalty: [f32; RING_CAP],
}

/// For each number of divisions `nd`, the cosine and sine of a division's angle and of half
/// of it, as Detour computes them per call (`cosf`, `sinf`): computed once.
fn rotations() -> &'static [[f32; 4]; MAX_DIVS + 1] {
    static ROTATIONS: std::sync::OnceLock<[[f32; 4]; MAX_DIVS + 1]> = std::sync::OnceLock::new();
    ROTATIONS.get_or_init(|| {
        std::array::from_fn(|nd| {
            let da = (1.0 / nd.max(1) as f32) * PI * 2.0;
            let half = da * 0.5;
            [da.cos(), da.sin(), half.cos(), half.sin()]
        })
    })
}

/// Detour's sampling pattern for `params` around the desired velocity `dvel`: (x, z) pairs of
/// unit scale.
fn pattern(params: &Params, dvel: [f32; 3]) -> ([[f32; 2]; MAX_SAMPLES], usize) {
    let nd = (params.divs as usize).clamp(1, MAX_DIVS);
    let nr = (params.rings as usize).clamp(1, MAX_RINGS);
    let [ca, sa, c, s] = rotations()[nd];
    // The desired direction, and it rotated by half a division.
    let mut dir = [dvel[0], dvel[2]];
    let d = (dir[0] * dir[0] + dir[1] * dir[1]).sqrt();
    if d != 0.0 {
        let d = 1.0 / d;
        dir = [dir[0] * d, dir[1] * d];
    }
    let dirs = [dir, [dir[0] * c - dir[1] * s, dir[0] * s + dir[1] * c]];
    let mut pat = [[0.0f32; 2]; MAX_SAMPLES];
    let mut n = 1;
    for j in 0..nr {
        let r = (nr - j) as f32 / nr as f32;
        let dir = dirs[j % 2];
        pat[n] = [dir[0] * r, dir[1] * r];
        let (mut last1, mut last2) = (n, n);
        n += 1;
        for _ in (1..nd - 1).step_by(2) {
            let (a, b) = (pat[last1], pat[last2]);
            pat[n] = [a[0] * ca + a[1] * sa, -a[0] * sa + a[1] * ca];
            pat[n + 1] = [b[0] * ca - b[1] * sa, b[0] * sa + b[1] * ca];
            (last1, last2) = (n, n + 1);
            n += 2;
        }
    }
    (pat, n)
}

/// The new velocity Detour's adaptive sampling picks for `agent` among `circles` and
/// `segments` (at most 6 and 8) under `params`, and the candidates it scored. Only for
/// [`supported`] presets.
pub(super) fn sample_adaptive(
    agent: &Agent,
    circles: &[Circle],
    segments: &[Segment],
    params: &Params,
) -> ([f32; 3], i32) {
    let prep = prepare(agent, circles, segments);
    let (pat, npat) = pattern(params, agent.dvel);
    let inv_vmax = if agent.vmax > 0.0 {
        1.0 / agent.vmax
    } else {
        f32::MAX
    };
    let mut cr = agent.vmax * (1.0 - params.vel_bias);
    let mut res = [
        agent.dvel[0] * params.vel_bias,
        agent.dvel[2] * params.vel_bias,
    ];
    let limit = (agent.vmax + 0.001) * (agent.vmax + 0.001);
    let mut ring = Ring {
        n: 0,
        vx: [0.0; RING_CAP],
        vz: [0.0; RING_CAP],
        tmin: [0.0; RING_CAP],
        vpen: [0.0; RING_CAP],
        vcpen: [0.0; RING_CAP],
        penalty: [0.0; RING_CAP],
    };
    let mut ns = 0;
    for _ in 0..params.depth {
        ring.n = 0;
        for p in &pat[..npat] {
            let (vx, vz) = (res[0] + p[0] * cr, res[1] + p[1] * cr);
            if vx * vx + vz * vz > limit {
                continue;
            }
            ring.vx[ring.n] = vx;
            ring.vz[ring.n] = vz;
            ring.n += 1;
        }
        ns += ring.n as i32;
        score_obstacles(&mut ring, &prep, agent, (params, inv_vmax));
        res = best(&ring, params);
        cr *= 0.5;
    }
    ([res[0], 0.0, res[1]], ns)
}

/// Fills the ring's side bias and earliest time of impact of every candidate, with the widest
/// vectors the processor has (each lane rounds as a scalar operation would: the results are
/// the same on every processor).
fn score_obstacles(ring: &mut Ring, prep: &Prepared, agent: &Agent, params: (&Params, f32)) {
    #[cfg(target_arch = "x86_64")]
    {
        #[cfg(test)]
        let widest = WIDEST.load(std::sync::atomic::Ordering::Relaxed);
        #[cfg(not(test))]
        let widest = 2;
        if widest >= 2 && std::is_x86_feature_detected!("avx512f") {
            // SAFETY: the processor has AVX-512F (just checked).
            unsafe { score_avx512(ring, prep, agent, params) };
            return;
        }
        if widest >= 1 && std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (just checked).
            unsafe { score_avx2(ring, prep, agent, params) };
            return;
        }
    }
    score(ring, prep, agent, params);
}

/// For tests: the widest vectors [`score_obstacles`] may use (2: AVX-512, 1: AVX2, 0: the
/// baseline's).
#[cfg(test)]
pub(super) static WIDEST: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(2);

/// [`score`] with AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn score_avx512(ring: &mut Ring, prep: &Prepared, agent: &Agent, params: (&Params, f32)) {
    score(ring, prep, agent, params);
}

/// [`score`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn score_avx2(ring: &mut Ring, prep: &Prepared, agent: &Agent, params: (&Params, f32)) {
    score(ring, prep, agent, params);
}

/// [`score_obstacles`]' work, inlined into each of its versions.
#[inline(always)]
fn score(ring: &mut Ring, prep: &Prepared, agent: &Agent, params: (&Params, f32)) {
    let n = ring.n;
    let chunks = n.div_ceil(LANES);
    // The lanes past the last candidate score (0, 0): computed, never read.
    ring.vx[n..chunks * LANES].fill(0.0);
    ring.vz[n..chunks * LANES].fill(0.0);
    for c in 0..chunks {
        let at = c * LANES;
        let vx: [f32; LANES] = ring.vx[at..at + LANES].try_into().expect("a chunk");
        let vz: [f32; LANES] = ring.vz[at..at + LANES].try_into().expect("a chunk");
        let mut side = [0.0f32; LANES];
        let mut tmin = [params.0.horiz_time; LANES];
        for cir in &prep.circles[..prep.ncircles] {
            circle_lanes(cir, agent.vel, (&vx, &vz), (&mut side, &mut tmin));
        }
        for seg in &prep.segments[..prep.nsegments] {
            segment_lanes(seg, (&vx, &vz), &mut tmin);
        }
        let out = penalty_lanes(prep.ncircles, agent, params, (&vx, &vz), (&side, &tmin));
        ring.tmin[at..at + LANES].copy_from_slice(&tmin);
        ring.vpen[at..at + LANES].copy_from_slice(&out[0]);
        ring.vcpen[at..at + LANES].copy_from_slice(&out[1]);
        ring.penalty[at..at + LANES].copy_from_slice(&out[2]);
    }
}

/// One circle against a chunk of candidates: its side bias added, its time of impact taken
/// where earlier.
#[inline(always)]
fn circle_lanes(
    cir: &PreparedCircle,
    vel: [f32; 3],
    (vx, vz): (&[f32; LANES], &[f32; LANES]),
    (side, tmin): (&mut [f32; LANES], &mut [f32; LANES]),
) {
    for k in 0..LANES {
        // The relative velocity (RVO): 2 * vcand - vel - the circle's velocity.
        let ax = (vx[k] * 2.0 - vel[0]) - cir.vel[0];
        let az = (vz[k] * 2.0 - vel[2]) - cir.vel[1];
        let to = (cir.dp[0] * ax + cir.dp[1] * az) * 0.5 + 0.5;
        let across = (cir.np[0] * ax + cir.np[1] * az) * 2.0;
        let m = if to < across { to } else { across };
        side[k] += clamp(m, 0.0, 1.0);
        // Sweep the agent's circle against this one.
        let a = ax * ax + az * az;
        let b = ax * cir.s[0] + az * cir.s[1];
        let d = b * b - a * cir.c;
        let inv = 1.0 / a;
        let rd = d.sqrt();
        let ht = (b - rd) * inv;
        let htmax = (b + rd) * inv;
        let ht = if ht < 0.0 && htmax > 0.0 {
            -ht * 0.5
        } else {
            ht
        };
        let hit = !(a < 0.0001) & !(d < 0.0) & (ht >= 0.0) & (ht < tmin[k]);
        tmin[k] = if hit { ht } else { tmin[k] };
    }
}

/// One wall segment against a chunk of candidates: its time of impact taken where earlier.
#[inline(always)]
fn segment_lanes(
    seg: &PreparedSegment,
    (vx, vz): (&[f32; LANES], &[f32; LANES]),
    tmin: &mut [f32; LANES],
) {
    if seg.touch {
        for k in 0..LANES {
            // Heading away from the wall: no collision; else an immediate one.
            let towards = !(seg.normal[0] * vx[k] + seg.normal[1] * vz[k] < 0.0);
            tmin[k] = if towards & (0.0 < tmin[k]) {
                0.0
            } else {
                tmin[k]
            };
        }
        return;
    }
    for k in 0..LANES {
        // The ray from the agent along the candidate against the segment.
        let d = vz[k] * seg.v[0] - vx[k] * seg.v[1];
        let inv = 1.0 / d;
        let t = seg.vw * inv;
        let s = (vz[k] * seg.w[0] - vx[k] * seg.w[1]) * inv;
        let ht = t * 2.0;
        let hit = !(d.abs() < 1e-6) & !((t < 0.0) | (t > 1.0)) & !((s < 0.0) | (s > 1.0));
        tmin[k] = if hit & (ht < tmin[k]) { ht } else { tmin[k] };
    }
}

/// A chunk of candidates' penalties for straying from the desired and the current velocity,
/// and their whole penalties, from their side biases (summed over `ncircles` circles) and
/// times of impact.
#[inline(always)]
fn penalty_lanes(
    ncircles: usize,
    agent: &Agent,
    (params, inv_vmax): (&Params, f32),
    (vx, vz): (&[f32; LANES], &[f32; LANES]),
    (side, tmin): (&[f32; LANES], &[f32; LANES]),
) -> [[f32; LANES]; 3] {
    let inv_horiz = 1.0 / params.horiz_time;
    let nside = ncircles as f32;
    let mut out = [[0.0f32; LANES]; 3];
    for k in 0..LANES {
        let dist = |v: [f32; 3]| {
            let (dx, dz) = (v[0] - vx[k], v[2] - vz[k]);
            (dx * dx + dz * dz).sqrt()
        };
        let vpen = params.weight_des_vel * (dist(agent.dvel) * inv_vmax);
        let vcpen = params.weight_cur_vel * (dist(agent.vel) * inv_vmax);
        let side = if ncircles > 0 {
            side[k] / nside
        } else {
            side[k]
        };
        let spen = params.weight_side * side;
        let tpen = params.weight_toi * (1.0 / (0.1 + tmin[k] * inv_horiz));
        out[0][k] = vpen;
        out[1][k] = vcpen;
        out[2][k] = vpen + vcpen + spen + tpen;
    }
    out
}

/// The candidate of the ring Detour keeps: the first of the lowest penalty, each candidate
/// skipped where Detour's early out skips it; (0, 0) if none. Only a candidate that would
/// lower the best penalty needs the early out's test: one that would not is not kept either
/// way.
fn best(ring: &Ring, params: &Params) -> [f32; 2] {
    let mut min_penalty = f32::MAX;
    let mut best = [0.0f32; 2];
    for k in 0..ring.n {
        if !(ring.penalty[k] < min_penalty) {
            continue;
        }
        let min_pen = min_penalty - ring.vpen[k] - ring.vcpen[k];
        let t_threshold = (params.weight_toi / min_pen - 0.1) * params.horiz_time;
        if t_threshold - params.horiz_time > -f32::EPSILON || ring.tmin[k] < t_threshold {
            continue;
        }
        min_penalty = ring.penalty[k];
        best = [ring.vx[k], ring.vz[k]];
    }
    best
}
