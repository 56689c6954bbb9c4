//! `pz_engine` (two device-to-host and two host-to-device lanes) in the rust-hdl simulation:
//! the host-memory image its device-to-host writes build equals `golden::encode_stream` byte for
//! byte and `done` reports golden's wire bytes; its host-to-device writes, fed golden's stream,
//! put back the original bytes. On real tensors of `data/` at both widths, odd lengths (partial
//! final block and chunk), incompressible bytes (raw chunks), width changes between transfers,
//! an empty transfer, bubbles and backpressure on every port; the sustained rate per direction.

use engine::golden::{CHUNK_BYTES, SymbolWidth, encode_stream};
use engine::hw::d2h_driver::Transfer;
use engine::hw::beats::BEAT_BYTES;
use engine::hw::engine_driver::{EnginePorts, EngineSim, check_d2h, check_h2d, sustained_bytes_per_cycle};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;

#[path = "support/real_blocks.rs"]
#[allow(dead_code)]
mod real_blocks;

/// Real bytes of `data/` at `width`: for each of the first `count` models, its iteration-0
/// tensors with blocks of that width concatenated in name order (the captures hold samples of at
/// most a few KiB per tensor), cut to `len` bytes.
fn real_tensors(width: SymbolWidth, len: usize, count: usize) -> Vec<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut models: Vec<PathBuf> = std::fs::read_dir(&root).expect("data/ holds the captured samples").map(|e| e.unwrap().path()).collect();
    models.sort();
    let mut out = Vec::new();
    for m in models {
        let file = m.join("iter0.safetensors");
        let Ok(bytes) = std::fs::read(&file) else { continue };
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap_or_else(|e| panic!("parse {}: {e}", file.display()));
        let mut names: Vec<String> = st.names().into_iter().cloned().collect();
        names.sort();
        let mut data = Vec::new();
        for n in names {
            let v = st.tensor(&n).unwrap();
            if let Some(d) = real_blocks::tensor_bytes(v.dtype(), v.data(), width) {
                data.extend(d);
            }
            if data.len() >= len {
                out.push(data[..len].to_vec());
                break;
            }
        }
        if out.len() == count {
            break;
        }
    }
    assert_eq!(out.len(), count, "data/ has {count} models with {len} bytes at {width:?}");
    out
}

/// Runs `transfers` through both directions of a fresh engine at once (device to host: the
/// bytes; host to device: golden's stream of them) with `ports` per cycle, checks both against
/// golden and returns the simulation.
fn run_both(transfers: &[Transfer], mut ports: impl FnMut() -> EnginePorts) -> EngineSim {
    let mut sim = EngineSim::new();
    for t in transfers {
        sim.queue_d2h(t);
        sim.queue_h2d(&encode_stream(&t.bytes, t.width), t.bytes.len() as u32, t.width, t.id);
    }
    let bytes: usize = transfers.iter().map(|t| t.bytes.len()).sum();
    sim.run(2000 + 8 * bytes as u64 / 32 + 600 * transfers.len() as u64, &mut ports);
    assert!(
        sim.idle(),
        "the engine stalled after {} cycles: {} of {} d2h and {} h2d transfers done",
        sim.cycle(),
        sim.trace.d2h_dones.len(),
        transfers.len(),
        sim.trace.h2d_dones.len()
    );
    let d = check_d2h(transfers, &sim.trace).unwrap_or_else(|e| panic!("device to host: {e}"));
    let h = check_h2d(transfers, &sim.trace).unwrap_or_else(|e| panic!("host to device: {e}"));
    assert_eq!(h, bytes, "host to device wrote every original byte once");
    assert_eq!(d.transfers, transfers.len());
    sim
}

