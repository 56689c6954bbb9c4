//! Plane statistics of one value sequence: the pattern logic every plane code (DBX, BX, ZBX)
//! needs to classify its bit-planes and count its exact size, without transposing
//! (the bit-parallel form of [`crate::golden::size`]).
//!
//! For values `x[m]`, the XORed plane `j` is bit `j` of `y[m] = x[m] ^ (x[m] >> 1)`. One pass of
//! OR / AND / saturating count (≥ 1, ≥ 2, ≥ 3) / adjacent-pair over the `y[m]` classifies all planes
//! at once (FORMAT.md §5). Planes 0–31 travel in 32-bit words (bit `j` = plane `j`); plane 32,
//! which only DBX of 32-bit symbols has (the borrow plane), travels in separate `*_top` bits.
//! Values 32–63 exist only for 16-bit symbols, so they are 17 bits wide (`x_lo`, `y_lo`).
//!
//! The block registers its inputs (`load`) and is combinational from those flops to its outputs,
//! so no combinational path runs from its inputs to its outputs: the lane's stage-2 register is
//! these input flops.

use rust_hdl::prelude::*;

/// Values a plane sequence can hold: N = 64 for 16-bit symbols.
pub const MAX_VALUES: usize = 64;
/// Values that can be 32 (or 33) bits wide: N = 32 for 32-bit symbols.
pub const WIDE_VALUES: usize = 32;

