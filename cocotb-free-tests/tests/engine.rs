//! The exported engine top `pz_engine` in Verilator, driven cycle by cycle by its C++ loop
//! (`harness/engine_harness.cpp`, [`EngineModel`]):
//! - in lockstep with the rust-hdl simulation ([`EngineSim`]): real tensors of `data/` both ways at
//!   once, partial chunks and blocks, raw chunks, an empty transfer and malformed streams, without
//!   and with backpressure on every port: every beat, write, `done` and error in the same cycle;
//! - alone against `golden`: every distinct real block of `data/` at both widths, device to host
//!   (the images its writes build = golden's streams) and then host to device on those images
//!   (the original bytes back), with backpressure, as the harness runs it (two calls);
//! - golden's FORMAT.md §9 error (class and chunk) on malformed streams, and recovery after them;
//! - the simulated cycles per CPU second of the C++ loop.
//!
//! Needs verilator, g++ and make (`scripts/install-area-tools.sh`); fails when they are missing.

use cocotb_free_tests::engine_model::{EngineModel, EngineRun, build_engine_model};
use cocotb_free_tests::h2d::H2dStimulus;
use cocotb_free_tests::{real_blocks, safetensors_under, whole_tensors};
use engine::golden::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth, decode_stream, encode_stream};
use engine::hw::d2h_driver::Transfer;
use engine::hw::engine_driver::{EnginePorts, EngineSim, EngineTrace, check_d2h, check_h2d, d2h_image};
use engine::hw::h2d_driver::H2dErrorClass;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn model() -> &'static EngineModel {
    static M: OnceLock<EngineModel> = OnceLock::new();
    M.get_or_init(|| {
        let m = build_engine_model(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("vengine")).expect("build the Verilator model of pz_engine");
        eprintln!("verilator pz_engine model build: {:.1} s wall (0 = reused)", m.build_seconds);
        m
    })
}

fn data_files() -> Vec<PathBuf> {
    let files = safetensors_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data"));
    assert!(files.len() >= 10, "data/ has {} safetensors files", files.len());
    files
}

/// The first `len` bytes of the concatenated tensors (name order) of the first file of `data/`
/// with that many bytes at `width`.
fn real_bytes(width: SymbolWidth, len: usize) -> Vec<u8> {
    for file in data_files() {
        let data: Vec<u8> = whole_tensors(&file, width).unwrap().into_iter().flat_map(|(_, b)| b).collect();
        if data.len() >= len {
            return data[..len].to_vec();
        }
    }
    panic!("no file of data/ has {len} bytes at {width:?}");
}

fn stimulus(t: &Transfer, stream: Vec<u8>) -> H2dStimulus {
    H2dStimulus { stream, raw_bytes: t.bytes.len() as u32, width: t.width, id: t.id }
}

/// The first place two traces differ, named, or `None` when they are equal.
fn first_difference(a: &EngineTrace, b: &EngineTrace) -> Option<String> {
    fn seq<T: PartialEq + std::fmt::Debug>(name: &str, a: &[T], b: &[T]) -> Option<String> {
        if let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) {
            return Some(format!("{name}[{i}]: {:?} vs {:?}", a[i], b[i]));
        }
        (a.len() != b.len()).then(|| format!("{name}: {} entries vs {}", a.len(), b.len()))
    }
    seq("d2h_writes[0]", &a.d2h_writes[0], &b.d2h_writes[0])
        .or_else(|| seq("d2h_writes[1]", &a.d2h_writes[1], &b.d2h_writes[1]))
        .or_else(|| seq("d2h_dones", &a.d2h_dones, &b.d2h_dones))
        .or_else(|| seq("d2h_cycles", &a.d2h_cycles, &b.d2h_cycles))
        .or_else(|| seq("d2h_beat_log", &a.d2h_beat_log, &b.d2h_beat_log))
        .or_else(|| seq("h2d_writes[0]", &a.h2d_writes[0], &b.h2d_writes[0]))
        .or_else(|| seq("h2d_writes[1]", &a.h2d_writes[1], &b.h2d_writes[1]))
        .or_else(|| seq("h2d_dones", &a.h2d_dones, &b.h2d_dones))
        .or_else(|| seq("h2d_errors", &a.h2d_errors, &b.h2d_errors))
        .or_else(|| seq("h2d_cycles", &a.h2d_cycles, &b.h2d_cycles))
}

