//! The engine behind one interface, at three fidelities (`--fidelity model|sampled|cycle`):
//!
//! * [`cycle::CycleBackend`]: the compressor lane's rust-hdl simulation ([`engine::hw::LaneSim`]),
//!   every block beat by beat (32 B per cycle), two lanes per direction, optional random output
//!   backpressure; the blocks' bits are packed into FORMAT.md §7 chunks by the software packer
//!   below (the hardware packer arrives with `pz_d2h_lane`).
//! * [`model::ModelBackend`]: the golden size model for the bytes and the lane's published
//!   latency model (`docs/HARDWARE.md`: one block every [`CYCLES_PER_BLOCK`] cycles, first output
//!   [`LATENCY_CYCLES`] after the first beat) for the time.
//! * [`sampled::SampledBackend`]: every k-th chunk through the cycle backend, the rest through the
//!   model.
//!
//! This module and [`cycle`] never call `engine::golden`: the golden codec is what the stream
//! checker holds the hardware to (a test scans these sources). Only the
//! host-to-device direction's [`EngineBackend::decompress`] is missing in hardware: no
//! decompressor lane exists before `pz_h2d_lane`; it plugs in there, and until then backends
//! answer `None` and the checker decodes with the golden decoder.

pub mod cycle;
pub mod model;
pub mod sampled;

use anyhow::Result;
use engine::golden::SymbolWidth;
use serde::{Deserialize, Serialize};

pub use engine::hw::compressor_lane::{CYCLES_PER_BLOCK, LATENCY_CYCLES};

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
    /// Golden size model + published latency model.
    Model,
    /// Every k-th chunk cycle by cycle on the rust-hdl lane, the rest by the model.
    Sampled,
    /// Every block cycle by cycle on the rust-hdl lane.
    Cycle,
}

/// One chunk as the engine delivered it.
#[derive(Clone, Debug)]
pub struct ChunkOut {
    /// Raw bytes of the chunk (4096, or fewer for a tensor's last chunk).
    pub raw_bytes: usize,
    /// Wire bytes: 2 + header (FORMAT.md §8).
    pub wire_bytes: usize,
    /// The chunk's bytes on the wire (header + body) when it came from the hardware.
    pub stream: Option<Vec<u8>>,
    /// Blocks per chosen code (ZVC, DBX, BX, ZBX, raw).
    pub blocks_by_tag: [u64; 5],
}

/// One transfer (device to host) through the engine.
#[derive(Clone, Debug, Default)]
pub struct TransferOut {
    /// Chunks in order.
    pub chunks: Vec<ChunkOut>,
    /// Engine cycles from the first beat in to the last block out (busiest lane).
    pub cycles: u64,
    /// Cycles simulated by the hardware model, summed over lanes.
    pub simulated_cycles: u64,
    /// CPU seconds (this thread) spent in the hardware simulation.
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
    /// What ran (for reports): e.g. `rust-hdl lane simulation, every block`.
    fn describe(&self) -> String;
    /// Announces the next transfer's position in the run's input, so that what a backend samples
    /// does not depend on the order in which threads take transfers (nor on `--shard`).
    fn begin_transfer(&mut self, _index: usize) {}
    /// Compresses one transfer of `data` with `width` symbols (device to host).
    fn compress(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut>;
    /// Decompresses one transfer (host to device): `None` while no decompressor hardware exists
    /// (arrives with `pz_h2d_lane`).
    fn decompress(&mut self, _stream: &[u8], _raw_bytes: usize, _width: SymbolWidth) -> Result<Option<(Vec<u8>, u64)>> {
        Ok(None)
    }
}

/// Builds a backend. `sample_every` is k of `sampled`; `backpressure_seed` 0 keeps the output
/// always ready, otherwise a xorshift32 from that seed drops `out_ready` about one cycle in four.
pub fn backend(fidelity: Fidelity, sample_every: usize, backpressure_seed: u32) -> Box<dyn EngineBackend> {
    match fidelity {
        Fidelity::Model => Box::new(model::ModelBackend),
        Fidelity::Cycle => Box::new(cycle::CycleBackend::new(backpressure_seed)),
        Fidelity::Sampled => Box::new(sampled::SampledBackend::new(sample_every.max(1), backpressure_seed)),
    }
}

/// Published latency model of one transfer of `blocks` blocks: chunks alternate between the
/// [`LANES_PER_DIRECTION`] lanes; a lane takes a block every [`CYCLES_PER_BLOCK`] cycles and
/// delivers it [`LATENCY_CYCLES`] after its first beat.
pub fn model_cycles(raw_bytes: usize) -> u64 {
    if raw_bytes == 0 {
        return 0;
    }
    let busiest = busiest_lane_blocks(raw_bytes) as u64;
    (busiest - 1) * CYCLES_PER_BLOCK + LATENCY_CYCLES + 1
}

/// Blocks on the busiest lane when a transfer's chunks alternate between the lanes.
pub fn busiest_lane_blocks(raw_bytes: usize) -> usize {
    let mut lanes = [0usize; LANES_PER_DIRECTION];
    for (c, start) in (0..raw_bytes).step_by(CHUNK_BYTES).enumerate() {
        lanes[c % LANES_PER_DIRECTION] += (raw_bytes - start).min(CHUNK_BYTES).div_ceil(BLOCK_BYTES);
    }
    lanes.into_iter().max().unwrap_or(0)
}

/// MSB-first bit packer of a chunk body: the software stand-in for the hardware packer.
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
    fn latency_model_of_hand_counted_transfers() {
        // One block: first beat at cycle 0, encoding out at cycle 10, so 11 cycles counted.
        assert_eq!(model_cycles(BLOCK_BYTES), LATENCY_CYCLES + 1);
        // Two chunks: one per lane, 32 blocks each: 31 * 4 + 10 + 1.
        assert_eq!(model_cycles(2 * CHUNK_BYTES), 31 * CYCLES_PER_BLOCK + LATENCY_CYCLES + 1);
        // Three chunks: lane 0 has two (64 blocks).
        assert_eq!(busiest_lane_blocks(3 * CHUNK_BYTES), 64);
        assert_eq!(busiest_lane_blocks(CHUNK_BYTES + 1), 32);
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
