//! The compressor lane (paper §III-A, Fig. 2, §III-D): 128-byte blocks in as 32-byte beats, one
//! encoded block out every 4 cycles — all four codes sized in parallel, the smallest (or raw)
//! chosen with the FORMAT.md tie-break, and its bits emitted MSB-first. Bit-exact to
//! [`crate::golden::encode_block`]; `docs/HARDWARE.md` draws the stages.
//!
//! # Ports
//! * Input beat (valid/ready): `beat_data[k]` is the little-endian 32-bit word at byte `4k` of
//!   the beat; beat `b` of a block carries bytes `32b … 32b+31`. `beat_last` marks the last beat
//!   of a transfer; it closes the block even before its fourth beat.
//! * Descriptor, held stable for a transfer: `desc_w16` (16-bit symbols, N = 64; else 32-bit,
//!   N = 32), `desc_id` (echoed on every output block), `desc_tail_bytes` (valid bytes of the
//!   final block, 0 = all 128; the rest is zero-padded as FORMAT.md pads a final partial block).
//! * Output (valid/ready), one transaction per block: `out_tag` (3 bits), `out_len` (payload
//!   bits), `out_payload[k]` = payload bits `32k … 32k+31` with the first bit in bit 31 (zero past
//!   `out_len`), `out_block` = the block's original words (as input), `out_id`, `out_last`
//!   (the transfer's final block).
//!
//! # Stages (one block every 4 cycles, latency 10 cycles)
//! 1. gather: three beats in flops; the fourth (or `beat_last`) beat loads stage 1 directly.
//! 2. stage 1 (flops inside the [`Compactor`]): symbol view, nonzero mask and count, nonzeros to
//!    the front; the DBX deltas; all captured by stage 2.
//! 3. stage 2 (flops inside the three [`PlaneStats`], plus `s2_*`): plane statistics and sizes of
//!    DBX, BX and ZBX, the ZVC and base-code sizes, the choice, and the transpose of the chosen
//!    code's planes into the emitter's plane queue.
//! 4. emitter (`em_*`), time-shared over 4 cycles: a header unit (cycle 0) and 9 plane coders
//!    that each cycle code the next 9 planes of the queue and OR their pieces into the payload
//!    buffer at the running bit position; ZVC and raw fill the buffer at load (fixed layout).
//! 5. output register (`o_*`).
//!
//! Sub-blocks own the flops in front of their logic, so no combinational path runs through a
//! sub-block (Verilator's lint sees no loops).

use super::compactor::Compactor;
use super::hdl_util::{arr, constants, d};
use super::plane_stats::{PlaneStats, STATS_CYCLES};
use rust_hdl::prelude::*;

/// Planes the emitter's queue holds: 33 planes (DBX, 32-bit symbols) rounded up to 4 cycles × 9
/// plane coders.
pub const QUEUE_PLANES: usize = 36;
/// Cycles the lane spends on each block (its initiation interval).
pub const CYCLES_PER_BLOCK: u64 = 4;
/// Cycles from the first beat of a block entering to its encoding on the output.
pub const LATENCY_CYCLES: u64 = 10 + STATS_CYCLES;

