//! Policy grids: models × platforms × budgets × policies (rows of [`crate::policies::Row`]),
//! simulated by the planner with the paper's protocol (plan with iteration 1's ratios through
//! the predictor, transfer with iteration 2's; `crate::policies` documents it). Used by the
//! default run (Fig. 4–6), `sweep`, `sensitivity` and `ablation`.
//!
//! A grid's cases are numbered in a fixed order (model, platform, row, budget), so a sweep splits
//! into `--shard K/N` pieces (case `i` belongs to shard `i mod N + 1`) that `merge` puts back
//! together into exactly the unsharded result.

use crate::dump::Dump;
use crate::engine_backend::MeasuredEngine;
use crate::policies::{Row, Tables, measure_iteration, row_compressions};
use crate::progress;
use anyhow::{Context, Result, bail, ensure};
use planner::platform::{Platform, Precision};
use planner::policy::{Compression, run_policy};
use planner::workload::Workload;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Captured iteration the planner plans with (k).
pub const PLAN_ITERATION: usize = crate::policies::PLAN_ITERATION;
/// Captured iteration the transfers have (k+1).
pub const TRANSFER_ITERATION: usize = crate::policies::TRANSFER_ITERATION;

/// Every row with its command-line name.
pub const ROW_NAMES: [(Row, &str); 11] = [
    (Row::Recomp, "recomp"),
    (Row::Swap, "swap"),
    (Row::Dte, "dte"),
    (Row::Bw, "bw"),
    (Row::BwZvc, "bw+zvc"),
    (Row::PlaneZip, "planezip"),
    (Row::DteCompressed, "dte+c"),
    (Row::BwUnaware, "unaware"),
    (Row::PlaneZip32, "planezip-32"),
    (Row::PlaneZipOpType, "planezip-optype"),
    (Row::PlaneZipOracle, "planezip-oracle"),
];

/// Command-line name of a row.
pub fn row_name(row: Row) -> &'static str {
    ROW_NAMES.iter().find(|(r, _)| *r == row).map(|(_, n)| *n).expect("every row is named")
}

