//! Fast paths of the codec, each proven equal to the [golden](crate::golden) scalar spec
//! (`engine/tests/fast.rs`: a million structured blocks per width, every distinct block of
//! `data/`, proptests of sizes, stream bits and decoded bytes, corrupt streams).
//!
//! * [`size`]: the size model with symbols packed four (w = 16) or two (w = 32) to a 64-bit word
//!   and blocks side by side (4 per AVX2 register, 8 per AVX-512 register, 1 portable; the
//!   [`Path`] is detected at run time or chosen explicitly).
//! * [`encode`]: the SWAR size model choosing, a fixed-buffer bit writer writing.
//! * [`planes`]: 16-bit bit-plane transposes from 8 × 8 tiles in 64-bit words.
//! * [`decode`]: a padded-buffer bit reader without per-field checks; faults are described by
//!   the golden decoder.
//! * `kernels` (private): the per-block transposes, scatters, unpacking and prefix sums of the
//!   encoder and decoder behind one trait, built portable and (module `x86`, on
//!   [`Path::Avx512`]) with AVX-512 VBMI / VBMI2 and GFNI instructions: `VPERMI2B` +
//!   `GF2P8AFFINEQB` + `VPERMB` per 128-byte transpose.
//! * the `par_*` functions here: whole tensors, chunk groups in parallel on all cores (rayon),
//!   with exactly the sequential result.

pub mod decode;
pub mod encode;
mod kernels;
pub mod path;
pub mod planes;
pub mod size;
mod wide;
// The AVX-512 kernels: intrinsics, each `unsafe` block with its safety argument there.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86;
// The AVX2 entry points: the codec compiled with AVX2 / BMI2 enabled.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx2;

use crate::golden::chunk::chunk_offsets;
use crate::golden::{BlockSizes, CHUNK_BYTES, DecodeError, SymbolWidth};
use rayon::prelude::*;

pub use decode::{decode_fast_only_with, decode_stream, decode_stream_into_with, decode_stream_with};
pub use encode::{encode_stream, encode_stream_into_with, encode_stream_with};
pub use path::Path;
pub use size::block_sizes;

/// Chunks per parallel task: 256 KB of tensor, large enough that scheduling costs nothing.
pub const PAR_CHUNKS: usize = 64;

/// Sizes of every block of a tensor (the final partial block zero-padded), in order; equal to
/// [`crate::golden::block_sizes`] block by block.
pub fn blocks_sizes(data: &[u8], width: SymbolWidth) -> Vec<BlockSizes> {
    blocks_sizes_with(Path::detect(), data, width)
}

/// [`blocks_sizes`] on an explicit [`Path`] (panics if this CPU cannot run it).
pub fn blocks_sizes_with(path: Path, data: &[u8], width: SymbolWidth) -> Vec<BlockSizes> {
    let mut out = Vec::new();
    size::blocks_sizes_into_with(path, data, width, &mut out);
    out
}

/// [`blocks_sizes`] with chunk groups on all cores.
pub fn par_blocks_sizes(data: &[u8], width: SymbolWidth) -> Vec<BlockSizes> {
    let parts: Vec<Vec<BlockSizes>> = data.par_chunks(PAR_CHUNKS * CHUNK_BYTES).map(|part| blocks_sizes(part, width)).collect();
    parts.concat()
}

/// [`encode_stream`] with chunk groups on all cores; the same bytes.
pub fn par_encode_stream(data: &[u8], width: SymbolWidth) -> Vec<u8> {
    let mut out = Vec::new();
    par_encode_stream_into(data, width, &mut out);
    out
}

/// [`par_encode_stream`] into a buffer the caller reuses: `out` is replaced by the stream. The
/// groups' streams are copied into it in parallel, each at its prefix-sum offset, so a caller
/// whose `out` already holds a stream of about this length pays no allocation, no zero fill
/// and no first-touch page fault for it (a fresh output's faults would all fall in one thread).
pub fn par_encode_stream_into(data: &[u8], width: SymbolWidth, out: &mut Vec<u8>) {
    let parts: Vec<Vec<u8>> = data.par_chunks(PAR_CHUNKS * CHUNK_BYTES).map(|part| encode_stream(part, width)).collect();
    out.resize(parts.iter().map(Vec::len).sum(), 0);
    let mut slots = Vec::with_capacity(parts.len());
    let mut rest = &mut out[..];
    for part in &parts {
        let (slot, tail) = rest.split_at_mut(part.len());
        slots.push(slot);
        rest = tail;
    }
    slots.into_par_iter().zip(&parts).for_each(|(slot, part)| slot.copy_from_slice(part));
}

/// [`decode_stream`] with chunk groups on all cores, found by the prefix sum over the headers
/// (FORMAT.md §8); the same result, errors included.
pub fn par_decode_stream(stream: &[u8], raw_bytes: usize, width: SymbolWidth) -> Result<Vec<u8>, DecodeError> {
    // A stream needs at least a header per chunk: this bounds the allocation below.
    if decode::too_short(stream, raw_bytes) {
        return decode::golden_result(stream, raw_bytes, width);
    }
    let mut out = vec![0u8; raw_bytes];
    par_decode_into(stream, &mut out, width)?;
    Ok(out)
}

/// [`par_decode_stream`] into a buffer the caller owns (`dst.len()` is the tensor's raw bytes),
/// for callers that decode into memory they reuse, such as a pinned staging buffer: the
/// allocation and first-touch page faults of a fresh output stay out of the decode. On an error
/// `dst` holds unspecified bytes and the error is golden's.
pub fn par_decode_into(stream: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), DecodeError> {
    let raw_bytes = dst.len();
    // Golden describes the fault (and, were the two ever to disagree, its answer stands).
    let fault = |dst: &mut [u8]| decode::golden_result(stream, raw_bytes, width).map(|out| dst.copy_from_slice(&out));
    // An empty tensor has no chunk group to check that the stream ends after its last chunk,
    // so golden answers (`TrailingBytes` unless the stream is empty too).
    if raw_bytes == 0 || decode::too_short(stream, raw_bytes) {
        return fault(dst);
    }
    let Ok(offsets) = chunk_offsets(stream, raw_bytes) else {
        return fault(dst);
    };
    let ok = dst.par_chunks_mut(PAR_CHUNKS * CHUNK_BYTES).enumerate().all(|(group, dst)| {
        let first = group * PAR_CHUNKS;
        let start = offsets[first];
        let end = offsets.get(first + PAR_CHUNKS).copied().unwrap_or(stream.len());
        match stream.get(start..end) {
            Some(part) => decode::decode_into_with(Path::detect(), part, dst, width).is_ok(),
            None => false,
        }
    });
    if ok { Ok(()) } else { fault(dst) }
}
