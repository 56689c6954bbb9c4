//! `sim-harness policies`: the paper's six memory policies (§IV "Policies": RECOMP, SWAP, DTE,
//! BW, BW+ZVC, PlaneZip) and the Fig. 5 ablations on the captured models (`data/MODEL/`,
//! docs/DUMP-FORMAT.md §2–3), at 30 % and 50 % of the unlimited-memory peak on platforms A and B.
//!
//! Protocol (§IV): each model's training trace (`trace-train.json`, the paper's batch) is
//! simulated by [`planner`]; the compressed policies plan with the ratios of captured iteration
//! [`PLAN_ITERATION`] (through the per-signature predictor) and transfer with those of iteration
//! [`TRANSFER_ITERATION`]. A signature's ratio is raw bytes / wire bytes of its sampled 4 KB chunks
//! under the golden codec (FORMAT.md §8 wire size: chunk headers, byte padding, raw-chunk fallback,
//! 3-bit tags for PlaneZip), applied to the tensor's full size on the platform. Platform A codes
//! the f32 data with 32-bit symbols; platform B codes its bf16 (RNE) conversion with 16-bit symbols
//! (32-bit for the "32-bit symbols" ablation). Saved tensors of the training trace without a
//! sampled counterpart keep ratio 1; their share of the saved bytes is reported.

use crate::cli::PoliciesArgs;
use crate::convert::f32_to_bf16_bytes;
use crate::dump::Dump;
use crate::ratios::measure;
use anyhow::{Context, Result, bail};
use engine::golden::SymbolWidth;
use planner::platform::Platform;
use planner::policy::{Compression, Policy, SweepCase, sweep};
use planner::predictor::{Predictor, SignatureKind};
use planner::ratios::RatioTable;
use planner::trace::{Dtype, Producer, TensorKind, Trace};
use planner::workload::Workload;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Captured iteration whose ratios the planner sees (k).
pub const PLAN_ITERATION: usize = 1;
/// Captured iteration whose ratios the transfers have (k+1).
pub const TRANSFER_ITERATION: usize = 2;
/// Budgets of the main table, as fractions of the unlimited-memory peak.
pub const BUDGETS: [f64; 2] = [0.3, 0.5];
/// Budget of the Fig. 5 ablations, as a fraction of the peak.
pub const ABLATION_BUDGET: f64 = 0.3;
/// ResNet-50 at batch 128 on platform B with unlimited memory: the paper's modelled throughput, images/s.
pub const PAPER_RESNET50_B_IMAGES_PER_S: f64 = 2_529.0;
/// NVIDIA's published ResNet-50 A100 mixed-precision training throughput the paper compares with, images/s.
pub const NVIDIA_RESNET50_A100_IMAGES_PER_S: f64 = 2_470.0;

/// A row of the table: one of the six policies, or a Fig. 5 ablation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Row {
    /// RECOMP: recomputation only (DTR heuristic).
    Recomp,
    /// SWAP: swapping only, vDNN-like.
    Swap,
    /// DTE: MegTaiChi's Eq. 1, raw transfers.
    Dte,
    /// BW: the planner without compression.
    Bw,
    /// BW+ZVC: the planner with the ZVC codec.
    BwZvc,
    /// PlaneZip: the planner with the PlaneZip codec.
    PlaneZip,
    /// Ablation: DTE with compressed transfer times (PlaneZip codec).
    DteCompressed,
    /// Ablation: BW's plan with PlaneZip-compressed transfers.
    BwUnaware,
    /// Ablation: PlaneZip coding bf16 with 32-bit symbols (identical to PlaneZip on FP32 platform A).
    PlaneZip32,
    /// Ablation: PlaneZip with the op-type predictor.
    PlaneZipOpType,
    /// Ablation: PlaneZip planning with iteration k+1's true ratios.
    PlaneZipOracle,
}

impl Row {
    /// The six policies of Fig. 4.
    pub const MAIN: [Row; 6] = [Row::Recomp, Row::Swap, Row::Dte, Row::Bw, Row::BwZvc, Row::PlaneZip];
    /// The Fig. 5 ablations not already in [`Row::MAIN`].
    pub const ABLATIONS: [Row; 5] = [Row::DteCompressed, Row::BwUnaware, Row::PlaneZip32, Row::PlaneZipOpType, Row::PlaneZipOracle];

