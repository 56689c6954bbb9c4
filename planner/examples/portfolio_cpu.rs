//! The portfolio bench's workload (`benches/portfolio.rs`: 27 plans, 3,001 ops, 511 saved
//! tensors, platform B) run a fixed number of times, so that `perf stat -e task-clock` gives
//! CPU time per run on a shared machine, where criterion's wall-clock figures include time
//! spent descheduled. Prints the sum of the chosen plans' iteration times (ns), which must not
//! change with an optimisation.
//!
//! `cargo build --release -p planner --example portfolio_cpu &&
//!  perf stat -e task-clock target/release/examples/portfolio_cpu 20 0.3`
//! (20 runs at 30 % of the peak; subtract a run with 0 for the trace set-up).

use planner::plan::{Member, portfolio};
use planner::platform::Platform;
use planner::predictor::raw_wire_bytes;
use planner::ratios::wire_bytes_at;
use planner::synth::{SynthConfig, random_trace};
use planner::workload::Workload;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(Ok(runs)), Some(Ok(fraction))) = (args.first().map(|a| a.parse::<usize>()), args.get(1).map(|a| a.parse::<f64>())) else {
        eprintln!("usage: portfolio_cpu RUNS BUDGET_FRACTION (e.g. 20 0.3)");
        return ExitCode::from(2);
    };
    let trace = random_trace(&SynthConfig::bench(7));
    let w = Workload::new(&trace, &Platform::b());
    // The bench's synthetic ratios: 3x for every third tensor, 1.4x for the rest.
    let wire: Vec<u64> =
        raw_wire_bytes(&w).iter().enumerate().map(|(i, &b)| wire_bytes_at(b, if i % 3 == 0 { 3.0 } else { 1.4 })).collect();
    let members = Member::all();
    let budget = w.budget_for_fraction(fraction);
    let mut total_ns = 0.0;
    for _ in 0..runs {
        match portfolio(&w, &wire, &wire, budget, &members) {
            Ok(out) => total_ns += out.actual.report.iteration_ns,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    println!("{total_ns}");
    ExitCode::SUCCESS
}
