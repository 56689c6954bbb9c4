//! Cycle-by-cycle driver of the [`DecompressorLane`] rust-hdl simulation: queues descriptors and
//! stream beats, applies backpressure on every port (descriptor and beat `valid` withheld by the
//! source, `out_ready` dropped by the memory), collects each transfer's writes, error and `done`
//! with their cycles, and optionally traces every signal to a VCD file. Also the lane's latency
//! model, [`h2d_latency_cycles`], and the FORMAT.md §9 error numbering of its error output.

use super::decompressor_lane::DecompressorLane;
use super::block_rebuild::{READY_AGE_CODED, READY_AGE_DBX};
use crate::golden::block::plane_cases;
use crate::golden::chunk::HEADER_BYTES;
use crate::golden::{BLOCK_BYTES, CHUNK_BYTES, DecodeError, SymbolWidth, Tag, block_sizes, encode_stream};
use rust_hdl::core::vcd_probe::VCDProbe;
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::io::Write;

/// Bytes per stream beat and per write (the shared packer's).
pub use super::beats::BEAT_BYTES;

/// The error classes of the lane's `err_class` output: FORMAT.md §9, in the order of its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum H2dErrorClass {
    /// A field runs past the end of the chunk body.
    Truncated = 1,
    /// Tag 5, 6 or 7.
    ReservedTag = 2,
    /// Base prefix `011` with w = 16.
    ReservedBaseCode = 3,
    /// A one/two-ones position outside the plane.
    PositionOutOfRange = 4,
    /// A zero-plane run longer than the planes left.
    RunTooLong = 5,
    /// `00001` on the top plane.
    DbpZeroOnTopPlane = 6,
    /// A DBX delta leaves `[0, 2^w)`.
    DeltaOutOfRange = 7,
    /// Chunk header larger than the chunk's raw size.
    HeaderTooLarge = 8,
    /// Blocks end 8 or more bits before the body does, or nonzero padding.
    SizeMismatch = 9,
    /// The stream ends inside a header or body.
    StreamTruncated = 10,
    /// Bytes after the last chunk.
    TrailingBytes = 11,
}

impl H2dErrorClass {
    /// All classes, in `err_class` order.
    pub const ALL: [H2dErrorClass; 11] = [
        H2dErrorClass::Truncated,
        H2dErrorClass::ReservedTag,
        H2dErrorClass::ReservedBaseCode,
        H2dErrorClass::PositionOutOfRange,
        H2dErrorClass::RunTooLong,
        H2dErrorClass::DbpZeroOnTopPlane,
        H2dErrorClass::DeltaOutOfRange,
        H2dErrorClass::HeaderTooLarge,
        H2dErrorClass::SizeMismatch,
        H2dErrorClass::StreamTruncated,
        H2dErrorClass::TrailingBytes,
    ];

    /// The class of an `err_class` value, if it is one.
    pub fn from_bits(v: u32) -> Option<H2dErrorClass> {
        Self::ALL.into_iter().find(|c| *c as u32 == v)
    }

    /// The class and chunk index the lane reports for a golden decoder error on a stream of
    /// `chunks` chunks (trailing bytes are reported at chunk index `chunks`).
    pub fn of_decode_error(e: &DecodeError, chunks: usize) -> (H2dErrorClass, usize) {
        let class_of = |e: &DecodeError| match e {
            DecodeError::Truncated { .. } => H2dErrorClass::Truncated,
            DecodeError::ReservedTag { .. } => H2dErrorClass::ReservedTag,
            DecodeError::ReservedBaseCode { .. } => H2dErrorClass::ReservedBaseCode,
            DecodeError::PositionOutOfRange { .. } => H2dErrorClass::PositionOutOfRange,
            DecodeError::RunTooLong { .. } => H2dErrorClass::RunTooLong,
            DecodeError::DbpZeroOnTopPlane => H2dErrorClass::DbpZeroOnTopPlane,
            DecodeError::DeltaOutOfRange { .. } => H2dErrorClass::DeltaOutOfRange,
            DecodeError::HeaderTooLarge { .. } => H2dErrorClass::HeaderTooLarge,
            DecodeError::SizeMismatch { .. } => H2dErrorClass::SizeMismatch,
            DecodeError::StreamTruncated { .. } => H2dErrorClass::StreamTruncated,
            _ => H2dErrorClass::TrailingBytes,
        };
        match e {
            DecodeError::InChunk { chunk, source, .. } => (class_of(source), *chunk),
            DecodeError::HeaderTooLarge { chunk, .. }
            | DecodeError::SizeMismatch { chunk, .. }
            | DecodeError::StreamTruncated { chunk, .. } => (class_of(e), *chunk),
            _ => (class_of(e), chunks),
        }
    }
}

