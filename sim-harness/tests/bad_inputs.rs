//! Bad dumps, files and arguments (issue 14, item 5): each case is a clear error that names the
//! file and the problem, a non-zero exit for the program, and no output written half-way. Also
//! the abort: a container whose index claims an absurd `raw_bytes` (exit 134 before).

use engine::container::{Index, VERSION, read_index};
use safetensors::Dtype;
use safetensors::tensor::TensorView;
use sim_harness::dump::Dump;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{copy_model_dir, data_dir, trace_text};

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sim-harness")).args(args).output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs the program and asserts exit 1 with every `needle` in its error message.
#[track_caller]
fn fails_with(args: &[&str], needles: &[&str]) {
    let o = bin(args);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    for n in needles {
        assert!(stderr(&o).contains(n), "{args:?}: {n:?} not in {}", stderr(&o));
    }
}


/// A copy of the committed `data/resnet50` sample (the smallest) in a temp folder, to edit.
fn dump_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("resnet50");
    copy_model_dir(&data_dir("resnet50"), &dir);
    (tmp, dir)
}

fn edit_json(path: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(path, serde_json::to_string(&v).unwrap()).unwrap();
}

#[track_caller]
fn open_fails(dir: &Path, needles: &[&str]) {
    let err = Dump::open(dir).map(|_| ()).unwrap_err().to_string();
    for n in needles {
        assert!(err.contains(n), "{n:?} not in {err}");
    }
}

#[test]
fn the_committed_dump_opens_and_reads() {
    let (_tmp, dir) = dump_copy();
    let d = Dump::open(&dir).unwrap();
    assert_eq!(d.read_iteration(0).unwrap().len(), d.saved().len());
}

#[test]
fn a_tensor_of_the_wrong_dtype_is_named() {
    let (_tmp, dir) = dump_copy();
    let path = dir.join("iter0.safetensors");
    let bytes = std::fs::read(&path).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut tensors = st.tensors();
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    // Relabel the first f32 tensor as i32 (same bytes, so the file itself stays valid).
    let victim = tensors.iter().position(|(_, v)| v.dtype() == Dtype::F32).unwrap();
    let name = tensors[victim].0.clone();
    let views: Vec<_> = tensors
        .iter()
        .enumerate()
        .map(|(i, (n, v))| (n.clone(), TensorView::new(if i == victim { Dtype::I32 } else { v.dtype() }, v.shape().to_vec(), v.data()).unwrap()))
        .collect();
    std::fs::write(&path, safetensors::serialize(views, &None).unwrap()).unwrap();
    let err = Dump::open(&dir).unwrap().read_iteration(0).unwrap_err().to_string();
    assert!(err.contains("iter0.safetensors") && err.contains(&name) && err.contains("dtype I32"), "{err}");
}

#[test]
fn a_shape_that_does_not_hold_the_byte_count_is_named() {
    let (_tmp, dir) = dump_copy();
    let path = dir.join("sample.json");
    let mut key = String::new();
    edit_json(&path, |v| {
        let (k, t) = v["tensors"].as_object_mut().unwrap().iter_mut().next().unwrap();
        key = k.clone();
        t["shape"][0] = (t["shape"][0].as_u64().unwrap() + 1).into();
    });
    open_fails(&dir, &["sample.json", &key, "does not hold"]);
    // An offset near 2^64 is out of range, not an overflow.
    let (_tmp, dir) = dump_copy();
    edit_json(&dir.join("sample.json"), |v| {
        let t = v["tensors"].as_object_mut().unwrap().values_mut().find(|t| t["bytes"].as_u64().unwrap() > 8192).unwrap();
        t["offsets"] = serde_json::json!([u64::MAX - 4095]);
    });
    open_fails(&dir, &["sample.json", "is not the start of a 4096-byte chunk"]);
}

