//! The event-driven training + PCIe simulator (paper §IV "Simulator").
//!
//! ```text
//!   compute stream ──ops, replays──▶ MemoryPool (hard budget)
//!        │  queue swap-out after op        ▲ free when copy done
//!        ▼                                 │
//!   CopyQueue D2H ──x_t (Eq. 2)──▶ host ──▶ CopyQueue H2D ──prefetch──▶ device
//! ```
//!
//! One compute stream runs the ops in order. Before an op starts, its inputs
//! are made resident: a swapped tensor waits for its prefetch (a stall), a
//! dropped tensor is recomputed by replaying its producer (and, recursively,
//! the producers of inputs that are no longer resident; those are freed again
//! after the replay). A replay that needs a swapped-out input fetches it back
//! on demand (setup + its transfer time, a stall), holds it during the replay
//! and frees it again unless its own prefetch has been queued. Outputs are then allocated; an allocation that does not
//! fit waits for pending swap-outs, and overflows (an error) if none is
//! pending. After the op, swap-outs are queued, tensors past their last
//! forward access are released (a dropped one at once, a swapped one when
//! its copy is done), and tensors past their last access are freed. A
//! prefetch is queued when its op starts, and starts once its buffer fits
//! and its swap-out has finished.

mod memory;
mod queue;

pub use memory::MemoryPool;
pub use queue::CopyQueue;

use crate::plan::{Decision, Plan};
use crate::workload::{TensorIdx, Workload};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Most replays the simulator runs to make one op's inputs resident. A plan
/// that drops a long chain of tensors would otherwise replay the whole chain
/// before each backward op (quadratic work, a run that looks hung) and recurse
/// once per link of the chain (a stack overflow); past this bound it fails
/// with [`SimError::ReplayLimit`] instead.
pub const MAX_REPLAYS_PER_OP: usize = 1_024;

/// Result of simulating one iteration under a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct SimReport {
    /// Iteration time, ns.
    pub iteration_ns: f64,
    /// Iteration time with unlimited memory, ns.
    pub unlimited_ns: f64,
    /// Time the compute stream waited for memory or prefetches, ns.
    pub stall_ns: f64,
    /// Time spent replaying ops for recomputation, ns.
    pub recompute_ns: f64,
    /// Ops replayed.
    pub recomputed_ops: usize,
    /// Tensors swapped out.
    pub swapped_tensors: usize,
    /// Tensors dropped.
    pub dropped_tensors: usize,
    /// Raw bytes swapped out (each also comes back once).
    pub swapped_raw_bytes: u64,
    /// Bytes of those swap-outs on the link (compressed, or raw when bypassed).
    pub swapped_wire_bytes: u64,
    /// Most counted bytes resident at once.
    pub peak_bytes: u64,
    /// The budget simulated under.
    pub budget_bytes: u64,
}

impl SimReport {
    /// Slowdown against unlimited memory: `iteration / unlimited - 1`.
    pub fn overhead(&self) -> f64 {
        self.iteration_ns / self.unlimited_ns - 1.0
    }
}

/// What happened, for tests and timelines ([`simulate_logged`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event {
    /// Op started at `at_ns`.
    OpStart {
        /// The op.
        op: usize,
        /// Start time, ns.
        at_ns: f64,
    },
    /// Op `op` was replayed to recompute `tensor` from `start_ns` to `end_ns`.
    Replay {
        /// The replayed op.
        op: usize,
        /// The tensor it recomputed.
        tensor: TensorIdx,
        /// Start, ns.
        start_ns: f64,
        /// End, ns.
        end_ns: f64,
    },
    /// A device-to-host copy.
    SwapOut {
        /// The tensor.
        tensor: TensorIdx,
        /// Start (setup begins), ns.
        start_ns: f64,
        /// Done, ns.
        end_ns: f64,
    },
    /// A host-to-device copy.
    Prefetch {
        /// The tensor.
        tensor: TensorIdx,
        /// Start (setup begins), ns.
        start_ns: f64,
        /// Data resident, ns.
        end_ns: f64,
    },
    /// Memory taken for `tensor`.
    Alloc {
        /// The tensor.
        tensor: TensorIdx,
        /// Bytes.
        bytes: u64,
        /// Time, ns.
        at_ns: f64,
    },
    /// Memory of `tensor` returned.
    Free {
        /// The tensor.
        tensor: TensorIdx,
        /// Bytes.
        bytes: u64,
        /// Time, ns.
        at_ns: f64,
    },
}

