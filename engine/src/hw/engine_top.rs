//! `pz_engine`, the PlaneZip engine top (paper §III-A, Fig. 2): the device-to-host half
//! ([`EngineD2h`]: two `pz_d2h_lane`s, chunks distributed by parity and placed in host memory by
//! the prefix sum of their wire bytes) and the host-to-device half ([`EngineH2d`]: a 64-byte
//! splitter and two `pz_h2d_lane`s), side by side with one clock and reset. Every port is a
//! half's port with the prefix `d2h_` or `h2d_`; see those modules for their meaning, and
//! docs/HARDWARE.md ("The engine top `pz_engine`") for the design, its cost and its latency.

use super::arr;
use super::engine_d2h::EngineD2h;
use super::engine_h2d::EngineH2d;
use rust_hdl::prelude::*;

hw_block! {
/// The engine top; see the module docs.
#[derive(LogicBlock)]
pub struct Engine {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of both halves.
    pub reset: Signal<In, Bit>,
    /// d2h: A descriptor is offered.
    pub d2h_desc_valid: Signal<In, Bit>,
    /// d2h: The engine takes the offered descriptor this cycle.
    pub d2h_desc_ready: Signal<Out, Bit>,
    /// d2h: Transfer id, carried on its writes and its `done`.
    pub d2h_desc_id: Signal<In, Bits<8>>,
    /// d2h: 16-bit symbols (bf16/f16); else 32-bit.
    pub d2h_desc_w16: Signal<In, Bit>,
    /// d2h: Byte count of the transfer.
    pub d2h_desc_bytes: Signal<In, Bits<32>>,
    /// d2h: Beat port 0 (even chunks): a beat is offered.
    pub d2h_beat0_valid: Signal<In, Bit>,
    /// d2h: Beat port 0: taken this cycle.
    pub d2h_beat0_ready: Signal<Out, Bit>,
    /// d2h: Beat port 0: word `k` = bytes `4k … 4k+3`, little-endian.
    pub d2h_beat0_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// d2h: Beat port 1 (odd chunks): a beat is offered.
    pub d2h_beat1_valid: Signal<In, Bit>,
    /// d2h: Beat port 1: taken this cycle.
    pub d2h_beat1_ready: Signal<Out, Bit>,
    /// d2h: Beat port 1: word `k` = bytes `4k … 4k+3`, little-endian.
    pub d2h_beat1_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// d2h: Write port 0 (even chunks): a write is offered.
    pub d2h_wr0_valid: Signal<Out, Bit>,
    /// d2h: Write port 0: the memory takes it this cycle.
    pub d2h_wr0_ready: Signal<In, Bit>,
    /// d2h: Write port 0: byte address of byte 0 within the destination.
    pub d2h_wr0_addr: Signal<Out, Bits<32>>,
    /// d2h: Write port 0: data, word `k` = bytes `4k … 4k+3`.
    pub d2h_wr0_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// d2h: Write port 0: byte enables, bit `i` = byte `i`.
    pub d2h_wr0_be: Signal<Out, Bits<32>>,
    /// d2h: Write port 0: transfer id.
    pub d2h_wr0_id: Signal<Out, Bits<8>>,
    /// d2h: Write port 0: the transfer's final write.
    pub d2h_wr0_last: Signal<Out, Bit>,
    /// d2h: Write port 1 (odd chunks): a write is offered.
    pub d2h_wr1_valid: Signal<Out, Bit>,
    /// d2h: Write port 1: the memory takes it this cycle.
    pub d2h_wr1_ready: Signal<In, Bit>,
    /// d2h: Write port 1: byte address of byte 0 within the destination.
    pub d2h_wr1_addr: Signal<Out, Bits<32>>,
    /// d2h: Write port 1: data, word `k` = bytes `4k … 4k+3`.
    pub d2h_wr1_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// d2h: Write port 1: byte enables, bit `i` = byte `i`.
    pub d2h_wr1_be: Signal<Out, Bits<32>>,
    /// d2h: Write port 1: transfer id.
    pub d2h_wr1_id: Signal<Out, Bits<8>>,
    /// d2h: Write port 1: the transfer's final write.
    pub d2h_wr1_last: Signal<Out, Bit>,
    /// d2h: One-cycle pulse: a transfer finished (every write of it taken).
    pub d2h_done_valid: Signal<Out, Bit>,
    /// d2h: Id of the finished transfer.
    pub d2h_done_id: Signal<Out, Bits<8>>,
    /// d2h: Wire bytes of the finished transfer.
    pub d2h_done_wire_bytes: Signal<Out, Bits<32>>,
    /// h2d: A descriptor is offered.
    pub h2d_desc_valid: Signal<In, Bit>,
    /// h2d: The engine takes the offered descriptor this cycle.
    pub h2d_desc_ready: Signal<Out, Bit>,
    /// h2d: Descriptor: transfer id.
    pub h2d_desc_id: Signal<In, Bits<8>>,
    /// h2d: Descriptor: 16-bit symbols (bf16/f16); else 32-bit.
    pub h2d_desc_w16: Signal<In, Bit>,
    /// h2d: Descriptor: original bytes of the transfer.
    pub h2d_desc_raw_bytes: Signal<In, Bits<32>>,
    /// h2d: A 64-byte stream beat is offered.
    pub h2d_in_valid: Signal<In, Bit>,
    /// h2d: The engine takes the offered beat this cycle.
    pub h2d_in_ready: Signal<Out, Bit>,
    /// h2d: The beat as 16 little-endian 32-bit words.
    pub h2d_in_data: [Signal<In, Bits<32>>; 16] = arr(),
    /// h2d: Valid bytes of the beat (0–64).
    pub h2d_in_bytes: Signal<In, Bits<7>>,
    /// h2d: Last beat of the transfer's stream.
    pub h2d_in_last: Signal<In, Bit>,
    /// h2d: Write port 0 (even chunks): a write is offered.
    pub h2d_out0_valid: Signal<Out, Bit>,
    /// h2d: Write port 0: the memory takes it this cycle.
    pub h2d_out0_ready: Signal<In, Bit>,
    /// h2d: Write port 0: byte address in the destination (a multiple of 32).
    pub h2d_out0_addr: Signal<Out, Bits<32>>,
    /// h2d: Write port 0: data, little-endian words.
    pub h2d_out0_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// h2d: Write port 0: byte enables.
    pub h2d_out0_strb: Signal<Out, Bits<32>>,
    /// h2d: Write port 0: transfer id.
    pub h2d_out0_id: Signal<Out, Bits<8>>,
    /// h2d: Write port 0: the write holds the lane's final byte of the transfer.
    pub h2d_out0_last: Signal<Out, Bit>,
    /// h2d: Write port 1 (odd chunks): a write is offered.
    pub h2d_out1_valid: Signal<Out, Bit>,
    /// h2d: Write port 1: the memory takes it this cycle.
    pub h2d_out1_ready: Signal<In, Bit>,
    /// h2d: Write port 1: byte address in the destination (a multiple of 32).
    pub h2d_out1_addr: Signal<Out, Bits<32>>,
    /// h2d: Write port 1: data, little-endian words.
    pub h2d_out1_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// h2d: Write port 1: byte enables.
    pub h2d_out1_strb: Signal<Out, Bits<32>>,
    /// h2d: Write port 1: transfer id.
    pub h2d_out1_id: Signal<Out, Bits<8>>,
    /// h2d: Write port 1: the write holds the lane's final byte of the transfer.
    pub h2d_out1_last: Signal<Out, Bit>,
    /// h2d: One-cycle pulse: the transfer is finished.
    pub h2d_done: Signal<Out, Bit>,
    /// h2d: Transfer id of `done`.
    pub h2d_done_id: Signal<Out, Bits<8>>,
    /// h2d: One-cycle pulse: the transfer's stream is malformed.
    pub h2d_err_valid: Signal<Out, Bit>,
    /// h2d: FORMAT.md §9 condition (`H2dErrorClass` numbering).
    pub h2d_err_class: Signal<Out, Bits<4>>,
    /// h2d: Transfer id of the error.
    pub h2d_err_id: Signal<Out, Bits<8>>,
    /// h2d: Chunk index of the error in the tensor's stream.
    pub h2d_err_chunk: Signal<Out, Bits<20>>,
    /// The device-to-host half (public so that drivers can measure its handshakes).
    pub d2h: EngineD2h,
    /// The host-to-device half.
    pub h2d: EngineH2d,
}
}

