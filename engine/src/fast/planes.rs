//! Bit-plane transposes for 16-bit symbols with 64-bit word tricks: the 64 × 16 bit matrix of a
//! block is cut into sixteen 8 × 8 tiles, each transposed inside one `u64` (Hacker's Delight
//! §7-3), and the tiles are put in place by two 8 × 8 *byte* transposes — about half the work of
//! the golden codec's two 32 × 32 transposes. Planes use the golden layout (FORMAT.md §5.1): value
//! `m` of plane `j` at bit `63 − m` (callers shift for L < 64).

use crate::golden::width::BLOCK_BYTES;

/// Planes of a 16-bit block.
pub const PLANES16: usize = 16;

/// Transposes the 8 × 8 bit matrix in `x`: row `r` is byte `r` counted from the most significant,
/// column `c` is bit `7 − c` of that byte.
#[inline(always)]
fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// Swaps the `shift / 8`-byte sub-blocks off the diagonal between words `a` and `c`.
#[inline(always)]
fn swap_blocks(a: &mut u64, c: &mut u64, shift: u32, keep_high: u64) {
    let (x, y) = (*a, *c);
    *a = (x & keep_high) | ((y >> shift) & !keep_high);
    *c = ((x << shift) & keep_high) | (y & !keep_high);
}

/// Transposes the 8 × 8 byte matrix whose row `r` is `w[r]`, byte `g` counted from the most
/// significant: afterwards `w[g]` holds former column `g`.
#[inline(always)]
fn transpose_bytes(w: &mut [u64; 8]) {
    for (shift, keep, pairs) in [(32, 0xFFFF_FFFF_0000_0000u64, [(0, 4), (1, 5), (2, 6), (3, 7)]), (16, 0xFFFF_0000_FFFF_0000, [(0, 2), (1, 3), (4, 6), (5, 7)]), (8, 0xFF00_FF00_FF00_FF00, [(0, 1), (2, 3), (4, 5), (6, 7)])] {
        for (i, j) in pairs {
            let (mut a, mut c) = (w[i], w[j]);
            swap_blocks(&mut a, &mut c, shift, keep);
            w[i] = a;
            w[j] = c;
        }
    }
}

/// The even bytes of `x` (bytes 0, 2, 4, 6) packed into the low 32 bits.
#[inline(always)]
fn even_bytes(x: u64) -> u64 {
    let x = x & 0x00FF_00FF_00FF_00FF;
    let x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    (x | (x >> 16)) & 0xFFFF_FFFF
}

/// Inverse of [`even_bytes`]: the low 4 bytes of `x` spread to bytes 0, 2, 4, 6.
#[inline(always)]
fn spread_bytes(x: u64) -> u64 {
    let x = x & 0xFFFF_FFFF;
    let x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
}

/// The 16 planes of the 64 little-endian 16-bit symbols of `block`, value `m` at bit `63 − m`.
#[inline(always)]
pub fn to_planes16(block: &[u8; BLOCK_BYTES]) -> [u64; PLANES16] {
    let mut lo = [0u64; 8];
    let mut hi = [0u64; 8];
    for g in 0..8 {
        let w0 = u64::from_le_bytes(block[16 * g..16 * g + 8].try_into().expect("8 bytes"));
        let w1 = u64::from_le_bytes(block[16 * g + 8..16 * g + 16].try_into().expect("8 bytes"));
        // Byte c from the top = the low (high) byte of value 8g + c, then one tile transpose.
        lo[g] = transpose8((even_bytes(w0) | (even_bytes(w1) << 32)).swap_bytes());
        hi[g] = transpose8((even_bytes(w0 >> 8) | (even_bytes(w1 >> 8) << 32)).swap_bytes());
    }
    transpose_bytes(&mut lo);
    transpose_bytes(&mut hi);
    let mut p = [0u64; PLANES16];
    for k in 0..8 {
        p[k] = lo[7 - k];
        p[8 + k] = hi[7 - k];
    }
    p
}

/// Inverse of [`to_planes16`]: the block whose symbols have planes `p`.
#[inline(always)]
pub fn from_planes16(p: &[u64; PLANES16], block: &mut [u8; BLOCK_BYTES]) {
    let mut lo = [0u64; 8];
    let mut hi = [0u64; 8];
    for r in 0..8 {
        lo[r] = p[7 - r];
        hi[r] = p[15 - r];
    }
    transpose_bytes(&mut lo);
    transpose_bytes(&mut hi);
    for g in 0..8 {
        let l = transpose8(lo[g]).swap_bytes();
        let h = transpose8(hi[g]).swap_bytes();
        let w0 = spread_bytes(l) | (spread_bytes(h) << 8);
        let w1 = spread_bytes(l >> 32) | (spread_bytes(h >> 32) << 8);
        block[16 * g..16 * g + 8].copy_from_slice(&w0.to_le_bytes());
        block[16 * g + 8..16 * g + 16].copy_from_slice(&w1.to_le_bytes());
    }
}

