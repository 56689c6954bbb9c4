//! The latency models of `pz_engine`, per direction, for a transfer alone in an idle engine and
//! without backpressure: cycles from its first beat taken to its `done` (device to host) or to
//! its last write taken (host to device), from the sizes and codes of its chunks
//! ([`H2dWork::chunks_of_tensor`], counted with the golden encoder). Event models of the
//! engine's structure (no bits); checked against the simulation by `tests/hw_engine.rs`.

use super::beats::BEAT_BYTES;
use super::compressor_lane::LATENCY_CYCLES;
use super::h2d_driver::H2dWork;
use super::h2d_latency::{H2dChunk, engine_h2d_model_cycles};
use super::packer::{BLOCK_BYTES, TAG_BITS};
use crate::golden::{CHUNK_BYTES, SymbolWidth, block_sizes, encode_stream};

/// What the device-to-host model needs of a chunk beyond [`H2dWork`]: how long the packer
/// takes to emit its last block (the chunk's header write waits for it); and what the
/// host-to-device model needs ([`H2dChunk`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineChunk {
    /// Sizes and codes of the chunk (golden encoder).
    pub work: H2dWork,
    /// Packer cycles of the chunk's last block, `max(⌊(r + bits) / 256⌋, 1)` with `r` its bit
    /// position in its first 32-byte line (the body starts at byte 2 of the chunk); 0 for a
    /// raw chunk.
    pub last_block_cycles: u64,
    /// The chunk's blocks as the host-to-device path decodes them.
    pub h2d: H2dChunk,
}

impl EngineChunk {
    /// The chunks of the canonical stream of `data` at `width`, in order.
    pub fn chunks_of_tensor(data: &[u8], width: SymbolWidth) -> Vec<EngineChunk> {
        let stream = encode_stream(data, width);
        let mut offset = 0;
        data.chunks(CHUNK_BYTES)
            .map(|chunk| {
                let header = u16::from_le_bytes([stream[offset], stream[offset + 1]]) as usize;
                offset += 2 + header;
                let work = H2dWork::of_tensor(chunk, width);
                let mut last_block_cycles = 0;
                if header != chunk.len() {
                    let line_bits = 8 * BEAT_BYTES as u64;
                    let mut r = 16u64;
                    let blocks: Vec<&[u8]> = chunk.chunks(BLOCK_BYTES as usize).collect();
                    for (k, b) in blocks.iter().enumerate() {
                        let mut block = [0u8; BLOCK_BYTES as usize];
                        block[..b.len()].copy_from_slice(b);
                        let bits = TAG_BITS + u64::from(block_sizes(&block, width).choice().1);
                        if k + 1 == blocks.len() {
                            last_block_cycles = ((r + bits) / line_bits).max(1);
                        }
                        r = (r + bits) % line_bits;
                    }
                }
                EngineChunk { work, last_block_cycles, h2d: H2dChunk::of_chunk(chunk, width) }
            })
            .collect()
    }
}

/// Cycles from a chunk's last beat taken by its device-to-host lane to the lane's header write,
/// beyond the compressor lane's [`LATENCY_CYCLES`] and the packer's cycles for the last block
/// (or a raw chunk's replay): the unit's skid buffer, the packer's funnel, flush and header
/// (measured on one-chunk transfers).
pub const D2H_UNIT_TAIL_CYCLES: u64 = 15 - LATENCY_CYCLES;
/// Packer cycles per 128-byte row of a raw chunk's replay.
pub const RAW_ROW_CYCLES: u64 = 4;
/// Packer cycles of a raw chunk's replay beyond its rows: the buffer's registered read, the
/// wait for the emitter to drain, the extra flush.
pub const RAW_REPLAY_EXTRA_CYCLES: u64 = 3;
/// Cycles by which lane 1's first beat follows lane 0's (the issuer hands out one chunk per cycle).
pub const ISSUE_STAGGER_CYCLES: u64 = 1;
/// Cycles from a lane's write entering its buffer to the buffer's head (synchronous-read RAM).
pub const WRITE_FIFO_CYCLES: u64 = 2;

/// Device-to-host latency of a transfer whose chunks are `chunks`: first beat taken → `done`.
/// Chunk `c` runs on lane `c mod 2`, each lane's chunks back to back (a raw chunk holds its lane
/// for its replay); its header write comes [`LATENCY_CYCLES`] + [`D2H_UNIT_TAIL_CYCLES`] + the
/// packer's last step (its last block, or the replay) after its last beat; its `done` is accounted two cycles after that, or one cycle after the previous
/// chunk's base went out, whichever is later; its writes (one per 32 bytes of its stream and the
/// header, a raw chunk's body twice) leave the buffer as they come once its base is known, or
/// one per cycle from then on. `done` follows the last chunk's accounting and the last write.
/// The buffer's capacity is not modelled: a raw chunk whose writes wait for their base stalls
/// its lane, which the model does not see.
pub fn engine_d2h_latency_cycles(chunks: &[EngineChunk]) -> u64 {
    if chunks.is_empty() {
        return 0;
    }
    let beat = BEAT_BYTES as u64;
    let mut next_beat = [0u64, ISSUE_STAGGER_CYCLES];
    let (mut accounted, mut last_write) = (0u64, 0u64);
    for (c, ch) in chunks.iter().enumerate() {
        let lane = c % 2;
        let w = &ch.work;
        let raw = w.raw_chunks > 0;
        let beats = (w.raw_bytes as u64).div_ceil(beat);
        // The packer's last step: the last block, or a raw chunk's replay of its rows (the final
        // one cut to the chunk's bytes).
        let rows = (w.raw_bytes as u64).div_ceil(BLOCK_BYTES);
        let last_row_bytes = w.raw_bytes as u64 - (rows - 1) * BLOCK_BYTES;
        let finish = if raw { RAW_REPLAY_EXTRA_CYCLES + RAW_ROW_CYCLES * (rows - 1) + last_row_bytes.div_ceil(beat) } else { ch.last_block_cycles };
        let header = next_beat[lane] + beats + LATENCY_CYCLES + D2H_UNIT_TAIL_CYCLES + finish;
        // A raw chunk holds its lane through the replay.
        next_beat[lane] += beats + if raw { finish } else { 0 };
        let lines = (w.wire_bytes as u64).div_ceil(beat);
        let writes = lines + 1 + if raw { lines } else { 0 };
        let drained = if c == 0 {
            accounted = header + WRITE_FIFO_CYCLES;
            header + WRITE_FIFO_CYCLES
        } else {
            let base_out = accounted + 1;
            accounted = (header + WRITE_FIFO_CYCLES).max(base_out + 1);
            (header + WRITE_FIFO_CYCLES).max(base_out + 2 + writes - 1)
        };
        last_write = last_write.max(drained);
    }
    // `done`: the last chunk accounted, and its final write (emitted at `last_write`) taken one
    // cycle later and counted the cycle after.
    (accounted + 1).max(last_write + 2) + 1
}

/// Host-to-device latency of a transfer whose chunks are `chunks`: first beat taken → last
/// write taken, block by block through the engine's splitter, both lanes' contexts and their
/// write arbiters ([`engine_h2d_model_cycles`], `hw::h2d_latency`).
pub fn engine_h2d_latency_cycles(chunks: &[EngineChunk]) -> u64 {
    engine_h2d_model_cycles(chunks.iter().map(|c| &c.h2d))
}
