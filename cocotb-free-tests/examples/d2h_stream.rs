//! Whole tensors of a directory of `.safetensors` files (a capture cache, or `data/`) streamed
//! through the Verilator model of the exported device-to-host unit `pz_d2h_lane`, one transfer per
//! tensor, at both symbol widths; each host-memory image is compared with `golden`'s chunk
//! stream byte for byte and each `done` with golden's wire bytes:
//! `cargo run --release -p cocotb-free-tests --example d2h_stream -- ~/.cache/planezip/dumps [TENSORS]`
//! (TENSORS per width, default 20, taken in file and name order; `0` = all). Prints per width the
//! tensors, bytes, wire bytes, raw chunks, mismatches, beat rate and Verilator cycles/s; exits
//! non-zero on a mismatch or if fewer tensors were found.

use anyhow::{Context, Result, bail, ensure};
use cocotb_free_tests::{build_d2h_model, safetensors_under, stall_cycles, whole_tensors};
use engine::golden::SymbolWidth;
use engine::hw::d2h_driver::{Transfer, check_images};
use std::path::{Path, PathBuf};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().context("usage: d2h_stream DIR [TENSORS]")?);
    let want: usize = args.next().map(|a| a.parse().context("TENSORS is not a number")).transpose()?.unwrap_or(20);
    ensure!(root.is_dir(), "{} is not a directory", root.display());
    let files = safetensors_under(&root);
    ensure!(!files.is_empty(), "no .safetensors under {}", root.display());
    let model = build_d2h_model(Path::new("target/cocotb-free-tests/vd2h"))?;
    eprintln!("model build {:.0} s (0 = reused); {} safetensors files under {}", model.build_seconds, files.len(), root.display());
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let mut transfers = Vec::new();
        'files: for f in &files {
            for (_, bytes) in whole_tensors(f, width)? {
                if want != 0 && transfers.len() == want {
                    break 'files;
                }
                transfers.push(Transfer { id: transfers.len() as u8, width, bytes });
            }
        }
        if transfers.len() < want {
            bail!("{width:?}: only {} tensors under {}, {want} asked for", transfers.len(), root.display());
        }
        let run = model.run(&transfers, 0, 0, true)?;
        let sum = check_images(&transfers, &run.trace).map_err(|e| anyhow::anyhow!("{width:?}: mismatch: {e}"))?;
        let bytes: usize = transfers.iter().map(|t| t.bytes.len()).sum();
        let beats = run.trace.beat_cycles.len() as u64;
        let span = run.trace.beat_cycles.last().map_or(0, |l| l - run.trace.beat_cycles[0] + 1);
        println!(
            "{width:?}: {} whole tensors, {bytes} bytes → {} wire bytes (ratio {:.3}), {} raw chunks, {} bytes written ({} rewritten), 0 mismatches; {beats} beats over {span} cycles (stall cycles {} inside tensors, {} between them; {:.4} cycles per 4 beats); {} cycles in {:.2} s = {:.0} cycles/s",
            transfers.len(),
            sum.wire_bytes,
            bytes as f64 / sum.wire_bytes as f64,
            sum.raw_chunks,
            sum.written_bytes,
            sum.written_bytes - sum.wire_bytes,
            stall_cycles(&transfers, &run.trace).0,
            stall_cycles(&transfers, &run.trace).1,
            4.0 * span as f64 / beats.max(1) as f64,
            run.cycles,
            run.seconds,
            run.cycles as f64 / run.seconds
        );
    }
    Ok(())
}
