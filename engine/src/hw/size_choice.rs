//! Stage 2's third cycle of the compressor lane: the four codes' sizes and the choice, registered
//! one cycle before the plane-queue load ([`super::choice_stage::ChoiceStage`]).
//!
//! From the three plane statistics' registered partial sums and top-plane lengths, in one cycle:
//! each plane code's size (its partial sums, its top plane and its header), the ZVC size, the
//! 10 pairwise compares in parallel and the one-hot winners (FORMAT.md §4.6: smallest wins, ties
//! to the lowest tag, raw only if strictly smaller than every code). The headers' sizes (ZVC
//! `N + n·w`, the ZBX mask, the DBX base-symbol code) depend only on stage 2's input flops, so
//! they are computed and registered here in the cycles before (these flops load every cycle, as
//! the plane statistics' do), and the sum starts from flops. The DBX base-symbol code itself
//! (the header bits the queue loads) is registered with its length.
//!
//! Every output is a flop: the sizes and winners are valid [`CHOICE_CYCLES`] cycles after stage
//! 2's input flops load, the base code and header sizes one cycle after.

use super::hdl_util::{arr, d};
use super::plane_stats::{PART_SUM_CYCLES, PART_SUMS};
use rust_hdl::prelude::*;

/// Payload bits of a raw block (and the bound a coded block must not exceed).
pub const RAW_BITS: u64 = 1024;
/// Cycles from the edge that loads stage 2's input flops to valid sizes and winners: the plane
/// statistics' partial sums, then this stage's register.
pub const CHOICE_CYCLES: u64 = PART_SUM_CYCLES + 1;
/// FORMAT.md §6 base-symbol codes, left-aligned: `001` + 4 bits, `010` + 8, `011` + 16, `1` + w.
const BASE4_CODE: u64 = 0b001 << 29;
/// See [`BASE4_CODE`].
const BASE8_CODE: u64 = 0b010 << 29;
/// See [`BASE4_CODE`].
const BASE16_CODE: u64 = 0b011 << 29;
/// See [`BASE4_CODE`].
const BASE_FULL_CODE: u64 = 1 << 31;
/// Bits of the base-symbol codes: zero `000`, 4-, 8-, 16-bit fields, the full 16- or 32-bit symbol.
const BASE_ZERO_BITS: u64 = 3;
/// See [`BASE_ZERO_BITS`].
const BASE4_BITS: u64 = 7;
/// See [`BASE_ZERO_BITS`].
const BASE8_BITS: u64 = 11;
/// See [`BASE_ZERO_BITS`].
const BASE16_BITS: u64 = 19;
/// See [`BASE_ZERO_BITS`].
const BASE_FULL_W16_BITS: u64 = 17;
/// See [`BASE_ZERO_BITS`].
const BASE_FULL_W32_BITS: u64 = 33;
/// Bits above a 4-, 8- and 16-bit signed field of a sign-extended 32-bit value (all equal ⇔ it fits).
const ABOVE4_MASK: u64 = 0xFFFF_FFF8;
/// See [`ABOVE4_MASK`].
const ABOVE8_MASK: u64 = 0xFFFF_FF80;
/// See [`ABOVE4_MASK`].
const ABOVE16_MASK: u64 = 0xFFFF_8000;
/// Symbols N of a block of 32-bit symbols: ZVC's mask and ZBX's header bits.
const SYMBOLS_W32: u64 = 32;
/// Symbols N of a block of 16-bit symbols.
const SYMBOLS_W16: u64 = 64;

