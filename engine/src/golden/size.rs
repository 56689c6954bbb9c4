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
    let n_sym = syms.len() as u32;
    let w = width.bits();

    // BX over all symbols and, in the same pass, ZBX over the nonzero ones.
    let mut bx = PlaneStats::new(w);
    let mut zbx = PlaneStats::new(w);
    for &s in syms {
        bx.push(s as u64);
        if s != 0 {
            zbx.push(s as u64);
        }
    }
    let nonzero = zbx.count;

    // DBX over the (w+1)-bit deltas.
    let mut dbx = PlaneStats::new(w + 1);
    let delta_mask = (1u64 << (w + 1)) - 1;
    for k in 1..syms.len() {
        dbx.push((syms[k] as i64 - syms[k - 1] as i64) as u64 & delta_mask);
    }

    BlockSizes {
        zvc: n_sym + nonzero * w,
        dbx: base_bits(syms[0], width) + dbx.bits(),
        bx: bx.bits(),
        zbx: n_sym + if nonzero == 0 { 0 } else { zbx.bits() },
    }
}

/// Bit-parallel summary of the planes of a value sequence: bit `j` of each field describes plane `j`.
struct PlaneStats {
    planes: u32,
    count: u32,
    /// OR of the pre-XOR values: bit j clear ⇔ DBP plane j is zero.
    or_x: u64,
    /// Bits set in at least one / two / three XORed values.
    one: u64,
    two: u64,
    three: u64,
    /// AND of the XORed values: bit j set ⇔ XORed plane j is all ones.
    and_y: u64,
    /// OR of `y[m] & y[m-1]`: bit j set ⇔ plane j has two adjacent ones.
    adjacent: u64,
    prev_y: u64,
}

impl PlaneStats {
    fn new(planes: u32) -> Self {
        PlaneStats { planes, count: 0, or_x: 0, one: 0, two: 0, three: 0, and_y: u64::MAX, adjacent: 0, prev_y: 0 }
    }

    #[inline(always)]
    fn push(&mut self, x: u64) {
        let y = x ^ (x >> 1);
        self.or_x |= x;
        self.three |= self.two & y;
        self.two |= self.one & y;
        self.one |= y;
        self.and_y &= y;
        self.adjacent |= y & self.prev_y;
        self.prev_y = y;
        self.count += 1;
    }

    /// Bits of the prefix-coded planes (FORMAT.md §5).
    fn bits(&self) -> u32 {
        let geo = PlaneGeometry { planes: self.planes, plane_bits: self.count };
        let all = (1u64 << self.planes) - 1;
        let zero = !self.one & all;
        let runs = (zero & !(zero >> 1)).count_ones();
        let singles = (zero & !(zero >> 1) & !(zero << 1)).count_ones();
        let all_ones = self.one & self.and_y;
        let dbp_zero = self.one & !all_ones & !self.or_x;
        let rest = self.one & !all_ones & !dbp_zero;
        let one_or_two = rest & ((self.one & !self.two) | (self.two & !self.three & self.adjacent));
        let verbatim = rest & !one_or_two;
        3 * singles
            + (2 + geo.run_field_bits()) * (runs - singles)
            + 5 * (all_ones.count_ones() + dbp_zero.count_ones())
            + (5 + geo.pos_field_bits()) * one_or_two.count_ones()
            + (1 + self.count) * verbatim.count_ones()
    }
}
