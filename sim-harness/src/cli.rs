//! Command-line interface (clap derive). Each subcommand's arguments are one struct.
//!
//! Exit codes (every subcommand): 0 success; 1 error (bad input file, I/O, a policy that found
//! no plan where one was required, or the engine disagreeing with the golden codec); 2 bad
//! command line.

use crate::engine_backend::{Fidelity, SimulatorChoice};
use crate::measure::Precision;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// PlaneZip engine model: lossless compression of DNN training activations swapped over PCIe.
///
/// With no subcommand, runs the paper's whole evaluation (§V: Fig. 3-6, Tables III-IV) on the
/// model dumps under --data and prints the report, paper values beside ours.
#[derive(Debug, Parser)]
#[command(name = "sim-harness", version, about, long_about, after_help = "Example: cargo run --release -p sim-harness            # the whole evaluation on data/\n         cargo run --release -p sim-harness -- --json > report.json")]
pub struct Cli {
    /// What to run (default: the whole evaluation).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of the default run.
    #[command(flatten)]
    pub run: EvalArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compression ratios of real tensors (dump directories, .safetensors / .npy) with ZVC, BPC (DBX), BX, ZBX and PlaneZip, per tensor and per model.
    Ratios(RatiosArgs),
    /// Compress a .safetensors file into a PlaneZip container (docs/FORMAT.md §12).
    Compress(CompressArgs),
    /// Decompress a PlaneZip container back into the original .safetensors file.
    Decompress(DecompressArgs),
    /// The six memory policies (and the Fig. 5 ablations) on captured models at 30 % and 50 % budgets (or 30-90 %), platforms A and B.
    Policies(PoliciesArgs),
    /// PlaneZip beside zstd, lz4, byte-shuffle/split, ZipNN-style, BDI and entropy ceilings: ratio and single-core speed.
    Peers(crate::peers::PeersArgs),
    /// Does the committed sample represent the full tensors? Whole-model ZVC and PlaneZip ratios (bf16, fp32) of each sample against its full dump, and Table IV on both; exits 1 outside --tolerance-pct.
    SampleCheck(crate::sample_check::SampleCheckArgs),
    /// One model / platform / budget / policy: KEEP, SWAP or DROP per saved tensor with prefetch points, stalls, recomputation and swapped bytes.
    Plan(PlanArgs),
    /// Models x budgets x platforms x policies -> CSV and JSON; splits into --shard K/N pieces for batch arrays.
    Sweep(SweepArgs),
    /// Combine `sweep --shard` (or `stream --shard`) JSON files into the result of the unsharded run.
    Merge(MergeArgs),
    /// Table IV: PlaneZip ratio per iteration and the wire-size error of the tensor, op-type and global predictors.
    Predict(PredictArgs),
    /// Fig. 6: mean overhead at 50 % on platform B as the link (12-192 GB/s) and the engine (link speed to 128 GB/s) vary.
    Sensitivity(SensitivityArgs),
    /// Fig. 5: the ablations at a 30 % budget (mean overhead over the models).
    Ablation(AblationArgs),
    /// Tensors through the engine (cycle-accurate lane simulation, sampled or model), checked against the golden codec.
    Stream(StreamArgs),
    /// Everything of the default run into a folder: CSV, JSON, SVG plots and an index.html.
    Report(ReportArgs),
}

/// Options shared by the evaluation commands.
#[derive(Debug, Clone, clap::Args)]
pub struct DataArgs {
    /// Directory holding one dump directory per model (docs/DUMP-FORMAT.md).
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// Models to use (names under --data or dump directories), comma-separated; default: all.
    #[arg(long, value_delimiter = ',')]
    pub models: Vec<String>,
    /// Print JSON instead of tables (and no progress bars).
    #[arg(long)]
    pub json: bool,
}

