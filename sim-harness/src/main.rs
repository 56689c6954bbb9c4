//! `sim-harness`: the PlaneZip main program. With no arguments it runs the paper's whole
//! evaluation on `data/`; `--help` lists the subcommands. Exit codes: 0 success, 1 error (bad
//! input file, I/O, engine disagreeing with the golden codec), 2 bad command line.

use clap::Parser;
use sim_harness::cli::Cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    match sim_harness::run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
