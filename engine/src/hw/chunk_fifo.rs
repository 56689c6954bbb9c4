//! The input buffer of one decoding context of the host-to-device lane: a first-in first-out
//! queue of [`FIFO_BEATS`] stream pieces (up to 32 bytes each, with their byte count and
//! last-piece flag) in synchronous-read RAMs. The lane's splitter fills it with a chunk at the
//! stream's rate while the context drains it at its decode rate, so that the next chunk can go
//! to the next context without waiting (the stream arrives in order; the contexts work on
//! different chunks at once).
//!
//! # Ports
//! * `push`, `push_data[8]`, `push_bytes`, `push_last`: a piece is written when `push` is high;
//!   only while `room` is high.
//! * `head_valid`, `head_data[8]`, `head_bytes`, `head_last`: the oldest piece; `pop` removes it
//!   (only while `head_valid`). A pushed piece reaches the head two cycles later.
//!
//! Every output is a flop or a RAM read register.

use super::arr;
use rust_hdl::prelude::*;

/// Pieces the buffer holds (32 bytes each: 4 KiB, a whole chunk's body of stream bytes).
pub const FIFO_BEATS: u64 = 128;
/// Address bits of the buffer's RAMs.
const FIFO_ADDR_BITS: usize = 7;

hw_block! {
/// A context's input buffer; see the module docs.
#[derive(LogicBlock)]
pub struct ChunkFifo {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the buffer.
    pub reset: Signal<In, Bit>,
    /// Write a piece.
    pub push: Signal<In, Bit>,
    /// The piece: word `k` = bytes `4k … 4k+3`, little-endian.
    pub push_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// Valid bytes of the piece (0–32).
    pub push_bytes: Signal<In, Bits<6>>,
    /// The piece ends its chunk stream.
    pub push_last: Signal<In, Bit>,
    /// Remove the head piece.
    pub pop: Signal<In, Bit>,
    /// Fewer than [`FIFO_BEATS`] pieces are held: a push is allowed.
    pub room: Signal<Out, Bit>,
    /// A head piece is present.
    pub head_valid: Signal<Out, Bit>,
    /// The head piece's words.
    pub head_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// The head piece's valid bytes.
    pub head_bytes: Signal<Out, Bits<6>>,
    /// The head piece ends its chunk stream.
    pub head_last: Signal<Out, Bit>,
    k_depth: Constant<Bits<8>> = Constant::new(FIFO_BEATS.into()),
    ram: [RAM<Bits<32>, FIFO_ADDR_BITS>; 8] = arr(),
    meta: RAM<Bits<7>, FIFO_ADDR_BITS>,
    wp: DFF<Bits<FIFO_ADDR_BITS>>,
    rp: DFF<Bits<FIFO_ADDR_BITS>>,
    cnt: DFF<Bits<8>>,
    hv: DFF<Bit>,
    room_q: DFF<Bit>,
    rp_n: Signal<Local, Bits<FIFO_ADDR_BITS>>,
    cnt_n: Signal<Local, Bits<8>>,
    popped: Signal<Local, Bit>,
    meta_w: Signal<Local, Bits<7>>,
}
}

impl Logic for ChunkFifo {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, cnt, hv, room_q);
        self.popped.next = self.pop.val() & self.hv.q.val();
        self.rp_n.next = self.rp.q.val();
        self.cnt_n.next = self.cnt.q.val();
        if self.popped.val() {
            self.rp_n.next = self.rp.q.val() + 1;
            self.cnt_n.next = self.cnt.q.val() - 1;
        }
        // The entry at rp_n is readable at this edge only if it was written at an earlier one.
        self.hv.d.next = self.cnt_n.val().any();
        for k in 0..8 {
            self.ram[k].read_clock.next = self.clock.val();
            self.ram[k].write_clock.next = self.clock.val();
            self.ram[k].read_address.next = self.rp_n.val();
            self.ram[k].write_address.next = self.wp.q.val();
            self.ram[k].write_data.next = self.push_data[k].val();
            self.ram[k].write_enable.next = self.push.val();
        }
        self.meta.read_clock.next = self.clock.val();
        self.meta.write_clock.next = self.clock.val();
        self.meta.read_address.next = self.rp_n.val();
        self.meta.write_address.next = self.wp.q.val();
        self.meta_w.next = bit_cast::<7, 6>(self.push_bytes.val());
        if self.push_last.val() {
            self.meta_w.next = self.meta_w.val() | 64;
        }
        self.meta.write_data.next = self.meta_w.val();
        self.meta.write_enable.next = self.push.val();
        self.rp.d.next = self.rp_n.val();
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + 1;
            self.cnt_n.next = self.cnt_n.val() + 1;
        }
        self.cnt.d.next = self.cnt_n.val();
        self.room_q.d.next = self.cnt_n.val() < self.k_depth.val();
        if self.reset.val() {
            self.wp.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.hv.d.next = false;
            self.room_q.d.next = true;
        }
        self.room.next = self.room_q.q.val();
        self.head_valid.next = self.hv.q.val();
        for k in 0..8 {
            self.head_data[k].next = self.ram[k].read_data.val();
        }
        self.head_bytes.next = bit_cast::<6, 7>(self.meta.read_data.val());
        self.head_last.next = self.meta.read_data.val().get_bit(6);
    }
}