#[test]
fn a_stored_tensor_shorter_than_its_index_is_named() {
    let (_tmp, dir) = dump_copy();
    let path = dir.join("iter1.safetensors");
    let bytes = std::fs::read(&path).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut tensors = st.tensors();
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    let victim = tensors.iter().position(|(_, v)| v.data().len() >= 8192).unwrap();
    let name = tensors[victim].0.clone();
    let views: Vec<_> = tensors
        .iter()
        .enumerate()
        .map(|(i, (n, v))| {
            let data = if i == victim { &v.data()[..v.data().len() - 4096] } else { v.data() };
            let shape = vec![data.len() / v.dtype().size()];
            (n.clone(), TensorView::new(v.dtype(), shape, data).unwrap())
        })
        .collect();
    std::fs::write(&path, safetensors::serialize(views, &None).unwrap()).unwrap();
    let err = Dump::open(&dir).unwrap().read_iteration(1).unwrap_err().to_string();
    assert!(err.contains("iter1.safetensors") && err.contains(&name) && err.contains("sample index implies"), "{err}");
}

#[test]
fn zero_length_files_are_errors_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["empty.safetensors", "empty.npy", "empty.pz"] {
        std::fs::write(tmp.path().join(name), b"").unwrap();
    }
    let p = |n: &str| tmp.path().join(n).to_str().unwrap().to_owned();
    fails_with(&["ratios", &p("empty.safetensors")], &["empty.safetensors", "not a valid safetensors file"]);
    fails_with(&["ratios", &p("empty.npy")], &["empty.npy", "not a valid .npy file"]);
    fails_with(&["decompress", &p("empty.pz"), "-o", &p("out.safetensors")], &["empty.pz", "truncated container"]);
    assert!(!tmp.path().join("out.safetensors").exists());
    let (_t, dir) = dump_copy();
    std::fs::write(dir.join("trace.json"), b"").unwrap();
    open_fails(&dir, &["trace.json"]);
}

#[test]
fn a_trace_referencing_an_unknown_tensor_is_named() {
    let (_tmp, dir) = dump_copy();
    edit_json(&dir.join("trace.json"), |v| v["ops"][1]["inputs"][0] = 987_654_321u64.into());
    open_fails(&dir, &["trace.json", "op 1 references tensor 987654321"]);
}

#[test]
fn a_trace_and_a_dump_of_different_models_are_refused() {
    // trace.json of another model dropped into this dump.
    let (_tmp, dir) = dump_copy();
    std::fs::write(dir.join("trace.json"), trace_text(&data_dir("minilm"), "trace.json")).unwrap();
    open_fails(&dir, &["metadata.json", "\"resnet50\"", "\"minilm\""]);
    // sample.json of another model.
    let (_tmp, dir) = dump_copy();
    std::fs::copy(data_dir("minilm").join("sample.json"), dir.join("sample.json")).unwrap();
    open_fails(&dir, &["sample.json", "\"minilm\""]);
}

#[test]
fn a_trace_whose_sizes_overflow_is_refused() {
    let (_tmp, dir) = dump_copy();
    edit_json(&dir.join("trace.json"), |v| {
        v["tensors"][0]["bytes"] = u64::MAX.into();
        v["tensors"][1]["bytes"] = u64::MAX.into();
    });
    open_fails(&dir, &["trace.json", "sum to more than 2^64"]);
}

/// Writes a safetensors file of the given f32 values (and an empty tensor).
fn f32_file(path: &Path, vals: &[f32]) {
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let views = vec![
        ("x".to_string(), TensorView::new(Dtype::F32, vec![vals.len()], &bytes).unwrap()),
        ("nothing".to_string(), TensorView::new(Dtype::BF16, vec![0, 3], &[]).unwrap()),
    ];
    std::fs::write(path, safetensors::serialize(views, &None).unwrap()).unwrap();
}

