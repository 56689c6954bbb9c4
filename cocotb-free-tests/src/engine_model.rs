//! The exported engine top `pz_engine` (two device-to-host and two host-to-device lanes) in
//! Verilator: the C++ driver (`harness/engine_harness.cpp`) is fed a batch of transfers of both
//! directions and drives every port exactly as the rust-hdl driver
//! [`engine::hw::engine_driver::EngineSim`] does (the same beat order, the same
//! [`EnginePorts`](engine::hw::engine_driver::EnginePorts) schedule per cycle), so its
//! [`EngineTrace`] is the rust-hdl simulation's cycle for cycle and
//! [`check_d2h`](engine::hw::engine_driver::check_d2h) /
//! [`check_h2d`](engine::hw::engine_driver::check_h2d) judge it against `golden`.
//!
//! One [`EngineModel::run`] is one process from reset: the engine is full duplex, so both
//! directions may run in the same call (each direction's cycles are then those of the two
//! running side by side), or one call per direction.

use crate::build_verilated_with;
use crate::h2d::H2dStimulus;
use anyhow::{Context, Result, bail, ensure};
use engine::golden::SymbolWidth;
use engine::hw::beats::BEAT_BYTES;
use engine::hw::d2h_driver::{Done, Transfer, Write};
use engine::hw::engine_driver::{EngineTrace, TransferCycles, d2h_port_beats, stream_beats64};
use engine::hw::h2d_driver::{H2dErrorClass, H2dWrite};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The C++ driver of the engine model.
pub const ENGINE_HARNESS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/harness/engine_harness.cpp");

/// The exported engine top.
pub const ENGINE_MODULE: &str = "pz_engine";

/// Cycles without any handshake or output pulse after which the C++ loop gives a run up as
/// stalled (a hung engine fails after some 5–10 s of simulation instead of running forever).
pub const STALL_CYCLES: u64 = 100_000;

/// Verilator arguments of the model's build: the generated C++ (about 100 MB for the 14.8 MB of
/// Verilog) in files of 100,000 statements instead of 20,000 (22 files rather than 85, each
/// parsing the 2.3 MB model header once) and compiled at `-O1` instead of Verilator's `-Os`:
/// 191 s of build CPU instead of 368, for a loop about 13 % slower (docs/HARDWARE.md, "The
/// engine top under Verilator"). Tests and CI build cold, so the build time is what counts there.
pub const ENGINE_VERILATOR_ARGS: [&str; 6] = ["--output-split", "100000", "-MAKEFLAGS", "OPT_FAST=-O1", "-MAKEFLAGS", "OPT_GLOBAL=-O1"];

/// A built Verilator model of `pz_engine_ansi` with its C++ driver.
pub struct EngineModel {
    /// The executable.
    pub exe: PathBuf,
    /// Seconds the build took (0 when an up-to-date build was reused).
    pub build_seconds: f64,
}

/// Builds the engine model under `dir` with [`ENGINE_VERILATOR_ARGS`] (reused when the exported
/// Verilog and the driver are unchanged since the last build there; see
/// [`build_verilated_with`]).
pub fn build_engine_model(dir: &Path) -> Result<EngineModel> {
    build_engine_model_with(dir, &ENGINE_VERILATOR_ARGS)
}

/// [`build_engine_model`] with other Verilator arguments (`&[]`: Verilator's defaults).
pub fn build_engine_model_with(dir: &Path, verilator_args: &[&str]) -> Result<EngineModel> {
    let (exe, build_seconds) = build_verilated_with(dir, ENGINE_MODULE, ENGINE_HARNESS, "vengine", verilator_args)?;
    Ok(EngineModel { exe, build_seconds })
}

/// What one run of the engine model produced.
#[derive(Clone, Debug)]
pub struct EngineRun {
    /// Every beat, write, `done` and error with its cycle, as [`engine::hw::engine_driver::EngineSim`]
    /// records them.
    pub trace: EngineTrace,
    /// Cycles simulated after the reset cycle (until both directions were idle).
    pub cycles: u64,
    /// Wall-clock seconds of the C++ simulation loop (no process start, stimulus or trace I/O
    /// beyond the loop's own buffered writes).
    pub seconds: f64,
    /// CPU seconds of the C++ simulation loop (one thread).
    pub cpu_seconds: f64,
}

impl EngineRun {
    /// Simulated cycles per CPU second of the loop.
    pub fn cycles_per_cpu_second(&self) -> f64 {
        self.cycles as f64 / self.cpu_seconds
    }
}

