//! Library side of the `sim-harness` program: everything `main.rs` dispatches to, kept in a
//! library so integration tests can call it directly.
//!
//! * [`cli`]: the command line (clap derive); [`commands`]: what each subcommand does.
//! * [`eval`]: the default run, the paper's whole evaluation in one report.
//! * [`tensors`], [`inputs`]: reading `.safetensors` / `.npy` files and dump directories.
//! * [`convert`]: f32 → bf16 (round to nearest even).
//! * [`ratios`], [`measure`] and [`report`]: compression ratios and their tables.
//! * [`container_cmd`]: `compress` / `decompress`.
//! * [`dump`]: the capture dumps of docs/DUMP-FORMAT.md.
//! * [`policies`]: the memory policies on the captured models; [`grid`]: any grid of them,
//!   sharded and merged.
//! * [`engine_backend`]: the engine at `model`, `sampled` or `cycle` fidelity; [`stream`]: the
//!   golden-codec check of what it produced; [`clock`]: the engine clock and its source.
//! * [`figures`]: the `report` folder (CSV, JSON, SVG, index.html).
//! * [`vcd_out`]: `stream --vcd`, a readable waveform of the lane.
//! * [`progress`]: progress bars.
//! * [`peers`]: PlaneZip beside software codecs (ratio and speed).
//! * [`sample_check`]: the committed sample against the full dumps it was drawn from.

pub mod cli;
pub mod clock;
pub mod commands;
pub mod container_cmd;
pub mod convert;
pub mod dump;
pub mod engine_backend;
pub mod eval;
pub mod figures;
pub mod grid;
pub mod inputs;
pub mod measure;
pub mod peers;
pub mod policies;
pub mod progress;
pub mod ratios;
pub mod report;
pub mod sample_check;
pub mod stream;
/// Reading `.safetensors` / `.npy` files: [`engine::tensor_files`], under the name the harness's
/// commands use.
pub use engine::tensor_files as tensors;
pub mod vcd_out;

use anyhow::Result;
use cli::Cli;

/// Runs one parsed command line, printing its results to stdout.
pub fn run(cli: Cli) -> Result<()> {
    commands::run(cli)
}
