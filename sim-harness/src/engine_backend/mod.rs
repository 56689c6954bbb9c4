//! The engine behind one interface, at three fidelities (`--fidelity model|sampled|cycle`):
//!
//! * [`cycle::CycleBackend`]: every chunk through the engine top `pz_engine` in both directions,
//!   cycle by cycle ([`hw`]): a transfer goes out as one device-to-host transfer (the compressed
//!   bytes are the host-memory image its addressed writes build, the wire bytes the count its
//!   `done` reports) and comes back as one host-to-device transfer of that image. The simulator
//!   is Verilator on the exported Verilog when `verilator` is on PATH, else the rust-hdl
//!   simulation (`--simulator`).
//! * [`model::ModelBackend`]: the golden size model for the bytes and the engine's published
//!   latency models for the time (`engine::hw::engine_latency`, docs/HARDWARE.md).
//! * [`sampled::SampledBackend`]: every k-th chunk through the cycle backend, the rest through the
//!   model; time from the latency models.
//!
//! This module, [`cycle`] and [`hw`] never call `engine::golden`: the golden codec is what the
//! stream checker holds the hardware to (a test scans these sources).

pub mod cycle;
pub mod hw;
pub mod model;
pub mod sampled;

use anyhow::Result;
use engine::golden::SymbolWidth;
use serde::{Deserialize, Serialize};

pub use engine::hw::compressor_lane::{CYCLES_PER_BLOCK, LATENCY_CYCLES};
pub use hw::{Simulator, SimulatorChoice};

/// Bytes of a block (FORMAT.md §4).
pub const BLOCK_BYTES: usize = 128;
/// Bytes of a chunk (FORMAT.md §7).
pub const CHUNK_BYTES: usize = 4096;
/// Bytes of a chunk header.
pub const HEADER_BYTES: usize = 2;
/// Bits of a block's tag.
pub const TAG_BITS: u32 = 3;
/// Lanes per direction (paper §III-D: two compressor and two decompressor lanes).
pub const LANES_PER_DIRECTION: usize = 2;
/// Bytes a lane takes per cycle (one 32-byte beat).
pub const LANE_BEAT_BYTES: usize = 32;

/// How faithfully the engine is simulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Fidelity {
    /// Golden size model + published latency models (no simulation).
    Model,
    /// Every k-th chunk both ways through the hardware (Verilator or rust-hdl), the rest by the
    /// size model; time by the latency models.
    Sampled,
    /// Every chunk both ways through the hardware (Verilator or rust-hdl), cycle by cycle.
    Cycle,
}

/// One chunk as the engine delivered it.
#[derive(Clone, Debug)]
pub struct ChunkOut {
    /// Raw bytes of the chunk (4096, or fewer for a tensor's last chunk).
    pub raw_bytes: usize,
    /// Wire bytes: 2 + header (FORMAT.md §8); from the hardware, the extent of its image.
    pub wire_bytes: usize,
    /// The chunk's bytes on the wire (header + body) as the hardware wrote them.
    pub stream: Option<Vec<u8>>,
    /// The bytes the host-to-device lane wrote back from [`Self::stream`].
    pub restored: Option<Vec<u8>>,
    /// Blocks per chosen code (ZVC, DBX, BX, ZBX, raw) where the backend knows them (the size
    /// model; the hardware does not report its tags).
    pub blocks_by_tag: Option<[u64; 5]>,
}

/// One transfer through the engine: out (device to host) and back (host to device).
#[derive(Clone, Debug, Default)]
pub struct TransferOut {
    /// Chunks in order.
    pub chunks: Vec<ChunkOut>,
    /// Wire bytes the engine's `done` reported for the chunks that went through the hardware.
    pub reported_wire_bytes: Option<usize>,
    /// Device to host: engine cycles from the first beat in to `done`, inclusive.
    pub cycles: u64,
    /// Host to device: engine cycles from the first stream beat in to the last write, inclusive.
    pub h2d_cycles: u64,
    /// Cycles simulated by the hardware model, summed over lanes and directions.
    pub simulated_cycles: u64,
    /// Seconds spent in the hardware simulation (CPU time of the simulation loops).
    pub simulated_seconds: f64,
}

impl TransferOut {
    /// Wire bytes of the whole transfer.
    pub fn wire_bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.wire_bytes).sum()
    }
}

