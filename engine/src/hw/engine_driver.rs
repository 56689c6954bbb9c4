//! Cycle-by-cycle driver of the [`Engine`] (`pz_engine`) rust-hdl simulation, with
//! backpressure on every port, and the checks of what its writes built against `golden`.
//!
//! Device to host: [`EngineSim::queue_d2h`] offers a transfer's descriptor and its beats, chunk
//! `c`'s beats on beat port `c mod 2`; [`check_d2h`] replays each write port's writes in order
//! into one host buffer per transfer and compares it with [`crate::golden::encode_stream`] byte
//! for byte, and `done` with the golden wire bytes. Host to device:
//! [`EngineSim::queue_h2d`] offers the golden stream as 64-byte beats; [`check_h2d`] checks that
//! the writes of both ports put every original byte exactly once. Both checks read an
//! [`EngineTrace`], the record of a run that the Verilator model of the exported `pz_engine`
//! (`cocotb-free-tests`) produces too, cycle for cycle the same.

use super::beats::{BEAT_BYTES, beat_words};
use super::d2h_driver::{Done, Transfer, Write, destination_bytes};
use super::engine_h2d::STREAM_BEAT_BYTES;
use super::engine_top::Engine;
use super::h2d_driver::{H2dErrorClass, H2dWrite};
use super::malformed::StreamCase;
use crate::golden::{CHUNK_BYTES, SymbolWidth};
use rust_hdl::prelude::*;
use std::collections::VecDeque;


/// Which ports move in a cycle: sources offer `valid` only when their flag is set, the
/// memories are ready only when theirs is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnginePorts {
    /// The device-to-host descriptor source offers its next descriptor.
    pub d2h_desc: bool,
    /// Each device-to-host beat source offers its next beat.
    pub d2h_beat: [bool; 2],
    /// Each host-memory write port takes a write.
    pub d2h_wr_ready: [bool; 2],
    /// The host-to-device descriptor source offers its next descriptor.
    pub h2d_desc: bool,
    /// The host-to-device stream source offers its next 64-byte beat.
    pub h2d_in: bool,
    /// Each device-memory write port takes a write.
    pub h2d_out_ready: [bool; 2],
}

impl EnginePorts {
    /// No backpressure anywhere.
    pub const FREE: EnginePorts = EnginePorts { d2h_desc: true, d2h_beat: [true; 2], d2h_wr_ready: [true; 2], h2d_desc: true, h2d_in: true, h2d_out_ready: [true; 2] };

    /// Backpressure from an xorshift32 state: each port is held off in about one cycle of four.
    pub fn from_xorshift(x: &mut u32) -> EnginePorts {
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        let b = |i: u32| (*x >> (2 * i)) & 3 != 0;
        EnginePorts { d2h_desc: b(0), d2h_beat: [b(1), b(2)], d2h_wr_ready: [b(3), b(4)], h2d_desc: b(5), h2d_in: b(6), h2d_out_ready: [b(7), b(8)] }
    }
}

/// One 64-byte stream beat of the host-to-device input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamBeat64 {
    /// The beat as 16 little-endian words (word `k` = bytes `4k … 4k+3`), zero past `bytes`.
    pub words: [u32; 16],
    /// Valid bytes of the beat (0–64).
    pub bytes: u8,
    /// Last beat of the transfer's stream.
    pub last: bool,
}

/// A host-to-device chunk stream as the engine's 64-byte input beats, in order (an empty stream
/// is one beat of 0 bytes): what [`EngineSim::queue_h2d`] offers, and any other driver of
/// `pz_engine` must.
pub fn stream_beats64(stream: &[u8]) -> Vec<StreamBeat64> {
    let n = stream.len().div_ceil(STREAM_BEAT_BYTES).max(1);
    (0..n)
        .map(|b| {
            let part = &stream[(b * STREAM_BEAT_BYTES).min(stream.len())..((b + 1) * STREAM_BEAT_BYTES).min(stream.len())];
            let mut words = [0u32; 16];
            for (w, quad) in words.iter_mut().zip(part.chunks(4)) {
                let mut le = [0u8; 4];
                le[..quad.len()].copy_from_slice(quad);
                *w = u32::from_le_bytes(le);
            }
            StreamBeat64 { words, bytes: part.len() as u8, last: b + 1 == n }
        })
        .collect()
}

