//! The exported lane Verilog: `yosys_validate`, `verilator --lint-only -Wall` (no warning but
//! WIDTH), and the corner vectors run through the Verilog in Verilator, compared with the golden
//! encoder. rust-hdl can export wrong Verilog while its Rust simulation is right, so this checks
//! the netlist itself. Needs yosys and verilator (≥ 5.0 for `--binary --timing`):
//! `scripts/install-hdl-tools.sh`. (Icarus runs the lane too since every port between modules is
//! written once per evaluation; `cocotb-free-tests` compares it with Verilator cycle for cycle.)

use engine::golden::{BLOCK_BYTES, SymbolWidth, encode_block};
use engine::hw::{LANE_MODULE, compressor_lane_verilog};
use engine::vectors::{Vector, parse_file};
use std::fmt::Write as _;
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

/// Writes one file per module (`<module>.v`, as Verilator's DECLFILENAME rule wants) into a fresh
/// directory and returns the file paths, top module first.
fn write_modules(dir: &Path) -> Vec<PathBuf> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut files = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in verilog().lines() {
        if let Some(rest) = line.trim_start().strip_prefix("module ") {
            let name = rest.split(['(', ' ', ';']).next().unwrap().to_string();
            current = Some((name, String::new()));
        }
        if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
        if line.trim_start().starts_with("endmodule") {
            let (name, text) = current.take().expect("endmodule without module");
            let path = dir.join(format!("{name}.v"));
            std::fs::write(&path, text).unwrap();
            files.push(path);
        }
    }
    assert!(current.is_none(), "unterminated module");
    files.sort_by_key(|p| p.file_stem().unwrap() != LANE_MODULE);
    files
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
    require("verilator");
    let files = write_modules(&work_dir("lint"));
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "-Wno-fatal", "--top-module", LANE_MODULE])
        .args(&files)
        .output()
        .expect("run verilator");
    let log = String::from_utf8_lossy(&out.stderr);
    let bad: Vec<&str> = log
        .lines()
        .filter(|l| (l.starts_with("%Warning-") && !l.starts_with("%Warning-WIDTH")) || l.starts_with("%Error"))
        .collect();
    assert!(
        bad.is_empty(),
        "verilator -Wall reported {} non-WIDTH problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(out.status.success(), "verilator failed:\n{log}");
}

/// Beats of `blocks` (each its own 128-byte transfer) as `$readmemh` lines:
/// `{id[7:0], last, w16, tail[6:0], 7'b0, word7 … word0}` = 280 bits.
fn beat_lines(blocks: &[([u8; BLOCK_BYTES], SymbolWidth)]) -> String {
    let mut text = String::new();
    for (i, (block, width)) in blocks.iter().enumerate() {
        for beat in 0..4 {
            let last = beat == 3;
            let ctrl: u32 =
                ((i as u32 & 0xFF) << 16) | ((last as u32) << 15) | (((*width == SymbolWidth::W16) as u32) << 14);
            write!(text, "{ctrl:06x}").unwrap();
            for k in (0..8).rev() {
                let o = 32 * beat + 4 * k;
                let w = u32::from_le_bytes(block[o..o + 4].try_into().unwrap());
                write!(text, "{w:08x}").unwrap();
            }
            text.push('\n');
        }
    }
    text
}

