//! `cargo run -p rtl-gen -- --out DIR`: one Verilog file per top, an ANSI wrapper per top,
//! `manifest.json`, and a Verilator `-Wall` lint of each (only WIDTH warnings allowed).

use anyhow::{Result, bail};
use clap::Parser;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "Export every PlaneZip top as Verilog, with ANSI wrappers and a port manifest")]
struct Args {
    /// Output directory (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Skip the Verilator lint.
    #[arg(long)]
    no_lint: bool,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let manifest = rtl_gen::generate(&args.out)?;
    for top in &manifest {
        let ports: u32 = top.ports.iter().map(|p| p.bits).sum();
        println!("{}: {} modules, {} ports ({ports} bits) -> {}, {}", top.top, top.modules, top.ports.len(), top.file, top.wrapper_file);
        if !args.no_lint {
            let bad = rtl_gen::lint(&args.out, &top.top, &args.out.join(".lint").join(&top.top))?;
            if !bad.is_empty() {
                bail!("verilator -Wall on {}: {} non-WIDTH warnings:\n{}", top.top, bad.len(), bad.join("\n"));
            }
            println!("{}: verilator --lint-only -Wall clean except WIDTH", top.top);
        }
    }
    let _ = std::fs::remove_dir_all(args.out.join(".lint"));
    println!("wrote {}", args.out.join("manifest.json").display());
    Ok(())
}
