//! Reader for the capture tool's dumps (`docs/DUMP-FORMAT.md` §2–3): full dumps in the cache
//! (`$PLANEZIP_CACHE/dumps/MODEL/`) and the sampled dumps committed in `data/MODEL/`.
//!
//! A [`Dump`] holds the two traces (parsed and validated by [`planner::trace`]), the metadata and,
//! for a sample, its chunk index; [`Dump::read_iteration`] loads the saved activations of one
//! captured iteration as byte blocks with their offsets. Every malformed input is an error that
//! names the file and the problem.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use planner::trace::{Dtype, Producer, TensorKind, Trace, TraceError};
use safetensors::SafeTensors;
use serde::Deserialize;

/// Size of a sampled chunk in bytes (§3).
pub const CHUNK_BYTES: u64 = 4096;

/// What went wrong while reading a dump.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A JSON file (metadata.json, sample.json) does not parse.
    #[error("{path}: invalid JSON: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parse error.
        source: serde_json::Error,
    },
    /// A trace file is unreadable or breaks the §1 schema.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A safetensors file does not parse.
    #[error("{path}: invalid safetensors: {message}")]
    Safetensors {
        /// The file.
        path: PathBuf,
        /// The library's message.
        message: String,
    },
    /// The files parse but disagree with each other or with the format.
    #[error("{path}: {problem}")]
    Invalid {
        /// The file in which the problem shows.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

/// `metadata.json` (§2); fields the reader does not need are ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct Metadata {
    /// Format version of the dump (1).
    pub dump_version: u32,
    /// Model name.
    pub model: String,
    /// Distinct parameters (count).
    pub params: u64,
    /// Samples per iteration of `trace.json`.
    pub capture_batch: u64,
    /// Samples per iteration of `trace-train.json`.
    pub train_batch: u64,
    /// Tokens per sequence (language models).
    pub seq_len: Option<u64>,
    /// What stands in for ImageNet / WikiText-2.
    pub data_stand_in: String,
    /// Exact-zero fraction of saved ReLU/ReLU6 outputs in iteration 0.
    pub relu_zero_fraction: Option<f64>,
    /// Per captured iteration: loss and saved bytes.
    pub iterations: Vec<IterationInfo>,
    /// Training-batch to capture-batch mapping of saved tensors.
    #[serde(rename = "match")]
    pub matching: Matching,
}

/// One captured iteration in `metadata.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct IterationInfo {
    /// Iteration index (0, 1, 2).
    pub iteration: usize,
    /// Training loss (nats).
    pub loss: f64,
    /// Saved activation bytes of the iteration at the capture batch.
    pub saved_bytes: u64,
}

/// `metadata.json` `match`: saved tensors of `trace-train.json` mapped to `trace.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Matching {
    /// Training-trace signature → capture-trace signature.
    pub map: BTreeMap<String, String>,
    /// Training-trace signatures without captured counterpart.
    pub unmatched: Vec<String>,
    /// Fraction of the training trace's saved bytes that is unmatched.
    pub unmatched_saved_bytes_share: f64,
    /// Whether both traces have the same op-name sequence.
    pub identical_op_sequence: bool,
}

/// `sample.json` (§3).
#[derive(Debug, Clone, Deserialize)]
pub struct SampleIndex {
    /// Fixed string `planezip-sample`.
    pub format: String,
    /// Version (1).
    pub version: u32,
    /// Model name.
    pub model: String,
    /// Chunk size in bytes (4096).
    pub chunk_bytes: u64,
    /// Number of iterations sampled.
    pub iterations: usize,
    /// Per saved-activation signature: its chunk offsets.
    pub tensors: BTreeMap<String, SampledTensor>,
}

/// One sampled tensor of `sample.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct SampledTensor {
    /// Element type.
    pub dtype: Dtype,
    /// Full shape of the tensor.
    pub shape: Vec<u64>,
    /// Full size of the tensor in bytes.
    pub bytes: u64,
    /// Byte offsets of the kept chunks, in stored order.
    pub offsets: Vec<u64>,
}

