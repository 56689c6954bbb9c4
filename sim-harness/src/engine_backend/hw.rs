//! The engine's hardware behind `cycle` and `sampled`: the device-to-host unit `pz_d2h_lane`
//! (compressor lane + chunk packer, [`engine::hw::d2h_lane`]) and the host-to-device lane
//! `pz_h2d_lane` ([`engine::hw::decompressor_lane`]), run by one of two bit-exact simulators:
//!
//! * [`Simulator::Verilator`]: their exported Verilog built with Verilator on first use (the
//!   project's one `cocotb_free_tests::build_verilated`, cached under `$PLANEZIP_CACHE` or
//!   `target/tmp`, rebuilt when the Verilog's hash changes) and driven by the C++ loops of
//!   `cocotb-free-tests/harness/`: one process call runs a lane's whole batch of transfers, so no
//!   Rust↔C++ crossing happens per cycle.
//! * [`Simulator::RustHdl`]: the rust-hdl simulation ([`D2hSim`], [`H2dSim`]), cycle by cycle.
//!
//! A lane gets its chunks as transfers of their own, back to back. What comes out is what the
//! hardware wrote: the device-to-host image that the unit's addressed writes build in host memory
//! with the wire bytes its `done` reported, and the bytes the host-to-device lane's writes put
//! back. Nothing here calls `engine::golden` (a test scans this file): golden is what the stream
//! checker holds these outputs to.

use anyhow::{Context, Result, ensure};
use cocotb_free_tests::h2d::{H2dStimulus, build_h2d_model, run_h2d};
use cocotb_free_tests::{D2hModel, LaneModel, build_d2h_model};
use cpu_time::ThreadTime;
use engine::golden::SymbolWidth;
use engine::hw::d2h_driver::{BEAT_BYTES, D2hSim, Transfer, Write, destination_bytes};
use engine::hw::h2d_driver::{H2dPorts, H2dResult};
use engine::hw::H2dSim;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Cycles a lane may take per input beat before a run is declared hung (raw chunks replay their
/// blocks, backpressure drops a port one cycle in four), plus a fixed allowance per transfer.
const MAX_CYCLES_PER_BEAT: u64 = 60;
/// Fixed allowance per transfer, cycles.
const MAX_CYCLES_PER_TRANSFER: u64 = 400;

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

/// The Verilator models of both directions, built once per process.
pub struct VerilatorModels {
    d2h: D2hModel,
    h2d: LaneModel,
}

/// A bit-exact simulator of the two tops.
#[derive(Clone)]
pub enum Simulator {
    /// The exported Verilog under Verilator.
    Verilator(Arc<VerilatorModels>),
    /// The rust-hdl simulation.
    RustHdl,
}

/// True when a `verilator` executable answers on PATH.
pub fn verilator_on_path() -> bool {
    std::process::Command::new("verilator").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Where the Verilator builds are cached: `$PLANEZIP_CACHE`, else the workspace's `target/tmp`
/// (the directory the cocotb-free tests build the same models in, so the two share a build).
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("PLANEZIP_CACHE") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/tmp"),
    }
}

static VERILATOR: OnceLock<std::result::Result<Arc<VerilatorModels>, String>> = OnceLock::new();

