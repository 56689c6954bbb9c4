//! The size model with symbols packed several to a 64-bit word (SWAR): four 16-bit or two 32-bit
//! symbols per lane word, sixteen words per block, every plane statistic of
//! [`crate::golden::size`] computed lane-wise and folded across lanes at the end. The per-word
//! steps are written as element-wise loops over fixed arrays (built with `array::from_fn`, no
//! zero-fill) so that the compiler can keep them in registers and vectorise what it can.
//!
//! What the golden model computes per value, this computes per lane:
//! * `y = x ^ (x >> 1)` within a lane (the XORed plane bits);
//! * the OR of `x` (which pre-XOR planes are nonzero), the AND of `y` (all-ones planes), a
//!   saturating 0/1/2/≥3 count of ones per plane, and whether a plane has two ones at
//!   neighbouring values (needed only when some plane has exactly two ones, so computed lazily);
//! * DBX deltas by SWAR subtraction: the low `w` bits per lane, the borrow (bit `w`) kept as a
//!   separate bit mask, which is exactly the top plane;
//! * ZBX's statistics of the compacted nonzeros equal BX's except the AND (zeros masked out) and
//!   the adjacency (neighbours in compacted order), which is computed by a scalar pass only when
//!   it can matter.

use crate::golden::block::planes::{PlaneGeometry, base_bits};
use crate::golden::size::BlockSizes;
use crate::golden::width::{BLOCK_BYTES, SymbolWidth};

/// 64-bit lane words per 128-byte block.
pub const WORDS: usize = BLOCK_BYTES / 8;

/// The 16 little-endian 64-bit words of a block: word `k` holds symbols `k·64/w …` in lanes of
/// `w` bits, the first symbol in the least significant lane.
#[inline(always)]
pub fn load_words(block: &[u8; BLOCK_BYTES]) -> [u64; WORDS] {
    std::array::from_fn(|i| u64::from_le_bytes(block[8 * i..8 * i + 8].try_into().expect("8 bytes")))
}

/// Lane constants for a lane width of `LB` bits (16 or 32).
struct Lanes<const LB: u32>;

impl<const LB: u32> Lanes<LB> {
    /// Lanes per word.
    const COUNT: u32 = 64 / LB;
    /// Bit 0 of every lane.
    const LOW: u64 = if LB == 32 { 0x0000_0001_0000_0001 } else { 0x0001_0001_0001_0001 };
    /// The top bit of every lane.
    const HIGH: u64 = Self::LOW << (LB - 1);
    /// All bits of lane 0.
    const LANE0: u64 = (1u64 << LB) - 1;
}

/// Saturating per-bit counts (0, 1, 2, ≥3) of the ones at each bit position.
#[derive(Clone, Copy, Default)]
struct Counts {
    one: u64,
    two: u64,
    three: u64,
}

impl Counts {
    #[inline(always)]
    fn merge(a: Counts, b: Counts) -> Counts {
        Counts { one: a.one | b.one, two: a.two | b.two | (a.one & b.one), three: a.three | b.three | (a.two & b.one) | (a.one & b.two) }
    }

    /// Counts over 16 words, as a balanced tree (element-wise, so it vectorises).
    #[inline(always)]
    fn of_words(y: &[u64; WORDS]) -> Counts {
        let c: [Counts; WORDS / 2] = std::array::from_fn(|i| Counts { one: y[2 * i] | y[2 * i + 1], two: y[2 * i] & y[2 * i + 1], three: 0 });
        let d: [Counts; WORDS / 4] = std::array::from_fn(|i| Counts::merge(c[2 * i], c[2 * i + 1]));
        Counts::merge(Counts::merge(d[0], d[1]), Counts::merge(d[2], d[3]))
    }

    /// Folds the lanes of `LB` bits into one lane (the counts of all values).
    #[inline(always)]
    fn fold<const LB: u32>(self) -> Counts {
        let mut c = self;
        let mut width = 32;
        while width >= LB {
            let mask = (1u64 << width) - 1;
            let lo = Counts { one: c.one & mask, two: c.two & mask, three: c.three & mask };
            let hi = Counts { one: c.one >> width, two: c.two >> width, three: c.three >> width };
            c = Counts::merge(lo, hi);
            width /= 2;
        }
        c
    }
}

/// OR of the lanes of `v` (lane width `LB`).
#[inline(always)]
fn fold_or<const LB: u32>(mut v: u64) -> u64 {
    let mut width = 32;
    while width >= LB {
        v |= v >> width;
        width /= 2;
    }
    v & Lanes::<LB>::LANE0
}

