//! The host-to-device latency model of `pz_engine` ([`engine_h2d_model_cycles`]): a transfer's
//! chunks through the engine's splitter, the two [`DecompressorLane`](super::decompressor_lane::DecompressorLane)s'
//! splitters, their [`CONTEXTS`] decoding contexts each and their write arbiters, block by block.
//! It knows what the hardware's timing depends on and nothing else: the stream bytes of each
//! chunk (where its pieces arrive), and per block its decode-loop cycles (from its tag and its
//! code counts), the stream byte where it ends and its writes ([`H2dBlock`]); no bits.
//!
//! Each cycle the model moves what the hardware moves: the engine splitter one item (a chunk's
//! 2-byte header, one byte of it when it is split over two beats, or one segment of the body: its
//! bytes in the front 64-byte beat) into the target lane's piece buffers (while they have room); each lane one 32-byte piece into its splitter, which reads a chunk's header in one
//! cycle, hands the chunk to context `k mod CONTEXTS` once that context has retired its previous
//! chunk (contexts retire in chunk order) and copies it into the context's buffer one piece per
//! cycle; each context runs its blocks' decode loops (a block's fields once its last byte is in
//! the context's window), hands each block to its rebuild register, its write job (one write per
//! cycle) and its output register; each lane's arbiter takes one write per cycle from the
//! contexts with one waiting, round robin. State is a few counters per lane and context, so a
//! transfer costs time linear in its cycles (a 16 MiB transfer: milliseconds), not in cycles ×
//! chunks.

use super::beats::BEAT_BYTES;
use super::block_rebuild::{READY_AGE_CODED, READY_AGE_DBX, READY_AGE_RAW};
use super::decompressor_lane::CONTEXTS;
use super::engine_h2d::STREAM_BEAT_BYTES;
use super::h2d_driver::PLANE_CODES_PER_CYCLE;
use crate::golden::block::plane_cases;
use crate::golden::chunk::HEADER_BYTES;
use crate::golden::{BLOCK_BYTES, SymbolWidth, Tag, block_sizes};
use std::collections::VecDeque;

/// One item a decoding context hands to its rebuild stage: a block of a compressed chunk, or one
/// 32-byte beat of a raw chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct H2dBlock {
    /// Decode-loop cycles before the hand-off: the tag and the fields (a ZVC or ZBX mask, each
    /// group of ZVC symbols, a DBX base: one each; ⌈plane codes / 3⌉ for the planes; four for a
    /// raw block); 0 for a raw chunk's beat (read and handed off in one cycle).
    pub field_cycles: u32,
    /// Cycles the chunk's padding check waits for the item's range check when it is the
    /// chunk's last: [`READY_AGE_DBX`] for DBX (its check precedes the padding), else 0.
    pub check_cycles: u32,
    /// Cycles from the hand-off to the first cycle the rebuild stage's words can move on: 1 +
    /// its ready age by kind ([`READY_AGE_CODED`], [`READY_AGE_DBX`], [`READY_AGE_RAW`]).
    pub rebuild_cycles: u32,
    /// 32-byte writes of the item (1–4).
    pub writes: u32,
    /// Chunk-stream bytes, header included, up to and including the item's last bit.
    pub stream_end_bytes: u32,
}

/// What the host-to-device model needs of a chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct H2dChunk {
    /// Stream bytes of the chunk (2 + header).
    pub wire_bytes: u32,
    /// Its blocks (or a raw chunk's beats) in order.
    pub blocks: Vec<H2dBlock>,
}

