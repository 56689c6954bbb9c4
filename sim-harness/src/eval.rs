//! The default run: the paper's whole evaluation (§V) on the model dumps, one report.
//!
//! * Fig. 3: ratio per model × codec in BF16 and FP32 (iteration 0, all saved activations,
//!   byte-weighted), geometric means over the paper's five models and, separately, ours.
//! * Table III: ratio and most chosen code by producing operator (BF16, the paper's five models).
//! * Table IV: PlaneZip BF16 ratio per iteration; wire-size error of the tensor, op-type and
//!   global predictors (profiled on iteration 1, predicting iteration 2).
//! * Engine: clock and its source, GB/s per direction, latency per transfer size, blocks by code,
//!   from the engine backend that ran (checked against the golden codec).
//! * Fig. 4: overhead per policy at budgets 30–90 % on platforms A and B, with the reductions of
//!   PlaneZip against BW and DTE at 50 %; repeated with the measured engine.
//! * Fig. 5: the ablations at 30 %. Fig. 6: link and engine sensitivity at 50 % on platform B.

use crate::clock::{self, EngineClock};
use crate::cli::EvalArgs;
use crate::dump::Dump;
use crate::engine_backend::cycle::CycleBackend;
use crate::engine_backend::model::{d2h_cycles, h2d_model_cycles};
use crate::engine_backend::{CHUNK_BYTES, EngineBackend, Fidelity, LANE_BEAT_BYTES, LANES_PER_DIRECTION, MeasuredEngine, Simulator, SimulatorChoice, busiest_lane_bytes, d2h_model_cycles, hw};
use crate::grid::{self, CellMean, GridResult, GridSpec, find_mean};
use crate::inputs::{NamedTensor, StreamTensor, dtype_label};
use crate::measure::{self, CODECS, CODES, ModelIteration, PLANEZIP, Precision, geomean, is_paper_model};
use crate::policies::Row;
use crate::stream::{self, StreamReport};
use crate::{convert, progress};
use anyhow::{Context, Result};
use engine::golden::SymbolWidth;
use planner::platform::Platform;
use planner::predictor::SignatureKind;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// Budgets of Fig. 4.
pub const FIG4_BUDGETS: [f64; 7] = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
/// Budget of the Fig. 4 reductions and of Fig. 6.
pub const MID_BUDGET: f64 = 0.5;
/// Budget of Fig. 5.
pub const ABLATION_BUDGET: f64 = 0.3;
/// Fig. 6a links, GB/s per direction (engine four times the link).
pub const FIG6_LINKS_GBPS: [f64; 5] = [12.0, 24.0, 48.0, 96.0, 192.0];
/// Fig. 6a engine-to-link speed ratio.
pub const FIG6_ENGINE_PER_LINK: f64 = 4.0;
/// Fig. 6b engines, GB/s per direction (from the link's 24 GB/s up).
pub const FIG6_ENGINES_GBPS: [f64; 6] = [24.0, 32.0, 48.0, 64.0, 96.0, 128.0];
/// Fig. 6b link, GB/s per direction.
pub const FIG6_LINK_GBPS: f64 = 24.0;
/// Chunks the default `sampled` run sends through `pz_engine` on the rust-hdl simulation (about
/// 140 simulated cycles/s: some 500 cycles per one-chunk round trip, ≈ 30 s on 2 cores).
pub const DEFAULT_SAMPLED_CHUNKS: usize = 16;
/// Transfer sizes of the latency table, bytes.
pub const LATENCY_SIZES: [usize; 5] = [128, 4096, 65_536, 1 << 20, 16 << 20];
/// The paper's engine assumption (Table II), GB/s per direction.
pub const PAPER_ENGINE_GBPS: f64 = 64.0;

/// The paper's Fig. 3 BF16 PlaneZip ratio per model (labels of Fig. 3 = Table IV iteration 1).
pub fn paper_fig3_bf16(model: &str) -> Option<f64> {
    Some(match model {
        "resnet50" => 1.88,
        "densenet121" => 2.14,
        "efficientnet_b0" => 1.40,
        "vit_b16" => 1.31,
        "gpt2" => 1.97,
        _ => return None,
    })
}

/// The paper's Fig. 3 geometric means over its five models (§V-A), by precision and codec index.
pub fn paper_fig3_geomean(p: Precision, codec: usize) -> Option<f64> {
    match (p, codec) {
        (Precision::Bf16, 0) => Some(1.18),
        (Precision::Bf16, 1) => Some(1.50),
        (Precision::Bf16, 4) => Some(1.71),
        (Precision::Fp32, 4) => Some(1.39),
        _ => None,
    }
}

/// The paper's Table III: (category, share range %, ZVC, BX, PlaneZip, top code and its share).
pub const PAPER_TABLE3: [(&str, &str, f64, f64, f64, &str); 11] = [
    ("Conv output", "18-52", 1.00, 1.43, 1.45, "BX (74%)"),
    ("Elementwise", "26-39", 1.00, 1.33, 1.33, "BX (88%)"),
    ("ReLU output", "45-48", 2.16, 1.85, 3.21, "ZBX (60%)"),
    ("Copy/concat", "6-32", 1.02, 1.41, 1.41, "BX (84%)"),
    ("Softmax", "16-23", 1.51, 2.02, 2.10, "BX (62%)"),
    ("Linear output", "6-21", 1.00, 1.32, 1.32, "BX (96%)"),
    ("Dropout output", "23", 1.94, 2.21, 2.50, "ZBX (51%)"),
    ("Norm in/out", "0-11", 1.00, 1.31, 1.31, "BX (98%)"),
    ("Log-softmax", "0-8", 1.00, 2.20, 2.23, "DBX (72%)"),
    ("Dropout mask", "6", 1.00, 5.96, 5.86, "BX (100%)"),
    ("Indices", "0-2", 1.88, 3.01, 5.25, "ZBX (100%)"),
];

