//! Why an agent is stuck: the cause a crowd reports per agent ([`super::AgentState::stuck`]).

/// Why an agent that has a target makes no progress towards it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum StuckCause {
    /// Other agents stand in its way.
    BlockedByAgents,
    /// The navmesh in its way is blocked (an obstacle, or a wall its corridor runs into), with
    /// no agent near enough to blame.
    BlockedByObstacle,
    /// No path leads to the target: the agent's path ends short of it ([`super::PathStatus::Partial`])
    /// and it has reached that end, or no path could be found at all.
    Unreachable,
}

impl StuckCause {
    /// A short lower-case name (`blocked_by_agents`, `blocked_by_obstacle`, `unreachable`), as in
    /// JSON.
    pub fn name(self) -> &'static str {
        match self {
            StuckCause::BlockedByAgents => "blocked_by_agents",
            StuckCause::BlockedByObstacle => "blocked_by_obstacle",
            StuckCause::Unreachable => "unreachable",
        }
    }
}

impl std::fmt::Display for StuckCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
