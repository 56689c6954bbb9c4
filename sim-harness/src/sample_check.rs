//! `sample-check`: does the committed sample (`data/`) represent the full tensors it was drawn from?
//!
//! For each model present both under `--data` (samples) and under `--full` (the capture tool's
//! full dumps of the same run), the whole-model ratios the planner uses — each signature's
//! measured ratio at the transfer iteration carried by its full size at the training batch,
//! [`policies::model_ratios`] — are computed from the sample and from the full dump, and the
//! relative difference |r_sample − r_full| / r_full is held to `--tolerance-pct`. Full dumps are
//! read by the paper's rule (§IV: tensors above 32 MB on every fourth 4 KB chunk,
//! [`Dump::with_paper_chunk_rule`]). Table IV's predictor errors are measured on both as well
//! ([`eval::table4`]), so that the error of the sample stands beside that of the full tensors.
//! The command exits with an error when any ratio is outside the tolerance.

use crate::dump::Dump;
use crate::eval::{self, PredictRow};
use crate::policies::{self, TRANSFER_ITERATION};
use anyhow::{Context, Result, bail, ensure};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Codec configurations whose whole-model ratios the check holds to the tolerance (names of
/// [`policies::model_ratios`]): the two codecs of the paper's planner on both platforms.
pub const CHECKED_CODECS: [&str; 4] = ["planezip-bf16", "zvc-bf16", "planezip-f32", "zvc-f32"];

/// Default tolerance on |r_sample − r_full| / r_full, in percent (issue 13's acceptance).
pub const DEFAULT_TOLERANCE_PCT: f64 = 2.0;

/// Arguments of `sim-harness sample-check`.
#[derive(Debug, Clone, clap::Args)]
pub struct SampleCheckArgs {
    /// Directory of the samples (one dump directory per model with sample.json).
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// Directory of the full dumps of the same capture (default: $PLANEZIP_CACHE/dumps).
    #[arg(long)]
    pub full: Option<PathBuf>,
    /// Models to check, comma-separated; default: every model with both a sample and a full dump.
    #[arg(long, value_delimiter = ',')]
    pub models: Vec<String>,
    /// Largest accepted |r_sample − r_full| / r_full, in percent.
    #[arg(long, default_value_t = DEFAULT_TOLERANCE_PCT)]
    pub tolerance_pct: f64,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// One codec's whole-model ratio from the sample and from the full dump.
#[derive(Clone, Debug, Serialize)]
pub struct RatioCheck {
    /// Codec configuration (a name of [`CHECKED_CODECS`]).
    pub codec: String,
    /// Ratio (raw / wire bytes) from the sample.
    pub sample: f64,
    /// Ratio (raw / wire bytes) from the full dump.
    pub full: f64,
    /// (sample − full) / full, in percent.
    pub error_pct: f64,
    /// Whether |error_pct| is within the tolerance.
    pub within: bool,
}

/// One model's check.
#[derive(Clone, Debug, Serialize)]
pub struct ModelCheck {
    /// Model name.
    pub model: String,
    /// Sampled chunks per iteration in the sample (count).
    pub sample_chunks: usize,
    /// Bytes per iteration in the sample.
    pub sample_bytes: u64,
    /// Whole-model ratios, sample beside full.
    pub ratios: Vec<RatioCheck>,
    /// Table IV measured on the sample.
    pub table4_sample: PredictRow,
    /// Table IV measured on the full dump.
    pub table4_full: PredictRow,
}

/// The whole check.
#[derive(Clone, Debug, Serialize)]
pub struct SampleCheck {
    /// The tolerance, in percent.
    pub tolerance_pct: f64,
    /// The captured iteration whose ratios are compared (the planner's transfer iteration).
    pub iteration: usize,
    /// One entry per model.
    pub models: Vec<ModelCheck>,
}

impl SampleCheck {
    /// Ratios outside the tolerance, as `model codec` names.
    pub fn failures(&self) -> Vec<String> {
        self.models
            .iter()
            .flat_map(|m| m.ratios.iter().filter(|r| !r.within).map(move |r| format!("{} {}", m.model, r.codec)))
            .collect()
    }
}

fn ratios_of(d: &Dump) -> Result<std::collections::BTreeMap<String, f64>> {
    let tables = policies::measure_iteration(d, TRANSFER_ITERATION)?;
    Ok(policies::model_ratios(&d.train_trace, &tables))
}

fn table4_of(d: &Dump) -> Result<PredictRow> {
    let dumps = std::slice::from_ref(d);
    let iters = eval::measure_all(dumps, true)?;
    Ok(eval::table4(dumps, &iters).remove(0))
}

/// Checks one model: its sample dump `sample` against its full dump `full`.
pub fn check_model(sample: &Dump, full: &Dump, tolerance_pct: f64) -> Result<ModelCheck> {
    let model = sample.metadata.model.clone();
    ensure!(sample.is_sample(), "{}: not a sample (no sample.json)", sample.dir.display());
    ensure!(!full.is_sample(), "{}: a sample, not a full dump", full.dir.display());
    ensure!(full.metadata.model == model, "{}: model {:?}, the sample is of {model:?}", full.dir.display(), full.metadata.model);
    for d in [sample, full] {
        ensure!(d.iterations() > TRANSFER_ITERATION, "{}: {} iterations, the check needs iteration {TRANSFER_ITERATION}", d.dir.display(), d.iterations());
    }
    let (rs, rf) = (ratios_of(sample)?, ratios_of(full)?);
    let ratios = CHECKED_CODECS
        .iter()
        .map(|&c| {
            let (s, f) = (rs[c], rf[c]);
            let error_pct = 100.0 * (s - f) / f;
            RatioCheck { codec: c.to_owned(), sample: s, full: f, error_pct, within: error_pct.abs() <= tolerance_pct }
        })
        .collect();
    let index = sample.sample.as_ref().expect("checked above");
    let sample_chunks = index.tensors.values().map(|e| e.offsets.len()).sum();
    let sample_bytes =
        index.tensors.values().map(|e| e.offsets.iter().map(|&o| crate::dump::chunk_len(e.bytes, o)).sum::<u64>()).sum();
    Ok(ModelCheck { model, sample_chunks, sample_bytes, ratios, table4_sample: table4_of(sample)?, table4_full: table4_of(full)? })
}

/// Runs the check the arguments describe.
pub fn evaluate(args: &SampleCheckArgs) -> Result<SampleCheck> {
    ensure!(args.tolerance_pct.is_finite() && args.tolerance_pct >= 0.0, "--tolerance-pct {} must be a percentage >= 0", args.tolerance_pct);
    let full_root = match &args.full {
        Some(p) => p.clone(),
        None => crate::dump::cache_root().context("no --full given and neither PLANEZIP_CACHE nor HOME is set")?,
    };
    let names: Vec<String> = if args.models.is_empty() {
        crate::grid::dumps_under(&args.data)?
            .iter()
            .filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .filter(|n| crate::dump::is_model_dir(&full_root.join(n)))
            .collect()
    } else {
        args.models.clone()
    };
    if names.is_empty() {
        bail!("no model has both a sample under {} and a full dump under {}", args.data.display(), full_root.display());
    }
    let mut models = Vec::new();
    for n in &names {
        let sample = Dump::open(args.data.join(n)).with_context(|| format!("sample {n}"))?;
        let full = Dump::open(full_root.join(n)).with_context(|| format!("full dump {n}"))?.with_paper_chunk_rule();
        models.push(check_model(&sample, &full, args.tolerance_pct)?);
    }
    Ok(SampleCheck { tolerance_pct: args.tolerance_pct, iteration: TRANSFER_ITERATION, models })
}

/// The check as text tables.
pub fn render(c: &SampleCheck) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Sample vs full dump: whole-model ratios (raw / wire bytes) of iteration {} at the planner's weighting \
         (each signature's measured ratio carried by its bytes at the training batch); full dumps by the paper's rule \
         (tensors above 32 MiB on every fourth 4 KB chunk). Tolerance ±{:.1} %.",
        c.iteration, c.tolerance_pct
    );
    let _ = writeln!(s, "{:<20} {:>8} {:>10} {:<14} {:>8} {:>8} {:>8}  ", "model", "chunks", "MiB/iter", "codec", "sample", "full", "err %");
    for m in &c.models {
        for (i, r) in m.ratios.iter().enumerate() {
            let (name, chunks, mib) = if i == 0 {
                (m.model.as_str(), m.sample_chunks.to_string(), format!("{:.2}", m.sample_bytes as f64 / (1u64 << 20) as f64))
            } else {
                ("", String::new(), String::new())
            };
            let _ = writeln!(s, "{name:<20} {chunks:>8} {mib:>10} {:<14} {:>8.3} {:>8.3} {:>+8.2}  {}", r.codec, r.sample, r.full, r.error_pct, if r.within { "ok" } else { "OUTSIDE" });
        }
    }
    let _ = writeln!(s, "\nTable IV wire-size error of the predictors, % (iteration 1 -> 2), sample vs full dump (paper's figures where it has the model):");
    let _ = writeln!(s, "{:<20} {:>22} {:>22} {:>22}", "model", "per-tensor s / full", "op-type s / full", "global s / full");
    for m in &c.models {
        let (a, b) = (&m.table4_sample.error_pct, &m.table4_full.error_pct);
        let paper = m.table4_full.paper.map(|(_, e)| format!("   paper {:.1} / {:.1} / {:.1}", e[0], e[1], e[2])).unwrap_or_default();
        let _ = writeln!(s, "{:<20} {:>10.2} / {:>9.2} {:>10.2} / {:>9.2} {:>10.2} / {:>9.2}{paper}", m.model, a[0], b[0], a[1], b[1], a[2], b[2]);
    }
    let f = c.failures();
    let _ = writeln!(s, "\n{} of {} ratios within ±{:.1} %{}", c.models.len() * CHECKED_CODECS.len() - f.len(), c.models.len() * CHECKED_CODECS.len(), c.tolerance_pct,
        if f.is_empty() { String::new() } else { format!("; outside: {}", f.join(", ")) });
    s
}

/// `sim-harness sample-check`: prints the check, then fails when a ratio is outside the tolerance.
pub fn run(args: &SampleCheckArgs) -> Result<()> {
    let c = evaluate(args)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&c)?);
    } else {
        print!("{}", render(&c));
    }
    let f = c.failures();
    ensure!(f.is_empty(), "{} ratios outside ±{} %: {}", f.len(), c.tolerance_pct, f.join(", "));
    Ok(())
}
