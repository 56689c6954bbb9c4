//! The fast encoder: the [SWAR size model](super::size) picks each block's code, a word-at-a-time
//! bit writer into a fixed chunk buffer writes it, and chunks go straight into the output. The
//! planes come from the transposes of the path's per-block kernels (`super::kernels`: the
//! 8 × 8-tile code of [`super::planes`], or AVX-512 VBMI / GFNI on [`Path::Avx512`]), their
//! prefix-code cases in the golden `classify_planes` order of tests; the tests in
//! `engine/tests/fast.rs` check the bits against the golden encoder's on every path.

use super::kernels::{Kernels, Portable};
use super::path::Path;
use super::planes::{PLANES16, PLANES32};
use super::size::{blocks_sizes_into_with, load_words};
use crate::golden::BlockSizes;
use crate::golden::block::planes::{
    CODE_ALL_ONES, CODE_DBP_ZERO, CODE_ONE_ONE, CODE_RUN, CODE_TWO_ONES, CODE_VERBATIM, CODE_ZERO, MAX_PLANES,
    PlaneGeometry, base_bits,
};
use crate::golden::block::{TAG_BITS, Tag, bx, dbx, zvc};
use crate::golden::chunk::HEADER_BYTES;
use crate::golden::width::{BLOCK_BYTES, CHUNK_BLOCKS, CHUNK_BYTES, MAX_SYMBOLS, SymbolWidth};

/// Largest compressed chunk body the encoder may build before the raw fallback: 32 blocks of at
/// most 3 + 1,024 bits, rounded up to whole 32-bit words.
const BODY_CAPACITY_BYTES: usize = (CHUNK_BLOCKS * (TAG_BITS as usize + BLOCK_BYTES * 8)).div_ceil(32) * 4;

/// MSB-first bit writer into a fixed buffer (the golden `BitWriter`'s accumulator scheme without
/// a growing vector).
struct ChunkWriter {
    buf: [u8; BODY_CAPACITY_BYTES],
    len_bytes: usize,
    acc: u64,
    pending_bits: u32,
}

impl ChunkWriter {
    fn new() -> Self {
        ChunkWriter { buf: [0; BODY_CAPACITY_BYTES], len_bytes: 0, acc: 0, pending_bits: 0 }
    }

    fn reset(&mut self) {
        self.len_bytes = 0;
        self.acc = 0;
        self.pending_bits = 0;
    }

    /// Appends the low `n` bits of `value` (n ≤ 32).
    #[inline(always)]
    fn put(&mut self, value: u32, n: u32) {
        let v = (value as u64) & ((1u64 << n) - 1);
        self.acc = (self.acc << n) | v;
        self.pending_bits += n;
        if self.pending_bits >= 32 {
            self.pending_bits -= 32;
            let word = ((self.acc >> self.pending_bits) as u32).to_be_bytes();
            self.buf[self.len_bytes..self.len_bytes + 4].copy_from_slice(&word);
            self.len_bytes += 4;
        }
    }

    /// Appends the low `n` bits of `value` (n ≤ 64).
    #[inline(always)]
    fn put64(&mut self, value: u64, n: u32) {
        if n > 32 {
            self.put((value >> 32) as u32, n - 32);
            self.put(value as u32, 32);
        } else {
            self.put(value as u32, n);
        }
    }

    /// Pads to a byte boundary; the body is then `buf[..len]`.
    fn finish(&mut self) -> usize {
        while self.pending_bits >= 8 {
            self.pending_bits -= 8;
            self.buf[self.len_bytes] = (self.acc >> self.pending_bits) as u8;
            self.len_bytes += 1;
        }
        if self.pending_bits > 0 {
            self.buf[self.len_bytes] = (self.acc << (8 - self.pending_bits)) as u8;
            self.len_bytes += 1;
            self.pending_bits = 0;
        }
        self.len_bytes
    }
}