    /// Label in the tables.
    pub fn label(self) -> &'static str {
        match self {
            Row::Recomp => "RECOMP",
            Row::Swap => "SWAP",
            Row::Dte => "DTE",
            Row::Bw => "BW",
            Row::BwZvc => "BW+ZVC",
            Row::PlaneZip => "PlaneZip",
            Row::DteCompressed => "DTE + compression",
            Row::BwUnaware => "BW + codec, unaware plan",
            Row::PlaneZip32 => "PlaneZip, 32-bit symbols",
            Row::PlaneZipOpType => "PlaneZip, op-type predictor",
            Row::PlaneZipOracle => "PlaneZip, oracle ratios",
        }
    }

    /// The planner policy this row runs.
    pub fn policy(self) -> Policy {
        match self {
            Row::Recomp => Policy::Recomp,
            Row::Swap => Policy::Swap,
            Row::Dte => Policy::Dte,
            Row::Bw => Policy::Bw,
            Row::DteCompressed => Policy::DteCompressed,
            Row::BwUnaware => Policy::CompressionUnaware,
            Row::BwZvc | Row::PlaneZip | Row::PlaneZip32 | Row::PlaneZipOpType | Row::PlaneZipOracle => Policy::CompressionAware,
        }
    }

    /// The paper's mean overhead in % over its five models (§V-C text for 50 %, Fig. 5 for 30 %),
    /// for `platform` `A` or `B` and `budget` 0.3 or 0.5; `None` where the paper gives no number.
    pub fn paper_mean_pct(self, platform: &str, budget: f64) -> Option<f64> {
        let b = platform == "B";
        let at_50 = (budget - 0.5).abs() < 1e-9;
        let at_30 = (budget - 0.3).abs() < 1e-9;
        let pick = |a: f64, bb: f64| Some(if b { bb } else { a });
        match (self, at_50, at_30) {
            (Row::Recomp, true, _) => pick(14.1, 19.6),
            // "SWAP alone slows training by 2.8x (A) and 5.1x (B)".
            (Row::Swap, true, _) => pick(180.0, 410.0),
            (Row::Dte, true, _) => pick(13.3, 19.6),
            (Row::Bw, true, _) => pick(6.7, 13.0),
            (Row::BwZvc, true, _) => pick(4.1, 10.5),
            (Row::PlaneZip, true, _) => pick(3.5, 9.0),
            (Row::Dte, _, true) => pick(24.4, 41.7),
            (Row::DteCompressed, _, true) => pick(21.3, 30.6),
            (Row::Bw, _, true) => pick(17.4, 33.2),
            (Row::BwUnaware, _, true) => pick(17.1, 33.0),
            (Row::BwZvc, _, true) => pick(14.7, 30.1),
            (Row::PlaneZip32, _, true) => pick(12.2, 24.2),
            (Row::PlaneZipOpType, _, true) => pick(12.7, 24.8),
            (Row::PlaneZip, _, true) => pick(12.2, 23.7),
            (Row::PlaneZipOracle, _, true) => pick(12.2, 23.7),
            _ => None,
        }
    }
}

/// Raw and wire bytes of the sampled saved activations of one iteration under each codec
/// configuration, keyed by training-trace signature.
#[derive(Clone, Debug, Default)]
pub struct Tables {
    /// Platform A: ZVC on the f32 data, 32-bit symbols.
    pub a_zvc: RatioTable,
    /// Platform A: PlaneZip on the f32 data, 32-bit symbols.
    pub a_planezip: RatioTable,
    /// Platform B: ZVC on the bf16 (RNE) data, 16-bit symbols.
    pub b_zvc: RatioTable,
    /// Platform B: PlaneZip on the bf16 data, 16-bit symbols.
    pub b_planezip: RatioTable,
    /// Platform B: PlaneZip on the bf16 data, 32-bit symbols (ablation).
    pub b_planezip32: RatioTable,
}

