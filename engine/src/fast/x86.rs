//! The AVX-512 build of [`Kernels`] (x86-64 with AVX-512 F/BW/VBMI/VBMI2 and GFNI) and the
//! feature-enabled entry points of the decoder and encoder that use it.
//!
//! **Transposes.** A block's bit matrix (128 bytes: 16 planes × 64 values, or 32 × 32) is cut
//! into sixteen 8 × 8 bit tiles. One `VPERMI2B` per 512-bit register gathers the tiles' bytes
//! (byte `r` of a tile = 8 values of one plane), one `GF2P8AFFINEQB` with a constant operand
//! transposes all eight tiles of a register (a tile's byte `c` = 8 planes of one value), and one
//! `VPERMB` interleaves the tiles' bytes into the symbols' little-endian bytes. The inverse runs
//! the same three steps backwards with the inverse byte permutations (the tile transpose is its
//! own inverse). All tables are built at compile time by the `const fn`s below from the two
//! index formulas, so the layout is stated once.
//!
//! **Scatter** (ZVC / ZBX): `VPEXPANDW` / `VPEXPANDD` under the nonzero mask (bit-reversed, as
//! the mask's first symbol is its most significant bit). **Prefix sum** (DBX): log-step shifts
//! and adds inside the registers, and the borrow check as one unsigned compare per register.
//!
//! Safety: an [`Avx512`] value is a proof that the CPU has the features (only
//! [`Avx512::detect`] makes one, after `is_x86_feature_detected!`); every `unsafe` block below is
//! either a call of a `#[target_feature]` function justified by that proof, or an unaligned
//! load / store of 64 bytes inside a Rust array whose bounds are stated beside it.

use super::decode::{self, Fault};
use super::encode;
use super::kernels::{Kernels, UNPACK_BYTES};
use super::planes::{PLANES16, PLANES32, SYMBOLS32};
use crate::golden::block::planes::MAX_PLANES;
use crate::golden::width::{BLOCK_BYTES, SymbolWidth};
use std::arch::x86_64::*;

/// The `x` operand of `GF2P8AFFINEQB` that makes it transpose each 8 × 8 bit tile (byte `k` is
/// `0x80 >> k`): result byte `k`, bit `i` = bit `7 − k` of the tile's byte `7 − i`.
const TILE_TRANSPOSE: i64 = 0x0102_0408_1020_4080;

/// Bytes per 512-bit register.
const LANE_BYTES: usize = 64;

/// A 64-byte table, aligned for one vector load.
#[repr(align(64))]
struct Table([u8; LANE_BYTES]);

/// The byte permutations around the tile transpose for one symbol width (see the module doc).
struct Layout {
    /// Tile register `t`, byte `i` = byte `gather[t][i]` of the 128 plane bytes.
    gather: [Table; 2],
    /// Symbol byte `o` of a register = byte `interleave[o]` of its tile register.
    interleave: Table,
    /// Inverse of `gather`: plane byte `64u + k` = byte `scatter[u][k]` of the two tile registers.
    scatter: [Table; 2],
    /// Inverse of `interleave`.
    deinterleave: Table,
}

/// The 128-byte index of the byte of the planes that goes to byte `r` of tile `tile` of tile
/// register `t` (byte order of the planes: 16-bit, plane `j` is the little-endian `u64` at
/// bytes `8j…`, value `m` at bit `63 − m`; 32-bit, the `u32` at bytes `4j…`, value `m` at bit
/// `31 − m`). A tile holds 8 consecutive values (group `g`) of 8 planes, plane `8h + 7 − r` in
/// byte `r`, so that the transpose puts plane `8h + i` at bit `i` of value `8g + c`'s byte `c`.
const fn plane_byte(bits: usize, t: usize, tile: usize, r: usize) -> usize {
    if bits == 16 {
        // Tiles (g, h) of groups 4t…4t + 3, byte half h; group g is byte 7 − g of a plane.
        let (g, h) = (4 * t + tile / 2, tile % 2);
        8 * (8 * h + 7 - r) + (7 - g)
    } else {
        // Tiles (g, q) of groups 2t, 2t + 1, symbol byte q; group g is byte 3 − g of a plane.
        let (g, q) = (2 * t + tile / 4, tile % 4);
        4 * (8 * q + 7 - r) + (3 - g)
    }
}

