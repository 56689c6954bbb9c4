//! MegTaiChi's dynamic tensor evicting with the cost model of Eq. 1 (the DTE
//! policy and the portfolio's Eq. 1 member).
//!
//! Walking the ops on the unlimited-memory timeline, whenever the memory of
//! an op exceeds the target it evicts the resident tensor minimising
//! `min(C_r(t), C_s(t)) / (m_t · s_t)`, where `s_t` is its staleness (time
//! since its last access) and `C_s(t)` its transfer time; it swaps the tensor
//! if `C_s < C_r`, else drops it. Only saved activations in their idle window
//! are eligible; the fragmentation and recompute-count terms are omitted.
//! The decisions become a [`Plan`] for the common simulator: a swap is queued
//! right before the op that needed the memory (which waits for it), and
//! brought back on demand at first use unless `schedule_prefetches` is set.

use super::estimate::Estimate;
use super::{Decision, Plan, PlanError};
use crate::workload::{TensorIdx, Workload};

/// Builds the Eq. 1 plan for `target_bytes`. `cs_wire` gives the sizes C_s
/// charges (raw for DTE: `C_s = m_t / γ`; compressed for "DTE + compression":
/// x_t of Eq. 2).
pub fn eq1_plan(
    w: &Workload,
    cs_wire: &[u64],
    target_bytes: u64,
    schedule_prefetches: bool,
    label: &str,
) -> Result<Plan, PlanError> {
    let mut est = Estimate::new(w, cs_wire, label, true);
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
                let cr = est.replay_cost(t).map_or(f64::INFINITY, |(ns, _)| ns);
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
            est.set(t, if swap { Decision::Swap { swap_out_after: i - 1, prefetch_at: fb } } else { Decision::Drop });
            for slot in &mut profile[i..fb] {
                *slot -= w.tensors[t].bytes as i64;
            }
        }
    }
    if schedule_prefetches {
        est.schedule_swap_outs();
        let mut profile = est.profile();
        est.schedule_prefetches(&mut profile, target_bytes);
    }
    Ok(est.plan)
}
