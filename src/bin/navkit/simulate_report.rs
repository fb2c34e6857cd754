//! `navkit simulate`'s reports: a run as JSON or a line of text, a suite's runs as a table or
//! a JSON array.

use std::path::PathBuf;

use serde_json::{Value, json};

use navkit::tools::simulation::SimReport;

use crate::json::num32;

/// One run of a suite.
pub struct Row {
    /// The scenario's name.
    pub name: String,
    /// Its file.
    pub file: PathBuf,
    /// The level it ran on.
    pub level: PathBuf,
    /// The random agents' seed, if any.
    pub seed: Option<u64>,
    /// What happened.
    pub report: SimReport,
}

/// A run's report as a JSON object (the keys of `navkit simulate --json`).
pub fn to_json_object(r: &SimReport) -> Value {
    let causes: serde_json::Map<String, Value> = r
        .stuck_causes
        .named()
        .iter()
        .map(|&(name, n)| (name.to_string(), json!(n)))
        .collect();
    json!({
        "agents": r.agents,
        "arrived": r.arrived,
        "last_arrival_s": r.last_arrival.map(num32),
        "stuck": r.stuck,
        "stuck_by_cause": causes,
        "mean_speed_m_per_s": num32(r.mean_speed),
        "min_separation_m": num32(r.min_separation),
        "update_us": r.update_us,
        "update_max_us": r.update_max_us,
        "collisions": r.collisions,
        "deepest_overlap_m": num32(r.deepest_overlap),
        "simulated_s": num32(r.seconds),
        "obstacle_events": r.obstacle_events,
        "tiles_rebuilt": r.tiles_rebuilt,
        "obstacle_settle_max_s": num32(r.obstacle_settle_max),
    })
}

/// The stuck agents and their causes, e.g. `3 (blocked_by_agents 1, no_progress 2)`.
fn stuck_text(r: &SimReport) -> String {
    let causes: Vec<String> = r
        .stuck_causes
        .named()
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    if causes.is_empty() {
        r.stuck.to_string()
    } else {
        format!("{} ({})", r.stuck, causes.join(", "))
    }
}

/// The last arrival, seconds, or `-`.
fn last_arrival_text(r: &SimReport) -> String {
    r.last_arrival.map_or("-".into(), |t| format!("{t:.1}"))
}

/// A run's report as a line of text.
pub fn line(r: &SimReport) -> String {
    format!(
        "{} agents, {} s: {} arrived, {} stuck, mean speed {:.2}, min separation {:.3}, {} colliding pair-frames, {:.1} us per update; last arrival {}, stuck by cause: {}, deepest overlap {:.3} m, longest update {:.1} us",
        r.agents,
        r.seconds,
        r.arrived,
        r.stuck,
        r.mean_speed,
        r.min_separation,
        r.collisions,
        r.update_us,
        r.last_arrival
            .map_or("none".into(), |t| format!("{t:.1} s")),
        stuck_text(r),
        r.deepest_overlap,
        r.update_max_us,
    )
}

/// A suite's runs as a JSON array: each run's object with its `scenario`, `file`, `level` and
/// `seed` (null without random agents).
pub fn rows_json(rows: &[Row]) -> Value {
    Value::Array(
        rows.iter()
            .map(|row| {
                let mut v = json!({
                    "scenario": row.name,
                    "file": row.file.display().to_string(),
                    "level": row.level.display().to_string(),
                    "seed": row.seed,
                });
                if let (Value::Object(head), Value::Object(rest)) =
                    (&mut v, to_json_object(&row.report))
                {
                    head.extend(rest);
                }
                v
            })
            .collect(),
    )
}

/// The header of [`table`].
pub const TABLE_HEADER: &str = "| scenario | seed | arrived | last arrival s | stuck (causes) | min separation m | overlaps | deepest overlap m | mean speed m/s | update us mean / max |\n|---|---:|---:|---:|---|---:|---:|---:|---:|---:|";

/// A suite's runs as a Markdown table, a row per run.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(TABLE_HEADER);
    for row in rows {
        let r = &row.report;
        out.push_str(&format!(
            "\n| {} | {} | {}/{} | {} | {} | {:.3} | {} | {:.3} | {:.2} | {:.0} / {:.0} |",
            row.name,
            row.seed.map_or("-".into(), |s| s.to_string()),
            r.arrived,
            r.agents,
            last_arrival_text(r),
            stuck_text(r),
            r.min_separation,
            r.collisions,
            r.deepest_overlap,
            r.mean_speed,
            r.update_us,
            r.update_max_us,
        ));
    }
    out
}