/// AND of the lanes of `v` (lane width `LB`).
#[inline(always)]
fn fold_and<const LB: u32>(mut v: u64) -> u64 {
    let mut width = 32;
    while width >= LB {
        v &= v >> width | (u64::MAX << (64 - width));
        width /= 2;
    }
    v & Lanes::<LB>::LANE0
}

/// Per-plane summaries of one value sequence, bit `j` describing plane `j`.
#[derive(Clone, Copy)]
struct Summary {
    or_x: u64,
    and_y: u64,
    counts: Counts,
}

/// Plane bits of a sequence with summary `s`, `P = planes`, `L = plane_bits`, and the adjacency
/// (bit `j` set ⇔ plane `j` has ones at two neighbouring values), asked for only when some plane
/// has exactly two ones. Same arithmetic as the golden model's `plane_bits`.
#[inline(always)]
fn plane_bits(s: Summary, planes: u32, plane_bits: u32, adjacency: impl FnOnce() -> u64) -> u32 {
    let c = s.counts;
    let geo = PlaneGeometry { planes, plane_bits };
    let all = (1u64 << planes) - 1;
    let zero = !c.one & all;
    let runs = (zero & !(zero >> 1)).count_ones();
    let singles = (zero & !(zero >> 1) & !(zero << 1)).count_ones();
    let all_ones = c.one & s.and_y;
    let dbp_zero = c.one & !all_ones & !s.or_x;
    let rest = c.one & !all_ones & !dbp_zero;
    let exactly_two = rest & c.two & !c.three;
    let adjacent = if exactly_two != 0 { adjacency() } else { 0 };
    let one_or_two = rest & ((c.one & !c.two) | (exactly_two & adjacent));
    let verbatim = rest & !one_or_two;
    3 * singles
        + (2 + geo.run_field_bits()) * (runs - singles)
        + 5 * (all_ones.count_ones() + dbp_zero.count_ones())
        + (5 + geo.pos_field_bits()) * one_or_two.count_ones()
        + (1 + geo.plane_bits) * verbatim.count_ones()
}

/// Lane-wise adjacency of the values in `y` (value order = word order, then lane order).
#[inline(always)]
fn adjacency<const LB: u32>(y: &[u64; WORDS]) -> u64 {
    let mut adj = 0u64;
    let mut prev = 0u64;
    for &v in y {
        adj |= v & ((v << LB) | (prev >> (64 - LB)));
        prev = v;
    }
    fold_or::<LB>(adj)
}

/// Adjacency of the nonzero values in compacted order: each nonzero value against the previous
/// nonzero one (zeros have `y = 0` and are skipped).
fn compacted_adjacency<const LB: u32>(x: &[u64; WORDS]) -> u64 {
    let mut adj = 0u64;
    let mut last = 0u64;
    for &word in x {
        for lane in 0..Lanes::<LB>::COUNT {
            let s = (word >> (lane * LB)) & Lanes::<LB>::LANE0;
            if s != 0 {
                let y = s ^ (s >> 1);
                adj |= y & last;
                last = y;
            }
        }
    }
    adj
}

