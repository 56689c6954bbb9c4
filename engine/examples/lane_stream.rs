//! Streams distinct real activation blocks through the compressor lane's rust-hdl simulation and
//! compares every encoding with the golden encoder; reports mismatches, sustained cycles per
//! block, latency and simulation speed per symbol width.
//!
//! ```text
//! cargo run --release -p engine --example lane_stream -- [--blocks N] [--per-tensor K] PATH...
//! ```
//! PATH is a safetensors file or a directory searched (one level deep per model) for
//! `*.safetensors`, e.g. a capture in `~/.cache/planezip/dumps/`. Up to N (default 100,000)
//! distinct blocks per width are taken, at most K (default 64) from each tensor, spread evenly;
//! 32-bit symbols from the tensors as captured, 16-bit from their bf16 conversions.

#[path = "../tests/support/real_blocks.rs"]
mod real_blocks;

use engine::golden::{SymbolWidth, encode_block};
use engine::hw::LaneSim;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Blocks queued per transfer: keeps the driver's beat queue short.
const TRANSFER_BLOCKS: usize = 1000;

fn safetensors_under(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .expect("read dir")
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            safetensors_under(&e, out);
        }
    } else if path.extension().is_some_and(|e| e == "safetensors") {
        out.push(path.to_path_buf());
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut limit, mut per_tensor, mut paths) = (100_000usize, 64usize, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--blocks" => limit = args.next().and_then(|v| v.parse().ok()).expect("--blocks N"),
            "--per-tensor" => per_tensor = args.next().and_then(|v| v.parse().ok()).expect("--per-tensor K"),
            _ => safetensors_under(Path::new(&a), &mut paths),
        }
    }
    assert!(
        !paths.is_empty(),
        "usage: lane_stream [--blocks N] [--per-tensor K] PATH..."
    );
    eprintln!("{} safetensors files", paths.len());
    let files: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    let mut failed = false;
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let t = Instant::now();
        let real = real_blocks::distinct_blocks(&files, width, per_tensor, limit);
        let blocks = real.blocks;
        println!(
            "{width:?}: {} distinct blocks from {} tensors of {:?} (loaded in {:.1?})",
            blocks.len(),
            real.tensors,
            real.files,
            t.elapsed()
        );
        let mut sim = LaneSim::new();
        let (mut mismatches, mut tags, mut checked) = (0usize, [0usize; 5], 0usize);
        let (mut first_out, mut last_out, mut latency_max) = (None, 0u64, 0u64);
        let start_cycle = sim.cycle();
        let t = Instant::now();
        let mut pending = blocks.chunks(TRANSFER_BLOCKS).enumerate();
        while checked < blocks.len() {
            // Keep the lane fed: queue the next transfer before the current one runs out of beats.
            if sim.queued_beats() < 8
                && let Some((n, chunk)) = pending.next()
            {
                let bytes: Vec<u8> = chunk.iter().flatten().copied().collect();
                sim.queue_transfer(&bytes, width, n as u8);
            }
            if let Some(out) = sim.step(true) {
                let block = &blocks[checked];
                if out.encoding != encode_block(block, width) || &out.block != block {
                    mismatches += 1;
                }
                tags[out.encoding.tag as usize] += 1;
                first_out.get_or_insert(out.out_cycle);
                last_out = out.out_cycle;
                latency_max = latency_max.max(out.latency_cycles);
                checked += 1;
            }
        }
        let secs = t.elapsed().as_secs_f64();
        let cycles = sim.cycle() - start_cycle;
        let first = first_out.unwrap_or(0);
        let per_block = (last_out - first) as f64 / (checked.max(2) - 1) as f64;
        println!(
            "{width:?}: {checked} distinct real blocks, {mismatches} mismatches; tags ZVC/DBX/BX/ZBX/RAW = {tags:?}; \
             {per_block:.3} cycles/block sustained, max latency {latency_max} cycles; {cycles} cycles in {secs:.1} s = {:.0} cycles/s",
            cycles as f64 / secs
        );
        failed |= mismatches > 0;
    }
    if failed {
        std::process::exit(1);
    }
}