/// Parses a row's command-line name.
pub fn parse_row(s: &str) -> Result<Row> {
    match ROW_NAMES.iter().find(|(_, n)| *n == s) {
        Some((r, _)) => Ok(*r),
        None => bail!("unknown policy {s:?} (known: {})", ROW_NAMES.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")),
    }
}

/// One model's measured ratio tables (iterations k and k+1).
pub struct ModelTables {
    /// Model name.
    pub model: String,
    /// The opened dump (its training trace is what the planner simulates).
    pub dump: Dump,
    /// Iteration k.
    pub plan: Tables,
    /// Iteration k+1.
    pub transfer: Tables,
}

/// Opens the dumps and measures iterations k and k+1 of each (rayon over models).
pub fn load_models(dirs: &[PathBuf]) -> Result<Vec<ModelTables>> {
    dirs.par_iter()
        .map(|dir| {
            let dump = Dump::open(dir).with_context(|| format!("model dump {}", dir.display()))?;
            ensure!(
                dump.iterations() > TRANSFER_ITERATION,
                "{}: {} captured iterations, the protocol needs iterations {PLAN_ITERATION} and {TRANSFER_ITERATION}",
                dir.display(),
                dump.iterations()
            );
            let plan = measure_iteration(&dump, PLAN_ITERATION)?;
            let transfer = measure_iteration(&dump, TRANSFER_ITERATION)?;
            Ok(ModelTables { model: dump.metadata.model.clone(), dump, plan, transfer })
        })
        .collect()
}

/// Model dump directories: `names` resolved under `data` (a name that is a directory is taken
/// as is), or every directory of `data` holding a trace.json.
pub fn model_dirs(data: &Path, names: &[String]) -> Result<Vec<PathBuf>> {
    if !names.is_empty() {
        return names
            .iter()
            .map(|n| {
                let p = PathBuf::from(n);
                let dir = if crate::dump::is_model_dir(&p) { p } else { data.join(n) };
                ensure!(crate::dump::is_model_dir(&dir), "{}: not a model dump (no trace.json or trace.json.gz)", dir.display());
                Ok(dir)
            })
            .collect();
    }
    dumps_under(data)
}

/// Every model dump directly under `data` (a directory holding `trace.json` or `trace.json.gz`), sorted; an error
/// naming `data` when there is none.
pub fn dumps_under(data: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(data).with_context(|| format!("{}: cannot list model dumps", data.display()))?;
    let mut dirs = Vec::new();
    for e in entries {
        let p = e.with_context(|| format!("{}: cannot list model dumps", data.display()))?.path();
        if crate::dump::is_model_dir(&p) {
            dirs.push(p);
        }
    }
    dirs.sort();
    ensure!(!dirs.is_empty(), "{}: no model dumps (directories holding trace.json or trace.json.gz)", data.display());
    Ok(dirs)
}

/// One model on one platform, with the sizes each row uses.
pub struct Prepared {
    /// Model name.
    pub model: String,
    /// The platform.
    pub platform: Platform,
    /// The training trace on the platform.
    pub workload: Workload,
    /// Planned and actual wire bytes per row.
    pub compressions: BTreeMap<Row, Compression>,
}

/// Builds the workload and row sizes of `m` on `platform` (FP32 platforms use the FP32 tables,
/// BF16 platforms the BF16 ones); with `engine`, every tensor's Eq. 2 engine is what that engine
/// takes for a transfer of its size instead of the platform's constant.
pub fn prepare(m: &ModelTables, platform: &Platform, engine: Option<&MeasuredEngine>) -> Prepared {
    let trace = &m.dump.train_trace;
    let mut w = Workload::new(trace, platform);
    if let Some(e) = engine {
        w.set_engine_timing(|t| e.timing(t.bytes as usize));
    }
    let (k, k1) = (&m.plan, &m.transfer);
    let compressions = match platform.precision {
        Precision::Fp32 => row_compressions(trace, &w, (&k.a_zvc, &k1.a_zvc), (&k.a_planezip, &k1.a_planezip), (&k.a_planezip, &k1.a_planezip)),
        Precision::Bf16Mixed => {
            row_compressions(trace, &w, (&k.b_zvc, &k1.b_zvc), (&k.b_planezip, &k1.b_planezip), (&k.b_planezip32, &k1.b_planezip32))
        }
    };
    Prepared { model: m.model.clone(), platform: platform.clone(), workload: w, compressions }
}

/// What a grid covers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridSpec {
    /// Model names, in case order.
    pub models: Vec<String>,
    /// Platforms, in case order.
    pub platforms: Vec<Platform>,
    /// Rows by command-line name, in case order.
    pub policies: Vec<String>,
    /// Budgets as fractions of the unlimited peak, in case order.
    pub budgets: Vec<f64>,
    /// The measured engine per tensor instead of the platforms' constant `engine_gb_per_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<MeasuredEngine>,
}

impl GridSpec {
    /// Number of cases.
    pub fn cases(&self) -> usize {
        self.models.len() * self.platforms.len() * self.policies.len() * self.budgets.len()
    }

    /// Case `i` as (model, platform, policy, budget) indices.
    pub fn case(&self, i: usize) -> (usize, usize, usize, usize) {
        let nb = self.budgets.len();
        let np = self.policies.len();
        let nf = self.platforms.len();
        (i / (nb * np * nf), i / (nb * np) % nf, i / nb % np, i % nb)
    }
}

