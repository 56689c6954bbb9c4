//! `sim-harness policies`: the paper's six memory policies (§IV "Policies": RECOMP, SWAP, DTE,
//! BW, BW+ZVC, PlaneZip) and the Fig. 5 ablations on the captured models (`data/MODEL/`,
//! docs/DUMP-FORMAT.md §2–3), at 30 % and 50 % of the unlimited-memory peak on platforms A and B
//! (`--budgets`: 30 % to 90 % in steps of 10, Fig. 4).
//!
//! Means are taken over the paper's five models ([`PAPER_MODELS`]), beside the paper's figures,
//! and separately over our other models (EfficientNet-Lite0, MiniLM); a policy that finds no plan
//! for a model is listed with its reason, never left out silently. Per run the report carries the
//! stall time, recompute time and swapped bytes, and [`Secondary`] the §V-C/D counts: DTE swapping
//! nothing, the compression-aware plan kept, the lowest budget within 5 % of full speed, and
//! PlaneZip's swapped bytes and recompute time against BW's.
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
use planner::policy::{Compression, FULL_SPEED_OVERHEAD, Policy, SweepCase, full_speed_budget, sweep};
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
/// Budgets of `--budgets` (Fig. 4: 30 % to 90 % of the peak in steps of 10).
pub const BUDGET_SWEEP: [f64; 7] = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
/// The five models of the paper (Table I); the paper's means are over these.
pub const PAPER_MODELS: [&str; 5] = ["resnet50", "densenet121", "efficientnet_b0", "vit_b16", "gpt2"];

/// Which models a mean is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum ModelGroup {
    /// The paper's five models ([`PAPER_MODELS`]), comparable with the paper's means.
    Paper,
    /// Our other models (EfficientNet-Lite0, MiniLM, ...), not in the paper.
    Ours,
}

impl ModelGroup {
    /// The group of `model`.
    pub fn of(model: &str) -> ModelGroup {
        if PAPER_MODELS.contains(&model) { ModelGroup::Paper } else { ModelGroup::Ours }
    }

    /// Label in the tables.
    pub fn label(self) -> &'static str {
        match self {
            ModelGroup::Paper => "the paper's five models",
            ModelGroup::Ours => "our other models",
        }
    }
}
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

/// The whole-model ratio of each codec configuration, by codec name (`zvc-f32`, `planezip-f32`,
/// `zvc-bf16`, `planezip-bf16`, `planezip-bf16-32bit`): [`saved_ratio`] of `trace` on the
/// codec's platform at the per-signature ratios of `tables`. This is the weighting the planner
/// sees — each signature's measured ratio carried by its full size at the training batch — and
/// the one the report's and `sample-check`'s ratio columns print.
pub fn model_ratios(trace: &Trace, tables: &Tables) -> BTreeMap<String, f64> {
    [
        ("zvc-f32", &tables.a_zvc, Platform::a()),
        ("planezip-f32", &tables.a_planezip, Platform::a()),
        ("zvc-bf16", &tables.b_zvc, Platform::b()),
        ("planezip-bf16", &tables.b_planezip, Platform::b()),
        ("planezip-bf16-32bit", &tables.b_planezip32, Platform::b()),
    ]
    .into_iter()
    .map(|(name, t, platform)| (name.to_owned(), saved_ratio(trace, t, &platform)))
    .collect()
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
    /// Overflow re-plans of the portfolio's members under the predictions (planner rows).
    pub member_replans: Option<usize>,
    /// Raw bytes swapped out.
    pub swapped_raw_bytes: Option<u64>,
    /// Bytes of those swap-outs on the link.
    pub swapped_wire_bytes: Option<u64>,
    /// Tensors the plan swaps.
    pub swapped_tensors: Option<usize>,
    /// Tensors the plan drops.
    pub dropped_tensors: Option<usize>,
    /// Time the compute stream waited for memory or prefetches, ms.
    pub stall_ms: Option<f64>,
    /// Time spent replaying ops for recomputation, ms.
    pub recompute_ms: Option<f64>,
    /// For the compressed planner rows: whether the portfolio kept a plan built with the predicted
    /// compressed sizes (`planner::plan::Member::is_compression_aware`).
    pub compression_aware_plan: Option<bool>,
    /// Why no plan ran.
    pub error: Option<String>,
}