hw_block! {
/// One compressor lane; see the module docs for ports and stages.
#[derive(LogicBlock)]
pub struct CompressorLane {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Synchronous reset: empties every stage.
    pub reset: Signal<In, Bit> = d(),
    /// A beat is offered.
    pub beat_valid: Signal<In, Bit> = d(),
    /// The lane takes the offered beat this cycle.
    pub beat_ready: Signal<Out, Bit> = d(),
    /// The 32-byte beat as 8 little-endian 32-bit words.
    pub beat_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// Last beat of the transfer: closes the block.
    pub beat_last: Signal<In, Bit> = d(),
    /// Descriptor: 16-bit symbols (bf16/f16); else 32-bit.
    pub desc_w16: Signal<In, Bit> = d(),
    /// Descriptor: transfer id, echoed on the output.
    pub desc_id: Signal<In, Bits<8>> = d(),
    /// Descriptor: valid bytes of the transfer's final block (0 = 128).
    pub desc_tail_bytes: Signal<In, Bits<7>> = d(),
    /// An encoded block is offered.
    pub out_valid: Signal<Out, Bit> = d(),
    /// The consumer takes the offered block this cycle.
    pub out_ready: Signal<In, Bit> = d(),
    /// Tag of the chosen code (FORMAT.md: 0 ZVC, 1 DBX, 2 BX, 3 ZBX, 4 raw).
    pub out_tag: Signal<Out, Bits<3>> = d(),
    /// Payload length in bits (tag excluded), at most 1,024.
    pub out_len: Signal<Out, Bits<11>> = d(),
    /// Payload bits `32k … 32k+31`, first bit in bit 31.
    pub out_payload: [Signal<Out, Bits<32>>; 32] = arr(),
    /// The block's original 32 words, for a chunk packer that stores a chunk raw.
    pub out_block: [Signal<Out, Bits<32>>; 32] = arr(),
    /// Transfer id of the block.
    pub out_id: Signal<Out, Bits<8>> = d(),
    /// The block closes its transfer.
    pub out_last: Signal<Out, Bit> = d(),
    compactor: Compactor = d(),
    stats_dbx: PlaneStats = d(),
    stats_bx: PlaneStats = d(),
    stats_zbx: PlaneStats = d(),
    word_index: [Constant<Bits<6>>; 32] = constants(1),
    byte_index: [Constant<Bits<8>>; 33] = constants(4),
    gather_count: DFF<Bits<2>> = d(),
    gather: [DFF<Bits<32>>; 24] = arr(),
    s1_valid: DFF<Bit> = d(),
    s1_id: DFF<Bits<8>> = d(),
    s1_last: DFF<Bit> = d(),
    s2_valid: DFF<Bit> = d(),
    /// Cycles the block has spent in stage 2, saturating at the plane statistics' latency.
    s2_age: DFF<Bits<2>> = d(),
    /// [`STATS_CYCLES`] as a Verilog constant.
    stats_cycles: Constant<Bits<2>> = Constant::new(STATS_CYCLES.into()),
    s2_words: [DFF<Bits<32>>; 32] = arr(),
    s2_packed: [DFF<Bits<32>>; 64] = arr(),
    s2_mask_hi: DFF<Bits<32>> = d(),
    s2_mask_lo: DFF<Bits<32>> = d(),
    s2_nonzero: DFF<Bits<7>> = d(),
    s2_w16: DFF<Bit> = d(),
    s2_id: DFF<Bits<8>> = d(),
    s2_last: DFF<Bit> = d(),
    em_busy: DFF<Bit> = d(),
    em_cycle: DFF<Bits<2>> = d(),
    em_buf: [DFF<Bits<32>>; 32] = arr(),
    em_pos: DFF<Bits<11>> = d(),
    em_plane_hi: [DFF<Bits<32>>; QUEUE_PLANES] = arr(),
    em_plane_lo: [DFF<Bits<32>>; QUEUE_PLANES] = arr(),
    em_class: [DFF<Bits<3>>; QUEUE_PLANES] = arr(),
    em_run: [DFF<Bits<6>>; QUEUE_PLANES] = arr(),
    em_head_a: DFF<Bits<32>> = d(),
    em_head_a_len: DFF<Bits<6>> = d(),
    em_head_b: DFF<Bits<32>> = d(),
    em_head_b_len: DFF<Bits<6>> = d(),
    em_tag: DFF<Bits<3>> = d(),
    em_len: DFF<Bits<11>> = d(),
    em_plane_len: DFF<Bits<7>> = d(),
    em_hi_len: DFF<Bits<6>> = d(),
    em_lo_len: DFF<Bits<6>> = d(),
    em_pos_shift: DFF<Bits<5>> = d(),
    em_pos_len: DFF<Bits<6>> = d(),
    em_run_shift: DFF<Bits<5>> = d(),
    em_run_len: DFF<Bits<6>> = d(),
    em_words: [DFF<Bits<32>>; 32] = arr(),
    em_id: DFF<Bits<8>> = d(),
    em_last: DFF<Bit> = d(),
    o_valid: DFF<Bit> = d(),
    o_tag: DFF<Bits<3>> = d(),
    o_len: DFF<Bits<11>> = d(),
    o_payload: [DFF<Bits<32>>; 32] = arr(),
    o_block: [DFF<Bits<32>>; 32] = arr(),
    o_id: DFF<Bits<8>> = d(),
    o_last: DFF<Bit> = d(),
    out_free: Signal<Local, Bit> = d(),
    em_stall: Signal<Local, Bit> = d(),
    em_step: Signal<Local, Bit> = d(),
    em_finish: Signal<Local, Bit> = d(),
    em_free: Signal<Local, Bit> = d(),
    s2_move: Signal<Local, Bit> = d(),
    s2_free: Signal<Local, Bit> = d(),
    s1_move: Signal<Local, Bit> = d(),
    s1_free: Signal<Local, Bit> = d(),
    beat_fire: Signal<Local, Bit> = d(),
    closing: Signal<Local, Bit> = d(),
    assembled: [Signal<Local, Bits<32>>; 32] = arr(),
    tail_bytes: Signal<Local, Bits<8>> = d(),
    tail_rem: Signal<Local, Bits<8>> = d(),
    wide_tmp: Signal<Local, Bits<32>> = d(),
    /// Symbol counts and DBX borrow bits while they are chosen; each plane-stats input port is
    /// then written once (several writes per evaluation glitch; see docs/HARDWARE.md, "Icarus-safe").
    count_bx_l: Signal<Local, Bits<7>> = d(),
    count_dbx_l: Signal<Local, Bits<7>> = d(),
    x_top_dbx_l: [Signal<Local, Bit>; 32] = arr(),
    delta: [Signal<Local, Bits<32>>; 64] = arr(),
    base_symbol: Signal<Local, Bits<32>> = d(),
    size_zvc: Signal<Local, Bits<11>> = d(),
    size_dbx: Signal<Local, Bits<11>> = d(),
    size_bx: Signal<Local, Bits<11>> = d(),
    size_zbx: Signal<Local, Bits<11>> = d(),
    base_value: Signal<Local, Bits<32>> = d(),
    base_len: Signal<Local, Bits<11>> = d(),
    choice_tag: Signal<Local, Bits<3>> = d(),
    choice_len: Signal<Local, Bits<11>> = d(),
    sel_len: Signal<Local, Bits<7>> = d(),
    sel_pos_field: Signal<Local, Bits<3>> = d(),
    sel_y: [Signal<Local, Bits<32>>; 32] = arr(),
    sel_y_lo: [Signal<Local, Bits<17>>; 32] = arr(),
    sel_y_top: [Signal<Local, Bit>; 32] = arr(),
    sel_single: Signal<Local, Bits<32>> = d(),
    sel_run: Signal<Local, Bits<32>> = d(),
    sel_zero: Signal<Local, Bits<32>> = d(),
    sel_all_ones: Signal<Local, Bits<32>> = d(),
    sel_dbp_zero: Signal<Local, Bits<32>> = d(),
    sel_two: Signal<Local, Bits<32>> = d(),
    sel_one: Signal<Local, Bits<32>> = d(),
    sel_verbatim: Signal<Local, Bits<32>> = d(),
    sel_single_top: Signal<Local, Bit> = d(),
    sel_run_top: Signal<Local, Bit> = d(),
    sel_zero_top: Signal<Local, Bit> = d(),
    sel_all_ones_top: Signal<Local, Bit> = d(),
    sel_dbp_zero_top: Signal<Local, Bit> = d(),
    sel_two_top: Signal<Local, Bit> = d(),
    sel_one_top: Signal<Local, Bit> = d(),
    sel_verbatim_top: Signal<Local, Bit> = d(),
    plane_hi: [Signal<Local, Bits<32>>; 33] = arr(),
    plane_lo: [Signal<Local, Bits<32>>; 33] = arr(),
    plane_class: [Signal<Local, Bits<3>>; 33] = arr(),
    plane_run: [Signal<Local, Bits<6>>; 33] = arr(),
    eb: [Signal<Local, Bits<32>>; 32] = arr(),
    ep: Signal<Local, Bits<11>> = d(),
    ins_idx: Signal<Local, Bits<6>> = d(),
    ins_off: Signal<Local, Bits<6>> = d(),
    ins_hi: Signal<Local, Bits<32>> = d(),
    ins_lo: Signal<Local, Bits<32>> = d(),
    piece_a: Signal<Local, Bits<32>> = d(),
    piece_a_len: Signal<Local, Bits<6>> = d(),
    piece_b: Signal<Local, Bits<32>> = d(),
    piece_b_len: Signal<Local, Bits<6>> = d(),
    piece_c: Signal<Local, Bits<32>> = d(),
    piece_c_len: Signal<Local, Bits<6>> = d(),
    coder_tz: Signal<Local, Bits<7>> = d(),
    coder_found: Signal<Local, Bit> = d(),
    coder_pos: Signal<Local, Bits<7>> = d(),
    coder_run: Signal<Local, Bits<6>> = d(),
}
}

