//! What the crowd behaviours remember of each agent between frames ([`Mind`]), and the
//! per-frame copy of every agent they decide from ([`Snap`]).

use glam::Vec3;

use super::StuckCause;
use super::polyline::{Polyline, dist_xz, flat_dir};
use crate::ffi::crowd::RawAgentState;
use crate::query::PolyRef;

/// Why an agent stands aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AsideKind {
    /// It stood (arrived or idle) in a mover's way.
    GiveWay,
    /// It was walking and met a mover of higher priority head-on.
    Yield,
}

/// An agent's behaviour in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) enum Mode {
    /// Plain DetourCrowd towards the user's target (or none).
    #[default]
    Normal,
    /// Stepping aside to (or waiting at) `spot` for agent slot `to`, whose priority it carries
    /// while it walks.
    Aside {
        kind: AsideKind,
        to: usize,
        rank: u64,
        spot: Vec3,
        /// Seconds nobody of higher priority has needed it.
        clear_for: f32,
        /// Seconds since the spot was chosen.
        age: f32,
        /// Seconds since it started standing aside.
        total: f32,
        /// The direction it was walking when it yielded (zero when it stood).
        want: Vec3,
    },
    /// Walking to a waypoint on a way around agents blocking its path ([`super::detour`]).
    Detour {
        waypoint: Vec3,
        /// Seconds since it set off.
        age: f32,
    },
    /// Walking back to the place it gave way from (`Mind::home`).
    Returning {
        /// Seconds it has made no headway near home.
        slow_for: f32,
    },
}

/// The behaviours' memory of one agent.
#[derive(Clone, Debug, Default)]
pub(crate) struct Mind {
    /// The user's target (`request_move_target`), snapped; `None` without one.
    pub goal: Option<(PolyRef, Vec3)>,
    /// Reached the user's target (until the next request).
    pub arrived: bool,
    /// Where a giving-way agent returns to: its goal if it had arrived, else where it stood.
    pub home: Option<Vec3>,
    pub(super) mode: Mode,
    /// Seconds walking slower than a quarter of its speed.
    pub(super) slow_for: f32,
    /// Held back behind an agent going its way.
    pub(super) queued: bool,
    /// The user's maximum speed while the queue caps the dtCrowd agent's.
    pub(super) user_max_speed: Option<f32>,
    /// The shortest remaining path length seen, and seconds since it last shrank.
    pub(super) best_remaining: f32,
    /// Where it was when it last made progress.
    pub(super) anchor: Option<Vec3>,
    pub(super) no_progress: f32,
    pub(super) stuck: Option<StuckCause>,
    /// Seconds it has spent yielding, or held up (walking slowly on plain DetourCrowd, not
    /// queued), since its last request (raises its priority).
    pub(super) yielded: f32,
    /// Seconds until the next replan of a stuck agent.
    pub(super) replan_in: f32,
}

impl Mind {
    /// A fresh memory for a new agent, a new request or a cancelled behaviour: the user's goal
    /// `goal`, nothing in progress.
    pub(crate) fn with_goal(goal: Option<(PolyRef, Vec3)>) -> Self {
        Mind {
            goal,
            best_remaining: f32::INFINITY,
            ..Mind::default()
        }
    }

    /// True while a behaviour (not the user) set the dtCrowd agent's target.
    pub(crate) fn overrides_target(&self) -> bool {
        !matches!(self.mode, Mode::Normal)
    }
}

/// One agent as the behaviours see it in a frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct Snap {
    pub pos: Vec3,
    pub vel: Vec3,
    pub radius: f32,
    pub height: f32,
    pub max_speed: f32,
    pub max_accel: f32,
    /// Its position and next corners, cut at the look-ahead distance.
    pub path: Polyline,
    /// Its position and next corners, whole.
    pub full: Polyline,
    /// Its remaining path to its current dtCrowd target (corners, then straight on).
    pub remaining: f32,
    pub heading: Vec3,
    /// Has somewhere to go and is not there: walking (or held in a queue).
    pub walking: bool,
    /// Priority while walking (0 standing, 1 walking home after giving way): higher goes
    /// first.
    pub rank: u64,
    pub neis: [i32; 6],
    pub nneis: usize,
    pub partial: bool,
    pub target_state: u8,
    pub target: Vec3,
    pub last_corner: Vec3,
}

