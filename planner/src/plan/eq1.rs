//! MegTaiChi's dynamic tensor evicting with the cost model of Eq. 1 (the DTE
//! policy and the portfolio's Eq. 1 members).
//!
//! Walking the ops on the unlimited-memory timeline, whenever the memory of
//! an op exceeds the target it evicts the resident tensor minimising
//! `min(C_r(t), C_s(t)) / (m_t · s_t)`, where `s_t` is its staleness (time
//! since its last access) and `C_s(t)` its transfer time; it swaps the tensor
//! if `C_s < C_r`, else drops it. C_r is accounted as in RECOMP's stage two:
//! it includes the replay of dropped inputs (and the fetch of swapped ones)
//! and is charged again for every dropped tensor whose replay needs `t`.
//! Only saved activations in their idle window are eligible; the
//! fragmentation and recompute-count terms are omitted.
//!
//! The decisions become a [`Plan`] for the common simulator. A swap-out is
//! asynchronous: it is queued once the tensor is final (after its last
//! forward write, as for every policy), and the op whose memory the eviction
//! made room for waits only until the bytes it needs are free (the
//! simulator's allocation wait). Each swapped tensor is prefetched ahead of
//! its first backward use at the earliest point memory allows (Algorithm 1,
//! line 12), which is on demand only where memory forbids an earlier one.

use super::estimate::Estimate;
use super::{Decision, Plan, PlanError};
use crate::workload::{TensorIdx, Workload};

/// Builds the Eq. 1 plan for `target_bytes`. `cs_wire` gives the sizes C_s
/// charges (raw for DTE: `C_s = m_t / γ`; compressed for "DTE + compression":
/// x_t of Eq. 2).
pub fn eq1_plan(w: &Workload, cs_wire: &[u64], target_bytes: u64, label: &str) -> Result<Plan, PlanError> {
    let mut est = Estimate::new(w, cs_wire, label, false);
    let mut profile = est.profile();
    let target = target_bytes as i64;
    for i in 0..w.ops.len() {
        while profile[i] > target {
            let mut best: Option<(f64, TensorIdx, bool)> = None;
            for &t in &w.candidates {
                let info = &w.tensors[t];
                let (lf, fb) = (info.last_forward_access.unwrap_or(0), info.first_backward_use.unwrap_or(0));
                if est.plan.decisions[t] != Decision::Keep || i <= lf || i >= fb {
                    continue;
                }
                let cr = est.replay_cost(t).map_or(f64::INFINITY, |(ns, _)| ns * (1 + est.dependents_needing(t)) as f64);
                let cs = est.transfer_ns[t];
                let staleness_ns = w.op_start_ns[i] - w.op_start_ns[lf + 1] + 1.0;
                let score = cr.min(cs) / (info.bytes.max(1) as f64 * staleness_ns);
                if best.is_none_or(|(s, _, _)| score < s) {
                    best = Some((score, t, cs < cr));
                }
            }
            let Some((_, t, swap)) = best else {
                return Err(PlanError::Unreachable { target_bytes, peak_bytes: profile[i] as u64, op: i });
            };
            let fb = w.tensors[t].first_backward_use.unwrap_or(0);
            if swap {
                est.set_swap(t);
            } else {
                est.set(t, Decision::Drop);
            }
            for slot in &mut profile[i..fb] {
                *slot -= w.tensors[t].bytes as i64;
            }
        }
    }
    est.schedule_swap_outs();
    let mut profile = est.profile();
    est.schedule_prefetches(&mut profile, target_bytes);
    Ok(est.plan)
}