/// The byte of a tile register that goes to byte `o` of the symbol register (16-bit: symbol
/// `8g + c`'s byte `h` is byte `c` of tile (g, h); 32-bit: byte `q` of symbol `8g + c` is byte
/// `c` of tile (g, q)).
const fn tile_byte(bits: usize, o: usize) -> usize {
    if bits == 16 {
        let (g, c, h) = (o / 16, (o % 16) / 2, o % 2);
        8 * (2 * g + h) + c
    } else {
        let (g, c, q) = (o / 32, (o % 32) / 4, o % 4);
        8 * (4 * g + q) + c
    }
}

/// The [`Layout`] of `bits`-bit symbols (16 or 32).
const fn layout(bits: usize) -> Layout {
    let mut l = Layout {
        gather: [Table([0; LANE_BYTES]), Table([0; LANE_BYTES])],
        interleave: Table([0; LANE_BYTES]),
        scatter: [Table([0; LANE_BYTES]), Table([0; LANE_BYTES])],
        deinterleave: Table([0; LANE_BYTES]),
    };
    let mut t = 0;
    while t < 2 {
        let mut i = 0;
        while i < LANE_BYTES {
            let src = plane_byte(bits, t, i / 8, i % 8);
            l.gather[t].0[i] = src as u8;
            l.scatter[src / LANE_BYTES].0[src % LANE_BYTES] = (LANE_BYTES * t + i) as u8;
            i += 1;
        }
        t += 1;
    }
    let mut o = 0;
    while o < LANE_BYTES {
        let src = tile_byte(bits, o);
        l.interleave.0[o] = src as u8;
        l.deinterleave.0[src] = o as u8;
        o += 1;
    }
    l
}

/// The layout of 16-bit blocks.
static LAYOUT16: Layout = layout(16);
/// The layout of 32-bit blocks.
static LAYOUT32: Layout = layout(32);

/// One vector of a table.
#[inline]
#[target_feature(enable = "avx512f")]
fn table(t: &Table) -> __m512i {
    // SAFETY: `t` is 64 bytes, aligned to 64.
    unsafe { _mm512_load_si512(t.0.as_ptr().cast()) }
}

/// Bytes `at…at + 64` of `bytes` (panics past the end; `at` is a constant or bounded at the
/// call sites, where the check folds away).
#[inline]
#[target_feature(enable = "avx512f")]
fn load64(bytes: &[u8], at: usize) -> __m512i {
    let part: &[u8; LANE_BYTES] = bytes[at..at + LANE_BYTES].try_into().expect("64 bytes");
    // SAFETY: `part` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(part.as_ptr().cast()) }
}

/// Eight `u64`s from `words[at..at + 8]` (panics past the end).
#[inline]
#[target_feature(enable = "avx512f")]
fn load_words(words: &[u64], at: usize) -> __m512i {
    let part: &[u64; 8] = words[at..at + 8].try_into().expect("8 words");
    // SAFETY: `part` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(part.as_ptr().cast()) }
}

/// Writes `a` and `b` as the two halves of `out`.
#[inline]
#[target_feature(enable = "avx512f")]
fn store_block(out: &mut [u8; BLOCK_BYTES], a: __m512i, b: __m512i) {
    let (lo, hi) = out.split_at_mut(LANE_BYTES);
    // SAFETY: `lo` and `hi` are 64 writable bytes each; the stores are unaligned.
    unsafe {
        _mm512_storeu_si512(lo.as_mut_ptr().cast(), a);
        _mm512_storeu_si512(hi.as_mut_ptr().cast(), b);
    }
}

