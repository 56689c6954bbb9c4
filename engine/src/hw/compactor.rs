//! ZBX's compaction network: moves the `n` nonzero symbols of a block to the front, in order,
//! and produces the nonzero mask that ZVC and ZBX put first (FORMAT.md §4.1, §4.4).
//!
//! Symbol `i` moves down by `z[i]`, the number of zero symbols before it. The shift is applied in
//! six stages of 1, 2, 4, …, 32 slots, least significant bit first; that order never lets two
//! nonzero symbols meet (for `i < k`, `z[k] − z[i] < k − i` at every stage), so each stage is one
//! 2:1 OR-mux per slot: 6 × 64 muxes of 32 bits instead of a 64 × 64 crossbar.
//!
//! The block holds the lane's stage-1 register (the gathered block's 32 words and its width) and
//! is combinational from those flops to its outputs, so no combinational path runs through it.

use rust_hdl::prelude::*;

/// Symbol slots of a block (64 for 16-bit symbols; 32-bit blocks use the first 32).
pub const SLOTS: usize = 64;

/// Combinational compaction network with the nonzero mask and count.
#[derive(LogicBlock)]
pub struct Compactor {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Capture `words` and `w16` at this clock edge.
    pub load: Signal<In, Bit>,
    /// The block as 32 little-endian words.
    pub words: [Signal<In, Bits<32>>; 32],
    /// 16-bit symbols (64 per block); else 32-bit (32 per block).
    pub w16: Signal<In, Bit>,
    /// The registered width flag.
    pub w16_q: Signal<Out, Bit>,
    /// Symbols of the block in order: 32 words, or 64 half-words low half first (the bytes are
    /// little-endian); unused slots zero.
    pub sym: [Signal<Out, Bits<32>>; SLOTS],
    /// The nonzero symbols moved to the front, in order; the other slots zero.
    pub packed: [Signal<Out, Bits<32>>; SLOTS],
    /// Nonzero mask of symbols 0–31, symbol 0 in bit 31 (FORMAT.md bit order, first symbol first).
    pub mask_hi: Signal<Out, Bits<32>>,
    /// Nonzero mask of symbols 32–63, symbol 32 in bit 31.
    pub mask_lo: Signal<Out, Bits<32>>,
    /// Number of nonzero symbols `n`.
    pub nonzero: Signal<Out, Bits<7>>,
    words_r: [DFF<Bits<32>>; 32],
    w16_r: DFF<Bit>,
    zero_flag: [Signal<Local, Bits<7>>; SLOTS],
    zeros2: [Signal<Local, Bits<7>>; 32],
    zeros4: [Signal<Local, Bits<7>>; 16],
    zeros8: [Signal<Local, Bits<7>>; 8],
    ks1: [Signal<Local, Bits<7>>; 8],
    ks2: [Signal<Local, Bits<7>>; 8],
    ks3: [Signal<Local, Bits<7>>; 8],
    group_before: [Signal<Local, Bits<7>>; 8],
    in_group: [Signal<Local, Bits<7>>; SLOTS],
    zeros_before: [Signal<Local, Bits<7>>; SLOTS],
    zb_t: Signal<Local, Bits<7>>,
    shift0: [Signal<Local, Bits<6>>; SLOTS],
    shift1: [Signal<Local, Bits<6>>; SLOTS],
    shift2: [Signal<Local, Bits<6>>; SLOTS],
    shift3: [Signal<Local, Bits<6>>; SLOTS],
    shift4: [Signal<Local, Bits<6>>; SLOTS],
    shift5: [Signal<Local, Bit>; SLOTS],
    stage1: [Signal<Local, Bits<32>>; SLOTS],
    stage2: [Signal<Local, Bits<32>>; SLOTS],
    stage3: [Signal<Local, Bits<32>>; SLOTS],
    stage4: [Signal<Local, Bits<32>>; SLOTS],
    stage5: [Signal<Local, Bits<32>>; SLOTS],
    sym_l: [Signal<Local, Bits<32>>; SLOTS],
    packed_l: [Signal<Local, Bits<32>>; SLOTS],
    mask_hi_l: Signal<Local, Bits<32>>,
    mask_lo_l: Signal<Local, Bits<32>>,
}

