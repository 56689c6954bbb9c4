//! The whole 27-plan portfolio for a 3,000-op trace with ~500 saved tensors
//! (issue target: < 100 ms on one core).
//! `cargo bench -p planner --bench portfolio`

use criterion::{Criterion, criterion_group, criterion_main};
use planner::plan::{Member, portfolio};
use planner::platform::Platform;
use planner::predictor::raw_wire_bytes;
use planner::ratios::wire_bytes_at;
use planner::synth::{SynthConfig, random_trace};
use planner::workload::Workload;

fn bench_portfolio(c: &mut Criterion) {
    let trace = random_trace(&SynthConfig::bench(7));
    let w = Workload::new(&trace, &Platform::b());
    assert_eq!(w.ops.len(), 3_001);
    assert!((450..=550).contains(&w.candidates.len()), "{} saved tensors", w.candidates.len());
    // Synthetic ratios: 3x for every third tensor, 1.4x for the rest.
    let wire: Vec<u64> = raw_wire_bytes(&w)
        .iter()
        .enumerate()
        .map(|(i, &b)| wire_bytes_at(b, if i % 3 == 0 { 3.0 } else { 1.4 }))
        .collect();
    let members = Member::all();
    for fraction in [0.5, 0.3] {
        let budget = w.budget_for_fraction(fraction);
        c.bench_function(&format!("portfolio_18_plans_3000_ops_budget_{}", (fraction * 100.0) as u32), |b| {
            b.iter(|| portfolio(&w, &wire, &wire, budget, &members).unwrap())
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench_portfolio
}
criterion_main!(benches);