/// The two symbol registers of the 128 plane bytes `a`, `b` (see the module doc).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn symbols_of_planes(a: __m512i, b: __m512i, l: &Layout) -> (__m512i, __m512i) {
    let x = _mm512_set1_epi64(TILE_TRANSPOSE);
    let t0 = _mm512_gf2p8affine_epi64_epi8::<0>(x, _mm512_permutex2var_epi8(a, table(&l.gather[0]), b));
    let t1 = _mm512_gf2p8affine_epi64_epi8::<0>(x, _mm512_permutex2var_epi8(a, table(&l.gather[1]), b));
    let il = table(&l.interleave);
    (_mm512_permutexvar_epi8(il, t0), _mm512_permutexvar_epi8(il, t1))
}

/// Inverse of [`symbols_of_planes`]: the 128 plane bytes of the symbol registers `a`, `b`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn planes_of_symbols(a: __m512i, b: __m512i, l: &Layout) -> (__m512i, __m512i) {
    let x = _mm512_set1_epi64(TILE_TRANSPOSE);
    let dl = table(&l.deinterleave);
    let t0 = _mm512_gf2p8affine_epi64_epi8::<0>(x, _mm512_permutexvar_epi8(dl, a));
    let t1 = _mm512_gf2p8affine_epi64_epi8::<0>(x, _mm512_permutexvar_epi8(dl, b));
    (_mm512_permutex2var_epi8(t0, table(&l.scatter[0]), t1), _mm512_permutex2var_epi8(t0, table(&l.scatter[1]), t1))
}

/// [`Kernels::planes_to_symbols16`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn from_planes16(p: &[u64; MAX_PLANES], shift: u32, out: &mut [u8; BLOCK_BYTES]) {
    let s = _mm512_set1_epi64(shift as i64);
    let a = _mm512_sllv_epi64(load_words(p, 0), s);
    let b = _mm512_sllv_epi64(load_words(p, 8), s);
    let (lo, hi) = symbols_of_planes(a, b, &LAYOUT16);
    store_block(out, lo, hi);
}

/// [`Kernels::planes_to_symbols32`]: the planes shifted and narrowed to 32 bits, then transposed.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn from_planes32(p: &[u64; MAX_PLANES], shift: u32, out: &mut [u8; BLOCK_BYTES]) {
    let s = _mm512_set1_epi64(shift as i64);
    let q0 = _mm512_cvtepi64_epi32(_mm512_sllv_epi64(load_words(p, 0), s));
    let q1 = _mm512_cvtepi64_epi32(_mm512_sllv_epi64(load_words(p, 8), s));
    let q2 = _mm512_cvtepi64_epi32(_mm512_sllv_epi64(load_words(p, 16), s));
    let q3 = _mm512_cvtepi64_epi32(_mm512_sllv_epi64(load_words(p, 24), s));
    let a = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(q0), q1);
    let b = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(q2), q3);
    let (lo, hi) = symbols_of_planes(a, b, &LAYOUT32);
    store_block(out, lo, hi);
}

/// [`Kernels::to_planes16`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn to_planes16(block: &[u8; BLOCK_BYTES]) -> [u64; PLANES16] {
    let (a, b) = planes_of_symbols(load64(block, 0), load64(block, LANE_BYTES), &LAYOUT16);
    let mut p = [0u64; PLANES16];
    let (lo, hi) = p.split_at_mut(8);
    // SAFETY: `lo` and `hi` are 8 `u64`s (64 bytes) each; the stores are unaligned.
    unsafe {
        _mm512_storeu_si512(lo.as_mut_ptr().cast(), a);
        _mm512_storeu_si512(hi.as_mut_ptr().cast(), b);
    }
    p
}