impl Default for Compactor {
    fn default() -> Self {
        fn arr<T: Default>() -> [T; SLOTS] {
            std::array::from_fn(|_| T::default())
        }
        Self {
            clock: Default::default(),
            load: Default::default(),
            words: std::array::from_fn(|_| Default::default()),
            w16: Default::default(),
            w16_q: Default::default(),
            sym: arr(),
            words_r: std::array::from_fn(|_| Default::default()),
            w16_r: Default::default(),
            packed: arr(),
            mask_hi: Default::default(),
            mask_lo: Default::default(),
            nonzero: Default::default(),
            zero_flag: arr(),
            zeros2: std::array::from_fn(|_| Default::default()),
            zeros4: std::array::from_fn(|_| Default::default()),
            zeros8: std::array::from_fn(|_| Default::default()),
            ks1: std::array::from_fn(|_| Default::default()),
            ks2: std::array::from_fn(|_| Default::default()),
            ks3: std::array::from_fn(|_| Default::default()),
            group_before: std::array::from_fn(|_| Default::default()),
            in_group: arr(),
            zeros_before: arr(),
            zb_t: Default::default(),
            shift0: arr(),
            shift1: arr(),
            shift2: arr(),
            shift3: arr(),
            shift4: arr(),
            shift5: arr(),
            stage1: arr(),
            stage2: arr(),
            stage3: arr(),
            stage4: arr(),
            stage5: arr(),
            sym_l: arr(),
            packed_l: arr(),
            mask_hi_l: Default::default(),
            mask_lo_l: Default::default(),
        }
    }
}