impl Simulator {
    /// Resolves `choice`; builds (or reuses) the Verilator models on first use in the process.
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
            let build = || -> Result<VerilatorModels> {
                let d2h = build_d2h_model(&dir.join("vd2h")).with_context(|| format!("build the Verilator model of pz_d2h_lane under {}", dir.display()))?;
                let h2d = build_h2d_model(&dir.join("vh2d")).with_context(|| format!("build the Verilator model of pz_h2d_lane under {}", dir.display()))?;
                Ok(VerilatorModels { d2h, h2d })
            };
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
            Simulator::Verilator(_) => "Verilator (exported pz_d2h_lane + pz_h2d_lane, one C++ loop per lane and tensor)",
            Simulator::RustHdl => "rust-hdl simulation of pz_d2h_lane + pz_h2d_lane",
        }
    }

    /// Runs `chunks` (each its own transfer, ids = index mod 256) through one device-to-host
    /// unit; `ready_seed` 0 keeps `wr_ready` high, else an xorshift32 from it drops it about one
    /// cycle in four (the input is always offered).
    pub fn d2h(&self, chunks: &[&[u8]], width: SymbolWidth, ready_seed: u32) -> Result<LaneRun> {
        let transfers: Vec<Transfer> = chunks.iter().enumerate().map(|(i, c)| Transfer { id: i as u8, width, bytes: c.to_vec() }).collect();
        let beats: u64 = chunks.iter().map(|c| c.len().div_ceil(BEAT_BYTES) as u64).sum();
        let limit = MAX_CYCLES_PER_TRANSFER * chunks.len() as u64 + MAX_CYCLES_PER_BEAT * beats;
        let (trace, cycles, seconds) = match self {
            Simulator::Verilator(m) => {
                let run = m.d2h.run(&transfers, ready_seed, 0, true)?;
                (run.trace, run.cycles, run.seconds)
            }
            Simulator::RustHdl => {
                let t = ThreadTime::now();
                let mut sim = D2hSim::new();
                for tr in &transfers {
                    sim.queue(tr);
                }
                let mut x = ready_seed;
                sim.run(limit, |_| (true, ready_seed == 0 || xorshift_keeps(&mut x)));
                ensure!(sim.idle(), "pz_d2h_lane (rust-hdl): {} of {} transfers done after {} cycles (hung)", sim.trace.dones.len(), chunks.len(), sim.cycle());
                (std::mem::take(&mut sim.trace), sim.cycle(), t.elapsed().as_secs_f64())
            }
        };
        ensure!(trace.dones.len() == chunks.len(), "pz_d2h_lane: {} done pulses for {} transfers", trace.dones.len(), chunks.len());
        let images = d2h_images(chunks, &trace.writes)?;
        let outputs = images.into_iter().zip(&trace.dones).map(|(image, d)| ChunkResult { bytes: image, reported_wire_bytes: Some(d.wire_bytes as usize) }).collect();
        let first_in = *trace.beat_cycles.first().context("pz_d2h_lane took no beat")?;
        let last_out = trace.writes.last().context("pz_d2h_lane wrote nothing")?.cycle;
        Ok(LaneRun { outputs, cycles: last_out - first_in + 1, simulated_cycles: cycles, simulated_seconds: seconds })
    }

    /// Runs `streams` (chunk image, raw bytes; each its own transfer) through one host-to-device
    /// lane; `seed` 0 = no backpressure, else [`H2dPorts::from_xorshift`] from it on every port.
    /// Fails when the lane reports an error or writes outside a transfer's destination.
    pub fn h2d(&self, streams: &[(&[u8], usize)], width: SymbolWidth, seed: u32) -> Result<LaneRun> {
        let beats: u64 = streams.iter().map(|(s, _)| s.len().div_ceil(BEAT_BYTES).max(1) as u64).sum();
        let limit = MAX_CYCLES_PER_TRANSFER * streams.len() as u64 + MAX_CYCLES_PER_BEAT * (beats + streams.iter().map(|(_, r)| r.div_ceil(BEAT_BYTES) as u64).sum::<u64>());
        let raw_u32 = |r: usize| u32::try_from(r).context("a chunk of 2^32 bytes or more");
        let (results, cycles, seconds) = match self {
            Simulator::Verilator(m) => {
                let stimuli = streams.iter().enumerate().map(|(i, (s, r))| Ok(H2dStimulus { stream: s.to_vec(), raw_bytes: raw_u32(*r)?, width, id: i as u8 })).collect::<Result<Vec<_>>>()?;
                let run = run_h2d(&m.h2d, &stimuli, seed)?;
                (run.results, run.cycles, run.seconds)
            }
            Simulator::RustHdl => {
                let t = ThreadTime::now();
                let mut sim = H2dSim::new();
                for (i, (s, r)) in streams.iter().enumerate() {
                    sim.queue_transfer(s, raw_u32(*r)?, width, i as u8);
                }
                let mut x = seed;
                let results = sim.run(limit, || if seed == 0 { H2dPorts::FREE } else { H2dPorts::from_xorshift(&mut x) }).to_vec();
                ensure!(sim.idle(), "pz_h2d_lane (rust-hdl): not every transfer done after {} cycles (hung)", sim.cycle());
                (results, sim.cycle(), t.elapsed().as_secs_f64())
            }
        };
        ensure!(results.len() == streams.len(), "pz_h2d_lane: {} results for {} transfers", results.len(), streams.len());
        let mut outputs = Vec::with_capacity(streams.len());
        for (i, (r, (_, raw))) in results.iter().zip(streams).enumerate() {
            ensure!(r.done_cycle.is_some(), "pz_h2d_lane: transfer {i} never reported done");
            if let Some((class, chunk)) = r.error {
                anyhow::bail!("pz_h2d_lane: transfer {i} ({raw} raw bytes): error {class:?} in chunk {chunk}");
            }
            let (mem, bad) = r.memory(*raw, 0);
            ensure!(!bad, "pz_h2d_lane: transfer {i} wrote outside its {raw}-byte destination or a byte twice");
            ensure!(r.bytes_written() == *raw, "pz_h2d_lane: transfer {i} wrote {} of its {raw} bytes", r.bytes_written());
            outputs.push(ChunkResult { bytes: mem, reported_wire_bytes: None });
        }
        let first_in = results.iter().find_map(|r| r.first_beat_cycle).context("pz_h2d_lane took no beat")?;
        let last_out = results.iter().rev().find_map(last_write_cycle).context("pz_h2d_lane wrote nothing")?;
        Ok(LaneRun { outputs, cycles: last_out - first_in + 1, simulated_cycles: cycles, simulated_seconds: seconds })
    }
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

