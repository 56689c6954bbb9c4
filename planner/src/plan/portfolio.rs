//! The plan portfolio (paper §III-C): build every member, simulate each
//! with the predicted ratios, keep the fastest, then run it with the ratios
//! the transfers really have.

use super::{PlanError, Planned, Ranking, algorithm1, eq1_plan, plan_and_simulate};
use crate::plan::Plan;
use crate::predictor::raw_wire_bytes;
use crate::sim::SimReport;
use crate::workload::Workload;

/// Stage-one budget fractions η of the portfolio.
pub const ETAS: [f64; 4] = [1.0, 0.75, 0.5, 0.25];

/// One member of the portfolio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Member {
    /// Algorithm 1 with compressed copy times (12 members: 3 rankings × 4 η).
    Aware {
        /// Stage-one ranking.
        ranking: Ranking,
        /// Stage-one budget fraction.
        eta: f64,
    },
    /// Algorithm 1 planned with uncompressed sizes, then transferred
    /// compressed: the paper's "plans built with uncompressed sizes", read as
    /// every ranking and η (12 members), so that the portfolio holds every
    /// plan BW's can choose and never does worse than compressing the swaps of
    /// BW's plan (under its predictions).
    Unaware {
        /// Stage-one ranking.
        ranking: Ranking,
        /// Stage-one budget fraction.
        eta: f64,
    },
    /// MegTaiChi's Eq. 1 with compressed transfer times, prefetches scheduled (1 member).
    Eq1,
    /// MegTaiChi's Eq. 1 with raw transfer times (BW's Eq. 1 member), transferred compressed (1 member).
    Eq1Unaware,
    /// Recomputation only: Algorithm 1 stage two (1 member).
    RecomputeOnly,
}

impl Member {
    /// The 27 members of a compressed policy's portfolio, in a fixed order:
    /// 12 aware, 12 unaware, the two Eq. 1 plans, recomputation only.
    pub fn all() -> Vec<Member> {
        let mut members = Vec::with_capacity(27);
        for ranking in Ranking::ALL {
            members.extend(ETAS.iter().map(|&eta| Member::Aware { ranking, eta }));
        }
        for ranking in Ranking::ALL {
            members.extend(ETAS.iter().map(|&eta| Member::Unaware { ranking, eta }));
        }
        members.extend([Member::Eq1, Member::Eq1Unaware, Member::RecomputeOnly]);
        members
    }

    /// The 14 distinct members when the planning sizes are the raw ones (BW):
    /// there the unaware members repeat the aware ones.
    pub fn uncompressed() -> Vec<Member> {
        Member::all().into_iter().filter(|m| !matches!(m, Member::Unaware { .. } | Member::Eq1Unaware)).collect()
    }

    /// Whether the member planned with the predicted compressed sizes (an
    /// aware Algorithm 1 plan or the compressed Eq. 1 plan): what "the planner
    /// keeps a compression-aware plan" counts (§V-D).
    pub fn is_compression_aware(&self) -> bool {
        matches!(self, Member::Aware { .. } | Member::Eq1)
    }

    /// Label for reports, e.g. `aware cr/x eta=0.75`.
    pub fn label(&self) -> String {
        match self {
            Member::Aware { ranking, eta } => format!("aware {} eta={eta}", ranking.name()),
            Member::Unaware { ranking, eta } => format!("unaware {} eta={eta}", ranking.name()),
            Member::Eq1 => "eq1".to_owned(),
            Member::Eq1Unaware => "eq1 unaware".to_owned(),
            Member::RecomputeOnly => "recompute-only".to_owned(),
        }
    }

    /// Builds this member's plan for `target_bytes` with `predicted_wire` sizes.
    pub fn build(&self, w: &Workload, predicted_wire: &[u64], target_bytes: u64) -> Result<Plan, PlanError> {
        let label = self.label();
        match *self {
            Member::Aware { ranking, eta } => algorithm1(w, predicted_wire, target_bytes, eta, ranking, &label),
            Member::Unaware { ranking, eta } => algorithm1(w, &raw_wire_bytes(w), target_bytes, eta, ranking, &label),
            Member::Eq1 => eq1_plan(w, predicted_wire, target_bytes, &label),
            Member::Eq1Unaware => eq1_plan(w, &raw_wire_bytes(w), target_bytes, &label),
            Member::RecomputeOnly => {
                algorithm1(w, predicted_wire, target_bytes, 0.0, Ranking::RecomputePerCopy, &label)
            }
        }
    }
}

/// What the portfolio chose and how it ran.
#[derive(Debug, Clone)]
pub struct PortfolioOutcome {
    /// The member kept.
    pub chosen: Member,
    /// Its iteration simulated with the predicted ratios.
    pub predicted: SimReport,
    /// Its iteration simulated with the actual ratios (re-planned if it overflowed).
    pub actual: Planned,
    /// Every member's predicted iteration time in ns, or why it failed.
    pub members: Vec<(Member, Result<f64, PlanError>)>,
    /// Overflow re-plans the members needed under the predictions, all members together
    /// (a member that still overflowed after the last re-plan counts all of them).
    pub member_replans: usize,
}

/// Simulates every member of `members` with `predicted_wire` for
/// `budget_bytes`, keeps the fastest (the first on ties), and runs it with
/// `actual_wire`.
pub fn portfolio(
    w: &Workload,
    predicted_wire: &[u64],
    actual_wire: &[u64],
    budget_bytes: u64,
    members: &[Member],
) -> Result<PortfolioOutcome, PlanError> {
    let mut best: Option<(Member, SimReport)> = None;
    let mut results = Vec::with_capacity(members.len());
    let mut first_error = None;
    let mut member_replans = 0;
    for &member in members {
        match plan_and_simulate(w, predicted_wire, budget_bytes, |target| member.build(w, predicted_wire, target)) {
            Ok(planned) => {
                member_replans += planned.replans;
                results.push((member, Ok(planned.report.iteration_ns)));
                if best.as_ref().is_none_or(|(_, r)| planned.report.iteration_ns < r.iteration_ns) {
                    best = Some((member, planned.report));
                }
            }
            Err(e) => {
                if let PlanError::Sim { replans, .. } = e {
                    member_replans += replans;
                }
                first_error.get_or_insert_with(|| e.clone());
                results.push((member, Err(e)));
            }
        }
    }
    let Some((chosen, predicted)) = best else {
        return Err(first_error.expect("an empty portfolio has no plan"));
    };
    let actual = plan_and_simulate(w, actual_wire, budget_bytes, |target| chosen.build(w, predicted_wire, target))?;
    Ok(PortfolioOutcome { chosen, predicted, actual, members: results, member_replans })
}
