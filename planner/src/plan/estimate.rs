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
    /// Queue insertions and removals since the last schedule.
    changes: usize,
    /// Whether a swapped tensor's `swap_done_ns` and `release` are from a schedule of the current queue.
    scheduled: Vec<bool>,
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
        let transfer_ns = plan_wire.iter().enumerate().map(|(t, &wire)| w.transfer_ns(t, wire)).collect();
        Estimate { w, plan: Plan::keep_all(w, label), transfer_ns, release: vec![0; w.tensors.len()], swap_done_ns: vec![0.0; w.tensors.len()], swaps_by_queue_op: Vec::new(), swaps_by_use: Vec::new(), dirty_from: 0, changes: 0, scheduled: vec![false; w.tensors.len()], instant_swap_out,
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
            if self.plan.decisions[t] != Decision::Keep
                && let Some((from, to)) = self.absent(t)
            {
                diff[from] -= self.w.tensors[t].bytes as i64;
                diff[to + 1] += self.w.tensors[t].bytes as i64;
            }
        }
        let mut acc = 0;
        self.w.base_profile_bytes.iter().zip(&diff).map(|(&b, &d)| { acc += d; b as i64 + acc }).collect()
    }

    /// The op after which `t`'s swap-out is queued: its last forward write.
    fn swap_out_after(&self, t: TensorIdx) -> usize {
        let info = &self.w.tensors[t];
        info.last_forward_write.or(info.alloc_op).unwrap_or(0)
    }

    /// Sets `t` to swap with its swap-out after its last forward write and
    /// its prefetch at its first backward use (call
    /// [`Estimate::schedule_swap_outs`] to update the release points).
    pub fn set_swap(&mut self, t: TensorIdx) {
        self.set(t, Decision::Swap { swap_out_after: self.swap_out_after(t), prefetch_at: self.fb(t) });
    }

    /// Whether swapping `t` (KEEP now) as [`Estimate::set_swap`] would keep
    /// both copy queues on time: the device-to-host queue drains before the
    /// forward pass ends and the host-to-device queue (FIFO by first backward
    /// use, each copy once its swap-out is done) delivers every tensor before
    /// its use. Leaves the plan unchanged; recomputes only the copies `t`
    /// delays, up to the first that still finishes when it did.
    pub fn swap_fits(&mut self, t: TensorIdx) -> bool {
        if self.changes > 0 || self.dirty_from != usize::MAX {
            self.schedule_swap_outs();
        }
        let w = self.w;
        let setup = w.platform.copy_setup_ns();
        let after_t = self.swap_out_after(t);
        let p = self.swaps_by_queue_op.partition_point(|&k| k < (after_t, t));
        let mut free_at = if p == 0 { 0.0f64 } else { self.swap_done_ns[self.swaps_by_queue_op[p - 1].1] };
        let done_t = w.op_start_ns[after_t + 1].max(free_at) + setup + self.transfer_ns[t];
        free_at = done_t;
        let mut delayed: Vec<(TensorIdx, f64)> = Vec::new();
        let mut last_done = done_t;
        for &(after, u) in &self.swaps_by_queue_op[p..] {
            let done = w.op_start_ns[after + 1].max(free_at) + setup + self.transfer_ns[u];
            if done == self.swap_done_ns[u] {
                // The FIFO repeats its schedule from here on.
                last_done = self.swaps_by_queue_op.last().map_or(done, |&(_, v)| self.swap_done_ns[v]);
                break;
            }
            delayed.push((u, done));
            free_at = done;
            last_done = done;
        }
        if last_done > w.forward_ns {
            return false;
        }
        delayed.sort_unstable_by_key(|&(u, _)| u);
        let done_of = |u: TensorIdx| match delayed.binary_search_by_key(&u, |&(v, _)| v) {
            Ok(i) => delayed[i].1,
            Err(_) => self.swap_done_ns[u],
        };
        let fb_t = self.fb(t);
        let q = self.swaps_by_use.partition_point(|&k| k < (fb_t, t));
        let mut free_at = 0.0f64;
        let by_use = self.swaps_by_use[..q].iter().copied().chain(std::iter::once((fb_t, t))).chain(self.swaps_by_use[q..].iter().copied());
        for (fb, u) in by_use {
            let swap_done = if u == t { done_t } else { done_of(u) };
            let done = swap_done.max(free_at) + setup + self.transfer_ns[u];
            free_at = done;
            if done > w.op_start_ns[fb] {
                return false;
            }
        }
        true
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
            self.changes += 1;
            self.scheduled[t] = false;
        }
        if let Decision::Swap { swap_out_after, .. } = decision {
            self.changes += 1;
            self.scheduled[t] = false;
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
    /// ends. Only the part of the queue after the first change is redone and,
    /// after a single insertion or removal, only until a copy already
    /// scheduled finishes when it did before (the FIFO then repeats itself).
    pub fn schedule_swap_outs(&mut self) -> bool {
        let w = self.w;
        let from = self.dirty_from.min(self.swaps_by_queue_op.len());
        self.dirty_from = usize::MAX;
        let single_change = self.changes <= 1;
        self.changes = 0;
        let mut free_at = if from == 0 { 0.0f64 } else { self.swap_done_ns[self.swaps_by_queue_op[from - 1].1] };
        for i in from..self.swaps_by_queue_op.len() {
            let (after, t) = self.swaps_by_queue_op[i];
            let done = w.op_start_ns[after + 1].max(free_at) + w.platform.copy_setup_ns() + self.transfer_ns[t];
            free_at = done;
            if single_change && self.scheduled[t] && done == self.swap_done_ns[t] {
                break;
            }
            self.scheduled[t] = true;
            self.swap_done_ns[t] = done;
            let done_op = if self.instant_swap_out { after } else { w.op_at_ns(done) };
            self.release[t] = done_op.max(self.lf(t));
        }
        // FIFO completion times only grow: the queue drains iff its last copy does.
        self.swaps_by_queue_op.last().is_none_or(|&(_, t)| self.swap_done_ns[t] <= w.forward_ns)
    }

    /// Whether the host-to-device queue (FIFO by first backward use, each copy
    /// as soon as its swap-out is done) delivers every tensor before its use.
    /// Call after [`Estimate::schedule_swap_outs`]. The reference for
    /// [`Estimate::swap_fits`] in tests.
    #[cfg(test)]
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
    /// of the inputs held during the replay (recomputed ones, and swapped-out
    /// ones fetched back for it). A swapped-out input is fetched on demand:
    /// it costs the copy setup plus its transfer time x_u (the compute stream
    /// waits for it) and is freed again after the replay. `None` if it cannot
    /// be recomputed (no producer, non-replayable or in-place op, a needed
    /// input that has no producer, or more than 32 replayed ops).
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
                // Fetched back for the replay (its swap-out is done: it is absent at k).
                time += w.platform.copy_setup_ns() + self.transfer_ns[u];
                bytes += w.tensors[u].bytes;
                continue;
            }
            let (tu, bu) = self.replay_at(u, k, replayed_ops, consulted)?;
            time += tu;
            bytes += bu + w.tensors[u].bytes;
        }
        Some((time, bytes))
    }

    /// Sets each swapped tensor's prefetch at the earliest op from which
    /// `profile + m_t` stays within `target` until its first backward use
    /// (in order of first use); updates `profile`. Each dropped tensor's
    /// replay memory is reserved first (at its first backward use, the largest
    /// replay there), so that no prefetch takes the bytes a replay needs.
    pub fn schedule_prefetches(&mut self, profile: &mut [i64], target: u64) {
        let reserved = self.replay_reservations();
        for &(op, bytes) in &reserved {
            profile[op] += bytes;
        }
        let points = self.prefetch_points(profile, target);
        for (t, p) in points {
            if let Decision::Swap { prefetch_at, .. } = &mut self.plan.decisions[t] {
                *prefetch_at = p;
            }
        }
        for &(op, bytes) in &reserved {
            profile[op] -= bytes;
        }
    }

    /// The bytes each dropped tensor's replay holds besides the tensors the
    /// profile counts, as `(first backward use, bytes)`, the largest per op
    /// (replays at one op run one after another, each freeing its inputs).
    fn replay_reservations(&self) -> Vec<(usize, i64)> {
        let mut by_op: Vec<(usize, i64)> = Vec::new();
        for t in self.plan.dropped() {
            let bytes = self.replay_cost(t).map_or(0, |(_, b)| b as i64);
            if bytes > 0 {
                by_op.push((self.fb(t), bytes));
            }
        }
        by_op.sort_unstable();
        by_op.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0;
            if same {
                earlier.1 = earlier.1.max(later.1);
            }
            same
        });
        by_op
    }

    /// The earliest op from which each swapped tensor fits under `target`
    /// until its first backward use, in order of first use, each taking its
    /// bytes from then on: `(tensor, op)`. Adds the prefetched bytes to `profile`.
    fn prefetch_points(&self, profile: &mut [i64], target: u64) -> Vec<(TensorIdx, usize)> {
        let mut points = Vec::with_capacity(self.swaps_by_use.len());
        for &(fb, t) in &self.swaps_by_use {
            let m = self.w.tensors[t].bytes as i64;
            let mut p = fb;
            while p > self.release[t] + 1 && profile[p - 1] + m <= target as i64 {
                p -= 1;
            }
            for slot in &mut profile[p..fb] {
                *slot += m;
            }
            points.push((t, p));
        }
        points
    }

    /// Swapped tensors that the host-to-device queue delivers after their
    /// first backward use when each prefetch starts at the point memory forced
    /// ([`Estimate::schedule_prefetches`], which must have run) and not before
    /// its swap-out is done; the queue is FIFO in prefetch order, as in the
    /// simulator. Call after [`Estimate::schedule_swap_outs`].
    pub fn late_prefetches(&self) -> Vec<TensorIdx> {
        let w = self.w;
        let mut order: Vec<(usize, TensorIdx)> = self
            .swaps_by_use
            .iter()
            .filter_map(|&(_, t)| match self.plan.decisions[t] {
                Decision::Swap { prefetch_at, .. } => Some((prefetch_at, t)),
                _ => None,
            })
            .collect();
        order.sort_unstable();
        let mut free_at = 0.0f64;
        let mut late = Vec::new();
        for (p, t) in order {
            let ready = self.swap_done_ns[t].max(w.op_start_ns[p]);
            let done = ready.max(free_at) + w.platform.copy_setup_ns() + self.transfer_ns[t];
            free_at = done;
            if done > w.op_start_ns[self.fb(t)] {
                late.push(t);
            }
        }
        late
    }

    /// Dropped tensors whose producer reads `t` and whose first backward use
    /// falls in `t`'s idle window: dropping `t` makes each of them replay it
    /// too, so its C_r is charged once more for each (paper §III-C, after DTR).
    pub fn dependents_needing(&self, t: TensorIdx) -> usize {
        let w = self.w;
        let (lf, fb) = (self.lf(t), self.fb(t));
        w.replay_dependents[t]
            .iter()
            .filter(|&&d| {
                let dfb = self.fb(d);
                self.plan.decisions[d] == Decision::Drop && dfb > lf && dfb < fb
            })
            .count()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::Platform;
    use crate::synth::{SynthConfig, random_trace};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Replay memory is reserved before prefetches are placed (issue #13, item 4).
    /// Trace (kB; every op 1 GFLOP, about 110 µs on platform A):
    ///
    /// ```text
    /// op0 fwd: x -> z (8)      op4 bwd: c -> g1 (1)
    /// op1 fwd: x -> a (8)      op5 bwd: b, g1 -> g2 (1)
    /// op2 fwd: a -> b (8)      op6 bwd: a, g2 -> g3 (1)
    /// op3 fwd: b -> c (1)      op7 bwd: z, x, g3 -> g4 (1)
    /// ```
    /// x is a 1 kB input, resident throughout (op7 reads it). Plan: swap z, drop a and b.
    /// Memory per op with z, a, b resident: 9, 17, 25, 26, 27, 27, 19, 11.
    #[test]
    fn prefetches_leave_room_for_replays() {
        use crate::sim::{SimError, simulate};
        use crate::trace::{Phase, TensorKind, TraceBuilder};
        let mut b = TraceBuilder::new("reserve");
        let op = |b: &mut TraceBuilder, phase, reads: &[u64], out: u64| b.op("op", phase).flops(1_000_000_000).reads(reads).output(out).finish()[0];
        let x = b.tensor(1_000, TensorKind::Input);
        let z = op(&mut b, Phase::Forward, &[x], 8_000);
        let a = op(&mut b, Phase::Forward, &[x], 8_000);
        let bb = op(&mut b, Phase::Forward, &[a], 8_000);
        let c = op(&mut b, Phase::Forward, &[bb], 1_000);
        let g1 = op(&mut b, Phase::Backward, &[c], 1_000);
        let g2 = op(&mut b, Phase::Backward, &[bb, g1], 1_000);
        let g3 = op(&mut b, Phase::Backward, &[a, g2], 1_000);
        op(&mut b, Phase::Backward, &[z, x, g3], 1_000);
        let w = Workload::new(&b.build().unwrap(), &Platform::a());
        let (z, a, bb) = (z as usize, a as usize, bb as usize);
        assert_eq!(w.base_profile_bytes, vec![9_000, 17_000, 25_000, 26_000, 27_000, 27_000, 19_000, 11_000]);
        let raw: Vec<u64> = w.tensors.iter().map(|t| t.bytes).collect();
        let mut est = Estimate::new(&w, &raw, "reserve", false);
        est.set_swap(z);
        let _ = est.set(a, Decision::Drop);
        let _ = est.set(bb, Decision::Drop);
        est.schedule_swap_outs();
        // z's D2H: 5 µs + 8,000 B / 12 B/ns, done during op1: absent from op2. a is
        // absent in ops 3..5, b in op4: 9, 17, 17, 10, 3, 11, 11, 11.
        let mut profile = est.profile();
        assert_eq!(profile, vec![9_000, 17_000, 17_000, 10_000, 3_000, 11_000, 11_000, 11_000]);
        // b's replay at op5 recomputes a (8 kB held); a's at op6 reads x only.
        assert_eq!(est.replay_cost(bb).map(|(_, bytes)| bytes), Some(8_000));
        assert_eq!(est.replay_cost(a).map(|(_, bytes)| bytes), Some(0));
        // Target 20 kB. Without the reservation z would come back at op3 (ops 3..6
        // at 18, 11, 19, 19 kB); with 8 kB reserved at op5 (11 + 8 + 8 = 27 > 20) it
        // comes back at op6 (11 + 8 = 19).
        est.schedule_prefetches(&mut profile, 20_000);
        assert_eq!(est.plan.decisions[z], Decision::Swap { swap_out_after: 0, prefetch_at: 6 });
        // The simulator agrees: prefetched at op3, z takes the bytes b's replay
        // needs at op5 (x + z + g1 + a = 18 kB, then b does not fit) and no
        // swap-out is pending: an overflow; prefetched at op6, the plan runs.
        assert!(simulate(&w, &est.plan, &raw, 20_000).is_ok());
        let mut early = est.plan.clone();
        early.decisions[z] = Decision::Swap { swap_out_after: 0, prefetch_at: 3 };
        assert!(matches!(simulate(&w, &early, &raw, 20_000), Err(SimError::Overflow { op: 5, .. })));
    }

    /// The schedule that stops early after a single insertion or removal
    /// against one built from scratch, after every change.
    #[test]
    fn incremental_swap_out_schedule_matches_a_fresh_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut checked = 0;
        for seed in 0..4 {
            let w = Workload::new(&random_trace(&SynthConfig::small(120, seed)), &Platform::b());
            for ratio in [1, 2, 8] {
                let wire: Vec<u64> = w.tensors.iter().map(|t| t.bytes / ratio).collect();
                let mut est = Estimate::new(&w, &wire, "x", false);
                for _ in 0..150 {
                    let t = w.candidates[rng.gen_range(0..w.candidates.len())];
                    if est.plan.decisions[t] == Decision::Keep {
                        est.set_swap(t);
                    } else {
                        let _ = est.set(t, Decision::Keep);
                    }
                    let drains = est.schedule_swap_outs();
                    let mut fresh = Estimate::new(&w, &wire, "x", false);
                    for (_, u) in est.swaps_by_queue_op.clone() {
                        fresh.set_swap(u);
                    }
                    assert_eq!(fresh.schedule_swap_outs(), drains);
                    for &(_, u) in &est.swaps_by_queue_op {
                        assert_eq!((est.swap_done_ns[u], est.release[u]), (fresh.swap_done_ns[u], fresh.release[u]));
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// `swap_fits` against swapping, scheduling both queues in full, and undoing.
    #[test]
    fn swap_fits_matches_a_full_schedule() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let (mut fits, mut misses) = (0, 0);
        for seed in 0..4 {
            let w = Workload::new(&random_trace(&SynthConfig::small(120, seed)), &Platform::a());
            for ratio in [1, 3] {
                let wire: Vec<u64> = w.tensors.iter().map(|t| t.bytes / ratio).collect();
                let mut est = Estimate::new(&w, &wire, "x", false);
                for _ in 0..150 {
                    let t = w.candidates[rng.gen_range(0..w.candidates.len())];
                    if est.plan.decisions[t] != Decision::Keep {
                        continue;
                    }
                    let fast = est.swap_fits(t);
                    let mut full = est.clone();
                    full.set_swap(t);
                    let mut fresh = Estimate::new(&w, &wire, "x", false);
                    for (_, u) in full.swaps_by_queue_op.clone() {
                        fresh.set_swap(u);
                    }
                    let want = fresh.schedule_swap_outs() && fresh.prefetches_meet_deadlines();
                    assert_eq!(fast, want, "seed {seed} tensor {t}");
                    if fast {
                        fits += 1;
                        est.set_swap(t);
                        est.schedule_swap_outs();
                    } else {
                        misses += 1;
                    }
                }
            }
        }
        assert!(fits > 50 && misses > 50, "{fits} fit, {misses} do not");
    }
}
