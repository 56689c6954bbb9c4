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

/// The capture-batch trace of a dump directory (§2). `data/` stores it gzipped, as
/// `trace.json.gz`; [`trace_path`] finds either.
pub const TRACE_FILE: &str = "trace.json";

/// The training-batch trace of a dump directory (§2), plain or gzipped like [`TRACE_FILE`].
pub const TRAIN_TRACE_FILE: &str = "trace-train.json";

/// Suffix of a gzip-compressed trace (`trace.json.gz`).
const GZIP_SUFFIX: &str = ".gz";

/// Versions of `sample.json` this reader accepts (§3): 1 kept whole chunks only; 2 also keeps a
/// tensor's final partial chunk, so that a small tensor is kept whole.
pub const SAMPLE_VERSIONS: [u32; 2] = [1, 2];

/// Tensors above this size are measured on every [`FULL_DUMP_STRIDE_CHUNKS`]-th chunk when a
/// full dump is the reference (the paper, §IV: "Tensors above 32 MB are compressed on every
/// fourth 4 KB chunk").
pub const FULL_DUMP_STRIDE_ABOVE_BYTES: u64 = 32 << 20;

/// The chunk stride of the paper's rule for tensors above [`FULL_DUMP_STRIDE_ABOVE_BYTES`].
pub const FULL_DUMP_STRIDE_CHUNKS: usize = 4;

/// The file of trace `name` (`TRACE_FILE` or `TRAIN_TRACE_FILE`) in `dir`: the plain JSON when it
/// exists, else its gzipped form `name.gz` (which may not exist either; the reader then names it).
pub fn trace_path(dir: &Path, name: &str) -> PathBuf {
    let plain = dir.join(name);
    if plain.is_file() { plain } else { dir.join(format!("{name}{GZIP_SUFFIX}")) }
}

/// Offsets of the chunks of a full dump's tensor of `bytes` bytes that [`Dump::read_iteration`]
/// yields: every chunk (`[0]` for an empty tensor), or under the paper's rule (`paper_rule`) every
/// [`FULL_DUMP_STRIDE_CHUNKS`]-th one of a tensor above [`FULL_DUMP_STRIDE_ABOVE_BYTES`].
fn full_dump_offsets(bytes: u64, paper_rule: bool) -> Vec<u64> {
    let stride = if paper_rule && bytes > FULL_DUMP_STRIDE_ABOVE_BYTES { FULL_DUMP_STRIDE_CHUNKS } else { 1 };
    (0..bytes.div_ceil(CHUNK_BYTES).max(1)).step_by(stride).map(|i| i * CHUNK_BYTES).collect()
}

/// Whether `dir` is a model dump directory: it holds a capture trace, plain or gzipped.
pub fn is_model_dir(dir: &Path) -> bool {
    trace_path(dir, TRACE_FILE).is_file()
}

/// Length in bytes of the chunk at byte `offset` of a tensor of `tensor_bytes` bytes: a whole
/// chunk, or the tensor's shorter final chunk. `offset` must lie inside the tensor.
pub fn chunk_len(tensor_bytes: u64, offset: u64) -> u64 {
    CHUNK_BYTES.min(tensor_bytes - offset)
}

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
    /// Version (one of [`SAMPLE_VERSIONS`]).
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
    /// Byte offsets into the tensor of the chunks in `data`, increasing, each chunk
    /// [`chunk_len`] long: `CHUNK_BYTES` except the tensor's shorter final chunk, when kept.
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
    paper_chunk_rule: bool,
}

