//! The exported compressor-lane Verilog in Verilator, driven cycle by cycle from Rust: the shared
//! vectors and the real blocks of `data/` against the golden encoder, a lockstep window against
//! the rust-hdl simulation (same beat and block handshakes, same blocks, every cycle, with output
//! backpressure), and an Icarus run of six transfers compared with Verilator cycle for cycle.
//! Needs verilator, g++, make and iverilog
//! (`scripts/install-area-tools.sh`).

use cocotb_free_tests::{Beat, LaneModel, build_lane_model, check_blocks, real_blocks, run_icarus_tb, safetensors_under, transfer_beats};
use engine::hw::beats::readmemh_line;
use engine::golden::{BLOCK_BYTES, SymbolWidth, encode_block};
use engine::hw::LaneSim;
use engine::vectors::parse_file;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::sync::OnceLock;

fn model() -> &'static LaneModel {
    static M: OnceLock<LaneModel> = OnceLock::new();
    M.get_or_init(|| {
        let m = build_lane_model(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("vlane")).expect("build the Verilator lane model");
        eprintln!("verilator model build: {:.1} s (0 = reused)", m.build_seconds);
        m
    })
}

#[test]
fn shared_vectors_match_the_golden_encoder_and_the_stored_encodings() {
    let vectors: Vec<_> = [include_str!("../../engine/tests/vectors/w32.txt"), include_str!("../../engine/tests/vectors/w16.txt")]
        .into_iter()
        .flat_map(|t| parse_file(t).expect("parse the shared vectors"))
        .collect();
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let vs: Vec<_> = vectors.iter().filter(|v| v.width == width).collect();
        let blocks: Vec<[u8; BLOCK_BYTES]> = vs.iter().map(|v| v.input).collect();
        let (run, bad) = check_blocks(model(), &blocks, width).unwrap();
        assert_eq!(bad, 0, "{width:?}: {bad} of {} vectors differ from the golden encoder", blocks.len());
        let stored = vs.iter().zip(&run.blocks).filter(|(v, o)| o.encoding != v.encoding).count();
        assert_eq!(stored, 0, "{width:?}: differs from the stored encodings");
        eprintln!("{width:?}: {} shared vectors, 0 mismatches, {:.0} cycles/s", blocks.len(), run.cycles_per_second());
    }
}

#[test]
fn every_distinct_block_of_data_matches_the_golden_encoder() {
    let files = safetensors_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data"));
    assert!(files.len() >= 10, "data/ has {} safetensors files", files.len());
    let files: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let blocks = real_blocks::distinct_blocks(&files, width, usize::MAX, usize::MAX).blocks;
        assert!(blocks.len() >= 10_000, "{width:?}: only {} distinct blocks", blocks.len());
        let (run, bad) = check_blocks(model(), &blocks, width).unwrap();
        assert_eq!(bad, 0, "{width:?}: {bad} of {} real blocks differ from the golden encoder", blocks.len());
        let tags: std::collections::HashSet<_> = run.blocks.iter().map(|b| b.encoding.tag).collect();
        assert!(tags.len() >= 3, "{width:?}: only {tags:?}");
        eprintln!(
            "{width:?}: {} distinct real blocks from {} files of data/, 0 mismatches, {} cycles in {:.3} s = {:.0} cycles/s",
            blocks.len(),
            files.len(),
            run.cycles,
            run.seconds,
            run.cycles_per_second()
        );
    }
}

/// Transfers of 1–5 blocks, some ending in a partial block, widths mixed per transfer.
fn mixed_transfers(rng: &mut ChaCha8Rng, n: usize) -> (Vec<Beat>, Vec<(Vec<u8>, SymbolWidth, u8)>) {
    let mut beats = Vec::new();
    let mut transfers = Vec::new();
    for id in 0..n {
        let width = if rng.gen_bool(0.5) { SymbolWidth::W16 } else { SymbolWidth::W32 };
        let blocks = rng.gen_range(1..=5);
        let len = if rng.gen_bool(0.3) { BLOCK_BYTES * (blocks - 1) + rng.gen_range(1..BLOCK_BYTES) } else { BLOCK_BYTES * blocks };
        let bytes: Vec<u8> = (0..len.div_ceil(BLOCK_BYTES)).flat_map(|_| engine::synth::activation_block(rng, width)).take(len).collect();
        beats.extend(transfer_beats(&bytes, width, id as u8));
        transfers.push((bytes, width, id as u8));
    }
    (beats, transfers)
}

