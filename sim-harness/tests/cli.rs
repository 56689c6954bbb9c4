//! End-to-end tests of the `sim-harness` binary: ratios, compress/decompress round trips,
//! and clear errors on bad input.

use half::{bf16, f16};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sim-harness")).args(args).output().expect("runs")
}

/// Real f32 activations the project carries: the sampled chunks of one EfficientNet-B0 iteration.
fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/efficientnet_b0/iter0.safetensors")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn help_prints_usage_and_succeeds() {
    let o = bin(&["--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("Usage"), "{}", stdout(&o));
    assert!(stdout(&o).contains("ratios"));
}

#[test]
fn ratios_on_real_activations_report_five_codecs_for_f32_and_bf16() {
    let o = bin(&["ratios", sample().to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let totals = v["totals"].as_array().unwrap();
    let precisions: Vec<&str> = totals.iter().map(|t| t["precision"].as_str().unwrap()).collect();
    assert_eq!(precisions, ["F32", "BF16 (from F32, RNE)"]);
    let tensors = v["tensors"].as_array().unwrap();
    for t in totals {
        let p = t["precision"].as_str().unwrap();
        // Totals are the byte-weighted sums of the per-tensor rows.
        let rows: Vec<_> = tensors.iter().filter(|r| r["precision"] == p).collect();
        let raw: u64 = rows.iter().map(|r| r["raw_bytes"].as_u64().unwrap()).sum();
        assert_eq!(t["raw_bytes"].as_u64().unwrap(), raw);
        for codec in ["zvc", "bpc", "bx", "zbx", "planezip"] {
            let wire: u64 = rows.iter().map(|r| r["wire_bytes"][codec].as_u64().unwrap()).sum();
            assert_eq!(t["wire_bytes"][codec].as_u64().unwrap(), wire, "{p} {codec}");
            assert!(wire > 0 && wire <= raw + raw / 2048 * 2 + 2 * rows.len() as u64, "{p} {codec}: wire {wire} vs raw {raw}");
        }
        // The per-block choice beats every single code on real activations.
        let pz = t["wire_bytes"]["planezip"].as_u64().unwrap();
        for codec in ["zvc", "bpc", "bx", "zbx"] {
            assert!(pz < t["wire_bytes"][codec].as_u64().unwrap(), "{p}: PlaneZip vs {codec}");
        }
    }
    // The text report carries the same columns.
    let text = stdout(&bin(&["ratios", sample().to_str().unwrap(), "--summary"]));
    for col in ["ZVC", "BPC(DBX)", "BX", "ZBX", "PlaneZip", "F32", "BF16 (from F32, RNE)"] {
        assert!(text.contains(col), "missing {col} in\n{text}");
    }
}

#[test]
fn ratios_with_32_bit_symbols_codes_bf16_with_w32() {
    let o = bin(&["ratios", sample().to_str().unwrap(), "--json", "--symbol-bits", "32"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["tensors"].as_array().unwrap().iter().all(|r| r["symbol_bits"] == 32));
}

/// Writes a safetensors file with the sample's tensors converted by `conv`, plus NaN payloads.
fn write_variant(dir: &Path, name: &str, dtype: Dtype, conv: impl Fn(f32) -> Vec<u8>) -> PathBuf {
    let bytes = std::fs::read(sample()).unwrap();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let mut data: Vec<(String, Vec<usize>, Vec<u8>)> = st
        .tensors()
        .into_iter()
        .map(|(n, v)| {
            let vals = v.data().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()));
            let out: Vec<u8> = vals.flat_map(&conv).collect();
            (n, v.shape().to_vec(), out)
        })
        .collect();
    let nans: Vec<u8> = [f32::NAN, f32::from_bits(0x7FC0_1234), f32::from_bits(0xFF80_0001), -0.0, f32::INFINITY, 1.5]
        .iter()
        .cycle()
        .take(777)
        .flat_map(|&v| conv(v))
        .collect();
    let n = nans.len() / dtype.size();
    data.push(("nans".into(), vec![n], nans));
    let views: Vec<_> = data.iter().map(|(n, s, b)| (n.clone(), TensorView::new(dtype, s.clone(), b).unwrap())).collect();
    let path = dir.join(name);
    std::fs::write(&path, safetensors::serialize(views, &None).unwrap()).unwrap();
    path
}

fn round_trip(dir: &Path, input: &Path, extra: &[&str]) -> Vec<u8> {
    let label = format!("{}{}", input.file_name().unwrap().to_str().unwrap(), extra.join(""));
    let packed = dir.join(format!("{label}.pz"));
    let back = dir.join(format!("{label}.back.safetensors"));
    let mut args = vec!["compress", input.to_str().unwrap(), "-o", packed.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = bin(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::metadata(&packed).unwrap().len() < std::fs::metadata(input).unwrap().len());
    let o = bin(&["decompress", packed.to_str().unwrap(), "-o", back.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read(back).unwrap()
}

#[test]
fn compress_then_decompress_is_byte_identical_for_f32_bf16_f16_with_nans() {
    let dir = tempfile::tempdir().unwrap();
    let f32_file = write_variant(dir.path(), "a.safetensors", Dtype::F32, |v| v.to_le_bytes().to_vec());
    let bf16_file = write_variant(dir.path(), "b.safetensors", Dtype::BF16, |v| bf16::from_f32(v).to_bits().to_le_bytes().to_vec());
    let f16_file = write_variant(dir.path(), "c.safetensors", Dtype::F16, |v| f16::from_f32(v).to_bits().to_le_bytes().to_vec());
    for f in [&f32_file, &bf16_file, &f16_file] {
        assert_eq!(round_trip(dir.path(), f, &[]), std::fs::read(f).unwrap(), "{}", f.display());
    }
    // 32-bit symbols for 16-bit data round-trip too.
    assert_eq!(round_trip(dir.path(), &bf16_file, &["--symbol-bits", "32"]), std::fs::read(&bf16_file).unwrap());
    // --dtype bf16 stores the RNE conversion: it decompresses to exactly the bf16 file.
    let converted = round_trip(dir.path(), &f32_file, &["--dtype", "bf16"]);
    let bf16_bytes = std::fs::read(&bf16_file).unwrap();
    let (a, b) = (SafeTensors::deserialize(&converted).unwrap(), SafeTensors::deserialize(&bf16_bytes).unwrap());
    for (name, view) in a.tensors() {
        let other = b.tensor(&name).unwrap();
        assert_eq!(view.dtype(), Dtype::BF16);
        assert_eq!(view.data(), other.data(), "{name}");
    }
}

#[test]
fn bad_inputs_fail_with_the_file_named_and_nothing_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    // Truncated safetensors.
    let bytes = std::fs::read(sample()).unwrap();
    let cut = dir.path().join("cut.safetensors");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let o = bin(&["ratios", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cut.safetensors"), "{}", stderr(&o));
    // Unknown file type.
    let txt = dir.path().join("notes.txt");
    std::fs::write(&txt, "hello").unwrap();
    let o = bin(&["ratios", txt.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("notes.txt") && stderr(&o).contains("unknown file type"));
    // A corrupted container: error naming the file, no output written.
    let good = dir.path().join("good.safetensors");
    std::fs::write(&good, &bytes).unwrap();
    let packed = dir.path().join("good.pz");
    assert!(bin(&["compress", good.to_str().unwrap(), "-o", packed.to_str().unwrap()]).status.success());
    let mut pz = std::fs::read(&packed).unwrap();
    let n = pz.len();
    pz[n - 1000..].iter_mut().for_each(|b| *b ^= 0x5A);
    let bad = dir.path().join("bad.pz");
    std::fs::write(&bad, &pz).unwrap();
    let back = dir.path().join("back.safetensors");
    let o = bin(&["decompress", bad.to_str().unwrap(), "-o", back.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad.pz"), "{}", stderr(&o));
    assert!(!back.exists());
    std::fs::write(&bad, &pz[..n / 3]).unwrap();
    assert_eq!(bin(&["decompress", bad.to_str().unwrap(), "-o", back.to_str().unwrap()]).status.code(), Some(1));
    // Existing outputs and the input itself are never overwritten.
    let o = bin(&["compress", good.to_str().unwrap(), "-o", packed.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("exists"));
    let o = bin(&["compress", good.to_str().unwrap(), "-o", good.to_str().unwrap(), "--force"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read(&good).unwrap(), bytes);
    // A bad flag is a usage error (exit 2).
    assert_eq!(bin(&["ratios", "--symbol-bits", "12", good.to_str().unwrap()]).status.code(), Some(2));
}

#[test]
fn npy_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let vals: Vec<f32> = (0..3000).map(|i| if i % 2 == 0 { 0.0 } else { i as f32 * 0.01 }).collect();
    let path = dir.path().join("relu.npy");
    // A version-1.0 .npy file as numpy writes it: magic, header dict padded to 64 bytes, data.
    let mut dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3000,), }".to_string();
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend(vals.iter().flat_map(|v| v.to_le_bytes()));
    std::fs::write(&path, &out).unwrap();
    // A truncated one is an error naming the file.
    let cut = dir.path().join("cut.npy");
    std::fs::write(&cut, &out[..out.len() - 4]).unwrap();
    let o = bin(&["ratios", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cut.npy"), "{}", stderr(&o));
    let o = bin(&["ratios", path.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["tensors"][0]["raw_bytes"], 12000);
    assert_eq!(v["tensors"][0]["precision"], "F32");
}
