//! PlaneZip host side (paper §III-B, §III-C, §IV): trace model, predictor,
//! planner and the trace-driven training + PCIe simulator.
