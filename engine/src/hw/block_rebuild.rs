//! The decompressor lane's rebuild stage: one decoded block's fields (the pre-XOR planes, the
//! ZVC symbols or raw words, the nonzero mask, the DBX base) in, the block's 32 little-endian
//! words out (FORMAT.md §4–§5 inverted). Outside the decode loop: transpose of the planes into
//! values, DBX prefix sum with its range check, and the ZVC/ZBX expansion of the compacted
//! nonzeros to their mask positions.
//!
//! # A pipeline over a held item
//! `load` captures the item into input flops, which hold it until the next `load`; `age` counts
//! the cycles since (0 in the first cycle after the load edge). Every step below reads held or
//! registered values only and ends in flops, so no combinational path runs through the block and
//! no step holds more than two small adders or about a dozen gate levels; `ready` and
//! `delta_err` are flops too:
//!
//! - ZVC, BX, ZBX (words ready at age [`READY_AGE_CODED`]): cycle 0 counts the zeros of the mask
//!   in blocks of 8 (`zl_q`, `zt_q`); cycle 1 takes the prefix of the blocks' counts (`bp_q`);
//!   cycle 2 adds it, giving each slot's zeros before it, and runs the compaction network on
//!   those shifts (least significant bit first, collision-free), recording its per-level moves
//!   (`mv_lo_q`, `mv*_hi_q`); cycle 3 runs the moves backwards on the compacted
//!   symbols (most significant bit first), which places every nonzero at its mask position, and
//!   writes the words.
//! - The 16- and 32-bit additions and the range check's compares are Kogge–Stone (one adder
//!   level of Yosys `+` on 32 bits mapped here as a ripple of about 600 ps).
//! - DBX (words and range check ready at age [`READY_AGE_DBX`]): the deltas go through in four
//!   groups of 8 words (16 symbols of 16 bits or 8 of 32), one group per cycle: the group
//!   entering the prefix is selected a cycle ahead into `grp_q` (group 0 straight from the
//!   inputs with the load, so the base is not held), so level 1 reads flops, not a 4:1 select
//!   decoded from the age (633.9 ps with that select in front of level 1's adders, 601.9
//!   without, on ASAP7); one Sklansky prefix level per cycle (`p1_q`…`p4_q`), then the
//!   running offset of the earlier groups is added (a one-adder loop, `off_q`: per group one
//!   32-bit adder, cut at bit 16 into two 16-bit sums at 16-bit symbols, so no width mux
//!   follows it) and the group's sums registered
//!   (`gs_q`, so the words' write mux is off the adder's path: 691.3 ps with it, 624.7 without,
//!   601.8 with the single cut adder, on ASAP7), written as
//!   words a cycle later; a cycle after that its symbols are checked: the carry out of
//!   `s[k−1] + low(d[k])` is `s[k] < low(d[k])`, and it must equal the delta's borrow bit, else
//!   the symbol leaves `[0, 2^w)` (FORMAT.md §4.2).
//! - raw block and pass-through beat: the words load straight from `sym` with the item (ready at
//!   age 0).
//!
//! All arithmetic is on 16-bit slots ("halves"): word `k` is slots `2k` (low) and `2k + 1`;
//! a 32-bit symbol is two adjacent slots that share its mask bit, so one 64-slot network expands
//! both widths.

use super::{arr, constants, d};
use rust_hdl::prelude::*;

/// Kind of item the stage holds: the block tags of FORMAT.md §4 (0 ZVC, 1 DBX, 2 BX, 3 ZBX,
/// 4 raw block), and this pass-through value for one 32-byte beat of a raw chunk.
pub const KIND_PASS: u64 = 5;
/// Planes the stage stores: w + 1 = 33 for DBX with 32-bit symbols.
pub const PLANES: usize = 33;
/// Symbol slots of a block (64 for 16-bit symbols).
pub const SLOTS: usize = 64;
/// Age (cycles after the load edge) from which a ZVC, BX or ZBX block's words are valid.
pub const READY_AGE_CODED: u32 = 4;
/// Age from which a DBX block's words and range check are valid: four groups, each summed
/// after four prefix levels, registered, written a cycle later and checked one cycle after that
/// (the last group at age 9).
pub const READY_AGE_DBX: u32 = 10;
/// Age from which a raw block or pass-through beat is valid (its words load with the item).
pub const READY_AGE_RAW: u32 = 0;
/// Age at which the coded (ZVC, BX, ZBX) words are written.
const WRITE_AGE_CODED: usize = 3;
/// Age at which DBX group 0 leaves the last prefix level, gets the running offset added and its
/// sums registered (`gs_q`); group `g` at this + g.
const SUM_AGE_DBX: usize = 4;
/// Age at which DBX group 0's registered sums are written as words; group `g` at this + g.
const WRITE_AGE_DBX: usize = 5;
/// Age at which DBX group 0 is range-checked; group `g` at this + g.
const CHECK_AGE_DBX: usize = 6;
// The write follows the sum by a cycle, the check the write by a cycle, and the last of the four
// groups is checked one cycle before the ready age.
const _: () = assert!(
    WRITE_AGE_DBX == SUM_AGE_DBX + 1 && CHECK_AGE_DBX == WRITE_AGE_DBX + 1 && READY_AGE_DBX as usize == CHECK_AGE_DBX + 4
);
/// The age counter saturates here (above every ready age).
const AGE_MAX: u64 = 15;
/// Block tags (FORMAT.md §4) as the `kind` input carries them.
const KIND_ZVC: u64 = 0;
const KIND_DBX: u64 = 1;
const KIND_ZBX: u64 = 3;
/// First kind whose words load with the item (raw block, pass-through beat).
const KIND_RAW: u64 = 4;

