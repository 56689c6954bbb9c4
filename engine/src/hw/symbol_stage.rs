//! The lane's symbol stage (stage 1): from the gathered block and its compaction shifts, the
//! value sequences of the three plane codes, registered for stage 2 (FORMAT.md §4.2–§4.4):
//! * BX: the N symbols;
//! * ZBX: the n nonzero symbols moved to the front, in order, with the nonzero mask and count;
//! * DBX: the N − 1 deltas `s[m+1] − s[m]` as (w+1)-bit numbers (bit w is the borrow).
//!
//! The compaction network works on the 64 half-word slots of the block, whatever the width: a
//! nonzero slot moves down by its shift (counted per beat by the
//! [`super::gather_stage::GatherStage`]) in six stages of 1, 2, 4, …, 32 slots, least
//! significant bit first. That order never lets two nonzero slots meet (for `i < k`,
//! `z[k] − z[i] < k − i` at every stage), so each stage is one 2:1 OR-mux per slot. A 32-bit
//! symbol's two slots carry the same even shift and move together.
//!
//! The deltas are Kogge–Stone subtractors (a − b = a + ¬b + 1; generate and propagate merged
//! over 1, 2, 4, … bits): 63 of 16 bits on the half-words and 31 of 32 bits on the words, the
//! width selected after them. (Yosys and ABC map a `-` of 32 bits as a ripple chain: 20 cells,
//! 645.8 ps on ASAP7 in the lane's glue before this stage existed.)
//!
//! The outputs are flops loaded at `advance`, which hold the block through stage 2: the plane
//! statistics, zero runs, size choice and plane-queue load read them. The inputs are the gather
//! stage's flops, so every path of this stage starts and ends at a flop in this block or that one.

use super::gather_stage::{BLOCK_SLOTS, BLOCK_WORDS};
use super::hdl_util::{arr, d};
use super::plane_stats::{MAX_VALUES, WIDE_VALUES};
use rust_hdl::prelude::*;

/// Deltas of 16-bit symbols (N − 1 for N = 64).
const DELTAS_W16: usize = 63;
/// Deltas of 32-bit symbols (N − 1 for N = 32).
const DELTAS_W32: usize = 31;

