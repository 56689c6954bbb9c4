//! The host-to-device lane's exported Verilog in Verilator: the C++ driver
//! (`harness/h2d_harness.cpp`) is fed descriptors and stream beats and reports every write, error,
//! `done`, beat and descriptor handshake with its cycle; [`run_h2d`] turns that into the same
//! per-transfer [`H2dResult`]s the rust-hdl simulation ([`engine::hw::H2dSim`]) produces, so the
//! two can be compared cycle for cycle.

use crate::{LaneModel, build_verilated};
use anyhow::{Context, Result, bail, ensure};
use engine::golden::SymbolWidth;
use engine::hw::H2D_MODULE;
use engine::hw::h2d_driver::{BEAT_BYTES, H2dErrorClass, H2dResult, H2dWrite, stream_beats};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The C++ driver of the host-to-device lane model.
pub const H2D_HARNESS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/harness/h2d_harness.cpp");

/// Builds the Verilator model of `pz_h2d_lane` under `work` (reused when unchanged).
pub fn build_h2d_model(work: &Path) -> Result<LaneModel> {
    let (exe, build_seconds) = build_verilated(work, H2D_MODULE, H2D_HARNESS, "vh2d")?;
    Ok(LaneModel { exe, build_seconds })
}

/// One transfer for the model: its chunk stream, the descriptor's raw size, width and id.
#[derive(Clone, Debug)]
pub struct H2dStimulus {
    /// The chunk stream as it lies in host memory.
    pub stream: Vec<u8>,
    /// Original bytes the descriptor claims.
    pub raw_bytes: u32,
    /// Symbol width.
    pub width: SymbolWidth,
    /// Transfer id.
    pub id: u8,
}

/// What a run of the model produced.
pub struct H2dRun {
    /// Per transfer, in order: writes, error, first-beat and done cycles.
    pub results: Vec<H2dResult>,
    /// Cycles in which a beat was taken.
    pub beat_cycles: Vec<u64>,
    /// Cycles in which a descriptor was taken.
    pub desc_cycles: Vec<u64>,
    /// Cycles simulated.
    pub cycles: u64,
    /// Wall-clock seconds of the simulation loop.
    pub seconds: f64,
}

/// Runs `transfers` through the model; `seed` 0 = no backpressure, else the
/// [`engine::hw::h2d_driver::H2dPorts::from_xorshift`] pattern from that seed.
pub fn run_h2d(model: &LaneModel, transfers: &[H2dStimulus], seed: u32) -> Result<H2dRun> {
    let mut input: Vec<u32> = vec![transfers.len() as u32];
    for t in transfers {
        let beats = stream_beats(&t.stream);
        input.extend([t.id as u32, (t.width == SymbolWidth::W16) as u32, t.raw_bytes, beats.len() as u32]);
        for b in beats {
            input.extend(b.words);
            input.push(b.bytes as u32 | (b.last as u32) << 8);
        }
    }
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut child = Command::new(&model.exe)
        .arg(seed.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("start the h2d lane model")?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child.wait_with_output()?;
    writer.join().expect("stimulus writer")?;
    let log = String::from_utf8_lossy(&out.stderr);
    ensure!(out.status.success(), "h2d lane model failed (not every transfer finished): {log}");
    let last = log.lines().last().context("no summary")?;
    let f: Vec<&str> = last.split_whitespace().collect();
    ensure!(f.len() == 4 && f[0] == "cycles", "bad summary {last}");
    let words: Vec<u32> = out.stdout.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let mut run = H2dRun {
        results: transfers.iter().map(|t| H2dResult { id: t.id, ..H2dResult::default() }).collect(),
        beat_cycles: Vec::new(),
        desc_cycles: Vec::new(),
        cycles: f[1].parse()?,
        seconds: f[3].parse()?,
    };
    let (mut started, mut finished, mut beats_of_current, mut beat_transfer) = (0usize, 0usize, 0usize, 0usize);
    let beat_counts: Vec<usize> = transfers.iter().map(|t| stream_beats(&t.stream).len()).collect();
    let mut i = 0;
    while i + 3 <= words.len() {
        let cycle = words[i + 1] as u64 | (words[i + 2] as u64) << 32;
        let r = &words[i + 3..];
        match words[i] {
            0xDE5C => {
                run.desc_cycles.push(cycle);
                started += 1;
                i += 3;
            }
            0xBEA7 => {
                run.beat_cycles.push(cycle);
                // Beats are taken in stream order, transfer by transfer.
                let t = beat_transfer;
                ensure!(t < started, "a beat was taken before its descriptor");
                if beats_of_current == 0 {
                    run.results[t].first_beat_cycle = Some(cycle);
                }
                beats_of_current += 1;
                if beats_of_current == beat_counts[t] {
                    beats_of_current = 0;
                    beat_transfer += 1;
                }
                i += 3;
            }
            0x3717E => {
                let mut data = [0u8; BEAT_BYTES];
                for (k, w) in r[4..12].iter().enumerate() {
                    data[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
                }
                let write = H2dWrite { addr: r[0], strb: r[1], id: r[2] as u8, last: r[3] != 0, data, cycle };
                run.results.get_mut(finished).context("write after the last transfer")?.writes.push(write);
                i += 15;
            }
            0xE770 => {
                let class = H2dErrorClass::from_bits(r[0]).with_context(|| format!("unknown error class {}", r[0]))?;
                let res = run.results.get_mut(finished).context("error after the last transfer")?;
                res.error.get_or_insert((class, r[2] as usize));
                res.error_cycle.get_or_insert(cycle);
                res.error_pulses += 1;
                i += 6;
            }
            0xD0E => {
                run.results.get_mut(finished).context("done after the last transfer")?.done_cycle = Some(cycle);
                finished += 1;
                i += 4;
            }
            other => bail!("bad record marker {other:#x}"),
        }
    }
    Ok(run)
}
