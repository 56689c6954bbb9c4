//! `cargo run --release -p area-model -- --rtl DIR --liberty FILE [--liberty FILE …]`: synthesizes
//! every top of `DIR/manifest.json` (as `rtl-gen` writes it) on each library, prints area per
//! module and in total (µm²), cell and flop counts, and OpenSTA's worst path and max clock.

use anyhow::{Context, Result};
use area_model::{Flow, Liberty, synthesize};
use clap::Parser;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "Area (Yosys/ABC) and timing (OpenSTA) of the exported PlaneZip tops")]
struct Args {
    /// Directory written by `cargo run -p rtl-gen -- --out DIR`.
    #[arg(long)]
    rtl: PathBuf,
    /// Liberty library (`.lib` or `.lib.gz`); repeat for several.
    #[arg(long, required = true)]
    liberty: Vec<PathBuf>,
    /// Scratch directory for decompressed libraries, scripts, logs and netlists.
    #[arg(long, default_value = "target/area-model")]
    work: PathBuf,
    /// Clock period for the OpenSTA check, ps (667 ps = 1.5 GHz).
    #[arg(long, default_value_t = 667.0)]
    period_ps: f64,
    /// ABC delay target in ps (`abc -D`; ABC then reports its own critical-path delay).
    #[arg(long)]
    abc_delay_ps: Option<f64>,
    /// Only these tops (default: every top of the manifest).
    #[arg(long)]
    top: Vec<String>,
    /// Flatten every top completely (no per-module breakdown; ABC optimises across blocks).
    #[arg(long)]
    flatten: bool,
    /// Run Yosys's SAT-based resource sharing (slow on the lane: off by default).
    #[arg(long)]
    share: bool,
    /// Skip OpenSTA.
    #[arg(long)]
    no_sta: bool,
    /// Also write all results as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Only run the per-stage timing guard (`area_model::stages`) on these stage modules of the
    /// tops (full module names, e.g. `pz_compressor_lane$compactor`), at `--period-ps`, on each
    /// library, and print its figures; no whole-top synthesis.
    #[arg(long)]
    stage: Vec<String>,
    /// Map every block module of each top on its own (`area_model::blocks`: block children and
    /// RAMs as black boxes, identical instances once, cached per block) at `--period-ps` on each
    /// library, and print area and ABC delay per instance, their sum and the RAMs' SRAM estimate;
    /// no whole-top synthesis. With `--summary-dir`, writes `<top>.<library>.blocks.json`.
    #[arg(long)]
    blocks: bool,
    /// Write `<top>.<library>.area.json` and (with OpenSTA) `<top>.<library>.delay.json` into
    /// this folder, the summary files committed under `docs/area/` (schema in docs/AREA.md).
    #[arg(long)]
    summary_dir: Option<PathBuf>,
}

/// `--stage`: the per-stage guard on each named stage module, found in the tops' Verilog.
fn guard_stages(args: &Args, manifest: &serde_json::Value, libs: &[Liberty]) -> Result<()> {
    let mut texts = Vec::new();
    for entry in manifest.as_array().context("manifest is not a list")? {
        let file = args.rtl.join(entry["file"].as_str().context("file")?);
        texts.push(std::fs::read_to_string(&file).with_context(|| format!("read {}", file.display()))?);
    }
    for stage in &args.stage {
        let text = texts
            .iter()
            .find(|t| rtl_gen::module_names(t).iter().any(|n| n == stage))
            .with_context(|| format!("no module {stage} in the tops of {}", args.rtl.display()))?;
        let source = area_model::stages::stage_source(text, stage)?;
        for lib in libs {
            let t = std::time::Instant::now();
            let s = area_model::stages::check_stage(&source, stage, lib, args.period_ps, &args.work.join("stages"))?;
            println!(
                "{stage} on {}: ABC delay {:.1} ps, budget {:.1} ps ({} at {:.0} ps), {:.1} µm², {} cells, {} flops, outputs {}; {}{:.0} s",
                lib.name,
                s.abc_delay_ps,
                s.budget_ps,
                if s.passes() { "passes" } else { "FAILS" },
                args.period_ps,
                s.area_um2,
                s.cells,
                s.flops,
                if s.unregistered_outputs.is_empty() { "registered".to_string() } else { format!("unregistered ({} driving cells)", s.unregistered_outputs.len()) },
                if s.cached { "cached, " } else { "" },
                t.elapsed().as_secs_f64()
            );
        }
    }
    Ok(())
}