impl Logic for Engine {
    #[hdl_gen]
    fn update(&mut self) {
        self.d2h.clock.next = self.clock.val();
        self.d2h.reset.next = self.reset.val();
        self.h2d.clock.next = self.clock.val();
        self.h2d.reset.next = self.reset.val();
        self.d2h.desc_valid.next = self.d2h_desc_valid.val();
        self.d2h_desc_ready.next = self.d2h.desc_ready.val();
        self.d2h.desc_id.next = self.d2h_desc_id.val();
        self.d2h.desc_w16.next = self.d2h_desc_w16.val();
        self.d2h.desc_bytes.next = self.d2h_desc_bytes.val();
        self.d2h.beat0_valid.next = self.d2h_beat0_valid.val();
        self.d2h_beat0_ready.next = self.d2h.beat0_ready.val();
        for k in 0..8 {
            self.d2h.beat0_data[k].next = self.d2h_beat0_data[k].val();
        }
        self.d2h.beat1_valid.next = self.d2h_beat1_valid.val();
        self.d2h_beat1_ready.next = self.d2h.beat1_ready.val();
        for k in 0..8 {
            self.d2h.beat1_data[k].next = self.d2h_beat1_data[k].val();
        }
        self.d2h_wr0_valid.next = self.d2h.wr0_valid.val();
        self.d2h.wr0_ready.next = self.d2h_wr0_ready.val();
        self.d2h_wr0_addr.next = self.d2h.wr0_addr.val();
        for k in 0..8 {
            self.d2h_wr0_data[k].next = self.d2h.wr0_data[k].val();
        }
        self.d2h_wr0_be.next = self.d2h.wr0_be.val();
        self.d2h_wr0_id.next = self.d2h.wr0_id.val();
        self.d2h_wr0_last.next = self.d2h.wr0_last.val();
        self.d2h_wr1_valid.next = self.d2h.wr1_valid.val();
        self.d2h.wr1_ready.next = self.d2h_wr1_ready.val();
        self.d2h_wr1_addr.next = self.d2h.wr1_addr.val();
        for k in 0..8 {
            self.d2h_wr1_data[k].next = self.d2h.wr1_data[k].val();
        }
        self.d2h_wr1_be.next = self.d2h.wr1_be.val();
        self.d2h_wr1_id.next = self.d2h.wr1_id.val();
        self.d2h_wr1_last.next = self.d2h.wr1_last.val();
        self.d2h_done_valid.next = self.d2h.done_valid.val();
        self.d2h_done_id.next = self.d2h.done_id.val();
        self.d2h_done_wire_bytes.next = self.d2h.done_wire_bytes.val();
        self.h2d.desc_valid.next = self.h2d_desc_valid.val();
        self.h2d_desc_ready.next = self.h2d.desc_ready.val();
        self.h2d.desc_id.next = self.h2d_desc_id.val();
        self.h2d.desc_w16.next = self.h2d_desc_w16.val();
        self.h2d.desc_raw_bytes.next = self.h2d_desc_raw_bytes.val();
        self.h2d.in_valid.next = self.h2d_in_valid.val();
        self.h2d_in_ready.next = self.h2d.in_ready.val();
        for k in 0..16 {
            self.h2d.in_data[k].next = self.h2d_in_data[k].val();
        }
        self.h2d.in_bytes.next = self.h2d_in_bytes.val();
        self.h2d.in_last.next = self.h2d_in_last.val();
        self.h2d_out0_valid.next = self.h2d.out0_valid.val();
        self.h2d.out0_ready.next = self.h2d_out0_ready.val();
        self.h2d_out0_addr.next = self.h2d.out0_addr.val();
        for k in 0..8 {
            self.h2d_out0_data[k].next = self.h2d.out0_data[k].val();
        }
        self.h2d_out0_strb.next = self.h2d.out0_strb.val();
        self.h2d_out0_id.next = self.h2d.out0_id.val();
        self.h2d_out0_last.next = self.h2d.out0_last.val();
        self.h2d_out1_valid.next = self.h2d.out1_valid.val();
        self.h2d.out1_ready.next = self.h2d_out1_ready.val();
        self.h2d_out1_addr.next = self.h2d.out1_addr.val();
        for k in 0..8 {
            self.h2d_out1_data[k].next = self.h2d.out1_data[k].val();
        }
        self.h2d_out1_strb.next = self.h2d.out1_strb.val();
        self.h2d_out1_id.next = self.h2d.out1_id.val();
        self.h2d_out1_last.next = self.h2d.out1_last.val();
        self.h2d_done.next = self.h2d.done.val();
        self.h2d_done_id.next = self.h2d.done_id.val();
        self.h2d_err_valid.next = self.h2d.err_valid.val();
        self.h2d_err_class.next = self.h2d.err_class.val();
        self.h2d_err_id.next = self.h2d.err_id.val();
        self.h2d_err_chunk.next = self.h2d.err_chunk.val();
    }
}
