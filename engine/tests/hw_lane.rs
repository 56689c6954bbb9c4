//! The compressor lane's rust-hdl simulation against the golden encoder: the shared corner
//! vectors, real activation blocks from `data/`, sustained rate and latency, output
//! backpressure, partial final blocks, and a VCD trace read back with the `vcd` crate.

#[path = "support/real_blocks.rs"]
mod real_blocks;

use engine::golden::{BLOCK_BYTES, SymbolWidth, encode_block};
use engine::hw::compressor_lane::{CYCLES_PER_BLOCK, LATENCY_CYCLES};
use engine::hw::lane_driver::padded_blocks;
use engine::hw::{LaneBlock, LaneSim};
use engine::vectors::{Vector, parse_file};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The shared corner vectors of one width (FORMAT.md §11), with their stored expected encodings.
fn shared_vectors(width: SymbolWidth) -> Vec<Vector> {
    let text = match width {
        SymbolWidth::W16 => include_str!("vectors/w16.txt"),
        SymbolWidth::W32 => include_str!("vectors/w32.txt"),
    };
    let vectors = parse_file(text).expect("parse the shared vectors");
    assert!(vectors.len() >= 2000 && vectors.iter().all(|v| v.width == width));
    vectors
}

/// Streams `blocks` back to back, each its own 128-byte transfer, output always ready.
fn run_blocks(blocks: &[[u8; BLOCK_BYTES]], width: SymbolWidth) -> Vec<LaneBlock> {
    let mut sim = LaneSim::new();
    for (i, b) in blocks.iter().enumerate() {
        sim.queue_transfer(b, width, i as u8);
    }
    let out = sim.drain(blocks.len() as u64 * 8 + 64);
    assert_eq!(out.len(), blocks.len(), "lane lost or stalled blocks");
    out
}

/// Blocks whose tag, length, payload or carried original bytes differ from the golden encoder.
fn mismatches(blocks: &[[u8; BLOCK_BYTES]], width: SymbolWidth, out: &[LaneBlock]) -> usize {
    let mut bad = 0;
    for (i, (b, o)) in blocks.iter().zip(out).enumerate() {
        let golden = encode_block(b, width);
        if o.encoding != golden || &o.block != b {
            if bad < 5 {
                eprintln!(
                    "{width:?} block {i}: lane {:?} {} bits, golden {:?} {} bits\n  lane   {:02x?}\n  golden {:02x?}",
                    o.encoding.tag,
                    o.encoding.payload_bits,
                    golden.tag,
                    golden.payload_bits,
                    o.encoding.payload,
                    golden.payload
                );
            }
            bad += 1;
        }
    }
    bad
}

#[test]
fn shared_corner_vectors_match_the_stored_golden_encodings() {
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let vectors = shared_vectors(width);
        let blocks: Vec<_> = vectors.iter().map(|v| v.input).collect();
        let out = run_blocks(&blocks, width);
        let bad = vectors
            .iter()
            .zip(&out)
            .filter(|(v, o)| o.encoding != v.encoding)
            .count();
        assert_eq!(
            bad,
            0,
            "{width:?}: {bad} of {} corner vectors differ from the stored encoding",
            vectors.len()
        );
        assert_eq!(mismatches(&blocks, width, &out), 0, "{width:?}");
        // Every code occurs, so every emission path was exercised.
        for tag in engine::golden::Tag::ALL {
            assert!(
                out.iter().any(|o| o.encoding.tag == tag),
                "{width:?}: no {tag:?} block among the corner vectors"
            );
        }
    }
}

#[test]
fn real_activation_blocks_match_the_golden_encoder() {
    // Iteration 0 of every model sampled in data/ (float activations, GPT-2/MiniLM masks, indices).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .expect("data/ holds the captured samples")
        .map(|e| e.unwrap().path().join("iter0.safetensors"))
        .filter(|p| p.exists())
        .collect();
    files.sort();
    assert!(files.len() >= 2, "too few models in data/: {files:?}");
    let files: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let real = real_blocks::distinct_blocks(&files, width, 3, 6000);
        assert!(
            real.blocks.len() >= 4000,
            "{width:?}: only {} distinct real blocks in data/",
            real.blocks.len()
        );
        eprintln!(
            "{width:?}: {} distinct real blocks from {} tensors",
            real.blocks.len(),
            real.tensors
        );
        let out = run_blocks(&real.blocks, width);
        assert_eq!(mismatches(&real.blocks, width, &out), 0, "{width:?}: real blocks");
        let codes: std::collections::HashSet<_> = out.iter().map(|o| o.encoding.tag).collect();
        assert!(codes.len() >= 3, "{width:?}: real blocks exercised only {codes:?}");
    }
}