#[test]
fn nan_laden_and_empty_tensors_are_measured_and_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("nan.safetensors");
    let vals: Vec<f32> = (0..5000u32).map(|i| match i % 4 { 0 => f32::NAN, 1 => f32::from_bits(0xFFC0_0000 | i), 2 => f32::INFINITY, _ => -0.0 }).collect();
    f32_file(&input, &vals);
    let o = bin(&["ratios", input.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["tensors"].as_array().unwrap();
    let empty = rows.iter().find(|r| r["name"] == "nothing").unwrap();
    assert_eq!((empty["raw_bytes"].as_u64(), empty["wire_bytes"]["planezip"].as_u64()), (Some(0), Some(0)));
    let x = rows.iter().find(|r| r["name"] == "x" && r["precision"] == "F32").unwrap();
    assert_eq!(x["raw_bytes"], 20000);
    let packed = tmp.path().join("nan.pz");
    let back = tmp.path().join("back.safetensors");
    assert!(bin(&["compress", input.to_str().unwrap(), "-o", packed.to_str().unwrap()]).status.success());
    assert!(bin(&["decompress", packed.to_str().unwrap(), "-o", back.to_str().unwrap()]).status.success());
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&input).unwrap());
}

/// The container of `nan_laden…`'s file with its index and stored header edited by `f`.
fn crafted_container(dir: &Path, f: impl FnOnce(&mut Index, &mut serde_json::Value)) -> PathBuf {
    let input = dir.join("in.safetensors");
    f32_file(&input, &(0..3000).map(|i| i as f32).collect::<Vec<_>>());
    let packed = dir.join("in.pz");
    assert!(bin(&["compress", input.to_str().unwrap(), "-o", packed.to_str().unwrap(), "--force"]).status.success());
    let c = std::fs::read(&packed).unwrap();
    let (mut index, at) = read_index(&c).unwrap();
    let header = &c[at..at + index.source_header_bytes];
    let mut json: serde_json::Value = serde_json::from_slice(&header[8..]).unwrap();
    let streams = &c[at + index.source_header_bytes..];
    f(&mut index, &mut json);
    let json = serde_json::to_vec(&json).unwrap();
    index.source_header_bytes = 8 + json.len();
    let ij = serde_json::to_vec(&index).unwrap();
    let mut out = b"PLANEZIP".to_vec();
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(ij.len() as u64).to_le_bytes());
    out.extend_from_slice(&ij);
    out.extend_from_slice(&(json.len() as u64).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(streams);
    let path = dir.join("crafted.pz");
    std::fs::write(&path, out).unwrap();
    path
}

#[test]
fn a_container_claiming_an_absurd_raw_size_fails_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.safetensors");
    // The case: only the index lies.
    let pz = crafted_container(tmp.path(), |index, _| index.tensors.iter_mut().for_each(|t| t.raw_bytes = 1 << 60));
    fails_with(&["decompress", pz.to_str().unwrap(), "-o", out.to_str().unwrap()], &["crafted.pz", "raw_bytes"]);
    // Index and stored header agree on 2^60 bytes of f32: the stream is far too short for them.
    let pz = crafted_container(tmp.path(), |index, header| {
        for t in index.tensors.iter_mut().filter(|t| t.name == "x") {
            t.raw_bytes = 1 << 60;
            t.shape = vec![1 << 58];
        }
        header["x"]["shape"] = serde_json::json!([1u64 << 58]);
        header["x"]["data_offsets"] = serde_json::json!([0, 1u64 << 60]);
        header["nothing"]["data_offsets"] = serde_json::json!([1u64 << 60, 1u64 << 60]);
    });
    fails_with(&["decompress", pz.to_str().unwrap(), "-o", out.to_str().unwrap()], &["crafted.pz", "tensor \"x\"", "stream truncated"]);
    assert!(!out.exists());
    assert!(std::fs::read_dir(tmp.path()).unwrap().all(|e| !e.unwrap().path().to_string_lossy().ends_with(".partial")));
}

/// A version-`version` `.npy` preamble claiming a header of `header_len` bytes, then `tail`.
fn npy(version: u8, header_len: u32, tail: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&header_len.to_le_bytes());
    }
    out.extend_from_slice(tail);
    out
}