hw_block! {
/// The sizes and the choice; see the module docs.
#[derive(LogicBlock)]
pub struct SizeChoice {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Stage 2: nonzero symbols n.
    pub nonzero: Signal<In, Bits<7>> = d(),
    /// Stage 2: 16-bit symbols.
    pub w16: Signal<In, Bit> = d(),
    /// Stage 2: the block's first symbol (the BX statistics' held value 0), DBX's base symbol.
    pub first_symbol: Signal<In, Bits<32>> = d(),
    /// DBX statistics: partial sums of the plane-code lengths.
    pub dbx_part: [Signal<In, Bits<11>>; PART_SUMS] = arr(),
    /// DBX statistics: code length of plane 32.
    pub dbx_top: Signal<In, Bits<11>> = d(),
    /// BX statistics: partial sums.
    pub bx_part: [Signal<In, Bits<11>>; PART_SUMS] = arr(),
    /// BX statistics: code length of plane 32.
    pub bx_top: Signal<In, Bits<11>> = d(),
    /// ZBX statistics: partial sums.
    pub zbx_part: [Signal<In, Bits<11>>; PART_SUMS] = arr(),
    /// ZBX statistics: code length of plane 32.
    pub zbx_top: Signal<In, Bits<11>> = d(),
    /// Payload bits of ZVC.
    pub size_zvc: Signal<Out, Bits<11>> = d(),
    /// Payload bits of DBX.
    pub size_dbx: Signal<Out, Bits<11>> = d(),
    /// Payload bits of BX.
    pub size_bx: Signal<Out, Bits<11>> = d(),
    /// Payload bits of ZBX.
    pub size_zbx: Signal<Out, Bits<11>> = d(),
    /// ZVC wins.
    pub win_zvc: Signal<Out, Bit> = d(),
    /// DBX wins.
    pub win_dbx: Signal<Out, Bit> = d(),
    /// BX wins.
    pub win_bx: Signal<Out, Bit> = d(),
    /// ZBX wins (none of the four: raw).
    pub win_zbx: Signal<Out, Bit> = d(),
    /// DBX's base-symbol code, left-aligned: its first 32 bits.
    pub base_hi: Signal<Out, Bits<32>> = d(),
    /// The base-symbol code's bit 32 (full 32-bit symbol) at bit 31.
    pub base_lo: Signal<Out, Bits<32>> = d(),
    /// Bits of the base-symbol code.
    pub base_len: Signal<Out, Bits<11>> = d(),
    zvc_r: DFF<Bits<11>> = d(),
    zbx_head_r: DFF<Bits<11>> = d(),
    zbx_planes_r: DFF<Bit> = d(),
    base_hi_r: DFF<Bits<32>> = d(),
    base_lo_r: DFF<Bits<32>> = d(),
    base_len_r: DFF<Bits<11>> = d(),
    size_zvc_r: DFF<Bits<11>> = d(),
    size_dbx_r: DFF<Bits<11>> = d(),
    size_bx_r: DFF<Bits<11>> = d(),
    size_zbx_r: DFF<Bits<11>> = d(),
    win_zvc_r: DFF<Bit> = d(),
    win_dbx_r: DFF<Bit> = d(),
    win_bx_r: DFF<Bit> = d(),
    win_zbx_r: DFF<Bit> = d(),
    raw_bits: Constant<Bits<11>> = Constant::new(RAW_BITS.into()),
    symbols_w32: Constant<Bits<11>> = Constant::new(SYMBOLS_W32.into()),
    symbols_w16: Constant<Bits<11>> = Constant::new(SYMBOLS_W16.into()),
    base4_code: Constant<Bits<32>> = Constant::new(BASE4_CODE.into()),
    base8_code: Constant<Bits<32>> = Constant::new(BASE8_CODE.into()),
    base16_code: Constant<Bits<32>> = Constant::new(BASE16_CODE.into()),
    base_full_code: Constant<Bits<32>> = Constant::new(BASE_FULL_CODE.into()),
    base_zero_bits: Constant<Bits<11>> = Constant::new(BASE_ZERO_BITS.into()),
    base4_bits: Constant<Bits<11>> = Constant::new(BASE4_BITS.into()),
    base8_bits: Constant<Bits<11>> = Constant::new(BASE8_BITS.into()),
    base16_bits: Constant<Bits<11>> = Constant::new(BASE16_BITS.into()),
    base_full_w16_bits: Constant<Bits<11>> = Constant::new(BASE_FULL_W16_BITS.into()),
    base_full_w32_bits: Constant<Bits<11>> = Constant::new(BASE_FULL_W32_BITS.into()),
    above4_mask: Constant<Bits<32>> = Constant::new(ABOVE4_MASK.into()),
    above8_mask: Constant<Bits<32>> = Constant::new(ABOVE8_MASK.into()),
    above16_mask: Constant<Bits<32>> = Constant::new(ABOVE16_MASK.into()),
    base_value: Signal<Local, Bits<32>> = d(),
    above4: Signal<Local, Bits<32>> = d(),
    above8: Signal<Local, Bits<32>> = d(),
    above16: Signal<Local, Bits<32>> = d(),
    fits4: Signal<Local, Bit> = d(),
    fits8: Signal<Local, Bit> = d(),
    fits16: Signal<Local, Bit> = d(),
    base_hi_l: Signal<Local, Bits<32>> = d(),
    base_lo_l: Signal<Local, Bits<32>> = d(),
    base_len_l: Signal<Local, Bits<11>> = d(),
    /// ZBX's partial sums, zero when the block has no nonzero symbol (ZBX is its mask alone).
    zbx_term: [Signal<Local, Bits<11>>; PART_SUMS] = arr(),
    zbx_top_term: Signal<Local, Bits<11>> = d(),
    s_dbx: Signal<Local, Bits<11>> = d(),
    s_bx: Signal<Local, Bits<11>> = d(),
    s_zbx: Signal<Local, Bits<11>> = d(),
    /// Pairwise compares `a ≤ b` (z = ZVC, d = DBX, b = BX, x = ZBX, r = raw).
    le_zd: Signal<Local, Bit> = d(),
    le_zb: Signal<Local, Bit> = d(),
    le_zx: Signal<Local, Bit> = d(),
    le_db: Signal<Local, Bit> = d(),
    le_dx: Signal<Local, Bit> = d(),
    le_bx: Signal<Local, Bit> = d(),
    le_zr: Signal<Local, Bit> = d(),
    le_dr: Signal<Local, Bit> = d(),
    le_br: Signal<Local, Bit> = d(),
    le_xr: Signal<Local, Bit> = d(),
}
}