/// A device-to-host transfer's bytes as the beats of the engine's two beat ports: chunk `c`'s
/// beats on port `c mod 2`, each port's in order (what [`EngineSim::queue_d2h`] offers).
pub fn d2h_port_beats(bytes: &[u8]) -> [Vec<[u32; 8]>; 2] {
    let mut ports = [Vec::new(), Vec::new()];
    for (c, chunk) in bytes.chunks(CHUNK_BYTES).enumerate() {
        ports[c % 2].extend(beat_words(chunk));
    }
    ports
}

/// Per-transfer handshake cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransferCycles {
    /// Cycle the first beat was taken (none for a transfer without beats).
    pub first_beat: Option<u64>,
    /// Cycle the last beat was taken.
    pub last_beat: Option<u64>,
}

/// Everything a run of `pz_engine` produced, with the cycle (after reset) of each event: the
/// trace [`EngineSim`] records and any other model of the engine (the Verilator model of
/// `cocotb-free-tests`) reports, so that [`check_d2h`] and [`check_h2d`] judge either and two
/// runs compare with `==`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineTrace {
    /// Writes taken from each device-to-host (host-memory) write port, in order.
    pub d2h_writes: [Vec<Write>; 2],
    /// Device-to-host `done` pulses in order.
    pub d2h_dones: Vec<Done>,
    /// Device-to-host beat cycles per queued transfer.
    pub d2h_cycles: Vec<TransferCycles>,
    /// Every device-to-host beat taken: (cycle, index of its transfer in queue order), port 0's
    /// before port 1's within a cycle.
    pub d2h_beat_log: Vec<(u64, usize)>,
    /// Writes taken from each host-to-device (device-memory) write port, in order.
    pub h2d_writes: [Vec<H2dWrite>; 2],
    /// Host-to-device `done` pulses: (cycle, id).
    pub h2d_dones: Vec<(u64, u8)>,
    /// Host-to-device error pulses: (cycle, id, class, chunk).
    pub h2d_errors: Vec<(u64, u8, Option<H2dErrorClass>, usize)>,
    /// Host-to-device beat cycles per queued transfer.
    pub h2d_cycles: Vec<TransferCycles>,
}

impl EngineTrace {
    /// Records a device-to-host beat of transfer `t` taken in `cycle`.
    pub fn d2h_beat(&mut self, cycle: u64, t: usize) {
        self.d2h_beat_log.push((cycle, t));
        let tc = &mut self.d2h_cycles[t];
        tc.first_beat = Some(tc.first_beat.map_or(cycle, |f| f.min(cycle)));
        tc.last_beat = Some(cycle);
    }

    /// Records a host-to-device beat of transfer `t` taken in `cycle`.
    pub fn h2d_beat(&mut self, cycle: u64, t: usize) {
        let tc = &mut self.h2d_cycles[t];
        tc.first_beat.get_or_insert(cycle);
        tc.last_beat = Some(cycle);
    }
}

/// A simulated `pz_engine` with its queued traffic in both directions and what it produced.
pub struct EngineSim {
    top: Box<Engine>,
    cycle: u64,
    d2h_descs: VecDeque<(u8, bool, u32)>,
    d2h_beats: [VecDeque<([u32; 8], usize)>; 2],
    h2d_descs: VecDeque<(u8, bool, u32)>,
    h2d_beats: VecDeque<(StreamBeat64, usize)>,
    d2h_queued: usize,
    h2d_queued: usize,
    /// What the engine did so far.
    pub trace: EngineTrace,
}

impl Default for EngineSim {
    fn default() -> Self {
        Self::new()
    }
}

fn set_words<const N: usize>(ports: &mut [Signal<In, Bits<32>>; N], words: &[u32; N]) {
    for (p, w) in ports.iter_mut().zip(words) {
        p.next = (*w as u64).into();
    }
}

