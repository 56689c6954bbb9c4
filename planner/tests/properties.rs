//! Property tests on random DAG traces (issue #4, item 6).

use planner::plan::{Member, plan_and_simulate, portfolio};
use planner::platform::Platform;
use planner::policy::{Compression, Policy, run_policy};
use planner::predictor::raw_wire_bytes;
use planner::ratios::wire_bytes_at;
use planner::sim::{Event, simulate_logged};
use planner::synth::{SynthConfig, random_trace};
use planner::workload::Workload;
use proptest::prelude::*;
use std::collections::HashSet;

fn setup(forward_ops: usize, seed: u64, platform_b: bool) -> (Workload, Compression) {
    let trace = random_trace(&SynthConfig::small(forward_ops, seed));
    let w = Workload::new(&trace, &if platform_b { Platform::b() } else { Platform::a() });
    // Predicted 2x for even tensors, 1.3x otherwise; the next iteration differs by a few %.
    let predicted: Vec<u64> =
        w.tensors.iter().enumerate().map(|(i, t)| wire_bytes_at(t.bytes, if i % 2 == 0 { 2.0 } else { 1.3 })).collect();
    let actual: Vec<u64> = predicted.iter().enumerate().map(|(i, &b)| if i % 3 == 0 { b + b / 20 } else { b }).collect();
    (w, Compression { predicted_wire_bytes: predicted, actual_wire_bytes: actual })
}

