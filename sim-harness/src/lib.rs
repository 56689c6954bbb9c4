//! Library side of the `sim-harness` program: everything `main.rs` dispatches to, kept in a
//! library so integration tests can call it directly.
//!
//! * [`cli`]: the command line (clap derive).
//! * [`tensors`]: reading `.safetensors` / `.npy` files.
//! * [`convert`]: f32 → bf16 (round to nearest even).
//! * [`ratios`] and [`report`]: the `ratios` measurement and its tables.
//! * [`container_cmd`]: `compress` / `decompress`.
//! * [`dump`]: the capture dumps of docs/DUMP-FORMAT.md.
//! * [`policies`]: the memory policies on the captured models.
//! * [`peers`]: PlaneZip beside software codecs (ratio and speed).

pub mod cli;
pub mod container_cmd;
pub mod convert;
pub mod dump;
pub mod peers;
pub mod policies;
pub mod ratios;
pub mod report;
pub mod tensors;

use anyhow::Result;
use cli::{Cli, Command};

/// Runs one parsed command line, printing its results to stdout.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Ratios(args) => {
            let mut reports = Vec::new();
            for path in &args.paths {
                let file = path.display().to_string();
                for t in tensors::load(path)? {
                    reports.extend(ratios::report_tensor(&file, &t, args.symbol_bits.map(|b| b.width())));
                }
            }
            let totals = ratios::totals(&reports);
            if args.json {
                println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "tensors": reports, "totals": totals }))?);
            } else {
                print!("{}", report::ratios_table(&reports, &totals, args.summary));
            }
        }
        Command::Compress(args) => {
            let (input, raw, out) = container_cmd::compress(&args)?;
            let converted = if raw == input { String::new() } else { format!(", {raw} bytes as bf16") };
            println!("compressed {} ({input} bytes{converted}) -> {} ({out} bytes), ratio {:.3}x", args.input.display(), args.output.display(), ratios::ratio(raw, out));
        }
        Command::Policies(args) => policies::run(&args)?,
        Command::Peers(args) => peers::run(&args)?,
        Command::Decompress(args) => {
            let (inp, out) = container_cmd::decompress(&args)?;
            println!("decompressed {} ({inp} bytes) -> {} ({out} bytes)", args.input.display(), args.output.display());
        }
    }
    Ok(())
}
