//! `sim-harness`: the PlaneZip main program. With no arguments it runs the paper's whole
//! evaluation on `data/`; `--help` lists the subcommands. Exit codes: 0 success, 1 error (bad
//! input file, I/O, engine disagreeing with the golden codec), 2 bad command line.

use clap::Parser;
use sim_harness::cli::Cli;
use std::process::ExitCode;

/// Stack of each worker thread: rust-hdl builds a hardware block as one large struct by value, and
/// the device-to-host unit does not fit the default 2 MiB (as `.cargo/config.toml`'s
/// `RUST_MIN_STACK` says for cargo's runs; this covers running the binary directly).
const WORKER_STACK_BYTES: usize = 64 << 20;

fn main() -> ExitCode {
    if let Err(e) = rayon::ThreadPoolBuilder::new().stack_size(WORKER_STACK_BYTES).build_global() {
        eprintln!("error: cannot start the worker threads: {e}");
        return ExitCode::from(1);
    }
    match sim_harness::run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