hw_block! {
/// Stage 1: compaction network, BX values and DBX deltas, registered (module docs).
#[derive(LogicBlock)]
pub struct SymbolStage {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Load the outputs from the block on the inputs (the block enters stage 2).
    pub advance: Signal<In, Bit> = d(),
    /// The block as 32 little-endian words.
    pub words: [Signal<In, Bits<32>>; BLOCK_WORDS] = arr(),
    /// Compaction shift of each half-word slot (0 for a zero symbol's slots).
    pub shift: [Signal<In, Bits<6>>; BLOCK_SLOTS] = arr(),
    /// 16-bit symbols (64 per block); else 32-bit (32 per block).
    pub w16: Signal<In, Bit> = d(),
    /// Registered width flag.
    pub w16_q: Signal<Out, Bit> = d(),
    /// Registered `!w16`: the plane statistics' `wide`.
    pub wide_q: Signal<Out, Bit> = d(),
    /// BX values 0–31: the symbols.
    pub bx_x: [Signal<Out, Bits<32>>; WIDE_VALUES] = arr(),
    /// BX values 32–63 (16-bit symbols only).
    pub bx_x_lo: [Signal<Out, Bits<17>>; WIDE_VALUES] = arr(),
    /// BX plane length N (32 or 64).
    pub bx_count: Signal<Out, Bits<7>> = d(),
    /// ZBX values 0–31: the nonzero symbols in order, then zeros.
    pub zbx_x: [Signal<Out, Bits<32>>; WIDE_VALUES] = arr(),
    /// ZBX values 32–63.
    pub zbx_x_lo: [Signal<Out, Bits<17>>; WIDE_VALUES] = arr(),
    /// `zbx_valid[m]` ⇔ `m < n`.
    pub zbx_valid: [Signal<Out, Bit>; MAX_VALUES] = arr(),
    /// Registered `n`: the ZBX plane length and ZVC's count.
    pub nonzero_q: Signal<Out, Bits<7>> = d(),
    /// Nonzero mask of symbols 0–31, symbol 0 in bit 31 (FORMAT.md bit order, first symbol first).
    pub mask_hi: Signal<Out, Bits<32>> = d(),
    /// Nonzero mask of symbols 32–63, symbol 32 in bit 31.
    pub mask_lo: Signal<Out, Bits<32>> = d(),
    /// DBX deltas 0–31, bits 0–31 (16-bit symbols: the 17-bit delta).
    pub dbx_x: [Signal<Out, Bits<32>>; WIDE_VALUES] = arr(),
    /// DBX deltas 32–62 (16-bit symbols), 17 bits.
    pub dbx_x_lo: [Signal<Out, Bits<17>>; WIDE_VALUES] = arr(),
    /// Borrow (bit 32) of DBX deltas 0–30 of 32-bit symbols.
    pub dbx_x_top: [Signal<Out, Bit>; WIDE_VALUES] = arr(),
    /// DBX plane length N − 1 (31 or 63).
    pub dbx_count: Signal<Out, Bits<7>> = d(),
    w16_r: DFF<Bit> = d(),
    wide_r: DFF<Bit> = d(),
    bx_r: [DFF<Bits<32>>; WIDE_VALUES] = arr(),
    bx_lo_r: [DFF<Bits<17>>; WIDE_VALUES] = arr(),
    bx_count_r: DFF<Bits<7>> = d(),
    zbx_r: [DFF<Bits<32>>; WIDE_VALUES] = arr(),
    zbx_lo_r: [DFF<Bits<17>>; WIDE_VALUES] = arr(),
    zbx_valid_r: [DFF<Bit>; MAX_VALUES] = arr(),
    nonzero_r: DFF<Bits<7>> = d(),
    mask_hi_r: DFF<Bits<32>> = d(),
    mask_lo_r: DFF<Bits<32>> = d(),
    dbx_r: [DFF<Bits<32>>; WIDE_VALUES] = arr(),
    dbx_lo_r: [DFF<Bits<17>>; WIDE_VALUES] = arr(),
    dbx_top_r: [DFF<Bit>; WIDE_VALUES] = arr(),
    dbx_count_r: DFF<Bits<7>> = d(),
    /// Half-word slots (16-bit values in 32-bit signals).
    half: [Signal<Local, Bits<32>>; BLOCK_SLOTS] = arr(),
    stage1: [Signal<Local, Bits<32>>; BLOCK_SLOTS] = arr(),
    stage2: [Signal<Local, Bits<32>>; BLOCK_SLOTS] = arr(),
    stage3: [Signal<Local, Bits<32>>; BLOCK_SLOTS] = arr(),
    stage4: [Signal<Local, Bits<32>>; BLOCK_SLOTS] = arr(),
    stage5: [Signal<Local, Bits<32>>; BLOCK_SLOTS] = arr(),
    packed: [Signal<Local, Bits<32>>; BLOCK_SLOTS] = arr(),
    shift1: [Signal<Local, Bits<6>>; BLOCK_SLOTS] = arr(),
    shift2: [Signal<Local, Bits<6>>; BLOCK_SLOTS] = arr(),
    shift3: [Signal<Local, Bits<6>>; BLOCK_SLOTS] = arr(),
    shift4: [Signal<Local, Bits<6>>; BLOCK_SLOTS] = arr(),
    shift5: [Signal<Local, Bit>; BLOCK_SLOTS] = arr(),
    mask_hi_l: Signal<Local, Bits<32>> = d(),
    mask_lo_l: Signal<Local, Bits<32>> = d(),
    /// Nonzero flags of the symbols (32-bit symbols: the first 32).
    symbol_nz: [Signal<Local, Bit>; MAX_VALUES] = arr(),
    /// ZBX values that are nonzero: a thermometer code, `therm[m]` ⇔ `m < n`.
    therm: [Signal<Local, Bit>; MAX_VALUES] = arr(),
    /// Bits of `n` decoded from the thermometer.
    n_bit: [Signal<Local, Bit>; 7] = arr(),
    nonzero_l: Signal<Local, Bits<7>> = d(),
    // 16-bit subtractors: propagate, generate after each Kogge–Stone level, difference.
    p16_0: [Signal<Local, Bits<16>>; DELTAS_W16] = arr(),
    p16_1: [Signal<Local, Bits<16>>; DELTAS_W16] = arr(),
    p16_2: [Signal<Local, Bits<16>>; DELTAS_W16] = arr(),
    p16_3: [Signal<Local, Bits<16>>; DELTAS_W16] = arr(),
    g16_0: [Signal<Local, Bits<16>>; DELTAS_W16] = arr(),
    g16_1: [Signal<Local, Bits<16>>; DELTAS_W16] = arr(),
    g16_2: [Signal<Local, Bits<16>>; DELTAS_W16] = arr(),
    g16_3: [Signal<Local, Bits<16>>; DELTAS_W16] = arr(),
    g16_4: [Signal<Local, Bits<16>>; DELTAS_W16] = arr(),
    a16_t: Signal<Local, Bits<16>> = d(),
    b16_t: Signal<Local, Bits<16>> = d(),
    diff16_t: Signal<Local, Bits<16>> = d(),
    borrow16_t: Signal<Local, Bit> = d(),
    delta16: [Signal<Local, Bits<32>>; 64] = arr(),
    // 32-bit subtractors.
    p32_0: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    p32_1: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    p32_2: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    p32_3: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    p32_4: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    g32_0: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    g32_1: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    g32_2: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    g32_3: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    g32_4: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    g32_5: [Signal<Local, Bits<32>>; DELTAS_W32] = arr(),
    delta32: [Signal<Local, Bits<32>>; 32] = arr(),
    borrow32: [Signal<Local, Bit>; 32] = arr(),
    narrow_t: Signal<Local, Bits<32>> = d(),
}
}