/// One addressed write the lane delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct H2dWrite {
    /// Byte address within the destination.
    pub addr: u32,
    /// The 32 bytes.
    pub data: [u8; BEAT_BYTES],
    /// Byte enables, bit `i` = byte `i`.
    pub strb: u32,
    /// Transfer id.
    pub id: u8,
    /// Holds the transfer's final byte.
    pub last: bool,
    /// Cycle it was taken.
    pub cycle: u64,
}

/// What one transfer produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct H2dResult {
    /// Transfer id.
    pub id: u8,
    /// Writes in the order they were taken.
    pub writes: Vec<H2dWrite>,
    /// The error reported (class, chunk index), if any.
    pub error: Option<(H2dErrorClass, usize)>,
    /// Error pulses seen (exactly one for a bad transfer).
    pub error_pulses: usize,
    /// Cycle of the first error pulse.
    pub error_cycle: Option<u64>,
    /// Cycle its first beat was taken.
    pub first_beat_cycle: Option<u64>,
    /// Cycle `done` pulsed.
    pub done_cycle: Option<u64>,
}

impl H2dResult {
    /// The destination bytes the writes left, `raw_bytes` long, with `fill` where nothing was
    /// written; and whether any write fell outside `[0, raw_bytes)` or wrote a byte twice.
    pub fn memory(&self, raw_bytes: usize, fill: u8) -> (Vec<u8>, bool) {
        let mut mem = vec![fill; raw_bytes];
        let mut seen = vec![false; raw_bytes];
        let mut bad = false;
        for w in &self.writes {
            for i in 0..BEAT_BYTES {
                if w.strb >> i & 1 == 1 {
                    let a = w.addr as usize + i;
                    if a >= raw_bytes || seen[a] {
                        bad = true;
                    } else {
                        mem[a] = w.data[i];
                        seen[a] = true;
                    }
                }
            }
        }
        (mem, bad)
    }

    /// Bytes written.
    pub fn bytes_written(&self) -> usize {
        self.writes.iter().map(|w| w.strb.count_ones() as usize).sum()
    }

    /// Cycles from the first beat taken to the last write taken (or to `done` for a transfer
    /// without writes): the lane's per-transfer latency.
    pub fn latency_cycles(&self) -> Option<u64> {
        let end = self.writes.last().map(|w| w.cycle).or(self.done_cycle)?;
        Some(end - self.first_beat_cycle?)
    }
}

struct Desc {
    id: u8,
    w16: bool,
    raw_bytes: u32,
}

/// One 32-byte beat of a chunk stream as the lane's input port carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamBeat {
    /// Word `k` = stream bytes `4k … 4k+3` of the beat, little-endian; zero past the stream.
    pub words: [u32; 8],
    /// Valid bytes (32 except on the last beat).
    pub bytes: u8,
    /// Last beat of the stream.
    pub last: bool,
}

/// A chunk stream cut into beats; an empty stream is one beat of 0 bytes.
pub fn stream_beats(stream: &[u8]) -> Vec<StreamBeat> {
    let mut words = super::beats::beat_words(stream);
    if words.is_empty() {
        words.push([0; 8]);
    }
    let beats = words.len();
    words
        .into_iter()
        .enumerate()
        .map(|(b, words)| {
            let bytes = (stream.len() - (b * BEAT_BYTES).min(stream.len())).min(BEAT_BYTES) as u8;
            StreamBeat { words, bytes, last: b + 1 == beats }
        })
        .collect()
}

