//! What each subcommand does (the default run included): parse, run, print text or JSON, write
//! output files through a temporary file and a rename.

use crate::cli::{self, AblationArgs, Cli, Command, DataArgs, MergeArgs, PlanArgs, PredictArgs, RatiosArgs, SensitivityArgs, StreamArgs, SweepArgs};
use crate::dump::Dump;
use crate::eval::{self, ABLATION_BUDGET};
use crate::grid::{self, GridResult, GridSpec, find_mean};
use crate::measure::Precision;
use crate::engine_backend::{Fidelity, Simulator};
use crate::policies::Row;
use crate::{clock, container_cmd, figures, inputs, peers, policies, ratios, report, stream, tensors, vcd_out};
use anyhow::{Context, Result, ensure};
use planner::plan::Decision;
use planner::policy::run_policy;
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    let Some(command) = cli.command else {
        let e = eval::evaluate(&cli.run)?;
        return if cli.run.json { print_json(&e) } else { Ok(print!("{}", eval::render(&e))) };
    };
    match command {
        Command::Ratios(a) => ratios_cmd(&a),
        Command::Compress(args) => {
            let (input, raw, out) = container_cmd::compress(&args)?;
            let converted = if raw == input { String::new() } else { format!(", {raw} bytes as bf16") };
            println!("compressed {} ({input} bytes{converted}) -> {} ({out} bytes), ratio {:.3}x", args.input.display(), args.output.display(), ratios::ratio(raw, out));
            Ok(())
        }
        Command::Decompress(args) => {
            let (inp, out) = container_cmd::decompress(&args)?;
            println!("decompressed {} ({inp} bytes) -> {} ({out} bytes)", args.input.display(), args.output.display());
            Ok(())
        }
        Command::Policies(args) => policies::run(&args),
        Command::Peers(args) => peers::run(&args),
        Command::SampleCheck(args) => crate::sample_check::run(&args),
        Command::Plan(a) => plan_cmd(&a),
        Command::Sweep(a) => sweep_cmd(&a),
        Command::Merge(a) => merge_cmd(&a),
        Command::Predict(a) => predict_cmd(&a),
        Command::Sensitivity(a) => sensitivity_cmd(&a),
        Command::Ablation(a) => ablation_cmd(&a),
        Command::Stream(a) => stream_cmd(&a),
        Command::Report(a) => {
            let e = eval::evaluate(&a.eval)?;
            let files = if a.svg_only { figures::write_svgs(&a.dir, &e)? } else { figures::write_report(&a.dir, &e)? };
            if a.eval.json {
                print_json(&serde_json::json!({ "dir": a.dir, "files": files, "wall_s": e.wall_s }))
            } else {
                let open = if a.svg_only { String::new() } else { format!(" (open {}/index.html)", a.dir.display()) };
                println!("wrote {} files to {}{open}; evaluation took {:.1} s", files.len(), a.dir.display(), e.wall_s);
                Ok(())
            }
        }
    }
}