/// Combinational plane classifier and size counter for one code.
#[derive(LogicBlock)]
pub struct PlaneStats {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Capture the inputs below at this clock edge.
    pub load: Signal<In, Bit>,
    /// Pre-XOR values `x[m]`, m < 32, planes 0–31; values at `m ≥ count` must be zero.
    pub x: [Signal<In, Bits<32>>; WIDE_VALUES],
    /// Values `x[32 + m]` (16-bit symbols only: at most 17 bits).
    pub x_lo: [Signal<In, Bits<17>>; WIDE_VALUES],
    /// Plane 32 of `x[m]` (the DBX borrow of 32-bit symbols; zero otherwise).
    pub x_top: [Signal<In, Bit>; WIDE_VALUES],
    /// `valid[m]` ⇔ `m < count`: which values take part in the all-ones test.
    pub valid: [Signal<In, Bit>; MAX_VALUES],
    /// Plane length `L` in bits: the number of values (0–64).
    pub count: Signal<In, Bits<7>>,
    /// 32-bit symbols: 32 (BX/ZBX) or 33 (DBX) planes, else 16 or 17.
    pub wide: Signal<In, Bit>,
    /// One plane more than the symbol width (DBX's delta borrow plane).
    pub extra: Signal<In, Bit>,
    /// Plane length `L` of the registered values.
    pub plane_len: Signal<Out, Bits<7>>,
    /// XORed values `y[m]`, m < 32, planes 0–31 (bit `j` of `y[m]` is bit `m` of XORed plane `j`).
    pub y: [Signal<Out, Bits<32>>; WIDE_VALUES],
    /// XORed values `y[32 + m]`.
    pub y_lo: [Signal<Out, Bits<17>>; WIDE_VALUES],
    /// Plane 32 of `y[m]`.
    pub y_top: [Signal<Out, Bit>; WIDE_VALUES],
    /// Planes coded as a single zero plane (`001`), bit `j` = plane `j`.
    pub single_zero: Signal<Out, Bits<32>>,
    /// Plane 32 of [`Self::single_zero`].
    pub single_zero_top: Signal<Out, Bit>,
    /// Topmost plane of a run of ≥ 2 zero planes (`01` + run length); the rest of the run is empty.
    pub run_start: Signal<Out, Bits<32>>,
    /// Plane 32 of [`Self::run_start`].
    pub run_start_top: Signal<Out, Bit>,
    /// Every zero plane (run members included).
    pub zero: Signal<Out, Bits<32>>,
    /// Plane 32 of [`Self::zero`].
    pub zero_top: Signal<Out, Bit>,
    /// All-ones XORed planes (`00000`).
    pub all_ones: Signal<Out, Bits<32>>,
    /// Plane 32 of [`Self::all_ones`].
    pub all_ones_top: Signal<Out, Bit>,
    /// Nonzero XORed plane whose pre-XOR plane is zero (`00001`).
    pub dbp_zero: Signal<Out, Bits<32>>,
    /// Plane 32 of [`Self::dbp_zero`].
    pub dbp_zero_top: Signal<Out, Bit>,
    /// Two adjacent ones (`00010` + position).
    pub two_ones: Signal<Out, Bits<32>>,
    /// Plane 32 of [`Self::two_ones`].
    pub two_ones_top: Signal<Out, Bit>,
    /// A single one (`00011` + position).
    pub one_one: Signal<Out, Bits<32>>,
    /// Plane 32 of [`Self::one_one`].
    pub one_one_top: Signal<Out, Bit>,
    /// Verbatim planes (`1` + the L plane bits).
    pub verbatim: Signal<Out, Bits<32>>,
    /// Plane 32 of [`Self::verbatim`].
    pub verbatim_top: Signal<Out, Bit>,
    /// Width of the position field, ⌈log2 L⌉ bits.
    pub pos_field_bits: Signal<Out, Bits<3>>,
    /// Bits of all prefix-coded planes (the code's size without its header).
    pub plane_bits: Signal<Out, Bits<11>>,
    x_q: [DFF<Bits<32>>; WIDE_VALUES],
    x_lo_q: [DFF<Bits<17>>; WIDE_VALUES],
    x_top_q: [DFF<Bit>; WIDE_VALUES],
    valid_q: [DFF<Bit>; MAX_VALUES],
    count_q: DFF<Bits<7>>,
    wide_q: DFF<Bit>,
    extra_q: DFF<Bit>,
    narrow: Signal<Local, Bits<17>>,
    x_cur: Signal<Local, Bits<32>>,
    y_cur: Signal<Local, Bits<32>>,
    or_x: Signal<Local, Bits<32>>,
    seen1: Signal<Local, Bits<32>>,
    seen2: Signal<Local, Bits<32>>,
    seen3: Signal<Local, Bits<32>>,
    and_y: Signal<Local, Bits<32>>,
    adjacent: Signal<Local, Bits<32>>,
    prev_y: Signal<Local, Bits<32>>,
    or_x_top: Signal<Local, Bit>,
    seen1_top: Signal<Local, Bit>,
    seen2_top: Signal<Local, Bit>,
    seen3_top: Signal<Local, Bit>,
    and_y_top: Signal<Local, Bit>,
    adjacent_top: Signal<Local, Bit>,
    prev_y_top: Signal<Local, Bit>,
    plane_valid: Signal<Local, Bits<32>>,
    plane_valid_top: Signal<Local, Bit>,
    rest: Signal<Local, Bits<32>>,
    rest_top: Signal<Local, Bit>,
    zero_above: Signal<Local, Bits<32>>,
    zero_below: Signal<Local, Bits<32>>,
    run_cost: Signal<Local, Bits<11>>,
    /// `pos_field_bits` while its priority chain is evaluated (the port is written once).
    pos_field_l: Signal<Local, Bits<3>>,
    pos_cost: Signal<Local, Bits<11>>,
    verbatim_cost: Signal<Local, Bits<11>>,
    total: Signal<Local, Bits<11>>,
}

