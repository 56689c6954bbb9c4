//! A trace prepared for one platform: per-op durations, per-tensor sizes on
//! that platform, lifetimes, the unlimited-memory timeline and memory profile.
//!
//! Everything the planner and the simulator need is precomputed here once, so
//! that simulating one plan is a single pass over the ops.

use crate::platform::{EngineTiming, Platform};
use crate::trace::{Phase, TensorKind, Trace};

/// Index of a tensor in [`Trace::tensors`] (and in every per-tensor vector of the crate).
pub type TensorIdx = usize;

/// An op as the simulator sees it.
#[derive(Debug, Clone)]
pub struct OpInfo {
    /// Phase of the op.
    pub phase: Phase,
    /// Duration on the platform in ns: launch + roofline; 0 for an op that
    /// neither computes nor moves bytes (a view or an allocation launches no
    /// kernel); the optimizer step is one memory-bound pass, so only its first
    /// op that does work pays the launch.
    pub duration_ns: f64,
    /// Inputs that count against the budget, deduplicated.
    pub counted_inputs: Vec<TensorIdx>,
    /// Outputs that count against the budget, deduplicated.
    pub counted_outputs: Vec<TensorIdx>,
    /// Can be replayed for recomputation: the trace's `replayable`, or an RNG
    /// op (`rng: true`, e.g. dropout), which replays from the RNG state saved
    /// when it first ran, as torch checkpointing and DTR do
    /// (docs/DUMP-FORMAT.md §1, "How the planner reads `rng` and `replayable`").
    pub replayable: bool,
}

/// A tensor as the simulator sees it.
#[derive(Debug, Clone)]
pub struct TensorInfo {
    /// Size on the platform in bytes (BF16-narrowed where applicable).
    pub bytes: u64,
    /// Counts against the activation budget.
    pub counted: bool,
    /// Producing op, `None` for tensors that exist before the iteration.
    pub producer: Option<usize>,
    /// First op that writes it (allocation point); `None` = allocated at start.
    pub alloc_op: Option<usize>,
    /// Last op that reads or writes it (it is freed when that op ends).
    pub last_access_op: usize,
    /// Last forward op that reads or writes it (start of its idle window).
    pub last_forward_access: Option<usize>,
    /// Last forward op that writes it (a swap-out may be queued after it).
    pub last_forward_write: Option<usize>,
    /// First backward op that reads it (end of its idle window).
    pub first_backward_use: Option<usize>,
    /// The plan may swap or drop it: a saved activation produced in the
    /// forward pass with at least one op between its last forward access and
    /// its first backward use.
    pub candidate: bool,
}

/// A trace prepared for one platform.
#[derive(Debug, Clone)]
pub struct Workload {
    /// The platform the times and sizes are for.
    pub platform: Platform,
    /// Ops in execution order.
    pub ops: Vec<OpInfo>,
    /// Tensors, indexed like [`Trace::tensors`].
    pub tensors: Vec<TensorInfo>,
    /// Indices of the plan candidates, in production order.
    pub candidates: Vec<TensorIdx>,
    /// For each tensor, the candidates whose producer reads it (their replay may need it).
    pub replay_dependents: Vec<Vec<TensorIdx>>,
    /// Start time of each op with unlimited memory, in ns (length `ops + 1`:
    /// the last entry is the end of the iteration).
    pub op_start_ns: Vec<f64>,
    /// Forward compute time with unlimited memory, ns.
    pub forward_ns: f64,
    /// Backward compute time with unlimited memory, ns.
    pub backward_ns: f64,
    /// Counted bytes resident during each op with unlimited memory.
    pub base_profile_bytes: Vec<u64>,
    /// Peak counted memory without eviction (the 100 % budget), bytes.
    pub peak_bytes: u64,
    /// The smallest budget any plan can run in: the largest set of counted
    /// inputs plus outputs of a single op, bytes.
    pub min_budget_bytes: u64,
    /// The op that needs [`Workload::min_budget_bytes`].
    pub min_budget_op: usize,
    /// The engine per tensor (Eq. 2's B_CE and the latency it adds), indexed like `tensors`:
    /// the platform's constant engine unless [`Workload::set_engine_timing`] replaced it.
    pub engine_timing: Vec<EngineTiming>,
}

