//! Crafted malformed chunk streams, at least one for every FORMAT.md §9 class
//! ([`H2dErrorClass::ALL`]), shared by the tests of the host-to-device lane (`tests/hw_h2d.rs`),
//! of the engine top in rust-hdl (`tests/hw_engine.rs`) and of its exported Verilog
//! (`cocotb-free-tests`), so that every level is held to the same cases. Each case says which
//! class it is meant to raise; the tests check that against `golden::decode_stream` before they
//! use it, so a case that drifts from its class fails there, not silently.

use super::h2d_driver::H2dErrorClass;
use super::beats::BEAT_BYTES;
use crate::golden::bits::{BitReader, BitWriter};
use crate::golden::block::{read_block, write_block};
use crate::golden::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth, decode_stream, encode_stream};
use crate::synth::activation_block;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A transfer to decode: the tensor it stands for, the stream the host-to-device path is fed and
/// the symbol width. For a malformed case `data` holds the tensor whose good prefix the stream
/// encodes (its bytes past the damage are filler).
#[derive(Clone, Debug)]
pub struct StreamCase {
    /// The tensor's bytes (its raw byte count is the descriptor's).
    pub data: Vec<u8>,
    /// The chunk stream fed to the decompressor.
    pub stream: Vec<u8>,
    /// Element width of the transfer.
    pub width: SymbolWidth,
}

impl StreamCase {
    /// The canonical golden stream of `data`.
    pub fn good(data: Vec<u8>, width: SymbolWidth) -> StreamCase {
        let stream = encode_stream(&data, width);
        StreamCase { data, stream, width }
    }

    /// A good transfer of `bytes` bytes of synthetic activation blocks.
    pub fn synthetic(rng: &mut ChaCha8Rng, width: SymbolWidth, bytes: usize) -> StreamCase {
        let data: Vec<u8> = (0..bytes.div_ceil(BLOCK_BYTES)).flat_map(|_| activation_block(rng, width)).take(bytes).collect();
        StreamCase::good(data, width)
    }

    /// Golden's first error on this stream as the lanes report it (class, chunk index), or `None`
    /// if golden decodes the stream to `data`'s length.
    pub fn golden_error(&self) -> Option<(H2dErrorClass, usize)> {
        let chunks = self.data.len().div_ceil(CHUNK_BYTES);
        decode_stream(&self.stream, self.data.len(), self.width).err().map(|e| H2dErrorClass::of_decode_error(&e, chunks))
    }

    /// The bytes golden decodes, block by block, before the first error of the stream (a lane
    /// writes exactly these): whole chunks before the bad one, then that chunk's blocks up to
    /// the bad block (all of them for a padding error, none for a bad header); a raw chunk cut
    /// short gives its whole 32-byte beats. The tensor's length for a good stream.
    pub fn good_prefix_bytes(&self) -> usize {
        let (stream, raw_bytes) = (&self.stream, self.data.len());
        let mut offset = 0;
        let mut done = 0;
        for chunk_start in (0..raw_bytes).step_by(CHUNK_BYTES) {
            let c = (raw_bytes - chunk_start).min(CHUNK_BYTES);
            let Some(h) = stream.get(offset..offset + 2) else { return done };
            let header = u16::from_le_bytes([h[0], h[1]]) as usize;
            offset += 2;
            if header > c {
                return done;
            }
            let body = &stream[offset.min(stream.len())..(offset + header).min(stream.len())];
            if header == c {
                if body.len() < c {
                    return done + body.len() / BEAT_BYTES * BEAT_BYTES;
                }
            } else {
                let mut r = BitReader::new(body);
                for b in 0..c.div_ceil(BLOCK_BYTES) {
                    if read_block(&mut r, self.width).is_err() {
                        return done + b * BLOCK_BYTES;
                    }
                }
            }
            offset += header;
            done += c;
        }
        done
    }
}

/// Filler of the tensor bytes past a crafted chunk's good blocks (never compared: no good
/// decoder reaches them).
const FILLER_BYTE: u8 = 0x11;
/// Blocks of a crafted chunk 0 that are activations; the others are zero (so it compresses).
const CHUNK0_ACTIVATION_EVERY: usize = 4;

/// A chunk of `good` valid blocks followed by the bits `bad` (value, width pairs), for a chunk
/// of raw size `raw_bytes`: header + body.
fn crafted_chunk(good: &[[u8; BLOCK_BYTES]], bad: &[(u32, u32)], width: SymbolWidth, raw_bytes: usize) -> Vec<u8> {
    let mut w = BitWriter::new();
    for b in good {
        write_block(&mut w, b, width);
    }
    for &(v, n) in bad {
        w.put(v, n);
    }
    let body = w.into_bytes();
    assert!(body.len() < raw_bytes, "a crafted chunk body is shorter than its raw size");
    let mut out = (body.len() as u16).to_le_bytes().to_vec();
    out.extend(body);
    out
}