#[test]
fn verilator_runs_in_lockstep_with_the_rust_hdl_simulation() {
    let mut rng = ChaCha8Rng::seed_from_u64(61);
    let (beats, transfers) = mixed_transfers(&mut rng, 120);
    let seed = 0x1234_5678u32;
    let v = model().run(&beats, seed, true).unwrap();

    let mut sim = LaneSim::new();
    for (bytes, width, id) in &transfers {
        sim.queue_transfer(bytes, *width, *id);
    }
    let mut x = seed;
    let (mut beat_cycles, mut blocks) = (Vec::new(), Vec::new());
    for cycle in 0..v.cycles {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let before = sim.queued_beats();
        if let Some(b) = sim.step(x & 3 != 0) {
            blocks.push(b);
        }
        if sim.queued_beats() < before {
            beat_cycles.push(cycle);
        }
    }
    assert_eq!(beat_cycles, v.beat_cycles, "beat handshakes differ");
    assert_eq!(blocks.len(), v.blocks.len(), "blocks delivered differ");
    for (r, h) in blocks.iter().zip(&v.blocks) {
        assert_eq!((r.out_cycle, &r.encoding, r.block, r.id, r.last), (h.cycle, &h.encoding, h.block, h.id, h.last), "block at cycle {}", h.cycle);
    }
    // The window is long enough to see backpressure and both widths.
    assert!(v.cycles > 1000 && beats.len() == beat_cycles.len(), "{} cycles, {} beats", v.cycles, beats.len());
    let mut golden = 0;
    for (bytes, width, _) in &transfers {
        for chunk in bytes.chunks(BLOCK_BYTES) {
            let mut b = [0u8; BLOCK_BYTES];
            b[..chunk.len()].copy_from_slice(chunk);
            assert_eq!(v.blocks[golden].encoding, encode_block(&b, *width));
            golden += 1;
        }
    }
    eprintln!("lockstep: {} cycles, {} beats, {} blocks, identical every cycle", v.cycles, beats.len(), blocks.len());
}

