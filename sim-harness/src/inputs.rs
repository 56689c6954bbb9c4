//! What users point the harness at: model dump directories (docs/DUMP-FORMAT.md) or bare
//! `.safetensors` / `.npy` files, turned into named tensors that keep their model's name.

use crate::convert::f32_to_bf16_bytes;
use crate::dump::Dump;
use crate::measure::Precision;
use crate::tensors;
use anyhow::{Context, Result};
use engine::golden::SymbolWidth;
use std::path::Path;

/// One tensor to measure or stream.
#[derive(Clone, Debug)]
pub struct NamedTensor {
    /// Model: the dump's model, or for a file the dump directory holding it (`data/gpt2/iter0.safetensors`
    /// → `gpt2`), else the file's stem.
    pub model: String,
    /// Tensor name: signature for dumps, key for safetensors, stem for .npy.
    pub name: String,
    /// dtype label as stored (`F32`, `BF16`, …).
    pub dtype: String,
    /// The bytes coded (converted to BF16 when asked).
    pub bytes: Vec<u8>,
    /// Symbol width the engine uses for them.
    pub width: SymbolWidth,
}

/// Model name of a tensor file: the dump directory holding it, else the stem.
pub fn model_of_file(path: &Path) -> String {
    let parent = path.parent().filter(|p| p.join("metadata.json").is_file() || p.join("trace.json").is_file());
    match parent.and_then(|p| p.file_name()) {
        Some(n) => n.to_string_lossy().into_owned(),
        None => path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
    }
}

/// Reads the tensors of `path` (dump directory: iteration `iteration`'s saved activations; file:
/// every tensor), coded in `precision` (BF16 converts F32 with RNE).
pub fn load(path: &Path, iteration: usize, precision: Precision) -> Result<Vec<NamedTensor>> {
    let narrow = |dtype: &str, bytes: Vec<u8>| -> (String, Vec<u8>, SymbolWidth) {
        if precision == Precision::Bf16 && dtype == "F32" {
            ("BF16".into(), f32_to_bf16_bytes(&bytes), SymbolWidth::W16)
        } else {
            let w = SymbolWidth::for_dtype(dtype);
            (dtype.to_owned(), bytes, w)
        }
    };
    if path.is_dir() {
        let dump = Dump::open(path).with_context(|| format!("model dump {}", path.display()))?;
        let model = dump.metadata.model.clone();
        return Ok(dump
            .read_iteration(iteration)?
            .into_iter()
            .map(|b| {
                let label = dtype_label(b.dtype);
                let (dtype, bytes, width) = narrow(&label, b.data);
                NamedTensor { model: model.clone(), name: b.signature.to_string(), dtype, bytes, width }
            })
            .collect());
    }
    let model = model_of_file(path);
    Ok(tensors::load(path)?
        .into_iter()
        .map(|t| {
            let (dtype, bytes, width) = narrow(&t.dtype, t.bytes);
            NamedTensor { model: model.clone(), name: t.name, dtype, bytes, width }
        })
        .collect())
}

/// safetensors' name of a trace dtype (`F32`, `BF16`, `I64`, `BOOL`, …).
pub fn dtype_label(d: planner::trace::Dtype) -> String {
    format!("{d:?}").to_ascii_uppercase()
}