/// Latency by hand (docs/HARDWARE.md, "Stages"): beats taken into the input register in cycles
/// 0–3, gathered in cycles 1–4 (the 4th loads stage 1), stage 1 in cycle 5, stage 2 in cycles
/// 6–9 (input flops, class flops, partial sums, total: the plane statistics' 3 pipeline
/// registers; the choice loads the plane queue at the end of cycle 9), the coder takes the
/// queue's 4 groups in cycles 10–13, the placer places them in cycles 11–14, its complete
/// buffer loads the output register in cycle 15, out in cycle 16.
const HAND_LATENCY_CYCLES: u64 = 16;
/// Cycles from the end of reset to the lane's first `beat_ready` (a flop: the input register's
/// room, cleared by reset).
const READY_AFTER_RESET_CYCLES: u64 = 1;
/// The bound on the lane latency (BPC's compressor: 11).
const MAX_LATENCY_CYCLES: u64 = 16;

#[test]
fn the_latency_constant_is_the_hand_count_and_within_the_bound() {
    assert_eq!(LATENCY_CYCLES, HAND_LATENCY_CYCLES);
    assert!(LATENCY_CYCLES <= MAX_LATENCY_CYCLES);
    assert_eq!(CYCLES_PER_BLOCK, 4, "32 B/cycle: 128-byte blocks in 4 beats");
}

#[test]
fn back_to_back_blocks_take_four_cycles_each_plus_the_latency() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let n = 200;
        let bytes: Vec<u8> = (0..n)
            .flat_map(|_| engine::synth::activation_block(&mut rng, width))
            .collect();
        let mut sim = LaneSim::new();
        sim.queue_transfer(&bytes, width, 7);
        // The registered `beat_ready` rises the cycle after reset: the first beat is taken then.
        let start = sim.cycle() + READY_AFTER_RESET_CYCLES;
        let out = sim.drain(20 * n as u64);
        assert_eq!(out.len(), n);
        assert_eq!(mismatches(&padded_blocks(&bytes), width, &out), 0);
        // The first beat is taken in cycle `start`; block k leaves 4k cycles after the first.
        assert!(
            out.iter().all(|o| o.latency_cycles == LATENCY_CYCLES),
            "latency not constant at {LATENCY_CYCLES}"
        );
        assert_eq!(out[0].out_cycle - start, LATENCY_CYCLES);
        for pair in out.windows(2) {
            assert_eq!(
                pair[1].out_cycle - pair[0].out_cycle,
                CYCLES_PER_BLOCK,
                "a bubble between blocks"
            );
        }
        assert_eq!(
            out[n - 1].out_cycle - start,
            CYCLES_PER_BLOCK * (n as u64 - 1) + LATENCY_CYCLES
        );
        assert!(out.iter().all(|o| o.id == 7) && out[n - 1].last && out[..n - 1].iter().all(|o| !o.last));
    }
}

#[test]
fn output_backpressure_stalls_without_losing_or_reordering_blocks() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let width = SymbolWidth::W16;
    let blocks: Vec<_> = (0..150)
        .map(|_| engine::synth::activation_block(&mut rng, width))
        .collect();
    let mut sim = LaneSim::new();
    for (i, b) in blocks.iter().enumerate() {
        sim.queue_transfer(b, width, i as u8);
    }
    let mut out = Vec::new();
    let mut stalled_cycles = 0;
    while !sim.idle() && sim.cycle() < 10_000 {
        let ready = rng.gen_bool(0.15);
        stalled_cycles += !ready as u32;
        out.extend(sim.step(ready));
    }
    assert_eq!(out.len(), blocks.len());
    assert!(out.iter().enumerate().all(|(i, o)| o.id == i as u8), "blocks reordered");
    assert_eq!(mismatches(&blocks, width, &out), 0);
    // A consumer ready 15% of the time takes fewer than one block per 4 cycles: the lane must
    // have held blocks and stalled its input (at least one extra cycle per block on average).
    let unthrottled = CYCLES_PER_BLOCK * blocks.len() as u64 + LATENCY_CYCLES;
    assert!(
        sim.cycle() > unthrottled + blocks.len() as u64,
        "backpressure had no effect ({stalled_cycles} not-ready cycles, {} cycles)",
        sim.cycle()
    );
}

