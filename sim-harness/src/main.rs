//! `sim-harness`: the PlaneZip main program. Exit codes: 0 success (and no arguments: usage),
//! 1 error (bad input file, I/O), 2 bad command line.

use clap::{CommandFactory, Parser};
use sim_harness::cli::Cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    if std::env::args_os().len() == 1 {
        let _ = Cli::command().print_help();
        return ExitCode::SUCCESS;
    }
    match sim_harness::run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