/// [`Kernels::to_planes32`]: the transposed 32-bit planes widened to `u64`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn to_planes32(syms: &[u32; SYMBOLS32]) -> [u64; PLANES32] {
    let (lo, hi) = syms.split_at(SYMBOLS32 / 2);
    // SAFETY: `lo` and `hi` are 16 `u32`s (64 bytes) each; the loads are unaligned.
    let (a, b) = unsafe { (_mm512_loadu_si512(lo.as_ptr().cast()), _mm512_loadu_si512(hi.as_ptr().cast())) };
    let (a, b) = planes_of_symbols(a, b, &LAYOUT32);
    let mut p = [0u64; PLANES32];
    for (k, v) in [a, b].into_iter().enumerate() {
        let low = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v));
        let high = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(v));
        let words = &mut p[16 * k..16 * k + 16];
        let (w0, w1) = words.split_at_mut(8);
        // SAFETY: `w0` and `w1` are 8 `u64`s (64 bytes) each; the stores are unaligned.
        unsafe {
            _mm512_storeu_si512(w0.as_mut_ptr().cast(), low);
            _mm512_storeu_si512(w1.as_mut_ptr().cast(), high);
        }
    }
    p
}

/// [`Kernels::expand16`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
fn expand16(packed: &[u8; BLOCK_BYTES], mask: u64, out: &mut [u8; BLOCK_BYTES]) {
    // Lane i = symbol i, so the mask is bit-reversed.
    let lanes = mask.reverse_bits();
    let first = lanes as u32;
    // At most 32 symbols (64 bytes) go to the first register, so the second's 64 bytes from
    // there stay inside `packed`.
    let second_at = 2 * first.count_ones() as usize;
    let lo = _mm512_maskz_expand_epi16(first, load64(packed, 0));
    let hi = _mm512_maskz_expand_epi16((lanes >> 32) as u32, load64(packed, second_at.min(LANE_BYTES)));
    store_block(out, lo, hi);
}

/// [`Kernels::expand32`].
#[inline]
#[target_feature(enable = "avx512f,popcnt")]
fn expand32(packed: &[u8; BLOCK_BYTES], mask: u64, out: &mut [u8; BLOCK_BYTES]) {
    let lanes = (mask as u32).reverse_bits();
    let first = lanes as u16;
    let second_at = 4 * first.count_ones() as usize;
    let lo = _mm512_maskz_expand_epi32(first, load64(packed, 0));
    let hi = _mm512_maskz_expand_epi32((lanes >> 16) as u16, load64(packed, second_at.min(LANE_BYTES)));
    store_block(out, lo, hi);
}

/// `VPSHUFB` control that reverses the bytes of each 16-bit lane.
static SWAP16: Table = byte_swap(2);
/// `VPSHUFB` control that reverses the bytes of each 32-bit lane.
static SWAP32: Table = byte_swap(4);

/// The `VPSHUFB` control reversing each `lane`-byte group (indices are within 16-byte lanes).
const fn byte_swap(lane: usize) -> Table {
    let mut t = [0u8; LANE_BYTES];
    let mut i = 0;
    while i < LANE_BYTES {
        t[i] = ((i % 16) / lane * lane + (lane - 1 - i % lane)) as u8;
        i += 1;
    }
    Table(t)
}

/// [`Kernels::unpack16`]: each lane's big-endian word and the next one, funnel-shifted.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
fn unpack16(bits: &[u8; UNPACK_BYTES], shift: u32, out: &mut [u8; BLOCK_BYTES]) {
    let (swap, s) = (table(&SWAP16), _mm512_set1_epi16(shift as i16));
    let lo = _mm512_shldv_epi16(_mm512_shuffle_epi8(load64(bits, 0), swap), _mm512_shuffle_epi8(load64(bits, 2), swap), s);
    let hi = _mm512_shldv_epi16(_mm512_shuffle_epi8(load64(bits, 64), swap), _mm512_shuffle_epi8(load64(bits, 66), swap), s);
    store_block(out, lo, hi);
}