/// The paper's Table IV: (model, ratios per iteration, errors % tensor / op type / global).
pub fn paper_table4(model: &str) -> Option<([f64; 3], [f64; 3])> {
    Some(match model {
        "resnet50" => ([1.88, 1.88, 1.89], [0.6, 9.7, 28.7]),
        "densenet121" => ([2.14, 2.13, 2.15], [0.7, 12.5, 43.1]),
        "efficientnet_b0" => ([1.40, 1.40, 1.41], [0.8, 4.3, 4.8]),
        "vit_b16" => ([1.31, 1.31, 1.31], [0.3, 2.6, 4.3]),
        "gpt2" => ([1.97, 1.97, 1.97], [0.2, 3.2, 29.8]),
        _ => return None,
    })
}

/// The paper's reductions at 50 % (§V-C): PlaneZip vs BW and vs DTE, %, for platforms A and B.
pub fn paper_reduction_pct(platform: &str, against: &str) -> Option<f64> {
    match (platform, against) {
        ("A", "bw") => Some(47.0),
        ("B", "bw") => Some(31.0),
        ("A", "dte") => Some(73.0),
        ("B", "dte") => Some(54.0),
        _ => None,
    }
}

/// The paper's Fig. 6 figures (§V-E): (axis, GB/s, BW %, PlaneZip %), where the text gives them.
/// `None` in a column: the paper gives no number; at 24/48 GB/s the text gives only the gap.
pub const PAPER_FIG6: [(&str, f64, Option<f64>, Option<f64>, &str); 8] = [
    ("link", 12.0, Some(16.1), Some(12.0), ""),
    ("link", 24.0, None, None, "PlaneZip removes 5.7 points"),
    ("link", 48.0, None, None, "PlaneZip removes 6.4 points"),
    ("link", 192.0, None, None, "both <= 0.4 %"),
    ("engine", 24.0, Some(13.0), Some(13.0), "engine as fast as the link never helps"),
    ("engine", 64.0, Some(13.0), Some(9.0), ""),
    ("engine", 96.0, Some(13.0), Some(7.3), ""),
    ("engine", 128.0, None, None, ""),
];

/// Fig. 3 row: one model's ratios.
#[derive(Clone, Debug, Serialize)]
pub struct ModelRatios {
    /// Model.
    pub model: String,
    /// One of the paper's five.
    pub paper_model: bool,
    /// Saved bytes at the capture batch in BF16 / FP32.
    pub raw_bytes: BTreeMap<String, u64>,
    /// Ratio per precision label and codec name.
    pub ratios: BTreeMap<String, BTreeMap<String, f64>>,
    /// The paper's BF16 PlaneZip ratio.
    pub paper_bf16_planezip: Option<f64>,
}

/// Geometric means of Fig. 3.
#[derive(Clone, Debug, Serialize)]
pub struct Geomeans {
    /// Which models: `paper's five` or `ours`.
    pub over: String,
    /// The models.
    pub models: Vec<String>,
    /// Per precision and codec.
    pub ratios: BTreeMap<String, BTreeMap<String, f64>>,
}

/// Table III row.
#[derive(Clone, Debug, Serialize)]
pub struct CategoryRow {
    /// Producer category.
    pub category: String,
    /// Min and max per-model share of saved bytes, %.
    pub share_pct: [f64; 2],
    /// Ratios per codec name (byte-weighted over the models).
    pub ratios: BTreeMap<String, f64>,
    /// Most chosen PlaneZip code and its share of the blocks, %.
    pub top_code: String,
    /// Its share, %.
    pub top_share_pct: f64,
}

/// Table IV row.
#[derive(Clone, Debug, Serialize)]
pub struct PredictRow {
    /// Model.
    pub model: String,
    /// PlaneZip BF16 ratio per captured iteration.
    pub ratio_per_iteration: Vec<f64>,
    /// Wire-size error, %: per-tensor, op-type and global signatures.
    pub error_pct: [f64; 3],
    /// The paper's figures.
    pub paper: Option<([f64; 3], [f64; 3])>,
}

/// Engine figures.
#[derive(Clone, Debug, Serialize)]
pub struct EngineSummary {
    /// Clock and source.
    pub clock: EngineClock,
    /// The engine top's slowest block mapped on its own (docs/area/pz_engine.*.blocks.json), when
    /// committed: what the whole engine, host-to-device included, is measured to reach today.
    pub slowest_block: Option<clock::BlockBound>,
    /// Peak device-to-host throughput of the lanes at the clock, GB/s.
    pub d2h_peak_gbps: f64,
    /// What the engine sustains on the saved activations of the training traces (the paper's
    /// five models, BF16 sizes), each a transfer: Σ bytes / Σ latency-model time, GB/s. The
    /// device-to-host latency model's figure.
    pub d2h_training_gbps: f64,
    /// The same through the measured engine of both directions (the slower one per tensor), GB/s:
    /// what the "measured engine" tables give the planner, on average.
    pub engine_training_gbps: f64,
    /// Sustained device-to-host throughput over the streamed (sampled, small) tensors, GB/s.
    pub d2h_sustained_gbps: f64,
    /// Sustained host-to-device throughput over the streamed tensors, GB/s.
    pub h2d_sustained_gbps: f64,
    /// The engine the "measured engine" tables give the planner, per tensor.
    pub measured: MeasuredEngine,
    /// Fidelity that ran and why (`cycle` when Verilator is present, else `sampled`).
    pub fidelity: Fidelity,
    /// Device-to-host latency per transfer size: (bytes, cycles, ns) by the latency model.
    pub latency: Vec<(usize, u64, f64)>,
    /// The latency models against the hardware on real data, one transfer each:
    /// (bytes, d2h model cycles, d2h simulated cycles, h2d model cycles, h2d simulated cycles).
    pub latency_check: Vec<(usize, u64, u64, u64, u64)>,
    /// The stream run (backend, blocks by code, mismatches, simulation speed).
    pub stream: StreamReport,
}