/// Real tensors of both widths with partial final chunks and blocks, a 5-byte and an empty
/// transfer, incompressible bytes (raw chunks); host to device their golden streams plus a
/// stream with trailing bytes and one cut inside its last chunk.
fn lockstep_set() -> (Vec<Transfer>, Vec<H2dStimulus>) {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let random: Vec<u8> = (0..CHUNK_BYTES + 300).map(|_| rng.r#gen()).collect();
    let d2h = vec![
        Transfer { id: 1, width: SymbolWidth::W32, bytes: real_bytes(SymbolWidth::W32, 3 * CHUNK_BYTES + 77) },
        Transfer { id: 2, width: SymbolWidth::W16, bytes: real_bytes(SymbolWidth::W16, 2 * CHUNK_BYTES + 1) },
        Transfer { id: 3, width: SymbolWidth::W32, bytes: Vec::new() },
        Transfer { id: 4, width: SymbolWidth::W32, bytes: random },
        Transfer { id: 5, width: SymbolWidth::W16, bytes: real_bytes(SymbolWidth::W16, 5) },
    ];
    let mut h2d: Vec<H2dStimulus> = d2h.iter().map(|t| stimulus(t, encode_stream(&t.bytes, t.width))).collect();
    let mut trailing = stimulus(&d2h[1], encode_stream(&d2h[1].bytes, d2h[1].width));
    trailing.stream.extend([7, 7, 7]);
    trailing.id = 6;
    let mut cut = stimulus(&d2h[0], encode_stream(&d2h[0].bytes, d2h[0].width));
    cut.stream.truncate(cut.stream.len() - 40);
    cut.id = 7;
    h2d.insert(2, trailing);
    h2d.push(cut);
    (d2h, h2d)
}

/// Cycles the rust-hdl simulation of the lockstep set may take before it counts as stalled.
const LOCKSTEP_MAX_CYCLES: u64 = 20_000;

/// Runs the set in the rust-hdl simulation until idle, each cycle's ports `EnginePorts::FREE`
/// (seed 0) or from `EnginePorts::from_xorshift` stepped from `seed`: the schedule
/// [`EngineModel::run`] applies. Returns its trace and cycles.
fn rust_hdl_run(d2h: &[Transfer], h2d: &[H2dStimulus], seed: u32) -> (EngineTrace, u64) {
    let mut sim = EngineSim::new();
    for t in d2h {
        sim.queue_d2h(t);
    }
    for t in h2d {
        sim.queue_h2d(&t.stream, t.raw_bytes, t.width, t.id);
    }
    let mut x = seed;
    sim.run(LOCKSTEP_MAX_CYCLES, || if seed == 0 { EnginePorts::FREE } else { EnginePorts::from_xorshift(&mut x) });
    assert!(sim.idle(), "seed {seed:#x}: the rust-hdl engine is not idle after {LOCKSTEP_MAX_CYCLES} cycles");
    let cycles = sim.cycle();
    (sim.trace, cycles)
}

/// Golden's first error on a stream (FORMAT.md §9 class and chunk index, as
/// `golden::decode_stream` reports it), or `None` for a good stream.
fn golden_error(t: &H2dStimulus) -> Option<(H2dErrorClass, usize)> {
    let raw = t.raw_bytes as usize;
    decode_stream(&t.stream, raw, t.width).err().map(|e| H2dErrorClass::of_decode_error(&e, raw.div_ceil(CHUNK_BYTES)))
}

/// Checks a run's host-to-device side against golden: every malformed stream raised golden's
/// error (class and chunk) once, in order; the good ones (the transfers `good`, in the same
/// order among the streams) put back their original bytes.
fn check_h2d_with_errors(good: &[Transfer], h2d: &[H2dStimulus], trace: &EngineTrace) {
    let expected: Vec<(u8, Option<H2dErrorClass>, usize)> =
        h2d.iter().filter_map(|t| golden_error(t).map(|(class, chunk)| (t.id, Some(class), chunk))).collect();
    let got: Vec<(u8, Option<H2dErrorClass>, usize)> = trace.h2d_errors.iter().map(|e| (e.1, e.2, e.3)).collect();
    assert_eq!(got, expected, "error pulses (id, class, chunk) against golden's errors");
    let ids: Vec<u8> = h2d.iter().map(|t| t.id).collect();
    assert_eq!(trace.h2d_dones.iter().map(|d| d.1).collect::<Vec<_>>(), ids, "one done per stream, in order");
    let mut good_trace = trace.clone();
    good_trace.h2d_errors.clear();
    good_trace.h2d_dones.retain(|d| good.iter().any(|t| t.id == d.1));
    check_h2d(good, &good_trace).unwrap_or_else(|e| panic!("host to device: {e}"));
}

/// The lockstep set through the rust-hdl simulation (first: it needs no Verilator model, so it
/// runs while the model builds) and then Verilator, without and with backpressure: the same
/// cycles and the same trace, and the Verilator run right against golden on its own too.
#[test]
fn lockstep_verilator_gives_the_rust_hdl_trace_cycle_for_cycle() {
    let (d2h, h2d) = lockstep_set();
    let errors = h2d.iter().filter(|t| golden_error(t).is_some()).count();
    assert_eq!(errors, 2, "the set holds two malformed streams");
    let seeds = [0u32, 0x9E37_79B9];
    let rust: Vec<(EngineTrace, u64)> = seeds.iter().map(|&seed| rust_hdl_run(&d2h, &h2d, seed)).collect();
    for (seed, (trace, cycles)) in seeds.into_iter().zip(rust) {
        let v = model().run(&d2h, &h2d, seed).unwrap();
        assert_eq!(v.cycles, cycles, "seed {seed:#x}: both finish in the same cycle");
        if let Some(d) = first_difference(&trace, &v.trace) {
            panic!("seed {seed:#x}: rust-hdl and Verilator differ at {d}");
        }
        assert_eq!(trace, v.trace);
        check_d2h(&d2h, &v.trace).unwrap_or_else(|e| panic!("seed {seed:#x}: device to host: {e}"));
        check_h2d_with_errors(&d2h, &h2d, &v.trace);
        let writes = v.trace.d2h_writes.iter().map(Vec::len).sum::<usize>() + v.trace.h2d_writes.iter().map(Vec::len).sum::<usize>();
        eprintln!(
            "lockstep, backpressure seed {seed:#x}: {cycles} cycles, {} d2h + {} h2d transfers ({errors} malformed), {writes} writes, {} d2h beats: every beat, write, done and error in the same cycle",
            d2h.len(),
            h2d.len(),
            v.trace.d2h_beat_log.len()
        );
    }
}

/// Every distinct real block of `data/` at `width`, concatenated in file and tensor order and cut
/// into transfers of varied lengths (whole chunks and partial ones, partial final blocks), with
/// ids from `first_id`.
fn distinct_block_transfers(width: SymbolWidth, first_id: u8, rng: &mut ChaCha8Rng) -> (Vec<Transfer>, usize) {
    let files = data_files();
    let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let blocks = real_blocks::distinct_blocks(&files, width, usize::MAX, usize::MAX).blocks;
    assert!(blocks.len() >= 10_000, "{width:?}: only {} distinct blocks", blocks.len());
    let data = blocks.concat();
    let mut transfers = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let len = (rng.gen_range(1..TRANSFER_CHUNKS_MAX) * CHUNK_BYTES + rng.gen_range(0..CHUNK_BYTES)).min(data.len() - at);
        transfers.push(Transfer { id: first_id + transfers.len() as u8, width, bytes: data[at..at + len].to_vec() });
        at += len;
    }
    (transfers, blocks.len())
}

