//! The planner's model of a plan: memory per op on the unlimited-memory
//! timeline, copy-queue schedules and deadlines, and replay costs C_r(t).
//!
//! Planning works on op indices of the unlimited timeline; the simulator
//! then checks the plan for real (and the caller re-plans on overflow).

use super::{Decision, Plan};
use crate::workload::{TensorIdx, Workload};

/// Recursion limit of a replay chain; deeper chains count as not recomputable.
const MAX_REPLAY_DEPTH: usize = 32;

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
    /// Treat swap-outs as instant (the swap-only policy, which stalls instead).
    instant_swap_out: bool,
}

impl<'a> Estimate<'a> {
    /// Keeps everything; `plan_wire[t]` are the sizes the plan assumes on the link.
    pub fn new(w: &'a Workload, plan_wire: &[u64], label: &str, instant_swap_out: bool) -> Self {
        let transfer_ns = w.tensors.iter().zip(plan_wire).map(|(t, &wire)| w.platform.transfer_ns(t.bytes, wire)).collect();
        Estimate { w, plan: Plan::keep_all(w, label), transfer_ns, release: vec![0; w.tensors.len()], swap_done_ns: vec![0.0; w.tensors.len()], instant_swap_out }
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
        for (t, d) in self.plan.decisions.iter().enumerate() {
            if *d != Decision::Keep {
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
        self.plan.decisions[t] = Decision::Swap { swap_out_after, prefetch_at: self.fb(t) };
    }

    /// Schedules the device-to-host queue (FIFO by queue time), sets every
    /// release point, and returns whether it drains before the forward pass
    /// ends.
    pub fn schedule_swap_outs(&mut self) -> bool {
        let w = self.w;
        let mut swaps: Vec<(usize, TensorIdx)> = self
            .plan
            .decisions
            .iter()
            .enumerate()
            .filter_map(|(t, d)| match d {
                Decision::Swap { swap_out_after, .. } => Some((*swap_out_after, t)),
                _ => None,
            })
            .collect();
        swaps.sort_unstable();
        let mut free_at = 0.0f64;
        let mut drains = true;
        for (after, t) in swaps {
            let done = w.op_start_ns[after + 1].max(free_at) + w.platform.copy_setup_ns() + self.transfer_ns[t];
            free_at = done;
            drains &= done <= w.forward_ns;
            self.swap_done_ns[t] = done;
            let done_op = if self.instant_swap_out { after } else { w.op_at_ns(done) };
            self.release[t] = done_op.max(self.lf(t));
        }
        drains
    }

    /// Whether the host-to-device queue (FIFO by first backward use, each copy
    /// as soon as its swap-out is done) delivers every tensor before its use.
    /// Call after [`Estimate::schedule_swap_outs`].
    pub fn prefetches_meet_deadlines(&self) -> bool {
        let w = self.w;
        let mut swaps: Vec<(usize, TensorIdx)> = self.plan.swapped().map(|t| (self.fb(t), t)).collect();
        swaps.sort_unstable();
        let mut free_at = 0.0f64;
        for (fb, t) in swaps {
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
    /// input that is swapped out or has no producer, or a chain deeper than 32).
    pub fn replay_cost(&self, t: TensorIdx) -> Option<(f64, u64)> {
        self.replay_at(t, self.fb(t), 0)
    }

    fn replay_at(&self, t: TensorIdx, k: usize, depth: usize) -> Option<(f64, u64)> {
        let w = self.w;
        let p = w.tensors[t].producer?;
        let op = &w.ops[p];
        if !op.replayable || depth > MAX_REPLAY_DEPTH || op.counted_inputs.contains(&t) {
            return None;
        }
        let (mut time, mut bytes) = (op.duration_ns, 0);
        for &u in &op.counted_inputs {
            if self.resident_at(u, k) {
                continue;
            }
            if matches!(self.plan.decisions[u], Decision::Swap { .. }) {
                return None;
            }
            let (tu, bu) = self.replay_at(u, k, depth + 1)?;
            time += tu;
            bytes += bu + w.tensors[u].bytes;
        }
        Some((time, bytes))
    }

    /// Sets each swapped tensor's prefetch at the earliest op from which
    /// `profile + m_t` stays within `target` until its first backward use
    /// (in order of first use); updates `profile`.
    pub fn schedule_prefetches(&mut self, profile: &mut [i64], target: u64) {
        let mut swaps: Vec<TensorIdx> = self.plan.swapped().collect();
        swaps.sort_unstable_by_key(|&t| (self.fb(t), t));
        for t in swaps {
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
