//! The size model with symbols packed several to a 64-bit word (SWAR) and blocks side by side:
//! four 16-bit or two 32-bit symbols per lane word, sixteen words per block, every plane
//! statistic of [`crate::golden::size`] computed lane-wise and folded across lanes at the end;
//! and `K` blocks at once in the `K` lanes of a [`W<K>`] (K = 1 portable, 4 on AVX2, 8 on
//! AVX-512, [`Path`]), since no statistic crosses a block boundary.
//!
//! What the golden model computes per value, this computes per lane:
//! * `y = x ^ (x >> 1)` within a lane (the XORed plane bits);
//! * the OR of `x` (which pre-XOR planes are nonzero), the AND of `y` (all-ones planes), a
//!   saturating 0/1/2/≥3 count of ones per plane, and whether a plane has two ones at
//!   neighbouring values;
//! * DBX deltas by SWAR subtraction: the low `w` bits per lane, the borrow (bit `w`) kept in the
//!   lanes' top bits, which is exactly the top plane (its count, OR, AND and adjacency computed
//!   in place, without gathering it);
//! * ZBX's statistics of the compacted nonzeros equal BX's except the AND (zeros masked out) and
//!   the adjacency (neighbours in compacted order), which is computed by a scalar pass per block
//!   only when it can matter (some plane of the nonzeros has exactly two ones).
//!
//! The per-block tail (the plane-case arithmetic of [`plane_bits`]) is scalar.

use super::path::Path;
use super::wide::W;
use crate::golden::block::planes::{PlaneGeometry, base_bits};
use crate::golden::size::BlockSizes;
use crate::golden::width::{BLOCK_BYTES, SymbolWidth};

/// 64-bit lane words per 128-byte block.
pub const WORDS: usize = BLOCK_BYTES / 8;

/// Blocks per batch of the AVX2 path (a 256-bit register of 64-bit words).
const AVX2_BLOCKS: usize = 4;
/// Blocks per batch of the AVX-512 path.
const AVX512_BLOCKS: usize = 8;

/// The 16 little-endian 64-bit words of a block: word `k` holds symbols `k·64/w …` in lanes of
/// `w` bits, the first symbol in the least significant lane.
#[inline(always)]
pub fn load_words(block: &[u8; BLOCK_BYTES]) -> [u64; WORDS] {
    std::array::from_fn(|i| u64::from_le_bytes(block[8 * i..8 * i + 8].try_into().expect("8 bytes")))
}

