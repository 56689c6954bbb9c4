//! Reader tests: every model of the committed `data/` sample, a freshly captured tiny dump, the
//! full dumps in the cache when present, and malformed inputs.

use std::path::{Path, PathBuf};
use std::process::Command;

use planner::trace::{Dtype, TensorKind};
use sim_harness::dump::{cache_root, open_all, Dump, DumpError, CHUNK_BYTES};

const MODELS: [&str; 7] =
    ["densenet121", "efficientnet_b0", "efficientnet_lite0", "gpt2", "minilm", "resnet50", "vit_b16"];

mod common;
use common::{copy_model_dir, data_root as data_dir};

fn f32s(bytes: &[u8]) -> impl Iterator<Item = f32> + '_ {
    bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[test]
fn data_sample_holds_every_model_and_loads_completely() {
    let dumps = open_all(&data_dir()).expect("data/ loads");
    let names: Vec<&str> = dumps.iter().map(|d| d.metadata.model.as_str()).collect();
    for m in MODELS {
        assert!(names.contains(&m), "data/ lacks model {m} (has {names:?})");
    }
    for d in &dumps {
        assert!(d.is_sample(), "{}: data/ must hold samples", d.dir.display());
        assert_eq!(d.iterations(), 3);
        assert_eq!(d.train_trace.device, "meta");
        assert_eq!(d.trace.device, "cpu");
        assert!(d.train_trace.batch > d.trace.batch);
        assert!(!d.metadata.data_stand_in.is_empty());
        let iters: Vec<_> = (0..3).map(|k| d.read_iteration(k).expect("iteration loads")).collect();
        assert_eq!(iters[0].len(), d.saved().len());
        let mut differs = false;
        for (a, b) in iters[0].iter().zip(&iters[1]) {
            assert_eq!(a.signature, b.signature);
            assert_eq!(a.offsets, b.offsets, "{}: offsets differ across iterations", a.signature);
            differs |= a.data != b.data;
            for (off, chunk) in a.chunks() {
                assert!(off % CHUNK_BYTES == 0 && off + chunk.len() as u64 <= a.tensor_bytes);
            }
        }
        assert!(differs, "{}: iterations 0 and 1 are identical; optimizer updates must change activations", d.metadata.model);
    }
}

#[test]
fn relu_outputs_in_the_sample_contain_zeros_and_no_negatives() {
    for model in ["resnet50", "densenet121", "efficientnet_lite0"] {
        let d = Dump::open(data_dir().join(model)).unwrap();
        let relu: Vec<_> = d
            .trace
            .tensors
            .iter()
            .filter(|t| t.kind == TensorKind::SavedActivation)
            .filter(|t| matches!(t.producer_op_type.as_deref(), Some("relu") | Some("hardtanh")))
            .filter_map(|t| t.producer)
            .collect();
        assert!(!relu.is_empty(), "{model}: no saved ReLU outputs");
        let blocks = d.read_iteration(0).unwrap();
        let (mut zeros, mut total) = (0usize, 0usize);
        for b in blocks.iter().filter(|b| relu.contains(&b.signature)) {
            assert_eq!(b.dtype, Dtype::F32);
            for x in f32s(&b.data) {
                assert!(x >= 0.0, "{model} {}: negative ReLU output {x}", b.signature);
                zeros += (x == 0.0) as usize;
                total += 1;
            }
        }
        let frac = zeros as f64 / total as f64;
        assert!(frac > 0.05 && frac < 0.99, "{model}: ReLU zero fraction {frac}");
    }
}

#[test]
fn training_traces_map_onto_the_captured_tensors() {
    for d in open_all(&data_dir()).unwrap() {
        let m = &d.metadata.matching;
        assert!(m.unmatched_saved_bytes_share < 0.10, "{}: {}", d.metadata.model, m.unmatched_saved_bytes_share);
        assert!(!m.map.is_empty());
    }
}

