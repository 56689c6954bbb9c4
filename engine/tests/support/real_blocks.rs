//! Distinct real 128-byte blocks from capture dumps (safetensors files), per symbol width, for
//! the lane tests and `examples/lane_stream.rs`. FP32 tensors give 32-bit-symbol blocks as
//! captured and 16-bit-symbol blocks from their bf16 round-to-nearest-even conversion (as the
//! paper's BF16 tensors are made); other dtypes are coded with the width the descriptor gives them
//! (`SymbolWidth::for_dtype`), so they appear only in the 32-bit set.

use engine::golden::{BLOCK_BYTES, SymbolWidth};
use safetensors::{Dtype, SafeTensors};
use std::collections::HashSet;
use std::path::Path;

/// The bytes one tensor contributes at `width`, or `None` if it has no blocks of that width.
pub fn tensor_bytes(dtype: Dtype, data: &[u8], width: SymbolWidth) -> Option<Vec<u8>> {
    match (dtype, width) {
        (Dtype::F32, SymbolWidth::W16) => Some(
            data.chunks_exact(4)
                .flat_map(|c| half::bf16::from_f32(f32::from_le_bytes(c.try_into().unwrap())).to_le_bytes())
                .collect(),
        ),
        (Dtype::BF16 | Dtype::F16, SymbolWidth::W16) => Some(data.to_vec()),
        (Dtype::BF16 | Dtype::F16, SymbolWidth::W32) | (_, SymbolWidth::W16) => None,
        (_, SymbolWidth::W32) => Some(data.to_vec()),
    }
}

/// Distinct real blocks and where they came from.
pub struct RealBlocks {
    /// The blocks, in file and tensor order.
    pub blocks: Vec<[u8; BLOCK_BYTES]>,
    /// Files read, in order.
    pub files: Vec<String>,
    /// Tensors read (those with blocks of the requested width).
    pub tensors: usize,
}

/// Up to `limit` distinct blocks of `width` from the safetensors `files`, at most
/// `per_tensor` from each tensor, spread evenly over it (a final partial block zero-padded).
pub fn distinct_blocks(files: &[&Path], width: SymbolWidth, per_tensor: usize, limit: usize) -> RealBlocks {
    let mut seen = HashSet::new();
    let mut out = RealBlocks {
        blocks: Vec::new(),
        files: Vec::new(),
        tensors: 0,
    };
    for file in files {
        out.files.push(file.display().to_string());
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
        let st = SafeTensors::deserialize(&bytes).unwrap_or_else(|e| panic!("parse {}: {e}", file.display()));
        let mut names: Vec<String> = st.names().into_iter().cloned().collect();
        names.sort();
        for name in names {
            let view = st.tensor(&name).unwrap();
            let Some(data) = tensor_bytes(view.dtype(), view.data(), width) else {
                continue;
            };
            let blocks = data.len().div_ceil(BLOCK_BYTES);
            let step = blocks.div_ceil(per_tensor.max(1)).max(1);
            out.tensors += 1;
            for b in (0..blocks).step_by(step) {
                let chunk = &data[b * BLOCK_BYTES..((b + 1) * BLOCK_BYTES).min(data.len())];
                let mut block = [0u8; BLOCK_BYTES];
                block[..chunk.len()].copy_from_slice(chunk);
                if seen.insert(block) {
                    out.blocks.push(block);
                    if out.blocks.len() == limit {
                        return out;
                    }
                }
            }
        }
    }
    out
}
