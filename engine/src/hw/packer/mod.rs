//! The chunk packer (paper §III-A, FORMAT.md §7–8): the compressor lane's coded blocks become a
//! transfer's chunk stream, emitted as addressed 32-byte writes into the transfer's destination
//! at up to one write per cycle.
//!
//! # Design: body first, header last, raw chunks replayed from a chunk buffer
//! * A chunk's body is written from byte `offset + 2` on, while its blocks arrive; its 2-byte
//!   header (the body length, known only at the chunk's end) is written last, at `offset`. The
//!   next chunk starts at `offset + 2 + header`, so no write is ever reordered or held back.
//! * Every accepted block's original 128 bytes go into a 4 KB [chunk buffer](CHUNK_BUFFER_BITS)
//!   (32 rows of 1,024 bits, one row per block). As soon as the body would reach `C` bytes (the
//!   chunk's raw size) the chunk is raw: its later blocks are not emitted, and after its last
//!   block the buffer's rows are replayed through the same bit packer as uncoded 1,024-bit blocks
//!   from `offset + 2`, overwriting what the body had written there, then the header `C`.
//!   The body bytes written before that point are the link bytes a raw chunk wastes.
//! * Bit packing: a coded block (3-bit tag + payload, ≤ 1,027 bits) is placed at the bit
//!   position `r` (0–255) inside the current 32-byte beat. Each cycle a funnel shifter takes the
//!   512 bits of the previous and the current 256-bit group of the block and extracts the beat
//!   at `r` (one 32-bit word select and two 32-bit shifts per output word); the block register
//!   shifts by one group per cycle. A second funnel, one group ahead, computes the partial beat
//!   that the block leaves behind (the residue), so a block takes `max(full beats, 1)` cycles.
//!   The residue is ORed into the next block's first beat; the last residue of a chunk is written
//!   with byte enables up to its last byte (the zero padding of FORMAT.md §7 comes for free: the
//!   lane's payload is zero past its length).
//!
//! # Writes
//! `wr_data[k]` holds bytes `4k … 4k+3` of the write, little-endian (as `beat_data`); byte `i`
//! lands at `wr_addr + i` when `wr_be` bit `i` is set. Body and raw writes are 32-byte aligned;
//! a header write is at the chunk's offset with two bytes enabled. Writes must be applied in
//! order (a raw chunk's replay overwrites its body). `wr_last` marks the transfer's final write
//! (its last header); when that write is taken, `done_valid` pulses for one cycle with the
//! transfer's id and wire bytes (Σ over its chunks of 2 + header, FORMAT.md §8).
//!
//! Microarchitecture, costs and measurements: `docs/HARDWARE.md`, "Chunk packer".

use rust_hdl::prelude::*;

/// Blocks per chunk (FORMAT.md §7).
pub const CHUNK_BLOCKS: usize = 32;
/// Bytes of a full chunk (FORMAT.md §7).
pub const CHUNK_BYTES: u64 = 4096;
/// Bits of the chunk buffer: 32 blocks of 1,024 bits (one full chunk of original bytes).
pub const CHUNK_BUFFER_BITS: usize = CHUNK_BLOCKS * 1024;
/// Bits of the block tag in front of every coded block (FORMAT.md §4).
pub const TAG_BITS: u64 = 3;
/// Bits added before a division by 8 rounds a bit count up to bytes.
const ROUND_UP_BITS: u64 = 7;
/// Bytes of a chunk header (FORMAT.md §7).
pub const HEADER_BYTES: u64 = 2;
/// Bytes per write (and per beat).
pub const WRITE_BYTES: u64 = 32;
/// Bytes per block (FORMAT.md §2).
pub const BLOCK_BYTES: u64 = 128;

/// Packer phase: no transfer.
pub const PHASE_IDLE: u64 = 0;
/// Packer phase: taking the chunk's blocks from the lane and emitting the body.
pub const PHASE_BODY: u64 = 1;
/// Packer phase: the chunk is raw and complete; waiting for the emitter to drain.
pub const PHASE_RAW_INIT: u64 = 2;
/// Packer phase: replaying the chunk buffer as the raw body.
pub const PHASE_REPLAY: u64 = 3;
/// Packer phase: writing the chunk's last partial beat.
pub const PHASE_FLUSH: u64 = 4;
/// Packer phase: writing the chunk's header and starting the next chunk.
pub const PHASE_HEADER: u64 = 5;