#[test]
fn npy_headers_and_shapes_are_checked_before_use() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = tmp.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_owned()
    };
    // A version-2 header claiming 4 GB (the parser would allocate it).
    fails_with(&["ratios", &write("huge.npy", &npy(2, u32::MAX, b"{}"))], &["huge.npy", "header claims 4294967295 bytes"]);
    fails_with(&["ratios", &write("v9.npy", &npy(9, 10, b"{}"))], &["v9.npy", "format version 9"]);
    // A shape whose byte count overflows, and one that disagrees with the data.
    let dict = |shape: &str| {
        let mut d = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + d.len() + 1) % 64 != 0 {
            d.push(' ');
        }
        d.push('\n');
        d
    };
    let h = dict("(4294967296, 4294967296)");
    let mut f = npy(1, h.len() as u32, h.as_bytes());
    f.extend_from_slice(&[0; 16]);
    fails_with(&["ratios", &write("overflow.npy", &f)], &["overflow.npy", "shape (4294967296, 4294967296) needs more than 2^64 bytes"]);
    let h = dict("(5,)");
    let mut f = npy(1, h.len() as u32, h.as_bytes());
    f.extend_from_slice(&[0; 16]);
    fails_with(&["ratios", &write("short.npy", &f)], &["short.npy", "data is 16 bytes but shape [5] of F32 needs 20"]);
}

/// Fuzzer finding (`fuzz/`, target `tensor_files`, 2026-12-01), kept byte for byte: a 333-byte
/// `.npy` whose header opens ~90 nested brackets made the header parser (npyz, pest grammar) run past libFuzzer's 10-s timeout.
/// It must now be refused at once.
#[test]
fn fuzz_regression_deeply_nested_npy_header_is_refused_fast() {
    const HEX: [&str; 7] = [
        "934e554d5059010074005b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b",
        "5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b7b",
        "272323232323232323232323232323233838383838383838383838383838383838383838383838383838383838383838",
        "382800383838383838383838384e6f6e6538383838383838383838383838603838383838380000000a00383838383838",
        "3838387368232323232323232323232323234d232323232323232323232323231e1e1e1e1e1e1e1e1e1e1e1e23232323",
        "232323232323232323232323232323232323232323232323ffffffffffffffffffffffffffffffffffff6c73ffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff0000934e554d00",
    ];
    let bytes: Vec<u8> = HEX.concat().as_bytes().chunks(2).map(|h| u8::from_str_radix(std::str::from_utf8(h).unwrap(), 16).unwrap()).collect();
    assert_eq!(bytes.len(), 333);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("nested.npy");
    std::fs::write(&path, &bytes).unwrap();
    let start = std::time::Instant::now();
    fails_with(&["ratios", path.to_str().unwrap()], &["nested.npy", "nests brackets deeper than 8 levels"]);
    assert!(start.elapsed().as_secs() < 5, "took {:?}", start.elapsed());
}