impl Workload {
    /// Prepares `trace` (already validated) for `platform`.
    pub fn new(trace: &Trace, platform: &Platform) -> Workload {
        let index = trace.tensor_index();
        let n_ops = trace.ops.len();
        let mut tensors: Vec<TensorInfo> = trace
            .tensors
            .iter()
            .map(|t| TensorInfo {
                bytes: platform.scaled_bytes(t.bytes, t.dtype),
                counted: t.kind.counts_against_budget(),
                producer: t.producer.map(|p| p.op),
                alloc_op: None,
                last_access_op: 0,
                last_forward_access: None,
                last_forward_write: None,
                first_backward_use: t.first_backward_use,
                candidate: false,
            })
            .collect();
        let mut ops = Vec::with_capacity(n_ops);
        let mut optimizer_launched = false;
        for op in &trace.ops {
            let scale = |ids: &[u64], captured: u64| -> u64 {
                let raw: u64 = ids.iter().map(|id| trace.tensors[index[id]].bytes).sum();
                let scaled: u64 = ids.iter().map(|id| tensors[index[id]].bytes).sum();
                if raw == 0 { captured } else { (captured as f64 * scaled as f64 / raw as f64).round() as u64 }
            };
            let bytes = scale(&op.inputs, op.bytes_read) + scale(&op.outputs, op.bytes_written);
            let memory_bound = op.phase == Phase::Optimizer;
            let mut counted_inputs: Vec<TensorIdx> = Vec::new();
            let mut counted_outputs: Vec<TensorIdx> = Vec::new();
            for id in &op.inputs {
                let i = index[id];
                if tensors[i].counted && !counted_inputs.contains(&i) {
                    counted_inputs.push(i);
                }
            }
            for id in &op.outputs {
                let i = index[id];
                if tensors[i].counted && !counted_outputs.contains(&i) && !counted_inputs.contains(&i) {
                    counted_outputs.push(i);
                }
            }
            for id in op.inputs.iter().chain(&op.outputs) {
                let t = &mut tensors[index[id]];
                t.last_access_op = op.id;
                if op.phase == Phase::Forward {
                    t.last_forward_access = Some(op.id);
                }
            }
            for id in &op.outputs {
                let t = &mut tensors[index[id]];
                if t.alloc_op.is_none() && t.producer.is_some() {
                    t.alloc_op = Some(op.id);
                }
                if op.phase == Phase::Forward {
                    t.last_forward_write = Some(op.id);
                }
            }
            let duration_ns = if op.flops == 0 && bytes == 0 {
                0.0
            } else if memory_bound && optimizer_launched {
                platform.op_time_ns(op.flops, bytes, true) - platform.launch_us * 1e3
            } else {
                optimizer_launched |= memory_bound;
                platform.op_time_ns(op.flops, bytes, memory_bound)
            };
            ops.push(OpInfo {
                phase: op.phase,
                duration_ns,
                counted_inputs,
                counted_outputs,
                replayable: op.replayable || op.rng,
            });
        }
        for (t, info) in trace.tensors.iter().zip(tensors.iter_mut()) {
            // A tensor never touched after being allocated lives through its producer op only.
            if let Some(a) = info.alloc_op {
                info.last_access_op = info.last_access_op.max(a);
            }
            info.candidate = t.kind == TensorKind::SavedActivation
                && info.counted
                && info.producer.is_some_and(|p| trace.ops[p].phase == Phase::Forward)
                && matches!((info.last_forward_access, info.first_backward_use), (Some(lf), Some(fb)) if fb > lf + 1);
        }
        let mut candidates: Vec<TensorIdx> = (0..tensors.len()).filter(|&i| tensors[i].candidate).collect();
        candidates.sort_by_key(|&i| (tensors[i].alloc_op, i));

        let mut replay_dependents = vec![Vec::new(); tensors.len()];
        for &d in &candidates {
            if let Some(p) = tensors[d].producer {
                for &u in &ops[p].counted_inputs {
                    replay_dependents[u].push(d);
                }
            }
        }
        let mut op_start_ns = Vec::with_capacity(n_ops + 1);
        let (mut now, mut forward_ns, mut backward_ns) = (0.0, 0.0, 0.0);
        for op in &ops {
            op_start_ns.push(now);
            now += op.duration_ns;
            match op.phase {
                Phase::Forward => forward_ns += op.duration_ns,
                Phase::Backward => backward_ns += op.duration_ns,
                Phase::Optimizer => {}
            }
        }
        op_start_ns.push(now);

        let mut diff = vec![0i64; n_ops + 1];
        for t in tensors.iter().filter(|t| t.counted) {
            let start = t.alloc_op.unwrap_or(0);
            if start > t.last_access_op || n_ops == 0 {
                continue; // never used: occupies no op
            }
            diff[start] += t.bytes as i64;
            diff[t.last_access_op + 1] -= t.bytes as i64;
        }
        let mut base_profile_bytes = Vec::with_capacity(n_ops);
        let mut acc = 0i64;
        for d in diff.iter().take(n_ops) {
            acc += d;
            base_profile_bytes.push(acc as u64);
        }
        let peak_bytes = base_profile_bytes.iter().copied().max().unwrap_or(0);
        let (mut min_budget_bytes, mut min_budget_op) = (0, 0);
        for (i, op) in ops.iter().enumerate() {
            let need: u64 = op.counted_inputs.iter().chain(&op.counted_outputs).map(|&t| tensors[t].bytes).sum();
            if need > min_budget_bytes {
                (min_budget_bytes, min_budget_op) = (need, i);
            }
        }
        let n_tensors = tensors.len();
        Workload {
            platform: platform.clone(),
            ops,
            tensors,
            candidates,
            replay_dependents,
            op_start_ns,
            forward_ns,
            backward_ns,
            base_profile_bytes,
            peak_bytes,
            min_budget_bytes,
            min_budget_op,
            engine_timing: vec![platform.engine_timing(); n_tensors],
        }
    }

