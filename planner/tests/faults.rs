//! The simulator and the planner under faults and at scale (issue 14, items 6 and 7): a copy
//! queue at 1 % of its bandwidth, an engine slower than the link, a budget below the largest
//! tensor, a plan whose replays would never end, and a large synthetic trace. Hand-derived
//! figures use [`round_platform`] (N FLOPs = N ns, link 1 B/ns, engine 4 B/ns, 5,000 ns setup).

use crate::common::{assert_ns, round_platform};
use planner::plan::{Decision, Member, Plan, PlanError, portfolio};
use planner::platform::Platform;
use planner::policy::{Compression, Policy, run_policy};
use planner::predictor::raw_wire_bytes;
use planner::ratios::wire_bytes_at;
use planner::sim::{Event, MAX_REPLAYS_PER_OP, SimError, SimReport, simulate, simulate_logged};
use planner::synth::{SynthConfig, random_trace};
use planner::trace::{Phase, TraceBuilder};
use planner::workload::Workload;

/// Budget of the swap trace's schedules: a + b + 2 kB, so that a must leave before c fits.
const SWAP_BUDGET_BYTES: u64 = 42_000;

/// op0 fwd 10 µs: writes a (20 kB)
/// op1 fwd 10 µs: reads a, writes b (20 kB)
/// op2 fwd 10 µs: reads b, writes c (20 kB)
/// op3 bwd 10 µs: reads c, writes g (1 kB)
/// op4 bwd 10 µs: reads b, g, writes g2 (1 kB)
/// op5 bwd 10 µs: reads a, g2, writes g3 (1 kB)
///
/// Returns the workload on `platform` and a plan swapping a out after op0, prefetched at op4.
fn swap_a(platform: &Platform) -> (Workload, Plan, usize) {
    let mut t = TraceBuilder::new("swap");
    let a = t.op("conv", Phase::Forward).flops(10_000).output(20_000).finish()[0];
    let b = t.op("conv", Phase::Forward).flops(10_000).reads(&[a]).output(20_000).finish()[0];
    let c = t.op("conv", Phase::Forward).flops(10_000).reads(&[b]).output(20_000).finish()[0];
    let g = t.op("conv_bwd", Phase::Backward).flops(10_000).reads(&[c]).output(1_000).finish()[0];
    let g2 = t.op("conv_bwd", Phase::Backward).flops(10_000).reads(&[b, g]).output(1_000).finish()[0];
    t.op("conv_bwd", Phase::Backward).flops(10_000).reads(&[a, g2]).output(1_000).finish();
    let w = Workload::new(&t.build().unwrap(), platform);
    let a = a as usize;
    let mut plan = Plan::keep_all(&w, "swap a");
    plan.decisions[a] = Decision::Swap { swap_out_after: 0, prefetch_at: 4 };
    (w, plan, a)
}

/// The simulator's clock only moves by compute, replays and stalls.
#[track_caller]
fn assert_time_accounted(r: &SimReport) {
    let sum = r.unlimited_ns + r.stall_ns + r.recompute_ns;
    assert!((r.iteration_ns - sum).abs() <= 1e-9 * sum, "{r:?}");
}

