//! The policies compared in the paper (§IV "Policies", Fig. 4 and Fig. 5),
//! all run with the one simulator.
//!
//! | policy | paper | plan | transfers |
//! |---|---|---|---|
//! | [`Policy::Recomp`] | RECOMP (DTR) | Algorithm 1 stage two only | none |
//! | [`Policy::Swap`] | SWAP (vDNN-like) | largest m_t × idle_t | raw |
//! | [`Policy::Dte`] | DTE (MegTaiChi, Eq. 1) | Eq. 1 eviction, C_s = m_t/γ | raw |
//! | [`Policy::DteCompressed`] | DTE + compression (Fig. 5) | Eq. 1 with C_s = x_t (Eq. 2) | compressed |
//! | [`Policy::Bw`] | BW | portfolio of the 14 distinct raw-size members ([`Member::uncompressed`]) | raw |
//! | [`Policy::CompressionAware`] | BW+ZVC, PlaneZip, and the 32-bit, op-type and oracle ablations | 27-member portfolio ([`Member::all`]): predicted sizes, and BW's plans | compressed |
//! | [`Policy::CompressionUnaware`] | BW with codec, unaware plan (Fig. 5) | BW's plan | compressed |
//!
//! Which codec, which predictor signature and oracle or not is in the
//! [`Compression`] input: compressed policies plan with iteration k's
//! ratios (through the predictor) and transfer with iteration k+1's.

use crate::plan::{Member, PlanError, eq1_plan, plan_and_simulate, portfolio, swap_only_plan};
use crate::predictor::{Predictor, measured_wire_bytes, raw_wire_bytes};
use crate::ratios::RatioTable;
use crate::sim::SimReport;
use crate::trace::Trace;
use crate::workload::Workload;
use rayon::prelude::*;
use std::str::FromStr;

/// A policy, built by name with [`Policy::from_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// `recomp`: recomputation only with DTR's heuristic.
    Recomp,
    /// `swap`: swapping only, vDNN-like.
    Swap,
    /// `dte`: MegTaiChi's Eq. 1 with raw transfer times.
    Dte,
    /// `dte+c`: Eq. 1 with compressed transfer times (Eq. 2).
    DteCompressed,
    /// `bw`: the planner without compression.
    Bw,
    /// `aware`: the compression-aware planner (BW+ZVC or PlaneZip by codec).
    CompressionAware,
    /// `unaware`: BW's plan, transfers compressed.
    CompressionUnaware,
}

impl Policy {
    /// Every policy.
    pub const ALL: [Policy; 7] = [
        Policy::Recomp,
        Policy::Swap,
        Policy::Dte,
        Policy::DteCompressed,
        Policy::Bw,
        Policy::CompressionAware,
        Policy::CompressionUnaware,
    ];

    /// The name [`Policy::from_str`] accepts.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Recomp => "recomp",
            Policy::Swap => "swap",
            Policy::Dte => "dte",
            Policy::DteCompressed => "dte+c",
            Policy::Bw => "bw",
            Policy::CompressionAware => "aware",
            Policy::CompressionUnaware => "unaware",
        }
    }
}

/// An unknown policy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown policy {0:?} (known: recomp, swap, dte, dte+c, bw, aware, unaware)")]
pub struct UnknownPolicy(pub String);

impl FromStr for Policy {
    type Err = UnknownPolicy;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Policy::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| UnknownPolicy(s.to_owned()))
    }
}

/// Compressed sizes for one codec: what the planner predicts and what the
/// transfers really have, per tensor of a [`Workload`].
#[derive(Debug, Clone, PartialEq)]
pub struct Compression {
    /// Predicted wire bytes (iteration k through the predictor).
    pub predicted_wire_bytes: Vec<u64>,
    /// Actual wire bytes (iteration k+1).
    pub actual_wire_bytes: Vec<u64>,
}

impl Compression {
    /// No codec: both are the raw sizes.
    pub fn none(w: &Workload) -> Self {
        let raw = raw_wire_bytes(w);
        Compression { predicted_wire_bytes: raw.clone(), actual_wire_bytes: raw }
    }

