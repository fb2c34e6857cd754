//! RecastDemo test-case files (`navkit testcase`): parse; whatever parses is run against the
//! fixture level's navmesh.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navkit::tools::testcase::{TestCase, run};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(case) = TestCase::parse(text, Path::new("fuzz.txt")) else {
        return;
    };
    if case.queries.len() > 64 {
        return;
    }
    let Ok(mut q) = navkit_fuzz::level_navmesh().query() else {
        return;
    };
    let _ = run(&case, &mut q);
});
