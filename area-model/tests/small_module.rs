//! The area/timing flow on a small module (seconds, not the lane): Yosys maps it on Nangate45,
//! the per-module table adds up to the total, the flop count is exact, and OpenSTA finds its
//! register-to-register path. Needs yosys and sta (`scripts/install-area-tools.sh`).

use area_model::{ASAP7_RVT_TT, Flow, LIBERTY_DIR, Liberty, NANGATE45_TYP, block_modules, synthesize};
use std::path::{Path, PathBuf};

/// A 16-bit accumulator in rust-hdl's naming: top `t`, block `t$acc` with its flop module
/// `t$acc$q`, and a 4-bit output register in the top.
const SMALL: &str = "
module t(clock, d, q, c);
  input wire clock; input wire [15:0] d; output wire [15:0] q; output reg [3:0] c;
  t$acc acc(.clock(clock), .d(d), .q(q));
  always @(posedge clock) c <= c + {3'b0, q[15]};
endmodule
module t$acc(clock, d, q);
  input wire clock; input wire [15:0] d; output wire [15:0] q;
  t$acc$q r(.clock(clock), .d(q + d), .q(q));
endmodule
module t$acc$q(clock, d, q);
  input wire clock; input wire [15:0] d; output reg [15:0] q;
  always @(posedge clock) q <= d;
endmodule
";

fn work() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("area-small")
}

#[test]
fn keeps_blocks_with_children_and_flattens_flop_modules() {
    let mods: Vec<String> = ["t", "t$acc", "t$acc$q", "t$r"].map(String::from).to_vec();
    assert_eq!(block_modules(&mods, "t"), vec!["t$acc".to_string()]);
}

#[test]
fn small_module_on_nangate45_has_exact_flops_consistent_area_and_a_timed_path() {
    let work = work();
    std::fs::create_dir_all(&work).unwrap();
    let rtl = work.join("t.v");
    std::fs::write(&rtl, SMALL).unwrap();
    let lib = Liberty::open(&Path::new(LIBERTY_DIR).join(NANGATE45_TYP), &work.join("lib")).unwrap();
    assert_eq!(lib.time_unit_ps, 1000.0);
    assert!(lib.flops.iter().any(|f| f == "DFF_X1"), "DFF_X1 not found among {} flops", lib.flops.len());
    assert_eq!(lib.buffer_cell.as_deref(), Some("BUF_X2"), "ABC's input-drive model for delay mappings");
    let flow = Flow { abc_delay_target_ps: None, flatten_all: false, share: true };
    let area = synthesize(&[rtl], "t", std::slice::from_ref(&lib), &flow, &work).unwrap().remove(0);
    assert_eq!(area.flops, 20, "16 accumulator + 4 counter flops: {area:?}");
    let names: Vec<&str> = area.modules.iter().map(|m| m.module.as_str()).collect();
    assert_eq!(names, ["t", "t$acc"]);
    let sum: f64 = area.modules.iter().map(|m| m.area_um2).sum();
    assert!((sum - area.total_um2).abs() < 0.01, "modules {sum} vs total {}", area.total_um2);
    // A 16-bit adder and 20 flops on Nangate45: DFF_X1 is 4.522 µm², so 20 flops alone are 90 µm².
    assert!(area.total_um2 > 90.0 && area.total_um2 < 400.0, "{}", area.total_um2);

    let t = area_model::sta(&lib, &area.netlist, "t", "clock", 2000.0, &work).unwrap();
    // The worst path runs through the 16-bit carry chain: longer than one gate, shorter than 2 ns.
    assert!(t.min_period_ps > 200.0 && t.min_period_ps < 2000.0, "{}", t.report);
    assert!(t.slack_ps > 0.0);
    assert!(t.path_stages >= 4, "{}", t.report);
    assert_eq!(t.arc_checks.len(), t.path_stages, "every cell of the path re-derived");
    assert!(t.arc_max_deviation_ps < 0.5, "OpenSTA vs the Liberty tables: {:?}", t.arc_checks);
}

