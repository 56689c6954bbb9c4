//! Command-line interface (clap derive). Each subcommand's arguments are one struct.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// PlaneZip engine model: lossless compression of DNN training activations swapped over PCIe.
#[derive(Debug, Parser)]
#[command(name = "sim-harness", version, about, long_about = None)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compression ratios of real tensors (.safetensors / .npy) with ZVC, BPC (DBX), BX, ZBX and PlaneZip.
    Ratios(RatiosArgs),
    /// Compress a .safetensors file into a PlaneZip container (docs/FORMAT.md §12).
    Compress(CompressArgs),
    /// Decompress a PlaneZip container back into the original .safetensors file.
    Decompress(DecompressArgs),
    /// The six memory policies (and the Fig. 5 ablations) on captured models at 30 % and 50 % budgets (or 30-90 %), platforms A and B.
    Policies(PoliciesArgs),
    /// PlaneZip beside zstd, lz4, byte-shuffle/split, ZipNN-style, BDI and entropy ceilings: ratio and single-core speed.
    Peers(crate::peers::PeersArgs),
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
pub struct RatiosArgs {
    /// Tensor files (.safetensors or .npy).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
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
