//! The simulator under an engine fault (issue 14, item 7): a backend that errors on one transfer,
//! and one whose hardware chunks do not decode back to the input. Both run through the stream
//! checker's backend seam [`sim_harness::stream::run_on`]; the run ends (no hang) with an error
//! naming the tensor and the transfer. The program turns any such error into exit 1 (`main.rs`).

use anyhow::{Result, bail};
use engine::golden::{CHUNK_BYTES, SymbolWidth, encode_stream};
use sim_harness::clock::EngineClock;
use sim_harness::engine_backend::model::ModelBackend;
use sim_harness::engine_backend::{EngineBackend, Fidelity, TransferOut};
use sim_harness::inputs::{NamedTensor, StreamTensor};
use sim_harness::stream::{check, run_on};
use std::sync::mpsc;
use std::time::Duration;

/// How long a faulty run may take before the test calls it a hang (it takes milliseconds).
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// Transfer that goes wrong.
const BAD_TRANSFER: usize = 5;

/// Eight tensors of 3 chunks each, ReLU-activation-like f32 (a third zeros), named `t0` … `t7`.
fn tensors() -> Vec<NamedTensor> {
    (0..8)
        .map(|i| NamedTensor {
            model: "synthetic".into(),
            name: format!("t{i}"),
            dtype: "F32".into(),
            bytes: (0..3 * CHUNK_BYTES / 4)
                .flat_map(|k| if k % 3 == 0 { 0.0f32 } else { ((k + 97 * i) as f32 * 0.37).sin().abs() }.to_le_bytes())
                .collect(),
            width: SymbolWidth::W32,
        })
        .collect()
}

/// The size model, failing on transfer [`BAD_TRANSFER`] as a lane reporting an error would.
struct FailingBackend {
    transfer: usize,
}

impl EngineBackend for FailingBackend {
    fn describe(&self) -> String {
        "model, failing on one transfer".into()
    }
    fn begin_transfer(&mut self, index: usize) {
        self.transfer = index;
    }
    fn round_trip(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        if self.transfer == BAD_TRANSFER {
            bail!("lane 1 raised err_valid (class 3) on chunk 2");
        }
        ModelBackend.round_trip(data, width)
    }
}

/// The size model with every chunk "from the hardware" (the golden encoding), except that on
/// transfer [`BAD_TRANSFER`] one payload bit of chunk 1 is flipped.
struct CorruptingBackend {
    transfer: usize,
}

impl EngineBackend for CorruptingBackend {
    fn describe(&self) -> String {
        "golden chunks, one corrupted".into()
    }
    fn begin_transfer(&mut self, index: usize) {
        self.transfer = index;
    }
    fn round_trip(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        let mut out = ModelBackend.round_trip(data, width)?;
        for (c, chunk) in out.chunks.iter_mut().enumerate() {
            let mut bits = encode_stream(&data[c * CHUNK_BYTES..][..chunk.raw_bytes], width);
            if self.transfer == BAD_TRANSFER && c == 1 {
                let last = bits.len() - 1;
                bits[last] ^= 0x80;
            }
            chunk.stream = Some(bits);
        }
        Ok(out)
    }
}

/// Runs `new_backend` under the checker in a thread; panics if it does not finish in time.
fn run_with_deadline(new_backend: fn() -> Box<dyn EngineBackend>) -> Result<sim_harness::stream::StreamReport> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let ts: Vec<StreamTensor> = tensors().into_iter().map(StreamTensor::from).collect();
        let indices: Vec<usize> = (0..ts.len()).collect();
        let clock = EngineClock { mhz: 1000.0, source: "test".into() };
        let _ = tx.send(run_on(&new_backend, Fidelity::Model, &ts, &indices, ts.len(), None, &clock, true));
    });
    rx.recv_timeout(HANG_LIMIT).expect("the faulty run hung")
}

#[test]
fn an_engine_error_on_a_transfer_ends_the_run_naming_the_tensor_and_transfer() {
    let err = run_with_deadline(|| Box::new(FailingBackend { transfer: 0 })).map(|_| ()).unwrap_err();
    let text = format!("{err:#}");
    assert!(text.contains("transfer 5") && text.contains("synthetic:t5"), "{text}");
    assert!(text.contains("err_valid (class 3) on chunk 2"), "the engine's own message is kept: {text}");
}

#[test]
fn a_round_trip_mismatch_fails_the_check_naming_the_tensor_and_transfer() {
    let good = run_with_deadline(|| Box::new(CorruptingBackend { transfer: 0 }));
    let report = good.expect("the run itself completes");
    assert_eq!(report.total.hardware_chunks, 24);
    let bad: Vec<_> = report.tensors.iter().filter(|t| t.roundtrip_mismatches > 0).map(|t| (t.index, t.roundtrip_mismatches)).collect();
    assert_eq!(bad, vec![(BAD_TRANSFER, 1)], "exactly the corrupted chunk is caught");
    let err = check(&report).unwrap_err().to_string();
    assert!(err.contains("1 round-trip mismatches") && err.contains("synthetic:t5 (transfer 5"), "{err}");
}
