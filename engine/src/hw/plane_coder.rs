//! Emitter stage 1 of the compressor lane: the codes of one group of [`GROUP_SLOTS`] plane-queue
//! slots and each code's bit offset in the payload.
//!
//! Each slot becomes one code of at most 65 bits, left-aligned in `code0` (first bit in bit 31),
//! `code1` and `code2` (bit 31): a plane's FORMAT.md §5.3 prefix code from its class (the classes
//! are exclusive, so the choice is one parallel case), or a literal slot's 64 bits (a header, or
//! ZVC/raw payload words). Its length comes registered from the plane queue; the offsets are the
//! exclusive prefix sums of the lengths after the block's running position, a 4-level
//! Kogge–Stone tree over the position and the first 8 lengths (no running position through the slots;
//! a flat multi-operand sum per offset, which Yosys maps as carry-save trees, measured 692 ps
//! against the tree's 634 ps with the lengths decoded here). The next running position is one
//! flat sum of the position and the 9 lengths, which Yosys maps as a carry-save tree and one
//! adder: through the prefix tree (two adders, then a three-term sum) it missed 667 ps by 4 ps
//! in the whole-unit timing. A plane's position field
//! needs the index of its one (or of the lower of two adjacent ones): `q = p & !(p << 1)` keeps
//! exactly that bit, and its index is 6 OR-reductions of masked bits, not a priority chain.
//!
//! Every output is a flop; all flops load only on `enable` (the lane's emitter step), so the
//! emitter freezes as a whole under output backpressure.

use super::hdl_util::{arr, d};
use rust_hdl::prelude::*;

/// Plane-queue slots coded per cycle: 36 slots (a header and up to 33 planes) in 4 cycles.
pub const GROUP_SLOTS: usize = 9;
/// Leaves of the offset prefix tree: the running position and the first [`GROUP_SLOTS`] − 1
/// lengths (the last slot's length ends no offset of its group).
const PREFIX_TERMS: usize = GROUP_SLOTS;

/// Plane class: no code (a member of a zero run below its top plane, or an empty slot).
pub const CLASS_NONE: u64 = 0;
/// Plane class: a single zero plane, `001` (FORMAT.md §5.3 case 1, k = 1).
pub const CLASS_SINGLE_ZERO: u64 = 1;
/// Plane class: the top plane of a run of k ≥ 2 zero planes, `01` + (k − 2) in R bits.
pub const CLASS_ZERO_RUN: u64 = 2;
/// Plane class: all ones, `00000`.
pub const CLASS_ALL_ONES: u64 = 3;
/// Plane class: DBP zero, `00001`.
pub const CLASS_DBP_ZERO: u64 = 4;
/// Plane class: two adjacent ones, `00010` + the lower one's position in Q bits.
pub const CLASS_TWO_ONES: u64 = 5;
/// Plane class: one one, `00011` + its position in Q bits.
pub const CLASS_ONE_ONE: u64 = 6;
/// Plane class: verbatim, `1` + the L plane bits.
pub const CLASS_VERBATIM: u64 = 7;

/// `001`, left-aligned in a 32-bit word.
const SINGLE_ZERO_CODE: u64 = 0b001 << 29;
/// `01`, left-aligned.
const ZERO_RUN_CODE: u64 = 0b01 << 30;
/// `00001`, left-aligned (`00000`, all ones, is the zero word).
const DBP_ZERO_CODE: u64 = 0b00001 << 27;
/// `00010`, left-aligned.
const TWO_ONES_CODE: u64 = 0b00010 << 27;
/// `00011`, left-aligned.
const ONE_ONE_CODE: u64 = 0b00011 << 27;
/// `1`, left-aligned.
const VERBATIM_CODE: u64 = 1 << 31;
/// Bits of `001`.
pub const SINGLE_ZERO_BITS: u64 = 3;
/// Bits of `00000` and `00001`.
pub const FIXED_CODE_BITS: u64 = 5;
/// Bits of the position codes' prefix, before the Q-bit field.
pub const POSITION_PREFIX_BITS: u64 = 5;
/// Bits of a zero-run code, `01` + R: R = 5 for 32-bit symbols (33 or 32 planes).
pub const RUN_CODE_W32_BITS: u64 = 2 + 5;
/// Bits of a zero-run code for 16-bit symbols (R = 4).
pub const RUN_CODE_W16_BITS: u64 = 2 + 4;
/// Bits of the left-aligned plane word (`hi`, `lo`): a plane of L bits sits in its top L bits.
const PLANE_WORD_BITS: u64 = 64;
/// Masks whose bit `i` is bit `b` of `i`, for the index of a one-hot word (`b` = 0…4).
const INDEX_BIT_MASKS: [u64; 5] = [0xAAAA_AAAA, 0xCCCC_CCCC, 0xF0F0_F0F0, 0xFF00_FF00, 0xFFFF_0000];