/// An engine at some fidelity. A backend holds its simulation state, so it is `&mut`; run one
/// per thread.
pub trait EngineBackend {
    /// What ran (for reports).
    fn describe(&self) -> String;
    /// Announces the next transfer's position in the run's input, so that what a backend samples
    /// does not depend on the order in which threads take transfers (nor on `--shard`).
    fn begin_transfer(&mut self, _index: usize) {}
    /// Moves one transfer of `data` with `width` symbols out to the host and back.
    fn round_trip(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut>;
}

/// Builds a backend. `sample_every` is k of `sampled`; `backpressure_seed` 0 keeps every port
/// free, otherwise an xorshift32 from that seed holds ports off about one cycle in four.
pub fn backend(fidelity: Fidelity, sample_every: usize, backpressure_seed: u32, sim: &Simulator) -> Box<dyn EngineBackend> {
    match fidelity {
        Fidelity::Model => Box::new(model::ModelBackend),
        Fidelity::Cycle => Box::new(cycle::CycleBackend::new(sim.clone(), backpressure_seed)),
        Fidelity::Sampled => Box::new(sampled::SampledBackend::new(sample_every.max(1), cycle::CycleBackend::new(sim.clone(), backpressure_seed))),
    }
}

/// Cycles from the last block leaving the lane to the chunk's last write (its header) being
/// taken: funnel, flush write, header write (docs/HARDWARE.md, "added latency (packer)").
pub const D2H_PACKER_TAIL_CYCLES: u64 = 4;
/// Cycles a raw chunk adds: its blocks are replayed as raw bytes, one 32-byte write per
/// 4-cycle block slot each (docs/HARDWARE.md, "raw chunk, time").
pub const D2H_RAW_REPLAY_CYCLES_PER_BLOCK: u64 = 4;

/// The device-to-host unit's latency model for one transfer of `raw_bytes` bytes (first beat
/// taken → last write taken, inclusive, no backpressure): its chunks alternate between the
/// [`LANES_PER_DIRECTION`] units; a unit takes a block every [`CYCLES_PER_BLOCK`] cycles, the
/// lane delivers it [`LATENCY_CYCLES`] after its first beat (its input register included), and the
/// packer's last write follows [`D2H_PACKER_TAIL_CYCLES`] later; `raw_chunks[c]` (if given) marks
/// chunk `c` stored raw, which adds its replay. Chunk-boundary stalls of dense data (0.1–0.2 %)
/// are not modelled.
pub fn d2h_model_cycles(raw_bytes: usize, raw_chunks: &[bool]) -> u64 {
    if raw_bytes == 0 {
        return 0;
    }
    let mut lanes = [0u64; LANES_PER_DIRECTION];
    for (c, start) in (0..raw_bytes).step_by(CHUNK_BYTES).enumerate() {
        let blocks = (raw_bytes - start).min(CHUNK_BYTES).div_ceil(BLOCK_BYTES) as u64;
        let replay = if raw_chunks.get(c).copied().unwrap_or(false) { D2H_RAW_REPLAY_CYCLES_PER_BLOCK * blocks } else { 0 };
        lanes[c % LANES_PER_DIRECTION] += blocks * CYCLES_PER_BLOCK + replay;
    }
    let busiest = lanes.into_iter().max().unwrap_or(0);
    busiest - CYCLES_PER_BLOCK + LATENCY_CYCLES + D2H_PACKER_TAIL_CYCLES + 1
}

/// Bytes on the busiest lane when a transfer's chunks alternate between the lanes.
pub fn busiest_lane_bytes(raw_bytes: usize) -> usize {
    let mut lanes = [0usize; LANES_PER_DIRECTION];
    for (c, start) in (0..raw_bytes).step_by(CHUNK_BYTES).enumerate() {
        lanes[c % LANES_PER_DIRECTION] += (raw_bytes - start).min(CHUNK_BYTES);
    }
    lanes.into_iter().max().unwrap_or(0)
}

/// Device-to-host cycles that do not scale with the transfer (pipeline fill and drain): the
/// latency of [`d2h_model_cycles`] beyond one block interval per block.
pub const D2H_FIXED_CYCLES: u64 = LATENCY_CYCLES + D2H_PACKER_TAIL_CYCLES + 1 - CYCLES_PER_BLOCK;

/// The engine the planner sees in the "measured engine" tables: per tensor of `m` bytes, the
/// slower direction of the device-to-host latency model ([`d2h_model_cycles`], no raw chunks) and
/// the host-to-device lane at the rate it sustained in the run (busiest lane's bytes per cycle,
/// plus its pipeline), at the engine clock. The planner has one occupancy per tensor for both
/// directions, so the slower one is used.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeasuredEngine {
    /// Engine clock, MHz.
    pub clock_mhz: f64,
    /// Host-to-device bytes per cycle of one lane, as measured on the streamed tensors.
    pub h2d_lane_bytes_per_cycle: f64,
}

impl MeasuredEngine {
    /// Cycles of a transfer of `m` bytes: (total, fixed part that does not scale with `m`).
    pub fn cycles(&self, m: usize) -> (f64, f64) {
        let d2h = d2h_model_cycles(m, &[]) as f64;
        let pipeline = engine::hw::h2d_driver::PIPELINE_CYCLES as f64;
        let h2d = busiest_lane_bytes(m) as f64 / self.h2d_lane_bytes_per_cycle + pipeline;
        if d2h >= h2d { (d2h, D2H_FIXED_CYCLES as f64) } else { (h2d, pipeline) }
    }

    /// The planner's engine for a tensor of `m` bytes: its sustained rate (the scaling part) and
    /// the fixed part as latency.
    pub fn timing(&self, m: usize) -> planner::platform::EngineTiming {
        let ns_per_cycle = 1e3 / self.clock_mhz;
        let (total, fixed) = self.cycles(m.max(1));
        planner::platform::EngineTiming { gb_per_s: m.max(1) as f64 / ((total - fixed) * ns_per_cycle), latency_ns: fixed * ns_per_cycle }
    }
}