impl H2dChunk {
    /// The chunk `chunk` (at most 4096 bytes of the tensor) as the golden encoder codes it at
    /// `width`.
    pub fn of_chunk(chunk: &[u8], width: SymbolWidth) -> H2dChunk {
        let mut blocks = Vec::with_capacity(chunk.len().div_ceil(BLOCK_BYTES));
        let mut bits = 8 * HEADER_BYTES as u64;
        for b in chunk.chunks(BLOCK_BYTES) {
            let mut block = [0u8; BLOCK_BYTES];
            block[..b.len()].copy_from_slice(b);
            let (tag, payload_bits) = block_sizes(&block, width).choice();
            bits += u64::from(crate::golden::block::TAG_BITS + payload_bits);
            let code_cycles = plane_cases(&block, width, tag).len().div_ceil(PLANE_CODES_PER_CYCLE) as u32;
            let fields = match tag {
                Tag::Zvc => {
                    let mut syms = [0u32; 64];
                    width.load(&block, &mut syms);
                    let n = syms[..width.symbols()].iter().filter(|s| **s != 0).count();
                    1 + n.div_ceil(64 / width.bits() as usize) as u32
                }
                Tag::Dbx => 1 + code_cycles,
                Tag::Bx => code_cycles,
                Tag::Zbx => 1 + code_cycles,
                Tag::Raw => RAW_BLOCK_CYCLES,
            };
            blocks.push(H2dBlock {
                field_cycles: TAG_CYCLES + fields,
                check_cycles: if tag == Tag::Dbx { READY_AGE_DBX } else { 0 },
                rebuild_cycles: 1 + match tag {
                    Tag::Dbx => READY_AGE_DBX,
                    Tag::Raw => READY_AGE_RAW,
                    Tag::Zvc | Tag::Bx | Tag::Zbx => READY_AGE_CODED,
                },
                writes: b.len().div_ceil(BEAT_BYTES) as u32,
                stream_end_bytes: bits.div_ceil(8) as u32,
            });
        }
        let body = bits.div_ceil(8) as usize - HEADER_BYTES;
        if body < chunk.len() {
            return H2dChunk { wire_bytes: (HEADER_BYTES + body) as u32, blocks };
        }
        // Stored raw: one beat of the body per loop cycle.
        let beats = chunk.len().div_ceil(BEAT_BYTES);
        let blocks = (0..beats)
            .map(|k| H2dBlock {
                field_cycles: 0,
                check_cycles: 0,
                rebuild_cycles: 1 + READY_AGE_RAW,
                writes: 1,
                stream_end_bytes: (HEADER_BYTES + ((k + 1) * BEAT_BYTES).min(chunk.len())) as u32,
            })
            .collect();
        H2dChunk { wire_bytes: (HEADER_BYTES + chunk.len()) as u32, blocks }
    }
}

/// Loop cycles of a block's 3-bit tag.
pub const TAG_CYCLES: u32 = 1;
/// Loop cycles of a raw block's 128 bytes (256 bits per cycle).
pub const RAW_BLOCK_CYCLES: u32 = (BLOCK_BYTES / BEAT_BYTES) as u32;
/// Pieces (32 bytes each) each of a lane's two input buffers holds
/// ([`ChunkFifo`](super::chunk_fifo::ChunkFifo)); a context's buffer of the same size holds a
/// whole chunk, so it never fills and is not counted.
pub const PIECE_BUFFER_PIECES: usize = super::chunk_fifo::FIFO_BEATS as usize;
/// Cycles from a piece's push into a [`ChunkFifo`](super::chunk_fifo::ChunkFifo) to the cycle
/// it can be taken from its head.
pub const PIECE_BUFFER_CYCLES: u64 = 2;
/// Beats a splitter's input register holds (the engine's of 64 bytes, a lane's of 32).
pub const SPLITTER_HELD_BEATS: usize = 2;
/// Cycles from a context's finish (its loop done, its last write gone) to the cycle its lane may
/// retire it (its `done` pulse, then the lane's latch).
pub const FINISH_TO_RETIRE_CYCLES: u64 = 2;
/// Cycles from a context's retirement to the lane's splitter seeing it free.
pub const RETIRE_TO_FREE_CYCLES: u64 = 1;
/// Loop cycles from a compressed chunk's last hand-off (and check) to its finish state: the
/// padding check and the end-of-stream state.
pub const COMPRESSED_TAIL_CYCLES: u64 = 3;
/// Loop cycles from a raw chunk's last hand-off to its finish state (the end-of-stream state).
pub const RAW_TAIL_CYCLES: u64 = 2;
/// Cycles from an arbiter's grant to the write being on the port (the lane's output register).
pub const GRANT_TO_PORT_CYCLES: u64 = 1;

/// A piece in a buffer: its bytes and the cycle it can be taken.
#[derive(Clone, Copy)]
struct Piece {
    /// Stream bytes of the piece (32 but for a chunk's or lane's last).
    bytes: u32,
    /// First cycle it can be taken from its buffer's head.
    ready: u64,
}

/// A context's decode loop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loop {
    /// No chunk.
    Idle,
    /// Reading the chunk's header from this cycle on.
    Header { from: u64 },
    /// Block `b`'s fields from cycle `from` on.
    Block { b: usize, from: u64 },
    /// Waiting from cycle `from` for its last write to leave.
    Finish { from: u64 },
}