impl Logic for SymbolStage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, w16_r, wide_r, bx_count_r, nonzero_r, mask_hi_r, mask_lo_r, dbx_count_r);
        for m in 0..32 {
            self.bx_r[m].clock.next = self.clock.val();
            self.bx_r[m].d.next = self.bx_r[m].q.val();
            self.bx_lo_r[m].clock.next = self.clock.val();
            self.bx_lo_r[m].d.next = self.bx_lo_r[m].q.val();
            self.zbx_r[m].clock.next = self.clock.val();
            self.zbx_r[m].d.next = self.zbx_r[m].q.val();
            self.zbx_lo_r[m].clock.next = self.clock.val();
            self.zbx_lo_r[m].d.next = self.zbx_lo_r[m].q.val();
            self.dbx_r[m].clock.next = self.clock.val();
            self.dbx_r[m].d.next = self.dbx_r[m].q.val();
            self.dbx_lo_r[m].clock.next = self.clock.val();
            self.dbx_lo_r[m].d.next = self.dbx_lo_r[m].q.val();
            self.dbx_top_r[m].clock.next = self.clock.val();
            self.dbx_top_r[m].d.next = self.dbx_top_r[m].q.val();
        }
        for m in 0..64 {
            self.zbx_valid_r[m].clock.next = self.clock.val();
            self.zbx_valid_r[m].d.next = self.zbx_valid_r[m].q.val();
        }

        // ---- half-word slots (the bytes are little-endian: the low half comes first)
        for k in 0..32 {
            self.half[2 * k].next = self.words[k].val() & 0xFFFF;
            self.half[2 * k + 1].next = self.words[k].val() >> 16;
        }

        // ---- compaction network: stage s moves a slot down by 2^s when bit s of its shift is set
        for i in 0..63 {
            self.stage1[i].next = bits::<32>(0);
            self.shift1[i].next = bits::<6>(0);
            if self.shift[i + 1].val().get_bit(0) {
                self.stage1[i].next = self.half[i + 1].val();
                self.shift1[i].next = self.shift[i + 1].val();
            }
            if !self.shift[i].val().get_bit(0) {
                self.stage1[i].next = self.stage1[i].val() | self.half[i].val();
                self.shift1[i].next = self.shift1[i].val() | self.shift[i].val();
            }
        }
        self.stage1[63].next = bits::<32>(0);
        self.shift1[63].next = bits::<6>(0);
        if !self.shift[63].val().get_bit(0) {
            self.stage1[63].next = self.half[63].val();
            self.shift1[63].next = self.shift[63].val();
        }
        for i in 0..64 {
            self.stage2[i].next = bits::<32>(0);
            self.shift2[i].next = bits::<6>(0);
        }
        for i in 0..62 {
            if self.shift1[i + 2].val().get_bit(1) {
                self.stage2[i].next = self.stage1[i + 2].val();
                self.shift2[i].next = self.shift1[i + 2].val();
            }
        }
        for i in 0..64 {
            if !self.shift1[i].val().get_bit(1) {
                self.stage2[i].next = self.stage2[i].val() | self.stage1[i].val();
                self.shift2[i].next = self.shift2[i].val() | self.shift1[i].val();
            }
        }
        for i in 0..64 {
            self.stage3[i].next = bits::<32>(0);
            self.shift3[i].next = bits::<6>(0);
        }
        for i in 0..60 {
            if self.shift2[i + 4].val().get_bit(2) {
                self.stage3[i].next = self.stage2[i + 4].val();
                self.shift3[i].next = self.shift2[i + 4].val();
            }
        }
        for i in 0..64 {
            if !self.shift2[i].val().get_bit(2) {
                self.stage3[i].next = self.stage3[i].val() | self.stage2[i].val();
                self.shift3[i].next = self.shift3[i].val() | self.shift2[i].val();
            }
        }
        for i in 0..64 {
            self.stage4[i].next = bits::<32>(0);
            self.shift4[i].next = bits::<6>(0);
        }
        for i in 0..56 {
            if self.shift3[i + 8].val().get_bit(3) {
                self.stage4[i].next = self.stage3[i + 8].val();
                self.shift4[i].next = self.shift3[i + 8].val();
            }
        }
        for i in 0..64 {
            if !self.shift3[i].val().get_bit(3) {
                self.stage4[i].next = self.stage4[i].val() | self.stage3[i].val();
                self.shift4[i].next = self.shift4[i].val() | self.shift3[i].val();
            }
        }
        for i in 0..64 {
            self.stage5[i].next = bits::<32>(0);
            self.shift5[i].next = false;
        }
        for i in 0..48 {
            if self.shift4[i + 16].val().get_bit(4) {
                self.stage5[i].next = self.stage4[i + 16].val();
                self.shift5[i].next = self.shift4[i + 16].val().get_bit(5);
            }
        }
        for i in 0..64 {
            if !self.shift4[i].val().get_bit(4) {
                self.stage5[i].next = self.stage5[i].val() | self.stage4[i].val();
                self.shift5[i].next = self.shift5[i].val() | self.shift4[i].val().get_bit(5);
            }
        }
        for i in 0..64 {
            self.packed[i].next = bits::<32>(0);
        }
        for i in 0..32 {
            if self.shift5[i + 32].val() {
                self.packed[i].next = self.stage5[i + 32].val();
            }
        }
        for i in 0..64 {
            if !self.shift5[i].val() {
                self.packed[i].next = self.packed[i].val() | self.stage5[i].val();
            }
        }

        // ---- nonzero flags and mask
        for i in 0..64 {
            self.symbol_nz[i].next = false;
        }
        if self.w16.val() {
            for i in 0..64 {
                self.symbol_nz[i].next = self.half[i].val().any();
            }
        } else {
            for i in 0..32 {
                self.symbol_nz[i].next = self.words[i].val().any();
            }
        }
        self.mask_hi_l.next = bits::<32>(0);
        self.mask_lo_l.next = bits::<32>(0);
        for i in 0..32 {
            self.mask_hi_l.next = self.mask_hi_l.val().replace_bit(31 - i, self.symbol_nz[i].val());
            self.mask_lo_l.next = self.mask_lo_l.val().replace_bit(31 - i, self.symbol_nz[i + 32].val());
        }
        // ---- n from the compacted values: nonzero exactly at m < n (a thermometer code), so
        // bit k of n is set where n lies in [j·2^k, (j+1)·2^k) for an odd j — an OR of ANDs,
        // where a popcount of the flags would be a tree of adders
        for m in 0..32 {
            self.therm[m].next = (self.packed[2 * m].val() | self.packed[2 * m + 1].val()).any();
            self.therm[m + 32].next = false;
        }
        if self.w16.val() {
            for m in 0..64 {
                self.therm[m].next = self.packed[m].val().any();
            }
        }
        self.n_bit[0].next = (self.therm[0].val() & !self.therm[1].val()) | (self.therm[2].val() & !self.therm[3].val()) | (self.therm[4].val() & !self.therm[5].val()) | (self.therm[6].val() & !self.therm[7].val()) | (self.therm[8].val() & !self.therm[9].val()) | (self.therm[10].val() & !self.therm[11].val()) | (self.therm[12].val() & !self.therm[13].val()) | (self.therm[14].val() & !self.therm[15].val()) | (self.therm[16].val() & !self.therm[17].val()) | (self.therm[18].val() & !self.therm[19].val()) | (self.therm[20].val() & !self.therm[21].val()) | (self.therm[22].val() & !self.therm[23].val()) | (self.therm[24].val() & !self.therm[25].val()) | (self.therm[26].val() & !self.therm[27].val()) | (self.therm[28].val() & !self.therm[29].val()) | (self.therm[30].val() & !self.therm[31].val()) | (self.therm[32].val() & !self.therm[33].val()) | (self.therm[34].val() & !self.therm[35].val()) | (self.therm[36].val() & !self.therm[37].val()) | (self.therm[38].val() & !self.therm[39].val()) | (self.therm[40].val() & !self.therm[41].val()) | (self.therm[42].val() & !self.therm[43].val()) | (self.therm[44].val() & !self.therm[45].val()) | (self.therm[46].val() & !self.therm[47].val()) | (self.therm[48].val() & !self.therm[49].val()) | (self.therm[50].val() & !self.therm[51].val()) | (self.therm[52].val() & !self.therm[53].val()) | (self.therm[54].val() & !self.therm[55].val()) | (self.therm[56].val() & !self.therm[57].val()) | (self.therm[58].val() & !self.therm[59].val()) | (self.therm[60].val() & !self.therm[61].val()) | (self.therm[62].val() & !self.therm[63].val());
        self.n_bit[1].next = (self.therm[1].val() & !self.therm[3].val()) | (self.therm[5].val() & !self.therm[7].val()) | (self.therm[9].val() & !self.therm[11].val()) | (self.therm[13].val() & !self.therm[15].val()) | (self.therm[17].val() & !self.therm[19].val()) | (self.therm[21].val() & !self.therm[23].val()) | (self.therm[25].val() & !self.therm[27].val()) | (self.therm[29].val() & !self.therm[31].val()) | (self.therm[33].val() & !self.therm[35].val()) | (self.therm[37].val() & !self.therm[39].val()) | (self.therm[41].val() & !self.therm[43].val()) | (self.therm[45].val() & !self.therm[47].val()) | (self.therm[49].val() & !self.therm[51].val()) | (self.therm[53].val() & !self.therm[55].val()) | (self.therm[57].val() & !self.therm[59].val()) | (self.therm[61].val() & !self.therm[63].val());
        self.n_bit[2].next = (self.therm[3].val() & !self.therm[7].val()) | (self.therm[11].val() & !self.therm[15].val()) | (self.therm[19].val() & !self.therm[23].val()) | (self.therm[27].val() & !self.therm[31].val()) | (self.therm[35].val() & !self.therm[39].val()) | (self.therm[43].val() & !self.therm[47].val()) | (self.therm[51].val() & !self.therm[55].val()) | (self.therm[59].val() & !self.therm[63].val());
        self.n_bit[3].next = (self.therm[7].val() & !self.therm[15].val()) | (self.therm[23].val() & !self.therm[31].val()) | (self.therm[39].val() & !self.therm[47].val()) | (self.therm[55].val() & !self.therm[63].val());
        self.n_bit[4].next = (self.therm[15].val() & !self.therm[31].val()) | (self.therm[47].val() & !self.therm[63].val());
        self.n_bit[5].next = self.therm[31].val() & !self.therm[63].val();
        self.n_bit[6].next = self.therm[63].val();
        self.nonzero_l.next = bits::<7>(0);
        for k in 0..7 {
            self.nonzero_l.next = self.nonzero_l.val().replace_bit(k, self.n_bit[k].val());
        }

        // ---- DBX deltas, 16-bit: half[m+1] − half[m], the borrow in bit 16
        for m in 0..63 {
            self.a16_t.next = self.half[m + 1].val().get_bits::<16>(0);
            self.b16_t.next = !self.half[m].val().get_bits::<16>(0);
            self.p16_0[m].next = self.a16_t.val() ^ self.b16_t.val();
            // The carry into bit 0 is 1: bit 0 generates when it propagates.
            self.g16_0[m].next = (self.a16_t.val() & self.b16_t.val()) | (self.p16_0[m].val() & 1);
            self.g16_1[m].next = self.g16_0[m].val() | (self.p16_0[m].val() & (self.g16_0[m].val() << 1));
            self.p16_1[m].next = self.p16_0[m].val() & (self.p16_0[m].val() << 1);
            self.g16_2[m].next = self.g16_1[m].val() | (self.p16_1[m].val() & (self.g16_1[m].val() << 2));
            self.p16_2[m].next = self.p16_1[m].val() & (self.p16_1[m].val() << 2);
            self.g16_3[m].next = self.g16_2[m].val() | (self.p16_2[m].val() & (self.g16_2[m].val() << 4));
            self.p16_3[m].next = self.p16_2[m].val() & (self.p16_2[m].val() << 4);
            self.g16_4[m].next = self.g16_3[m].val() | (self.p16_3[m].val() & (self.g16_3[m].val() << 8));
            self.diff16_t.next = self.p16_0[m].val() ^ ((self.g16_4[m].val() << 1) | 1);
            // The borrow goes through a 1-bit local: inside a 32-bit expression Verilog would
            // widen `~g[15]` to 32 bits before inverting it.
            self.borrow16_t.next = !self.g16_4[m].val().get_bit(15);
            self.delta16[m].next = bit_cast::<32, 16>(self.diff16_t.val()).replace_bit(16, self.borrow16_t.val());
        }
        self.delta16[63].next = bits::<32>(0);
        // ---- DBX deltas, 32-bit: words[m+1] − words[m], the borrow apart
        for m in 0..31 {
            self.p32_0[m].next = self.words[m + 1].val() ^ !self.words[m].val();
            self.g32_0[m].next = (self.words[m + 1].val() & !self.words[m].val()) | (self.p32_0[m].val() & 1);
            self.g32_1[m].next = self.g32_0[m].val() | (self.p32_0[m].val() & (self.g32_0[m].val() << 1));
            self.p32_1[m].next = self.p32_0[m].val() & (self.p32_0[m].val() << 1);
            self.g32_2[m].next = self.g32_1[m].val() | (self.p32_1[m].val() & (self.g32_1[m].val() << 2));
            self.p32_2[m].next = self.p32_1[m].val() & (self.p32_1[m].val() << 2);
            self.g32_3[m].next = self.g32_2[m].val() | (self.p32_2[m].val() & (self.g32_2[m].val() << 4));
            self.p32_3[m].next = self.p32_2[m].val() & (self.p32_2[m].val() << 4);
            self.g32_4[m].next = self.g32_3[m].val() | (self.p32_3[m].val() & (self.g32_3[m].val() << 8));
            self.p32_4[m].next = self.p32_3[m].val() & (self.p32_3[m].val() << 8);
            self.g32_5[m].next = self.g32_4[m].val() | (self.p32_4[m].val() & (self.g32_4[m].val() << 16));
            self.delta32[m].next = self.p32_0[m].val() ^ ((self.g32_5[m].val() << 1) | 1);
            self.borrow32[m].next = !self.g32_5[m].val().get_bit(31);
        }
        self.delta32[31].next = bits::<32>(0);
        self.borrow32[31].next = false;

        // ---- the registered outputs, width selected last
        self.narrow_t.next = bits::<32>(0);
        if self.advance.val() {
            self.w16_r.d.next = self.w16.val();
            self.wide_r.d.next = !self.w16.val();
            self.nonzero_r.d.next = self.nonzero_l.val();
            self.mask_hi_r.d.next = self.mask_hi_l.val();
            self.mask_lo_r.d.next = self.mask_lo_l.val();
            for m in 0..64 {
                self.zbx_valid_r[m].d.next = self.therm[m].val();
            }
            if self.w16.val() {
                self.bx_count_r.d.next = bits::<7>(64);
                self.dbx_count_r.d.next = bits::<7>(63);
                for m in 0..32 {
                    self.bx_r[m].d.next = self.half[m].val();
                    self.narrow_t.next = self.half[m + 32].val();
                    self.bx_lo_r[m].d.next = bit_cast::<17, 32>(self.narrow_t.val());
                    self.zbx_r[m].d.next = self.packed[m].val();
                    self.narrow_t.next = self.packed[m + 32].val();
                    self.zbx_lo_r[m].d.next = bit_cast::<17, 32>(self.narrow_t.val());
                    self.dbx_r[m].d.next = self.delta16[m].val();
                    self.narrow_t.next = self.delta16[m + 32].val();
                    self.dbx_lo_r[m].d.next = bit_cast::<17, 32>(self.narrow_t.val());
                    self.dbx_top_r[m].d.next = false;
                }
            } else {
                self.bx_count_r.d.next = bits::<7>(32);
                self.dbx_count_r.d.next = bits::<7>(31);
                for m in 0..32 {
                    self.bx_r[m].d.next = self.words[m].val();
                    self.bx_lo_r[m].d.next = bits::<17>(0);
                    self.zbx_r[m].d.next = self.packed[2 * m].val() | (self.packed[2 * m + 1].val() << 16);
                    self.zbx_lo_r[m].d.next = bits::<17>(0);
                    self.dbx_r[m].d.next = self.delta32[m].val();
                    self.dbx_lo_r[m].d.next = bits::<17>(0);
                    self.dbx_top_r[m].d.next = self.borrow32[m].val();
                }
            }
        }

        // ---- output ports, each written once from its flop
        self.w16_q.next = self.w16_r.q.val();
        self.wide_q.next = self.wide_r.q.val();
        self.bx_count.next = self.bx_count_r.q.val();
        self.dbx_count.next = self.dbx_count_r.q.val();
        self.nonzero_q.next = self.nonzero_r.q.val();
        self.mask_hi.next = self.mask_hi_r.q.val();
        self.mask_lo.next = self.mask_lo_r.q.val();
        for m in 0..32 {
            self.bx_x[m].next = self.bx_r[m].q.val();
            self.bx_x_lo[m].next = self.bx_lo_r[m].q.val();
            self.zbx_x[m].next = self.zbx_r[m].q.val();
            self.zbx_x_lo[m].next = self.zbx_lo_r[m].q.val();
            self.dbx_x[m].next = self.dbx_r[m].q.val();
            self.dbx_x_lo[m].next = self.dbx_lo_r[m].q.val();
            self.dbx_x_top[m].next = self.dbx_top_r[m].q.val();
        }
        for m in 0..64 {
            self.zbx_valid[m].next = self.zbx_valid_r[m].q.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::gather_stage::tests::{random_words, reference_shifts};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// What stage 2 must see, from the plain definitions: the symbols, the nonzero ones first,
    /// the (w+1)-bit deltas, the mask (symbol 0 in bit 63) and `n`.
    struct Reference {
        symbols: Vec<u64>,
        packed: Vec<u64>,
        deltas: Vec<u64>,
        mask: u64,
    }

    fn reference(words: &[u32; 32], w16: bool) -> Reference {
        let symbols: Vec<u64> = if w16 {
            words.iter().flat_map(|w| [(w & 0xFFFF) as u64, (w >> 16) as u64]).collect()
        } else {
            words.iter().map(|&w| w as u64).collect()
        };
        let bits = if w16 { 16 } else { 32 };
        let deltas = symbols.windows(2).map(|p| p[1].wrapping_sub(p[0]) & ((1u64 << (bits + 1)) - 1)).collect();
        let packed = symbols.iter().copied().filter(|&s| s != 0).collect();
        let mask = symbols.iter().enumerate().fold(0u64, |m, (i, &s)| m | (((s != 0) as u64) << (63 - i)));
        Reference { symbols, packed, deltas, mask }
    }

    /// Value `m` of a plane-statistics input triple (`x`, `x_lo`, `x_top`) as one number.
    fn value(x: &[Signal<Out, Bits<32>>], lo: &[Signal<Out, Bits<17>>], top: Option<&[Signal<Out, Bit>]>, m: usize) -> u64 {
        if m < 32 {
            x[m].val().to_u64() | top.map_or(0, |t| (t[m].val() as u64) << 32)
        } else {
            lo[m - 32].val().to_u64()
        }
    }

    #[test]
    fn stage_2_sees_the_symbols_compacted_values_deltas_mask_and_count_of_a_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut s = SymbolStage::default();
        s.connect_all();
        check_all(&s).unwrap();
        for trial in 0..400 {
            let w16 = trial % 2 == 1;
            let words = random_words(&mut rng, w16);
            let shifts = reference_shifts(&words, w16);
            for k in 0..32 {
                s.words[k].next = (words[k] as u64).into();
            }
            for k in 0..64 {
                s.shift[k].next = shifts[k].into();
            }
            s.w16.next = w16;
            s.advance.next = true;
            for level in [true, false] {
                s.clock.next = Clock { clk: level };
                assert!(simulate(&mut s, 100));
            }
            let r = reference(&words, w16);
            let n_sym = r.symbols.len();
            let bx: Vec<u64> = (0..n_sym).map(|m| value(&s.bx_x, &s.bx_x_lo, None, m)).collect();
            assert_eq!(bx, r.symbols, "trial {trial}: BX values");
            assert_eq!(s.bx_count.val().to_u64(), n_sym as u64);
            let zbx: Vec<u64> = (0..n_sym).map(|m| value(&s.zbx_x, &s.zbx_x_lo, None, m)).collect();
            let mut packed = r.packed.clone();
            packed.resize(n_sym, 0);
            assert_eq!(zbx, packed, "trial {trial}: ZBX values");
            let valid: Vec<bool> = s.zbx_valid.iter().map(|v| v.val()).collect();
            let expected_valid: Vec<bool> = (0..64).map(|m| m < r.packed.len()).collect();
            assert_eq!(valid, expected_valid, "trial {trial}: ZBX valid");
            assert_eq!(s.nonzero_q.val().to_u64(), r.packed.len() as u64, "trial {trial}: n");
            let dbx: Vec<u64> = (0..n_sym - 1).map(|m| value(&s.dbx_x, &s.dbx_x_lo, Some(&s.dbx_x_top), m)).collect();
            assert_eq!(dbx, r.deltas, "trial {trial}: DBX deltas");
            assert_eq!(s.dbx_count.val().to_u64(), n_sym as u64 - 1);
            let mask = ((s.mask_hi.val().to_u32() as u64) << 32) | s.mask_lo.val().to_u32() as u64;
            assert_eq!(mask, r.mask, "trial {trial}: mask");
            assert_eq!((s.w16_q.val(), s.wide_q.val()), (w16, !w16));
        }
    }
}
