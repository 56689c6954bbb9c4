//! Cocotb-free tests of the exported Verilog (the host-to-device lane's driver is in [`h2d`]): the compressor lane's ANSI wrapper, built with
//! Verilator around a small C++ driver (`harness/lane_harness.cpp`), is driven cycle by cycle
//! from Rust with beats and an `out_ready` pattern; every block it delivers is compared with
//! `engine::golden`, and the per-cycle handshakes with the rust-hdl simulation
//! ([`engine::hw::LaneSim`]). The Verilog is exported at build time (`build.rs` → `rtl-gen`).
//!
//! Verilator 5.006 (Debian 12) is enough for the C++ driver; marlin 0.21 wants ≥ 5.025, so it is
//! not used (see `docs/AREA.md`, "Verilator cross-check").

use anyhow::{Context, Result, ensure};
use engine::golden::{BLOCK_BYTES, BlockEncoding, SymbolWidth, Tag};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "../../engine/tests/support/real_blocks.rs"]
pub mod real_blocks;

pub mod h2d;

/// Directory with the exported Verilog (`<top>.v`, `<top>_ansi.v`, `manifest.json`).
pub const RTL_DIR: &str = concat!(env!("OUT_DIR"), "/rtl");

/// The C++ driver of the lane model.
pub const HARNESS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/harness/lane_harness.cpp");

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
    let n = bytes.len().div_ceil(32);
    (0..n)
        .map(|b| {
            let mut words = [0u32; 8];
            for (k, w) in words.iter_mut().enumerate() {
                let mut le = [0u8; 4];
                for (i, byte) in le.iter_mut().enumerate() {
                    *byte = bytes.get(32 * b + 4 * k + i).copied().unwrap_or(0);
                }
                *w = u32::from_le_bytes(le);
            }
            Beat { words, last: b + 1 == n, w16: width == SymbolWidth::W16, id, tail_bytes: (bytes.len() % BLOCK_BYTES) as u8 }
        })
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
    build_model(work, "pz_compressor_lane", HARNESS, "vlane")
}

/// Builds the Verilator model of the exported top `top` (its Verilog and ANSI wrapper from
/// [`RTL_DIR`]) around the C++ driver `harness` as `work/obj/<exe>`; reused when the Verilog and
/// the harness are unchanged since the last build there.
pub fn build_model(work: &Path, top: &str, harness: &str, exe_name: &str) -> Result<LaneModel> {
    let rtl = Path::new(RTL_DIR);
    let wrapper = format!("{top}_ansi");
    let sources = [rtl.join(format!("{top}.v")), rtl.join(format!("{wrapper}.v")), PathBuf::from(harness)];
    let mut stamp = String::new();
    for s in &sources {
        let text = std::fs::read(s).with_context(|| format!("read {}", s.display()))?;
        stamp.push_str(&format!("{} {} {:016x}\n", s.display(), text.len(), fnv1a(&text)));
    }
    let exe = work.join("obj").join(exe_name);
    let stamp_path = work.join("stamp");
    if exe.exists() && std::fs::read_to_string(&stamp_path).ok().as_deref() == Some(stamp.as_str()) {
        return Ok(LaneModel { exe, build_seconds: 0.0 });
    }
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work)?;
    let t = std::time::Instant::now();
    let out = Command::new("verilator")
        .args(["--cc", "--exe", "--build", "-O1", "-j", "2", "-Wno-fatal", "-Wno-lint", "-Wno-style"])
        .args(["--top-module", &wrapper, "-o", exe_name, "--Mdir"])
        .arg(work.join("obj"))
        .args(&sources)
        .output()
        .context("run verilator (scripts/install-area-tools.sh installs it)")?;
    ensure!(out.status.success(), "verilator build failed:\n{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&stamp_path, stamp)?;
    Ok(LaneModel { exe, build_seconds: t.elapsed().as_secs_f64() })
}

fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3))
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