hw_block! {
/// The chunk packer; see the module docs.
#[derive(LogicBlock)]
pub struct ChunkPacker {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: drops any transfer in progress.
    pub reset: Signal<In, Bit>,
    /// A coded block is offered (the lane's `out_valid`).
    pub blk_valid: Signal<In, Bit>,
    /// The packer takes the offered block this cycle (to the lane's `out_ready`).
    pub blk_ready: Signal<Out, Bit>,
    /// Tag of the block's code.
    pub blk_tag: Signal<In, Bits<3>>,
    /// Payload bits (tag excluded), at most 1,024.
    pub blk_len: Signal<In, Bits<11>>,
    /// Payload bits `32k … 32k+31`, first bit in bit 31, zero past `blk_len`.
    pub blk_payload: [Signal<In, Bits<32>>; 32],
    /// The block's original 32 little-endian words (zero-padded past a transfer's end).
    pub blk_block: [Signal<In, Bits<32>>; 32],
    /// The block closes its transfer.
    pub blk_last: Signal<In, Bit>,
    /// Transfer id the lane carried with the block; the block's body writes carry it.
    pub blk_id: Signal<In, Bits<8>>,
    /// The next transfer's descriptor is available.
    pub xfer_valid: Signal<In, Bit>,
    /// Its byte count.
    pub xfer_bytes: Signal<In, Bits<32>>,
    /// Its id, carried on every write and on `done`.
    pub xfer_id: Signal<In, Bits<8>>,
    /// The packer takes the descriptor this cycle.
    pub xfer_take: Signal<Out, Bit>,
    /// A write is offered.
    pub wr_valid: Signal<Out, Bit>,
    /// The consumer takes the offered write this cycle.
    pub wr_ready: Signal<In, Bit>,
    /// Byte address of `wr_data[0]`'s first byte within the transfer's destination.
    pub wr_addr: Signal<Out, Bits<32>>,
    /// Write data: word `k` = bytes `4k … 4k+3`, little-endian.
    pub wr_data: [Signal<Out, Bits<32>>; 8],
    /// Byte enables: bit `i` = byte `i` of the write.
    pub wr_be: Signal<Out, Bits<32>>,
    /// Transfer id.
    pub wr_id: Signal<Out, Bits<8>>,
    /// The transfer's final write.
    pub wr_last: Signal<Out, Bit>,
    /// One-cycle pulse: the transfer's final write was taken.
    pub done_valid: Signal<Out, Bit>,
    /// Id of the finished transfer.
    pub done_id: Signal<Out, Bits<8>>,
    /// Wire bytes of the finished transfer (Σ over its chunks of 2 + header).
    pub done_wire_bytes: Signal<Out, Bits<32>>,

    buf: [RAM<Bits<32>, 5>; 32],
    k_idle: Constant<Bits<3>> = Constant::new(PHASE_IDLE.into()),
    k_body: Constant<Bits<3>> = Constant::new(PHASE_BODY.into()),
    k_raw_init: Constant<Bits<3>> = Constant::new(PHASE_RAW_INIT.into()),
    k_replay: Constant<Bits<3>> = Constant::new(PHASE_REPLAY.into()),
    k_flush: Constant<Bits<3>> = Constant::new(PHASE_FLUSH.into()),
    k_header: Constant<Bits<3>> = Constant::new(PHASE_HEADER.into()),
    k_tag_bits: Constant<Bits<16>> = Constant::new(TAG_BITS.into()),
    k_header_bytes: Constant<Bits<32>> = Constant::new(HEADER_BYTES.into()),
    k_write_bytes: Constant<Bits<32>> = Constant::new(WRITE_BYTES.into()),
    k_chunk_bytes: Constant<Bits<32>> = Constant::new(CHUNK_BYTES.into()),
    k_block_bytes: Constant<Bits<13>> = Constant::new(BLOCK_BYTES.into()),
    k_block_bits: Constant<Bits<11>> = Constant::new((8 * BLOCK_BYTES).into()),
    /// `c_room` of an empty chunk is `8·C −` this: the tag and the 7 bits of rounding up.
    k_room_start: Constant<Bits<17>> = Constant::new((TAG_BITS + ROUND_UP_BITS).into()),
    /// `c_top` is `8·C −` this: `⌈b/8⌉ = (b + 7) >> 3 = (8·C − 3 − c_room) >> 3`.
    k_top_less: Constant<Bits<17>> = Constant::new(TAG_BITS.into()),
    /// `c_top_wire` is `8·C +` this (`c_top` + 8 × the header bytes), so that
    /// `(c_top_wire − c_room) >> 3` is the chunk's wire bytes `2 + ⌈b/8⌉`, no adder after it.
    k_top_wire_more: Constant<Bits<17>> = Constant::new((8 * HEADER_BYTES - TAG_BITS).into()),
    /// `c_top_next` is `8·C +` this (`c_top` + 8 × two headers): `(c_top_next − c_room) >> 3`
    /// is the distance from this chunk's header to the next chunk's body, `2 + ⌈b/8⌉ + 2`.
    k_top_next_more: Constant<Bits<17>> = Constant::new((16 * HEADER_BYTES - TAG_BITS).into()),
    /// `c_room` of a raw chunk: `−3`, so that `(c_top − c_room) >> 3 = C` (the raw header).
    k_room_raw: Constant<Bits<17>> = Constant::new(((1u64 << 17) - TAG_BITS).into()),
    phase: DFF<Bits<3>>,
    /// The next transfer's descriptor is held (taken from the unit's queue whenever empty, so
    /// that a transfer's first chunk is set up from flops, not through the queue's read mux).
    n_valid: DFF<Bit>,
    /// Its byte count.
    n_bytes: DFF<Bits<32>>,
    /// Its byte count is zero (an empty transfer: done at once from IDLE).
    n_empty: DFF<Bit>,
    /// Its id.
    n_id: DFF<Bits<8>>,
    t_id: DFF<Bits<8>>,
    t_offset: DFF<Bits<32>>,
    t_rest: DFF<Bits<32>>,
    c_raw_bytes: DFF<Bits<13>>,
    /// Payload bits the chunk's next block may have before the chunk goes raw: `8·C − 10 − b`
    /// for `b` body bits so far (a block of `len` payload bits makes it raw iff `len ≥` this),
    /// two's complement. Kept instead of `b` so that the raw test is one compare of two flops.
    c_room: DFF<Bits<17>>,
    /// `8·C − 3`: the body bytes are `(c_top − c_room) >> 3` (`⌈b/8⌉`).
    c_top: DFF<Bits<17>>,
    /// `c_top + 16`: `(c_top_wire − c_room) >> 3` is the chunk's wire bytes.
    c_top_wire: DFF<Bits<17>>,
    /// `c_top + 32`: `(c_top_next − c_room) >> 3` is the next body's distance from `t_offset`.
    c_top_next: DFF<Bits<17>>,
    c_is_raw: DFF<Bit>,
    c_blk: DFF<Bits<5>>,
    c_last: DFF<Bit>,
    c_start: DFF<Bits<32>>,
    c_hdr: DFF<Bits<13>>,
    /// The chunk's wire bytes, `2 + c_hdr` (registered in the flush, so that the header cycle
    /// adds it to `t_offset` in one adder).
    c_wire: DFF<Bits<13>>,
    /// `2 + c_hdr + 2`: the next chunk's body starts at `t_offset + c_next`.
    c_next: DFF<Bits<13>>,
    r_idx: DFF<Bits<5>>,
    r_left: DFF<Bits<13>>,
    r_wait: DFF<Bit>,
    pos_r: DFF<Bits<8>>,
    waddr: DFF<Bits<32>>,
    lo: DFF<Bits<5>>,
    lo_pend: DFF<Bit>,
    e_busy: DFF<Bit>,
    e_first: DFF<Bit>,
    /// Full beats the emitter's block has still to write (a down-counter: the emitter's last
    /// cycle is a compare of a flop with a constant, not of a count with a sum).
    e_left: DFF<Bits<3>>,
    e_r: DFF<Bits<8>>,
    e_id: DFF<Bits<8>>,
    g: [DFF<Bits<32>>; 32],
    g_tail: DFF<Bits<3>>,
    prev: [DFF<Bits<32>>; 8],
    res: [DFF<Bits<32>>; 8],
    o_valid: DFF<Bit>,
    o_addr: DFF<Bits<32>>,
    o_data: [DFF<Bits<32>>; 8],
    o_be: DFF<Bits<32>>,
    o_id: DFF<Bits<8>>,
    o_last: DFF<Bit>,
    o_wire: DFF<Bits<32>>,
    d_valid: DFF<Bit>,
    d_id: DFF<Bits<8>>,
    d_wire: DFF<Bits<32>>,

    out_free: Signal<Local, Bit>,
    e_emit: Signal<Local, Bit>,
    e_lastcyc: Signal<Local, Bit>,
    e_go: Signal<Local, Bit>,
    e_done: Signal<Local, Bit>,
    e_free: Signal<Local, Bit>,
    fq: Signal<Local, Bits<3>>,
    fb: Signal<Local, Bits<6>>,
    fbc: Signal<Local, Bits<6>>,
    win_a: [Signal<Local, Bits<32>>; 16],
    win_b: [Signal<Local, Bits<32>>; 16],
    a_hi: [Signal<Local, Bits<32>>; 8],
    a_lo: [Signal<Local, Bits<32>>; 8],
    b_hi: [Signal<Local, Bits<32>>; 8],
    b_lo: [Signal<Local, Bits<32>>; 8],
    fa: [Signal<Local, Bits<32>>; 8],
    fbeat: [Signal<Local, Bits<32>>; 8],
    be_first: Signal<Local, Bits<32>>,
    flush_bytes: Signal<Local, Bits<6>>,
    blk_bits: Signal<Local, Bits<16>>,
    room_le0: Signal<Local, Bit>,
    room_big: Signal<Local, Bit>,
    room_lo: Signal<Local, Bits<11>>,
    chunk_bits: Signal<Local, Bits<17>>,
    wire_bits: Signal<Local, Bits<17>>,
    next_bits: Signal<Local, Bits<17>>,
    c_raw_bytes_new: Signal<Local, Bits<13>>,
    raw_new: Signal<Local, Bit>,
    chunk_end: Signal<Local, Bit>,
    take_blk: Signal<Local, Bit>,
    ld_lane: Signal<Local, Bit>,
    ld_replay: Signal<Local, Bit>,
    ld_len: Signal<Local, Bits<11>>,
    ld_tot: Signal<Local, Bits<11>>,
    blk_ready_l: Signal<Local, Bit>,
    xfer_take_l: Signal<Local, Bit>,
    setup: Signal<Local, Bit>,
    su_src: Signal<Local, Bits<32>>,
    su_start: Signal<Local, Bits<32>>,
    zero_done: Signal<Local, Bit>,
    next_ok: Signal<Local, Bit>,
    fq_hot: Signal<Local, Bits<8>>,
}
}