/// One simulated point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridRun {
    /// Case number in the grid.
    pub case: usize,
    /// Model name.
    pub model: String,
    /// Platform name.
    pub platform: String,
    /// Host link per direction, GB/s.
    pub link_gb_per_s: f64,
    /// Engine throughput per direction, GB/s.
    pub engine_gb_per_s: f64,
    /// Row (command-line name).
    pub policy: String,
    /// Budget as a fraction of the unlimited peak.
    pub budget_fraction: f64,
    /// Budget in bytes.
    pub budget_bytes: u64,
    /// Unlimited-memory iteration time, ms.
    pub unlimited_ms: f64,
    /// Overhead against unlimited memory, % (`None` when no plan fitted).
    pub overhead_pct: Option<f64>,
    /// Simulated iteration time, ms.
    pub iteration_ms: Option<f64>,
    /// Compute-stream stall waiting for copies, ms.
    pub stall_ms: Option<f64>,
    /// Time spent recomputing dropped tensors, ms.
    pub recompute_ms: Option<f64>,
    /// Raw bytes swapped out.
    pub swapped_raw_bytes: Option<u64>,
    /// Bytes of those swaps on the link.
    pub swapped_wire_bytes: Option<u64>,
    /// Tensors swapped.
    pub swapped_tensors: Option<usize>,
    /// Tensors dropped (recomputed).
    pub dropped_tensors: Option<usize>,
    /// Plan that ran (portfolio member label).
    pub plan: Option<String>,
    /// Why no plan ran.
    pub error: Option<String>,
}

/// A grid's result (possibly one shard of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridResult {
    /// What the grid covers.
    pub spec: GridSpec,
    /// Total cases of the whole grid.
    pub total_cases: usize,
    /// `[K, N]` for shard K of N, `None` for the whole grid.
    pub shard: Option<[usize; 2]>,
    /// The runs of this shard, by case number.
    pub runs: Vec<GridRun>,
}

/// Parses `K/N` (1 ≤ K ≤ N).
pub fn parse_shard(s: &str) -> Result<[usize; 2]> {
    let (k, n) = s.split_once('/').with_context(|| format!("--shard {s:?}: expected K/N, e.g. 2/8"))?;
    let (k, n): (usize, usize) = (k.trim().parse().with_context(|| format!("--shard {s:?}: K"))?, n.trim().parse().with_context(|| format!("--shard {s:?}: N"))?);
    ensure!(n >= 1 && (1..=n).contains(&k), "--shard {s:?}: need 1 <= K <= N");
    Ok([k, n])
}

/// Runs the cases of `spec` (all, or those of `shard`) on `models`, which must hold every model
/// the spec names.
pub fn run_grid(models: &[ModelTables], spec: &GridSpec, shard: Option<[usize; 2]>, quiet: bool) -> Result<GridResult> {
    let by_name: BTreeMap<&str, &ModelTables> = models.iter().map(|m| (m.model.as_str(), m)).collect();
    let rows: Vec<Row> = spec.policies.iter().map(|p| parse_row(p)).collect::<Result<_>>()?;
    let cases: Vec<usize> = (0..spec.cases()).filter(|i| shard.is_none_or(|[k, n]| i % n == k - 1)).collect();
    // Prepare only the (model, platform) pairs this shard needs.
    let mut pairs: Vec<(usize, usize)> = cases.iter().map(|&i| {
        let (m, p, _, _) = spec.case(i);
        (m, p)
    }).collect();
    pairs.sort();
    pairs.dedup();
    let prepared: BTreeMap<(usize, usize), Prepared> = pairs
        .par_iter()
        .map(|&(m, p)| {
            let tables = by_name.get(spec.models[m].as_str()).with_context(|| format!("model {} not loaded", spec.models[m]))?;
            Ok(((m, p), prepare(tables, &spec.platforms[p], spec.engine.as_ref())))
        })
        .collect::<Result<_>>()?;
    let bar = progress::bar(cases.len() as u64, "simulating policies", quiet);
    let runs: Vec<GridRun> = cases
        .par_iter()
        .map(|&i| {
            let (m, p, r, b) = spec.case(i);
            let prep = &prepared[&(m, p)];
            let run = simulate(i, prep, rows[r], spec.budgets[b]);
            bar.inc(1);
            run
        })
        .collect();
    bar.finish_and_clear();
    Ok(GridResult { spec: spec.clone(), total_cases: spec.cases(), shard, runs })
}