/// One decoding context of a lane.
struct Context {
    /// Lane chunk index it decodes.
    chunk: usize,
    /// Its decode loop's state.
    state: Loop,
    /// Its buffer's pieces not yet in its window.
    fifo: VecDeque<Piece>,
    /// Chunk bytes in its window (taken from its buffer before this cycle).
    window_bytes: u32,
    /// The same a cycle earlier (what a field's step saw).
    window_prev: u32,
    /// The rebuild register holds an item with this many writes.
    rb: Option<(u32, u64)>,
    /// The write job: writes left.
    job: Option<u32>,
    /// Its output register holds a write.
    out: bool,
    /// Busy in the lane's eyes (dispatched, not yet retired).
    busy: bool,
    /// Cycle it is free for its next chunk.
    free_at: u64,
    /// Cycle its finish was seen (retirement pending).
    finished: Option<u64>,
}

impl Context {
    fn new() -> Context {
        Context { chunk: 0, state: Loop::Idle, fifo: VecDeque::new(), window_bytes: 0, window_prev: 0, rb: None, job: None, out: false, busy: false, free_at: 0, finished: None }
    }
}

/// The lane splitter's state.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Split {
    /// Waiting to read the next chunk's header.
    Header,
    /// Copying the chunk, `left` bytes to go.
    Feed { left: u32 },
    /// After the lane's last chunk.
    Done,
}

/// One host-to-device lane of the engine.
struct Lane<'a> {
    /// Its chunks (the transfer's `c ≡ lane mod 2`), in order.
    chunks: Vec<&'a H2dChunk>,
    /// Its two input buffers' pieces, in order (piece `q` in buffer `q mod 2`).
    input: VecDeque<Piece>,
    /// Pieces in each input buffer as its `room` flop last saw them.
    held: [usize; 2],
    /// Input buffer of the next piece pushed.
    wpar: usize,
    /// Input buffer of the next piece read.
    rpar: usize,
    /// The repacker's partial piece (bytes).
    fill: u32,
    /// The lane's last partial piece waits to be flushed.
    flush: bool,
    /// Its splitter's input register: the bytes left of each held piece, front first.
    ib: VecDeque<u32>,
    /// Stream bytes of its chunks.
    wire_bytes: u32,
    /// Stream bytes its input has taken.
    taken_bytes: u32,
    /// The lane's input took its last piece.
    in_done: bool,
    /// Its splitter's state.
    split: Split,
    /// Next lane chunk to dispatch.
    next: usize,
    /// Context the current chunk is copied into.
    fctx: usize,
    /// Its decoding contexts.
    ctxs: Vec<Context>,
    /// Next context to retire (chunk order).
    rctx: usize,
    /// Round-robin pointer of the write arbiter.
    rr: usize,
    /// Cycle of the lane's last write on its port.
    last_write: Option<u64>,
    /// Its input takes a piece this cycle (`in_ready`, registered from the last cycle's
    /// occupancy of its splitter's input register).
    in_ready: bool,
}