/// A model for which a policy found no plan, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    /// Model name.
    pub model: String,
    /// The planner's or simulator's error.
    pub reason: String,
}

/// Mean overhead of one row on one platform and budget over one group of models: over the models
/// where it ran, with every model where it did not listed in `failed`.
#[derive(Clone, Debug, Serialize)]
pub struct Mean {
    /// Policy or ablation.
    pub row: Row,
    /// The models averaged over.
    pub group: ModelGroup,
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
    /// The models without a plan, with the reason.
    pub failed: Vec<Failure>,
    /// The paper's mean over its five models in %, where it gives one (for [`ModelGroup::Paper`]).
    pub paper_pct: Option<f64>,
}

/// A count over configurations (model, platform, budget) of the paper's five models.
#[derive(Clone, Debug, Serialize)]
pub struct Count {
    /// Configurations where the property holds.
    pub count: usize,
    /// Configurations where the policy ran.
    pub of: usize,
    /// Configurations where it found no plan.
    pub failed: usize,
}

/// §V-C "within 5 % of full speed down to X % of the peak" for one policy and platform.
#[derive(Clone, Debug, Serialize)]
pub struct FullSpeed {
    /// The policy.
    pub row: Row,
    /// Platform `A` or `B`.
    pub platform: String,
    /// Per model of the paper's five: X in % of the peak (linear interpolation between budgets,
    /// overhead 0 at 100 %), and whether X is only an upper bound (within 5 % at every budget run).
    pub per_model: BTreeMap<String, (f64, bool)>,
    /// Mean of `per_model`, % of the peak.
    pub mean_pct: Option<f64>,
    /// The paper's average, % of the peak, where it gives one.
    pub paper_pct: Option<f64>,
}

/// PlaneZip against BW on one platform and budget, summed over the paper's five models where both
/// ran (§V-D: "PlaneZip swaps 1.5× (A) and 2.1× (B) more bytes and spends 30 % (A) and 31 % (B)
/// less time on recomputation").
#[derive(Clone, Debug, Serialize)]
pub struct Versus {
    /// Platform `A` or `B`.
    pub platform: String,
    /// Budget as a fraction of the peak.
    pub budget_fraction: f64,
    /// Models summed over.
    pub models: usize,
    /// PlaneZip's swapped raw bytes.
    pub planezip_swapped_raw_bytes: u64,
    /// BW's swapped raw bytes.
    pub bw_swapped_raw_bytes: u64,
    /// PlaneZip's recompute time, ms.
    pub planezip_recompute_ms: f64,
    /// BW's recompute time, ms.
    pub bw_recompute_ms: f64,
}

/// Re-plans after a simulated overflow, summed over a row's runs.
#[derive(Clone, Debug, Serialize)]
pub struct Replans {
    /// Policy or ablation.
    pub row: Row,
    /// Runs with a plan.
    pub runs: usize,
    /// Runs that needed at least one re-plan.
    pub runs_replanned: usize,
    /// Re-plans in all.
    pub replans: usize,
    /// Overflow re-plans of portfolio members under the predictions, all runs together.
    pub member_replans: usize,
}

/// The secondary figures of §V-C/D, over the paper's five models and every platform and budget run.
#[derive(Clone, Debug, Serialize)]
pub struct Secondary {
    /// Budgets they were taken over.
    pub budgets: Vec<f64>,
    /// DTE plans that swap nothing (paper: 58 of 70).
    pub dte_swaps_nothing: Count,
    /// PlaneZip runs whose portfolio kept a compression-aware plan (paper: 67 of 70).
    pub compression_aware_kept: Count,
    /// Lowest budget within 5 % of full speed, per main policy and platform.
    pub full_speed: Vec<FullSpeed>,
    /// PlaneZip against BW per platform and budget.
    pub planezip_vs_bw: Vec<Versus>,
    /// Overflow re-plans per row (all models).
    pub replans: Vec<Replans>,
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
    /// Means over the paper's five models and over ours, per row, platform and budget.
    pub means: Vec<Mean>,
    /// The §V-C/D counts and comparisons.
    pub secondary: Secondary,
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
    crate::grid::dumps_under(&args.data)
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
            ratios: model_ratios(trace, &k1),
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