/// MSB-first bit packer of a chunk body, for the VCD's view of one lane's blocks as chunks
/// ([`crate::vcd_out`]); the streamed data goes through the hardware packer of `pz_d2h_lane`.
#[derive(Default)]
pub struct ChunkPacker {
    bytes: Vec<u8>,
    bits: usize,
}

impl ChunkPacker {
    /// Appends the low `n` bits of `v`, most significant first.
    pub fn put(&mut self, v: u32, n: u32) {
        for i in (0..n).rev() {
            self.put_bit((v >> i) & 1 == 1);
        }
    }

    /// Appends the first `n` bits of `bytes` (MSB-first).
    pub fn put_bytes(&mut self, bytes: &[u8], n: u32) {
        for i in 0..n as usize {
            self.put_bit(bytes[i / 8] >> (7 - i % 8) & 1 == 1);
        }
    }

    fn put_bit(&mut self, b: bool) {
        if self.bits % 8 == 0 {
            self.bytes.push(0);
        }
        if b {
            *self.bytes.last_mut().expect("pushed") |= 0x80 >> (self.bits % 8);
        }
        self.bits += 1;
    }

    /// The chunk on the wire: header + body, or the raw bytes when the body would take `raw.len()`
    /// bytes or more (FORMAT.md §7).
    pub fn finish(self, raw: &[u8]) -> Vec<u8> {
        let body = if self.bytes.len() >= raw.len() { raw.to_vec() } else { self.bytes };
        let mut out = Vec::with_capacity(HEADER_BYTES + body.len());
        out.extend_from_slice(&(body.len() as u16).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d2h_latency_model_of_hand_counted_transfers() {
        // Two blocks (FORMAT.md example E, docs/HARDWARE.md): first beat in cycle 0, the last
        // block leaves the 15-cycle lane in cycle 20, the header write is taken in cycle 24:
        // 25 cycles.
        assert_eq!(d2h_model_cycles(2 * BLOCK_BYTES, &[]), 25);
        // Two chunks, one per lane, 32 blocks each: 31 * 4 + 1 + 15 + 4 + 1.
        assert_eq!(d2h_model_cycles(2 * CHUNK_BYTES, &[]), 145);
        // Three chunks: lane 0 has two (64 blocks); a partial fourth chunk of 1 byte goes to lane 1.
        assert_eq!(d2h_model_cycles(3 * CHUNK_BYTES, &[]), 63 * 4 + 21);
        assert_eq!(d2h_model_cycles(3 * CHUNK_BYTES + 1, &[]), 63 * 4 + 21);
        // Chunk 1 raw: lane 1 replays its 32 blocks, 4 cycles each, and becomes the busiest.
        assert_eq!(d2h_model_cycles(2 * CHUNK_BYTES, &[false, true]), 63 * 4 + 21);
        assert_eq!(d2h_model_cycles(0, &[]), 0);
    }

    #[test]
    fn measured_engine_splits_the_latency_model_into_rate_and_latency() {
        // 100 MHz (10 ns a cycle), h2d lanes at 16 B/cycle: 2 chunks = one 4 KB chunk per lane.
        let e = MeasuredEngine { clock_mhz: 100.0, h2d_lane_bytes_per_cycle: 16.0 };
        // d2h: 145 cycles (the hand count above); h2d: 4096 / 16 + 4 = 260: h2d is slower.
        assert_eq!(e.cycles(2 * CHUNK_BYTES), (260.0, 4.0));
        let t = e.timing(2 * CHUNK_BYTES);
        assert!((t.latency_ns - 40.0).abs() < 1e-9);
        // 8192 B in 256 cycles = 2,560 ns: 3.2 GB/s.
        assert!((t.gb_per_s - 3.2).abs() < 1e-9, "{}", t.gb_per_s);
        // A fast h2d lane leaves d2h the slower: 145 cycles, 17 of them fixed (1 + 15 + 4 + 1 − 4).
        let fast = MeasuredEngine { clock_mhz: 100.0, h2d_lane_bytes_per_cycle: 1000.0 };
        assert_eq!(fast.cycles(2 * CHUNK_BYTES), (145.0, 17.0));
        assert_eq!(busiest_lane_bytes(3 * CHUNK_BYTES + 5), 2 * CHUNK_BYTES);
    }

    #[test]
    fn packer_is_msb_first_and_falls_back_to_raw() {
        let mut p = ChunkPacker::default();
        p.put(0b101, 3);
        p.put_bytes(&[0xF0], 4);
        let raw = [7u8; 16];
        // 101 then 1111, zero-padded: 1011_1110.
        assert_eq!(p.finish(&raw), vec![1, 0, 0b1011_1110]);
        let mut big = ChunkPacker::default();
        big.put_bytes(&[0xFF; 16], 128);
        let out = big.finish(&raw);
        assert_eq!(&out[..2], &[16, 0]);
        assert_eq!(&out[2..], &raw);
    }
}