/// A valid, compressible full chunk of `width` blocks (every fourth an activation, the rest zero).
fn good_chunk(rng: &mut ChaCha8Rng, width: SymbolWidth) -> Vec<u8> {
    (0..CHUNK_BYTES / BLOCK_BYTES).flat_map(|i| if i % CHUNK0_ACTIVATION_EVERY == 0 { activation_block(rng, width) } else { [0u8; BLOCK_BYTES] }).collect()
}

fn blocks(rng: &mut ChaCha8Rng, width: SymbolWidth, n: usize) -> Vec<[u8; BLOCK_BYTES]> {
    (0..n).map(|_| activation_block(rng, width)).collect()
}

/// A two-chunk transfer: a valid chunk 0, then a chunk 1 of `good` valid blocks followed by the
/// bits `bits` (the damage) in a chunk of `good + 2` blocks.
fn damaged_chunk1(rng: &mut ChaCha8Rng, width: SymbolWidth, good: usize, bits: &[(u32, u32)]) -> StreamCase {
    let data0 = good_chunk(rng, width);
    let good_blocks = blocks(rng, width, good);
    let raw1 = BLOCK_BYTES * (good + 2);
    let mut data = data0.clone();
    for b in &good_blocks {
        data.extend_from_slice(b);
    }
    data.resize(CHUNK_BYTES + raw1, FILLER_BYTE);
    let mut stream = encode_stream(&data0, width);
    stream.extend(crafted_chunk(&good_blocks, bits, width, raw1));
    StreamCase { data, stream, width }
}