/// Writes the prefix code of the pre-XOR planes `p[..P]` (FORMAT.md §5.3): the cases of the
/// golden `classify_planes` in its order of tests, with every coded plane and a bit mask of the
/// zero ones computed first, so a run of zero planes is one count of leading ones.
#[inline(always)]
fn put_planes(w: &mut ChunkWriter, p: &[u64], geo: PlaneGeometry) {
    let planes = geo.planes as usize;
    let top = planes - 1;
    let mut coded = [0u64; MAX_PLANES];
    let mut zero = 0u64;
    for j in 0..planes {
        coded[j] = if j == top { p[j] } else { p[j] ^ p[j + 1] };
        zero |= ((coded[j] == 0) as u64) << j;
    }
    let ones = geo.ones();
    let (run_bits, pos_bits) = (geo.run_field_bits(), geo.pos_field_bits());
    let mut j = top as isize;
    while j >= 0 {
        let ju = j as usize;
        let x = coded[ju];
        if x == 0 {
            // Zero planes j, j − 1, …: the ones of `zero` from bit j down.
            let k = (!(zero << (u64::BITS as usize - 1 - ju))).leading_zeros();
            if k == 1 {
                w.put(CODE_ZERO.0, CODE_ZERO.1);
            } else {
                w.put((CODE_RUN.0 << run_bits) | (k - 2), CODE_RUN.1 + run_bits);
            }
            j -= k as isize;
            continue;
        }
        if x == ones {
            w.put(CODE_ALL_ONES.0, CODE_ALL_ONES.1);
        } else if p[ju] == 0 {
            w.put(CODE_DBP_ZERO.0, CODE_DBP_ZERO.1);
        } else if x.count_ones() == 2 && x & (x >> 1) != 0 {
            w.put((CODE_TWO_ONES.0 << pos_bits) | x.trailing_zeros(), CODE_TWO_ONES.1 + pos_bits);
        } else if x.count_ones() == 1 {
            w.put((CODE_ONE_ONE.0 << pos_bits) | x.trailing_zeros(), CODE_ONE_ONE.1 + pos_bits);
        } else {
            w.put(CODE_VERBATIM.0, CODE_VERBATIM.1);
            w.put64(x, geo.plane_bits);
        }
        j -= 1;
    }
}

/// Writes the DBX base-symbol code (FORMAT.md §6): a 3-bit prefix and a short two's-complement
/// field, or `1` and the symbol.
fn put_base(w: &mut ChunkWriter, value: u32, width: SymbolWidth) {
    /// (prefix, field bits) of the short forms, by their total length.
    const SHORT_FORMS: [(u32, u32, u32); 4] = [(3, 0b000, 0), (7, 0b001, 4), (11, 0b010, 8), (19, 0b011, 16)];
    let bits = base_bits(value, width);
    match SHORT_FORMS.iter().find(|f| f.0 == bits) {
        Some(&(_, prefix, field)) => w.put((prefix << field) | (value & ((1u32 << field) - 1)), bits),
        None => {
            w.put(0b1, 1);
            w.put(value, width.bits());
        }
    }
}

/// Appends tag + payload of one block, coded with `tag`.
#[inline(always)]
fn put_block<K: Kernels>(k: K, w: &mut ChunkWriter, block: &[u8; BLOCK_BYTES], width: SymbolWidth, tag: Tag) {
    w.put(tag as u32, TAG_BITS);
    if tag == Tag::Raw {
        for word in load_words(block) {
            // Memory order: bytes 0..8 of the word, first byte first.
            w.put64(u64::from_be_bytes(word.to_le_bytes()), 64);
        }
        return;
    }
    let mut syms = [0u32; MAX_SYMBOLS];
    width.load(block, &mut syms);
    let syms = &syms[..width.symbols()];
    match (tag, width) {
        (Tag::Zvc, _) => {
            w.put64(zvc::nonzero_mask(syms), syms.len() as u32);
            for &s in syms.iter().filter(|&&s| s != 0) {
                w.put(s, width.bits());
            }
        }
        (Tag::Dbx, SymbolWidth::W16) => {
            put_base(w, syms[0], width);
            // The 63 low delta words (a zero 64th below them), then the borrow plane on top.
            let mut low = [0u8; BLOCK_BYTES];
            let mut borrow = 0u64;
            for k in 1..syms.len() {
                low[2 * k - 2..2 * k].copy_from_slice(&(syms[k].wrapping_sub(syms[k - 1]) as u16).to_le_bytes());
                borrow = (borrow << 1) | (syms[k] < syms[k - 1]) as u64;
            }
            let mut p = [0u64; PLANES16 + 1];
            for (o, plane) in p.iter_mut().zip(k.to_planes16(&low)) {
                *o = plane >> 1;
            }
            p[PLANES16] = borrow;
            put_planes(w, &p, dbx::geometry(width));
        }
        (Tag::Bx, SymbolWidth::W16) => put_planes(w, &k.to_planes16(block), bx::geometry(width, syms.len())),
        (Tag::Zbx, SymbolWidth::W16) => {
            w.put64(zvc::nonzero_mask(syms), syms.len() as u32);
            // Nonzeros compacted to the front (branch-free: a zero is overwritten by the next).
            let mut packed = [0u8; BLOCK_BYTES];
            let mut n = 0;
            for &s in syms {
                packed[2 * n..2 * n + 2].copy_from_slice(&(s as u16).to_le_bytes());
                n += (s != 0) as usize;
            }
            if n > 0 {
                let p = k.to_planes16(&packed).map(|plane| plane >> (u64::BITS as usize - n));
                put_planes(w, &p, bx::geometry(width, n));
            }
        }
        (Tag::Dbx, _) => {
            put_base(w, syms[0], width);
            // The 31 low deltas (a zero 32nd below them), then the borrow plane on top.
            let mut low = [0u32; PLANES32];
            let mut borrow = 0u64;
            for k in 1..syms.len() {
                low[k - 1] = syms[k].wrapping_sub(syms[k - 1]);
                borrow = (borrow << 1) | (syms[k] < syms[k - 1]) as u64;
            }
            let mut p = [0u64; PLANES32 + 1];
            for (o, plane) in p.iter_mut().zip(k.to_planes32(&low)) {
                *o = plane >> 1;
            }
            p[PLANES32] = borrow;
            put_planes(w, &p, dbx::geometry(width));
        }
        (Tag::Bx, _) => put_planes(w, &k.to_planes32(syms.try_into().expect("32 symbols")), bx::geometry(width, syms.len())),
        (Tag::Zbx, _) => {
            w.put64(zvc::nonzero_mask(syms), syms.len() as u32);
            let mut packed = [0u32; PLANES32];
            let mut n = 0;
            for &s in syms {
                packed[n] = s;
                n += (s != 0) as usize;
            }
            if n > 0 {
                let p = k.to_planes32(&packed).map(|plane| plane >> (PLANES32 - n));
                put_planes(w, &p, bx::geometry(width, n));
            }
        }
        (Tag::Raw, _) => unreachable!("handled above"),
    }
}

