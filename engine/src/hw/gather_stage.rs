//! The lane's gather stage: a block's four 32-byte beats collected into the stage-1 register,
//! with every symbol's compaction shift counted per beat as the beats arrive (FORMAT.md §4.4:
//! ZBX puts the nonzero symbols first, in order).
//!
//! A nonzero symbol moves down by the number of zero symbols before it. Counting that over the
//! whole block in one cycle is a 64-input prefix popcount in series with the compaction network
//! (1,186.5 ps on ASAP7 as one block, docs/AREA.md). Here each beat's 16 half-word slots are
//! counted in the cycle the beat arrives: byte OR-reductions, the zero flags of the beat's slots,
//! a 4-level Kogge–Stone prefix of the 16 flags, plus the zeros of the block's earlier beats (a
//! registered count). The network then runs alone in the symbol
//! stage ([`super::symbol_stage::SymbolStage`]).
//!
//! Shifts count half-word slots: a 16-bit symbol is one slot, a 32-bit symbol two (its slots'
//! zero flags are the symbol's, so a zero 32-bit symbol counts 2 and a nonzero one moves by an
//! even amount, its halves together). The beat of a final partial block keeps its first
//! `desc_tail_bytes` bytes of the block, zero-padded; the tail lies in the transfer's last beat
//! (the byte count fixes both).
//!
//! The tail's keep bits (a compare of the tail against the beat's byte positions) are late, so
//! they do not enter the count: a slot that keeps a nonzero byte has only whole slots before it,
//! and the keep bits gate only whether the slot itself is nonzero (a zero slot's shift is 0).
//!
//! The beats arrive in the stage's own 2-entry input register (a skid buffer: `room` is its
//! registered ready), each with its zero flags (its 32 bytes', and its 16 slots' at the
//! transfer's width) computed as it is offered, so the per-beat counting starts from flags in
//! flops of this module. Fed from another module's flops, the same logic missed 667 ps by
//! 70 ps in the whole-unit timing; from this module's data flops, by 9 ps (docs/AREA.md,
//! 2026-12-04).
//!
//! Every output is a flop: the input register's `room` and the stage-1 register (valid, id,
//! last, width, words, shifts), held until `advance`.

use super::hdl_util::{arr, constants, d};
use rust_hdl::prelude::*;

/// Words of a block (128 bytes).
pub const BLOCK_WORDS: usize = 32;
/// Words of a beat (32 bytes).
pub const BEAT_WORDS: usize = 8;
/// Half-word slots of a beat: the unit of the compaction shifts.
pub const BEAT_SLOTS: usize = 16;
/// Half-word slots of a block.
pub const BLOCK_SLOTS: usize = 64;
/// Bytes of a beat.
const BEAT_BYTES: usize = 32;
/// Beats gathered in flops before the closing beat (which goes straight to the stage-1 register).
const HELD_BEATS: usize = 3;
/// Beats the input register (skid buffer) holds.
pub const INPUT_BEATS: u64 = 2;
/// Words of the held beats.
const HELD_WORDS: usize = HELD_BEATS * BEAT_WORDS;
/// Shifts of the held beats.
const HELD_SLOTS: usize = HELD_BEATS * BEAT_SLOTS;

