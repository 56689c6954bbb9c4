//! A plan: what happens to every saved tensor (paper Algorithm 1's `P`).

use crate::workload::{TensorIdx, Workload};

/// What a plan does with one tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Stays resident from production to last use.
    Keep,
    /// Copied to host after op `swap_out_after` ends, freed once the copy is
    /// done and its last forward access has passed, prefetched when op
    /// `prefetch_at` starts (and its swap-out has finished).
    Swap {
        /// The device-to-host copy is queued when this op ends.
        swap_out_after: usize,
        /// The host-to-device copy is queued when this op starts.
        prefetch_at: usize,
    },
    /// Freed after its last forward access, recomputed before its first backward use.
    Drop,
}

/// One decision per tensor of a [`Workload`] (non-candidates are always [`Decision::Keep`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Indexed like [`Workload::tensors`].
    pub decisions: Vec<Decision>,
    /// Which portfolio member or policy built it (for reports).
    pub label: String,
}

impl Plan {
    /// Keeps everything.
    pub fn keep_all(workload: &Workload, label: &str) -> Plan {
        Plan { decisions: vec![Decision::Keep; workload.tensors.len()], label: label.to_owned() }
    }

    /// Tensors the plan swaps.
    pub fn swapped(&self) -> impl Iterator<Item = TensorIdx> + '_ {
        self.decisions.iter().enumerate().filter(|(_, d)| matches!(d, Decision::Swap { .. })).map(|(i, _)| i)
    }

    /// Tensors the plan drops.
    pub fn dropped(&self) -> impl Iterator<Item = TensorIdx> + '_ {
        self.decisions.iter().enumerate().filter(|(_, d)| **d == Decision::Drop).map(|(i, _)| i)
    }
}
