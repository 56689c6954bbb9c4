//! The exported host-to-device lane (`pz_h2d_lane`) in Verilator, driven cycle by cycle from
//! Rust: every distinct real block of `data/` at both widths decoded from golden's streams with 0
//! mismatches (and the sustained B/cycle), a lockstep run against the rust-hdl simulation with
//! backpressure on every port and malformed transfers mixed in, and a short Icarus run identical to
//! Verilator. Needs verilator, g++, make and iverilog (`scripts/install-area-tools.sh`).

use cocotb_free_tests::h2d::{H2dStimulus, build_h2d_model, run_h2d};
use cocotb_free_tests::{LaneModel, real_blocks, run_icarus_tb, safetensors_under};
use engine::hw::beats::readmemh_line;
use engine::golden::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth, encode_stream};
use engine::hw::H2dSim;
use engine::hw::h2d_driver::{H2dPorts, H2dResult, stream_beats};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::sync::OnceLock;

fn model() -> &'static LaneModel {
    static M: OnceLock<LaneModel> = OnceLock::new();
    M.get_or_init(|| {
        let m = build_h2d_model(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("vh2d")).expect("build the Verilator h2d model");
        eprintln!("verilator h2d model build: {:.1} s (0 = reused)", m.build_seconds);
        m
    })
}

fn good(data: &[u8], width: SymbolWidth, id: u8) -> H2dStimulus {
    H2dStimulus { stream: encode_stream(data, width), raw_bytes: data.len() as u32, width, id }
}

#[test]
fn every_distinct_block_of_data_decodes_bit_for_bit() {
    let files = safetensors_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data"));
    assert!(files.len() >= 10, "data/ has {} safetensors files", files.len());
    let files: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let blocks = real_blocks::distinct_blocks(&files, width, usize::MAX, usize::MAX).blocks;
        assert!(blocks.len() >= 10_000, "{width:?}: only {} distinct blocks", blocks.len());
        let data = blocks.concat();
        let t = good(&data, width, 1);
        let run = run_h2d(model(), std::slice::from_ref(&t), 0).unwrap();
        let r = &run.results[0];
        assert_eq!(r.error, None, "{width:?}: error on a golden stream");
        let (mem, overlap) = r.memory(data.len(), 0xA5);
        assert!(!overlap, "{width:?}: writes outside the tensor or repeated");
        let bad = mem.chunks(BLOCK_BYTES).zip(data.chunks(BLOCK_BYTES)).filter(|(a, b)| a != b).count();
        assert_eq!(bad, 0, "{width:?}: {bad} of {} blocks differ", blocks.len());
        let cycles = r.latency_cycles().unwrap();
        eprintln!(
            "{width:?}: {} distinct real blocks from {} files of data/ ({} bytes, {} wire bytes), 0 mismatches; {cycles} cycles first beat → last write = {:.2} B/cycle of decompressed output; {:.0} cycles/s",
            blocks.len(),
            files.len(),
            data.len(),
            t.stream.len(),
            data.len() as f64 / cycles as f64,
            run.cycles as f64 / run.seconds
        );
    }
}

