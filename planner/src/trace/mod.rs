//! The operator trace of one training iteration: the schema of `trace.json`
//! (`docs/DUMP-FORMAT.md` §1), its loader and its validator.
//!
//! The serde types below *are* the schema; the document mirrors them field by
//! field. Unknown fields are ignored (a newer writer may add some), missing
//! required fields are an error. [`Trace::load`] parses and then
//! [validates](Trace::validate) the trace, returning a [`TraceError`] that
//! names the file and the problem; it never panics on malformed input.

mod builder;

pub use builder::TraceBuilder;

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Value of the `format` field of every trace.
pub const TRACE_FORMAT: &str = "planezip-trace";
/// The schema version this crate reads and writes.
pub const TRACE_VERSION: u32 = 1;

/// Index of an op in [`Trace::ops`] (== its `id`).
pub type OpId = usize;
/// Identifier of a tensor, unique within a trace (not necessarily dense).
pub type TensorId = u64;

/// One training iteration: every operator in execution order and every tensor
/// those operators touch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Fixed string [`TRACE_FORMAT`].
    pub format: String,
    /// Schema version, [`TRACE_VERSION`].
    pub version: u32,
    /// Model name, e.g. `resnet50`.
    pub model: String,
    /// Samples per iteration (images or sequences).
    pub batch: u64,
    /// Tokens per sequence for language models, `null` otherwise.
    #[serde(default)]
    pub seq_len: Option<u64>,
    /// `"meta"` (shapes only, training batch) or `"cpu"` (capture batch, real data).
    pub device: String,
    /// Dtype the model ran in (e.g. `f32`).
    pub dtype: Dtype,
    /// Every op of one iteration in execution order; `ops[i].id == i`.
    pub ops: Vec<Op>,
    /// Every tensor read or written by an op (order is free).
    pub tensors: Vec<Tensor>,
}

/// Training phase of an op. Phases are contiguous, in declaration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Forward pass.
    Forward,
    /// Backward pass.
    Backward,
    /// Optimizer step (modelled as a memory-bound pass).
    Optimizer,
}

/// One operator invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Op {
    /// Position in the sequence, 0-based, equal to the index in [`Trace::ops`].
    pub id: OpId,
    /// Full ATen overload name, e.g. `aten::convolution.default`.
    pub name: String,
    /// Short operator type, e.g. `convolution` (key of the op-type predictor).
    pub op_type: String,
    /// Training phase.
    pub phase: Phase,
    /// Floating-point operations (a multiply-add counts 2); 0 where unknown.
    pub flops: u64,
    /// Bytes of all tensor inputs, as captured (FP32 storage).
    pub bytes_read: u64,
    /// Bytes of all tensor outputs, as captured (FP32 storage).
    pub bytes_written: u64,
    /// Tensor ids read, in argument order.
    pub inputs: Vec<TensorId>,
    /// Tensor ids written; the slot of an output is its index here.
    pub outputs: Vec<TensorId>,
    /// The op draws random numbers (dropout, ...).
    pub rng: bool,
    /// The op can be re-executed bit-exactly for recomputation (false for RNG ops).
    pub replayable: bool,
}

/// Element type of a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // the variants are the dtype names themselves
pub enum Dtype {
    F32,
    F16,
    Bf16,
    F64,
    I64,
    I32,
    I16,
    I8,
    U8,
    Bool,
}

impl Dtype {
    /// Bytes per element.
    pub fn size_bytes(self) -> u64 {
        match self {
            Dtype::F64 | Dtype::I64 => 8,
            Dtype::F32 | Dtype::I32 => 4,
            Dtype::F16 | Dtype::Bf16 | Dtype::I16 => 2,
            Dtype::I8 | Dtype::U8 | Dtype::Bool => 1,
        }
    }

    /// True for floating-point dtypes (the ones BF16 mixed precision narrows).
    pub fn is_float(self) -> bool {
        matches!(self, Dtype::F32 | Dtype::F16 | Dtype::Bf16 | Dtype::F64)
    }
}

/// What a tensor is, which decides whether it counts against the activation budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TensorKind {
    /// Produced in the forward pass and read in the backward pass.
    SavedActivation,
    /// Any other non-parameter tensor (temporaries, activation gradients).
    Activation,
    /// The data batch and labels.
    Input,
    /// Model weights and views of them.
    Parameter,
    /// Gradients of parameters.
    ParameterGradient,
    /// Momentum buffers, Adam moments, step counters.
    OptimizerState,
}

