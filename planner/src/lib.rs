//! PlaneZip host side (paper §III-B, §III-C, §IV): trace model, predictor,
//! planner and the trace-driven training + PCIe simulator.
#![deny(missing_docs)]

pub mod plan;
pub mod platform;
pub mod predictor;
pub mod ratios;
pub mod sim;
pub mod trace;
pub mod workload;
pub mod policy;
pub mod synth;