    /// The paper's protocol: `predictor` (already fed with iteration k, e.g.
    /// by [`Predictor::profile`]) predicts; `next` (iteration k+1) is what
    /// the transfers have.
    pub fn predicted(trace: &Trace, w: &Workload, predictor: &Predictor, next: &RatioTable) -> Self {
        Compression {
            predicted_wire_bytes: predictor.wire_bytes(trace, w),
            actual_wire_bytes: measured_wire_bytes(trace, w, next),
        }
    }

    /// Oracle ratios: the planner sees iteration k+1's true sizes.
    pub fn oracle(trace: &Trace, w: &Workload, next: &RatioTable) -> Self {
        let actual = measured_wire_bytes(trace, w, next);
        Compression { predicted_wire_bytes: actual.clone(), actual_wire_bytes: actual }
    }
}

/// How a policy ran.
#[derive(Debug, Clone)]
pub struct PolicyOutcome {
    /// The policy.
    pub policy: Policy,
    /// Which plan ran (portfolio member label for the planner policies).
    pub plan_label: String,
    /// The plan that ran.
    pub plan: crate::plan::Plan,
    /// The simulated iteration (with the actual ratios).
    pub report: SimReport,
    /// Re-plans with a tighter target before the plan fitted.
    pub replans: usize,
    /// The portfolio member that ran (BW, the compressed planner policies and
    /// BW's plan with compressed transfers); `None` for RECOMP, SWAP and DTE.
    pub member: Option<Member>,
    /// Overflow re-plans of the portfolio's members under the predictions
    /// ([`crate::plan::PortfolioOutcome::member_replans`]); 0 without a portfolio.
    pub member_replans: usize,
}

impl PolicyOutcome {
    /// For [`Policy::CompressionAware`], whether its portfolio kept a plan
    /// built with the predicted compressed sizes
    /// ([`Member::is_compression_aware`]); `None` for the other policies.
    pub fn compression_aware_plan(&self) -> Option<bool> {
        self.member.filter(|_| self.policy == Policy::CompressionAware).map(|m| m.is_compression_aware())
    }

    /// The plan swaps nothing (every eviction is a drop).
    pub fn swaps_nothing(&self) -> bool {
        self.report.swapped_tensors == 0
    }
}

/// Runs `policy` on `w` with `budget_bytes` of activation memory.
/// `compression` is ignored by the uncompressed policies.
pub fn run_policy(policy: Policy, w: &Workload, compression: &Compression, budget_bytes: u64) -> Result<PolicyOutcome, PlanError> {
    let raw = raw_wire_bytes(w);
    let mut member_replans = 0;
    let (planned, member) = match policy {
        Policy::Recomp => {
            (plan_and_simulate(w, &raw, budget_bytes, |target| Member::RecomputeOnly.build(w, &raw, target))?, None)
        }
        Policy::Swap => (plan_and_simulate(w, &raw, budget_bytes, |target| swap_only_plan(w, &raw, target))?, None),
        Policy::Dte => (plan_and_simulate(w, &raw, budget_bytes, |target| eq1_plan(w, &raw, target, "dte"))?, None),
        Policy::DteCompressed => {
            let predicted = &compression.predicted_wire_bytes;
            let planned = plan_and_simulate(w, &compression.actual_wire_bytes, budget_bytes, |target| {
                eq1_plan(w, predicted, target, "dte+c")
            })?;
            (planned, None)
        }
        Policy::Bw => {
            let out = portfolio(w, &raw, &raw, budget_bytes, &Member::uncompressed())?;
            member_replans = out.member_replans;
            (out.actual, Some(out.chosen))
        }
        Policy::CompressionAware => {
            let c = compression;
            let out = portfolio(w, &c.predicted_wire_bytes, &c.actual_wire_bytes, budget_bytes, &Member::all())?;
            member_replans = out.member_replans;
            (out.actual, Some(out.chosen))
        }
        Policy::CompressionUnaware => {
            let out = portfolio(w, &raw, &raw, budget_bytes, &Member::uncompressed())?;
            let chosen = out.chosen;
            member_replans = out.member_replans;
            let actual = &compression.actual_wire_bytes;
            (plan_and_simulate(w, actual, budget_bytes, |target| chosen.build(w, &raw, target))?, Some(chosen))
        }
    };
    Ok(PolicyOutcome {
        policy,
        plan_label: planned.plan.label.clone(),
        plan: planned.plan,
        report: planned.report,
        replans: planned.replans,
        member,
        member_replans,
    })
}

