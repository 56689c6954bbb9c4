//! Hand-computed schedules (paper §IV: "the simulator reproduces
//! hand-computed schedules"). Platform: [`round_platform`] (N FLOPs = N ns,
//! link 1 B/ns, engine 4 B/ns, 5,000 ns setup per transfer, no launch cost).

use crate::common::{assert_ns, round_platform};
use planner::plan::{Decision, Plan};
use planner::sim::{Event, SimError, simulate, simulate_logged};
use planner::trace::{Phase, TensorKind, TraceBuilder};
use planner::workload::Workload;

/// Tensor indices of [`swap_trace`].
struct SwapTrace {
    w: Workload,
    a: usize,
}

/// op0 fwd 10 µs: writes a (20 kB)
/// op1 fwd 10 µs: reads a, writes b (20 kB)
/// op2 fwd 10 µs: reads b, writes c (20 kB)
/// op3 bwd 10 µs: reads c, writes g (1 kB)
/// op4 bwd 10 µs: reads b, g, writes g2 (1 kB)
/// op5 bwd 10 µs: reads a, g2, writes g3 (1 kB)
fn swap_trace() -> SwapTrace {
    let mut t = TraceBuilder::new("swap");
    let a = t.op("conv", Phase::Forward).flops(10_000).output(20_000).finish()[0];
    let b = t.op("conv", Phase::Forward).flops(10_000).reads(&[a]).output(20_000).finish()[0];
    let c = t.op("conv", Phase::Forward).flops(10_000).reads(&[b]).output(20_000).finish()[0];
    let g = t.op("conv_bwd", Phase::Backward).flops(10_000).reads(&[c]).output(1_000).finish()[0];
    let g2 = t.op("conv_bwd", Phase::Backward).flops(10_000).reads(&[b, g]).output(1_000).finish()[0];
    t.op("conv_bwd", Phase::Backward).flops(10_000).reads(&[a, g2]).output(1_000).finish();
    let trace = t.build().unwrap();
    SwapTrace { w: Workload::new(&trace, &round_platform()), a: a as usize }
}

fn swap_a(w: &Workload, a: usize, prefetch_at: usize) -> Plan {
    let mut plan = Plan::keep_all(w, "swap a");
    plan.decisions[a] = Decision::Swap { swap_out_after: 0, prefetch_at };
    plan
}

fn raw_sizes(w: &Workload) -> Vec<u64> {
    w.tensors.iter().map(|t| t.bytes).collect()
}

#[test]
fn stall_behind_slow_swap_out_and_late_prefetch() {
    let SwapTrace { w, a } = swap_trace();
    // Unlimited: six ops of 10,000 ns = 60,000 ns; peak at op3: a+b+c+g = 61 kB.
    assert_ns(w.unlimited_ns(), 60_000.0);
    assert_eq!(w.peak_bytes, 61_000);
    let plan = swap_a(&w, a, 4);
    let (r, log) = simulate_logged(&w, &plan, &raw_sizes(&w), 42_000).unwrap();
    // Swap-out of a: queued when op0 ends (10,000); 5,000 setup + 20,000 B / 1 B/ns
    // -> done at 35,000.
    assert!(log.contains(&Event::SwapOut { tensor: a, start_ns: 10_000.0, end_ns: 35_000.0 }));
    // op2 at 20,000 needs c (20 kB) but a+b = 40 kB are in use of 42 kB: it waits
    // for a's swap-out and starts at 35,000 (stall 15,000).
    assert!(log.contains(&Event::OpStart { op: 2, at_ns: 35_000.0 }));
    // op3 45,000..55,000; op4 starts at 55,000 and queues a's prefetch:
    // 55,000 + 5,000 + 20,000 = 80,000.
    assert!(log.contains(&Event::Prefetch { tensor: a, start_ns: 55_000.0, end_ns: 80_000.0 }));
    // op4 55,000..65,000; op5 reads a and waits until 80,000 (stall 15,000), ends 90,000.
    assert!(log.contains(&Event::OpStart { op: 5, at_ns: 80_000.0 }));
    assert_ns(r.iteration_ns, 90_000.0);
    assert_ns(r.stall_ns, 30_000.0);
    assert_ns(r.recompute_ns, 0.0);
    // Peak during op4: a (prefetching) + b + g + g2 = 20 + 20 + 1 + 1 kB.
    assert_eq!(r.peak_bytes, 42_000);
    assert_eq!((r.swapped_raw_bytes, r.swapped_wire_bytes), (20_000, 20_000));
    assert!((r.overhead() - 0.5).abs() < 1e-12);
}