/// An agent this near (xz) its spot aside stands there.
pub(super) const ASIDE_REACHED: f32 = 0.3;

/// dtCrowd's `DT_CROWDAGENT_TARGET_VALID`.
pub(super) const TARGET_VALID: u8 = 2;
/// dtCrowd's `DT_CROWDAGENT_TARGET_FAILED`.
pub(super) const TARGET_FAILED: u8 = 1;

/// Seconds of yielding that raise an agent's priority one step.
const YIELD_STEP: f32 = 4.0;

/// The base priority of a walking agent in slot `slot` that has yielded (or been held up) for
/// `yielded` seconds so far: a strict order, first by [`YIELD_STEP`]s yielded (an agent that
/// has made way or waited a lot goes first next time), then by slot (the agent added earlier
/// first). Standing agents have 0.
pub(super) fn base_rank(slot: usize, yielded: f32) -> u64 {
    let waited = ((yielded.max(0.0) / YIELD_STEP) as u64).min(0xff);
    (1u64 << 40) | (waited << 32) | u64::from(u32::MAX - slot as u32)
}

impl Snap {
    /// The frame's view of agent `slot` from its dtCrowd state `a` and neighbours.
    pub fn new(
        slot: usize,
        a: &RawAgentState,
        neis: ([(i32, f32); 6], usize),
        mind: &Mind,
        look_ahead: f32,
    ) -> Snap {
        let v = Vec3::from_array;
        let pos = v(a.position);
        let mut buf = [Vec3::ZERO; 4];
        for (b, &c) in buf.iter_mut().zip(&a.corners[..a.ncorners.min(4)]) {
            *b = v(c);
        }
        let corners = &buf[..a.ncorners.min(4)];
        let path = Polyline::new(pos, corners, look_ahead);
        let full = Polyline::new(pos, corners, f32::INFINITY);
        let target = v(a.target_pos);
        let last = corners.last().copied().unwrap_or(pos);
        let remaining = full.length() + dist_xz(last, target);
        let has_target = matches!(a.target_state, 2..=5);
        let walking = has_target
            && match mind.mode {
                Mode::Normal => !mind.arrived,
                Mode::Returning { .. } | Mode::Detour { .. } => true,
                Mode::Aside { spot, .. } => dist_xz(pos, spot) > ASIDE_REACHED,
            };
        let rank = match (walking, mind.mode) {
            (false, _) => 0,
            (true, Mode::Aside { rank, .. }) => rank,
            // Walking home after giving way: above standing, below every other walker.
            (true, Mode::Returning { .. }) => 1,
            (true, _) => base_rank(slot, mind.yielded),
        };
        let heading = if path.is_point() {
            flat_dir(v(a.desired_velocity))
        } else {
            path.heading()
        };
        Snap {
            pos,
            vel: v(a.velocity),
            radius: a.params.radius,
            height: a.params.height,
            max_speed: mind.user_max_speed.unwrap_or(a.params.max_speed),
            max_accel: a.params.max_acceleration,
            path,
            full,
            remaining,
            heading,
            walking,
            rank,
            neis: neis.0.map(|(i, _)| i),
            nneis: neis.1,
            partial: a.partial,
            target_state: a.target_state,
            target,
            last_corner: last,
        }
    }

    /// The slots of its neighbours.
    pub fn neighbours(&self) -> impl Iterator<Item = usize> + '_ {
        self.neis[..self.nneis]
            .iter()
            .filter(|&&i| i >= 0)
            .map(|&i| i as usize)
    }
}