/// Good transfers of both widths, raw chunks, an empty one, and malformed ones in between.
fn mixed_transfers(rng: &mut ChaCha8Rng) -> Vec<H2dStimulus> {
    let mut out = Vec::new();
    for i in 0..10u8 {
        let width = if i % 2 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
        let len = rng.gen_range(1..2 * CHUNK_BYTES);
        let data: Vec<u8> = (0..len.div_ceil(BLOCK_BYTES)).flat_map(|_| engine::synth::activation_block(rng, width)).take(len).collect();
        let mut t = good(&data, width, i);
        match i % 5 {
            1 => t.stream.truncate(t.stream.len() - 7),
            3 => t.stream[2 + 5] ^= 0x40,
            4 => t.stream.push(0),
            _ => {}
        }
        out.push(t);
    }
    let noise: Vec<u8> = (0..CHUNK_BYTES + 100).map(|_| rng.r#gen()).collect();
    out.push(good(&noise, SymbolWidth::W32, 20));
    out.push(good(&[], SymbolWidth::W16, 21));
    out
}

#[test]
fn verilator_runs_in_lockstep_with_the_rust_hdl_simulation() {
    let mut rng = ChaCha8Rng::seed_from_u64(71);
    let transfers = mixed_transfers(&mut rng);
    let seed = 0x2545_F491u32;
    let v = run_h2d(model(), &transfers, seed).unwrap();
    let mut sim = H2dSim::new();
    for t in &transfers {
        sim.queue_transfer(&t.stream, t.raw_bytes, t.width, t.id);
    }
    let mut x = seed;
    let rust: Vec<H2dResult> = sim.run(v.cycles, || H2dPorts::from_xorshift(&mut x)).to_vec();
    assert_eq!(sim.cycle(), v.cycles, "both finish in the same cycle");
    assert_eq!(rust.len(), v.results.len());
    for (i, (r, h)) in rust.iter().zip(&v.results).enumerate() {
        assert_eq!(r, h, "transfer {i}: rust-hdl and Verilator differ");
    }
    let errors = v.results.iter().filter(|r| r.error.is_some()).count();
    assert!(errors >= 4, "only {errors} malformed transfers");
    assert_eq!(v.beat_cycles.len(), transfers.iter().map(|t| stream_beats(&t.stream).len()).sum::<usize>());
    eprintln!("lockstep: {} cycles, {} transfers ({errors} malformed), every write, error and done in the same cycle", v.cycles, transfers.len());
}

/// The first transfers of the mixed set in Icarus, no backpressure: the same writes, errors and
/// `done`s in the same cycles as Verilator.
#[test]
fn icarus_gives_the_same_cycles_and_writes_as_verilator() {
    let mut rng = ChaCha8Rng::seed_from_u64(72);
    let transfers: Vec<H2dStimulus> = mixed_transfers(&mut rng).into_iter().take(4).map(|mut t| {
        // Short transfers: Icarus runs a few hundred cycles per second of this lane.
        let keep = t.stream.len().min(700);
        t.stream.truncate(keep);
        t
    }).collect();
    let v = run_h2d(model(), &transfers, 0).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("icarus-h2d");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (mut descs, mut beats) = (String::new(), String::new());
    for t in &transfers {
        descs.push_str(&format!("{:01x}{:08x}{:02x}\n", (t.width == SymbolWidth::W16) as u8, t.raw_bytes, t.id));
        for b in stream_beats(&t.stream) {
            beats.push_str(&readmemh_line(&format!("{:01x}{:02x}", b.last as u8, b.bytes), &b.words));
        }
    }
    std::fs::write(dir.join("descs.hex"), descs).unwrap();
    std::fs::write(dir.join("beats.hex"), beats).unwrap();
    let nbeats: usize = transfers.iter().map(|t| stream_beats(&t.stream).len()).sum();
    let tb = format!(
        "module tb;
  reg clock = 0; reg reset = 1; integer di = 0; integer bi = 0; integer cycle = 0; integer ndone = 0;
  reg [44:0] descs [0:{dl}];
  reg [267:0] beats [0:{bl}];
  wire [44:0] dc = descs[di];
  wire [267:0] bc = beats[bi];
  wire desc_valid = (di < {nd}) && !reset;
  wire in_valid = (bi < {nb}) && !reset;
  wire desc_ready, in_ready, out_valid, out_last, done, err_valid;
  wire [31:0] out_addr, out_strb; wire [255:0] out_data; wire [7:0] out_id, done_id, err_id; wire [3:0] err_class; wire [19:0] err_chunk;
  pz_h2d_lane_ansi dut(.clock(clock), .reset(reset), .desc_valid(desc_valid), .desc_ready(desc_ready),
    .desc_id(dc[7:0]), .desc_w16(dc[40]), .desc_raw_bytes(dc[39:8]),
    .in_valid(in_valid), .in_ready(in_ready), .in_data(bc[255:0]), .in_bytes(bc[261:256]), .in_last(bc[264]),
    .out_valid(out_valid), .out_ready(1'b1), .out_addr(out_addr), .out_data(out_data), .out_strb(out_strb), .out_id(out_id), .out_last(out_last),
    .done(done), .done_id(done_id), .err_valid(err_valid), .err_class(err_class), .err_id(err_id), .err_chunk(err_chunk));
  always #5 clock = ~clock;
  initial begin $readmemh(\"descs.hex\", descs); $readmemh(\"beats.hex\", beats); @(posedge clock); #1 reset = 0; end
  always @(posedge clock) if (!reset) begin
    if (desc_valid && desc_ready) di <= di + 1;
    if (in_valid && in_ready) bi <= bi + 1;
    if (out_valid) $display(\"W %0d %0d %h %h %0d %0d\", cycle, out_addr, out_strb, out_data, out_id, out_last);
    if (err_valid) $display(\"E %0d %0d %0d\", cycle, err_class, err_chunk);
    if (done) begin $display(\"D %0d %0d\", cycle, done_id); ndone <= ndone + 1; end
    cycle <= cycle + 1;
    if (ndone + done == {nd} || cycle > 200000) $finish;
  end
endmodule
",
        dl = transfers.len() - 1,
        bl = nbeats - 1,
        nd = transfers.len(),
        nb = nbeats,
    );
    let t0 = std::time::Instant::now();
    let stdout = run_icarus_tb(&dir, &tb, "pz_h2d_lane").unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<String> = stdout.lines().filter(|l| l.starts_with(['W', 'E', 'D'])).map(str::to_string).collect();
    let mut expected: Vec<(u64, u8, String)> = Vec::new();
    for r in &v.results {
        for w in &r.writes {
            let data: String = w.data.chunks(4).rev().map(|c| format!("{:08x}", u32::from_le_bytes(c.try_into().unwrap()))).collect();
            expected.push((w.cycle, 0, format!("W {} {} {:08x} {data} {} {}", w.cycle, w.addr, w.strb, w.id, w.last as u8)));
        }
        let done = r.done_cycle.unwrap();
        if let Some((class, chunk)) = r.error {
            let cycle = r.error_cycle.unwrap();
            expected.push((cycle, 1, format!("E {cycle} {} {chunk}", class as u8)));
        }
        expected.push((done, 2, format!("D {done} {}", r.id)));
    }
    expected.sort();
    let expected: Vec<String> = expected.into_iter().map(|e| e.2).collect();
    assert_eq!(got, expected, "Icarus and Verilator disagree");
    assert!(v.results.iter().any(|r| r.error.is_some()), "the stimulus has a malformed transfer");
    eprintln!("icarus: {} transfers, {} lines identical to Verilator, {:.1} s", transfers.len(), got.len(), t0.elapsed().as_secs_f64());
}