struct Beat {
    beat: StreamBeat,
    first: bool,
}

/// Which ports move in a cycle: the descriptor and beat sources offer `valid` only when their
/// flag is set, the memory is ready only when `out_ready` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct H2dPorts {
    /// The descriptor source offers its next descriptor.
    pub desc_valid: bool,
    /// The stream source offers its next beat.
    pub in_valid: bool,
    /// The memory takes a write.
    pub out_ready: bool,
}

impl H2dPorts {
    /// No backpressure anywhere.
    pub const FREE: H2dPorts = H2dPorts { desc_valid: true, in_valid: true, out_ready: true };

    /// Backpressure from an xorshift32 state: each port is held off in about one cycle of four.
    pub fn from_xorshift(x: &mut u32) -> H2dPorts {
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        H2dPorts { desc_valid: *x & 3 != 0, in_valid: (*x >> 2) & 3 != 0, out_ready: (*x >> 4) & 3 != 0 }
    }
}

/// A simulated host-to-device lane with its queued traffic.
pub struct H2dSim {
    lane: Box<DecompressorLane>,
    descs: VecDeque<Desc>,
    beats: VecDeque<Beat>,
    results: Vec<H2dResult>,
    started: usize,
    finished: usize,
    cycle: u64,
    vcd: Option<VCDProbe<Box<dyn Write>>>,
}

impl Default for H2dSim {
    fn default() -> Self {
        Self::new()
    }
}

impl H2dSim {
    /// A lane after one reset cycle, with no traffic queued.
    pub fn new() -> Self {
        let mut lane = Box::new(DecompressorLane::default());
        lane.connect_all();
        check_all(lane.as_ref()).expect("h2d lane wiring check");
        let mut sim = H2dSim {
            lane,
            descs: VecDeque::new(),
            beats: VecDeque::new(),
            results: Vec::new(),
            started: 0,
            finished: 0,
            cycle: 0,
            vcd: None,
        };
        sim.lane.reset.next = true;
        sim.clock_edge();
        sim.lane.reset.next = false;
        sim.cycle = 0;
        sim
    }

    /// Traces every signal of the lane to `out` as VCD from now on (one time unit per half cycle).
    pub fn trace_to(&mut self, out: Box<dyn Write>) {
        self.vcd = Some(write_vcd_header(out, self.lane.as_ref()));
    }

    /// Stops tracing and flushes the VCD writer.
    pub fn finish_trace(&mut self) {
        self.vcd = None;
    }

    /// Queues one transfer: its descriptor and its chunk stream cut into 32-byte beats (an
    /// empty stream as one beat of 0 bytes). `raw_bytes` is what the descriptor claims.
    pub fn queue_transfer(&mut self, stream: &[u8], raw_bytes: u32, width: SymbolWidth, id: u8) {
        self.descs.push_back(Desc { id, w16: width == SymbolWidth::W16, raw_bytes });
        for (b, beat) in stream_beats(stream).into_iter().enumerate() {
            self.beats.push_back(Beat { beat, first: b == 0 });
        }
        self.results.push(H2dResult { id, ..H2dResult::default() });
    }

    /// Cycles simulated since reset.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// True when every queued transfer has reported `done`.
    pub fn idle(&self) -> bool {
        self.finished == self.results.len()
    }

    /// The transfers queued so far, in order, with what they produced up to now.
    pub fn results(&self) -> &[H2dResult] {
        &self.results
    }