hw_block! {
/// Rebuild stage; see the module docs.
#[derive(LogicBlock)]
pub struct BlockRebuild {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Capture every input at this clock edge.
    pub load: Signal<In, Bit> = d(),
    /// Item kind: block tag 0–4, or [`KIND_PASS`].
    pub kind: Signal<In, Bits<3>> = d(),
    /// 16-bit symbols; else 32-bit.
    pub w16: Signal<In, Bit> = d(),
    /// Pre-XOR plane `j`, values 0–31 in bits 31…0 (value 0 leftmost); planes above P zero.
    pub plane_hi: [Signal<In, Bits<32>>; PLANES] = arr(),
    /// Pre-XOR plane `j`, values 32–63 in bits 31…0.
    pub plane_lo: [Signal<In, Bits<32>>; PLANES] = arr(),
    /// ZVC: the nonzero symbols in order; raw block / pass: the little-endian words.
    pub sym: [Signal<In, Bits<32>>; SLOTS] = arr(),
    /// Nonzero mask of symbols 0–31, symbol 0 in bit 31.
    pub mask_hi: Signal<In, Bits<32>> = d(),
    /// Nonzero mask of symbols 32–63, symbol 32 in bit 31.
    pub mask_lo: Signal<In, Bits<32>> = d(),
    /// DBX base symbol `s[0]` (low w bits).
    pub base: Signal<In, Bits<32>> = d(),
    /// The held item's words and `delta_err` are valid (from age [`READY_AGE_RAW`],
    /// [`READY_AGE_CODED`] or [`READY_AGE_DBX`] by kind, until the next `load`).
    pub ready: Signal<Out, Bit> = d(),
    /// The rebuilt block (or the pass-through beat in words 0–7) as little-endian words.
    pub words: [Signal<Out, Bits<32>>; 32] = arr(),
    /// With `ready`: the held item is a DBX block with a delta that leaves `[0, 2^w)`.
    pub delta_err: Signal<Out, Bit> = d(),
    kind_q: DFF<Bits<3>> = d(),
    w16_q: DFF<Bit> = d(),
    hi_q: [DFF<Bits<32>>; PLANES] = arr(),
    lo_q: [DFF<Bits<32>>; PLANES] = arr(),
    sym_q: [DFF<Bits<32>>; SLOTS] = arr(),
    mask_hi_q: DFF<Bits<32>> = d(),
    mask_lo_q: DFF<Bits<32>> = d(),
    age_q: DFF<Bits<4>> = d(),
    /// Zeros of the mask before slot `8b + t` within its block of 8, at `7b + t − 1` (t ≥ 1).
    zl_q: [DFF<Bits<3>>; 56] = arr(),
    /// Zeros of the mask in each block of 8 slots but the last.
    zt_q: [DFF<Bits<4>>; 7] = arr(),
    /// Zeros of the mask before block `b + 1` (the prefix of `zt_q`).
    bp_q: [DFF<Bits<6>>; 7] = arr(),
    /// Compaction moves of level `b` into slots 0–31, bit `x`: the item at `x + 2^b` moved to
    /// `x`.
    mv_lo_q: [DFF<Bits<32>>; 6] = arr(),
    /// The moves of level `b` into slots 32–63 (bit `x − 32`; none into the top `2^b` slots,
    /// none at all at level 5).
    mv0_hi_q: DFF<Bits<31>> = d(),
    mv1_hi_q: DFF<Bits<30>> = d(),
    mv2_hi_q: DFF<Bits<28>> = d(),
    mv3_hi_q: DFF<Bits<24>> = d(),
    mv4_hi_q: DFF<Bits<16>> = d(),
    /// `ready` and `delta_err` for the next cycle.
    rdy_q: DFF<Bit> = d(),
    derr_q: DFF<Bit> = d(),
    /// DBX: the group entering prefix level 1 (group `age mod 4`), selected a cycle ahead
    /// (group 0 from the inputs with the load), 16 slots of 16 bits, a 32-bit symbol in two
    /// (low half first): level 1 then reads flops, not a 4:1 select decoded from the age.
    grp_q: [DFF<Bits<16>>; 16] = arr(),
    /// DBX group after prefix levels 1–4 (16 slots of 16 bits; a 32-bit symbol in two).
    p1_q: [DFF<Bits<16>>; 16] = arr(),
    p2_q: [DFF<Bits<16>>; 16] = arr(),
    p3_q: [DFF<Bits<16>>; 16] = arr(),
    p4_q: [DFF<Bits<16>>; 16] = arr(),
    /// DBX: the last symbol of the previous group.
    off_q: DFF<Bits<32>> = d(),
    err_q: DFF<Bit> = d(),
    /// This cycle writes the coded words; sums DBX group `g` (and moves the offset); writes DBX
    /// group `g`'s words; checks DBX group `g`.
    coded_wr_q: DFF<Bit> = d(),
    dbx_sum_q: [DFF<Bit>; 4] = arr(),
    dbx_wr_q: [DFF<Bit>; 4] = arr(),
    dbx_chk_q: [DFF<Bit>; 4] = arr(),
    /// DBX: the summed group's 8 words, written a cycle later (keeps the write mux off the
    /// offset adder's path).
    gs_q: [DFF<Bits<32>>; 8] = arr(),
    words_q: [DFF<Bits<32>>; 32] = arr(),
    /// Ages at which DBX group `g` is summed ([`SUM_AGE_DBX`] + g), written and checked.
    sum_age_group: [Constant<Bits<4>>; 4] = std::array::from_fn(|g| Constant::new(((SUM_AGE_DBX + g) as u64).into())),
    write_age_group: [Constant<Bits<4>>; 4] = std::array::from_fn(|g| Constant::new(((WRITE_AGE_DBX + g) as u64).into())),
    check_age_group: [Constant<Bits<4>>; 4] = std::array::from_fn(|g| Constant::new(((CHECK_AGE_DBX + g) as u64).into())),
    kind_zvc: Constant<Bits<3>> = Constant::new(KIND_ZVC.into()),
    kind_dbx: Constant<Bits<3>> = Constant::new(KIND_DBX.into()),
    kind_zbx: Constant<Bits<3>> = Constant::new(KIND_ZBX.into()),
    kind_raw: Constant<Bits<3>> = Constant::new(KIND_RAW.into()),
    /// Group indices 0–2, matched against the age to select the next DBX group (1–3) for `grp_q`.
    group_ix: [Constant<Bits<2>>; 3] = constants(1),
    age_max: Constant<Bits<4>> = Constant::new(AGE_MAX.into()),
    write_age_coded: Constant<Bits<4>> = Constant::new((WRITE_AGE_CODED as u64).into()),
    ready_age_coded: Constant<Bits<4>> = Constant::new(u64::from(READY_AGE_CODED).into()),
    ready_age_dbx: Constant<Bits<4>> = Constant::new(u64::from(READY_AGE_DBX).into()),
    vals: [Signal<Local, Bits<32>>; SLOTS] = arr(),
    nzh: [Signal<Local, Bit>; SLOTS] = arr(),
    // zero counts in blocks of 8: inclusive Sklansky levels
    c0: [Signal<Local, Bit>; 63] = arr(),
    c1: [Signal<Local, Bits<2>>; 63] = arr(),
    c2: [Signal<Local, Bits<3>>; 63] = arr(),
    c3: [Signal<Local, Bits<4>>; 63] = arr(),
    // block prefix of the zero counts
    t0: [Signal<Local, Bits<6>>; 7] = arr(),
    t1: [Signal<Local, Bits<6>>; 7] = arr(),
    t2: [Signal<Local, Bits<6>>; 7] = arr(),
    // compaction network: valid and shift of the item at each slot before level b
    fv1: [Signal<Local, Bit>; 62] = arr(),
    fv2: [Signal<Local, Bit>; 60] = arr(),
    fv3: [Signal<Local, Bit>; 56] = arr(),
    fv4: [Signal<Local, Bit>; 48] = arr(),
    fv5: [Signal<Local, Bit>; 32] = arr(),
    fz1: [Signal<Local, Bits<5>>; 62] = arr(),
    fz2: [Signal<Local, Bits<4>>; 60] = arr(),
    fz3: [Signal<Local, Bits<3>>; 56] = arr(),
    fz4: [Signal<Local, Bits<2>>; 48] = arr(),
    fz5: [Signal<Local, Bits<1>>; 32] = arr(),
    /// Zeros of the mask before slot `x` (its compaction shift), at `x − 1`.
    zz: [Signal<Local, Bits<6>>; 63] = arr(),
    mv: [Signal<Local, Bit>; SLOTS] = arr(),
    sel6: Signal<Local, Bits<6>> = d(),
    sel5: Signal<Local, Bits<5>> = d(),
    sel4: Signal<Local, Bits<4>> = d(),
    sel3: Signal<Local, Bits<3>> = d(),
    sel2: Signal<Local, Bits<2>> = d(),
    mv_lo: Signal<Local, Bits<32>> = d(),
    mvh31: Signal<Local, Bits<31>> = d(),
    mvh30: Signal<Local, Bits<30>> = d(),
    mvh28: Signal<Local, Bits<28>> = d(),
    mvh24: Signal<Local, Bits<24>> = d(),
    mvh16: Signal<Local, Bits<16>> = d(),
    // expansion network: the data after level b (ex6 = compacted input)
    ex6: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    ex5: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    ex4: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    ex3: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    ex2: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    ex1: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    ex0: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    bxh: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    hv: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    // DBX: the group selected for `grp_q` (element k of the prefix sum: 0 the base, k ≥ 1 the
    // delta's low bits)
    e16: [Signal<Local, Bits<16>>; 16] = arr(),
    e32: [Signal<Local, Bits<32>>; 8] = arr(),
    /// The loading item's values 0–14 (low halves) and 0–6 (whole), transposed from `plane_hi`
    /// like `vals`: with the base, its DBX group 0 at 16- and at 32-bit symbols.
    vin16: [Signal<Local, Bits<16>>; 15] = arr(),
    vin32: [Signal<Local, Bits<32>>; 7] = arr(),
    x16: [Signal<Local, Bits<16>>; 16] = arr(),
    x32: [Signal<Local, Bits<32>>; 8] = arr(),
    y16: [Signal<Local, Bits<16>>; 16] = arr(),
    y32: [Signal<Local, Bits<32>>; 8] = arr(),
    y1: [Signal<Local, Bits<16>>; 16] = arr(),
    y2: [Signal<Local, Bits<16>>; 16] = arr(),
    y3: [Signal<Local, Bits<16>>; 16] = arr(),
    y4: [Signal<Local, Bits<16>>; 16] = arr(),
    // Kogge–Stone adders (a batch of up to 8): operands, propagate and generate per level, sum
    ka: [Signal<Local, Bits<32>>; 8] = arr(),
    kb: [Signal<Local, Bits<32>>; 8] = arr(),
    kp0: [Signal<Local, Bits<32>>; 8] = arr(),
    kp1: [Signal<Local, Bits<32>>; 8] = arr(),
    kp2: [Signal<Local, Bits<32>>; 8] = arr(),
    kp3: [Signal<Local, Bits<32>>; 8] = arr(),
    kp4: [Signal<Local, Bits<32>>; 8] = arr(),
    kg0: [Signal<Local, Bits<32>>; 8] = arr(),
    kg1: [Signal<Local, Bits<32>>; 8] = arr(),
    kg2: [Signal<Local, Bits<32>>; 8] = arr(),
    kg3: [Signal<Local, Bits<32>>; 8] = arr(),
    kg4: [Signal<Local, Bits<32>>; 8] = arr(),
    kg5: [Signal<Local, Bits<32>>; 8] = arr(),
    ks: [Signal<Local, Bits<32>>; 8] = arr(),
    kc32: Signal<Local, Bits<32>> = d(),
    kc31: Signal<Local, Bits<31>> = d(),
    // Kogge–Stone adders of 16 bits (a batch of up to 16)
    ha: [Signal<Local, Bits<16>>; 16] = arr(),
    hb: [Signal<Local, Bits<16>>; 16] = arr(),
    hp0: [Signal<Local, Bits<16>>; 16] = arr(),
    hp1: [Signal<Local, Bits<16>>; 16] = arr(),
    hp2: [Signal<Local, Bits<16>>; 16] = arr(),
    hp3: [Signal<Local, Bits<16>>; 16] = arr(),
    hg0: [Signal<Local, Bits<16>>; 16] = arr(),
    hg1: [Signal<Local, Bits<16>>; 16] = arr(),
    hg2: [Signal<Local, Bits<16>>; 16] = arr(),
    hg3: [Signal<Local, Bits<16>>; 16] = arr(),
    hg4: [Signal<Local, Bits<16>>; 8] = arr(),
    /// The range check's carries out of bit 15 (only that bit of the last prefix level).
    hco: [Signal<Local, Bit>; 16] = arr(),
    hs: [Signal<Local, Bits<16>>; 8] = arr(),
    hc16: Signal<Local, Bits<16>> = d(),
    hc15: Signal<Local, Bits<15>> = d(),
    kx: [Signal<Local, Bits<32>>; 8] = arr(),
    kcut: Signal<Local, Bits<32>> = d(),
    /// The DBX group adders' generate/propagate mask: every bit at 32-bit symbols, all but bit 15 at 16-bit.
    k_cut32: Constant<Bits<32>> = Constant::new(0xFFFF_FFFFu64.into()),
    k_cut16: Constant<Bits<32>> = Constant::new(0xFFFF_7FFFu64.into()),
    // DBX range check: the checked group's words and the deltas' low bits and borrows
    cl16: [Signal<Local, Bits<16>>; SLOTS] = arr(),
    cb16: [Signal<Local, Bit>; SLOTS] = arr(),
    cl32: [Signal<Local, Bits<32>>; 32] = arr(),
    cb32: [Signal<Local, Bit>; 32] = arr(),
    kw: [Signal<Local, Bits<32>>; 8] = arr(),
    kl16: [Signal<Local, Bits<16>>; 16] = arr(),
    kb16: [Signal<Local, Bit>; 16] = arr(),
    kl32: [Signal<Local, Bits<32>>; 8] = arr(),
    kb32: [Signal<Local, Bit>; 8] = arr(),
    bad: Signal<Local, Bit> = d(),
    half_a: Signal<Local, Bits<16>> = d(),
    half_b: Signal<Local, Bits<16>> = d(),
    cnt4: Signal<Local, Bits<4>> = d(),
    cnt3: Signal<Local, Bits<3>> = d(),
    cnt3b: Signal<Local, Bits<3>> = d(),
    cnt2a: Signal<Local, Bits<2>> = d(),
    cnt2b: Signal<Local, Bits<2>> = d(),
    is_dbx: Signal<Local, Bit> = d(),
    is_expand: Signal<Local, Bit> = d(),
    age_n: Signal<Local, Bits<4>> = d(),
    kind_n: Signal<Local, Bits<3>> = d(),
    err_n: Signal<Local, Bit> = d(),
    ready_n: Signal<Local, Bit> = d(),
}
}

