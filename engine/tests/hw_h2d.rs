//! The host-to-device lane's rust-hdl simulation against the golden codec: it is fed golden's
//! chunk streams and must write back the tensor bit for bit (FORMAT.md example E, the shared
//! vectors, real blocks of `data/` at both widths, raw chunks, partial chunks and blocks, width
//! switching, empty transfers, backpressure on every port); every FORMAT.md §9 condition in a
//! crafted transfer must raise the error golden's decoder reports, naming the same chunk (the
//! lowest bad one, though the lane's contexts decode several at once), with the good prefix
//! written and nothing of the bad chunk past its bad block, and the next transfer must decode;
//! the lane's latency model must match the simulation.

#[path = "support/real_blocks.rs"]
mod real_blocks;

use engine::golden::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth, decode_stream, encode_stream};
use engine::hw::h2d_driver::{H2dErrorClass, H2dPorts, H2dResult, H2dWork, h2d_lane_latency_cycles};
use engine::hw::H2dSim;
use engine::hw::malformed::{StreamCase as Transfer, malformed_cases};
use engine::vectors::parse_file;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// Runs the transfers back to back through one lane and returns what each produced.
fn run(transfers: &[Transfer], backpressure: Option<u32>) -> Vec<H2dResult> {
    let mut sim = H2dSim::new();
    for (i, t) in transfers.iter().enumerate() {
        sim.queue_transfer(&t.stream, t.data.len() as u32, t.width, i as u8);
    }
    let budget: u64 = transfers.iter().map(|t| 64 + 40 * t.data.len().div_ceil(BLOCK_BYTES) as u64 + t.stream.len() as u64).sum();
    let mut x = backpressure.unwrap_or(1);
    let results = match backpressure {
        Some(_) => sim.run(4 * budget, || H2dPorts::from_xorshift(&mut x)),
        None => sim.run(budget, || H2dPorts::FREE),
    };
    assert_eq!(results.iter().filter(|r| r.done_cycle.is_some()).count(), transfers.len(), "not every transfer finished");
    results.to_vec()
}

/// Asserts that a good transfer wrote exactly its tensor, once per byte, with no error, the
/// final byte's write marked last, and the golden decoder agreeing with the stream.
fn assert_decoded(t: &Transfer, r: &H2dResult, what: &str) {
    assert_eq!(decode_stream(&t.stream, t.data.len(), t.width).as_deref(), Ok(&t.data[..]), "{what}: golden disagrees");
    assert_eq!(r.error, None, "{what}: unexpected error");
    let (mem, bad) = r.memory(t.data.len(), 0xA5);
    assert!(!bad, "{what}: a write fell outside the tensor or repeated a byte");
    assert_eq!(r.bytes_written(), t.data.len(), "{what}: bytes written");
    if mem != t.data {
        let first = mem.iter().zip(&t.data).position(|(a, b)| a != b).unwrap();
        panic!("{what}: first wrong byte at {first} (block {}, chunk {})", first / BLOCK_BYTES, first / CHUNK_BYTES);
    }
    if !t.data.is_empty() {
        let lasts: Vec<_> = r.writes.iter().filter(|w| w.last).collect();
        assert_eq!(lasts.len(), 1, "{what}: one write is marked last");
        assert_eq!(lasts[0].addr as usize + lasts[0].strb.count_ones() as usize, t.data.len(), "{what}: the last write holds the final byte");
    }
}

fn shared_vector_tensor(width: SymbolWidth) -> Vec<u8> {
    let text = match width {
        SymbolWidth::W16 => include_str!("vectors/w16.txt"),
        SymbolWidth::W32 => include_str!("vectors/w32.txt"),
    };
    parse_file(text).expect("parse the shared vectors").iter().flat_map(|v| v.input).collect()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn format_example_e_decodes_bit_for_bit() {
    let data: Vec<u8> = (0..50).flat_map(|_| 1.0f32.to_le_bytes()).collect();
    let t = Transfer { data, stream: hex("0c004800900d120ffffe000240b4"), width: SymbolWidth::W32 };
    assert_eq!(encode_stream(&t.data, t.width), t.stream, "FORMAT.md example E");
    let r = run(std::slice::from_ref(&t), None);
    assert_decoded(&t, &r[0], "example E");
    // 200 bytes: block 0 as four full writes, block 1 as 72 bytes in three writes.
    assert_eq!(r[0].writes.iter().map(|w| (w.addr, w.strb.count_ones())).collect::<Vec<_>>(), vec![(0, 32), (32, 32), (64, 32), (96, 32), (128, 32), (160, 32), (192, 8)]);
}

#[test]
fn shared_vectors_decode_at_both_widths() {
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let t = Transfer::good(shared_vector_tensor(width), width);
        let work = H2dWork::of_tensor(&t.data, width);
        for (tag, n) in work.blocks_by_tag.iter().enumerate() {
            assert!(*n > 0, "{width:?}: no block with tag {tag} in a compressed chunk");
        }
        let r = run(std::slice::from_ref(&t), None);
        assert_decoded(&t, &r[0], &format!("{width:?} shared vectors"));
        let cycles = r[0].latency_cycles().unwrap();
        let model = h2d_lane_latency_cycles(&H2dWork::chunks_of_tensor(&t.data, width));
        assert!(cycles.abs_diff(model) <= 2.max(cycles / 100), "{width:?} shared vectors: model {model} cycles, simulation {cycles}");
        eprintln!("{width:?}: {} shared vectors, {} bytes in {cycles} cycles = {:.2} B/cycle (model {model} cycles)", t.data.len() / BLOCK_BYTES, t.data.len(), t.data.len() as f64 / cycles as f64);
    }
}