#[test]
fn sta_compatible_defines_a_missing_template_from_its_x1_twin() {
    let lib = "library (l) {\n  lu_table_template (d_x1) {\n    variable_1 : input_net_transition;\n  }\n  cell (a) {\n    cell_rise (d_x1) { }\n  }\n  cell (f) {\n    cell_rise (d) { }\n    fall_power (scalar) { }\n  }\n}\n";
    let fixed = area_model::sta_compatible(lib).expect("template d is missing");
    assert!(fixed.contains("  lu_table_template (d) {\n    variable_1 : input_net_transition;\n  }\n  cell (a)"), "{fixed}");
    assert!(area_model::sta_compatible(&fixed).is_none());
}

/// The merged ASAP7 library as shipped gives OpenSTA no clock-to-Q arcs ("No paths found");
/// with the template fix the accumulator's carry chain is timed, in ps.
#[test]
fn small_module_on_asap7_is_timed_after_the_template_fix() {
    let work = work().join("asap7");
    std::fs::create_dir_all(&work).unwrap();
    let rtl = work.join("t.v");
    std::fs::write(&rtl, SMALL).unwrap();
    let lib = Liberty::open(&Path::new(LIBERTY_DIR).join(ASAP7_RVT_TT), &work.join("lib")).unwrap();
    assert_eq!(lib.time_unit_ps, 1.0);
    assert_ne!(lib.sta_path, lib.path, "the shipped ASAP7 merge lacks delay_template_7x7");
    assert_eq!(lib.buffer_cell.as_deref(), Some("BUFx2_ASAP7_75t_R"));
    let flow = Flow { abc_delay_target_ps: None, flatten_all: false, share: true };
    let area = synthesize(&[rtl], "t", std::slice::from_ref(&lib), &flow, &work).unwrap().remove(0);
    assert_eq!(area.flops, 20);
    // 20 DFFHQNx1 at 0.2916 µm² each are 5.8 µm²; the whole design is a few times that.
    assert!(area.total_um2 > 5.8 && area.total_um2 < 40.0, "{}", area.total_um2);
    let t = area_model::sta(&lib, &area.netlist, "t", "clock", 667.0, &work).unwrap();
    assert!(t.report.contains("DFFHQN"), "{}", t.report);
    assert!(t.min_period_ps > 100.0 && t.min_period_ps < 667.0, "{}", t.report);
    // The hand cross-check of docs/AREA.md, done by area_model::nldm on every arc of the path.
    assert_eq!(t.arc_checks.len(), t.path_stages);
    assert!(t.arc_max_deviation_ps < 0.05, "OpenSTA vs the ASAP7 tables: {:?}", t.arc_checks);
}

/// The generic synthesis is cached: a second mapping of unchanged Verilog reuses
/// `<top>.generic.il` (not rewritten) and gives the same area; changed Verilog invalidates it.
#[test]
fn generic_synthesis_is_reused_until_the_verilog_changes() {
    let work = work().join("cache");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let rtl = work.join("t.v");
    std::fs::write(&rtl, SMALL).unwrap();
    let lib = Liberty::open(&Path::new(LIBERTY_DIR).join(NANGATE45_TYP), &work.join("lib")).unwrap();
    let flow = Flow { abc_delay_target_ps: None, flatten_all: false, share: true };
    let il = work.join("t.generic.il");
    let first = synthesize(std::slice::from_ref(&rtl), "t", std::slice::from_ref(&lib), &flow, &work).unwrap().remove(0);
    let written = std::fs::metadata(&il).unwrap().modified().unwrap();
    let delayed = Flow { abc_delay_target_ps: Some(500.0), ..flow.clone() };
    let second = synthesize(std::slice::from_ref(&rtl), "t", std::slice::from_ref(&lib), &delayed, &work).unwrap().remove(0);
    assert_eq!(std::fs::metadata(&il).unwrap().modified().unwrap(), written, "generic synthesis rerun");
    assert_eq!(second.flops, first.flops);
    assert_ne!(second.netlist, first.netlist, "delay-mapped netlist must not overwrite the area-mapped one");
    assert!(!second.abc_delay_ps.is_empty(), "abc -D reports its delay");

    std::fs::write(&rtl, SMALL.replace("output reg [3:0] c", "output reg [4:0] c").replace("{3'b0, q[15]}", "{4'b0, q[15]}")).unwrap();
    let changed = synthesize(&[rtl], "t", std::slice::from_ref(&lib), &flow, &work).unwrap().remove(0);
    assert_eq!(changed.flops, 21, "the 5-bit counter comes from the new Verilog");
}