/// The bytes of one saved activation in one iteration: the whole tensor, or sampled chunks.
#[derive(Debug, Clone)]
pub struct SavedBlocks {
    /// Signature (producer in `trace.json`).
    pub signature: Producer,
    /// Element type.
    pub dtype: Dtype,
    /// Full size of the tensor in bytes.
    pub tensor_bytes: u64,
    /// Byte offsets into the tensor of the chunks in `data`, each `CHUNK_BYTES` long except a
    /// final (full dump) or sole (tensor under 4 KB) shorter one.
    pub offsets: Vec<u64>,
    /// The chunks, concatenated.
    pub data: Vec<u8>,
}

impl SavedBlocks {
    /// The chunks as (byte offset in the tensor, bytes) pairs.
    pub fn chunks(&self) -> impl Iterator<Item = (u64, &[u8])> + '_ {
        self.data
            .chunks(CHUNK_BYTES as usize)
            .zip(&self.offsets)
            .map(|(bytes, &off)| (off, bytes))
    }
}

/// One model's dump directory, opened and cross-checked.
#[derive(Debug, Clone)]
pub struct Dump {
    /// The directory.
    pub dir: PathBuf,
    /// `trace.json`: capture batch, CPU.
    pub trace: Trace,
    /// `trace-train.json`: training batch, meta device.
    pub train_trace: Trace,
    /// `metadata.json`.
    pub metadata: Metadata,
    /// `sample.json` when the dump is a sample (`data/`), else `None`.
    pub sample: Option<SampleIndex>,
    saved: Vec<(Producer, Dtype, u64)>,
    iterations: usize,
}

