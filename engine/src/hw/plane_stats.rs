//! Plane statistics of one value sequence: the pattern logic every plane code (DBX, BX, ZBX)
//! needs to classify its bit-planes and count its exact size, without transposing
//! (the bit-parallel form of [`crate::golden::size`]).
//!
//! For values `x[m]`, the XORed plane `j` is bit `j` of `y[m] = x[m] ^ (x[m] >> 1)`. OR, AND,
//! saturating count (≥ 1, ≥ 2, ≥ 3) and adjacent pairs of the `y[m]` classify all planes at once
//! (FORMAT.md §5). Planes 0–31 travel in 32-bit words (bit `j` = plane `j`); plane 32, which only
//! DBX of 32-bit symbols has (the borrow plane), travels in separate `*_top` bits. Values 32–63
//! exist only for 16-bit symbols, so they are 17 bits wide (`x_lo`, `y_lo`).
//!
//! # Pipeline (for 1.5 GHz; [`PART_SUM_CYCLES`] registers after the inputs)
//! * inputs — flop outputs of the lane's [`super::symbol_stage::SymbolStage`], which holds the
//!   block through stage 2 — → **reduction tree**: the 64 values are merged pairwise in six
//!   levels (the statistics merge associatively, as `golden::size` merges its even and odd
//!   counts), then the plane classes → class flops (`*_r`).
//! * class flops → one-hot per-plane code length (classes are exclusive) → adder tree levels 1–3
//!   (32 planes → 4 sums of 8) → partial-sum flops.
//!
//! The partial sums and the top plane's length are the outputs: the lane's
//! [`super::size_choice::SizeChoice`] adds them with the code's header and compares the codes in
//! the next cycle. Every flop loads every cycle (no enable): while the inputs hold a block, the
//! classes and the position-field width are valid one cycle after the edge that loaded them and
//! the partial sums [`PART_SUM_CYCLES`] after. The inputs come straight from flops and every
//! output is a flop output, so a per-module timing check covers every path through the block.

use super::hdl_util::{arr, d};
use rust_hdl::prelude::*;

/// Values a plane sequence can hold: N = 64 for 16-bit symbols.
pub const MAX_VALUES: usize = 64;
/// Values that can be 32 (or 33) bits wide: N = 32 for 32-bit symbols.
pub const WIDE_VALUES: usize = 32;
/// Cycles from the edge that loads the inputs (in the symbol stage) to valid `part_bits` (classes: 1 cycle).
pub const PART_SUM_CYCLES: u64 = 2;
/// Partial sums of the plane-code lengths: 8 planes each.
pub const PART_SUMS: usize = 4;

/// Prefix-code lengths of FORMAT.md §5.3 that do not depend on the geometry.
/// Single zero plane `001`.
const SINGLE_ZERO_BITS: u64 = 3;
/// All-ones `00000` and DBP-zero `00001` planes.
const FIXED_CODE_BITS: u64 = 5;
/// Prefix of the one-one/two-ones codes, before the position field.
const POSITION_PREFIX_BITS: u64 = 5;
/// Prefix of the zero-run code `01`, before the run field.
const RUN_PREFIX_BITS: u64 = 2;
/// Run field `R` of 32-bit (33/32 planes) and 16-bit (17/16 planes) symbols.
const RUN_FIELD_W32: u64 = 5;
/// See [`RUN_FIELD_W32`].
const RUN_FIELD_W16: u64 = 4;