/// Word `i` of `K` consecutive blocks starting at `blocks[0]`, one block per lane.
#[inline(always)]
fn load_batch<const K: usize>(blocks: &[u8]) -> [W<K>; WORDS] {
    let mut x = [W::default(); WORDS];
    for b in 0..K {
        let block = &blocks[BLOCK_BYTES * b..BLOCK_BYTES * (b + 1)];
        for (i, word) in block.chunks_exact(8).enumerate() {
            x[i].0[b] = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        }
    }
    x
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
struct Counts<const K: usize> {
    one: W<K>,
    two: W<K>,
    three: W<K>,
}

impl<const K: usize> Counts<K> {
    #[inline(always)]
    fn merge(a: Self, b: Self) -> Self {
        Counts { one: a.one | b.one, two: a.two | b.two | (a.one & b.one), three: a.three | b.three | (a.two & b.one) | (a.one & b.two) }
    }

    /// The counts with one more word `v` counted.
    #[inline(always)]
    fn add(self, v: W<K>) -> Self {
        Counts { one: self.one | v, two: self.two | (self.one & v), three: self.three | (self.two & v) }
    }

    /// Folds the lanes of `LB` bits into one lane (the counts of all values).
    #[inline(always)]
    fn fold<const LB: u32>(self) -> Self {
        let mut c = self;
        let mut width = 32;
        while width >= LB {
            let mask = W::splat((1u64 << width) - 1);
            let lo = Counts { one: c.one & mask, two: c.two & mask, three: c.three & mask };
            let hi = Counts { one: c.one >> width, two: c.two >> width, three: c.three >> width };
            c = Self::merge(lo, hi);
            width /= 2;
        }
        c
    }

    /// Lane `b`'s counts.
    #[inline(always)]
    fn lane(&self, b: usize) -> Counts<1> {
        Counts { one: W([self.one.0[b]]), two: W([self.two.0[b]]), three: W([self.three.0[b]]) }
    }
}

/// OR of the lanes of `v` (lane width `LB`).
#[inline(always)]
fn fold_or<const LB: u32, const K: usize>(mut v: W<K>) -> W<K> {
    let mut width = 32;
    while width >= LB {
        v = v | (v >> width);
        width /= 2;
    }
    v & W::splat(Lanes::<LB>::LANE0)
}

/// AND of the lanes of `v` (lane width `LB`).
#[inline(always)]
fn fold_and<const LB: u32, const K: usize>(mut v: W<K>) -> W<K> {
    let mut width = 32;
    while width >= LB {
        v = v & ((v >> width) | W::splat(u64::MAX << (64 - width)));
        width /= 2;
    }
    v & W::splat(Lanes::<LB>::LANE0)
}

/// Per-plane summaries of one value sequence, bit `j` describing plane `j`.
#[derive(Clone, Copy)]
struct Summary {
    or_x: u64,
    and_y: u64,
    counts: Counts<1>,
}

/// Plane bits of a sequence with summary `s`, `P = planes`, `L = plane_bits`, and the adjacency
/// (bit `j` set ⇔ plane `j` has ones at two neighbouring values), asked for only when some plane
/// has exactly two ones. Same arithmetic as the golden model's `plane_bits`.
#[inline(always)]
fn plane_bits(s: Summary, planes: u32, plane_bits: u32, adjacency: impl FnOnce() -> u64) -> u32 {
    let (one, two, three) = (s.counts.one.0[0], s.counts.two.0[0], s.counts.three.0[0]);
    let geo = PlaneGeometry { planes, plane_bits };
    let all = (1u64 << planes) - 1;
    let zero = !one & all;
    let runs = (zero & !(zero >> 1)).count_ones();
    let singles = (zero & !(zero >> 1) & !(zero << 1)).count_ones();
    let all_ones = one & s.and_y;
    let dbp_zero = one & !all_ones & !s.or_x;
    let rest = one & !all_ones & !dbp_zero;
    let exactly_two = rest & two & !three;
    let adjacent = if exactly_two != 0 { adjacency() } else { 0 };
    let one_or_two = rest & ((one & !two) | (exactly_two & adjacent));
    let verbatim = rest & !one_or_two;
    3 * singles
        + (2 + geo.run_field_bits()) * (runs - singles)
        + 5 * (all_ones.count_ones() + dbp_zero.count_ones())
        + (5 + geo.pos_field_bits()) * one_or_two.count_ones()
        + (1 + geo.plane_bits) * verbatim.count_ones()
}

/// Adjacency of the nonzero values in compacted order: each nonzero value against the previous
/// nonzero one (zeros have `y = 0` and are skipped).
#[inline(never)]
fn compacted_adjacency<const LB: u32>(block: &[u8]) -> u64 {
    let mut adj = 0u64;
    let mut last = 0u64;
    for word in block.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))) {
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

/// Everything the per-block tail needs, lane `b` for block `b`; plane masks folded to one lane.
struct Stats<const K: usize> {
    /// The first symbol (DBX's base).
    s0: W<K>,
    /// OR of the symbols.
    or_x: W<K>,
    /// AND of the symbols' XORed planes.
    and_y: W<K>,
    /// Counts of the symbols' XORed planes.
    counts: Counts<K>,
    /// Adjacency of the symbols' XORed planes.
    adj: W<K>,
    /// AND of the nonzero symbols' XORed planes.
    and_y_nz: W<K>,
    /// Number of nonzero symbols.
    nonzero: W<K>,
    /// OR of the low `w` bits of the deltas.
    or_d: W<K>,
    /// AND of the deltas' XORed low planes (delta 0 excluded).
    and_yd: W<K>,
    /// Counts of the deltas' XORed low planes.
    dcounts: Counts<K>,
    /// Adjacency of the deltas' XORed low planes.
    adj_d: W<K>,
    /// Ones of the borrow plane.
    borrow_ones: W<K>,
    /// The borrow plane is all ones (delta 0 excluded): zero iff so.
    borrow_all: W<K>,
    /// The borrow plane has two neighbouring ones: nonzero iff so.
    borrow_adj: W<K>,
}

/// The lane statistics of `K` blocks of `LB`-bit symbols given as lane words.
#[inline(always)]
fn stats<const LB: u32, const K: usize>(x: &[W<K>; WORDS]) -> Stats<K> {
    let high = W::splat(Lanes::<LB>::HIGH);
    let not_high = W::splat(!Lanes::<LB>::HIGH);
    let lane0 = W::splat(Lanes::<LB>::LANE0);
    let ones = W::splat(u64::MAX);
    let zero = W::splat(0);

    // One pass over the words, every statistic accumulated as it goes (so nothing but the
    // accumulators stays live: no spills at K = 8). BX (and the order-free part of ZBX), and
    // DBX: the previous symbol of every lane, SWAR difference and borrow.
    let (mut or_x, mut and_y, mut and_y_nz, mut nonzero) = (zero, ones, ones, zero);
    let (mut counts, mut adj, mut y_last) = (Counts::default(), zero, zero);
    let (mut or_d, mut and_yd, mut dcounts, mut adj_d, mut yd_last) = (zero, ones, Counts::default(), zero, zero);
    let (mut borrow_ones, mut borrow_and, mut borrow_adj, mut borrow_last) = (zero, ones, zero, zero);
    for i in 0..WORDS {
        let xi = x[i];
        let y = xi ^ ((xi >> 1) & not_high);
        // Top bit of each lane set iff the lane is nonzero; then the lane's full mask.
        let nz_high = (((xi & not_high).add(not_high)) | xi) & high;
        let y_nz = y | !(nz_high | nz_high.sub(nz_high >> (LB - 1)));
        let prev = (xi << LB) | if i == 0 { xi & lane0 } else { x[i - 1] >> (64 - LB) };
        let diff = ((xi | high).sub(prev & not_high)) ^ ((xi ^ !prev) & high);
        let borrow = ((!xi & prev) | (!(xi ^ prev) & diff)) & high;
        let yd = diff ^ ((diff >> 1) & not_high) ^ borrow;

        or_x = or_x | xi;
        and_y = and_y & y;
        and_y_nz = and_y_nz & y_nz;
        nonzero = nonzero.add(nz_high >> (LB - 1));
        counts = counts.add(y);
        adj = adj | (y & ((y << LB) | (y_last >> (64 - LB))));
        y_last = y;

        or_d = or_d | diff;
        // Delta 0 does not exist: its lane (d = 0, no borrow) must not clear the ANDs.
        and_yd = and_yd & if i == 0 { yd | lane0 } else { yd };
        dcounts = dcounts.add(yd);
        adj_d = adj_d | (yd & ((yd << LB) | (yd_last >> (64 - LB))));
        yd_last = yd;
        borrow_ones = borrow_ones.add(borrow >> (LB - 1));
        borrow_and = borrow_and & if i == 0 { borrow | (high & lane0) } else { borrow };
        borrow_adj = borrow_adj | (borrow & ((borrow << LB) | (borrow_last >> (64 - LB))));
        borrow_last = borrow;
    }

    Stats {
        s0: x[0] & lane0,
        or_x: fold_or::<LB, K>(or_x),
        and_y: fold_and::<LB, K>(and_y),
        counts: counts.fold::<LB>(),
        adj: fold_or::<LB, K>(adj),
        and_y_nz: fold_and::<LB, K>(and_y_nz),
        nonzero: sum_lanes::<LB, K>(nonzero),
        or_d: fold_or::<LB, K>(or_d),
        and_yd: fold_and::<LB, K>(and_yd),
        dcounts: dcounts.fold::<LB>(),
        adj_d: fold_or::<LB, K>(adj_d),
        borrow_ones: sum_lanes::<LB, K>(borrow_ones),
        borrow_all: (borrow_and & high) ^ high,
        borrow_adj: fold_or::<LB, K>(borrow_adj),
    }
}

/// Sum of the lanes of `v` (lane width `LB`; each lane < 2^15).
#[inline(always)]
fn sum_lanes<const LB: u32, const K: usize>(v: W<K>) -> W<K> {
    let mut v = v.add(v >> 32);
    if LB == 16 {
        v = v.add(v >> 16);
    }
    v & W::splat(0xFFFF)
}

/// Payload bits of the four codes of block `b` of a batch from its statistics; `words` yields
/// the block's bytes (read only for ZBX's compacted adjacency, when it can matter).
#[inline(always)]
fn finish<'a, const LB: u32, const K: usize>(st: &Stats<K>, b: usize, block: impl FnOnce() -> &'a [u8]) -> BlockSizes {
    let n_sym = Lanes::<LB>::COUNT * WORDS as u32;
    let bx_summary = Summary { or_x: st.or_x.0[b], and_y: st.and_y.0[b], counts: st.counts.lane(b) };
    let adj = st.adj.0[b];
    let bx = plane_bits(bx_summary, LB, n_sym, || adj);
    let nonzero = st.nonzero.0[b] as u32;
    let zbx = n_sym
        + match nonzero {
            0 => 0,
            n if n == n_sym => bx,
            n => plane_bits(Summary { and_y: st.and_y_nz.0[b], ..bx_summary }, LB, n, || compacted_adjacency::<LB>(block())),
        };

    let w_bit = 1u64 << LB;
    let set = |flag: bool| if flag { w_bit } else { 0 };
    let ones_w = st.borrow_ones.0[b];
    let dc = st.dcounts.lane(b);
    let dc = Counts {
        one: dc.one | W([set(ones_w >= 1)]),
        two: dc.two | W([set(ones_w >= 2)]),
        three: dc.three | W([set(ones_w >= 3)]),
    };
    let dbx_summary = Summary { or_x: st.or_d.0[b] | set(ones_w != 0), and_y: st.and_yd.0[b] | set(st.borrow_all.0[b] == 0), counts: dc };
    let adj_d = st.adj_d.0[b] | set(st.borrow_adj.0[b] != 0);
    let dbx_planes = plane_bits(dbx_summary, LB + 1, n_sym - 1, || adj_d);
    let width = if LB == 16 { SymbolWidth::W16 } else { SymbolWidth::W32 };
    BlockSizes { zvc: n_sym + nonzero * LB, dbx: base_bits(st.s0.0[b] as u32, width) + dbx_planes, bx, zbx }
}

