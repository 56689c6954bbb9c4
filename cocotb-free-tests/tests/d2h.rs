//! The exported device-to-host unit `pz_d2h_lane` in Verilator, driven cycle by cycle from Rust:
//! every tensor of `data/` as one transfer at both symbol widths, its host-memory image equal to
//! `golden`'s chunk stream byte for byte and its `done` wire bytes equal to golden's; the
//! sustained beat rate; a window with input bubbles and output backpressure in lockstep with the
//! rust-hdl simulation (every handshake, write and `done` in the same cycle); and Icarus giving
//! Verilator's cycles on a short run. Needs verilator, g++, make and iverilog
//! (`scripts/install-area-tools.sh`).

use cocotb_free_tests::{D2hModel, build_d2h_model, run_icarus_tb, safetensors_under, stall_cycles, whole_tensors};
use engine::hw::beats::readmemh_line;
use engine::golden::{BLOCK_BYTES, SymbolWidth};
use engine::hw::d2h_driver::{D2hSim, Transfer, Trace, check_images};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::sync::OnceLock;

fn model() -> &'static D2hModel {
    static M: OnceLock<D2hModel> = OnceLock::new();
    M.get_or_init(|| {
        let m = build_d2h_model(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("vd2h")).expect("build the Verilator d2h model");
        eprintln!("verilator d2h model build: {:.1} s (0 = reused)", m.build_seconds);
        m
    })
}

/// Beats taken per cycle from the first to the last beat: 1.0 means the lane and the packer
/// never stalled the input (4.000 cycles per 4-beat block).
fn beat_span_cycles(trace: &Trace) -> u64 {
    trace.beat_cycles.last().unwrap() - trace.beat_cycles[0] + 1
}

#[test]
fn every_tensor_of_data_matches_golden_at_both_widths() {
    let files = safetensors_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data"));
    assert!(files.len() >= 10, "data/ has {} safetensors files", files.len());
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let mut transfers = Vec::new();
        for f in &files {
            for (_, bytes) in whole_tensors(f, width).unwrap() {
                transfers.push(Transfer { id: transfers.len() as u8, width, bytes });
            }
        }
        let run = model().run(&transfers, 0, 0, true).unwrap();
        let sum = check_images(&transfers, &run.trace).unwrap_or_else(|e| panic!("{width:?}: {e}"));
        let bytes: usize = transfers.iter().map(|t| t.bytes.len()).sum();
        let blocks: usize = transfers.iter().map(|t| t.bytes.len().div_ceil(BLOCK_BYTES)).sum();
        let span = beat_span_cycles(&run.trace);
        let beats = run.trace.beat_cycles.len() as u64;
        eprintln!(
            "{width:?}: {} tensors of {} files of data/, {bytes} bytes, {blocks} blocks → {} wire bytes (ratio {:.3}), {} raw chunks, {} bytes written ({} rewritten), 0 mismatches; \
             {beats} beats taken over {span} cycles ({} stall cycles: {} inside tensors, {} between them; {:.4} cycles per 4 beats); {} cycles in {:.2} s = {:.0} cycles/s",
            transfers.len(),
            files.len(),
            sum.wire_bytes,
            bytes as f64 / sum.wire_bytes as f64,
            sum.raw_chunks,
            sum.written_bytes,
            sum.written_bytes - sum.wire_bytes,
            span - beats,
            stall_cycles(&transfers, &run.trace).0,
            stall_cycles(&transfers, &run.trace).1,
            4.0 * span as f64 / beats as f64,
            run.cycles,
            run.seconds,
            run.cycles as f64 / run.seconds
        );
        assert!(transfers.len() >= 100, "{width:?}: only {} tensors", transfers.len());
    }
}

