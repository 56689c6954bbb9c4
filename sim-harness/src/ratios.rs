//! `sim-harness ratios`: compression ratios of real tensors with every codec, from the golden
//! size model (FORMAT.md §8 defines the wire size and the single-code ratios).

use crate::convert::f32_to_bf16_bytes;
use crate::tensors::Tensor;
use engine::golden::block::TAG_BITS;
use engine::golden::chunk::stream_bytes_for;
use engine::golden::{BlockSizes, SymbolWidth, Tag};
use serde::Serialize;

/// Wire bytes of one tensor under each codec.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WireBytes {
    /// ZVC only (cDMA).
    pub zvc: usize,
    /// DBX only (= BPC).
    pub bpc: usize,
    /// BX only.
    pub bx: usize,
    /// ZBX only.
    pub zbx: usize,
    /// PlaneZip: per block the smallest of the four and raw, plus the 3-bit tag.
    pub planezip: usize,
}

impl WireBytes {
    /// Adds another tensor's wire bytes.
    pub fn add(&mut self, o: &WireBytes) {
        self.zvc += o.zvc;
        self.bpc += o.bpc;
        self.bx += o.bx;
        self.zbx += o.zbx;
        self.planezip += o.planezip;
    }

    /// The codecs in report order with their wire bytes.
    pub fn columns(&self) -> [(&'static str, usize); 5] {
        [("ZVC", self.zvc), ("BPC(DBX)", self.bpc), ("BX", self.bx), ("ZBX", self.zbx), ("PlaneZip", self.planezip)]
    }
}

/// What was measured for one tensor in one precision.
#[derive(Clone, Debug, Serialize)]
pub struct TensorReport {
    /// Model the tensor belongs to (dump's model, dump directory of a file, else the file's stem).
    pub model: String,
    /// File the tensor came from.
    pub file: String,
    /// Tensor name.
    pub name: String,
    /// Precision coded: the file's dtype, or `BF16 (from F32, RNE)`.
    pub precision: String,
    /// Symbol width used (16 or 32).
    pub symbol_bits: u32,
    /// Uncompressed bytes in this precision.
    pub raw_bytes: usize,
    /// Wire bytes per codec (chunk headers, padding and, for PlaneZip, tags included).
    pub wire_bytes: WireBytes,
    /// PlaneZip blocks per chosen code: ZVC, DBX, BX, ZBX, raw.
    pub blocks_by_tag: [usize; 5],
}

/// Per-block payload sizes of a tensor's bytes (final block zero-padded), on all cores with the
/// fast size model (equal to golden's `block_sizes`, engine/tests/fast.rs).
pub fn tensor_block_sizes(bytes: &[u8], width: SymbolWidth) -> Vec<BlockSizes> {
    engine::fast::par_blocks_sizes(bytes, width)
}

/// Measures one tensor's bytes with every codec.
pub fn measure(bytes: &[u8], width: SymbolWidth) -> (WireBytes, [usize; 5]) {
    let sizes = tensor_block_sizes(bytes, width);
    let single = |tag: Tag| stream_bytes_for(bytes.len(), sizes.iter().map(|s| s.get(tag)), 0);
    let mut by_tag = [0usize; 5];
    for s in &sizes {
        by_tag[s.choice().0 as usize] += 1;
    }
    let wire = WireBytes {
        zvc: single(Tag::Zvc),
        bpc: single(Tag::Dbx),
        bx: single(Tag::Bx),
        zbx: single(Tag::Zbx),
        planezip: stream_bytes_for(bytes.len(), sizes.iter().map(|s| s.choice().1), TAG_BITS),
    };
    (wire, by_tag)
}

/// The precisions a tensor is measured in: its own dtype, and bf16 (RNE) for f32 tensors.
/// `force_bits` codes every tensor with that symbol width (the 32-bit-symbols ablation).
pub fn report_tensor(model: &str, file: &str, t: &Tensor, force_bits: Option<SymbolWidth>) -> Vec<TensorReport> {
    let whole = std::iter::once(Ok::<_, std::convert::Infallible>(&t.bytes[..]));
    match report_pieces(model, file, &t.name, &t.dtype, whole, force_bits) {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

/// [`report_tensor`] of a tensor given as consecutive pieces (each but the last a multiple of
/// 8192 bytes: whole 4096-byte chunks, also after an f32 piece's bf16 conversion halves it), read
/// and measured one at a time: the result equals
/// measuring the whole tensor, since every wire size is a sum over chunks. The memory needed is a
/// piece's, whatever the tensor's size. Stops at the first piece that fails to read.
pub fn report_pieces<P: AsRef<[u8]>, E>(
    model: &str,
    file: &str,
    name: &str,
    dtype: &str,
    pieces: impl Iterator<Item = Result<P, E>>,
    force_bits: Option<SymbolWidth>,
) -> Result<Vec<TensorReport>, E> {
    let mut variants: Vec<(String, SymbolWidth, bool)> = vec![(dtype.to_string(), SymbolWidth::for_dtype(dtype), false)];
    if dtype == "F32" {
        variants.push(("BF16 (from F32, RNE)".into(), SymbolWidth::W16, true));
    }
    let mut sums = vec![(0usize, WireBytes::default(), [0usize; 5]); variants.len()];
    for piece in pieces {
        let piece = piece?;
        for ((_, natural, bf16), (raw, wire, by_tag)) in variants.iter().zip(sums.iter_mut()) {
            let converted;
            let bytes: &[u8] = if *bf16 {
                converted = f32_to_bf16_bytes(piece.as_ref());
                &converted
            } else {
                piece.as_ref()
            };
            let (w, t) = measure(bytes, force_bits.unwrap_or(*natural));
            *raw += bytes.len();
            wire.add(&w);
            for (a, b) in by_tag.iter_mut().zip(t) {
                *a += b;
            }
        }
    }
    Ok(variants
        .into_iter()
        .zip(sums)
        .map(|((precision, natural, _), (raw_bytes, wire_bytes, blocks_by_tag))| {
            let width = force_bits.unwrap_or(natural);
            TensorReport { model: model.into(), file: file.into(), name: name.to_string(), precision, symbol_bits: width.bits(), raw_bytes, wire_bytes, blocks_by_tag }
        })
        .collect())
}

/// Byte-weighted totals of one precision class over all tensors.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    /// Precision class (`F32`, `BF16 (from F32, RNE)`, `BF16`, …).
    pub precision: String,
    /// Tensors included.
    pub tensors: usize,
    /// Uncompressed bytes.
    pub raw_bytes: usize,
    /// Wire bytes per codec.
    pub wire_bytes: WireBytes,
    /// PlaneZip blocks per chosen code: ZVC, DBX, BX, ZBX, raw.
    pub blocks_by_tag: [usize; 5],
}

/// Sums reports per model and precision class, in first-seen order.
pub fn model_totals(reports: &[TensorReport]) -> Vec<(String, Vec<Totals>)> {
    let mut models: Vec<String> = Vec::new();
    for r in reports {
        if !models.contains(&r.model) {
            models.push(r.model.clone());
        }
    }
    models
        .into_iter()
        .map(|m| {
            let mine: Vec<TensorReport> = reports.iter().filter(|r| r.model == m).cloned().collect();
            let t = totals(&mine);
            (m, t)
        })
        .collect()
}

/// Sums reports per precision class, in first-seen order.
pub fn totals(reports: &[TensorReport]) -> Vec<Totals> {
    let mut out: Vec<Totals> = Vec::new();
    for r in reports {
        let i = match out.iter().position(|t| t.precision == r.precision) {
            Some(i) => i,
            None => {
                out.push(Totals { precision: r.precision.clone(), ..Default::default() });
                out.len() - 1
            }
        };
        let t = &mut out[i];
        t.tensors += 1;
        t.raw_bytes += r.raw_bytes;
        t.wire_bytes.add(&r.wire_bytes);
        for (a, b) in t.blocks_by_tag.iter_mut().zip(r.blocks_by_tag) {
            *a += b;
        }
    }
    out
}

/// Ratio = uncompressed bytes / wire bytes.
pub fn ratio(raw: usize, wire: usize) -> f64 {
    if wire == 0 { 1.0 } else { raw as f64 / wire as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::golden::{BLOCK_BYTES, encode_stream};

    #[test]
    fn planezip_wire_bytes_equal_the_real_stream_length() {
        let bytes: Vec<u8> = (0..5000u32).flat_map(|i| (if i % 3 == 0 { 0.0f32 } else { (i as f32).sin() }).to_le_bytes()).collect();
        for width in [SymbolWidth::W16, SymbolWidth::W32] {
            let (wire, by_tag) = measure(&bytes, width);
            assert_eq!(wire.planezip, encode_stream(&bytes, width).len());
            assert_eq!(by_tag.iter().sum::<usize>(), bytes.len().div_ceil(BLOCK_BYTES));
            // A single code can never beat the per-block choice by more than the tags it saves.
            for (_, w) in wire.columns() {
                assert!(wire.planezip <= w + bytes.len().div_ceil(BLOCK_BYTES) * 3 / 8 + 64);
            }
        }
    }

    /// Pieces of whole chunks (and a ragged last one) add up to the whole tensor's measurement,
    /// in f32 and in its bf16 conversion.
    #[test]
    fn a_tensor_measured_in_pieces_equals_it_measured_whole() {
        let bytes: Vec<u8> = (0..20_000u32).flat_map(|i| (if i % 5 < 2 { 0.0f32 } else { (i as f32 * 0.01).cos() }).to_le_bytes()).collect();
        let t = Tensor { name: "x".into(), dtype: "F32".into(), shape: vec![20_000], bytes: bytes.clone() };
        let whole = report_tensor("m", "f", &t, None);
        let pieces = bytes.chunks(4 * engine::golden::CHUNK_BYTES).map(Ok::<_, ()>);
        let split = report_pieces("m", "f", "x", "F32", pieces, None).unwrap();
        assert_eq!(whole.len(), 2);
        for (a, b) in whole.iter().zip(&split) {
            assert_eq!((a.raw_bytes, a.wire_bytes, a.blocks_by_tag), (b.raw_bytes, b.wire_bytes, b.blocks_by_tag), "{}", a.precision);
        }
        assert_eq!(whole[1].raw_bytes, 40_000);
    }
}