#[test]
fn copy_queue_at_one_percent_of_its_bandwidth_completes_with_the_stalls_reported() {
    // γ = 0.01 B/ns: a's 20 kB take x = 2,000,000 ns each way (plus 5,000 ns setup).
    let slow = Platform { link_gb_per_s: round_platform().link_gb_per_s * 0.01, ..round_platform() };
    let (w, plan, a) = swap_a(&slow);
    let (r, log) = simulate_logged(&w, &plan, &raw_wire_bytes(&w), SWAP_BUDGET_BYTES).unwrap();
    // Swap-out queued when op0 ends (10,000): done 10,000 + 5,000 + 2,000,000 = 2,015,000.
    assert!(log.contains(&Event::SwapOut { tensor: a, start_ns: 10_000.0, end_ns: 2_015_000.0 }), "{log:?}");
    // op2 (needs c, a + b hold 40 of 42 kB) waits for it: starts at 2,015,000.
    assert!(log.contains(&Event::OpStart { op: 2, at_ns: 2_015_000.0 }));
    // op3 2,025,000..2,035,000; op4 queues the prefetch at 2,035,000: done 4,040,000.
    assert!(log.contains(&Event::Prefetch { tensor: a, start_ns: 2_035_000.0, end_ns: 4_040_000.0 }));
    // op5 waits for a until 4,040,000 and ends 10,000 ns later.
    assert!(log.contains(&Event::OpStart { op: 5, at_ns: 4_040_000.0 }));
    assert_ns(r.iteration_ns, 4_050_000.0);
    // Stalls: op2 2,015,000 - 20,000 and op5 4,040,000 - 2,045,000 = 1,995,000 each.
    assert_ns(r.stall_ns, 3_990_000.0);
    assert_ns(r.unlimited_ns, 60_000.0);
    assert!(r.peak_bytes <= SWAP_BUDGET_BYTES);
    assert_time_accounted(&r);

    // The planner on a trace with a slow link: every policy ends with a plan or an error, and
    // what ran fits its budget with its time accounted for.
    let trace = random_trace(&SynthConfig::small(60, 3));
    let mut b = Platform::b();
    b.link_gb_per_s *= 0.01;
    let w = Workload::new(&trace, &b);
    let none = Compression::none(&w);
    let budget = w.budget_for_fraction(0.5);
    for policy in [Policy::Swap, Policy::Dte, Policy::Bw, Policy::CompressionAware] {
        match run_policy(policy, &w, &none, budget) {
            Ok(o) => {
                assert!(o.report.peak_bytes <= budget, "{policy:?}: {:?}", o.report);
                assert_time_accounted(&o.report);
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
}

#[test]
fn an_engine_slower_than_the_link_is_bypassed() {
    // B_CE = 0.5 B/ns < γ = 1 B/ns. a compresses 4x (5 kB), yet through the engine it would
    // take 20,000 / 0.5 = 40,000 ns, longer than its raw 20,000 ns on the link: Eq. 2 gives
    // min(20,000, max(5,000, 40,000)) = 20,000 ns, the raw bytes on the link.
    let slow_engine = Platform { engine_gb_per_s: 0.5, ..round_platform() };
    assert_ns(slow_engine.transfer_ns(20_000, 5_000), 20_000.0);
    let (w, plan, a) = swap_a(&slow_engine);
    let mut wire = raw_wire_bytes(&w);
    wire[a] = 5_000;
    let (r, log) = simulate_logged(&w, &plan, &wire, SWAP_BUDGET_BYTES).unwrap();
    // The uncompressed schedule: out 10,000 + 5,000 + 20,000 = 35,000; back 55,000..80,000.
    assert!(log.contains(&Event::SwapOut { tensor: a, start_ns: 10_000.0, end_ns: 35_000.0 }), "{log:?}");
    assert!(log.contains(&Event::Prefetch { tensor: a, start_ns: 55_000.0, end_ns: 80_000.0 }));
    assert_ns(r.iteration_ns, 90_000.0);
    // The link carried the raw bytes, not the compressed ones.
    assert_eq!((r.swapped_raw_bytes, r.swapped_wire_bytes), (20_000, 20_000));

    // With the round platform's 4 B/ns engine the same tensor goes compressed: x = max(5,000,
    // 5,000) = 5,000 ns, out done 10,000 + 5,000 + 5,000 = 20,000, before op2 needs the room.
    let (w, plan, _) = swap_a(&round_platform());
    let r = simulate(&w, &plan, &wire, SWAP_BUDGET_BYTES).unwrap();
    assert_eq!(r.swapped_wire_bytes, 5_000);
    assert_ns(r.stall_ns, 0.0);
}

#[test]
fn a_budget_below_the_largest_tensor_is_infeasible_with_its_minimum() {
    let (w, plan, _) = swap_a(&round_platform());
    // The largest tensor has 20 kB; op1 holds a and b (40 kB), the most of any op.
    let expected = SimError::BudgetBelowMinimum { budget_bytes: 19_999, min_bytes: 40_000, op: 1 };
    assert_eq!(simulate(&w, &plan, &raw_wire_bytes(&w), 19_999), Err(expected.clone()));
    assert!(expected.to_string().contains("40000 B"), "{expected}");
    // Every policy reports it at once, without re-planning.
    let none = Compression::none(&w);
    for policy in Policy::ALL {
        match run_policy(policy, &w, &none, 19_999) {
            Err(PlanError::Sim { replans: 0, source }) => assert_eq!(source, expected, "{policy:?}"),
            other => panic!("{policy:?}: {other:?}"),
        }
    }
}

/// A chain of `n` forward ops (1 kB each, every output saved) mirrored by `n` backward ops,
/// with every candidate dropped: the backward op of forward op i must replay ops 0..=i.
/// Returns the workload, the plan and the index of the backward op of forward op n - 2.
fn drop_every_link(n: usize) -> (Workload, Plan, usize) {
    let mut t = TraceBuilder::new("chain");
    let mut outs = Vec::with_capacity(n);
    for i in 0..n {
        let prev: &[_] = if i == 0 { &[] } else { &outs[i - 1..i] };
        outs.push(t.op("relu", Phase::Forward).flops(10).reads(prev).output(1_000).finish()[0]);
    }
    let mut grad = t.op("loss", Phase::Forward).flops(1).reads(&[outs[n - 1]]).output(4).finish()[0];
    for i in (0..n).rev() {
        grad = t.op("relu_bwd", Phase::Backward).flops(10).reads(&[grad, outs[i]]).output(1_000).finish()[0];
    }
    let w = Workload::new(&t.build().unwrap(), &round_platform());
    let mut plan = Plan::keep_all(&w, "drop all");
    for &c in &w.candidates {
        plan.decisions[c] = Decision::Drop;
    }
    // Ops: forward i at i, loss at n, backward of forward i at n + 1 + (n - 1 - i).
    (w, plan, n + 2)
}

#[test]
fn a_chain_of_drops_too_long_to_replay_fails_instead_of_hanging() {
    // n = MAX_REPLAYS_PER_OP + 1: the backward op of forward op n - 2 needs its output, whose
    // replay needs the n - 2 dropped outputs before it: n - 1 = MAX_REPLAYS_PER_OP replays,
    // the most allowed. Every backward op k links back replays k + 1 ops, so the whole
    // iteration replays sum_{k=1}^{n-1} k = (n - 1) n / 2 ops of 10 ns each.
    let n = MAX_REPLAYS_PER_OP + 1;
    let (w, plan, _) = drop_every_link(n);
    assert_eq!(w.candidates.len(), n - 1, "every forward output but the last has an idle window");
    let r = simulate(&w, &plan, &raw_wire_bytes(&w), w.peak_bytes).unwrap();
    assert_eq!(r.recomputed_ops, (n - 1) * n / 2);
    assert_ns(r.recompute_ns, ((n - 1) * n / 2) as f64 * 10.0);
    assert_time_accounted(&r);
    // One more link: the first backward op needing a replay exceeds the bound.
    let (w, plan, op) = drop_every_link(n + 1);
    let err = simulate(&w, &plan, &raw_wire_bytes(&w), w.peak_bytes).unwrap_err();
    assert_eq!(err, SimError::ReplayLimit { op, limit: MAX_REPLAYS_PER_OP });
    assert!(err.to_string().contains(&format!("op {op}")), "{err}");
}

/// Forward ops of the scale test's synthetic trace: 2.5 × 400 + 1 = 1,001 ops
/// (`examples/scale.rs` runs 8,000, a 20,001-op trace).
const SCALE_TEST_FORWARD_OPS: usize = 400;

#[test]
fn a_thousand_op_synthetic_trace_through_the_portfolio_and_simulator() {
    let trace = random_trace(&SynthConfig { forward_ops: SCALE_TEST_FORWARD_OPS, ..SynthConfig::bench(11) });
    // forward + loss + backward + optimizer (one op per two parameter gradients).
    assert_eq!(trace.ops.len(), 2 * SCALE_TEST_FORWARD_OPS + 1 + SCALE_TEST_FORWARD_OPS / 2);
    let w = Workload::new(&trace, &Platform::b());
    let wire: Vec<u64> =
        raw_wire_bytes(&w).iter().enumerate().map(|(i, &b)| wire_bytes_at(b, if i % 3 == 0 { 3.0 } else { 1.4 })).collect();
    let budget = w.budget_for_fraction(0.3);
    let out = portfolio(&w, &wire, &wire, budget, &Member::all()).unwrap();
    let r = &out.actual.report;
    assert!(r.peak_bytes <= budget && r.iteration_ns >= r.unlimited_ns, "{r:?}");
    assert_time_accounted(r);
    // The kept member is the fastest of those that ran.
    let fastest = out.members.iter().filter_map(|(_, t)| t.as_ref().ok()).copied().fold(f64::INFINITY, f64::min);
    assert_ns(out.predicted.iteration_ns, fastest);
    // Re-simulating the plan that ran gives the same report.
    assert_eq!(&simulate(&w, &out.actual.plan, &wire, budget).unwrap(), r);
}
