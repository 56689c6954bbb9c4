//! The engine's hardware behind `cycle` and `sampled`: the engine top `pz_engine`
//! ([`engine::hw::engine_top`]: two device-to-host lanes, compressor + chunk packer, and two
//! host-to-device lanes, chunk unpacker + decompressor, chunks spread over the lanes of a
//! direction and written back by address), run by one of two bit-exact simulators:
//!
//! * [`Simulator::Verilator`]: its exported Verilog built with Verilator on first use (cached
//!   under `$PLANEZIP_CACHE` or `target/tmp`, rebuilt when the Verilog's hash changes) and driven
//!   by the C++ loop of `cocotb-free-tests/harness/`: one process call runs a direction of a
//!   transfer, so no Rust↔C++ crossing happens per cycle.
//! * [`Simulator::RustHdl`]: the rust-hdl simulation ([`EngineSim`]), cycle by cycle.
//!
//! A transfer goes out as one device-to-host transfer (descriptor, then chunk `c`'s beats on beat
//! port `c mod 2`) and comes back as one host-to-device transfer of the image the first built.
//! What comes out is what the hardware wrote: the host-memory image that the addressed writes of
//! both ports build, with the wire bytes the engine's `done` reported, and the bytes the
//! host-to-device writes put back. Nothing here calls `engine::golden` (a test scans this file):
//! golden is what the stream checker holds these outputs to.

use anyhow::{Context, Result, ensure};
use cocotb_free_tests::engine_model::{EngineModel, build_engine_model};
use cocotb_free_tests::h2d::H2dStimulus;
use cpu_time::ThreadTime;
use engine::golden::SymbolWidth;
use engine::hw::d2h_driver::{BEAT_BYTES, Transfer};
use engine::hw::engine_driver::{EnginePorts, EngineSim, EngineTrace, d2h_image};
use engine::hw::h2d_driver::H2dWrite;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Cycles the engine may take per input beat before a run is declared hung (raw chunks replay
/// their blocks, backpressure drops a port one cycle in four), plus a fixed allowance per
/// transfer.
const MAX_CYCLES_PER_BEAT: u64 = 60;
/// Fixed allowance per transfer, cycles.
const MAX_CYCLES_PER_TRANSFER: u64 = 400;
/// The id every transfer carries (the engine runs one transfer at a time here).
const TRANSFER_ID: u8 = 0;

/// Which simulator runs the hardware (`--simulator`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SimulatorChoice {
    /// Verilator when `verilator` is on PATH, else the rust-hdl simulation.
    #[default]
    Auto,
    /// The exported Verilog under Verilator (an error when Verilator is missing).
    Verilator,
    /// The rust-hdl simulation.
    RustHdl,
}

/// A bit-exact simulator of `pz_engine`.
#[derive(Clone)]
pub enum Simulator {
    /// The exported Verilog under Verilator.
    Verilator(Arc<EngineModel>),
    /// The rust-hdl simulation.
    RustHdl,
}

/// True when a `verilator` executable answers on PATH.
pub fn verilator_on_path() -> bool {
    std::process::Command::new("verilator").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Where the Verilator builds are cached: `$PLANEZIP_CACHE`, else the workspace's `target/tmp`
/// (the directory the cocotb-free tests build the same model in, so the two share a build).
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("PLANEZIP_CACHE") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/tmp"),
    }
}

static VERILATOR: OnceLock<std::result::Result<Arc<EngineModel>, String>> = OnceLock::new();

/// One transfer out through the engine and back.
#[derive(Clone, Debug, Default)]
pub struct RoundTrip {
    /// The host-memory image the device-to-host writes built (header + body of every chunk).
    pub image: Vec<u8>,
    /// The wire bytes the engine's `done` reported.
    pub reported_wire_bytes: usize,
    /// The bytes the host-to-device writes put back.
    pub restored: Vec<u8>,
    /// Device to host: cycles from the first beat taken to `done`, inclusive.
    pub d2h_cycles: u64,
    /// Host to device: cycles from the first stream beat taken to the last write, inclusive.
    pub h2d_cycles: u64,
    /// Cycles simulated, both directions.
    pub simulated_cycles: u64,
    /// Seconds of the simulation loops: CPU time of this thread (rust-hdl) or the loop time the
    /// Verilator process measured (single-threaded).
    pub simulated_seconds: f64,
}