/// Payload bits of all four codes for a block given as lane words of `LB`-bit symbols.
#[inline(always)]
fn sizes_lanes<const LB: u32>(x: &[u64; WORDS]) -> BlockSizes {
    let high = Lanes::<LB>::HIGH;
    let n_sym = Lanes::<LB>::COUNT * WORDS as u32;

    // BX (and the order-free part of ZBX). Arrays built element-wise (no zero-fill first).
    let y: [u64; WORDS] = std::array::from_fn(|i| x[i] ^ ((x[i] >> 1) & !high));
    // Top bit of each lane set iff the lane is nonzero; then the lane's full mask.
    let nz_high: [u64; WORDS] = std::array::from_fn(|i| (((x[i] & !high).wrapping_add(!high)) | x[i]) & high);
    let y_nz: [u64; WORDS] = std::array::from_fn(|i| y[i] | !(nz_high[i] | (nz_high[i] - (nz_high[i] >> (LB - 1)))));
    let or_x = x.iter().fold(0, |a, &v| a | v);
    let and_y = y.iter().fold(u64::MAX, |a, &v| a & v);
    let and_y_nz = y_nz.iter().fold(u64::MAX, |a, &v| a & v);
    let nonzero: u32 = nz_high.iter().map(|v| v.count_ones()).sum();
    let counts = Counts::of_words(&y).fold::<LB>();
    let bx_summary = Summary { or_x: fold_or::<LB>(or_x), and_y: fold_and::<LB>(and_y), counts };
    let bx = plane_bits(bx_summary, LB, n_sym, || adjacency::<LB>(&y));
    let zbx = n_sym
        + match nonzero {
            0 => 0,
            n if n == n_sym => bx,
            n => plane_bits(Summary { and_y: fold_and::<LB>(and_y_nz), ..bx_summary }, LB, n, || compacted_adjacency::<LB>(x)),
        };

    // DBX: previous symbol of every lane, SWAR difference and borrow.
    let prev: [u64; WORDS] = std::array::from_fn(|i| (x[i] << LB) | if i == 0 { x[0] & Lanes::<LB>::LANE0 } else { x[i - 1] >> (64 - LB) });
    let diff: [u64; WORDS] = std::array::from_fn(|i| ((x[i] | high).wrapping_sub(prev[i] & !high)) ^ ((x[i] ^ !prev[i]) & high));
    let borrow: [u64; WORDS] = std::array::from_fn(|i| ((!x[i] & prev[i]) | (!(x[i] ^ prev[i]) & diff[i])) & high);
    let yd: [u64; WORDS] = std::array::from_fn(|i| diff[i] ^ ((diff[i] >> 1) & !high) ^ borrow[i]);
    // Delta 0 does not exist: its lane (d = 0) must not clear the AND.
    let mut and_yd = yd[0] | Lanes::<LB>::LANE0;
    for &v in &yd[1..] {
        and_yd &= v;
    }
    let or_d = diff.iter().fold(0, |a, &v| a | v);
    // The borrow plane as a bit mask, delta k at bit k.
    let mut plane_w = 0u64;
    for (i, &b) in borrow.iter().enumerate() {
        let mut t = b >> (LB - 1);
        let mut gathered = 0u64;
        for lane in 0..Lanes::<LB>::COUNT {
            gathered |= (t & 1) << lane;
            t >>= LB;
        }
        plane_w |= gathered << (i as u32 * Lanes::<LB>::COUNT);
    }
    let w_bit = 1u64 << LB;
    let set = |flag: bool| if flag { w_bit } else { 0 };
    let ones_w = plane_w.count_ones();
    let mut dc = Counts::of_words(&yd).fold::<LB>();
    dc = Counts { one: dc.one | set(ones_w >= 1), two: dc.two | set(ones_w >= 2), three: dc.three | set(ones_w >= 3) };
    let all_deltas = if n_sym == 64 { u64::MAX } else { (1u64 << n_sym) - 1 };
    let dbx_summary = Summary {
        or_x: fold_or::<LB>(or_d) | set(plane_w != 0),
        and_y: fold_and::<LB>(and_yd) | set((plane_w | 1) == all_deltas),
        counts: dc,
    };
    let dbx_planes = plane_bits(dbx_summary, LB + 1, n_sym - 1, || adjacency::<LB>(&yd) | set(plane_w & (plane_w << 1) != 0));
    let s0 = (x[0] & Lanes::<LB>::LANE0) as u32;
    let width = if LB == 16 { SymbolWidth::W16 } else { SymbolWidth::W32 };

    BlockSizes { zvc: n_sym + nonzero * LB, dbx: base_bits(s0, width) + dbx_planes, bx, zbx }
}

/// Payload bits of all four codes for one block, equal to [`crate::golden::block_sizes`].
#[inline(always)]
pub fn block_sizes(block: &[u8; BLOCK_BYTES], width: SymbolWidth) -> BlockSizes {
    let words = load_words(block);
    match width {
        SymbolWidth::W16 => sizes_lanes::<16>(&words),
        SymbolWidth::W32 => sizes_lanes::<32>(&words),
    }
}

/// The sizes of every block of `data` (a final partial block zero-padded, FORMAT.md §7), written
/// to `out` (cleared first).
pub fn blocks_sizes_into(data: &[u8], width: SymbolWidth, out: &mut Vec<BlockSizes>) {
    out.clear();
    out.reserve(data.len().div_ceil(BLOCK_BYTES));
    let mut blocks = data.chunks_exact(BLOCK_BYTES);
    for b in &mut blocks {
        out.push(block_sizes(b.try_into().expect("128 bytes"), width));
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut padded = [0u8; BLOCK_BYTES];
        padded[..tail.len()].copy_from_slice(tail);
        out.push(block_sizes(&padded, width));
    }
}
