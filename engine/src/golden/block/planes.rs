//! Bit-planes and the per-plane prefix code shared by DBX, BX and ZBX (FORMAT.md §5), plus the
//! DBX base-symbol code (FORMAT.md §6).
//!
//! A *plane* holds bit `j` of `L` values in an `L`-bit word: value `m` sits at bit `L-1-m`, so the
//! first value is the plane's most significant bit. Plane `j = 0` is the least significant plane.

use crate::golden::bits::{BitReader, BitWriter};
use crate::golden::error::DecodeError;
use crate::golden::width::SymbolWidth;

/// Most planes any code uses: w + 1 = 33 (DBX, 32-bit symbols).
pub const MAX_PLANES: usize = 33;

/// Prefix of a zero-plane run (`01`), 2 bits.
pub const CODE_RUN: (u32, u32) = (0b01, 2);
/// Prefix of a single zero plane (`001`), 3 bits.
pub const CODE_ZERO: (u32, u32) = (0b001, 3);
/// All-ones DBX plane (`00000`), 5 bits.
pub const CODE_ALL_ONES: (u32, u32) = (0b00000, 5);
/// DBX ≠ 0 but the pre-XOR plane (DBP) is zero (`00001`), 5 bits.
pub const CODE_DBP_ZERO: (u32, u32) = (0b00001, 5);
/// Two adjacent ones (`00010`) + position of the lower one.
pub const CODE_TWO_ONES: (u32, u32) = (0b00010, 5);
/// A single one (`00011`) + its position.
pub const CODE_ONE_ONE: (u32, u32) = (0b00011, 5);
/// Prefix of a verbatim plane (`1`), followed by the L plane bits.
pub const CODE_VERBATIM: (u32, u32) = (0b1, 1);

/// ⌈log2 x⌉, with 0 for x ≤ 1.
pub const fn ceil_log2(x: u32) -> u32 {
    if x <= 1 { 0 } else { 32 - (x - 1).leading_zeros() }
}

/// Shape of one bit-plane transform: `P` planes of `L` bits, and the field widths they imply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaneGeometry {
    /// Number of planes P (w for BX/ZBX, w + 1 for DBX).
    pub planes: u32,
    /// Bits per plane L (N for BX, N − 1 for DBX, n for ZBX); 0 ≤ L ≤ 64.
    pub plane_bits: u32,
}

impl PlaneGeometry {
    /// Width of the run-length field: ⌈log2(P − 1)⌉ (5 bits for 32–33 planes, 4 for 16–17).
    pub const fn run_field_bits(self) -> u32 {
        ceil_log2(self.planes - 1)
    }

    /// Width of the position field of the one/two-ones codes: ⌈log2 L⌉.
    pub const fn pos_field_bits(self) -> u32 {
        ceil_log2(self.plane_bits)
    }

    /// Mask of L ones (the all-ones plane).
    pub const fn ones(self) -> u64 {
        if self.plane_bits == 64 { u64::MAX } else { (1u64 << self.plane_bits) - 1 }
    }
}

/// Transposes a 32×32 bit matrix in place: afterwards bit `31-c` of row `r` is the former bit
/// `31-r` of row `c` (row 0 on top, bit 31 leftmost). Hacker's Delight §7-3, with each of the
/// five swap stages written out so the compiler can unroll and vectorise it.
fn transpose32(a: &mut [u32; 32]) {
    stage::<16>(a, 0x0000_FFFF);
    stage::<8>(a, 0x00FF_00FF);
    stage::<4>(a, 0x0F0F_0F0F);
    stage::<2>(a, 0x3333_3333);
    stage::<1>(a, 0x5555_5555);
}

/// One stage of [`transpose32`]: swaps the `J`-bit sub-blocks off the diagonal.
#[inline(always)]
fn stage<const J: usize>(a: &mut [u32; 32], m: u32) {
    for base in (0..32).step_by(2 * J) {
        for k in base..base + J {
            let t = (a[k] ^ (a[k + J] >> J)) & m;
            a[k] ^= t;
            a[k + J] ^= t << J;
        }
    }
}