impl<'a> Lane<'a> {
    fn new(chunks: Vec<&'a H2dChunk>) -> Lane<'a> {
        Lane {
            input: VecDeque::new(),
            held: [0, 0],
            wpar: 0,
            rpar: 0,
            fill: 0,
            flush: false,
            ib: VecDeque::new(),
            wire_bytes: chunks.iter().map(|c| c.wire_bytes).sum(),
            taken_bytes: 0,
            in_done: false,
            split: Split::Header,
            next: 0,
            fctx: 0,
            ctxs: (0..CONTEXTS).map(|_| Context::new()).collect(),
            rctx: 0,
            rr: 0,
            last_write: None,
            in_ready: true,
            chunks,
        }
    }

    fn room(&self) -> bool {
        self.held[0] < PIECE_BUFFER_PIECES && self.held[1] < PIECE_BUFFER_PIECES
    }

    fn push_piece(&mut self, bytes: u32, t: u64) {
        self.input.push_back(Piece { bytes, ready: t + PIECE_BUFFER_CYCLES });
        self.held[self.wpar] += 1;
        self.wpar ^= 1;
    }

    fn finished(&self) -> bool {
        self.next == self.chunks.len() && self.ctxs.iter().all(|c| !c.busy)
    }

    /// One cycle of the lane from its input buffers to its write port.
    fn step(&mut self, t: u64) {
        // The contexts' loops, rebuild registers, jobs and output registers; the arbiter.
        let n = CONTEXTS;
        let grant = (0..n).map(|k| (self.rr + k) % n).find(|&i| self.ctxs[i].out);
        if let Some(g) = grant {
            self.rr = (g + 1) % n;
            self.last_write = Some(t + GRANT_TO_PORT_CYCLES);
        }
        let mut dispatched_free = [false; CONTEXTS];
        for (i, c) in self.ctxs.iter_mut().enumerate() {
            dispatched_free[i] = !c.busy && t >= c.free_at;
            let out_free = !c.out || grant == Some(i);
            let job_fin = c.job == Some(1) && out_free;
            let job_free = c.job.is_none() || job_fin;
            let rb_move = c.rb.is_some_and(|(_, ready)| t >= ready) && job_free;
            let rb_free = c.rb.is_none() || rb_move;
            let chunk = self.chunks.get(c.chunk);
            // The decode loop.
            let mut push = None;
            match c.state {
                Loop::Idle => {}
                Loop::Header { from } => {
                    if t >= from && c.window_bytes >= HEADER_BYTES as u32 {
                        c.state = Loop::Block { b: 0, from: t + 1 };
                    }
                }
                Loop::Block { b, from } => {
                    let blk = chunk.expect("a context with a block has a chunk").blocks[b];
                    // A block's last field steps once its last byte is in the window; a raw
                    // chunk's beat is read in its hand-off cycle.
                    let seen = if blk.field_cycles > 0 { c.window_prev } else { c.window_bytes };
                    if t >= from + u64::from(blk.field_cycles) && seen >= blk.stream_end_bytes && rb_free {
                        push = Some((blk.writes, t + u64::from(blk.rebuild_cycles)));
                        let blocks = chunk.unwrap().blocks.len();
                        let raw = blk.field_cycles == 0;
                        c.state = if b + 1 < blocks {
                            Loop::Block { b: b + 1, from: t + 1 }
                        } else {
                            Loop::Finish { from: t + u64::from(blk.check_cycles) + if raw { RAW_TAIL_CYCLES } else { COMPRESSED_TAIL_CYCLES } }
                        };
                    }
                }
                Loop::Finish { from } => {
                    if t >= from && c.rb.is_none() && c.job.is_none() && !c.out && c.finished.is_none() {
                        c.finished = Some(t);
                    }
                }
            }
            // The writer: output register, job, rebuild register.
            let emit = c.job.is_some() && out_free;
            c.out = emit || (c.out && grant != Some(i));
            if emit {
                c.job = c.job.map(|w| w - 1).filter(|w| *w > 0);
            }
            if rb_move {
                c.job = c.rb.take().map(|(w, _)| w);
            }
            if let Some(w) = push {
                c.rb = Some(w);
            }
            // The window takes one piece of its buffer per cycle.
            c.window_prev = c.window_bytes;
            if let Some(p) = c.fifo.front() {
                if p.ready <= t {
                    c.window_bytes += p.bytes;
                    c.fifo.pop_front();
                }
            }
        }
        // Retirement in chunk order.
        let r = self.rctx;
        if let Some(f) = self.ctxs[r].finished {
            if self.ctxs[r].busy && t >= f + FINISH_TO_RETIRE_CYCLES {
                let c = &mut self.ctxs[r];
                c.busy = false;
                c.finished = None;
                c.state = Loop::Idle;
                c.free_at = t + RETIRE_TO_FREE_CYCLES;
                self.rctx = (r + 1) % CONTEXTS;
            }
        }
        // The splitter: a header, or one piece of the current chunk, per cycle.
        let avail: u32 = self.ib.iter().sum();
        let mut taken = 0;
        match self.split {
            Split::Header => {
                let d = self.next % CONTEXTS;
                if self.next < self.chunks.len() && (avail >= HEADER_BYTES as u32 || self.in_done) && dispatched_free[d] {
                    let c = &mut self.ctxs[d];
                    c.chunk = self.next;
                    c.state = Loop::Header { from: t + 1 };
                    c.window_bytes = 0;
                    c.window_prev = 0;
                    c.busy = true;
                    self.fctx = d;
                    self.split = Split::Feed { left: self.chunks[self.next].wire_bytes };
                    self.next += 1;
                }
            }
            Split::Feed { left } => {
                let n = avail.min(left).min(BEAT_BYTES as u32);
                if n > 0 {
                    self.ctxs[self.fctx].fifo.push_back(Piece { bytes: n, ready: t + PIECE_BUFFER_CYCLES });
                    taken = n;
                    self.split = if n < left {
                        Split::Feed { left: left - n }
                    } else if self.next < self.chunks.len() {
                        Split::Header
                    } else {
                        Split::Done
                    };
                }
            }
            Split::Done => {}
        }
        while taken > 0 {
            let front = self.ib.front_mut().expect("bytes taken were held");
            let k = taken.min(*front);
            *front -= k;
            taken -= k;
            if *front == 0 {
                self.ib.pop_front();
            }
        }
        // The input: one piece per cycle from the buffer at `rpar`.
        if self.in_ready {
            if let Some(p) = self.input.front() {
                if p.ready <= t {
                    self.ib.push_back(p.bytes);
                    self.taken_bytes += p.bytes;
                    self.input.pop_front();
                    self.held[self.rpar] -= 1;
                    self.rpar ^= 1;
                    self.in_done = self.taken_bytes == self.wire_bytes;
                }
            }
        }
        self.in_ready = !self.in_done && self.ib.len() < SPLITTER_HELD_BEATS;
    }
}

/// Host-to-device latency of a transfer whose chunks are `chunks` (in order), alone in an idle
/// engine without backpressure: cycles from its first stream beat taken to its last write
/// taken (see the module docs). 0 for no chunks.
pub fn engine_h2d_model_cycles<'a>(chunks: impl IntoIterator<Item = &'a H2dChunk>) -> u64 {
    let chunks: Vec<&H2dChunk> = chunks.into_iter().collect();
    if chunks.is_empty() {
        return 0;
    }
    let mut lanes = [Lane::new(chunks.iter().copied().step_by(LANES).collect()), Lane::new(chunks.iter().copied().skip(1).step_by(LANES).collect())];
    let total: u64 = chunks.iter().map(|c| u64::from(c.wire_bytes)).sum();
    let beat = STREAM_BEAT_BYTES as u64;
    let beats = total.div_ceil(beat);
    // The engine's input register (bytes left of each held beat) and splitter.
    let (mut ib, mut fired, mut in_ready) = (VecDeque::<u32>::new(), 0u64, true);
    // `body_left`: Some(bytes) once the current chunk's header is read; `header_split`: its
    // first header byte was the front beat's last.
    let (mut c, mut body_left, mut header_split) = (0usize, None::<u32>, false);
    let limit = 1000 + 64 * total;
    let mut t = 0u64;
    loop {
        assert!(t < limit, "the host-to-device model did not finish in {limit} cycles");
        let room = [lanes[0].room(), lanes[1].room()];
        let mut routed = None;
        if c < chunks.len() && room[c % 2] {
            // One item per cycle: the chunk's header (a header split over two beats: one byte
            // from each), or one segment of its body (its bytes in the front beat).
            let need = match (body_left, header_split) {
                (Some(left), _) => left,
                (None, true) => 1,
                (None, false) => HEADER_BYTES as u32,
            };
            let front = ib.front().copied();
            if front.is_some() || need == 0 {
                let n = front.unwrap_or(0).min(need);
                if let Some(f) = ib.front_mut() {
                    *f -= n;
                    if *f == 0 {
                        ib.pop_front();
                    }
                }
                let body = chunks[c].wire_bytes - HEADER_BYTES as u32;
                let mut chunk_done = false;
                match (body_left, header_split) {
                    (Some(left), _) => {
                        body_left = Some(left - n).filter(|&l| l > 0);
                        chunk_done = left == n;
                    }
                    (None, true) => {
                        header_split = false;
                        body_left = Some(body);
                    }
                    (None, false) if n == 1 => header_split = true,
                    (None, false) => body_left = Some(body),
                }
                let lane = &mut lanes[c % 2];
                routed = Some(c % 2);
                lane.fill += n;
                let mut pushed = 0;
                while lane.fill >= BEAT_BYTES as u32 {
                    lane.push_piece(BEAT_BYTES as u32, t);
                    lane.fill -= BEAT_BYTES as u32;
                    pushed += 1;
                }
                if chunk_done {
                    // The lane's last chunk leaves its partial piece (or, when this cycle pushed
                    // none, an empty one) to a flush.
                    lane.flush = c + LANES >= chunks.len() && (lane.fill > 0 || pushed == 0);
                    c += 1;
                }
            }
        }
        for (l, lane) in lanes.iter_mut().enumerate() {
            if lane.flush && routed != Some(l) && lane.held[lane.wpar] < PIECE_BUFFER_PIECES {
                let bytes = lane.fill;
                lane.push_piece(bytes, t);
                lane.fill = 0;
                lane.flush = false;
            }
        }
        if in_ready && fired < beats {
            ib.push_back((total - fired * beat).min(beat) as u32);
            fired += 1;
        }
        in_ready = fired < beats && ib.len() < SPLITTER_HELD_BEATS;
        for lane in lanes.iter_mut() {
            lane.step(t);
        }
        if c == chunks.len() && lanes.iter().all(Lane::finished) {
            return lanes.iter().filter_map(|l| l.last_write).max().unwrap_or(0);
        }
        t += 1;
    }
}

/// Host-to-device lanes of the engine (chunk `c` to lane `c mod 2`).
const LANES: usize = 2;