/// Measures every sampled saved activation of iteration `k` of `dump` and files the sizes under
/// the training-trace signatures that `metadata.json`'s `match.map` maps to it.
pub fn measure_iteration(dump: &Dump, k: usize) -> Result<Tables> {
    let blocks = dump.read_iteration(k)?;
    let mut by_capture: BTreeMap<String, [(u64, u64); 5]> = BTreeMap::new();
    for b in &blocks {
        let natural = match b.dtype {
            Dtype::F16 | Dtype::Bf16 => SymbolWidth::W16,
            _ => SymbolWidth::W32,
        };
        let (a_wire, _) = measure(&b.data, natural);
        // Platform B narrows floats to bf16; other dtypes keep their bytes and width.
        let (b_bytes, b_width) = if b.dtype == Dtype::F32 { (f32_to_bf16_bytes(&b.data), SymbolWidth::W16) } else { (b.data.clone(), natural) };
        let (b_wire, _) = measure(&b_bytes, b_width);
        let (b_wire32, _) = measure(&b_bytes, SymbolWidth::W32);
        let (ra, rb) = (b.data.len() as u64, b_bytes.len() as u64);
        let w = |x: usize| x as u64;
        by_capture.insert(
            b.signature.to_string(),
            [(ra, w(a_wire.zvc)), (ra, w(a_wire.planezip)), (rb, w(b_wire.zvc)), (rb, w(b_wire.planezip)), (rb, w(b_wire32.planezip))],
        );
    }
    let mut t = Tables {
        a_zvc: RatioTable::new("zvc-f32"),
        a_planezip: RatioTable::new("planezip-f32"),
        b_zvc: RatioTable::new("zvc-bf16"),
        b_planezip: RatioTable::new("planezip-bf16"),
        b_planezip32: RatioTable::new("planezip-bf16-32bit"),
    };
    let meta = dump.dir.join("metadata.json");
    for (train_sig, capture_sig) in &dump.metadata.matching.map {
        let sig: Producer = train_sig.parse().map_err(|e| anyhow::anyhow!("{}: match.map: {e}", meta.display()))?;
        let Some(m) = by_capture.get(capture_sig) else { continue };
        for (table, &(raw, wire)) in [&mut t.a_zvc, &mut t.a_planezip, &mut t.b_zvc, &mut t.b_planezip, &mut t.b_planezip32].into_iter().zip(m) {
            table.insert(sig, raw, wire);
        }
    }
    Ok(t)
}

/// The sizes every row plans and transfers with on workload `w` (built from `trace`), given each
/// codec's (iteration k, iteration k+1) tables: ZVC, PlaneZip and PlaneZip with 32-bit symbols.
pub fn row_compressions(
    trace: &Trace,
    w: &Workload,
    zvc: (&RatioTable, &RatioTable),
    pz: (&RatioTable, &RatioTable),
    pz32: (&RatioTable, &RatioTable),
) -> BTreeMap<Row, Compression> {
    let predicted = |kind: SignatureKind, (now, next): (&RatioTable, &RatioTable)| {
        let mut p = Predictor::new(kind);
        p.profile(trace, now);
        Compression::predicted(trace, w, &p, next)
    };
    let none = Compression::none(w);
    let planezip = predicted(SignatureKind::PerTensor, pz);
    let mut compressions = BTreeMap::new();
    for row in [Row::Recomp, Row::Swap, Row::Dte, Row::Bw] {
        compressions.insert(row, none.clone());
    }
    compressions.insert(Row::BwZvc, predicted(SignatureKind::PerTensor, zvc));
    compressions.insert(Row::PlaneZip32, predicted(SignatureKind::PerTensor, pz32));
    compressions.insert(Row::PlaneZipOpType, predicted(SignatureKind::OpType, pz));
    compressions.insert(Row::PlaneZipOracle, Compression::oracle(trace, w, pz.1));
    for row in [Row::PlaneZip, Row::DteCompressed, Row::BwUnaware] {
        compressions.insert(row, planezip.clone());
    }
    compressions
}

/// Ratio of all saved activations of `trace` on `platform` as the simulator sees them: their
/// bytes on the platform over their wire bytes at the table's per-signature ratios (1 where the
/// table has no entry).
fn saved_ratio(trace: &Trace, table: &RatioTable, platform: &Platform) -> f64 {
    let (mut raw, mut wire) = (0.0f64, 0.0f64);
    for t in trace.tensors.iter().filter(|t| t.kind == TensorKind::SavedActivation) {
        let bytes = platform.scaled_bytes(t.bytes, t.dtype) as f64;
        raw += bytes;
        wire += bytes / t.producer.and_then(|p| table.get(p)).map_or(1.0, |e| e.ratio());
    }
    if wire == 0.0 { 1.0 } else { raw / wire }
}

