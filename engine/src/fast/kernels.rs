//! The per-block vector work of the fast encoder and decoder — bit-plane transposes both ways,
//! the scatter of ZVC / ZBX nonzeros to their places, DBX's prefix sum with its borrow check —
//! behind one trait with two builds: [`Portable`] (the 64-bit word code of [`super::planes`] and
//! scalar loops, any CPU) and, on x86-64 with AVX-512 VBMI / VBMI2 and GFNI,
//! `super::x86::Avx512` (a handful of vector instructions each). Both builds compute the same
//! functions; `engine/tests/fast.rs` runs the codec on each against the golden spec, and the
//! tests below compare the builds on random inputs.
//!
//! Symbols are always in a block's memory layout: 64 little-endian 16-bit or 32 little-endian
//! 32-bit symbols in 128 bytes. Planes are in the golden layout (FORMAT.md §5.1): a plane of `L`
//! values holds value `m` at bit `L − 1 − m`.

use super::planes::{PLANES16, PLANES32, SYMBOLS32, from_planes16, from_planes32, to_planes16, to_planes32};
use crate::golden::block::planes::MAX_PLANES;
use crate::golden::width::BLOCK_BYTES;

/// 16-bit symbols per block.
pub const SYMBOLS16: usize = BLOCK_BYTES / 2;
/// Bytes of bit stream [`Kernels::unpack16`] / [`Kernels::unpack32`] read: a block of fields
/// from a bit offset below 8, and the word after it.
pub const UNPACK_BYTES: usize = BLOCK_BYTES + 8;

/// One build of the per-block kernels (a zero-sized value; the AVX-512 one is a proof that the
/// CPU has the features, so only its detection makes one).
pub(crate) trait Kernels: Copy {
    /// The 64 16-bit symbols whose plane `j` (j < 16) is `p[j] << shift` in the 64-value layout
    /// (symbol `m` at bit `63 − m`): a plane of `L` values with `shift = 64 − L` puts value `m`
    /// at symbol `m`, with `shift = 63 − L` at symbol `m + 1`.
    fn planes_to_symbols16(self, p: &[u64; MAX_PLANES], shift: u32, out: &mut [u8; BLOCK_BYTES]);
    /// The 32 32-bit symbols whose plane `j` (j < 32) is `p[j] << shift` in the 32-value layout
    /// (symbol `m` at bit `31 − m`; `p[j] << shift` must fit in 32 bits).
    fn planes_to_symbols32(self, p: &[u64; MAX_PLANES], shift: u32, out: &mut [u8; BLOCK_BYTES]);
    /// The 16 planes of the 64 16-bit symbols of `block` (symbol `m` at bit `63 − m`).
    fn to_planes16(self, block: &[u8; BLOCK_BYTES]) -> [u64; PLANES16];
    /// The 32 planes of 32 32-bit symbols (symbol `m` at bit `31 − m`).
    fn to_planes32(self, syms: &[u32; SYMBOLS32]) -> [u64; PLANES32];
    /// Symbol `i` of `out` is the next symbol of `packed` (in order) where bit `63 − i` of
    /// `mask` is set, zero elsewhere; 16-bit symbols.
    fn expand16(self, packed: &[u8; BLOCK_BYTES], mask: u64, out: &mut [u8; BLOCK_BYTES]);
    /// [`Kernels::expand16`] for 32-bit symbols (bit `31 − i` of `mask` for symbol `i`).
    fn expand32(self, packed: &[u8; BLOCK_BYTES], mask: u64, out: &mut [u8; BLOCK_BYTES]);
    /// Symbols `0…count` of `out` are the `count` 16-bit MSB-first fields that start at bit
    /// `shift` (< 8, counted from the most significant bit of byte 0) of `bits`; the other
    /// symbols of `out` are unspecified.
    fn unpack16(self, bits: &[u8; UNPACK_BYTES], shift: u32, count: u32, out: &mut [u8; BLOCK_BYTES]);
    /// [`Kernels::unpack16`] for 32-bit fields.
    fn unpack32(self, bits: &[u8; UNPACK_BYTES], shift: u32, count: u32, out: &mut [u8; BLOCK_BYTES]);
    /// Replaces the 16-bit symbols `d` of `syms` by their running sums `d[0] + … + d[k]`
    /// mod 2^16; true iff the sum wrapped at symbol `k` exactly where bit `63 − k` of `borrow`
    /// is set, for every k ≥ 1 (and bit 63 of `borrow` is clear).
    fn prefix_sum16(self, syms: &mut [u8; BLOCK_BYTES], borrow: u64) -> bool;
    /// [`Kernels::prefix_sum16`] for 32-bit symbols (bit `31 − k` of `borrow`, which must be
    /// below 2^32 with bit 31 clear).
    fn prefix_sum32(self, syms: &mut [u8; BLOCK_BYTES], borrow: u64) -> bool;
}

