//! ≥ 1,000,000 distinct real blocks per symbol width from full captures through the Verilator
//! model of the exported lane, each compared with the golden encoder:
//! `cargo run --release -p cocotb-free-tests --example capture_blocks -- ~/.cache/planezip/dumps`
//! (optional: blocks per width, default 1,000,000; blocks at most per tensor, spread evenly over
//! it, default 600, so that every model of the cache contributes). Prints blocks, files, tensors,
//! mismatches and Verilator cycles/s per width; exits non-zero on any mismatch or if fewer blocks
//! were found.

use cocotb_free_tests::{build_lane_model, check_blocks, real_blocks, safetensors_under};
use engine::golden::SymbolWidth;
use std::path::{Path, PathBuf};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().expect("usage: capture_blocks DUMPS_DIR [BLOCKS_PER_WIDTH] [PER_TENSOR]"));
    let want: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(1_000_000);
    let per_tensor: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(600);
    let files = safetensors_under(&root);
    anyhow::ensure!(!files.is_empty(), "no .safetensors under {}", root.display());
    let model = build_lane_model(Path::new("target/cocotb-free-tests/vlane"))?;
    eprintln!("model build {:.0} s (0 = reused); {} capture files", model.build_seconds, files.len());
    let files: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let mut failed = false;
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let t = std::time::Instant::now();
        let found = real_blocks::distinct_blocks(&files, width, per_tensor, want);
        let read_s = t.elapsed().as_secs_f64();
        let (mut cycles, mut sim_s, mut bad) = (0u64, 0f64, 0usize);
        for chunk in found.blocks.chunks(100_000) {
            let (run, b) = check_blocks(&model, chunk, width)?;
            cycles += run.cycles;
            sim_s += run.seconds;
            bad += b;
        }
        let short: Vec<String> = found
            .files
            .iter()
            .map(|f| {
                let p = Path::new(f);
                let model = p.parent().and_then(|d| d.file_name()).map(|d| d.to_string_lossy()).unwrap_or_default();
                format!("{model}/{}", p.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default())
            })
            .collect();
        println!(
            "{width:?}: {} distinct blocks from {} files ({} tensors), {bad} mismatches, {cycles} cycles in {sim_s:.2} s = {:.0} cycles/s (read {read_s:.0} s)\n  files: {}",
            found.blocks.len(),
            found.files.len(),
            found.tensors,
            cycles as f64 / sim_s,
            short.join(", ")
        );
        failed |= bad > 0 || found.blocks.len() < want;
    }
    anyhow::ensure!(!failed, "mismatches, or fewer blocks than asked for");
    Ok(())
}
