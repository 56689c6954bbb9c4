//! The latency models of `pz_engine`, per direction, for a transfer alone in an idle engine and
//! without backpressure: cycles from its first beat taken to its `done` (device to host) or to
//! its last write taken (host to device), from the sizes and codes of its chunks
//! ([`H2dWork::chunks_of_tensor`], counted with the golden encoder). Event models of the
//! engine's structure (no bits); checked against the simulation by `tests/hw_engine.rs`.

use super::beats::BEAT_BYTES;
use super::compressor_lane::LATENCY_CYCLES;
use super::h2d_driver::H2dWork;
use super::h2d_latency::{H2dChunk, engine_h2d_model_cycles};
use super::packer::{BLOCK_BYTES, HEADER_BYTES, TAG_BITS};
use super::write_fifo::WRITE_FIFO_WRITES;
use crate::golden::{CHUNK_BYTES, SymbolWidth, block_sizes, encode_stream};
use std::collections::VecDeque;

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
    /// A raw chunk's body writes before it turned raw: the full 32-byte lines of the coded
    /// blocks the packer emitted while the body stayed under the chunk's raw size (it stops at the
    /// block that would reach it, then replays the chunk buffer over them); 0 for a compressed
    /// chunk. The lane's buffer holds these and the replay's lines, so they set when it fills.
    pub raw_body_writes: u64,
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
                let (mut last_block_cycles, mut raw_body_writes) = (0, 0);
                let line_bits = 8 * BEAT_BYTES as u64;
                // Bit position in the current line (the body starts at byte 2) and the body's bits.
                let (mut r, mut body_bits) = (8 * HEADER_BYTES, 0u64);
                let blocks: Vec<&[u8]> = chunk.chunks(BLOCK_BYTES as usize).collect();
                for (k, b) in blocks.iter().enumerate() {
                    let mut block = [0u8; BLOCK_BYTES as usize];
                    block[..b.len()].copy_from_slice(b);
                    let bits = TAG_BITS + u64::from(block_sizes(&block, width).choice().1);
                    if header == chunk.len() {
                        // The packer's raw decision: the body would reach the chunk's raw size.
                        if (body_bits + bits).div_ceil(8) >= chunk.len() as u64 {
                            raw_body_writes = (8 * HEADER_BYTES + body_bits) / line_bits;
                            break;
                        }
                        body_bits += bits;
                        continue;
                    }
                    if k + 1 == blocks.len() {
                        last_block_cycles = ((r + bits) / line_bits).max(1);
                    }
                    r = (r + bits) % line_bits;
                }
                EngineChunk { work, last_block_cycles, raw_body_writes, h2d: H2dChunk::of_chunk(chunk, width) }
            })
            .collect()
    }
}

/// Cycles from a block leaving the compressor lane to the packer's header write of its chunk,
/// beyond the packer's cycles for the block (or a raw chunk's replay): the funnel, the flush,
/// the header (measured on one-chunk transfers).
pub const D2H_PACKER_HEADER_CYCLES: u64 = 3;
/// Cycles from a chunk's beats ending (its first beat's cycle plus its beat count) to its
/// header write on its device-to-host lane, beyond the packer's cycles for the last block: the
/// last block's first beat was taken [`BEATS_PER_BLOCK`] cycles before the end, the lane
/// delivers it [`LATENCY_CYCLES`] later (its input register included), and the packer adds
/// [`D2H_PACKER_HEADER_CYCLES`].
pub const D2H_HEADER_AFTER_BEATS_CYCLES: u64 = LATENCY_CYCLES + D2H_PACKER_HEADER_CYCLES - BEATS_PER_BLOCK;
/// Cycles from a chunk's first beat taken to its first write entering the lane's buffer, beyond
/// the compressor lane's [`LATENCY_CYCLES`] (the first block's encoding): the packer's block
/// register and its output register (measured on one-chunk transfers).
pub const D2H_FIRST_WRITE_EXTRA_CYCLES: u64 = 2;
/// Beats of a 128-byte block.
const BEATS_PER_BLOCK: u64 = BLOCK_BYTES / BEAT_BYTES as u64;
/// Packer cycles per 128-byte row of a raw chunk's replay.
pub const RAW_ROW_CYCLES: u64 = 4;
/// Packer cycles of a raw chunk's replay beyond its rows: the buffer's registered read, the
/// wait for the emitter to drain, the extra flush.
pub const RAW_REPLAY_EXTRA_CYCLES: u64 = 3;
/// Cycles a compressed chunk that follows a raw chunk on its lane gains on the lane's beats
/// back to back: the lane's input register and pipeline take its first beats in during
/// the replay, and those blocks then pass the packer faster than beats arrive (a raw chunk's take
/// the packer four cycles each, as fast as they come, so it gains nothing; measured).
pub const REPLAY_PREFETCH_CYCLES: u64 = 4;
/// Cycles by which lane 1's first beat follows lane 0's (the issuer hands out one chunk per cycle).
pub const ISSUE_STAGGER_CYCLES: u64 = 1;
/// Cycles from a lane's write entering its buffer to the buffer's head (synchronous-read RAM).
pub const WRITE_FIFO_CYCLES: u64 = 2;
/// Cycles from a chunk's `done` pulse by its lane to the accountant's pop of it (the lane's
/// `done` queue is written at that edge and read the cycle after).
pub const DONE_POP_CYCLES: u64 = 1;
/// Cycles from the accountant's pop of chunk `c`'s `done` to its push of chunk `c + 1`'s base
/// (it moves on to the next lane).
pub const BASE_PUSH_CYCLES: u64 = 1;
/// Cycles from a base pushed into a lane's base queue to the first write of its chunk leaving
/// the buffer: the queue's registered head, then the drain's base register.
pub const BASE_DRAIN_CYCLES: u64 = 2;
/// Cycles from a chunk's last write leaving a lane's buffer to the first write of the lane's
/// next chunk leaving it, when that chunk's base is already queued (the drain drops its base,
/// then loads the next).
pub const DRAIN_TURN_CYCLES: u64 = 2;