impl Simulator {
    /// Resolves `choice`; builds (or reuses) the Verilator model on first use in the process.
    pub fn resolve(choice: SimulatorChoice) -> Result<Simulator> {
        let verilator = match choice {
            SimulatorChoice::RustHdl => false,
            SimulatorChoice::Verilator => true,
            SimulatorChoice::Auto => verilator_on_path(),
        };
        if !verilator {
            return Ok(Simulator::RustHdl);
        }
        let built = VERILATOR.get_or_init(|| {
            let dir = cache_dir();
            let build = || build_engine_model(&dir.join("vengine")).with_context(|| format!("build the Verilator model of pz_engine under {}", dir.display()));
            with_build_lock(&dir, build).map(Arc::new).map_err(|e| format!("{e:#}"))
        });
        match built {
            Ok(m) => Ok(Simulator::Verilator(m.clone())),
            Err(e) => anyhow::bail!("{e}"),
        }
    }

    /// The simulator in words, for reports.
    pub fn describe(&self) -> &'static str {
        match self {
            Simulator::Verilator(_) => "Verilator (exported pz_engine, one C++ loop per transfer and direction)",
            Simulator::RustHdl => "the rust-hdl simulation of pz_engine",
        }
    }

    /// Moves `data` (`width` symbols) out through the engine as one device-to-host transfer and
    /// the image it wrote back as one host-to-device transfer. `seed` 0 keeps every port free,
    /// else [`EnginePorts::from_xorshift`] from it holds each port off about one cycle in four.
    /// Fails when the engine hangs, reports an error, or writes outside a transfer's destination,
    /// a byte twice (host to device) or leaves a hole.
    pub fn round_trip(&self, data: &[u8], width: SymbolWidth, seed: u32) -> Result<RoundTrip> {
        ensure!(!data.is_empty(), "pz_engine: an empty transfer has nothing to move");
        let raw_bytes = u32::try_from(data.len()).context("pz_engine: a transfer of 2^32 bytes or more")?;
        let transfer = Transfer { id: TRANSFER_ID, width, bytes: data.to_vec() };
        let ports = |x: &mut u32| if seed == 0 { EnginePorts::FREE } else { EnginePorts::from_xorshift(x) };
        let out = match self {
            Simulator::Verilator(m) => {
                let d2h = m.run(std::slice::from_ref(&transfer), &[], seed)?;
                let (image, reported_wire_bytes, d2h_cycles) = d2h_result(&transfer, &d2h.trace)?;
                let back = H2dStimulus { stream: image.clone(), raw_bytes, width, id: TRANSFER_ID };
                let h2d = m.run(&[], std::slice::from_ref(&back), seed)?;
                let (restored, h2d_cycles) = h2d_result(data.len(), &h2d.trace)?;
                RoundTrip { image, reported_wire_bytes, restored, d2h_cycles, h2d_cycles, simulated_cycles: d2h.cycles + h2d.cycles, simulated_seconds: d2h.cpu_seconds + h2d.cpu_seconds }
            }
            Simulator::RustHdl => {
                let t = ThreadTime::now();
                let mut sim = EngineSim::new();
                let mut x = seed;
                sim.queue_d2h(&transfer);
                sim.run(cycle_limit(data.len()), || ports(&mut x));
                ensure!(sim.idle(), "pz_engine (rust-hdl): device to host not done after {} cycles (hung)", sim.cycle());
                let (image, reported_wire_bytes, d2h_cycles) = d2h_result(&transfer, &sim.trace)?;
                // Host to device from reset, the backpressure from the seed again: the Verilator
                // model's second run exactly.
                let d2h_simulated = sim.cycle();
                let mut sim = EngineSim::new();
                let mut x = seed;
                sim.queue_h2d(&image, raw_bytes, width, TRANSFER_ID);
                sim.run(cycle_limit(image.len() + data.len()), || ports(&mut x));
                ensure!(sim.idle(), "pz_engine (rust-hdl): host to device not done after {} cycles (hung)", sim.cycle());
                let (restored, h2d_cycles) = h2d_result(data.len(), &sim.trace)?;
                RoundTrip { image, reported_wire_bytes, restored, d2h_cycles, h2d_cycles, simulated_cycles: d2h_simulated + sim.cycle(), simulated_seconds: t.elapsed().as_secs_f64() }
            }
        };
        Ok(out)
    }
}

/// Cycles after which a run over `bytes` of input is declared hung.
fn cycle_limit(bytes: usize) -> u64 {
    MAX_CYCLES_PER_TRANSFER + MAX_CYCLES_PER_BEAT * bytes.div_ceil(BEAT_BYTES) as u64
}