    /// Simulates one clock cycle with the given port behaviour.
    pub fn step(&mut self, ports: H2dPorts) {
        let lane = &mut self.lane;
        let desc_valid = ports.desc_valid && !self.descs.is_empty();
        lane.desc_valid.next = desc_valid;
        if let Some(d) = self.descs.front() {
            lane.desc_id.next = (d.id as u64).into();
            lane.desc_w16.next = d.w16;
            lane.desc_raw_bytes.next = (d.raw_bytes as u64).into();
        }
        let in_valid = ports.in_valid && !self.beats.is_empty();
        lane.in_valid.next = in_valid;
        if let Some(Beat { beat: b, .. }) = self.beats.front() {
            for (k, w) in b.words.iter().enumerate() {
                lane.in_data[k].next = (*w as u64).into();
            }
            lane.in_bytes.next = (b.bytes as u64).into();
            lane.in_last.next = b.last;
        }
        lane.out_ready.next = ports.out_ready;
        simulate(lane.as_mut(), 1000);
        if desc_valid && lane.desc_ready.val() {
            self.descs.pop_front();
            self.started += 1;
        }
        if in_valid && lane.in_ready.val() {
            let beat = self.beats.pop_front().expect("a beat was offered");
            if beat.first {
                // Beats are only taken for the transfer whose descriptor is active.
                self.results[self.started - 1].first_beat_cycle = Some(self.cycle);
            }
        }
        let current = self.finished;
        if lane.out_valid.val() && ports.out_ready {
            let mut data = [0u8; BEAT_BYTES];
            for (k, w) in lane.out_data.iter().enumerate() {
                data[4 * k..4 * k + 4].copy_from_slice(&w.val().to_u32().to_le_bytes());
            }
            let write = H2dWrite {
                addr: lane.out_addr.val().to_u32(),
                data,
                strb: lane.out_strb.val().to_u32(),
                id: lane.out_id.val().to_u32() as u8,
                last: lane.out_last.val(),
                cycle: self.cycle,
            };
            self.results[current].writes.push(write);
        }
        if lane.err_valid.val() {
            let class = H2dErrorClass::from_bits(lane.err_class.val().to_u32()).expect("lane reported an unknown error class");
            let r = &mut self.results[current];
            r.error.get_or_insert((class, lane.err_chunk.val().to_u32() as usize));
            r.error_cycle.get_or_insert(self.cycle);
            r.error_pulses += 1;
        }
        if lane.done.val() {
            self.results[current].done_cycle = Some(self.cycle);
            self.finished += 1;
        }
        self.clock_edge();
    }

    fn clock_edge(&mut self) {
        for level in [true, false] {
            self.lane.clock.next = Clock { clk: level };
            simulate(self.lane.as_mut(), 1000);
            if let Some(mut vcd) = self.vcd.take() {
                vcd.timestamp(2 * self.cycle + u64::from(!level)).expect("vcd timestamp");
                self.vcd = Some(write_vcd_change(vcd, self.lane.as_ref()));
            }
        }
        self.cycle += 1;
    }

    /// Runs until every queued transfer is done (or `max_cycles` pass), each cycle's port
    /// behaviour from `ports`; returns the results.
    pub fn run(&mut self, max_cycles: u64, mut ports: impl FnMut() -> H2dPorts) -> &[H2dResult] {
        let stop = self.cycle + max_cycles;
        while !self.idle() && self.cycle < stop {
            self.step(ports());
        }
        &self.results
    }
}