impl TensorKind {
    /// True when tensors of this kind count against the activation budget.
    pub fn counts_against_budget(self) -> bool {
        matches!(self, TensorKind::SavedActivation | TensorKind::Activation | TensorKind::Input)
    }
}

/// The op and output slot that produced a tensor: its signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Producer {
    /// Position of the producing op.
    pub op: OpId,
    /// Index of the tensor in that op's `outputs`.
    pub slot: usize,
}

impl fmt::Display for Producer {
    /// Writes the signature string `op{op}:{slot}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "op{}:{}", self.op, self.slot)
    }
}

impl std::str::FromStr for Producer {
    type Err = String;
    /// Parses a signature string `op{op}:{slot}`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("signature {s:?} is not of the form op<op>:<slot>");
        let rest = s.strip_prefix("op").ok_or_else(bad)?;
        let (op, slot) = rest.split_once(':').ok_or_else(bad)?;
        Ok(Producer { op: op.parse().map_err(|_| bad())?, slot: slot.parse().map_err(|_| bad())? })
    }
}

/// One tensor storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tensor {
    /// Unique id within the trace.
    pub id: TensorId,
    /// Storage size in bytes, as captured.
    pub bytes: u64,
    /// Element type.
    pub dtype: Dtype,
    /// Shape (informational).
    pub shape: Vec<u64>,
    /// Kind (decides budget accounting and planning eligibility).
    pub kind: TensorKind,
    /// Producing op and slot; `null` for inputs, parameters and optimizer state.
    pub producer: Option<Producer>,
    /// `op_type` of the producer; `null` when `producer` is `null`.
    pub producer_op_type: Option<String>,
    /// Last forward op reading the tensor, `null` if none.
    pub last_forward_use: Option<OpId>,
    /// First backward op reading the tensor, `null` if none.
    pub first_backward_use: Option<OpId>,
}

/// Why a trace could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The file could not be read.
    #[error("{path}: cannot read trace: {source}")]
    Io {
        /// The trace file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not JSON of the trace schema (syntax, missing field, wrong type).
    #[error("{path}: malformed trace JSON: {source}")]
    Json {
        /// The trace file.
        path: PathBuf,
        /// The parser's error (with line and column).
        source: serde_json::Error,
    },
    /// The JSON parsed but breaks a rule of the schema.
    #[error("{path}: invalid trace: {problem}")]
    Invalid {
        /// The trace file (`<memory>` for traces built in code).
        path: PathBuf,
        /// The broken rule.
        problem: TraceProblem,
    },
}

/// A broken schema rule (see `docs/DUMP-FORMAT.md` §1, "Validation").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TraceProblem {
    /// `format` is not [`TRACE_FORMAT`].
    #[error("format is {0:?}, expected \"planezip-trace\"")]
    Format(String),
    /// `version` is not [`TRACE_VERSION`].
    #[error("version {0} is not supported (expected 1)")]
    Version(u32),
    /// `ops[index].id != index`.
    #[error("ops[{index}] has id {id}; op ids must equal their positions")]
    OpIdNotPosition {
        /// Position in `ops`.
        index: usize,
        /// The id found there.
        id: OpId,
    },
    /// A phase appears after a later phase.
    #[error("op {op} is in phase {phase:?} after phase {previous:?}; phases must be contiguous forward -> backward -> optimizer")]
    PhaseOrder {
        /// The offending op.
        op: OpId,
        /// Its phase.
        phase: Phase,
        /// The phase of the op before it.
        previous: Phase,
    },
    /// Two tensors share an id.
    #[error("tensor id {0} appears twice")]
    DuplicateTensor(TensorId),
    /// An op reads or writes a tensor id that is not in `tensors`.
    #[error("op {op} references tensor {tensor}, which is not in tensors")]
    UnknownTensor {
        /// The op.
        op: OpId,
        /// The missing tensor id.
        tensor: TensorId,
    },
    /// A producer does not exist or does not write the tensor at that slot.
    #[error("tensor {tensor}: producer op{op}:{slot} does not write it")]
    BadProducer {
        /// The tensor.
        tensor: TensorId,
        /// Claimed producer op.
        op: OpId,
        /// Claimed slot.
        slot: usize,
    },
    /// `producer_op_type` disagrees with the producer.
    #[error("tensor {tensor}: producer_op_type {found:?}, expected {expected:?}")]
    ProducerOpType {
        /// The tensor.
        tensor: TensorId,
        /// Value in the file.
        found: Option<String>,
        /// Value implied by `producer`.
        expected: Option<String>,
    },
    /// `last_forward_use` / `first_backward_use` disagrees with the op lists.
    #[error("tensor {tensor}: {field} is {found:?}, but the ops say {expected:?}")]
    UseMismatch {
        /// The tensor.
        tensor: TensorId,
        /// `last_forward_use` or `first_backward_use`.
        field: &'static str,
        /// Value in the file.
        found: Option<OpId>,
        /// Value derived from the ops' `inputs`.
        expected: Option<OpId>,
    },
    /// An op with `rng: true` claims to be replayable.
    #[error("op {0} draws random numbers but is marked replayable")]
    ReplayableRng(OpId),
    /// The byte or FLOP counts of the trace do not fit in 64 bits when summed, so a planner's
    /// totals would overflow.
    #[error("the {field} of all {what} sum to more than 2^64")]
    SizeOverflow {
        /// `"bytes"`, `"bytes_read + bytes_written"` or `"flops"`.
        field: &'static str,
        /// `"tensors"` or `"ops"`.
        what: &'static str,
    },
    /// An op reads the same tensor it writes before that tensor exists (no producer, not pre-existing).
    #[error("op {op} reads tensor {tensor} before any op writes it, and the tensor has a producer")]
    ReadBeforeWrite {
        /// The reading op.
        op: OpId,
        /// The tensor.
        tensor: TensorId,
    },
}