/// The whole evaluation.
#[derive(Clone, Debug, Serialize)]
pub struct Evaluation {
    /// Wall time of the run, s.
    pub wall_s: f64,
    /// Fig. 3.
    pub fig3: Vec<ModelRatios>,
    /// Fig. 3 geometric means.
    pub fig3_geomeans: Vec<Geomeans>,
    /// Table III.
    pub table3: Vec<CategoryRow>,
    /// Table IV.
    pub table4: Vec<PredictRow>,
    /// Engine.
    pub engine: EngineSummary,
    /// Fig. 4 runs (paper's engine, 64 GB/s).
    pub fig4: GridResult,
    /// Fig. 4 means over the paper's five models.
    pub fig4_means_paper_models: Vec<CellMean>,
    /// Fig. 4 means over our models.
    pub fig4_means_our_models: Vec<CellMean>,
    /// Fig. 4 with the measured engine (compressed policies only).
    pub fig4_measured_engine: GridResult,
    /// Its means over the paper's five models.
    pub fig4_measured_means: Vec<CellMean>,
    /// Fig. 5 ablation runs.
    pub fig5: GridResult,
    /// Fig. 5 means over the paper's five models.
    pub fig5_means: Vec<CellMean>,
    /// Fig. 6 runs.
    pub fig6: GridResult,
    /// Fig. 6 means over the paper's five models.
    pub fig6_means: Vec<CellMean>,
}

/// Measures every model's iterations (rayon over model × iteration).
pub fn measure_all(dumps: &[Dump], quiet: bool) -> Result<Vec<Vec<ModelIteration>>> {
    let jobs: Vec<(usize, usize)> = dumps.iter().enumerate().flat_map(|(m, d)| (0..d.iterations()).map(move |k| (m, k))).collect();
    let bar = progress::bar(jobs.len() as u64, "measuring ratios", quiet);
    let done: Vec<((usize, usize), ModelIteration)> = jobs
        .par_iter()
        .map(|&(m, k)| {
            let r = measure::measure_dump(&dumps[m], k).map(|x| ((m, k), x));
            bar.inc(1);
            r
        })
        .collect::<Result<_>>()?;
    bar.finish_and_clear();
    let mut out: Vec<Vec<ModelIteration>> = dumps.iter().map(|_| Vec::new()).collect();
    for ((m, _), x) in done {
        out[m].push(x);
    }
    for v in &mut out {
        v.sort_by_key(|x| x.iteration);
    }
    Ok(out)
}

fn ratio_map(t: &measure::CodecBytes) -> BTreeMap<String, f64> {
    CODECS.iter().enumerate().map(|(i, c)| (c.to_string(), t.ratio(i))).collect()
}

/// Fig. 3 and its geometric means from iteration 0.
pub fn fig3(iters: &[Vec<ModelIteration>]) -> (Vec<ModelRatios>, Vec<Geomeans>) {
    let rows: Vec<ModelRatios> = iters
        .iter()
        .map(|v| {
            let it = &v[0];
            let mut ratios = BTreeMap::new();
            let mut raw = BTreeMap::new();
            for p in Precision::ALL {
                let t = it.total(p);
                raw.insert(p.label().to_owned(), t.raw_bytes);
                ratios.insert(p.label().to_owned(), ratio_map(&t));
            }
            ModelRatios { model: it.model.clone(), paper_model: is_paper_model(&it.model), raw_bytes: raw, ratios, paper_bf16_planezip: paper_fig3_bf16(&it.model) }
        })
        .collect();
    let mut means = Vec::new();
    for (over, paper) in [("paper's five", true), ("ours", false)] {
        let sel: Vec<&ModelRatios> = rows.iter().filter(|r| r.paper_model == paper).collect();
        if sel.is_empty() {
            continue;
        }
        let mut ratios = BTreeMap::new();
        for p in Precision::ALL {
            let per: BTreeMap<String, f64> = CODECS.iter().map(|c| (c.to_string(), geomean(sel.iter().map(|r| r.ratios[p.label()][*c])))).collect();
            ratios.insert(p.label().to_owned(), per);
        }
        means.push(Geomeans { over: over.into(), models: sel.iter().map(|r| r.model.clone()).collect(), ratios });
    }
    (rows, means)
}

/// Table III over the paper's five models (all models if none of them is present), BF16, iteration 0.
pub fn table3(iters: &[Vec<ModelIteration>]) -> Vec<CategoryRow> {
    let any_paper = iters.iter().any(|v| is_paper_model(&v[0].model));
    let models: Vec<&ModelIteration> = iters.iter().map(|v| &v[0]).filter(|m| !any_paper || is_paper_model(&m.model)).collect();
    let mut cats: BTreeMap<String, measure::CodecBytes> = BTreeMap::new();
    let mut shares: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for m in &models {
        let total = m.total(Precision::Bf16).raw_bytes.max(1) as f64;
        let mut per: BTreeMap<String, u64> = BTreeMap::new();
        for t in &m.tensors {
            cats.entry(t.category.clone()).or_default().add(&t.bf16);
            *per.entry(t.category.clone()).or_default() += t.bf16.raw_bytes;
        }
        for (c, b) in per {
            shares.entry(c).or_default().push(100.0 * b as f64 / total);
        }
    }
    let mut rows: Vec<CategoryRow> = cats
        .into_iter()
        .map(|(c, t)| {
            let sh = &shares[&c];
            // A model without the category has share 0.
            // Over the models that have the category, as the paper's ranges are.
            let min = sh.iter().copied().fold(f64::INFINITY, f64::min);
            let max = sh.iter().copied().fold(0.0, f64::max);
            let n: u64 = t.sampled_blocks_by_tag.iter().sum();
            let (top, k) = t.sampled_blocks_by_tag.iter().enumerate().max_by_key(|(_, k)| **k).map(|(i, k)| (i, *k)).unwrap_or((4, 0));
            CategoryRow { category: c, share_pct: [min, max], ratios: ratio_map(&t), top_code: CODES[top].to_owned(), top_share_pct: 100.0 * k as f64 / n.max(1) as f64 }
        })
        .collect();
    let order = |c: &str| PAPER_TABLE3.iter().position(|r| r.0 == c).unwrap_or(usize::MAX);
    rows.sort_by_key(|r| (order(&r.category), r.category.clone()));
    rows
}