/// One device-to-host lane's write buffer as the model sees it: the cycles at which its most
/// recent [`WRITE_FIFO_WRITES`] writes left (a write enters only once the one that many before
/// it has left), its last write's departure, and the cycles its coding has been held up by a
/// full buffer so far (they delay every later step of the lane).
struct LaneWrites {
    left: VecDeque<u64>,
    last_left: Option<u64>,
    stall_cycles: u64,
}

impl LaneWrites {
    /// Runs one chunk's writes through the buffer: `nominal(k)` is the cycle write `k` (of
    /// `count`) would enter it unstalled, `drain_from` the first cycle its first write may leave.
    /// Returns the cycles this chunk stalled the lane (a push waits for room; the stall delays
    /// the chunk's later writes alike).
    fn run(&mut self, count: u64, nominal: impl Fn(u64) -> u64, drain_from: u64) -> u64 {
        let capacity = WRITE_FIFO_WRITES as usize;
        let mut stall = 0;
        for k in 0..count {
            let mut push = nominal(k) + stall;
            if self.left.len() == capacity {
                push = push.max(self.left[0] + 1);
                self.left.pop_front();
            }
            stall = push - nominal(k);
            let after = if k == 0 { drain_from } else { self.last_left.map_or(0, |t| t + 1) };
            let leave = (push + WRITE_FIFO_CYCLES).max(after);
            self.left.push_back(leave);
            self.last_left = Some(leave);
        }
        self.stall_cycles += stall;
        stall
    }
}

