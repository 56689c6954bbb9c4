//! The planner's model of a plan: memory per op on the unlimited-memory
//! timeline, copy-queue schedules and deadlines, and replay costs C_r(t).
//!
//! Planning works on op indices of the unlimited timeline; the simulator
//! then checks the plan for real (and the caller re-plans on overflow).

use super::{Decision, Plan};
use crate::workload::{TensorIdx, Workload};
use std::cell::RefCell;

/// C_r(t) of [`Estimate::replay_cost`], memoised per tensor.
type ReplayCost = Option<(f64, u64)>;

/// Most ops one replay may re-execute; longer chains count as not recomputable
/// (keeps C_r bounded and cheap to evaluate).
const MAX_REPLAY_OPS: usize = 32;

/// A plan under construction with its cost model.
#[derive(Debug, Clone)]
pub(crate) struct Estimate<'a> {
    pub w: &'a Workload,
    pub plan: Plan,
    /// Eq. 2 copy time of each tensor with the planning sizes, ns.
    pub transfer_ns: Vec<f64>,
    /// Last op during which a swapped tensor still occupies memory (its swap-out is done after it).
    release: Vec<usize>,
    /// When a swapped tensor's swap-out is done, ns.
    swap_done_ns: Vec<f64>,
    /// Swapped tensors as `(swap_out_after, t)`, sorted (device-to-host FIFO order).
    swaps_by_queue_op: Vec<(usize, TensorIdx)>,
    /// Swapped tensors as `(first_backward_use, t)`, sorted (host-to-device FIFO order).
    swaps_by_use: Vec<(usize, TensorIdx)>,
    /// First position of `swaps_by_queue_op` changed since the last schedule.
    dirty_from: usize,
    /// Treat swap-outs as instant (the swap-only policy, which stalls instead).
    instant_swap_out: bool,
    /// Memoised C_r per tensor (`None` = not computed).
    replay_cache: RefCell<Vec<Option<ReplayCost>>>,
    /// For each candidate, the tensors whose cached C_r consulted its residency.
    replay_watchers: RefCell<Vec<Vec<TensorIdx>>>,
}

impl<'a> Estimate<'a> {
    /// Keeps everything; `plan_wire[t]` are the sizes the plan assumes on the link.
    pub fn new(w: &'a Workload, plan_wire: &[u64], label: &str, instant_swap_out: bool) -> Self {
        let transfer_ns = w.tensors.iter().zip(plan_wire).map(|(t, &wire)| w.platform.transfer_ns(t.bytes, wire)).collect();
        Estimate { w, plan: Plan::keep_all(w, label), transfer_ns, release: vec![0; w.tensors.len()], swap_done_ns: vec![0.0; w.tensors.len()], swaps_by_queue_op: Vec::new(), swaps_by_use: Vec::new(), dirty_from: 0, instant_swap_out,
            replay_cache: RefCell::new(vec![None; w.tensors.len()]),
            replay_watchers: RefCell::new(vec![Vec::new(); w.tensors.len()]),
        }
    }

    fn lf(&self, t: TensorIdx) -> usize {
        self.w.tensors[t].last_forward_access.unwrap_or(0)
    }

    fn fb(&self, t: TensorIdx) -> usize {
        self.w.tensors[t].first_backward_use.unwrap_or(0)
    }

    /// The ops (inclusive range) during which the plan keeps `t` off the device.
    pub fn absent(&self, t: TensorIdx) -> Option<(usize, usize)> {
        let (from, to) = match self.plan.decisions[t] {
            Decision::Keep => return None,
            Decision::Drop => (self.lf(t) + 1, self.fb(t) - 1),
            Decision::Swap { prefetch_at, .. } => (self.release[t] + 1, prefetch_at.saturating_sub(1)),
        };
        (from <= to).then_some((from, to))
    }

    /// Counted bytes resident during each op under the plan.
    pub fn profile(&self) -> Vec<i64> {
        let n = self.w.ops.len();
        let mut diff = vec![0i64; n + 1];
        for &t in &self.w.candidates {
            if self.plan.decisions[t] != Decision::Keep {
                if let Some((from, to)) = self.absent(t) {
                    diff[from] -= self.w.tensors[t].bytes as i64;
                    diff[to + 1] += self.w.tensors[t].bytes as i64;
                }
            }
        }
        let mut acc = 0;
        self.w.base_profile_bytes.iter().zip(&diff).map(|(&b, &d)| { acc += d; b as i64 + acc }).collect()
    }

    /// Sets `t` to swap with its swap-out after its last forward write and
    /// its prefetch at its first backward use; updates every release point.
    pub fn set_swap(&mut self, t: TensorIdx) {
        let info = &self.w.tensors[t];
        let swap_out_after = info.last_forward_write.or(info.alloc_op).unwrap_or(0);
        self.set(t, Decision::Swap { swap_out_after, prefetch_at: self.fb(t) });
    }

    /// Sets the decision of `t`, keeping the copy-queue orders up to date;
    /// returns the tensors whose memoised C_r depended on `t` (now forgotten).
    pub fn set(&mut self, t: TensorIdx, decision: Decision) -> Vec<TensorIdx> {
        if matches!(self.plan.decisions[t], Decision::Swap { .. }) {
            if let Some(at) = self.swaps_by_queue_op.iter().position(|&(_, u)| u == t) {
                self.dirty_from = self.dirty_from.min(at);
            }
            self.swaps_by_queue_op.retain(|&(_, u)| u != t);
            self.swaps_by_use.retain(|&(_, u)| u != t);
        }
        if let Decision::Swap { swap_out_after, .. } = decision {
            let key = (swap_out_after, t);
            let at = self.swaps_by_queue_op.partition_point(|&k| k < key);
            self.swaps_by_queue_op.insert(at, key);
            self.dirty_from = self.dirty_from.min(at);
            let key = (self.fb(t), t);
            let at = self.swaps_by_use.partition_point(|&k| k < key);
            self.swaps_by_use.insert(at, key);
        }
        self.plan.decisions[t] = decision;
        let watchers = std::mem::take(&mut self.replay_watchers.get_mut()[t]);
        let cache = self.replay_cache.get_mut();
        for &u in &watchers {
            cache[u] = None;
        }
        watchers
    }