/// [`Kernels::unpack32`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
fn unpack32(bits: &[u8; UNPACK_BYTES], shift: u32, out: &mut [u8; BLOCK_BYTES]) {
    let (swap, s) = (table(&SWAP32), _mm512_set1_epi32(shift as i32));
    let lo = _mm512_shldv_epi32(_mm512_shuffle_epi8(load64(bits, 0), swap), _mm512_shuffle_epi8(load64(bits, 4), swap), s);
    let hi = _mm512_shldv_epi32(_mm512_shuffle_epi8(load64(bits, 64), swap), _mm512_shuffle_epi8(load64(bits, 68), swap), s);
    store_block(out, lo, hi);
}

/// 16-bit lanes shifted up by `s` lanes (zeros below).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn up16(v: __m512i, iota: __m512i, s: u32) -> __m512i {
    // Lane i takes lane (i − s) mod 32 (the index's low 5 bits), zeroed below lane s.
    let idx = _mm512_add_epi16(iota, _mm512_set1_epi16((32 - s) as i16));
    _mm512_maskz_permutexvar_epi16(!((1u32 << s) - 1), idx, v)
}

/// [`Kernels::prefix_sum16`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn prefix_sum16(syms: &mut [u8; BLOCK_BYTES], borrow: u64) -> bool {
    let iota = _mm512_set_epi16(
        31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    );
    let (mut a, mut b) = (load64(syms, 0), load64(syms, LANE_BYTES));
    for s in [1, 2, 4, 8, 16] {
        a = _mm512_add_epi16(a, up16(a, iota, s));
        b = _mm512_add_epi16(b, up16(b, iota, s));
    }
    b = _mm512_add_epi16(b, _mm512_permutexvar_epi16(_mm512_set1_epi16(31), a));
    // The previous symbol of each lane (lane 0 of `b`: lane 31 of `a`), for the wrap test.
    let idx = _mm512_add_epi16(iota, _mm512_set1_epi16(31));
    let prev_a = _mm512_maskz_permutexvar_epi16(!1, idx, a);
    let prev_b = _mm512_permutex2var_epi16(a, idx, b);
    let wrapped = _mm512_cmplt_epu16_mask(a, prev_a) as u64 | (_mm512_cmplt_epu16_mask(b, prev_b) as u64) << 32;
    store_block(syms, a, b);
    wrapped == borrow.reverse_bits()
}

/// [`Kernels::prefix_sum32`].
#[inline]
#[target_feature(enable = "avx512f")]
fn prefix_sum32(syms: &mut [u8; BLOCK_BYTES], borrow: u64) -> bool {
    let zero = _mm512_setzero_si512();
    let (mut a, mut b) = (load64(syms, 0), load64(syms, LANE_BYTES));
    // `alignr(v, zero, 16 − s)` is `v` shifted up by s lanes.
    a = _mm512_add_epi32(a, _mm512_alignr_epi32::<15>(a, zero));
    b = _mm512_add_epi32(b, _mm512_alignr_epi32::<15>(b, zero));
    a = _mm512_add_epi32(a, _mm512_alignr_epi32::<14>(a, zero));
    b = _mm512_add_epi32(b, _mm512_alignr_epi32::<14>(b, zero));
    a = _mm512_add_epi32(a, _mm512_alignr_epi32::<12>(a, zero));
    b = _mm512_add_epi32(b, _mm512_alignr_epi32::<12>(b, zero));
    a = _mm512_add_epi32(a, _mm512_alignr_epi32::<8>(a, zero));
    b = _mm512_add_epi32(b, _mm512_alignr_epi32::<8>(b, zero));
    b = _mm512_add_epi32(b, _mm512_permutexvar_epi32(_mm512_set1_epi32(15), a));
    let prev_a = _mm512_alignr_epi32::<15>(a, zero);
    let prev_b = _mm512_alignr_epi32::<15>(b, a);
    let wrapped = _mm512_cmplt_epu32_mask(a, prev_a) as u64 | (_mm512_cmplt_epu32_mask(b, prev_b) as u64) << 16;
    store_block(syms, a, b);
    borrow < 1 << 32 && wrapped == (borrow as u32).reverse_bits() as u64
}

/// Proof that this CPU runs the AVX-512 build (F, BW, VBMI, VBMI2, GFNI, BMI1/2, POPCNT,
/// LZCNT): only [`Avx512::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512 {
    _detected: (),
}

