//! Cocotb-free tests of the exported Verilog (the host-to-device lane's driver is in [`h2d`], the engine top `pz_engine`'s in [`engine_model`]): the compressor lane's ANSI wrapper, built with
//! Verilator around a small C++ driver (`harness/lane_harness.cpp`), is driven cycle by cycle
//! from Rust with beats and an `out_ready` pattern; every block it delivers is compared with
//! `engine::golden`, and the per-cycle handshakes with the rust-hdl simulation
//! ([`engine::hw::LaneSim`]). The Verilog is exported at build time (`build.rs` → `rtl-gen`).
//!
//! Verilator 5.006 (Debian 12) is enough for the C++ driver; marlin 0.21 wants ≥ 5.025, so it is
//! not used (see `docs/AREA.md`, "Verilator cross-check").
//!
//! The device-to-host unit `pz_d2h_lane` has its own driver (`harness/d2h_harness.cpp`,
//! [`D2hModel`]): transfers in, its writes and `done` pulses out as an
//! [`engine::hw::d2h_driver::Trace`], which `engine::hw::d2h_driver::check_images` turns into
//! host-memory images and compares with the golden streams.

use anyhow::{Context, Result, ensure};
use engine::golden::{BLOCK_BYTES, BlockEncoding, SymbolWidth, Tag};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "../../engine/tests/support/real_blocks.rs"]
pub mod real_blocks;

pub mod engine_model;
pub mod h2d;

/// Directory with the exported Verilog (`<top>.v`, `<top>_ansi.v`, `manifest.json`).
pub const RTL_DIR: &str = concat!(env!("OUT_DIR"), "/rtl");

/// The C++ driver of the lane model.
pub const HARNESS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/harness/lane_harness.cpp");

/// The part every C++ driver shares (stimulus in, records out, reset, clock, summary line).
pub const HARNESS_COMMON: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/harness/driver.h");

/// The C++ driver of the device-to-host unit's model.
pub const D2H_HARNESS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/harness/d2h_harness.cpp");

/// Top module of the lane's wrapper.
pub const LANE_WRAPPER: &str = "pz_compressor_lane_ansi";

/// One input beat: eight little-endian words of the 32 bytes and the descriptor fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Beat {
    /// Word `k` = bytes `4k..4k+3` of the beat, little-endian.
    pub words: [u32; 8],
    /// Last beat of its transfer.
    pub last: bool,
    /// 16-bit symbols.
    pub w16: bool,
    /// Transfer id.
    pub id: u8,
    /// Valid bytes of the transfer's final block, 0 = 128.
    pub tail_bytes: u8,
}

/// The beats of one transfer of `bytes` (as `LaneSim::queue_transfer` cuts them).
pub fn transfer_beats(bytes: &[u8], width: SymbolWidth, id: u8) -> Vec<Beat> {
    let words = engine::hw::beats::beat_words(bytes);
    let n = words.len();
    words
        .into_iter()
        .enumerate()
        .map(|(b, words)| Beat { words, last: b + 1 == n, w16: width == SymbolWidth::W16, id, tail_bytes: (bytes.len() % BLOCK_BYTES) as u8 })
        .collect()
}

/// A block taken from the lane's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutBlock {
    /// Cycle (after reset) in which it was taken.
    pub cycle: u64,
    /// Tag, payload length (bits) and payload bytes, zero past the length.
    pub encoding: BlockEncoding,
    /// The original block as carried on `out_block`.
    pub block: [u8; BLOCK_BYTES],
    /// Transfer id.
    pub id: u8,
    /// Last block of its transfer.
    pub last: bool,
}

/// What one run of the Verilator model produced.
pub struct Run {
    /// Blocks in the order they left.
    pub blocks: Vec<OutBlock>,
    /// Cycles in which a beat was taken (only when requested).
    pub beat_cycles: Vec<u64>,
    /// Cycles simulated.
    pub cycles: u64,
    /// Wall-clock seconds of the simulation loop (excluding process start and stimulus read).
    pub seconds: f64,
}

impl Run {
    /// Simulated cycles per wall-clock second.
    pub fn cycles_per_second(&self) -> f64 {
        self.cycles as f64 / self.seconds
    }
}

fn tag_of(v: u32) -> Result<Tag> {
    Tag::ALL.into_iter().find(|t| *t as u32 == v).with_context(|| format!("bad tag {v}"))
}