/// Appends the chunk (header + body, or the raw fallback) of up to 4 KB of tensor bytes; the
/// codes are chosen by the size model on `path`, all blocks of the chunk in one batch.
#[inline(always)]
fn put_chunk<K: Kernels>(k: K, w: &mut ChunkWriter, path: Path, sizes: &mut Vec<BlockSizes>, chunk: &[u8], width: SymbolWidth, out: &mut Vec<u8>) {
    w.reset();
    blocks_sizes_into_with(path, chunk, width, sizes);
    let mut blocks = chunk.chunks_exact(BLOCK_BYTES);
    for (block, s) in (&mut blocks).zip(sizes.iter()) {
        put_block(k, w, block.try_into().expect("128 bytes"), width, s.choice().0);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut padded = [0u8; BLOCK_BYTES];
        padded[..tail.len()].copy_from_slice(tail);
        put_block(k, w, &padded, width, sizes[sizes.len() - 1].choice().0);
    }
    let body = w.finish();
    let stored: &[u8] = if body >= chunk.len() { chunk } else { &w.buf[..body] };
    out.extend_from_slice(&(stored.len() as u16).to_le_bytes());
    out.extend_from_slice(stored);
}

/// [`encode_stream_into_with`] on the kernels `k` (inlined into the caller, so that the
/// AVX-512 entry point compiles it with its features).
#[inline(always)]
pub(crate) fn encode_into_generic<K: Kernels>(k: K, path: Path, data: &[u8], width: SymbolWidth, out: &mut Vec<u8>) {
    let mut w = Box::new(ChunkWriter::new());
    let mut sizes = Vec::with_capacity(CHUNK_BLOCKS);
    out.reserve(data.len() / 2 + HEADER_BYTES * data.len().div_ceil(CHUNK_BYTES));
    for chunk in data.chunks(CHUNK_BYTES) {
        put_chunk(k, &mut w, path, &mut sizes, chunk, width, out);
    }
}

/// Encodes a tensor's bytes into a chunk stream with the size model on `path` (and, on
/// [`Path::Avx512`], the AVX-512 transposes), bit-identical to
/// [`crate::golden::encode_stream`], appending to `out`. `data` should start on a chunk
/// boundary of the tensor (every slice of whole chunks does).
///
/// # Panics
/// If `path` is not available on this CPU ([`Path::is_available`]).
pub fn encode_stream_into_with(path: Path, data: &[u8], width: SymbolWidth, out: &mut Vec<u8>) {
    assert!(path.is_available(), "{path:?} is not available on this CPU");
    #[cfg(target_arch = "x86_64")]
    if path == Path::Avx512 {
        let k = super::x86::Avx512::detect().expect("Path::Avx512 implies the AVX-512 kernels' features");
        return k.encode_into(path, data, width, out);
    }
    #[cfg(target_arch = "x86_64")]
    if path == Path::Avx2 {
        let k = super::x86_avx2::Avx2::detect().expect("Path::Avx2 implies the AVX2 build's features");
        return k.encode_into(path, data, width, out);
    }
    encode_into_generic(Portable, path, data, width, out)
}

/// [`encode_stream_into_with`] on the fastest path of this CPU ([`Path::detect`]).
pub fn encode_stream_into(data: &[u8], width: SymbolWidth, out: &mut Vec<u8>) {
    encode_stream_into_with(Path::detect(), data, width, out)
}

/// Encodes a tensor's bytes into a chunk stream, bit-identical to [`crate::golden::encode_stream`].
pub fn encode_stream(data: &[u8], width: SymbolWidth) -> Vec<u8> {
    encode_stream_with(Path::detect(), data, width)
}

/// [`encode_stream`] with the size model on an explicit [`Path`] (panics if this CPU cannot
/// run it).
pub fn encode_stream_with(path: Path, data: &[u8], width: SymbolWidth) -> Vec<u8> {
    let mut out = Vec::new();
    encode_stream_into_with(path, data, width, &mut out);
    out
}