/// A testbench that streams `beats.hex` into the lane with the output always ready and prints
/// `tag len payload0 … payload31` for every block that leaves.
fn testbench(beats: usize, blocks: usize) -> String {
    let mut tb = String::new();
    writeln!(tb, "module tb;").unwrap();
    writeln!(
        tb,
        "  reg clock = 0; reg reset = 1; integer bi = 0; integer nout = 0; integer cycles = 0;"
    )
    .unwrap();
    writeln!(tb, "  reg [279:0] beats [0:{}];", beats - 1).unwrap();
    writeln!(tb, "  wire [279:0] cur = beats[bi];").unwrap();
    writeln!(tb, "  wire beat_valid = (bi < {beats}) && !reset;").unwrap();
    writeln!(
        tb,
        "  wire beat_ready; wire out_valid; wire [2:0] out_tag; wire [10:0] out_len; wire [7:0] out_id; wire out_last;"
    )
    .unwrap();
    writeln!(tb, "  wire [31:0] p [0:31]; wire [31:0] b [0:31];").unwrap();
    write!(
        tb,
        "  {LANE_MODULE} dut(.clock(clock), .reset(reset), .beat_valid(beat_valid), .beat_ready(beat_ready),"
    )
    .unwrap();
    for k in 0..8 {
        write!(tb, " .beat_data${k}(cur[{}:{}]),", 32 * k + 31, 32 * k).unwrap();
    }
    write!(
        tb,
        " .beat_last(cur[271]), .desc_w16(cur[270]), .desc_id(cur[279:272]), .desc_tail_bytes(cur[269:263]),"
    )
    .unwrap();
    write!(tb, " .out_valid(out_valid), .out_ready(1'b1), .out_tag(out_tag), .out_len(out_len), .out_id(out_id), .out_last(out_last)").unwrap();
    for k in 0..32 {
        write!(tb, ", .out_payload${k}(p[{k}]), .out_block${k}(b[{k}])").unwrap();
    }
    writeln!(tb, ");").unwrap();
    writeln!(tb, "  always #5 clock = ~clock;").unwrap();
    writeln!(
        tb,
        "  initial begin $readmemh(\"beats.hex\", beats); #22 reset = 0; end"
    )
    .unwrap();
    writeln!(tb, "  always @(posedge clock) begin").unwrap();
    writeln!(tb, "    cycles <= cycles + 1;").unwrap();
    writeln!(tb, "    if (beat_valid && beat_ready) bi <= bi + 1;").unwrap();
    write!(
        tb,
        "    if (!reset && out_valid) begin $write(\"%h %h\", out_tag, out_len);"
    )
    .unwrap();
    for k in 0..32 {
        write!(tb, " $write(\" %h\", p[{k}]);").unwrap();
    }
    writeln!(tb, " $write(\"\\n\"); nout <= nout + 1; end").unwrap();
    writeln!(
        tb,
        "    if (nout == {blocks} || cycles > {}) $finish;",
        blocks * 8 + 100
    )
    .unwrap();
    writeln!(tb, "  end\nendmodule").unwrap();
    tb
}

#[test]
fn lane_verilog_in_verilator_matches_the_golden_encoder_on_the_corner_vectors() {
    require("verilator");
    let dir = work_dir("verilator");
    let mut files = write_modules(&dir);
    let vectors: Vec<Vector> = [include_str!("vectors/w32.txt"), include_str!("vectors/w16.txt")]
        .into_iter()
        .flat_map(|text| parse_file(text).expect("parse the shared vectors"))
        .collect();
    let blocks: Vec<([u8; BLOCK_BYTES], SymbolWidth)> = vectors.iter().map(|v| (v.input, v.width)).collect();
    std::fs::write(dir.join("beats.hex"), beat_lines(&blocks)).unwrap();
    std::fs::write(dir.join("tb.v"), testbench(blocks.len() * 4, blocks.len())).unwrap();
    files.push(dir.join("tb.v"));
    let t = std::time::Instant::now();
    let build = Command::new("verilator")
        .args([
            "--binary",
            "--timing",
            "-Wno-fatal",
            "-Wno-lint",
            "-Wno-style",
            "-O1",
            "-j",
            "2",
            "--top-module",
            "tb",
            "-o",
            "vtb",
            // The model runs 16k cycles: compile its C++ unoptimised, which builds fastest.
            "-MAKEFLAGS",
            "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0",
            "--Mdir",
        ])
        .arg(dir.join("obj"))
        .args(&files)
        .current_dir(&dir)
        .output()
        .expect("run verilator");
    assert!(
        build.status.success(),
        "verilator build failed:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let built = t.elapsed();
    let run = Command::new(dir.join("obj").join("vtb"))
        .current_dir(&dir)
        .output()
        .expect("run the Verilator model");
    assert!(
        run.status.success(),
        "Verilator model failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    eprintln!(
        "verilator: built in {built:?}, {} blocks in {:?}",
        blocks.len(),
        t.elapsed() - built
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let lines: Vec<&str> = stdout.lines().filter(|l| l.split_whitespace().count() == 34).collect();
    assert_eq!(
        lines.len(),
        blocks.len(),
        "Verilog lane delivered {} of {} blocks",
        lines.len(),
        blocks.len()
    );
    let mut mismatches = 0;
    for (i, (line, v)) in lines.iter().zip(&vectors).enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let tag = u32::from_str_radix(f[0], 16).unwrap();
        let len = u32::from_str_radix(f[1], 16).unwrap();
        let mut payload: Vec<u8> = f[2..]
            .iter()
            .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_be_bytes())
            .collect();
        payload.truncate(len.div_ceil(8) as usize);
        let golden = encode_block(&v.input, v.width);
        assert_eq!(golden, v.encoding, "vector {i} disagrees with the golden encoder");
        if tag != golden.tag as u32 || len != golden.payload_bits || payload != golden.payload {
            if mismatches < 5 {
                eprintln!(
                    "vector {i} ({:?}): verilog tag {tag} len {len}, golden {:?} {}",
                    v.width, golden.tag, golden.payload_bits
                );
            }
            mismatches += 1;
        }
    }
    assert_eq!(mismatches, 0, "exported Verilog disagrees with the golden encoder");
}