/// Longest transfer of [`distinct_block_transfers`], in chunks (the mean is about half).
const TRANSFER_CHUNKS_MAX: usize = 250;

/// The harness's flow on a batch: call 1 runs it device to host with backpressure `seeds.0`, its
/// writes must build golden's streams; call 2 runs the host-memory images those writes built
/// (not golden's) host to device with backpressure `seeds.1`, and must put back every original
/// byte. Returns the two runs and the device-to-host summary.
fn round_trip(transfers: &[Transfer], seeds: (u32, u32)) -> (EngineRun, EngineRun, engine::hw::engine_driver::D2hSummary) {
    let d = model().run(transfers, &[], seeds.0).unwrap();
    let sum = check_d2h(transfers, &d.trace).unwrap_or_else(|e| panic!("device to host: {e}"));
    let images: Vec<H2dStimulus> = transfers.iter().enumerate().map(|(n, t)| stimulus(t, d2h_image(&d.trace, n, t).unwrap())).collect();
    let h = model().run(&[], &images, seeds.1).unwrap();
    assert!(h.trace.h2d_errors.is_empty(), "host to device: error pulses {:?}", &h.trace.h2d_errors[..h.trace.h2d_errors.len().min(4)]);
    let written = check_h2d(transfers, &h.trace).unwrap_or_else(|e| panic!("host to device: {e}"));
    assert_eq!(written, transfers.iter().map(|t| t.bytes.len()).sum::<usize>());
    (d, h, sum)
}