/// What the latency model needs to know about a transfer: its sizes and how its blocks are
/// coded (counted from the golden encoder, so from the data, not from the lane).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct H2dWork {
    /// Original bytes.
    pub raw_bytes: usize,
    /// Stream bytes, Σ (2 + header).
    pub wire_bytes: usize,
    /// Chunks stored raw.
    pub raw_chunks: usize,
    /// Bytes of the chunks stored raw.
    pub raw_chunk_bytes: usize,
    /// Blocks of compressed chunks by tag (indexed by `Tag as usize`).
    pub blocks_by_tag: [usize; 5],
    /// Plane codes of the DBX, BX and ZBX blocks of compressed chunks (a run counts once).
    pub plane_codes: usize,
    /// Loop cycles of those plane codes: three per cycle, ⌈codes / 3⌉ per block.
    pub plane_code_cycles: usize,
    /// 64-bit groups of ZVC nonzero symbols (⌈n / (64 / w)⌉ per ZVC block).
    pub zvc_symbol_groups: usize,
    /// Σ over blocks of the writer cycles (one per 32 bytes) or rebuild-stage cycles (a ZVC, BX
    /// or ZBX block holds it [`REBUILD_HOLD_CODED_CYCLES`], a DBX block
    /// [`REBUILD_HOLD_DBX_CYCLES`]) not covered by the block's loop
    /// cycles: where blocks decode faster than they can be rebuilt or written.
    pub writer_excess_cycles: usize,
    /// Cycles the last block's rebuild adds to the tail beyond a raw block's: its ready age
    /// ([`READY_AGE_CODED`] for ZVC, BX and ZBX, [`READY_AGE_DBX`] for DBX).
    pub tail_rebuild_cycles: usize,
}

/// Cycles a ZVC, BX or ZBX block holds the rebuild stage: the hand-off and its ready age.
pub const REBUILD_HOLD_CODED_CYCLES: usize = 1 + READY_AGE_CODED as usize;
/// Cycles a DBX block holds the rebuild stage: the hand-off and its ready age (the range check).
pub const REBUILD_HOLD_DBX_CYCLES: usize = 1 + READY_AGE_DBX as usize;

/// Loop cycles a block spends beyond its fields: its tag and its hand-off to the rebuild stage.
pub const BLOCK_OVERHEAD_CYCLES: u64 = 2;
/// Loop cycles of a compressed chunk beyond its blocks: header and padding check.
pub const CHUNK_OVERHEAD_CYCLES: u64 = 2;
/// Loop cycles a raw chunk spends per 32-byte beat (one beat in, one write out).
pub const RAW_BEAT_CYCLES: u64 = 1;
/// Cycles from the last field of a transfer to its last write leaving (rebuild, writer, output
/// register), plus the first beat's way into the window.
pub const PIPELINE_CYCLES: u64 = 4;

impl H2dWork {
    /// The work of each chunk of the canonical stream of `data` at `width`, in order (what the
    /// lane's contexts decode one chunk each).
    pub fn chunks_of_tensor(data: &[u8], width: SymbolWidth) -> Vec<H2dWork> {
        data.chunks(CHUNK_BYTES).map(|c| H2dWork::of_tensor(c, width)).collect()
    }

    /// The work of decoding the canonical stream of `data` at `width`.
    pub fn of_tensor(data: &[u8], width: SymbolWidth) -> H2dWork {
        let stream = encode_stream(data, width);
        let mut work = H2dWork { raw_bytes: data.len(), wire_bytes: stream.len(), ..H2dWork::default() };
        let mut offset = 0;
        for chunk in data.chunks(CHUNK_BYTES) {
            let header = u16::from_le_bytes([stream[offset], stream[offset + 1]]) as usize;
            offset += HEADER_BYTES + header;
            if header == chunk.len() {
                work.raw_chunks += 1;
                work.raw_chunk_bytes += chunk.len();
                continue;
            }
            for b in chunk.chunks(BLOCK_BYTES) {
                let mut block = [0u8; BLOCK_BYTES];
                block[..b.len()].copy_from_slice(b);
                let tag = block_sizes(&block, width).choice().0;
                work.blocks_by_tag[tag as usize] += 1;
                let codes = plane_cases(&block, width, tag).len();
                work.plane_codes += codes;
                let code_cycles = codes.div_ceil(PLANE_CODES_PER_CYCLE);
                work.plane_code_cycles += code_cycles;
                let fields = match tag {
                    Tag::Zvc => {
                        let mut syms = [0u32; 64];
                        width.load(&block, &mut syms);
                        let n = syms[..width.symbols()].iter().filter(|s| **s != 0).count();
                        let groups = n.div_ceil(64 / width.bits() as usize);
                        work.zvc_symbol_groups += groups;
                        1 + groups
                    }
                    Tag::Dbx => 1 + code_cycles,
                    Tag::Bx => code_cycles,
                    Tag::Zbx => 1 + code_cycles,
                    Tag::Raw => RAW_BLOCK_BEATS,
                };
                let writes = b.len().div_ceil(BEAT_BYTES);
                let hold = match tag {
                    Tag::Zvc | Tag::Bx | Tag::Zbx => REBUILD_HOLD_CODED_CYCLES,
                    Tag::Dbx => REBUILD_HOLD_DBX_CYCLES,
                    Tag::Raw => 0,
                };
                work.writer_excess_cycles += writes.max(hold).saturating_sub(fields + BLOCK_OVERHEAD_CYCLES as usize);
                work.tail_rebuild_cycles = hold.saturating_sub(1);
            }
        }
        work
    }
}