/// Default location of full dumps: `$PLANEZIP_CACHE/dumps`, else `~/.cache/planezip/dumps`.
pub fn cache_root() -> Option<PathBuf> {
    if let Some(c) = std::env::var_os("PLANEZIP_CACHE") {
        return Some(PathBuf::from(c).join("dumps"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/planezip/dumps"))
}

/// Opens every model directory (one holding `trace.json`) under `root`, sorted by name.
pub fn open_all(root: &Path) -> Result<Vec<Dump>, DumpError> {
    let entries = std::fs::read_dir(root).map_err(|source| DumpError::Io { path: root.to_owned(), source })?;
    let mut dirs = Vec::new();
    for e in entries {
        let e = e.map_err(|source| DumpError::Io { path: root.to_owned(), source })?;
        if e.path().join("trace.json").is_file() {
            dirs.push(e.path());
        }
    }
    dirs.sort();
    dirs.iter().map(|d| Dump::open(d)).collect()
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, DumpError> {
    let text = std::fs::read_to_string(path).map_err(|source| DumpError::Io { path: path.to_owned(), source })?;
    serde_json::from_str(&text).map_err(|source| DumpError::Json { path: path.to_owned(), source })
}

fn invalid(path: &Path, problem: impl Into<String>) -> DumpError {
    DumpError::Invalid { path: path.to_owned(), problem: problem.into() }
}

fn parse_signature(path: &Path, s: &str) -> Result<Producer, DumpError> {
    s.parse::<Producer>().map_err(|e| invalid(path, e))
}

fn safetensors_dtype(d: Dtype) -> safetensors::Dtype {
    use safetensors::Dtype as S;
    match d {
        Dtype::F32 => S::F32,
        Dtype::F16 => S::F16,
        Dtype::Bf16 => S::BF16,
        Dtype::F64 => S::F64,
        Dtype::I64 => S::I64,
        Dtype::I32 => S::I32,
        Dtype::I16 => S::I16,
        Dtype::I8 => S::I8,
        Dtype::U8 => S::U8,
        Dtype::Bool => S::BOOL,
    }
}

impl Dump {
    /// Opens `dir`: loads and validates both traces, the metadata and (if present) the sample index,
    /// and checks that they agree. Tensor files are read by [`Dump::read_iteration`].
    pub fn open(dir: impl AsRef<Path>) -> Result<Dump, DumpError> {
        let dir = dir.as_ref().to_owned();
        let trace = Trace::load(dir.join("trace.json"))?;
        let train_trace = Trace::load(dir.join("trace-train.json"))?;
        let meta_path = dir.join("metadata.json");
        let metadata: Metadata = read_json(&meta_path)?;
        if metadata.dump_version != 1 {
            return Err(invalid(&meta_path, format!("dump_version {} (expected 1)", metadata.dump_version)));
        }
        if metadata.model != trace.model || metadata.model != train_trace.model {
            return Err(invalid(&meta_path, format!(
                "model {:?} but traces are of {:?} and {:?}", metadata.model, trace.model, train_trace.model)));
        }
        let saved: Vec<(Producer, Dtype, u64)> = trace
            .tensors
            .iter()
            .filter(|t| t.kind == TensorKind::SavedActivation)
            .map(|t| match t.producer {
                Some(p) => Ok((p, t.dtype, t.bytes)),
                None => Err(invalid(&dir.join("trace.json"), format!("saved tensor {} has no producer", t.id))),
            })
            .collect::<Result<_, _>>()?;
        check_matching(&meta_path, &metadata.matching, &trace, &train_trace)?;

        let sample_path = dir.join("sample.json");
        let sample = if sample_path.exists() {
            let s: SampleIndex = read_json(&sample_path)?;
            if s.model != metadata.model {
                return Err(invalid(&sample_path, format!("model {:?} but metadata.json and the traces are of {:?}", s.model, metadata.model)));
            }
            check_sample(&sample_path, &s, &saved)?;
            Some(s)
        } else {
            None
        };
        let iterations = match &sample {
            Some(s) => s.iterations,
            None => metadata.iterations.len(),
        };
        for k in 0..iterations {
            let p = dir.join(format!("iter{k}.safetensors"));
            if !p.is_file() {
                return Err(invalid(&p, "missing tensor file"));
            }
        }
        Ok(Dump { dir, trace, train_trace, metadata, sample, saved, iterations })
    }

    /// Whether this is a sampled dump (`sample.json` present).
    pub fn is_sample(&self) -> bool {
        self.sample.is_some()
    }

    /// Number of captured iterations (3).
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// Saved activations of `trace.json` as (signature, dtype, bytes), in tensor-id order.
    pub fn saved(&self) -> &[(Producer, Dtype, u64)] {
        &self.saved
    }

    /// Loads every saved activation of iteration `k` from `iter{k}.safetensors`, in the order of
    /// [`Dump::saved`], checking keys, dtypes and lengths against the trace and sample index.
    pub fn read_iteration(&self, k: usize) -> Result<Vec<SavedBlocks>, DumpError> {
        let path = self.dir.join(format!("iter{k}.safetensors"));
        if k >= self.iterations {
            return Err(invalid(&path, format!("iteration {k} out of range (dump has {})", self.iterations)));
        }
        let buffer = std::fs::read(&path).map_err(|source| DumpError::Io { path: path.clone(), source })?;
        let st = SafeTensors::deserialize(&buffer)
            .map_err(|e| DumpError::Safetensors { path: path.clone(), message: e.to_string() })?;
        let expected: BTreeSet<String> = self.saved.iter().map(|(p, _, _)| p.to_string()).collect();
        let found: BTreeSet<String> = st.names().into_iter().cloned().collect();
        if expected != found {
            let missing: Vec<_> = expected.difference(&found).take(5).collect();
            let extra: Vec<_> = found.difference(&expected).take(5).collect();
            return Err(invalid(&path, format!(
                "keys differ from the trace's saved activations: missing {missing:?}, unexpected {extra:?}")));
        }
        let mut out = Vec::with_capacity(self.saved.len());
        for &(sig, dtype, bytes) in &self.saved {
            let key = sig.to_string();
            let view = st.tensor(&key).map_err(|e| DumpError::Safetensors { path: path.clone(), message: e.to_string() })?;
            if view.dtype() != safetensors_dtype(dtype) {
                return Err(invalid(&path, format!("{key}: dtype {:?}, trace says {dtype:?}", view.dtype())));
            }
            let data = view.data();
            let offsets = match &self.sample {
                Some(s) => {
                    let entry = &s.tensors[&key];
                    let want = if bytes < CHUNK_BYTES { bytes } else { entry.offsets.len() as u64 * CHUNK_BYTES };
                    if data.len() as u64 != want {
                        return Err(invalid(&path, format!("{key}: {} bytes, sample index implies {want}", data.len())));
                    }
                    entry.offsets.clone()
                }
                None => {
                    if data.len() as u64 != bytes {
                        return Err(invalid(&path, format!("{key}: {} bytes, trace says {bytes}", data.len())));
                    }
                    (0..bytes.div_ceil(CHUNK_BYTES).max(1)).map(|i| i * CHUNK_BYTES).collect()
                }
            };
            out.push(SavedBlocks { signature: sig, dtype, tensor_bytes: bytes, offsets, data: data.to_vec() });
        }
        Ok(out)
    }
}

fn check_matching(path: &Path, m: &Matching, trace: &Trace, train: &Trace) -> Result<(), DumpError> {
    let saved_sigs = |t: &Trace| -> BTreeSet<String> {
        t.tensors
            .iter()
            .filter(|x| x.kind == TensorKind::SavedActivation)
            .filter_map(|x| x.producer.map(|p| p.to_string()))
            .collect()
    };
    let (cap, tr) = (saved_sigs(trace), saved_sigs(train));
    for (from, to) in &m.map {
        parse_signature(path, from)?;
        parse_signature(path, to)?;
        if !tr.contains(from) {
            return Err(invalid(path, format!("match.map key {from} is not a saved activation of trace-train.json")));
        }
        if !cap.contains(to) {
            return Err(invalid(path, format!("match.map value {to} is not a saved activation of trace.json")));
        }
    }
    if m.map.len() + m.unmatched.len() != tr.len() {
        return Err(invalid(path, format!(
            "match covers {} + {} signatures, trace-train.json saves {}", m.map.len(), m.unmatched.len(), tr.len())));
    }
    if !(0.0..=1.0).contains(&m.unmatched_saved_bytes_share) {
        return Err(invalid(path, "match.unmatched_saved_bytes_share outside [0, 1]"));
    }
    Ok(())
}

fn check_sample(path: &Path, s: &SampleIndex, saved: &[(Producer, Dtype, u64)]) -> Result<(), DumpError> {
    if s.format != "planezip-sample" || s.version != 1 {
        return Err(invalid(path, format!("format {:?} version {} (expected planezip-sample 1)", s.format, s.version)));
    }
    if s.chunk_bytes != CHUNK_BYTES {
        return Err(invalid(path, format!("chunk_bytes {} (expected {CHUNK_BYTES})", s.chunk_bytes)));
    }
    if s.tensors.len() != saved.len() {
        return Err(invalid(path, format!("{} tensors, trace.json saves {}", s.tensors.len(), saved.len())));
    }
    for &(sig, dtype, bytes) in saved {
        let key = sig.to_string();
        let e = s.tensors.get(&key).ok_or_else(|| invalid(path, format!("no entry for saved tensor {key}")))?;
        if e.dtype != dtype || e.bytes != bytes {
            return Err(invalid(path, format!("{key}: {:?} {} bytes, trace says {dtype:?} {bytes}", e.dtype, e.bytes)));
        }
        let shape_bytes = e.shape.iter().try_fold(dtype.size_bytes(), |n, &d| n.checked_mul(d));
        if shape_bytes != Some(bytes) {
            return Err(invalid(path, format!("{key}: shape {:?} of {dtype:?} does not hold its {bytes} bytes", e.shape)));
        }
        if e.offsets.is_empty() {
            return Err(invalid(path, format!("{key}: no offsets")));
        }
        for w in e.offsets.windows(2) {
            if w[1] <= w[0] {
                return Err(invalid(path, format!("{key}: offsets not increasing")));
            }
        }
        for &o in &e.offsets {
            let fits = if bytes < CHUNK_BYTES { o == 0 } else { o % CHUNK_BYTES == 0 && o.checked_add(CHUNK_BYTES).is_some_and(|end| end <= bytes) };
            if !fits {
                return Err(invalid(path, format!("{key}: offset {o} is not a whole 4096-byte chunk of {bytes} bytes")));
            }
        }
    }
    Ok(())
}