impl Logic for Compactor {
    #[hdl_gen]
    fn update(&mut self) {
        // Stage-1 register and the symbol view.
        dff_setup!(self, clock, w16_r);
        for k in 0..32 {
            self.words_r[k].clock.next = self.clock.val();
            self.words_r[k].d.next = self.words_r[k].q.val();
            if self.load.val() {
                self.words_r[k].d.next = self.words[k].val();
            }
        }
        if self.load.val() {
            self.w16_r.d.next = self.w16.val();
        }
        self.w16_q.next = self.w16_r.q.val();
        for i in 0..32 {
            self.sym_l[i].next = self.words_r[i].q.val();
        }
        for i in 32..64 {
            self.sym_l[i].next = bits::<32>(0);
        }
        if self.w16_r.q.val() {
            for i in 0..32 {
                self.sym_l[2 * i].next = self.words_r[i].q.val() & 0xFFFF;
                self.sym_l[2 * i + 1].next = self.words_r[i].q.val() >> 16;
            }
        }

        // Mask, count and the shift of every nonzero symbol (zero symbols do not move). The
        // shift is the number of zeros before the symbol, from a prefix tree: zero counts of
        // pairs, quads and groups of 8 (levels 1–3), a 3-level Kogge–Stone prefix over the 8
        // group counts, then the group prefix plus the zeros before the symbol in its group.
        for i in 0..64 {
            self.zero_flag[i].next = bits::<7>(0);
            if !self.sym_l[i].val().any() {
                self.zero_flag[i].next = bits::<7>(1);
            }
        }
        for g in 0..32 {
            self.zeros2[g].next = self.zero_flag[2 * g].val() + self.zero_flag[2 * g + 1].val();
        }
        for g in 0..16 {
            self.zeros4[g].next = self.zeros2[2 * g].val() + self.zeros2[2 * g + 1].val();
        }
        for g in 0..8 {
            self.zeros8[g].next = self.zeros4[2 * g].val() + self.zeros4[2 * g + 1].val();
        }
        self.ks1[0].next = self.zeros8[0].val();
        for g in 1..8 {
            self.ks1[g].next = self.zeros8[g].val() + self.zeros8[g - 1].val();
        }
        for g in 0..2 {
            self.ks2[g].next = self.ks1[g].val();
        }
        for g in 2..8 {
            self.ks2[g].next = self.ks1[g].val() + self.ks1[g - 2].val();
        }
        for g in 0..4 {
            self.ks3[g].next = self.ks2[g].val();
        }
        for g in 4..8 {
            self.ks3[g].next = self.ks2[g].val() + self.ks2[g - 4].val();
        }
        // Zeros before each group (exclusive prefix) and before each symbol inside its group.
        self.group_before[0].next = bits::<7>(0);
        for g in 1..8 {
            self.group_before[g].next = self.ks3[g - 1].val();
        }
        for g in 0..8 {
            self.in_group[8 * g].next = bits::<7>(0);
            self.in_group[8 * g + 1].next = self.zero_flag[8 * g].val();
            self.in_group[8 * g + 2].next = self.zeros2[4 * g].val();
            self.in_group[8 * g + 3].next = self.zeros2[4 * g].val() + self.zero_flag[8 * g + 2].val();
            self.in_group[8 * g + 4].next = self.zeros4[2 * g].val();
            self.in_group[8 * g + 5].next = self.zeros4[2 * g].val() + self.zero_flag[8 * g + 4].val();
            self.in_group[8 * g + 6].next = self.zeros4[2 * g].val() + self.zeros2[4 * g + 2].val();
            self.in_group[8 * g + 7].next =
                self.zeros4[2 * g].val() + (self.zeros2[4 * g + 2].val() + self.zero_flag[8 * g + 6].val());
        }
        for g in 0..8 {
            for o in 0..8 {
                self.zeros_before[8 * g + o].next = self.group_before[g].val() + self.in_group[8 * g + o].val();
            }
        }
        for i in 0..64 {
            self.shift0[i].next = bits::<6>(0);
            self.zb_t.next = self.zeros_before[i].val();
            if self.sym_l[i].val().any() {
                self.shift0[i].next = bit_cast::<6, 7>(self.zb_t.val());
            }
        }
        self.mask_hi_l.next = bits::<32>(0);
        self.mask_lo_l.next = bits::<32>(0);
        for i in 0..32 {
            self.mask_hi_l.next = self.mask_hi_l.val().replace_bit(31 - i, self.sym_l[i].val().any());
            self.mask_lo_l.next = self.mask_lo_l.val().replace_bit(31 - i, self.sym_l[i + 32].val().any());
        }
        self.nonzero.next = bits::<7>(64) - self.ks3[7].val();

        // Stage s moves a symbol down by 2^s slots when bit s of its shift is set.
        for i in 0..63 {
            self.stage1[i].next = bits::<32>(0);
            self.shift1[i].next = bits::<6>(0);
            if self.shift0[i + 1].val().get_bit(0) {
                self.stage1[i].next = self.sym_l[i + 1].val();
                self.shift1[i].next = self.shift0[i + 1].val();
            }
            if !self.shift0[i].val().get_bit(0) {
                self.stage1[i].next = self.stage1[i].val() | self.sym_l[i].val();
                self.shift1[i].next = self.shift1[i].val() | self.shift0[i].val();
            }
        }
        self.stage1[63].next = bits::<32>(0);
        self.shift1[63].next = bits::<6>(0);
        if !self.shift0[63].val().get_bit(0) {
            self.stage1[63].next = self.sym_l[63].val();
            self.shift1[63].next = self.shift0[63].val();
        }
        for i in 0..62 {
            self.stage2[i].next = bits::<32>(0);
            self.shift2[i].next = bits::<6>(0);
            if self.shift1[i + 2].val().get_bit(1) {
                self.stage2[i].next = self.stage1[i + 2].val();
                self.shift2[i].next = self.shift1[i + 2].val();
            }
            if !self.shift1[i].val().get_bit(1) {
                self.stage2[i].next = self.stage2[i].val() | self.stage1[i].val();
                self.shift2[i].next = self.shift2[i].val() | self.shift1[i].val();
            }
        }
        for i in 62..64 {
            self.stage2[i].next = bits::<32>(0);
            self.shift2[i].next = bits::<6>(0);
            if !self.shift1[i].val().get_bit(1) {
                self.stage2[i].next = self.stage2[i].val() | self.stage1[i].val();
                self.shift2[i].next = self.shift2[i].val() | self.shift1[i].val();
            }
        }
        for i in 0..60 {
            self.stage3[i].next = bits::<32>(0);
            self.shift3[i].next = bits::<6>(0);
            if self.shift2[i + 4].val().get_bit(2) {
                self.stage3[i].next = self.stage2[i + 4].val();
                self.shift3[i].next = self.shift2[i + 4].val();
            }
            if !self.shift2[i].val().get_bit(2) {
                self.stage3[i].next = self.stage3[i].val() | self.stage2[i].val();
                self.shift3[i].next = self.shift3[i].val() | self.shift2[i].val();
            }
        }
        for i in 60..64 {
            self.stage3[i].next = bits::<32>(0);
            self.shift3[i].next = bits::<6>(0);
            if !self.shift2[i].val().get_bit(2) {
                self.stage3[i].next = self.stage3[i].val() | self.stage2[i].val();
                self.shift3[i].next = self.shift3[i].val() | self.shift2[i].val();
            }
        }
        for i in 0..56 {
            self.stage4[i].next = bits::<32>(0);
            self.shift4[i].next = bits::<6>(0);
            if self.shift3[i + 8].val().get_bit(3) {
                self.stage4[i].next = self.stage3[i + 8].val();
                self.shift4[i].next = self.shift3[i + 8].val();
            }
            if !self.shift3[i].val().get_bit(3) {
                self.stage4[i].next = self.stage4[i].val() | self.stage3[i].val();
                self.shift4[i].next = self.shift4[i].val() | self.shift3[i].val();
            }
        }
        for i in 56..64 {
            self.stage4[i].next = bits::<32>(0);
            self.shift4[i].next = bits::<6>(0);
            if !self.shift3[i].val().get_bit(3) {
                self.stage4[i].next = self.stage4[i].val() | self.stage3[i].val();
                self.shift4[i].next = self.shift4[i].val() | self.shift3[i].val();
            }
        }
        for i in 0..48 {
            self.stage5[i].next = bits::<32>(0);
            self.shift5[i].next = false;
            if self.shift4[i + 16].val().get_bit(4) {
                self.stage5[i].next = self.stage4[i + 16].val();
                self.shift5[i].next = self.shift4[i + 16].val().get_bit(5);
            }
            if !self.shift4[i].val().get_bit(4) {
                self.stage5[i].next = self.stage5[i].val() | self.stage4[i].val();
                self.shift5[i].next = self.shift5[i].val() | self.shift4[i].val().get_bit(5);
            }
        }
        for i in 48..64 {
            self.stage5[i].next = bits::<32>(0);
            self.shift5[i].next = false;
            if !self.shift4[i].val().get_bit(4) {
                self.stage5[i].next = self.stage4[i].val();
                self.shift5[i].next = self.shift4[i].val().get_bit(5);
            }
        }
        for i in 0..32 {
            self.packed_l[i].next = bits::<32>(0);
            if self.shift5[i + 32].val() {
                self.packed_l[i].next = self.stage5[i + 32].val();
            }
            if !self.shift5[i].val() {
                self.packed_l[i].next = self.packed_l[i].val() | self.stage5[i].val();
            }
        }
        for i in 32..64 {
            self.packed_l[i].next = bits::<32>(0);
            if !self.shift5[i].val() {
                self.packed_l[i].next = self.stage5[i].val();
            }
        }

        // Every output is written once, from its local: a port written several times per
        // evaluation glitches, and in an event-driven simulator (Icarus) glitches ping-ponging
        // between this block and the lane never settle (docs/HARDWARE.md, "Icarus-safe").
        for i in 0..64 {
            self.sym[i].next = self.sym_l[i].val();
            self.packed[i].next = self.packed_l[i].val();
        }
        self.mask_hi.next = self.mask_hi_l.val();
        self.mask_lo.next = self.mask_lo_l.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Loads `words` (with the width flag) and returns packed symbols, mask, count.
    fn run(c: &mut Compactor, words: &[u32; 32], w16: bool) -> (Vec<u32>, u64, u32) {
        for (k, w) in words.iter().enumerate() {
            c.words[k].next = (*w as u64).into();
        }
        c.w16.next = w16;
        c.load.next = true;
        for level in [true, false] {
            c.clock.next = Clock { clk: level };
            assert!(simulate(c, 100));
        }
        let packed = c.packed.iter().map(|p| p.val().to_u32()).collect();
        let mask = ((c.mask_hi.val().to_u32() as u64) << 32) | c.mask_lo.val().to_u32() as u64;
        (packed, mask, c.nonzero.val().to_u32())
    }

    #[test]
    fn moves_the_nonzeros_to_the_front_in_order_like_a_reference_model() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut c = Compactor::default();
        c.connect_all();
        check_all(&c).unwrap();
        for trial in 0..400 {
            let w16 = trial % 2 == 1;
            let density = rng.gen_range(0.0..1.0);
            let words: [u32; 32] = std::array::from_fn(|_| {
                let half = |r: &mut ChaCha8Rng| {
                    if r.gen_bool(density) {
                        r.gen_range(1..=0xFFFFu32)
                    } else {
                        0
                    }
                };
                if w16 {
                    half(&mut rng) | (half(&mut rng) << 16)
                } else if rng.gen_bool(density) {
                    rng.r#gen::<u32>() | 1
                } else {
                    0
                }
            });
            let syms: Vec<u32> = if w16 {
                words.iter().flat_map(|w| [w & 0xFFFF, w >> 16]).collect()
            } else {
                words.to_vec()
            };
            let mut expected: Vec<u32> = syms.iter().copied().filter(|&s| s != 0).collect();
            let n = expected.len() as u32;
            expected.resize(64, 0);
            let mask = syms
                .iter()
                .enumerate()
                .fold(0u64, |m, (i, &s)| m | (((s != 0) as u64) << (63 - i)));
            assert_eq!(run(&mut c, &words, w16), (expected, mask, n), "trial {trial}");
        }
    }
}
