//! Chunks and tensor streams (FORMAT.md §7–8): 32 blocks form a 4 KB chunk, stored byte-aligned
//! behind a little-endian 16-bit header that gives the body length in bytes. A chunk whose
//! compressed body would not be smaller than its raw bytes is stored raw, and its header then
//! equals its raw length — the mark a reader tests. A final partial block is zero-padded to
//! 128 bytes before coding; a final partial chunk simply has fewer blocks.

use super::bits::{BitReader, BitWriter};
use super::block::{read_block, write_block};
use super::error::DecodeError;
use super::width::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth};

/// Bytes of the chunk size header.
pub const HEADER_BYTES: usize = 2;

/// Output bytes reserved up front per stream byte when decoding: typical activations compress
/// less than 16×, so most tensors decode without reallocating, while a stream whose claimed raw
/// size is absurd reserves at most 16 × its own length (the output then grows as decoded).
const RESERVE_PER_STREAM_BYTE: usize = 16;

/// Per-stream counts that the encoder observed (for reports and the HDL packer's checks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkStats {
    /// Chunks in the stream.
    pub chunks: usize,
    /// Chunks stored raw because compression would not shrink them.
    pub raw_chunks: usize,
    /// Blocks coded with each tag, indexed by `Tag as usize` (blocks of raw chunks included,
    /// with the tag the encoder chose before falling back).
    pub blocks_by_tag: [usize; 5],
}

/// Encodes a whole tensor's bytes into a chunk stream.
pub fn encode_stream(data: &[u8], width: SymbolWidth) -> Vec<u8> {
    encode_stream_with_stats(data, width).0
}

/// Encodes a tensor's bytes into a chunk stream and reports what the encoder chose.
pub fn encode_stream_with_stats(data: &[u8], width: SymbolWidth) -> (Vec<u8>, ChunkStats) {
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    let mut stats = ChunkStats::default();
    for chunk in data.chunks(CHUNK_BYTES) {
        let mut w = BitWriter::new();
        for block in chunk.chunks(BLOCK_BYTES) {
            let mut padded = [0u8; BLOCK_BYTES];
            padded[..block.len()].copy_from_slice(block);
            let tag = write_block(&mut w, &padded, width);
            stats.blocks_by_tag[tag as usize] += 1;
        }
        let body = w.into_bytes();
        stats.chunks += 1;
        if body.len() >= chunk.len() {
            stats.raw_chunks += 1;
            out.extend_from_slice(&(chunk.len() as u16).to_le_bytes());
            out.extend_from_slice(chunk);
        } else {
            out.extend_from_slice(&(body.len() as u16).to_le_bytes());
            out.extend_from_slice(&body);
        }
    }
    (out, stats)
}

/// Decodes a chunk stream holding `raw_bytes` bytes of a tensor coded with `width` symbols.
///
/// `raw_bytes` usually comes from an untrusted index: it is checked against the stream's length
/// (every chunk needs at least its 2-byte header) before any work, and the output grows with the
/// bytes actually decoded, so a claimed size never sizes an allocation by itself.
pub fn decode_stream(stream: &[u8], raw_bytes: usize, width: SymbolWidth) -> Result<Vec<u8>, DecodeError> {
    check_chunk_count(stream, raw_bytes)?;
    let mut out = Vec::with_capacity(raw_bytes.min(stream.len().saturating_mul(RESERVE_PER_STREAM_BYTE)));
    let mut offset = 0usize;
    for (index, chunk_start) in (0..raw_bytes).step_by(CHUNK_BYTES).enumerate() {
        let chunk_raw = (raw_bytes - chunk_start).min(CHUNK_BYTES);
        let body_len = read_header(stream, index, offset)?;
        offset += HEADER_BYTES;
        if body_len > chunk_raw {
            return Err(DecodeError::HeaderTooLarge { chunk: index, header: body_len, raw_bytes: chunk_raw });
        }
        let body = stream.get(offset..offset + body_len).ok_or(DecodeError::StreamTruncated {
            chunk: index,
            offset,
            needed: body_len,
            available: stream.len() - offset,
        })?;
        offset += body_len;
        if body_len == chunk_raw {
            out.extend_from_slice(body);
        } else {
            decode_chunk_body(body, chunk_raw, width, index, &mut out)?;
        }
    }
    if offset != stream.len() {
        return Err(DecodeError::TrailingBytes { extra: stream.len() - offset });
    }
    Ok(out)
}

