//! The fast decoder: each compressed chunk body is copied once into a zero-padded buffer, so the
//! bit reader takes any field with one 8-byte load and no per-field bounds check; each plane's
//! prefix code and its field come from one such window. Whole blocks are decoded in place in
//! the output, through the per-block [`Kernels`] of the chosen [`Path`] (inverse transposes,
//! the unpacking and scatter of ZVC / ZBX nonzeros, DBX's running sum with its borrow check:
//! AVX-512 VBMI / GFNI instructions on [`Path::Avx512`], portable code otherwise). Every
//! condition of FORMAT.md §9 is still detected — a field past the end shows as a read position
//! beyond the body, checked after each block — but not described: on any fault the stream is
//! handed to the golden decoder, which returns its exact typed error. So a stream decodes here
//! iff it decodes with golden, to the same bytes, and a bad one gets golden's error.

use super::kernels::{Kernels, Portable, UNPACK_BYTES};
use super::path::Path;
use super::planes::{PLANES16, PLANES32};
use crate::golden::block::planes::{MAX_PLANES, PlaneGeometry};
use crate::golden::block::{RAW_BITS, TAG_BITS, Tag, bx, dbx};
use crate::golden::chunk::HEADER_BYTES;
use crate::golden::error::DecodeError;
use crate::golden::width::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth};

/// Zero bytes behind the body in the reader's buffer: more than one block can read past the end
/// (at most 3 + 1,105 bits) plus the 8-byte window, and ZVC's nonzeros are unpacked from a
/// 136-byte slice starting at most 67 bits into a block, so a faulty block never leaves the
/// buffer before the check after it.
const PAD_BYTES: usize = 256;

/// A stream fault, described by re-running the golden decoder.
pub(crate) struct Fault;

/// Per-block work arrays, kept across blocks so that none is zeroed per block: every code
/// writes the planes it then reads (`p[0..P]`), and the nonzeros' symbols it then scatters.
struct Scratch {
    /// The pre-XOR planes of the block being decoded.
    planes: [u64; MAX_PLANES],
    /// The nonzeros of a ZVC / ZBX block, in order.
    packed: [u8; BLOCK_BYTES],
}

/// MSB-first reader over a chunk body copied into a zero-padded buffer.
struct Reader {
    buf: [u8; CHUNK_BYTES + PAD_BYTES],
    pos_bits: usize,
}

impl Reader {
    /// The 64 bits from the current position (at least 57 of them meaningful).
    #[inline(always)]
    fn window(&self) -> u64 {
        let byte = self.pos_bits / 8;
        let word = match self.buf.get(byte..byte + 8) {
            Some(eight) => u64::from_be_bytes(eight.try_into().expect("8 bytes")),
            None => 0,
        };
        word << (self.pos_bits % 8)
    }

    /// Takes an `n`-bit field, 0 ≤ n ≤ 57.
    #[inline(always)]
    fn take(&mut self, n: u32) -> u64 {
        let v = top_bits(self.window(), n);
        self.pos_bits += n as usize;
        v
    }

    /// Takes an `n`-bit field, 0 ≤ n ≤ 64.
    #[inline(always)]
    fn take64(&mut self, n: u32) -> u64 {
        if n > 32 {
            let hi = self.take(n - 32);
            (hi << 32) | self.take(32)
        } else {
            self.take(n)
        }
    }
}

/// The top `n` bits of `word` (0 ≤ n ≤ 63), as [`Reader::take`] extracts them.
#[inline(always)]
fn top_bits(word: u64, n: u32) -> u64 {
    (word >> 1) >> (63 - n)
}

/// Longest verbatim plane whose prefix bit and plane bits fit in one [`Reader::window`].
const ONE_WINDOW_PLANE_BITS: u32 = 56;

