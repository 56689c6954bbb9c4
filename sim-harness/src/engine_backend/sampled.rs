//! `sampled` fidelity: chunk c of transfer i (its position in the run's input, from
//! [`EngineBackend::begin_transfer`]) goes both ways through the hardware ([`CycleBackend`]) when
//! (i + c) mod k = 0, so a run of many one-chunk tensors is sampled too and the choice is the same
//! however the run is split over threads or shards; the rest through the size model; the
//! transfer's time from the latency models (which `cycle` runs check against the hardware). The
//! sampled chunks of a transfer go through the engine as one transfer of their own.

use super::cycle::CycleBackend;
use super::model::{d2h_cycles, h2d_model_cycles, model_chunk};
use super::{CHUNK_BYTES, EngineBackend, TransferOut};
use anyhow::Result;
use engine::golden::SymbolWidth;

/// Cycle-accurate on a sample of the chunks.
pub struct SampledBackend {
    every: usize,
    /// Position of the current transfer (advanced by its chunks when not announced).
    seen: usize,
    cycle: CycleBackend,
}

impl SampledBackend {
    /// Simulates chunk c of transfer i on `cycle` when (i + c) mod `every` = 0.
    pub fn new(every: usize, cycle: CycleBackend) -> Self {
        SampledBackend { every, seen: 0, cycle }
    }
}

impl EngineBackend for SampledBackend {
    fn describe(&self) -> String {
        format!("sampled: 1 chunk in {} both ways through the hardware on {}, the rest by the size model; time by the latency models", self.every, self.cycle.simulator().describe())
    }

    fn begin_transfer(&mut self, index: usize) {
        self.seen = index;
    }

    fn round_trip(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        let n = data.len().div_ceil(CHUNK_BYTES);
        let picked: Vec<usize> = (0..n).filter(|c| (self.seen + c) % self.every == 0).collect();
        self.seen += n;
        let (hw, reported_wire_bytes, simulated_cycles, simulated_seconds) = if picked.is_empty() {
            (Vec::new(), None, 0, 0.0)
        } else {
            let r = self.cycle.run_chunks(data, &picked, width)?;
            (r.chunks, Some(r.reported_wire_bytes), r.simulated_cycles, r.simulated_seconds)
        };
        let mut hw = hw.into_iter().peekable();
        let chunks = data
            .chunks(CHUNK_BYTES)
            .enumerate()
            .map(|(c, bytes)| match hw.peek() {
                Some((i, _)) if *i == c => hw.next().expect("peeked").1,
                _ => model_chunk(bytes, width),
            })
            .collect();
        Ok(TransferOut { chunks, reported_wire_bytes, cycles: d2h_cycles(data, width), h2d_cycles: h2d_model_cycles(data, width), simulated_cycles, simulated_seconds })
    }
}