/// Share of the training trace's saved-activation bytes without a measurement in `table`.
fn unmatched_share(trace: &Trace, table: &RatioTable) -> f64 {
    let (mut total, mut unmatched) = (0u64, 0u64);
    for t in trace.tensors.iter().filter(|t| t.kind == TensorKind::SavedActivation) {
        total += t.bytes;
        if t.producer.and_then(|p| table.get(p)).is_none() {
            unmatched += t.bytes;
        }
    }
    if total == 0 { 0.0 } else { unmatched as f64 / total as f64 }
}

/// One model's facts for the report.
#[derive(Clone, Debug, Serialize)]
pub struct ModelSummary {
    /// Model name.
    pub model: String,
    /// The dump directory.
    pub dir: PathBuf,
    /// Samples per iteration of the training trace.
    pub batch: u64,
    /// Ops of the training trace.
    pub ops: usize,
    /// Saved activations of the training trace.
    pub saved_tensors: usize,
    /// Share of the training trace's saved bytes without a sampled counterpart (ratio 1), in [0, 1].
    pub unmatched_saved_bytes_share: f64,
    /// Ratio (raw / wire) of all saved activations on the codec's platform at the transfer
    /// iteration's per-signature ratios, weighted by their bytes, by codec name.
    pub ratios: BTreeMap<String, f64>,
    /// Per platform (`A`, `B`): unlimited-memory iteration time in ms.
    pub unlimited_ms: BTreeMap<String, f64>,
    /// Per platform: unlimited-memory throughput in samples (images or sequences) per second.
    pub unlimited_samples_per_s: BTreeMap<String, f64>,
    /// Per platform: unlimited-memory peak of counted activation memory, bytes.
    pub peak_bytes: BTreeMap<String, u64>,
}

/// One simulated point.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    /// Model name.
    pub model: String,
    /// Platform `A` or `B`.
    pub platform: String,
    /// Policy or ablation.
    pub row: Row,
    /// Budget as a fraction of the unlimited peak.
    pub budget_fraction: f64,
    /// Budget in bytes.
    pub budget_bytes: u64,
    /// Overhead against unlimited memory in % (`iteration / unlimited - 1`), `None` if no plan ran.
    pub overhead_pct: Option<f64>,
    /// Simulated iteration time in ms, `None` if no plan ran.
    pub iteration_ms: Option<f64>,
    /// Which plan ran (portfolio member label for the planner policies).
    pub plan: Option<String>,
    /// Re-plans with a tighter target before the plan fitted.
    pub replans: Option<usize>,
    /// Raw bytes swapped out.
    pub swapped_raw_bytes: Option<u64>,
    /// Bytes of those swap-outs on the link.
    pub swapped_wire_bytes: Option<u64>,
    /// Why no plan ran.
    pub error: Option<String>,
}

/// Mean overhead of one row on one platform and budget over the models where it ran.
#[derive(Clone, Debug, Serialize)]
pub struct Mean {
    /// Policy or ablation.
    pub row: Row,
    /// Platform `A` or `B`.
    pub platform: String,
    /// Budget as a fraction of the unlimited peak.
    pub budget_fraction: f64,
    /// Mean overhead in %, `None` if it ran on no model.
    pub overhead_pct: Option<f64>,
    /// Models that produced a plan.
    pub models: usize,
    /// Models tried.
    pub of_models: usize,
    /// The paper's mean over its five models in %, where it gives one.
    pub paper_pct: Option<f64>,
}

/// The ResNet-50 calibration point (§IV).
#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    /// Batch of the ResNet-50 training trace.
    pub batch: u64,
    /// Modelled throughput on platform B with unlimited memory, images/s.
    pub images_per_s: f64,
    /// The paper's figure, images/s.
    pub paper_images_per_s: f64,
    /// NVIDIA's figure, images/s.
    pub nvidia_images_per_s: f64,
    /// Deviation from the paper's figure, % (ours / paper - 1).
    pub vs_paper_pct: f64,
}

/// Everything `policies` measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Iteration whose ratios the planner used.
    pub plan_iteration: usize,
    /// Iteration whose ratios the transfers had.
    pub transfer_iteration: usize,
    /// Per model.
    pub models: Vec<ModelSummary>,
    /// Every simulated point, by model, platform, row, budget.
    pub runs: Vec<Run>,
    /// Means over the models.
    pub means: Vec<Mean>,
    /// ResNet-50 calibration, if ResNet-50 is among the models.
    pub calibration: Option<Calibration>,
}