impl Logic for ChunkPacker {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- every flop holds unless overridden below
        dff_setup!(
            self, clock, phase, n_valid, n_bytes, n_empty, n_id, t_id, t_offset, t_rest, c_raw_bytes, c_room, c_top, c_top_wire, c_top_next, c_is_raw, c_blk, c_last, c_start,
            c_hdr, c_wire, c_next, r_idx, r_left, r_wait, pos_r, waddr, lo, lo_pend, e_busy, e_first, e_left, e_r, e_id, g_tail,
            o_valid, o_addr, o_be, o_id, o_last, o_wire, d_valid, d_id, d_wire
        );
        for k in 0..32 {
            self.g[k].clock.next = self.clock.val();
            self.g[k].d.next = self.g[k].q.val();
        }
        for k in 0..8 {
            self.prev[k].clock.next = self.clock.val();
            self.prev[k].d.next = self.prev[k].q.val();
            self.res[k].clock.next = self.clock.val();
            self.res[k].d.next = self.res[k].q.val();
            self.o_data[k].clock.next = self.clock.val();
            self.o_data[k].d.next = self.o_data[k].q.val();
        }

        // ---- emitter flow control: a full beat needs a free output register
        self.out_free.next = !self.o_valid.q.val() | self.wr_ready.val();
        self.e_emit.next = self.e_busy.q.val() & self.e_left.q.val().any();
        self.e_lastcyc.next = self.e_busy.q.val() & !self.e_left.q.val().get_bits::<2>(1).any();
        self.e_go.next = self.e_busy.q.val() & (!self.e_emit.val() | self.out_free.val());
        self.e_done.next = self.e_go.val() & self.e_lastcyc.val();
        self.e_free.next = !self.e_busy.q.val() | self.e_done.val();

