//! `model` fidelity: bytes from the golden size model (per block the smallest code or raw, FORMAT.md
//! §7–8), time from the published latency models: [`super::d2h_model_cycles`] out and
//! [`h2d_model_cycles`] (`engine::hw::h2d_lane_latency_cycles`) back.

use super::{BLOCK_BYTES, CHUNK_BYTES, ChunkOut, EngineBackend, HEADER_BYTES, LANES_PER_DIRECTION, TAG_BITS, TransferOut, d2h_model_cycles};
use crate::ratios::tensor_block_sizes;
use anyhow::Result;
use engine::golden::SymbolWidth;
use engine::hw::h2d_driver::{H2dWork, h2d_lane_latency_cycles};

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
    ChunkOut { raw_bytes: chunk.len(), wire_bytes: HEADER_BYTES + bits.div_ceil(8).min(chunk.len()), reported_wire_bytes: None, stream: None, restored: None, blocks_by_tag: Some(by_tag) }
}

/// Device-to-host time of `data` by the latency model, the raw chunks taken from the size model.
pub fn d2h_cycles(data: &[u8], width: SymbolWidth) -> u64 {
    let raw: Vec<bool> = data.chunks(CHUNK_BYTES).map(|c| model_chunk(c, width).wire_bytes == HEADER_BYTES + c.len()).collect();
    d2h_model_cycles(data.len(), &raw)
}

/// Host-to-device time of `data` by the lane's latency model (`engine::hw::h2d_lane_latency_cycles`):
/// chunk `c` on lane `c mod 2`, each chunk its own transfer (as the cycle backend feeds the lanes),
/// a lane's transfers back to back; the busiest lane's cycles.
pub fn h2d_model_cycles(data: &[u8], width: SymbolWidth) -> u64 {
    (0..LANES_PER_DIRECTION)
        .map(|lane| {
            data.chunks(CHUNK_BYTES)
                .skip(lane)
                .step_by(LANES_PER_DIRECTION)
                .map(|chunk| h2d_lane_latency_cycles(&[H2dWork::of_tensor(chunk, width)]))
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0)
}

impl EngineBackend for ModelBackend {
    fn describe(&self) -> String {
        "model: golden size model + the published latency models of pz_d2h_lane and pz_h2d_lane (docs/HARDWARE.md)".into()
    }

    fn round_trip(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        Ok(TransferOut {
            chunks: data.chunks(CHUNK_BYTES).map(|c| model_chunk(c, width)).collect(),
            cycles: d2h_cycles(data, width),
            h2d_cycles: h2d_model_cycles(data, width),
            simulated_cycles: 0,
            simulated_seconds: 0.0,
        })
    }
}