fn word_bytes(ports: &[Signal<Out, Bits<32>>; 8]) -> [u8; BEAT_BYTES] {
    let mut data = [0u8; BEAT_BYTES];
    for (k, w) in ports.iter().enumerate() {
        data[4 * k..4 * k + 4].copy_from_slice(&w.val().to_u32().to_le_bytes());
    }
    data
}

impl EngineSim {
    /// An engine after one reset cycle, with nothing queued.
    pub fn new() -> Self {
        // Four lanes' worth of fields overflow a test thread's stack while `Default` builds them
        // in place, so the engine is built on a thread with room for it.
        let mut top = std::thread::Builder::new()
            .stack_size(super::ENGINE_BUILD_STACK_BYTES)
            .spawn(|| Box::new(Engine::default()))
            .expect("spawn the engine builder")
            .join()
            .expect("build the engine");
        top.connect_all();
        check_all(top.as_ref()).expect("engine wiring check");
        let mut sim = EngineSim {
            top,
            cycle: 0,
            d2h_descs: VecDeque::new(),
            d2h_beats: [VecDeque::new(), VecDeque::new()],
            h2d_descs: VecDeque::new(),
            h2d_beats: VecDeque::new(),
            d2h_queued: 0,
            h2d_queued: 0,
            trace: EngineTrace::default(),
        };
        sim.top.reset.next = true;
        sim.clock_edge();
        sim.top.reset.next = false;
        sim.cycle = 0;
        sim
    }

    /// Queues a device-to-host transfer: its descriptor, and chunk `c`'s beats on port `c mod 2`
    /// ([`d2h_port_beats`]).
    pub fn queue_d2h(&mut self, t: &Transfer) {
        let len = u32::try_from(t.bytes.len()).expect("a transfer holds fewer than 2^32 bytes");
        self.d2h_descs.push_back((t.id, t.width == SymbolWidth::W16, len));
        for (queue, beats) in self.d2h_beats.iter_mut().zip(d2h_port_beats(&t.bytes)) {
            queue.extend(beats.into_iter().map(|w| (w, self.d2h_queued)));
        }
        self.trace.d2h_cycles.push(TransferCycles::default());
        self.d2h_queued += 1;
    }

    /// Queues a host-to-device transfer: its descriptor and `stream` as 64-byte beats
    /// ([`stream_beats64`]).
    pub fn queue_h2d(&mut self, stream: &[u8], raw_bytes: u32, width: SymbolWidth, id: u8) {
        self.h2d_descs.push_back((id, width == SymbolWidth::W16, raw_bytes));
        self.h2d_beats.extend(stream_beats64(stream).into_iter().map(|b| (b, self.h2d_queued)));
        self.trace.h2d_cycles.push(TransferCycles::default());
        self.h2d_queued += 1;
    }

    /// Cycles simulated since reset.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// True when everything queued was taken and every transfer of both directions is done.
    pub fn idle(&self) -> bool {
        self.d2h_descs.is_empty()
            && self.d2h_beats.iter().all(VecDeque::is_empty)
            && self.trace.d2h_dones.len() == self.d2h_queued
            && self.h2d_descs.is_empty()
            && self.h2d_beats.is_empty()
            && self.trace.h2d_dones.len() == self.h2d_queued
    }