impl Default for PlaneStats {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            load: Default::default(),
            x: std::array::from_fn(|_| Default::default()),
            x_lo: std::array::from_fn(|_| Default::default()),
            x_top: std::array::from_fn(|_| Default::default()),
            valid: std::array::from_fn(|_| Default::default()),
            count: Default::default(),
            wide: Default::default(),
            extra: Default::default(),
            plane_len: Default::default(),
            y: std::array::from_fn(|_| Default::default()),
            y_lo: std::array::from_fn(|_| Default::default()),
            y_top: std::array::from_fn(|_| Default::default()),
            single_zero: Default::default(),
            single_zero_top: Default::default(),
            run_start: Default::default(),
            run_start_top: Default::default(),
            zero: Default::default(),
            zero_top: Default::default(),
            all_ones: Default::default(),
            all_ones_top: Default::default(),
            dbp_zero: Default::default(),
            dbp_zero_top: Default::default(),
            two_ones: Default::default(),
            two_ones_top: Default::default(),
            one_one: Default::default(),
            one_one_top: Default::default(),
            verbatim: Default::default(),
            verbatim_top: Default::default(),
            pos_field_bits: Default::default(),
            plane_bits: Default::default(),
            x_q: std::array::from_fn(|_| Default::default()),
            x_lo_q: std::array::from_fn(|_| Default::default()),
            x_top_q: std::array::from_fn(|_| Default::default()),
            valid_q: std::array::from_fn(|_| Default::default()),
            count_q: Default::default(),
            wide_q: Default::default(),
            extra_q: Default::default(),
            narrow: Default::default(),
            x_cur: Default::default(),
            y_cur: Default::default(),
            or_x: Default::default(),
            seen1: Default::default(),
            seen2: Default::default(),
            seen3: Default::default(),
            and_y: Default::default(),
            adjacent: Default::default(),
            prev_y: Default::default(),
            or_x_top: Default::default(),
            seen1_top: Default::default(),
            seen2_top: Default::default(),
            seen3_top: Default::default(),
            and_y_top: Default::default(),
            adjacent_top: Default::default(),
            prev_y_top: Default::default(),
            plane_valid: Default::default(),
            plane_valid_top: Default::default(),
            rest: Default::default(),
            rest_top: Default::default(),
            zero_above: Default::default(),
            zero_below: Default::default(),
            run_cost: Default::default(),
            pos_field_l: Default::default(),
            pos_cost: Default::default(),
            verbatim_cost: Default::default(),
            total: Default::default(),
        }
    }
}