/// Why a plan could not be simulated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The budget is below what a single op needs resident.
    #[error("budget of {budget_bytes} B is infeasible: op {op} alone needs {min_bytes} B resident (inputs plus outputs)")]
    BudgetBelowMinimum {
        /// The budget.
        budget_bytes: u64,
        /// The smallest feasible budget.
        min_bytes: u64,
        /// The op that needs it.
        op: usize,
    },
    /// An allocation did not fit and no swap-out was pending.
    #[error("op {op}: {needed_bytes} B do not fit ({used_bytes} B of {budget_bytes} B in use) and no swap-out is pending")]
    Overflow {
        /// The op being prepared.
        op: usize,
        /// Bytes requested.
        needed_bytes: u64,
        /// Bytes in use.
        used_bytes: u64,
        /// The budget.
        budget_bytes: u64,
    },
    /// A tensor needed again cannot be recomputed (no producer, non-replayable or in-place producer).
    #[error("op {op}: tensor index {tensor} is not resident and cannot be recomputed")]
    NotRecomputable {
        /// The op that needed it.
        op: usize,
        /// The tensor.
        tensor: TensorIdx,
    },
    /// Making one op's inputs resident needed more than [`MAX_REPLAYS_PER_OP`] replays.
    #[error("op {op}: recomputing its inputs needs more than {limit} replays (a chain of dropped tensors too long to replay)")]
    ReplayLimit {
        /// The op being prepared.
        op: usize,
        /// The bound, [`MAX_REPLAYS_PER_OP`].
        limit: usize,
    },
    /// The plan is inconsistent with the workload.
    #[error("plan {label:?}: tensor index {tensor}: {reason}")]
    InvalidPlan {
        /// The plan's label.
        label: String,
        /// The tensor.
        tensor: TensorIdx,
        /// What is wrong.
        reason: &'static str,
    },
}

/// Simulates one iteration of `workload` under `plan` with `budget_bytes` of
/// activation memory. `wire_bytes[t]` is the compressed size of tensor `t` on
/// the link (pass the raw sizes for no compression); only swapped tensors
/// read it.
pub fn simulate(workload: &Workload, plan: &Plan, wire_bytes: &[u64], budget_bytes: u64) -> Result<SimReport, SimError> {
    Sim::new(workload, plan, wire_bytes, budget_bytes, false)?.run().map(|(r, _)| r)
}

/// Like [`simulate`], also returning every event in the order the simulator
/// produced it (allocations and frees in memory order).
pub fn simulate_logged(
    workload: &Workload,
    plan: &Plan,
    wire_bytes: &[u64],
    budget_bytes: u64,
) -> Result<(SimReport, Vec<Event>), SimError> {
    Sim::new(workload, plan, wire_bytes, budget_bytes, true)?.run()
}

/// How [`Sim::materialize`] made a tensor resident.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Materialized {
    /// It was resident (or its planned prefetch brought it).
    Resident,
    /// Recomputed by a replay.
    Recomputed,
    /// Swapped out, its prefetch not yet queued: fetched back on demand.
    Fetched,
}

/// Per-op actions of a plan, precomputed.
#[derive(Default, Clone)]
struct OpActions {
    prefetch: Vec<TensorIdx>,
    swap_out: Vec<TensorIdx>,
    release: Vec<TensorIdx>,
    free: Vec<TensorIdx>,
}

struct Sim<'a> {
    w: &'a Workload,
    plan: &'a Plan,
    wire: &'a [u64],
    actions: Vec<OpActions>,
    pool: MemoryPool,
    d2h: CopyQueue,
    h2d: CopyQueue,
    now: f64,
    stall_ns: f64,
    recompute_ns: f64,
    recomputed_ops: usize,
    swapped_raw_bytes: u64,
    swapped_wire_bytes: u64,
    resident: Vec<bool>,
    ready_at: Vec<f64>,
    on_host: Vec<bool>,
    swap_done_at: Vec<f64>,
    released: Vec<bool>,
    wanted_back: Vec<bool>,
    pending_swap_outs: BinaryHeap<Reverse<(u64, TensorIdx)>>,
    prefetch_queue: VecDeque<TensorIdx>,
    log: Option<Vec<Event>>,
    op: usize,
    /// Replays run for the current op (bounded by [`MAX_REPLAYS_PER_OP`]).
    op_replays: usize,
}

