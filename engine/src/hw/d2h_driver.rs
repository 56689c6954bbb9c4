//! Cycle-by-cycle driver of the [`D2hLane`] rust-hdl simulation, and the host-memory image that
//! its writes (or those of any model of `pz_d2h_lane`) build, checked against `golden`.
//!
//! The driver offers descriptors and beats in order (the caller gates `beat_valid` per cycle to
//! make bubbles), applies a `wr_ready` pattern, and records every handshake with its cycle:
//! descriptors and beats taken, writes taken, `done` pulses. [`check_images`] then replays the
//! writes into one destination buffer per transfer and compares each with
//! [`crate::golden::encode_stream`] byte for byte.

use super::d2h_lane::D2hLane;
use crate::golden::{CHUNK_BYTES, SymbolWidth};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// Bytes per beat and per write (the shared packer's).
pub use super::beats::BEAT_BYTES;
/// The beats of a transfer (the shared packer).
pub use super::beats::beat_words;

/// One transfer: its id, symbol width and bytes.
#[derive(Clone, Debug)]
pub struct Transfer {
    /// Transfer id (carried on its writes and its `done`).
    pub id: u8,
    /// Symbol width of the descriptor.
    pub width: SymbolWidth,
    /// The tensor bytes.
    pub bytes: Vec<u8>,
}

/// One write taken from the unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    /// Cycle (after reset) in which it was taken.
    pub cycle: u64,
    /// Byte address of `data[0]` within the transfer's destination.
    pub addr: u32,
    /// The 32 data bytes.
    pub data: [u8; BEAT_BYTES],
    /// Byte enables: bit `i` = `data[i]`.
    pub be: u32,
    /// Transfer id.
    pub id: u8,
    /// The transfer's final write.
    pub last: bool,
}

/// One `done` pulse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    /// Cycle of the pulse.
    pub cycle: u64,
    /// Transfer id.
    pub id: u8,
    /// Wire bytes the unit reported.
    pub wire_bytes: u32,
}

/// Everything a run of the unit produced, with the cycle of each handshake.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Cycles in which a descriptor was taken.
    pub desc_cycles: Vec<u64>,
    /// Cycles in which a beat was taken.
    pub beat_cycles: Vec<u64>,
    /// Writes in the order they were taken.
    pub writes: Vec<Write>,
    /// `done` pulses in order.
    pub dones: Vec<Done>,
}

/// A simulated `pz_d2h_lane` plus its pending descriptors and beats and its trace.
pub struct D2hSim {
    top: Box<D2hLane>,
    descs: VecDeque<(u8, bool, u32)>,
    beats: VecDeque<[u32; 8]>,
    cycle: u64,
    /// Cycles in which the packer took a block from the lane (inside the unit; for latency and
    /// rate measurements).
    pub lane_block_cycles: Vec<u64>,
    /// Handshakes so far.
    pub trace: Trace,
}

impl Default for D2hSim {
    fn default() -> Self {
        Self::new()
    }
}

impl D2hSim {
    /// A unit after one reset cycle, with nothing queued.
    pub fn new() -> Self {
        let mut top = Box::new(D2hLane::default());
        top.connect_all();
        check_all(top.as_ref()).expect("d2h wiring check");
        let mut sim = D2hSim { top, descs: VecDeque::new(), beats: VecDeque::new(), cycle: 0, lane_block_cycles: Vec::new(), trace: Trace::default() };
        sim.top.reset.next = true;
        sim.clock_edge();
        sim.top.reset.next = false;
        sim.cycle = 0;
        sim
    }

    /// Queues a transfer's descriptor and its beats.
    pub fn queue(&mut self, t: &Transfer) {
        let len = u32::try_from(t.bytes.len()).expect("a transfer holds fewer than 2^32 bytes");
        self.descs.push_back((t.id, t.width == SymbolWidth::W16, len));
        self.beats.extend(beat_words(&t.bytes));
    }

    /// Cycles simulated since reset.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// True when every queued descriptor and beat was taken and every transfer reported done.
    pub fn idle(&self) -> bool {
        self.descs.is_empty() && self.beats.is_empty() && self.trace.dones.len() == self.trace.desc_cycles.len()
    }

    /// Simulates one cycle: the front beat is offered when `offer_beat`, the write port is ready
    /// when `wr_ready`.
    pub fn step(&mut self, offer_beat: bool, wr_ready: bool) {
        let top = &mut self.top;
        match self.descs.front() {
            Some(&(id, w16, bytes)) => {
                top.desc_valid.next = true;
                top.desc_id.next = (id as u64).into();
                top.desc_w16.next = w16;
                top.desc_bytes.next = (bytes as u64).into();
            }
            None => top.desc_valid.next = false,
        }
        let beat = if offer_beat { self.beats.front() } else { None };
        top.beat_valid.next = beat.is_some();
        if let Some(words) = beat {
            for (k, w) in words.iter().enumerate() {
                top.beat_data[k].next = (*w as u64).into();
            }
        }
        top.wr_ready.next = wr_ready;
        simulate(top.as_mut(), 1000);
        let c = self.cycle;
        if top.desc_valid.val() && top.desc_ready.val() {
            self.descs.pop_front();
            self.trace.desc_cycles.push(c);
        }
        if top.beat_valid.val() && top.beat_ready.val() {
            self.beats.pop_front();
            self.trace.beat_cycles.push(c);
        }
        if top.lane.out_valid.val() && top.lane.out_ready.val() {
            self.lane_block_cycles.push(c);
        }
        if top.wr_valid.val() && wr_ready {
            let mut data = [0u8; BEAT_BYTES];
            for (k, w) in top.wr_data.iter().enumerate() {
                data[4 * k..4 * k + 4].copy_from_slice(&w.val().to_u32().to_le_bytes());
            }
            self.trace.writes.push(Write {
                cycle: c,
                addr: top.wr_addr.val().to_u32(),
                data,
                be: top.wr_be.val().to_u32(),
                id: top.wr_id.val().to_u32() as u8,
                last: top.wr_last.val(),
            });
        }
        if top.done_valid.val() {
            self.trace.dones.push(Done { cycle: c, id: top.done_id.val().to_u32() as u8, wire_bytes: top.done_wire_bytes.val().to_u32() });
        }
        self.clock_edge();
    }