        // ---- funnels: beat j = bits [256 - r, 512 - r) of (previous group ‖ current group);
        //      A on (prev, g[0..8]) is the beat now, B on (g[0..8], g[8..16]) the one after it
        self.fq.next = bit_cast::<3, 8>(self.e_r.q.val() >> 5);
        self.fb.next = bit_cast::<6, 8>(self.e_r.q.val() & 31);
        self.fbc.next = bits::<6>(32) - self.fb.val();
        for k in 0..8 {
            self.win_a[k].next = self.prev[k].q.val();
            self.win_a[k + 8].next = self.g[k].q.val();
            self.win_b[k].next = self.g[k].q.val();
            self.win_b[k + 8].next = self.g[k + 8].q.val();
        }
        for k in 0..8 {
            self.a_hi[k].next = bits::<32>(0);
            self.a_lo[k].next = bits::<32>(0);
            self.b_hi[k].next = bits::<32>(0);
            self.b_lo[k].next = bits::<32>(0);
            self.fa[k].next = bits::<32>(0);
            self.fbeat[k].next = bits::<32>(0);
        }
        self.fq_hot.next = bits::<8>(1) << self.fq.val();
        if self.e_busy.q.val() {
            for k in 0..8 {
                for w in 0..8 {
                    if self.fq_hot.val().get_bit(w) {
                        self.a_hi[k].next = self.win_a[7 + k - w].val();
                        self.a_lo[k].next = self.win_a[8 + k - w].val();
                        self.b_hi[k].next = self.win_b[7 + k - w].val();
                        self.b_lo[k].next = self.win_b[8 + k - w].val();
                    }
                }
                self.fa[k].next = (self.a_hi[k].val() << self.fbc.val()) | (self.a_lo[k].val() >> self.fb.val());
                if self.e_first.q.val() {
                    self.fa[k].next = self.fa[k].val() | self.res[k].q.val();
                }
                self.fbeat[k].next = (self.b_hi[k].val() << self.fbc.val()) | (self.b_lo[k].val() >> self.fb.val());
            }
        }