fn push_words(out: &mut Vec<u8>, words: &[u32]) {
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// The stimulus file of `harness/engine_harness.cpp` (its header comment gives the layout).
fn stimulus(d2h: &[Transfer], h2d: &[H2dStimulus]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let count = |n: usize| u32::try_from(n).context("more than 2^32 transfers");
    push_words(&mut out, &[count(d2h.len())?, count(h2d.len())?]);
    for t in d2h {
        let len = u32::try_from(t.bytes.len()).context("a d2h transfer of 2^32 bytes or more")?;
        let ports = d2h_port_beats(&t.bytes);
        push_words(&mut out, &[len, t.id as u32 | ((t.width == SymbolWidth::W16) as u32) << 8, ports[0].len() as u32, ports[1].len() as u32]);
        for beat in ports.iter().flatten() {
            push_words(&mut out, beat);
        }
    }
    for t in h2d {
        let beats = stream_beats64(&t.stream);
        push_words(&mut out, &[t.id as u32, (t.width == SymbolWidth::W16) as u32, t.raw_bytes, count(beats.len())?]);
        for b in beats {
            push_words(&mut out, &b.words);
            push_words(&mut out, &[b.bytes as u32 | (b.last as u32) << 8]);
        }
    }
    Ok(out)
}

/// The 32 data bytes of a write record's 8 little-endian words.
fn data_bytes(words: &[u32]) -> [u8; BEAT_BYTES] {
    let mut data = [0u8; BEAT_BYTES];
    for (k, w) in words.iter().enumerate() {
        data[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    data
}

/// Turns the driver's records into the trace of a run of `d2h_count` and `h2d_count` transfers.
fn parse_trace(words: &[u32], d2h_count: usize, h2d_count: usize) -> Result<EngineTrace> {
    let mut trace = EngineTrace {
        d2h_cycles: vec![TransferCycles::default(); d2h_count],
        h2d_cycles: vec![TransferCycles::default(); h2d_count],
        ..EngineTrace::default()
    };
    let mut i = 0;
    while i < words.len() {
        let head = words.get(i..i + 3).context("truncated record")?;
        let cycle = head[1] as u64 | (head[2] as u64) << 32;
        let len = match head[0] {
            0xBEA7 | 0xB64 | 0xD0E2 => 4,
            0xD0E => 5,
            0xE770 => 6,
            0x3717E | 0x4717E => 15,
            other => bail!("bad record marker {other:#x} at word {i}"),
        };
        let r = words.get(i + 3..i + len).with_context(|| format!("truncated record {:#x} at word {i}", head[0]))?;
        match head[0] {
            0xBEA7 => {
                let t = r[0] as usize;
                ensure!(t < d2h_count, "d2h beat of transfer {t} of {d2h_count}");
                trace.d2h_beat(cycle, t);
            }
            0xB64 => {
                let t = r[0] as usize;
                ensure!(t < h2d_count, "h2d beat of transfer {t} of {h2d_count}");
                trace.h2d_beat(cycle, t);
            }
            0x3717E => {
                let w = Write { cycle, addr: r[1], data: data_bytes(&r[4..12]), be: r[2], id: r[3] as u8, last: r[3] >> 8 & 1 == 1 };
                trace.d2h_writes.get_mut(r[0] as usize).context("d2h write port out of range")?.push(w);
            }
            0x4717E => {
                let w = H2dWrite { addr: r[1], data: data_bytes(&r[4..12]), strb: r[2], id: r[3] as u8, last: r[3] >> 8 & 1 == 1, cycle };
                trace.h2d_writes.get_mut(r[0] as usize).context("h2d write port out of range")?.push(w);
            }
            0xD0E => trace.d2h_dones.push(Done { cycle, id: r[0] as u8, wire_bytes: r[1] }),
            0xD0E2 => trace.h2d_dones.push((cycle, r[0] as u8)),
            _ => trace.h2d_errors.push((cycle, r[0] as u8, H2dErrorClass::from_bits(r[1]), r[2] as usize)),
        }
        i += len;
    }
    Ok(trace)
}

/// `(cycles, wall seconds, CPU seconds)` from the driver's log: its `cpu_seconds C` line and
/// the closing `cycles N seconds S` line.
fn log_figures(log: &str) -> Result<(u64, f64, f64)> {
    let figures = || -> Option<(u64, f64, f64)> {
        let cpu = log.lines().find_map(|l| l.strip_prefix("cpu_seconds "))?.trim().parse().ok()?;
        let f: Vec<&str> = log.lines().last()?.split_whitespace().collect();
        if f.len() != 4 || f[0] != "cycles" || f[2] != "seconds" {
            return None;
        }
        Some((f[1].parse().ok()?, f[3].parse().ok()?, cpu))
    };
    figures().with_context(|| format!("engine model: no cycle and time figures in its log:\n{log}"))
}

impl EngineModel {
    /// Runs the device-to-host transfers `d2h` and the host-to-device transfers `h2d` through
    /// one engine from reset, both directions at once, until every transfer of both is done.
    /// `backpressure_seed` 0 keeps every port free ([`EnginePorts::FREE`](engine::hw::engine_driver::EnginePorts::FREE));
    /// otherwise each cycle's ports come from
    /// [`EnginePorts::from_xorshift`](engine::hw::engine_driver::EnginePorts::from_xorshift)
    /// stepped from that seed, as `EngineSim::run` with that closure. Errors if the model cannot
    /// start, or stalls ([`STALL_CYCLES`] without a handshake) before every transfer is done.
    pub fn run(&self, d2h: &[Transfer], h2d: &[H2dStimulus], backpressure_seed: u32) -> Result<EngineRun> {
        let input = stimulus(d2h, h2d)?;
        let mut child = Command::new(&self.exe)
            .args([backpressure_seed.to_string(), STALL_CYCLES.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("start the engine model {}", self.exe.display()))?;
        let mut stdin = child.stdin.take().context("stdin")?;
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output().context("wait for the engine model")?;
        writer.join().expect("stimulus writer").context("write the engine model's stimulus")?;
        let log = String::from_utf8_lossy(&out.stderr);
        ensure!(out.status.success(), "engine model failed ({}): {log}", out.status);
        let (cycles, seconds, cpu_seconds) = log_figures(&log)?;
        let words: Vec<u32> = out.stdout.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        Ok(EngineRun { trace: parse_trace(&words, d2h.len(), h2d.len())?, cycles, seconds, cpu_seconds })
    }
}