/// Options of the default run and of `report`.
#[derive(Debug, Clone, clap::Args)]
pub struct EvalArgs {
    /// Directory holding one dump directory per model.
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// Models to evaluate (names under --data or dump directories), comma-separated; default: all.
    #[arg(long, value_delimiter = ',')]
    pub models: Vec<String>,
    /// Print the report as JSON (and no progress bars).
    #[arg(long)]
    pub json: bool,
    /// Engine fidelity for the engine figures (default: `cycle` when Verilator is on PATH, else `sampled` on the rust-hdl simulation).
    #[arg(long, value_enum)]
    pub fidelity: Option<Fidelity>,
    /// Simulator of the hardware for `cycle` and `sampled`.
    #[arg(long, value_enum, default_value = "auto")]
    pub simulator: SimulatorChoice,
    /// k of `sampled`: every k-th chunk of each tensor cycle by cycle (default: chosen so about 16 chunks run through pz_engine).
    #[arg(long)]
    pub sample_every: Option<usize>,
    /// Engine clock in GHz (default: docs/area/*.delay.json max_clock_mhz, else docs/AREA.md's 86 MHz).
    #[arg(long)]
    pub engine_clock_ghz: Option<f64>,
    /// An extra platform file (TOML or JSON, planner::platform format) evaluated beside A and B in Fig. 4.
    #[arg(long)]
    pub platform: Option<PathBuf>,
}

/// Symbol width forced on every tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SymbolBits {
    /// 16-bit symbols.
    #[value(name = "16")]
    W16,
    /// 32-bit symbols (the paper's ablation for bf16: 1.71x -> 1.65x).
    #[value(name = "32")]
    W32,
}

impl SymbolBits {
    /// The engine's symbol width.
    pub fn width(self) -> engine::golden::SymbolWidth {
        match self {
            SymbolBits::W16 => engine::golden::SymbolWidth::W16,
            SymbolBits::W32 => engine::golden::SymbolWidth::W32,
        }
    }
}

/// Arguments of `ratios`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: sim-harness ratios data/gpt2 data/resnet50/iter1.safetensors --summary")]
pub struct RatiosArgs {
    /// Model dump directories (their saved activations of --iteration) or tensor files (.safetensors or .npy).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Captured iteration read from dump directories.
    #[arg(long, default_value_t = 0)]
    pub iteration: usize,
    /// Code every tensor with this symbol width instead of the one its dtype selects.
    #[arg(long, value_enum)]
    pub symbol_bits: Option<SymbolBits>,
    /// Print the report as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Print only the totals, not one row per tensor.
    #[arg(long)]
    pub summary: bool,
}

/// Element type to store before compressing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StoreDtype {
    /// Convert f32 tensors to bf16 (round to nearest even) first.
    Bf16,
}

