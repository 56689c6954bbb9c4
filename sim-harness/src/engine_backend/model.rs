//! `model` fidelity: bytes from the golden size model (per block the smallest code or raw, FORMAT.md
//! §7–8), time from the engine's published latency models (`engine::hw::engine_latency`,
//! docs/HARDWARE.md): [`d2h_cycles`] out and [`h2d_model_cycles`] back. They hold to ±2 cycles
//! or 1 % on a transfer alone, out with fewer than two raw chunks, back on any transfer (the
//! host-to-device model is block by block and linear in the transfer: milliseconds for 16 MiB).

use super::{BLOCK_BYTES, CHUNK_BYTES, ChunkOut, EngineBackend, HEADER_BYTES, TAG_BITS, TransferOut};
use crate::ratios::tensor_block_sizes;
use anyhow::Result;
use engine::golden::SymbolWidth;
use engine::hw::engine_latency::{EngineChunk, engine_d2h_latency_cycles, engine_h2d_latency_cycles};

/// The size and latency models.
pub struct ModelBackend;

/// One chunk through the size model.
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
    ChunkOut { raw_bytes: chunk.len(), wire_bytes: HEADER_BYTES + bits.div_ceil(8).min(chunk.len()), stream: None, restored: None, blocks_by_tag: Some(by_tag) }
}

/// Device-to-host time of `data` by the engine's latency model, first beat to `done`, both
/// ends counted (as the cycle backend counts them).
pub fn d2h_cycles(data: &[u8], width: SymbolWidth) -> u64 {
    if data.is_empty() { 0 } else { engine_d2h_latency_cycles(&EngineChunk::chunks_of_tensor(data, width)) + 1 }
}

/// Host-to-device time of `data` by the engine's latency model, first stream beat to the last
/// write, both ends counted.
pub fn h2d_model_cycles(data: &[u8], width: SymbolWidth) -> u64 {
    if data.is_empty() { 0 } else { engine_h2d_latency_cycles(&EngineChunk::chunks_of_tensor(data, width)) + 1 }
}

impl EngineBackend for ModelBackend {
    fn describe(&self) -> String {
        "model: golden size model + the published latency models of pz_engine (docs/HARDWARE.md)".into()
    }

    fn round_trip(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        Ok(TransferOut {
            chunks: data.chunks(CHUNK_BYTES).map(|c| model_chunk(c, width)).collect(),
            reported_wire_bytes: None,
            cycles: d2h_cycles(data, width),
            h2d_cycles: h2d_model_cycles(data, width),
            simulated_cycles: 0,
            simulated_seconds: 0.0,
        })
    }
}