    let main_budgets: &[f64] = if args.budgets { &BUDGET_SWEEP } else { &BUDGETS };
    let mut points: Vec<(&Prepared, Row, f64)> = Vec::new();
    for p in &prepared {
        for row in Row::MAIN {
            points.extend(main_budgets.iter().map(|&f| (p, row, f)));
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
                member_replans: None,
                swapped_raw_bytes: None,
                swapped_wire_bytes: None,
                swapped_tensors: None,
                dropped_tensors: None,
                stall_ms: None,
                recompute_ms: None,
                compression_aware_plan: None,
                error: None,
            };
            match outcome {
                Ok(o) => {
                    run.compression_aware_plan = o.compression_aware_plan();
                    run.overhead_pct = Some(o.report.overhead() * 100.0);
                    run.iteration_ms = Some(o.report.iteration_ns / 1e6);
                    run.plan = Some(o.plan_label);
                    run.replans = Some(o.replans);
                    run.member_replans = o.member.map(|_| o.member_replans);
                    run.swapped_raw_bytes = Some(o.report.swapped_raw_bytes);
                    run.swapped_wire_bytes = Some(o.report.swapped_wire_bytes);
                    run.swapped_tensors = Some(o.report.swapped_tensors);
                    run.dropped_tensors = Some(o.report.dropped_tensors);
                    run.stall_ms = Some(o.report.stall_ns / 1e6);
                    run.recompute_ms = Some(o.report.recompute_ns / 1e6);
                }
                Err(e) => run.error = Some(e.to_string()),
            }
            run
        })
        .collect();
    runs.sort_by(|a, b| (&a.model, &a.platform, a.row).cmp(&(&b.model, &b.platform, b.row)).then(a.budget_fraction.total_cmp(&b.budget_fraction)));

    let rows: Vec<Row> = Row::MAIN.iter().chain(if args.no_ablations { &[][..] } else { &Row::ABLATIONS[..] }).copied().collect();
    let means = means(&runs, &rows, main_budgets);
    let secondary = secondary(&runs, &rows, main_budgets);
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
    Ok(Report { plan_iteration: PLAN_ITERATION, transfer_iteration: TRANSFER_ITERATION, models, runs, means, secondary, calibration })
}

/// Means per row, platform, budget and model group; failures listed, not averaged.
fn means(runs: &[Run], rows: &[Row], main_budgets: &[f64]) -> Vec<Mean> {
    let mut means = Vec::new();
    for &row in rows {
        let budgets: &[f64] = if Row::MAIN.contains(&row) { main_budgets } else { &[ABLATION_BUDGET] };
        for group in [ModelGroup::Paper, ModelGroup::Ours] {
            for platform in ["A", "B"] {
                for &f in budgets {
                    let of: Vec<&Run> = runs
                        .iter()
                        .filter(|r| r.row == row && r.platform == platform && r.budget_fraction == f && ModelGroup::of(&r.model) == group)
                        .collect();
                    if of.is_empty() {
                        continue;
                    }
                    let ok: Vec<f64> = of.iter().filter_map(|r| r.overhead_pct).collect();
                    let failed = of
                        .iter()
                        .filter(|r| r.overhead_pct.is_none())
                        .map(|r| Failure { model: r.model.clone(), reason: r.error.clone().unwrap_or_default() })
                        .collect();
                    means.push(Mean {
                        row,
                        group,
                        platform: platform.to_owned(),
                        budget_fraction: f,
                        overhead_pct: (!ok.is_empty()).then(|| ok.iter().sum::<f64>() / ok.len() as f64),
                        models: ok.len(),
                        of_models: of.len(),
                        failed,
                        paper_pct: if group == ModelGroup::Paper { row.paper_mean_pct(platform, f) } else { None },
                    });
                }
            }
        }
    }
    means
}

/// The paper's "within 5 % of full speed down to X %" average, % of the peak (§V-C).
fn paper_full_speed_pct(row: Row, platform: &str) -> Option<f64> {
    let b = platform == "B";
    match row {
        Row::PlaneZip => Some(if b { 59.0 } else { 43.0 }),
        Row::Bw => Some(if b { 67.0 } else { 54.0 }),
        Row::Dte => Some(if b { 75.0 } else { 64.0 }),
        _ => None,
    }
}