#[test]
fn early_prefetch_waits_for_memory_then_hides_the_copy() {
    let SwapTrace { w, a } = swap_trace();
    // Prefetch at op3 (45,000): b+c = 40 kB in use, a does not fit under 42 kB,
    // so it is deferred; op3 allocates g (41 kB), ends at 55,000 and frees c;
    // the prefetch then starts at 55,000 and ends at 80,000 as before.
    let (r, log) = simulate_logged(&w, &swap_a(&w, a, 3), &raw_sizes(&w), 42_000).unwrap();
    assert!(log.contains(&Event::Prefetch { tensor: a, start_ns: 55_000.0, end_ns: 80_000.0 }));
    assert_ns(r.iteration_ns, 90_000.0);
    // With room for it (61 kB) nothing stalls: op2 starts at 20,000 and op3 at
    // 30,000, before a's swap-out is done (35,000). a was never freed, so its
    // prefetch is a no-op and it stays resident: 60,000 ns, no prefetch copy.
    let (r, log) = simulate_logged(&w, &swap_a(&w, a, 3), &raw_sizes(&w), 61_000).unwrap();
    assert!(!log.iter().any(|e| matches!(e, Event::Prefetch { .. })));
    assert_ns(r.stall_ns, 0.0);
    assert_ns(r.iteration_ns, 60_000.0);
    assert_eq!(r.swapped_raw_bytes, 20_000);
}

#[test]
fn link_bound_engine_bound_and_bypassed_transfers() {
    let SwapTrace { w, a } = swap_trace();
    let plan = swap_a(&w, a, 4);
    let with_wire = |wire_a: u64| {
        let mut wire = raw_sizes(&w);
        wire[a] = wire_a;
        simulate_logged(&w, &plan, &wire, 42_000).unwrap()
    };
    // Ratio 2: wire 10,000 B / 1 B/ns = 10,000 ns > engine 20,000 / 4 = 5,000 ns:
    // link-bound, swap-out 10,000 .. 25,000; op2 waits from 20,000 to 25,000.
    let (r, log) = with_wire(10_000);
    assert!(log.contains(&Event::SwapOut { tensor: a, start_ns: 10_000.0, end_ns: 25_000.0 }));
    assert!(log.contains(&Event::OpStart { op: 2, at_ns: 25_000.0 }));
    assert_eq!(r.swapped_wire_bytes, 10_000);
    // Ratio 10: wire 2,000 ns < engine 5,000 ns: engine-bound, done at 20,000,
    // exactly when op2 starts: no stall there. Prefetch at op4 (40,000):
    // 40,000 + 5,000 + 5,000 = 50,000 = op5's start: no stall at all.
    let (r, log) = with_wire(2_000);
    assert!(log.contains(&Event::SwapOut { tensor: a, start_ns: 10_000.0, end_ns: 20_000.0 }));
    assert!(log.contains(&Event::Prefetch { tensor: a, start_ns: 40_000.0, end_ns: 50_000.0 }));
    assert_ns(r.stall_ns, 0.0);
    assert_ns(r.iteration_ns, 60_000.0);
    // Expanding data (wire 25,000 > raw): the engine is bypassed, raw link time
    // 20,000 ns, and the raw bytes go on the wire.
    let (r, log) = with_wire(25_000);
    assert!(log.contains(&Event::SwapOut { tensor: a, start_ns: 10_000.0, end_ns: 35_000.0 }));
    assert_eq!(r.swapped_wire_bytes, 20_000);
}