/// Splits `values` (L = `values.len()` ≤ 64 symbols of `width`) into `width.bits()` planes:
/// `out[j]` holds bit `j` of every value, value `m` at bit `L-1-m`.
pub fn to_planes(values: &[u32], width: SymbolWidth, out: &mut [u64]) {
    let w = width.bits() as usize;
    let l = values.len();
    debug_assert!(l <= 64 && out.len() >= w);
    if l == 0 {
        out[..w].fill(0);
        return;
    }
    let groups = l.div_ceil(32);
    let mut acc = [0u64; 32];
    for g in 0..groups {
        let mut rows = [0u32; 32];
        let end = l.min(32 * g + 32);
        for (row, v) in rows.iter_mut().zip(&values[32 * g..end]) {
            *row = v << (32 - w);
        }
        transpose32(&mut rows);
        for (j, a) in acc.iter_mut().enumerate().take(w) {
            *a = (*a << 32) | rows[w - 1 - j] as u64;
        }
    }
    let shift = 32 * groups - l;
    for j in 0..w {
        out[j] = acc[j] >> shift;
    }
}

/// Inverse of [`to_planes`]: rebuilds `out.len()` = L values of `width` from its planes.
pub fn from_planes(planes: &[u64], width: SymbolWidth, out: &mut [u32]) {
    let w = width.bits() as usize;
    let l = out.len();
    if l == 0 {
        return;
    }
    let groups = l.div_ceil(32);
    let shift = 32 * groups - l;
    for g in 0..groups {
        let mut rows = [0u32; 32];
        for j in 0..w {
            let wide = planes[j] << shift;
            rows[w - 1 - j] = (wide >> (32 * (groups - 1 - g))) as u32;
        }
        transpose32(&mut rows);
        let end = l.min(32 * g + 32);
        for (o, row) in out[32 * g..end].iter_mut().zip(rows) {
            *o = row >> (32 - w);
        }
    }
}

/// How the prefix code codes one plane, in the order the encoder tests the cases (FORMAT.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaneCase {
    /// A run of k ≥ 2 zero XORed planes: `01` + (k − 2) in the run field.
    ZeroRun,
    /// A single zero XORed plane: `001`.
    Zero,
    /// An all-ones XORed plane: `00000`.
    AllOnes,
    /// XORed plane nonzero but the pre-XOR plane zero: `00001`.
    DbpZero,
    /// Exactly two adjacent ones: `00010` + position of the lower one.
    TwoOnes,
    /// Exactly one one: `00011` + its position.
    OneOne,
    /// Anything else: `1` + the L plane bits.
    Verbatim,
}

impl PlaneCase {
    /// All cases, in test order.
    pub const ALL: [PlaneCase; 7] = [
        PlaneCase::ZeroRun,
        PlaneCase::Zero,
        PlaneCase::AllOnes,
        PlaneCase::DbpZero,
        PlaneCase::TwoOnes,
        PlaneCase::OneOne,
        PlaneCase::Verbatim,
    ];
}

/// Walks planes `p[P-1] … p[0]` (pre-XOR planes, "DBP") from the top down and reports how each is
/// coded: `emit(case, field)` where `field` is the run length − 2, the position, or the plane.
/// The coded plane is `dbx[j] = p[j] ^ p[j+1]`, with `dbx[P-1] = p[P-1]`.
pub fn classify_planes(p: &[u64], geo: PlaneGeometry, mut emit: impl FnMut(PlaneCase, u64)) {
    let top = geo.planes as usize - 1;
    let dbx = |j: usize| if j == top { p[j] } else { p[j] ^ p[j + 1] };
    let ones = geo.ones();
    let mut j = top as isize;
    while j >= 0 {
        let x = dbx(j as usize);
        if x == 0 {
            let mut k = 1;
            while j - k >= 0 && dbx((j - k) as usize) == 0 {
                k += 1;
            }
            if k == 1 {
                emit(PlaneCase::Zero, 0);
            } else {
                emit(PlaneCase::ZeroRun, (k - 2) as u64);
            }
            j -= k;
            continue;
        }
        if x == ones {
            emit(PlaneCase::AllOnes, 0);
        } else if p[j as usize] == 0 {
            emit(PlaneCase::DbpZero, 0);
        } else if x.count_ones() == 2 && x & (x >> 1) != 0 {
            emit(PlaneCase::TwoOnes, x.trailing_zeros() as u64);
        } else if x.count_ones() == 1 {
            emit(PlaneCase::OneOne, x.trailing_zeros() as u64);
        } else {
            emit(PlaneCase::Verbatim, x);
        }
        j -= 1;
    }
}

