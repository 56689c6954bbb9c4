//! The device-to-host half of `pz_engine`: two [`D2hLane`]s behind one descriptor interface,
//! chunk `c` of a transfer coded by lane `c mod 2`, the FORMAT.md §8 stream written to host
//! memory in its final place, and the transfer's wire bytes on `done`.
//!
//! # Ports (every output is a flop)
//! * Descriptor (valid/ready): `desc_id`, `desc_w16`, `desc_bytes`, as `pz_d2h_lane`'s.
//! * Two beat ports (valid/ready, eight little-endian words each): port `k` carries the
//!   transfer's chunks `k, k + 2, k + 4, …` in order, each chunk's `⌈C / 32⌉` beats (its
//!   source is device memory, readable by address, so the two streams are two reads of the
//!   tensor: bytes `[4096 c, 4096 c + C)` of chunk `c`). Transfers follow each other on both ports
//!   in descriptor order.
//! * Two write ports (valid/ready): `wr{k}_addr` (byte address of byte 0 in the transfer's
//!   destination, any byte address), `wr{k}_data[8]`, `wr{k}_be`, `wr{k}_id`, `wr{k}_last` (the
//!   transfer's final write: its last chunk's header). Port `k` carries chunk `c`'s writes for
//!   `c ≡ k (mod 2)`; apply each port's writes in order (a raw chunk rewrites its body); the two
//!   ports never write the same byte.
//! * `done_valid` (one-cycle pulse once every write of the transfer was taken), `done_id`,
//!   `done_wire_bytes` (Σ over its chunks of 2 + header).
//!
//! # Inside
//! A 4-entry descriptor queue read by the chunk issuer and the base accountant. The issuer
//! hands each chunk to its lane as a lane-level transfer of `C` bytes, so the lane's writes carry
//! chunk-relative addresses and its `done` the chunk's wire bytes; a lane holds at most
//! [`OPEN_CHUNKS`] chunks issued and not yet drained. Behind each lane a [`WriteFifo`] holds its
//! writes; a lane's `done` pulses go into a small queue. The accountant walks the chunks in
//! order: it hands chunk `c`'s base (the prefix sum of the earlier chunks' wire bytes) to lane
//! `c mod 2`'s base queue, waits for chunk `c`'s `done`, adds its wire bytes, and goes on to
//! `c + 1`. Each lane's drain takes a base, emits the chunk's buffered writes at base + address
//! through its output register and releases the chunk at its last write. `done` pulses when the
//! transfer's last chunk is accounted and the final write of every chunk of it was taken by the
//! memory (not merely emitted: a held-off write port delays `done`).

use super::d2h_lane::D2hLane;
use super::write_fifo::WriteFifo;
use super::{arr, constants};
use rust_hdl::prelude::*;

/// Chunks a lane may hold issued and not yet drained (bounds the base and `done` queues).
pub const OPEN_CHUNKS: u64 = 4;
/// Transfers the engine's descriptor queue holds.
pub const ENGINE_DESC_QUEUE: u64 = 4;
/// Entries of a lane's `done` queue (wire bytes and id of a chunk): the open chunks and one
/// chunk drained before its `done` is accounted.
const DONE_QUEUE: usize = 8;
/// Raw bytes of a full chunk (FORMAT.md §7).
const CHUNK_RAW_BYTES: u64 = 4096;