/// Table IV from the measured iterations and the capture traces.
pub fn table4(dumps: &[Dump], iters: &[Vec<ModelIteration>]) -> Vec<PredictRow> {
    dumps
        .iter()
        .zip(iters)
        .map(|(d, v)| {
            let ratio_per_iteration = v.iter().map(|it| it.total(Precision::Bf16).ratio(PLANEZIP)).collect();
            let error_pct = if v.len() >= 3 {
                let (now, next) = (v[1].ratio_table(Precision::Bf16), v[2].ratio_table(Precision::Bf16));
                [SignatureKind::PerTensor, SignatureKind::OpType, SignatureKind::Global].map(|k| 100.0 * measure::predictor_error(&d.trace, k, &now, &next))
            } else {
                [f64::NAN; 3]
            };
            PredictRow { model: d.metadata.model.clone(), ratio_per_iteration, error_pct, paper: paper_table4(&d.metadata.model) }
        })
        .collect()
}

/// Iteration `k`'s saved activations of every dump as named BF16 tensors.
pub fn dump_tensors(dumps: &[Dump], k: usize) -> Result<Vec<NamedTensor>> {
    let mut out = Vec::new();
    for d in dumps {
        for b in d.read_iteration(k)? {
            let (dtype, bytes, width) = if b.dtype == planner::trace::Dtype::F32 {
                ("BF16".to_owned(), convert::f32_to_bf16_bytes(&b.data), SymbolWidth::W16)
            } else {
                (dtype_label(b.dtype), b.data, measure::natural_width(b.dtype))
            };
            out.push(NamedTensor { model: d.metadata.model.clone(), name: b.signature.to_string(), dtype, bytes, width });
        }
    }
    Ok(out)
}

/// The fidelity and simulator of the engine figures: as asked, else the fastest bit-exact choice
/// present: `cycle` on Verilator when it is on PATH (and not `--simulator rust-hdl`), else
/// `sampled` on the rust-hdl simulation.
pub fn engine_choice(fidelity: Option<Fidelity>, simulator: SimulatorChoice) -> Result<(Fidelity, Simulator)> {
    let verilator = match simulator {
        SimulatorChoice::Auto => hw::verilator_on_path(),
        SimulatorChoice::Verilator => true,
        SimulatorChoice::RustHdl => false,
    };
    let fidelity = fidelity.unwrap_or(if verilator { Fidelity::Cycle } else { Fidelity::Sampled });
    let sim = if fidelity == Fidelity::Model { Simulator::RustHdl } else { Simulator::resolve(simulator)? };
    Ok((fidelity, sim))
}

/// Engine figures: streams iteration 0 (BF16) out and back through the backend and checks it.
pub fn engine_summary(dumps: &[Dump], args: &EvalArgs, clock: EngineClock, quiet: bool) -> Result<EngineSummary> {
    let tensors: Vec<StreamTensor> = dump_tensors(dumps, 0)?.into_iter().map(StreamTensor::from).collect();
    let chunks: usize = tensors.iter().map(|t| t.coded_bytes().div_ceil(CHUNK_BYTES)).sum();
    let every = args.sample_every.unwrap_or((chunks / DEFAULT_SAMPLED_CHUNKS).max(1));
    let indices: Vec<usize> = (0..tensors.len()).collect();
    let (fidelity, sim) = engine_choice(args.fidelity, args.simulator)?;
    let report = stream::run(&tensors, &indices, tensors.len(), None, fidelity, every, 0, &sim, &clock, quiet)?;
    stream::check(&report)?;
    // The latency models against the hardware on real data (one transfer each).
    let probe = tensors.iter().max_by_key(|t| t.coded_bytes()).context("no tensors to stream")?.head(3 * CHUNK_BYTES)?;
    let mut hardware = CycleBackend::new(sim, 0);
    let mut latency_check = Vec::new();
    for size in [CHUNK_BYTES, 3 * CHUNK_BYTES] {
        let d = &probe.bytes[..size.min(probe.bytes.len())];
        let out = hardware.round_trip(d, probe.width)?;
        latency_check.push((d.len(), d2h_cycles(d, probe.width), out.cycles, h2d_model_cycles(d, probe.width), out.h2d_cycles));
    }
    // The host-to-device lane's rate: Σ busiest-lane bytes / Σ cycles over the streamed tensors.
    let h2d_cycles: u64 = report.tensors.iter().map(|t| t.h2d_cycles).sum();
    let h2d_lane_bytes: usize = report.tensors.iter().map(|t| busiest_lane_bytes(t.raw_bytes)).sum();
    let measured = MeasuredEngine { clock_mhz: clock.mhz, h2d_lane_bytes_per_cycle: h2d_lane_bytes as f64 / h2d_cycles.max(1) as f64 };
    let bytes_per_cycle = (LANES_PER_DIRECTION * LANE_BEAT_BYTES) as f64;
    Ok(EngineSummary {
        d2h_peak_gbps: clock.gbps(bytes_per_cycle),
        d2h_training_gbps: training_gbps(dumps, &clock),
        engine_training_gbps: training_engine_gbps(dumps, &measured),
        measured,
        d2h_sustained_gbps: report.total.engine_gb_per_s,
        h2d_sustained_gbps: report.total.h2d_engine_gb_per_s,
        fidelity,
        latency: LATENCY_SIZES.iter().map(|&b| (b, d2h_model_cycles(b, &[]), clock.ns(d2h_model_cycles(b, &[])))).collect(),
        latency_check,
        stream: report,
        clock,
        slowest_block: clock::slowest_block(&clock::default_area_dir())?,
    })
}