/// Runs the Python capture tool on its tiny CNN. Needs the venv of `capture/ci.sh`; without it
/// the test says so and passes, unless `PLANEZIP_REQUIRE_CAPTURE=1` (set by CI after ci.sh).
#[test]
fn freshly_captured_tiny_dump_loads() {
    let venv = std::env::var_os("PLANEZIP_VENV").map(PathBuf::from).or_else(|| {
        std::env::var_os("PLANEZIP_CACHE")
            .map(|c| PathBuf::from(c).join("venv"))
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/planezip/venv")))
    });
    let python = venv.map(|v| v.join("bin/python")).filter(|p| p.is_file());
    let Some(python) = python else {
        assert!(std::env::var_os("PLANEZIP_REQUIRE_CAPTURE").is_none(), "capture venv missing");
        eprintln!("freshly_captured_tiny_dump_loads: no capture venv; skipped (run capture/ci.sh)");
        return;
    };
    let out = std::env::temp_dir().join(format!("planezip-tiny-{}", std::process::id()));
    let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../capture");
    let status = Command::new(&python)
        .args(["-m", "capture", "tiny_cnn", "--steps", "2", "--out"])
        .arg(&out)
        .env("PYTHONPATH", &capture)
        .env("HF_HUB_OFFLINE", "1")
        .status()
        .expect("python runs");
    assert!(status.success(), "capture failed");
    let d = Dump::open(&out).unwrap();
    assert!(!d.is_sample());
    assert_eq!(d.saved().len(), 11);
    let blocks = d.read_iteration(2).unwrap();
    for b in &blocks {
        assert_eq!(b.data.len() as u64, b.tensor_bytes, "full dump keeps whole tensors");
    }
    let mask = blocks.iter().find(|b| b.dtype == Dtype::Bool).expect("dropout mask saved");
    assert!(mask.data.iter().all(|&x| x <= 1) && mask.data.contains(&1));

    // The sampler on this dump (version 2, gzipped traces), read back by the Rust reader: at a
    // budget that holds everything the sample is the full dump and sample-check finds no error;
    // at a small one every kept chunk equals the full tensor's bytes at its offset.
    let sample = |budget_mib: &str| -> Dump {
        let root = out.with_file_name(format!("{}-sample-{budget_mib}", out.file_name().unwrap().to_string_lossy()));
        let status = Command::new(&python)
            .args(["-m", "capture.sample", "--budget-mb", budget_mib, "--dumps"])
            .arg(out.parent().unwrap())
            .arg("--out")
            .arg(&root)
            .arg(out.file_name().unwrap())
            .env("PYTHONPATH", &capture)
            .status()
            .expect("python runs");
        assert!(status.success(), "sampler failed");
        let dir = root.join(out.file_name().unwrap());
        assert!(dir.join("trace.json.gz").is_file() && !dir.join("trace.json").exists());
        Dump::open(&dir).unwrap()
    };
    let whole = sample("100");
    assert_eq!(whole.sample.as_ref().unwrap().version, 2);
    let check = sim_harness::sample_check::check_model(&whole, &d, 0.0).unwrap();
    for r in &check.ratios {
        assert!(r.error_pct == 0.0 && r.within, "a whole sample is its full dump: {r:?}");
    }
    assert_eq!(check.table4_sample.error_pct, check.table4_full.error_pct);
    let small = sample("0.3");
    let full_chunks: usize = blocks.iter().map(|b| b.offsets.len()).sum();
    let mut kept = 0;
    for k in 0..3 {
        let full = d.read_iteration(k).unwrap();
        for (fb, sb) in full.iter().zip(small.read_iteration(k).unwrap()) {
            assert_eq!(fb.signature, sb.signature);
            for (off, chunk) in sb.chunks() {
                assert_eq!(chunk, &fb.data[off as usize..off as usize + chunk.len()], "{} @ {off}", sb.signature);
                kept += 1;
            }
        }
    }
    assert!(kept > 0 && kept < 3 * full_chunks, "the small budget samples ({kept} of {} chunks)", 3 * full_chunks);
    for dir in [out.clone(), whole.dir.parent().unwrap().to_owned(), small.dir.parent().unwrap().to_owned()] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// Compares the sample against the full dumps in the cache, when they are there.
#[test]
fn sample_chunks_equal_the_full_dump_in_the_cache() {
    let Some(root) = cache_root().filter(|r| r.is_dir()) else {
        eprintln!("sample_chunks_equal_the_full_dump_in_the_cache: no dump cache; skipped");
        return;
    };
    let mut compared = 0;
    for m in ["efficientnet_lite0", "resnet50"] {
        if !root.join(m).join("iter2.safetensors").is_file() {
            continue;
        }
        eprintln!("reading full dump {}", root.join(m).display());
        let full = Dump::open(root.join(m)).unwrap();
        let sample = Dump::open(data_dir().join(m)).unwrap();
        let (f, s) = (full.read_iteration(2).unwrap(), sample.read_iteration(2).unwrap());
        for (fb, sb) in f.iter().zip(&s) {
            assert_eq!(fb.signature, sb.signature);
            for (off, chunk) in sb.chunks() {
                let o = off as usize;
                assert_eq!(chunk, &fb.data[o..o + chunk.len()], "{m} {} @ {off}", sb.signature);
            }
        }
        compared += 1;
    }
    eprintln!("compared {compared} full dumps with data/");
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planezip-bad-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_model_dir(&data_dir().join("efficientnet_lite0"), &dir);
    dir
}

fn error_text(r: Result<impl std::fmt::Debug, DumpError>) -> String {
    r.expect_err("malformed input must be an error").to_string()
}

#[test]
fn malformed_dumps_are_errors_naming_file_and_problem() {
    // truncated tensor file
    let dir = scratch("trunc");
    let f = dir.join("iter1.safetensors");
    let bytes = std::fs::read(&f).unwrap();
    std::fs::write(&f, &bytes[..bytes.len() / 2]).unwrap();
    let d = Dump::open(&dir).unwrap();
    let e = error_text(d.read_iteration(1));
    assert!(e.contains("iter1.safetensors") && e.contains("invalid safetensors"), "{e}");
    assert!(d.read_iteration(0).is_ok());
    let e = error_text(d.read_iteration(3));
    assert!(e.contains("out of range"), "{e}");

    // sample index disagrees with the trace
    let dir = scratch("index");
    let p = dir.join("sample.json");
    let text = std::fs::read_to_string(&p).unwrap().replacen("\"offsets\": [0", "\"offsets\": [7", 1);
    std::fs::write(&p, text).unwrap();
    let e = error_text(Dump::open(&dir));
    assert!(e.contains("sample.json") && e.contains("offset 7"), "{e}");

    // broken JSON and a missing trace
    let dir = scratch("json");
    std::fs::write(dir.join("metadata.json"), "{\"dump_version\": 1, ").unwrap();
    let e = error_text(Dump::open(&dir));
    assert!(e.contains("metadata.json") && e.contains("invalid JSON"), "{e}");
    std::fs::remove_file(dir.join("trace-train.json")).unwrap();
    let e = error_text(Dump::open(&dir));
    assert!(e.contains("trace-train.json"), "{e}");

    // a missing iteration file
    let dir = scratch("missing");
    std::fs::remove_file(dir.join("iter2.safetensors")).unwrap();
    let e = error_text(Dump::open(&dir));
    assert!(e.contains("iter2.safetensors") && e.contains("missing"), "{e}");
    for n in ["trunc", "index", "json", "missing"] {
        let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("planezip-bad-{n}-{}", std::process::id())));
    }
}