impl Avx512 {
    /// The proof, if this CPU has the features.
    pub(crate) fn detect() -> Option<Avx512> {
        let ok = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vbmi")
            && is_x86_feature_detected!("avx512vbmi2")
            && is_x86_feature_detected!("gfni")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("lzcnt");
        ok.then_some(Avx512 { _detected: () })
    }

    /// [`decode::decode_into_with`] on this build.
    pub(crate) fn decode_into(self, stream: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), Fault> {
        // SAFETY: `self` proves the features of `decode_avx512` (see `detect`).
        unsafe { decode_avx512(self, stream, dst, width) }
    }

    /// [`encode::encode_stream_into_with`] on this build.
    pub(crate) fn encode_into(self, path: super::Path, data: &[u8], width: SymbolWidth, out: &mut Vec<u8>) {
        // SAFETY: as above.
        unsafe { encode_avx512(self, path, data, width, out) }
    }
}

/// The decoder with every kernel inlined in AVX-512 code.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,gfni,bmi1,bmi2,popcnt,lzcnt")]
fn decode_avx512(k: Avx512, stream: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), Fault> {
    decode::decode_into_generic(k, stream, dst, width)
}

/// The encoder's bit writing with every kernel inlined in AVX-512 code.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,gfni,bmi1,bmi2,popcnt,lzcnt")]
fn encode_avx512(k: Avx512, path: super::Path, data: &[u8], width: SymbolWidth, out: &mut Vec<u8>) {
    encode::encode_into_generic(k, path, data, width, out)
}

// SAFETY (every method): an `Avx512` exists only where `Avx512::detect` found the features of
// the `#[target_feature]` function called.
impl Kernels for Avx512 {
    #[inline(always)]
    fn planes_to_symbols16(self, p: &[u64; MAX_PLANES], shift: u32, out: &mut [u8; BLOCK_BYTES]) {
        unsafe { from_planes16(p, shift, out) }
    }

    #[inline(always)]
    fn planes_to_symbols32(self, p: &[u64; MAX_PLANES], shift: u32, out: &mut [u8; BLOCK_BYTES]) {
        unsafe { from_planes32(p, shift, out) }
    }

    #[inline(always)]
    fn to_planes16(self, block: &[u8; BLOCK_BYTES]) -> [u64; PLANES16] {
        unsafe { to_planes16(block) }
    }

    #[inline(always)]
    fn to_planes32(self, syms: &[u32; SYMBOLS32]) -> [u64; PLANES32] {
        unsafe { to_planes32(syms) }
    }

    #[inline(always)]
    fn expand16(self, packed: &[u8; BLOCK_BYTES], mask: u64, out: &mut [u8; BLOCK_BYTES]) {
        unsafe { expand16(packed, mask, out) }
    }

    #[inline(always)]
    fn expand32(self, packed: &[u8; BLOCK_BYTES], mask: u64, out: &mut [u8; BLOCK_BYTES]) {
        unsafe { expand32(packed, mask, out) }
    }

    #[inline(always)]
    fn unpack16(self, bits: &[u8; UNPACK_BYTES], shift: u32, _count: u32, out: &mut [u8; BLOCK_BYTES]) {
        unsafe { unpack16(bits, shift, out) }
    }

    #[inline(always)]
    fn unpack32(self, bits: &[u8; UNPACK_BYTES], shift: u32, _count: u32, out: &mut [u8; BLOCK_BYTES]) {
        unsafe { unpack32(bits, shift, out) }
    }

    #[inline(always)]
    fn prefix_sum16(self, syms: &mut [u8; BLOCK_BYTES], borrow: u64) -> bool {
        unsafe { prefix_sum16(syms, borrow) }
    }

    #[inline(always)]
    fn prefix_sum32(self, syms: &mut [u8; BLOCK_BYTES], borrow: u64) -> bool {
        unsafe { prefix_sum32(syms, borrow) }
    }
}