        // ---- byte enables: a chunk's first write starts at its first byte; a flush ends at
        //      the last byte that holds bits
        self.be_first.next = bits::<32>(0xFFFF_FFFF_u64);
        if self.lo_pend.q.val() {
            self.be_first.next = bits::<32>(0xFFFF_FFFF_u64) << self.lo.q.val();
        }
        self.flush_bytes.next = bit_cast::<6, 8>(self.pos_r.q.val() >> 3);
        if self.pos_r.q.val().get_bits::<3>(0).any() {
            self.flush_bytes.next = bit_cast::<6, 8>(self.pos_r.q.val() >> 3) + 1;
        }

        // ---- output register (the write port)
        self.o_valid.d.next = self.o_valid.q.val() & !self.wr_ready.val();
        if self.e_go.val() {
            if self.e_emit.val() {
                self.o_valid.d.next = true;
                self.o_addr.d.next = self.waddr.q.val();
                for k in 0..8 {
                    self.o_data[k].d.next = ((self.fa[k].val() & 0xFF) << 24)
                        | ((self.fa[k].val() & 0xFF00) << 8)
                        | ((self.fa[k].val() >> 8) & 0xFF00)
                        | (self.fa[k].val() >> 24);
                }
                self.o_be.d.next = self.be_first.val();
                self.o_id.d.next = self.e_id.q.val();
                self.o_last.d.next = false;
                self.waddr.d.next = self.waddr.q.val() + self.k_write_bytes.val();
                self.lo_pend.d.next = false;
            }
            // the block register moves on by one group
            for k in 0..8 {
                self.prev[k].d.next = self.g[k].q.val();
            }
            for k in 0..24 {
                self.g[k].d.next = self.g[k + 8].q.val();
            }
            self.g[24].d.next = bit_cast::<32, 3>(self.g_tail.q.val()) << 29;
            for k in 25..32 {
                self.g[k].d.next = bits::<32>(0);
            }
            self.g_tail.d.next = bits::<3>(0);
            self.e_left.d.next = self.e_left.q.val() - 1;
            self.e_first.d.next = false;
            if self.e_lastcyc.val() {
                self.e_busy.d.next = false;
                for k in 0..8 {
                    self.res[k].d.next = self.fbeat[k].val();
                    if !self.e_left.q.val().any() {
                        self.res[k].d.next = self.fa[k].val();
                    }
                }
            }
        }