/// Largest trace text accepted, in bytes after decompression (the largest captured trace, GPT-2's
/// training trace, is 1.2 MB): a gzip file that inflates beyond it is refused, not buffered.
pub const MAX_TRACE_TEXT_BYTES: u64 = 1 << 30;

/// The text of a trace file: read as is, or inflated with gzip when the name ends in `.gz`.
/// Errors name the file; a file that is not valid UTF-8 or inflates beyond
/// [`MAX_TRACE_TEXT_BYTES`] is an [`TraceError::Io`] error of kind `InvalidData`.
pub fn read_trace_text(path: &Path) -> Result<String, TraceError> {
    use std::io::Read;
    let io_err = |source| TraceError::Io { path: path.to_owned(), source };
    let file = std::fs::File::open(path).map_err(io_err)?;
    let gzipped = path.extension().is_some_and(|e| e == "gz");
    let reader: Box<dyn Read> =
        if gzipped { Box::new(flate2::read::GzDecoder::new(file)) } else { Box::new(file) };
    let mut bytes = Vec::new();
    reader.take(MAX_TRACE_TEXT_BYTES + 1).read_to_end(&mut bytes).map_err(io_err)?;
    if bytes.len() as u64 > MAX_TRACE_TEXT_BYTES {
        return Err(io_err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("trace text exceeds {MAX_TRACE_TEXT_BYTES} bytes"),
        )));
    }
    String::from_utf8(bytes).map_err(|e| io_err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

impl Trace {
    /// Reads, parses and validates a `trace.json` file, or a gzip-compressed one (`.gz`, as
    /// `data/` stores them; see [`read_trace_text`]).
    pub fn load(path: impl AsRef<Path>) -> Result<Trace, TraceError> {
        let path = path.as_ref();
        let text = read_trace_text(path)?;
        Trace::from_json_str(&text, path)
    }

    /// Parses and validates trace JSON; `path` only labels errors.
    pub fn from_json_str(text: &str, path: impl AsRef<Path>) -> Result<Trace, TraceError> {
        let path = path.as_ref();
        let trace: Trace = serde_json::from_str(text)
            .map_err(|source| TraceError::Json { path: path.to_owned(), source })?;
        trace
            .validate()
            .map_err(|problem| TraceError::Invalid { path: path.to_owned(), problem })?;
        Ok(trace)
    }

    /// Serialises the trace as pretty JSON (the format [`Trace::load`] reads).
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(self).expect("a Trace always serialises")
    }

    /// Checks every rule of the schema: format and version, op ids equal
    /// positions, contiguous phases, unique tensor ids, every referenced tensor
    /// exists, producers write their tensor at the given slot (with matching
    /// `producer_op_type`), `last_forward_use`/`first_backward_use` agree with
    /// the op lists, RNG ops are not replayable, and no op reads a produced
    /// tensor before its producer ran.
    pub fn validate(&self) -> Result<(), TraceProblem> {
        if self.format != TRACE_FORMAT {
            return Err(TraceProblem::Format(self.format.clone()));
        }
        if self.version != TRACE_VERSION {
            return Err(TraceProblem::Version(self.version));
        }
        let mut previous = Phase::Forward;
        for (index, op) in self.ops.iter().enumerate() {
            if op.id != index {
                return Err(TraceProblem::OpIdNotPosition { index, id: op.id });
            }
            if op.phase < previous {
                return Err(TraceProblem::PhaseOrder { op: op.id, phase: op.phase, previous });
            }
            previous = op.phase;
            if op.rng && op.replayable {
                return Err(TraceProblem::ReplayableRng(op.id));
            }
        }
        // Every sum a planner takes over the trace fits in u64 if these totals do.
        let overflow = |field, what| TraceProblem::SizeOverflow { field, what };
        self.tensors.iter().try_fold(0u64, |s, t| s.checked_add(t.bytes)).ok_or(overflow("bytes", "tensors"))?;
        self.ops
            .iter()
            .try_fold(0u64, |s, o| s.checked_add(o.bytes_read)?.checked_add(o.bytes_written))
            .ok_or(overflow("bytes_read + bytes_written", "ops"))?;
        self.ops.iter().try_fold(0u64, |s, o| s.checked_add(o.flops)).ok_or(overflow("flops", "ops"))?;
        let mut by_id: HashMap<TensorId, usize> = HashMap::with_capacity(self.tensors.len());
        for (i, t) in self.tensors.iter().enumerate() {
            if by_id.insert(t.id, i).is_some() {
                return Err(TraceProblem::DuplicateTensor(t.id));
            }
        }
        let mut last_fwd: Vec<Option<OpId>> = vec![None; self.tensors.len()];
        let mut first_bwd: Vec<Option<OpId>> = vec![None; self.tensors.len()];
        for op in &self.ops {
            for &tid in op.inputs.iter().chain(&op.outputs) {
                if !by_id.contains_key(&tid) {
                    return Err(TraceProblem::UnknownTensor { op: op.id, tensor: tid });
                }
            }
            for &tid in &op.inputs {
                let i = by_id[&tid];
                if let Some(p) = self.tensors[i].producer {
                    // An op may read what it writes in place (its producer slot); a lookup by
                    // slot, not a scan of the outputs, keeps this linear in the trace's size.
                    let in_place = p.op == op.id && op.outputs.get(p.slot) == Some(&tid);
                    if p.op >= op.id && !in_place {
                        return Err(TraceProblem::ReadBeforeWrite { op: op.id, tensor: tid });
                    }
                }
                match op.phase {
                    Phase::Forward => last_fwd[i] = Some(op.id),
                    Phase::Backward if first_bwd[i].is_none() => first_bwd[i] = Some(op.id),
                    _ => {}
                }
            }
        }
        for (i, t) in self.tensors.iter().enumerate() {
            let expected_type = match t.producer {
                Some(p) => {
                    let ok = self.ops.get(p.op).is_some_and(|op| op.outputs.get(p.slot) == Some(&t.id));
                    if !ok {
                        return Err(TraceProblem::BadProducer { tensor: t.id, op: p.op, slot: p.slot });
                    }
                    Some(self.ops[p.op].op_type.clone())
                }
                None => None,
            };
            if t.producer_op_type != expected_type {
                return Err(TraceProblem::ProducerOpType {
                    tensor: t.id,
                    found: t.producer_op_type.clone(),
                    expected: expected_type,
                });
            }
            if t.last_forward_use != last_fwd[i] {
                return Err(TraceProblem::UseMismatch {
                    tensor: t.id,
                    field: "last_forward_use",
                    found: t.last_forward_use,
                    expected: last_fwd[i],
                });
            }
            if t.first_backward_use != first_bwd[i] {
                return Err(TraceProblem::UseMismatch {
                    tensor: t.id,
                    field: "first_backward_use",
                    found: t.first_backward_use,
                    expected: first_bwd[i],
                });
            }
        }
        Ok(())
    }

    /// Index into [`Trace::tensors`] of every tensor id.
    pub fn tensor_index(&self) -> HashMap<TensorId, usize> {
        self.tensors.iter().enumerate().map(|(i, t)| (t.id, i)).collect()
    }
}
