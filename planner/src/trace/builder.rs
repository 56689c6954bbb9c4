//! Building traces in code, for tests, benches and the synthetic generator.

use super::{Dtype, Op, OpId, Phase, Producer, Tensor, TensorId, TensorKind, Trace, TraceError};
use super::{TRACE_FORMAT, TRACE_VERSION};

/// Builds a valid [`Trace`] op by op; derived fields (`bytes_read`,
/// `bytes_written`, `producer_op_type`, `last_forward_use`,
/// `first_backward_use`) are filled in by [`TraceBuilder::build`], and a
/// produced `activation` read in the backward pass becomes a
/// `saved_activation`.
///
/// ```
/// use planner::trace::{Phase, TensorKind, TraceBuilder};
/// let mut b = TraceBuilder::new("toy");
/// let x = b.tensor(1024, TensorKind::Input);
/// let y = b.op("relu", Phase::Forward).reads(&[x]).output(1024).finish()[0];
/// b.op("relu_backward", Phase::Backward).reads(&[y]).output(1024).finish();
/// let trace = b.build().unwrap();
/// assert_eq!(trace.ops.len(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct TraceBuilder {
    model: String,
    ops: Vec<Op>,
    tensors: Vec<Tensor>,
}

/// One op being added by [`TraceBuilder::op`]; finish it with [`OpBuilder::finish`].
#[derive(Debug)]
pub struct OpBuilder<'a> {
    builder: &'a mut TraceBuilder,
    op_type: String,
    phase: Phase,
    flops: u64,
    rng: bool,
    inputs: Vec<TensorId>,
    outputs: Vec<(u64, Dtype, TensorKind)>,
}

impl TraceBuilder {
    /// An empty trace for `model` (batch 1, `f32`, device `meta`).
    pub fn new(model: &str) -> Self {
        TraceBuilder { model: model.to_owned(), ops: Vec::new(), tensors: Vec::new() }
    }

    /// Adds a tensor that exists before the first op (data batch, parameter,
    /// optimizer state): no producer, `f32`.
    pub fn tensor(&mut self, bytes: u64, kind: TensorKind) -> TensorId {
        self.push_tensor(bytes, Dtype::F32, kind, None)
    }

    /// Starts an op of type `op_type` in `phase` (appended after all earlier ops).
    pub fn op(&mut self, op_type: &str, phase: Phase) -> OpBuilder<'_> {
        OpBuilder {
            builder: self,
            op_type: op_type.to_owned(),
            phase,
            flops: 0,
            rng: false,
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// Number of ops added so far (the id the next op gets).
    pub fn op_count(&self) -> usize {
        self.ops.len()
    }

    /// Derives the computed fields and validates the result.
    pub fn build(mut self) -> Result<Trace, TraceError> {
        let index: std::collections::HashMap<TensorId, usize> =
            self.tensors.iter().enumerate().map(|(i, t)| (t.id, i)).collect();
        for op in &mut self.ops {
            op.bytes_read = op.inputs.iter().map(|t| self.tensors[index[t]].bytes).sum();
            op.bytes_written = op.outputs.iter().map(|t| self.tensors[index[t]].bytes).sum();
            for &tid in &op.inputs {
                let t = &mut self.tensors[index[&tid]];
                match op.phase {
                    Phase::Forward => t.last_forward_use = Some(op.id),
                    Phase::Backward if t.first_backward_use.is_none() => t.first_backward_use = Some(op.id),
                    _ => {}
                }
            }
        }
        for t in &mut self.tensors {
            if let Some(p) = t.producer {
                t.producer_op_type = Some(self.ops[p.op].op_type.clone());
                let fwd = self.ops[p.op].phase == Phase::Forward;
                if t.kind == TensorKind::Activation && fwd && t.first_backward_use.is_some() {
                    t.kind = TensorKind::SavedActivation;
                }
            }
        }
        let trace = Trace {
            format: TRACE_FORMAT.to_owned(),
            version: TRACE_VERSION,
            model: self.model,
            batch: 1,
            seq_len: None,
            device: "meta".to_owned(),
            dtype: Dtype::F32,
            ops: self.ops,
            tensors: self.tensors,
        };
        trace
            .validate()
            .map_err(|problem| TraceError::Invalid { path: "<builder>".into(), problem })?;
        Ok(trace)
    }

    fn push_tensor(&mut self, bytes: u64, dtype: Dtype, kind: TensorKind, producer: Option<Producer>) -> TensorId {
        let id = self.tensors.len() as TensorId;
        let elems = bytes / dtype.size_bytes();
        self.tensors.push(Tensor {
            id,
            bytes,
            dtype,
            shape: vec![elems],
            kind,
            producer,
            producer_op_type: None,
            last_forward_use: None,
            first_backward_use: None,
        });
        id
    }
}

impl OpBuilder<'_> {
    /// Floating-point operations of the op.
    pub fn flops(mut self, flops: u64) -> Self {
        self.flops = flops;
        self
    }

    /// Marks the op as drawing random numbers (so it is not replayable).
    pub fn rng(mut self) -> Self {
        self.rng = true;
        self
    }

    /// Tensors read, in argument order.
    pub fn reads(mut self, inputs: &[TensorId]) -> Self {
        self.inputs.extend_from_slice(inputs);
        self
    }

    /// A new `f32` activation output of `bytes` bytes (a `saved_activation`
    /// if a backward op later reads it).
    pub fn output(self, bytes: u64) -> Self {
        self.output_as(bytes, Dtype::F32, TensorKind::Activation)
    }

    /// A new output with explicit dtype and kind.
    pub fn output_as(mut self, bytes: u64, dtype: Dtype, kind: TensorKind) -> Self {
        self.outputs.push((bytes, dtype, kind));
        self
    }

    /// Appends the op; returns the ids of its outputs, by slot.
    pub fn finish(self) -> Vec<TensorId> {
        let id: OpId = self.builder.ops.len();
        let outputs: Vec<TensorId> = self
            .outputs
            .iter()
            .enumerate()
            .map(|(slot, &(bytes, dtype, kind))| {
                self.builder.push_tensor(bytes, dtype, kind, Some(Producer { op: id, slot }))
            })
            .collect();
        self.builder.ops.push(Op {
            id,
            name: format!("aten::{}.default", self.op_type),
            op_type: self.op_type,
            phase: self.phase,
            flops: self.flops,
            bytes_read: 0,
            bytes_written: 0,
            inputs: self.inputs,
            outputs: outputs.clone(),
            rng: self.rng,
            replayable: !self.rng,
        });
        outputs
    }
}