    /// Simulates one cycle with the port behaviour `p`.
    pub fn step(&mut self, p: EnginePorts) {
        let c = self.cycle;
        let top = &mut self.top;
        // ---- offer
        let d = if p.d2h_desc { self.d2h_descs.front().copied() } else { None };
        top.d2h_desc_valid.next = d.is_some();
        if let Some((id, w16, bytes)) = d {
            top.d2h_desc_id.next = (id as u64).into();
            top.d2h_desc_w16.next = w16;
            top.d2h_desc_bytes.next = (bytes as u64).into();
        }
        let b0 = if p.d2h_beat[0] { self.d2h_beats[0].front().copied() } else { None };
        let b1 = if p.d2h_beat[1] { self.d2h_beats[1].front().copied() } else { None };
        top.d2h_beat0_valid.next = b0.is_some();
        top.d2h_beat1_valid.next = b1.is_some();
        if let Some((w, _)) = b0 {
            set_words(&mut top.d2h_beat0_data, &w);
        }
        if let Some((w, _)) = b1 {
            set_words(&mut top.d2h_beat1_data, &w);
        }
        top.d2h_wr0_ready.next = p.d2h_wr_ready[0];
        top.d2h_wr1_ready.next = p.d2h_wr_ready[1];
        let hd = if p.h2d_desc { self.h2d_descs.front().copied() } else { None };
        top.h2d_desc_valid.next = hd.is_some();
        if let Some((id, w16, raw)) = hd {
            top.h2d_desc_id.next = (id as u64).into();
            top.h2d_desc_w16.next = w16;
            top.h2d_desc_raw_bytes.next = (raw as u64).into();
        }
        let hb = if p.h2d_in { self.h2d_beats.front().copied() } else { None };
        top.h2d_in_valid.next = hb.is_some();
        if let Some((b, _)) = hb {
            set_words(&mut top.h2d_in_data, &b.words);
            top.h2d_in_bytes.next = (b.bytes as u64).into();
            top.h2d_in_last.next = b.last;
        }
        top.h2d_out0_ready.next = p.h2d_out_ready[0];
        top.h2d_out1_ready.next = p.h2d_out_ready[1];
        simulate(top.as_mut(), 1000);

        // ---- sample the handshakes of this cycle
        if d.is_some() && top.d2h_desc_ready.val() {
            self.d2h_descs.pop_front();
        }
        for (port, beat, ready) in [(0, b0, top.d2h_beat0_ready.val()), (1, b1, top.d2h_beat1_ready.val())] {
            if let (Some((_, t)), true) = (beat, ready) {
                self.d2h_beats[port].pop_front();
                self.trace.d2h_beat(c, t);
            }
        }
        let wr = [
            (top.d2h_wr0_valid.val(), p.d2h_wr_ready[0], top.d2h_wr0_addr.val(), word_bytes(&top.d2h_wr0_data), top.d2h_wr0_be.val(), top.d2h_wr0_id.val(), top.d2h_wr0_last.val()),
            (top.d2h_wr1_valid.val(), p.d2h_wr_ready[1], top.d2h_wr1_addr.val(), word_bytes(&top.d2h_wr1_data), top.d2h_wr1_be.val(), top.d2h_wr1_id.val(), top.d2h_wr1_last.val()),
        ];
        for (port, (valid, ready, addr, data, be, id, last)) in wr.into_iter().enumerate() {
            if valid && ready {
                self.trace.d2h_writes[port].push(Write { cycle: c, addr: addr.to_u32(), data, be: be.to_u32(), id: id.to_u32() as u8, last });
            }
        }
        if top.d2h_done_valid.val() {
            self.trace.d2h_dones.push(Done { cycle: c, id: top.d2h_done_id.val().to_u32() as u8, wire_bytes: top.d2h_done_wire_bytes.val().to_u32() });
        }
        if hd.is_some() && top.h2d_desc_ready.val() {
            self.h2d_descs.pop_front();
        }
        if let (Some((_, t)), true) = (hb, top.h2d_in_ready.val()) {
            self.h2d_beats.pop_front();
            self.trace.h2d_beat(c, t);
        }
        let out = [
            (top.h2d_out0_valid.val(), p.h2d_out_ready[0], top.h2d_out0_addr.val(), word_bytes(&top.h2d_out0_data), top.h2d_out0_strb.val(), top.h2d_out0_id.val(), top.h2d_out0_last.val()),
            (top.h2d_out1_valid.val(), p.h2d_out_ready[1], top.h2d_out1_addr.val(), word_bytes(&top.h2d_out1_data), top.h2d_out1_strb.val(), top.h2d_out1_id.val(), top.h2d_out1_last.val()),
        ];
        for (port, (valid, ready, addr, data, strb, id, last)) in out.into_iter().enumerate() {
            if valid && ready {
                self.trace.h2d_writes[port].push(H2dWrite { addr: addr.to_u32(), data, strb: strb.to_u32(), id: id.to_u32() as u8, last, cycle: c });
            }
        }
        if top.h2d_done.val() {
            self.trace.h2d_dones.push((c, top.h2d_done_id.val().to_u32() as u8));
        }
        if top.h2d_err_valid.val() {
            self.trace.h2d_errors.push((
                c,
                top.h2d_err_id.val().to_u32() as u8,
                H2dErrorClass::from_bits(top.h2d_err_class.val().to_u32()),
                top.h2d_err_chunk.val().to_u32() as usize,
            ));
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

    /// Runs until [`Self::idle`] or `max_cycles` more cycles, each cycle's port behaviour from
    /// `ports`.
    pub fn run(&mut self, max_cycles: u64, mut ports: impl FnMut() -> EnginePorts) {
        let stop = self.cycle + max_cycles;
        while !self.idle() && self.cycle < stop {
            let p = ports();
            self.step(p);
        }
    }
}

/// Bytes per cycle over the middle half of a stream of `(cycle, bytes)` events (sorted by
/// cycle): from the cycle in which a quarter of the bytes had moved to the one in which three
/// quarters had, so that a transfer's start-up and tail are left out. `None` for fewer than two
/// distinct cycles in that span.
pub fn sustained_bytes_per_cycle(events: &[(u64, usize)]) -> Option<f64> {
    let total: usize = events.iter().map(|e| e.1).sum();
    let (mut acc, mut start, mut end) = (0usize, None, None);
    for &(cycle, bytes) in events {
        let before = acc;
        acc += bytes;
        if start.is_none() && 4 * acc >= total {
            start = Some((cycle, before));
        }
        if end.is_none() && 4 * acc >= 3 * total {
            end = Some((cycle, acc));
        }
    }
    let ((c0, b0), (c1, b1)) = (start?, end?);
    (c1 > c0).then(|| (b1 - b0) as f64 / (c1 - c0 + 1) as f64)
}

/// What the device-to-host writes of a run built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct D2hSummary {
    /// Transfers checked.
    pub transfers: usize,
    /// Σ of the golden streams' wire bytes.
    pub wire_bytes: u64,
    /// Chunks stored raw by golden.
    pub raw_chunks: usize,
    /// Writes taken on each port.
    pub writes: [usize; 2],
}

/// The chunk stream that the device-to-host writes of transfer `n` (`t`, whose id no other
/// transfer of the run shares) put in host memory: each write port's writes of its id replayed
/// in the order taken. Errors if a write reaches past the worst-case destination
/// ([`destination_bytes`]), a byte is written by both ports, or a byte below the highest one
/// written is never written. This is what a host reads back (and feeds the host-to-device
/// direction); [`check_d2h`] compares it with golden.
pub fn d2h_image(trace: &EngineTrace, n: usize, t: &Transfer) -> Result<Vec<u8>, String> {
    let cap = destination_bytes(t.bytes.len());
    let mut image = vec![0u8; cap];
    let mut by_port = vec![None::<usize>; cap];
    for (port, writes) in trace.d2h_writes.iter().enumerate() {
        for w in writes.iter().filter(|w| w.id == t.id) {
            for i in 0..BEAT_BYTES {
                if w.be >> i & 1 == 1 {
                    let a = w.addr as usize + i;
                    if a >= cap {
                        return Err(format!("transfer {n} (id {}): write at cycle {} reaches byte {a}, past the {cap}-byte destination", t.id, w.cycle));
                    }
                    if by_port[a].is_some_and(|p| p != port) {
                        return Err(format!("transfer {n} (id {}): byte {a} written by both ports", t.id));
                    }
                    image[a] = w.data[i];
                    by_port[a] = Some(port);
                }
            }
        }
    }
    let extent = by_port.iter().rposition(Option::is_some).map_or(0, |p| p + 1);
    if let Some(hole) = by_port[..extent].iter().position(Option::is_none) {
        return Err(format!("transfer {n} (id {}): byte {hole} of {extent} never written", t.id));
    }
    image.truncate(extent);
    Ok(image)
}

/// Checks the device-to-host side of a run, per transfer (ids must be distinct): its
/// [`d2h_image`] is exactly golden's stream ([`crate::golden::encode_stream`]) byte for byte,
/// exactly one write is marked last (none for an empty transfer), and the `done` pulses come
/// in order with golden's wire bytes; no write carries the id of no transfer.
pub fn check_d2h(transfers: &[Transfer], trace: &EngineTrace) -> Result<D2hSummary, String> {
    let mut sum = D2hSummary { writes: [trace.d2h_writes[0].len(), trace.d2h_writes[1].len()], ..Default::default() };
    if trace.d2h_dones.len() != transfers.len() {
        return Err(format!("{} d2h done pulses for {} transfers", trace.d2h_dones.len(), transfers.len()));
    }
    for (n, t) in transfers.iter().enumerate() {
        if transfers[..n].iter().any(|u| u.id == t.id) {
            return Err(format!("transfer {n}: id {} used twice (the check needs distinct ids)", t.id));
        }
        let (golden, stats) = crate::golden::encode_stream_with_stats(&t.bytes, t.width);
        sum.raw_chunks += stats.raw_chunks;
        let image = d2h_image(trace, n, t)?;
        if image.len() != golden.len() {
            return Err(format!("transfer {n} (id {}, {} bytes, {:?}): {} bytes written, golden stream has {}", t.id, t.bytes.len(), t.width, image.len(), golden.len()));
        }
        if let Some(at) = image.iter().zip(&golden).position(|(a, b)| a != b) {
            return Err(format!("transfer {n} (id {}, {} bytes, {:?}): stream byte {at} is {:#04x}, golden {:#04x}", t.id, t.bytes.len(), t.width, image[at], golden[at]));
        }
        let lasts = trace.d2h_writes.iter().flatten().filter(|w| w.id == t.id && w.last).count();
        let want_lasts = usize::from(!t.bytes.is_empty());
        if lasts != want_lasts {
            return Err(format!("transfer {n} (id {}): {lasts} writes marked last, expected {want_lasts}", t.id));
        }
        let done = trace.d2h_dones[n];
        if done.id != t.id || done.wire_bytes as usize != golden.len() {
            return Err(format!("transfer {n}: done (id {}, {} wire bytes), golden (id {}, {})", done.id, done.wire_bytes, t.id, golden.len()));
        }
        sum.transfers += 1;
        sum.wire_bytes += golden.len() as u64;
    }
    let known = |id: u8| transfers.iter().any(|t| t.id == id);
    if let Some(w) = trace.d2h_writes.iter().flatten().find(|w| !known(w.id)) {
        return Err(format!("a write at cycle {} carries id {} of no transfer", w.cycle, w.id));
    }
    Ok(sum)
}

/// Checks the host-to-device writes of a run against the original bytes of each transfer
/// (ids distinct): every byte of `[0, len)` written exactly once with the original value, none
/// outside, no error pulse, one `done` per transfer in order.
pub fn check_h2d(transfers: &[Transfer], trace: &EngineTrace) -> Result<usize, String> {
    if let Some(e) = trace.h2d_errors.first() {
        return Err(format!("h2d error pulse {e:?} on a good stream"));
    }
    if trace.h2d_dones.len() != transfers.len() {
        return Err(format!("{} h2d done pulses for {} transfers", trace.h2d_dones.len(), transfers.len()));
    }
    let mut written = 0;
    for (n, t) in transfers.iter().enumerate() {
        if trace.h2d_dones[n].1 != t.id {
            return Err(format!("transfer {n}: done carries id {}, expected {}", trace.h2d_dones[n].1, t.id));
        }
        let seen = h2d_written(trace, &format!("transfer {n}"), t.id, &t.bytes, t.width, 0..0)?;
        written += seen.iter().filter(|s| **s).count();
        if let Some(hole) = seen.iter().position(|s| !s) {
            return Err(format!("transfer {n} (id {}): byte {hole} of {} never written", t.id, t.bytes.len()));
        }
    }
    Ok(written)
}

/// The bytes of `data` that the host-to-device writes of transfer `id` set (`what` names it in
/// errors): every written byte inside `data`, outside `forbidden`, once, with `data`'s value.
fn h2d_written(trace: &EngineTrace, what: &str, id: u8, data: &[u8], width: SymbolWidth, forbidden: std::ops::Range<usize>) -> Result<Vec<bool>, String> {
    let mut seen = vec![false; data.len()];
    for w in trace.h2d_writes.iter().flatten().filter(|w| w.id == id) {
        for i in (0..BEAT_BYTES).filter(|i| w.strb >> i & 1 == 1) {
            let a = w.addr as usize + i;
            if a >= data.len() {
                return Err(format!("{what} (id {id}): write at cycle {} reaches byte {a}, past its {} bytes", w.cycle, data.len()));
            }
            if forbidden.contains(&a) {
                return Err(format!("{what} (id {id}): byte {a} of the bad chunk past its bad block (byte {}) written", forbidden.start));
            }
            if seen[a] {
                return Err(format!("{what} (id {id}): byte {a} written twice"));
            }
            if w.data[i] != data[a] {
                return Err(format!("{what} (id {id}, {width:?}): byte {a} is {:#04x}, original {:#04x}", w.data[i], data[a]));
            }
            seen[a] = true;
        }
    }
    Ok(seen)
}

/// Checks a run's host-to-device side on streams some of which are malformed (`streams`: the
/// transfer id each was queued with, in queue order, and its case) against golden: each
/// malformed stream raised golden's first error ([`StreamCase::golden_error`]: class and chunk)
/// in exactly one pulse before its `done`, and a good stream none; one `done` per stream, in
/// order; every byte written for any stream lies inside its tensor, once, with the tensor's
/// value; for a malformed stream nothing of its bad chunk past the bad block
/// ([`StreamCase::good_prefix_bytes`]) and its good prefix whole; a good stream whole. Returns
/// the number of malformed streams.
pub fn check_h2d_streams(streams: &[(u8, &StreamCase)], trace: &EngineTrace) -> Result<usize, String> {
    let ids: Vec<u8> = streams.iter().map(|s| s.0).collect();
    let done_ids: Vec<u8> = trace.h2d_dones.iter().map(|d| d.1).collect();
    if done_ids != ids {
        return Err(format!("done pulses for ids {done_ids:?}, streams queued as {ids:?}"));
    }
    let mut malformed = 0;
    for (n, (id, t)) in streams.iter().enumerate() {
        let errors: Vec<_> = trace.h2d_errors.iter().filter(|e| e.1 == *id).collect();
        let expected = t.golden_error();
        let (prefix, bad_from, bad_to) = match expected {
            None => {
                if !errors.is_empty() {
                    return Err(format!("stream {n} (id {id}): error pulses {errors:?} on a good stream"));
                }
                (t.data.len(), t.data.len(), t.data.len())
            }
            Some((class, chunk)) => {
                malformed += 1;
                let got: Vec<(Option<H2dErrorClass>, usize)> = errors.iter().map(|e| (e.2, e.3)).collect();
                if got != [(Some(class), chunk)] {
                    return Err(format!("stream {n} (id {id}): error pulses {got:?}, golden's first error {class:?} in chunk {chunk}"));
                }
                if errors[0].0 >= trace.h2d_dones[n].0 {
                    return Err(format!("stream {n} (id {id}): error pulse at cycle {}, not before done at {}", errors[0].0, trace.h2d_dones[n].0));
                }
                let prefix = t.good_prefix_bytes();
                (prefix, prefix, ((chunk + 1) * CHUNK_BYTES).min(t.data.len()))
            }
        };
        let seen = h2d_written(trace, &format!("stream {n}"), *id, &t.data, t.width, bad_from..bad_to)?;
        if let Some(hole) = seen[..prefix].iter().position(|s| !s) {
            return Err(format!("stream {n} (id {id}): byte {hole} of its {prefix}-byte good prefix never written"));
        }
    }
    Ok(malformed)
}