    /// Replaces the engine of every tensor with `timing(tensor)` (e.g. what a cycle-accurate run
    /// of the engine sustains on a transfer of its size).
    pub fn set_engine_timing(&mut self, timing: impl Fn(&TensorInfo) -> EngineTiming) {
        self.engine_timing = self.tensors.iter().map(timing).collect();
    }

    /// Eq. 2 occupancy of tensor `t` when `wire_bytes` go on the link, with its engine
    /// ([`Platform::transfer_ns_with`]).
    pub fn transfer_ns(&self, t: TensorIdx, wire_bytes: u64) -> f64 {
        self.platform.transfer_ns_with(self.tensors[t].bytes, wire_bytes, self.engine_timing[t])
    }

    /// Iteration time with unlimited memory, ns.
    pub fn unlimited_ns(&self) -> f64 {
        *self.op_start_ns.last().unwrap_or(&0.0)
    }

    /// Unlimited-memory idle time of candidate `t` in ns: from the end of its
    /// last forward access to the start of its first backward use.
    pub fn idle_ns(&self, t: TensorIdx) -> f64 {
        let info = &self.tensors[t];
        match (info.last_forward_access, info.first_backward_use) {
            (Some(lf), Some(fb)) => self.op_start_ns[fb] - self.op_start_ns[lf + 1],
            _ => 0.0,
        }
    }

    /// Index of the op running at time `time_ns` of the unlimited timeline
    /// (the last op if `time_ns` is at or past the end).
    pub fn op_at_ns(&self, time_ns: f64) -> usize {
        let n = self.ops.len();
        // First op whose end is at or after time_ns.
        self.op_start_ns[1..].partition_point(|&end| end < time_ns).min(n.saturating_sub(1))
    }

    /// The budget in bytes for a fraction of the unlimited peak.
    pub fn budget_for_fraction(&self, fraction: f64) -> u64 {
        (self.peak_bytes as f64 * fraction).floor() as u64
    }
}
