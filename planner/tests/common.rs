//! Helpers shared by the test modules.

use planner::platform::{Platform, Precision};

/// A platform with round numbers for hand-computed schedules:
/// 1 FLOP/ns of math (so an op of N FLOPs takes N ns), effectively infinite
/// memory bandwidth, no launch overhead, a 1 B/ns link (γ), a 4 B/ns
/// engine (B_CE) and 5 µs of setup per transfer.
pub fn round_platform() -> Platform {
    Platform {
        name: "T".into(),
        precision: Precision::Fp32,
        peak_tflops: 0.001,
        math_efficiency: 1.0,
        memory_gb_per_s: 1.0e9,
        memory_efficiency: 1.0,
        link_gb_per_s: 1.0,
        engine_gb_per_s: 4.0,
        launch_us: 0.0,
        copy_setup_us: 5.0,
    }
}

/// Asserts two times in ns agree to a millionth of a ns.
#[track_caller]
pub fn assert_ns(actual: f64, expected: f64) {
    assert!((actual - expected).abs() < 1e-6, "expected {expected} ns, got {actual} ns");
}