impl<'a> Sim<'a> {
    fn new(w: &'a Workload, plan: &'a Plan, wire: &'a [u64], budget: u64, log: bool) -> Result<Self, SimError> {
        if budget < w.min_budget_bytes {
            return Err(SimError::BudgetBelowMinimum {
                budget_bytes: budget,
                min_bytes: w.min_budget_bytes,
                op: w.min_budget_op,
            });
        }
        let invalid = |tensor, reason| SimError::InvalidPlan { label: plan.label.clone(), tensor, reason };
        if plan.decisions.len() != w.tensors.len() || wire.len() != w.tensors.len() {
            return Err(invalid(0, "plan or wire sizes do not cover every tensor"));
        }
        let mut actions = vec![OpActions::default(); w.ops.len()];
        for (t, info) in w.tensors.iter().enumerate() {
            if info.counted {
                actions[info.last_access_op].free.push(t);
            }
            let decision = plan.decisions[t];
            if decision == Decision::Keep {
                continue;
            }
            if !info.candidate {
                return Err(invalid(t, "only saved activations with an idle window can be swapped or dropped"));
            }
            let (lf, fb) = (info.last_forward_access.unwrap_or(0), info.first_backward_use.unwrap_or(0));
            match decision {
                Decision::Drop => actions[lf].release.push(t),
                Decision::Swap { swap_out_after, prefetch_at } => {
                    let produced = info.alloc_op.unwrap_or(0);
                    if swap_out_after < produced || swap_out_after >= fb {
                        return Err(invalid(t, "swap-out must follow production and precede the first backward use"));
                    }
                    if prefetch_at <= swap_out_after.max(lf) || prefetch_at > fb {
                        return Err(invalid(t, "prefetch must lie after the release and no later than the first backward use"));
                    }
                    actions[swap_out_after].swap_out.push(t);
                    actions[swap_out_after.max(lf)].release.push(t);
                    actions[prefetch_at].prefetch.push(t);
                }
                Decision::Keep => unreachable!("handled above"),
            }
        }
        let n = w.tensors.len();
        Ok(Sim {
            w,
            plan,
            wire,
            actions,
            pool: MemoryPool::new(budget),
            d2h: CopyQueue::new(w.platform.copy_setup_ns()),
            h2d: CopyQueue::new(w.platform.copy_setup_ns()),
            now: 0.0,
            stall_ns: 0.0,
            recompute_ns: 0.0,
            recomputed_ops: 0,
            swapped_raw_bytes: 0,
            swapped_wire_bytes: 0,
            resident: vec![false; n],
            ready_at: vec![0.0; n],
            on_host: vec![false; n],
            swap_done_at: vec![f64::INFINITY; n],
            released: vec![false; n],
            wanted_back: vec![false; n],
            pending_swap_outs: BinaryHeap::new(),
            prefetch_queue: VecDeque::new(),
            log: log.then(Vec::new),
            op: 0,
            op_replays: 0,
        })
    }