/// Arguments of `compress`.
#[derive(Debug, clap::Args)]
pub struct CompressArgs {
    /// Input .safetensors file.
    pub input: PathBuf,
    /// Output container file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Convert f32 tensors before compressing (the output then decompresses to the converted file).
    #[arg(long, value_enum)]
    pub dtype: Option<StoreDtype>,
    /// Code every tensor with this symbol width.
    #[arg(long, value_enum)]
    pub symbol_bits: Option<SymbolBits>,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `decompress`.
#[derive(Debug, clap::Args)]
pub struct DecompressArgs {
    /// Input container file.
    pub input: PathBuf,
    /// Output .safetensors file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `policies`.
#[derive(Debug, clap::Args)]
pub struct PoliciesArgs {
    /// Model dump directories (docs/DUMP-FORMAT.md §2–3); default: every model under `--data`.
    pub models: Vec<PathBuf>,
    /// Directory holding one dump directory per model.
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// Skip the Fig. 5 ablations (30 % budget).
    #[arg(long)]
    pub no_ablations: bool,
    /// Run the six policies at every budget of Fig. 4, 30 % to 90 % of the peak in steps of 10,
    /// instead of 30 % and 50 % only.
    #[arg(long)]
    pub budgets: bool,
    /// Print the report as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// A budget argument (`--budget`, each of `--budgets`): a fraction of the unlimited-memory peak
/// in (0, 1]; 0, negative, above 1 (100 %) or not a number is refused before anything runs.
pub fn budget_fraction(s: &str) -> Result<f64, String> {
    let b: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number (a fraction of the peak, e.g. 0.3)"))?;
    if b > 0.0 && b <= 1.0 {
        Ok(b)
    } else {
        Err(format!("{s} is not a fraction of the peak in (0, 1] (0.3 = 30 %; 0 % and above 100 % have no plan)"))
    }
}

/// A platform: `A`, `B` or a platform file (TOML or JSON).
pub fn parse_platform(s: &str) -> anyhow::Result<planner::platform::Platform> {
    let p = std::path::Path::new(s);
    if p.extension().is_some() || p.exists() {
        Ok(planner::platform::Platform::load(p)?)
    } else {
        Ok(planner::platform::Platform::by_name(s)?)
    }
}

/// Arguments of `plan`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: sim-harness plan gpt2 --platform B --budget 0.3 --policy planezip")]
pub struct PlanArgs {
    /// Model (name under --data, or a dump directory).
    pub model: String,
    /// Directory holding the dumps.
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// Platform: A, B or a platform file (.toml / .json).
    #[arg(long, default_value = "B")]
    pub platform: String,
    /// Budget as a fraction of the unlimited-memory peak, in (0, 1].
    #[arg(long, default_value_t = 0.5, value_parser = budget_fraction)]
    pub budget: f64,
    /// Policy: recomp, swap, dte, bw, bw+zvc, planezip, dte+c, unaware, planezip-32, planezip-optype, planezip-oracle.
    #[arg(long, default_value = "planezip")]
    pub policy: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `sweep`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: sim-harness sweep --models gpt2,resnet50 --budgets 0.3,0.5 --platforms A,B,my.toml --shard 2/8 --out-json shard2.json")]
pub struct SweepArgs {
    /// Dumps and output format.
    #[command(flatten)]
    pub data: DataArgs,
    /// Platforms: A, B or platform files, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "A,B")]
    pub platforms: Vec<String>,
    /// Budgets as fractions of the peak in (0, 1], comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0.3,0.4,0.5,0.6,0.7,0.8,0.9", value_parser = budget_fraction)]
    pub budgets: Vec<f64>,
    /// Policies, comma-separated (see `plan --help`).
    #[arg(long, value_delimiter = ',', default_value = "recomp,swap,dte,bw,bw+zvc,planezip")]
    pub policies: Vec<String>,
    /// Run only shard K of N (case i belongs to shard i mod N + 1).
    #[arg(long)]
    pub shard: Option<String>,
    /// Write the JSON result to this file.
    #[arg(long)]
    pub out_json: Option<PathBuf>,
    /// Write the CSV result to this file.
    #[arg(long)]
    pub out_csv: Option<PathBuf>,
}

/// Arguments of `merge`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: sim-harness merge shard*.json --out-json sweep.json --out-csv sweep.csv")]
pub struct MergeArgs {
    /// Shard JSON files written by `sweep --shard K/N --out-json` (or `stream --shard K/N --out-json`).
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// Write the merged JSON here.
    #[arg(long)]
    pub out_json: Option<PathBuf>,
    /// Write the merged CSV here.
    #[arg(long)]
    pub out_csv: Option<PathBuf>,
    /// Print the merged JSON to stdout.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `predict`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: sim-harness predict --models gpt2,resnet50 --json")]
pub struct PredictArgs {
    /// Dumps and output format.
    #[command(flatten)]
    pub data: DataArgs,
}

/// Arguments of `sensitivity`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: sim-harness sensitivity --models gpt2 --links 12,24,48 --engines 24,64,128")]
pub struct SensitivityArgs {
    /// Dumps and output format.
    #[command(flatten)]
    pub data: DataArgs,
    /// Host-link bandwidths of Fig. 6a, GB/s per direction (engine four times the link).
    #[arg(long, value_delimiter = ',', default_value = "12,24,48,96,192")]
    pub links: Vec<f64>,
    /// Engine throughputs of Fig. 6b, GB/s per direction (link 24 GB/s).
    #[arg(long, value_delimiter = ',', default_value = "24,32,48,64,96,128")]
    pub engines: Vec<f64>,
    /// Budget as a fraction of the peak, in (0, 1].
    #[arg(long, default_value_t = 0.5, value_parser = budget_fraction)]
    pub budget: f64,
}

/// Arguments of `ablation`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: sim-harness ablation --models gpt2,densenet121 --json")]
pub struct AblationArgs {
    /// Dumps and output format.
    #[command(flatten)]
    pub data: DataArgs,
    /// Budget as a fraction of the peak, in (0, 1].
    #[arg(long, default_value_t = 0.3, value_parser = budget_fraction)]
    pub budget: f64,
}

/// Arguments of `stream`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: sim-harness stream data/minilm --fidelity cycle\n         sim-harness stream data/gpt2/iter0.safetensors --fidelity sampled --sample-every 16 --vcd gpt2.vcd --vcd-blocks 8")]
pub struct StreamArgs {
    /// Model dump directories or tensor files (.safetensors / .npy).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Captured iteration read from dump directories.
    #[arg(long, default_value_t = 0)]
    pub iteration: usize,
    /// Precision: bf16 converts F32 tensors (RNE) and codes them with 16-bit symbols.
    #[arg(long, value_enum, default_value = "bf16")]
    pub precision: PrecisionArg,
    /// Engine fidelity: `cycle` every chunk both ways through the hardware, `sampled` every k-th, `model` none (size and latency models).
    #[arg(long, value_enum, default_value = "cycle")]
    pub fidelity: Fidelity,
    /// Simulator of the hardware: `auto` = Verilator (the exported engine top pz_engine, built on first use and cached) when on PATH, else rust-hdl.
    #[arg(long, value_enum, default_value = "auto")]
    pub simulator: SimulatorChoice,
    /// k of `sampled`.
    #[arg(long, default_value_t = 8)]
    pub sample_every: usize,
    /// Seed of random backpressure (0: none): d2h write port, h2d descriptor/beat/write ports held off about one cycle in four.
    #[arg(long, default_value_t = 0)]
    pub backpressure_seed: u32,
    /// Engine clock in GHz (default: docs/area/*.delay.json, else docs/AREA.md's 86 MHz).
    #[arg(long)]
    pub engine_clock_ghz: Option<f64>,
    /// Only tensor shard K of N (tensor i belongs to shard i mod N + 1).
    #[arg(long)]
    pub shard: Option<String>,
    /// Write the JSON result to this file (what `merge` combines).
    #[arg(long)]
    pub out_json: Option<PathBuf>,
    /// Print one row per tensor.
    #[arg(long)]
    pub per_tensor: bool,
    /// Also write the first --vcd-blocks blocks of one tensor through a lane as a VCD (README lists the signals).
    #[arg(long)]
    pub vcd: Option<PathBuf>,
    /// Blocks in the VCD.
    #[arg(long, default_value_t = 8)]
    pub vcd_blocks: usize,
    /// Tensor of the VCD (`name` or `model:name`; default: the first with enough blocks).
    #[arg(long)]
    pub vcd_tensor: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Precision on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PrecisionArg {
    /// BF16 (RNE from F32), 16-bit symbols.
    Bf16,
    /// As stored.
    Fp32,
}

impl PrecisionArg {
    /// The measurement precision.
    pub fn precision(self) -> Precision {
        match self {
            PrecisionArg::Bf16 => Precision::Bf16,
            PrecisionArg::Fp32 => Precision::Fp32,
        }
    }
}

/// Arguments of `report`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example: sim-harness report out/   # then open out/index.html")]
pub struct ReportArgs {
    /// Output folder (created; files inside are replaced).
    pub dir: PathBuf,
    /// Write only the SVG plots (what docs/figures/ holds: `report docs/figures --svg-only --fidelity model`).
    #[arg(long)]
    pub svg_only: bool,
    /// Options of the evaluation.
    #[command(flatten)]
    pub eval: EvalArgs,
}
