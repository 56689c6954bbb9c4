//! Zero-run lengths of one plane code, for the plane queue's run codes (FORMAT.md §5.3 case 1):
//! for every plane `j`, the number of zero planes `j, j−1, …` down to the first nonzero one.
//!
//! By doubling over 6 levels: a count that fills its window (2^k, the only count with bit k set)
//! extends by the count one window below — an OR, or 2^(k+1) when that one is full too — so no
//! adder is on the path. Its input is a [`super::plane_stats::PlaneStats`]' registered zero-plane
//! mask (valid one cycle after the statistics load), its output a flop (valid one cycle later):
//! a stage of its own beside the statistics, which keep their timing untouched.

use super::hdl_util::{arr, d};
use rust_hdl::prelude::*;

/// Planes with a zero-run length: 0–31 and the DBX borrow plane 32.
pub const RUN_PLANES: usize = 33;

hw_block! {
/// Zero-run lengths of one code's planes; see the module docs.
#[derive(LogicBlock)]
pub struct ZeroRuns {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Zero planes 0–31 (bit `j` = plane `j`), from flops.
    pub zero: Signal<In, Bits<32>> = d(),
    /// Plane 32 is zero.
    pub zero_top: Signal<In, Bit> = d(),
    /// Zero planes `j, j−1, …` from plane `j` down (index 32: plane 32), registered.
    pub run: [Signal<Out, Bits<7>>; RUN_PLANES] = arr(),
    run_r: [DFF<Bits<7>>; RUN_PLANES] = arr(),
    /// Doubling levels: `runk[j]` counts zero planes from `j` down, at most 2^k.
    run0: [Signal<Local, Bits<7>>; RUN_PLANES] = arr(),
    run1: [Signal<Local, Bits<7>>; RUN_PLANES] = arr(),
    run2: [Signal<Local, Bits<7>>; RUN_PLANES] = arr(),
    run3: [Signal<Local, Bits<7>>; RUN_PLANES] = arr(),
    run4: [Signal<Local, Bits<7>>; RUN_PLANES] = arr(),
    run5: [Signal<Local, Bits<7>>; RUN_PLANES] = arr(),
    run6: [Signal<Local, Bits<7>>; RUN_PLANES] = arr(),
}
}

impl Logic for ZeroRuns {
    #[hdl_gen]
    fn update(&mut self) {
        for j in 0..32 {
            self.run0[j].next = bits::<7>(0);
            if self.zero.val().get_bit(j) {
                self.run0[j].next = bits::<7>(1);
            }
        }
        self.run0[32].next = bits::<7>(0);
        if self.zero_top.val() {
            self.run0[32].next = bits::<7>(1);
        }
        for j in 0..1 {
            self.run1[j].next = self.run0[j].val();
        }
        for j in 1..33 {
            self.run1[j].next = self.run0[j].val();
            if self.run0[j].val().get_bit(0) {
                self.run1[j].next = self.run0[j].val() | self.run0[j - 1].val();
                if self.run0[j - 1].val().get_bit(0) {
                    self.run1[j].next = bits::<7>(2);
                }
            }
        }
        for j in 0..2 {
            self.run2[j].next = self.run1[j].val();
        }
        for j in 2..33 {
            self.run2[j].next = self.run1[j].val();
            if self.run1[j].val().get_bit(1) {
                self.run2[j].next = self.run1[j].val() | self.run1[j - 2].val();
                if self.run1[j - 2].val().get_bit(1) {
                    self.run2[j].next = bits::<7>(4);
                }
            }
        }
        for j in 0..4 {
            self.run3[j].next = self.run2[j].val();
        }
        for j in 4..33 {
            self.run3[j].next = self.run2[j].val();
            if self.run2[j].val().get_bit(2) {
                self.run3[j].next = self.run2[j].val() | self.run2[j - 4].val();
                if self.run2[j - 4].val().get_bit(2) {
                    self.run3[j].next = bits::<7>(8);
                }
            }
        }
        for j in 0..8 {
            self.run4[j].next = self.run3[j].val();
        }
        for j in 8..33 {
            self.run4[j].next = self.run3[j].val();
            if self.run3[j].val().get_bit(3) {
                self.run4[j].next = self.run3[j].val() | self.run3[j - 8].val();
                if self.run3[j - 8].val().get_bit(3) {
                    self.run4[j].next = bits::<7>(16);
                }
            }
        }
        for j in 0..16 {
            self.run5[j].next = self.run4[j].val();
        }
        for j in 16..33 {
            self.run5[j].next = self.run4[j].val();
            if self.run4[j].val().get_bit(4) {
                self.run5[j].next = self.run4[j].val() | self.run4[j - 16].val();
                if self.run4[j - 16].val().get_bit(4) {
                    self.run5[j].next = bits::<7>(32);
                }
            }
        }
        for j in 0..32 {
            self.run6[j].next = self.run5[j].val();
        }
        for j in 32..33 {
            self.run6[j].next = self.run5[j].val();
            if self.run5[j].val().get_bit(5) {
                self.run6[j].next = self.run5[j].val() | self.run5[j - 32].val();
                if self.run5[j - 32].val().get_bit(5) {
                    self.run6[j].next = bits::<7>(64);
                }
            }
        }
        for j in 0..33 {
            self.run_r[j].clock.next = self.clock.val();
            self.run_r[j].d.next = self.run6[j].val();
            self.run[j].next = self.run_r[j].q.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The registered run lengths against a plain loop over random zero-plane masks (runs of every
    /// length: masks built from random runs of ones and zeros).
    #[test]
    fn run_lengths_equal_a_plain_count_down_the_planes() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut z = ZeroRuns::default();
        z.connect_all();
        check_all(&z).unwrap();
        for trial in 0..500 {
            let mut mask = 0u64;
            let mut p = 0;
            while p < RUN_PLANES {
                let len = rng.gen_range(1..=if trial % 3 == 0 { 33 } else { 6 });
                if rng.gen_bool(0.5) {
                    for q in p..(p + len).min(RUN_PLANES) {
                        mask |= 1 << q;
                    }
                }
                p += len;
            }
            z.zero.next = (mask & 0xFFFF_FFFF).into();
            z.zero_top.next = mask >> 32 & 1 == 1;
            for level in [true, false] {
                z.clock.next = Clock { clk: level };
                assert!(simulate(&mut z, 100));
            }
            for j in 0..RUN_PLANES {
                let expected = (0..=j).rev().take_while(|&q| mask >> q & 1 == 1).count() as u64;
                assert_eq!(z.run[j].val().to_u64(), expected, "plane {j}, mask {mask:#x}, trial {trial}");
            }
        }
    }
}