/// Plane codes the loop decodes per cycle (decoder A at the window head, B where A ends, C where
/// B ends).
pub const PLANE_CODES_PER_CYCLE: usize = 3;

/// 256-bit loop steps of a raw block.
const RAW_BLOCK_BEATS: usize = BLOCK_BYTES / BEAT_BYTES;

/// One decoding context's latency model (first beat taken → last write taken, no backpressure,
/// the stream decoded by a single [`ChunkDecoder`](super::chunk_decoder::ChunkDecoder)): the decode
/// loop's cycles, one field (or three plane codes) per cycle, from the transfer's sizes and code
/// counts. A block costs its fields (ZVC: mask + symbol groups; DBX: base + ⌈codes / 3⌉, its
/// range check running in the rebuild stage beside the next block's fields; BX: ⌈codes / 3⌉;
/// ZBX: mask + ⌈codes / 3⌉; raw: 4) plus tag and hand-off, or its writes or its rebuild hold
/// where those take longer; a compressed chunk adds header and padding check, a raw chunk its header and
/// [`RAW_BEAT_CYCLES`] per 32 bytes. The lane's figure, with its contexts side by side, is
/// [`h2d_lane_latency_cycles`], built on this one per chunk.
pub fn h2d_latency_cycles(work: &H2dWork) -> u64 {
    let [zvc, dbx, bx, zbx, raw] = work.blocks_by_tag.map(|n| n as u64);
    let blocks = zvc + dbx + bx + zbx + raw;
    let chunks = work.raw_bytes.div_ceil(CHUNK_BYTES) as u64;
    let raw_chunks = work.raw_chunks as u64;
    let fields = zvc + work.zvc_symbol_groups as u64 + dbx + zbx + RAW_BLOCK_BEATS as u64 * raw + work.plane_code_cycles as u64;
    let block_cycles = fields + BLOCK_OVERHEAD_CYCLES * blocks + work.writer_excess_cycles as u64;
    let raw_cycles = raw_chunks + RAW_BEAT_CYCLES * work.raw_chunk_bytes.div_ceil(BEAT_BYTES) as u64;
    block_cycles + CHUNK_OVERHEAD_CYCLES * (chunks - raw_chunks) + raw_cycles + work.tail_rebuild_cycles as u64 + PIPELINE_CYCLES
}

/// Cycles from a chunk's dispatch to its context taking the first piece.
pub const CONTEXT_START_CYCLES: u64 = 3;
/// Cycles from a context's last write leaving it to the lane's last write being taken (the
/// arbiter's output register, and the context's own tail the single-context model counts).
pub const LANE_TAIL_CYCLES: u64 = 7;
/// Cycles from a context's last write to the context taking its next chunk (done, retire).
pub const RETIRE_CYCLES: u64 = 1;
/// Decoded bytes a context runs ahead of the write port (its rebuild and writer registers).
pub const CONTEXT_SLACK_BYTES: f64 = 96.0;
/// Splitter cycles per chunk beyond its 32-byte pieces (the header cycle).
pub const SPLIT_HEADER_CYCLES: u64 = 1;