        // ---- blocks from the lane: size so far, raw decision, chunk end
        self.blk_bits.next = self.k_tag_bits.val() + bit_cast::<16, 11>(self.blk_len.val());
        // Raw iff ⌈(b + 3 + len)/8⌉ ≥ C ⇔ len ≥ 8·C − 10 − b = c_room; `len` ≤ 1,024 < 2,048.
        self.room_le0.next = self.c_room.q.val().get_bit(16) | !self.c_room.q.val().any();
        self.room_big.next = self.c_room.q.val().get_bits::<5>(11).any() & !self.c_room.q.val().get_bit(16);
        self.room_lo.next = self.c_room.q.val().get_bits::<11>(0);
        self.raw_new.next = self.c_is_raw.q.val()
            | self.room_le0.val()
            | (!self.room_big.val() & (self.blk_len.val() >= self.room_lo.val()));
        self.chunk_end.next = self.blk_last.val() | self.c_blk.q.val().all();
        self.blk_ready_l.next = (self.phase.q.val() == self.k_body.val()) & self.e_free.val() & !self.reset.val();
        self.take_blk.next = self.blk_ready_l.val() & self.blk_valid.val();
        self.ld_lane.next = self.take_blk.val() & !self.raw_new.val();
        self.ld_replay.next = (self.phase.q.val() == self.k_replay.val()) & !self.r_wait.q.val() & self.e_free.val();
        self.ld_len.next = self.k_block_bits.val();
        if self.r_left.q.val() < self.k_block_bytes.val() {
            self.ld_len.next = bit_cast::<11, 13>(self.r_left.q.val() << 3);
        }
        // In the body phase the load is the lane's block (selected by the phase, not by the
        // late raw decision, which only enables the load).
        if self.phase.q.val() == self.k_body.val() {
            self.ld_len.next = bit_cast::<11, 16>(self.blk_bits.val());
        }
        self.ld_tot.next = bit_cast::<11, 8>(self.pos_r.q.val()) + self.ld_len.val();

        // the chunk buffer: row = block index in the chunk; read for the replay
        for k in 0..32 {
            self.buf[k].write_clock.next = self.clock.val();
            self.buf[k].read_clock.next = self.clock.val();
            self.buf[k].write_address.next = self.c_blk.q.val();
            self.buf[k].write_data.next = self.blk_block[k].val();
            self.buf[k].write_enable.next = self.take_blk.val();
            self.buf[k].read_address.next = self.r_idx.q.val();
        }
        if self.take_blk.val() {
            self.c_room.d.next = self.c_room.q.val() - bit_cast::<17, 16>(self.blk_bits.val());
            if self.raw_new.val() {
                self.c_room.d.next = self.k_room_raw.val();
            }
            self.c_is_raw.d.next = self.raw_new.val();
            self.c_blk.d.next = self.c_blk.q.val() + 1;
            if self.chunk_end.val() {
                self.c_last.d.next = self.blk_last.val();
                self.phase.d.next = self.k_flush.val();
                if self.raw_new.val() {
                    self.phase.d.next = self.k_raw_init.val();
                }
            }
        }

        // ---- emitter load: a coded block (tag ‖ payload) or a raw row of the buffer
        if self.ld_lane.val() | self.ld_replay.val() {
            self.e_busy.d.next = true;
            self.e_first.d.next = true;
            self.e_r.d.next = self.pos_r.q.val();
            self.e_left.d.next = bit_cast::<3, 11>(self.ld_tot.val() >> 8);
            self.pos_r.d.next = bit_cast::<8, 11>(self.ld_tot.val());
            for k in 0..8 {
                self.prev[k].d.next = bits::<32>(0);
            }
        }
        if self.ld_lane.val() {
            self.g[0].d.next = (bit_cast::<32, 3>(self.blk_tag.val()) << 29) | (self.blk_payload[0].val() >> 3);
            for k in 1..32 {
                self.g[k].d.next = (self.blk_payload[k - 1].val() << 29) | (self.blk_payload[k].val() >> 3);
            }
            self.g_tail.d.next = bit_cast::<3, 32>(self.blk_payload[31].val());
            self.e_id.d.next = self.blk_id.val();
        }
        if self.ld_replay.val() {
            for k in 0..32 {
                self.g[k].d.next = ((self.buf[k].read_data.val() & 0xFF) << 24)
                    | ((self.buf[k].read_data.val() & 0xFF00) << 8)
                    | ((self.buf[k].read_data.val() >> 8) & 0xFF00)
                    | (self.buf[k].read_data.val() >> 24);
            }
            self.g_tail.d.next = bits::<3>(0);
            self.e_id.d.next = self.t_id.q.val();
            self.r_idx.d.next = self.r_idx.q.val() + 1;
            self.r_left.d.next = self.r_left.q.val() - self.k_block_bytes.val();
            if self.r_left.q.val() <= self.k_block_bytes.val() {
                self.phase.d.next = self.k_flush.val();
            }
        }
        // the buffer's read data matches r_idx one cycle after r_idx changed
        self.r_wait.d.next = self.ld_replay.val();

