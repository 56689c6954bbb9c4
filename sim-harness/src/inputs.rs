//! What users point the harness at: model dump directories (docs/DUMP-FORMAT.md) or bare
//! `.safetensors` / `.npy` files, turned into named tensors that keep their model's name.

use crate::convert::f32_to_bf16_bytes;
use crate::dump::Dump;
use crate::measure::Precision;
use crate::tensors;
use anyhow::{Context, Result};
use engine::golden::SymbolWidth;
use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

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
    let parent = path.parent().filter(|p| p.join("metadata.json").is_file() || crate::dump::is_model_dir(p));
    match parent.and_then(|p| p.file_name()) {
        Some(n) => n.to_string_lossy().into_owned(),
        None => path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
    }
}

/// A tensor as `stream` takes it: in memory (a dump's saved activation), or located in its file
/// and read from it one piece of [`tensors::PIECE_BYTES`] at a time, so that a tensor of many GB
/// needs memory for a piece, not for the tensor.
pub enum StreamTensor {
    /// Bytes in memory; streamed as one transfer.
    Loaded(NamedTensor),
    /// In a `.safetensors` / `.npy` file; streamed as one transfer per piece.
    InFile(FileTensor),
}

/// A tensor of a file whose header was checked, its bytes not yet read.
pub struct FileTensor {
    /// Model: see [`NamedTensor::model`].
    pub model: String,
    /// dtype label coded (`BF16` when F32 is converted).
    pub dtype: String,
    /// Symbol width the engine uses.
    pub width: SymbolWidth,
    /// Converted F32 → BF16 (RNE) piece by piece.
    to_bf16: bool,
    /// Where its bytes lie.
    entry: tensors::TensorEntry,
    /// The open file (shared by its tensors).
    file: Arc<tensors::TensorFile>,
}

impl From<NamedTensor> for StreamTensor {
    fn from(t: NamedTensor) -> Self {
        StreamTensor::Loaded(t)
    }
}

impl StreamTensor {
    /// Model.
    pub fn model(&self) -> &str {
        match self {
            StreamTensor::Loaded(t) => &t.model,
            StreamTensor::InFile(f) => &f.model,
        }
    }

    /// Tensor name.
    pub fn name(&self) -> &str {
        match self {
            StreamTensor::Loaded(t) => &t.name,
            StreamTensor::InFile(f) => &f.entry.name,
        }
    }

    /// dtype label coded.
    pub fn dtype(&self) -> &str {
        match self {
            StreamTensor::Loaded(t) => &t.dtype,
            StreamTensor::InFile(f) => &f.dtype,
        }
    }

    /// Symbol width the engine uses.
    pub fn width(&self) -> SymbolWidth {
        match self {
            StreamTensor::Loaded(t) => t.width,
            StreamTensor::InFile(f) => f.width,
        }
    }

    /// Bytes coded (after any bf16 conversion).
    pub fn coded_bytes(&self) -> usize {
        match self {
            StreamTensor::Loaded(t) => t.bytes.len(),
            StreamTensor::InFile(f) => if f.to_bf16 { f.entry.len_bytes / 2 } else { f.entry.len_bytes },
        }
    }

    /// Transfers it is streamed as: 1 in memory; one per [`tensors::PIECE_BYTES`] of the file
    /// (at least 1, so that an empty tensor still has its row).
    pub fn pieces(&self) -> usize {
        match self {
            StreamTensor::Loaded(_) => 1,
            StreamTensor::InFile(f) => f.entry.len_bytes.div_ceil(tensors::PIECE_BYTES).max(1),
        }
    }

    /// The coded bytes of piece `k` of [`Self::pieces`]: each but the last a whole number of
    /// chunk pairs, so the pieces' chunks are the tensor's chunks, on the same lanes.
    pub fn piece(&self, k: usize) -> Result<Cow<'_, [u8]>> {
        match self {
            StreamTensor::Loaded(t) => Ok(Cow::Borrowed(&t.bytes)),
            StreamTensor::InFile(f) => {
                let start = k * tensors::PIECE_BYTES;
                let raw = f.file.read(&f.entry, start, tensors::PIECE_BYTES.min(f.entry.len_bytes.saturating_sub(start)))?;
                Ok(Cow::Owned(if f.to_bf16 { f32_to_bf16_bytes(&raw) } else { raw }))
            }
        }
    }

    /// The first `coded_bytes` coded bytes (or all, if fewer) as a tensor in memory (for a VCD trace).
    pub fn head(&self, coded_bytes: usize) -> Result<NamedTensor> {
        let bytes = match self {
            StreamTensor::Loaded(t) => t.bytes[..coded_bytes.min(t.bytes.len())].to_vec(),
            StreamTensor::InFile(f) => {
                let scale = if f.to_bf16 { 2 } else { 1 };
                let raw = f.file.read(&f.entry, 0, (coded_bytes * scale).min(f.entry.len_bytes))?;
                if f.to_bf16 { f32_to_bf16_bytes(&raw) } else { raw }
            }
        };
        Ok(NamedTensor { model: self.model().to_owned(), name: self.name().to_owned(), dtype: self.dtype().to_owned(), bytes, width: self.width() })
    }
}

/// How a tensor of `dtype` is coded in `precision`: dtype label, symbol width, and whether its
/// F32 bytes are converted to BF16 first.
fn coding(dtype: &str, precision: Precision) -> (String, SymbolWidth, bool) {
    if precision == Precision::Bf16 && dtype == "F32" { ("BF16".into(), SymbolWidth::W16, true) } else { (dtype.to_owned(), SymbolWidth::for_dtype(dtype), false) }
}

/// The tensors of `path` (dump directory: iteration `iteration`'s saved activations, read into
/// memory; file: every tensor, its header checked, its bytes left in the file), coded in
/// `precision` (BF16 converts F32 with RNE).
pub fn load(path: &Path, iteration: usize, precision: Precision) -> Result<Vec<StreamTensor>> {
    if path.is_dir() {
        let dump = Dump::open(path).with_context(|| format!("model dump {}", path.display()))?;
        let model = dump.metadata.model.clone();
        return Ok(dump
            .read_iteration(iteration)?
            .into_iter()
            .map(|b| {
                let (dtype, width, to_bf16) = coding(&dtype_label(b.dtype), precision);
                let bytes = if to_bf16 { f32_to_bf16_bytes(&b.data) } else { b.data };
                StreamTensor::Loaded(NamedTensor { model: model.clone(), name: b.signature.to_string(), dtype, bytes, width })
            })
            .collect());
    }
    let model = model_of_file(path);
    let file = Arc::new(tensors::open(path)?);
    Ok(file
        .tensors
        .iter()
        .map(|entry| {
            let (dtype, width, to_bf16) = coding(&entry.dtype, precision);
            StreamTensor::InFile(FileTensor { model: model.clone(), dtype, width, to_bf16, entry: entry.clone(), file: Arc::clone(&file) })
        })
        .collect())
}

/// safetensors' name of a trace dtype (`F32`, `BF16`, `I64`, `BOOL`, …).
pub fn dtype_label(d: planner::trace::Dtype) -> String {
    format!("{d:?}").to_ascii_uppercase()
}