impl Logic for CompressorLane {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- every flop holds unless overridden below
        dff_setup!(
            self,
            clock,
            gather_count,
            s1_valid,
            s1_id,
            s1_last,
            s2_valid,
            s2_age,
            s2_mask_hi,
            s2_mask_lo,
            s2_nonzero,
            s2_w16,
            s2_id,
            s2_last,
            em_busy,
            em_cycle,
            em_pos,
            em_head_a,
            em_head_a_len,
            em_head_b,
            em_head_b_len,
            em_tag,
            em_len,
            em_plane_len,
            em_hi_len,
            em_lo_len,
            em_pos_shift,
            em_pos_len,
            em_run_shift,
            em_run_len,
            em_id,
            em_last,
            o_valid,
            o_tag,
            o_len,
            o_id,
            o_last
        );
        for i in 0..24 {
            self.gather[i].clock.next = self.clock.val();
            self.gather[i].d.next = self.gather[i].q.val();
        }
        for i in 0..32 {
            self.s2_words[i].clock.next = self.clock.val();
            self.s2_words[i].d.next = self.s2_words[i].q.val();
            self.em_buf[i].clock.next = self.clock.val();
            self.em_buf[i].d.next = self.em_buf[i].q.val();
            self.em_words[i].clock.next = self.clock.val();
            self.em_words[i].d.next = self.em_words[i].q.val();
            self.o_payload[i].clock.next = self.clock.val();
            self.o_payload[i].d.next = self.o_payload[i].q.val();
            self.o_block[i].clock.next = self.clock.val();
            self.o_block[i].d.next = self.o_block[i].q.val();
        }
        for i in 0..64 {
            self.s2_packed[i].clock.next = self.clock.val();
            self.s2_packed[i].d.next = self.s2_packed[i].q.val();
        }
        for i in 0..36 {
            self.em_plane_hi[i].clock.next = self.clock.val();
            self.em_plane_hi[i].d.next = self.em_plane_hi[i].q.val();
            self.em_plane_lo[i].clock.next = self.clock.val();
            self.em_plane_lo[i].d.next = self.em_plane_lo[i].q.val();
            self.em_class[i].clock.next = self.clock.val();
            self.em_class[i].d.next = self.em_class[i].q.val();
            self.em_run[i].clock.next = self.clock.val();
            self.em_run[i].d.next = self.em_run[i].q.val();
        }

        // ---- flow control: a stage moves on when the next one is empty or moving too
        self.out_free.next = !self.o_valid.q.val() | self.out_ready.val();
        self.em_stall.next = self.em_busy.q.val() & (self.em_cycle.q.val() == 3) & !self.out_free.val();
        self.em_step.next = self.em_busy.q.val() & !self.em_stall.val();
        self.em_finish.next = self.em_step.val() & (self.em_cycle.q.val() == 3);
        self.em_free.next = !self.em_busy.q.val() | self.em_finish.val();
        self.s2_move.next = self.s2_valid.q.val() & (self.s2_age.q.val() == self.stats_cycles.val()) & self.em_free.val();
        self.s2_free.next = !self.s2_valid.q.val() | self.s2_move.val();
        self.s1_move.next = self.s1_valid.q.val() & self.s2_free.val();
        self.s1_free.next = !self.s1_valid.q.val() | self.s1_move.val();
        self.beat_ready.next = self.s1_free.val() & !self.reset.val();
        self.beat_fire.next = self.beat_valid.val() & self.beat_ready.val();
        self.closing.next = self.beat_last.val() | (self.gather_count.q.val() == 3);

        // ---- gather: held beats, this beat in its slot, zeros after it
        for k in 0..24 {
            self.assembled[k].next = self.gather[k].q.val();
        }
        for k in 24..32 {
            self.assembled[k].next = self.beat_data[k - 24].val();
        }
        match self.gather_count.q.val().index() {
            0 => {
                for k in 0..8 {
                    self.assembled[k].next = self.beat_data[k].val();
                }
                for k in 8..32 {
                    self.assembled[k].next = bits::<32>(0);
                }
            }
            1 => {
                for k in 8..16 {
                    self.assembled[k].next = self.beat_data[k - 8].val();
                }
                for k in 16..32 {
                    self.assembled[k].next = bits::<32>(0);
                }
            }
            2 => {
                for k in 16..24 {
                    self.assembled[k].next = self.beat_data[k - 16].val();
                }
                for k in 24..32 {
                    self.assembled[k].next = bits::<32>(0);
                }
            }
            _ => {}
        }
        // A final partial block keeps its first `desc_tail_bytes` bytes, zero-padded.
        self.tail_bytes.next = bit_cast::<8, 7>(self.desc_tail_bytes.val());
        self.tail_rem.next = bits::<8>(0);
        if self.beat_last.val() & self.desc_tail_bytes.val().any() {
            for k in 0..32 {
                if self.tail_bytes.val() <= self.byte_index[k].val() {
                    self.assembled[k].next = bits::<32>(0);
                } else if self.tail_bytes.val() < self.byte_index[k + 1].val() {
                    self.tail_rem.next = self.tail_bytes.val() - self.byte_index[k].val();
                    if self.tail_rem.val() == 1 {
                        self.assembled[k].next = self.assembled[k].val() & 0xFF;
                    }
                    if self.tail_rem.val() == 2 {
                        self.assembled[k].next = self.assembled[k].val() & 0xFFFF;
                    }
                    if self.tail_rem.val() == 3 {
                        self.assembled[k].next = self.assembled[k].val() & 0xFF_FFFF;
                    }
                }
            }
        }
        if self.beat_fire.val() {
            if self.closing.val() {
                self.gather_count.d.next = bits::<2>(0);
            } else {
                self.gather_count.d.next = self.gather_count.q.val() + 1;
                match self.gather_count.q.val().index() {
                    0 => {
                        for k in 0..8 {
                            self.gather[k].d.next = self.beat_data[k].val();
                        }
                    }
                    1 => {
                        for k in 0..8 {
                            self.gather[k + 8].d.next = self.beat_data[k].val();
                        }
                    }
                    _ => {
                        for k in 0..8 {
                            self.gather[k + 16].d.next = self.beat_data[k].val();
                        }
                    }
                }
            }
        }

        // ---- stage 1: the closing beat loads the whole block into the compactor's flops
        self.s1_valid.d.next = self.s1_valid.q.val() & !self.s1_move.val();
        self.compactor.clock.next = self.clock.val();
        self.compactor.load.next = self.beat_fire.val() & self.closing.val();
        self.compactor.w16.next = self.desc_w16.val();
        for k in 0..32 {
            self.compactor.words[k].next = self.assembled[k].val();
        }
        if self.beat_fire.val() & self.closing.val() {
            self.s1_valid.d.next = true;
            self.s1_id.d.next = self.desc_id.val();
            self.s1_last.d.next = self.beat_last.val();
        }

