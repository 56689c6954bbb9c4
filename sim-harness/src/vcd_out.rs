//! `stream --vcd FILE --vcd-blocks N`: the first N blocks of a tensor through one compressor lane
//! (rust-hdl simulation), written as a VCD a hardware engineer reads: the lane's ports with plain
//! names, buses as single vectors, one clock period per cycle at the engine clock (timescale 1 ps).
//!
//! The values are the ports as the driver sees them each cycle: what it offers (`beat_*`,
//! `desc_*`), whether the lane took the beat (`beat_ready`, `x` while nothing is offered), and the
//! block the lane delivered (`out_*`, with `out_ready` held high). `chunk_header` is the software
//! packer's 16-bit header when a chunk closes, and `error` flags a block whose encoding differs
//! from the golden encoder's. Internal nets are in rust-hdl's own trace (`LaneSim::trace_to`),
//! whose names GTKWave shows split into 32-bit words.

use crate::clock::EngineClock;
use crate::engine_backend::{BLOCK_BYTES, CHUNK_BYTES, ChunkPacker, LANE_BEAT_BYTES, TAG_BITS};
use crate::inputs::{NamedTensor, StreamTensor};
use anyhow::{Context, Result, ensure};
use engine::golden::{SymbolWidth, encode_block};
use engine::hw::LaneSim;
use serde::Serialize;
use vcd::{IdCode, TimescaleUnit, Value, Writer};

/// Bits of the payload bus (a raw block's 1,024 bits).
pub const PAYLOAD_BITS: u32 = (BLOCK_BYTES * 8) as u32;
/// Bits of `out_len` (0..=1024).
pub const LEN_BITS: u32 = 11;
/// Cycles simulated after the last block before the trace ends.
const TAIL_CYCLES: u64 = 2;
/// Cycles per block after which the run is declared hung.
const MAX_CYCLES_PER_BLOCK: u64 = 64;

/// The signals in the VCD, in declaration order: (name, width in bits, meaning).
pub const SIGNALS: [(&str, u32, &str); 18] = [
    ("clk", 1, "engine clock"),
    ("beat_valid", 1, "an input beat is offered"),
    ("beat_ready", 1, "the lane takes it this cycle (x while none is offered)"),
    ("beat_data", 256, "the beat's 32 bytes; bits [32k+31:32k] = little-endian word k"),
    ("beat_last", 1, "last beat of the transfer"),
    ("desc_w16", 1, "16-bit symbols (else 32-bit)"),
    ("desc_id", 8, "transfer id"),
    ("desc_tail_bytes", 8, "valid bytes of the final block, 0 = 128"),
    ("out_valid", 1, "an encoded block leaves the lane"),
    ("out_ready", 1, "the consumer takes it (held high)"),
    ("out_tag", 3, "code chosen: 0 ZVC, 1 DBX, 2 BX, 3 ZBX, 4 raw"),
    ("out_len", LEN_BITS, "payload bits"),
    ("out_payload", PAYLOAD_BITS, "payload bit stream, first bit in bit 1023, zero past out_len"),
    ("out_id", 8, "transfer id echoed"),
    ("out_last", 1, "last block of the transfer"),
    ("chunk_valid", 1, "the packer closes a chunk"),
    ("chunk_header", 16, "its header: body bytes (= chunk bytes when stored raw)"),
    ("error", 1, "the block's encoding differs from the golden encoder's"),
];

/// What was written.
#[derive(Clone, Debug, Serialize)]
pub struct VcdSummary {
    /// Tensor traced.
    pub tensor: String,
    /// Blocks traced.
    pub blocks: usize,
    /// Cycles traced.
    pub cycles: u64,
    /// Clock period, ps.
    pub period_ps: u64,
    /// Blocks whose encoding differed from golden.
    pub errors: usize,
}

fn bits_msb_first(value: u64, width: u32) -> impl Iterator<Item = Value> {
    (0..width).rev().map(move |i| if i < 64 && (value >> i) & 1 == 1 { Value::V1 } else { Value::V0 })
}

fn beat_bits(bytes: &[u8]) -> Vec<Value> {
    // Bit i of the bus is bit i % 8 of byte i / 8 (little-endian words, word k at [32k+31:32k]).
    (0..LANE_BEAT_BYTES * 8).rev().map(|i| if bytes.get(i / 8).is_some_and(|b| (b >> (i % 8)) & 1 == 1) { Value::V1 } else { Value::V0 }).collect()
}

fn payload_bits(payload: &[u8], len: u32) -> Vec<Value> {
    (0..PAYLOAD_BITS as usize).map(|i| if (i as u32) < len && payload.get(i / 8).is_some_and(|b| (b >> (7 - i % 8)) & 1 == 1) { Value::V1 } else { Value::V0 }).collect()
}