    fn run(mut self) -> Result<(SimReport, Vec<Event>), SimError> {
        let w = self.w;
        for (t, info) in w.tensors.iter().enumerate() {
            if info.counted && info.alloc_op.is_none() && info.last_access_op < w.ops.len() {
                self.alloc(t)?;
            }
        }
        let mut compute_ns = 0.0;
        for i in 0..w.ops.len() {
            self.op = i;
            self.op_replays = 0;
            self.process_due_swap_outs();
            let prefetches = std::mem::take(&mut self.actions[i].prefetch);
            for t in prefetches {
                self.wanted_back[t] = true;
                self.prefetch_queue.push_back(t);
            }
            self.issue_prefetches();
            for &t in &w.ops[i].counted_inputs {
                self.materialize(t)?;
            }
            for &t in &w.ops[i].counted_outputs {
                if !self.resident[t] {
                    self.alloc(t)?;
                }
            }
            self.record(Event::OpStart { op: i, at_ns: self.now });
            self.now += w.ops[i].duration_ns;
            compute_ns += w.ops[i].duration_ns;
            for &t in &w.ops[i].counted_outputs {
                self.ready_at[t] = self.now;
            }
            self.process_due_swap_outs();
            let OpActions { swap_out, release, free, .. } = std::mem::take(&mut self.actions[i]);
            for t in swap_out {
                self.start_swap_out(t);
            }
            for t in release {
                self.release(t);
            }
            for t in free {
                self.free(t);
            }
            self.issue_prefetches();
        }
        debug_assert!(compute_ns <= self.now + 1e-6);
        let report = SimReport {
            iteration_ns: self.now,
            unlimited_ns: w.unlimited_ns(),
            stall_ns: self.stall_ns,
            recompute_ns: self.recompute_ns,
            recomputed_ops: self.recomputed_ops,
            swapped_tensors: self.plan.swapped().count(),
            dropped_tensors: self.plan.dropped().count(),
            swapped_raw_bytes: self.swapped_raw_bytes,
            swapped_wire_bytes: self.swapped_wire_bytes,
            peak_bytes: self.pool.peak_bytes(),
            budget_bytes: self.pool.budget_bytes(),
        };
        Ok((report, self.log.unwrap_or_default()))
    }

    fn record(&mut self, event: Event) {
        if let Some(log) = &mut self.log {
            log.push(event);
        }
    }

    /// Eq. 2 occupancy of tensor `t` and the bytes it puts on the link.
    fn transfer(&self, t: TensorIdx) -> (f64, u64) {
        let raw = self.w.tensors[t].bytes;
        let x = self.w.transfer_ns(t, self.wire[t]);
        let bypass = x >= raw as f64 / self.w.platform.link_bytes_per_ns();
        (x, if bypass { raw } else { self.wire[t] })
    }

    fn alloc(&mut self, t: TensorIdx) -> Result<(), SimError> {
        let bytes = self.w.tensors[t].bytes;
        self.wait_for_memory(bytes)?;
        let ok = self.pool.try_alloc(bytes);
        debug_assert!(ok, "wait_for_memory guarantees a fit");
        self.resident[t] = true;
        self.record(Event::Alloc { tensor: t, bytes, at_ns: self.now });
        Ok(())
    }

    fn free(&mut self, t: TensorIdx) {
        if self.resident[t] {
            let bytes = self.w.tensors[t].bytes;
            self.pool.free(bytes);
            self.resident[t] = false;
            self.record(Event::Free { tensor: t, bytes, at_ns: self.now });
        }
    }

    /// Stalls on pending swap-outs until `bytes` fit.
    fn wait_for_memory(&mut self, bytes: u64) -> Result<(), SimError> {
        while !self.pool.fits(bytes) {
            let Some(Reverse((done_bits, t))) = self.pending_swap_outs.pop() else {
                return Err(SimError::Overflow {
                    op: self.op,
                    needed_bytes: bytes,
                    used_bytes: self.pool.used_bytes(),
                    budget_bytes: self.pool.budget_bytes(),
                });
            };
            self.stall_until(f64::from_bits(done_bits));
            self.finish_swap_out(t);
        }
        Ok(())
    }

    fn stall_until(&mut self, time_ns: f64) {
        if time_ns > self.now {
            self.stall_ns += time_ns - self.now;
            self.now = time_ns;
        }
    }

    fn process_due_swap_outs(&mut self) {
        while let Some(&Reverse((done_bits, t))) = self.pending_swap_outs.peek() {
            if f64::from_bits(done_bits) > self.now {
                break;
            }
            self.pending_swap_outs.pop();
            self.finish_swap_out(t);
        }
    }

    fn start_swap_out(&mut self, t: TensorIdx) {
        let (x, wire) = self.transfer(t);
        let (start, done) = self.d2h.enqueue(self.now, x);
        self.swap_done_at[t] = done;
        self.swapped_raw_bytes += self.w.tensors[t].bytes;
        self.swapped_wire_bytes += wire;
        self.pending_swap_outs.push(Reverse((done.to_bits(), t)));
        self.record(Event::SwapOut { tensor: t, start_ns: start, end_ns: done });
    }