/// Simulates one case.
pub fn simulate(case: usize, p: &Prepared, row: Row, budget_fraction: f64) -> GridRun {
    let w = &p.workload;
    let budget_bytes = w.budget_for_fraction(budget_fraction);
    let mut run = GridRun {
        case,
        model: p.model.clone(),
        platform: p.platform.name.clone(),
        link_gb_per_s: p.platform.link_gb_per_s,
        engine_gb_per_s: p.platform.engine_gb_per_s,
        policy: row_name(row).to_owned(),
        budget_fraction,
        budget_bytes,
        unlimited_ms: w.unlimited_ns() / 1e6,
        overhead_pct: None,
        iteration_ms: None,
        stall_ms: None,
        recompute_ms: None,
        swapped_raw_bytes: None,
        swapped_wire_bytes: None,
        swapped_tensors: None,
        dropped_tensors: None,
        plan: None,
        error: None,
    };
    match run_policy(row.policy(), w, &p.compressions[&row], budget_bytes) {
        Ok(o) => {
            let r = &o.report;
            run.overhead_pct = Some(r.overhead() * 100.0);
            run.iteration_ms = Some(r.iteration_ns / 1e6);
            run.stall_ms = Some(r.stall_ns / 1e6);
            run.recompute_ms = Some(r.recompute_ns / 1e6);
            run.swapped_raw_bytes = Some(r.swapped_raw_bytes);
            run.swapped_wire_bytes = Some(r.swapped_wire_bytes);
            run.swapped_tensors = Some(r.swapped_tensors);
            run.dropped_tensors = Some(r.dropped_tensors);
            run.plan = Some(o.plan_label);
        }
        Err(e) => run.error = Some(e.to_string()),
    }
    run
}

/// Combines shard results into the whole grid's result; every case must be present exactly once
/// and every shard must describe the same grid.
pub fn merge(parts: Vec<(PathBuf, GridResult)>) -> Result<GridResult> {
    let Some((first_path, first)) = parts.first() else { bail!("merge: no shard files given") };
    let spec = first.spec.clone();
    let total = first.total_cases;
    let mut runs: BTreeMap<usize, GridRun> = BTreeMap::new();
    for (path, part) in &parts {
        ensure!(part.spec == spec && part.total_cases == total, "{}: describes another grid than {}", path.display(), first_path.display());
        for r in &part.runs {
            ensure!(r.case < total, "{}: case {} outside the grid's {total} cases", path.display(), r.case);
            ensure!(runs.insert(r.case, r.clone()).is_none(), "{}: case {} appears in two shards", path.display(), r.case);
        }
    }
    if let Some(missing) = (0..total).find(|i| !runs.contains_key(i)) {
        bail!("merge: case {missing} of {total} is in no shard file (is a shard missing?)");
    }
    Ok(GridResult { spec, total_cases: total, shard: None, runs: runs.into_values().collect() })
}

/// Mean over models of one (platform, policy, budget) cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CellMean {
    /// Platform name.
    pub platform: String,
    /// Row name.
    pub policy: String,
    /// Budget fraction.
    pub budget_fraction: f64,
    /// Mean overhead in % over the models where a plan ran.
    pub overhead_pct: Option<f64>,
    /// Models where a plan ran.
    pub models: usize,
    /// Models tried (failures = `of_models - models`).
    pub of_models: usize,
    /// Mean stall in % of the unlimited iteration.
    pub stall_pct: Option<f64>,
    /// Mean recomputation time in % of the unlimited iteration.
    pub recompute_pct: Option<f64>,
    /// Total swapped raw bytes over the models where a plan ran.
    pub swapped_raw_bytes: u64,
}