/// Transfers of random lengths (some empty, some incompressible), widths alternating.
fn mixed_transfers(rng: &mut ChaCha8Rng, n: usize) -> Vec<Transfer> {
    (0..n)
        .map(|i| {
            let width = if i % 2 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
            let len: usize = match i % 7 {
                3 => 0,
                5 => rng.gen_range(1..300),
                _ => rng.gen_range(1..9000),
            };
            let bytes: Vec<u8> = if i % 5 == 4 {
                (0..len).map(|_| rng.r#gen()).collect()
            } else {
                (0..len.div_ceil(BLOCK_BYTES)).flat_map(|_| engine::synth::activation_block(rng, width)).take(len).collect()
            };
            Transfer { id: i as u8, width, bytes }
        })
        .collect()
}

#[test]
fn verilator_runs_in_lockstep_with_the_rust_hdl_simulation() {
    let mut rng = ChaCha8Rng::seed_from_u64(71);
    let transfers = mixed_transfers(&mut rng, 14);
    let (bubble_seed, ready_seed) = (0x2545_f491u32, 0x9e37_79b9u32);
    let v = model().run(&transfers, ready_seed, bubble_seed, true).unwrap();
    let sum = check_images(&transfers, &v.trace).unwrap_or_else(|e| panic!("verilator: {e}"));

    let mut sim = D2hSim::new();
    for t in &transfers {
        sim.queue(t);
    }
    let (mut a, mut b) = (bubble_seed, ready_seed);
    let step = |x: &mut u32| {
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        *x & 3 != 0
    };
    sim.run(v.cycles + 10, |_| (step(&mut a), step(&mut b)));
    assert_eq!(sim.cycle(), v.cycles, "the runs end in different cycles");
    assert_eq!(sim.trace.desc_cycles, v.trace.desc_cycles, "descriptor handshakes differ");
    assert_eq!(sim.trace.beat_cycles, v.trace.beat_cycles, "beat handshakes differ");
    assert_eq!(sim.trace.dones, v.trace.dones, "done pulses differ");
    assert_eq!(sim.trace.writes.len(), v.trace.writes.len(), "write counts differ");
    for (r, h) in sim.trace.writes.iter().zip(&v.trace.writes) {
        assert_eq!(r, h, "write at cycle {}", h.cycle);
    }
    assert!(sum.raw_chunks >= 2 && v.cycles > 3000, "{} raw chunks, {} cycles", sum.raw_chunks, v.cycles);
    eprintln!(
        "lockstep: {} transfers, {} cycles, {} beats, {} writes, {} raw chunks, identical every cycle (bubbles and backpressure)",
        transfers.len(),
        v.cycles,
        v.trace.beat_cycles.len(),
        v.trace.writes.len(),
        sum.raw_chunks
    );
}

/// Icarus runs the exported Verilog of three transfers (example E, a 16-bit transfer with a
/// partial block, an incompressible one stored raw) and prints every handshake, write and done;
/// the lines equal those of the Verilator run of the same transfers.
#[test]
fn icarus_gives_the_same_cycles_and_writes_as_verilator() {
    let mut rng = ChaCha8Rng::seed_from_u64(72);
    let transfers = vec![
        Transfer { id: 3, width: SymbolWidth::W32, bytes: (0..50).flat_map(|_| 1.0f32.to_le_bytes()).collect() },
        Transfer {
            id: 4,
            width: SymbolWidth::W16,
            bytes: (0..5).flat_map(|_| engine::synth::activation_block(&mut rng, SymbolWidth::W16)).take(600).collect(),
        },
        Transfer { id: 5, width: SymbolWidth::W32, bytes: (0..300).map(|_| rng.r#gen()).collect() },
    ];
    let v = model().run(&transfers, 0, 0, true).unwrap();
    check_images(&transfers, &v.trace).unwrap_or_else(|e| panic!("{e}"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("icarus-d2h");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let descs: String = transfers.iter().map(|t| format!("{:012x}\n", ((t.width == SymbolWidth::W16) as u64) << 40 | (t.id as u64) << 32 | t.bytes.len() as u64)).collect();
    let beats: Vec<String> = transfers
        .iter()
        .flat_map(|t| engine::hw::d2h_driver::beat_words(&t.bytes))
        .map(|w| readmemh_line("", &w))
        .collect();
    std::fs::write(dir.join("descs.hex"), descs).unwrap();
    std::fs::write(dir.join("beats.hex"), beats.concat()).unwrap();
    let tb = format!(
        "module tb;
  reg clock = 0; reg reset = 1; integer di = 0; integer bi = 0; integer cycle = 0; integer ndone = 0;
  reg [47:0] descs [0:{nd1}]; reg [255:0] beats [0:{nb1}];
  wire [47:0] d = descs[di]; wire [255:0] b = beats[bi];
  wire desc_valid = (di < {nd}) && !reset; wire beat_valid = (bi < {nb}) && !reset;
  wire desc_ready, beat_ready, wr_valid, wr_last, done_valid; wire [31:0] wr_addr, wr_be, done_wire_bytes;
  wire [255:0] wr_data; wire [7:0] wr_id, done_id;
  pz_d2h_lane_ansi dut(.clock(clock), .reset(reset), .desc_valid(desc_valid), .desc_ready(desc_ready), .desc_id(d[39:32]),
    .desc_w16(d[40]), .desc_bytes(d[31:0]), .beat_valid(beat_valid), .beat_ready(beat_ready), .beat_data(b),
    .wr_valid(wr_valid), .wr_ready(1'b1), .wr_addr(wr_addr), .wr_data(wr_data), .wr_be(wr_be), .wr_id(wr_id),
    .wr_last(wr_last), .done_valid(done_valid), .done_id(done_id), .done_wire_bytes(done_wire_bytes));
  always #5 clock = ~clock;
  initial begin $readmemh(\"descs.hex\", descs); $readmemh(\"beats.hex\", beats); @(posedge clock); #1 reset = 0; end
  always @(posedge clock) if (!reset) begin
    if (desc_valid && desc_ready) begin $display(\"D %0d\", cycle); di <= di + 1; end
    if (beat_valid && beat_ready) begin $display(\"B %0d\", cycle); bi <= bi + 1; end
    if (wr_valid) $display(\"W %0d %0d %h %0d %0d %h\", cycle, wr_addr, wr_be, wr_id, wr_last, wr_data);
    if (done_valid) $display(\"F %0d %0d %0d\", cycle, done_id, done_wire_bytes);
    cycle <= cycle + 1; ndone <= ndone + done_valid;
    if (ndone + done_valid == {nd} || cycle > 5000) $finish;
  end
endmodule
",
        nd = transfers.len(),
        nd1 = transfers.len() - 1,
        nb = beats.len(),
        nb1 = beats.len() - 1,
    );
    let t = std::time::Instant::now();
    let stdout = run_icarus_tb(&dir, &tb, "pz_d2h_lane").unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<String> = stdout.lines().filter(|l| l.len() > 2 && "DBWF".contains(&l[..1]) && &l[1..2] == " ").map(str::to_string).collect();
    let mut events: Vec<(u64, u8, String)> = Vec::new();
    events.extend(v.trace.desc_cycles.iter().map(|c| (*c, 0, format!("D {c}"))));
    events.extend(v.trace.beat_cycles.iter().map(|c| (*c, 1, format!("B {c}"))));
    events.extend(v.trace.writes.iter().map(|w| {
        let data: String = w.data.chunks(4).rev().map(|c| format!("{:08x}", u32::from_le_bytes(c.try_into().unwrap()))).collect();
        (w.cycle, 2, format!("W {} {} {:08x} {} {} {data}", w.cycle, w.addr, w.be, w.id, w.last as u8))
    }));
    events.extend(v.trace.dones.iter().map(|d| (d.cycle, 3, format!("F {} {} {}", d.cycle, d.id, d.wire_bytes))));
    events.sort();
    let expected: Vec<String> = events.into_iter().map(|e| e.2).collect();
    assert_eq!(got, expected, "Icarus and Verilator disagree");
    eprintln!("icarus: {} cycles, {} writes, {} done, identical to Verilator; {:.1} s wall (build + run)", v.cycles, v.trace.writes.len(), v.trace.dones.len(), t.elapsed().as_secs_f64());
}
