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

/// A one-flop module and a C++ main that clocks it, for the build-cache test.
const TINY_VERILOG: &str = "module tiny(input clk, input d, output reg q);\n  always @(posedge clk) q <= d;\nendmodule\n";
const TINY_MAIN: &str = "#include \"Vtiny.h\"\nint main() { Vtiny t; t.d = 1; t.clk = 0; t.eval(); t.clk = 1; t.eval(); return t.q ? 0 : 1; }\n";

/// Writes the tiny module's sources into `dir`; returns their paths.
fn tiny_sources(dir: &Path, verilog: &str) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let (v, c) = (dir.join("tiny.v"), dir.join("tiny_main.cpp"));
    std::fs::write(&v, verilog).unwrap();
    std::fs::write(&c, TINY_MAIN).unwrap();
    vec![v, c]
}

#[test]
fn a_verilated_build_is_reused_for_the_same_sources_in_another_folder_and_redone_when_they_change() {
    require("verilator");
    let root = work_dir("build-cache");
    let _ = std::fs::remove_dir_all(&root);
    let work = root.join("model");
    let build = |sources: &[PathBuf]| engine::hw::verilog::build_verilated(&work, sources, &[], "tiny", "vtiny").expect("verilator build");
    let (exe, first_s) = build(&tiny_sources(&root.join("debug-out"), TINY_VERILOG));
    assert!(first_s > 0.0, "the first build runs verilator");
    assert!(Command::new(&exe).status().unwrap().success(), "the built model clocks d into q");
    // The same files exported into another profile's folder: the model is reused.
    let (_, again_s) = build(&tiny_sources(&root.join("release-out"), TINY_VERILOG));
    assert_eq!(again_s, 0.0, "same names, lengths and contents: reused");
    // A changed source: rebuilt.
    let changed = TINY_VERILOG.replace("q <= d", "q <= ~d");
    let sources = tiny_sources(&root.join("release-out"), &changed);
    let (exe, changed_s) = build(&sources);
    assert!(changed_s > 0.0, "a changed source rebuilds");
    assert!(!Command::new(&exe).status().unwrap().success(), "the rebuilt model inverts d");
    // More Verilator arguments (the C++ at -O1): rebuilt (they are part of the stamp), then reused.
    let build_o1 = || engine::hw::verilog::build_verilated_with(&work, &sources, &[], "tiny", "vtiny", &["-MAKEFLAGS", "OPT_FAST=-O1"]).expect("verilator build at -O1");
    let (exe, o1_s) = build_o1();
    assert!(o1_s > 0.0, "other arguments rebuild");
    assert!(!Command::new(&exe).status().unwrap().success(), "the -O1 model inverts d too");
    assert_eq!(build_o1().1, 0.0, "the same arguments again: reused");
}