/// The portable build: 8 × 8 bit tiles in 64-bit words ([`super::planes`]) and scalar loops.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Kernels for Portable {
    #[inline(always)]
    fn planes_to_symbols16(self, p: &[u64; MAX_PLANES], shift: u32, out: &mut [u8; BLOCK_BYTES]) {
        let mut q = [0u64; PLANES16];
        for (o, &plane) in q.iter_mut().zip(p) {
            *o = plane << shift;
        }
        from_planes16(&q, out);
    }

    #[inline(always)]
    fn planes_to_symbols32(self, p: &[u64; MAX_PLANES], shift: u32, out: &mut [u8; BLOCK_BYTES]) {
        let mut q = [0u64; PLANES32];
        for (o, &plane) in q.iter_mut().zip(p) {
            *o = plane << shift;
        }
        let mut syms = [0u32; SYMBOLS32];
        from_planes32(&q, &mut syms);
        for (c, s) in out.chunks_exact_mut(4).zip(syms) {
            c.copy_from_slice(&s.to_le_bytes());
        }
    }

    #[inline(always)]
    fn to_planes16(self, block: &[u8; BLOCK_BYTES]) -> [u64; PLANES16] {
        to_planes16(block)
    }

    #[inline(always)]
    fn to_planes32(self, syms: &[u32; SYMBOLS32]) -> [u64; PLANES32] {
        to_planes32(syms)
    }

    #[inline(always)]
    fn expand16(self, packed: &[u8; BLOCK_BYTES], mask: u64, out: &mut [u8; BLOCK_BYTES]) {
        expand_scalar::<2>(packed, mask, SYMBOLS16, out)
    }

    #[inline(always)]
    fn expand32(self, packed: &[u8; BLOCK_BYTES], mask: u64, out: &mut [u8; BLOCK_BYTES]) {
        expand_scalar::<4>(packed, mask, SYMBOLS32, out)
    }

    #[inline(always)]
    fn unpack16(self, bits: &[u8; UNPACK_BYTES], shift: u32, count: u32, out: &mut [u8; BLOCK_BYTES]) {
        for (i, c) in out.chunks_exact_mut(2).take(count as usize).enumerate() {
            let word = u32::from_be_bytes(bits[2 * i..2 * i + 4].try_into().expect("4 bytes"));
            c.copy_from_slice(&(((word << shift) >> 16) as u16).to_le_bytes());
        }
    }

    #[inline(always)]
    fn unpack32(self, bits: &[u8; UNPACK_BYTES], shift: u32, count: u32, out: &mut [u8; BLOCK_BYTES]) {
        for (i, c) in out.chunks_exact_mut(4).take(count as usize).enumerate() {
            let word = u64::from_be_bytes(bits[4 * i..4 * i + 8].try_into().expect("8 bytes"));
            c.copy_from_slice(&(((word << shift) >> 32) as u32).to_le_bytes());
        }
    }

    #[inline(always)]
    fn prefix_sum16(self, syms: &mut [u8; BLOCK_BYTES], borrow: u64) -> bool {
        let mut prev = 0u16;
        let mut wrapped = 0u64;
        for (k, c) in syms.chunks_exact_mut(2).enumerate() {
            let s = prev.wrapping_add(u16::from_le_bytes([c[0], c[1]]));
            wrapped |= ((s < prev) as u64) << (SYMBOLS16 - 1 - k);
            c.copy_from_slice(&s.to_le_bytes());
            prev = s;
        }
        wrapped == borrow
    }

    #[inline(always)]
    fn prefix_sum32(self, syms: &mut [u8; BLOCK_BYTES], borrow: u64) -> bool {
        let mut prev = 0u32;
        let mut wrapped = 0u64;
        for (k, c) in syms.chunks_exact_mut(4).enumerate() {
            let s = prev.wrapping_add(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
            wrapped |= ((s < prev) as u64) << (SYMBOLS32 - 1 - k);
            c.copy_from_slice(&s.to_le_bytes());
            prev = s;
        }
        wrapped == borrow
    }
}