/// The lane's latency model (first beat taken → last write taken, no backpressure) from the
/// works of a transfer's chunks ([`H2dWork::chunks_of_tensor`]): chunk `k` goes to context
/// `k mod CONTEXTS` once the splitter has copied chunk `k − 1` (one header cycle and one cycle per
/// 32 stream bytes) and that context has retired chunk `k − CONTEXTS`; each context runs its
/// chunk's decode loop ([`h2d_latency_cycles`] less [`PIPELINE_CYCLES`]) producing its bytes evenly,
/// up to [`CONTEXT_SLACK_BYTES`] ahead of the write port; the port takes 32 bytes per cycle, shared
/// evenly (round robin) among the contexts with bytes waiting. A cycle-stepped fluid model, not
/// a second simulation: it knows sizes and loop cycles, not bits. Checked within ±2 cycles or
/// 1 % of the simulation by `tests/hw_h2d.rs`.
pub fn h2d_lane_latency_cycles(chunks: &[H2dWork]) -> u64 {
    use super::decompressor_lane::CONTEXTS;
    let n = chunks.len();
    if n == 0 {
        return PIPELINE_CYCLES;
    }
    // A chunk's bytes reach its writer behind its rebuild stage: its last block's ready age
    // delays its production as a whole (and so its end), not only its tail.
    let lag: Vec<u64> = chunks.iter().map(|c| c.tail_rebuild_cycles as u64).collect();
    let loop_cycles: Vec<u64> = chunks.iter().zip(&lag).map(|(c, l)| h2d_latency_cycles(c) - PIPELINE_CYCLES - l).collect();
    let rate: Vec<f64> = chunks.iter().zip(&loop_cycles).map(|(c, d)| c.raw_bytes as f64 / (*d).max(1) as f64).collect();
    let mut free = [0u64; CONTEXTS];
    let (mut feed_free, mut next, mut t) = (0u64, 0usize, 0u64);
    let mut start = vec![0u64; n];
    let (mut progress, mut produced, mut written) = (vec![0u64; n], vec![0.0f64; n], vec![0.0f64; n]);
    let mut end: Vec<Option<u64>> = vec![None; n];
    loop {
        if next < n && t >= feed_free && t >= free[next % CONTEXTS] {
            start[next] = t;
            feed_free = t + SPLIT_HEADER_CYCLES + chunks[next].wire_bytes.div_ceil(BEAT_BYTES) as u64;
            next += 1;
        }
        let live: Vec<usize> = (0..next).filter(|&j| t >= start[j] + CONTEXT_START_CYCLES + lag[j] && end[j].is_none()).collect();
        for &j in &live {
            if progress[j] < loop_cycles[j] && produced[j] - written[j] < CONTEXT_SLACK_BYTES {
                progress[j] += 1;
                produced[j] = rate[j] * progress[j] as f64;
            }
        }
        // The port's 32 bytes, max-min fair among the contexts with bytes waiting.
        let mut waiting: Vec<usize> = live.iter().copied().filter(|&j| produced[j] - written[j] > 1e-9).collect();
        waiting.sort_by(|&a, &b| (produced[a] - written[a]).total_cmp(&(produced[b] - written[b])));
        let mut capacity = BEAT_BYTES as f64;
        for (i, &j) in waiting.iter().enumerate() {
            let share = capacity / (waiting.len() - i) as f64;
            let got = (produced[j] - written[j]).min(share);
            written[j] += got;
            capacity -= got;
        }
        for &j in &live {
            if progress[j] >= loop_cycles[j] && produced[j] - written[j] < 1e-9 {
                end[j] = Some(t + LANE_TAIL_CYCLES);
                free[j % CONTEXTS] = t + LANE_TAIL_CYCLES + RETIRE_CYCLES;
            }
        }
        if next == n && end.iter().all(Option::is_some) {
            return end.into_iter().flatten().max().unwrap_or(0);
        }
        t += 1;
    }
}