impl Logic for PlaneStats {
    #[hdl_gen]
    fn update(&mut self) {
        // Input flops (the lane's stage-2 register).
        dff_setup!(self, clock, count_q, wide_q, extra_q);
        for m in 0..32 {
            self.x_q[m].clock.next = self.clock.val();
            self.x_q[m].d.next = self.x_q[m].q.val();
            self.x_lo_q[m].clock.next = self.clock.val();
            self.x_lo_q[m].d.next = self.x_lo_q[m].q.val();
            self.x_top_q[m].clock.next = self.clock.val();
            self.x_top_q[m].d.next = self.x_top_q[m].q.val();
        }
        for m in 0..64 {
            self.valid_q[m].clock.next = self.clock.val();
            self.valid_q[m].d.next = self.valid_q[m].q.val();
        }
        if self.load.val() {
            for m in 0..32 {
                self.x_q[m].d.next = self.x[m].val();
                self.x_lo_q[m].d.next = self.x_lo[m].val();
                self.x_top_q[m].d.next = self.x_top[m].val();
            }
            for m in 0..64 {
                self.valid_q[m].d.next = self.valid[m].val();
            }
            self.count_q.d.next = self.count.val();
            self.wide_q.d.next = self.wide.val();
            self.extra_q.d.next = self.extra.val();
        }
        self.plane_len.next = self.count_q.q.val();

        // One pass over the values: OR of x, saturating counts of y, AND of valid y, adjacent pairs.
        self.or_x.next = bits::<32>(0);
        self.seen1.next = bits::<32>(0);
        self.seen2.next = bits::<32>(0);
        self.seen3.next = bits::<32>(0);
        self.and_y.next = bits::<32>(0xFFFF_FFFF_u64);
        self.adjacent.next = bits::<32>(0);
        self.prev_y.next = bits::<32>(0);
        self.or_x_top.next = false;
        self.seen1_top.next = false;
        self.seen2_top.next = false;
        self.seen3_top.next = false;
        self.and_y_top.next = true;
        self.adjacent_top.next = false;
        self.prev_y_top.next = false;
        self.narrow.next = bits::<17>(0);
        for m in 0..32 {
            self.x_cur.next = self.x_q[m].q.val();
            self.y_cur.next = (self.x_cur.val() ^ (self.x_cur.val() >> 1))
                .replace_bit(31, self.x_cur.val().get_bit(31) ^ self.x_top_q[m].q.val());
            self.y[m].next = self.y_cur.val();
            self.y_top[m].next = self.x_top_q[m].q.val();
            self.or_x.next = self.or_x.val() | self.x_cur.val();
            self.seen3.next = self.seen3.val() | (self.seen2.val() & self.y_cur.val());
            self.seen2.next = self.seen2.val() | (self.seen1.val() & self.y_cur.val());
            self.seen1.next = self.seen1.val() | self.y_cur.val();
            self.adjacent.next = self.adjacent.val() | (self.prev_y.val() & self.y_cur.val());
            self.prev_y.next = self.y_cur.val();
            self.or_x_top.next = self.or_x_top.val() | self.x_top_q[m].q.val();
            self.seen3_top.next = self.seen3_top.val() | (self.seen2_top.val() & self.x_top_q[m].q.val());
            self.seen2_top.next = self.seen2_top.val() | (self.seen1_top.val() & self.x_top_q[m].q.val());
            self.seen1_top.next = self.seen1_top.val() | self.x_top_q[m].q.val();
            self.adjacent_top.next = self.adjacent_top.val() | (self.prev_y_top.val() & self.x_top_q[m].q.val());
            self.prev_y_top.next = self.x_top_q[m].q.val();
            if self.valid_q[m].q.val() {
                self.and_y.next = self.and_y.val() & self.y_cur.val();
                self.and_y_top.next = self.and_y_top.val() & self.x_top_q[m].q.val();
            }
        }
        for m in 32..64 {
            // Values 32–63 have no plane 32: their top bit is zero.
            self.narrow.next = self.x_lo_q[m - 32].q.val();
            self.x_cur.next = bit_cast::<32, 17>(self.narrow.val());
            self.y_cur.next = self.x_cur.val() ^ (self.x_cur.val() >> 1);
            self.y_lo[m - 32].next = bit_cast::<17, 32>(self.y_cur.val());
            self.or_x.next = self.or_x.val() | self.x_cur.val();
            self.seen3.next = self.seen3.val() | (self.seen2.val() & self.y_cur.val());
            self.seen2.next = self.seen2.val() | (self.seen1.val() & self.y_cur.val());
            self.seen1.next = self.seen1.val() | self.y_cur.val();
            self.adjacent.next = self.adjacent.val() | (self.prev_y.val() & self.y_cur.val());
            self.prev_y.next = self.y_cur.val();
            if self.valid_q[m].q.val() {
                self.and_y.next = self.and_y.val() & self.y_cur.val();
                self.and_y_top.next = false;
            }
        }

        // Which planes exist: 16 or 32 low planes, plus plane 16 or 32 for DBX.
        self.plane_valid.next = bits::<32>(0xFFFF);
        if self.extra_q.q.val() {
            self.plane_valid.next = bits::<32>(0x1FFFF);
        }
        if self.wide_q.q.val() {
            self.plane_valid.next = bits::<32>(0xFFFF_FFFF_u64);
        }
        self.plane_valid_top.next = self.wide_q.q.val() & self.extra_q.q.val();

        // Classification, in the priority order of the prefix code.
        self.zero.next = !self.seen1.val() & self.plane_valid.val();
        self.zero_top.next = !self.seen1_top.val() & self.plane_valid_top.val();
        self.all_ones.next = self.seen1.val() & self.and_y.val();
        self.all_ones_top.next = self.seen1_top.val() & self.and_y_top.val();
        self.dbp_zero.next = self.seen1.val() & !self.all_ones.val() & !self.or_x.val();
        self.dbp_zero_top.next = self.seen1_top.val() & !self.all_ones_top.val() & !self.or_x_top.val();
        self.rest.next = self.seen1.val() & !self.all_ones.val() & !self.dbp_zero.val();
        self.rest_top.next = self.seen1_top.val() & !self.all_ones_top.val() & !self.dbp_zero_top.val();
        self.one_one.next = self.rest.val() & !self.seen2.val();
        self.one_one_top.next = self.rest_top.val() & !self.seen2_top.val();
        self.two_ones.next = self.rest.val() & self.seen2.val() & !self.seen3.val() & self.adjacent.val();
        self.two_ones_top.next =
            self.rest_top.val() & self.seen2_top.val() & !self.seen3_top.val() & self.adjacent_top.val();
        self.verbatim.next = self.rest.val() & !self.one_one.val() & !self.two_ones.val();
        self.verbatim_top.next = self.rest_top.val() & !self.one_one_top.val() & !self.two_ones_top.val();

        // Zero runs: a run's top plane carries its code; a lone zero plane is a single.
        self.zero_above.next = (self.zero.val() >> 1).replace_bit(31, self.zero_top.val());
        self.zero_below.next = self.zero.val() << 1;
        self.run_start.next = self.zero.val() & !self.zero_above.val() & self.zero_below.val();
        self.single_zero.next = self.zero.val() & !self.zero_above.val() & !self.zero_below.val();
        self.run_start_top.next = self.zero_top.val() & self.zero.val().get_bit(31);
        self.single_zero_top.next = self.zero_top.val() & !self.zero.val().get_bit(31);

        // Field widths: run length ⌈log2(P−1)⌉ = 5 or 4 bits; position ⌈log2 L⌉.
        self.run_cost.next = bits::<11>(6);
        if self.wide_q.q.val() {
            self.run_cost.next = bits::<11>(7);
        }
        self.pos_field_l.next = bits::<3>(0);
        if self.count_q.q.val() >= 2 {
            self.pos_field_l.next = bits::<3>(1);
        }
        if self.count_q.q.val() >= 3 {
            self.pos_field_l.next = bits::<3>(2);
        }
        if self.count_q.q.val() >= 5 {
            self.pos_field_l.next = bits::<3>(3);
        }
        if self.count_q.q.val() >= 9 {
            self.pos_field_l.next = bits::<3>(4);
        }
        if self.count_q.q.val() >= 17 {
            self.pos_field_l.next = bits::<3>(5);
        }
        if self.count_q.q.val() >= 33 {
            self.pos_field_l.next = bits::<3>(6);
        }
        // Written once: a port written several times per evaluation glitches, which Icarus
        // turns into a never-settling ping-pong with the lane (docs/HARDWARE.md, "Icarus-safe").
        self.pos_field_bits.next = self.pos_field_l.val();
        self.pos_cost.next = bits::<11>(5) + bit_cast::<11, 3>(self.pos_field_bits.val());
        self.verbatim_cost.next = bits::<11>(1) + bit_cast::<11, 7>(self.count_q.q.val());

        // Sum of the per-plane code lengths.
        self.total.next = bits::<11>(0);
        for j in 0..32 {
            if self.single_zero.val().get_bit(j) {
                self.total.next = self.total.val() + 3;
            }
            if self.run_start.val().get_bit(j) {
                self.total.next = self.total.val() + self.run_cost.val();
            }
            if self.all_ones.val().get_bit(j) | self.dbp_zero.val().get_bit(j) {
                self.total.next = self.total.val() + 5;
            }
            if self.two_ones.val().get_bit(j) | self.one_one.val().get_bit(j) {
                self.total.next = self.total.val() + self.pos_cost.val();
            }
            if self.verbatim.val().get_bit(j) {
                self.total.next = self.total.val() + self.verbatim_cost.val();
            }
        }
        if self.single_zero_top.val() {
            self.total.next = self.total.val() + 3;
        }
        if self.run_start_top.val() {
            self.total.next = self.total.val() + self.run_cost.val();
        }
        if self.all_ones_top.val() | self.dbp_zero_top.val() {
            self.total.next = self.total.val() + 5;
        }
        if self.two_ones_top.val() | self.one_one_top.val() {
            self.total.next = self.total.val() + self.pos_cost.val();
        }
        if self.verbatim_top.val() {
            self.total.next = self.total.val() + self.verbatim_cost.val();
        }
        self.plane_bits.next = self.total.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::block::planes::base_bits;
    use crate::golden::{BLOCK_BYTES, SymbolWidth, block_sizes};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Loads the value sequence `x` (values of up to 33 bits) and returns the plane-code bits.
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
        s.load.next = true;
        for level in [true, false] {
            s.clock.next = Clock { clk: level };
            assert!(simulate(s, 100));
        }
        s.plane_bits.val().to_u32()
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
