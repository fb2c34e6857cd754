//! Crowd scenario JSON (`navkit simulate --scenario`): parse and check; a small scenario that
//! passes is run for two simulated seconds on a tile cache of the fixture level, its obstacles
//! carved in and its timed events applied (`simulate_dynamic`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use navkit::BuildSettings;
use navkit::tools::simulation::{Scenario, SimSettings, simulate_dynamic};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(s) = Scenario::from_json_str(text, Path::new("fuzz.json")) else {
        return;
    };
    if s.agents.len() > 8 || s.obstacles.len() + s.events.len() > 8 {
        return;
    }
    let settings = SimSettings {
        agents: 2,
        seconds: 2.0,
        dt: 0.1,
        ..SimSettings::default()
    };
    let _ = simulate_dynamic(
        navkit_fuzz::level(),
        &BuildSettings::default(),
        &s,
        &settings,
    );
});
