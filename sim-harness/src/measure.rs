//! Per-tensor compressed sizes of a model dump's saved activations (docs/DUMP-FORMAT.md), with
//! every codec, in FP32 (as captured) and BF16 (round-to-nearest-even conversion): the data behind
//! Fig. 3, Table III and Table IV of the paper (§V-A, §V-B).
//!
//! Sizes come from the golden size model on the dump's sampled 4 KB chunks (FORMAT.md §8 wire
//! size: headers, padding, raw-chunk fallback, 3-bit tags for PlaneZip) and are scaled to the
//! tensor's full size at the capture batch: `wire_full = tensor_bytes × wire_sampled / raw_sampled`.

use crate::convert::f32_to_bf16_bytes;
use crate::dump::Dump;
use crate::ratios::{WireBytes, measure, ratio};
use anyhow::{Context, Result};
use engine::golden::SymbolWidth;
use planner::predictor::{Predictor, SignatureKind};
use planner::ratios::RatioTable;
use planner::trace::{Dtype, Producer, TensorKind, Trace};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The paper's five models (Table I), by dump directory name.
pub const PAPER_MODELS: [&str; 5] = ["resnet50", "densenet121", "efficientnet_b0", "vit_b16", "gpt2"];

/// Whether `model` is one of the paper's five.
pub fn is_paper_model(model: &str) -> bool {
    PAPER_MODELS.contains(&model)
}

/// Precision a tensor is coded in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Precision {
    /// As captured (FP32 floats; other dtypes unchanged), natural symbol width.
    Fp32,
    /// Floats converted to BF16 (RNE), 16-bit symbols; other dtypes unchanged.
    Bf16,
}

impl Precision {
    /// Both, in report order.
    pub const ALL: [Precision; 2] = [Precision::Bf16, Precision::Fp32];

    /// Label in tables.
    pub fn label(self) -> &'static str {
        match self {
            Precision::Fp32 => "FP32",
            Precision::Bf16 => "BF16",
        }
    }
}

/// Bytes of one tensor (scaled to its full size) under every codec.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CodecBytes {
    /// Uncompressed bytes in this precision.
    pub raw_bytes: u64,
    /// Wire bytes per codec: ZVC, BPC (DBX), BX, ZBX, PlaneZip.
    pub wire_bytes: [u64; 5],
    /// PlaneZip blocks per chosen code (ZVC, DBX, BX, ZBX, raw) among the sampled blocks.
    pub sampled_blocks_by_tag: [u64; 5],
}

impl CodecBytes {
    /// Adds another tensor's bytes.
    pub fn add(&mut self, o: &CodecBytes) {
        self.raw_bytes += o.raw_bytes;
        for i in 0..5 {
            self.wire_bytes[i] += o.wire_bytes[i];
            self.sampled_blocks_by_tag[i] += o.sampled_blocks_by_tag[i];
        }
    }

    /// Ratio of codec `i` (index into [`CODECS`]).
    pub fn ratio(&self, i: usize) -> f64 {
        ratio(self.raw_bytes as usize, self.wire_bytes[i] as usize)
    }
}

/// Codec names in column order.
pub const CODECS: [&str; 5] = ["ZVC", "BPC(DBX)", "BX", "ZBX", "PlaneZip"];
/// Index of PlaneZip in [`CODECS`].
pub const PLANEZIP: usize = 4;
/// Code names in `sampled_blocks_by_tag` order.
pub const CODES: [&str; 5] = ["ZVC", "DBX", "BX", "ZBX", "raw"];

/// One saved activation of one iteration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TensorSizes {
    /// Signature `op{op}:{slot}`.
    pub signature: String,
    /// The producing op's type (ATen name).
    pub op_type: String,
    /// Table III producer category.
    pub category: String,
    /// Element type as captured.
    pub dtype: Dtype,
    /// FP32 (as captured) sizes.
    pub fp32: CodecBytes,
    /// BF16 (RNE) sizes.
    pub bf16: CodecBytes,
}

impl TensorSizes {
    /// The sizes in `p`.
    pub fn get(&self, p: Precision) -> &CodecBytes {
        match p {
            Precision::Fp32 => &self.fp32,
            Precision::Bf16 => &self.bf16,
        }
    }
}

/// One model's saved activations in one captured iteration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModelIteration {
    /// Model name (metadata.json).
    pub model: String,
    /// Captured iteration.
    pub iteration: usize,
    /// Saved activations in trace order.
    pub tensors: Vec<TensorSizes>,
}

impl ModelIteration {
    /// Byte-weighted sum over all tensors in `p`.
    pub fn total(&self, p: Precision) -> CodecBytes {
        let mut t = CodecBytes::default();
        for x in &self.tensors {
            t.add(x.get(p));
        }
        t
    }

    /// The PlaneZip sizes in `p` as a planner ratio table (raw and wire per signature).
    pub fn ratio_table(&self, p: Precision) -> RatioTable {
        let mut table = RatioTable::new(&format!("planezip-{}", p.label()));
        for t in &self.tensors {
            if let Ok(sig) = t.signature.parse::<Producer>() {
                let c = t.get(p);
                table.insert(sig, c.raw_bytes, c.wire_bytes[PLANEZIP]);
            }
        }
        table
    }
}