/// Real tensors, 24 full chunks and a partial one of 77 bytes (a partial final block) each,
/// one per width, back to back (the width changes between them); per transfer and direction,
/// the sustained rate in raw bytes per cycle over the middle half of its bytes (device to host:
/// beats taken; host to device: bytes written), and end to end (first beat to last `done` or
/// last write, start-up and tail included).
#[test]
fn real_tensors_both_directions_bit_exact_and_rate() {
    let len = 24 * CHUNK_BYTES + 77;
    let transfers = vec![
        Transfer { id: 1, width: SymbolWidth::W32, bytes: real_tensors(SymbolWidth::W32, len, 1).remove(0) },
        Transfer { id: 2, width: SymbolWidth::W16, bytes: real_tensors(SymbolWidth::W16, len, 1).remove(0) },
    ];
    let sim = run_both(&transfers, || EnginePorts::FREE);
    for (n, t) in transfers.iter().enumerate() {
        let wire = encode_stream(&t.bytes, t.width).len();
        let beats: Vec<(u64, usize)> = sim.trace.d2h_beat_log.iter().filter(|b| b.1 == n).map(|b| (b.0, BEAT_BYTES)).collect();
        let mut writes: Vec<(u64, usize)> = sim.trace.h2d_writes.iter().flatten().filter(|w| w.id == t.id).map(|w| (w.cycle, w.strb.count_ones() as usize)).collect();
        writes.sort();
        let d = sustained_bytes_per_cycle(&beats).unwrap();
        let h = sustained_bytes_per_cycle(&writes).unwrap();
        let d_span = sim.trace.d2h_dones[n].cycle - sim.trace.d2h_cycles[n].first_beat.unwrap() + 1;
        let h_span = writes.last().unwrap().0 - sim.trace.h2d_cycles[n].first_beat.unwrap() + 1;
        eprintln!(
            "{:?} real data of data/ ({len} B, {wire} wire bytes): device to host {d:.2} B/cycle sustained, {:.2} end to end ({d_span} cycles); host to device {h:.2} B/cycle sustained, {:.2} end to end ({h_span} cycles)",
            t.width,
            len as f64 / d_span as f64,
            len as f64 / h_span as f64
        );
        assert!(d >= 60.0, "{:?}: device-to-host sustained rate {d:.2} B/cycle below 60", t.width);
        assert!(h >= 60.0, "{:?}: host-to-device sustained rate {h:.2} B/cycle below 60", t.width);
    }
}

/// Odd lengths around block and chunk boundaries, an empty transfer, incompressible bytes (raw
/// chunks) and width changes, with bubbles and backpressure on every port.
#[test]
fn odd_lengths_raw_chunks_and_backpressure() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let real = real_tensors(SymbolWidth::W32, 3 * CHUNK_BYTES, 1).remove(0);
    let real16 = real_tensors(SymbolWidth::W16, 3 * CHUNK_BYTES, 1).remove(0);
    let random: Vec<u8> = (0..2 * CHUNK_BYTES + 300).map(|_| rng.r#gen()).collect();
    let cases: Vec<(SymbolWidth, Vec<u8>)> = vec![
        (SymbolWidth::W32, real[..5].to_vec()),
        (SymbolWidth::W16, real16[..CHUNK_BYTES + 1].to_vec()),
        (SymbolWidth::W32, Vec::new()),
        (SymbolWidth::W32, random.clone()),
        (SymbolWidth::W16, real16[..2 * CHUNK_BYTES - 129].to_vec()),
        (SymbolWidth::W32, real[..CHUNK_BYTES].to_vec()),
        (SymbolWidth::W16, random[..CHUNK_BYTES + 200].to_vec()),
        (SymbolWidth::W32, real[..3 * CHUNK_BYTES - 31].to_vec()),
    ];
    let transfers: Vec<Transfer> = cases.into_iter().enumerate().map(|(i, (width, bytes))| Transfer { id: 40 + i as u8, width, bytes }).collect();
    let mut x = 0x1234_5678u32;
    let sim = run_both(&transfers, || EnginePorts::from_xorshift(&mut x));
    let raw: usize = transfers.iter().map(|t| engine::golden::encode_stream_with_stats(&t.bytes, t.width).1.raw_chunks).sum();
    assert!(raw >= 4, "the random tensors give raw chunks ({raw})");
    eprintln!("{} transfers (raw chunks: {raw}) with backpressure on every port: both directions bit-exact in {} cycles", transfers.len(), sim.cycle());
}

