//! The SWAP policy: swapping only, vDNN-like.

use super::estimate::{Estimate, peak};
use super::{Plan, PlanError};
use crate::workload::{TensorIdx, Workload};

/// Swaps saved tensors in decreasing `m_t × idle_t` until the peak fits
/// `target_bytes`, counting each as gone right after its last forward access
/// (the simulator makes allocations wait for the copies), then prefetches
/// each as early as the budget allows.
pub fn swap_only_plan(w: &Workload, wire: &[u64], target_bytes: u64) -> Result<Plan, PlanError> {
    let mut est = Estimate::new(w, wire, "swap", true);
    let mut order: Vec<(f64, TensorIdx)> =
        w.candidates.iter().map(|&t| (w.tensors[t].bytes as f64 * w.idle_ns(t), t)).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let target = target_bytes as i64;
    let mut profile = est.profile();
    for (_, t) in order {
        if peak(&profile).0 <= target {
            break;
        }
        est.set_swap(t);
        est.schedule_swap_outs();
        profile = est.profile();
    }
    let (peak_bytes, op) = peak(&profile);
    if peak_bytes > target {
        return Err(PlanError::Unreachable { target_bytes, peak_bytes: peak_bytes as u64, op });
    }
    est.schedule_prefetches(&mut profile, target_bytes);
    Ok(est.plan)
}