/// Runs `beats` through the lane in Icarus (output always ready) for at most `cycles` cycles
/// after reset and returns its `B cycle` / `O cycle tag len id last payload block` lines, and the
/// same lines built from the Verilator run of the same beats, cut at the same cycle.
fn icarus_and_verilator(beats: &[Beat], cycles: u64, name: &str) -> (String, String) {
    let v = model().run(beats, 0, true).unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let hex: String = beats
        .iter()
        .map(|b| readmemh_line(&format!("{:08x}", b.id as u32 | (b.tail_bytes as u32) << 8 | (b.w16 as u32) << 15 | (b.last as u32) << 16), &b.words))
        .collect();
    std::fs::write(dir.join("beats.hex"), hex).unwrap();
    let n = beats.len();
    let tb = format!(
        "module tb;
  reg clock = 0; reg reset = 1; integer bi = 0; integer cycle = 0; integer nout = 0;
  reg [287:0] beats [0:{last}];
  wire [287:0] cur = beats[bi];
  wire beat_valid = (bi < {n}) && !reset;
  wire beat_ready, out_valid, out_last; wire [2:0] out_tag; wire [10:0] out_len; wire [7:0] out_id;
  wire [1023:0] out_payload, out_block;
  pz_compressor_lane_ansi dut(.clock(clock), .reset(reset), .beat_valid(beat_valid), .beat_ready(beat_ready),
    .beat_data(cur[255:0]), .beat_last(cur[272]), .desc_w16(cur[271]), .desc_id(cur[263:256]), .desc_tail_bytes(cur[270:264]),
    .out_valid(out_valid), .out_ready(1'b1), .out_tag(out_tag), .out_len(out_len), .out_payload(out_payload),
    .out_block(out_block), .out_id(out_id), .out_last(out_last));
  always #5 clock = ~clock;
  initial begin $readmemh(\"beats.hex\", beats); @(posedge clock); #1 reset = 0; end
  always @(posedge clock) if (!reset) begin
    if (beat_valid && beat_ready) begin $display(\"B %0d\", cycle); bi <= bi + 1; end
    if (out_valid) begin $display(\"O %0d %0d %0d %0d %0d %h %h\", cycle, out_tag, out_len, out_id, out_last, out_payload, out_block); nout <= nout + 1; end
    cycle <= cycle + 1;
    if (nout + out_valid == {blocks} || cycle + 1 == {cycles}) $finish;
  end
endmodule
",
        last = n - 1,
        blocks = v.blocks.len(),
    );
    let stdout = run_icarus_tb(&dir, &tb, "pz_compressor_lane").unwrap_or_else(|e| panic!("{e}"));
    let got: String = stdout.lines().filter(|l| l.starts_with("B ") || l.starts_with("O ")).map(|l| format!("{l}\n")).collect();
    let mut expected = String::new();
    let mut blocks = v.blocks.iter().peekable();
    let mut beat_cycles = v.beat_cycles.iter().peekable();
    for cycle in 0..v.cycles.min(cycles) {
        while beat_cycles.next_if(|c| **c == cycle).is_some() {
            expected.push_str(&format!("B {cycle}\n"));
        }
        while let Some(b) = blocks.next_if(|b| b.cycle == cycle) {
            let mut payload = b.encoding.payload.clone();
            payload.resize(128, 0);
            let p: String = payload.chunks(4).rev().map(|w| format!("{:08x}", u32::from_be_bytes(w.try_into().unwrap()))).collect();
            let k: String = b.block.chunks(4).rev().map(|w| format!("{:08x}", u32::from_le_bytes(w.try_into().unwrap()))).collect();
            expected.push_str(&format!("O {cycle} {} {} {} {} {p} {k}\n", b.encoding.tag as u8, b.encoding.payload_bits, b.id, b.last as u8));
        }
    }
    (got, expected)
}

/// Six transfers, both symbol widths, 3–6 blocks each, every other one ending in a partial
/// block: 27 activation-like blocks, every code path of the lane's choice and emitter.
fn icarus_stimulus() -> Vec<Beat> {
    let mut rng = ChaCha8Rng::seed_from_u64(62);
    let mut beats = Vec::new();
    for (t, blocks) in [3usize, 6, 4, 5, 4, 5].into_iter().enumerate() {
        let width = if t % 2 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
        let mut bytes: Vec<u8> = (0..blocks).flat_map(|_| engine::synth::activation_block(&mut rng, width)).collect();
        if t % 3 != 1 {
            bytes.truncate(blocks * BLOCK_BYTES - 56);
        }
        beats.extend(transfer_beats(&bytes, width, t as u8 + 9));
    }
    beats
}

/// The exported Verilog in Icarus gives the same beat handshakes and the same blocks (tag,
/// length, payload, original block, id, last) in the same cycles as Verilator, for the whole
/// stimulus: the Verilog does not depend on Verilator's scheduling.
#[test]
fn icarus_gives_the_same_cycles_and_blocks_as_verilator() {
    let beats = icarus_stimulus();
    let t = std::time::Instant::now();
    let (got, expected) = icarus_and_verilator(&beats, u64::MAX, "icarus-full");
    assert_eq!(got, expected, "Icarus and Verilator disagree");
    let outs = got.lines().filter(|l| l.starts_with("O ")).count();
    assert_eq!(outs, 27, "every block of the stimulus left the lane in Icarus");
    assert_eq!(got.lines().filter(|l| l.starts_with("B ")).count(), beats.len());
    eprintln!("icarus: {} beats, {outs} blocks, identical to Verilator; {:.1} s wall (build + both runs)", beats.len(), t.elapsed().as_secs_f64());
}