        // ---- stage 1: inputs of the three plane codes, captured by their stage-2 flops
        self.stats_bx.clock.next = self.clock.val();
        self.stats_zbx.clock.next = self.clock.val();
        self.stats_dbx.clock.next = self.clock.val();
        self.stats_bx.load.next = self.s1_move.val();
        self.stats_zbx.load.next = self.s1_move.val();
        self.stats_dbx.load.next = self.s1_move.val();
        // BX: the N symbols.
        for m in 0..32 {
            self.stats_bx.x[m].next = self.compactor.sym[m].val();
            self.stats_bx.x_top[m].next = false;
            self.wide_tmp.next = self.compactor.sym[m + 32].val();
            self.stats_bx.x_lo[m].next = bit_cast::<17, 32>(self.wide_tmp.val());
            self.stats_bx.valid[m].next = true;
            self.stats_bx.valid[m + 32].next = self.compactor.w16_q.val();
        }
        self.count_bx_l.next = bits::<7>(32);
        if self.compactor.w16_q.val() {
            self.count_bx_l.next = bits::<7>(64);
        }
        self.stats_bx.count.next = self.count_bx_l.val();
        self.stats_bx.wide.next = !self.compactor.w16_q.val();
        self.stats_bx.extra.next = false;
        // ZBX: the n compacted nonzeros.
        for m in 0..32 {
            self.stats_zbx.x[m].next = self.compactor.packed[m].val();
            self.stats_zbx.x_top[m].next = false;
            self.wide_tmp.next = self.compactor.packed[m + 32].val();
            self.stats_zbx.x_lo[m].next = bit_cast::<17, 32>(self.wide_tmp.val());
        }
        for m in 0..64 {
            self.stats_zbx.valid[m].next = self.compactor.packed[m].val().any();
        }
        self.stats_zbx.count.next = self.compactor.nonzero.val();
        self.stats_zbx.wide.next = !self.compactor.w16_q.val();
        self.stats_zbx.extra.next = false;
        // DBX: the N − 1 deltas as (w+1)-bit numbers; bit w is the borrow.
        for m in 0..63 {
            self.delta[m].next = self.compactor.sym[m + 1].val() - self.compactor.sym[m].val();
        }
        self.delta[63].next = bits::<32>(0);
        for m in 0..32 {
            self.x_top_dbx_l[m].next = false;
        }
        if self.compactor.w16_q.val() {
            for m in 0..63 {
                self.delta[m].next = self.delta[m].val() & 0x1_FFFF;
            }
        } else {
            for m in 0..31 {
                self.x_top_dbx_l[m].next = self.compactor.sym[m + 1].val() < self.compactor.sym[m].val();
            }
            for m in 31..64 {
                self.delta[m].next = bits::<32>(0);
            }
        }
        for m in 0..32 {
            self.stats_dbx.x_top[m].next = self.x_top_dbx_l[m].val();
            self.stats_dbx.x[m].next = self.delta[m].val();
            self.wide_tmp.next = self.delta[m + 32].val();
            self.stats_dbx.x_lo[m].next = bit_cast::<17, 32>(self.wide_tmp.val());
        }
        for m in 0..31 {
            self.stats_dbx.valid[m].next = true;
        }
        for m in 31..63 {
            self.stats_dbx.valid[m].next = self.compactor.w16_q.val();
        }
        self.stats_dbx.valid[63].next = false;
        self.count_dbx_l.next = bits::<7>(31);
        if self.compactor.w16_q.val() {
            self.count_dbx_l.next = bits::<7>(63);
        }
        self.stats_dbx.count.next = self.count_dbx_l.val();
        self.stats_dbx.wide.next = !self.compactor.w16_q.val();
        self.stats_dbx.extra.next = true;

        // ---- stage 2 registers: block, compacted symbols, mask, count
        self.s2_valid.d.next = self.s2_valid.q.val() & !self.s2_move.val();
        if self.s2_age.q.val() != self.stats_cycles.val() {
            self.s2_age.d.next = self.s2_age.q.val() + 1;
        }
        if self.s1_move.val() {
            self.s2_valid.d.next = true;
            self.s2_age.d.next = bits::<2>(0);
            for k in 0..32 {
                self.s2_words[k].d.next = self.compactor.words_q[k].val();
            }
            for i in 0..64 {
                self.s2_packed[i].d.next = self.compactor.packed[i].val();
            }
            self.s2_mask_hi.d.next = self.compactor.mask_hi.val();
            self.s2_mask_lo.d.next = self.compactor.mask_lo.val();
            self.s2_nonzero.d.next = self.compactor.nonzero.val();
            self.s2_w16.d.next = self.compactor.w16_q.val();
            self.s2_id.d.next = self.s1_id.q.val();
            self.s2_last.d.next = self.s1_last.q.val();
        }
        // ---- stage 2: sizes of all four codes, and the choice
        self.size_bx.next = self.stats_bx.plane_bits.val();
        self.size_zbx.next = bits::<11>(32);
        self.size_zvc.next = bits::<11>(32) + (bit_cast::<11, 7>(self.s2_nonzero.q.val()) << 5);
        if self.s2_w16.q.val() {
            self.size_zbx.next = bits::<11>(64);
            self.size_zvc.next = bits::<11>(64) + (bit_cast::<11, 7>(self.s2_nonzero.q.val()) << 4);
        }
        if self.s2_nonzero.q.val().any() {
            self.size_zbx.next = self.size_zbx.val() + self.stats_zbx.plane_bits.val();
        }
        // DBX base code: the first symbol, sign-extended, in the shortest field that holds it.
        self.base_symbol.next = self.s2_words[0].q.val();
        if self.s2_w16.q.val() {
            self.base_symbol.next = self.s2_words[0].q.val() & 0xFFFF;
        }
        self.base_value.next = self.base_symbol.val();
        if self.s2_w16.q.val() & self.base_symbol.val().get_bit(15) {
            self.base_value.next = self.base_symbol.val() | 0xFFFF_0000_u64;
        }
        self.base_len.next = bits::<11>(33);
        if self.s2_w16.q.val() {
            self.base_len.next = bits::<11>(17);
        }
        if !self.s2_w16.q.val() & ((self.base_value.val() + 0x8000) < 0x1_0000) {
            self.base_len.next = bits::<11>(19);
        }
        if (self.base_value.val() + 0x80) < 0x100 {
            self.base_len.next = bits::<11>(11);
        }
        if (self.base_value.val() + 0x8) < 0x10 {
            self.base_len.next = bits::<11>(7);
        }
        if !self.base_value.val().any() {
            self.base_len.next = bits::<11>(3);
        }
        self.size_dbx.next = self.base_len.val() + self.stats_dbx.plane_bits.val();
        // Smallest wins; ties go to the lowest tag; raw (1,024 bits) only if strictly smaller.
        self.choice_tag.next = bits::<3>(4);
        self.choice_len.next = bits::<11>(1024);
        if self.size_zbx.val() <= self.choice_len.val() {
            self.choice_tag.next = bits::<3>(3);
            self.choice_len.next = self.size_zbx.val();
        }
        if self.size_bx.val() <= self.choice_len.val() {
            self.choice_tag.next = bits::<3>(2);
            self.choice_len.next = self.size_bx.val();
        }
        if self.size_dbx.val() <= self.choice_len.val() {
            self.choice_tag.next = bits::<3>(1);
            self.choice_len.next = self.size_dbx.val();
        }
        if self.size_zvc.val() <= self.choice_len.val() {
            self.choice_tag.next = bits::<3>(0);
            self.choice_len.next = self.size_zvc.val();
        }

