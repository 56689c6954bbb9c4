//! `model` fidelity: bytes from the golden size model (per block the smallest code or raw, FORMAT.md
//! §7–8), time from the lane's published latency model ([`super::model_cycles`]).

use super::{BLOCK_BYTES, CHUNK_BYTES, ChunkOut, EngineBackend, HEADER_BYTES, TAG_BITS, TransferOut, model_cycles};
use crate::ratios::tensor_block_sizes;
use anyhow::Result;
use engine::golden::SymbolWidth;

/// The size and latency models.
pub struct ModelBackend;

/// Chunk `c` of `data` through the size model.
pub fn model_chunk(chunk: &[u8], width: SymbolWidth) -> ChunkOut {
    let sizes = tensor_block_sizes(chunk, width);
    let mut by_tag = [0u64; 5];
    let mut bits = 0usize;
    for s in &sizes {
        let (tag, b) = s.choice();
        by_tag[tag as usize] += 1;
        bits += (b + TAG_BITS) as usize;
    }
    debug_assert_eq!(sizes.len(), chunk.len().div_ceil(BLOCK_BYTES));
    ChunkOut { raw_bytes: chunk.len(), wire_bytes: HEADER_BYTES + bits.div_ceil(8).min(chunk.len()), stream: None, blocks_by_tag: by_tag }
}

impl EngineBackend for ModelBackend {
    fn describe(&self) -> String {
        "model: golden size model + the lane's published latency model (docs/HARDWARE.md)".into()
    }

    fn compress(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        Ok(TransferOut { chunks: data.chunks(CHUNK_BYTES).map(|c| model_chunk(c, width)).collect(), cycles: model_cycles(data.len()), simulated_cycles: 0, simulated_seconds: 0.0 })
    }
}
