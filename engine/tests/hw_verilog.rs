//! The exported lane Verilog: `yosys_validate` and `verilator --lint-only -Wall` (no warning but
//! WIDTH), through the shared Verilog reader and tool driver [`engine::hw::verilog`]. rust-hdl can
//! export wrong Verilog while its Rust simulation is right, so this checks the netlist itself.
//! Needs yosys and verilator: `scripts/install-hdl-tools.sh`. The lane's Verilog is run against
//! the golden encoder on the shared corner vectors (and on `data/`) in Verilator by
//! `cocotb-free-tests/tests/lane.rs`, which also compares Icarus with Verilator cycle for cycle.

use engine::hw::verilog::{lint, split_modules};
use engine::hw::{LANE_MODULE, compressor_lane_verilog};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const INSTALL: &str = "scripts/install-hdl-tools.sh";

/// Fails the test with the install hint when `tool` is not on PATH.
fn require(tool: &str) {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "`{tool}` is not installed: run {INSTALL} (installs yosys and verilator)"
    );
}

/// The exported Verilog, generated once per test binary.
fn verilog() -> &'static str {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(compressor_lane_verilog)
}

fn work_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn lane_verilog_passes_yosys_validate() {
    require("yosys");
    // rust-hdl's check elaborates a module named `top`: give it the exported netlist with only
    // the top module's name changed back.
    let as_top = verilog().replacen(&format!("module {LANE_MODULE}("), "module top(", 1);
    rust_hdl::prelude::yosys_validate(LANE_MODULE, &as_top).expect("yosys_validate of the exported lane");
}

#[test]
fn lane_verilog_lints_clean_except_width() {
    let dir = work_dir("lint");
    let _ = std::fs::remove_dir_all(&dir);
    let files = split_modules(verilog(), &dir).expect("write one file per module");
    let bad = lint(&files, LANE_MODULE).unwrap_or_else(|e| panic!("{e}"));
    assert!(bad.is_empty(), "verilator -Wall reported {} non-WIDTH problems:\n{}", bad.len(), bad.join("\n"));
}