/// Replays the event log: memory never exceeds the budget, and every input
/// of every op is resident (and its prefetch finished) when the op starts.
fn check_log(w: &Workload, log: &[Event], budget: u64) -> Result<(), TestCaseError> {
    let mut used = 0u64;
    let mut resident = HashSet::new();
    let mut ready_at = vec![0.0f64; w.tensors.len()];
    for e in log {
        match *e {
            Event::Alloc { tensor, bytes, .. } => {
                used += bytes;
                prop_assert!(used <= budget, "{used} B in use over a budget of {budget} B");
                prop_assert!(resident.insert(tensor));
            }
            Event::Free { tensor, bytes, .. } => {
                used -= bytes;
                prop_assert!(resident.remove(&tensor));
            }
            Event::Prefetch { tensor, end_ns, .. } => ready_at[tensor] = end_ns,
            Event::OpStart { op, at_ns } => {
                for &t in &w.ops[op].counted_inputs {
                    prop_assert!(resident.contains(&t), "op {op} input {t} not resident");
                    prop_assert!(ready_at[t] <= at_ns + 1e-6, "op {op} starts before input {t} arrives");
                }
            }
            _ => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn policies_respect_budget_residency_and_unlimited_bound(
        forward_ops in 6usize..40,
        seed in any::<u64>(),
        platform_b in any::<bool>(),
        fraction in 0.3f64..1.0,
        policy_index in 0usize..Policy::ALL.len(),
    ) {
        let (w, compression) = setup(forward_ops, seed, platform_b);
        let policy = Policy::ALL[policy_index];
        let budget = w.budget_for_fraction(fraction);
        if let Ok(outcome) = run_policy(policy, &w, &compression, budget) {
            let compressed = matches!(policy, Policy::DteCompressed | Policy::CompressionAware | Policy::CompressionUnaware);
            let wire = if compressed { compression.actual_wire_bytes.clone() } else { raw_wire_bytes(&w) };
            let (report, log) = simulate_logged(&w, &outcome.plan, &wire, budget).unwrap();
            prop_assert_eq!(&report, &outcome.report);
            prop_assert!(report.peak_bytes <= budget);
            check_log(&w, &log, budget)?;
            // No policy beats unlimited memory.
            prop_assert!(report.iteration_ns >= w.unlimited_ns() - 1e-6);
        }
    }

    #[test]
    fn portfolio_never_loses_to_its_recompute_only_member(
        forward_ops in 6usize..40,
        seed in any::<u64>(),
        platform_b in any::<bool>(),
        fraction in 0.3f64..0.9,
    ) {
        let (w, c) = setup(forward_ops, seed, platform_b);
        let budget = w.budget_for_fraction(fraction);
        let members = Member::all();
        if let Ok(outcome) = portfolio(&w, &c.predicted_wire_bytes, &c.actual_wire_bytes, budget, &members) {
            let recompute = outcome.members.iter().find(|(m, _)| *m == Member::RecomputeOnly).unwrap();
            if let Ok(recompute_ns) = recompute.1 {
                prop_assert!(outcome.predicted.iteration_ns <= recompute_ns + 1e-6);
            }
            prop_assert_eq!(outcome.members.len(), 27);
        }
    }

    /// Issue #13, item 3: under its own predictions a compressed portfolio
    /// (PlaneZip's, and a ZVC-like one with other sizes) is never slower than
    /// BW's chosen plan on the same trace: BW's portfolio runs first
    /// (independently, raw sizes), then its chosen member's plan is simulated
    /// (with re-plans) with the compressed portfolio's predicted sizes.
    #[test]
    fn compressed_portfolio_never_loses_to_bws_plan(
        forward_ops in 6usize..40,
        seed in any::<u64>(),
        platform_b in any::<bool>(),
        fraction in 0.3f64..0.9,
    ) {
        let (w, planezip) = setup(forward_ops, seed, platform_b);
        // A ZVC-like codec: 1.5x on every third tensor, raw elsewhere.
        let zvc: Vec<u64> = w.tensors.iter().enumerate().map(|(i, t)| if i % 3 == 0 { wire_bytes_at(t.bytes, 1.5) } else { t.bytes }).collect();
        let budget = w.budget_for_fraction(fraction);
        let raw = raw_wire_bytes(&w);
        let Ok(bw) = run_policy(Policy::Bw, &w, &Compression::none(&w), budget) else { return Ok(()) };
        let bw_member = bw.member.expect("BW runs a portfolio");
        for predicted in [&planezip.predicted_wire_bytes, &zvc] {
            let out = portfolio(&w, predicted, predicted, budget, &Member::all()).unwrap();
            let bw_plan = plan_and_simulate(&w, predicted, budget, |target| bw_member.build(&w, &raw, target)).unwrap();
            prop_assert!(out.predicted.iteration_ns <= bw_plan.report.iteration_ns + 1e-6,
                "portfolio {} ns > BW's plan {} ns", out.predicted.iteration_ns, bw_plan.report.iteration_ns);
        }
    }

    #[test]
    fn full_budget_runs_at_full_speed(forward_ops in 6usize..40, seed in any::<u64>()) {
        let (w, c) = setup(forward_ops, seed, false);
        for policy in Policy::ALL {
            let outcome = run_policy(policy, &w, &c, w.peak_bytes).unwrap();
            prop_assert!((outcome.report.iteration_ns - w.unlimited_ns()).abs() < 1e-6);
        }
    }
}

#[test]
fn infeasible_budget_is_a_typed_error_naming_the_minimum() {
    let (w, c) = setup(20, 3, true);
    for policy in Policy::ALL {
        let err = run_policy(policy, &w, &c, w.min_budget_bytes - 1).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(&format!("{} B", w.min_budget_bytes)) || text.contains("unreachable"), "{policy:?}: {text}");
    }
}

#[test]
fn most_random_cases_produce_a_plan() {
    // Guards the properties above against vacuity: at 70 % of the peak the
    // planner policies must succeed on nearly every random trace.
    let mut ok = 0;
    for seed in 0..20 {
        let (w, c) = setup(60, seed, seed % 2 == 0);
        for policy in [Policy::Recomp, Policy::Bw, Policy::CompressionAware] {
            ok += run_policy(policy, &w, &c, w.budget_for_fraction(0.7)).is_ok() as usize;
        }
    }
    assert!(ok >= 54, "only {ok} of 60 runs produced a plan");
}