/// Every distinct real block of `data/` at both widths, the widths interleaved transfer by
/// transfer, as two batches (one per core) through [`round_trip`]. Prints the simulated cycles
/// per CPU second of each call.
#[test]
fn every_distinct_block_of_data_round_trips_through_verilator_against_golden() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let (t32, blocks32) = distinct_block_transfers(SymbolWidth::W32, 0, &mut rng);
    let (t16, blocks16) = distinct_block_transfers(SymbolWidth::W16, t32.len() as u8, &mut rng);
    assert!(t32.len() + t16.len() <= 256, "{} transfers: ids must be distinct", t32.len() + t16.len());
    let mut rest16 = t16.into_iter();
    let mut mixed = Vec::new();
    for t in t32 {
        mixed.push(t);
        mixed.extend(rest16.next());
    }
    mixed.extend(rest16);
    let batches: [Vec<Transfer>; 2] = [mixed.iter().step_by(2).cloned().collect(), mixed.iter().skip(1).step_by(2).cloned().collect()];
    let seeds = [(0x1357_9BDF, 0x2468_ACE0), (0x0BAD_F00D, 0x5EED_1234)];
    let runs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = batches.iter().zip(seeds).map(|(b, seed)| s.spawn(move || round_trip(b, seed))).collect();
        handles.into_iter().map(|h| h.join().expect("a batch failed")).collect()
    });
    let bytes: usize = mixed.iter().map(|t| t.bytes.len()).sum();
    let wire: u64 = runs.iter().map(|r| r.2.wire_bytes).sum();
    let raw: usize = runs.iter().map(|r| r.2.raw_chunks).sum();
    eprintln!(
        "every distinct real block of data/ ({blocks32} at 32 bit, {blocks16} at 16 bit; {} transfers in 2 batches, {bytes} bytes, {wire} wire bytes, {raw} raw chunks), backpressure on every port: 0 mismatches both ways",
        mixed.len()
    );
    for (b, (d, h, _)) in runs.iter().enumerate() {
        let batch_bytes: usize = batches[b].iter().map(|t| t.bytes.len()).sum();
        for (dir, run) in [("device to host", d), ("host to device", h)] {
            eprintln!(
                "Verilator pz_engine, batch {b}, {dir}: {} cycles ({:.1} raw B/cycle with backpressure), {:.2} s CPU of the C++ loop = {:.0} simulated cycles per CPU second (one thread; {:.2} s wall)",
                run.cycles,
                batch_bytes as f64 / run.cycles as f64,
                run.cpu_seconds,
                run.cycles_per_cpu_second(),
                run.seconds
            );
        }
    }
}

/// Golden's FORMAT.md §9 error on the malformed streams the rust-hdl engine test uses (a header
/// above the raw size in chunk 1, the odd lane; the stream cut inside chunk 2; trailing bytes
/// after the last chunk), each with its class and chunk in one error pulse before its `done`, and
/// the good transfers between and after them put back bit for bit; with backpressure.
#[test]
fn malformed_streams_raise_golden_errors_and_the_engine_recovers() {
    let real = real_bytes(SymbolWidth::W32, 3 * CHUNK_BYTES);
    let real16 = real_bytes(SymbolWidth::W16, 2 * CHUNK_BYTES + 999);
    let t = Transfer { id: 60, width: SymbolWidth::W32, bytes: real.clone() };
    let good = encode_stream(&real, SymbolWidth::W32);
    let l0 = 2 + u16::from_le_bytes([good[0], good[1]]) as usize;
    let mut big_header = stimulus(&t, good.clone());
    big_header.stream[l0..l0 + 2].copy_from_slice(&5000u16.to_le_bytes());
    let mut cut = stimulus(&t, good[..good.len() - 100].to_vec());
    cut.id = 61;
    let mut trailing = stimulus(&t, good.clone());
    trailing.stream.extend([1, 2, 3, 4, 5]);
    trailing.id = 62;
    let goods = [
        Transfer { id: 70, width: SymbolWidth::W16, bytes: real16.clone() },
        Transfer { id: 71, width: SymbolWidth::W32, bytes: real.clone() },
        Transfer { id: 72, width: SymbolWidth::W16, bytes: real16[..BLOCK_BYTES + 3].to_vec() },
    ];
    let h2d: Vec<H2dStimulus> = vec![
        big_header,
        stimulus(&goods[0], encode_stream(&goods[0].bytes, goods[0].width)),
        cut,
        stimulus(&goods[1], encode_stream(&goods[1].bytes, goods[1].width)),
        trailing,
        stimulus(&goods[2], encode_stream(&goods[2].bytes, goods[2].width)),
    ];
    let classes: Vec<H2dErrorClass> = h2d.iter().filter_map(golden_error).map(|e| e.0).collect();
    assert_eq!(classes, [H2dErrorClass::HeaderTooLarge, H2dErrorClass::StreamTruncated, H2dErrorClass::TrailingBytes]);
    for seed in [0u32, 0xC0FF_EE11] {
        let v = model().run(&[], &h2d, seed).unwrap();
        check_h2d_with_errors(&goods, &h2d, &v.trace);
        for (cycle, id, class, chunk) in &v.trace.h2d_errors {
            let done = v.trace.h2d_dones.iter().find(|d| d.1 == *id).unwrap().0;
            assert!(*cycle < done, "seed {seed:#x}: stream {id}: the error pulse comes before done");
            eprintln!("seed {seed:#x}: malformed stream {id}: {class:?} in chunk {chunk} at cycle {cycle} (golden's), done at {done}");
        }
    }
}