/// One model on one platform, with the sizes each row uses.
struct Prepared {
    model: String,
    platform: String,
    workload: Workload,
    compressions: BTreeMap<Row, Compression>,
}

/// The dump directories `args` names, or every model under `args.data`.
fn model_dirs(args: &PoliciesArgs) -> Result<Vec<PathBuf>> {
    if !args.models.is_empty() {
        return Ok(args.models.clone());
    }
    let entries = std::fs::read_dir(&args.data).with_context(|| format!("{}: cannot list model dumps", args.data.display()))?;
    let mut dirs = Vec::new();
    for e in entries {
        let p = e.with_context(|| format!("{}: cannot list model dumps", args.data.display()))?.path();
        if p.join("trace.json").is_file() {
            dirs.push(p);
        }
    }
    dirs.sort();
    if dirs.is_empty() {
        bail!("{}: no model dumps (directories holding trace.json)", args.data.display());
    }
    Ok(dirs)
}

/// Runs the sweep the arguments describe.
pub fn evaluate(args: &PoliciesArgs) -> Result<Report> {
    let mut models = Vec::new();
    let mut prepared = Vec::new();
    for dir in model_dirs(args)? {
        let d = Dump::open(&dir).with_context(|| format!("model dump {}", dir.display()))?;
        if d.iterations() <= TRANSFER_ITERATION {
            bail!("{}: {} captured iterations, the protocol needs iterations {PLAN_ITERATION} and {TRANSFER_ITERATION}", dir.display(), d.iterations());
        }
        let k = measure_iteration(&d, PLAN_ITERATION)?;
        let k1 = measure_iteration(&d, TRANSFER_ITERATION)?;
        let trace = &d.train_trace;
        let mut summary = ModelSummary {
            model: d.metadata.model.clone(),
            dir: dir.clone(),
            batch: trace.batch,
            ops: trace.ops.len(),
            saved_tensors: trace.tensors.iter().filter(|t| t.kind == TensorKind::SavedActivation).count(),
            unmatched_saved_bytes_share: unmatched_share(trace, &k1.a_planezip),
            ratios: [
                ("zvc-f32", &k1.a_zvc, Platform::a()),
                ("planezip-f32", &k1.a_planezip, Platform::a()),
                ("zvc-bf16", &k1.b_zvc, Platform::b()),
                ("planezip-bf16", &k1.b_planezip, Platform::b()),
                ("planezip-bf16-32bit", &k1.b_planezip32, Platform::b()),
            ]
            .into_iter()
            .map(|(name, t, platform)| (name.to_owned(), saved_ratio(trace, t, &platform)))
            .collect(),
            unlimited_ms: BTreeMap::new(),
            unlimited_samples_per_s: BTreeMap::new(),
            peak_bytes: BTreeMap::new(),
        };
        for (platform, zvc, pz, pz32) in [
            (Platform::a(), (&k.a_zvc, &k1.a_zvc), (&k.a_planezip, &k1.a_planezip), (&k.a_planezip, &k1.a_planezip)),
            (Platform::b(), (&k.b_zvc, &k1.b_zvc), (&k.b_planezip, &k1.b_planezip), (&k.b_planezip32, &k1.b_planezip32)),
        ] {
            let w = Workload::new(trace, &platform);
            let compressions = row_compressions(trace, &w, zvc, pz, pz32);
            let unlimited_ns = w.unlimited_ns();
            summary.unlimited_ms.insert(platform.name.clone(), unlimited_ns / 1e6);
            summary.unlimited_samples_per_s.insert(platform.name.clone(), trace.batch as f64 * 1e9 / unlimited_ns);
            summary.peak_bytes.insert(platform.name.clone(), w.peak_bytes);
            prepared.push(Prepared { model: summary.model.clone(), platform: platform.name.clone(), workload: w, compressions });
        }
        models.push(summary);
    }

    let mut points: Vec<(&Prepared, Row, f64)> = Vec::new();
    for p in &prepared {
        for row in Row::MAIN {
            points.extend(BUDGETS.iter().map(|&f| (p, row, f)));
        }
        if !args.no_ablations {
            points.extend(Row::ABLATIONS.iter().map(|&row| (p, row, ABLATION_BUDGET)));
        }
    }
    let cases: Vec<SweepCase> = points
        .iter()
        .map(|&(p, row, f)| SweepCase { workload: &p.workload, compression: &p.compressions[&row], policy: row.policy(), budget_fraction: f })
        .collect();
    let outcomes = sweep(&cases);
    let mut runs: Vec<Run> = points
        .iter()
        .zip(outcomes)
        .map(|(&(p, row, f), outcome)| {
            let mut run = Run {
                model: p.model.clone(),
                platform: p.platform.clone(),
                row,
                budget_fraction: f,
                budget_bytes: p.workload.budget_for_fraction(f),
                overhead_pct: None,
                iteration_ms: None,
                plan: None,
                replans: None,
                swapped_raw_bytes: None,
                swapped_wire_bytes: None,
                error: None,
            };
            match outcome {
                Ok(o) => {
                    run.overhead_pct = Some(o.report.overhead() * 100.0);
                    run.iteration_ms = Some(o.report.iteration_ns / 1e6);
                    run.plan = Some(o.plan_label);
                    run.replans = Some(o.replans);
                    run.swapped_raw_bytes = Some(o.report.swapped_raw_bytes);
                    run.swapped_wire_bytes = Some(o.report.swapped_wire_bytes);
                }
                Err(e) => run.error = Some(e.to_string()),
            }
            run
        })
        .collect();
    runs.sort_by(|a, b| (&a.model, &a.platform, a.row).cmp(&(&b.model, &b.platform, b.row)).then(a.budget_fraction.total_cmp(&b.budget_fraction)));

    let mut means = Vec::new();
    let rows: Vec<Row> = Row::MAIN.iter().chain(if args.no_ablations { &[][..] } else { &Row::ABLATIONS[..] }).copied().collect();
    for row in rows {
        let budgets: &[f64] = if Row::MAIN.contains(&row) { &BUDGETS } else { &[ABLATION_BUDGET] };
        for platform in ["A", "B"] {
            for &f in budgets {
                let of: Vec<&Run> = runs.iter().filter(|r| r.row == row && r.platform == platform && r.budget_fraction == f).collect();
                let ok: Vec<f64> = of.iter().filter_map(|r| r.overhead_pct).collect();
                means.push(Mean {
                    row,
                    platform: platform.to_owned(),
                    budget_fraction: f,
                    overhead_pct: (!ok.is_empty()).then(|| ok.iter().sum::<f64>() / ok.len() as f64),
                    models: ok.len(),
                    of_models: of.len(),
                    paper_pct: row.paper_mean_pct(platform, f),
                });
            }
        }
    }
    let calibration = models.iter().find(|m| m.model == "resnet50").map(|m| {
        let images_per_s = m.unlimited_samples_per_s["B"];
        Calibration {
            batch: m.batch,
            images_per_s,
            paper_images_per_s: PAPER_RESNET50_B_IMAGES_PER_S,
            nvidia_images_per_s: NVIDIA_RESNET50_A100_IMAGES_PER_S,
            vs_paper_pct: (images_per_s / PAPER_RESNET50_B_IMAGES_PER_S - 1.0) * 100.0,
        }
    });
    Ok(Report { plan_iteration: PLAN_ITERATION, transfer_iteration: TRANSFER_ITERATION, models, runs, means, calibration })
}

