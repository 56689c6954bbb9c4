//! The fast decoder: each compressed chunk body is copied once into a zero-padded buffer, so the
//! bit reader takes any field with one 8-byte load and no per-field bounds check; the prefix of
//! every plane is classified from one 5-bit window. Every condition of FORMAT.md §9 is still
//! detected — a field past the end shows as a read position beyond the body, checked after each
//! block — but not described: on any fault the stream is handed to the golden decoder, which
//! returns its exact typed error. So a stream decodes here iff it decodes with golden, to the
//! same bytes, and a bad one gets golden's error.

use super::planes::{PLANES16, PLANES32, from_planes16, from_planes32};
use crate::golden::block::planes::{MAX_PLANES, PlaneGeometry};
use crate::golden::block::{RAW_BITS, TAG_BITS, Tag, bx, dbx};
use crate::golden::chunk::HEADER_BYTES;
use crate::golden::error::DecodeError;
use crate::golden::width::{BLOCK_BYTES, CHUNK_BYTES, MAX_SYMBOLS, SymbolWidth};

/// Zero bytes behind the body in the reader's buffer: more than one block can read past the end
/// (at most 3 + 1,105 bits) plus the 8-byte window, so a faulty block never leaves the buffer
/// before the check after it.
const PAD_BYTES: usize = 256;

/// A stream fault, described by re-running the golden decoder.
pub(crate) struct Fault;

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
        let v = (self.window() >> 1) >> (63 - n);
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