/// Distinct real blocks of `data/` (every model's first iteration), `per_width` of them.
fn real_tensor(width: SymbolWidth, per_tensor: usize, limit: usize) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .expect("data/ holds the captured samples")
        .map(|e| e.unwrap().path().join("iter0.safetensors"))
        .filter(|p| p.exists())
        .collect();
    files.sort();
    assert!(files.len() >= 2, "too few models in data/");
    let files: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let blocks = real_blocks::distinct_blocks(&files, width, per_tensor, limit).blocks;
    assert!(blocks.len() >= limit / 2, "{width:?}: only {} distinct real blocks", blocks.len());
    blocks.concat()
}

#[test]
fn real_blocks_decode_and_the_latency_model_holds() {
    for width in [SymbolWidth::W32, SymbolWidth::W16] {
        let data = real_tensor(width, 2, 600);
        // One long transfer, and the same bytes as transfers of assorted lengths.
        let mut transfers = vec![Transfer::good(data.clone(), width)];
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut at = 0;
        while at < data.len() / 4 {
            let len = rng.gen_range(1..3 * CHUNK_BYTES / 2).min(data.len() - at);
            transfers.push(Transfer::good(data[at..at + len].to_vec(), width));
            at += len;
        }
        let results = run(&transfers, None);
        for (i, (t, r)) in transfers.iter().zip(&results).enumerate() {
            assert_decoded(t, r, &format!("{width:?} real transfer {i}"));
            let sim = r.latency_cycles().unwrap();
            let model = h2d_lane_latency_cycles(&H2dWork::chunks_of_tensor(&t.data, width));
            let tolerance = 2.max(sim / 100);
            assert!(sim.abs_diff(model) <= tolerance, "{width:?} transfer {i} ({} bytes): model {model} cycles, simulation {sim}", t.data.len());
        }
        let cycles = results[0].latency_cycles().unwrap();
        eprintln!(
            "{width:?}: {} distinct real blocks of data/, {} bytes decoded in {cycles} cycles = {:.2} B/cycle; {} more transfers, model within ±2 cycles / 1 %",
            data.len() / BLOCK_BYTES,
            data.len(),
            data.len() as f64 / cycles as f64,
            transfers.len() - 1
        );
    }
}

#[test]
fn raw_chunks_partial_blocks_empty_transfers_and_width_switching() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let noise: Vec<u8> = (0..CHUNK_BYTES + 777).map(|_| rng.r#gen()).collect();
    let mut transfers = vec![
        Transfer::good(noise.clone(), SymbolWidth::W32),
        Transfer::good(Vec::new(), SymbolWidth::W16),
        Transfer::good(noise[..5].to_vec(), SymbolWidth::W16),
    ];
    for i in 0..6 {
        let width = if i % 2 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
        let blocks = 1 + i;
        let mut data: Vec<u8> = (0..blocks).flat_map(|_| engine::synth::activation_block(&mut rng, width)).collect();
        data.truncate(data.len() - 37 * (i % 3));
        transfers.push(Transfer::good(data, width));
    }
    assert!(transfers[0].stream.len() == transfers[0].data.len() + 4, "noise is stored as two raw chunks");
    let results = run(&transfers, None);
    for (i, (t, r)) in transfers.iter().zip(&results).enumerate() {
        assert_decoded(t, r, &format!("transfer {i}"));
    }
}