hw_block! {
/// Pipelined plane classifier and size counter for one code (see the module docs).
#[derive(LogicBlock)]
pub struct PlaneStats {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Pre-XOR values `x[m]`, m < 32, planes 0–31; values at `m ≥ count` must be zero.
    pub x: [Signal<In, Bits<32>>; WIDE_VALUES] = arr(),
    /// Values `x[32 + m]` (16-bit symbols only: at most 17 bits).
    pub x_lo: [Signal<In, Bits<17>>; WIDE_VALUES] = arr(),
    /// Plane 32 of `x[m]` (the DBX borrow of 32-bit symbols; zero otherwise).
    pub x_top: [Signal<In, Bit>; WIDE_VALUES] = arr(),
    /// `valid[m]` ⇔ `m < count`: which values take part in the all-ones test.
    pub valid: [Signal<In, Bit>; MAX_VALUES] = arr(),
    /// Plane length `L` in bits: the number of values (0–64).
    pub count: Signal<In, Bits<7>> = d(),
    /// 32-bit symbols: 32 (BX/ZBX) or 33 (DBX) planes, else 16 or 17.
    pub wide: Signal<In, Bit> = d(),
    /// One plane more than the symbol width (DBX's delta borrow plane).
    pub extra: Signal<In, Bit> = d(),
    /// Planes coded as a single zero plane (`001`), bit `j` = plane `j`.
    pub single_zero: Signal<Out, Bits<32>> = d(),
    /// Plane 32 of [`Self::single_zero`].
    pub single_zero_top: Signal<Out, Bit> = d(),
    /// Topmost plane of a run of ≥ 2 zero planes (`01` + run length); the rest of the run is empty.
    pub run_start: Signal<Out, Bits<32>> = d(),
    /// Plane 32 of [`Self::run_start`].
    pub run_start_top: Signal<Out, Bit> = d(),
    /// Every zero plane (run members included).
    pub zero: Signal<Out, Bits<32>> = d(),
    /// Plane 32 of [`Self::zero`].
    pub zero_top: Signal<Out, Bit> = d(),
    /// All-ones XORed planes (`00000`).
    pub all_ones: Signal<Out, Bits<32>> = d(),
    /// Plane 32 of [`Self::all_ones`].
    pub all_ones_top: Signal<Out, Bit> = d(),
    /// Nonzero XORed plane whose pre-XOR plane is zero (`00001`).
    pub dbp_zero: Signal<Out, Bits<32>> = d(),
    /// Plane 32 of [`Self::dbp_zero`].
    pub dbp_zero_top: Signal<Out, Bit> = d(),
    /// Two adjacent ones (`00010` + position).
    pub two_ones: Signal<Out, Bits<32>> = d(),
    /// Plane 32 of [`Self::two_ones`].
    pub two_ones_top: Signal<Out, Bit> = d(),
    /// A single one (`00011` + position).
    pub one_one: Signal<Out, Bits<32>> = d(),
    /// Plane 32 of [`Self::one_one`].
    pub one_one_top: Signal<Out, Bit> = d(),
    /// Verbatim planes (`1` + the L plane bits).
    pub verbatim: Signal<Out, Bits<32>> = d(),
    /// Plane 32 of [`Self::verbatim`].
    pub verbatim_top: Signal<Out, Bit> = d(),
    /// Width of the position field, ⌈log2 L⌉ bits.
    pub pos_field_bits: Signal<Out, Bits<3>> = d(),
    /// Code lengths of planes `8k … 8k+7` summed (k < [`PART_SUMS`]), registered: with
    /// [`Self::top_bits`], the code's size without its header.
    pub part_bits: [Signal<Out, Bits<11>>; PART_SUMS] = arr(),
    /// Code length of plane 32, registered with the partial sums.
    pub top_bits: Signal<Out, Bits<11>> = d(),
    // Class flops (pipeline register 1).
    zero_r: DFF<Bits<32>> = d(),
    zero_top_r: DFF<Bit> = d(),
    single_r: DFF<Bits<32>> = d(),
    single_top_r: DFF<Bit> = d(),
    run_r: DFF<Bits<32>> = d(),
    run_top_r: DFF<Bit> = d(),
    ones_r: DFF<Bits<32>> = d(),
    ones_top_r: DFF<Bit> = d(),
    dbpz_r: DFF<Bits<32>> = d(),
    dbpz_top_r: DFF<Bit> = d(),
    two_r: DFF<Bits<32>> = d(),
    two_top_r: DFF<Bit> = d(),
    one_r: DFF<Bits<32>> = d(),
    one_top_r: DFF<Bit> = d(),
    verb_r: DFF<Bits<32>> = d(),
    verb_top_r: DFF<Bit> = d(),
    // Partial sums (pipeline register 2).
    part_r: [DFF<Bits<11>>; PART_SUMS] = arr(),
    top_cost_r: DFF<Bits<11>> = d(),
    /// Position-field width, registered from the count (valid with the classes).
    pos_field_r: DFF<Bits<3>> = d(),
    /// Position- and verbatim-code lengths, registered from the count like `pos_field_r`, so
    /// that the partial sums' cycle starts from flops (the count is an input port).
    pos_cost_r: DFF<Bits<11>> = d(),
    verbatim_cost_r: DFF<Bits<11>> = d(),
    // Code lengths of FORMAT.md §5.3 (named constants become Verilog localparams).
    single_zero_bits: Constant<Bits<11>> = Constant::new(SINGLE_ZERO_BITS.into()),
    fixed_code_bits: Constant<Bits<11>> = Constant::new(FIXED_CODE_BITS.into()),
    position_prefix_bits: Constant<Bits<11>> = Constant::new(POSITION_PREFIX_BITS.into()),
    run_code_w32: Constant<Bits<11>> = Constant::new((RUN_PREFIX_BITS + RUN_FIELD_W32).into()),
    run_code_w16: Constant<Bits<11>> = Constant::new((RUN_PREFIX_BITS + RUN_FIELD_W16).into()),
    // Leaves: values as 32-bit words and their XORed form.
    xv: [Signal<Local, Bits<32>>; MAX_VALUES] = arr(),
    narrow_t: Signal<Local, Bits<17>> = d(),
    yv: [Signal<Local, Bits<32>>; MAX_VALUES] = arr(),
    // Reduction tree, level k has 64 / 2^k nodes: saturating counts, OR of x, AND of the valid
    // y, adjacent pairs (each pair of neighbours is counted in the level-1 node of its later value).
    one1: [Signal<Local, Bits<32>>; 32] = arr(),
    two1: [Signal<Local, Bits<32>>; 32] = arr(),
    orx1: [Signal<Local, Bits<32>>; 32] = arr(),
    andy1: [Signal<Local, Bits<32>>; 32] = arr(),
    adj1: [Signal<Local, Bits<32>>; 32] = arr(),
    one2: [Signal<Local, Bits<32>>; 16] = arr(),
    two2: [Signal<Local, Bits<32>>; 16] = arr(),
    three2: [Signal<Local, Bits<32>>; 16] = arr(),
    orx2: [Signal<Local, Bits<32>>; 16] = arr(),
    andy2: [Signal<Local, Bits<32>>; 16] = arr(),
    adj2: [Signal<Local, Bits<32>>; 16] = arr(),
    one3: [Signal<Local, Bits<32>>; 8] = arr(),
    two3: [Signal<Local, Bits<32>>; 8] = arr(),
    three3: [Signal<Local, Bits<32>>; 8] = arr(),
    orx3: [Signal<Local, Bits<32>>; 8] = arr(),
    andy3: [Signal<Local, Bits<32>>; 8] = arr(),
    adj3: [Signal<Local, Bits<32>>; 8] = arr(),
    one4: [Signal<Local, Bits<32>>; 4] = arr(),
    two4: [Signal<Local, Bits<32>>; 4] = arr(),
    three4: [Signal<Local, Bits<32>>; 4] = arr(),
    orx4: [Signal<Local, Bits<32>>; 4] = arr(),
    andy4: [Signal<Local, Bits<32>>; 4] = arr(),
    adj4: [Signal<Local, Bits<32>>; 4] = arr(),
    one5: [Signal<Local, Bits<32>>; 2] = arr(),
    two5: [Signal<Local, Bits<32>>; 2] = arr(),
    three5: [Signal<Local, Bits<32>>; 2] = arr(),
    orx5: [Signal<Local, Bits<32>>; 2] = arr(),
    andy5: [Signal<Local, Bits<32>>; 2] = arr(),
    adj5: [Signal<Local, Bits<32>>; 2] = arr(),
    seen1: Signal<Local, Bits<32>> = d(),
    seen2: Signal<Local, Bits<32>> = d(),
    seen3: Signal<Local, Bits<32>> = d(),
    or_x: Signal<Local, Bits<32>> = d(),
    and_y: Signal<Local, Bits<32>> = d(),
    adjacent: Signal<Local, Bits<32>> = d(),
    // Plane 32: values 0–31 only (tree over 32 leaves), level k has 32 / 2^k nodes.
    t_one1: [Signal<Local, Bit>; 16] = arr(),
    t_two1: [Signal<Local, Bit>; 16] = arr(),
    t_andy1: [Signal<Local, Bit>; 16] = arr(),
    t_adj1: [Signal<Local, Bit>; 16] = arr(),
    t_one2: [Signal<Local, Bit>; 8] = arr(),
    t_two2: [Signal<Local, Bit>; 8] = arr(),
    t_three2: [Signal<Local, Bit>; 8] = arr(),
    t_andy2: [Signal<Local, Bit>; 8] = arr(),
    t_adj2: [Signal<Local, Bit>; 8] = arr(),
    t_one3: [Signal<Local, Bit>; 4] = arr(),
    t_two3: [Signal<Local, Bit>; 4] = arr(),
    t_three3: [Signal<Local, Bit>; 4] = arr(),
    t_andy3: [Signal<Local, Bit>; 4] = arr(),
    t_adj3: [Signal<Local, Bit>; 4] = arr(),
    t_one4: [Signal<Local, Bit>; 2] = arr(),
    t_two4: [Signal<Local, Bit>; 2] = arr(),
    t_three4: [Signal<Local, Bit>; 2] = arr(),
    t_andy4: [Signal<Local, Bit>; 2] = arr(),
    t_adj4: [Signal<Local, Bit>; 2] = arr(),
    t_andy_leaf: [Signal<Local, Bit>; WIDE_VALUES] = arr(),
    lo_valid: Signal<Local, Bit> = d(),
    seen1_top: Signal<Local, Bit> = d(),
    seen2_top: Signal<Local, Bit> = d(),
    seen3_top: Signal<Local, Bit> = d(),
    and_y_top: Signal<Local, Bit> = d(),
    adjacent_top: Signal<Local, Bit> = d(),
    plane_valid: Signal<Local, Bits<32>> = d(),
    plane_valid_top: Signal<Local, Bit> = d(),
    zero_l: Signal<Local, Bits<32>> = d(),
    zero_top_l: Signal<Local, Bit> = d(),
    ones_l: Signal<Local, Bits<32>> = d(),
    ones_top_l: Signal<Local, Bit> = d(),
    dbpz_l: Signal<Local, Bits<32>> = d(),
    dbpz_top_l: Signal<Local, Bit> = d(),
    rest: Signal<Local, Bits<32>> = d(),
    rest_top: Signal<Local, Bit> = d(),
    one_l: Signal<Local, Bits<32>> = d(),
    one_top_l: Signal<Local, Bit> = d(),
    two_l: Signal<Local, Bits<32>> = d(),
    two_top_l: Signal<Local, Bit> = d(),
    zero_above: Signal<Local, Bits<32>> = d(),
    zero_below: Signal<Local, Bits<32>> = d(),
    run_cost: Signal<Local, Bits<11>> = d(),
    /// `pos_field_bits` while its priority chain is evaluated (the port is written once).
    pos_field_l: Signal<Local, Bits<3>> = d(),
    pos_cost: Signal<Local, Bits<11>> = d(),
    verbatim_cost: Signal<Local, Bits<11>> = d(),
    // Adder tree of the per-plane code lengths.
    cost: [Signal<Local, Bits<11>>; 32] = arr(),
    top_cost: Signal<Local, Bits<11>> = d(),
    sum1: [Signal<Local, Bits<11>>; 16] = arr(),
    sum2: [Signal<Local, Bits<11>>; 8] = arr(),
}
}