/// Default location of full dumps: `$PLANEZIP_CACHE/dumps`, else `~/.cache/planezip/dumps`.
pub fn cache_root() -> Option<PathBuf> {
    if let Some(c) = std::env::var_os("PLANEZIP_CACHE") {
        return Some(PathBuf::from(c).join("dumps"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/planezip/dumps"))
}

/// Opens every model directory (one holding `trace.json` or `trace.json.gz`) under `root`, sorted by name.
pub fn open_all(root: &Path) -> Result<Vec<Dump>, DumpError> {
    let entries = std::fs::read_dir(root).map_err(|source| DumpError::Io { path: root.to_owned(), source })?;
    let mut dirs = Vec::new();
    for e in entries {
        let e = e.map_err(|source| DumpError::Io { path: root.to_owned(), source })?;
        if is_model_dir(&e.path()) {
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
        let trace_file = trace_path(&dir, TRACE_FILE);
        let trace = Trace::load(&trace_file)?;
        let train_trace = Trace::load(trace_path(&dir, TRAIN_TRACE_FILE))?;
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
                None => Err(invalid(&trace_file, format!("saved tensor {} has no producer", t.id))),
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
        Ok(Dump { dir, trace, train_trace, metadata, sample, saved, iterations, paper_chunk_rule: false })
    }

    /// The same dump, read by the paper's rule (§IV): a full dump's tensors above
    /// [`FULL_DUMP_STRIDE_ABOVE_BYTES`] yield only every [`FULL_DUMP_STRIDE_CHUNKS`]-th chunk
    /// (offsets 0, 4, 8, … chunks) from [`Dump::read_iteration`]. A sample is read as stored.
    pub fn with_paper_chunk_rule(mut self) -> Dump {
        self.paper_chunk_rule = true;
        self
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
            let (offsets, kept) = match &self.sample {
                Some(s) => {
                    let entry = &s.tensors[&key];
                    let want: u64 = entry.offsets.iter().map(|&o| chunk_len(bytes, o)).sum();
                    if data.len() as u64 != want {
                        return Err(invalid(&path, format!("{key}: {} bytes, sample index implies {want}", data.len())));
                    }
                    (entry.offsets.clone(), data.to_vec())
                }
                None => {
                    if data.len() as u64 != bytes {
                        return Err(invalid(&path, format!("{key}: {} bytes, trace says {bytes}", data.len())));
                    }
                    let offsets = full_dump_offsets(bytes, self.paper_chunk_rule);
                    let mut kept = Vec::with_capacity(offsets.iter().map(|&o| chunk_len(bytes, o) as usize).sum());
                    for &o in &offsets {
                        kept.extend_from_slice(&data[o as usize..(o + chunk_len(bytes, o)) as usize]);
                    }
                    (offsets, kept)
                }
            };
            out.push(SavedBlocks { signature: sig, dtype, tensor_bytes: bytes, offsets, data: kept });
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
    if s.format != "planezip-sample" || !SAMPLE_VERSIONS.contains(&s.version) {
        return Err(invalid(path, format!(
            "format {:?} version {} (expected planezip-sample, version {SAMPLE_VERSIONS:?})", s.format, s.version)));
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
            // Version 1 keeps whole chunks only (a tensor under one chunk at offset 0); version 2
            // also the final partial chunk. Either way a chunk starts on a chunk boundary inside the tensor.
            let whole = o.checked_add(CHUNK_BYTES).is_some_and(|end| end <= bytes);
            let fits = o % CHUNK_BYTES == 0
                && o < bytes.max(1)
                && (whole || s.version >= 2 || bytes < CHUNK_BYTES);
            if !fits {
                return Err(invalid(path, format!(
                    "{key}: offset {o} is not the start of a 4096-byte chunk of {bytes} bytes (sample version {})", s.version)));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(version: u32, bytes: u64, offsets: Vec<u64>) -> (SampleIndex, Vec<(Producer, Dtype, u64)>) {
        let sig: Producer = "op3:0".parse().unwrap();
        let tensor = SampledTensor { dtype: Dtype::U8, shape: vec![bytes], bytes, offsets };
        let s = SampleIndex {
            format: "planezip-sample".into(),
            version,
            model: "m".into(),
            chunk_bytes: CHUNK_BYTES,
            iterations: 3,
            tensors: [(sig.to_string(), tensor)].into_iter().collect(),
        };
        (s, vec![(sig, Dtype::U8, bytes)])
    }

    fn accepted(version: u32, bytes: u64, offsets: &[u64]) -> bool {
        let (s, saved) = index(version, bytes, offsets.to_vec());
        check_sample(Path::new("sample.json"), &s, &saved).is_ok()
    }

    #[test]
    fn sample_versions_differ_only_in_the_final_partial_chunk() {
        let bytes = 3 * CHUNK_BYTES + 100; // chunks at 0, 4096, 8192 and a 100-byte one at 12288
        for v in SAMPLE_VERSIONS {
            assert!(accepted(v, bytes, &[0, 2 * CHUNK_BYTES]), "v{v}: whole chunks");
            assert!(accepted(v, 100, &[0]), "v{v}: a tensor under one chunk, whole");
            assert!(!accepted(v, bytes, &[7]), "v{v}: unaligned");
            assert!(!accepted(v, bytes, &[4 * CHUNK_BYTES]), "v{v}: past the end");
            assert!(!accepted(v, bytes, &[CHUNK_BYTES, 0]), "v{v}: not increasing");
        }
        assert!(!accepted(1, bytes, &[0, 3 * CHUNK_BYTES]), "v1 keeps whole chunks only");
        assert!(accepted(2, bytes, &[0, 3 * CHUNK_BYTES]), "v2 keeps the final partial chunk");
        assert!(!accepted(3, bytes, &[0]), "unknown version");
        assert_eq!(chunk_len(bytes, 3 * CHUNK_BYTES), 100);
        assert_eq!(chunk_len(bytes, 0), CHUNK_BYTES);
    }

    #[test]
    fn the_paper_rule_keeps_every_fourth_chunk_above_32_mib() {
        let at = FULL_DUMP_STRIDE_ABOVE_BYTES; // 32 MiB = 8,192 chunks: below the rule
        assert_eq!(full_dump_offsets(at, true).len(), 8192);
        // One byte more: 8,193 chunks, of which 0, 4, ..., 8,192 (2,049) are kept, the last one a
        // single byte long.
        let o = full_dump_offsets(at + 1, true);
        assert_eq!((o.len(), o[1], *o.last().unwrap()), (2049, 4 * CHUNK_BYTES, at));
        assert_eq!(chunk_len(at + 1, at), 1);
        assert_eq!(full_dump_offsets(at + 1, false).len(), 8193);
        assert_eq!(full_dump_offsets(0, true), vec![0]);
    }

    #[test]
    fn gzipped_traces_are_found_when_the_plain_file_is_absent() {
        let dir = std::env::temp_dir().join(format!("planezip-trace-path-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(!is_model_dir(&dir));
        assert_eq!(trace_path(&dir, TRACE_FILE), dir.join("trace.json.gz"));
        std::fs::write(dir.join("trace.json.gz"), b"").unwrap();
        assert!(is_model_dir(&dir));
        std::fs::write(dir.join("trace.json"), b"").unwrap();
        assert_eq!(trace_path(&dir, TRACE_FILE), dir.join("trace.json"), "the plain file wins");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