impl Logic for BlockRebuild {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, coded_wr_q, kind_q, w16_q, mask_hi_q, mask_lo_q, age_q, off_q, err_q, rdy_q, derr_q, mv0_hi_q, mv1_hi_q, mv2_hi_q, mv3_hi_q, mv4_hi_q);
        for j in 0..33 {
            self.hi_q[j].clock.next = self.clock.val();
            self.hi_q[j].d.next = self.hi_q[j].q.val();
            self.lo_q[j].clock.next = self.clock.val();
            self.lo_q[j].d.next = self.lo_q[j].q.val();
        }
        for i in 0..64 {
            self.sym_q[i].clock.next = self.clock.val();
            self.sym_q[i].d.next = self.sym_q[i].q.val();
        }
        for i in 0..56 {
            self.zl_q[i].clock.next = self.clock.val();
        }
        for b in 0..7 {
            self.zt_q[b].clock.next = self.clock.val();
            self.bp_q[b].clock.next = self.clock.val();
        }
        for b in 0..6 {
            self.mv_lo_q[b].clock.next = self.clock.val();
        }
        for g in 0..4 {
            self.dbx_sum_q[g].clock.next = self.clock.val();
            self.dbx_wr_q[g].clock.next = self.clock.val();
            self.dbx_chk_q[g].clock.next = self.clock.val();
        }
        for i in 0..16 {
            self.grp_q[i].clock.next = self.clock.val();
            self.p1_q[i].clock.next = self.clock.val();
            self.p2_q[i].clock.next = self.clock.val();
            self.p3_q[i].clock.next = self.clock.val();
            self.p4_q[i].clock.next = self.clock.val();
        }
        for j in 0..8 {
            self.gs_q[j].clock.next = self.clock.val();
        }
        for k in 0..32 {
            self.words_q[k].clock.next = self.clock.val();
            self.words_q[k].d.next = self.words_q[k].q.val();
        }
        self.is_dbx.next = self.kind_q.q.val() == self.kind_dbx.val();
        self.is_expand.next = (self.kind_q.q.val() == self.kind_zvc.val()) | (self.kind_q.q.val() == self.kind_zbx.val());

        // ---- the held item and its age
        self.age_n.next = self.age_q.q.val();
        if self.age_q.q.val() != self.age_max.val() {
            self.age_n.next = self.age_q.q.val() + 1;
        }
        self.kind_n.next = self.kind_q.q.val();
        if self.load.val() {
            self.age_n.next = bits::<4>(0);
            self.kind_n.next = self.kind.val();
        }
        self.age_q.d.next = self.age_n.val();
        // the steps' selects for the next cycle, registered (none decodes the age on a data path)
        self.coded_wr_q.d.next = (self.kind_n.val() < self.kind_raw.val())
            & (self.kind_n.val() != self.kind_dbx.val())
            & (self.age_n.val() == self.write_age_coded.val());
        for g in 0..4 {
            self.dbx_sum_q[g].d.next = (self.kind_n.val() == self.kind_dbx.val()) & (self.age_n.val() == self.sum_age_group[g].val());
            self.dbx_wr_q[g].d.next = (self.kind_n.val() == self.kind_dbx.val()) & (self.age_n.val() == self.write_age_group[g].val());
            self.dbx_chk_q[g].d.next = (self.kind_n.val() == self.kind_dbx.val()) & (self.age_n.val() == self.check_age_group[g].val());
        }
        self.kind_q.d.next = self.kind_n.val();
        if self.load.val() {
            self.w16_q.d.next = self.w16.val();
            self.mask_hi_q.d.next = self.mask_hi.val();
            self.mask_lo_q.d.next = self.mask_lo.val();
            for j in 0..33 {
                self.hi_q[j].d.next = self.plane_hi[j].val();
                self.lo_q[j].d.next = self.plane_lo[j].val();
            }
            for i in 0..64 {
                self.sym_q[i].d.next = self.sym[i].val();
            }
        }

        // ---- transpose (wiring): bit j of value m is bit 31 − m of plane j (hi, m < 32) or
        // bit 63 − m (lo, m ≥ 32); the 33rd plane (DBX borrow, 32-bit symbols) apart.
        for m in 0..32 {
            self.vals[m].next = bits::<32>(0);
            self.vals[m + 32].next = bits::<32>(0);
            for j in 0..32 {
                self.vals[m].next = self.vals[m].val().replace_bit(j, self.hi_q[j].q.val().get_bit(31 - m));
                self.vals[m + 32].next = self.vals[m + 32].val().replace_bit(j, self.lo_q[j].q.val().get_bit(31 - m));
            }
        }

        // ---- expansion, cycle 0: zeros of the mask per slot (a 32-bit symbol is slots 2i, 2i+1)
        for i in 0..32 {
            self.nzh[i].next = self.mask_hi_q.q.val().get_bit(31 - i);
            self.nzh[i + 32].next = self.mask_lo_q.q.val().get_bit(31 - i);
        }
        for i in 0..32 {
            if !self.w16_q.q.val() {
                self.nzh[2 * i].next = self.mask_hi_q.q.val().get_bit(31 - i);
                self.nzh[2 * i + 1].next = self.mask_hi_q.q.val().get_bit(31 - i);
            }
        }
        // (the last slot's own zero and the last block's total are never needed; each level's
        // counts as wide as they can grow: ≤ 2, ≤ 4, ≤ 8)
        for i in 0..63 {
            self.c0[i].next = !self.nzh[i].val();
        }
        for b in 0..31 {
            self.c1[2 * b].next = bits::<2>(0).replace_bit(0, self.c0[2 * b].val());
            self.c1[2 * b + 1].next = bits::<2>(0)
                .replace_bit(0, self.c0[2 * b + 1].val() ^ self.c0[2 * b].val())
                .replace_bit(1, self.c0[2 * b + 1].val() & self.c0[2 * b].val());
        }
        self.c1[62].next = bits::<2>(0).replace_bit(0, self.c0[62].val());
        for b in 0..16 {
            for t in 0..2 {
                self.cnt2a.next = self.c1[4 * b + t].val();
                self.c2[4 * b + t].next = bit_cast::<3, 2>(self.cnt2a.val());
            }
        }
        for b in 0..15 {
            for t in 0..2 {
                self.cnt2a.next = self.c1[4 * b + 2 + t].val();
                self.cnt2b.next = self.c1[4 * b + 1].val();
                self.c2[4 * b + 2 + t].next = bit_cast::<3, 2>(self.cnt2a.val()) + bit_cast::<3, 2>(self.cnt2b.val());
            }
        }
        self.c2[62].next = bit_cast::<3, 2>(self.c1[62].val()) + bit_cast::<3, 2>(self.c1[61].val());
        for b in 0..8 {
            for t in 0..4 {
                self.cnt3.next = self.c2[8 * b + t].val();
                self.c3[8 * b + t].next = bit_cast::<4, 3>(self.cnt3.val());
            }
        }
        for b in 0..7 {
            for t in 0..4 {
                self.cnt3.next = self.c2[8 * b + 4 + t].val();
                self.cnt3b.next = self.c2[8 * b + 3].val();
                self.c3[8 * b + 4 + t].next = bit_cast::<4, 3>(self.cnt3.val()) + bit_cast::<4, 3>(self.cnt3b.val());
            }
        }
        for t in 0..3 {
            self.cnt3.next = self.c2[60 + t].val();
            self.c3[60 + t].next = bit_cast::<4, 3>(self.cnt3.val()) + bit_cast::<4, 3>(self.c2[59].val());
        }
        for b in 0..8 {
            for t in 1..8 {
                self.cnt4.next = self.c3[8 * b + t - 1].val();
                self.zl_q[7 * b + t - 1].d.next = bit_cast::<3, 4>(self.cnt4.val());
            }
        }
        for b in 0..7 {
            self.zt_q[b].d.next = self.c3[8 * b + 7].val();
        }

        // ---- expansion, cycle 1: the prefix of the blocks' zero counts
        for b in 0..7 {
            self.cnt4.next = self.zt_q[b].q.val();
            self.t0[b].next = bit_cast::<6, 4>(self.cnt4.val());
        }
        for b in 0..3 {
            self.t1[2 * b].next = self.t0[2 * b].val();
            self.t1[2 * b + 1].next = self.t0[2 * b + 1].val() + self.t0[2 * b].val();
        }
        self.t1[6].next = self.t0[6].val();
        self.t2[0].next = self.t1[0].val();
        self.t2[1].next = self.t1[1].val();
        self.t2[2].next = self.t1[2].val() + self.t1[1].val();
        self.t2[3].next = self.t1[3].val() + self.t1[1].val();
        self.t2[4].next = self.t1[4].val();
        self.t2[5].next = self.t1[5].val();
        self.t2[6].next = self.t1[6].val() + self.t1[5].val();
        for t in 0..4 {
            self.bp_q[t].d.next = self.t2[t].val();
        }
        for t in 0..3 {
            self.bp_q[4 + t].d.next = self.t2[4 + t].val() + self.t2[3].val();
        }

        // ---- expansion, cycle 2: zeros before each slot (slot x's shift in zz[x − 1]; slot 0
        // never moves); bit b of the sum is needed at level b of the network that follows in the
        // same cycle, about when a ripple delivers it
        for t in 1..8 {
            self.cnt3.next = self.zl_q[t - 1].q.val();
            self.zz[t - 1].next = bit_cast::<6, 3>(self.cnt3.val());
        }
        for b in 1..8 {
            self.zz[8 * b - 1].next = self.bp_q[b - 1].q.val();
            for t in 1..8 {
                self.cnt3.next = self.zl_q[7 * b + t - 1].q.val();
                self.zz[8 * b + t - 1].next = self.bp_q[b - 1].q.val() + bit_cast::<6, 3>(self.cnt3.val());
            }
        }

        // ---- expansion, cycle 2 (continued): compaction network, least significant shift bit first: at
        // level b the item at slot x + 2^b moves to x if bit b of its shift is set. Level b keeps
        // the shift bits b… and only the slots ≥ 2^b (an item below can move no further); the
        // moves of each level are registered.
        for x in 0..63 {
            self.sel6.next = self.zz[x].val();
            self.mv[x].next = self.nzh[x + 1].val() & bit_cast::<1, 6>(self.sel6.val()).any();
        }
        for x in 63..64 {
            self.mv[x].next = false;
        }
        for x in 2..64 {
            self.sel6.next = self.zz[x - 1].val();
            self.fv1[x - 2].next = self.mv[x].val() | (self.nzh[x].val() & !bit_cast::<1, 6>(self.sel6.val()).any());
        }
        for x in 2..63 {
            self.sel6.next = self.zz[x - 1].val();
            if self.mv[x].val() {
                self.sel6.next = self.zz[x].val();
            }
            self.fz1[x - 2].next = bit_cast::<5, 6>(self.sel6.val() >> 1);
        }
        for x in 63..64 {
            self.sel6.next = self.zz[x - 1].val();
            self.fz1[x - 2].next = bit_cast::<5, 6>(self.sel6.val() >> 1);
        }
        self.mv_lo.next = bits::<32>(0);
        for x in 0..32 {
            self.mv_lo.next = self.mv_lo.val().replace_bit(x, self.mv[x].val());
        }
        self.mvh31.next = bits::<31>(0);
        for x in 0..31 {
            self.mvh31.next = self.mvh31.val().replace_bit(x, self.mv[x + 32].val());
        }
        self.mv_lo_q[0].d.next = self.mv_lo.val();
        self.mv0_hi_q.d.next = self.mvh31.val();
        for x in 0..62 {
            self.sel5.next = self.fz1[x + 2 - 2].val();
            self.mv[x].next = self.fv1[x + 2 - 2].val() & bit_cast::<1, 5>(self.sel5.val()).any();
        }
        for x in 62..64 {
            self.mv[x].next = false;
        }
        for x in 4..64 {
            self.sel5.next = self.fz1[x - 2].val();
            self.fv2[x - 4].next = self.mv[x].val() | (self.fv1[x - 2].val() & !bit_cast::<1, 5>(self.sel5.val()).any());
        }
        for x in 4..62 {
            self.sel5.next = self.fz1[x - 2].val();
            if self.mv[x].val() {
                self.sel5.next = self.fz1[x + 2 - 2].val();
            }
            self.fz2[x - 4].next = bit_cast::<4, 5>(self.sel5.val() >> 1);
        }
        for x in 62..64 {
            self.sel5.next = self.fz1[x - 2].val();
            self.fz2[x - 4].next = bit_cast::<4, 5>(self.sel5.val() >> 1);
        }
        self.mv_lo.next = bits::<32>(0);
        for x in 0..32 {
            self.mv_lo.next = self.mv_lo.val().replace_bit(x, self.mv[x].val());
        }
        self.mvh30.next = bits::<30>(0);
        for x in 0..30 {
            self.mvh30.next = self.mvh30.val().replace_bit(x, self.mv[x + 32].val());
        }
        self.mv_lo_q[1].d.next = self.mv_lo.val();
        self.mv1_hi_q.d.next = self.mvh30.val();
        for x in 0..60 {
            self.sel4.next = self.fz2[x + 4 - 4].val();
            self.mv[x].next = self.fv2[x + 4 - 4].val() & bit_cast::<1, 4>(self.sel4.val()).any();
        }
        for x in 60..64 {
            self.mv[x].next = false;
        }
        for x in 8..64 {
            self.sel4.next = self.fz2[x - 4].val();
            self.fv3[x - 8].next = self.mv[x].val() | (self.fv2[x - 4].val() & !bit_cast::<1, 4>(self.sel4.val()).any());
        }
        for x in 8..60 {
            self.sel4.next = self.fz2[x - 4].val();
            if self.mv[x].val() {
                self.sel4.next = self.fz2[x + 4 - 4].val();
            }
            self.fz3[x - 8].next = bit_cast::<3, 4>(self.sel4.val() >> 1);
        }
        for x in 60..64 {
            self.sel4.next = self.fz2[x - 4].val();
            self.fz3[x - 8].next = bit_cast::<3, 4>(self.sel4.val() >> 1);
        }
        self.mv_lo.next = bits::<32>(0);
        for x in 0..32 {
            self.mv_lo.next = self.mv_lo.val().replace_bit(x, self.mv[x].val());
        }
        self.mvh28.next = bits::<28>(0);
        for x in 0..28 {
            self.mvh28.next = self.mvh28.val().replace_bit(x, self.mv[x + 32].val());
        }
        self.mv_lo_q[2].d.next = self.mv_lo.val();
        self.mv2_hi_q.d.next = self.mvh28.val();
        for x in 0..56 {
            self.sel3.next = self.fz3[x + 8 - 8].val();
            self.mv[x].next = self.fv3[x + 8 - 8].val() & bit_cast::<1, 3>(self.sel3.val()).any();
        }
        for x in 56..64 {
            self.mv[x].next = false;
        }
        for x in 16..64 {
            self.sel3.next = self.fz3[x - 8].val();
            self.fv4[x - 16].next = self.mv[x].val() | (self.fv3[x - 8].val() & !bit_cast::<1, 3>(self.sel3.val()).any());
        }
        for x in 16..56 {
            self.sel3.next = self.fz3[x - 8].val();
            if self.mv[x].val() {
                self.sel3.next = self.fz3[x + 8 - 8].val();
            }
            self.fz4[x - 16].next = bit_cast::<2, 3>(self.sel3.val() >> 1);
        }
        for x in 56..64 {
            self.sel3.next = self.fz3[x - 8].val();
            self.fz4[x - 16].next = bit_cast::<2, 3>(self.sel3.val() >> 1);
        }
        self.mv_lo.next = bits::<32>(0);
        for x in 0..32 {
            self.mv_lo.next = self.mv_lo.val().replace_bit(x, self.mv[x].val());
        }
        self.mvh24.next = bits::<24>(0);
        for x in 0..24 {
            self.mvh24.next = self.mvh24.val().replace_bit(x, self.mv[x + 32].val());
        }
        self.mv_lo_q[3].d.next = self.mv_lo.val();
        self.mv3_hi_q.d.next = self.mvh24.val();
        for x in 0..48 {
            self.sel2.next = self.fz4[x + 16 - 16].val();
            self.mv[x].next = self.fv4[x + 16 - 16].val() & bit_cast::<1, 2>(self.sel2.val()).any();
        }
        for x in 48..64 {
            self.mv[x].next = false;
        }
        for x in 32..64 {
            self.sel2.next = self.fz4[x - 16].val();
            self.fv5[x - 32].next = self.mv[x].val() | (self.fv4[x - 16].val() & !bit_cast::<1, 2>(self.sel2.val()).any());
        }
        for x in 32..48 {
            self.sel2.next = self.fz4[x - 16].val();
            if self.mv[x].val() {
                self.sel2.next = self.fz4[x + 16 - 16].val();
            }
            self.fz5[x - 32].next = bit_cast::<1, 2>(self.sel2.val() >> 1);
        }
        for x in 48..64 {
            self.sel2.next = self.fz4[x - 16].val();
            self.fz5[x - 32].next = bit_cast::<1, 2>(self.sel2.val() >> 1);
        }
        self.mv_lo.next = bits::<32>(0);
        for x in 0..32 {
            self.mv_lo.next = self.mv_lo.val().replace_bit(x, self.mv[x].val());
        }
        self.mvh16.next = bits::<16>(0);
        for x in 0..16 {
            self.mvh16.next = self.mvh16.val().replace_bit(x, self.mv[x + 32].val());
        }
        self.mv_lo_q[4].d.next = self.mv_lo.val();
        self.mv4_hi_q.d.next = self.mvh16.val();
        self.mv_lo.next = bits::<32>(0);
        for x in 0..32 {
            self.mv_lo.next = self.mv_lo.val().replace_bit(x, self.fv5[x].val() & self.fz5[x].val().any());
        }
        self.mv_lo_q[5].d.next = self.mv_lo.val();

        // ---- expansion, cycle 3: the moves backwards on the compacted symbols
        for h in 0..32 {
            self.ex6[2 * h].next = self.vals[2 * h].val().get_bits::<16>(0);
            self.ex6[2 * h + 1].next = self.vals[2 * h + 1].val().get_bits::<16>(0);
            if self.kind_q.q.val() == self.kind_zvc.val() {
                self.ex6[2 * h].next = self.sym_q[2 * h].q.val().get_bits::<16>(0);
                self.ex6[2 * h + 1].next = self.sym_q[2 * h + 1].q.val().get_bits::<16>(0);
            }
            if !self.w16_q.q.val() {
                self.ex6[2 * h].next = self.vals[h].val().get_bits::<16>(0);
                self.ex6[2 * h + 1].next = self.vals[h].val().get_bits::<16>(16);
                if self.kind_q.q.val() == self.kind_zvc.val() {
                    self.ex6[2 * h].next = self.sym_q[h].q.val().get_bits::<16>(0);
                    self.ex6[2 * h + 1].next = self.sym_q[h].q.val().get_bits::<16>(16);
                }
            }
            self.bxh[2 * h].next = self.vals[2 * h].val().get_bits::<16>(0);
            self.bxh[2 * h + 1].next = self.vals[2 * h + 1].val().get_bits::<16>(0);
            if !self.w16_q.q.val() {
                self.bxh[2 * h].next = self.vals[h].val().get_bits::<16>(0);
                self.bxh[2 * h + 1].next = self.vals[h].val().get_bits::<16>(16);
            }
        }
        for q in 0..64 {
            self.ex5[q].next = self.ex6[q].val();
        }
        for q in 32..64 {
            if self.mv_lo_q[5].q.val().get_bit(q - 32) {
                self.ex5[q].next = self.ex6[q - 32].val();
            }
        }
        for q in 0..64 {
            self.ex4[q].next = self.ex5[q].val();
        }
        for q in 16..48 {
            if self.mv_lo_q[4].q.val().get_bit(q - 16) {
                self.ex4[q].next = self.ex5[q - 16].val();
            }
        }
        for q in 48..64 {
            if self.mv4_hi_q.q.val().get_bit(q - 48) {
                self.ex4[q].next = self.ex5[q - 16].val();
            }
        }
        for q in 0..64 {
            self.ex3[q].next = self.ex4[q].val();
        }
        for q in 8..40 {
            if self.mv_lo_q[3].q.val().get_bit(q - 8) {
                self.ex3[q].next = self.ex4[q - 8].val();
            }
        }
        for q in 40..64 {
            if self.mv3_hi_q.q.val().get_bit(q - 40) {
                self.ex3[q].next = self.ex4[q - 8].val();
            }
        }
        for q in 0..64 {
            self.ex2[q].next = self.ex3[q].val();
        }
        for q in 4..36 {
            if self.mv_lo_q[2].q.val().get_bit(q - 4) {
                self.ex2[q].next = self.ex3[q - 4].val();
            }
        }
        for q in 36..64 {
            if self.mv2_hi_q.q.val().get_bit(q - 36) {
                self.ex2[q].next = self.ex3[q - 4].val();
            }
        }
        for q in 0..64 {
            self.ex1[q].next = self.ex2[q].val();
        }
        for q in 2..34 {
            if self.mv_lo_q[1].q.val().get_bit(q - 2) {
                self.ex1[q].next = self.ex2[q - 2].val();
            }
        }
        for q in 34..64 {
            if self.mv1_hi_q.q.val().get_bit(q - 34) {
                self.ex1[q].next = self.ex2[q - 2].val();
            }
        }
        for q in 0..64 {
            self.ex0[q].next = self.ex1[q].val();
        }
        for q in 1..33 {
            if self.mv_lo_q[0].q.val().get_bit(q - 1) {
                self.ex0[q].next = self.ex1[q - 1].val();
            }
        }
        for q in 33..64 {
            if self.mv0_hi_q.q.val().get_bit(q - 33) {
                self.ex0[q].next = self.ex1[q - 1].val();
            }
        }
        for h in 0..64 {
            self.hv[h].next = self.bxh[h].val();
            if self.is_expand.val() {
                self.hv[h].next = bits::<16>(0);
                if self.nzh[h].val() {
                    self.hv[h].next = self.ex0[h].val();
                }
            }
        }

        // ---- DBX, the group for prefix level 1, registered a cycle ahead: group 0 of the
        // loading item (its base and values 0–14, straight from the inputs), else group
        // (age + 1) mod 4 of the held one (groups 1–3; after group 3 the level-1 results are
        // never summed, so zeros)
        for j in 0..16 {
            self.e16[j].next = bits::<16>(0);
        }
        for j in 0..8 {
            self.e32[j].next = bits::<32>(0);
        }
        for g in 1..4 {
            if self.age_q.q.val().get_bits::<2>(0) == self.group_ix[g - 1].val() {
                for j in 0..16 {
                    self.e16[j].next = self.vals[16 * g + j - 1].val().get_bits::<16>(0);
                }
                for j in 0..8 {
                    self.e32[j].next = self.vals[8 * g + j - 1].val();
                }
            }
        }
        for m in 0..15 {
            self.vin16[m].next = bits::<16>(0);
            for j in 0..16 {
                self.vin16[m].next = self.vin16[m].val().replace_bit(j, self.plane_hi[j].val().get_bit(31 - m));
            }
        }
        for m in 0..7 {
            self.vin32[m].next = bits::<32>(0);
            for j in 0..32 {
                self.vin32[m].next = self.vin32[m].val().replace_bit(j, self.plane_hi[j].val().get_bit(31 - m));
            }
        }
        if self.load.val() {
            self.e16[0].next = self.base.val().get_bits::<16>(0);
            self.e32[0].next = self.base.val();
            for j in 1..16 {
                self.e16[j].next = self.vin16[j - 1].val();
            }
            for j in 1..8 {
                self.e32[j].next = self.vin32[j - 1].val();
            }
        }
        for j in 0..8 {
            self.grp_q[2 * j].d.next = self.e32[j].val().get_bits::<16>(0);
            self.grp_q[2 * j + 1].d.next = self.e32[j].val().get_bits::<16>(16);
        }
        if (self.load.val() & self.w16.val()) | (!self.load.val() & self.w16_q.q.val()) {
            for j in 0..16 {
                self.grp_q[j].d.next = self.e16[j].val();
            }
        }

        // ---- DBX, the prefix: the registered group through four Sklansky levels, one per cycle
        for j in 0..16 {
            self.x16[j].next = self.grp_q[j].q.val();
        }
        for j in 0..8 {
            self.half_a.next = self.grp_q[2 * j + 1].q.val();
            self.half_b.next = self.grp_q[2 * j].q.val();
            self.x32[j].next = (bit_cast::<32, 16>(self.half_a.val()) << 16) | bit_cast::<32, 16>(self.half_b.val());
        }
        for b in 0..8 {
            for t in 0..1 {
                self.y16[2 * b + t].next = self.x16[2 * b + t].val();
                self.ha[1 * b + t].next = self.x16[2 * b + 1 + t].val();
                self.hb[1 * b + t].next = self.x16[2 * b + 0].val();
            }
        }
        for i in 0..8 {
            self.hp0[i].next = self.ha[i].val() ^ self.hb[i].val();
            self.hg0[i].next = self.ha[i].val() & self.hb[i].val();
            self.hg1[i].next = self.hg0[i].val() | (self.hp0[i].val() & (self.hg0[i].val() << 1));
            self.hp1[i].next = self.hp0[i].val() & (self.hp0[i].val() << 1);
            self.hg2[i].next = self.hg1[i].val() | (self.hp1[i].val() & (self.hg1[i].val() << 2));
            self.hp2[i].next = self.hp1[i].val() & (self.hp1[i].val() << 2);
            self.hg3[i].next = self.hg2[i].val() | (self.hp2[i].val() & (self.hg2[i].val() << 4));
            self.hp3[i].next = self.hp2[i].val() & (self.hp2[i].val() << 4);
            self.hg4[i].next = self.hg3[i].val() | (self.hp3[i].val() & (self.hg3[i].val() << 8));
            self.hc16.next = self.hg4[i].val();
            self.hc15.next = bit_cast::<15, 16>(self.hc16.val());
            self.hs[i].next = self.hp0[i].val() ^ (bit_cast::<16, 15>(self.hc15.val()) << 1);
        }
        for b in 0..8 {
            for t in 0..1 {
                self.y16[2 * b + 1 + t].next = self.hs[1 * b + t].val();
            }
        }
        for b in 0..4 {
            for t in 0..1 {
                self.y32[2 * b + t].next = self.x32[2 * b + t].val();
                self.ka[1 * b + t].next = self.x32[2 * b + 1 + t].val();
                self.kb[1 * b + t].next = self.x32[2 * b + 0].val();
            }
        }
        for i in 0..4 {
            self.kp0[i].next = self.ka[i].val() ^ self.kb[i].val();
            self.kg0[i].next = self.ka[i].val() & self.kb[i].val();
            self.kg1[i].next = self.kg0[i].val() | (self.kp0[i].val() & (self.kg0[i].val() << 1));
            self.kp1[i].next = self.kp0[i].val() & (self.kp0[i].val() << 1);
            self.kg2[i].next = self.kg1[i].val() | (self.kp1[i].val() & (self.kg1[i].val() << 2));
            self.kp2[i].next = self.kp1[i].val() & (self.kp1[i].val() << 2);
            self.kg3[i].next = self.kg2[i].val() | (self.kp2[i].val() & (self.kg2[i].val() << 4));
            self.kp3[i].next = self.kp2[i].val() & (self.kp2[i].val() << 4);
            self.kg4[i].next = self.kg3[i].val() | (self.kp3[i].val() & (self.kg3[i].val() << 8));
            self.kp4[i].next = self.kp3[i].val() & (self.kp3[i].val() << 8);
            self.kg5[i].next = self.kg4[i].val() | (self.kp4[i].val() & (self.kg4[i].val() << 16));
            // the carry into bit k + 1 is bit k of kg5; the carry out of bit 31 is dropped
            self.kc32.next = self.kg5[i].val();
            self.kc31.next = bit_cast::<31, 32>(self.kc32.val());
            self.ks[i].next = self.kp0[i].val() ^ (bit_cast::<32, 31>(self.kc31.val()) << 1);
        }
        for b in 0..4 {
            for t in 0..1 {
                self.y32[2 * b + 1 + t].next = self.ks[1 * b + t].val();
            }
        }
        for j in 0..8 {
            self.y1[2 * j].next = self.y32[j].val().get_bits::<16>(0);
            self.y1[2 * j + 1].next = self.y32[j].val().get_bits::<16>(16);
            if self.w16_q.q.val() {
                self.y1[2 * j].next = self.y16[2 * j].val();
                self.y1[2 * j + 1].next = self.y16[2 * j + 1].val();
            }
        }
        for j in 0..16 {
            self.p1_q[j].d.next = self.y1[j].val();
            self.x16[j].next = self.p1_q[j].q.val();
        }
        for j in 0..8 {
            self.half_a.next = self.p1_q[2 * j + 1].q.val();
            self.half_b.next = self.p1_q[2 * j].q.val();
            self.x32[j].next = (bit_cast::<32, 16>(self.half_a.val()) << 16) | bit_cast::<32, 16>(self.half_b.val());
        }
        for b in 0..4 {
            for t in 0..2 {
                self.y16[4 * b + t].next = self.x16[4 * b + t].val();
                self.ha[2 * b + t].next = self.x16[4 * b + 2 + t].val();
                self.hb[2 * b + t].next = self.x16[4 * b + 1].val();
            }
        }
        for i in 0..8 {
            self.hp0[i].next = self.ha[i].val() ^ self.hb[i].val();
            self.hg0[i].next = self.ha[i].val() & self.hb[i].val();
            self.hg1[i].next = self.hg0[i].val() | (self.hp0[i].val() & (self.hg0[i].val() << 1));
            self.hp1[i].next = self.hp0[i].val() & (self.hp0[i].val() << 1);
            self.hg2[i].next = self.hg1[i].val() | (self.hp1[i].val() & (self.hg1[i].val() << 2));
            self.hp2[i].next = self.hp1[i].val() & (self.hp1[i].val() << 2);
            self.hg3[i].next = self.hg2[i].val() | (self.hp2[i].val() & (self.hg2[i].val() << 4));
            self.hp3[i].next = self.hp2[i].val() & (self.hp2[i].val() << 4);
            self.hg4[i].next = self.hg3[i].val() | (self.hp3[i].val() & (self.hg3[i].val() << 8));
            self.hc16.next = self.hg4[i].val();
            self.hc15.next = bit_cast::<15, 16>(self.hc16.val());
            self.hs[i].next = self.hp0[i].val() ^ (bit_cast::<16, 15>(self.hc15.val()) << 1);
        }
        for b in 0..4 {
            for t in 0..2 {
                self.y16[4 * b + 2 + t].next = self.hs[2 * b + t].val();
            }
        }
        for b in 0..2 {
            for t in 0..2 {
                self.y32[4 * b + t].next = self.x32[4 * b + t].val();
                self.ka[2 * b + t].next = self.x32[4 * b + 2 + t].val();
                self.kb[2 * b + t].next = self.x32[4 * b + 1].val();
            }
        }
        for i in 0..4 {
            self.kp0[i].next = self.ka[i].val() ^ self.kb[i].val();
            self.kg0[i].next = self.ka[i].val() & self.kb[i].val();
            self.kg1[i].next = self.kg0[i].val() | (self.kp0[i].val() & (self.kg0[i].val() << 1));
            self.kp1[i].next = self.kp0[i].val() & (self.kp0[i].val() << 1);
            self.kg2[i].next = self.kg1[i].val() | (self.kp1[i].val() & (self.kg1[i].val() << 2));
            self.kp2[i].next = self.kp1[i].val() & (self.kp1[i].val() << 2);
            self.kg3[i].next = self.kg2[i].val() | (self.kp2[i].val() & (self.kg2[i].val() << 4));
            self.kp3[i].next = self.kp2[i].val() & (self.kp2[i].val() << 4);
            self.kg4[i].next = self.kg3[i].val() | (self.kp3[i].val() & (self.kg3[i].val() << 8));
            self.kp4[i].next = self.kp3[i].val() & (self.kp3[i].val() << 8);
            self.kg5[i].next = self.kg4[i].val() | (self.kp4[i].val() & (self.kg4[i].val() << 16));
            // the carry into bit k + 1 is bit k of kg5; the carry out of bit 31 is dropped
            self.kc32.next = self.kg5[i].val();
            self.kc31.next = bit_cast::<31, 32>(self.kc32.val());
            self.ks[i].next = self.kp0[i].val() ^ (bit_cast::<32, 31>(self.kc31.val()) << 1);
        }
        for b in 0..2 {
            for t in 0..2 {
                self.y32[4 * b + 2 + t].next = self.ks[2 * b + t].val();
            }
        }
        for j in 0..8 {
            self.y2[2 * j].next = self.y32[j].val().get_bits::<16>(0);
            self.y2[2 * j + 1].next = self.y32[j].val().get_bits::<16>(16);
            if self.w16_q.q.val() {
                self.y2[2 * j].next = self.y16[2 * j].val();
                self.y2[2 * j + 1].next = self.y16[2 * j + 1].val();
            }
        }
        for j in 0..16 {
            self.p2_q[j].d.next = self.y2[j].val();
            self.x16[j].next = self.p2_q[j].q.val();
        }
        for j in 0..8 {
            self.half_a.next = self.p2_q[2 * j + 1].q.val();
            self.half_b.next = self.p2_q[2 * j].q.val();
            self.x32[j].next = (bit_cast::<32, 16>(self.half_a.val()) << 16) | bit_cast::<32, 16>(self.half_b.val());
        }
        for b in 0..2 {
            for t in 0..4 {
                self.y16[8 * b + t].next = self.x16[8 * b + t].val();
                self.ha[4 * b + t].next = self.x16[8 * b + 4 + t].val();
                self.hb[4 * b + t].next = self.x16[8 * b + 3].val();
            }
        }
        for i in 0..8 {
            self.hp0[i].next = self.ha[i].val() ^ self.hb[i].val();
            self.hg0[i].next = self.ha[i].val() & self.hb[i].val();
            self.hg1[i].next = self.hg0[i].val() | (self.hp0[i].val() & (self.hg0[i].val() << 1));
            self.hp1[i].next = self.hp0[i].val() & (self.hp0[i].val() << 1);
            self.hg2[i].next = self.hg1[i].val() | (self.hp1[i].val() & (self.hg1[i].val() << 2));
            self.hp2[i].next = self.hp1[i].val() & (self.hp1[i].val() << 2);
            self.hg3[i].next = self.hg2[i].val() | (self.hp2[i].val() & (self.hg2[i].val() << 4));
            self.hp3[i].next = self.hp2[i].val() & (self.hp2[i].val() << 4);
            self.hg4[i].next = self.hg3[i].val() | (self.hp3[i].val() & (self.hg3[i].val() << 8));
            self.hc16.next = self.hg4[i].val();
            self.hc15.next = bit_cast::<15, 16>(self.hc16.val());
            self.hs[i].next = self.hp0[i].val() ^ (bit_cast::<16, 15>(self.hc15.val()) << 1);
        }
        for b in 0..2 {
            for t in 0..4 {
                self.y16[8 * b + 4 + t].next = self.hs[4 * b + t].val();
            }
        }
        for b in 0..1 {
            for t in 0..4 {
                self.y32[8 * b + t].next = self.x32[8 * b + t].val();
                self.ka[4 * b + t].next = self.x32[8 * b + 4 + t].val();
                self.kb[4 * b + t].next = self.x32[8 * b + 3].val();
            }
        }
        for i in 0..4 {
            self.kp0[i].next = self.ka[i].val() ^ self.kb[i].val();
            self.kg0[i].next = self.ka[i].val() & self.kb[i].val();
            self.kg1[i].next = self.kg0[i].val() | (self.kp0[i].val() & (self.kg0[i].val() << 1));
            self.kp1[i].next = self.kp0[i].val() & (self.kp0[i].val() << 1);
            self.kg2[i].next = self.kg1[i].val() | (self.kp1[i].val() & (self.kg1[i].val() << 2));
            self.kp2[i].next = self.kp1[i].val() & (self.kp1[i].val() << 2);
            self.kg3[i].next = self.kg2[i].val() | (self.kp2[i].val() & (self.kg2[i].val() << 4));
            self.kp3[i].next = self.kp2[i].val() & (self.kp2[i].val() << 4);
            self.kg4[i].next = self.kg3[i].val() | (self.kp3[i].val() & (self.kg3[i].val() << 8));
            self.kp4[i].next = self.kp3[i].val() & (self.kp3[i].val() << 8);
            self.kg5[i].next = self.kg4[i].val() | (self.kp4[i].val() & (self.kg4[i].val() << 16));
            // the carry into bit k + 1 is bit k of kg5; the carry out of bit 31 is dropped
            self.kc32.next = self.kg5[i].val();
            self.kc31.next = bit_cast::<31, 32>(self.kc32.val());
            self.ks[i].next = self.kp0[i].val() ^ (bit_cast::<32, 31>(self.kc31.val()) << 1);
        }
        for b in 0..1 {
            for t in 0..4 {
                self.y32[8 * b + 4 + t].next = self.ks[4 * b + t].val();
            }
        }
        for j in 0..8 {
            self.y3[2 * j].next = self.y32[j].val().get_bits::<16>(0);
            self.y3[2 * j + 1].next = self.y32[j].val().get_bits::<16>(16);
            if self.w16_q.q.val() {
                self.y3[2 * j].next = self.y16[2 * j].val();
                self.y3[2 * j + 1].next = self.y16[2 * j + 1].val();
            }
        }
        for j in 0..16 {
            self.p3_q[j].d.next = self.y3[j].val();
        }
        // level 4 exists for 16-bit symbols only (8 symbols of 32 bits need three)
        for j in 0..8 {
            self.ha[j].next = self.p3_q[8 + j].q.val();
            self.hb[j].next = self.p3_q[7].q.val();
        }
        for i in 0..8 {
            self.hp0[i].next = self.ha[i].val() ^ self.hb[i].val();
            self.hg0[i].next = self.ha[i].val() & self.hb[i].val();
            self.hg1[i].next = self.hg0[i].val() | (self.hp0[i].val() & (self.hg0[i].val() << 1));
            self.hp1[i].next = self.hp0[i].val() & (self.hp0[i].val() << 1);
            self.hg2[i].next = self.hg1[i].val() | (self.hp1[i].val() & (self.hg1[i].val() << 2));
            self.hp2[i].next = self.hp1[i].val() & (self.hp1[i].val() << 2);
            self.hg3[i].next = self.hg2[i].val() | (self.hp2[i].val() & (self.hg2[i].val() << 4));
            self.hp3[i].next = self.hp2[i].val() & (self.hp2[i].val() << 4);
            self.hg4[i].next = self.hg3[i].val() | (self.hp3[i].val() & (self.hg3[i].val() << 8));
            self.hc16.next = self.hg4[i].val();
            self.hc15.next = bit_cast::<15, 16>(self.hc16.val());
            self.hs[i].next = self.hp0[i].val() ^ (bit_cast::<16, 15>(self.hc15.val()) << 1);
        }
        for j in 0..8 {
            self.y4[j].next = self.p3_q[j].q.val();
            self.y4[8 + j].next = self.p3_q[8 + j].q.val();
            if self.w16_q.q.val() {
                self.y4[8 + j].next = self.hs[j].val();
            }
        }
        for j in 0..16 {
            self.p4_q[j].d.next = self.y4[j].val();
        }

        // ---- DBX, the running offset and the group's words: one 32-bit Kogge–Stone adder per
        // group, `off + (word 2j+1, word 2j)`. At 16-bit symbols the offset's low half stands in
        // both halves and bit 15 neither generates nor propagates (`kcut`), so the adder is two
        // 16-bit sums (no width mux after it).
        self.kcut.next = self.k_cut32.val();
        if self.w16_q.q.val() {
            self.kcut.next = self.k_cut16.val();
        }
        for j in 0..8 {
            self.half_a.next = self.p4_q[2 * j + 1].q.val();
            self.half_b.next = self.p4_q[2 * j].q.val();
            self.ka[j].next = self.off_q.q.val();
            if self.w16_q.q.val() {
                self.ka[j].next = (self.off_q.q.val() << 16) | (self.off_q.q.val() & 0xFFFF);
            }
            self.kb[j].next = (bit_cast::<32, 16>(self.half_a.val()) << 16) | bit_cast::<32, 16>(self.half_b.val());
        }
        for i in 0..8 {
            self.kx[i].next = self.ka[i].val() ^ self.kb[i].val();
            self.kp0[i].next = self.kx[i].val() & self.kcut.val();
            self.kg0[i].next = self.ka[i].val() & self.kb[i].val() & self.kcut.val();
            self.kg1[i].next = self.kg0[i].val() | (self.kp0[i].val() & (self.kg0[i].val() << 1));
            self.kp1[i].next = self.kp0[i].val() & (self.kp0[i].val() << 1);
            self.kg2[i].next = self.kg1[i].val() | (self.kp1[i].val() & (self.kg1[i].val() << 2));
            self.kp2[i].next = self.kp1[i].val() & (self.kp1[i].val() << 2);
            self.kg3[i].next = self.kg2[i].val() | (self.kp2[i].val() & (self.kg2[i].val() << 4));
            self.kp3[i].next = self.kp2[i].val() & (self.kp2[i].val() << 4);
            self.kg4[i].next = self.kg3[i].val() | (self.kp3[i].val() & (self.kg3[i].val() << 8));
            self.kp4[i].next = self.kp3[i].val() & (self.kp3[i].val() << 8);
            self.kg5[i].next = self.kg4[i].val() | (self.kp4[i].val() & (self.kg4[i].val() << 16));
            // the carry into bit k + 1 is bit k of kg5; the carry out of bit 31 is dropped
            self.kc32.next = self.kg5[i].val();
            self.kc31.next = bit_cast::<31, 32>(self.kc32.val());
            self.ks[i].next = self.kx[i].val() ^ (bit_cast::<32, 31>(self.kc31.val()) << 1);
        }
        // the group's sums, and the offset: 0 from the load, then each written group's last symbol
        for j in 0..8 {
            self.gs_q[j].d.next = self.ks[j].val();
        }
        if self.dbx_sum_q[0].q.val() | self.dbx_sum_q[1].q.val() | self.dbx_sum_q[2].q.val() | self.dbx_sum_q[3].q.val() {
            self.off_q.d.next = self.ks[7].val();
            if self.w16_q.q.val() {
                self.off_q.d.next = self.ks[7].val() >> 16;
            }
        }
        if self.load.val() {
            self.off_q.d.next = bits::<32>(0);
        }

        // ---- words: raw and pass-through with the item, coded at one age, DBX by group
        for k in 0..32 {
            if self.coded_wr_q.q.val() {
                self.half_a.next = self.hv[2 * k + 1].val();
                self.half_b.next = self.hv[2 * k].val();
                self.words_q[k].d.next = (bit_cast::<32, 16>(self.half_a.val()) << 16) | bit_cast::<32, 16>(self.half_b.val());
            }
            if self.dbx_wr_q[k / 8].q.val() {
                self.words_q[k].d.next = self.gs_q[k % 8].q.val();
            }
            if self.load.val() & (self.kind.val() >= self.kind_raw.val()) {
                self.words_q[k].d.next = self.sym[k].val();
            }
        }

        // ---- DBX, the range check of the group written a cycle earlier
        for k in 0..64 {
            self.cl16[k].next = bits::<16>(0);
            self.cb16[k].next = false;
        }
        for k in 1..64 {
            self.cl16[k].next = self.vals[k - 1].val().get_bits::<16>(0);
            self.cb16[k].next = self.vals[k - 1].val().get_bit(16);
        }
        self.cl32[0].next = bits::<32>(0);
        self.cb32[0].next = false;
        for k in 1..32 {
            self.cl32[k].next = self.vals[k - 1].val();
            self.cb32[k].next = self.hi_q[32].q.val().get_bit(32 - k);
        }
        for j in 0..8 {
            self.kw[j].next = bits::<32>(0);
            self.kl32[j].next = bits::<32>(0);
            self.kb32[j].next = false;
        }
        for j in 0..16 {
            self.kl16[j].next = bits::<16>(0);
            self.kb16[j].next = false;
        }
        for g in 0..4 {
            if self.dbx_chk_q[g].q.val() {
                for j in 0..8 {
                    self.kw[j].next = self.words_q[8 * g + j].q.val();
                    self.kl32[j].next = self.cl32[8 * g + j].val();
                    self.kb32[j].next = self.cb32[8 * g + j].val();
                }
                for j in 0..16 {
                    self.kl16[j].next = self.cl16[16 * g + j].val();
                    self.kb16[j].next = self.cb16[16 * g + j].val();
                }
            }
        }
        // s < low as the borrow of s − low: no carry out of s + ¬low + 1 (Kogge–Stone carry
        // trees, the carry-in folded into bit 0's generate)
        for j in 0..8 {
            self.ha[2 * j].next = self.kw[j].val().get_bits::<16>(0);
            self.hb[2 * j].next = !self.kl16[2 * j].val();
            self.ha[2 * j + 1].next = self.kw[j].val().get_bits::<16>(16);
            self.hb[2 * j + 1].next = !self.kl16[2 * j + 1].val();
            self.ka[j].next = self.kw[j].val();
            self.kb[j].next = !self.kl32[j].val();
        }
        for i in 0..16 {
            self.hp0[i].next = self.ha[i].val() ^ self.hb[i].val();
            self.hg0[i].next = (self.ha[i].val() & self.hb[i].val()) | (self.hp0[i].val() & 1);
            self.hg1[i].next = self.hg0[i].val() | (self.hp0[i].val() & (self.hg0[i].val() << 1));
            self.hp1[i].next = self.hp0[i].val() & (self.hp0[i].val() << 1);
            self.hg2[i].next = self.hg1[i].val() | (self.hp1[i].val() & (self.hg1[i].val() << 2));
            self.hp2[i].next = self.hp1[i].val() & (self.hp1[i].val() << 2);
            self.hg3[i].next = self.hg2[i].val() | (self.hp2[i].val() & (self.hg2[i].val() << 4));
            self.hp3[i].next = self.hp2[i].val() & (self.hp2[i].val() << 4);
            self.hc16.next = self.hg3[i].val() | (self.hp3[i].val() & (self.hg3[i].val() << 8));
            self.hco[i].next = self.hc16.val().get_bit(15);
        }
        for i in 0..8 {
            self.kp0[i].next = self.ka[i].val() ^ self.kb[i].val();
            self.kg0[i].next = (self.ka[i].val() & self.kb[i].val()) | (self.kp0[i].val() & 1);
            self.kg1[i].next = self.kg0[i].val() | (self.kp0[i].val() & (self.kg0[i].val() << 1));
            self.kp1[i].next = self.kp0[i].val() & (self.kp0[i].val() << 1);
            self.kg2[i].next = self.kg1[i].val() | (self.kp1[i].val() & (self.kg1[i].val() << 2));
            self.kp2[i].next = self.kp1[i].val() & (self.kp1[i].val() << 2);
            self.kg3[i].next = self.kg2[i].val() | (self.kp2[i].val() & (self.kg2[i].val() << 4));
            self.kp3[i].next = self.kp2[i].val() & (self.kp2[i].val() << 4);
            self.kg4[i].next = self.kg3[i].val() | (self.kp3[i].val() & (self.kg3[i].val() << 8));
            self.kp4[i].next = self.kp3[i].val() & (self.kp3[i].val() << 8);
            self.kg5[i].next = self.kg4[i].val() | (self.kp4[i].val() & (self.kg4[i].val() << 16));
        }
        self.bad.next = false;
        for j in 0..8 {
            if self.w16_q.q.val() {
                if !self.hco[2 * j].val() != self.kb16[2 * j].val() {
                    self.bad.next = true;
                }
                if !self.hco[2 * j + 1].val() != self.kb16[2 * j + 1].val() {
                    self.bad.next = true;
                }
            } else if !self.kg5[j].val().get_bit(31) != self.kb32[j].val() {
                self.bad.next = true;
            }
        }
        self.err_n.next = self.err_q.q.val() | (self.bad.val() & self.is_dbx.val());
        if self.load.val() {
            self.err_n.next = false;
        }
        self.err_q.d.next = self.err_n.val();

        // ---- outputs, registered: next cycle's readiness from next cycle's kind and age
        self.ready_n.next = self.kind_n.val() >= self.kind_raw.val();
        if (self.kind_n.val() < self.kind_raw.val()) & (self.kind_n.val() != self.kind_dbx.val()) & (self.age_n.val() >= self.ready_age_coded.val()) {
            self.ready_n.next = true;
        }
        if (self.kind_n.val() == self.kind_dbx.val()) & (self.age_n.val() >= self.ready_age_dbx.val()) {
            self.ready_n.next = true;
        }
        self.rdy_q.d.next = self.ready_n.val();
        self.derr_q.d.next = self.err_n.val() & (self.kind_n.val() == self.kind_dbx.val()) & self.ready_n.val();
        self.ready.next = self.rdy_q.q.val();
        self.delta_err.next = self.derr_q.q.val();
        for k in 0..32 {
            self.words[k].next = self.words_q[k].q.val();
        }
    }
}