    fn finish_swap_out(&mut self, t: TensorIdx) {
        self.on_host[t] = true;
        if self.released[t] && !self.wanted_back[t] {
            self.free(t);
        }
        self.issue_prefetches();
    }

    fn release(&mut self, t: TensorIdx) {
        self.released[t] = true;
        match self.plan.decisions[t] {
            Decision::Drop => self.free(t),
            Decision::Swap { .. } if self.on_host[t] && !self.wanted_back[t] => self.free(t),
            _ => {}
        }
    }

    /// Starts queued prefetches, in order, while their buffers fit.
    fn issue_prefetches(&mut self) {
        while let Some(&t) = self.prefetch_queue.front() {
            if self.resident[t] {
                self.prefetch_queue.pop_front(); // never left, or fetched on demand
                continue;
            }
            let bytes = self.w.tensors[t].bytes;
            if !self.pool.try_alloc(bytes) {
                break;
            }
            self.prefetch_queue.pop_front();
            self.record(Event::Alloc { tensor: t, bytes, at_ns: self.now });
            self.start_prefetch(t);
        }
    }

    /// Queues the host-to-device copy of `t`, whose buffer is already allocated.
    fn start_prefetch(&mut self, t: TensorIdx) {
        let (x, _) = self.transfer(t);
        let (start, done) = self.h2d.enqueue(self.now.max(self.swap_done_at[t]), x);
        self.resident[t] = true;
        self.ready_at[t] = done;
        self.record(Event::Prefetch { tensor: t, start_ns: start, end_ns: done });
    }

    /// Makes `t` resident with its data ready and says how (a replay frees
    /// what it recomputed or fetched on demand again afterwards).
    fn materialize(&mut self, t: TensorIdx) -> Result<Materialized, SimError> {
        if self.resident[t] {
            self.stall_until(self.ready_at[t]);
            return Ok(Materialized::Resident);
        }
        if self.on_host[t] {
            // Swapped out and not yet back: force its prefetch (or fetch on demand).
            let how = if self.wanted_back[t] { Materialized::Resident } else { Materialized::Fetched };
            self.wanted_back[t] = true;
            if !self.prefetch_queue.contains(&t) {
                self.prefetch_queue.push_back(t);
            }
            loop {
                self.issue_prefetches();
                if self.resident[t] {
                    break;
                }
                let front = self.prefetch_queue.front().copied().unwrap_or(t);
                self.wait_for_memory(self.w.tensors[front].bytes)?;
            }
            self.stall_until(self.ready_at[t]);
            return Ok(how);
        }
        self.replay(t)?;
        Ok(Materialized::Recomputed)
    }

    /// Recomputes `t` by replaying its producer, materializing its inputs first.
    fn replay(&mut self, t: TensorIdx) -> Result<(), SimError> {
        let w = self.w;
        let not_recomputable = SimError::NotRecomputable { op: self.op, tensor: t };
        let p = w.tensors[t].producer.ok_or(not_recomputable.clone())?;
        if !w.ops[p].replayable || w.ops[p].counted_inputs.contains(&t) {
            return Err(not_recomputable);
        }
        self.op_replays += 1;
        if self.op_replays > MAX_REPLAYS_PER_OP {
            return Err(SimError::ReplayLimit { op: self.op, limit: MAX_REPLAYS_PER_OP });
        }
        let (mut temps, mut fetched) = (Vec::new(), Vec::new());
        for &u in &w.ops[p].counted_inputs {
            match self.materialize(u)? {
                Materialized::Recomputed => temps.push(u),
                Materialized::Fetched => fetched.push(u),
                Materialized::Resident => {}
            }
        }
        self.alloc(t)?;
        let start = self.now;
        self.now += w.ops[p].duration_ns;
        self.recompute_ns += w.ops[p].duration_ns;
        self.recomputed_ops += 1;
        self.ready_at[t] = self.now;
        self.record(Event::Replay { op: p, tensor: t, start_ns: start, end_ns: self.now });
        for u in temps {
            self.free(u);
        }
        for u in fetched {
            // Back to the host copy; its planned prefetch brings it again.
            self.wanted_back[u] = false;
            self.free(u);
        }
        Ok(())
    }
}
