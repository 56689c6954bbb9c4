//! Plans and the planners that build them (paper §III-C).
//!
//! - [`algorithm1`]: Algorithm 1 (stage one swaps, stage two DTR drops, prefetch points);
//! - [`eq1_plan`]: MegTaiChi's Eq. 1 eviction (DTE);
//! - [`swap_only_plan`]: the vDNN-like SWAP policy;
//! - [`portfolio`]: the 18-plan portfolio, simulated and the fastest kept;
//! - [`plan_and_simulate`]: the re-planning loop shared by every policy.

mod algorithm1;
mod decision;
mod eq1;
mod estimate;
mod portfolio;
mod profile;
mod swap_only;

pub use algorithm1::{Ranking, algorithm1};
pub use decision::{Decision, Plan};
pub use eq1::eq1_plan;
pub use portfolio::{ETAS, Member, PortfolioOutcome, portfolio};
pub use swap_only::swap_only_plan;

use crate::sim::{SimError, SimReport, simulate};
use crate::workload::Workload;

/// Each re-plan tightens the planning target by this fraction of the budget.
pub const REPLAN_STEP: f64 = 0.05;
/// At most this many re-plans (a target down to 70 % of the budget).
pub const MAX_REPLANS: usize = 6;

/// Why no plan could be produced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// Even with every eligible tensor evicted, the estimated peak exceeds the target.
    #[error("target of {target_bytes} B is unreachable: {peak_bytes} B remain at op {op} with no eligible tensor left")]
    Unreachable {
        /// The planning target.
        target_bytes: u64,
        /// The estimated memory left at `op`.
        peak_bytes: u64,
        /// The op of the remaining peak.
        op: usize,
    },
    /// The simulator rejected the budget or every re-planned plan.
    #[error("simulation failed after {replans} re-plans: {source}")]
    Sim {
        /// Re-plans tried.
        replans: usize,
        /// The last simulator error.
        source: SimError,
    },
}

/// A plan that ran, with the re-plans it took.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The plan.
    pub plan: Plan,
    /// Its simulated iteration.
    pub report: SimReport,
    /// Re-plans with a tighter target before it fitted.
    pub replans: usize,
}

/// Builds a plan with `build(target)` for the full budget, simulates it with
/// `wire_bytes` and, while the replay overflows, re-plans with a target
/// tightened by [`REPLAN_STEP`] of the budget, at most [`MAX_REPLANS`] times.
/// An infeasible budget (below one op's needs) fails at once.
pub fn plan_and_simulate(
    w: &Workload,
    wire_bytes: &[u64],
    budget_bytes: u64,
    mut build: impl FnMut(u64) -> Result<Plan, PlanError>,
) -> Result<Planned, PlanError> {
    if budget_bytes < w.min_budget_bytes {
        // No plan can help: report the minimum rather than the planner's first unreachable target.
        let source = SimError::BudgetBelowMinimum { budget_bytes, min_bytes: w.min_budget_bytes, op: w.min_budget_op };
        return Err(PlanError::Sim { replans: 0, source });
    }
    let mut last_overflow = None;
    for replans in 0..=MAX_REPLANS {
        let target = (budget_bytes as f64 * (1.0 - REPLAN_STEP * replans as f64)) as u64;
        let plan = match build(target) {
            Ok(plan) => plan,
            // A tighter target that cannot be planned: report the overflow that led here.
            Err(_) if last_overflow.is_some() => break,
            Err(e) => return Err(e),
        };
        match simulate(w, &plan, wire_bytes, budget_bytes) {
            Ok(report) => return Ok(Planned { plan, report, replans }),
            Err(source @ SimError::Overflow { .. }) => last_overflow = Some((replans, source)),
            Err(source) => return Err(PlanError::Sim { replans, source }),
        }
    }
    let (replans, source) = last_overflow.expect("the loop only ends early after an overflow");
    Err(PlanError::Sim { replans, source })
}