    /// Schedules the device-to-host queue (FIFO by queue time), sets every
    /// release point, and returns whether it drains before the forward pass
    /// ends. Only the part of the queue after the first change is redone.
    pub fn schedule_swap_outs(&mut self) -> bool {
        let w = self.w;
        let from = self.dirty_from.min(self.swaps_by_queue_op.len());
        self.dirty_from = usize::MAX;
        let mut free_at = if from == 0 { 0.0f64 } else { self.swap_done_ns[self.swaps_by_queue_op[from - 1].1] };
        for i in from..self.swaps_by_queue_op.len() {
            let (after, t) = self.swaps_by_queue_op[i];
            let done = w.op_start_ns[after + 1].max(free_at) + w.platform.copy_setup_ns() + self.transfer_ns[t];
            free_at = done;
            self.swap_done_ns[t] = done;
            let done_op = if self.instant_swap_out { after } else { w.op_at_ns(done) };
            self.release[t] = done_op.max(self.lf(t));
        }
        // FIFO completion times only grow: the queue drains iff its last copy does.
        self.swaps_by_queue_op.last().is_none_or(|&(_, t)| self.swap_done_ns[t] <= w.forward_ns)
    }

    /// Whether the host-to-device queue (FIFO by first backward use, each copy
    /// as soon as its swap-out is done) delivers every tensor before its use.
    /// Call after [`Estimate::schedule_swap_outs`].
    pub fn prefetches_meet_deadlines(&self) -> bool {
        let w = self.w;
        let mut free_at = 0.0f64;
        for &(fb, t) in &self.swaps_by_use {
            let done = self.swap_done_ns[t].max(free_at) + w.platform.copy_setup_ns() + self.transfer_ns[t];
            free_at = done;
            if done > w.op_start_ns[fb] {
                return false;
            }
        }
        true
    }

    /// Whether `t` is on the device during op `k` under the plan.
    fn resident_at(&self, t: TensorIdx, k: usize) -> bool {
        let info = &self.w.tensors[t];
        if info.alloc_op.unwrap_or(0) > k || info.last_access_op < k {
            return false;
        }
        self.absent(t).is_none_or(|(from, to)| k < from || k > to)
    }

    /// C_r(t): time to replay `t`'s producer (and, recursively, producers of
    /// inputs that are not resident) at its first backward use, and the bytes
    /// of the recomputed inputs held during the replay. `None` if it cannot
    /// be recomputed (no producer, non-replayable or in-place op, a needed
    /// input that is swapped out or has no producer, or more than 32 replayed ops).
    pub fn replay_cost(&self, t: TensorIdx) -> ReplayCost {
        if let Some(cost) = self.replay_cache.borrow()[t] {
            return cost;
        }
        let mut consulted = Vec::new();
        let cost = self.replay_at(t, self.fb(t), &mut 0, &mut consulted);
        self.replay_cache.borrow_mut()[t] = Some(cost);
        let mut watchers = self.replay_watchers.borrow_mut();
        for u in consulted {
            watchers[u].push(t);
        }
        cost
    }

    fn replay_at(&self, t: TensorIdx, k: usize, replayed_ops: &mut usize, consulted: &mut Vec<TensorIdx>) -> ReplayCost {
        let w = self.w;
        let p = w.tensors[t].producer?;
        let op = &w.ops[p];
        *replayed_ops += 1;
        if !op.replayable || *replayed_ops > MAX_REPLAY_OPS || op.counted_inputs.contains(&t) {
            return None;
        }
        let (mut time, mut bytes) = (op.duration_ns, 0);
        for &u in &op.counted_inputs {
            if w.tensors[u].candidate {
                consulted.push(u);
            }
            if self.resident_at(u, k) {
                continue;
            }
            if matches!(self.plan.decisions[u], Decision::Swap { .. }) {
                return None;
            }
            let (tu, bu) = self.replay_at(u, k, replayed_ops, consulted)?;
            time += tu;
            bytes += bu + w.tensors[u].bytes;
        }
        Some((time, bytes))
    }

    /// Sets each swapped tensor's prefetch at the earliest op from which
    /// `profile + m_t` stays within `target` until its first backward use
    /// (in order of first use); updates `profile`.
    pub fn schedule_prefetches(&mut self, profile: &mut [i64], target: u64) {
        for i in 0..self.swaps_by_use.len() {
            let t = self.swaps_by_use[i].1;
            let fb = self.fb(t);
            let m = self.w.tensors[t].bytes as i64;
            let mut p = fb;
            while p > self.release[t] + 1 && profile[p - 1] + m <= target as i64 {
                p -= 1;
            }
            for slot in &mut profile[p..fb] {
                *slot += m;
            }
            if let Decision::Swap { prefetch_at, .. } = &mut self.plan.decisions[t] {
                *prefetch_at = p;
            }
        }
    }
}

/// Largest entry of a profile and its op (the first, on ties).
pub(crate) fn peak(profile: &[i64]) -> (i64, usize) {
    let mut best = (i64::MIN, 0);
    for (i, &v) in profile.iter().enumerate() {
        if v > best.0 {
            best = (v, i);
        }
    }
    best
}