/// Planes of a 32-bit block.
pub const PLANES32: usize = 32;
/// 32-bit symbols per block.
pub const SYMBOLS32: usize = BLOCK_BYTES / 4;

/// The 32 planes of 32 32-bit symbols (`L = 32`, golden layout: value `m` at bit `31 − m`), from
/// the 16-bit transpose: the low halves of the symbols as values 0…31 and the high halves as
/// values 32…63 of one [`to_planes16`], so 16-bit plane `j` holds plane `j` in its upper and
/// plane `16 + j` in its lower 32 bits.
#[inline(always)]
pub fn to_planes32(syms: &[u32; SYMBOLS32]) -> [u64; PLANES32] {
    let mut halves = [0u8; BLOCK_BYTES];
    let (lo, hi) = halves.split_at_mut(BLOCK_BYTES / 2);
    for (i, &s) in syms.iter().enumerate() {
        lo[2 * i..2 * i + 2].copy_from_slice(&(s as u16).to_le_bytes());
        hi[2 * i..2 * i + 2].copy_from_slice(&((s >> 16) as u16).to_le_bytes());
    }
    let p16 = to_planes16(&halves);
    let mut p = [0u64; PLANES32];
    for j in 0..PLANES16 {
        p[j] = p16[j] >> 32;
        p[PLANES16 + j] = p16[j] & 0xFFFF_FFFF;
    }
    p
}

/// Inverse of [`to_planes32`]: the 32 symbols whose planes (golden layout, `L = 32`) are `p`.
#[inline(always)]
pub fn from_planes32(p: &[u64], syms: &mut [u32; SYMBOLS32]) {
    let mut p16 = [0u64; PLANES16];
    for j in 0..PLANES16 {
        p16[j] = (p[j] << 32) | (p[PLANES16 + j] & 0xFFFF_FFFF);
    }
    let mut halves = [0u8; BLOCK_BYTES];
    from_planes16(&p16, &mut halves);
    let (lo, hi) = halves.split_at(BLOCK_BYTES / 2);
    for (i, s) in syms.iter_mut().enumerate() {
        *s = u16::from_le_bytes([lo[2 * i], lo[2 * i + 1]]) as u32 | (u16::from_le_bytes([hi[2 * i], hi[2 * i + 1]]) as u32) << 16;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::block::planes::{from_planes, to_planes};
    use crate::golden::width::{MAX_SYMBOLS, SymbolWidth};

    #[test]
    fn tile_transpose_matches_a_naive_one() {
        let x = 0x0123_4567_89AB_CDEFu64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let bit = |v: u64, r: usize, c: usize| (v >> (63 - 8 * r - c)) & 1;
        let t = transpose8(x);
        for r in 0..8 {
            for c in 0..8 {
                assert_eq!(bit(t, r, c), bit(x, c, r));
            }
        }
    }

    #[test]
    fn planes16_equal_golden_and_invert() {
        let mut seed = 0x1234_5678_9ABC_DEF0u64;
        for _ in 0..200 {
            let mut block = [0u8; BLOCK_BYTES];
            for b in block.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = seed as u8;
            }
            let mut syms = [0u32; MAX_SYMBOLS];
            SymbolWidth::W16.load(&block, &mut syms);
            let mut want = [0u64; 32];
            to_planes(&syms, SymbolWidth::W16, &mut want);
            let p = to_planes16(&block);
            assert_eq!(&p[..], &want[..16]);
            let mut back = [0u8; BLOCK_BYTES];
            from_planes16(&p, &mut back);
            assert_eq!(back, block);
            let mut again = [0u32; MAX_SYMBOLS];
            from_planes(&want, SymbolWidth::W16, &mut again);
            assert_eq!(again, syms);

            // The same bytes as 32 32-bit symbols.
            let mut syms32 = [0u32; MAX_SYMBOLS];
            SymbolWidth::W32.load(&block, &mut syms32);
            let mut want32 = [0u64; 32];
            to_planes(&syms32[..SYMBOLS32], SymbolWidth::W32, &mut want32);
            let s32: [u32; SYMBOLS32] = syms32[..SYMBOLS32].try_into().unwrap();
            let p32 = to_planes32(&s32);
            assert_eq!(p32, want32);
            let mut back32 = [0u32; SYMBOLS32];
            from_planes32(&p32, &mut back32);
            assert_eq!(back32, s32);
        }
    }
}
