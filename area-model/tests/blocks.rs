//! `area_model::blocks` on a small top in rust-hdl's naming: two identical accumulator blocks
//! map once (the second instance is the first's figures), each block's own area is what mapping
//! it alone gives, the top's own logic excludes them, a RAM is counted as bits and not mapped,
//! and the sum is the instances' sum. Needs yosys (`scripts/install-area-tools.sh`).

use area_model::blocks::{SRAM_ARRAY_EFFICIENCY, SRAM_BITCELL_UM2, map_blocks};
use area_model::stages::check_stage;
use area_model::{ASAP7_RVT_TT, LIBERTY_DIR, Liberty};
use std::path::Path;

/// Top `zz_top` (a name found nowhere else in the text, as the normalisation needs): blocks
/// `zz_top$a0` and `zz_top$a1` (16-bit accumulators, each with its flop module), a 16 × 8-bit
/// RAM `zz_top$ram$0` (rust-hdl's array naming: `zz_top$ram` is no module), and a 4-bit counter
/// of its own, and `odd`, an output of its own logic (unregistered).
const TOP: &str = "
module zz_top(clock, d, q0, q1, c, rd, odd);
  input wire clock; input wire [15:0] d; output wire [15:0] q0; output wire [15:0] q1; output reg [3:0] c; output wire [7:0] rd; output wire odd;
  assign odd = c[0] ^ d[0];
  zz_top$a0 a0(.clock(clock), .d(d), .q(q0));
  zz_top$a1 a1(.clock(clock), .d(~d), .q(q1));
  zz_top$ram$0 ram0(.clock(clock), .addr(c), .wdata(d[7:0]), .rdata(rd));
  always @(posedge clock) c <= c + {3'b0, q0[15] ^ q1[15]};
endmodule
module zz_top$a0(clock, d, q);
  input wire clock; input wire [15:0] d; output wire [15:0] q;
  zz_top$a0$q r(.clock(clock), .d(q + d), .q(q));
endmodule // top$a0 (rust-hdl: the unprefixed name)
module zz_top$a0$q(clock, d, q);
  input wire clock; input wire [15:0] d; output reg [15:0] q;
  always @(posedge clock) q <= d;
endmodule
module zz_top$a1(clock, d, q);
  input wire clock; input wire [15:0] d; output wire [15:0] q;
  zz_top$a1$q r(.clock(clock), .d(q + d), .q(q));
endmodule // top$a1
module zz_top$a1$q(clock, d, q);
  input wire clock; input wire [15:0] d; output reg [15:0] q;
  always @(posedge clock) q <= d;
endmodule
module zz_top$ram$0(clock, addr, wdata, rdata);
  input wire clock; input wire [3:0] addr; input wire [7:0] wdata; output reg [7:0] rdata;
  reg[7:0] mem[15:0];
  always @(posedge clock) begin rdata <= mem[addr]; mem[addr] <= wdata; end
endmodule
";

#[test]
fn identical_blocks_map_once_rams_are_bits_and_the_sum_is_the_instances() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("area-blocks");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let lib = Liberty::open(&Path::new(LIBERTY_DIR).join(ASAP7_RVT_TT), &work.join("lib")).unwrap();
    let mut mapped = Vec::new();
    let r = map_blocks(TOP, "zz_top", &lib, 667.0, &work.join("stages"), |b, _, _| mapped.push((b.module.clone(), b.own.as_ref().map(|t| t.cached).unwrap_or(false)))).unwrap();
    let names: Vec<&str> = r.instances.iter().map(|b| b.module.as_str()).collect();
    assert_eq!(names, ["zz_top", "zz_top$a0", "zz_top$a1"], "blocks depth first; the flop and RAM modules are not blocks");
    assert_eq!(r.instances.iter().map(|b| b.depth).collect::<Vec<_>>(), [0, 1, 1]);
    assert_eq!(r.distinct_blocks, 2, "zz_top$a1 equals zz_top$a0 once its name is normalised");
    assert_eq!(mapped, [("zz_top".to_string(), false), ("zz_top$a0".to_string(), false), ("zz_top$a1".to_string(), true)]);
    let own = |i: usize| r.instances[i].own.as_ref().unwrap().clone();
    let (top, a0, a1) = (own(0), own(1), own(2));
    assert_eq!((a0.area_um2, a0.flops), (a1.area_um2, a1.flops));
    assert_eq!(a0.flops, 16);
    assert_eq!(top.flops, 4, "the top's own flops: its counter (accumulators and RAM are black boxes)");
    // The accumulator mapped alone, with its flop module, in a fresh cache: the same figures.
    let alone = check_stage(&TOP[TOP.find("module zz_top$a0(").unwrap()..TOP.find("module zz_top$a1(").unwrap()], "zz_top$a0", &lib, 667.0, &work.join("alone")).unwrap();
    assert!(!alone.cached);
    assert!((alone.area_um2 - a0.area_um2).abs() < 1e-9 && alone.flops == a0.flops, "alone {alone:?} vs in the top {a0:?}");
    assert!(a0.unregistered_outputs.is_empty(), "the accumulator's output is its flop");
    // Its outputs are its flops and its children's outputs, but for `odd`, one XOR of its own.
    assert_eq!(top.unregistered_outputs.len(), 1, "{:?}", top.unregistered_outputs);
    assert!((r.logic_um2 - (top.area_um2 + 2.0 * a0.area_um2)).abs() < 1e-6, "{} vs {} + 2 × {}", r.logic_um2, top.area_um2, a0.area_um2);
    assert!(top.area_um2 < a0.area_um2, "the top's own logic (4-bit counter) is smaller than a 16-bit accumulator: {} vs {}", top.area_um2, a0.area_um2);
    assert_eq!(r.instances[0].rams.len(), 1);
    assert_eq!(r.sram_bits, 16 * 8);
    assert!((r.sram_estimate_um2 - 128.0 * SRAM_BITCELL_UM2 / SRAM_ARRAY_EFFICIENCY).abs() < 1e-9);
    assert_eq!(r.unmapped, 0);
}

/// A module of wires only (an engine top that just connects its halves) maps to no area and no
/// delay instead of failing, and does not pass as a stage (no flops end it).
#[test]
fn a_wiring_only_module_maps_to_nothing_and_is_no_stage() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("area-blocks-wire");
    let _ = std::fs::remove_dir_all(&work);
    let lib = Liberty::open(&Path::new(LIBERTY_DIR).join(ASAP7_RVT_TT), &work.join("lib")).unwrap();
    let t = check_stage("module zz_wire(a, y);\n  input wire [3:0] a; output wire [3:0] y;\n  assign y = a;\nendmodule\n", "zz_wire", &lib, 667.0, &work).unwrap();
    assert_eq!((t.area_um2, t.abc_delay_ps, t.flops), (0.0, 0.0, 0));
    assert!(t.flop_cells.is_empty() && t.budget_ps > 0.0 && t.budget_ps < 667.0, "{t:?}");
    assert!(!t.passes(), "no flops end it: {t:?}");
}