/// op0 fwd 1 µs: reads x (1 kB input), writes a (10 kB)
/// op1 fwd 2 µs: reads a, writes b (10 kB)
/// op2 fwd 3 µs: reads b, writes c (10 kB)
/// op3 bwd 4 µs: reads c, writes g (1 kB)
/// op4 bwd 5 µs: reads b, g, writes g2 (1 kB)
/// op5 bwd 6 µs: reads a, x, g2, writes g3 (1 kB)
fn chain_trace() -> (Workload, usize, usize) {
    let mut t = TraceBuilder::new("chain");
    let x = t.tensor(1_000, TensorKind::Input);
    let a = t.op("conv", Phase::Forward).flops(1_000).reads(&[x]).output(10_000).finish()[0];
    let b = t.op("relu", Phase::Forward).flops(2_000).reads(&[a]).output(10_000).finish()[0];
    let c = t.op("conv", Phase::Forward).flops(3_000).reads(&[b]).output(10_000).finish()[0];
    let g = t.op("conv_bwd", Phase::Backward).flops(4_000).reads(&[c]).output(1_000).finish()[0];
    let g2 = t.op("relu_bwd", Phase::Backward).flops(5_000).reads(&[b, g]).output(1_000).finish()[0];
    t.op("conv_bwd", Phase::Backward).flops(6_000).reads(&[a, x, g2]).output(1_000).finish();
    let w = Workload::new(&t.build().unwrap(), &round_platform());
    (w, a as usize, b as usize)
}

#[test]
fn recompute_chain_with_a_dropped_input() {
    let (w, a, b) = chain_trace();
    // Unlimited: 1+2+3+4+5+6 = 21 µs.
    assert_ns(w.unlimited_ns(), 21_000.0);
    let mut plan = Plan::keep_all(&w, "drop a and b");
    plan.decisions[a] = Decision::Drop;
    plan.decisions[b] = Decision::Drop;
    // Peak: replaying op1 for op4 holds x + g + a + b = 1 + 1 + 10 + 10 = 22 kB.
    let (r, log) = simulate_logged(&w, &plan, &vec![0; w.tensors.len()], 22_000).unwrap();
    // op0 0..1, op1 1..3 (a freed), op2 3..6 (b freed), op3 6..10 µs.
    // op4 needs b: replay op1, which needs a: replay op0 10..11, op1 11..13, free a.
    assert!(log.contains(&Event::Replay { op: 0, tensor: a, start_ns: 10_000.0, end_ns: 11_000.0 }));
    assert!(log.contains(&Event::Replay { op: 1, tensor: b, start_ns: 11_000.0, end_ns: 13_000.0 }));
    // op4 13..18; op5 needs a again (charged again): replay op0 18..19, op5 19..25 µs.
    assert!(log.contains(&Event::OpStart { op: 4, at_ns: 13_000.0 }));
    assert!(log.contains(&Event::Replay { op: 0, tensor: a, start_ns: 18_000.0, end_ns: 19_000.0 }));
    assert_ns(r.iteration_ns, 25_000.0);
    assert_ns(r.recompute_ns, 4_000.0);
    assert_eq!(r.recomputed_ops, 3);
    assert_ns(r.stall_ns, 0.0);
    assert_eq!(r.peak_bytes, 22_000);
    // One byte less and the replay cannot fit: a typed overflow at op4, not a loop.
    let err = simulate(&w, &plan, &vec![0; w.tensors.len()], 21_999).unwrap_err();
    assert!(matches!(err, SimError::Overflow { op: 4, .. }), "{err}");
}