#[test]
fn partial_final_blocks_are_zero_padded_and_closed_by_the_last_beat() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let mut sim = LaneSim::new();
        let mut expected = Vec::new();
        for (id, len) in [200usize, 1, 33, 127, 128, 129, 64, 96, 31].into_iter().enumerate() {
            let bytes: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
            sim.queue_transfer(&bytes, width, id as u8);
            let blocks = padded_blocks(&bytes);
            let count = blocks.len();
            expected.extend(
                blocks
                    .into_iter()
                    .enumerate()
                    .map(|(k, b)| (b, id as u8, k + 1 == count)),
            );
        }
        let out = sim.drain(2_000);
        assert_eq!(out.len(), expected.len());
        for (o, (block, id, last)) in out.iter().zip(&expected) {
            assert_eq!((&o.block, o.id, o.last), (block, *id, *last));
            assert_eq!(o.encoding, encode_block(block, width), "{width:?} transfer {id}");
        }
    }
}

#[test]
fn vcd_trace_has_readable_signals_and_parses_back() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lane.vcd");
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut sim = LaneSim::new();
    sim.trace_to(Box::new(std::io::BufWriter::new(std::fs::File::create(&path).unwrap())));
    let bytes: Vec<u8> = (0..6)
        .flat_map(|_| engine::synth::activation_block(&mut rng, SymbolWidth::W32))
        .collect();
    sim.queue_transfer(&bytes, SymbolWidth::W32, 1);
    let out = sim.drain(100);
    sim.finish_trace();
    assert_eq!(out.len(), 6);

    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().expect("VCD header");
    let find = |path: &[&str]| {
        header
            .find_var(path)
            .unwrap_or_else(|| panic!("no VCD variable {path:?}"))
            .code
    };
    let beat_valid = find(&["uut", "beat_valid"]);
    let out_valid = find(&["uut", "out_valid"]);
    let out_tag = find(&["uut", "out_tag"]);
    for p in [
        &["uut", "beat_data$0"][..],
        &["uut", "out_len"],
        &["uut", "out_payload$0"],
        &["uut", "choice", "size_zvc"],
        &["uut", "choice", "size_dbx"],
        &["uut", "choice", "size_bx"],
        &["uut", "choice", "size_zbx"],
        &["uut", "choice", "choice_tag"],
        &["uut", "sizes", "size_dbx"],
        &["uut", "sizes", "win_dbx"],
        &["uut", "coder", "offset$0"],
        &["uut", "placer", "payload$0"],
    ] {
        find(p);
    }
    let (mut beat_high, mut out_high, mut tags, mut times) = (0, 0, 0, 0);
    for command in parser {
        match command.expect("VCD body") {
            vcd::Command::Timestamp(_) => times += 1,
            vcd::Command::ChangeScalar(code, vcd::Value::V1) if code == beat_valid => beat_high += 1,
            vcd::Command::ChangeScalar(code, vcd::Value::V1) if code == out_valid => out_high += 1,
            vcd::Command::ChangeVector(code, _) if code == out_tag => tags += 1,
            _ => {}
        }
    }
    assert!(times >= 2 * 30, "only {times} timestamps");
    assert!(
        beat_high >= 1 && out_high >= 1 && tags >= 1,
        "beat_valid {beat_high}, out_valid {out_high}, out_tag {tags} changes"
    );
}

#[test]
fn symbol_width_switches_per_transfer_without_bubbles() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut sim = LaneSim::new();
    let mut expected = Vec::new();
    for id in 0..40u8 {
        let width = if rng.gen_bool(0.5) {
            SymbolWidth::W16
        } else {
            SymbolWidth::W32
        };
        let blocks: Vec<[u8; BLOCK_BYTES]> = (0..rng.gen_range(1..4))
            .map(|_| engine::synth::activation_block(&mut rng, width))
            .collect();
        sim.queue_transfer(&blocks.concat(), width, id);
        expected.extend(blocks.into_iter().map(|b| (b, width, id)));
    }
    let out = sim.drain(2_000);
    assert_eq!(out.len(), expected.len());
    for (o, (block, width, id)) in out.iter().zip(&expected) {
        assert_eq!(o.id, *id);
        assert_eq!(o.encoding, encode_block(block, *width), "transfer {id} ({width:?})");
    }
    for pair in out.windows(2) {
        assert_eq!(
            pair[1].out_cycle - pair[0].out_cycle,
            CYCLES_PER_BLOCK,
            "a bubble at a width switch"
        );
    }
}