fn cell(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |x| format!("{x:.1}"))
}

/// The report as text tables.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Memory policies on captured models: overhead = simulated iteration time / unlimited-memory time - 1, in %.\n\
         Simulated by the planner's trace-driven simulator on each model's training trace (trace-train.json, the paper's batch),\n\
         platforms A (RTX 2080 Ti model, FP32, PCIe 3.0) and B (A100 model, BF16, PCIe 4.0); budget = fraction of the unlimited peak.\n\
         Ratios: golden codec on the sampled 4 KB chunks; plan with iteration {}, transfer with iteration {}.\n",
        r.plan_iteration, r.transfer_iteration
    );
    let _ = writeln!(s, "{:<20} {:>6} {:>9} {:>7} {:>10} {:>10} {:>10} {:>10} {:>9}", "model", "batch", "ops", "saved", "A ms", "B ms", "PZ f32", "PZ bf16", "unmatched");
    for m in &r.models {
        let _ = writeln!(
            s,
            "{:<20} {:>6} {:>9} {:>7} {:>10.2} {:>10.2} {:>9.2}x {:>9.2}x {:>8.1}%",
            m.model, m.batch, m.ops, m.saved_tensors, m.unlimited_ms["A"], m.unlimited_ms["B"], m.ratios["planezip-f32"], m.ratios["planezip-bf16"],
            m.unmatched_saved_bytes_share * 100.0
        );
    }
    let _ = writeln!(s, "(A ms / B ms: unlimited-memory iteration; PZ: PlaneZip ratio of all saved bytes at iteration {}'s per-signature ratios; unmatched: share of saved bytes kept at ratio 1)\n", r.transfer_iteration);

    let _ = writeln!(s, "Overhead per model (%)");
    let _ = writeln!(s, "{:<20} {:<28} {:>7} {:>7} {:>7} {:>7}", "model", "policy", "A 30%", "A 50%", "B 30%", "B 50%");
    let find = |model: &str, row: Row, platform: &str, f: f64| r.runs.iter().find(|x| x.model == model && x.row == row && x.platform == platform && x.budget_fraction == f);
    let mut failures = Vec::new();
    for m in &r.models {
        for row in Row::MAIN.into_iter().chain(Row::ABLATIONS) {
            let mut cells = Vec::new();
            let mut any = false;
            for (platform, f) in [("A", 0.3), ("A", 0.5), ("B", 0.3), ("B", 0.5)] {
                cells.push(match find(&m.model, row, platform, f) {
                    Some(run) => {
                        any = true;
                        if let Some(e) = &run.error {
                            failures.push(format!("{} {} {platform} {:.0}%: {e}", m.model, row.label(), f * 100.0));
                            "fail".to_owned()
                        } else {
                            cell(run.overhead_pct)
                        }
                    }
                    None => "".to_owned(),
                });
            }
            if any {
                let _ = writeln!(s, "{:<20} {:<28} {:>7} {:>7} {:>7} {:>7}", m.model, row.label(), cells[0], cells[1], cells[2], cells[3]);
            }
        }
    }
    for f in &failures {
        let _ = writeln!(s, "  fail: {f}");
    }

    let _ = writeln!(s, "\nMean overhead over {} model(s) (%), beside the paper's means over its five models (paper: §V-C text at 50 %, Fig. 5 at 30 %)", r.models.len());
    let _ = writeln!(s, "{:<28} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}", "policy", "A 30%", "paper", "A 50%", "paper", "B 30%", "paper", "B 50%", "paper");
    for row in Row::MAIN.into_iter().chain(Row::ABLATIONS) {
        let mut cells = Vec::new();
        let mut any = false;
        for (platform, f) in [("A", 0.3), ("A", 0.5), ("B", 0.3), ("B", 0.5)] {
            let m = r.means.iter().find(|m| m.row == row && m.platform == platform && m.budget_fraction == f);
            any |= m.is_some();
            let ours = m.map_or(String::new(), |m| {
                let v = cell(m.overhead_pct);
                if m.models < m.of_models { format!("{v}*") } else { v }
            });
            cells.push(ours);
            cells.push(cell(row.paper_mean_pct(platform, f)));
        }
        if any {
            let _ = writeln!(s, "{:<28} {}", row.label(), cells.iter().map(|c| format!("{c:>7}")).collect::<Vec<_>>().join(" "));
        }
    }
    if r.means.iter().any(|m| m.models < m.of_models) {
        let _ = writeln!(s, "(* mean over the models where the policy produced a plan)");
    }
    match &r.calibration {
        Some(c) => {
            let _ = writeln!(
                s,
                "\nCalibration: ResNet-50, batch {}, platform B, unlimited memory: {:.0} images/s (paper {:.0}, {:+.1} %; NVIDIA reports {:.0})",
                c.batch, c.images_per_s, c.paper_images_per_s, c.vs_paper_pct, c.nvidia_images_per_s
            );
        }
        None => {
            let _ = writeln!(s, "\nCalibration: ResNet-50 not among the models.");
        }
    }
    s
}

/// `sim-harness policies`: evaluates and prints text or JSON.
pub fn run(args: &PoliciesArgs) -> Result<()> {
    let report = evaluate(args)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
    }
    Ok(())
}