#[test]
fn replay_fetches_a_swapped_input_holds_it_and_frees_it() {
    let (w, a, b) = chain_trace();
    // a swapped (4x: wire 2,500 B; Eq. 2: min(10,000, max(2,500, 10,000 / 4)) =
    // 2,500 ns), prefetched at its first use op5; b dropped, and b's replay
    // (op1) reads a, which is then on the host.
    let mut plan = Plan::keep_all(&w, "swap a, drop b");
    plan.decisions[a] = Decision::Swap { swap_out_after: 0, prefetch_at: 5 };
    plan.decisions[b] = Decision::Drop;
    let mut wire: Vec<u64> = w.tensors.iter().map(|t| t.bytes).collect();
    wire[a] = 2_500;
    let (r, log) = simulate_logged(&w, &plan, &wire, 40_000).unwrap();
    // op0 0..1 µs; a's D2H 1,000 + 5,000 + 2,500 = 8,500. op1 1..3, op2 3..6
    // (b freed after it), op3 6..10; a is freed when op3 ends (its copy is done).
    assert!(log.contains(&Event::SwapOut { tensor: a, start_ns: 1_000.0, end_ns: 8_500.0 }));
    assert!(log.contains(&Event::Free { tensor: a, bytes: 10_000, at_ns: 10_000.0 }));
    // op4 needs b: its replay fetches a back on demand: 10,000 + 5,000 + 2,500 =
    // 17,500 (stall 7,500), replays op1 17,500..19,500, then frees a again.
    assert!(log.contains(&Event::Prefetch { tensor: a, start_ns: 10_000.0, end_ns: 17_500.0 }));
    assert!(log.contains(&Event::Replay { op: 1, tensor: b, start_ns: 17_500.0, end_ns: 19_500.0 }));
    assert!(log.contains(&Event::Free { tensor: a, bytes: 10_000, at_ns: 19_500.0 }));
    // op4 19.5..24.5 µs; op5 queues a's planned prefetch: 24,500 + 7,500 =
    // 32,000 (stall 7,500), runs 32..38 µs.
    assert!(log.contains(&Event::Prefetch { tensor: a, start_ns: 24_500.0, end_ns: 32_000.0 }));
    assert!(log.contains(&Event::OpStart { op: 5, at_ns: 32_000.0 }));
    assert_ns(r.iteration_ns, 38_000.0);
    assert_ns(r.stall_ns, 15_000.0);
    assert_ns(r.recompute_ns, 2_000.0);
    // Peak during op2: x + a + b + c = 1 + 10 + 10 + 10 kB; the replay holds
    // x + g + a + b = 22 kB. One swap-out of 10 kB, 2.5 kB on the wire.
    assert_eq!(r.peak_bytes, 31_000);
    assert_eq!((r.swapped_raw_bytes, r.swapped_wire_bytes), (10_000, 2_500));
}

#[test]
fn dropout_replays_from_its_saved_rng_state() {
    // chain_trace with op1 a dropout (rng: true, so replayable: false in the trace).
    let mut t = TraceBuilder::new("dropout");
    let x = t.tensor(1_000, TensorKind::Input);
    let a = t.op("conv", Phase::Forward).flops(1_000).reads(&[x]).output(10_000).finish()[0];
    let b = t.op("native_dropout", Phase::Forward).rng().flops(2_000).reads(&[a]).output(10_000).finish()[0];
    let c = t.op("conv", Phase::Forward).flops(3_000).reads(&[b]).output(10_000).finish()[0];
    let g = t.op("conv_bwd", Phase::Backward).flops(4_000).reads(&[c]).output(1_000).finish()[0];
    let g2 = t.op("dropout_bwd", Phase::Backward).flops(5_000).reads(&[b, g]).output(1_000).finish()[0];
    t.op("conv_bwd", Phase::Backward).flops(6_000).reads(&[a, x, g2]).output(1_000).finish();
    let trace = t.build().unwrap();
    assert!(trace.ops[1].rng && !trace.ops[1].replayable);
    let w = Workload::new(&trace, &round_platform());
    // The planner replays it from the RNG state saved when it ran (docs/DUMP-FORMAT.md §1).
    assert!(w.ops[1].replayable);
    let mut plan = Plan::keep_all(&w, "drop the dropout output");
    plan.decisions[b as usize] = Decision::Drop;
    let (r, log) = simulate_logged(&w, &plan, &vec![0; w.tensors.len()], 40_000).unwrap();
    // op0 0..1, op1 1..3, op2 3..6 µs (b freed after it), op3 6..10; op4 needs b:
    // replay op1 10..12 (a is resident), op4 12..17, op5 17..23 µs.
    assert!(log.contains(&Event::Replay { op: 1, tensor: b as usize, start_ns: 10_000.0, end_ns: 12_000.0 }));
    assert_ns(r.iteration_ns, 23_000.0);
    assert_ns(r.recompute_ns, 2_000.0);
}

