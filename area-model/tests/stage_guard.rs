//! The per-stage timing guard (`area_model::stages`) on ASAP7 RVT TT at 1.5 GHz (667 ps): a
//! deliberately chained module is rejected and its tree form passes; a stage whose output is
//! combinational is flagged; and the compressor lane's gather, symbol, plane-statistics, zero-run,
//! size-and-choice, plane-queue-load and emitter stages fit the budget with registered outputs;
//! the chunk packer fits it with only its two handshake outputs combinational; the
//! host-to-device lane's glue and its contexts' rebuild stage fit it with registered outputs.
//! Needs yosys
//! (`scripts/install-area-tools.sh`).

use area_model::blocks::block_source;
use area_model::stages::{check_stage, stage_budget_ps, stage_source};
use area_model::{ASAP7_RVT_TT, LIBERTY_DIR, Liberty};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// 1.5 GHz, the paper's engine clock.
const PERIOD_PS: f64 = 667.0;
/// Values summed by the demonstration modules.
const TERMS: usize = 16;
/// Bits per value.
const TERM_BITS: usize = 8;
/// Bits of the sum of [`TERMS`] values of [`TERM_BITS`] bits.
const SUM_BITS: usize = 12;

fn work() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("stage-guard")
}

fn asap7() -> Liberty {
    Liberty::open(&Path::new(LIBERTY_DIR).join(ASAP7_RVT_TT), &work().join("lib")).unwrap()
}

/// A stage that registers [`TERMS`] values with a select bit each and the registered sum of the
/// selected values, written as rust-hdl's unrolled `if sel[i] { s = s + x[i] }` writes it (a chain
/// of conditional additions: the multiplexers keep Yosys from merging the additions into one
/// multi-operand adder, as in the lane's old code-length sum) or, `tree`, as one-hot masked
/// terms added in a balanced tree built level by level; `comb_out` leaves the sum unregistered.
fn sum_stage(name: &str, tree: bool, comb_out: bool) -> String {
    let (xb, sb) = (TERMS * TERM_BITS - 1, SUM_BITS - 1);
    let mut v = String::new();
    writeln!(v, "module {name}(clock, x, sel, s);").unwrap();
    writeln!(v, "  input wire clock; input wire [{xb}:0] x; input wire [{}:0] sel; output wire [{sb}:0] s;", TERMS - 1).unwrap();
    writeln!(v, "  reg [{xb}:0] xq; reg [{}:0] selq; reg [{sb}:0] sq; reg [{sb}:0] acc;", TERMS - 1).unwrap();
    writeln!(v, "  always @(posedge clock) begin xq <= x; selq <= sel; end").unwrap();
    let term = |i: usize| format!("xq[{}:{}]", i * TERM_BITS + TERM_BITS - 1, i * TERM_BITS);
    if tree {
        let pad = SUM_BITS - TERM_BITS;
        let mut level: Vec<String> =
            (0..TERMS).map(|i| format!("({{{pad}'b0, {}}} & {{{SUM_BITS}{{selq[{i}]}}}})", term(i))).collect();
        let mut k = 0;
        while level.len() > 1 {
            let mut next = Vec::new();
            for pair in level.chunks(2) {
                writeln!(v, "  wire [{sb}:0] t{k} = {} + {};", pair[0], pair[1]).unwrap();
                next.push(format!("t{k}"));
                k += 1;
            }
            level = next;
        }
        writeln!(v, "  always @(*) acc = {};", level[0]).unwrap();
    } else {
        write!(v, "  always @(*) begin acc = 0;").unwrap();
        for i in 0..TERMS {
            write!(v, " if (selq[{i}]) acc = acc + {};", term(i)).unwrap();
        }
        writeln!(v, " end").unwrap();
    }
    writeln!(v, "  always @(posedge clock) sq <= acc;").unwrap();
    writeln!(v, "  assign s = {};", if comb_out { "acc" } else { "sq" }).unwrap();
    writeln!(v, "endmodule").unwrap();
    v
}