fn print_json<T: Serialize>(v: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create folder", dir.display()))?;
    let tmp = dir.join(format!(".{}.tmp{}", path.file_name().and_then(|n| n.to_str()).unwrap_or("out"), std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("{}: cannot rename into place", path.display()))
}

fn ratios_cmd(args: &RatiosArgs) -> Result<()> {
    let mut reports = Vec::new();
    let bits = args.symbol_bits.map(|b| b.width());
    for path in &args.paths {
        let file = path.display().to_string();
        if path.is_dir() {
            let dump = Dump::open(path).with_context(|| format!("model dump {}", path.display()))?;
            let blocks = dump.read_iteration(args.iteration)?;
            let ts: Vec<tensors::Tensor> =
                blocks.into_iter().map(|b| tensors::Tensor { name: b.signature.to_string(), dtype: inputs::dtype_label(b.dtype), shape: vec![b.data.len()], bytes: b.data }).collect();
            let file = format!("{file}/iter{}.safetensors", args.iteration);
            reports.extend(ts.par_iter().flat_map(|t| ratios::report_tensor(&dump.metadata.model, &file, t, bits)).collect::<Vec<_>>());
        } else {
            // Each tensor read and measured piece by piece: a tensor of many GB needs memory
            // for a piece, not for the tensor.
            let model = inputs::model_of_file(path);
            let tf = tensors::open(path)?;
            let per_tensor: Vec<Vec<ratios::TensorReport>> = tf
                .tensors
                .par_iter()
                .map(|t| ratios::report_pieces(&model, &file, &t.name, &t.dtype, tf.pieces(t), bits))
                .collect::<Result<_, _>>()?;
            reports.extend(per_tensor.into_iter().flatten());
        }
    }
    let totals = ratios::totals(&reports);
    let per_model = ratios::model_totals(&reports);
    if args.json {
        let models: Vec<_> = per_model.iter().map(|(m, t)| serde_json::json!({ "model": m, "totals": t })).collect();
        print_json(&serde_json::json!({ "tensors": reports, "totals": totals, "models": models }))
    } else {
        print!("{}", report::ratios_table(&reports, &totals, &per_model, args.summary));
        Ok(())
    }
}

/// One tensor's line of a plan.
#[derive(Serialize)]
struct PlanLine {
    tensor: usize,
    signature: String,
    op_type: String,
    bytes: u64,
    planned_wire_bytes: u64,
    actual_wire_bytes: u64,
    decision: &'static str,
    swap_out_after_op: Option<usize>,
    prefetch_at_op: Option<usize>,
}

fn plan_cmd(a: &PlanArgs) -> Result<()> {
    let platform = cli::parse_platform(&a.platform)?;
    let row = grid::parse_row(&a.policy)?;
    let dirs = grid::model_dirs(&a.data, std::slice::from_ref(&a.model))?;
    let models = grid::load_models(&dirs)?;
    let prep = grid::prepare(&models[0], &platform, None);
    let w = &prep.workload;
    let c = &prep.compressions[&row];
    let budget = w.budget_for_fraction(a.budget);
    let o = run_policy(row.policy(), w, c, budget).map_err(|e| anyhow::anyhow!("{} on {} at {:.0} %: no plan: {e}", row.label(), platform.name, a.budget * 100.0))?;
    let trace = &models[0].dump.train_trace;
    let lines: Vec<PlanLine> = w
        .candidates
        .iter()
        .map(|&t| {
            let (decision, out, pre) = match o.plan.decisions[t] {
                Decision::Keep => ("KEEP", None, None),
                Decision::Swap { swap_out_after, prefetch_at } => ("SWAP", Some(swap_out_after), Some(prefetch_at)),
                Decision::Drop => ("DROP", None, None),
            };
            let tt = &trace.tensors[t];
            PlanLine {
                tensor: t,
                signature: tt.producer.map_or(String::new(), |p| p.to_string()),
                op_type: tt.producer_op_type.clone().unwrap_or_default(),
                bytes: w.tensors[t].bytes,
                planned_wire_bytes: c.predicted_wire_bytes[t],
                actual_wire_bytes: c.actual_wire_bytes[t],
                decision,
                swap_out_after_op: out,
                prefetch_at_op: pre,
            }
        })
        .collect();
    let r = &o.report;
    if a.json {
        return print_json(&serde_json::json!({
            "model": prep.model, "platform": platform, "policy": grid::row_name(row), "budget_fraction": a.budget, "budget_bytes": budget,
            "plan": o.plan_label, "replans": o.replans, "unlimited_ms": r.unlimited_ns / 1e6, "iteration_ms": r.iteration_ns / 1e6,
            "overhead_pct": r.overhead() * 100.0, "stall_ms": r.stall_ns / 1e6, "recompute_ms": r.recompute_ns / 1e6,
            "recomputed_ops": r.recomputed_ops, "swapped_tensors": r.swapped_tensors, "dropped_tensors": r.dropped_tensors,
            "swapped_raw_bytes": r.swapped_raw_bytes, "swapped_wire_bytes": r.swapped_wire_bytes, "peak_bytes": r.peak_bytes,
            "tensors": lines,
        }));
    }
    let mut s = String::new();
    let _ = writeln!(s, "{} on platform {} at {:.0} % of the peak ({} bytes), policy {}: plan {} ({} re-plans)", prep.model, platform.name, a.budget * 100.0, budget, row.label(), o.plan_label, o.replans);
    let _ = writeln!(s, "{:>7} {:<12} {:<24} {:>12} {:>12} {:<5} {:>10} {:>10}", "tensor", "signature", "producer", "bytes", "wire bytes", "plan", "out after", "prefetch");
    for l in &lines {
        let op = |v: Option<usize>| v.map_or("-".into(), |x| format!("op {x}"));
        let _ = writeln!(s, "{:>7} {:<12} {:<24} {:>12} {:>12} {:<5} {:>10} {:>10}", l.tensor, l.signature, l.op_type, l.bytes, l.actual_wire_bytes, l.decision, op(l.swap_out_after_op), op(l.prefetch_at_op));
    }
    let _ = writeln!(s, "\niteration {:.3} ms (unlimited {:.3} ms): overhead {:.2} %; stall {:.3} ms; recomputation {:.3} ms ({} ops replayed)", r.iteration_ns / 1e6, r.unlimited_ns / 1e6, r.overhead() * 100.0, r.stall_ns / 1e6, r.recompute_ns / 1e6, r.recomputed_ops);
    let _ = writeln!(s, "swapped {} tensors, {} raw bytes as {} wire bytes; dropped {} tensors; peak {} bytes", r.swapped_tensors, r.swapped_raw_bytes, r.swapped_wire_bytes, r.dropped_tensors, r.peak_bytes);
    print!("{s}");
    Ok(())
}

fn load(d: &DataArgs) -> Result<(Vec<grid::ModelTables>, Vec<String>)> {
    let dirs = grid::model_dirs(&d.data, &d.models)?;
    let models = grid::load_models(&dirs)?;
    let names = models.iter().map(|m| m.model.clone()).collect();
    Ok((models, names))
}

fn write_grid(g: &GridResult, out_json: &Option<PathBuf>, out_csv: &Option<PathBuf>) -> Result<()> {
    if let Some(p) = out_json {
        write_atomic(p, serde_json::to_string_pretty(g)?.as_bytes())?;
    }
    if let Some(p) = out_csv {
        write_atomic(p, grid::to_csv(g).as_bytes())?;
    }
    Ok(())
}

fn grid_summary(g: &GridResult) -> String {
    let mut s = String::new();
    let fails = g.runs.iter().filter(|r| r.error.is_some()).count();
    let shard = g.shard.map_or(String::new(), |[k, n]| format!(" (shard {k}/{n})"));
    let _ = writeln!(s, "{} of {} cases run{shard}, {fails} without a plan", g.runs.len(), g.total_cases);
    let _ = writeln!(s, "{:<20} {:<14} {:<16} {:>7} {:>10} {:>10} {:>12} {:>14}", "model", "platform", "policy", "budget", "overhead %", "stall ms", "recompute ms", "swapped MB");
    for r in &g.runs {
        let o = |v: Option<f64>| v.map_or("fail".into(), |x| format!("{x:.2}"));
        let _ = writeln!(
            s,
            "{:<20} {:<14} {:<16} {:>6.0}% {:>10} {:>10} {:>12} {:>14}",
            r.model,
            r.platform,
            r.policy,
            r.budget_fraction * 100.0,
            o(r.overhead_pct),
            o(r.stall_ms),
            o(r.recompute_ms),
            r.swapped_raw_bytes.map_or("-".into(), |b| format!("{:.1}", b as f64 / 1e6))
        );
    }
    s
}

fn sweep_cmd(a: &SweepArgs) -> Result<()> {
    let platforms = a.platforms.iter().map(|p| cli::parse_platform(p)).collect::<Result<Vec<_>>>()?;
    for p in &a.policies {
        grid::parse_row(p)?;
    }
    let shard = a.shard.as_deref().map(grid::parse_shard).transpose()?;
    let (models, names) = load(&a.data)?;
    let spec = GridSpec { models: names, platforms, policies: a.policies.clone(), budgets: a.budgets.clone(), engine: None };
    let g = grid::run_grid(&models, &spec, shard, a.data.json)?;
    write_grid(&g, &a.out_json, &a.out_csv)?;
    if a.data.json { print_json(&g) } else { Ok(print!("{}", grid_summary(&g))) }
}

fn merge_cmd(a: &MergeArgs) -> Result<()> {
    let mut values = Vec::new();
    for p in &a.shards {
        let text = std::fs::read_to_string(p).with_context(|| format!("{}: cannot read", p.display()))?;
        let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", p.display()))?;
        values.push((p.clone(), v));
    }
    // `stream --shard` results carry a backend; `sweep --shard` results a grid spec.
    if values.iter().all(|(_, v)| v.get("backend").is_some()) {
        let parts = values
            .into_iter()
            .map(|(p, v)| serde_json::from_value(v).map(|r| (p.clone(), r)).with_context(|| format!("{}: not a stream result", p.display())))
            .collect::<Result<Vec<(PathBuf, stream::StreamReport)>>>()?;
        let r = stream::merge(parts)?;
        if let Some(p) = &a.out_json {
            write_atomic(p, serde_json::to_string_pretty(&r)?.as_bytes())?;
        }
        if a.json {
            print_json(&r)?;
        } else {
            print!("{}", stream::render(&r, false));
        }
        return stream::check(&r);
    }
    let parts = values
        .into_iter()
        .map(|(p, v)| serde_json::from_value(v).map(|g| (p.clone(), g)).with_context(|| format!("{}: not a sweep result", p.display())))
        .collect::<Result<Vec<(PathBuf, GridResult)>>>()?;
    let g = grid::merge(parts)?;
    write_grid(&g, &a.out_json, &a.out_csv)?;
    if a.json { print_json(&g) } else { Ok(print!("{}", grid_summary(&g))) }
}

fn predict_cmd(a: &PredictArgs) -> Result<()> {
    let dirs = grid::model_dirs(&a.data.data, &a.data.models)?;
    let dumps: Vec<Dump> = dirs.iter().map(|d| Dump::open(d).with_context(|| format!("model dump {}", d.display()))).collect::<Result<_>>()?;
    let iters = eval::measure_all(&dumps, a.data.json)?;
    let rows = eval::table4(&dumps, &iters);
    if a.data.json {
        return print_json(&rows);
    }
    let mut s = String::from("Table IV (PlaneZip, BF16): ratio per captured iteration (x); wire-size error (%) predicting iteration 2 from iteration 1\n");
    let _ = writeln!(s, "{:<20} {:>16} {:>7} {:>8} {:>7} | paper: ratios, errors tensor/op/global", "model", "ratio per it.", "tensor", "op type", "global");
    for r in &rows {
        let paper = r.paper.map_or(String::new(), |(rs, es)| format!("{} | {:.1} {:.1} {:.1}", rs.map(|x| format!("{x:.2}")).join("/"), es[0], es[1], es[2]));
        let _ = writeln!(s, "{:<20} {:>16} {:>7.2} {:>8.2} {:>7.2} | {paper}", r.model, r.ratio_per_iteration.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join("/"), r.error_pct[0], r.error_pct[1], r.error_pct[2]);
    }
    print!("{s}");
    Ok(())
}

fn sensitivity_cmd(a: &SensitivityArgs) -> Result<()> {
    let (models, names) = load(&a.data)?;
    let spec = GridSpec { models: names, platforms: eval::fig6_platforms(&a.links, &a.engines), policies: vec!["bw".into(), "planezip".into()], budgets: vec![a.budget], engine: None };
    let g = grid::run_grid(&models, &spec, None, a.data.json)?;
    let means = grid::means(&g, |_| true);
    if a.data.json {
        return print_json(&serde_json::json!({ "grid": g, "means": means }));
    }
    let mut s = format!("Fig. 6: mean overhead (%) at {:.0} % of the peak on platform B variants over {} model(s)\n", a.budget * 100.0, g.spec.models.len());
    let _ = writeln!(s, "{:<22} {:>10} {:>12} {:>8} {:>10}", "platform", "link GB/s", "engine GB/s", "BW %", "PlaneZip %");
    for p in &g.spec.platforms {
        let m = |pol: &str| find_mean(&means, &p.name, pol, a.budget).and_then(|m| m.overhead_pct).map_or("fail".into(), |x| format!("{x:.2}"));
        let _ = writeln!(s, "{:<22} {:>10} {:>12} {:>8} {:>10}", p.name, p.link_gb_per_s, p.engine_gb_per_s, m("bw"), m("planezip"));
    }
    print!("{s}");
    Ok(())
}

fn ablation_cmd(a: &AblationArgs) -> Result<()> {
    let (models, names) = load(&a.data)?;
    let rows = [Row::Recomp, Row::Dte, Row::DteCompressed, Row::Bw, Row::BwUnaware, Row::BwZvc, Row::PlaneZip32, Row::PlaneZipOpType, Row::PlaneZip, Row::PlaneZipOracle];
    let spec = GridSpec {
        models: names,
        platforms: vec![planner::platform::Platform::a(), planner::platform::Platform::b()],
        policies: rows.iter().map(|r| grid::row_name(*r).to_owned()).collect(),
        budgets: vec![a.budget],
        engine: None,
    };
    let g = grid::run_grid(&models, &spec, None, a.data.json)?;
    let means = grid::means(&g, |_| true);
    if a.data.json {
        return print_json(&serde_json::json!({ "grid": g, "means": means }));
    }
    let paper_budget = (a.budget - ABLATION_BUDGET).abs() < 1e-9;
    let mut s = format!("Fig. 5: ablations at {:.0} % of the peak, mean overhead (%) over {} model(s); paper: its five models\n", a.budget * 100.0, g.spec.models.len());
    let _ = writeln!(s, "{:<30} {:>8} {:>7} {:>8} {:>7}", "policy", "A", "paper", "B", "paper");
    for row in rows {
        let m = |p: &str| find_mean(&means, p, grid::row_name(row), a.budget).and_then(|m| m.overhead_pct).map_or("fail".into(), |x| format!("{x:.2}"));
        let paper = |p: &str| if paper_budget { row.paper_mean_pct(p, a.budget).map_or("-".into(), |x| format!("{x:.1}")) } else { "-".into() };
        let _ = writeln!(s, "{:<30} {:>8} {:>7} {:>8} {:>7}", row.label(), m("A"), paper("A"), m("B"), paper("B"));
    }
    print!("{s}");
    Ok(())
}

fn stream_cmd(a: &StreamArgs) -> Result<()> {
    let clock = clock::resolve(a.engine_clock_ghz, &clock::default_area_dir())?;
    let precision: Precision = a.precision.precision();
    let mut tensors = Vec::new();
    for p in &a.paths {
        tensors.extend(inputs::load(p, a.iteration, precision)?);
    }
    let input_tensors = tensors.len();
    let shard = a.shard.as_deref().map(grid::parse_shard).transpose()?;
    let mut indices: Vec<usize> = (0..input_tensors).collect();
    if let Some([k, n]) = shard {
        let keep: Vec<bool> = (0..input_tensors).map(|i| i % n == k - 1).collect();
        tensors = tensors.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(t, _)| t).collect();
        indices.retain(|i| keep[*i]);
    }
    ensure!(!tensors.is_empty(), "no tensors to stream");
    let vcd = match &a.vcd {
        Some(path) => {
            let t = vcd_out::pick(&tensors, a.vcd_tensor.as_deref(), a.vcd_blocks)?.head(a.vcd_blocks.saturating_mul(crate::engine_backend::BLOCK_BYTES))?;
            let (bytes, summary) = vcd_out::trace(&t, a.vcd_blocks, &clock)?;
            write_atomic(path, &bytes)?;
            ensure!(summary.errors == 0, "{}: {} traced blocks differ from the golden encoder", path.display(), summary.errors);
            Some(summary)
        }
        None => None,
    };
    let sim = if a.fidelity == Fidelity::Model { Simulator::RustHdl } else { Simulator::resolve(a.simulator)? };
    let r = stream::run(&tensors, &indices, input_tensors, shard, a.fidelity, a.sample_every, a.backpressure_seed, &sim, &clock, a.json)?;
    if let Some(p) = &a.out_json {
        write_atomic(p, serde_json::to_string_pretty(&r)?.as_bytes())?;
    }
    if a.json {
        let mut v = serde_json::to_value(&r)?;
        v["vcd"] = serde_json::to_value(&vcd)?;
        print_json(&v)?;
    } else {
        print!("{}", stream::render(&r, a.per_tensor));
        if let (Some(s), Some(p)) = (&vcd, &a.vcd) {
            println!("VCD: {} blocks of {} over {} cycles ({} ps per cycle) -> {}", s.blocks, s.tensor, s.cycles, s.period_ps, p.display());
        }
    }
    stream::check(&r)
}
