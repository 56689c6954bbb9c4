//! The trace reader (`planner::trace::Trace::from_json_str`: parse + validate) never panics, and
//! its work is linear in the input (the validator's checks are lookups, not scans).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = planner::trace::Trace::from_json_str(text, "fuzz-input");
    }
});