/// Decodes the prefix-coded planes (FORMAT.md §5.3) into the pre-XOR planes `p[0..P]`. Each
/// plane's code, and its field, come from one window (a verbatim plane over 56 bits takes
/// a second read).
#[inline(always)]
fn read_planes(r: &mut Reader, geo: PlaneGeometry, p: &mut [u64; MAX_PLANES]) -> Result<(), Fault> {
    let top = geo.planes as usize - 1;
    let ones = geo.ones();
    let (run_bits, pos_bits, plane_bits) = (geo.run_field_bits(), geo.pos_field_bits(), geo.plane_bits);
    let mut above = 0u64;
    let mut j = top as isize;
    while j >= 0 {
        let win = r.window();
        let plane = if win >> 63 != 0 {
            // `1` + the plane.
            if plane_bits <= ONE_WINDOW_PLANE_BITS {
                r.pos_bits += 1 + plane_bits as usize;
                top_bits(win << 1, plane_bits) ^ above
            } else {
                r.pos_bits += 1;
                r.take64(plane_bits) ^ above
            }
        } else if win >> 62 != 0 {
            // `01` + a run length − 2.
            let run = top_bits(win << 2, run_bits) as isize + 2;
            r.pos_bits += 2 + run_bits as usize;
            if run > j + 1 {
                return Err(Fault);
            }
            p[(j + 1 - run) as usize..=j as usize].fill(above);
            j -= run;
            continue;
        } else if win >> 61 != 0 {
            // `001`: a zero plane.
            r.pos_bits += 3;
            above
        } else {
            r.pos_bits += 5;
            match (win >> 59) & 0b11 {
                0b00 => ones ^ above,
                0b01 if j as usize == top => return Err(Fault),
                0b01 => 0,
                code => {
                    let pos = top_bits(win << 5, pos_bits) as u32;
                    r.pos_bits += pos_bits as usize;
                    let (span, x) = if code == 0b10 { (2, 3u64) } else { (1, 1u64) };
                    if pos + span > plane_bits {
                        return Err(Fault);
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

/// Reads a DBX base-symbol code (FORMAT.md §6).
#[inline(always)]
fn read_base(r: &mut Reader, width: SymbolWidth) -> Result<u32, Fault> {
    let head = r.take(3) as u32;
    if head & 0b100 != 0 {
        r.pos_bits -= 2;
        return Ok(r.take(width.bits()) as u32);
    }
    let field_bits = match head {
        0b000 => return Ok(0),
        0b001 => 4,
        0b010 => 8,
        _ if width == SymbolWidth::W32 => 16,
        _ => return Err(Fault),
    };
    let raw = r.take(field_bits) as u32;
    let shift = 32 - field_bits;
    Ok((((raw << shift) as i32) >> shift) as u32 & width.mask())
}

/// Decodes one block (tag + payload) into `block`, every byte of it written.
#[inline(always)]
fn read_block<K: Kernels>(k: K, r: &mut Reader, s: &mut Scratch, width: SymbolWidth, block: &mut [u8; BLOCK_BYTES]) -> Result<(), Fault> {
    let Scratch { planes: p, packed } = s;
    let tag = match r.take(TAG_BITS) {
        0 => Tag::Zvc,
        1 => Tag::Dbx,
        2 => Tag::Bx,
        3 => Tag::Zbx,
        4 => Tag::Raw,
        _ => return Err(Fault),
    };
    let n = width.symbols();
    let w16 = width == SymbolWidth::W16;
    match tag {
        Tag::Raw => {
            for c in block.chunks_exact_mut(4) {
                c.copy_from_slice(&(r.take(32) as u32).to_be_bytes());
            }
            debug_assert_eq!(block.len() * 8, RAW_BITS as usize);
        }
        Tag::Zvc => {
            let mask = r.take64(n as u32);
            let count = mask.count_ones();
            // The nonzeros are `count` consecutive w-bit fields: unpacked at once, then put in
            // place. (Past a faulty body the buffer's padding keeps this slice inside it, and
            // the position check after the block catches the fault.)
            let byte = r.pos_bits / 8;
            let bits: &[u8; UNPACK_BYTES] = r.buf.get(byte..byte + UNPACK_BYTES).ok_or(Fault)?.try_into().expect("UNPACK_BYTES bytes");
            let shift = (r.pos_bits % 8) as u32;
            if w16 {
                k.unpack16(bits, shift, count, packed);
                k.expand16(packed, mask, block);
            } else {
                k.unpack32(bits, shift, count, packed);
                k.expand32(packed, mask, block);
            }
            r.pos_bits += (count * width.bits()) as usize;
        }
        Tag::Dbx => {
            let base = read_base(r, width)?;
            read_planes(r, dbx::geometry(width), p)?;
            // The N − 1 low deltas as symbols 1…N − 1 (planes of N − 1 values unshifted), the
            // base as symbol 0, then the running sum; a wrap must be where the borrow plane
            // (the top one) says.
            let ok = if w16 {
                k.planes_to_symbols16(p, 0, block);
                block[..2].copy_from_slice(&(base as u16).to_le_bytes());
                k.prefix_sum16(block, p[PLANES16])
            } else {
                k.planes_to_symbols32(p, 0, block);
                block[..4].copy_from_slice(&base.to_le_bytes());
                k.prefix_sum32(block, p[PLANES32])
            };
            if !ok {
                return Err(Fault);
            }
        }
        Tag::Bx => {
            read_planes(r, bx::geometry(width, n), p)?;
            if w16 { k.planes_to_symbols16(p, 0, block) } else { k.planes_to_symbols32(p, 0, block) }
        }
        Tag::Zbx => {
            let mask = r.take64(n as u32);
            let count = mask.count_ones();
            if count == 0 {
                block.fill(0);
                return Ok(());
            }
            read_planes(r, bx::geometry(width, count as usize), p)?;
            // The nonzeros' planes of `count` values, as the first symbols, then put in place.
            if w16 {
                k.planes_to_symbols16(p, n as u32 - count, packed);
                k.expand16(packed, mask, block);
            } else {
                k.planes_to_symbols32(p, n as u32 - count, packed);
                k.expand32(packed, mask, block);
            }
        }
    }
    Ok(())
}

/// Decodes one compressed chunk body into `dst` (the chunk's raw bytes); whole blocks are
/// decoded in place.
#[inline(always)]
fn read_chunk<K: Kernels>(k: K, r: &mut Reader, s: &mut Scratch, body: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), Fault> {
    r.buf[..body.len()].copy_from_slice(body);
    r.buf[body.len()..body.len() + PAD_BYTES].fill(0);
    r.pos_bits = 0;
    let end_bits = body.len() * 8;
    let mut blocks = dst.chunks_exact_mut(BLOCK_BYTES);
    for block in &mut blocks {
        read_block(k, r, s, width, block.try_into().expect("128 bytes"))?;
        if r.pos_bits > end_bits {
            return Err(Fault);
        }
    }
    let tail = blocks.into_remainder();
    if !tail.is_empty() {
        let mut block = [0u8; BLOCK_BYTES];
        read_block(k, r, s, width, &mut block)?;
        // The zero padding of a final partial block must decode as zeros (FORMAT.md §7,
        // golden's `PaddingNotZero`).
        if r.pos_bits > end_bits || block[tail.len()..].iter().any(|&b| b != 0) {
            return Err(Fault);
        }
        tail.copy_from_slice(&block[..tail.len()]);
    }
    let padding = end_bits - r.pos_bits;
    if padding >= 8 || (padding > 0 && r.take(padding as u32) != 0) {
        return Err(Fault);
    }
    Ok(())
}

/// [`decode_into_with`] on the kernels `k` (inlined into the caller, so that the AVX-512 entry
/// point compiles it with its features).
#[inline(always)]
pub(crate) fn decode_into_generic<K: Kernels>(k: K, stream: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), Fault> {
    let mut r = Box::new(Reader { buf: [0; CHUNK_BYTES + PAD_BYTES], pos_bits: 0 });
    let mut s = Scratch { planes: [0; MAX_PLANES], packed: [0; BLOCK_BYTES] };
    let mut offset = 0usize;
    for chunk in dst.chunks_mut(CHUNK_BYTES) {
        let header = stream.get(offset..offset + HEADER_BYTES).ok_or(Fault)?;
        let body_len = u16::from_le_bytes([header[0], header[1]]) as usize;
        offset += HEADER_BYTES;
        if body_len > chunk.len() {
            return Err(Fault);
        }
        let body = stream.get(offset..offset + body_len).ok_or(Fault)?;
        offset += body_len;
        if body_len == chunk.len() {
            chunk.copy_from_slice(body);
        } else {
            read_chunk(k, &mut r, &mut s, body, chunk, width)?;
        }
    }
    if offset != stream.len() {
        return Err(Fault);
    }
    Ok(())
}

/// Decodes the chunks of `stream` into `dst`, whose length is the tensor's raw bytes, with the
/// kernels of `path` (the AVX-512 ones on [`Path::Avx512`], the portable ones otherwise); the
/// stream must end exactly after the last chunk.
///
/// # Panics
/// If `path` is not available on this CPU ([`Path::is_available`]).
pub(crate) fn decode_into_with(path: Path, stream: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), Fault> {
    assert!(path.is_available(), "{path:?} is not available on this CPU");
    #[cfg(target_arch = "x86_64")]
    if path == Path::Avx512 {
        let k = super::x86::Avx512::detect().expect("Path::Avx512 implies the AVX-512 kernels' features");
        return k.decode_into(stream, dst, width);
    }
    #[cfg(target_arch = "x86_64")]
    if path == Path::Avx2 {
        let k = super::x86_avx2::Avx2::detect().expect("Path::Avx2 implies the AVX2 build's features");
        return k.decode_into(stream, dst, width);
    }
    decode_into_generic(Portable, stream, dst, width)
}

/// The golden decoder's answer (golden checks the claimed `raw_bytes` against the stream before
/// it allocates, so an untrusted size cannot size its output).
pub(crate) fn golden_result(stream: &[u8], raw_bytes: usize, width: SymbolWidth) -> Result<Vec<u8>, DecodeError> {
    crate::golden::decode_stream(stream, raw_bytes, width)
}

/// True when `stream` cannot hold a header for every chunk of a `raw_bytes`-byte tensor (it is
/// then malformed, and `raw_bytes` must not size an allocation).
pub(crate) fn too_short(stream: &[u8], raw_bytes: usize) -> bool {
    raw_bytes.div_ceil(CHUNK_BYTES).saturating_mul(HEADER_BYTES) > stream.len()
}

/// Decodes a chunk stream of a `raw_bytes`-byte tensor; same result as
/// [`crate::golden::decode_stream`] for every input (a faulty stream gets golden's error).
pub fn decode_stream(stream: &[u8], raw_bytes: usize, width: SymbolWidth) -> Result<Vec<u8>, DecodeError> {
    decode_stream_with(Path::detect(), stream, raw_bytes, width)
}

/// The fast decoder alone on `path`: the decoded tensor, or `None` on any fault (no fallback to
/// golden, no description). For the tests, which must see that a valid stream decodes here and
/// not through the fallback, and for callers that only need to know whether a stream is valid.
///
/// # Panics
/// If `path` is not available on this CPU ([`Path::is_available`]).
pub fn decode_fast_only_with(path: Path, stream: &[u8], raw_bytes: usize, width: SymbolWidth) -> Option<Vec<u8>> {
    if too_short(stream, raw_bytes) {
        return None;
    }
    let mut out = vec![0u8; raw_bytes];
    decode_into_with(path, stream, &mut out, width).ok().map(|()| out)
}

/// [`decode_stream_with`] into a buffer the caller owns and reuses (`dst.len()` is the tensor's
/// raw bytes), so that no allocation or first-touch page fault of a fresh output is part of the
/// decode; on an error `dst` holds unspecified bytes and the error is golden's.
///
/// # Panics
/// If `path` is not available on this CPU ([`Path::is_available`]).
pub fn decode_stream_into_with(path: Path, stream: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), DecodeError> {
    let raw_bytes = dst.len();
    if !too_short(stream, raw_bytes) && decode_into_with(path, stream, dst, width).is_ok() {
        return Ok(());
    }
    // Golden describes the fault (and, were the two ever to disagree, its answer stands).
    golden_result(stream, raw_bytes, width).map(|out| dst.copy_from_slice(&out))
}

/// [`decode_stream`] with the kernels of an explicit [`Path`] (panics if this CPU cannot run
/// it).
pub fn decode_stream_with(path: Path, stream: &[u8], raw_bytes: usize, width: SymbolWidth) -> Result<Vec<u8>, DecodeError> {
    if too_short(stream, raw_bytes) {
        return golden_result(stream, raw_bytes, width);
    }
    let mut out = vec![0u8; raw_bytes];
    match decode_into_with(path, stream, &mut out, width) {
        Ok(()) => Ok(out),
        // Golden describes the fault (and, were the two ever to disagree, its answer stands).
        Err(Fault) => golden_result(stream, raw_bytes, width),
    }
}
