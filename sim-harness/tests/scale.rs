//! Scale (issue 14, item 6): `ratios` reads a tensor file in pieces, so its peak memory does not
//! grow with the tensor. A 256 MiB f32 tensor (a sparse file of zeros, made in a moment) is
//! measured by the program in a child process, whose peak resident set (`getrusage`
//! `RUSAGE_CHILDREN`, the largest child waited for; this file holds one test so no other child
//! counts) must stay far below the tensor: a whole-file read needs at least 256 MiB for the
//! bytes and 128 MiB for their bf16 conversion. The 8 GB run is in BENCHMARKS.md.

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

#[test]
fn ratios_of_a_256_mib_tensor_stays_far_below_its_size_in_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("big.safetensors");
    sparse_tensor_file(&path, ELEMENTS);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sim-harness")).args(["ratios", path.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // SAFETY: getrusage writes the struct it is given; a zeroed rusage is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) }, 0);
    let peak_bytes = ru.ru_maxrss as u64 * 1024;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["tensors"].as_array().unwrap();
    // The whole tensor was measured: 4 bytes per element in F32, 2 in its bf16 conversion.
    assert_eq!(rows[0]["raw_bytes"].as_u64(), Some(ELEMENTS * 4));
    assert_eq!(rows[1]["raw_bytes"].as_u64(), Some(ELEMENTS * 2));
    eprintln!("ratios of a {} MiB f32 tensor: child peak RSS {:.1} MiB", ELEMENTS * 4 >> 20, peak_bytes as f64 / (1 << 20) as f64);
    assert!(peak_bytes < PEAK_LIMIT_BYTES, "peak RSS {peak_bytes} bytes: the tensor was read whole?");
}
