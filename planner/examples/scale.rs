//! Scale check (issue 14, item 6): a synthetic trace of `2.5 × FORWARD_OPS + 1` ops
//! (8,000 gives 20,001) through the whole 27-plan portfolio and the simulator on platform B,
//! with the bench's synthetic ratios (3× for every third tensor, 1.4× for the rest). Prints the
//! trace's shape and the chosen plan's simulated iteration; run it under `/usr/bin/time -v` for
//! CPU time and peak RSS (BENCHMARKS.md, "planner at scale").
//!
//! `cargo build --release -p planner --example scale && /usr/bin/time -v target/release/examples/scale 8000 0.3`

use planner::plan::{Member, portfolio};
use planner::platform::Platform;
use planner::predictor::raw_wire_bytes;
use planner::ratios::wire_bytes_at;
use planner::synth::{SynthConfig, random_trace};
use planner::workload::Workload;
use std::process::ExitCode;

/// Seed of the synthetic trace.
const SEED: u64 = 7;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(Ok(forward_ops)), Some(Ok(fraction))) =
        (args.first().map(|a| a.parse::<usize>()), args.get(1).map(|a| a.parse::<f64>()))
    else {
        eprintln!("usage: scale FORWARD_OPS BUDGET_FRACTION (e.g. 8000 0.3)");
        return ExitCode::from(2);
    };
    if forward_ops == 0 || !(fraction > 0.0 && fraction <= 1.0) {
        eprintln!("scale: FORWARD_OPS must be > 0 and BUDGET_FRACTION in (0, 1]");
        return ExitCode::from(2);
    }
    let trace = random_trace(&SynthConfig { forward_ops, ..SynthConfig::bench(SEED) });
    let w = Workload::new(&trace, &Platform::b());
    let wire: Vec<u64> =
        raw_wire_bytes(&w).iter().enumerate().map(|(i, &b)| wire_bytes_at(b, if i % 3 == 0 { 3.0 } else { 1.4 })).collect();
    let budget = w.budget_for_fraction(fraction);
    println!(
        "trace: {} ops, {} tensors, {} candidates, peak {} MiB; budget {} MiB ({:.0} % of the peak), platform B",
        w.ops.len(),
        w.tensors.len(),
        w.candidates.len(),
        w.peak_bytes >> 20,
        budget >> 20,
        fraction * 100.0
    );
    match portfolio(&w, &wire, &wire, budget, &Member::all()) {
        Ok(out) => {
            let r = &out.actual.report;
            let ran = out.members.iter().filter(|(_, m)| m.is_ok()).count();
            println!(
                "portfolio: {ran} of {} members planned; kept {}; simulated iteration {:.3} ms (unlimited {:.3} ms, overhead {:.2} %), stall {:.3} ms, recompute {:.3} ms, peak {} MiB",
                out.members.len(),
                out.chosen.label(),
                r.iteration_ns / 1e6,
                r.unlimited_ns / 1e6,
                r.overhead() * 100.0,
                r.stall_ns / 1e6,
                r.recompute_ns / 1e6,
                r.peak_bytes >> 20
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("scale: no plan: {e}");
            ExitCode::from(1)
        }
    }
}
