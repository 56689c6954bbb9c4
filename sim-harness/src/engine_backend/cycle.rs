//! `cycle` fidelity: every chunk of a transfer through the engine top `pz_engine` in both
//! directions, cycle by cycle at the real input rate (one 32-byte beat per cycle on each of the
//! two device-to-host beat ports, 64-byte stream beats back): out as one device-to-host
//! transfer, back as one host-to-device transfer of the image the first wrote. The engine spreads
//! the chunks over its two lanes per direction itself. Bytes and time are the hardware's
//! ([`super::hw`]); the simulator is Verilator or rust-hdl.

use super::hw::Simulator;
use super::{CHUNK_BYTES, ChunkOut, EngineBackend, HEADER_BYTES, LANES_PER_DIRECTION, TransferOut};
use anyhow::{Result, ensure};
use engine::golden::SymbolWidth;

/// The engine top, both directions.
pub struct CycleBackend {
    sim: Simulator,
    /// Seed of the random backpressure (0 = none).
    seed: u32,
}

/// Chunks of a transfer through the hardware.
pub struct HwChunks {
    /// `(chunk index, what came out)` in index order.
    pub chunks: Vec<(usize, ChunkOut)>,
    /// The wire bytes the engine's `done` reported for these chunks.
    pub reported_wire_bytes: usize,
    /// Device to host: cycles from the first beat in to `done`.
    pub d2h_cycles: u64,
    /// Host to device: cycles from the first stream beat in to the last write.
    pub h2d_cycles: u64,
    /// Cycles simulated, both directions.
    pub simulated_cycles: u64,
    /// Seconds of simulation, both directions.
    pub simulated_seconds: f64,
}

impl CycleBackend {
    /// Both directions on `sim`; `backpressure_seed` 0 keeps every port free, otherwise an
    /// xorshift32 from it holds every port of the engine off about one cycle in four.
    pub fn new(sim: Simulator, backpressure_seed: u32) -> Self {
        CycleBackend { sim, seed: backpressure_seed }
    }

    /// The simulator.
    pub fn simulator(&self) -> &Simulator {
        &self.sim
    }

    /// Streams the chunks with the given (ascending) indices of `data` out through `pz_engine`
    /// and back, as one transfer of those chunks back to back (chunks are independent, so a
    /// chunk's bytes do not depend on its neighbours).
    pub fn run_chunks(&self, data: &[u8], indices: &[usize], width: SymbolWidth) -> Result<HwChunks> {
        let chunk = |c: usize| &data[c * CHUNK_BYTES..((c + 1) * CHUNK_BYTES).min(data.len())];
        let all = indices.len() == data.len().div_ceil(CHUNK_BYTES);
        let picked: Vec<u8> = if all { Vec::new() } else { indices.iter().flat_map(|&c| chunk(c).iter().copied()).collect() };
        let bytes = if all { data } else { &picked };
        let rt = self.sim.round_trip(bytes, width, self.seed)?;
        let mut chunks = Vec::with_capacity(indices.len());
        let mut offset = 0;
        for (k, &c) in indices.iter().enumerate() {
            let raw_bytes = chunk(c).len();
            // FORMAT.md §8: the next chunk starts 2 + header bytes on.
            ensure!(offset + HEADER_BYTES <= rt.image.len(), "pz_engine: the image ends inside chunk {k}'s header");
            let header = u16::from_le_bytes([rt.image[offset], rt.image[offset + 1]]) as usize;
            let end = offset + HEADER_BYTES + header;
            ensure!(end <= rt.image.len(), "pz_engine: chunk {k}'s header claims {header} bytes past the image's end");
            let stream = rt.image[offset..end].to_vec();
            let restored = rt.restored[k * CHUNK_BYTES..k * CHUNK_BYTES + raw_bytes].to_vec();
            chunks.push((c, ChunkOut { raw_bytes, wire_bytes: stream.len(), stream: Some(stream), restored: Some(restored), blocks_by_tag: None }));
            offset = end;
        }
        ensure!(offset == rt.image.len(), "pz_engine: {} image bytes after the last chunk", rt.image.len() - offset);
        Ok(HwChunks { chunks, reported_wire_bytes: rt.reported_wire_bytes, d2h_cycles: rt.d2h_cycles, h2d_cycles: rt.h2d_cycles, simulated_cycles: rt.simulated_cycles, simulated_seconds: rt.simulated_seconds })
    }
}

impl EngineBackend for CycleBackend {
    fn describe(&self) -> String {
        let bp = if self.seed == 0 { "no backpressure" } else { "random backpressure on every port" };
        format!("cycle: every chunk both ways through pz_engine ({LANES_PER_DIRECTION} lanes per direction) on {}, {bp}", self.sim.describe())
    }

    fn round_trip(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        if data.is_empty() {
            return Ok(TransferOut::default());
        }
        let all: Vec<usize> = (0..data.len().div_ceil(CHUNK_BYTES)).collect();
        let hw = self.run_chunks(data, &all, width)?;
        Ok(TransferOut {
            chunks: hw.chunks.into_iter().map(|(_, c)| c).collect(),
            reported_wire_bytes: Some(hw.reported_wire_bytes),
            cycles: hw.d2h_cycles,
            h2d_cycles: hw.h2d_cycles,
            simulated_cycles: hw.simulated_cycles,
            simulated_seconds: hw.simulated_seconds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::hw::engine_latency::{EngineChunk, engine_d2h_latency_cycles, engine_h2d_latency_cycles};

    /// The host-to-device latency model's stated accuracy on a transfer of a few chunks.
    const H2D_MODEL_TOLERANCE_CYCLES: u64 = 2;

    fn data(n: usize) -> Vec<u8> {
        (0..n as u32).flat_map(|i| ((i % 97) as f32 * 0.25).to_le_bytes()).take(n).collect()
    }

    #[test]
    fn rust_hdl_timing_is_the_engines_published_latency_model() {
        let mut b = CycleBackend::new(Simulator::RustHdl, 0);
        // Three chunks: the engine puts chunks 0 and 2 on lane 0, chunk 1 on lane 1.
        let d = data(3 * CHUNK_BYTES);
        let out = b.round_trip(&d, SymbolWidth::W32).unwrap();
        assert_eq!(out.chunks.len(), 3);
        let works = EngineChunk::chunks_of_tensor(&d, SymbolWidth::W32);
        // The models count first beat → done / last write; the backend counts both ends. The
        // host-to-device model holds to ±2 cycles (docs/HARDWARE.md; tests/hw_engine.rs).
        assert_eq!(out.cycles, engine_d2h_latency_cycles(&works) + 1);
        let h2d_model = engine_h2d_latency_cycles(&works) + 1;
        assert!(out.h2d_cycles.abs_diff(h2d_model) <= H2D_MODEL_TOLERANCE_CYCLES, "host to device {} cycles, model {h2d_model}", out.h2d_cycles);
        for (c, chunk) in out.chunks.iter().enumerate() {
            assert_eq!(chunk.restored.as_deref(), Some(&d[c * CHUNK_BYTES..(c + 1) * CHUNK_BYTES]), "chunk {c} round trip");
        }
        assert_eq!(out.reported_wire_bytes, Some(out.wire_bytes()));
    }

    #[test]
    fn backpressure_slows_the_engine_but_not_its_output() {
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