/// Σ bytes / Σ engine time over every saved activation of the paper's models' training traces
/// (all models if none is present), BF16 sizes, each a transfer through `engine` (the slower
/// direction, fill and drain included), GB/s: the measured engine's average as the planner sees it.
pub fn training_engine_gbps(dumps: &[Dump], engine: &MeasuredEngine) -> f64 {
    let any_paper = dumps.iter().any(|d| is_paper_model(&d.metadata.model));
    let b = Platform::b();
    let (mut bytes, mut ns) = (0.0f64, 0.0f64);
    for d in dumps.iter().filter(|d| !any_paper || is_paper_model(&d.metadata.model)) {
        for t in d.train_trace.tensors.iter().filter(|t| t.kind == planner::trace::TensorKind::SavedActivation) {
            let m = b.scaled_bytes(t.bytes, t.dtype) as usize;
            let e = engine.timing(m);
            bytes += m as f64;
            ns += m as f64 / e.gb_per_s + e.latency_ns;
        }
    }
    if ns == 0.0 { 0.0 } else { bytes / ns }
}

/// Σ bytes / Σ latency-model time over every saved activation of the paper's models' training
/// traces (all models if none is present), at BF16 sizes, GB/s.
pub fn training_gbps(dumps: &[Dump], clock: &EngineClock) -> f64 {
    let any_paper = dumps.iter().any(|d| is_paper_model(&d.metadata.model));
    let b = Platform::b();
    let (mut bytes, mut ns) = (0.0f64, 0.0f64);
    for d in dumps.iter().filter(|d| !any_paper || is_paper_model(&d.metadata.model)) {
        for t in d.train_trace.tensors.iter().filter(|t| t.kind == planner::trace::TensorKind::SavedActivation) {
            let m = b.scaled_bytes(t.bytes, t.dtype) as usize;
            bytes += m as f64;
            ns += clock.ns(d2h_model_cycles(m, &[]));
        }
    }
    if ns == 0.0 { 0.0 } else { bytes / ns }
}

fn names(rows: &[Row]) -> Vec<String> {
    rows.iter().map(|r| grid::row_name(*r).to_owned()).collect()
}

fn with_engine(p: &Platform, engine_gb_per_s: f64, link_gb_per_s: f64, name: String) -> Platform {
    Platform { name, engine_gb_per_s, link_gb_per_s, ..p.clone() }
}

/// Fig. 6 platforms: B with the link varied (engine 4× the link), then with the engine varied.
pub fn fig6_platforms(links: &[f64], engines: &[f64]) -> Vec<Platform> {
    let b = Platform::b();
    let mut v: Vec<Platform> = links.iter().map(|&l| with_engine(&b, l * FIG6_ENGINE_PER_LINK, l, format!("B link {l} GB/s"))).collect();
    v.extend(engines.iter().map(|&e| with_engine(&b, e, FIG6_LINK_GBPS, format!("B engine {e} GB/s"))));
    v
}

/// Runs everything.
pub fn evaluate(args: &EvalArgs) -> Result<Evaluation> {
    let start = Instant::now();
    let quiet = args.json;
    let clock = clock::resolve(args.engine_clock_ghz, &clock::default_area_dir())?;
    let dirs = grid::model_dirs(&args.data, &args.models)?;
    let dumps: Vec<Dump> = dirs.par_iter().map(|d| Dump::open(d).with_context(|| format!("model dump {}", d.display()))).collect::<Result<_>>()?;
    let iters = measure_all(&dumps, quiet)?;
    let (fig3, fig3_geomeans) = fig3(&iters);
    let table3 = table3(&iters);
    let table4 = table4(&dumps, &iters);
    let engine = engine_summary(&dumps, args, clock, quiet)?;

    let models = grid::load_models(&dirs)?;
    let model_names: Vec<String> = models.iter().map(|m| m.model.clone()).collect();
    let mut platforms = vec![Platform::a(), Platform::b()];
    if let Some(p) = &args.platform {
        platforms.push(Platform::load(p)?);
    }
    let fig4_spec = GridSpec { models: model_names.clone(), platforms: platforms.clone(), policies: names(&Row::MAIN), budgets: FIG4_BUDGETS.to_vec(), engine: None };
    let fig4 = grid::run_grid(&models, &fig4_spec, None, quiet)?;
    // The platforms' constant is only the label here: each tensor gets the measured engine.
    let measured: Vec<Platform> = platforms.iter().map(|p| with_engine(p, engine.engine_training_gbps, p.link_gb_per_s, format!("{} (measured engine)", p.name))).collect();
    let measured_spec = GridSpec { models: model_names.clone(), platforms: measured, policies: names(&[Row::Bw, Row::BwZvc, Row::PlaneZip]), budgets: FIG4_BUDGETS.to_vec(), engine: Some(engine.measured) };
    let fig4_measured_engine = grid::run_grid(&models, &measured_spec, None, quiet)?;
    let fig5_spec = GridSpec { models: model_names.clone(), platforms: vec![Platform::a(), Platform::b()], policies: names(&Row::ABLATIONS), budgets: vec![ABLATION_BUDGET], engine: None };
    let fig5 = grid::run_grid(&models, &fig5_spec, None, quiet)?;
    let fig6_spec = GridSpec { models: model_names, platforms: fig6_platforms(&FIG6_LINKS_GBPS, &FIG6_ENGINES_GBPS), policies: names(&[Row::Bw, Row::PlaneZip]), budgets: vec![MID_BUDGET], engine: None };
    let fig6 = grid::run_grid(&models, &fig6_spec, None, quiet)?;

    // Means "over the paper's five" fall back to all models when none of the five is present.
    let any_paper = dumps.iter().any(|d| is_paper_model(&d.metadata.model));
    let paper = |m: &str| !any_paper || is_paper_model(m);
    Ok(Evaluation {
        wall_s: 0.0,
        fig3,
        fig3_geomeans,
        table3,
        table4,
        fig4_means_paper_models: grid::means(&fig4, paper),
        fig4_means_our_models: if any_paper { grid::means(&fig4, |m| !is_paper_model(m)) } else { Vec::new() },
        fig4_measured_means: grid::means(&fig4_measured_engine, paper),
        fig5_means: grid::means(&fig5, paper),
        fig6_means: grid::means(&fig6, paper),
        engine,
        fig4,
        fig4_measured_engine,
        fig5,
        fig6,
    })
    .map(|mut e| {
        e.wall_s = start.elapsed().as_secs_f64();
        e
    })
}