/// A built Verilator model of an exported top's wrapper.
pub struct LaneModel {
    /// The executable.
    pub exe: PathBuf,
    /// Seconds the build took (0 when an up-to-date build was reused).
    pub build_seconds: f64,
}

/// Builds the lane model with `verilator --cc --exe --build` under `work` (reused when the Verilog
/// and the harness are unchanged since the last build there).
pub fn build_lane_model(work: &Path) -> Result<LaneModel> {
    let (exe, build_seconds) = build_verilated(work, "pz_compressor_lane", HARNESS, "vlane")?;
    Ok(LaneModel { exe, build_seconds })
}

/// Builds the ANSI wrapper of the exported top `top` with the C++ driver `harness` into
/// `work/obj/<exe>` through the project's one Verilator driver,
/// [`engine::hw::verilog::build_verilated`] (reused when the Verilog and the harness are
/// unchanged). Returns the executable and the build's seconds (0 when reused).
pub fn build_verilated(work: &Path, top: &str, harness: &str, exe: &str) -> Result<(PathBuf, f64)> {
    build_verilated_with(work, top, harness, exe, &[])
}

/// [`build_verilated`] with more Verilator arguments
/// ([`engine::hw::verilog::build_verilated_with`]).
pub fn build_verilated_with(work: &Path, top: &str, harness: &str, exe: &str, extra_args: &[&str]) -> Result<(PathBuf, f64)> {
    let rtl = Path::new(RTL_DIR);
    let wrapper = format!("{top}_ansi");
    let sources = [rtl.join(format!("{top}.v")), rtl.join(format!("{wrapper}.v")), PathBuf::from(harness)];
    Ok(engine::hw::verilog::build_verilated_with(work, &sources, &[PathBuf::from(HARNESS_COMMON)], &wrapper, exe, extra_args)?)
}

/// Runs the testbench `tb` (Verilog text) around the exported top `top` (its `<top>.v` and
/// wrapper from [`RTL_DIR`]) in Icarus in `dir`, where its `$readmemh` files lie, through
/// [`engine::hw::verilog::run_icarus`]; returns the simulation's standard output.
pub fn run_icarus_tb(dir: &Path, tb: &str, top: &str) -> Result<String> {
    let rtl = Path::new(RTL_DIR);
    let tb_path = dir.join("tb.v");
    std::fs::write(&tb_path, tb).with_context(|| format!("write {}", tb_path.display()))?;
    Ok(engine::hw::verilog::run_icarus(dir, &[tb_path, rtl.join(format!("{top}.v")), rtl.join(format!("{top}_ansi.v"))])?)
}

