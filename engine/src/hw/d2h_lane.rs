//! `pz_d2h_lane`, the device-to-host unit: one [`CompressorLane`] and its [`ChunkPacker`] behind
//! the engine's contract — a descriptor per transfer, 32-byte input beats, addressed 32-byte
//! writes of the transfer's chunk stream into its destination, and `done` with its wire bytes.
//!
//! # Ports (every output is a flop but `beat_ready`, the AND of two flops; docs/HARDWARE.md,
//! "The device-to-host unit")
//! * Descriptor (valid/ready): `desc_id` (8 bits), `desc_w16` (16-bit symbols for bf16/f16,
//!   else 32-bit), `desc_bytes` (the transfer's byte count; 0 is an empty transfer: no beats, no
//!   writes, `done` with 0 wire bytes).
//! * Beats (valid/ready): `beat_data[k]` = bytes `4k … 4k+3` of the beat, little-endian; the
//!   transfer's `⌈bytes / 32⌉` beats follow its descriptor, the last one zero-padded or not (its
//!   bytes past the count are ignored).
//! * Writes (valid/ready): `wr_addr` (byte address within the transfer's destination),
//!   `wr_data[8]` (same byte order as the beats), `wr_be` (bit `i` enables byte `i`, which lands
//!   at `wr_addr + i`), `wr_id`, `wr_last` (the transfer's final write). Apply in order.
//! * `done_valid` (one-cycle pulse when the transfer's final write is taken), `done_id`,
//!   `done_wire_bytes` (Σ over its chunks of 2 + header, FORMAT.md §8).
//!
//! # Inside
//! A 4-entry descriptor queue read by two pointers: the beat feeder (which derives the lane's
//! `beat_last`, `desc_w16`, `desc_id` and `desc_tail_bytes` per beat) and the packer (which needs
//! each transfer's byte count for its chunks' raw sizes). The beats go straight into the lane's
//! 2-entry input register (in its gather stage), whose registered room, ANDed with the feeder's
//! "a transfer has beats left", is `beat_ready`.

use super::compressor_lane::CompressorLane;
use super::packer::ChunkPacker;
use rust_hdl::prelude::*;

/// Transfers the descriptor queue holds (accepted and not yet taken by both feeder and packer).
pub const DESC_QUEUE_DEPTH: u64 = 4;

hw_block! {
/// The device-to-host unit; see the module docs.
#[derive(LogicBlock)]
pub struct D2hLane {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the unit.
    pub reset: Signal<In, Bit>,
    /// A descriptor is offered.
    pub desc_valid: Signal<In, Bit>,
    /// The unit takes the offered descriptor this cycle.
    pub desc_ready: Signal<Out, Bit>,
    /// Transfer id, carried on its writes and its `done`.
    pub desc_id: Signal<In, Bits<8>>,
    /// 16-bit symbols (bf16/f16); else 32-bit.
    pub desc_w16: Signal<In, Bit>,
    /// Byte count of the transfer.
    pub desc_bytes: Signal<In, Bits<32>>,
    /// A beat is offered.
    pub beat_valid: Signal<In, Bit>,
    /// The unit takes the offered beat this cycle.
    pub beat_ready: Signal<Out, Bit>,
    /// The beat: word `k` = bytes `4k … 4k+3`, little-endian.
    pub beat_data: [Signal<In, Bits<32>>; 8],
    /// A write is offered.
    pub wr_valid: Signal<Out, Bit>,
    /// The memory side takes the offered write this cycle.
    pub wr_ready: Signal<In, Bit>,
    /// Byte address of the write's byte 0 within the transfer's destination.
    pub wr_addr: Signal<Out, Bits<32>>,
    /// Write data: word `k` = bytes `4k … 4k+3`, little-endian.
    pub wr_data: [Signal<Out, Bits<32>>; 8],
    /// Byte enables: bit `i` = byte `i`.
    pub wr_be: Signal<Out, Bits<32>>,
    /// Transfer id of the write.
    pub wr_id: Signal<Out, Bits<8>>,
    /// The transfer's final write.
    pub wr_last: Signal<Out, Bit>,
    /// One-cycle pulse: a transfer finished (its final write was taken).
    pub done_valid: Signal<Out, Bit>,
    /// Id of the finished transfer.
    pub done_id: Signal<Out, Bits<8>>,
    /// Wire bytes of the finished transfer.
    pub done_wire_bytes: Signal<Out, Bits<32>>,
    /// The compressor lane (public so that drivers can measure its handshakes).
    pub lane: CompressorLane,
    /// The chunk packer (public so that drivers can measure its handshakes).
    pub packer: ChunkPacker,

    k_queue_depth: Constant<Bits<3>> = Constant::new(DESC_QUEUE_DEPTH.into()),
    q_bytes: [DFF<Bits<32>>; 4],
    q_id: [DFF<Bits<8>>; 4],
    q_w16: [DFF<Bit>; 4],
    q_wr: DFF<Bits<3>>,
    q_feed: DFF<Bits<3>>,
    q_pack: DFF<Bits<3>>,
    desc_ready_q: DFF<Bit>,
    f_have: DFF<Bit>,
    f_beats: DFF<Bits<27>>,
    f_w16: DFF<Bit>,
    f_id: DFF<Bits<8>>,
    f_tail: DFF<Bits<7>>,

    desc_fire: Signal<Local, Bit>,
    beat_fire: Signal<Local, Bit>,
    f_last_beat: Signal<Local, Bit>,
    f_free: Signal<Local, Bit>,
    f_have_next: Signal<Local, Bit>,
    feed_load: Signal<Local, Bit>,
    fe_bytes: Signal<Local, Bits<32>>,
    fe_id: Signal<Local, Bits<8>>,
    fe_w16: Signal<Local, Bit>,
    pk_bytes: Signal<Local, Bits<32>>,
    pk_id: Signal<Local, Bits<8>>,
    wr_hot: Signal<Local, Bits<4>>,
    feed_hot: Signal<Local, Bits<4>>,
    pack_hot: Signal<Local, Bits<4>>,
    q_wr_next: Signal<Local, Bits<3>>,
    q_feed_next: Signal<Local, Bits<3>>,
    q_pack_next: Signal<Local, Bits<3>>,
    occ_feed: Signal<Local, Bits<3>>,
    occ_pack: Signal<Local, Bits<3>>,
}
}