/// The manifest's tops that `--top` chose (all without it), with their Verilog files.
fn chosen_tops<'a>(args: &Args, manifest: &'a serde_json::Value) -> Result<Vec<(&'a str, PathBuf)>> {
    let mut out = Vec::new();
    for entry in manifest.as_array().context("manifest is not a list")? {
        let top = entry["top"].as_str().context("top")?;
        if args.top.is_empty() || args.top.iter().any(|t| t == top) {
            out.push((top, args.rtl.join(entry["file"].as_str().context("file")?)));
        }
    }
    Ok(out)
}

/// `--blocks`: every block of each chosen top mapped on its own, per library.
fn map_blocks(args: &Args, manifest: &serde_json::Value, libs: &[Liberty]) -> Result<()> {
    for (top, file) in chosen_tops(args, manifest)? {
        let verilog = std::fs::read_to_string(&file).with_context(|| format!("read {}", file.display()))?;
        for lib in libs {
            let t0 = std::time::Instant::now();
            println!("{top} on {}, every block on its own at {:.0} ps (own logic; block children and RAMs as black boxes):", lib.name, args.period_ps);
            println!("  {:<44} {:>11} {:>8} {:>7} {:>10} {:>9}", "block instance", "area µm²", "cells", "flops", "ABC ps", "outputs");
            let r = area_model::blocks::map_blocks(&verilog, top, lib, args.period_ps, &args.work.join("stages"), |b, i, n| {
                let name = format!("{}{}", "  ".repeat(b.depth), b.module);
                match &b.own {
                    Ok(s) => println!(
                        "  {name:<44} {:>11.1} {:>8} {:>7} {:>10.1} {:>9}   [{i}/{n}{}, {:.0} s]",
                        s.area_um2,
                        s.cells,
                        s.flops,
                        s.abc_delay_ps,
                        if !s.unregistered_outputs.is_empty() {
                            format!("{} comb", s.unregistered_outputs.len())
                        } else if s.flop_cells.is_empty() {
                            "no flops".to_string()
                        } else {
                            "flops".to_string()
                        },
                        if s.cached { ", cached" } else { "" },
                        t0.elapsed().as_secs_f64()
                    ),
                    Err(e) => println!("  {name:<44} not mapped: {}   [{i}/{n}]", e.lines().next().unwrap_or("")),
                }
            })?;
            println!(
                "  {top}: logic {:.1} µm² (Σ of {} instances, {} distinct blocks{}); worst ABC delay {:.1} ps in {} (budget {:.1} ps at {:.0} ps); {} blocks with outputs not all flops",
                r.logic_um2,
                r.instances.len(),
                r.distinct_blocks,
                if r.unmapped > 0 { format!(", {} NOT mapped and missing from the sum", r.unmapped) } else { String::new() },
                r.worst_abc_delay_ps,
                r.worst_module,
                r.instances.iter().filter_map(|b| b.own.as_ref().ok()).find(|s| s.module == r.worst_module).map_or(f64::NAN, |s| s.budget_ps),
                args.period_ps,
                r.unregistered_blocks
            );
            println!(
                "  RAMs (not mapped): {} bits; SRAM estimate {:.0} µm² at {} µm² per bit cell (7 nm, TSMC ISSCC 2017 via WikiChip) and an assumed {:.0} % array efficiency{}",
                r.sram_bits,
                r.sram_estimate_um2,
                area_model::blocks::SRAM_BITCELL_UM2,
                100.0 * area_model::blocks::SRAM_ARRAY_EFFICIENCY,
                if lib.name.contains("asap7") { "" } else { " (a 7 nm figure: not meaningful on this library)" }
            );
            if let Some(dir) = &args.summary_dir {
                std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
                // Per instance its figures and the number of outputs its own logic drives (the
                // cell names stay in the work directory's cache).
                let instances: Vec<serde_json::Value> = r
                    .instances
                    .iter()
                    .map(|b| match &b.own {
                        Ok(s) => serde_json::json!({
                            "module": b.module, "depth": b.depth, "area_um2": s.area_um2, "cells": s.cells, "flops": s.flops,
                            "abc_delay_ps": s.abc_delay_ps, "budget_ps": s.budget_ps, "unregistered_outputs": s.unregistered_outputs.len(),
                            "ram_bits": b.rams.iter().map(|m| m.bits).sum::<u64>(),
                        }),
                        Err(e) => serde_json::json!({ "module": b.module, "depth": b.depth, "error": e }),
                    })
                    .collect();
                write_json(
                    &dir.join(format!("{top}.{}.blocks.json", lib.name)),
                    &serde_json::json!({
                        "top": top, "library": lib.name, "period_ps": r.period_ps, "logic_um2": r.logic_um2,
                        "instances_count": r.instances.len(), "distinct_blocks": r.distinct_blocks, "unmapped": r.unmapped,
                        "worst_abc_delay_ps": r.worst_abc_delay_ps, "worst_module": r.worst_module,
                        "unregistered_blocks": r.unregistered_blocks, "sram_bits": r.sram_bits,
                        // The bit cell is a 7 nm figure: no estimate on another library.
                        "sram_estimate_um2": lib.name.contains("asap7").then_some(r.sram_estimate_um2),
                        "sram_bitcell_um2": area_model::blocks::SRAM_BITCELL_UM2,
                        "sram_array_efficiency": area_model::blocks::SRAM_ARRAY_EFFICIENCY, "instances": instances,
                    }),
                )?;
            }
        }
    }
    Ok(())
}