/// Payload bits of all four codes for one block, equal to [`crate::golden::block_sizes`]
/// (the portable path).
#[inline(always)]
pub fn block_sizes(block: &[u8; BLOCK_BYTES], width: SymbolWidth) -> BlockSizes {
    match width {
        SymbolWidth::W16 => batch::<16, 1>(block)[0],
        SymbolWidth::W32 => batch::<32, 1>(block)[0],
    }
}

/// Sizes of the `K` blocks at the start of `blocks`.
#[inline(always)]
fn batch<const LB: u32, const K: usize>(blocks: &[u8]) -> [BlockSizes; K] {
    let x = load_batch::<K>(blocks);
    let st = stats::<LB, K>(&x);
    let mut out = [BlockSizes::default(); K];
    for (b, o) in out.iter_mut().enumerate() {
        *o = finish::<LB, K>(&st, b, || &blocks[BLOCK_BYTES * b..BLOCK_BYTES * (b + 1)]);
    }
    out
}

/// Sizes of the whole blocks of `data`, `K` at a time, the last `< K` one by one, appended.
#[inline(always)]
fn run<const LB: u32, const K: usize>(data: &[u8], out: &mut Vec<BlockSizes>) {
    let mut groups = data.chunks_exact(K * BLOCK_BYTES);
    for g in &mut groups {
        out.extend_from_slice(&batch::<LB, K>(g));
    }
    for b in groups.remainder().chunks_exact(BLOCK_BYTES) {
        out.push(batch::<LB, 1>(b)[0]);
    }
}