hw_block! {
/// Gather of beats into the stage-1 register, with the per-beat zero counting (module docs).
#[derive(LogicBlock)]
pub struct GatherStage {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Synchronous reset: no block held, no beat gathered.
    pub reset: Signal<In, Bit> = d(),
    /// A beat is offered and `room` is set: the input register takes it this cycle.
    pub push: Signal<In, Bit> = d(),
    /// The beat: 8 little-endian 32-bit words (word `k` = bytes `4k … 4k+3`).
    pub beat_data: [Signal<In, Bits<32>>; BEAT_WORDS] = arr(),
    /// Last beat of the transfer: closes the block.
    pub beat_last: Signal<In, Bit> = d(),
    /// 16-bit symbols; else 32-bit.
    pub desc_w16: Signal<In, Bit> = d(),
    /// Transfer id.
    pub desc_id: Signal<In, Bits<8>> = d(),
    /// Valid bytes of the transfer's final block (0 = 128).
    pub desc_tail_bytes: Signal<In, Bits<7>> = d(),
    /// The stage-1 register is free or frees this cycle: the input register's oldest beat, if
    /// any, is gathered this cycle.
    pub accept: Signal<In, Bit> = d(),
    /// The input register holds fewer than [`INPUT_BEATS`] beats (a flop): the beat ready.
    pub room: Signal<Out, Bit> = d(),
    /// The stage-1 block moves on this cycle (its register may load the next).
    pub advance: Signal<In, Bit> = d(),
    /// Stage 1 holds a block.
    pub valid: Signal<Out, Bit> = d(),
    /// Its transfer id.
    pub id: Signal<Out, Bits<8>> = d(),
    /// It closes its transfer.
    pub last: Signal<Out, Bit> = d(),
    /// Its symbols are 16 bits wide.
    pub w16: Signal<Out, Bit> = d(),
    /// Its 32 words (a final partial block zero-padded).
    pub words: [Signal<Out, Bits<32>>; BLOCK_WORDS] = arr(),
    /// Shift of each half-word slot: the zero slots before it when its symbol is nonzero, else 0.
    pub shift: [Signal<Out, Bits<6>>; BLOCK_SLOTS] = arr(),
    in_count: DFF<Bits<2>> = d(),
    room_r: DFF<Bit> = d(),
    in0_data: [DFF<Bits<32>>; BEAT_WORDS] = arr(),
    in0_last: DFF<Bit> = d(),
    in0_w16: DFF<Bit> = d(),
    in0_id: DFF<Bits<8>> = d(),
    in0_tail: DFF<Bits<7>> = d(),
    in0_byte_nz: [DFF<Bit>; BEAT_BYTES] = arr(),
    in0_zero: [DFF<Bit>; BEAT_SLOTS] = arr(),
    in1_data: [DFF<Bits<32>>; BEAT_WORDS] = arr(),
    in1_last: DFF<Bit> = d(),
    in1_w16: DFF<Bit> = d(),
    in1_id: DFF<Bits<8>> = d(),
    in1_tail: DFF<Bits<7>> = d(),
    in1_byte_nz: [DFF<Bit>; BEAT_BYTES] = arr(),
    in1_zero: [DFF<Bit>; BEAT_SLOTS] = arr(),
    // The offered beat's zero flags, registered with it.
    push_byte_nz: [Signal<Local, Bit>; BEAT_BYTES] = arr(),
    push_half_nz: [Signal<Local, Bit>; BEAT_SLOTS] = arr(),
    push_word_nz: [Signal<Local, Bit>; BEAT_WORDS] = arr(),
    push_zero: [Signal<Local, Bit>; BEAT_SLOTS] = arr(),
    in_pop: Signal<Local, Bit> = d(),
    in_slot: Signal<Local, Bits<2>> = d(),
    in_count_next: Signal<Local, Bits<2>> = d(),
    /// Input register capacity, for the registered ready.
    k_input_beats: Constant<Bits<2>> = Constant::new(INPUT_BEATS.into()),
    fire: Signal<Local, Bit> = d(),
    count_r: DFF<Bits<2>> = d(),
    held: [DFF<Bits<32>>; HELD_WORDS] = arr(),
    held_shift: [DFF<Bits<6>>; HELD_SLOTS] = arr(),
    zeros_before: DFF<Bits<7>> = d(),
    valid_r: DFF<Bit> = d(),
    id_r: DFF<Bits<8>> = d(),
    last_r: DFF<Bit> = d(),
    w16_r: DFF<Bit> = d(),
    words_r: [DFF<Bits<32>>; BLOCK_WORDS] = arr(),
    shift_r: [DFF<Bits<6>>; BLOCK_SLOTS] = arr(),
    /// Byte positions 0–30 of a beat, for the tail compares (byte 31 is kept only when the
    /// tail lies past the beat).
    byte_pos: [Constant<Bits<5>>; BEAT_BYTES - 1] = constants(1),
    /// Index of a block's fourth beat.
    last_beat: Constant<Bits<2>> = Constant::new(((BLOCK_WORDS / BEAT_WORDS - 1) as u64).into()),
    closing: Signal<Local, Bit> = d(),
    partial: Signal<Local, Bit> = d(),
    tail_hi: Signal<Local, Bits<2>> = d(),
    tail_lo: Signal<Local, Bits<5>> = d(),
    hi_after: Signal<Local, Bit> = d(),
    hi_here: Signal<Local, Bit> = d(),
    keep: [Signal<Local, Bit>; BEAT_BYTES] = arr(),
    byte_mask: [Signal<Local, Bits<32>>; BEAT_WORDS] = arr(),
    beat: [Signal<Local, Bits<32>>; BEAT_WORDS] = arr(),
    kept_half_nz: [Signal<Local, Bit>; BEAT_SLOTS] = arr(),
    kept_nz: [Signal<Local, Bit>; BEAT_SLOTS] = arr(),
    // Kogge–Stone levels, each as wide as its largest count (a wider adder is a longer carry).
    flag: [Signal<Local, Bits<2>>; BEAT_SLOTS] = arr(),
    ks1: [Signal<Local, Bits<2>>; BEAT_SLOTS] = arr(),
    ks2: [Signal<Local, Bits<3>>; BEAT_SLOTS] = arr(),
    ks3: [Signal<Local, Bits<4>>; BEAT_SLOTS] = arr(),
    ks4: [Signal<Local, Bits<5>>; BEAT_SLOTS] = arr(),
    w2a: Signal<Local, Bits<2>> = d(),
    w2b: Signal<Local, Bits<2>> = d(),
    w3a: Signal<Local, Bits<3>> = d(),
    w3b: Signal<Local, Bits<3>> = d(),
    w4a: Signal<Local, Bits<4>> = d(),
    w4b: Signal<Local, Bits<4>> = d(),
    excl: [Signal<Local, Bits<5>>; BEAT_SLOTS] = arr(),
    excl_t: Signal<Local, Bits<5>> = d(),
    sum_t: Signal<Local, Bits<7>> = d(),
    beat_shift: [Signal<Local, Bits<6>>; BEAT_SLOTS] = arr(),
    beat_zeros: Signal<Local, Bits<7>> = d(),
}
}