/// The crafted malformed transfers, each with the class golden's decoder must report: every
/// class of [`H2dErrorClass::ALL`] at least once, block-level classes at both widths where the
/// class exists at both, whole-stream damage (header, truncation in a body, a header and a raw
/// chunk, trailing bytes), and a bad chunk 1 of three whose chunk 2 is good or fails sooner in
/// another decoder context (the error is chunk 1's either way). Deterministic in `seed`.
pub fn malformed_cases(seed: u64) -> Vec<(H2dErrorClass, StreamCase)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rng = &mut rng;
    let w32 = SymbolWidth::W32;
    let w16 = SymbolWidth::W16;
    use H2dErrorClass as C;
    let mut cases: Vec<(H2dErrorClass, StreamCase)> = Vec::new();
    // Tag 101.
    cases.push((C::ReservedTag, damaged_chunk1(rng, w32, 2, &[(0b101, 3)])));
    // DBX with base prefix 011 at w = 16.
    cases.push((C::ReservedBaseCode, damaged_chunk1(rng, w16, 1, &[(0b001, 3), (0b011, 3), (0xFFFF, 16)])));
    // BX w = 32: top plane "two ones" at position 31 (≥ L − 1); and "one one" at 31 in DBX (L = 31).
    cases.push((C::PositionOutOfRange, damaged_chunk1(rng, w32, 3, &[(0b010, 3), (0b00010, 5), (31, 5)])));
    cases.push((C::PositionOutOfRange, damaged_chunk1(rng, w32, 0, &[(0b001, 3), (0b000, 3), (0b00011, 5), (31, 5)])));
    // ZBX w = 16 with n = 3: position 3 of a 3-bit plane.
    cases.push((C::PositionOutOfRange, damaged_chunk1(rng, w16, 1, &[(0b011, 3), (0xE000, 16), (0, 16), (0, 32), (0b00011, 5), (3, 2)])));
    // BX w = 32: a run of 33 planes; BX w = 16: a run of 17.
    cases.push((C::RunTooLong, damaged_chunk1(rng, w32, 1, &[(0b010, 3), (0b01, 2), (31, 5)])));
    cases.push((C::RunTooLong, damaged_chunk1(rng, w16, 2, &[(0b010, 3), (0b001, 3), (0b01, 2), (15, 4)])));
    // "DBP = 0" on the top plane.
    cases.push((C::DbpZeroOnTopPlane, damaged_chunk1(rng, w32, 1, &[(0b010, 3), (0b00001, 5)])));
    cases.push((C::DbpZeroOnTopPlane, damaged_chunk1(rng, w16, 0, &[(0b001, 3), (0b000, 3), (0b00001, 5)])));
    // DBX base 0, borrow plane all ones, the rest zero: s[1] = −1.
    cases.push((C::DeltaOutOfRange, damaged_chunk1(rng, w32, 2, &[(0b001, 3), (0b000, 3), (0b00000, 5), (0b01, 2), (30, 5)])));
    cases.push((C::DeltaOutOfRange, damaged_chunk1(rng, w16, 1, &[(0b001, 3), (0b000, 3), (0b00000, 5), (0b01, 2), (14, 4)])));
    // A verbatim plane cut by the end of the body (blocks run past the header's length).
    cases.push((C::Truncated, damaged_chunk1(rng, w32, 1, &[(0b010, 3), (0b1, 1), (0xFFFF, 16)])));
    // Blocks that end a whole byte before the body does: a valid 2-block chunk, one zero byte more.
    let data0 = good_chunk(rng, w32);
    let tail: Vec<u8> = blocks(rng, w32, 2).concat();
    let mut stream = encode_stream(&data0, w32);
    let mut chunk1 = encode_stream(&tail, w32);
    let h1 = u16::from_le_bytes([chunk1[0], chunk1[1]]);
    assert!((h1 as usize) < tail.len() - 1, "the 2-block chunk compresses");
    chunk1[..2].copy_from_slice(&(h1 + 1).to_le_bytes());
    chunk1.push(0);
    stream.extend(chunk1);
    cases.push((C::SizeMismatch, StreamCase { data: [data0, tail].concat(), stream, width: w32 }));

    // A bad chunk 1 (of 3) whose chunk 2 is good, and one whose chunk 2 fails sooner than chunk 1
    // does (another context decodes it at the same time): the error is chunk 1's either way.
    for chunk2_bad in [false, true] {
        let data0 = good_chunk(rng, w32);
        let good1 = blocks(rng, w32, 20);
        let mut data = data0.clone();
        for b in &good1 {
            data.extend_from_slice(b);
        }
        data.resize(2 * CHUNK_BYTES, FILLER_BYTE);
        let mut stream = encode_stream(&data0, w32);
        stream.extend(crafted_chunk(&good1, &[(0b110, 3)], w32, CHUNK_BYTES));
        let data2: Vec<u8> = blocks(rng, w32, 8).concat();
        if chunk2_bad {
            stream.extend(crafted_chunk(&[], &[(0b111, 3)], w32, data2.len()));
        } else {
            stream.extend(encode_stream(&data2, w32));
        }
        data.extend(data2);
        cases.push((C::ReservedTag, StreamCase { data, stream, width: w32 }));
    }

    // Whole-stream damage to valid two- and three-chunk streams.
    // Header larger than the chunk's raw size.
    let mut t = StreamCase::synthetic(rng, w32, CHUNK_BYTES + 300);
    let h0 = u16::from_le_bytes([t.stream[0], t.stream[1]]) as usize;
    t.stream[2 + h0..4 + h0].copy_from_slice(&301u16.to_le_bytes());
    cases.push((C::HeaderTooLarge, t));
    // Nonzero padding: set the last bit of a chunk whose body ends in padding (the first seed
    // whose stream has such a chunk and gives that class).
    for padding_seed in 0..64u64 {
        let mut r2 = ChaCha8Rng::seed_from_u64(seed.wrapping_add(100 + padding_seed));
        let mut t = StreamCase::synthetic(&mut r2, w16, CHUNK_BYTES + 640);
        let h0 = u16::from_le_bytes([t.stream[0], t.stream[1]]) as usize;
        let last = t.stream.len() - 1;
        if h0 < CHUNK_BYTES && t.stream[last] & 1 == 0 {
            t.stream[last] |= 1;
            if t.golden_error().map(|e| e.0) == Some(C::SizeMismatch) {
                cases.push((C::SizeMismatch, t));
                break;
            }
        }
    }
    // The stream cut inside a compressed body, inside a header, and inside a raw chunk.
    let t = StreamCase::synthetic(rng, w32, 2 * CHUNK_BYTES + 900);
    let cut = t.stream.len() - 20;
    cases.push((C::StreamTruncated, StreamCase { stream: t.stream[..cut].to_vec(), ..t }));
    let t = StreamCase::synthetic(rng, w16, CHUNK_BYTES + 500);
    let h0 = u16::from_le_bytes([t.stream[0], t.stream[1]]) as usize;
    cases.push((C::StreamTruncated, StreamCase { stream: t.stream[..3 + h0].to_vec(), ..t }));
    let noise: Vec<u8> = (0..CHUNK_BYTES + 200).map(|_| rng.r#gen()).collect();
    let t = StreamCase::good(noise, w32);
    cases.push((C::StreamTruncated, StreamCase { stream: t.stream[..2 + CHUNK_BYTES + 2 + 101].to_vec(), ..t }));
    // Bytes after the last chunk: one, and a whole beat more.
    for extra in [1usize, 40] {
        let mut t = StreamCase::synthetic(rng, w32, 1000);
        t.stream.extend(std::iter::repeat_n(0u8, extra));
        cases.push((C::TrailingBytes, t));
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every case raises the class it names in golden's decoder, and every class is crafted.
    #[test]
    fn every_case_raises_its_class_in_golden_and_every_class_is_covered() {
        let cases = malformed_cases(13);
        let mut seen = std::collections::HashSet::new();
        for (i, (class, t)) in cases.iter().enumerate() {
            let got = t.golden_error().map(|e| e.0);
            assert_eq!(got, Some(*class), "case {i}");
            seen.insert(*class);
        }
        assert_eq!(seen.len(), H2dErrorClass::ALL.len(), "classes crafted: {seen:?}");
    }
}