impl Logic for D2hLane {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, q_wr, q_feed, q_pack, desc_ready_q, f_have, f_beats, f_w16, f_id, f_tail
        );
        for i in 0..4 {
            self.q_bytes[i].clock.next = self.clock.val();
            self.q_bytes[i].d.next = self.q_bytes[i].q.val();
            self.q_id[i].clock.next = self.clock.val();
            self.q_id[i].d.next = self.q_id[i].q.val();
            self.q_w16[i].clock.next = self.clock.val();
            self.q_w16[i].d.next = self.q_w16[i].q.val();
        }

        // ---- handshakes on the registered readies (the beat's: the feeder has beats left and the
        //      lane's input register has room, two flops)
        self.desc_fire.next = self.desc_valid.val() & self.desc_ready_q.q.val();
        self.beat_ready.next = self.f_have.q.val() & self.lane.beat_ready.val();
        self.beat_fire.next = self.beat_valid.val() & self.beat_ready.val();

        // ---- descriptor queue: written at q_wr, read by the feeder (q_feed) and the packer (q_pack)
        self.wr_hot.next = bits::<4>(1) << bit_cast::<2, 3>(self.q_wr.q.val());
        self.feed_hot.next = bits::<4>(1) << bit_cast::<2, 3>(self.q_feed.q.val());
        self.pack_hot.next = bits::<4>(1) << bit_cast::<2, 3>(self.q_pack.q.val());
        self.q_wr_next.next = self.q_wr.q.val();
        if self.desc_fire.val() {
            for i in 0..4 {
                if self.wr_hot.val().get_bit(i) {
                    self.q_bytes[i].d.next = self.desc_bytes.val();
                    self.q_id[i].d.next = self.desc_id.val();
                    self.q_w16[i].d.next = self.desc_w16.val();
                }
            }
            self.q_wr_next.next = self.q_wr.q.val() + 1;
        }
        self.fe_bytes.next = bits::<32>(0);
        self.fe_id.next = bits::<8>(0);
        self.fe_w16.next = false;
        self.pk_bytes.next = bits::<32>(0);
        self.pk_id.next = bits::<8>(0);
        for i in 0..4 {
            if self.feed_hot.val().get_bit(i) {
                self.fe_bytes.next = self.q_bytes[i].q.val();
                self.fe_id.next = self.q_id[i].q.val();
                self.fe_w16.next = self.q_w16[i].q.val();
            }
            if self.pack_hot.val().get_bit(i) {
                self.pk_bytes.next = self.q_bytes[i].q.val();
                self.pk_id.next = self.q_id[i].q.val();
            }
        }

        // ---- feeder: the current transfer's beats left; the next descriptor loads as the last
        //      beat goes in
        self.f_last_beat.next = self.f_beats.q.val() == 1;
        self.f_free.next = !self.f_have.q.val() | (self.beat_fire.val() & self.f_last_beat.val());
        self.f_have_next.next = self.f_have.q.val() & !(self.beat_fire.val() & self.f_last_beat.val());
        if self.beat_fire.val() {
            self.f_beats.d.next = self.f_beats.q.val() - 1;
        }
        self.feed_load.next = self.f_free.val() & (self.q_feed.q.val() != self.q_wr.q.val());
        self.q_feed_next.next = self.q_feed.q.val();
        if self.feed_load.val() {
            self.q_feed_next.next = self.q_feed.q.val() + 1;
            if self.fe_bytes.val().any() {
                self.f_have_next.next = true;
                self.f_beats.d.next = bit_cast::<27, 32>(self.fe_bytes.val() >> 5);
                if self.fe_bytes.val().get_bits::<5>(0).any() {
                    self.f_beats.d.next = bit_cast::<27, 32>(self.fe_bytes.val() >> 5) + 1;
                }
                self.f_w16.d.next = self.fe_w16.val();
                self.f_id.d.next = self.fe_id.val();
                self.f_tail.d.next = bit_cast::<7, 32>(self.fe_bytes.val());
            }
        }
        self.f_have.d.next = self.f_have_next.val();

        // ---- the packer takes descriptors at q_pack
        self.q_pack_next.next = self.q_pack.q.val();
        if self.packer.xfer_take.val() {
            self.q_pack_next.next = self.q_pack.q.val() + 1;
        }
        self.q_wr.d.next = self.q_wr_next.val();
        self.q_feed.d.next = self.q_feed_next.val();
        self.q_pack.d.next = self.q_pack_next.val();

        // ---- registered readies: room next cycle
        self.occ_feed.next = self.q_wr_next.val() - self.q_feed_next.val();
        self.occ_pack.next = self.q_wr_next.val() - self.q_pack_next.val();
        self.desc_ready_q.d.next = (self.occ_feed.val() < self.k_queue_depth.val()) & (self.occ_pack.val() < self.k_queue_depth.val());

        // ---- synchronous reset
        if self.reset.val() {
            self.q_wr.d.next = bits::<3>(0);
            self.q_feed.d.next = bits::<3>(0);
            self.q_pack.d.next = bits::<3>(0);
            self.f_have.d.next = false;
            self.desc_ready_q.d.next = false;
        }

        // ---- the lane
        self.lane.clock.next = self.clock.val();
        self.lane.reset.next = self.reset.val();
        self.lane.beat_valid.next = self.beat_valid.val() & self.f_have.q.val();
        for k in 0..8 {
            self.lane.beat_data[k].next = self.beat_data[k].val();
        }
        self.lane.beat_last.next = self.f_last_beat.val();
        self.lane.desc_w16.next = self.f_w16.q.val();
        self.lane.desc_id.next = self.f_id.q.val();
        self.lane.desc_tail_bytes.next = self.f_tail.q.val();
        self.lane.out_ready.next = self.packer.blk_ready.val();

        // ---- the packer
        self.packer.clock.next = self.clock.val();
        self.packer.reset.next = self.reset.val();
        self.packer.blk_valid.next = self.lane.out_valid.val();
        self.packer.blk_tag.next = self.lane.out_tag.val();
        self.packer.blk_len.next = self.lane.out_len.val();
        for k in 0..32 {
            self.packer.blk_payload[k].next = self.lane.out_payload[k].val();
            self.packer.blk_block[k].next = self.lane.out_block[k].val();
        }
        self.packer.blk_last.next = self.lane.out_last.val();
        self.packer.blk_id.next = self.lane.out_id.val();
        self.packer.xfer_valid.next = self.q_pack.q.val() != self.q_wr.q.val();
        self.packer.xfer_bytes.next = self.pk_bytes.val();
        self.packer.xfer_id.next = self.pk_id.val();
        self.packer.wr_ready.next = self.wr_ready.val();

        // ---- ports
        self.desc_ready.next = self.desc_ready_q.q.val();
        self.wr_valid.next = self.packer.wr_valid.val();
        self.wr_addr.next = self.packer.wr_addr.val();
        for k in 0..8 {
            self.wr_data[k].next = self.packer.wr_data[k].val();
        }
        self.wr_be.next = self.packer.wr_be.val();
        self.wr_id.next = self.packer.wr_id.val();
        self.wr_last.next = self.packer.wr_last.val();
        self.done_valid.next = self.packer.done_valid.val();
        self.done_id.next = self.packer.done_id.val();
        self.done_wire_bytes.next = self.packer.done_wire_bytes.val();
    }
}