impl Logic for GatherStage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count_r, zeros_before, valid_r, id_r, last_r, w16_r);
        dff_setup!(self, clock, in_count, room_r, in0_last, in0_w16, in0_id, in0_tail, in1_last, in1_w16, in1_id, in1_tail);
        for k in 0..8 {
            self.in0_data[k].clock.next = self.clock.val();
            self.in0_data[k].d.next = self.in0_data[k].q.val();
            self.in1_data[k].clock.next = self.clock.val();
            self.in1_data[k].d.next = self.in1_data[k].q.val();
        }
        for b in 0..32 {
            self.in0_byte_nz[b].clock.next = self.clock.val();
            self.in0_byte_nz[b].d.next = self.in0_byte_nz[b].q.val();
            self.in1_byte_nz[b].clock.next = self.clock.val();
            self.in1_byte_nz[b].d.next = self.in1_byte_nz[b].q.val();
        }
        for h in 0..16 {
            self.in0_zero[h].clock.next = self.clock.val();
            self.in0_zero[h].d.next = self.in0_zero[h].q.val();
            self.in1_zero[h].clock.next = self.clock.val();
            self.in1_zero[h].d.next = self.in1_zero[h].q.val();
        }

        // ---- the offered beat's zero flags, registered with it: its bytes' (for the tail's
        // masking) and its slots' at the transfer's width (a 32-bit symbol's two slots share its
        // flag), so that the per-beat counting below starts from flops
        for j in 0..8 {
            self.push_byte_nz[4 * j].next = (self.beat_data[j].val() & 0xFF).any();
            self.push_byte_nz[4 * j + 1].next = (self.beat_data[j].val() & 0xFF00).any();
            self.push_byte_nz[4 * j + 2].next = (self.beat_data[j].val() & 0xFF_0000).any();
            self.push_byte_nz[4 * j + 3].next = (self.beat_data[j].val() & 0xFF00_0000_u64).any();
            self.push_half_nz[2 * j].next = (self.beat_data[j].val() & 0xFFFF).any();
            self.push_half_nz[2 * j + 1].next = (self.beat_data[j].val() & 0xFFFF_0000_u64).any();
            self.push_word_nz[j].next = self.beat_data[j].val().any();
        }
        for j in 0..8 {
            self.push_zero[2 * j].next = !self.push_word_nz[j].val();
            self.push_zero[2 * j + 1].next = !self.push_word_nz[j].val();
            if self.desc_w16.val() {
                self.push_zero[2 * j].next = !self.push_half_nz[2 * j].val();
                self.push_zero[2 * j + 1].next = !self.push_half_nz[2 * j + 1].val();
            }
        }

        // ---- the input register: entry 0 is the beat gathered next; a pop moves entry 1 down
        self.fire.next = self.in_count.q.val().any() & self.accept.val();
        self.in_pop.next = self.fire.val();
        self.in_slot.next = self.in_count.q.val();
        if self.in_pop.val() {
            self.in_slot.next = self.in_count.q.val() - 1;
            for k in 0..8 {
                self.in0_data[k].d.next = self.in1_data[k].q.val();
            }
            self.in0_last.d.next = self.in1_last.q.val();
            self.in0_w16.d.next = self.in1_w16.q.val();
            self.in0_id.d.next = self.in1_id.q.val();
            self.in0_tail.d.next = self.in1_tail.q.val();
            for b in 0..32 {
                self.in0_byte_nz[b].d.next = self.in1_byte_nz[b].q.val();
            }
            for h in 0..16 {
                self.in0_zero[h].d.next = self.in1_zero[h].q.val();
            }
        }
        if self.push.val() {
            if self.in_slot.val() == 0 {
                for k in 0..8 {
                    self.in0_data[k].d.next = self.beat_data[k].val();
                }
                self.in0_last.d.next = self.beat_last.val();
                self.in0_w16.d.next = self.desc_w16.val();
                self.in0_id.d.next = self.desc_id.val();
                self.in0_tail.d.next = self.desc_tail_bytes.val();
                for b in 0..32 {
                    self.in0_byte_nz[b].d.next = self.push_byte_nz[b].val();
                }
                for h in 0..16 {
                    self.in0_zero[h].d.next = self.push_zero[h].val();
                }
            } else {
                for k in 0..8 {
                    self.in1_data[k].d.next = self.beat_data[k].val();
                }
                self.in1_last.d.next = self.beat_last.val();
                self.in1_w16.d.next = self.desc_w16.val();
                self.in1_id.d.next = self.desc_id.val();
                self.in1_tail.d.next = self.desc_tail_bytes.val();
                for b in 0..32 {
                    self.in1_byte_nz[b].d.next = self.push_byte_nz[b].val();
                }
                for h in 0..16 {
                    self.in1_zero[h].d.next = self.push_zero[h].val();
                }
            }
        }
        self.in_count_next.next = self.in_slot.val();
        if self.push.val() {
            self.in_count_next.next = self.in_slot.val() + 1;
        }
        self.in_count.d.next = self.in_count_next.val();
        self.room_r.d.next = self.in_count_next.val() < self.k_input_beats.val();
        if self.reset.val() {
            self.in_count.d.next = bits::<2>(0);
            self.room_r.d.next = false;
        }
        self.room.next = self.room_r.q.val();

        for k in 0..24 {
            self.held[k].clock.next = self.clock.val();
            self.held[k].d.next = self.held[k].q.val();
        }
        for k in 0..48 {
            self.held_shift[k].clock.next = self.clock.val();
            self.held_shift[k].d.next = self.held_shift[k].q.val();
        }
        for k in 0..32 {
            self.words_r[k].clock.next = self.clock.val();
            self.words_r[k].d.next = self.words_r[k].q.val();
        }
        for k in 0..64 {
            self.shift_r[k].clock.next = self.clock.val();
            self.shift_r[k].d.next = self.shift_r[k].q.val();
        }
        self.closing.next = self.in0_last.q.val() | (self.count_r.q.val() == self.last_beat.val());

        // ---- the tail's keep bits: byte p of this beat is kept unless the beat is the last of
        // a partial final block and byte 32·beat + p lies at or past the tail
        self.partial.next = self.in0_last.q.val() & self.in0_tail.q.val().any();
        self.tail_hi.next = self.in0_tail.q.val().get_bits::<2>(5);
        self.tail_lo.next = self.in0_tail.q.val().get_bits::<5>(0);
        self.hi_after.next = self.tail_hi.val() > self.count_r.q.val();
        self.hi_here.next = self.tail_hi.val() == self.count_r.q.val();
        for p in 0..31 {
            self.keep[p].next =
                !self.partial.val() | self.hi_after.val() | (self.hi_here.val() & (self.byte_pos[p].val() < self.tail_lo.val()));
        }
        self.keep[31].next = !self.partial.val() | self.hi_after.val();
        for j in 0..8 {
            self.byte_mask[j].next = bits::<32>(0);
            if self.keep[4 * j].val() {
                self.byte_mask[j].next = self.byte_mask[j].val() | 0xFF;
            }
            if self.keep[4 * j + 1].val() {
                self.byte_mask[j].next = self.byte_mask[j].val() | 0xFF00;
            }
            if self.keep[4 * j + 2].val() {
                self.byte_mask[j].next = self.byte_mask[j].val() | 0xFF_0000;
            }
            if self.keep[4 * j + 3].val() {
                self.byte_mask[j].next = self.byte_mask[j].val() | 0xFF00_0000_u64;
            }
            self.beat[j].next = self.in0_data[j].q.val() & self.byte_mask[j].val();
        }

        // ---- the beat's 16 slot zero flags (registered with it, before the tail's masking)
        for h in 0..16 {
            self.flag[h].next = bits::<2>(0);
            if self.in0_zero[h].q.val() {
                self.flag[h].next = bits::<2>(1);
            }
        }
        // Inclusive Kogge–Stone prefix of the 16 flags: level k adds the value 2^(k−1) slots back.
        // (Loop ranges, not `if h >= …`: `hdl_gen` exports both branches' index expressions.)
        self.ks1[0].next = self.flag[0].val();
        for h in 1..16 {
            self.ks1[h].next = self.flag[h].val() + self.flag[h - 1].val();
        }
        for h in 0..2 {
            self.w2a.next = self.ks1[h].val();
            self.ks2[h].next = bit_cast::<3, 2>(self.w2a.val());
        }
        for h in 2..16 {
            self.w2a.next = self.ks1[h].val();
            self.w2b.next = self.ks1[h - 2].val();
            self.ks2[h].next = bit_cast::<3, 2>(self.w2a.val()) + bit_cast::<3, 2>(self.w2b.val());
        }
        for h in 0..4 {
            self.w3a.next = self.ks2[h].val();
            self.ks3[h].next = bit_cast::<4, 3>(self.w3a.val());
        }
        for h in 4..16 {
            self.w3a.next = self.ks2[h].val();
            self.w3b.next = self.ks2[h - 4].val();
            self.ks3[h].next = bit_cast::<4, 3>(self.w3a.val()) + bit_cast::<4, 3>(self.w3b.val());
        }
        for h in 0..8 {
            self.w4a.next = self.ks3[h].val();
            self.ks4[h].next = bit_cast::<5, 4>(self.w4a.val());
        }
        for h in 8..16 {
            self.w4a.next = self.ks3[h].val();
            self.w4b.next = self.ks3[h - 8].val();
            self.ks4[h].next = bit_cast::<5, 4>(self.w4a.val()) + bit_cast::<5, 4>(self.w4b.val());
        }
        // A slot that keeps a nonzero byte of the tail has only whole slots before it, so its
        // shift needs no tail masking; the tail gates only whether the slot is nonzero.
        for h in 0..16 {
            self.kept_half_nz[h].next = (self.in0_byte_nz[2 * h].q.val() & self.keep[2 * h].val())
                | (self.in0_byte_nz[2 * h + 1].q.val() & self.keep[2 * h + 1].val());
        }
        for s in 0..8 {
            self.kept_nz[2 * s].next = self.kept_half_nz[2 * s].val();
            self.kept_nz[2 * s + 1].next = self.kept_half_nz[2 * s + 1].val();
            if !self.in0_w16.q.val() {
                self.kept_nz[2 * s].next = self.kept_half_nz[2 * s].val() | self.kept_half_nz[2 * s + 1].val();
                self.kept_nz[2 * s + 1].next = self.kept_nz[2 * s].val();
            }
        }
        // A nonzero slot's shift: zeros of earlier beats plus zeros before it in this beat.
        self.excl[0].next = bits::<5>(0);
        for h in 1..16 {
            self.excl[h].next = self.ks4[h - 1].val();
        }
        for h in 0..16 {
            self.excl_t.next = self.excl[h].val();
            self.sum_t.next = self.zeros_before.q.val() + bit_cast::<7, 5>(self.excl_t.val());
            self.beat_shift[h].next = bits::<6>(0);
            if self.kept_nz[h].val() {
                self.beat_shift[h].next = bit_cast::<6, 7>(self.sum_t.val());
            }
        }
        self.beat_zeros.next = bit_cast::<7, 5>(self.ks4[15].val());

        // ---- a beat that does not close the block waits in `held`; the closing one loads the
        // stage-1 register with the held beats, itself and zeros after it
        self.valid_r.d.next = self.valid_r.q.val() & !self.advance.val();
        if self.fire.val() {
            if self.closing.val() {
                self.count_r.d.next = bits::<2>(0);
                self.zeros_before.d.next = bits::<7>(0);
                self.valid_r.d.next = true;
                self.id_r.d.next = self.in0_id.q.val();
                self.last_r.d.next = self.in0_last.q.val();
                self.w16_r.d.next = self.in0_w16.q.val();
                for k in 0..24 {
                    self.words_r[k].d.next = self.held[k].q.val();
                }
                for k in 24..32 {
                    self.words_r[k].d.next = self.beat[k - 24].val();
                }
                for k in 0..48 {
                    self.shift_r[k].d.next = self.held_shift[k].q.val();
                }
                for k in 48..64 {
                    self.shift_r[k].d.next = self.beat_shift[k - 48].val();
                }
                match self.count_r.q.val().index() {
                    0 => {
                        for k in 0..8 {
                            self.words_r[k].d.next = self.beat[k].val();
                        }
                        for k in 8..32 {
                            self.words_r[k].d.next = bits::<32>(0);
                        }
                        for k in 0..16 {
                            self.shift_r[k].d.next = self.beat_shift[k].val();
                        }
                        for k in 16..64 {
                            self.shift_r[k].d.next = bits::<6>(0);
                        }
                    }
                    1 => {
                        for k in 8..16 {
                            self.words_r[k].d.next = self.beat[k - 8].val();
                        }
                        for k in 16..32 {
                            self.words_r[k].d.next = bits::<32>(0);
                        }
                        for k in 16..32 {
                            self.shift_r[k].d.next = self.beat_shift[k - 16].val();
                        }
                        for k in 32..64 {
                            self.shift_r[k].d.next = bits::<6>(0);
                        }
                    }
                    2 => {
                        for k in 16..24 {
                            self.words_r[k].d.next = self.beat[k - 16].val();
                        }
                        for k in 24..32 {
                            self.words_r[k].d.next = bits::<32>(0);
                        }
                        for k in 32..48 {
                            self.shift_r[k].d.next = self.beat_shift[k - 32].val();
                        }
                        for k in 48..64 {
                            self.shift_r[k].d.next = bits::<6>(0);
                        }
                    }
                    _ => {}
                }
            } else {
                self.count_r.d.next = self.count_r.q.val() + 1;
                self.zeros_before.d.next = self.zeros_before.q.val() + self.beat_zeros.val();
                match self.count_r.q.val().index() {
                    0 => {
                        for k in 0..8 {
                            self.held[k].d.next = self.beat[k].val();
                        }
                        for k in 0..16 {
                            self.held_shift[k].d.next = self.beat_shift[k].val();
                        }
                    }
                    1 => {
                        for k in 0..8 {
                            self.held[k + 8].d.next = self.beat[k].val();
                        }
                        for k in 0..16 {
                            self.held_shift[k + 16].d.next = self.beat_shift[k].val();
                        }
                    }
                    _ => {
                        for k in 0..8 {
                            self.held[k + 16].d.next = self.beat[k].val();
                        }
                        for k in 0..16 {
                            self.held_shift[k + 32].d.next = self.beat_shift[k].val();
                        }
                    }
                }
            }
        }
        if self.reset.val() {
            self.count_r.d.next = bits::<2>(0);
            self.zeros_before.d.next = bits::<7>(0);
            self.valid_r.d.next = false;
        }

        self.valid.next = self.valid_r.q.val();
        self.id.next = self.id_r.q.val();
        self.last.next = self.last_r.q.val();
        self.w16.next = self.w16_r.q.val();
        for k in 0..32 {
            self.words[k].next = self.words_r[k].q.val();
        }
        for k in 0..64 {
            self.shift[k].next = self.shift_r[k].q.val();
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Reference shifts of a block: per half-word slot, the zero slots before it when its symbol
    /// is nonzero (a 32-bit symbol is two slots), else 0.
    pub(crate) fn reference_shifts(words: &[u32; 32], w16: bool) -> [u64; 64] {
        let zero: Vec<bool> = if w16 {
            words.iter().flat_map(|w| [w & 0xFFFF == 0, w >> 16 == 0]).collect()
        } else {
            words.iter().flat_map(|&w| [w == 0, w == 0]).collect()
        };
        let mut out = [0u64; 64];
        let mut zeros = 0;
        for (slot, &z) in zero.iter().enumerate() {
            if z {
                zeros += 1;
            } else {
                out[slot] = zeros;
            }
        }
        out
    }

    /// A block of random density: each 16-bit half (or 32-bit word) nonzero with probability `density`.
    pub(crate) fn random_words(rng: &mut ChaCha8Rng, w16: bool) -> [u32; 32] {
        let density = rng.gen_range(0.0..1.0);
        std::array::from_fn(|_| {
            let half = |r: &mut ChaCha8Rng| if r.gen_bool(density) { r.gen_range(1..=0xFFFFu32) } else { 0 };
            if w16 {
                half(rng) | (half(rng) << 16)
            } else if rng.gen_bool(density) {
                rng.r#gen::<u32>().max(1)
            } else {
                0
            }
        })
    }

    fn edge(g: &mut GatherStage) {
        for level in [true, false] {
            g.clock.next = Clock { clk: level };
            assert!(simulate(g, 100));
        }
    }

    #[test]
    fn beats_land_in_the_stage_1_register_with_the_reference_shifts_and_tail() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut g = GatherStage::default();
        g.connect_all();
        check_all(&g).unwrap();
        g.reset.next = true;
        edge(&mut g);
        g.reset.next = false;
        edge(&mut g);
        for trial in 0..300 {
            let w16 = trial % 2 == 0;
            // A final partial block of `len` bytes (its beats carry garbage past the tail), or a whole one.
            let len: usize = if rng.gen_bool(0.5) { rng.gen_range(1..=128) } else { 128 };
            let closes_transfer = len < 128 || rng.gen_bool(0.5);
            let raw = random_words(&mut rng, w16);
            let beats = len.div_ceil(BEAT_BYTES);
            g.desc_w16.next = w16;
            g.desc_id.next = (trial as u64 & 0xFF).into();
            g.desc_tail_bytes.next = ((len % 128) as u64).into();
            g.advance.next = true;
            // Half the trials hold `accept` low at random, so beats wait in the input register
            // and `push` follows its `room`.
            let stalls = trial % 4 >= 2;
            let mut pushed = 0;
            let mut edges = 0;
            while !g.valid.val() || pushed < beats {
                assert!(edges < 8 * beats + 8, "trial {trial}: the block never closed");
                g.accept.next = !stalls || rng.gen_bool(0.5);
                let did_push = pushed < beats && g.room.val();
                g.push.next = did_push;
                if pushed < beats {
                    for k in 0..8 {
                        g.beat_data[k].next = (raw[8 * pushed + k] as u64).into();
                    }
                    g.beat_last.next = closes_transfer && pushed + 1 == beats;
                }
                edge(&mut g);
                pushed += did_push as usize;
                edges += 1;
            }
            g.push.next = false;
            g.accept.next = false;
            let mut expected = [0u32; 32];
            for (k, e) in expected.iter_mut().enumerate() {
                let keep = len.saturating_sub(4 * k).min(4);
                *e = if keep == 4 { raw[k] } else { raw[k] & ((1u32 << (8 * keep)) - 1) };
            }
            assert_eq!(g.last.val(), closes_transfer, "trial {trial}");
            assert_eq!(g.w16.val(), w16);
            let words: Vec<u32> = g.words.iter().map(|w| w.val().to_u32()).collect();
            assert_eq!(words, expected.to_vec(), "trial {trial}: words");
            let shifts: Vec<u64> = g.shift.iter().map(|s| s.val().to_u64()).collect();
            assert_eq!(shifts, reference_shifts(&expected, w16).to_vec(), "trial {trial}: shifts");
            // The block moves on (advance is held high).
            edge(&mut g);
            assert!(!g.valid.val(), "trial {trial}: the block did not move on");
        }
    }

    #[test]
    fn the_input_register_holds_two_beats_and_its_ready_is_registered() {
        let mut g = GatherStage::default();
        g.connect_all();
        g.reset.next = true;
        edge(&mut g);
        assert!(!g.room.val(), "ready during reset");
        g.reset.next = false;
        g.accept.next = false;
        edge(&mut g);
        assert!(g.room.val());
        g.push.next = true;
        edge(&mut g);
        assert!(g.room.val(), "one beat held");
        edge(&mut g);
        assert!(!g.room.val(), "two beats held");
        // Taking one beat out frees one entry a cycle later.
        g.push.next = false;
        g.accept.next = true;
        edge(&mut g);
        assert!(g.room.val());
    }
}
