//! `sampled` fidelity: chunk c of transfer i (its position in the run's input, from
//! [`EngineBackend::begin_transfer`]) goes through the rust-hdl lanes when (i + c) mod k = 0, so
//! a run of many one-chunk tensors is sampled too and the choice is the same however the run is
//! split over threads or shards; the
//! rest through the size model; the transfer's time from the latency model (the lane's timing
//! does not depend on the data, which `cycle` runs and the default run's check confirm).

use super::cycle::CycleBackend;
use super::model::model_chunk;
use super::{CHUNK_BYTES, EngineBackend, TransferOut, model_cycles};
use anyhow::Result;
use engine::golden::SymbolWidth;
use cpu_time::ThreadTime;

/// Cycle-accurate on a sample of the chunks.
pub struct SampledBackend {
    every: usize,
    /// Position of the current transfer (advanced by its chunks when not announced).
    seen: usize,
    cycle: CycleBackend,
}

impl SampledBackend {
    /// Simulates chunk c of transfer i cycle by cycle when (i + c) mod `every` = 0.
    pub fn new(every: usize, backpressure_seed: u32) -> Self {
        SampledBackend { every, seen: 0, cycle: CycleBackend::new(backpressure_seed) }
    }
}

impl EngineBackend for SampledBackend {
    fn describe(&self) -> String {
        format!("sampled: 1 chunk in {} cycle by cycle on the rust-hdl lane simulation, the rest by the size model; time by the latency model", self.every)
    }

    fn begin_transfer(&mut self, index: usize) {
        self.seen = index;
    }

    fn compress(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        let n = data.len().div_ceil(CHUNK_BYTES);
        let picked: Vec<usize> = (0..n).filter(|c| (self.seen + c) % self.every == 0).collect();
        self.seen += n;
        let t = ThreadTime::now();
        let (hw, _, simulated) = if picked.is_empty() { (Vec::new(), 0, 0) } else { self.cycle.run_chunks(data, &picked, width)? };
        let seconds = t.elapsed().as_secs_f64();
        let mut hw = hw.into_iter().peekable();
        let chunks = data
            .chunks(CHUNK_BYTES)
            .enumerate()
            .map(|(c, bytes)| match hw.peek() {
                Some((i, _)) if *i == c => hw.next().expect("peeked").1,
                _ => model_chunk(bytes, width),
            })
            .collect();
        Ok(TransferOut { chunks, cycles: model_cycles(data.len()), simulated_cycles: simulated, simulated_seconds: seconds })
    }
}