/// Writes the prefix code of planes `p` (see [`classify_planes`]).
pub fn encode_planes(w: &mut BitWriter, p: &[u64], geo: PlaneGeometry) {
    classify_planes(p, geo, |case, field| match case {
        PlaneCase::ZeroRun => {
            w.put(CODE_RUN.0, CODE_RUN.1);
            w.put(field as u32, geo.run_field_bits());
        }
        PlaneCase::Zero => w.put(CODE_ZERO.0, CODE_ZERO.1),
        PlaneCase::AllOnes => w.put(CODE_ALL_ONES.0, CODE_ALL_ONES.1),
        PlaneCase::DbpZero => w.put(CODE_DBP_ZERO.0, CODE_DBP_ZERO.1),
        PlaneCase::TwoOnes => {
            w.put(CODE_TWO_ONES.0, CODE_TWO_ONES.1);
            w.put(field as u32, geo.pos_field_bits());
        }
        PlaneCase::OneOne => {
            w.put(CODE_ONE_ONE.0, CODE_ONE_ONE.1);
            w.put(field as u32, geo.pos_field_bits());
        }
        PlaneCase::Verbatim => {
            w.put(CODE_VERBATIM.0, CODE_VERBATIM.1);
            w.put64(field, geo.plane_bits);
        }
    });
}

/// Decodes what [`encode_planes`] wrote into the pre-XOR planes `p[0..P]`.
pub fn decode_planes(r: &mut BitReader, geo: PlaneGeometry, p: &mut [u64]) -> Result<(), DecodeError> {
    let top = geo.planes as usize - 1;
    let ones = geo.ones();
    let mut above = 0u64;
    let mut j = top as isize;
    while j >= 0 {
        // One 5-bit peek tells the case: `1…` verbatim, `01…` run, `001` zero, `000xx` the rest.
        let prefix = r.peek(5);
        let plane = if prefix & 0b10000 != 0 {
            r.skip(1)?;
            r.get64(geo.plane_bits)? ^ above
        } else if prefix & 0b01000 != 0 {
            r.skip(2)?;
            let run = r.get(geo.run_field_bits())? + 2;
            if run as isize > j + 1 {
                return Err(DecodeError::RunTooLong { run, remaining: (j + 1) as u32 });
            }
            for _ in 0..run {
                p[j as usize] = above;
                j -= 1;
            }
            continue;
        } else if prefix & 0b00100 != 0 {
            r.skip(3)?;
            above
        } else {
            r.skip(5)?;
            match prefix & 0b11 {
                0b00 => ones ^ above,
                0b01 => {
                    if j as usize == top {
                        return Err(DecodeError::DbpZeroOnTopPlane);
                    }
                    0
                }
                code => {
                    let pos = r.get(geo.pos_field_bits())?;
                    let (span, x) = if code == 0b10 { (2, 3u64) } else { (1, 1u64) };
                    if pos + span > geo.plane_bits {
                        return Err(DecodeError::PositionOutOfRange { pos, plane_bits: geo.plane_bits });
                    }
                    (x << pos) ^ above
                }
            }
        };
        p[j as usize] = plane;
        above = plane;
        j -= 1;
    }
    Ok(())
}

/// Bits the DBX base-symbol code spends on `value` (FORMAT.md §6).
pub fn base_bits(value: u32, width: SymbolWidth) -> u32 {
    let s = sign_extend(value, width.bits());
    if s == 0 {
        3
    } else if (-8..=7).contains(&s) {
        7
    } else if (-128..=127).contains(&s) {
        11
    } else if width == SymbolWidth::W32 && (-32768..=32767).contains(&s) {
        19
    } else {
        1 + width.bits()
    }
}