/// Rejects a `raw_bytes` claim that needs more chunk headers than the stream has bytes for
/// (FORMAT.md §8: `⌈B / 4096⌉` chunks of at least 2 bytes each), before anything is allocated.
fn check_chunk_count(stream: &[u8], raw_bytes: usize) -> Result<(), DecodeError> {
    let chunks = raw_bytes.div_ceil(CHUNK_BYTES);
    if chunks.saturating_mul(HEADER_BYTES) > stream.len() {
        return Err(DecodeError::StreamTruncated {
            chunk: stream.len() / HEADER_BYTES,
            offset: stream.len(),
            needed: chunks.saturating_mul(HEADER_BYTES),
            available: stream.len(),
        });
    }
    Ok(())
}

/// The body length in chunk `chunk`'s header at byte `offset`, or `StreamTruncated`.
fn read_header(stream: &[u8], chunk: usize, offset: usize) -> Result<usize, DecodeError> {
    let header = stream.get(offset..offset + HEADER_BYTES).ok_or(DecodeError::StreamTruncated {
        chunk,
        offset,
        needed: HEADER_BYTES,
        available: stream.len().saturating_sub(offset),
    })?;
    Ok(u16::from_le_bytes([header[0], header[1]]) as usize)
}

/// Decodes one compressed chunk body of `chunk_raw` raw bytes, appending them to `out`.
/// The zero padding of a final partial block must decode as zero bytes (FORMAT.md §7): anything
/// else is a corrupted or non-compliant stream, reported as `PaddingNotZero`.
fn decode_chunk_body(body: &[u8], chunk_raw: usize, width: SymbolWidth, chunk: usize, out: &mut Vec<u8>) -> Result<(), DecodeError> {
    let mut r = BitReader::new(body);
    let blocks = chunk_raw.div_ceil(BLOCK_BYTES);
    for block in 0..blocks {
        let in_chunk = |source| DecodeError::InChunk { chunk, block, source: Box::new(source) };
        let bytes = read_block(&mut r, width).map_err(in_chunk)?;
        let keep = (chunk_raw - block * BLOCK_BYTES).min(BLOCK_BYTES);
        if let Some(first) = bytes[keep..].iter().position(|&b| b != 0) {
            return Err(in_chunk(DecodeError::PaddingNotZero { byte: keep + first }));
        }
        out.extend_from_slice(&bytes[..keep]);
    }
    let used = r.pos_bits();
    let padding = r.remaining_bits();
    if padding >= 8 || (padding > 0 && r.get(padding as u32)? != 0) {
        return Err(DecodeError::SizeMismatch { chunk, header: body.len(), used_bits: used });
    }
    Ok(())
}

/// Byte offset of every chunk in a stream of a `raw_bytes`-byte tensor: the prefix sum of
/// `2 + header` a parallel decoder uses (FORMAT.md §8). Errors if the stream is too short.
pub fn chunk_offsets(stream: &[u8], raw_bytes: usize) -> Result<Vec<usize>, DecodeError> {
    check_chunk_count(stream, raw_bytes)?;
    let chunks = raw_bytes.div_ceil(CHUNK_BYTES);
    let mut offsets = Vec::with_capacity(chunks);
    let mut offset = 0usize;
    for chunk in 0..chunks {
        let body_len = read_header(stream, chunk, offset)?;
        offsets.push(offset);
        offset += HEADER_BYTES + body_len;
    }
    Ok(offsets)
}

/// Wire bytes of a chunk stream for a code whose per-block payload bits are given, *without*
/// tags or per-block raw fallback but with the chunk format's header, byte padding and raw-chunk
/// fallback: the single-code ratios of the paper's Fig. 3 (`tag_bits` = 3 for PlaneZip, 0 for a
/// single code). `block_bits` yields one entry per block of the tensor, in order.
pub fn stream_bytes_for(raw_bytes: usize, block_bits: impl IntoIterator<Item = u32>, tag_bits: u32) -> usize {
    let mut total = 0usize;
    let mut iter = block_bits.into_iter();
    for chunk_start in (0..raw_bytes).step_by(CHUNK_BYTES) {
        let chunk_raw = (raw_bytes - chunk_start).min(CHUNK_BYTES);
        let bits: usize = iter.by_ref().take(chunk_raw.div_ceil(BLOCK_BYTES)).map(|b| (b + tag_bits) as usize).sum();
        total += HEADER_BYTES + bits.div_ceil(8).min(chunk_raw);
    }
    total
}