/// One point of a sweep.
#[derive(Debug, Clone, Copy)]
pub struct SweepCase<'a> {
    /// The model on a platform.
    pub workload: &'a Workload,
    /// The codec's sizes for that workload.
    pub compression: &'a Compression,
    /// The policy.
    pub policy: Policy,
    /// Budget as a fraction of the unlimited peak.
    pub budget_fraction: f64,
}

/// Runs every case, in parallel on the rayon pool; results are in case order.
pub fn sweep(cases: &[SweepCase<'_>]) -> Vec<Result<PolicyOutcome, PlanError>> {
    cases
        .par_iter()
        .map(|c| run_policy(c.policy, c.workload, c.compression, c.workload.budget_for_fraction(c.budget_fraction)))
        .collect()
}

/// Overhead (as a fraction) up to which a run counts as "within 5 % of full speed" (§V-C).
pub const FULL_SPEED_OVERHEAD: f64 = 0.05;

/// The lowest budget down to which a policy stays within an overhead bound
/// (§V-C "within 5 % of full speed down to X % of the peak").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullSpeedBudget {
    /// The budget, as a fraction of the unlimited peak.
    pub fraction: f64,
    /// True if even the lowest budget measured stays within the bound, so the
    /// true budget is at most `fraction` (nothing is extrapolated).
    pub at_most: bool,
}

/// From `(budget fraction, overhead fraction or None if no plan ran)` points,
/// the lowest budget X such that every measured budget at or above X stays
/// within `max_overhead`: walking down from 100 % of the peak (overhead 0 by
/// definition), X is linearly interpolated between the last budget within the
/// bound and the first above it; a budget without a plan ends the walk at the
/// budget above it.
pub fn full_speed_budget(points: &[(f64, Option<f64>)], max_overhead: f64) -> FullSpeedBudget {
    let mut sorted: Vec<(f64, Option<f64>)> = points.iter().copied().filter(|&(b, _)| b < 1.0).collect();
    sorted.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut ok_budget, mut ok_overhead) = (1.0, 0.0);
    for (budget, overhead) in sorted {
        match overhead {
            Some(o) if o <= max_overhead => (ok_budget, ok_overhead) = (budget, o),
            Some(o) => {
                let fraction = budget + (o - max_overhead) / (o - ok_overhead) * (ok_budget - budget);
                return FullSpeedBudget { fraction, at_most: false };
            }
            None => return FullSpeedBudget { fraction: ok_budget, at_most: false },
        }
    }
    FullSpeedBudget { fraction: ok_budget, at_most: true }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_speed_budget_interpolates_between_budgets() {
        // 50 %: 3 % (within), 40 %: 9 % (above): 5 % lies 2/6 of the way from
        // 50 % down to 40 %: 50 - 10 * (5 - 3) / (9 - 3) = 46.67 %.
        let pts = [(0.3, Some(0.2)), (0.4, Some(0.09)), (0.5, Some(0.03)), (0.6, Some(0.0))];
        let x = full_speed_budget(&pts, FULL_SPEED_OVERHEAD);
        assert!((x.fraction - (0.5 - 0.1 / 3.0)).abs() < 1e-12 && !x.at_most, "{x:?}");
        // Above the bound already at 90 %: between 100 % (0 by definition) and
        // 90 % at 10 %: 100 - 10 * 5 / 10 = 95 %.
        let x = full_speed_budget(&[(0.9, Some(0.1))], FULL_SPEED_OVERHEAD);
        assert!((x.fraction - 0.95).abs() < 1e-12, "{x:?}");
        // A failed plan at 40 % ends the walk at 50 %, no interpolation.
        let x = full_speed_budget(&[(0.4, None), (0.5, Some(0.01))], FULL_SPEED_OVERHEAD);
        assert_eq!(x, FullSpeedBudget { fraction: 0.5, at_most: false });
        // Within the bound everywhere: at most the lowest budget measured.
        let x = full_speed_budget(&[(0.3, Some(0.04)), (0.5, Some(0.0))], FULL_SPEED_OVERHEAD);
        assert_eq!(x, FullSpeedBudget { fraction: 0.3, at_most: true });
    }
}
