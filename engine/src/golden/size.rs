//! The size model: payload bits of all four codes of a block, counted without writing bits
//! (the paper's "vectorized size model", §III-A Validation). Used for every bulk measurement and
//! by the encoder to pick a code; tests check it against the bit writer on every block.
//!
//! It never builds planes. For a sequence of pre-XOR values `x[m]`, the XORed plane `j` is bit `j`
//! of `y[m] = x[m] ^ (x[m] >> 1)`, so one pass of bit-parallel OR/AND/saturating-count over the
//! values classifies all planes at once: which are zero, all-ones, DBP-zero, one or two adjacent
//! ones, or verbatim (FORMAT.md §5).

use super::block::planes::{PlaneGeometry, base_bits};
use super::block::{RAW_BITS, Tag};
use super::width::{BLOCK_BYTES, MAX_SYMBOLS, SymbolWidth};

/// Payload bits (tag excluded) of each code for one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct BlockSizes {
    /// ZVC payload bits.
    pub zvc: u32,
    /// DBX payload bits.
    pub dbx: u32,
    /// BX payload bits.
    pub bx: u32,
    /// ZBX payload bits.
    pub zbx: u32,
}

impl BlockSizes {
    /// Payload bits of `tag` (1,024 for raw).
    pub fn get(&self, tag: Tag) -> u32 {
        match tag {
            Tag::Zvc => self.zvc,
            Tag::Dbx => self.dbx,
            Tag::Bx => self.bx,
            Tag::Zbx => self.zbx,
            Tag::Raw => RAW_BITS,
        }
    }

    /// The code the format chooses and its payload bits: the smallest, ties to the lowest tag,
    /// raw only when strictly smaller than every code.
    pub fn choice(&self) -> (Tag, u32) {
        let mut best = (Tag::Raw, RAW_BITS);
        for tag in Tag::CODES.into_iter().rev() {
            let bits = self.get(tag);
            if bits <= best.1 {
                best = (tag, bits);
            }
        }
        best
    }
}

/// Payload bits of all four codes for one block.
pub fn block_sizes(block: &[u8; BLOCK_BYTES], width: SymbolWidth) -> BlockSizes {
    let mut syms = [0u32; MAX_SYMBOLS];
    width.load(block, &mut syms);
    symbol_sizes(&syms[..width.symbols()], width)
}

/// Payload bits of all four codes for the `N` symbols of one block.
pub fn symbol_sizes(syms: &[u32], width: SymbolWidth) -> BlockSizes {
    let n_sym = syms.len();
    let w = width.bits();
    // The three value sequences the plane codes see: the symbols (BX), the nonzero symbols
    // compacted to the front (ZBX; branch-free, zeros overwritten by the next nonzero), and the
    // (w+1)-bit deltas (DBX).
    let mut values = [0u64; MAX_SYMBOLS];
    let mut packed = [0u64; MAX_SYMBOLS];
    let mut deltas = [0u64; MAX_SYMBOLS];
    let mut nonzero = 0usize;
    let delta_mask = (1u64 << (w + 1)) - 1;
    let mut prev = syms[0] as i64;
    for (k, &s) in syms.iter().enumerate() {
        values[k] = s as u64;
        packed[nonzero] = s as u64;
        nonzero += (s != 0) as usize;
        deltas[k] = (s as i64 - prev) as u64 & delta_mask;
        prev = s as i64;
    }
    BlockSizes {
        zvc: (n_sym + nonzero * w as usize) as u32,
        dbx: base_bits(syms[0], width) + plane_bits(&deltas[1..n_sym], w + 1),
        bx: plane_bits(&values[..n_sym], w),
        zbx: n_sym as u32 + if nonzero == 0 { 0 } else { plane_bits(&packed[..nonzero], w) },
    }
}

/// Bit-parallel saturating count (0, 1, 2, ≥3) of the ones at each bit position.
#[derive(Clone, Copy, Default)]
struct Counts {
    one: u64,
    two: u64,
    three: u64,
}

impl Counts {
    #[inline(always)]
    fn add(&mut self, y: u64) {
        self.three |= self.two & y;
        self.two |= self.one & y;
        self.one |= y;
    }

    #[inline(always)]
    fn merge(a: Counts, b: Counts) -> Counts {
        Counts { one: a.one | b.one, two: a.two | b.two | (a.one & b.one), three: a.three | b.three | (a.two & b.one) | (a.one & b.two) }
    }
}

/// Bits of the prefix-coded planes (FORMAT.md §5) of the values `xs` (`P = planes` bits each,
/// `L = xs.len()` values, L ≥ 1). Bit `j` of every summary below describes plane `j`.
fn plane_bits(xs: &[u64], planes: u32) -> u32 {
    let mut or_x = 0u64; // bit j clear ⇔ DBP plane j is zero
    let mut and_y = u64::MAX; // bit j set ⇔ XORed plane j is all ones
    let mut adjacent = 0u64; // bit j set ⇔ XORed plane j has two neighbouring ones
    let (mut even, mut odd) = (Counts::default(), Counts::default());
    let mut prev_y = 0u64;
    let mut pairs = xs.chunks_exact(2);
    for pair in &mut pairs {
        let (y0, y1) = (pair[0] ^ (pair[0] >> 1), pair[1] ^ (pair[1] >> 1));
        or_x |= pair[0] | pair[1];
        and_y &= y0 & y1;
        adjacent |= (y0 & prev_y) | (y1 & y0);
        even.add(y0);
        odd.add(y1);
        prev_y = y1;
    }
    if let [x] = pairs.remainder() {
        let y = x ^ (x >> 1);
        or_x |= x;
        and_y &= y;
        adjacent |= y & prev_y;
        even.add(y);
    }
    let c = Counts::merge(even, odd);
    let geo = PlaneGeometry { planes, plane_bits: xs.len() as u32 };
    let all = (1u64 << planes) - 1;
    let zero = !c.one & all;
    let runs = (zero & !(zero >> 1)).count_ones();
    let singles = (zero & !(zero >> 1) & !(zero << 1)).count_ones();
    let all_ones = c.one & and_y;
    let dbp_zero = c.one & !all_ones & !or_x;
    let rest = c.one & !all_ones & !dbp_zero;
    let one_or_two = rest & ((c.one & !c.two) | (c.two & !c.three & adjacent));
    let verbatim = rest & !one_or_two;
    3 * singles
        + (2 + geo.run_field_bits()) * (runs - singles)
        + 5 * (all_ones.count_ones() + dbp_zero.count_ones())
        + (5 + geo.pos_field_bits()) * one_or_two.count_ones()
        + (1 + geo.plane_bits) * verbatim.count_ones()
}