/// Table III category of a saved tensor from its producer's op type, output slot and dtype.
pub fn category(op_type: &str, slot: usize, dtype: Dtype) -> &'static str {
    match op_type {
        "convolution" => "Conv output",
        "relu" => "ReLU output",
        "cat" | "clone" | "constant_pad_nd" => "Copy/concat",
        "_softmax" => "Softmax",
        "addmm" | "mm" | "bmm" | "linear" => "Linear output",
        "native_dropout" if dtype.is_float() => "Dropout output",
        "native_dropout" => "Dropout mask",
        "native_batch_norm" | "native_layer_norm" => "Norm in/out",
        "_log_softmax" => "Log-softmax",
        "max_pool2d_with_indices" if slot == 1 => "Indices",
        "max_pool2d_with_indices" => "Pool output",
        "add" | "mul" | "div" | "sigmoid" | "silu" | "gelu" | "tanh" | "hardtanh" | "clamp_min" => "Elementwise",
        _ => "Other",
    }
}

fn scale(full: u64, sampled_raw: usize, sampled: usize) -> u64 {
    if sampled_raw == 0 { 0 } else { (full as f64 * sampled as f64 / sampled_raw as f64).round() as u64 }
}

fn codec_bytes(full: u64, bytes: &[u8], width: SymbolWidth) -> CodecBytes {
    let (w, tags): (WireBytes, [usize; 5]) = measure(bytes, width);
    let cols = w.columns();
    CodecBytes {
        raw_bytes: full,
        wire_bytes: std::array::from_fn(|i| scale(full, bytes.len(), cols[i].1)),
        sampled_blocks_by_tag: tags.map(|t| t as u64),
    }
}

/// Natural symbol width of a dtype (FORMAT.md §2: 2-byte floats 16, all others 32).
pub fn natural_width(d: Dtype) -> SymbolWidth {
    match d {
        Dtype::F16 | Dtype::Bf16 => SymbolWidth::W16,
        _ => SymbolWidth::W32,
    }
}

/// Measures every saved activation of iteration `k` of `dump` in both precisions (rayon over
/// tensors).
pub fn measure_dump(dump: &Dump, k: usize) -> Result<ModelIteration> {
    let blocks = dump.read_iteration(k).with_context(|| format!("model dump {}", dump.dir.display()))?;
    let op_types = producer_op_types(&dump.trace);
    let tensors = blocks
        .par_iter()
        .map(|b| {
            let sig = b.signature.to_string();
            let op_type = op_types.get(&sig).cloned().unwrap_or_default();
            let fp32 = codec_bytes(b.tensor_bytes, &b.data, natural_width(b.dtype));
            let bf16 = if b.dtype == Dtype::F32 {
                codec_bytes(b.tensor_bytes / 2, &f32_to_bf16_bytes(&b.data), SymbolWidth::W16)
            } else {
                fp32
            };
            TensorSizes { category: category(&op_type, b.signature.slot, b.dtype).to_owned(), signature: sig, op_type, dtype: b.dtype, fp32, bf16 }
        })
        .collect();
    Ok(ModelIteration { model: dump.metadata.model.clone(), iteration: k, tensors })
}

fn producer_op_types(trace: &Trace) -> BTreeMap<String, String> {
    trace
        .tensors
        .iter()
        .filter(|t| t.kind == TensorKind::SavedActivation)
        .filter_map(|t| Some((t.producer?.to_string(), t.producer_op_type.clone().unwrap_or_default())))
        .collect()
}

/// Wire-size error of a predictor signature: Σ |predicted − actual| / Σ actual over the saved
/// activations of `trace`, predicting iteration `next`'s PlaneZip wire bytes from the ratios the
/// predictor learnt in a profiling pass over `now` (planner::predictor, the runtime's table).
pub fn predictor_error(trace: &Trace, kind: SignatureKind, now: &RatioTable, next: &RatioTable) -> f64 {
    let mut p = Predictor::new(kind);
    p.profile(trace, now);
    let (mut err, mut total) = (0.0f64, 0.0f64);
    for t in trace.tensors.iter().filter(|t| t.kind == TensorKind::SavedActivation) {
        let Some(e) = t.producer.and_then(|s| next.get(s)) else { continue };
        let predicted = e.raw_bytes as f64 / p.ratio(t);
        err += (predicted - e.wire_bytes as f64).abs();
        total += e.wire_bytes as f64;
    }
    if total == 0.0 { 0.0 } else { err / total }
}

/// Geometric mean (1 for an empty set).
pub fn geomean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0usize);
    for x in xs {
        s += x.ln();
        n += 1;
    }
    if n == 0 { 1.0 } else { (s / n as f64).exp() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geomean_of_known_values() {
        assert!((geomean([2.0, 8.0]) - 4.0).abs() < 1e-12);
        assert_eq!(geomean(std::iter::empty()), 1.0);
    }

    #[test]
    fn categories_follow_table_iii() {
        assert_eq!(category("native_dropout", 0, Dtype::F32), "Dropout output");
        assert_eq!(category("native_dropout", 1, Dtype::Bool), "Dropout mask");
        assert_eq!(category("max_pool2d_with_indices", 1, Dtype::I64), "Indices");
        assert_eq!(category("gelu", 0, Dtype::F32), "Elementwise");
    }

    #[test]
    fn scaled_sizes_keep_the_sampled_ratio() {
        // 4,096 sampled bytes of a 40,960-byte tensor that code to 1,024 bytes -> 10,240.
        assert_eq!(scale(40_960, 4_096, 1_024), 10_240);
    }
}