    fn clock_edge(&mut self) {
        for level in [true, false] {
            self.top.clock.next = Clock { clk: level };
            simulate(self.top.as_mut(), 1000);
        }
        self.cycle += 1;
    }

    /// Runs until [`Self::idle`] or `max_cycles` more cycles, with beats offered and writes
    /// accepted as `pattern(cycle)` = (offer_beat, wr_ready) says.
    pub fn run(&mut self, max_cycles: u64, mut pattern: impl FnMut(u64) -> (bool, bool)) {
        let stop = self.cycle + max_cycles;
        while !self.idle() && self.cycle < stop {
            let (offer, ready) = pattern(self.cycle);
            self.step(offer, ready);
        }
    }
}

/// What the writes of a run built, per transfer, and what they cost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImageSummary {
    /// Transfers checked.
    pub transfers: usize,
    /// Σ of the golden streams' wire bytes.
    pub wire_bytes: u64,
    /// Bytes the writes enabled in all (wire bytes + bytes written more than once).
    pub written_bytes: u64,
    /// Writes taken.
    pub writes: u64,
    /// Chunks stored raw by golden.
    pub raw_chunks: usize,
}

/// Worst-case destination size of a transfer of `len` bytes: every chunk raw (FORMAT.md §7).
pub fn destination_bytes(len: usize) -> usize {
    len + 2 * len.div_ceil(CHUNK_BYTES)
}

/// Replays `trace`'s writes into one destination per transfer (writes in order; a transfer's
/// writes end with its `last` write) and checks, for every transfer: each write stays inside the
/// worst-case destination and carries the transfer's id; the bytes written are exactly
/// `[0, wire size)` and equal the golden stream byte for byte; its `done` carries its id and the
/// golden wire bytes, in order. Returns a summary, or the first difference found.
pub fn check_images(transfers: &[Transfer], trace: &Trace) -> Result<ImageSummary, String> {
    let mut sum = ImageSummary { writes: trace.writes.len() as u64, ..Default::default() };
    let mut writes = trace.writes.iter().peekable();
    if trace.dones.len() != transfers.len() {
        return Err(format!("{} done pulses for {} transfers", trace.dones.len(), transfers.len()));
    }
    for (n, (t, done)) in transfers.iter().zip(&trace.dones).enumerate() {
        let (golden, stats) = crate::golden::encode_stream_with_stats(&t.bytes, t.width);
        sum.raw_chunks += stats.raw_chunks;
        let cap = destination_bytes(t.bytes.len());
        let mut image = vec![0u8; cap];
        let mut written = vec![false; cap];
        if !t.bytes.is_empty() {
            loop {
                let w = writes.next().ok_or_else(|| format!("transfer {n} (id {}): writes end before its last write", t.id))?;
                if w.id != t.id {
                    return Err(format!("transfer {n}: write at cycle {} carries id {}, expected {}", w.cycle, w.id, t.id));
                }
                for i in 0..BEAT_BYTES {
                    if w.be >> i & 1 == 1 {
                        let a = w.addr as usize + i;
                        if a >= cap {
                            return Err(format!("transfer {n}: write at cycle {} reaches byte {a}, past the {cap}-byte destination", w.cycle));
                        }
                        image[a] = w.data[i];
                        written[a] = true;
                        sum.written_bytes += 1;
                    }
                }
                if w.last {
                    break;
                }
            }
        }
        let extent = written.iter().rposition(|&b| b).map_or(0, |p| p + 1);
        if let Some(hole) = written[..extent].iter().position(|&b| !b) {
            return Err(format!("transfer {n} (id {}): byte {hole} of {extent} never written", t.id));
        }
        if extent != golden.len() {
            return Err(format!("transfer {n} (id {}, {} bytes, {:?}): {extent} bytes written, golden stream has {}", t.id, t.bytes.len(), t.width, golden.len()));
        }
        if let Some(at) = image[..extent].iter().zip(&golden).position(|(a, b)| a != b) {
            return Err(format!(
                "transfer {n} (id {}, {} bytes, {:?}): stream byte {at} is {:#04x}, golden {:#04x}",
                t.id,
                t.bytes.len(),
                t.width,
                image[at],
                golden[at]
            ));
        }
        if done.id != t.id || done.wire_bytes as usize != golden.len() {
            return Err(format!("transfer {n}: done (id {}, {} wire bytes), golden (id {}, {})", done.id, done.wire_bytes, t.id, golden.len()));
        }
        sum.transfers += 1;
        sum.wire_bytes += golden.len() as u64;
    }
    if let Some(w) = writes.next() {
        return Err(format!("a write at cycle {} after the last transfer", w.cycle));
    }
    Ok(sum)
}