/// Device-to-host latency of a transfer whose chunks are `chunks`: first beat taken → `done`.
/// An event model, write by write (linear in the transfer's writes, a few per block):
/// * Chunk `c` runs on lane `c mod 2`, each lane's chunks back to back (a raw chunk holds its lane
///   for its replay, less [`REPLAY_PREFETCH_CYCLES`] when a compressed chunk follows); its header
///   write comes [`D2H_HEADER_AFTER_BEATS_CYCLES`] + the packer's last step (its last
///   block, or the replay) after its last beat, unstalled.
/// * Its writes enter the lane's buffer: a compressed chunk's `⌈(2 + header) / 32⌉` lines spread
///   evenly from its first write ([`D2H_FIRST_WRITE_EXTRA_CYCLES`] after the first block's
///   encoding) to the cycle before its header write; a raw chunk's body lines
///   ([`EngineChunk::raw_body_writes`]) one per cycle from its first write, then its replay's
///   lines one per cycle up to its header write.
/// * The buffer holds [`WRITE_FIFO_WRITES`]: a write enters only when the one that many before
///   it on the lane has left, and a write held back stalls its lane (the chunk's later writes and
///   the lane's later chunks come that much later). This is what a chunk whose writes wait for
///   their base does: a raw chunk (about 254 writes) waiting for the other lane's chunk, or a
///   compressed chunk queued behind one.
/// * Writes leave one per cycle, [`WRITE_FIFO_CYCLES`] after entering at the earliest, a chunk's
///   first once its base is known: chunk `c`'s base is pushed [`BASE_PUSH_CYCLES`] after the
///   accountant's pop of chunk `c − 1`'s `done` (which comes one cycle after its header write,
///   popped [`DONE_POP_CYCLES`] later, and not before the cycle after its own base), and drains
///   [`BASE_DRAIN_CYCLES`] later, or [`DRAIN_TURN_CYCLES`] after the lane's previous chunk's
///   last write, whichever is later.
/// * `done` follows the last chunk's accounting and the last write.
///
/// Not modelled: a lane's limit of four chunks issued and not drained (`OPEN_CHUNKS`, which would
/// hold up the issuer, in order, for both lanes): a lane takes 128 beats per full chunk, so four
/// open chunks take a drain held up by several hundred cycles; no transfer run against the
/// simulation showed it (14 raw chunks in a row: model and simulation 2,107 cycles).
pub fn engine_d2h_latency_cycles(chunks: &[EngineChunk]) -> u64 {
    if chunks.is_empty() {
        return 0;
    }
    let beat = BEAT_BYTES as u64;
    let first_write = LATENCY_CYCLES + D2H_FIRST_WRITE_EXTRA_CYCLES;
    let mut next_beat = [0u64, ISSUE_STAGGER_CYCLES];
    let mut after_raw = [false; 2];
    let mut lanes = [(); 2].map(|_| LaneWrites { left: VecDeque::new(), last_left: None, stall_cycles: 0 });
    // The accountant: the cycle it popped the previous chunk's `done`, and pushed this chunk's base.
    let (mut popped, mut base_pushed) = (0u64, None::<u64>);
    let mut last_write = 0u64;
    for (c, ch) in chunks.iter().enumerate() {
        let lane = &mut lanes[c % 2];
        let w = &ch.work;
        let raw = w.raw_chunks > 0;
        let beats = (w.raw_bytes as u64).div_ceil(beat);
        // The packer's last step: the last block, or a raw chunk's replay of its rows (the final
        // one cut to the chunk's bytes).
        let rows = (w.raw_bytes as u64).div_ceil(BLOCK_BYTES);
        let last_row_bytes = w.raw_bytes as u64 - (rows - 1) * BLOCK_BYTES;
        let finish = if raw { RAW_REPLAY_EXTRA_CYCLES + RAW_ROW_CYCLES * (rows - 1) + last_row_bytes.div_ceil(beat) } else { ch.last_block_cycles };
        if after_raw[c % 2] && !raw {
            next_beat[c % 2] -= REPLAY_PREFETCH_CYCLES;
        }
        after_raw[c % 2] = raw;
        let start = next_beat[c % 2] + lane.stall_cycles;
        let header = start + beats + D2H_HEADER_AFTER_BEATS_CYCLES + finish;
        // A raw chunk holds its lane through the replay.
        next_beat[c % 2] += beats + if raw { finish } else { 0 };
        let lines = (w.wire_bytes as u64).div_ceil(beat);
        let body = ch.raw_body_writes;
        let first = start + first_write;
        let nominal = |k: u64| {
            if k == body + lines {
                header
            } else if raw {
                if k < body { first + k } else { header - lines + (k - body) }
            } else if lines == 1 {
                header - 1
            } else {
                (first + k * (header - 1).saturating_sub(first) / (lines - 1)).min(header - 1)
            }
        };
        let drain_from = match base_pushed {
            None => 0,
            Some(b) => b + BASE_DRAIN_CYCLES,
        };
        let drain_from = lane.last_left.map_or(drain_from, |t| drain_from.max(t + DRAIN_TURN_CYCLES));
        let stall = lane.run(body + lines + 1, nominal, drain_from);
        last_write = last_write.max(lane.last_left.expect("a chunk has writes"));
        // The lane's `done` the cycle after its header write; the accountant pops it the cycle
        // after, once it has pushed this chunk's base.
        let done = header + stall + 1;
        popped = match base_pushed {
            None => done + DONE_POP_CYCLES,
            Some(b) => (done + DONE_POP_CYCLES).max(b + 1),
        };
        base_pushed = Some(popped + BASE_PUSH_CYCLES);
    }
    // `done`: the last chunk accounted, and its final write (emitted at `last_write`) taken one
    // cycle later and counted the cycle after.
    (popped + 1).max(last_write + 2) + 1
}

/// Host-to-device latency of a transfer whose chunks are `chunks`: first beat taken → last
/// write taken, block by block through the engine's splitter, both lanes' contexts and their
/// write arbiters ([`engine_h2d_model_cycles`], `hw::h2d_latency`).
pub fn engine_h2d_latency_cycles(chunks: &[EngineChunk]) -> u64 {
    engine_h2d_model_cycles(chunks.iter().map(|c| &c.h2d))
}