/// Traces the first `blocks` blocks of `t` through one lane into VCD bytes.
pub fn trace(t: &NamedTensor, blocks: usize, clock: &EngineClock) -> Result<(Vec<u8>, VcdSummary)> {
    ensure!(blocks > 0, "--vcd-blocks must be at least 1");
    let n = (blocks * BLOCK_BYTES).min(t.bytes.len());
    ensure!(n > 0, "tensor {} is empty", t.name);
    let data = &t.bytes[..n];
    let blocks = n.div_ceil(BLOCK_BYTES);
    let period_ps = (1e6 / clock.mhz).round() as u64;
    let mut w = Writer::new(Vec::new());
    w.timescale(1, TimescaleUnit::PS)?;
    w.comment(&format!("PlaneZip compressor lane, rust-hdl simulation; {} blocks of {}:{}; clock {:.1} MHz ({})", blocks, t.model, t.name, clock.mhz, clock.source))?;
    w.add_module("pz_compressor_lane")?;
    let ids: Vec<IdCode> = SIGNALS.iter().map(|(name, width, _)| w.add_wire(*width, name)).collect::<std::io::Result<_>>()?;
    w.upscope()?;
    w.enddefinitions()?;
    let id = |name: &str| ids[SIGNALS.iter().position(|s| s.0 == name).expect("declared")];

    let mut sim = LaneSim::new();
    sim.queue_transfer(data, t.width, 0);
    let beats: Vec<&[u8]> = data.chunks(LANE_BEAT_BYTES).collect();
    let tail = (n % BLOCK_BYTES) as u64;
    let (mut taken, mut out_blocks, mut errors) = (0usize, 0usize, 0usize);
    let mut packer = ChunkPacker::default();
    let mut chunk_start = 0usize;
    let mut cycle = 0u64;
    let mut done_at = None;
    while done_at.is_none_or(|d| cycle < d + TAIL_CYCLES) {
        ensure!(cycle < MAX_CYCLES_PER_BLOCK * blocks as u64 + 64, "lane hung after {out_blocks} of {blocks} blocks");
        let offered = beats.get(taken).copied();
        let before = sim.queued_beats();
        let out = sim.step(true);
        let took = sim.queued_beats() < before;
        w.timestamp(cycle * period_ps)?;
        w.change_scalar(id("clk"), Value::V1)?;
        w.change_scalar(id("beat_valid"), offered.is_some())?;
        w.change_scalar(id("beat_ready"), if offered.is_some() { Value::from(took) } else { Value::X })?;
        if let Some(b) = offered {
            w.change_vector(id("beat_data"), beat_bits(b))?;
            w.change_scalar(id("beat_last"), taken + 1 == beats.len())?;
        } else {
            w.change_scalar(id("beat_last"), Value::V0)?;
        }
        w.change_scalar(id("desc_w16"), t.width == SymbolWidth::W16)?;
        w.change_vector(id("desc_id"), bits_msb_first(0, 8))?;
        w.change_vector(id("desc_tail_bytes"), bits_msb_first(tail, 8))?;
        w.change_scalar(id("out_valid"), out.is_some())?;
        w.change_scalar(id("out_ready"), Value::V1)?;
        let mut chunk_closed = None;
        let mut bad = false;
        if let Some(b) = &out {
            let k = out_blocks;
            let mut block = [0u8; BLOCK_BYTES];
            let src = &data[k * BLOCK_BYTES..((k + 1) * BLOCK_BYTES).min(n)];
            block[..src.len()].copy_from_slice(src);
            bad = b.encoding != encode_block(&block, t.width);
            errors += usize::from(bad);
            w.change_vector(id("out_tag"), bits_msb_first(b.encoding.tag as u64, 3))?;
            w.change_vector(id("out_len"), bits_msb_first(b.encoding.payload_bits as u64, LEN_BITS))?;
            w.change_vector(id("out_payload"), payload_bits(&b.encoding.payload, b.encoding.payload_bits))?;
            w.change_vector(id("out_id"), bits_msb_first(b.id as u64, 8))?;
            w.change_scalar(id("out_last"), b.last)?;
            packer.put(b.encoding.tag as u32, TAG_BITS);
            packer.put_bytes(&b.encoding.payload, b.encoding.payload_bits);
            out_blocks += 1;
            let chunk_end = (chunk_start + CHUNK_BYTES).min(n);
            if out_blocks * BLOCK_BYTES >= chunk_end {
                let wire = std::mem::take(&mut packer).finish(&data[chunk_start..chunk_end]);
                chunk_closed = Some(u16::from_le_bytes([wire[0], wire[1]]));
                chunk_start = chunk_end;
            }
            if out_blocks == blocks {
                done_at = Some(cycle);
            }
        }
        w.change_scalar(id("chunk_valid"), chunk_closed.is_some())?;
        if let Some(h) = chunk_closed {
            w.change_vector(id("chunk_header"), bits_msb_first(h as u64, 16))?;
        }
        w.change_scalar(id("error"), bad)?;
        w.timestamp(cycle * period_ps + period_ps / 2)?;
        w.change_scalar(id("clk"), Value::V0)?;
        if took {
            taken += 1;
        }
        cycle += 1;
    }
    w.timestamp(cycle * period_ps)?;
    w.flush()?;
    let bytes = w.writer().clone();
    Ok((bytes, VcdSummary { tensor: format!("{}:{}", t.model, t.name), blocks, cycles: cycle, period_ps, errors }))
}

/// Picks the tensor to trace: `name` if given, else the first with at least `blocks` blocks
/// (else the largest).
pub fn pick<'a>(tensors: &'a [StreamTensor], name: Option<&str>, blocks: usize) -> Result<&'a StreamTensor> {
    match name {
        Some(n) => tensors.iter().find(|t| t.name() == n || format!("{}:{}", t.model(), t.name()) == n).with_context(|| format!("--vcd-tensor {n}: no such tensor")),
        None => tensors
            .iter()
            .find(|t| t.coded_bytes() >= blocks.saturating_mul(BLOCK_BYTES))
            .or_else(|| tensors.iter().max_by_key(|t| t.coded_bytes()))
            .context("no tensor to trace"),
    }
}