impl LaneModel {
    /// Runs `beats` through the model. `ready_seed` 0 keeps `out_ready` high; otherwise the
    /// harness's xorshift32 from that seed drops it in about one cycle of four. With
    /// `report_beats` the cycles in which beats were taken come back too.
    pub fn run(&self, beats: &[Beat], ready_seed: u32, report_beats: bool) -> Result<Run> {
        let mut child = Command::new(&self.exe)
            .arg(ready_seed.to_string())
            .arg(if report_beats { "beats" } else { "-" })
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("start the lane model")?;
        let mut input = Vec::with_capacity(beats.len() * 36);
        for b in beats {
            for w in b.words {
                input.extend_from_slice(&w.to_le_bytes());
            }
            let ctrl = b.id as u32 | (b.tail_bytes as u32) << 8 | (b.w16 as u32) << 15 | (b.last as u32) << 16;
            input.extend_from_slice(&ctrl.to_le_bytes());
        }
        let mut stdin = child.stdin.take().context("stdin")?;
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output()?;
        writer.join().expect("stimulus writer")?;
        let log = String::from_utf8_lossy(&out.stderr);
        ensure!(out.status.success(), "lane model failed (not every block left): {log}");
        let last = log.lines().last().context("no summary")?;
        let f: Vec<&str> = last.split_whitespace().collect();
        ensure!(f.len() == 4 && f[0] == "cycles", "bad summary {last}");
        let words: Vec<u32> = out.stdout.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        let mut run = Run { blocks: Vec::new(), beat_cycles: Vec::new(), cycles: f[1].parse()?, seconds: f[3].parse()? };
        let mut i = 0;
        while i < words.len() {
            let cycle = words[i + 1] as u64 | (words[i + 2] as u64) << 32;
            match words[i] {
                0xBEA7 => {
                    run.beat_cycles.push(cycle);
                    i += 3;
                }
                0xB10C => {
                    let r = &words[i..i + 71];
                    let len = r[4];
                    let mut payload: Vec<u8> = r[7..39].iter().flat_map(|w| w.to_be_bytes()).collect();
                    payload.truncate(len.div_ceil(8) as usize);
                    let mut block = [0u8; BLOCK_BYTES];
                    for (k, w) in r[39..71].iter().enumerate() {
                        block[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
                    }
                    run.blocks.push(OutBlock {
                        cycle,
                        encoding: BlockEncoding { tag: tag_of(r[3])?, payload_bits: len, payload },
                        block,
                        id: r[5] as u8,
                        last: r[6] != 0,
                    });
                    i += 71;
                }
                other => anyhow::bail!("bad record marker {other:#x}"),
            }
        }
        Ok(run)
    }
}

/// Blocks (each its own 128-byte transfer, id = index mod 256) as beats.
pub fn block_beats(blocks: &[[u8; BLOCK_BYTES]], width: SymbolWidth) -> Vec<Beat> {
    blocks.iter().enumerate().flat_map(|(i, b)| transfer_beats(b, width, i as u8)).collect()
}

/// Runs `blocks` of `width` through the model (output always ready) and counts blocks whose
/// tag, length, payload or carried block differ from the golden encoder; returns (run, mismatches).
pub fn check_blocks(model: &LaneModel, blocks: &[[u8; BLOCK_BYTES]], width: SymbolWidth) -> Result<(Run, usize)> {
    let run = model.run(&block_beats(blocks, width), 0, false)?;
    ensure!(run.blocks.len() == blocks.len(), "{} of {} blocks left the lane", run.blocks.len(), blocks.len());
    let bad = blocks
        .iter()
        .zip(&run.blocks)
        .filter(|(b, o)| o.encoding != engine::golden::encode_block(b, width) || o.block != **b || !o.last)
        .count();
    Ok((run, bad))
}

/// A built Verilator model of the device-to-host unit's wrapper (`pz_d2h_lane_ansi`).
pub struct D2hModel {
    /// The executable.
    pub exe: PathBuf,
    /// Seconds the build took (0 when an up-to-date build was reused).
    pub build_seconds: f64,
}

/// Builds the device-to-host model under `work` (reused when unchanged; see [`build_verilated`]).
pub fn build_d2h_model(work: &Path) -> Result<D2hModel> {
    let (exe, build_seconds) = build_verilated(work, engine::hw::D2H_MODULE, D2H_HARNESS, "vd2h")?;
    Ok(D2hModel { exe, build_seconds })
}

/// What one run of the device-to-host model produced.
pub struct D2hRun {
    /// Handshakes, writes and `done` pulses with their cycles (descriptor and beat cycles only
    /// when requested).
    pub trace: engine::hw::d2h_driver::Trace,
    /// Cycles simulated.
    pub cycles: u64,
    /// Wall-clock seconds of the simulation loop.
    pub seconds: f64,
}

impl D2hModel {
    /// Runs `transfers` through the model. `ready_seed` / `bubble_seed` 0 keep `wr_ready` /
    /// `beat_valid` high; otherwise the harness's xorshift32 from that seed drops it in about one
    /// cycle of four (both generators step once per cycle, the bubble one first). With `trace`
    /// the cycles of descriptor and beat handshakes come back too.
    pub fn run(&self, transfers: &[engine::hw::d2h_driver::Transfer], ready_seed: u32, bubble_seed: u32, trace: bool) -> Result<D2hRun> {
        use engine::hw::d2h_driver::{BEAT_BYTES, Done, Trace, Write, beat_words};
        let mut child = Command::new(&self.exe)
            .args([ready_seed.to_string(), bubble_seed.to_string(), if trace { "trace" } else { "-" }.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("start the d2h model")?;
        let mut input = Vec::new();
        for t in transfers {
            let len = u32::try_from(t.bytes.len()).context("a transfer of 2^32 bytes or more")?;
            input.extend_from_slice(&len.to_le_bytes());
            input.extend_from_slice(&(t.id as u32 | ((t.width == SymbolWidth::W16) as u32) << 8).to_le_bytes());
            for words in beat_words(&t.bytes) {
                for w in words {
                    input.extend_from_slice(&w.to_le_bytes());
                }
            }
        }
        let mut stdin = child.stdin.take().context("stdin")?;
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output()?;
        writer.join().expect("stimulus writer")?;
        let log = String::from_utf8_lossy(&out.stderr);
        ensure!(out.status.success(), "d2h model failed (not every transfer finished): {log}");
        let last = log.lines().last().context("no summary")?;
        let f: Vec<&str> = last.split_whitespace().collect();
        ensure!(f.len() == 4 && f[0] == "cycles", "bad summary {last}");
        let words: Vec<u32> = out.stdout.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        let mut trace = Trace::default();
        let mut i = 0;
        while i < words.len() {
            ensure!(i + 3 <= words.len(), "truncated record");
            let cycle = words[i + 1] as u64 | (words[i + 2] as u64) << 32;
            match words[i] {
                0xDE5C => {
                    trace.desc_cycles.push(cycle);
                    i += 3;
                }
                0xBEA7 => {
                    trace.beat_cycles.push(cycle);
                    i += 3;
                }
                0x3717E => {
                    let r = words.get(i..i + 14).context("truncated write record")?;
                    let mut data = [0u8; BEAT_BYTES];
                    for (k, w) in r[6..14].iter().enumerate() {
                        data[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
                    }
                    trace.writes.push(Write { cycle, addr: r[3], data, be: r[4], id: r[5] as u8, last: r[5] >> 8 & 1 == 1 });
                    i += 14;
                }
                0xD0E => {
                    let r = words.get(i..i + 5).context("truncated done record")?;
                    trace.dones.push(Done { cycle, id: r[3] as u8, wire_bytes: r[4] });
                    i += 5;
                }
                other => anyhow::bail!("bad record marker {other:#x}"),
            }
        }
        Ok(D2hRun { trace, cycles: f[1].parse()?, seconds: f[3].parse()? })
    }
}

/// Every `.safetensors` file under `dir`, recursively, in sorted order (unreadable directories
/// are skipped).
pub fn safetensors_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            out.extend(safetensors_under(&p));
        } else if p.extension().is_some_and(|e| e == "safetensors") {
            out.push(p);
        }
    }
    out
}

/// The whole tensors of the safetensors `file` that have bytes at `width` (as
/// [`real_blocks::tensor_bytes`] converts them), as `(name, bytes)` in name order.
pub fn whole_tensors(file: &Path, width: SymbolWidth) -> Result<Vec<(String, Vec<u8>)>> {
    let bytes = std::fs::read(file).with_context(|| format!("read {}", file.display()))?;
    let st = safetensors::SafeTensors::deserialize(&bytes).map_err(|e| anyhow::anyhow!("{}: not a valid safetensors file: {e:?}", file.display()))?;
    let mut names: Vec<String> = st.names().into_iter().cloned().collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let view = st.tensor(&name).map_err(|e| anyhow::anyhow!("{}: tensor {name}: {e:?}", file.display()))?;
        if let Some(data) = real_blocks::tensor_bytes(view.dtype(), view.data(), width) {
            out.push((name, data));
        }
    }
    Ok(out)
}

/// Cycles in which no beat was taken although the next beat was offered, split into those inside
/// a transfer (between its first and last beat) and those between one transfer's last beat and
/// the next one's first; for runs with `beat_valid` always high (`trace` with beat cycles).
pub fn stall_cycles(transfers: &[engine::hw::d2h_driver::Transfer], trace: &engine::hw::d2h_driver::Trace) -> (u64, u64) {
    let (mut inside, mut between, mut at) = (0u64, 0u64, 0usize);
    let mut prev_last: Option<u64> = None;
    for t in transfers {
        let n = t.bytes.len().div_ceil(engine::hw::d2h_driver::BEAT_BYTES);
        let Some(c) = trace.beat_cycles.get(at..at + n).filter(|c| !c.is_empty()) else { continue };
        inside += c[n - 1] - c[0] + 1 - n as u64;
        if let Some(p) = prev_last {
            between += c[0] - p - 1;
        }
        prev_last = Some(c[n - 1]);
        at += n;
    }
    (inside, between)
}