hw_block! {
/// The device-to-host half of the engine; see the module docs.
#[derive(LogicBlock)]
pub struct EngineD2h {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A descriptor is offered.
    pub desc_valid: Signal<In, Bit>,
    /// The engine takes the offered descriptor this cycle.
    pub desc_ready: Signal<Out, Bit>,
    /// Transfer id, carried on its writes and its `done`.
    pub desc_id: Signal<In, Bits<8>>,
    /// 16-bit symbols (bf16/f16); else 32-bit.
    pub desc_w16: Signal<In, Bit>,
    /// Byte count of the transfer.
    pub desc_bytes: Signal<In, Bits<32>>,
    /// Beat port 0 (even chunks): a beat is offered.
    pub beat0_valid: Signal<In, Bit>,
    /// Beat port 0: taken this cycle.
    pub beat0_ready: Signal<Out, Bit>,
    /// Beat port 0: word `k` = bytes `4k … 4k+3`, little-endian.
    pub beat0_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// Beat port 1 (odd chunks): a beat is offered.
    pub beat1_valid: Signal<In, Bit>,
    /// Beat port 1: taken this cycle.
    pub beat1_ready: Signal<Out, Bit>,
    /// Beat port 1: word `k` = bytes `4k … 4k+3`, little-endian.
    pub beat1_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// Write port 0 (even chunks): a write is offered.
    pub wr0_valid: Signal<Out, Bit>,
    /// Write port 0: the memory takes it this cycle.
    pub wr0_ready: Signal<In, Bit>,
    /// Write port 0: byte address of byte 0 within the destination.
    pub wr0_addr: Signal<Out, Bits<32>>,
    /// Write port 0: data, word `k` = bytes `4k … 4k+3`.
    pub wr0_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// Write port 0: byte enables, bit `i` = byte `i`.
    pub wr0_be: Signal<Out, Bits<32>>,
    /// Write port 0: transfer id.
    pub wr0_id: Signal<Out, Bits<8>>,
    /// Write port 0: the transfer's final write.
    pub wr0_last: Signal<Out, Bit>,
    /// Write port 1 (odd chunks): a write is offered.
    pub wr1_valid: Signal<Out, Bit>,
    /// Write port 1: the memory takes it this cycle.
    pub wr1_ready: Signal<In, Bit>,
    /// Write port 1: byte address of byte 0 within the destination.
    pub wr1_addr: Signal<Out, Bits<32>>,
    /// Write port 1: data, word `k` = bytes `4k … 4k+3`.
    pub wr1_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// Write port 1: byte enables, bit `i` = byte `i`.
    pub wr1_be: Signal<Out, Bits<32>>,
    /// Write port 1: transfer id.
    pub wr1_id: Signal<Out, Bits<8>>,
    /// Write port 1: the transfer's final write.
    pub wr1_last: Signal<Out, Bit>,
    /// One-cycle pulse: a transfer finished (every write of it taken).
    pub done_valid: Signal<Out, Bit>,
    /// Id of the finished transfer.
    pub done_id: Signal<Out, Bits<8>>,
    /// Wire bytes of the finished transfer.
    pub done_wire_bytes: Signal<Out, Bits<32>>,
    /// Lane 0 (public so that drivers can measure its handshakes).
    pub lane0: D2hLane,
    /// Lane 1.
    pub lane1: D2hLane,
    /// Lane 0's chunk output buffer.
    pub wf0: WriteFifo,
    /// Lane 1's chunk output buffer.
    pub wf1: WriteFifo,

    lane_ix: [Constant<Bit>; 2] = [Constant::new(false), Constant::new(true)],
    k_chunk: Constant<Bits<32>> = Constant::new(CHUNK_RAW_BYTES.into()),
    k_open: Constant<Bits<3>> = Constant::new(OPEN_CHUNKS.into()),
    k_queue: Constant<Bits<3>> = Constant::new(ENGINE_DESC_QUEUE.into()),
    k_bq: Constant<Bits<3>> = Constant::new(OPEN_CHUNKS.into()),
    q_bytes: [DFF<Bits<32>>; 4] = arr(),
    q_id: [DFF<Bits<8>>; 4] = arr(),
    q_w16: [DFF<Bit>; 4] = arr(),
    q_wr: DFF<Bits<3>>,
    q_iss: DFF<Bits<3>>,
    q_acc: DFF<Bits<3>>,
    desc_ready_q: DFF<Bit>,
    i_have: DFF<Bit>,
    i_left: DFF<Bits<32>>,
    i_lane: DFF<Bit>,
    i_id: DFF<Bits<8>>,
    i_w16: DFF<Bit>,
    open: [DFF<Bits<3>>; 2] = arr(),
    dq0: [DFF<Bits<21>>; DONE_QUEUE] = arr(),
    dq1: [DFF<Bits<21>>; DONE_QUEUE] = arr(),
    dq_wp: [DFF<Bits<4>>; 2] = arr(),
    dq_rp: [DFF<Bits<4>>; 2] = arr(),
    bq0: [DFF<Bits<32>>; 4] = arr(),
    bq1: [DFF<Bits<32>>; 4] = arr(),
    bqf0: [DFF<Bit>; 4] = arr(),
    bqf1: [DFF<Bit>; 4] = arr(),
    bq_wp: [DFF<Bits<3>>; 2] = arr(),
    bq_rp: [DFF<Bits<3>>; 2] = arr(),
    a_have: DFF<Bit>,
    a_left: DFF<Bits<21>>,
    a_base: DFF<Bits<32>>,
    a_lane: DFF<Bit>,
    a_pushed: DFF<Bit>,
    a_tot: DFF<Bits<32>>,
    e_pend: DFF<Bit>,
    e_wire: DFF<Bits<32>>,
    e_id: DFF<Bits<8>>,
    e_target: DFF<Bits<32>>,
    d_tot: DFF<Bits<32>>,
    d_have: [DFF<Bit>; 2] = arr(),
    d_base: [DFF<Bits<32>>; 2] = arr(),
    d_final: [DFF<Bit>; 2] = arr(),
    o_valid: [DFF<Bit>; 2] = arr(),
    o_addr: [DFF<Bits<32>>; 2] = arr(),
    o0_data: [DFF<Bits<32>>; 8] = arr(),
    o1_data: [DFF<Bits<32>>; 8] = arr(),
    o_be: [DFF<Bits<32>>; 2] = arr(),
    o_id: [DFF<Bits<8>>; 2] = arr(),
    o_last: [DFF<Bit>; 2] = arr(),
    /// The output register holds a chunk's final write (its `done` may count once it is taken).
    o_clast: [DFF<Bit>; 2] = arr(),
    done_q: DFF<Bit>,
    done_id_q: DFF<Bits<8>>,
    done_wire_q: DFF<Bits<32>>,
    ix8: [Constant<Bits<3>>; DONE_QUEUE] = constants(1),
    ix4: [Constant<Bits<2>>; 4] = constants(1),

    desc_fire: Signal<Local, Bit>,
    q_wr_next: Signal<Local, Bits<3>>,
    q_iss_next: Signal<Local, Bits<3>>,
    q_acc_next: Signal<Local, Bits<3>>,
    is_bytes: Signal<Local, Bits<32>>,
    is_id: Signal<Local, Bits<8>>,
    is_w16: Signal<Local, Bit>,
    ac_bytes: Signal<Local, Bits<32>>,
    ac_id: Signal<Local, Bits<8>>,
    i_c: Signal<Local, Bits<32>>,
    sel_ready: Signal<Local, Bit>,
    sel_room: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    a_n: Signal<Local, Bits<21>>,
    a_load: Signal<Local, Bit>,
    sel_bq_room: Signal<Local, Bit>,
    sel_dq_has: Signal<Local, Bit>,
    sel_dq_wire: Signal<Local, Bits<13>>,
    sel_dq_id: Signal<Local, Bits<8>>,
    push_base: Signal<Local, Bit>,
    pop_done: Signal<Local, Bit>,
    e_done: Signal<Local, Bit>,
    dq_has: [Signal<Local, Bit>; 2] = arr(),
    dq_head: [Signal<Local, Bits<21>>; 2] = arr(),
    bq_room: [Signal<Local, Bit>; 2] = arr(),
    bq_has: [Signal<Local, Bit>; 2] = arr(),
    bq_head: [Signal<Local, Bits<32>>; 2] = arr(),
    bq_headf: [Signal<Local, Bit>; 2] = arr(),
    out_free: [Signal<Local, Bit>; 2] = arr(),
    emit: [Signal<Local, Bit>; 2] = arr(),
    drained: [Signal<Local, Bit>; 2] = arr(),
    /// A chunk's final write is taken by the memory this cycle.
    written: [Signal<Local, Bit>; 2] = arr(),
    issued: [Signal<Local, Bit>; 2] = arr(),
    d_tot_n: Signal<Local, Bits<32>>,
    /// Per lane: the head entry's wire bytes, prefetched (valid while the queue is not empty).
    hw_q: [DFF<Bits<13>>; 2] = arr(),
    /// Per lane: the accountant pops the lane's head this cycle.
    pop_l: [Signal<Local, Bit>; 2] = arr(),
    rp1: [Signal<Local, Bits<4>>; 2] = arr(),
    /// Per lane: the entry after the head, and its wire bytes.
    hw_ent: [Signal<Local, Bits<21>>; 2] = arr(),
    hw_h1: [Signal<Local, Bits<13>>; 2] = arr(),
    /// Per lane: the lane's entry lands at the next cycle's head.
    hw_in: [Signal<Local, Bit>; 2] = arr(),
    /// `a_base` plus the selected chunk's wire bytes (see the adder in `update`).
    a_sum: Signal<Local, Bits<32>>,
    sa_lo: Signal<Local, Bits<13>>,
    sp0: Signal<Local, Bits<13>>,
    sg0: Signal<Local, Bits<13>>,
    sg1: Signal<Local, Bits<13>>,
    sp1: Signal<Local, Bits<13>>,
    sg2: Signal<Local, Bits<13>>,
    sp2: Signal<Local, Bits<13>>,
    sg3: Signal<Local, Bits<13>>,
    sp3: Signal<Local, Bits<13>>,
    sg4: Signal<Local, Bits<13>>,
    s_lo: Signal<Local, Bits<13>>,
    sa_hi: Signal<Local, Bits<19>>,
    st0: Signal<Local, Bits<19>>,
    st1: Signal<Local, Bits<19>>,
    st2: Signal<Local, Bits<19>>,
    st3: Signal<Local, Bits<19>>,
    st4: Signal<Local, Bits<19>>,
    st5: Signal<Local, Bits<19>>,
    s_hi: Signal<Local, Bits<19>>,
}
}