/// The published latency models (`engine::hw::engine_latency`) against the simulation, each
/// transfer alone in an idle engine without backpressure: real data of both widths from one
/// chunk to 13, partial final chunks and blocks, a 5-byte transfer, incompressible bytes (raw
/// chunks alone and between compressed ones: 3 raw chunks in a row; 9 chunks of fp32 with 2 raw
/// on the odd lane; 8 of fp32 with raw chunks 2 and 3 (adjacent, one per lane) and a partial raw
/// last chunk; 9 of bf16 with raw chunks 0, 4, 5 and 8 (first, adjacent, last)), and two long
/// transfers (32 chunks of bf16, 33 of fp32 with raw chunks among them) in which each lane's
/// piece buffers fill. Raw chunks whose writes wait for their base fill their lane's write buffer
/// and stall the lane, and compressed chunks queued behind them do too; the device-to-host model
/// follows the buffer write by write. Held to ±2 cycles or [`MODEL_TOLERANCE_FRACTION`] on every
/// transfer, both directions. See docs/HARDWARE.md.
#[test]
fn latency_models_match_the_simulation() {
    use engine::hw::engine_latency::{EngineChunk, engine_d2h_latency_cycles, engine_h2d_latency_cycles};
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    // 33 chunks of fp32 (an odd count: lane 0 has one more), 32 of bf16.
    let real = real_tensors(SymbolWidth::W32, (LONG_TRANSFER_CHUNKS + 1) * CHUNK_BYTES, 1).remove(0);
    let real16 = real_tensors(SymbolWidth::W16, LONG_TRANSFER_CHUNKS * CHUNK_BYTES, 1).remove(0);
    let random: Vec<u8> = (0..3 * CHUNK_BYTES).map(|_| rng.r#gen()).collect();
    let noise: Vec<u8> = (0..9 * CHUNK_BYTES).map(|_| rng.r#gen()).collect();
    // Real bytes cut to `len`, chunks `raw` replaced by incompressible ones (a raw last chunk as
    // long as the cut leaves it).
    let with_raw = |real: &[u8], len: usize, raw: &[usize]| {
        let mut v = real[..len].to_vec();
        for &c in raw {
            let end = ((c + 1) * CHUNK_BYTES).min(len);
            v[c * CHUNK_BYTES..end].copy_from_slice(&noise[c * CHUNK_BYTES..end]);
        }
        v
    };
    // Real fp32 chunks with incompressible ones among them (chunks 1, 7, 20: raw).
    let mut mixed = real.clone();
    for (k, c) in [1, 7, 20].into_iter().enumerate() {
        mixed[c * CHUNK_BYTES..(c + 1) * CHUNK_BYTES].copy_from_slice(&random[k * CHUNK_BYTES..(k + 1) * CHUNK_BYTES]);
    }
    let cases: Vec<(SymbolWidth, Vec<u8>)> = vec![
        (SymbolWidth::W32, real[..5].to_vec()),
        (SymbolWidth::W32, real[..CHUNK_BYTES].to_vec()),
        (SymbolWidth::W32, real[..2 * CHUNK_BYTES].to_vec()),
        (SymbolWidth::W32, real[..5 * CHUNK_BYTES + 77].to_vec()),
        (SymbolWidth::W32, real[..13 * CHUNK_BYTES].to_vec()),
        (SymbolWidth::W16, real16[..CHUNK_BYTES].to_vec()),
        (SymbolWidth::W16, real16[..3 * CHUNK_BYTES + 1000].to_vec()),
        (SymbolWidth::W16, real16[..13 * CHUNK_BYTES].to_vec()),
        (SymbolWidth::W32, random[..CHUNK_BYTES].to_vec()),
        (SymbolWidth::W32, random.clone()),
        (SymbolWidth::W32, mixed[..8 * CHUNK_BYTES + 300].to_vec()),
        (SymbolWidth::W32, with_raw(&real, 7 * CHUNK_BYTES + 1000, &[2, 3, 7])),
        (SymbolWidth::W16, with_raw(&real16, 9 * CHUNK_BYTES, &[0, 4, 5, 8])),
        (SymbolWidth::W16, real16.clone()),
        (SymbolWidth::W32, mixed),
    ];
    let mut sim = EngineSim::new();
    let mut bad = Vec::new();
    let (mut long, mut worst, mut multi_raw) = (false, 0.0f64, 0);
    for (i, (width, bytes)) in cases.into_iter().enumerate() {
        let t = Transfer { id: i as u8, width, bytes };
        sim.queue_d2h(&t);
        sim.queue_h2d(&encode_stream(&t.bytes, t.width), t.bytes.len() as u32, t.width, t.id);
        sim.run(100_000, || EnginePorts::FREE);
        assert!(sim.idle(), "transfer {i} did not finish");
        let d = sim.trace.d2h_dones[i].cycle - sim.trace.d2h_cycles[i].first_beat.unwrap();
        let h = sim.trace.h2d_writes.iter().flatten().filter(|w| w.id == t.id).map(|w| w.cycle).max().unwrap() - sim.trace.h2d_cycles[i].first_beat.unwrap();
        let works = EngineChunk::chunks_of_tensor(&t.bytes, t.width);
        let raw = works.iter().filter(|w| w.work.raw_chunks > 0).count();
        long |= works.len() >= LONG_TRANSFER_CHUNKS;
        multi_raw += usize::from(raw >= 2);
        let (md, mh) = (engine_d2h_latency_cycles(&works), engine_h2d_latency_cycles(&works));
        let near = |sim: u64, model: u64| sim.abs_diff(model) <= 2 || (sim.abs_diff(model) as f64) <= MODEL_TOLERANCE_FRACTION * sim as f64;
        let pct = |sim: u64, model: u64| 100.0 * (model as f64 - sim as f64) / sim as f64;
        eprintln!(
            "{:?} {} B, {} chunks ({raw} raw): device to host model {md} / simulated {d} cycles ({:+}, {:+.2} %); host to device model {mh} / simulated {h} cycles ({:+}, {:+.2} %)",
            t.width,
            t.bytes.len(),
            works.len(),
            md as i64 - d as i64,
            pct(d, md),
            mh as i64 - h as i64,
            pct(h, mh)
        );
        worst = worst.max(pct(h, mh).abs());
        if !near(d, md) {
            bad.push(format!("transfer {i}: device to host {d} cycles, model {md}"));
        }
        if !near(h, mh) {
            bad.push(format!("transfer {i}: host to device {h} cycles, model {mh}"));
        }
    }
    eprintln!("host to device: largest model error {worst:.2} %");
    assert!(long, "a transfer of at least {LONG_TRANSFER_CHUNKS} chunks is checked");
    assert!(multi_raw >= 5, "five transfers with two or more raw chunks are checked ({multi_raw})");
    assert!(bad.is_empty(), "latency model off by more than ±2 cycles and {} %:\n{}", 100.0 * MODEL_TOLERANCE_FRACTION, bad.join("\n"));
}

/// Relative tolerance of the latency models beyond ±2 cycles (issue 11: 1 %).
const MODEL_TOLERANCE_FRACTION: f64 = 0.01;
/// Chunks of the longest transfers of [`latency_models_match_the_simulation`]: more than each
/// lane's four contexts and 8 KiB of piece buffers hold, so the splitter waits on full buffers.
const LONG_TRANSFER_CHUNKS: usize = 32;

/// Host-to-device errors at the engine level, on the crafted cases of every FORMAT.md §9 class
/// that the lane's own test uses ([`malformed_cases`]: block-level damage in chunk 1 (the odd
/// lane), a bad chunk 1 beside a good or sooner-failing chunk 2 (the even lane), a header above
/// its raw size, streams cut in a body, a header and a raw chunk, trailing bytes), each followed
/// by a good transfer of the other width or the same: golden's first error (class, chunk) in one
/// pulse before `done`, nothing wrong or past the bad block written, the good prefix whole, and
/// every good transfer put back bit for bit; with backpressure on every port.
#[test]
fn every_malformed_class_reports_golden_error_and_the_engine_recovers() {
    use engine::hw::engine_driver::check_h2d_streams;
    use engine::hw::h2d_driver::H2dErrorClass;
    use engine::hw::malformed::{StreamCase, malformed_cases};
    let cases = malformed_cases(13);
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut streams: Vec<StreamCase> = Vec::new();
    for (i, (_, t)) in cases.iter().enumerate() {
        streams.push(t.clone());
        let width = if i % 2 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
        streams.push(StreamCase::synthetic(&mut rng, width, 300 + 1000 * (i % 3)));
    }
    let classes: std::collections::HashSet<H2dErrorClass> = cases.iter().map(|c| c.0).collect();
    assert_eq!(classes.len(), H2dErrorClass::ALL.len(), "every §9 class is crafted");
    let budget: u64 = streams.iter().map(|t| 200 + 40 * t.data.len().div_ceil(128) as u64).sum();
    // One backpressure pattern: the rust-hdl engine runs about 100 cycles/s; the Verilator test
    // (`cocotb-free-tests`, same cases) runs them without and with backpressure.
    for seed in [0x5EED_0042u32] {
        let mut sim = EngineSim::new();
        for (i, t) in streams.iter().enumerate() {
            sim.queue_h2d(&t.stream, t.data.len() as u32, t.width, i as u8);
        }
        let mut x = seed;
        sim.run(4 * budget, || if seed == 0 { EnginePorts::FREE } else { EnginePorts::from_xorshift(&mut x) });
        assert!(sim.idle(), "seed {seed:#x}: the engine stalled on malformed streams: {} of {} done", sim.trace.h2d_dones.len(), streams.len());
        let ids: Vec<(u8, &StreamCase)> = streams.iter().enumerate().map(|(i, t)| (i as u8, t)).collect();
        let malformed = check_h2d_streams(&ids, &sim.trace).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        assert_eq!(malformed, cases.len(), "seed {seed:#x}: every crafted case is malformed in golden");
        eprintln!("seed {seed:#x}: {malformed} malformed streams of {} classes and {} good ones: golden's errors, recovery bit-exact, {} cycles", classes.len(), streams.len() - malformed, sim.cycle());
    }
}