#[test]
fn the_budget_is_the_period_less_the_flops_clock_to_output_and_setup() {
    let lib = asap7();
    let (budget, arcs) = stage_budget_ps(&lib, "DFFHQNx1_ASAP7_75t_R", PERIOD_PS).unwrap();
    // ASAP7 DFFHQNx1: clock-to-QN ≈ 45–50 ps at a light load, setup a few tens of ps.
    assert!(arcs.clk_to_q > 30.0 && arcs.clk_to_q < 80.0, "{arcs:?}");
    assert!(arcs.setup > 0.0 && arcs.setup < 80.0, "{arcs:?}");
    assert!((budget - (PERIOD_PS - arcs.clk_to_q - arcs.setup)).abs() < 1e-9);
    eprintln!("ASAP7 {}: clock-to-Q {:.1} ps, setup {:.1} ps, stage budget {budget:.1} ps at {PERIOD_PS} ps", arcs.cell, arcs.clk_to_q, arcs.setup);
}

#[test]
fn a_chained_sum_is_rejected_and_its_tree_passes() {
    let lib = asap7();
    let chain = check_stage(&sum_stage("demo_chain", false, false), "demo_chain", &lib, PERIOD_PS, &work()).unwrap();
    let tree = check_stage(&sum_stage("demo_tree", true, false), "demo_tree", &lib, PERIOD_PS, &work()).unwrap();
    eprintln!("chain: {chain:?}\ntree: {tree:?}");
    assert!(!chain.passes() && chain.abc_delay_ps > chain.budget_ps, "the chained sum must miss 667 ps: {chain:?}");
    assert!(chain.unregistered_outputs.is_empty(), "{chain:?}");
    assert!(tree.passes(), "the tree sum must fit 667 ps: {tree:?}");
    assert!(tree.abc_delay_ps < chain.abc_delay_ps / 1.5, "the tree is not much shorter: {tree:?} vs {chain:?}");
    assert_eq!(tree.flops, (TERMS * TERM_BITS + TERMS + SUM_BITS) as u64, "input and output flops: {tree:?}");
}

#[test]
fn a_combinational_output_is_flagged() {
    let lib = asap7();
    let t = check_stage(&sum_stage("demo_comb", true, true), "demo_comb", &lib, PERIOD_PS, &work()).unwrap();
    assert!(!t.unregistered_outputs.is_empty() && !t.passes(), "{t:?}");
}

/// The compressor lane's Verilog (`rtl_gen::TOPS[0]`), exported once for all the tests of this
/// binary (an export takes seconds of CPU).
fn lane_verilog() -> &'static str {
    static VERILOG: OnceLock<String> = OnceLock::new();
    VERILOG.get_or_init(|| (rtl_gen::TOPS[0].verilog)())
}

/// Maps each named stage module of the compressor lane (`rtl_gen::TOPS[0]`) and asserts that it
/// fits the budget with registered outputs.
fn lane_stages_fit(stages: &[&str]) {
    let lib = asap7();
    let top = &rtl_gen::TOPS[0];
    for name in stages {
        let stage = format!("{}${name}", top.name);
        let t = check_stage(&stage_source(lane_verilog(), &stage).unwrap(), &stage, &lib, PERIOD_PS, &work()).unwrap();
        eprintln!("{t:?}");
        assert!(t.unregistered_outputs.is_empty(), "{stage}: outputs not registered: {:?}", t.unregistered_outputs);
        assert!(t.passes(), "{stage}: ABC delay {:.1} ps over the budget {:.1} ps", t.abc_delay_ps, t.budget_ps);
    }
}

#[test]
fn the_lanes_gather_and_symbol_stages_fit_1_5_ghz_with_registered_outputs() {
    lane_stages_fit(&["symbols", "gather"]);
}

#[test]
fn the_lanes_plane_statistics_stages_fit_1_5_ghz_with_registered_outputs() {
    lane_stages_fit(&["stats_bx", "stats_dbx", "stats_zbx"]);
}