/// Writes [`EngineD2h`]'s `update` with the per-lane logic repeated for each lane (rust-hdl
/// exports a path with two array indexes wrongly, so the lanes and their queues are named).
macro_rules! engine_d2h_update {
    ($(($lane:ident, $wf:ident, $i:tt, $dq:ident, $bq:ident, $bqf:ident, $od:ident,
        $bv:ident, $br:ident, $bd:ident, $wv:ident, $wr:ident, $wa:ident, $wd:ident, $wbe:ident, $wid:ident, $wl:ident)),*) => {
impl Logic for EngineD2h {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, q_wr, q_iss, q_acc, desc_ready_q, i_have, i_left, i_lane, i_id, i_w16, a_have, a_left, a_base, a_lane,
            a_pushed, a_tot, e_pend, e_wire, e_id, e_target, d_tot, done_q, done_id_q, done_wire_q
        );
        for i in 0..4 {
            self.q_bytes[i].clock.next = self.clock.val();
            self.q_bytes[i].d.next = self.q_bytes[i].q.val();
            self.q_id[i].clock.next = self.clock.val();
            self.q_id[i].d.next = self.q_id[i].q.val();
            self.q_w16[i].clock.next = self.clock.val();
            self.q_w16[i].d.next = self.q_w16[i].q.val();
            self.bq0[i].clock.next = self.clock.val();
            self.bq0[i].d.next = self.bq0[i].q.val();
            self.bq1[i].clock.next = self.clock.val();
            self.bq1[i].d.next = self.bq1[i].q.val();
            self.bqf0[i].clock.next = self.clock.val();
            self.bqf0[i].d.next = self.bqf0[i].q.val();
            self.bqf1[i].clock.next = self.clock.val();
            self.bqf1[i].d.next = self.bqf1[i].q.val();
        }
        for k in 0..8 {
            self.dq0[k].clock.next = self.clock.val();
            self.dq0[k].d.next = self.dq0[k].q.val();
            self.dq1[k].clock.next = self.clock.val();
            self.dq1[k].d.next = self.dq1[k].q.val();
            self.o0_data[k].clock.next = self.clock.val();
            self.o0_data[k].d.next = self.o0_data[k].q.val();
            self.o1_data[k].clock.next = self.clock.val();
            self.o1_data[k].d.next = self.o1_data[k].q.val();
        }
        for l in 0..2 {
            self.hw_q[l].clock.next = self.clock.val();
            self.hw_q[l].d.next = self.hw_q[l].q.val();
            self.open[l].clock.next = self.clock.val();
            self.open[l].d.next = self.open[l].q.val();
            self.dq_wp[l].clock.next = self.clock.val();
            self.dq_wp[l].d.next = self.dq_wp[l].q.val();
            self.dq_rp[l].clock.next = self.clock.val();
            self.dq_rp[l].d.next = self.dq_rp[l].q.val();
            self.bq_wp[l].clock.next = self.clock.val();
            self.bq_wp[l].d.next = self.bq_wp[l].q.val();
            self.bq_rp[l].clock.next = self.clock.val();
            self.bq_rp[l].d.next = self.bq_rp[l].q.val();
            self.d_have[l].clock.next = self.clock.val();
            self.d_have[l].d.next = self.d_have[l].q.val();
            self.d_base[l].clock.next = self.clock.val();
            self.d_base[l].d.next = self.d_base[l].q.val();
            self.d_final[l].clock.next = self.clock.val();
            self.d_final[l].d.next = self.d_final[l].q.val();
            self.o_valid[l].clock.next = self.clock.val();
            self.o_valid[l].d.next = self.o_valid[l].q.val();
            self.o_addr[l].clock.next = self.clock.val();
            self.o_addr[l].d.next = self.o_addr[l].q.val();
            self.o_be[l].clock.next = self.clock.val();
            self.o_be[l].d.next = self.o_be[l].q.val();
            self.o_id[l].clock.next = self.clock.val();
            self.o_id[l].d.next = self.o_id[l].q.val();
            self.o_last[l].clock.next = self.clock.val();
            self.o_last[l].d.next = self.o_last[l].q.val();
            self.o_clast[l].clock.next = self.clock.val();
            self.o_clast[l].d.next = self.o_clast[l].q.val();
        }

        // ---- descriptor queue: written at q_wr, read by the issuer (q_iss) and the accountant (q_acc)
        self.desc_fire.next = self.desc_valid.val() & self.desc_ready_q.q.val();
        self.q_wr_next.next = self.q_wr.q.val();
        if self.desc_fire.val() {
            for i in 0..4 {
                if bit_cast::<2, 3>(self.q_wr.q.val()) == self.ix4[i].val() {
                    self.q_bytes[i].d.next = self.desc_bytes.val();
                    self.q_id[i].d.next = self.desc_id.val();
                    self.q_w16[i].d.next = self.desc_w16.val();
                }
            }
            self.q_wr_next.next = self.q_wr.q.val() + 1;
        }
        self.is_bytes.next = bits::<32>(0);
        self.is_id.next = bits::<8>(0);
        self.is_w16.next = false;
        self.ac_bytes.next = bits::<32>(0);
        self.ac_id.next = bits::<8>(0);
        for i in 0..4 {
            if bit_cast::<2, 3>(self.q_iss.q.val()) == self.ix4[i].val() {
                self.is_bytes.next = self.q_bytes[i].q.val();
                self.is_id.next = self.q_id[i].q.val();
                self.is_w16.next = self.q_w16[i].q.val();
            }
            if bit_cast::<2, 3>(self.q_acc.q.val()) == self.ix4[i].val() {
                self.ac_bytes.next = self.q_bytes[i].q.val();
                self.ac_id.next = self.q_id[i].q.val();
            }
        }

        // ---- per lane: the done and base queues' heads, the issuer's view of the lane
        self.sel_ready.next = false;
        self.sel_room.next = false;
        self.sel_bq_room.next = false;
        self.sel_dq_has.next = false;
        self.sel_dq_wire.next = bits::<13>(0);
        self.sel_dq_id.next = bits::<8>(0);
        $(
            self.dq_has[$i].next = self.dq_wp[$i].q.val() != self.dq_rp[$i].q.val();
            self.dq_head[$i].next = bits::<21>(0);
            for k in 0..8 {
                if bit_cast::<3, 4>(self.dq_rp[$i].q.val()) == self.ix8[k].val() {
                    self.dq_head[$i].next = self.$dq[k].q.val();
                }
            }
            self.bq_room[$i].next = (self.bq_wp[$i].q.val() - self.bq_rp[$i].q.val()) < self.k_bq.val();
            self.bq_has[$i].next = self.bq_wp[$i].q.val() != self.bq_rp[$i].q.val();
            self.bq_head[$i].next = bits::<32>(0);
            self.bq_headf[$i].next = false;
            for k in 0..4 {
                if bit_cast::<2, 3>(self.bq_rp[$i].q.val()) == self.ix4[k].val() {
                    self.bq_head[$i].next = self.$bq[k].q.val();
                    self.bq_headf[$i].next = self.$bqf[k].q.val();
                }
            }
            if self.i_lane.q.val() == self.lane_ix[$i].val() {
                self.sel_ready.next = self.$lane.desc_ready.val();
                self.sel_room.next = self.open[$i].q.val() < self.k_open.val();
            }
            if self.a_lane.q.val() == self.lane_ix[$i].val() {
                self.sel_bq_room.next = self.bq_room[$i].val();
                self.sel_dq_has.next = self.dq_has[$i].val();
                self.sel_dq_wire.next = self.hw_q[$i].q.val();
                self.sel_dq_id.next = bit_cast::<8, 21>(self.dq_head[$i].val() >> 13);
            }
        )*

        // ---- chunk issuer: chunk c of the transfer to lane c mod 2, C bytes each
        self.q_iss_next.next = self.q_iss.q.val();
        self.i_c.next = self.i_left.q.val();
        if self.i_left.q.val() > self.k_chunk.val() {
            self.i_c.next = self.k_chunk.val();
        }
        self.issue.next = self.i_have.q.val() & self.sel_ready.val() & self.sel_room.val();
        if !self.i_have.q.val() & (self.q_iss.q.val() != self.q_wr.q.val()) {
            self.q_iss_next.next = self.q_iss.q.val() + 1;
            self.i_left.d.next = self.is_bytes.val();
            self.i_have.d.next = self.is_bytes.val().any();
            self.i_lane.d.next = false;
            self.i_id.d.next = self.is_id.val();
            self.i_w16.d.next = self.is_w16.val();
        }
        if self.issue.val() {
            self.i_left.d.next = self.i_left.q.val() - self.i_c.val();
            if self.i_left.q.val() == self.i_c.val() {
                self.i_have.d.next = false;
            }
            self.i_lane.d.next = !self.i_lane.q.val();
        }

        // ---- base accountant: base of chunk c to its lane, then chunk c's done
        // a_sum = a_base + the 13-bit wire count: a Kogge–Stone low part and an incrementer
        // (prefix AND of the flop's own bits, off the late path) above it; Yosys `+` maps as a
        // 32-bit ripple here.
        self.sa_lo.next = self.a_base.q.val().get_bits::<13>(0);
        self.sp0.next = self.sa_lo.val() ^ self.sel_dq_wire.val();
        self.sg0.next = self.sa_lo.val() & self.sel_dq_wire.val();
        self.sg1.next = self.sg0.val() | (self.sp0.val() & (self.sg0.val() << 1));
        self.sp1.next = self.sp0.val() & (self.sp0.val() << 1);
        self.sg2.next = self.sg1.val() | (self.sp1.val() & (self.sg1.val() << 2));
        self.sp2.next = self.sp1.val() & (self.sp1.val() << 2);
        self.sg3.next = self.sg2.val() | (self.sp2.val() & (self.sg2.val() << 4));
        self.sp3.next = self.sp2.val() & (self.sp2.val() << 4);
        self.sg4.next = self.sg3.val() | (self.sp3.val() & (self.sg3.val() << 8));
        self.s_lo.next = self.sp0.val() ^ (self.sg4.val() << 1);
        self.sa_hi.next = self.a_base.q.val().get_bits::<19>(13);
        // st5[i]: bits 0..i−1 of sa_hi are all ones (true for bit 0), so bit i flips on a carry in.
        self.st0.next = (self.sa_hi.val() << 1) | 1;
        // Prefix AND, level k looking 2^k bits down (ones shifted in: below bit 0 is "all ones").
        self.st1.next = self.st0.val() & ((self.st0.val() << 1) | 0x1);
        self.st2.next = self.st1.val() & ((self.st1.val() << 2) | 0x3);
        self.st3.next = self.st2.val() & ((self.st2.val() << 4) | 0xF);
        self.st4.next = self.st3.val() & ((self.st3.val() << 8) | 0xFF);
        self.st5.next = self.st4.val() & ((self.st4.val() << 16) | 0xFFFF);
        self.s_hi.next = self.sa_hi.val();
        if self.sg4.val().get_bit(12) {
            self.s_hi.next = self.sa_hi.val() ^ self.st5.val();
        }
        self.a_sum.next = (bit_cast::<32, 19>(self.s_hi.val()) << 13) | bit_cast::<32, 13>(self.s_lo.val());
        self.q_acc_next.next = self.q_acc.q.val();
        self.a_n.next = bit_cast::<21, 32>(self.ac_bytes.val() >> 12);
        if bit_cast::<12, 32>(self.ac_bytes.val()).any() {
            self.a_n.next = bit_cast::<21, 32>(self.ac_bytes.val() >> 12) + 1;
        }
        self.e_done.next = self.e_pend.q.val() & (self.d_tot.q.val() == self.e_target.q.val());
        self.a_load.next = !self.a_have.q.val() & !self.e_pend.q.val() & (self.q_acc.q.val() != self.q_wr.q.val());
        self.push_base.next = self.a_have.q.val() & !self.a_pushed.q.val() & self.sel_bq_room.val();
        self.pop_done.next = self.a_have.q.val() & self.a_pushed.q.val() & self.sel_dq_has.val();
        if self.a_load.val() {
            self.q_acc_next.next = self.q_acc.q.val() + 1;
            self.a_base.d.next = bits::<32>(0);
            self.a_lane.d.next = false;
            self.a_pushed.d.next = false;
            self.a_left.d.next = self.a_n.val();
            if self.a_n.val().any() {
                self.a_have.d.next = true;
            } else {
                self.e_pend.d.next = true;
                self.e_wire.d.next = bits::<32>(0);
                self.e_id.d.next = self.ac_id.val();
                self.e_target.d.next = self.a_tot.q.val();
            }
        }
        if self.push_base.val() {
            self.a_pushed.d.next = true;
        }
        if self.pop_done.val() {
            self.a_base.d.next = self.a_sum.val();
            self.a_left.d.next = self.a_left.q.val() - 1;
            self.a_lane.d.next = !self.a_lane.q.val();
            self.a_pushed.d.next = false;
            self.a_tot.d.next = self.a_tot.q.val() + 1;
            if self.a_left.q.val() == 1 {
                self.a_have.d.next = false;
                self.e_pend.d.next = true;
                self.e_wire.d.next = self.a_sum.val();
                self.e_id.d.next = self.sel_dq_id.val();
                self.e_target.d.next = self.a_tot.q.val() + 1;
            }
        }
        self.done_q.d.next = false;
        if self.e_done.val() {
            self.done_q.d.next = true;
            self.done_id_q.d.next = self.e_id.q.val();
            self.done_wire_q.d.next = self.e_wire.q.val();
            self.e_pend.d.next = false;
        }

        // ---- per lane: queues, drain, lane and buffer wiring, ports
        $(
            if self.$lane.done_valid.val() {
                for k in 0..8 {
                    if bit_cast::<3, 4>(self.dq_wp[$i].q.val()) == self.ix8[k].val() {
                        // Entry: the chunk's wire bytes (bits 0–12) and the id the lane echoed (13–20).
                        self.$dq[k].d.next = bit_cast::<21, 13>(bit_cast::<13, 32>(self.$lane.done_wire_bytes.val()))
                            | (bit_cast::<21, 8>(self.$lane.done_id.val()) << 13);
                    }
                }
                self.dq_wp[$i].d.next = self.dq_wp[$i].q.val() + 1;
            }
            self.pop_l[$i].next = self.pop_done.val() & (self.a_lane.q.val() == self.lane_ix[$i].val());
            if self.pop_l[$i].val() {
                self.dq_rp[$i].d.next = self.dq_rp[$i].q.val() + 1;
            }
            // The head's wire bytes, prefetched into `hw_q` (the accountant's adder reads a flop,
            // not the queue's 8:1 mux): the entry after the head when it pops, the lane's entry
            // when it lands at the new head; both candidates from this cycle's early pointers.
            self.rp1[$i].next = self.dq_rp[$i].q.val() + 1;
            self.hw_ent[$i].next = bits::<21>(0);
            for k in 0..8 {
                if bit_cast::<3, 4>(self.rp1[$i].val()) == self.ix8[k].val() {
                    self.hw_ent[$i].next = self.$dq[k].q.val();
                }
            }
            self.hw_h1[$i].next = bit_cast::<13, 21>(self.hw_ent[$i].val());
            self.hw_in[$i].next = self.$lane.done_valid.val() & (self.dq_wp[$i].q.val() == self.dq_rp[$i].q.val());
            if self.pop_l[$i].val() {
                self.hw_in[$i].next = self.$lane.done_valid.val() & (self.dq_wp[$i].q.val() == self.rp1[$i].val());
                self.hw_q[$i].d.next = self.hw_h1[$i].val();
            }
            if self.hw_in[$i].val() {
                self.hw_q[$i].d.next = bit_cast::<13, 32>(self.$lane.done_wire_bytes.val());
            }
            if self.push_base.val() & (self.a_lane.q.val() == self.lane_ix[$i].val()) {
                for k in 0..4 {
                    if bit_cast::<2, 3>(self.bq_wp[$i].q.val()) == self.ix4[k].val() {
                        self.$bq[k].d.next = self.a_base.q.val();
                        self.$bqf[k].d.next = self.a_left.q.val() == 1;
                    }
                }
                self.bq_wp[$i].d.next = self.bq_wp[$i].q.val() + 1;
            }
            // The drain: a base, then the chunk's writes at base + address.
            if !self.d_have[$i].q.val() & self.bq_has[$i].val() {
                self.d_have[$i].d.next = true;
                self.d_base[$i].d.next = self.bq_head[$i].val();
                self.d_final[$i].d.next = self.bq_headf[$i].val();
                self.bq_rp[$i].d.next = self.bq_rp[$i].q.val() + 1;
            }
            self.out_free[$i].next = !self.o_valid[$i].q.val() | self.$wr.val();
            self.emit[$i].next = self.d_have[$i].q.val() & self.$wf.head_valid.val() & self.out_free[$i].val();
            self.drained[$i].next = self.emit[$i].val() & self.$wf.head_last.val();
            if self.out_free[$i].val() {
                self.o_valid[$i].d.next = self.emit[$i].val();
            }
            if self.emit[$i].val() {
                self.o_addr[$i].d.next = self.d_base[$i].q.val() + bit_cast::<32, 13>(self.$wf.head_addr.val());
                for k in 0..8 {
                    self.$od[k].d.next = self.$wf.head_data[k].val();
                }
                self.o_be[$i].d.next = self.$wf.head_be.val();
                self.o_id[$i].d.next = self.$wf.head_id.val();
                self.o_last[$i].d.next = self.$wf.head_last.val() & self.d_final[$i].q.val();
                self.o_clast[$i].d.next = self.$wf.head_last.val();
            }
            if self.drained[$i].val() {
                self.d_have[$i].d.next = false;
            }
            // A chunk counts as written once its final write is taken, so that `done` never
            // comes before a write of its transfer that the memory still holds off.
            self.written[$i].next = self.o_valid[$i].q.val() & self.$wr.val() & self.o_clast[$i].q.val();
            self.issued[$i].next = self.issue.val() & (self.i_lane.q.val() == self.lane_ix[$i].val());
            if self.issued[$i].val() & !self.drained[$i].val() {
                self.open[$i].d.next = self.open[$i].q.val() + 1;
            }
            if !self.issued[$i].val() & self.drained[$i].val() {
                self.open[$i].d.next = self.open[$i].q.val() - 1;
            }

            self.$lane.clock.next = self.clock.val();
            self.$lane.reset.next = self.reset.val();
            self.$lane.desc_valid.next = self.issued[$i].val();
            self.$lane.desc_id.next = self.i_id.q.val();
            self.$lane.desc_w16.next = self.i_w16.q.val();
            self.$lane.desc_bytes.next = self.i_c.val();
            self.$lane.beat_valid.next = self.$bv.val();
            for k in 0..8 {
                self.$lane.beat_data[k].next = self.$bd[k].val();
            }
            self.$br.next = self.$lane.beat_ready.val();
            self.$lane.wr_ready.next = self.$wf.room.val();
            self.$wf.clock.next = self.clock.val();
            self.$wf.reset.next = self.reset.val();
            self.$wf.push.next = self.$lane.wr_valid.val() & self.$wf.room.val();
            self.$wf.push_addr.next = bit_cast::<13, 32>(self.$lane.wr_addr.val());
            for k in 0..8 {
                self.$wf.push_data[k].next = self.$lane.wr_data[k].val();
            }
            self.$wf.push_be.next = self.$lane.wr_be.val();
            self.$wf.push_id.next = self.$lane.wr_id.val();
            self.$wf.push_last.next = self.$lane.wr_last.val();
            self.$wf.pop.next = self.emit[$i].val();

            self.$wv.next = self.o_valid[$i].q.val();
            self.$wa.next = self.o_addr[$i].q.val();
            for k in 0..8 {
                self.$wd[k].next = self.$od[k].q.val();
            }
            self.$wbe.next = self.o_be[$i].q.val();
            self.$wid.next = self.o_id[$i].q.val();
            self.$wl.next = self.o_last[$i].q.val();
        )*
        // Chunks written this cycle: 0, 1 or 2 (both increments from the flop, selected late).
        self.d_tot_n.next = self.d_tot.q.val();
        if self.written[0].val() != self.written[1].val() {
            self.d_tot_n.next = self.d_tot.q.val() + 1;
        }
        if self.written[0].val() & self.written[1].val() {
            self.d_tot_n.next = self.d_tot.q.val() + 2;
        }
        self.d_tot.d.next = self.d_tot_n.val();
        self.q_wr.d.next = self.q_wr_next.val();
        self.q_iss.d.next = self.q_iss_next.val();
        self.q_acc.d.next = self.q_acc_next.val();
        self.desc_ready_q.d.next = ((self.q_wr_next.val() - self.q_iss_next.val()) < self.k_queue.val())
            & ((self.q_wr_next.val() - self.q_acc_next.val()) < self.k_queue.val());

        // ---- synchronous reset
        if self.reset.val() {
            self.q_wr.d.next = bits::<3>(0);
            self.q_iss.d.next = bits::<3>(0);
            self.q_acc.d.next = bits::<3>(0);
            self.desc_ready_q.d.next = false;
            self.i_have.d.next = false;
            self.a_have.d.next = false;
            self.a_tot.d.next = bits::<32>(0);
            self.e_pend.d.next = false;
            self.d_tot.d.next = bits::<32>(0);
            self.done_q.d.next = false;
            for l in 0..2 {
                self.open[l].d.next = bits::<3>(0);
                self.dq_wp[l].d.next = bits::<4>(0);
                self.dq_rp[l].d.next = bits::<4>(0);
                self.bq_wp[l].d.next = bits::<3>(0);
                self.bq_rp[l].d.next = bits::<3>(0);
                self.d_have[l].d.next = false;
                self.o_valid[l].d.next = false;
            }
        }

        self.desc_ready.next = self.desc_ready_q.q.val();
        self.done_valid.next = self.done_q.q.val();
        self.done_id.next = self.done_id_q.q.val();
        self.done_wire_bytes.next = self.done_wire_q.q.val();
    }
}
    };
}

engine_d2h_update!(
    (lane0, wf0, 0, dq0, bq0, bqf0, o0_data, beat0_valid, beat0_ready, beat0_data, wr0_valid, wr0_ready, wr0_addr, wr0_data, wr0_be, wr0_id, wr0_last),
    (lane1, wf1, 1, dq1, bq1, bqf1, o1_data, beat1_valid, beat1_ready, beat1_data, wr1_valid, wr1_ready, wr1_addr, wr1_data, wr1_be, wr1_id, wr1_last)
);