#[test]
fn transformer_samples_hold_softmax_outputs_and_one_byte_dropout_masks() {
    for (model, layers, masks) in [("gpt2", 12, true), ("vit_b16", 12, false), ("minilm", 6, true)] {
        let d = Dump::open(data_dir().join(model)).unwrap();
        let saved_of = |op_type: &str| -> Vec<_> {
            d.trace
                .tensors
                .iter()
                .filter(|t| t.kind == TensorKind::SavedActivation && t.producer_op_type.as_deref() == Some(op_type))
                .collect()
        };
        assert_eq!(saved_of("_softmax").len(), layers, "{model}: one saved softmax per layer");
        assert!(d.trace.ops.iter().all(|o| !o.name.contains("scaled_dot_product")), "{model}: fused attention");
        let drop_masks: Vec<_> = saved_of("native_dropout").into_iter().filter(|t| t.dtype == Dtype::Bool).collect();
        assert_eq!(!drop_masks.is_empty(), masks, "{model}: dropout masks");
        for t in &drop_masks {
            assert_eq!(t.bytes, t.shape.iter().product::<u64>(), "{model}: mask is 1 byte per element");
        }
        assert!(d.trace.ops.iter().filter(|o| o.rng).all(|o| !o.replayable));
    }
}

/// PlaneZip ratio (raw bytes / wire bytes) of every saved chunk of the three committed iterations
/// of `model`, each 4-KB chunk encoded as its own stream by the golden encoder (chunks are what the
/// engine copies). `bf16`: float chunks first converted f32 → bf16 (RNE, the platform-B stand-in)
/// and coded with 16-bit symbols; other dtypes as stored.
fn planezip_ratio(model: &str, bf16: bool) -> f64 {
    use engine::golden::{SymbolWidth, encode_stream};
    let d = Dump::open(data_dir().join(model)).unwrap();
    let (mut raw, mut wire) = (0usize, 0usize);
    for k in 0..d.iterations() {
        for b in d.read_iteration(k).unwrap() {
            for (_, chunk) in b.chunks() {
                let (bytes, width) = match b.dtype {
                    Dtype::F32 if bf16 => (sim_harness::convert::f32_to_bf16_bytes(chunk), SymbolWidth::W16),
                    Dtype::F32 => (chunk.to_vec(), SymbolWidth::W32),
                    Dtype::Bf16 | Dtype::F16 => (chunk.to_vec(), SymbolWidth::W16),
                    _ => (chunk.to_vec(), SymbolWidth::W32),
                };
                raw += bytes.len();
                wire += encode_stream(&bytes, width).len();
            }
        }
    }
    raw as f64 / wire as f64
}