        // ---- a raw chunk restarts its body at the chunk's start, once the emitter is empty
        if (self.phase.q.val() == self.k_raw_init.val()) & !self.e_busy.q.val() {
            self.pos_r.d.next = bit_cast::<8, 32>(self.c_start.q.val() & 31) << 3;
            self.waddr.d.next = (self.c_start.q.val() >> 5) << 5;
            self.lo.d.next = bit_cast::<5, 32>(self.c_start.q.val());
            self.lo_pend.d.next = true;
            for k in 0..8 {
                self.res[k].d.next = bits::<32>(0);
            }
            self.r_idx.d.next = bits::<5>(0);
            self.r_left.d.next = self.c_raw_bytes.q.val();
            self.r_wait.d.next = true;
            self.phase.d.next = self.k_replay.val();
        }

        // ---- flush: the last partial beat, up to its last byte; the header value
        //      (a raw chunk's c_room is −3, so the same subtraction gives its header C)
        self.chunk_bits.next = self.c_top.q.val() - self.c_room.q.val();
        self.wire_bits.next = self.c_top_wire.q.val() - self.c_room.q.val();
        self.next_bits.next = self.c_top_next.q.val() - self.c_room.q.val();
        if (self.phase.q.val() == self.k_flush.val()) & !self.e_busy.q.val() {
            self.c_hdr.d.next = bit_cast::<13, 17>(self.chunk_bits.val() >> 3);
            self.c_wire.d.next = bit_cast::<13, 17>(self.wire_bits.val() >> 3);
            self.c_next.d.next = bit_cast::<13, 17>(self.next_bits.val() >> 3);
            if !self.pos_r.q.val().any() {
                self.phase.d.next = self.k_header.val();
            } else if self.out_free.val() {
                self.o_valid.d.next = true;
                self.o_addr.d.next = self.waddr.q.val();
                for k in 0..8 {
                    self.o_data[k].d.next = ((self.res[k].q.val() & 0xFF) << 24)
                        | ((self.res[k].q.val() & 0xFF00) << 8)
                        | ((self.res[k].q.val() >> 8) & 0xFF00)
                        | (self.res[k].q.val() >> 24);
                }
                self.o_be.d.next = self.be_first.val() & !(bits::<32>(0xFFFF_FFFF_u64) << self.flush_bytes.val());
                self.o_id.d.next = self.t_id.q.val();
                self.o_last.d.next = false;
                self.phase.d.next = self.k_header.val();
            }
        }

        // ---- header: written last, at the chunk's offset; then the next chunk or the end
        self.setup.next = false;
        self.next_ok.next = false;
        self.su_src.next = self.t_rest.q.val();
        self.su_start.next = self.t_offset.q.val() + bit_cast::<32, 13>(self.c_next.q.val());
        if (self.phase.q.val() == self.k_header.val()) & self.out_free.val() {
            self.o_valid.d.next = true;
            self.o_addr.d.next = self.t_offset.q.val();
            self.o_data[0].d.next = bit_cast::<32, 13>(self.c_hdr.q.val());
            for k in 1..8 {
                self.o_data[k].d.next = bits::<32>(0);
            }
            self.o_be.d.next = bits::<32>(3);
            self.o_id.d.next = self.t_id.q.val();
            self.o_last.d.next = self.c_last.q.val();
            // The next chunk's offset is the wire bytes so far (Σ of 2 + header).
            self.o_wire.d.next = self.t_offset.q.val() + bit_cast::<32, 13>(self.c_wire.q.val());
            self.t_offset.d.next = self.t_offset.q.val() + bit_cast::<32, 13>(self.c_wire.q.val());
            if self.c_last.q.val() {
                self.phase.d.next = self.k_idle.val();
                self.next_ok.next = true;
            } else {
                self.setup.next = true;
            }
        }

        // ---- the next descriptor: taken into n_* whenever they are empty (from the queue's
        //      read mux straight into the chunk setup it was an 834 ps path)
        self.xfer_take_l.next = !self.n_valid.q.val() & self.xfer_valid.val() & !self.reset.val();
        if self.xfer_take_l.val() {
            self.n_valid.d.next = true;
            self.n_bytes.d.next = self.xfer_bytes.val();
            self.n_empty.d.next = !self.xfer_bytes.val().any();
            self.n_id.d.next = self.xfer_id.val();
        }