fn cell(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |x| format!("{x:.1}"))
}

fn mean_cell(m: Option<&CellMean>) -> String {
    match m {
        Some(m) if m.models < m.of_models => format!("{}*{}", cell(m.overhead_pct), m.of_models - m.models),
        Some(m) => cell(m.overhead_pct),
        None => "-".into(),
    }
}

/// Reduction of `ours` against `base`, % (`None` when either is missing or base is 0).
pub fn reduction_pct(base: Option<f64>, ours: Option<f64>) -> Option<f64> {
    match (base, ours) {
        (Some(b), Some(o)) if b > 0.0 => Some(100.0 * (b - o) / b),
        _ => None,
    }
}

/// The report as text.
pub fn render(e: &Evaluation) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "PlaneZip evaluation on the model dumps (paper §V). Ratios: golden size model on the dumps' sampled 4 KB chunks, scaled");
    let _ = writeln!(w, "to each tensor's full size (wire bytes include tags, chunk headers, padding). \"paper\" columns are the paper's values.");

    let _ = writeln!(w, "\n== Fig. 3: compression ratio of all saved activations (iteration 0, byte-weighted; ratio = raw bytes / wire bytes, x) ==");
    for p in Precision::ALL {
        let _ = writeln!(w, "\n{:<26} {:>12} {:>7} {:>9} {:>7} {:>7} {:>9}   {}", format!("{} model", p.label()), "saved MB", "ZVC", "BPC(DBX)", "BX", "ZBX", "PlaneZip", if p == Precision::Bf16 { "paper PlaneZip" } else { "" });
        for r in &e.fig3 {
            let paper = if p == Precision::Bf16 { r.paper_bf16_planezip.map_or(String::new(), |x| format!("{x:.2}x")) } else { String::new() };
            let tag = if r.paper_model { "" } else { " (ours)" };
            let _ = write!(w, "{:<26} {:>12.1}", format!("{}{tag}", r.model), r.raw_bytes[p.label()] as f64 / 1e6);
            for c in CODECS {
                let _ = write!(w, " {:>8.2}x", r.ratios[p.label()][c]);
            }
            let _ = writeln!(w, "   {paper}");
        }
        for g in &e.fig3_geomeans {
            let _ = write!(w, "{:<26} {:>12}", format!("geomean, {}", g.over), "");
            for c in CODECS {
                let _ = write!(w, " {:>8.2}x", g.ratios[p.label()][c]);
            }
            let _ = writeln!(w);
        }
        let _ = write!(w, "{:<26} {:>12}", "paper geomean", "");
        for i in 0..5 {
            let _ = write!(w, " {:>9}", paper_fig3_geomean(p, i).map_or("-".into(), |x| format!("{x:.2}x")));
        }
        let _ = writeln!(w);
    }

    let _ = writeln!(w, "\n== Table III: saved activations by producing operator (BF16, iteration 0, paper's five models; ratios x, shares %) ==");
    let _ = writeln!(w, "{:<15} {:>11} {:>6} {:>6} {:>8} {:>11} | {:>7} {:>5} {:>5} {:>5} {:>10}", "producer", "share %", "ZVC", "BX", "PlaneZip", "top code", "paper:", "ZVC", "BX", "PZ", "top");
    for r in &e.table3 {
        let p = PAPER_TABLE3.iter().find(|x| x.0 == r.category);
        let paper = p.map_or(String::new(), |p| format!("{:>7} {:>5.2} {:>5.2} {:>5.2} {:>10}", p.1, p.2, p.3, p.4, p.5));
        let _ = writeln!(w, "{:<15} {:>11} {:>6.2} {:>6.2} {:>8.2} {:>11} | {paper}", r.category, format!("{:.0}-{:.0}", r.share_pct[0], r.share_pct[1]), r.ratios["ZVC"], r.ratios["BX"], r.ratios["PlaneZip"], format!("{} ({:.0}%)", r.top_code, r.top_share_pct));
    }

    let _ = writeln!(w, "\n== Table IV: stability (PlaneZip, BF16): ratio per iteration (x), wire-size error of predicting iteration 2 from iteration 1 (%) ==");
    let _ = writeln!(w, "{:<20} {:>16} {:>7} {:>7} {:>7} | {:>16} {:>6} {:>6} {:>6}", "model", "ratio it0/1/2", "tensor", "op type", "global", "paper ratios", "tensor", "op", "global");
    for r in &e.table4 {
        let its = r.ratio_per_iteration.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join("/");
        let paper = r.paper.map_or(String::new(), |(rs, es)| format!("{:>16} {:>6.1} {:>6.1} {:>6.1}", rs.map(|x| format!("{x:.2}")).join("/"), es[0], es[1], es[2]));
        let _ = writeln!(w, "{:<20} {:>16} {:>7.1} {:>7.1} {:>7.1} | {paper}", r.model, its, r.error_pct[0], r.error_pct[1], r.error_pct[2]);
    }
    let _ = writeln!(w, "(measured on the dumps given: on data/'s sampled chunks the per-tensor error exceeds the whole tensors', as a few chunks vary more between iterations; `sim-harness sample-check --full DIR` measures both)");

    let en = &e.engine;
    let st = &en.stream.total;
    let _ = writeln!(w, "\n== Engine ==");
    let _ = writeln!(w, "backend: {}", en.stream.backend);
    let _ = writeln!(w, "clock: {:.1} MHz ({})", en.clock.mhz, en.clock.source);
    if let Some(sb) = en.slowest_block.as_ref().filter(|sb| sb.bound_mhz < en.clock.mhz) {
        let _ = writeln!(
            w,
            "  not closed at this clock: pz_engine's slowest block {} takes {:.1} ps (ABC, mapped on its own) + {:.1} ps of flop = {:.1} MHz at most ({}); every figure below assumes the clock above for both directions",
            sb.module, sb.abc_delay_ps, sb.flop_overhead_ps, sb.bound_mhz, sb.file
        );
    }
    let _ = writeln!(w, "device to host: {} lanes x {} B/cycle = {:.2} GB/s peak at the clock", LANES_PER_DIRECTION, LANE_BEAT_BYTES, en.d2h_peak_gbps);
    let _ = writeln!(w, "  sustained {:.2} GB/s on the training traces' saved activations (each one transfer, BF16 sizes, latency model)", en.d2h_training_gbps);
    let _ = writeln!(w, "  sustained {:.2} GB/s over the {} streamed dump tensors ({:.1} MB BF16 of sampled chunks, iteration 0; small transfers, latency-bound)", en.d2h_sustained_gbps, st.tensors, st.raw_bytes as f64 / 1e6);
    let _ = writeln!(w, "host to device: sustained {:.2} GB/s over the same streamed tensors (pz_engine's host-to-device lanes fed the images its device-to-host lanes wrote)", en.h2d_sustained_gbps);
    let _ = writeln!(w, "  one lane sustained {:.2} B/cycle over them; the training traces' saved activations through the slower direction per tensor: {:.2} GB/s (the measured engine below)", en.measured.h2d_lane_bytes_per_cycle, en.engine_training_gbps);
    let _ = writeln!(w, "paper's assumption (Table II): {PAPER_ENGINE_GBPS} GB/s per direction; paper's estimate for two lanes at 1.5 GHz: 96 GB/s");
    let _ = writeln!(w, "device-to-host latency per transfer (latency model, first beat in to last write out, no raw chunks):");
    for (b, c, ns) in &en.latency {
        let _ = writeln!(w, "  {:>10} B: {:>8} cycles = {:>12.1} ns", b, c, ns);
    }
    for (b, dm, dc, hm, hc) in &en.latency_check {
        let _ = writeln!(w, "  check on the hardware, {b} B of real data: device to host model {dm} / simulated {dc} cycles; host to device model {hm} / simulated {hc} cycles");
    }
    let n: u64 = st.blocks_by_tag.iter().sum();
    let _ = writeln!(w, "blocks by code (size model): {}", CODES.iter().zip(st.blocks_by_tag).map(|(c, k)| format!("{c} {:.1} %", 100.0 * k as f64 / n.max(1) as f64)).collect::<Vec<_>>().join(", "));
    let _ = writeln!(w, "checked against the golden codec: {} of {} chunks simulated both ways cycle by cycle, {} size mismatches, {} round-trip mismatches", st.hardware_chunks, st.chunks, st.size_mismatches, st.roundtrip_mismatches);
    if st.simulated_seconds > 0.0 {
        let _ = writeln!(w, "simulation speed: {:.0} simulated cycles/s per core of simulation-loop time ({:.3} MB/s round trip per core; goal 1 M cycles/s)", st.simulated_cycles_per_s, st.simulated_mb_per_s);
    }

    let platforms: Vec<String> = e.fig4.spec.platforms.iter().map(|p| p.name.clone()).collect();
    render_grid_means(w, "Fig. 4: mean overhead (%) over the paper's five models, engine 64 GB/s (paper's assumption)", &e.fig4_means_paper_models, &platforms, &e.fig4.spec.policies, &FIG4_BUDGETS, true);
    let _ = writeln!(w, "\nReductions at {:.0} % of the peak (mean overhead; paper §V-C):", MID_BUDGET * 100.0);
    for p in &platforms {
        for against in ["bw", "dte"] {
            let base = find_mean(&e.fig4_means_paper_models, p, against, MID_BUDGET).and_then(|m| m.overhead_pct);
            let pz = find_mean(&e.fig4_means_paper_models, p, "planezip", MID_BUDGET).and_then(|m| m.overhead_pct);
            let _ = writeln!(w, "  platform {p}: PlaneZip vs {:<3} {:>6} % (paper {} %)", against.to_uppercase(), cell(reduction_pct(base, pz)), paper_reduction_pct(p, against).map_or("-".into(), |x| format!("{x:.0}")));
        }
    }
    if !e.fig4_means_our_models.is_empty() {
        render_grid_means(w, "Fig. 4, our models (not in the paper): mean overhead (%)", &e.fig4_means_our_models, &platforms, &e.fig4.spec.policies, &FIG4_BUDGETS, false);
    }
    let mplat: Vec<String> = e.fig4_measured_engine.spec.platforms.iter().map(|p| p.name.clone()).collect();
    render_grid_means(
        w,
        &format!("Fig. 4 with the measured engine (per tensor: its rate and latency at {:.1} MHz, {:.2} GB/s on average): mean overhead (%), paper's five models", en.clock.mhz, en.engine_training_gbps),
        &e.fig4_measured_means,
        &mplat,
        &e.fig4_measured_engine.spec.policies,
        &FIG4_BUDGETS,
        false,
    );
    let _ = writeln!(w, "(Eq. 2 bypasses an engine slower than the link, so below link speed the compressed policies fall back to raw transfers.)");

    let _ = writeln!(w, "\n== Fig. 5: ablations at {:.0} % of the peak: mean overhead (%) over the paper's five models ==", ABLATION_BUDGET * 100.0);
    let _ = writeln!(w, "{:<30} {:>8} {:>8} {:>8} {:>8}", "policy", "A", "paper", "B", "paper");
    for row in [Row::Recomp, Row::Dte, Row::DteCompressed, Row::Bw, Row::BwUnaware, Row::BwZvc, Row::PlaneZip32, Row::PlaneZipOpType, Row::PlaneZip, Row::PlaneZipOracle] {
        let name = grid::row_name(row);
        let src = if Row::MAIN.contains(&row) { &e.fig4_means_paper_models } else { &e.fig5_means };
        let _ = writeln!(
            w,
            "{:<30} {:>8} {:>8} {:>8} {:>8}",
            row.label(),
            mean_cell(find_mean(src, "A", name, ABLATION_BUDGET)),
            cell(row.paper_mean_pct("A", ABLATION_BUDGET)),
            mean_cell(find_mean(src, "B", name, ABLATION_BUDGET)),
            cell(row.paper_mean_pct("B", ABLATION_BUDGET))
        );
    }

    let _ = writeln!(w, "\nWhere the gain comes from at {:.0} % (paper §V-D: PlaneZip swaps 1.5x (A) / 2.1x (B) the bytes of BW, spends 30 % / 31 % less time recomputing, stalls <= 1.1 %):", ABLATION_BUDGET * 100.0);
    for p in ["A", "B"] {
        let bw = find_mean(&e.fig4_means_paper_models, p, "bw", ABLATION_BUDGET);
        let pz = find_mean(&e.fig4_means_paper_models, p, "planezip", ABLATION_BUDGET);
        if let (Some(bw), Some(pz)) = (bw, pz) {
            let swapped = if bw.swapped_raw_bytes == 0 { "-".to_owned() } else { format!("{:.2}x", pz.swapped_raw_bytes as f64 / bw.swapped_raw_bytes as f64) };
            let recompute = reduction_pct(bw.recompute_pct, pz.recompute_pct);
            let _ = writeln!(
                w,
                "  platform {p}: swapped bytes PlaneZip / BW {swapped}; recomputation time {} % less; mean stall {} % of the iteration (BW {} %)",
                cell(recompute),
                cell(pz.stall_pct),
                cell(bw.stall_pct)
            );
        }
    }

    let _ = writeln!(w, "\n== Fig. 6: sensitivity at {:.0} % on platform B: mean overhead (%) over the paper's five models ==", MID_BUDGET * 100.0);
    let _ = writeln!(w, "{:<34} {:>8} {:>9} {:>8}   paper", "platform", "BW", "PlaneZip", "gap");
    for p in &e.fig6.spec.platforms {
        let bw = find_mean(&e.fig6_means, &p.name, "bw", MID_BUDGET).and_then(|m| m.overhead_pct);
        let pz = find_mean(&e.fig6_means, &p.name, "planezip", MID_BUDGET).and_then(|m| m.overhead_pct);
        let (axis, x) = if p.name.contains("link") { ("link", p.link_gb_per_s) } else { ("engine", p.engine_gb_per_s) };
        let paper = PAPER_FIG6.iter().find(|r| r.0 == axis && r.1 == x).map_or(String::new(), |r| {
            let v = match (r.2, r.3) {
                (Some(b), Some(z)) => format!("BW {b:.1}, PlaneZip {z:.1}"),
                _ => String::new(),
            };
            format!("{v} {}", r.4)
        });
        let gap = match (bw, pz) {
            (Some(b), Some(z)) => format!("{:.1}", b - z),
            _ => "-".into(),
        };
        let other = if axis == "link" { format!("engine {} GB/s", p.engine_gb_per_s) } else { format!("link {} GB/s", p.link_gb_per_s) };
        let _ = writeln!(w, "{:<34} {:>8} {:>9} {:>8}   {}", format!("{} ({other})", p.name), cell(bw), cell(pz), gap, paper.trim());
    }
    let fails: usize = [&e.fig4, &e.fig5, &e.fig6].iter().map(|g| g.runs.iter().filter(|r| r.error.is_some()).count()).sum();
    let _ = writeln!(w, "\n(* n: mean over the models that found a plan, n models failed; {fails} failed runs in all, listed in the JSON)");
    let _ = writeln!(w, "wall time: {:.1} s", e.wall_s);
    s
}

fn render_grid_means(w: &mut String, title: &str, ms: &[CellMean], platforms: &[String], policies: &[String], budgets: &[f64], paper: bool) {
    use std::fmt::Write as _;
    let _ = writeln!(w, "\n== {title} ==");
    for p in platforms {
        let _ = write!(w, "{:<12}", format!("platform {}", p.split(' ').next().unwrap_or(p)));
        for b in budgets {
            let _ = write!(w, " {:>8}", format!("{:.0}%", b * 100.0));
        }
        let _ = writeln!(w, "{}", if paper { "  paper 30% / 50%" } else { "" });
        for pol in policies {
            let _ = write!(w, "{:<12}", pol);
            for &b in budgets {
                let _ = write!(w, " {:>8}", mean_cell(find_mean(ms, p, pol, b)));
            }
            if paper && (p == "A" || p == "B") {
                let row = grid::parse_row(pol).ok();
                let pp = |f: f64| row.and_then(|r| r.paper_mean_pct(p, f));
                let _ = write!(w, "  {:>5} / {:>5}", cell(pp(0.3)), cell(pp(0.5)));
            }
            let _ = writeln!(w);
        }
    }
}