/// Decodes the prefix-coded planes (FORMAT.md §5.3) into the pre-XOR planes `p[0..P]`.
#[inline(always)]
fn read_planes(r: &mut Reader, geo: PlaneGeometry, p: &mut [u64; MAX_PLANES]) -> Result<(), Fault> {
    let top = geo.planes as usize - 1;
    let ones = geo.ones();
    let (run_bits, pos_bits) = (geo.run_field_bits(), geo.pos_field_bits());
    let mut above = 0u64;
    let mut j = top as isize;
    while j >= 0 {
        let prefix = (r.window() >> 59) as u32;
        let plane = if prefix & 0b10000 != 0 {
            r.pos_bits += 1;
            r.take64(geo.plane_bits) ^ above
        } else if prefix & 0b01000 != 0 {
            r.pos_bits += 2;
            let run = r.take(run_bits) as isize + 2;
            if run > j + 1 {
                return Err(Fault);
            }
            p[(j + 1 - run) as usize..=j as usize].fill(above);
            j -= run;
            continue;
        } else if prefix & 0b00100 != 0 {
            r.pos_bits += 3;
            above
        } else {
            r.pos_bits += 5;
            match prefix & 0b11 {
                0b00 => ones ^ above,
                0b01 if j as usize == top => return Err(Fault),
                0b01 => 0,
                code => {
                    let pos = r.take(pos_bits) as u32;
                    let (span, x) = if code == 0b10 { (2, 3u64) } else { (1, 1u64) };
                    if pos + span > geo.plane_bits {
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

/// The 16 low planes of `p` (L = `plane_bits` values, value m at bit L − 1 − m) in the layout of
/// [`from_planes16`] (value m at bit 63 − m).
#[inline(always)]
fn planes16(p: &[u64; MAX_PLANES], plane_bits: usize) -> [u64; PLANES16] {
    let mut out = [0u64; PLANES16];
    for (o, &plane) in out.iter_mut().zip(p) {
        *o = plane << (u64::BITS as usize - plane_bits);
    }
    out
}

/// The 32 low planes of `p` (L = `plane_bits` ≤ 32 values, value m at bit L − 1 − m) as the
/// symbols they hold (value m of the L first; the rest zero), through [`from_planes32`].
#[inline(always)]
fn symbols32(p: &[u64; MAX_PLANES], plane_bits: usize, out: &mut [u32]) {
    let mut shifted = [0u64; PLANES32];
    for (o, &plane) in shifted.iter_mut().zip(p) {
        *o = plane << (PLANES32 - plane_bits);
    }
    let mut syms = [0u32; PLANES32];
    from_planes32(&shifted, &mut syms);
    out[..plane_bits].copy_from_slice(&syms[..plane_bits]);
}

/// Decodes one block (tag + payload) into `block`.
#[inline(always)]
fn read_block(r: &mut Reader, width: SymbolWidth, block: &mut [u8; BLOCK_BYTES]) -> Result<(), Fault> {
    let tag = match r.take(TAG_BITS) {
        0 => Tag::Zvc,
        1 => Tag::Dbx,
        2 => Tag::Bx,
        3 => Tag::Zbx,
        4 => Tag::Raw,
        _ => return Err(Fault),
    };
    let n = width.symbols();
    let w = width.bits();
    let mut syms = [0u32; MAX_SYMBOLS];
    match tag {
        Tag::Raw => {
            for c in block.chunks_exact_mut(4) {
                c.copy_from_slice(&(r.take(32) as u32).to_be_bytes());
            }
            debug_assert_eq!(block.len() * 8, RAW_BITS as usize);
            return Ok(());
        }
        Tag::Zvc => {
            let mask = r.take64(n as u32);
            for (i, s) in syms[..n].iter_mut().enumerate() {
                if mask >> (n - 1 - i) & 1 == 1 {
                    *s = r.take(w) as u32;
                }
            }
        }
        Tag::Dbx => {
            syms[0] = read_base(r, width)?;
            let mut p = [0u64; MAX_PLANES];
            read_planes(r, dbx::geometry(width), &mut p)?;
            let l = n - 1;
            let mut low = [0u32; MAX_SYMBOLS];
            if width == SymbolWidth::W16 {
                let mut bytes = [0u8; BLOCK_BYTES];
                from_planes16(&planes16(&p, l), &mut bytes);
                for (o, c) in low.iter_mut().zip(bytes.chunks_exact(2)) {
                    *o = u16::from_le_bytes([c[0], c[1]]) as u32;
                }
            } else {
                symbols32(&p, l, &mut low);
            }
            let borrow = p[w as usize];
            let mut bad = false;
            for k in 1..n {
                let b = ((borrow >> (l - k)) & 1) as i64;
                let next = syms[k - 1] as i64 + low[k - 1] as i64 - (b << w);
                bad |= !(0..=width.mask() as i64).contains(&next);
                syms[k] = next as u32 & width.mask();
            }
            if bad {
                return Err(Fault);
            }
        }
        Tag::Bx => {
            let mut p = [0u64; MAX_PLANES];
            read_planes(r, bx::geometry(width, n), &mut p)?;
            if width == SymbolWidth::W16 {
                from_planes16(&planes16(&p, n), block);
                return Ok(());
            }
            symbols32(&p, n, &mut syms);
        }
        Tag::Zbx => {
            let mask = r.take64(n as u32);
            let count = mask.count_ones() as usize;
            if count > 0 {
                let mut p = [0u64; MAX_PLANES];
                let mut packed = [0u32; MAX_SYMBOLS];
                read_planes(r, bx::geometry(width, count), &mut p)?;
                if width == SymbolWidth::W16 {
                    let mut bytes = [0u8; BLOCK_BYTES];
                    from_planes16(&planes16(&p, count), &mut bytes);
                    for (o, c) in packed.iter_mut().zip(bytes.chunks_exact(2)) {
                        *o = u16::from_le_bytes([c[0], c[1]]) as u32;
                    }
                } else {
                    symbols32(&p, count, &mut packed);
                }
                let mut next = 0;
                for (i, s) in syms[..n].iter_mut().enumerate() {
                    if mask >> (n - 1 - i) & 1 == 1 {
                        *s = packed[next];
                        next += 1;
                    }
                }
            }
        }
    }
    width.store(&syms[..n], block);
    Ok(())
}

/// Decodes one compressed chunk body into `dst` (the chunk's raw bytes).
fn read_chunk(r: &mut Reader, body: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), Fault> {
    r.buf[..body.len()].copy_from_slice(body);
    r.buf[body.len()..body.len() + PAD_BYTES].fill(0);
    r.pos_bits = 0;
    let end_bits = body.len() * 8;
    let mut block = [0u8; BLOCK_BYTES];
    for part in dst.chunks_mut(BLOCK_BYTES) {
        read_block(r, width, &mut block)?;
        if r.pos_bits > end_bits {
            return Err(Fault);
        }
        // The zero padding of a final partial block must decode as zeros (FORMAT.md §7,
        // golden's `PaddingNotZero`).
        if block[part.len()..].iter().any(|&b| b != 0) {
            return Err(Fault);
        }
        part.copy_from_slice(&block[..part.len()]);
    }
    let padding = end_bits - r.pos_bits;
    if padding >= 8 || (padding > 0 && r.take(padding as u32) != 0) {
        return Err(Fault);
    }
    Ok(())
}

/// Decodes the chunks of `stream` into `dst`, whose length is the tensor's raw bytes; the stream
/// must end exactly after the last chunk.
pub(crate) fn decode_into(stream: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), Fault> {
    let mut r = Box::new(Reader { buf: [0; CHUNK_BYTES + PAD_BYTES], pos_bits: 0 });
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
            read_chunk(&mut r, body, chunk, width)?;
        }
    }
    if offset != stream.len() {
        return Err(Fault);
    }
    Ok(())
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
    if too_short(stream, raw_bytes) {
        return golden_result(stream, raw_bytes, width);
    }
    let mut out = vec![0u8; raw_bytes];
    match decode_into(stream, &mut out, width) {
        Ok(()) => Ok(out),
        // Golden describes the fault (and, were the two ever to disagree, its answer stands).
        Err(Fault) => golden_result(stream, raw_bytes, width),
    }
}