/// Writes the DBX base-symbol code of `value` (FORMAT.md §6).
pub fn encode_base(w: &mut BitWriter, value: u32, width: SymbolWidth) {
    let s = sign_extend(value, width.bits());
    match base_bits(value, width) {
        3 => w.put(0b000, 3),
        7 => {
            w.put(0b001, 3);
            w.put(s as u32, 4);
        }
        11 => {
            w.put(0b010, 3);
            w.put(s as u32, 8);
        }
        19 => {
            w.put(0b011, 3);
            w.put(s as u32, 16);
        }
        _ => {
            w.put(0b1, 1);
            w.put(value, width.bits());
        }
    }
}

/// Reads a DBX base-symbol code.
pub fn decode_base(r: &mut BitReader, width: SymbolWidth) -> Result<u32, DecodeError> {
    if r.get(1)? == 1 {
        return r.get(width.bits());
    }
    let field_bits = match r.get(2)? {
        0b00 => return Ok(0),
        0b01 => 4,
        0b10 => 8,
        _ if width == SymbolWidth::W32 => 16,
        code => return Err(DecodeError::ReservedBaseCode { code: code as u8, width_bits: width.bits() }),
    };
    let raw = r.get(field_bits)?;
    Ok(sign_extend(raw, field_bits) as u32 & width.mask())
}

/// Interprets the low `bits` bits of `v` as a two's-complement number.
fn sign_extend(v: u32, bits: u32) -> i64 {
    let shift = 64 - bits;
    (((v as u64) << shift) as i64) >> shift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_widths_follow_the_spec() {
        let g = |planes, plane_bits| PlaneGeometry { planes, plane_bits };
        assert_eq!((g(33, 31).run_field_bits(), g(33, 31).pos_field_bits()), (5, 5));
        assert_eq!((g(32, 32).run_field_bits(), g(32, 32).pos_field_bits()), (5, 5));
        assert_eq!((g(17, 63).run_field_bits(), g(17, 63).pos_field_bits()), (4, 6));
        assert_eq!((g(16, 64).run_field_bits(), g(16, 64).pos_field_bits()), (4, 6));
        assert_eq!(g(32, 1).pos_field_bits(), 0);
        assert_eq!(g(32, 2).pos_field_bits(), 1);
        assert_eq!(g(32, 3).pos_field_bits(), 2);
    }

    #[test]
    fn planes_match_a_naive_transpose_and_invert() {
        for (width, l) in [(SymbolWidth::W32, 32), (SymbolWidth::W32, 31), (SymbolWidth::W32, 5), (SymbolWidth::W16, 64), (SymbolWidth::W16, 63), (SymbolWidth::W16, 33), (SymbolWidth::W16, 1)] {
            let vals: Vec<u32> = (0..l as u32).map(|i| i.wrapping_mul(0x9E37_79B9).rotate_left(i) & width.mask()).collect();
            let mut planes = [0u64; 32];
            to_planes(&vals, width, &mut planes);
            for j in 0..width.bits() as usize {
                let naive = vals.iter().enumerate().fold(0u64, |acc, (m, v)| acc | (((*v as u64 >> j) & 1) << (l - 1 - m)));
                assert_eq!(planes[j], naive, "{width:?} L={l} plane {j}");
            }
            let mut back = vec![0u32; l];
            from_planes(&planes, width, &mut back);
            assert_eq!(back, vals);
        }
    }

    #[test]
    fn base_code_lengths_and_roundtrip() {
        for width in [SymbolWidth::W16, SymbolWidth::W32] {
            for (v, bits) in [(0u32, 3), (7, 7), (width.mask(), 7), (8, 11), ((-128i32) as u32 & width.mask(), 11), (128, if width == SymbolWidth::W32 { 19 } else { 17 }), (0x8000, if width == SymbolWidth::W32 { 33 } else { 17 })] {
                assert_eq!(base_bits(v, width), bits, "{width:?} {v:#x}");
                let mut w = BitWriter::new();
                encode_base(&mut w, v, width);
                assert_eq!(w.len_bits() as u32, bits);
                let bytes = w.into_bytes();
                assert_eq!(decode_base(&mut BitReader::new(&bytes), width).unwrap(), v);
            }
        }
        // `011` is reserved for 16-bit symbols.
        assert!(matches!(decode_base(&mut BitReader::new(&[0b0110_0000, 0, 0]), SymbolWidth::W16), Err(DecodeError::ReservedBaseCode { code: 3, .. })));
    }
}