impl Logic for SizeChoice {
    #[hdl_gen]
    fn update(&mut self) {
        // Every flop loads every cycle: while stage 2 holds a block, its inputs are stable.
        dff_setup!(
            self,
            clock,
            zvc_r,
            zbx_head_r,
            zbx_planes_r,
            base_hi_r,
            base_lo_r,
            base_len_r,
            size_zvc_r,
            size_dbx_r,
            size_bx_r,
            size_zbx_r,
            win_zvc_r,
            win_dbx_r,
            win_bx_r,
            win_zbx_r
        );
        // ---- header sizes from stage 2's input flops → registered
        self.zvc_r.d.next = self.symbols_w32.val() + (bit_cast::<11, 7>(self.nonzero.val()) << 5);
        self.zbx_head_r.d.next = self.symbols_w32.val();
        if self.w16.val() {
            self.zvc_r.d.next = self.symbols_w16.val() + (bit_cast::<11, 7>(self.nonzero.val()) << 4);
            self.zbx_head_r.d.next = self.symbols_w16.val();
        }
        self.zbx_planes_r.d.next = self.nonzero.val().any();
        // DBX base code: the first symbol, sign-extended; a field fits when the bits above it agree.
        self.base_value.next = self.first_symbol.val();
        if self.w16.val() & self.first_symbol.val().get_bit(15) {
            self.base_value.next = self.first_symbol.val() | 0xFFFF_0000_u64;
        }
        self.above4.next = self.base_value.val() & self.above4_mask.val();
        self.above8.next = self.base_value.val() & self.above8_mask.val();
        self.above16.next = self.base_value.val() & self.above16_mask.val();
        self.fits4.next = !self.above4.val().any() | (self.above4.val() == self.above4_mask.val());
        self.fits8.next = !self.above8.val().any() | (self.above8.val() == self.above8_mask.val());
        self.fits16.next =
            (!self.above16.val().any() | (self.above16.val() == self.above16_mask.val())) & !self.w16.val();
        self.base_hi_l.next = self.base_full_code.val() | (self.first_symbol.val() >> 1);
        self.base_lo_l.next = self.first_symbol.val() << 31;
        self.base_len_l.next = self.base_full_w32_bits.val();
        if self.w16.val() {
            self.base_hi_l.next = self.base_full_code.val() | (self.first_symbol.val() << 15);
            self.base_lo_l.next = bits::<32>(0);
            self.base_len_l.next = self.base_full_w16_bits.val();
        }
        if self.fits16.val() {
            self.base_hi_l.next = self.base16_code.val() | ((self.base_value.val() & 0xFFFF) << 13);
            self.base_lo_l.next = bits::<32>(0);
            self.base_len_l.next = self.base16_bits.val();
        }
        if self.fits8.val() {
            self.base_hi_l.next = self.base8_code.val() | ((self.base_value.val() & 0xFF) << 21);
            self.base_lo_l.next = bits::<32>(0);
            self.base_len_l.next = self.base8_bits.val();
        }
        if self.fits4.val() {
            self.base_hi_l.next = self.base4_code.val() | ((self.base_value.val() & 0xF) << 25);
            self.base_lo_l.next = bits::<32>(0);
            self.base_len_l.next = self.base4_bits.val();
        }
        if !self.base_value.val().any() {
            self.base_hi_l.next = bits::<32>(0);
            self.base_lo_l.next = bits::<32>(0);
            self.base_len_l.next = self.base_zero_bits.val();
        }
        self.base_hi_r.d.next = self.base_hi_l.val();
        self.base_lo_r.d.next = self.base_lo_l.val();
        self.base_len_r.d.next = self.base_len_l.val();

        // ---- sizes from flops: partial sums, top plane and header, summed as a tree
        for k in 0..4 {
            self.zbx_term[k].next = bits::<11>(0);
            if self.zbx_planes_r.q.val() {
                self.zbx_term[k].next = self.zbx_part[k].val();
            }
        }
        self.zbx_top_term.next = bits::<11>(0);
        if self.zbx_planes_r.q.val() {
            self.zbx_top_term.next = self.zbx_top.val();
        }
        self.s_dbx.next = ((self.dbx_part[0].val() + self.dbx_part[1].val())
            + (self.dbx_part[2].val() + self.dbx_part[3].val()))
            + (self.dbx_top.val() + self.base_len_r.q.val());
        self.s_bx.next = ((self.bx_part[0].val() + self.bx_part[1].val())
            + (self.bx_part[2].val() + self.bx_part[3].val()))
            + self.bx_top.val();
        self.s_zbx.next = ((self.zbx_term[0].val() + self.zbx_term[1].val())
            + (self.zbx_term[2].val() + self.zbx_term[3].val()))
            + (self.zbx_top_term.val() + self.zbx_head_r.q.val());
        // ---- the choice: all pairwise compares in parallel; a code wins when it is strictly
        // smaller than every code of a lower tag, no larger than every code of a higher tag, and
        // no larger than raw (this is the sequential tie-break of FORMAT.md §4.6, flattened).
        self.le_zd.next = self.zvc_r.q.val() <= self.s_dbx.val();
        self.le_zb.next = self.zvc_r.q.val() <= self.s_bx.val();
        self.le_zx.next = self.zvc_r.q.val() <= self.s_zbx.val();
        self.le_db.next = self.s_dbx.val() <= self.s_bx.val();
        self.le_dx.next = self.s_dbx.val() <= self.s_zbx.val();
        self.le_bx.next = self.s_bx.val() <= self.s_zbx.val();
        self.le_zr.next = self.zvc_r.q.val() <= self.raw_bits.val();
        self.le_dr.next = self.s_dbx.val() <= self.raw_bits.val();
        self.le_br.next = self.s_bx.val() <= self.raw_bits.val();
        self.le_xr.next = self.s_zbx.val() <= self.raw_bits.val();
        self.win_zvc_r.d.next = self.le_zd.val() & self.le_zb.val() & self.le_zx.val() & self.le_zr.val();
        self.win_dbx_r.d.next = !self.le_zd.val() & self.le_db.val() & self.le_dx.val() & self.le_dr.val();
        self.win_bx_r.d.next = !self.le_zb.val() & !self.le_db.val() & self.le_bx.val() & self.le_br.val();
        self.win_zbx_r.d.next = !self.le_zx.val() & !self.le_dx.val() & !self.le_bx.val() & self.le_xr.val();
        self.size_zvc_r.d.next = self.zvc_r.q.val();
        self.size_dbx_r.d.next = self.s_dbx.val();
        self.size_bx_r.d.next = self.s_bx.val();
        self.size_zbx_r.d.next = self.s_zbx.val();

        self.size_zvc.next = self.size_zvc_r.q.val();
        self.size_dbx.next = self.size_dbx_r.q.val();
        self.size_bx.next = self.size_bx_r.q.val();
        self.size_zbx.next = self.size_zbx_r.q.val();
        self.win_zvc.next = self.win_zvc_r.q.val();
        self.win_dbx.next = self.win_dbx_r.q.val();
        self.win_bx.next = self.win_bx_r.q.val();
        self.win_zbx.next = self.win_zbx_r.q.val();
        self.base_hi.next = self.base_hi_r.q.val();
        self.base_lo.next = self.base_lo_r.q.val();
        self.base_len.next = self.base_len_r.q.val();
    }
}