#[test]
fn backpressure_on_every_port_changes_timing_not_data() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut transfers = Vec::new();
    for i in 0..5 {
        let width = if i % 2 == 0 { SymbolWidth::W32 } else { SymbolWidth::W16 };
        let mut data: Vec<u8> = (0..(8 + 3 * i)).flat_map(|_| engine::synth::activation_block(&mut rng, width)).collect();
        data.truncate(data.len() - 50 * (i % 2));
        transfers.push(Transfer::good(data, width));
    }
    let noise: Vec<u8> = (0..700).map(|_| rng.r#gen()).collect();
    transfers.push(Transfer::good(noise, SymbolWidth::W32));
    let free = run(&transfers, None);
    let pressed = run(&transfers, Some(0x9E37_79B9));
    for (i, t) in transfers.iter().enumerate() {
        assert_decoded(t, &pressed[i], &format!("transfer {i} with backpressure"));
    }
    let end = |r: &[H2dResult]| r.last().and_then(|r| r.done_cycle).unwrap();
    assert!(end(&pressed) > end(&free), "backpressure did not slow the run down");
}

#[test]
fn every_malformed_chunk_class_is_reported_with_its_chunk_and_nothing_bad_is_written() {
    let cases = malformed_cases(13);
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let (w16, w32) = (SymbolWidth::W16, SymbolWidth::W32);
    // Each bad transfer is followed by a good one, which must decode.
    let mut transfers = Vec::new();
    for (_, t) in cases.iter() {
        transfers.push(t.clone());
        transfers.push(Transfer::synthetic(&mut rng, if transfers.len() % 4 == 0 { w16 } else { w32 }, 300));
    }
    let results = run(&transfers, None);
    let mut seen = std::collections::HashSet::new();
    for (i, (class, t)) in cases.iter().enumerate() {
        let chunks = t.data.len().div_ceil(CHUNK_BYTES);
        let golden = decode_stream(&t.stream, t.data.len(), t.width).expect_err("crafted transfer must be malformed");
        let expected = H2dErrorClass::of_decode_error(&golden, chunks);
        assert_eq!(expected.0, *class, "case {i}: golden reports {golden}");
        let r = &results[2 * i];
        assert_eq!(r.error, Some(expected), "case {i} ({class:?}): golden says {golden}");
        assert_eq!(r.error_pulses, 1, "case {i}: one error pulse");
        // The good prefix is written; in the bad chunk nothing past its bad block; chunks after it
        // that other contexts had already taken may be written, with the tensor's bytes only.
        let prefix = t.good_prefix_bytes();
        let bad_chunk_end = ((expected.1 + 1) * CHUNK_BYTES).min(t.data.len());
        let (mem, overlap) = r.memory(t.data.len(), 0xA5);
        assert!(!overlap, "case {i}: writes outside the tensor or repeated");
        assert_eq!(&mem[..prefix], &t.data[..prefix], "case {i} ({class:?}): the good prefix");
        for w in &r.writes {
            for b in (0..32).filter(|b| w.strb >> b & 1 == 1) {
                let a = w.addr as usize + b;
                assert!(a < prefix || a >= bad_chunk_end, "case {i} ({class:?}): byte {a} of the bad chunk past its bad block written");
                assert_eq!(w.data[b], t.data[a], "case {i} ({class:?}): byte {a} written wrong");
            }
        }
        let in_prefix = r.writes.iter().map(|w| (0..32).filter(|b| w.strb >> b & 1 == 1 && (w.addr as usize + b) < prefix).count()).sum::<usize>();
        assert_eq!(in_prefix, prefix, "case {i} ({class:?}): bytes of the good prefix written");
        // A write is marked last only if it holds the tensor's final byte.
        assert!(r.writes.iter().filter(|w| w.last).all(|w| w.addr as usize + w.strb.count_ones() as usize == t.data.len()), "case {i}: a write marked last without the final byte");
        let next = &transfers[2 * i + 1];
        assert_decoded(next, &results[2 * i + 1], &format!("transfer after case {i}"));
        seen.insert(*class);
    }
    assert_eq!(seen.len(), H2dErrorClass::ALL.len(), "every §9 class was crafted: {seen:?}");
}

#[test]
fn vcd_trace_parses_back() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("h2d.vcd");
    let t = Transfer::good((0..50).flat_map(|_| 1.0f32.to_le_bytes()).collect(), SymbolWidth::W32);
    let mut sim = H2dSim::new();
    sim.trace_to(Box::new(std::io::BufWriter::new(std::fs::File::create(&path).unwrap())));
    sim.queue_transfer(&t.stream, t.data.len() as u32, t.width, 3);
    sim.run(200, || H2dPorts::FREE);
    sim.finish_trace();
    assert_decoded(&t, &sim.results()[0], "traced");
    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let out_valid = header.find_var(&["uut", "out_valid"]).expect("out_valid traced").code;
    let mut high = 0;
    for cmd in parser {
        if let vcd::Command::ChangeScalar(code, vcd::Value::V1) = cmd.unwrap() {
            high += (code == out_valid) as usize;
        }
    }
    assert!(high >= 1, "out_valid never rose in the trace");
}