/// Means over the runs whose model passes `include`, per (platform, policy, budget) in spec order.
pub fn means(g: &GridResult, include: impl Fn(&str) -> bool) -> Vec<CellMean> {
    let mut out = Vec::new();
    for p in &g.spec.platforms {
        for pol in &g.spec.policies {
            for &b in &g.spec.budgets {
                let of: Vec<&GridRun> = g.runs.iter().filter(|r| r.platform == p.name && &r.policy == pol && r.budget_fraction == b && include(&r.model)).collect();
                if of.is_empty() {
                    continue;
                }
                let ok: Vec<&GridRun> = of.iter().copied().filter(|r| r.overhead_pct.is_some()).collect();
                let mean = |f: &dyn Fn(&GridRun) -> f64| (!ok.is_empty()).then(|| ok.iter().map(|r| f(r)).sum::<f64>() / ok.len() as f64);
                out.push(CellMean {
                    platform: p.name.clone(),
                    policy: pol.clone(),
                    budget_fraction: b,
                    overhead_pct: mean(&|r| r.overhead_pct.unwrap_or(0.0)),
                    models: ok.len(),
                    of_models: of.len(),
                    stall_pct: mean(&|r| 100.0 * r.stall_ms.unwrap_or(0.0) / r.unlimited_ms),
                    recompute_pct: mean(&|r| 100.0 * r.recompute_ms.unwrap_or(0.0) / r.unlimited_ms),
                    swapped_raw_bytes: ok.iter().map(|r| r.swapped_raw_bytes.unwrap_or(0)).sum(),
                });
            }
        }
    }
    out
}

/// Finds a mean cell.
pub fn find_mean<'a>(ms: &'a [CellMean], platform: &str, policy: &str, budget: f64) -> Option<&'a CellMean> {
    ms.iter().find(|m| m.platform == platform && m.policy == policy && (m.budget_fraction - budget).abs() < 1e-9)
}

/// The result as CSV (one line per run, header first).
pub fn to_csv(g: &GridResult) -> String {
    let mut s = String::from(
        "case,model,platform,link_gb_per_s,engine_gb_per_s,policy,budget_fraction,budget_bytes,unlimited_ms,overhead_pct,iteration_ms,stall_ms,recompute_ms,swapped_raw_bytes,swapped_wire_bytes,swapped_tensors,dropped_tensors,plan,error\n",
    );
    let o = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:.6}"));
    let u = |v: Option<u64>| v.map_or(String::new(), |x| x.to_string());
    for r in &g.runs {
        let fields = [
            r.case.to_string(),
            csv_field(&r.model),
            csv_field(&r.platform),
            r.link_gb_per_s.to_string(),
            r.engine_gb_per_s.to_string(),
            csv_field(&r.policy),
            r.budget_fraction.to_string(),
            r.budget_bytes.to_string(),
            format!("{:.6}", r.unlimited_ms),
            o(r.overhead_pct),
            o(r.iteration_ms),
            o(r.stall_ms),
            o(r.recompute_ms),
            u(r.swapped_raw_bytes),
            u(r.swapped_wire_bytes),
            u(r.swapped_tensors.map(|x| x as u64)),
            u(r.dropped_tensors.map(|x| x as u64)),
            csv_field(r.plan.as_deref().unwrap_or("")),
            csv_field(r.error.as_deref().unwrap_or("")),
        ];
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}

/// Quotes a CSV field when it holds a comma, quote or newline (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_enumerate_the_product_in_order() {
        let spec = GridSpec {
            models: vec!["m0".into(), "m1".into()],
            platforms: vec![Platform::a(), Platform::b()],
            policies: vec!["bw".into(), "planezip".into(), "dte".into()],
            budgets: vec![0.3, 0.5],
            engine: None,
        };
        assert_eq!(spec.cases(), 24);
        assert_eq!(spec.case(0), (0, 0, 0, 0));
        assert_eq!(spec.case(1), (0, 0, 0, 1));
        assert_eq!(spec.case(2), (0, 0, 1, 0));
        assert_eq!(spec.case(6), (0, 1, 0, 0));
        assert_eq!(spec.case(12), (1, 0, 0, 0));
        assert_eq!(spec.case(23), (1, 1, 2, 1));
    }

    #[test]
    fn shard_syntax() {
        assert_eq!(parse_shard("2/8").unwrap(), [2, 8]);
        assert!(parse_shard("0/8").is_err());
        assert!(parse_shard("9/8").is_err());
        assert!(parse_shard("3").is_err());
    }

    #[test]
    fn rows_round_trip_their_names() {
        for (row, name) in ROW_NAMES {
            assert_eq!(parse_row(name).unwrap(), row);
        }
        assert!(parse_row("nope").is_err());
    }
}