/// The §V-C/D counts over the paper's five models.
fn secondary(runs: &[Run], rows: &[Row], main_budgets: &[f64]) -> Secondary {
    let paper: Vec<&Run> = runs.iter().filter(|r| ModelGroup::of(&r.model) == ModelGroup::Paper).collect();
    let count = |row: Row, holds: &dyn Fn(&Run) -> bool| {
        let of: Vec<&&Run> = paper.iter().filter(|r| r.row == row && main_budgets.contains(&r.budget_fraction)).collect();
        let ran: Vec<&&&Run> = of.iter().filter(|r| r.overhead_pct.is_some()).collect();
        Count { count: ran.iter().filter(|r| holds(r)).count(), of: ran.len(), failed: of.len() - ran.len() }
    };
    let dte_swaps_nothing = count(Row::Dte, &|r| r.swapped_tensors == Some(0));
    let compression_aware_kept = count(Row::PlaneZip, &|r| r.compression_aware_plan == Some(true));
    let mut full_speed = Vec::new();
    for row in Row::MAIN {
        for platform in ["A", "B"] {
            let mut per_model = BTreeMap::new();
            for model in PAPER_MODELS {
                let points: Vec<(f64, Option<f64>)> = paper
                    .iter()
                    .filter(|r| r.model == model && r.row == row && r.platform == platform && main_budgets.contains(&r.budget_fraction))
                    .map(|r| (r.budget_fraction, r.overhead_pct.map(|o| o / 100.0)))
                    .collect();
                if !points.is_empty() {
                    let x = full_speed_budget(&points, FULL_SPEED_OVERHEAD);
                    per_model.insert(model.to_owned(), (x.fraction * 100.0, x.at_most));
                }
            }
            let mean_pct = (!per_model.is_empty()).then(|| per_model.values().map(|v| v.0).sum::<f64>() / per_model.len() as f64);
            full_speed.push(FullSpeed { row, platform: platform.to_owned(), per_model, mean_pct, paper_pct: paper_full_speed_pct(row, platform) });
        }
    }
    let mut planezip_vs_bw = Vec::new();
    for platform in ["A", "B"] {
        for &f in main_budgets {
            let mut v = Versus { platform: platform.to_owned(), budget_fraction: f, models: 0, planezip_swapped_raw_bytes: 0, bw_swapped_raw_bytes: 0, planezip_recompute_ms: 0.0, bw_recompute_ms: 0.0 };
            for model in PAPER_MODELS {
                let find = |row: Row| paper.iter().find(|r| r.model == model && r.row == row && r.platform == platform && r.budget_fraction == f);
                if let (Some(pz), Some(bw)) = (find(Row::PlaneZip), find(Row::Bw))
                    && let (Some(pz_bytes), Some(bw_bytes), Some(pz_ms), Some(bw_ms)) = (pz.swapped_raw_bytes, bw.swapped_raw_bytes, pz.recompute_ms, bw.recompute_ms)
                {
                    v.models += 1;
                    v.planezip_swapped_raw_bytes += pz_bytes;
                    v.bw_swapped_raw_bytes += bw_bytes;
                    v.planezip_recompute_ms += pz_ms;
                    v.bw_recompute_ms += bw_ms;
                }
            }
            planezip_vs_bw.push(v);
        }
    }
    let replans = rows
        .iter()
        .map(|&row| {
            let ran: Vec<&Run> = runs.iter().filter(|r| r.row == row && r.replans.is_some()).collect();
            Replans {
                row,
                runs: ran.len(),
                runs_replanned: ran.iter().filter(|r| r.replans > Some(0)).count(),
                replans: ran.iter().filter_map(|r| r.replans).sum(),
                member_replans: ran.iter().filter_map(|r| r.member_replans).sum(),
            }
        })
        .collect();
    Secondary { budgets: main_budgets.to_vec(), dte_swaps_nothing, compression_aware_kept, full_speed, planezip_vs_bw, replans }
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

    let budgets = &r.secondary.budgets;
    let columns: Vec<(&str, f64)> = ["A", "B"].iter().flat_map(|&p| budgets.iter().map(move |&f| (p, f))).collect();
    let pct = |f: f64| format!("{:.0}%", f * 100.0);
    let _ = writeln!(s, "Overhead per model (%; ablations at {} only)", pct(ABLATION_BUDGET));
    let _ = writeln!(s, "{:<20} {:<28} {}", "model", "policy", columns.iter().map(|&(p, f)| format!("{:>7}", format!("{p} {}", pct(f)))).collect::<Vec<_>>().join(" "));
    let find = |model: &str, row: Row, platform: &str, f: f64| r.runs.iter().find(|x| x.model == model && x.row == row && x.platform == platform && x.budget_fraction == f);
    let mut failures = Vec::new();
    for m in &r.models {
        for row in Row::MAIN.into_iter().chain(Row::ABLATIONS) {
            let mut cells = Vec::new();
            let mut any = false;
            for &(platform, f) in &columns {
                cells.push(match find(&m.model, row, platform, f) {
                    Some(run) => {
                        any = true;
                        if let Some(e) = &run.error {
                            failures.push(format!("{} {} {platform} {}: {e}", m.model, row.label(), pct(f)));
                            "fail".to_owned()
                        } else {
                            cell(run.overhead_pct)
                        }
                    }
                    None => "".to_owned(),
                });
            }
            if any {
                let _ = writeln!(s, "{:<20} {:<28} {}", m.model, row.label(), cells.iter().map(|c| format!("{c:>7}")).collect::<Vec<_>>().join(" "));
            }
        }
    }
    for f in &failures {
        let _ = writeln!(s, "  fail: {f}");
    }

    for group in [ModelGroup::Paper, ModelGroup::Ours] {
        let in_group: Vec<&Mean> = r.means.iter().filter(|m| m.group == group).collect();
        if in_group.is_empty() {
            continue;
        }
        let mut names: Vec<&str> = r.models.iter().map(|m| m.model.as_str()).filter(|m| ModelGroup::of(m) == group).collect();
        names.dedup();
        let paper = group == ModelGroup::Paper;
        if paper {
            let _ = writeln!(s, "\nMean overhead (%) over {} ({}), ours beside the paper's in brackets (\"-\": the paper gives none; paper: §V-C text at 50 %, Fig. 5 at 30 %)", group.label(), names.join(", "));
        } else {
            let _ = writeln!(s, "\nMean overhead (%) over {} ({}; not in the paper)", group.label(), names.join(", "));
        }
        let head = |p: &str, f: f64| if paper { format!("{p} {} (paper)", pct(f)) } else { format!("{p} {}", pct(f)) };
        let _ = writeln!(s, "{:<28} {}", "policy", columns.iter().map(|&(p, f)| format!("{:>14}", head(p, f))).collect::<Vec<_>>().join(" "));
        let mut notes = Vec::new();
        for row in Row::MAIN.into_iter().chain(Row::ABLATIONS) {
            let mut cells = Vec::new();
            let mut any = false;
            for &(platform, f) in &columns {
                let m = in_group.iter().find(|m| m.row == row && m.platform == platform && m.budget_fraction == f);
                any |= m.is_some();
                cells.push(m.map_or(String::new(), |m| {
                    let mut v = cell(m.overhead_pct);
                    if !m.failed.is_empty() {
                        v = format!("{v}*{}", m.failed.len());
                        for fail in &m.failed {
                            notes.push(format!("{} {platform} {}: no plan for {}: {}", row.label(), pct(f), fail.model, fail.reason));
                        }
                    }
                    if paper { format!("{v} ({})", cell(m.paper_pct)) } else { v }
                }));
            }
            if any {
                let _ = writeln!(s, "{:<28} {}", row.label(), cells.iter().map(|c| format!("{c:>14}")).collect::<Vec<_>>().join(" "));
            }
        }
        if !notes.is_empty() {
            let _ = writeln!(s, "(*N: mean over the models with a plan; N models failed:)");
            for n in notes {
                let _ = writeln!(s, "  {n}");
            }
        }
    }

    let _ = writeln!(s, "\nPer run: stall and recompute time (ms of the simulated iteration), swapped bytes (GB = 1e9 B, raw and on the link), tensors swapped/dropped, overflow re-plans");
    let _ = writeln!(s, "{:<20} {:<4} {:>6} {:<28} {:>8} {:>9} {:>10} {:>9} {:>9} {:>9} {:>4}  plan", "model", "plat", "budget", "policy", "ovh %", "stall ms", "recomp ms", "swap GB", "wire GB", "sw/dr", "rpl");
    let gb = |b: Option<u64>| b.map_or_else(|| "-".to_owned(), |b| format!("{:.3}", b as f64 / 1e9));
    for run in &r.runs {
        let counts = match (run.swapped_tensors, run.dropped_tensors) {
            (Some(sw), Some(dr)) => format!("{sw}/{dr}"),
            _ => "-".to_owned(),
        };
        let _ = writeln!(
            s,
            "{:<20} {:<4} {:>6} {:<28} {:>8} {:>9} {:>10} {:>9} {:>9} {:>9} {:>4}  {}",
            run.model,
            run.platform,
            pct(run.budget_fraction),
            run.row.label(),
            run.error.as_ref().map_or_else(|| cell(run.overhead_pct), |_| "fail".to_owned()),
            run.stall_ms.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}")),
            run.recompute_ms.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}")),
            gb(run.swapped_raw_bytes),
            gb(run.swapped_wire_bytes),
            counts,
            run.replans.map_or_else(|| "-".to_owned(), |v| v.to_string()),
            run.plan.as_deref().unwrap_or("-"),
        );
    }

    let sec = &r.secondary;
    let configs = format!("(model, platform, budget) configurations of the paper's five models at budgets {}", budgets.iter().map(|&f| pct(f)).collect::<Vec<_>>().join(", "));
    let _ = writeln!(s, "\nSecondary figures over the {configs}:");
    let c = &sec.dte_swaps_nothing;
    let _ = writeln!(s, "DTE swaps nothing in {} of {} configurations with a plan ({} without a plan) (paper: 58 of 70)", c.count, c.of, c.failed);
    let c = &sec.compression_aware_kept;
    let _ = writeln!(s, "PlaneZip keeps a compression-aware plan in {} of {} configurations with a plan ({} without a plan) (paper: 67 of 70)", c.count, c.of, c.failed);
    let _ = writeln!(s, "Within 5 % of full speed down to X % of the peak (linear interpolation between budgets, 0 % overhead at 100 %; \"<=\": within 5 % at every budget run):");
    for fs in &sec.full_speed {
        let models = fs.per_model.iter().map(|(m, &(x, at_most))| format!("{m} {}{x:.0}", if at_most { "<=" } else { "" })).collect::<Vec<_>>().join(", ");
        let bound = if fs.per_model.values().any(|v| v.1) { "<=" } else { "" };
        let _ = writeln!(
            s,
            "  {:<10} {}: mean {bound}{} % (paper {}) [{models}]",
            fs.row.label(),
            fs.platform,
            cell(fs.mean_pct),
            fs.paper_pct.map_or_else(|| "-".to_owned(), |p| format!("{p:.0} %")),
        );
    }
    let _ = writeln!(s, "PlaneZip against BW, summed over the paper's five models where both ran (paper, §V-D: 1.5x (A) and 2.1x (B) the swapped bytes, 30 % (A) and 31 % (B) less recompute time):");
    for v in &sec.planezip_vs_bw {
        let bytes_ratio = if v.bw_swapped_raw_bytes > 0 { format!("{:.2}x", v.planezip_swapped_raw_bytes as f64 / v.bw_swapped_raw_bytes as f64) } else { "-".to_owned() };
        let recompute = if v.bw_recompute_ms > 0.0 { format!("{:+.0} %", (v.planezip_recompute_ms / v.bw_recompute_ms - 1.0) * 100.0) } else { "-".to_owned() };
        let _ = writeln!(
            s,
            "  {} {}: {} models; swapped GB (raw): PlaneZip {:.2}, BW {:.2} ({bytes_ratio}); recompute ms: PlaneZip {:.1}, BW {:.1} ({recompute})",
            v.platform,
            pct(v.budget_fraction),
            v.models,
            v.planezip_swapped_raw_bytes as f64 / 1e9,
            v.bw_swapped_raw_bytes as f64 / 1e9,
            v.planezip_recompute_ms,
            v.bw_recompute_ms,
        );
    }
    let _ = writeln!(s, "Overflow re-plans (all models; the plan that ran, and in brackets the portfolio members' under the predictions):");
    for x in &sec.replans {
        let _ = writeln!(s, "  {:<28} {} in {} of {} runs ({})", x.row.label(), x.replans, x.runs_replanned, x.runs, x.member_replans);
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
