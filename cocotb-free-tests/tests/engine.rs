//! The exported engine top `pz_engine` in Verilator, driven cycle by cycle by its C++ loop
//! (`harness/engine_harness.cpp`, [`EngineModel`]):
//! - in lockstep with the rust-hdl simulation ([`EngineSim`]): real tensors of `data/` both ways at
//!   once, partial chunks and blocks, raw chunks, an empty transfer and malformed streams, without
//!   and with backpressure on every port: every beat, write, `done` and error in the same cycle;
//! - alone against `golden`: every distinct real block of `data/` at both widths, device to host
//!   (the images its writes build = golden's streams) and then host to device on those images
//!   (the original bytes back), with backpressure, as the harness runs it (two calls);
//! - golden's FORMAT.md §9 error (class and chunk) on malformed streams of every class, and
//!   recovery after them;
//! - the simulated cycles per CPU second of the C++ loop;
//! - a short Icarus run of the same Verilog, every event in the same cycle as in Verilator.
//!
//! Needs verilator, g++, make and iverilog (`scripts/install-area-tools.sh`); fails when they
//! are missing.

use cocotb_free_tests::engine_model::{EngineModel, EngineRun, build_engine_model};
use cocotb_free_tests::h2d::H2dStimulus;
use cocotb_free_tests::{real_blocks, run_icarus_tb, safetensors_under, whole_tensors};
use engine::hw::beats::readmemh_line;
use engine::golden::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth};
use engine::hw::d2h_driver::Transfer;
use engine::hw::engine_driver::{EnginePorts, EngineSim, EngineTrace, check_d2h, check_h2d, check_h2d_streams, d2h_image, StreamBeat64, stream_beats64};
use engine::hw::malformed::{StreamCase, malformed_cases};
use engine::hw::h2d_driver::H2dErrorClass;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
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
/// stream with trailing bytes and one cut inside its last chunk, each with the id it is queued
/// with.
fn lockstep_set() -> (Vec<Transfer>, Vec<(u8, StreamCase)>) {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let random: Vec<u8> = (0..CHUNK_BYTES + 300).map(|_| rng.r#gen()).collect();
    let d2h = vec![
        Transfer { id: 1, width: SymbolWidth::W32, bytes: real_bytes(SymbolWidth::W32, 3 * CHUNK_BYTES + 77) },
        Transfer { id: 2, width: SymbolWidth::W16, bytes: real_bytes(SymbolWidth::W16, 2 * CHUNK_BYTES + 1) },
        Transfer { id: 3, width: SymbolWidth::W32, bytes: Vec::new() },
        Transfer { id: 4, width: SymbolWidth::W32, bytes: random },
        Transfer { id: 5, width: SymbolWidth::W16, bytes: real_bytes(SymbolWidth::W16, 5) },
    ];
    let case = |t: &Transfer| StreamCase::good(t.bytes.clone(), t.width);
    let mut h2d: Vec<(u8, StreamCase)> = d2h.iter().map(|t| (t.id, case(t))).collect();
    let mut trailing = case(&d2h[1]);
    trailing.stream.extend([7, 7, 7]);
    let mut cut = case(&d2h[0]);
    cut.stream.truncate(cut.stream.len() - 40);
    h2d.insert(2, (6, trailing));
    h2d.push((7, cut));
    (d2h, h2d)
}

/// The Verilator model's stimulus of streams queued with their ids.
fn stimuli(streams: &[(u8, StreamCase)]) -> Vec<H2dStimulus> {
    streams.iter().map(|(id, t)| H2dStimulus { stream: t.stream.clone(), raw_bytes: t.data.len() as u32, width: t.width, id: *id }).collect()
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

/// The lockstep set through the rust-hdl simulation (first: it needs no Verilator model, so it
/// runs while the model builds) and then Verilator, without and with backpressure: the same
/// cycles and the same trace, and the Verilator run right against golden on its own too.
#[test]
fn lockstep_verilator_gives_the_rust_hdl_trace_cycle_for_cycle() {
    let (d2h, streams) = lockstep_set();
    let h2d = stimuli(&streams);
    let ids: Vec<(u8, &StreamCase)> = streams.iter().map(|(id, t)| (*id, t)).collect();
    let errors = streams.iter().filter(|t| t.1.golden_error().is_some()).count();
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
        check_h2d_streams(&ids, &v.trace).unwrap_or_else(|e| panic!("seed {seed:#x}: host to device: {e}"));
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

/// Every FORMAT.md §9 class through the exported engine: the crafted cases the lane's and the
/// rust-hdl engine's tests use ([`malformed_cases`]), each followed by a good real transfer of
/// the other width or the same; golden's first error (class, chunk) in one error pulse before
/// its `done`, nothing wrong or past the bad block written, the good prefix whole, and every good
/// transfer put back bit for bit ([`check_h2d_streams`]); without and with backpressure.
#[test]
fn malformed_streams_raise_golden_errors_and_the_engine_recovers() {
    let cases = malformed_cases(13);
    let real = [real_bytes(SymbolWidth::W16, 2 * CHUNK_BYTES + 999), real_bytes(SymbolWidth::W32, 3 * CHUNK_BYTES)];
    let mut streams: Vec<StreamCase> = Vec::new();
    for (i, (_, t)) in cases.iter().enumerate() {
        streams.push(t.clone());
        let (width, bytes) = if i % 2 == 0 { (SymbolWidth::W16, &real[0]) } else { (SymbolWidth::W32, &real[1]) };
        // Good transfers of 1 block + 3 bytes to a whole tensor, so partial chunks and blocks occur.
        let len = [BLOCK_BYTES + 3, CHUNK_BYTES + 77, bytes.len()][i % 3];
        streams.push(StreamCase::good(bytes[..len].to_vec(), width));
    }
    let classes: HashSet<H2dErrorClass> = cases.iter().map(|c| c.0).collect();
    assert_eq!(classes.len(), H2dErrorClass::ALL.len(), "every §9 class is crafted");
    let queued: Vec<(u8, StreamCase)> = streams.into_iter().enumerate().map(|(i, t)| (i as u8, t)).collect();
    let h2d = stimuli(&queued);
    let ids: Vec<(u8, &StreamCase)> = queued.iter().map(|(id, t)| (*id, t)).collect();
    for seed in [0u32, 0xC0FF_EE11] {
        let v = model().run(&[], &h2d, seed).unwrap();
        let malformed = check_h2d_streams(&ids, &v.trace).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        assert_eq!(malformed, cases.len(), "seed {seed:#x}: every crafted case is malformed in golden");
        for (cycle, id, class, chunk) in &v.trace.h2d_errors {
            eprintln!("seed {seed:#x}: stream {id}: {class:?} in chunk {chunk} at cycle {cycle} (golden's)");
        }
        eprintln!("seed {seed:#x}: {malformed} malformed streams of {} classes, {} good ones bit-exact, {} cycles", classes.len(), queued.len() - malformed, v.cycles);
    }
}

/// The `$readmemh` line of a 64-byte stream beat: its control byte (`last` in bit 7, the valid
/// byte count below) and its 16 words, word 15 first.
fn stream_beat_line(b: &StreamBeat64) -> String {
    let mut line = format!("{:02x}", (b.last as u8) << 7 | b.bytes);
    for w in b.words.iter().rev() {
        line.push_str(&format!("{w:08x}"));
    }
    line.push('\n');
    line
}

/// The 32 bytes of a write as the testbench's `%h` of its 256-bit data prints them.
fn data_hex(data: &[u8; 32]) -> String {
    data.chunks(4).rev().map(|c| format!("{:08x}", u32::from_le_bytes(c.try_into().unwrap()))).collect()
}

/// A trace's events as the Icarus testbench prints them, sorted by cycle, kind and port.
fn icarus_lines(trace: &EngineTrace) -> Vec<String> {
    let mut events: Vec<(u64, u8, usize, String)> = Vec::new();
    for (i, (cycle, transfer)) in trace.d2h_beat_log.iter().enumerate() {
        events.push((*cycle, 0, i, format!("B {cycle} {transfer}")));
    }
    for (port, writes) in trace.d2h_writes.iter().enumerate() {
        events.extend(writes.iter().map(|w| (w.cycle, 1, port, format!("W {port} {} {} {:08x} {} {} {}", w.cycle, w.addr, w.be, w.id, w.last as u8, data_hex(&w.data)))));
    }
    events.extend(trace.d2h_dones.iter().map(|d| (d.cycle, 2, 0, format!("F {} {} {}", d.cycle, d.id, d.wire_bytes))));
    for (port, writes) in trace.h2d_writes.iter().enumerate() {
        events.extend(writes.iter().map(|w| (w.cycle, 3, port, format!("H {port} {} {} {:08x} {} {} {}", w.cycle, w.addr, w.strb, w.id, w.last as u8, data_hex(&w.data)))));
    }
    events.extend(trace.h2d_dones.iter().map(|(cycle, id)| (*cycle, 4, 0, format!("G {cycle} {id}"))));
    events.extend(trace.h2d_errors.iter().map(|(cycle, id, class, chunk)| (*cycle, 5, 0, format!("E {cycle} {id} {} {chunk}", class.map_or(0, |c| c as u8)))));
    events.sort();
    events.into_iter().map(|e| e.3).collect()
}

/// Cycles after which the Icarus testbench gives up (its set takes a few hundred).
const ICARUS_MAX_CYCLES: u64 = 3000;

/// A short run of the exported `pz_engine` in Icarus, both directions at once without
/// backpressure: device to host a 2-chunk real fp32 transfer with a partial final chunk (both
/// beat and write ports) and a partial bf16 block; host to device their golden streams and a
/// stream with trailing bytes. Every d2h beat, write and `done`, every h2d write, `done` and error
/// comes in the same cycle with the same bits as in the Verilator run of the same set, which is
/// itself right against golden.
#[test]
fn icarus_gives_the_same_cycles_and_writes_as_verilator() {
    let d2h = vec![
        Transfer { id: 1, width: SymbolWidth::W32, bytes: real_bytes(SymbolWidth::W32, CHUNK_BYTES + 300) },
        Transfer { id: 2, width: SymbolWidth::W16, bytes: real_bytes(SymbolWidth::W16, BLOCK_BYTES + 5) },
    ];
    let mut streams: Vec<(u8, StreamCase)> = d2h.iter().map(|t| (t.id + 10, StreamCase::good(t.bytes.clone(), t.width))).collect();
    let mut trailing = streams[1].1.clone();
    trailing.stream.extend([9, 9]);
    streams.insert(1, (13, trailing));
    let h2d = stimuli(&streams);
    let v = model().run(&d2h, &h2d, 0).unwrap();
    check_d2h(&d2h, &v.trace).unwrap_or_else(|e| panic!("device to host: {e}"));
    let ids: Vec<(u8, &StreamCase)> = streams.iter().map(|(id, t)| (*id, t)).collect();
    assert_eq!(check_h2d_streams(&ids, &v.trace).unwrap_or_else(|e| panic!("host to device: {e}")), 1);

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("icarus-engine");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut ports: [String; 2] = Default::default();
    for (n, t) in d2h.iter().enumerate() {
        for (p, beats) in engine::hw::engine_driver::d2h_port_beats(&t.bytes).iter().enumerate() {
            ports[p].extend(beats.iter().map(|w| readmemh_line(&format!("{n:02x}"), w)));
        }
    }
    let d2h_descs: String = d2h.iter().map(|t| format!("{:012x}\n", ((t.width == SymbolWidth::W16) as u64) << 40 | (t.id as u64) << 32 | t.bytes.len() as u64)).collect();
    let h2d_descs: String = h2d.iter().map(|t| format!("{:012x}\n", ((t.width == SymbolWidth::W16) as u64) << 40 | (t.id as u64) << 32 | t.raw_bytes as u64)).collect();
    let h2d_beats: String = h2d.iter().flat_map(|t| stream_beats64(&t.stream)).map(|b| stream_beat_line(&b)).collect();
    let counts = [d2h.len(), ports[0].lines().count(), ports[1].lines().count(), h2d.len(), h2d_beats.lines().count()];
    for (name, text) in [("d2h_descs", &d2h_descs), ("beats0", &ports[0]), ("beats1", &ports[1]), ("h2d_descs", &h2d_descs), ("h2d_beats", &h2d_beats)] {
        std::fs::write(dir.join(format!("{name}.hex")), text).unwrap();
    }
    let last = |n: usize| n.max(1) - 1;
    let tb = format!(
        "module tb;
  reg clock = 0; reg reset = 1; integer cycle = 0;
  integer ddi = 0, b0i = 0, b1i = 0, hdi = 0, hbi = 0, nd = 0, nh = 0;
  reg [47:0] d2h_descs [0:{c0}]; reg [263:0] beats0 [0:{c1}]; reg [263:0] beats1 [0:{c2}];
  reg [47:0] h2d_descs [0:{c3}]; reg [519:0] h2d_beats [0:{c4}];
  // An input keeps its last value while it is not offered, as in the Verilator driver.
  wire [47:0] dd = d2h_descs[ddi < {n0} ? ddi : {c0}]; wire [263:0] b0 = beats0[b0i < {n1} ? b0i : {c1}];
  wire [263:0] b1 = beats1[b1i < {n2} ? b1i : {c2}]; wire [47:0] hd = h2d_descs[hdi < {n3} ? hdi : {c3}];
  wire [519:0] hb = h2d_beats[hbi < {n4} ? hbi : {c4}];
  wire d2h_desc_valid = ddi < {n0} && !reset, b0v = b0i < {n1} && !reset, b1v = b1i < {n2} && !reset;
  wire h2d_desc_valid = hdi < {n3} && !reset, hiv = hbi < {n4} && !reset;
  wire d2h_desc_ready, b0r, b1r, w0v, w1v, w0l, w1l, dv, h2d_desc_ready, hir, o0v, o1v, o0l, o1l, hdone, ev;
  wire [31:0] w0a, w1a, w0e, w1e, wire_bytes, o0a, o1a, o0s, o1s; wire [7:0] w0i, w1i, did, o0i, o1i, hid, eid;
  wire [255:0] w0d, w1d, o0d, o1d; wire [3:0] eclass; wire [19:0] echunk;
  pz_engine_ansi dut(.clock(clock), .reset(reset),
    .d2h_desc_valid(d2h_desc_valid), .d2h_desc_ready(d2h_desc_ready), .d2h_desc_id(dd[39:32]), .d2h_desc_w16(dd[40]), .d2h_desc_bytes(dd[31:0]),
    .d2h_beat0_valid(b0v), .d2h_beat0_ready(b0r), .d2h_beat0_data(b0[255:0]), .d2h_beat1_valid(b1v), .d2h_beat1_ready(b1r), .d2h_beat1_data(b1[255:0]),
    .d2h_wr0_valid(w0v), .d2h_wr0_ready(1'b1), .d2h_wr0_addr(w0a), .d2h_wr0_data(w0d), .d2h_wr0_be(w0e), .d2h_wr0_id(w0i), .d2h_wr0_last(w0l),
    .d2h_wr1_valid(w1v), .d2h_wr1_ready(1'b1), .d2h_wr1_addr(w1a), .d2h_wr1_data(w1d), .d2h_wr1_be(w1e), .d2h_wr1_id(w1i), .d2h_wr1_last(w1l),
    .d2h_done_valid(dv), .d2h_done_id(did), .d2h_done_wire_bytes(wire_bytes),
    .h2d_desc_valid(h2d_desc_valid), .h2d_desc_ready(h2d_desc_ready), .h2d_desc_id(hd[39:32]), .h2d_desc_w16(hd[40]), .h2d_desc_raw_bytes(hd[31:0]),
    .h2d_in_valid(hiv), .h2d_in_ready(hir), .h2d_in_data(hb[511:0]), .h2d_in_bytes(hb[518:512]), .h2d_in_last(hb[519]),
    .h2d_out0_valid(o0v), .h2d_out0_ready(1'b1), .h2d_out0_addr(o0a), .h2d_out0_data(o0d), .h2d_out0_strb(o0s), .h2d_out0_id(o0i), .h2d_out0_last(o0l),
    .h2d_out1_valid(o1v), .h2d_out1_ready(1'b1), .h2d_out1_addr(o1a), .h2d_out1_data(o1d), .h2d_out1_strb(o1s), .h2d_out1_id(o1i), .h2d_out1_last(o1l),
    .h2d_done(hdone), .h2d_done_id(hid), .h2d_err_valid(ev), .h2d_err_class(eclass), .h2d_err_id(eid), .h2d_err_chunk(echunk));
  always #5 clock = ~clock;
  initial begin
    $readmemh(\"d2h_descs.hex\", d2h_descs); $readmemh(\"beats0.hex\", beats0); $readmemh(\"beats1.hex\", beats1);
    $readmemh(\"h2d_descs.hex\", h2d_descs); $readmemh(\"h2d_beats.hex\", h2d_beats);
    @(posedge clock); #1 reset = 0;
  end
  always @(posedge clock) if (!reset) begin
    if (d2h_desc_valid && d2h_desc_ready) ddi <= ddi + 1;
    if (b0v && b0r) begin $display(\"B %0d %0d\", cycle, b0[263:256]); b0i <= b0i + 1; end
    if (b1v && b1r) begin $display(\"B %0d %0d\", cycle, b1[263:256]); b1i <= b1i + 1; end
    if (w0v) $display(\"W 0 %0d %0d %h %0d %0d %h\", cycle, w0a, w0e, w0i, w0l, w0d);
    if (w1v) $display(\"W 1 %0d %0d %h %0d %0d %h\", cycle, w1a, w1e, w1i, w1l, w1d);
    if (dv) $display(\"F %0d %0d %0d\", cycle, did, wire_bytes);
    if (h2d_desc_valid && h2d_desc_ready) hdi <= hdi + 1;
    if (hiv && hir) hbi <= hbi + 1;
    if (o0v) $display(\"H 0 %0d %0d %h %0d %0d %h\", cycle, o0a, o0s, o0i, o0l, o0d);
    if (o1v) $display(\"H 1 %0d %0d %h %0d %0d %h\", cycle, o1a, o1s, o1i, o1l, o1d);
    if (hdone) $display(\"G %0d %0d\", cycle, hid);
    if (ev) $display(\"E %0d %0d %0d %0d\", cycle, eid, eclass, echunk);
    cycle <= cycle + 1; nd <= nd + dv; nh <= nh + hdone;
    if ((nd + dv == {n0} && nh + hdone == {n3}) || cycle > {ICARUS_MAX_CYCLES}) $finish;
  end
endmodule
",
        n0 = counts[0],
        n1 = counts[1],
        n2 = counts[2],
        n3 = counts[3],
        n4 = counts[4],
        c0 = last(counts[0]),
        c1 = last(counts[1]),
        c2 = last(counts[2]),
        c3 = last(counts[3]),
        c4 = last(counts[4]),
    );
    let t = std::time::Instant::now();
    let stdout = run_icarus_tb(&dir, &tb, "pz_engine").unwrap_or_else(|e| panic!("{e}"));
    let mut got: Vec<(u64, u8, usize, String)> = Vec::new();
    for line in stdout.lines().filter(|l| l.len() > 2 && "BWFHGE".contains(&l[..1]) && &l[1..2] == " ") {
        let f: Vec<&str> = line.split_whitespace().collect();
        let kind = "BWFHGE".find(&line[..1]).unwrap() as u8;
        let (port, cycle) = if matches!(kind, 1 | 3) { (f[1].parse().unwrap(), f[2].parse().unwrap()) } else { (0, f[1].parse().unwrap()) };
        got.push((cycle, kind, port, line.to_string()));
    }
    // Two d2h beats in one cycle print in port order, as the trace logs them.
    got.sort_by_key(|e| (e.0, e.1, e.2));
    let got: Vec<String> = got.into_iter().map(|e| e.3).collect();
    let expected = icarus_lines(&v.trace);
    assert_eq!(got.len(), expected.len(), "Icarus printed {} events, Verilator traced {}", got.len(), expected.len());
    if let Some(i) = got.iter().zip(&expected).position(|(a, b)| a != b) {
        panic!("Icarus and Verilator differ at event {i}: {} vs {}", got[i], expected[i]);
    }
    eprintln!("icarus pz_engine: {} cycles, {} events (d2h beats, writes, dones; h2d writes, dones, errors) identical to Verilator; {:.1} s wall (build + run)", v.cycles, got.len(), t.elapsed().as_secs_f64());
}
