//! The decompressor lane's rebuild stage: one decoded block's fields (the pre-XOR planes, the
//! ZVC symbols or raw words, the nonzero mask, the DBX base) in, the block's 32 little-endian
//! words out (FORMAT.md §4–§5 inverted). Outside the decode loop: transpose of the planes into
//! values, DBX prefix sum with its range check, and the ZVC/ZBX expansion of the compacted
//! nonzeros to their mask positions.
//!
//! The block holds its own input flops (loaded by `load`) and is combinational from them to its
//! outputs, so no combinational path runs through it.

use super::{arr, d};
use rust_hdl::prelude::*;

/// Kind of item the stage holds: the block tags of FORMAT.md §4 (0 ZVC, 1 DBX, 2 BX, 3 ZBX,
/// 4 raw block), and this pass-through value for one 32-byte beat of a raw chunk.
pub const KIND_PASS: u64 = 5;
/// Planes the stage stores: w + 1 = 33 for DBX with 32-bit symbols.
pub const PLANES: usize = 33;
/// Symbol slots of a block (64 for 16-bit symbols).
pub const SLOTS: usize = 64;

fn rank_constants() -> [Constant<Bits<7>>; SLOTS] {
    std::array::from_fn(|k| Constant::new((k as u64).into()))
}

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
    /// The rebuilt block (or the pass-through beat in words 0–7) as little-endian words.
    pub words: [Signal<Out, Bits<32>>; 32] = arr(),
    /// The held item is a DBX block with a delta that leaves `[0, 2^w)` (FORMAT.md §4.2).
    pub delta_err: Signal<Out, Bit> = d(),
    kind_q: DFF<Bits<3>> = d(),
    w16_q: DFF<Bit> = d(),
    hi_q: [DFF<Bits<32>>; PLANES] = arr(),
    lo_q: [DFF<Bits<32>>; PLANES] = arr(),
    sym_q: [DFF<Bits<32>>; SLOTS] = arr(),
    mask_hi_q: DFF<Bits<32>> = d(),
    mask_lo_q: DFF<Bits<32>> = d(),
    base_q: DFF<Bits<32>> = d(),
    rank_index: [Constant<Bits<7>>; SLOTS] = rank_constants(),
    vals: [Signal<Local, Bits<32>>; SLOTS] = arr(),
    borrow: [Signal<Local, Bit>; SLOTS - 1] = arr(),
    nz: [Signal<Local, Bit>; SLOTS] = arr(),
    rank: [Signal<Local, Bits<7>>; SLOTS] = arr(),
    packed: [Signal<Local, Bits<32>>; SLOTS] = arr(),
    expanded: [Signal<Local, Bits<32>>; SLOTS] = arr(),
    run: [Signal<Local, Bits<32>>; SLOTS] = arr(),
    sum: Signal<Local, Bits<32>> = d(),
    carry: Signal<Local, Bit> = d(),
    low: Signal<Local, Bits<32>> = d(),
    bor: Signal<Local, Bit> = d(),
    err_l: Signal<Local, Bit> = d(),
    syms: [Signal<Local, Bits<32>>; SLOTS] = arr(),
    words_l: [Signal<Local, Bits<32>>; 32] = arr(),
}
}

impl Logic for BlockRebuild {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, kind_q, w16_q, mask_hi_q, mask_lo_q, base_q);
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
        if self.load.val() {
            self.kind_q.d.next = self.kind.val();
            self.w16_q.d.next = self.w16.val();
            self.mask_hi_q.d.next = self.mask_hi.val();
            self.mask_lo_q.d.next = self.mask_lo.val();
            self.base_q.d.next = self.base.val();
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
            self.borrow[m].next = self.hi_q[32].q.val().get_bit(31 - m);
        }
        for m in 32..63 {
            self.borrow[m].next = false;
        }

        // ---- expansion (ZVC, ZBX): symbol i is the rank(i)-th compacted nonzero if its mask
        // bit is set; rank(i) = mask bits set before i.
        for i in 0..32 {
            self.nz[i].next = self.mask_hi_q.q.val().get_bit(31 - i);
            self.nz[i + 32].next = self.mask_lo_q.q.val().get_bit(31 - i);
        }
        self.rank[0].next = bits::<7>(0);
        for i in 1..64 {
            self.rank[i].next = self.rank[i - 1].val();
            if self.nz[i - 1].val() {
                self.rank[i].next = self.rank[i - 1].val() + 1;
            }
        }
        for i in 0..64 {
            self.packed[i].next = self.vals[i].val();
            if self.kind_q.q.val() == 0 {
                self.packed[i].next = self.sym_q[i].q.val();
            }
        }
        for i in 0..64 {
            self.expanded[i].next = bits::<32>(0);
            if self.nz[i].val() {
                for r in 0..64 {
                    if self.rank[i].val() == self.rank_index[r].val() {
                        self.expanded[i].next = self.packed[r].val();
                    }
                }
            }
        }

        // ---- DBX: s[k] = s[k−1] + d[k]; the borrow (bit w of the delta) must equal the carry
        // out of the w-bit sum, else the symbol leaves [0, 2^w).
        self.run[0].next = self.base_q.q.val();
        self.err_l.next = false;
        for k in 1..64 {
            self.low.next = self.vals[k - 1].val();
            self.bor.next = self.borrow[k - 1].val();
            if self.w16_q.q.val() {
                self.low.next = self.vals[k - 1].val() & 0xFFFF;
                self.bor.next = self.vals[k - 1].val().get_bit(16);
            }
            self.sum.next = self.run[k - 1].val() + self.low.val();
            self.carry.next = self.sum.val() < self.run[k - 1].val();
            self.run[k].next = self.sum.val();
            if self.w16_q.q.val() {
                self.carry.next = self.sum.val().get_bit(16);
                self.run[k].next = self.sum.val() & 0xFFFF;
            }
            if (self.carry.val() != self.bor.val()) & (self.w16_q.q.val() | (k < 32)) {
                self.err_l.next = true;
            }
        }

        // ---- the block's symbols by kind, then its words
        for i in 0..64 {
            self.syms[i].next = self.vals[i].val();
            if (self.kind_q.q.val() == 0) | (self.kind_q.q.val() == 3) {
                self.syms[i].next = self.expanded[i].val();
            }
            if self.kind_q.q.val() == 1 {
                self.syms[i].next = self.run[i].val();
            }
        }
        for k in 0..32 {
            self.words_l[k].next = self.syms[k].val();
            if self.w16_q.q.val() {
                self.words_l[k].next = (self.syms[2 * k].val() & 0xFFFF) | (self.syms[2 * k + 1].val() << 16);
            }
            if self.kind_q.q.val() >= 4 {
                self.words_l[k].next = self.sym_q[k].q.val();
            }
            self.words[k].next = self.words_l[k].val();
        }
        self.delta_err.next = self.err_l.val() & (self.kind_q.q.val() == 1);
    }
}