impl Logic for PlaneStats {
    #[hdl_gen]
    fn update(&mut self) {
        // The pipeline flops load every cycle (the inputs are the lane's stage-2 register).
        dff_setup!(
            self, clock, zero_r, zero_top_r, single_r, single_top_r, run_r, run_top_r, ones_r, ones_top_r, dbpz_r,
            dbpz_top_r, two_r, two_top_r, one_r, one_top_r, verb_r, verb_top_r, top_cost_r, pos_field_r, pos_cost_r, verbatim_cost_r
        );
        for k in 0..4 {
            self.part_r[k].clock.next = self.clock.val();
        }

        // ---- leaves: y[m] = x[m] ^ (x[m] >> 1), with plane 32 above bit 31 of the wide values
        for m in 0..32 {
            self.xv[m].next = self.x[m].val();
            self.yv[m].next = (self.x[m].val() ^ (self.x[m].val() >> 1))
                .replace_bit(31, self.x[m].val().get_bit(31) ^ self.x_top[m].val());
            // (`bit_cast` of an indexed signal does not export: go through a scalar local.)
            self.narrow_t.next = self.x_lo[m].val();
            self.xv[m + 32].next = bit_cast::<32, 17>(self.narrow_t.val());
            self.yv[m + 32].next = self.xv[m + 32].val() ^ (self.xv[m + 32].val() >> 1);
        }

        // ---- reduction tree, level 1 from the leaves (two values: counts ≥ 1 and ≥ 2)
        for i in 0..32 {
            self.one1[i].next = self.yv[2 * i].val() | self.yv[2 * i + 1].val();
            self.two1[i].next = self.yv[2 * i].val() & self.yv[2 * i + 1].val();
            self.orx1[i].next = self.xv[2 * i].val() | self.xv[2 * i + 1].val();
            self.andy1[i].next = bits::<32>(0xFFFF_FFFF_u64);
            if self.valid[2 * i].val() {
                self.andy1[i].next = self.yv[2 * i].val();
            }
            if self.valid[2 * i + 1].val() {
                self.andy1[i].next = self.andy1[i].val() & self.yv[2 * i + 1].val();
            }
            self.adj1[i].next = self.yv[2 * i].val() & self.yv[2 * i + 1].val();
        }
        for i in 1..32 {
            self.adj1[i].next = self.adj1[i].val() | (self.yv[2 * i - 1].val() & self.yv[2 * i].val());
        }
        // Levels 2–5: merge(a, b) = (a1|b1, a2|b2|a1·b1, a3|b3|a2·b1|a1·b2), OR, AND, OR.
        for i in 0..16 {
            self.one2[i].next = self.one1[2 * i].val() | self.one1[2 * i + 1].val();
            self.two2[i].next =
                self.two1[2 * i].val() | self.two1[2 * i + 1].val() | (self.one1[2 * i].val() & self.one1[2 * i + 1].val());
            self.three2[i].next = (self.two1[2 * i].val() & self.one1[2 * i + 1].val())
                | (self.one1[2 * i].val() & self.two1[2 * i + 1].val());
            self.orx2[i].next = self.orx1[2 * i].val() | self.orx1[2 * i + 1].val();
            self.andy2[i].next = self.andy1[2 * i].val() & self.andy1[2 * i + 1].val();
            self.adj2[i].next = self.adj1[2 * i].val() | self.adj1[2 * i + 1].val();
        }
        for i in 0..8 {
            self.one3[i].next = self.one2[2 * i].val() | self.one2[2 * i + 1].val();
            self.two3[i].next =
                self.two2[2 * i].val() | self.two2[2 * i + 1].val() | (self.one2[2 * i].val() & self.one2[2 * i + 1].val());
            self.three3[i].next = self.three2[2 * i].val()
                | self.three2[2 * i + 1].val()
                | (self.two2[2 * i].val() & self.one2[2 * i + 1].val())
                | (self.one2[2 * i].val() & self.two2[2 * i + 1].val());
            self.orx3[i].next = self.orx2[2 * i].val() | self.orx2[2 * i + 1].val();
            self.andy3[i].next = self.andy2[2 * i].val() & self.andy2[2 * i + 1].val();
            self.adj3[i].next = self.adj2[2 * i].val() | self.adj2[2 * i + 1].val();
        }
        for i in 0..4 {
            self.one4[i].next = self.one3[2 * i].val() | self.one3[2 * i + 1].val();
            self.two4[i].next =
                self.two3[2 * i].val() | self.two3[2 * i + 1].val() | (self.one3[2 * i].val() & self.one3[2 * i + 1].val());
            self.three4[i].next = self.three3[2 * i].val()
                | self.three3[2 * i + 1].val()
                | (self.two3[2 * i].val() & self.one3[2 * i + 1].val())
                | (self.one3[2 * i].val() & self.two3[2 * i + 1].val());
            self.orx4[i].next = self.orx3[2 * i].val() | self.orx3[2 * i + 1].val();
            self.andy4[i].next = self.andy3[2 * i].val() & self.andy3[2 * i + 1].val();
            self.adj4[i].next = self.adj3[2 * i].val() | self.adj3[2 * i + 1].val();
        }
        for i in 0..2 {
            self.one5[i].next = self.one4[2 * i].val() | self.one4[2 * i + 1].val();
            self.two5[i].next =
                self.two4[2 * i].val() | self.two4[2 * i + 1].val() | (self.one4[2 * i].val() & self.one4[2 * i + 1].val());
            self.three5[i].next = self.three4[2 * i].val()
                | self.three4[2 * i + 1].val()
                | (self.two4[2 * i].val() & self.one4[2 * i + 1].val())
                | (self.one4[2 * i].val() & self.two4[2 * i + 1].val());
            self.orx5[i].next = self.orx4[2 * i].val() | self.orx4[2 * i + 1].val();
            self.andy5[i].next = self.andy4[2 * i].val() & self.andy4[2 * i + 1].val();
            self.adj5[i].next = self.adj4[2 * i].val() | self.adj4[2 * i + 1].val();
        }
        self.seen1.next = self.one5[0].val() | self.one5[1].val();
        self.seen2.next = self.two5[0].val() | self.two5[1].val() | (self.one5[0].val() & self.one5[1].val());
        self.seen3.next = self.three5[0].val()
            | self.three5[1].val()
            | (self.two5[0].val() & self.one5[1].val())
            | (self.one5[0].val() & self.two5[1].val());
        self.or_x.next = self.orx5[0].val() | self.orx5[1].val();
        self.and_y.next = self.andy5[0].val() & self.andy5[1].val();
        self.adjacent.next = self.adj5[0].val() | self.adj5[1].val();

        // ---- plane 32 (values 0–31; values 32–63 have no plane 32, but a valid one breaks all-ones)
        for m in 0..32 {
            self.t_andy_leaf[m].next = self.x_top[m].val() | !self.valid[m].val();
        }
        for i in 0..16 {
            self.t_one1[i].next = self.x_top[2 * i].val() | self.x_top[2 * i + 1].val();
            self.t_two1[i].next = self.x_top[2 * i].val() & self.x_top[2 * i + 1].val();
            self.t_andy1[i].next = self.t_andy_leaf[2 * i].val() & self.t_andy_leaf[2 * i + 1].val();
            self.t_adj1[i].next = self.x_top[2 * i].val() & self.x_top[2 * i + 1].val();
        }
        for i in 1..16 {
            self.t_adj1[i].next = self.t_adj1[i].val() | (self.x_top[2 * i - 1].val() & self.x_top[2 * i].val());
        }
        for i in 0..8 {
            self.t_one2[i].next = self.t_one1[2 * i].val() | self.t_one1[2 * i + 1].val();
            self.t_two2[i].next = self.t_two1[2 * i].val()
                | self.t_two1[2 * i + 1].val()
                | (self.t_one1[2 * i].val() & self.t_one1[2 * i + 1].val());
            self.t_three2[i].next = (self.t_two1[2 * i].val() & self.t_one1[2 * i + 1].val())
                | (self.t_one1[2 * i].val() & self.t_two1[2 * i + 1].val());
            self.t_andy2[i].next = self.t_andy1[2 * i].val() & self.t_andy1[2 * i + 1].val();
            self.t_adj2[i].next = self.t_adj1[2 * i].val() | self.t_adj1[2 * i + 1].val();
        }
        for i in 0..4 {
            self.t_one3[i].next = self.t_one2[2 * i].val() | self.t_one2[2 * i + 1].val();
            self.t_two3[i].next = self.t_two2[2 * i].val()
                | self.t_two2[2 * i + 1].val()
                | (self.t_one2[2 * i].val() & self.t_one2[2 * i + 1].val());
            self.t_three3[i].next = self.t_three2[2 * i].val()
                | self.t_three2[2 * i + 1].val()
                | (self.t_two2[2 * i].val() & self.t_one2[2 * i + 1].val())
                | (self.t_one2[2 * i].val() & self.t_two2[2 * i + 1].val());
            self.t_andy3[i].next = self.t_andy2[2 * i].val() & self.t_andy2[2 * i + 1].val();
            self.t_adj3[i].next = self.t_adj2[2 * i].val() | self.t_adj2[2 * i + 1].val();
        }
        for i in 0..2 {
            self.t_one4[i].next = self.t_one3[2 * i].val() | self.t_one3[2 * i + 1].val();
            self.t_two4[i].next = self.t_two3[2 * i].val()
                | self.t_two3[2 * i + 1].val()
                | (self.t_one3[2 * i].val() & self.t_one3[2 * i + 1].val());
            self.t_three4[i].next = self.t_three3[2 * i].val()
                | self.t_three3[2 * i + 1].val()
                | (self.t_two3[2 * i].val() & self.t_one3[2 * i + 1].val())
                | (self.t_one3[2 * i].val() & self.t_two3[2 * i + 1].val());
            self.t_andy4[i].next = self.t_andy3[2 * i].val() & self.t_andy3[2 * i + 1].val();
            self.t_adj4[i].next = self.t_adj3[2 * i].val() | self.t_adj3[2 * i + 1].val();
        }
        self.lo_valid.next = self.valid[32].val();
        self.seen1_top.next = self.t_one4[0].val() | self.t_one4[1].val();
        self.seen2_top.next =
            self.t_two4[0].val() | self.t_two4[1].val() | (self.t_one4[0].val() & self.t_one4[1].val());
        self.seen3_top.next = self.t_three4[0].val()
            | self.t_three4[1].val()
            | (self.t_two4[0].val() & self.t_one4[1].val())
            | (self.t_one4[0].val() & self.t_two4[1].val());
        self.and_y_top.next = self.t_andy4[0].val() & self.t_andy4[1].val() & !self.lo_valid.val();
        self.adjacent_top.next = self.t_adj4[0].val() | self.t_adj4[1].val();

        // ---- which planes exist: 16 or 32 low planes, plus plane 16 or 32 for DBX
        self.plane_valid.next = bits::<32>(0xFFFF);
        if self.extra.val() {
            self.plane_valid.next = bits::<32>(0x1FFFF);
        }
        if self.wide.val() {
            self.plane_valid.next = bits::<32>(0xFFFF_FFFF_u64);
        }
        self.plane_valid_top.next = self.wide.val() & self.extra.val();

        // ---- classification, in the priority order of the prefix code → class flops
        self.zero_l.next = !self.seen1.val() & self.plane_valid.val();
        self.zero_top_l.next = !self.seen1_top.val() & self.plane_valid_top.val();
        self.ones_l.next = self.seen1.val() & self.and_y.val();
        self.ones_top_l.next = self.seen1_top.val() & self.and_y_top.val();
        self.dbpz_l.next = self.seen1.val() & !self.ones_l.val() & !self.or_x.val();
        // Plane 32 has no plane above it: its pre-XOR plane is the XORed plane, so it is never
        // a nonzero plane with a zero DBP (OR of its x = `seen1_top`).
        self.dbpz_top_l.next = self.seen1_top.val() & !self.ones_top_l.val() & !self.seen1_top.val();
        self.rest.next = self.seen1.val() & !self.ones_l.val() & !self.dbpz_l.val();
        self.rest_top.next = self.seen1_top.val() & !self.ones_top_l.val() & !self.dbpz_top_l.val();
        self.one_l.next = self.rest.val() & !self.seen2.val();
        self.one_top_l.next = self.rest_top.val() & !self.seen2_top.val();
        self.two_l.next = self.rest.val() & self.seen2.val() & !self.seen3.val() & self.adjacent.val();
        self.two_top_l.next = self.rest_top.val() & self.seen2_top.val() & !self.seen3_top.val() & self.adjacent_top.val();
        // Zero runs: a run's top plane carries its code; a lone zero plane is a single.
        self.zero_above.next = (self.zero_l.val() >> 1).replace_bit(31, self.zero_top_l.val());
        self.zero_below.next = self.zero_l.val() << 1;
        self.zero_r.d.next = self.zero_l.val();
        self.zero_top_r.d.next = self.zero_top_l.val();
        self.run_r.d.next = self.zero_l.val() & !self.zero_above.val() & self.zero_below.val();
        self.run_top_r.d.next = self.zero_top_l.val() & self.zero_l.val().get_bit(31);
        self.single_r.d.next = self.zero_l.val() & !self.zero_above.val() & !self.zero_below.val();
        self.single_top_r.d.next = self.zero_top_l.val() & !self.zero_l.val().get_bit(31);
        self.ones_r.d.next = self.ones_l.val();
        self.ones_top_r.d.next = self.ones_top_l.val();
        self.dbpz_r.d.next = self.dbpz_l.val();
        self.dbpz_top_r.d.next = self.dbpz_top_l.val();
        self.one_r.d.next = self.one_l.val();
        self.one_top_r.d.next = self.one_top_l.val();
        self.two_r.d.next = self.two_l.val();
        self.two_top_r.d.next = self.two_top_l.val();
        self.verb_r.d.next = self.rest.val() & !self.one_l.val() & !self.two_l.val();
        self.verb_top_r.d.next = self.rest_top.val() & !self.one_top_l.val() & !self.two_top_l.val();
        self.single_zero.next = self.single_r.q.val();
        self.single_zero_top.next = self.single_top_r.q.val();
        self.run_start.next = self.run_r.q.val();
        self.run_start_top.next = self.run_top_r.q.val();
        self.zero.next = self.zero_r.q.val();
        self.zero_top.next = self.zero_top_r.q.val();
        self.all_ones.next = self.ones_r.q.val();
        self.all_ones_top.next = self.ones_top_r.q.val();
        self.dbp_zero.next = self.dbpz_r.q.val();
        self.dbp_zero_top.next = self.dbpz_top_r.q.val();
        self.two_ones.next = self.two_r.q.val();
        self.two_ones_top.next = self.two_top_r.q.val();
        self.one_one.next = self.one_r.q.val();
        self.one_one_top.next = self.one_top_r.q.val();
        self.verbatim.next = self.verb_r.q.val();
        self.verbatim_top.next = self.verb_top_r.q.val();

        // ---- field widths: run ⌈log2(P−1)⌉ = 5 or 4 bits; position ⌈log2 L⌉ (from the count)
        self.run_cost.next = self.run_code_w16.val();
        if self.wide.val() {
            self.run_cost.next = self.run_code_w32.val();
        }
        self.pos_field_l.next = bits::<3>(0);
        if self.count.val() >= 2 {
            self.pos_field_l.next = bits::<3>(1);
        }
        if self.count.val() >= 3 {
            self.pos_field_l.next = bits::<3>(2);
        }
        if self.count.val() >= 5 {
            self.pos_field_l.next = bits::<3>(3);
        }
        if self.count.val() >= 9 {
            self.pos_field_l.next = bits::<3>(4);
        }
        if self.count.val() >= 17 {
            self.pos_field_l.next = bits::<3>(5);
        }
        if self.count.val() >= 33 {
            self.pos_field_l.next = bits::<3>(6);
        }
        self.pos_field_r.d.next = self.pos_field_l.val();
        self.pos_field_bits.next = self.pos_field_r.q.val();
        self.pos_cost_r.d.next = self.position_prefix_bits.val() + bit_cast::<11, 3>(self.pos_field_l.val());
        self.verbatim_cost_r.d.next = bits::<11>(1) + bit_cast::<11, 7>(self.count.val());
        self.pos_cost.next = self.pos_cost_r.q.val();
        self.verbatim_cost.next = self.verbatim_cost_r.q.val();

        // ---- per-plane code length from the class flops: one-hot (the classes are exclusive)
        for j in 0..32 {
            self.cost[j].next = bits::<11>(0);
            if self.single_r.q.val().get_bit(j) {
                self.cost[j].next = self.single_zero_bits.val();
            }
            if self.run_r.q.val().get_bit(j) {
                self.cost[j].next = self.cost[j].val() | self.run_cost.val();
            }
            if self.ones_r.q.val().get_bit(j) | self.dbpz_r.q.val().get_bit(j) {
                self.cost[j].next = self.cost[j].val() | self.fixed_code_bits.val();
            }
            if self.two_r.q.val().get_bit(j) | self.one_r.q.val().get_bit(j) {
                self.cost[j].next = self.cost[j].val() | self.pos_cost.val();
            }
            if self.verb_r.q.val().get_bit(j) {
                self.cost[j].next = self.cost[j].val() | self.verbatim_cost.val();
            }
        }
        self.top_cost.next = bits::<11>(0);
        if self.single_top_r.q.val() {
            self.top_cost.next = self.single_zero_bits.val();
        }
        if self.run_top_r.q.val() {
            self.top_cost.next = self.top_cost.val() | self.run_cost.val();
        }
        if self.ones_top_r.q.val() | self.dbpz_top_r.q.val() {
            self.top_cost.next = self.top_cost.val() | self.fixed_code_bits.val();
        }
        if self.two_top_r.q.val() | self.one_top_r.q.val() {
            self.top_cost.next = self.top_cost.val() | self.pos_cost.val();
        }
        if self.verb_top_r.q.val() {
            self.top_cost.next = self.top_cost.val() | self.verbatim_cost.val();
        }
        // Adder tree levels 1–3 (32 lengths → 4 sums of 8) → partial-sum flops.
        for i in 0..16 {
            self.sum1[i].next = self.cost[2 * i].val() + self.cost[2 * i + 1].val();
        }
        for i in 0..8 {
            self.sum2[i].next = self.sum1[2 * i].val() + self.sum1[2 * i + 1].val();
        }
        for i in 0..4 {
            self.part_r[i].d.next = self.sum2[2 * i].val() + self.sum2[2 * i + 1].val();
        }
        self.top_cost_r.d.next = self.top_cost.val();
        for k in 0..4 {
            self.part_bits[k].next = self.part_r[k].q.val();
        }
        self.top_bits.next = self.top_cost_r.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::block::planes::base_bits;
    use crate::golden::{BLOCK_BYTES, SymbolWidth, block_sizes};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Loads the value sequence `x` (values of up to 33 bits) and returns the plane-code bits
    /// (the registered partial sums and top-plane length added).
    fn plane_bits(s: &mut PlaneStats, x: &[u64], wide: bool, extra: bool) -> u32 {
        for m in 0..64 {
            let v = x.get(m).copied().unwrap_or(0);
            if m < 32 {
                s.x[m].next = (v & 0xFFFF_FFFF).into();
                s.x_top[m].next = v >> 32 != 0;
                s.x_lo[m].next = 0.into();
            } else {
                s.x_lo[m - 32].next = v.into();
            }
            s.valid[m].next = m < x.len();
        }
        s.count.next = (x.len() as u64).into();
        s.wide.next = wide;
        s.extra.next = extra;
        for _ in 0..PART_SUM_CYCLES {
            for level in [true, false] {
                s.clock.next = Clock { clk: level };
                assert!(simulate(s, 100));
            }
        }
        s.part_bits.iter().map(|p| p.val().to_u32()).sum::<u32>() + s.top_bits.val().to_u32()
    }

    #[test]
    fn plane_bits_equal_the_golden_size_model_for_all_three_codes() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut s = PlaneStats::default();
        s.connect_all();
        check_all(&s).unwrap();
        for trial in 0..300 {
            let width = if trial % 2 == 0 {
                SymbolWidth::W32
            } else {
                SymbolWidth::W16
            };
            let block: [u8; BLOCK_BYTES] = crate::synth::activation_block(&mut rng, width);
            let mut syms = [0u32; 64];
            width.load(&block, &mut syms);
            let syms = &syms[..width.symbols()];
            let wide = width == SymbolWidth::W32;
            let sizes = block_sizes(&block, width);
            let values: Vec<u64> = syms.iter().map(|&v| v as u64).collect();
            assert_eq!(plane_bits(&mut s, &values, wide, false), sizes.bx, "BX, trial {trial}");
            let deltas: Vec<u64> = syms
                .windows(2)
                .map(|p| (p[1] as i64 - p[0] as i64) as u64 & ((1u64 << (width.bits() + 1)) - 1))
                .collect();
            assert_eq!(
                plane_bits(&mut s, &deltas, wide, true) + base_bits(syms[0], width),
                sizes.dbx,
                "DBX, trial {trial}"
            );
            let nonzero: Vec<u64> = values.iter().copied().filter(|&v| v != 0).collect();
            if !nonzero.is_empty() {
                assert_eq!(
                    plane_bits(&mut s, &nonzero, wide, false) + syms.len() as u32,
                    sizes.zbx,
                    "ZBX, trial {trial}"
                );
            }
        }
    }
}