/// [`run`] for either width.
#[inline(always)]
fn run_width<const K: usize>(data: &[u8], width: SymbolWidth, out: &mut Vec<BlockSizes>) {
    match width {
        SymbolWidth::W16 => run::<16, K>(data, out),
        SymbolWidth::W32 => run::<32, K>(data, out),
    }
}

/// [`run_width`] with four blocks per 256-bit register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
fn run_avx2(data: &[u8], width: SymbolWidth, out: &mut Vec<BlockSizes>) {
    run_width::<AVX2_BLOCKS>(data, width, out)
}

/// [`run_width`] with eight blocks per 512-bit register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vpopcntdq")]
fn run_avx512(data: &[u8], width: SymbolWidth, out: &mut Vec<BlockSizes>) {
    run_width::<AVX512_BLOCKS>(data, width, out)
}

/// The sizes of the whole blocks of `data` on `path`, appended to `out`.
///
/// # Panics
/// If `path` is not available on this CPU ([`Path::is_available`]).
#[allow(unsafe_code)]
fn whole_blocks(path: Path, data: &[u8], width: SymbolWidth, out: &mut Vec<BlockSizes>) {
    assert!(path.is_available(), "{path:?} is not available on this CPU");
    match path {
        Path::Portable => run_width::<1>(data, width, out),
        // SAFETY: the path's CPU features were detected just above (`Path::is_available`).
        #[cfg(target_arch = "x86_64")]
        Path::Avx2 => unsafe { run_avx2(data, width, out) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Path::Avx512 => unsafe { run_avx512(data, width, out) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("only the portable path is available off x86-64"),
    }
}

/// The sizes of every block of `data` on `path` (a final partial block zero-padded, FORMAT.md
/// §7), written to `out` (cleared first).
///
/// # Panics
/// If `path` is not available on this CPU ([`Path::is_available`]).
pub fn blocks_sizes_into_with(path: Path, data: &[u8], width: SymbolWidth, out: &mut Vec<BlockSizes>) {
    out.clear();
    out.reserve(data.len().div_ceil(BLOCK_BYTES));
    let whole = data.len() / BLOCK_BYTES * BLOCK_BYTES;
    whole_blocks(path, &data[..whole], width, out);
    let tail = &data[whole..];
    if !tail.is_empty() {
        let mut padded = [0u8; BLOCK_BYTES];
        padded[..tail.len()].copy_from_slice(tail);
        out.push(block_sizes(&padded, width));
    }
}

/// [`blocks_sizes_into_with`] on the fastest path of this CPU ([`Path::detect`]).
pub fn blocks_sizes_into(data: &[u8], width: SymbolWidth, out: &mut Vec<BlockSizes>) {
    blocks_sizes_into_with(Path::detect(), data, width, out)
}