fn last_write_cycle(r: &H2dResult) -> Option<u64> {
    r.writes.last().map(|w| w.cycle)
}

/// One step of the drivers' xorshift32 backpressure: true (port ready) about three cycles in four.
fn xorshift_keeps(x: &mut u32) -> bool {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    *x & 3 != 0
}

/// What the hardware produced for one chunk.
#[derive(Clone, Debug)]
pub struct ChunkResult {
    /// Device to host: the chunk's image in host memory (header + body, as far as written).
    /// Host to device: the restored chunk.
    pub bytes: Vec<u8>,
    /// Device to host: the wire bytes the unit's `done` reported.
    pub reported_wire_bytes: Option<usize>,
}

/// One lane's run over its batch of transfers.
#[derive(Clone, Debug)]
pub struct LaneRun {
    /// Per transfer, in order.
    pub outputs: Vec<ChunkResult>,
    /// Cycles from the first beat taken to the last write taken, inclusive.
    pub cycles: u64,
    /// Cycles simulated (reset to the last `done`).
    pub simulated_cycles: u64,
    /// Seconds of the simulation loop: CPU time of this thread (rust-hdl) or the loop time the
    /// Verilator process measured (single-threaded).
    pub simulated_seconds: f64,
}

/// Replays the unit's writes into one destination per transfer (the writes of transfer `i` carry
/// id `i mod 256` and end with its `last` write); each image runs to the last byte written. Fails
/// on a write outside the worst-case destination or with another transfer's id.
pub fn d2h_images(chunks: &[&[u8]], writes: &[Write]) -> Result<Vec<Vec<u8>>> {
    let mut it = writes.iter();
    let mut out = Vec::with_capacity(chunks.len());
    for (n, c) in chunks.iter().enumerate() {
        let cap = destination_bytes(c.len());
        let mut image = vec![0u8; cap];
        let mut extent = 0;
        loop {
            let w = it.next().with_context(|| format!("pz_d2h_lane: writes end before transfer {n}'s last write"))?;
            ensure!(w.id == n as u8, "pz_d2h_lane: write in cycle {} carries id {}, transfer {n} expected", w.cycle, w.id);
            for (i, byte) in w.data.iter().enumerate().filter(|(i, _)| w.be >> i & 1 == 1) {
                let a = w.addr as usize + i;
                ensure!(a < cap, "pz_d2h_lane: write in cycle {} reaches byte {a} of transfer {n}'s {cap}-byte destination", w.cycle);
                image[a] = *byte;
                extent = extent.max(a + 1);
            }
            if w.last {
                break;
            }
        }
        image.truncate(extent);
        out.push(image);
    }
    ensure!(it.next().is_none(), "pz_d2h_lane: a write after the last transfer");
    Ok(out)
}