/// The device-to-host side of transfer `t` (the only one) in `trace`: the image its writes
/// built ([`d2h_image`]), the wire bytes its `done` reported and its cycles (first beat →
/// `done`, inclusive). Fails unless exactly one write is marked last and `done` counts the
/// image's bytes.
fn d2h_result(t: &Transfer, trace: &EngineTrace) -> Result<(Vec<u8>, usize, u64)> {
    let done = trace.d2h_dones.iter().find(|d| d.id == t.id).context("pz_engine: device to host never reported done")?;
    let first = trace.d2h_cycles.first().and_then(|c| c.first_beat).context("pz_engine: device to host took no beat")?;
    if let Some(w) = trace.d2h_writes.iter().flatten().find(|w| w.id != t.id) {
        anyhow::bail!("pz_engine: a device-to-host write in cycle {} carries id {}, the transfer's is {}", w.cycle, w.id, t.id);
    }
    let lasts = trace.d2h_writes.iter().flatten().filter(|w| w.last).count();
    ensure!(lasts == 1, "pz_engine: {lasts} device-to-host writes marked last, one expected");
    let image = d2h_image(trace, 0, t).map_err(|e| anyhow::anyhow!("pz_engine: {e}"))?;
    ensure!(image.len() == done.wire_bytes as usize, "pz_engine: done reported {} wire bytes, its writes built {}", done.wire_bytes, image.len());
    Ok((image, done.wire_bytes as usize, done.cycle - first + 1))
}

/// The host-to-device side of one transfer of `len` bytes in `trace`: the bytes its writes put
/// back, each exactly once, and its cycles (first stream beat → last write, inclusive). Fails on
/// an error pulse, a missing `done`, a write outside the destination, a byte written twice or
/// never.
fn h2d_result(len: usize, trace: &EngineTrace) -> Result<(Vec<u8>, u64)> {
    if let Some((_, id, class, chunk)) = trace.h2d_errors.first() {
        anyhow::bail!("pz_engine: host to device of transfer {id} ({len} raw bytes): error {class:?} in chunk {chunk}");
    }
    ensure!(trace.h2d_dones.iter().any(|d| d.1 == TRANSFER_ID), "pz_engine: host to device never reported done");
    let first = trace.h2d_cycles.first().and_then(|c| c.first_beat).context("pz_engine: host to device took no beat")?;
    let mut out = vec![0u8; len];
    let mut seen = vec![false; len];
    let mut last_cycle = first;
    for w in trace.h2d_writes.iter().flatten() {
        ensure!(w.id == TRANSFER_ID, "pz_engine: a host-to-device write in cycle {} carries id {}, the transfer's is {TRANSFER_ID}", w.cycle, w.id);
        last_cycle = last_cycle.max(w.cycle);
        put_h2d_write(w, &mut out, &mut seen)?;
    }
    if let Some(hole) = seen.iter().position(|s| !s) {
        anyhow::bail!("pz_engine: host to device never wrote byte {hole} of {len}");
    }
    Ok((out, last_cycle - first + 1))
}

/// One host-to-device write into `out`, marking `seen`.
fn put_h2d_write(w: &H2dWrite, out: &mut [u8], seen: &mut [bool]) -> Result<()> {
    for (i, byte) in w.data.iter().enumerate().filter(|(i, _)| w.strb >> i & 1 == 1) {
        let a = w.addr as usize + i;
        ensure!(a < out.len(), "pz_engine: host-to-device write in cycle {} reaches byte {a} of a {}-byte destination", w.cycle, out.len());
        ensure!(!seen[a], "pz_engine: host to device wrote byte {a} twice");
        out[a] = *byte;
        seen[a] = true;
    }
    Ok(())
}

/// Longest wait for another process's build of the same cache (a cold build takes minutes).
const BUILD_LOCK_WAIT: Duration = Duration::from_secs(900);
/// Poll interval while another process builds.
const BUILD_LOCK_POLL: Duration = Duration::from_millis(250);

/// Runs `build` while holding `dir/build.lock` (a directory: its creation is atomic), so that
/// concurrent runs (parallel tests, array jobs on a shared cache) do not build into the same
/// place at once; the others wait and then reuse the build.
fn with_build_lock<T>(dir: &Path, build: impl FnOnce() -> Result<T>) -> Result<T> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create the Verilator cache", dir.display()))?;
    let lock = dir.join("build.lock");
    let start = Instant::now();
    loop {
        match std::fs::create_dir(&lock) {
            Ok(()) => break,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                ensure!(start.elapsed() < BUILD_LOCK_WAIT, "{}: held by another build for {} s (remove it if no build is running)", lock.display(), BUILD_LOCK_WAIT.as_secs());
                std::thread::sleep(BUILD_LOCK_POLL);
            }
            Err(e) => return Err(e).with_context(|| format!("{}: cannot take the build lock", lock.display())),
        }
    }
    let r = build();
    let _ = std::fs::remove_dir(&lock);
    r
}