hw_block! {
/// Emitter stage 1; see the module docs.
#[derive(LogicBlock)]
pub struct PlaneCoder {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Synchronous reset: no group in flight.
    pub reset: Signal<In, Bit> = d(),
    /// The emitter steps this cycle (every flop here loads only then).
    pub enable: Signal<In, Bit> = d(),
    /// The slots below hold a group of a block.
    pub in_valid: Signal<In, Bit> = d(),
    /// The group is its block's first (passed on to the placer, whose buffer restarts).
    pub in_first: Signal<In, Bit> = d(),
    /// The group is its block's last.
    pub in_final: Signal<In, Bit> = d(),
    /// Slot plane words, values 0–31 (value m in bit 31 − m), or a literal's first 32 bits.
    pub hi: [Signal<In, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Slot plane words, values 32–63, or a literal's last 32 bits.
    pub lo: [Signal<In, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Slot plane class (`CLASS_*`); ignored for a literal.
    pub class: [Signal<In, Bits<3>>; GROUP_SLOTS] = arr(),
    /// Zero-run length k of a [`CLASS_ZERO_RUN`] plane.
    pub run: [Signal<In, Bits<7>>; GROUP_SLOTS] = arr(),
    /// Code length of each slot in bits (from flops: the offset sums start there).
    pub len: [Signal<In, Bits<7>>; GROUP_SLOTS] = arr(),
    /// The slot is a literal: `hi`, `lo` written as they are, `run` bits long.
    pub lit: [Signal<In, Bit>; GROUP_SLOTS] = arr(),
    /// Plane length L of the block's code (values per plane).
    pub plane_len: Signal<In, Bits<7>> = d(),
    /// Left shift that puts a position field after its 5-bit prefix: 27 − Q.
    pub pos_shift: Signal<In, Bits<5>> = d(),
    /// Left shift that puts a run field after `01`: 30 − R.
    pub run_shift: Signal<In, Bits<5>> = d(),
    /// Codes, first 32 bits (first bit in bit 31), registered.
    pub code0: [Signal<Out, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Codes, bits 32–63.
    pub code1: [Signal<Out, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Codes, bit 64 (a verbatim plane of 64 values) in bit 31.
    pub code2: [Signal<Out, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Bit offset of each code in the payload.
    pub offset: [Signal<Out, Bits<11>>; GROUP_SLOTS] = arr(),
    /// The registered group is valid.
    pub out_valid: Signal<Out, Bit> = d(),
    /// The registered group is its block's first.
    pub out_first: Signal<Out, Bit> = d(),
    /// The registered group is its block's last.
    pub out_final: Signal<Out, Bit> = d(),
    code0_r: [DFF<Bits<32>>; GROUP_SLOTS] = arr(),
    code1_r: [DFF<Bits<32>>; GROUP_SLOTS] = arr(),
    code2_r: [DFF<Bits<32>>; GROUP_SLOTS] = arr(),
    offset_r: [DFF<Bits<11>>; GROUP_SLOTS] = arr(),
    valid_r: DFF<Bit> = d(),
    first_r: DFF<Bit> = d(),
    final_r: DFF<Bit> = d(),
    /// Payload bits written by the block's groups so far.
    pos_r: DFF<Bits<11>> = d(),
    single_zero_code: Constant<Bits<32>> = Constant::new(SINGLE_ZERO_CODE.into()),
    zero_run_code: Constant<Bits<32>> = Constant::new(ZERO_RUN_CODE.into()),
    dbp_zero_code: Constant<Bits<32>> = Constant::new(DBP_ZERO_CODE.into()),
    two_ones_code: Constant<Bits<32>> = Constant::new(TWO_ONES_CODE.into()),
    one_one_code: Constant<Bits<32>> = Constant::new(ONE_ONE_CODE.into()),
    verbatim_code: Constant<Bits<32>> = Constant::new(VERBATIM_CODE.into()),
    plane_word_bits: Constant<Bits<7>> = Constant::new(PLANE_WORD_BITS.into()),
    index_mask: [Constant<Bits<32>>; 5] = INDEX_BIT_MASKS.map(|m| Constant::new(m.into())),
    q_hi: Signal<Local, Bits<32>> = d(),
    q_lo: Signal<Local, Bits<32>> = d(),
    one_at: Signal<Local, Bits<7>> = d(),
    position: Signal<Local, Bits<7>> = d(),
    run_t: Signal<Local, Bits<7>> = d(),
    run_field: Signal<Local, Bits<7>> = d(),
    c0: Signal<Local, Bits<32>> = d(),
    c1: Signal<Local, Bits<32>> = d(),
    c2: Signal<Local, Bits<32>> = d(),
    len_t: Signal<Local, Bits<7>> = d(),
    /// The slot lengths widened for the next position's flat sum.
    len_w: [Signal<Local, Bits<11>>; GROUP_SLOTS] = arr(),
    /// The next running position: the position plus the group's 9 lengths.
    pos_next: Signal<Local, Bits<11>> = d(),
    /// Prefix tree levels over the position and the lengths (`p0` = leaves).
    p0: [Signal<Local, Bits<11>>; PREFIX_TERMS] = arr(),
    p1: [Signal<Local, Bits<11>>; PREFIX_TERMS] = arr(),
    p2: [Signal<Local, Bits<11>>; PREFIX_TERMS] = arr(),
    pos_step: Signal<Local, Bit> = d(),
    pos_take_sum: Signal<Local, Bit> = d(),
    pos_hold: Signal<Local, Bit> = d(),
    pos_sum: Signal<Local, Bits<11>> = d(),
    pos_kept: Signal<Local, Bits<11>> = d(),
    /// Level 3, for the slots whose sums it completes (0–7).
    p3: [Signal<Local, Bits<11>>; GROUP_SLOTS - 1] = arr(),
    p4: [Signal<Local, Bits<11>>; PREFIX_TERMS] = arr(),
}
}

impl Logic for PlaneCoder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid_r, first_r, final_r, pos_r);
        for t in 0..9 {
            self.code0_r[t].clock.next = self.clock.val();
            self.code0_r[t].d.next = self.code0_r[t].q.val();
            self.code1_r[t].clock.next = self.clock.val();
            self.code1_r[t].d.next = self.code1_r[t].q.val();
            self.code2_r[t].clock.next = self.clock.val();
            self.code2_r[t].d.next = self.code2_r[t].q.val();
            self.offset_r[t].clock.next = self.clock.val();
            self.offset_r[t].d.next = self.offset_r[t].q.val();
        }
        // Term 0 of every offset: the block's running position (0 for its first group).
        self.p0[0].next = self.pos_r.q.val();
        for t in 0..9 {
            // The one (or the lower of two adjacent ones) alone, and its index in the 64-bit word.
            self.q_lo.next = self.lo[t].val() & !(self.lo[t].val() << 1);
            self.q_hi.next = self.hi[t].val() & !((self.hi[t].val() << 1) | (self.lo[t].val() >> 31));
            self.one_at.next = bits::<7>(0);
            for b in 0..5 {
                self.one_at.next = self
                    .one_at
                    .val()
                    .replace_bit(b, ((self.q_lo.val() | self.q_hi.val()) & self.index_mask[b].val()).any());
            }
            self.one_at.next = self.one_at.val().replace_bit(5, self.q_hi.val().any());
            // Index in the L-bit plane: the word's low 64 − L bits are padding.
            self.position.next = self.one_at.val() + self.plane_len.val() - self.plane_word_bits.val();
            // (`bit_cast` of an indexed signal does not compile under `hdl_gen`: via a local.)
            self.run_t.next = self.run[t].val();
            self.run_field.next = self.run_t.val() - 2;
            self.c0.next = bits::<32>(0);
            self.c1.next = bits::<32>(0);
            self.c2.next = bits::<32>(0);
            // (All ones, class 3, is `00000`: the zero word.)
            match self.class[t].val().index() {
                1 => {
                    self.c0.next = self.single_zero_code.val();
                }
                2 => {
                    self.c0.next =
                        self.zero_run_code.val() | (bit_cast::<32, 7>(self.run_field.val()) << self.run_shift.val());
                }
                4 => {
                    self.c0.next = self.dbp_zero_code.val();
                }
                5 => {
                    self.c0.next =
                        self.two_ones_code.val() | (bit_cast::<32, 7>(self.position.val()) << self.pos_shift.val());
                }
                6 => {
                    self.c0.next =
                        self.one_one_code.val() | (bit_cast::<32, 7>(self.position.val()) << self.pos_shift.val());
                }
                7 => {
                    self.c0.next = self.verbatim_code.val() | (self.hi[t].val() >> 1);
                    self.c1.next = (self.hi[t].val() << 31) | (self.lo[t].val() >> 1);
                    self.c2.next = self.lo[t].val() << 31;
                }
                _ => {}
            }
            if self.lit[t].val() {
                self.c0.next = self.hi[t].val();
                self.c1.next = self.lo[t].val();
                self.c2.next = bits::<32>(0);
            }
            self.code0_r[t].d.next = self.c0.val();
            self.code1_r[t].d.next = self.c1.val();
            self.code2_r[t].d.next = self.c2.val();
            self.len_t.next = self.len[t].val();
            self.len_w[t].next = bit_cast::<11, 7>(self.len_t.val());
        }
        for t in 0..8 {
            self.p0[t + 1].next = self.len_w[t].val();
        }
        // One expression, so that Yosys merges it into one carry-save tree and one adder.
        self.pos_next.next = self.pos_r.q.val()
            + self.len_w[0].val()
            + self.len_w[1].val()
            + self.len_w[2].val()
            + self.len_w[3].val()
            + self.len_w[4].val()
            + self.len_w[5].val()
            + self.len_w[6].val()
            + self.len_w[7].val()
            + self.len_w[8].val();
        // Inclusive prefix sums of the position and the lengths, level by level (distance 1, 2,
        // 4: a Kogge–Stone tree): p4[t] = Σ p0[0..=t], the offset of slot t. The last needs a
        // fourth level; it adds three level-2 sums in one expression instead (Yosys maps it as a
        // carry-save step and one adder), which measured shorter than two chained adders in the
        // whole-lane timing (docs/AREA.md, 2026-12-04).
        self.p1[0].next = self.p0[0].val();
        for t in 1..9 {
            self.p1[t].next = self.p0[t].val() + self.p0[t - 1].val();
        }
        for t in 0..2 {
            self.p2[t].next = self.p1[t].val();
        }
        for t in 2..9 {
            self.p2[t].next = self.p1[t].val() + self.p1[t - 2].val();
        }
        for t in 0..4 {
            self.p3[t].next = self.p2[t].val();
        }
        for t in 4..8 {
            self.p3[t].next = self.p2[t].val() + self.p2[t - 4].val();
        }
        for t in 0..8 {
            self.p4[t].next = self.p3[t].val();
        }
        self.p4[8].next = self.p2[8].val() + self.p2[4].val() + self.p2[0].val();
        for t in 0..9 {
            self.offset_r[t].d.next = self.p4[t].val();
        }
        // The running position: the sum after a group that does not end its block, 0 after one
        // that does (the next block starts at bit 0) and under reset, else held. As one AND-OR of
        // the sum and the held value, selected by early signals: the sum arrives last, and a
        // chain of multiplexers behind it missed 667 ps in the whole-lane timing.
        self.pos_step.next = self.enable.val() & self.in_valid.val();
        self.pos_take_sum.next = self.pos_step.val() & !self.in_final.val() & !self.reset.val();
        self.pos_hold.next = !self.pos_step.val() & !self.reset.val();
        self.pos_sum.next = bits::<11>(0);
        if self.pos_take_sum.val() {
            self.pos_sum.next = self.pos_next.val();
        }
        self.pos_kept.next = bits::<11>(0);
        if self.pos_hold.val() {
            self.pos_kept.next = self.pos_r.q.val();
        }
        self.pos_r.d.next = self.pos_sum.val() | self.pos_kept.val();
        if self.enable.val() {
            self.valid_r.d.next = self.in_valid.val();
            self.first_r.d.next = self.in_first.val();
            self.final_r.d.next = self.in_final.val();
        } else {
            for t in 0..9 {
                self.code0_r[t].d.next = self.code0_r[t].q.val();
                self.code1_r[t].d.next = self.code1_r[t].q.val();
                self.code2_r[t].d.next = self.code2_r[t].q.val();
                self.offset_r[t].d.next = self.offset_r[t].q.val();
            }
        }
        if self.reset.val() {
            self.valid_r.d.next = false;
        }
        for t in 0..9 {
            self.code0[t].next = self.code0_r[t].q.val();
            self.code1[t].next = self.code1_r[t].q.val();
            self.code2[t].next = self.code2_r[t].q.val();
            self.offset[t].next = self.offset_r[t].q.val();
        }
        self.out_valid.next = self.valid_r.q.val();
        self.out_first.next = self.first_r.q.val();
        self.out_final.next = self.final_r.q.val();
    }
}