#[test]
fn the_lanes_zero_run_stages_fit_1_5_ghz_with_registered_outputs() {
    lane_stages_fit(&["runs_bx", "runs_dbx", "runs_zbx"]);
}

#[test]
fn the_lanes_size_and_choice_stage_fits_1_5_ghz_with_registered_outputs() {
    lane_stages_fit(&["sizes"]);
}

#[test]
fn the_lanes_plane_queue_load_fits_1_5_ghz_with_registered_outputs() {
    lane_stages_fit(&["choice"]);
}

#[test]
fn the_lanes_emitter_stages_fit_1_5_ghz_with_registered_outputs() {
    lane_stages_fit(&["coder", "placer"]);
}

/// Outputs the chunk packer drives from its own logic: its handshakes `blk_ready` (into the
/// lane's `out_ready`) and `xfer_take` (into the unit's descriptor queue); docs/HARDWARE.md,
/// "Chunk packer". Every other output is a flop.
const PACKER_HANDSHAKE_OUTPUTS: usize = 2;

/// The packer of the device-to-host unit, mapped as `area-model --blocks` maps it (its chunk
/// buffer a black-box RAM, not 32,768 flops): within the budget, its chunk buffer the one RAM,
/// and no combinational output beyond its two handshakes.
#[test]
fn the_chunk_packer_fits_1_5_ghz_with_only_its_handshakes_combinational() {
    let lib = asap7();
    let top = rtl_gen::TOPS.iter().find(|t| t.name == engine::hw::D2H_MODULE).expect("the device-to-host top");
    let block = format!("{}$packer", top.name);
    let (source, rams) = block_source(&(top.verilog)(), top.name, &block).unwrap();
    assert_eq!(rams.iter().map(|r| r.bits).sum::<u64>(), engine::hw::packer::CHUNK_BUFFER_BITS as u64, "{rams:?}");
    let t = check_stage(&source, &block, &lib, PERIOD_PS, &work()).unwrap();
    eprintln!("{t:?}");
    assert!(t.abc_delay_ps <= t.budget_ps, "{block}: ABC delay {:.1} ps over the budget {:.1} ps", t.abc_delay_ps, t.budget_ps);
    assert_eq!(t.unregistered_outputs.len(), PACKER_HANDSHAKE_OUTPUTS, "{block}: outputs driven by logic: {:?}", t.unregistered_outputs);
}

/// The host-to-device lane's Verilog (`engine::hw::H2D_MODULE`), exported once for the tests of
/// this binary.
fn h2d_verilog() -> &'static str {
    static VERILOG: OnceLock<String> = OnceLock::new();
    VERILOG.get_or_init(|| {
        let top = rtl_gen::TOPS.iter().find(|t| t.name == engine::hw::H2D_MODULE).expect("the host-to-device top");
        (top.verilog)()
    })
}

/// The host-to-device lane's own logic (splitter, context status, write arbiter; its contexts
/// and buffers are blocks of their own) and a context's rebuild stage, each mapped as
/// `area-model --blocks` maps it: within the budget, every output a flop. (The context's decode
/// loop, `$ctxK`, does not fit yet: docs/AREA.md.)
#[test]
fn the_h2d_lanes_glue_and_rebuild_stage_fit_1_5_ghz_with_registered_outputs() {
    let lib = asap7();
    let lane = engine::hw::H2D_MODULE;
    for block in [lane.to_string(), format!("{lane}$ctx0$rebuild")] {
        let (source, rams) = block_source(h2d_verilog(), lane, &block).unwrap();
        assert!(rams.is_empty(), "{block}: {rams:?}");
        let t = check_stage(&source, &block, &lib, PERIOD_PS, &work()).unwrap();
        eprintln!("{t:?}");
        assert!(t.unregistered_outputs.is_empty(), "{block}: outputs not registered: {:?}", t.unregistered_outputs);
        assert!(t.passes(), "{block}: ABC delay {:.1} ps over the budget {:.1} ps", t.abc_delay_ps, t.budget_ps);
    }
}
