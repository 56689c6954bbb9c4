//! Scale (issue 14, item 6): `ratios` and `stream` read a tensor file in pieces, so their peak
//! memory does not grow with the tensor. A 256 MiB f32 tensor (a sparse file of zeros, made in a
//! moment) goes through each command in a child process, whose peak resident set (`getrusage`
//! `RUSAGE_CHILDREN`: the largest child this test process has waited for, so every child must stay
//! below the limit for it to) must stay far below the tensor: a whole-file read needs at least
//! 256 MiB for the bytes and 128 MiB for their bf16 conversion. That the pieces add up to the
//! tensor streamed whole is checked on real-looking data. The 8 GB runs are in BENCHMARKS.md.

use engine::golden::{CHUNK_BYTES, SymbolWidth};
use sim_harness::clock::EngineClock;
use sim_harness::engine_backend::model::{ModelBackend, d2h_cycles, h2d_model_cycles};
use sim_harness::engine_backend::{EngineBackend, Fidelity};
use sim_harness::inputs::{self, NamedTensor, StreamTensor};
use sim_harness::measure::Precision;
use sim_harness::stream::run_on;
use sim_harness::tensors::PIECE_BYTES;
use std::io::Write;

/// Elements of the synthetic tensor (f32): 256 MiB.
const ELEMENTS: u64 = 64 << 20;

/// Peak resident set the measurement may take, bytes: below the tensor's 256 MiB.
const PEAK_LIMIT_BYTES: u64 = 128 << 20;

/// Writes a safetensors file of one f32 tensor of `elements` zeros, sparse (only the header is
/// written; the file is extended to its size).
fn sparse_tensor_file(path: &std::path::Path, elements: u64) {
    let data_bytes = elements * 4;
    let mut header = format!("{{\"x\":{{\"dtype\":\"F32\",\"shape\":[{elements}],\"data_offsets\":[0,{data_bytes}]}}}}");
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
    f.write_all(header.as_bytes()).unwrap();
    f.set_len(8 + header.len() as u64 + data_bytes).unwrap();
}

/// Runs the program with `args` on a fresh 256 MiB sparse tensor; its JSON output and the
/// largest peak RSS of this process's children so far, bytes.
fn run_on_big_tensor(args: &[&str]) -> (serde_json::Value, u64) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("big.safetensors");
    sparse_tensor_file(&path, ELEMENTS);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sim-harness")).args(&args[..1]).arg(&path).args(&args[1..]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // SAFETY: getrusage writes the struct it is given; a zeroed rusage is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) }, 0);
    let peak_bytes = ru.ru_maxrss as u64 * 1024;
    eprintln!("{} of a {} MiB f32 tensor: children's peak RSS {:.1} MiB", args[0], ELEMENTS * 4 >> 20, peak_bytes as f64 / (1 << 20) as f64);
    (serde_json::from_slice(&out.stdout).unwrap(), peak_bytes)
}

#[test]
fn ratios_of_a_256_mib_tensor_stays_far_below_its_size_in_memory() {
    let (v, peak_bytes) = run_on_big_tensor(&["ratios", "--json"]);
    let rows = v["tensors"].as_array().unwrap();
    // The whole tensor was measured: 4 bytes per element in F32, 2 in its bf16 conversion.
    assert_eq!(rows[0]["raw_bytes"].as_u64(), Some(ELEMENTS * 4));
    assert_eq!(rows[1]["raw_bytes"].as_u64(), Some(ELEMENTS * 2));
    assert!(peak_bytes < PEAK_LIMIT_BYTES, "peak RSS {peak_bytes} bytes: the tensor was read whole?");
}

#[test]
fn stream_of_a_256_mib_tensor_stays_far_below_its_size_in_memory() {
    let (v, peak_bytes) = run_on_big_tensor(&["stream", "--fidelity", "model", "--precision", "fp32", "--json"]);
    let t = &v["total"];
    assert_eq!(t["raw_bytes"].as_u64(), Some(ELEMENTS * 4), "every byte streamed");
    assert_eq!(t["transfers"].as_u64(), Some(ELEMENTS * 4 / PIECE_BYTES as u64), "one transfer per piece");
    assert_eq!(t["wire_bytes"], t["golden_wire_bytes"]);
    assert!(peak_bytes < PEAK_LIMIT_BYTES, "peak RSS {peak_bytes} bytes: the tensor was read whole?");
}

/// A tensor of `elements` f32 whose every 4096-byte chunk is the same ReLU-like pattern (a third
/// zeros), so that both lanes carry equal work in any whole number of chunk pairs.
fn periodic_tensor(elements: usize) -> Vec<u8> {
    let per_chunk = CHUNK_BYTES / 4;
    (0..elements).flat_map(|k| if k % 3 == 0 { 0.0f32 } else { ((k % per_chunk) as f32 * 0.37).sin().abs() }.to_le_bytes()).collect()
}

#[test]
fn a_file_tensor_streamed_in_pieces_adds_up_to_it_streamed_whole() {
    // 20 MiB of f32: two pieces (16 MiB and 4 MiB), coded as bf16 (8 MiB and 2 MiB).
    let elements = (PIECE_BYTES + 4 * (1 << 20)) / 4;
    let bytes = periodic_tensor(elements);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("t.safetensors");
    let header = format!("{{\"x\":{{\"dtype\":\"F32\",\"shape\":[{elements}],\"data_offsets\":[0,{}]}}}}", bytes.len());
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
    f.write_all(header.as_bytes()).unwrap();
    f.write_all(&bytes).unwrap();
    drop(f);

    let in_file = inputs::load(&path, 0, Precision::Bf16).unwrap();
    assert_eq!(in_file[0].pieces(), 2);
    let whole = vec![StreamTensor::from(NamedTensor {
        model: in_file[0].model().to_owned(),
        name: "x".into(),
        dtype: "BF16".into(),
        bytes: sim_harness::convert::f32_to_bf16_bytes(&bytes),
        width: SymbolWidth::W16,
    })];
    let clock = EngineClock { mhz: 1000.0, source: "test".into() };
    let model = || Box::new(ModelBackend) as Box<dyn EngineBackend>;
    let pieces = run_on(&model, Fidelity::Model, &in_file, &[0], 1, None, &clock, true).unwrap();
    let whole = run_on(&model, Fidelity::Model, &whole, &[0], 1, None, &clock, true).unwrap();
    let (p, w) = (&pieces.tensors[0], &whole.tensors[0]);
    assert_eq!((p.transfers, w.transfers), (2, 1));
    assert_eq!((p.raw_bytes, p.wire_bytes, p.golden_wire_bytes, p.chunks, p.blocks_by_tag), (w.raw_bytes, w.wire_bytes, w.golden_wire_bytes, w.chunks, w.blocks_by_tag));
    assert_eq!(p.raw_bytes, elements * 2);
    // The pieces run back to back: each direction's time is the sum of the model backend's
    // latency models over the two transfers.
    let (mut d2h, mut h2d) = (0, 0);
    for k in 0..in_file[0].pieces() {
        let piece = in_file[0].piece(k).unwrap();
        d2h += d2h_cycles(&piece, SymbolWidth::W16);
        h2d += h2d_model_cycles(&piece, SymbolWidth::W16);
    }
    assert_eq!((p.cycles, p.h2d_cycles), (d2h, h2d));
    assert!(p.cycles > w.cycles && p.h2d_cycles >= w.h2d_cycles, "{:?} vs {:?}", (p.cycles, p.h2d_cycles), (w.cycles, w.h2d_cycles));
}
