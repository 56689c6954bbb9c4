//! The chunk output buffer of one device-to-host lane inside `pz_engine`: a first-in first-out
//! queue of [`WRITE_FIFO_WRITES`] addressed 32-byte writes (chunk-relative address, data, byte
//! enables, transfer id, chunk-end flag) in synchronous-read RAMs. A lane codes one chunk per
//! lane-level transfer, so its writes carry addresses relative to the chunk; they wait here until
//! the chunk's place in the host stream (the prefix sum of the earlier chunks' wire bytes) is
//! known, and pass straight through (two cycles) when it already is.
//!
//! # Ports
//! * `push`, `push_addr`, `push_data[8]`, `push_be`, `push_id`, `push_last`: a write is stored
//!   when `push` is high; only while `room` is high.
//! * `head_valid`, `head_addr`, `head_data[8]`, `head_be`, `head_id`, `head_last`: the oldest
//!   write; `pop` removes it (only while `head_valid`). A pushed write reaches the head two cycles
//!   later.
//!
//! Every output is a flop or a RAM read register.

use super::arr;
use rust_hdl::prelude::*;

/// Writes the buffer holds: one chunk's compressed writes (a 4,096-byte chunk stored at a ratio
/// of 1 or better is at most 129 body lines and its header; raw chunks, which write their body
/// twice, stall the lane while the buffer is full and lose nothing).
pub const WRITE_FIFO_WRITES: u64 = 128;
/// Address bits of the buffer's RAMs.
const WRITE_FIFO_ADDR_BITS: usize = 7;
/// Bits of a chunk-relative write address (a chunk's stream is at most 4,098 bytes).
pub const CHUNK_ADDR_BITS: usize = 13;
/// Bits of the per-write metadata RAM: address, id (8), chunk-end flag (1).
const META_BITS: usize = CHUNK_ADDR_BITS + 9;

hw_block! {
/// A lane's chunk output buffer; see the module docs.
#[derive(LogicBlock)]
pub struct WriteFifo {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the buffer.
    pub reset: Signal<In, Bit>,
    /// Store a write.
    pub push: Signal<In, Bit>,
    /// Chunk-relative byte address of the write.
    pub push_addr: Signal<In, Bits<CHUNK_ADDR_BITS>>,
    /// The write's data: word `k` = bytes `4k … 4k+3`, little-endian.
    pub push_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// The write's byte enables.
    pub push_be: Signal<In, Bits<32>>,
    /// The write's transfer id.
    pub push_id: Signal<In, Bits<8>>,
    /// The write is its chunk's last (the chunk header).
    pub push_last: Signal<In, Bit>,
    /// Remove the head write.
    pub pop: Signal<In, Bit>,
    /// Fewer than [`WRITE_FIFO_WRITES`] writes are held: a push is allowed.
    pub room: Signal<Out, Bit>,
    /// A head write is present.
    pub head_valid: Signal<Out, Bit>,
    /// The head write's chunk-relative address.
    pub head_addr: Signal<Out, Bits<CHUNK_ADDR_BITS>>,
    /// The head write's data.
    pub head_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// The head write's byte enables.
    pub head_be: Signal<Out, Bits<32>>,
    /// The head write's transfer id.
    pub head_id: Signal<Out, Bits<8>>,
    /// The head write ends its chunk.
    pub head_last: Signal<Out, Bit>,
    k_depth: Constant<Bits<8>> = Constant::new(WRITE_FIFO_WRITES.into()),
    ram: [RAM<Bits<32>, WRITE_FIFO_ADDR_BITS>; 8] = arr(),
    be_ram: RAM<Bits<32>, WRITE_FIFO_ADDR_BITS>,
    meta: RAM<Bits<META_BITS>, WRITE_FIFO_ADDR_BITS>,
    wp: DFF<Bits<WRITE_FIFO_ADDR_BITS>>,
    rp: DFF<Bits<WRITE_FIFO_ADDR_BITS>>,
    cnt: DFF<Bits<8>>,
    hv: DFF<Bit>,
    room_q: DFF<Bit>,
    rp_n: Signal<Local, Bits<WRITE_FIFO_ADDR_BITS>>,
    cnt_n: Signal<Local, Bits<8>>,
    popped: Signal<Local, Bit>,
    meta_w: Signal<Local, Bits<META_BITS>>,
}
}

impl Logic for WriteFifo {
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
        self.be_ram.read_clock.next = self.clock.val();
        self.be_ram.write_clock.next = self.clock.val();
        self.be_ram.read_address.next = self.rp_n.val();
        self.be_ram.write_address.next = self.wp.q.val();
        self.be_ram.write_data.next = self.push_be.val();
        self.be_ram.write_enable.next = self.push.val();
        self.meta.read_clock.next = self.clock.val();
        self.meta.write_clock.next = self.clock.val();
        self.meta.read_address.next = self.rp_n.val();
        self.meta.write_address.next = self.wp.q.val();
        // Metadata word (literal widths: `hdl_gen` emits no Rust constants): address in bits
        // 0–12, id in 13–20, chunk end in 21.
        self.meta_w.next = bit_cast::<22, 13>(self.push_addr.val()) | (bit_cast::<22, 8>(self.push_id.val()) << 13);
        if self.push_last.val() {
            self.meta_w.next = self.meta_w.val() | (bits::<22>(1) << 21);
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
        self.head_be.next = self.be_ram.read_data.val();
        self.head_addr.next = bit_cast::<13, 22>(self.meta.read_data.val());
        self.head_id.next = bit_cast::<8, 22>(self.meta.read_data.val() >> 13);
        self.head_last.next = self.meta.read_data.val().get_bit(21);
    }
}