/// [`Kernels::expand16`] / [`Kernels::expand32`] for `B`-byte symbols, `n` per block.
#[inline(always)]
fn expand_scalar<const B: usize>(packed: &[u8; BLOCK_BYTES], mask: u64, n: usize, out: &mut [u8; BLOCK_BYTES]) {
    let mut next = 0;
    for (i, c) in out.chunks_exact_mut(B).enumerate() {
        if mask >> (n - 1 - i) & 1 == 1 {
            c.copy_from_slice(&packed[B * next..B * next + B]);
            next += 1;
        } else {
            c.fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Every build this CPU can run, applied to the same inputs, must agree with the portable
    /// one; the portable one is checked against the golden codec by `engine/tests/fast.rs`.
    fn random_block(rng: &mut ChaCha8Rng) -> [u8; BLOCK_BYTES] {
        let mut b = [0u8; BLOCK_BYTES];
        rng.fill(&mut b[..]);
        b
    }

    #[test]
    fn portable_prefix_sum_checks_the_borrows() {
        // 0xFFFF + 1 wraps at symbol 1 (borrow bit 62); nothing else wraps.
        let mut syms = [0u8; BLOCK_BYTES];
        syms[0..2].copy_from_slice(&0xFFFFu16.to_le_bytes());
        syms[2..4].copy_from_slice(&1u16.to_le_bytes());
        let mut a = syms;
        assert!(Portable.prefix_sum16(&mut a, 1 << 62));
        assert_eq!(&a[0..4], &[0xFF, 0xFF, 0, 0]);
        let mut b = syms;
        assert!(!Portable.prefix_sum16(&mut b, 0));
    }

    #[test]
    fn portable_unpack_reads_msb_first_fields() {
        // Fields 0xABCD, 0x1234 from bit 3: 000 1010101111001101 0001001000110100 0...
        let mut bits = [0u8; UNPACK_BYTES];
        let stream = (0xABCDu64 << 45) | (0x1234u64 << 29);
        bits[..8].copy_from_slice(&stream.to_be_bytes());
        let mut out = [0u8; BLOCK_BYTES];
        Portable.unpack16(&bits, 3, 2, &mut out);
        assert_eq!(&out[..4], &[0xCD, 0xAB, 0x34, 0x12]);
        Portable.unpack32(&bits, 3, 1, &mut out);
        assert_eq!(&out[..4], &[0x34, 0x12, 0xCD, 0xAB]);
    }

    #[test]
    fn portable_expand_places_the_nonzeros() {
        let mut packed = [0u8; BLOCK_BYTES];
        packed[0..4].copy_from_slice(&[1, 2, 3, 4]);
        let mut out = [0xAAu8; BLOCK_BYTES];
        // Symbols 1 and 63 of a 16-bit block.
        Portable.expand16(&packed, (1 << 62) | 1, &mut out);
        let mut want = [0u8; BLOCK_BYTES];
        want[2..4].copy_from_slice(&[1, 2]);
        want[126..128].copy_from_slice(&[3, 4]);
        assert_eq!(out, want);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_kernels_equal_portable() {
        let Some(k) = super::super::x86::Avx512::detect() else {
            // Where the build is required (PLANEZIP_REQUIRE_PATHS, as in the codec tests) its
            // absence fails the test instead of passing it untested.
            let required = std::env::var("PLANEZIP_REQUIRE_PATHS").unwrap_or_default();
            assert!(!required.split(',').any(|n| n == "avx512"), "PLANEZIP_REQUIRE_PATHS names avx512, which this CPU lacks");
            println!("no AVX-512 VBMI/VBMI2/GFNI on this CPU: only the portable kernels run here");
            return;
        };
        let mut rng = ChaCha8Rng::seed_from_u64(0x6F_5E_ED);
        for round in 0..2000 {
            let block = random_block(&mut rng);
            let mut p = [0u64; MAX_PLANES];
            for (j, plane) in p.iter_mut().enumerate() {
                *plane = rng.r#gen::<u64>() >> (round % 64).min(j as u64 % 64);
            }
            let shift = rng.gen_range(0..64u32);
            let (mut a, mut b) = ([0u8; BLOCK_BYTES], [0u8; BLOCK_BYTES]);
            Portable.planes_to_symbols16(&p, shift, &mut a);
            k.planes_to_symbols16(&p, shift, &mut b);
            assert_eq!(a, b, "from_planes16 shift {shift}");
            let p32 = p.map(|x| x & 0xFFFF_FFFF);
            let shift32 = rng.gen_range(0..32u32);
            let p32 = p32.map(|x| x >> shift32);
            Portable.planes_to_symbols32(&p32, shift32, &mut a);
            k.planes_to_symbols32(&p32, shift32, &mut b);
            assert_eq!(a, b, "from_planes32 shift {shift32}");
            assert_eq!(Portable.to_planes16(&block), k.to_planes16(&block));
            let syms: [u32; SYMBOLS32] = std::array::from_fn(|i| u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().unwrap()));
            assert_eq!(Portable.to_planes32(&syms), k.to_planes32(&syms));
            let mask = rng.r#gen::<u64>() >> rng.gen_range(0..64);
            Portable.expand16(&block, mask, &mut a);
            k.expand16(&block, mask, &mut b);
            assert_eq!(a, b, "expand16 {mask:x}");
            let mask32 = mask & 0xFFFF_FFFF;
            Portable.expand32(&block, mask32, &mut a);
            k.expand32(&block, mask32, &mut b);
            assert_eq!(a, b, "expand32 {mask32:x}");
            let mut bits = [0u8; UNPACK_BYTES];
            rng.fill(&mut bits[..]);
            let (shift, count) = (rng.gen_range(0..8u32), rng.gen_range(0..=SYMBOLS16 as u32));
            Portable.unpack16(&bits, shift, count, &mut a);
            k.unpack16(&bits, shift, count, &mut b);
            assert_eq!(a[..2 * count as usize], b[..2 * count as usize], "unpack16 {shift} {count}");
            let count = count / 2;
            Portable.unpack32(&bits, shift, count, &mut a);
            k.unpack32(&bits, shift, count, &mut b);
            assert_eq!(a[..4 * count as usize], b[..4 * count as usize], "unpack32 {shift} {count}");
            // The borrows of the sums themselves (so the check passes), then one flipped.
            let (mut a, mut b) = (block, block);
            let mut probe = block;
            Portable.prefix_sum16(&mut probe, 0);
            let mut borrow = 0u64;
            for kk in 1..SYMBOLS16 {
                let (s, prev) = (u16::from_le_bytes([probe[2 * kk], probe[2 * kk + 1]]), u16::from_le_bytes([probe[2 * kk - 2], probe[2 * kk - 1]]));
                borrow |= ((s < prev) as u64) << (63 - kk);
            }
            let flip = if round % 2 == 0 { 0 } else { 1u64 << rng.gen_range(0..63) };
            assert_eq!(Portable.prefix_sum16(&mut a, borrow ^ flip), flip == 0);
            assert_eq!(k.prefix_sum16(&mut b, borrow ^ flip), flip == 0);
            assert_eq!(a, b, "prefix_sum16");
            let (mut a, mut b) = (block, block);
            let mut probe = block;
            Portable.prefix_sum32(&mut probe, 0);
            let mut borrow = 0u64;
            for kk in 1..SYMBOLS32 {
                let at = |i: usize| u32::from_le_bytes(probe[4 * i..4 * i + 4].try_into().unwrap());
                borrow |= ((at(kk) < at(kk - 1)) as u64) << (31 - kk);
            }
            let flip = if round % 2 == 0 { 0 } else { 1u64 << rng.gen_range(0..31) };
            assert_eq!(Portable.prefix_sum32(&mut a, borrow ^ flip), flip == 0);
            assert_eq!(k.prefix_sum32(&mut b, borrow ^ flip), flip == 0);
            assert_eq!(a, b, "prefix_sum32");
        }
    }
}