        // ---- stage 2: the chosen plane code's values and plane classes
        for m in 0..32 {
            self.sel_y[m].next = self.stats_bx.x_held[m].val();
            self.sel_y_lo[m].next = self.stats_bx.x_lo_held[m].val();
            self.sel_y_top[m].next = self.stats_bx.x_top_held[m].val();
        }
        self.sel_single.next = self.stats_bx.single_zero.val();
        self.sel_run.next = self.stats_bx.run_start.val();
        self.sel_zero.next = self.stats_bx.zero.val();
        self.sel_all_ones.next = self.stats_bx.all_ones.val();
        self.sel_dbp_zero.next = self.stats_bx.dbp_zero.val();
        self.sel_two.next = self.stats_bx.two_ones.val();
        self.sel_one.next = self.stats_bx.one_one.val();
        self.sel_verbatim.next = self.stats_bx.verbatim.val();
        self.sel_single_top.next = self.stats_bx.single_zero_top.val();
        self.sel_run_top.next = self.stats_bx.run_start_top.val();
        self.sel_zero_top.next = self.stats_bx.zero_top.val();
        self.sel_all_ones_top.next = self.stats_bx.all_ones_top.val();
        self.sel_dbp_zero_top.next = self.stats_bx.dbp_zero_top.val();
        self.sel_two_top.next = self.stats_bx.two_ones_top.val();
        self.sel_one_top.next = self.stats_bx.one_one_top.val();
        self.sel_verbatim_top.next = self.stats_bx.verbatim_top.val();
        self.sel_len.next = self.stats_bx.plane_len.val();
        self.sel_pos_field.next = self.stats_bx.pos_field_bits.val();
        if self.choice_tag.val() == 1 {
            for m in 0..32 {
                self.sel_y[m].next = self.stats_dbx.x_held[m].val();
                self.sel_y_lo[m].next = self.stats_dbx.x_lo_held[m].val();
                self.sel_y_top[m].next = self.stats_dbx.x_top_held[m].val();
            }
            self.sel_single.next = self.stats_dbx.single_zero.val();
            self.sel_run.next = self.stats_dbx.run_start.val();
            self.sel_zero.next = self.stats_dbx.zero.val();
            self.sel_all_ones.next = self.stats_dbx.all_ones.val();
            self.sel_dbp_zero.next = self.stats_dbx.dbp_zero.val();
            self.sel_two.next = self.stats_dbx.two_ones.val();
            self.sel_one.next = self.stats_dbx.one_one.val();
            self.sel_verbatim.next = self.stats_dbx.verbatim.val();
            self.sel_single_top.next = self.stats_dbx.single_zero_top.val();
            self.sel_run_top.next = self.stats_dbx.run_start_top.val();
            self.sel_zero_top.next = self.stats_dbx.zero_top.val();
            self.sel_all_ones_top.next = self.stats_dbx.all_ones_top.val();
            self.sel_dbp_zero_top.next = self.stats_dbx.dbp_zero_top.val();
            self.sel_two_top.next = self.stats_dbx.two_ones_top.val();
            self.sel_one_top.next = self.stats_dbx.one_one_top.val();
            self.sel_verbatim_top.next = self.stats_dbx.verbatim_top.val();
            self.sel_len.next = self.stats_dbx.plane_len.val();
            self.sel_pos_field.next = self.stats_dbx.pos_field_bits.val();
        }
        if self.choice_tag.val() == 3 {
            for m in 0..32 {
                self.sel_y[m].next = self.stats_zbx.x_held[m].val();
                self.sel_y_lo[m].next = self.stats_zbx.x_lo_held[m].val();
                self.sel_y_top[m].next = self.stats_zbx.x_top_held[m].val();
            }
            self.sel_single.next = self.stats_zbx.single_zero.val();
            self.sel_run.next = self.stats_zbx.run_start.val();
            self.sel_zero.next = self.stats_zbx.zero.val();
            self.sel_all_ones.next = self.stats_zbx.all_ones.val();
            self.sel_dbp_zero.next = self.stats_zbx.dbp_zero.val();
            self.sel_two.next = self.stats_zbx.two_ones.val();
            self.sel_one.next = self.stats_zbx.one_one.val();
            self.sel_verbatim.next = self.stats_zbx.verbatim.val();
            self.sel_single_top.next = self.stats_zbx.single_zero_top.val();
            self.sel_run_top.next = self.stats_zbx.run_start_top.val();
            self.sel_zero_top.next = self.stats_zbx.zero_top.val();
            self.sel_all_ones_top.next = self.stats_zbx.all_ones_top.val();
            self.sel_dbp_zero_top.next = self.stats_zbx.dbp_zero_top.val();
            self.sel_two_top.next = self.stats_zbx.two_ones_top.val();
            self.sel_one_top.next = self.stats_zbx.one_one_top.val();
            self.sel_verbatim_top.next = self.stats_zbx.verbatim_top.val();
            self.sel_len.next = self.stats_zbx.plane_len.val();
            self.sel_pos_field.next = self.stats_zbx.pos_field_bits.val();
        }
        // The chosen code's XORed values y = x ^ (x >> 1), plane 32 above bit 31 (the plane
        // statistics hand on their registered x, so that their outputs are flops).
        for m in 0..32 {
            self.sel_y[m].next = (self.sel_y[m].val() ^ (self.sel_y[m].val() >> 1))
                .replace_bit(31, self.sel_y[m].val().get_bit(31) ^ self.sel_y_top[m].val());
            self.sel_y_lo[m].next = self.sel_y_lo[m].val() ^ (self.sel_y_lo[m].val() >> 1);
        }
        // Plane class (what the prefix code writes) and zero-run length, per plane.
        for j in 0..32 {
            self.plane_class[j].next = bits::<3>(0);
            if self.sel_verbatim.val().get_bit(j) {
                self.plane_class[j].next = bits::<3>(7);
            }
            if self.sel_one.val().get_bit(j) {
                self.plane_class[j].next = bits::<3>(6);
            }
            if self.sel_two.val().get_bit(j) {
                self.plane_class[j].next = bits::<3>(5);
            }
            if self.sel_dbp_zero.val().get_bit(j) {
                self.plane_class[j].next = bits::<3>(4);
            }
            if self.sel_all_ones.val().get_bit(j) {
                self.plane_class[j].next = bits::<3>(3);
            }
            if self.sel_run.val().get_bit(j) {
                self.plane_class[j].next = bits::<3>(2);
            }
            if self.sel_single.val().get_bit(j) {
                self.plane_class[j].next = bits::<3>(1);
            }
        }
        self.plane_class[32].next = bits::<3>(0);
        if self.sel_verbatim_top.val() {
            self.plane_class[32].next = bits::<3>(7);
        }
        if self.sel_one_top.val() {
            self.plane_class[32].next = bits::<3>(6);
        }
        if self.sel_two_top.val() {
            self.plane_class[32].next = bits::<3>(5);
        }
        if self.sel_dbp_zero_top.val() {
            self.plane_class[32].next = bits::<3>(4);
        }
        if self.sel_all_ones_top.val() {
            self.plane_class[32].next = bits::<3>(3);
        }
        if self.sel_run_top.val() {
            self.plane_class[32].next = bits::<3>(2);
        }
        if self.sel_single_top.val() {
            self.plane_class[32].next = bits::<3>(1);
        }
        self.plane_run[0].next = bits::<6>(0);
        if self.sel_zero.val().get_bit(0) {
            self.plane_run[0].next = bits::<6>(1);
        }
        for j in 1..32 {
            self.plane_run[j].next = bits::<6>(0);
            if self.sel_zero.val().get_bit(j) {
                self.plane_run[j].next = self.plane_run[j - 1].val() + 1;
            }
        }
        self.plane_run[32].next = bits::<6>(0);
        if self.sel_zero_top.val() {
            self.plane_run[32].next = self.plane_run[31].val() + 1;
        }
        // Transpose (wiring): plane j holds bit j of value m at bit 31 − m of `hi` (m < 32) or
        // of `lo` (m ≥ 32), first value leftmost. Evaluated only when the emitter loads.
        for j in 0..33 {
            self.plane_hi[j].next = bits::<32>(0);
            self.plane_lo[j].next = bits::<32>(0);
        }
        if self.s2_move.val() {
            for j in 0..32 {
                for m in 0..32 {
                    self.plane_hi[j].next = self.plane_hi[j]
                        .val()
                        .replace_bit(31 - m, self.sel_y[m].val().get_bit(j));
                }
            }
            for j in 0..17 {
                for m in 0..32 {
                    self.plane_lo[j].next = self.plane_lo[j]
                        .val()
                        .replace_bit(31 - m, self.sel_y_lo[m].val().get_bit(j));
                }
            }
            for m in 0..32 {
                self.plane_hi[32].next = self.plane_hi[32].val().replace_bit(31 - m, self.sel_y_top[m].val());
            }
        }