#[test]
fn budget_below_one_op_is_a_typed_error_with_the_minimum() {
    let SwapTrace { w, a } = swap_trace();
    // op1 and op2 each need 20 + 20 kB resident; op1 is the first.
    assert_eq!((w.min_budget_bytes, w.min_budget_op), (40_000, 1));
    let err = simulate(&w, &swap_a(&w, a, 4), &raw_sizes(&w), 39_999).unwrap_err();
    assert_eq!(err, SimError::BudgetBelowMinimum { budget_bytes: 39_999, min_bytes: 40_000, op: 1 });
    assert!(err.to_string().contains("40000 B"));
    // Keeping everything in 41 kB overflows at op2 (a + b = 40 kB in use, c needs 20 kB).
    let keep = Plan::keep_all(&w, "keep");
    let err = simulate(&w, &keep, &raw_sizes(&w), 41_000).unwrap_err();
    assert_eq!(err, SimError::Overflow { op: 2, needed_bytes: 20_000, used_bytes: 40_000, budget_bytes: 41_000 });
}

#[test]
fn invalid_plans_are_rejected() {
    let SwapTrace { w, a } = swap_trace();
    // Prefetch before the release (op1 is a's last forward access).
    let err = simulate(&w, &swap_a(&w, a, 1), &raw_sizes(&w), 61_000).unwrap_err();
    assert!(matches!(err, SimError::InvalidPlan { .. }), "{err}");
}

#[test]
fn views_launch_nothing_and_the_optimizer_step_launches_once() {
    use planner::platform::Platform;
    // Platform A: 9,380 FLOP/ns, 492.8 B/ns, 4 µs launch.
    let mut t = TraceBuilder::new("launches");
    // op0: 9.38 MFLOP -> 1,000 ns of math > 4,928 B / 492.8 = 10 ns; + 4,000 launch = 5,000 ns.
    let a = t.op("conv", Phase::Forward).flops(9_380_000).output(4_928).finish()[0];
    // op1: no FLOPs, no bytes (a view): no kernel, 0 ns.
    t.op("detach", Phase::Forward).finish();
    // op2: 1,000 ns of math > 9,856 B / 492.8 = 20 ns; + launch = 5,000 ns.
    let g = t.op("conv_bwd", Phase::Backward).flops(9_380_000).reads(&[a]).output_as(4_928, planner::trace::Dtype::F32, TensorKind::ParameterGradient).finish()[0];
    // op3, op4: the optimizer pass, 4,928 B each -> 10 ns; one launch for the pass: 4,010 + 10 ns.
    t.op("add", Phase::Optimizer).flops(1_000_000_000).reads(&[g]).finish();
    t.op("add", Phase::Optimizer).flops(1_000_000_000).reads(&[g]).finish();
    let w = Workload::new(&t.build().unwrap(), &Platform::a());
    let durations: Vec<f64> = w.ops.iter().map(|o| o.duration_ns).collect();
    for (got, want) in durations.iter().zip([5_000.0, 0.0, 5_000.0, 4_010.0, 10.0]) {
        assert_ns(*got, want);
    }
    assert_ns(w.unlimited_ns(), 14_020.0);
}