/// Every subcommand that takes a budget refuses 0 %, a negative budget, more than 100 %, NaN
/// and a non-number before it reads anything (a usage error, exit 2, naming the flag and the
/// value), and writes no output file; 100 % itself is a valid budget.
#[test]
fn budgets_outside_zero_to_one_hundred_percent_are_refused_on_every_subcommand() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sweep.json");
    let out = out.to_str().unwrap();
    for bad in ["0", "-0.2", "1.5", "NaN", "half"] {
        let (one, list) = (format!("--budget={bad}"), format!("--budgets=0.3,{bad}"));
        let cases: [Vec<&str>; 4] = [
            vec!["plan", "resnet50", &one],
            vec!["sweep", "--models", "resnet50", &list, "--out-json", out],
            vec!["sensitivity", "--models", "resnet50", &one],
            vec!["ablation", "--models", "resnet50", &one],
        ];
        for args in cases {
            let o = bin(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            let e = stderr(&o);
            assert!(e.contains("--budget") && e.contains(bad), "{args:?}: {e}");
            assert!(e.contains("(0, 1]") || e.contains("not a number"), "{args:?}: {e}");
        }
    }
    assert!(!Path::new(out).exists());
    let data = data_dir("").to_str().unwrap().to_owned();
    let o = bin(&["plan", "resnet50", "--data", &data, "--budget", "1", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["budget_fraction"], 1.0);
}

/// A valid platform file, to break one thing at a time.
const PLATFORM_TOML: &str = "name = \"C\"\nprecision = \"bf16_mixed\"\npeak_tflops = 100.0\nmath_efficiency = 0.5\n\
    memory_gb_per_s = 1000.0\nmemory_efficiency = 0.8\nlink_gb_per_s = 48.0\nengine_gb_per_s = 96.0\n";

/// Malformed platform files given to `plan` and `sweep`: syntax errors, a missing field, a wrong
/// type, a value out of range, in TOML and JSON. Each is exit 1 with the file and the field or
/// the problem named, and `sweep` writes none of its outputs.
#[test]
fn a_malformed_platform_file_is_named_with_its_field() {
    let tmp = tempfile::tempdir().unwrap();
    let data = data_dir("").to_str().unwrap().to_owned();
    let good = tmp.path().join("good.toml");
    std::fs::write(&good, PLATFORM_TOML).unwrap();
    let o = bin(&["plan", "resnet50", "--data", &data, "--platform", good.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "the unbroken file loads: {}", stderr(&o));
    let cases: [(&str, String, &[&str]); 6] = [
        ("syntax.toml", PLATFORM_TOML.replace("= 48.0", "= = 48.0"), &["malformed platform", "line 7"]),
        ("missing.toml", PLATFORM_TOML.replace("engine_gb_per_s = 96.0\n", ""), &["malformed platform", "engine_gb_per_s"]),
        ("type.toml", PLATFORM_TOML.replace("48.0", "\"fast\""), &["malformed platform", "invalid type"]),
        ("range.toml", PLATFORM_TOML.replace("link_gb_per_s = 48.0", "link_gb_per_s = -48.0"), &["link_gb_per_s = -48", "out of range"]),
        ("zero.toml", PLATFORM_TOML.replace("memory_efficiency = 0.8", "memory_efficiency = 0"), &["memory_efficiency = 0", "in (0, 1]"]),
        ("cut.json", "{\"name\": \"C\", \"peak_tflops\": ".to_string(), &["malformed platform", "EOF"]),
    ];
    let json_out = tmp.path().join("grid.json");
    let csv_out = tmp.path().join("grid.csv");
    for (name, text, needles) in cases {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap();
        let mut needles = needles.to_vec();
        needles.push(name);
        fails_with(&["plan", "resnet50", "--data", &data, "--platform", p], &needles);
        let platforms = format!("A,{p}");
        fails_with(
            &["sweep", "--data", &data, "--models", "resnet50", "--platforms", &platforms, "--out-json", json_out.to_str().unwrap(), "--out-csv", csv_out.to_str().unwrap()],
            &needles,
        );
        assert!(!json_out.exists() && !csv_out.exists(), "{name}: sweep wrote an output");
    }
}

/// The dump cases above through the program: `plan` and `ratios` on a dump directory whose trace
/// references an unknown tensor, whose trace is another model's, or whose stored tensor has the
/// wrong dtype exit 1 with the file and the problem named.
#[test]
fn broken_dumps_fail_the_program_with_the_file_named() {
    let (_tmp, dir) = dump_copy();
    edit_json(&dir.join("trace.json"), |v| v["ops"][1]["inputs"][0] = 987_654_321u64.into());
    let d = dir.to_str().unwrap();
    fails_with(&["plan", d], &["trace.json", "op 1 references tensor 987654321"]);
    fails_with(&["ratios", d], &["trace.json", "op 1 references tensor 987654321"]);
    let (_tmp, dir) = dump_copy();
    std::fs::write(dir.join("trace.json"), trace_text(&data_dir("minilm"), "trace.json")).unwrap();
    fails_with(&["plan", dir.to_str().unwrap()], &["metadata.json", "\"resnet50\"", "\"minilm\""]);
}