        // ---- emitter: 4 cycles per block, header in cycle 0, 9 planes per cycle
        for k in 0..32 {
            self.eb[k].next = self.em_buf[k].q.val();
        }
        self.ep.next = self.em_pos.q.val();
        self.ins_idx.next = bits::<6>(0);
        self.ins_off.next = bits::<6>(0);
        self.ins_hi.next = bits::<32>(0);
        self.ins_lo.next = bits::<32>(0);
        self.piece_a.next = bits::<32>(0);
        self.piece_a_len.next = bits::<6>(0);
        self.piece_b.next = bits::<32>(0);
        self.piece_b_len.next = bits::<6>(0);
        self.piece_c.next = bits::<32>(0);
        self.piece_c_len.next = bits::<6>(0);
        self.coder_tz.next = bits::<7>(0);
        self.coder_found.next = false;
        self.coder_pos.next = bits::<7>(0);
        self.coder_run.next = bits::<6>(0);
        if self.em_step.val() {
            if self.em_cycle.q.val() == 0 {
                if self.em_head_a_len.q.val() != 0 {
                    self.ins_idx.next = bit_cast::<6, 11>(self.ep.val() >> 5);
                    self.ins_off.next = bit_cast::<6, 11>(self.ep.val() & 31);
                    self.ins_hi.next = self.em_head_a.q.val() >> self.ins_off.val();
                    self.ins_lo.next = self.em_head_a.q.val() << (bits::<6>(32) - self.ins_off.val());
                    for k in 0..32 {
                        if self.ins_idx.val() == self.word_index[k].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_hi.val();
                        }
                    }
                    for k in 1..32 {
                        if self.ins_idx.val() == self.word_index[k - 1].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_lo.val();
                        }
                    }
                    self.ep.next = self.ep.val() + bit_cast::<11, 6>(self.em_head_a_len.q.val());
                }
                if self.em_head_b_len.q.val() != 0 {
                    self.ins_idx.next = bit_cast::<6, 11>(self.ep.val() >> 5);
                    self.ins_off.next = bit_cast::<6, 11>(self.ep.val() & 31);
                    self.ins_hi.next = self.em_head_b.q.val() >> self.ins_off.val();
                    self.ins_lo.next = self.em_head_b.q.val() << (bits::<6>(32) - self.ins_off.val());
                    for k in 0..32 {
                        if self.ins_idx.val() == self.word_index[k].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_hi.val();
                        }
                    }
                    for k in 1..32 {
                        if self.ins_idx.val() == self.word_index[k - 1].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_lo.val();
                        }
                    }
                    self.ep.next = self.ep.val() + bit_cast::<11, 6>(self.em_head_b_len.q.val());
                }
            }
            for t in 0..9 {
                // Plane coder t: prefix code of queue plane t as up to three pieces of ≤ 32 bits.
                self.piece_a.next = bits::<32>(0);
                self.piece_a_len.next = bits::<6>(0);
                self.piece_b.next = self.em_plane_hi[t].q.val();
                self.piece_b_len.next = bits::<6>(0);
                self.piece_c.next = self.em_plane_lo[t].q.val();
                self.piece_c_len.next = bits::<6>(0);
                self.coder_tz.next = bits::<7>(0);
                self.coder_found.next = false;
                if (self.em_class[t].q.val() == 5) | (self.em_class[t].q.val() == 6) {
                    // Position of the (lower) one: trailing zeros of the left-aligned plane,
                    // minus the 64 − L unused bits.
                    for k in 0..32 {
                        if !self.coder_found.val() {
                            if self.em_plane_lo[t].q.val().get_bit(k) {
                                self.coder_found.next = true;
                            } else {
                                self.coder_tz.next = self.coder_tz.val() + 1;
                            }
                        }
                    }
                    for k in 0..32 {
                        if !self.coder_found.val() {
                            if self.em_plane_hi[t].q.val().get_bit(k) {
                                self.coder_found.next = true;
                            } else {
                                self.coder_tz.next = self.coder_tz.val() + 1;
                            }
                        }
                    }
                }
                self.coder_pos.next = self.coder_tz.val() + self.em_plane_len.q.val() - 64;
                match self.em_class[t].q.val().index() {
                    1 => {
                        self.piece_a.next = bits::<32>(0x2000_0000);
                        self.piece_a_len.next = bits::<6>(3);
                    }
                    2 => {
                        self.coder_run.next = self.em_run[t].q.val() - 2;
                        self.piece_a.next = bits::<32>(0x4000_0000)
                            | (bit_cast::<32, 6>(self.coder_run.val()) << self.em_run_shift.q.val());
                        self.piece_a_len.next = self.em_run_len.q.val();
                    }
                    3 => {
                        self.piece_a_len.next = bits::<6>(5);
                    }
                    4 => {
                        self.piece_a.next = bits::<32>(0x0800_0000);
                        self.piece_a_len.next = bits::<6>(5);
                    }
                    5 => {
                        self.piece_a.next = bits::<32>(0x1000_0000)
                            | (bit_cast::<32, 7>(self.coder_pos.val()) << self.em_pos_shift.q.val());
                        self.piece_a_len.next = self.em_pos_len.q.val();
                    }
                    6 => {
                        self.piece_a.next = bits::<32>(0x1800_0000)
                            | (bit_cast::<32, 7>(self.coder_pos.val()) << self.em_pos_shift.q.val());
                        self.piece_a_len.next = self.em_pos_len.q.val();
                    }
                    7 => {
                        self.piece_a.next = bits::<32>(0x8000_0000_u64);
                        self.piece_a_len.next = bits::<6>(1);
                        self.piece_b_len.next = self.em_hi_len.q.val();
                        self.piece_c_len.next = self.em_lo_len.q.val();
                    }
                    _ => {}
                }
                if self.piece_a_len.val() != 0 {
                    self.ins_idx.next = bit_cast::<6, 11>(self.ep.val() >> 5);
                    self.ins_off.next = bit_cast::<6, 11>(self.ep.val() & 31);
                    self.ins_hi.next = self.piece_a.val() >> self.ins_off.val();
                    self.ins_lo.next = self.piece_a.val() << (bits::<6>(32) - self.ins_off.val());
                    for k in 0..32 {
                        if self.ins_idx.val() == self.word_index[k].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_hi.val();
                        }
                    }
                    for k in 1..32 {
                        if self.ins_idx.val() == self.word_index[k - 1].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_lo.val();
                        }
                    }
                    self.ep.next = self.ep.val() + bit_cast::<11, 6>(self.piece_a_len.val());
                }
                if self.piece_b_len.val() != 0 {
                    self.ins_idx.next = bit_cast::<6, 11>(self.ep.val() >> 5);
                    self.ins_off.next = bit_cast::<6, 11>(self.ep.val() & 31);
                    self.ins_hi.next = self.piece_b.val() >> self.ins_off.val();
                    self.ins_lo.next = self.piece_b.val() << (bits::<6>(32) - self.ins_off.val());
                    for k in 0..32 {
                        if self.ins_idx.val() == self.word_index[k].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_hi.val();
                        }
                    }
                    for k in 1..32 {
                        if self.ins_idx.val() == self.word_index[k - 1].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_lo.val();
                        }
                    }
                    self.ep.next = self.ep.val() + bit_cast::<11, 6>(self.piece_b_len.val());
                }
                if self.piece_c_len.val() != 0 {
                    self.ins_idx.next = bit_cast::<6, 11>(self.ep.val() >> 5);
                    self.ins_off.next = bit_cast::<6, 11>(self.ep.val() & 31);
                    self.ins_hi.next = self.piece_c.val() >> self.ins_off.val();
                    self.ins_lo.next = self.piece_c.val() << (bits::<6>(32) - self.ins_off.val());
                    for k in 0..32 {
                        if self.ins_idx.val() == self.word_index[k].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_hi.val();
                        }
                    }
                    for k in 1..32 {
                        if self.ins_idx.val() == self.word_index[k - 1].val() {
                            self.eb[k].next = self.eb[k].val() | self.ins_lo.val();
                        }
                    }
                    self.ep.next = self.ep.val() + bit_cast::<11, 6>(self.piece_c_len.val());
                }
            }
            for k in 0..32 {
                self.em_buf[k].d.next = self.eb[k].val();
            }
            self.em_pos.d.next = self.ep.val();
            self.em_cycle.d.next = self.em_cycle.q.val() + 1;
            // The plane queue advances by the 9 planes just coded.
            for i in 0..27 {
                self.em_plane_hi[i].d.next = self.em_plane_hi[i + 9].q.val();
                self.em_plane_lo[i].d.next = self.em_plane_lo[i + 9].q.val();
                self.em_class[i].d.next = self.em_class[i + 9].q.val();
                self.em_run[i].d.next = self.em_run[i + 9].q.val();
            }
            for i in 27..36 {
                self.em_class[i].d.next = bits::<3>(0);
            }
        }

        // ---- output register
        self.o_valid.d.next = self.o_valid.q.val() & !self.out_ready.val();
        if self.em_finish.val() {
            self.o_valid.d.next = true;
            for k in 0..32 {
                self.o_payload[k].d.next = self.eb[k].val();
                self.o_block[k].d.next = self.em_words[k].q.val();
            }
            self.o_tag.d.next = self.em_tag.q.val();
            self.o_len.d.next = self.em_len.q.val();
            self.o_id.d.next = self.em_id.q.val();
            self.o_last.d.next = self.em_last.q.val();
            self.em_busy.d.next = false;
        }

        // ---- emitter load: a block leaves stage 2 (overrides the finishing block's state)
        if self.s2_move.val() {
            self.em_busy.d.next = true;
            self.em_cycle.d.next = bits::<2>(0);
            self.em_pos.d.next = bits::<11>(0);
            self.em_tag.d.next = self.choice_tag.val();
            self.em_len.d.next = self.choice_len.val();
            self.em_plane_len.d.next = self.sel_len.val();
            self.em_hi_len.d.next = bit_cast::<6, 7>(self.sel_len.val());
            self.em_lo_len.d.next = bits::<6>(0);
            if self.sel_len.val() > 32 {
                self.em_hi_len.d.next = bits::<6>(32);
                self.em_lo_len.d.next = bit_cast::<6, 7>(self.sel_len.val() - 32);
            }
            self.em_pos_shift.d.next = bits::<5>(27) - bit_cast::<5, 3>(self.sel_pos_field.val());
            self.em_pos_len.d.next = bits::<6>(5) + bit_cast::<6, 3>(self.sel_pos_field.val());
            self.em_run_shift.d.next = bits::<5>(25);
            self.em_run_len.d.next = bits::<6>(7);
            if self.s2_w16.q.val() {
                self.em_run_shift.d.next = bits::<5>(26);
                self.em_run_len.d.next = bits::<6>(6);
            }
            for k in 0..32 {
                self.em_words[k].d.next = self.s2_words[k].q.val();
            }
            self.em_id.d.next = self.s2_id.q.val();
            self.em_last.d.next = self.s2_last.q.val();
            // Plane queue, top plane first.
            for i in 0..36 {
                self.em_plane_hi[i].d.next = bits::<32>(0);
                self.em_plane_lo[i].d.next = bits::<32>(0);
                self.em_class[i].d.next = bits::<3>(0);
                self.em_run[i].d.next = bits::<6>(0);
            }
            if (self.choice_tag.val() == 1) & !self.s2_w16.q.val() {
                for i in 0..33 {
                    self.em_plane_hi[i].d.next = self.plane_hi[32 - i].val();
                    self.em_plane_lo[i].d.next = self.plane_lo[32 - i].val();
                    self.em_class[i].d.next = self.plane_class[32 - i].val();
                    self.em_run[i].d.next = self.plane_run[32 - i].val();
                }
            }
            if ((self.choice_tag.val() == 2) | (self.choice_tag.val() == 3)) & !self.s2_w16.q.val() {
                for i in 0..32 {
                    self.em_plane_hi[i].d.next = self.plane_hi[31 - i].val();
                    self.em_plane_lo[i].d.next = self.plane_lo[31 - i].val();
                    self.em_class[i].d.next = self.plane_class[31 - i].val();
                    self.em_run[i].d.next = self.plane_run[31 - i].val();
                }
            }
            if (self.choice_tag.val() == 1) & self.s2_w16.q.val() {
                for i in 0..17 {
                    self.em_plane_hi[i].d.next = self.plane_hi[16 - i].val();
                    self.em_plane_lo[i].d.next = self.plane_lo[16 - i].val();
                    self.em_class[i].d.next = self.plane_class[16 - i].val();
                    self.em_run[i].d.next = self.plane_run[16 - i].val();
                }
            }
            if ((self.choice_tag.val() == 2) | (self.choice_tag.val() == 3)) & self.s2_w16.q.val() {
                for i in 0..16 {
                    self.em_plane_hi[i].d.next = self.plane_hi[15 - i].val();
                    self.em_plane_lo[i].d.next = self.plane_lo[15 - i].val();
                    self.em_class[i].d.next = self.plane_class[15 - i].val();
                    self.em_run[i].d.next = self.plane_run[15 - i].val();
                }
            }
            // Header: DBX base code, or the ZBX nonzero mask.
            self.em_head_a.d.next = bits::<32>(0);
            self.em_head_a_len.d.next = bits::<6>(0);
            self.em_head_b.d.next = bits::<32>(0);
            self.em_head_b_len.d.next = bits::<6>(0);
            if self.choice_tag.val() == 1 {
                if self.base_len.val() == 3 {
                    self.em_head_a_len.d.next = bits::<6>(3);
                }
                if self.base_len.val() == 7 {
                    self.em_head_a.d.next = bits::<32>(0x2000_0000) | ((self.base_value.val() & 0xF) << 25);
                    self.em_head_a_len.d.next = bits::<6>(7);
                }
                if self.base_len.val() == 11 {
                    self.em_head_a.d.next = bits::<32>(0x4000_0000) | ((self.base_value.val() & 0xFF) << 21);
                    self.em_head_a_len.d.next = bits::<6>(11);
                }
                if self.base_len.val() == 19 {
                    self.em_head_a.d.next = bits::<32>(0x6000_0000) | ((self.base_value.val() & 0xFFFF) << 13);
                    self.em_head_a_len.d.next = bits::<6>(19);
                }
                if (self.base_len.val() == 17) | (self.base_len.val() == 33) {
                    self.em_head_a.d.next = bits::<32>(0x8000_0000_u64);
                    self.em_head_a_len.d.next = bits::<6>(1);
                    self.em_head_b.d.next = self.base_symbol.val();
                    self.em_head_b_len.d.next = bits::<6>(32);
                    if self.s2_w16.q.val() {
                        self.em_head_b.d.next = self.base_symbol.val() << 16;
                        self.em_head_b_len.d.next = bits::<6>(16);
                    }
                }
            }
            if self.choice_tag.val() == 3 {
                self.em_head_a.d.next = self.s2_mask_hi.q.val();
                self.em_head_a_len.d.next = bits::<6>(32);
                self.em_head_b.d.next = self.s2_mask_lo.q.val();
                if self.s2_w16.q.val() {
                    self.em_head_b_len.d.next = bits::<6>(32);
                }
            }
            // Fixed-layout codes fill the buffer at once: ZVC (mask, then the compacted symbols
            // back to back) and raw (the bytes in order).
            for k in 0..32 {
                self.em_buf[k].d.next = bits::<32>(0);
            }
            if self.choice_tag.val() == 0 {
                self.em_buf[0].d.next = self.s2_mask_hi.q.val();
                if self.s2_w16.q.val() {
                    self.em_buf[1].d.next = self.s2_mask_lo.q.val();
                    for k in 2..32 {
                        self.em_buf[k].d.next =
                            (self.s2_packed[2 * k - 4].q.val() << 16) | self.s2_packed[2 * k - 3].q.val();
                    }
                } else {
                    for k in 1..32 {
                        self.em_buf[k].d.next = self.s2_packed[k - 1].q.val();
                    }
                }
            }
            if self.choice_tag.val() == 4 {
                for k in 0..32 {
                    self.em_buf[k].d.next = ((self.s2_words[k].q.val() & 0xFF) << 24)
                        | ((self.s2_words[k].q.val() & 0xFF00) << 8)
                        | ((self.s2_words[k].q.val() >> 8) & 0xFF00)
                        | (self.s2_words[k].q.val() >> 24);
                }
            }
        }

        // ---- synchronous reset
        if self.reset.val() {
            self.gather_count.d.next = bits::<2>(0);
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.em_busy.d.next = false;
            self.o_valid.d.next = false;
        }

        // ---- output ports
        self.out_valid.next = self.o_valid.q.val();
        self.out_tag.next = self.o_tag.q.val();
        self.out_len.next = self.o_len.q.val();
        self.out_id.next = self.o_id.q.val();
        self.out_last.next = self.o_last.q.val();
        for k in 0..32 {
            self.out_payload[k].next = self.o_payload[k].q.val();
            self.out_block[k].next = self.o_block[k].q.val();
        }
    }
}