/// Per-model PlaneZip ratios on `data/`, pinned at ±3 % around the values the golden encoder gave
/// when they were pinned (2026-12-02, on the version-2 sample of issue 13): a regression pin, not
/// an independent reference — a change of the codec or of the sample that moves a ratio by more
/// than 3 % fails here and must be explained. (model, fp32, bf16), ratio = raw bytes / wire bytes
/// of the sample's chunks, unweighted: the sampler puts more chunks where chunks differ most in
/// their zeros, so these sit above the whole-model ratios (`sim-harness sample-check` checks those
/// against the full dumps).
const PINNED_RATIOS: [(&str, f64, f64); 7] = [
    ("densenet121", 1.7082, 2.1323),
    ("efficientnet_b0", 1.1511, 1.4062),
    ("efficientnet_lite0", 1.4957, 1.8544),
    ("gpt2", 1.6798, 2.0816),
    ("minilm", 1.2745, 1.6199),
    ("resnet50", 1.6273, 2.0119),
    ("vit_b16", 1.1564, 1.4504),
];

/// Tolerance of the pinned ratios: floor = pinned × 0.97, ceiling = pinned × 1.03.
const RATIO_TOLERANCE: f64 = 0.03;

#[test]
fn planezip_ratios_per_model_stay_within_their_pinned_floor_and_ceiling() {
    let mut report = String::new();
    let mut ok = true;
    for (model, fp32, bf16) in PINNED_RATIOS {
        for (precision, pinned, got) in [("fp32", fp32, planezip_ratio(model, false)), ("bf16", bf16, planezip_ratio(model, true))] {
            let inside = (got - pinned).abs() <= pinned * RATIO_TOLERANCE;
            ok &= inside;
            report += &format!("{model} {precision}: {got:.4}x (pinned {pinned:.4}x){}\n", if inside { "" } else { "  <-- outside ±3 %" });
        }
    }
    assert!(ok, "PlaneZip ratios on data/ moved:\n{report}");
}