        // ---- a new transfer (in IDLE, or in the cycle its predecessor's last header is written):
        //      its first chunk starts at byte 2; an empty one is done at once (from IDLE only)
        self.zero_done.next = false;
        if self.phase.q.val() == self.k_idle.val() {
            self.next_ok.next = true;
        }
        if self.next_ok.val() & self.n_valid.q.val() {
            if !self.n_empty.q.val() {
                self.n_valid.d.next = false;
                self.t_id.d.next = self.n_id.q.val();
                self.t_offset.d.next = bits::<32>(0);
                self.setup.next = true;
                self.su_src.next = self.n_bytes.q.val();
                self.su_start.next = self.k_header_bytes.val();
            } else if (self.phase.q.val() == self.k_idle.val()) & !self.o_valid.q.val() {
                self.n_valid.d.next = false;
                self.zero_done.next = true;
            }
        }

        // ---- chunk setup: raw size C = min(4096, bytes left), body at su_start
        self.c_raw_bytes_new.next = self.c_raw_bytes.q.val();
        if self.setup.val() {
            self.c_raw_bytes_new.next = bit_cast::<13, 32>(self.k_chunk_bytes.val());
            self.t_rest.d.next = self.su_src.val() - self.k_chunk_bytes.val();
            if self.su_src.val() <= self.k_chunk_bytes.val() {
                self.c_raw_bytes_new.next = bit_cast::<13, 32>(self.su_src.val());
                self.t_rest.d.next = bits::<32>(0);
            }
            self.c_raw_bytes.d.next = self.c_raw_bytes_new.val();
            self.c_room.d.next = (bit_cast::<17, 13>(self.c_raw_bytes_new.val()) << 3) - self.k_room_start.val();
            self.c_top.d.next = (bit_cast::<17, 13>(self.c_raw_bytes_new.val()) << 3) - self.k_top_less.val();
            self.c_top_wire.d.next = (bit_cast::<17, 13>(self.c_raw_bytes_new.val()) << 3) + self.k_top_wire_more.val();
            self.c_top_next.d.next = (bit_cast::<17, 13>(self.c_raw_bytes_new.val()) << 3) + self.k_top_next_more.val();
            self.c_is_raw.d.next = false;
            self.c_blk.d.next = bits::<5>(0);
            self.c_last.d.next = false;
            self.c_start.d.next = self.su_start.val();
            self.pos_r.d.next = bit_cast::<8, 32>(self.su_start.val() & 31) << 3;
            self.waddr.d.next = (self.su_start.val() >> 5) << 5;
            self.lo.d.next = bit_cast::<5, 32>(self.su_start.val());
            self.lo_pend.d.next = true;
            for k in 0..8 {
                self.res[k].d.next = bits::<32>(0);
            }
            self.phase.d.next = self.k_body.val();
        }

        // ---- done: the transfer's final write was taken
        self.d_valid.d.next = false;
        if self.o_valid.q.val() & self.wr_ready.val() & self.o_last.q.val() {
            self.d_valid.d.next = true;
            self.d_id.d.next = self.o_id.q.val();
            self.d_wire.d.next = self.o_wire.q.val();
        }
        if self.zero_done.val() {
            self.d_valid.d.next = true;
            self.d_id.d.next = self.n_id.q.val();
            self.d_wire.d.next = bits::<32>(0);
        }

        // ---- synchronous reset
        if self.reset.val() {
            self.phase.d.next = self.k_idle.val();
            self.n_valid.d.next = false;
            self.e_busy.d.next = false;
            self.o_valid.d.next = false;
            self.d_valid.d.next = false;
        }

        // ---- ports, each written once
        self.blk_ready.next = self.blk_ready_l.val();
        self.xfer_take.next = self.xfer_take_l.val();
        self.wr_valid.next = self.o_valid.q.val();
        self.wr_addr.next = self.o_addr.q.val();
        for k in 0..8 {
            self.wr_data[k].next = self.o_data[k].q.val();
        }
        self.wr_be.next = self.o_be.q.val();
        self.wr_id.next = self.o_id.q.val();
        self.wr_last.next = self.o_last.q.val();
        self.done_valid.next = self.d_valid.q.val();
        self.done_id.next = self.d_id.q.val();
        self.done_wire_bytes.next = self.d_wire.q.val();
    }
}
