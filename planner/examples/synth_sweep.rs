//! Runs every policy on a seeded synthetic trace at 30 % and 50 % budgets on
//! platforms A and B, with synthetic ratios (1.4× dense, 3× for every third
//! producer), and prints the overheads. `cargo run --release -p planner --example synth_sweep`

use planner::platform::Platform;
use planner::policy::{Compression, Policy, SweepCase, sweep};
use planner::predictor::{Predictor, SignatureKind};
use planner::ratios::RatioTable;
use planner::synth::{SynthConfig, random_trace};
use planner::workload::Workload;

fn main() {
    let trace = random_trace(&SynthConfig::bench(7));
    let mut table = RatioTable::new("synthetic");
    for t in trace.tensors.iter().filter(|t| t.producer.is_some()) {
        let p = t.producer.unwrap();
        let ratio = if p.op % 3 == 1 { 3.0 } else { 1.4 };
        table.insert(p, t.bytes, (t.bytes as f64 / ratio) as u64);
    }
    let mut predictor = Predictor::new(SignatureKind::PerTensor);
    predictor.profile(&trace, &table);
    for platform in [Platform::a(), Platform::b()] {
        let w = Workload::new(&trace, &platform);
        let none = Compression::none(&w);
        let codec = Compression::predicted(&trace, &w, &predictor, &table);
        let mut cases = Vec::new();
        for fraction in [0.5, 0.3] {
            for policy in Policy::ALL {
                let compression = if matches!(policy, Policy::CompressionAware | Policy::CompressionUnaware | Policy::DteCompressed) { &codec } else { &none };
                cases.push(SweepCase { workload: &w, compression, policy, budget_fraction: fraction });
            }
        }
        let start = std::time::Instant::now();
        let results = sweep(&cases);
        println!("platform {} ({} ops, {} candidates, peak {} MB) in {:?}", platform.name, w.ops.len(), w.candidates.len(), w.peak_bytes >> 20, start.elapsed());
        for (c, r) in cases.iter().zip(results) {
            match r {
                Ok(o) => println!(
                    "  {:>4.0}% {:<8} {:>7.1}%  stall {:>6.2} ms  recompute {:>6.2} ms  swapped {:>5} MB  plan {} (+{} replans)",
                    c.budget_fraction * 100.0, c.policy.name(), o.report.overhead() * 100.0,
                    o.report.stall_ns / 1e6, o.report.recompute_ns / 1e6, o.report.swapped_raw_bytes >> 20, o.plan_label, o.replans
                ),
                Err(e) => println!("  {:>4.0}% {:<8} error: {e}", c.budget_fraction * 100.0, c.policy.name()),
            }
        }
    }
}