/// Writes `value` as pretty JSON to `path` through a temporary file and a rename.
fn write_json(path: &std::path::Path, value: &serde_json::Value) -> Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(value)? + "\n").with_context(|| format!("write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("rename {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

fn main() -> Result<()> {
    let args = Args::parse();
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(args.rtl.join("manifest.json")).context("read manifest.json (run rtl-gen first)")?,
    )?;
    let libs: Vec<Liberty> = args.liberty.iter().map(|p| Liberty::open(p, &args.work.join("lib"))).collect::<Result<_>>()?;
    let flow = Flow { abc_delay_target_ps: args.abc_delay_ps, flatten_all: args.flatten, share: args.share };
    if !args.stage.is_empty() {
        return guard_stages(&args, &manifest, &libs);
    }
    if args.blocks {
        return map_blocks(&args, &manifest, &libs);
    }
    let mut results = Vec::new();
    for (top, file) in chosen_tops(&args, &manifest)? {
        let t = std::time::Instant::now();
        let areas = synthesize(&[file], top, &libs, &flow, &args.work)?;
        eprintln!("{top}: yosys {:.0} s", t.elapsed().as_secs_f64());
        for (area, lib) in areas.iter().zip(&libs) {
            println!("\n{top} on {}: {:.1} µm² total, {} cells, {} flops", lib.name, area.total_um2, area.cells, area.flops);
            println!("  {:<40} {:>12} {:>8} {:>7}", "module", "area µm²", "cells", "flops");
            for m in &area.modules {
                println!("  {:<40} {:>12.1} {:>8} {:>7}", m.module, m.area_um2, m.cells, m.flops);
            }
            for (m, d) in &area.abc_delay_ps {
                println!("  ABC delay {m}: {d:.1} ps");
            }
            let timing = if args.no_sta {
                None
            } else {
                let tm = area_model::sta(lib, &area.netlist, top, "clock", args.period_ps, &args.work)?;
                println!(
                    "  OpenSTA: worst path {:.1} ps ({} -> {}, {} stages), slack {:.1} ps at {:.0} ps, max clock {:.0} MHz",
                    tm.min_period_ps, tm.startpoint, tm.endpoint, tm.path_stages, tm.slack_ps, tm.period_ps, tm.fmax_mhz
                );
                println!(
                    "  worst path re-derived from the Liberty tables: {} cell arcs, largest |OpenSTA - table| {:.3} ps",
                    tm.arc_checks.len(),
                    tm.arc_max_deviation_ps
                );
                Some(tm)
            };
            if let Some(dir) = &args.summary_dir {
                std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
                let flow_json = serde_json::json!({ "abc_delay_target_ps": args.abc_delay_ps, "flatten": args.flatten, "share": args.share });
                write_json(
                    &dir.join(format!("{top}.{}.area.json", lib.name)),
                    &serde_json::json!({
                        "top": top, "library": lib.name, "flow": flow_json,
                        "total_um2": area.total_um2, "cells": area.cells, "flops": area.flops,
                        "modules": area.modules,
                    }),
                )?;
                if let Some(tm) = &timing {
                    let abc: Vec<_> = area.abc_delay_ps.iter().map(|(m, d)| serde_json::json!({ "module": m, "delay_ps": d })).collect();
                    write_json(
                        &dir.join(format!("{top}.{}.delay.json", lib.name)),
                        &serde_json::json!({
                            "top": top, "library": lib.name, "flow": flow_json,
                            "period_ps": tm.period_ps, "worst_path_ps": tm.min_period_ps, "slack_ps": tm.slack_ps,
                            "max_clock_mhz": tm.fmax_mhz, "startpoint": tm.startpoint, "endpoint": tm.endpoint,
                            "path_cells": tm.path_stages, "arc_checks": tm.arc_checks.len(),
                            "arc_max_deviation_ps": tm.arc_max_deviation_ps, "abc_delay_ps": abc,
                        }),
                    )?;
                }
            }
            results.push(serde_json::json!({ "area": area, "timing": timing }));
        }
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&results)?)?;
    }
    Ok(())
}
