//! The compressibility predictor (paper §III-B, ablations of §V-B/§V-D).
//!
//! One ratio per signature, overwritten by every measurement; a ratio of 1
//! until a signature is measured. The runtime measures the tensors it swaps;
//! a profiling iteration measures the others ([`Predictor::profile`]).

use crate::ratios::{RatioTable, wire_bytes_at};
use crate::trace::{Tensor, Trace};
use crate::workload::Workload;
use std::collections::HashMap;

/// What a predictor entry is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureKind {
    /// Producing op position and output slot (PlaneZip's signature).
    PerTensor,
    /// Producing op type only: one entry serves every layer (ablation).
    OpType,
    /// One ratio for everything (ablation).
    Global,
}

/// Ratio table indexed by signature.
#[derive(Debug, Clone)]
pub struct Predictor {
    kind: SignatureKind,
    ratios: HashMap<String, f64>,
}

impl Predictor {
    /// An empty predictor (every ratio 1).
    pub fn new(kind: SignatureKind) -> Self {
        Predictor { kind, ratios: HashMap::new() }
    }

    fn key(&self, tensor: &Tensor) -> Option<String> {
        let producer = tensor.producer?;
        Some(match self.kind {
            SignatureKind::PerTensor => producer.to_string(),
            SignatureKind::OpType => tensor.producer_op_type.clone().unwrap_or_default(),
            SignatureKind::Global => String::new(),
        })
    }

    /// Records the measurements of `tensors` (indices into `trace.tensors`)
    /// found in `table`, overwriting their entries. Measurements sharing a key
    /// (op-type and global signatures) are combined byte-weighted.
    pub fn observe(&mut self, trace: &Trace, table: &RatioTable, tensors: impl IntoIterator<Item = usize>) {
        let mut sums: HashMap<String, (u64, u64)> = HashMap::new();
        for i in tensors {
            let t = &trace.tensors[i];
            if let (Some(key), Some(entry)) = (self.key(t), t.producer.and_then(|p| table.get(p))) {
                let s = sums.entry(key).or_default();
                s.0 += entry.raw_bytes;
                s.1 += entry.wire_bytes;
            }
        }
        for (key, (raw, wire)) in sums {
            let ratio = if raw == 0 || wire == 0 { 1.0 } else { raw as f64 / wire as f64 };
            self.ratios.insert(key, ratio);
        }
    }

    /// A profiling iteration: measures every saved activation in `table`.
    pub fn profile(&mut self, trace: &Trace, table: &RatioTable) {
        let saved = (0..trace.tensors.len()).filter(|&i| trace.tensors[i].kind == crate::trace::TensorKind::SavedActivation);
        self.observe(trace, table, saved);
    }

    /// Predicted ratio of a tensor (1 until measured).
    pub fn ratio(&self, tensor: &Tensor) -> f64 {
        self.key(tensor).and_then(|k| self.ratios.get(&k).copied()).unwrap_or(1.0)
    }

    /// Predicted wire bytes of every tensor of `workload` (built from `trace`).
    pub fn wire_bytes(&self, trace: &Trace, workload: &Workload) -> Vec<u64> {
        trace.tensors.iter().zip(&workload.tensors).map(|(t, w)| wire_bytes_at(w.bytes, self.ratio(t))).collect()
    }
}

/// Wire bytes of every tensor of `workload` as measured in `table`
/// (unmeasured tensors are incompressible): the sizes a transfer really has.
pub fn measured_wire_bytes(trace: &Trace, workload: &Workload, table: &RatioTable) -> Vec<u64> {
    trace
        .tensors
        .iter()
        .zip(&workload.tensors)
        .map(|(t, w)| wire_bytes_at(w.bytes, t.producer.and_then(|p| table.get(p)).map_or(1.0, |e| e.ratio())))
        .collect()
}

/// Raw sizes: what an uncompressed link moves.
pub fn raw_wire_bytes(workload: &Workload) -> Vec<u64> {
    workload.tensors.iter().map(|t| t.bytes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Phase, TraceBuilder};

    /// Two convolutions (ratio 2 and 4) and a relu (ratio 8), all saved.
    fn setup() -> (Trace, RatioTable) {
        let mut b = TraceBuilder::new("p");
        let c1 = b.op("convolution", Phase::Forward).output(800).finish()[0];
        let c2 = b.op("convolution", Phase::Forward).reads(&[c1]).output(800).finish()[0];
        let r = b.op("relu", Phase::Forward).reads(&[c2]).output(800).finish()[0];
        b.op("bwd", Phase::Backward).reads(&[c1, c2, r]).output(4).finish();
        let trace = b.build().unwrap();
        let mut table = RatioTable::new("test");
        for (t, wire) in [(c1, 400), (c2, 200), (r, 100)] {
            table.insert(trace.tensors[t as usize].producer.unwrap(), 800, wire);
        }
        (trace, table)
    }

    #[test]
    fn ratio_is_one_until_measured_then_overwritten() {
        let (trace, table) = setup();
        let mut p = Predictor::new(SignatureKind::PerTensor);
        assert_eq!(p.ratio(&trace.tensors[0]), 1.0);
        p.observe(&trace, &table, [0]);
        assert_eq!(p.ratio(&trace.tensors[0]), 2.0);
        assert_eq!(p.ratio(&trace.tensors[1]), 1.0, "only the measured signature changes");
        let mut next = table.clone();
        next.insert(trace.tensors[0].producer.unwrap(), 800, 320);
        p.observe(&trace, &next, [0]);
        assert_eq!(p.ratio(&trace.tensors[0]), 2.5);
    }

    #[test]
    fn ablation_signatures_share_entries() {
        let (trace, table) = setup();
        let mut by_type = Predictor::new(SignatureKind::OpType);
        by_type.profile(&trace, &table);
        // Both convolutions share one entry: 1,600 raw / 600 wire.
        assert!((by_type.ratio(&trace.tensors[0]) - 1600.0 / 600.0).abs() < 1e-12);
        assert_eq!(by_type.ratio(&trace.tensors[2]), 8.0);
        let mut global = Predictor::new(SignatureKind::Global);
        global.profile(&trace, &table);
        // 2,400 raw / 700 wire for everything.
        assert!((global.ratio(&trace.tensors[2]) - 2400.0 / 700.0).abs() < 1e-12);
    }
}
