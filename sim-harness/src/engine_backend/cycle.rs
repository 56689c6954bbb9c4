//! `cycle` fidelity: every chunk of a transfer through the hardware in both directions, cycle by
//! cycle at the real input rate (one 32-byte beat per cycle per lane): device to host through
//! `pz_d2h_lane` (compressor lane + its chunk packer), host to device through `pz_h2d_lane` fed
//! the images the first direction wrote. Chunk `c` goes to lane `c mod 2` of each direction; the
//! two lanes of a direction run in parallel (rayon), each its chunks back to back. Bytes and time
//! are the hardware's ([`super::hw`]); the simulator is Verilator or rust-hdl.

use super::hw::{LaneRun, Simulator};
use super::{CHUNK_BYTES, ChunkOut, EngineBackend, LANES_PER_DIRECTION, TransferOut};
use anyhow::Result;
use engine::golden::SymbolWidth;
use rayon::prelude::*;

/// The hardware of both directions, two lanes each.
pub struct CycleBackend {
    sim: Simulator,
    /// Seed of the random backpressure (0 = none).
    seed: u32,
}

/// Chunks of a transfer through the hardware.
pub struct HwChunks {
    /// `(chunk index, what came out)` in index order.
    pub chunks: Vec<(usize, ChunkOut)>,
    /// Device to host: cycles from the first beat in to the last write out, busiest lane.
    pub d2h_cycles: u64,
    /// Host to device: the same.
    pub h2d_cycles: u64,
    /// Cycles simulated, all lanes of both directions.
    pub simulated_cycles: u64,
    /// Seconds of simulation, all lanes of both directions.
    pub simulated_seconds: f64,
}

impl CycleBackend {
    /// Both directions on `sim`; `backpressure_seed` 0 keeps every port free, otherwise the
    /// drivers' xorshift32 from it holds the write port (and, host to device, every port) off
    /// about one cycle in four.
    pub fn new(sim: Simulator, backpressure_seed: u32) -> Self {
        CycleBackend { sim, seed: backpressure_seed }
    }

    /// The simulator.
    pub fn simulator(&self) -> &Simulator {
        &self.sim
    }

    /// Streams the chunks with the given indices of `data` (chunk `c` on lane `c mod 2`) out
    /// through `pz_d2h_lane` and back through `pz_h2d_lane`.
    pub fn run_chunks(&self, data: &[u8], indices: &[usize], width: SymbolWidth) -> Result<HwChunks> {
        let lanes: Vec<Vec<usize>> = (0..LANES_PER_DIRECTION).map(|l| indices.iter().copied().filter(|c| c % LANES_PER_DIRECTION == l).collect()).collect();
        let runs: Vec<(Vec<usize>, LaneRun, LaneRun)> = lanes
            .into_par_iter()
            .filter(|mine| !mine.is_empty())
            .map(|mine| {
                let raw: Vec<&[u8]> = mine.iter().map(|&c| &data[c * CHUNK_BYTES..((c + 1) * CHUNK_BYTES).min(data.len())]).collect();
                let d2h = self.sim.d2h(&raw, width, self.seed)?;
                let streams: Vec<(&[u8], usize)> = d2h.outputs.iter().zip(&raw).map(|(o, r)| (o.bytes.as_slice(), r.len())).collect();
                let h2d = self.sim.h2d(&streams, width, self.seed)?;
                Ok((mine, d2h, h2d))
            })
            .collect::<Result<_>>()?;
        let mut out = HwChunks { chunks: Vec::with_capacity(indices.len()), d2h_cycles: 0, h2d_cycles: 0, simulated_cycles: 0, simulated_seconds: 0.0 };
        for (mine, d2h, h2d) in runs {
            out.d2h_cycles = out.d2h_cycles.max(d2h.cycles);
            out.h2d_cycles = out.h2d_cycles.max(h2d.cycles);
            out.simulated_cycles += d2h.simulated_cycles + h2d.simulated_cycles;
            out.simulated_seconds += d2h.simulated_seconds + h2d.simulated_seconds;
            for ((c, image), restored) in mine.into_iter().zip(d2h.outputs).zip(h2d.outputs) {
                let raw_bytes = (data.len() - c * CHUNK_BYTES).min(CHUNK_BYTES);
                out.chunks.push((
                    c,
                    ChunkOut { raw_bytes, wire_bytes: image.bytes.len(), reported_wire_bytes: image.reported_wire_bytes, stream: Some(image.bytes), restored: Some(restored.bytes), blocks_by_tag: None },
                ));
            }
        }
        out.chunks.sort_by_key(|(c, _)| *c);
        Ok(out)
    }
}

impl EngineBackend for CycleBackend {
    fn describe(&self) -> String {
        let bp = if self.seed == 0 { "no backpressure" } else { "random backpressure" };
        format!("cycle: every chunk both ways through the hardware on {}, {LANES_PER_DIRECTION} lanes per direction, {bp}", self.sim.describe())
    }

    fn round_trip(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        let all: Vec<usize> = (0..data.len().div_ceil(CHUNK_BYTES)).collect();
        let hw = self.run_chunks(data, &all, width)?;
        Ok(TransferOut {
            chunks: hw.chunks.into_iter().map(|(_, c)| c).collect(),
            cycles: hw.d2h_cycles,
            h2d_cycles: hw.h2d_cycles,
            simulated_cycles: hw.simulated_cycles,
            simulated_seconds: hw.simulated_seconds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::d2h_model_cycles;
    use super::*;

    fn data(n: usize) -> Vec<u8> {
        (0..n as u32).flat_map(|i| ((i % 97) as f32 * 0.25).to_le_bytes()).take(n).collect()
    }

    #[test]
    fn rust_hdl_free_timing_is_the_published_latency_model() {
        let mut b = CycleBackend::new(Simulator::RustHdl, 0);
        // Three chunks: lane 0 gets chunks 0 and 2 (64 blocks), lane 1 chunk 1.
        let d = data(3 * CHUNK_BYTES);
        let out = b.round_trip(&d, SymbolWidth::W32).unwrap();
        assert_eq!(out.chunks.len(), 3);
        assert_eq!(out.cycles, d2h_model_cycles(d.len(), &[false; 3]));
        for (c, chunk) in out.chunks.iter().enumerate() {
            assert_eq!(chunk.restored.as_deref(), Some(&d[c * CHUNK_BYTES..(c + 1) * CHUNK_BYTES]), "chunk {c} round trip");
            assert_eq!(chunk.reported_wire_bytes, Some(chunk.wire_bytes));
        }
    }

    #[test]
    fn backpressure_slows_the_lanes_but_not_their_output() {
        let d = data(CHUNK_BYTES + 300);
        let free = CycleBackend::new(Simulator::RustHdl, 0).round_trip(&d, SymbolWidth::W16).unwrap();
        let held = CycleBackend::new(Simulator::RustHdl, 12345).round_trip(&d, SymbolWidth::W16).unwrap();
        assert!(held.cycles > free.cycles, "{} vs {}", held.cycles, free.cycles);
        assert!(held.h2d_cycles > free.h2d_cycles, "{} vs {}", held.h2d_cycles, free.h2d_cycles);
        let bytes = |o: &TransferOut| o.chunks.iter().map(|c| (c.stream.clone().unwrap(), c.restored.clone().unwrap())).collect::<Vec<_>>();
        assert_eq!(bytes(&free), bytes(&held));
        assert_eq!(free.chunks[1].raw_bytes, 300);
        assert_eq!(free.chunks[1].restored.as_deref(), Some(&d[CHUNK_BYTES..]));
    }
}
