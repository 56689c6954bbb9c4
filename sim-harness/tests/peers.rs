//! `sim-harness peers` on real dumps of `data/`: every codec row present with finite figures,
//! PlaneZip's and zstd's ratios equal to ones computed here independently (golden encoder, the
//! zstd crate), the levels flag honoured, the ZipNN package column "not run" (and, given
//! `zipnn_peer.py`'s figures, rows carrying them), and bad input
//! refused with the file named.

use engine::golden::{SymbolWidth, encode_stream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sim-harness")).args(args).output().expect("runs")
}

fn dump(model: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data").join(model).join("iter0.safetensors")
}

/// The F32 tensors of a dump, and their bf16 RNE conversions.
fn tensors(path: &Path) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let bytes = std::fs::read(path).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let f32s: Vec<Vec<u8>> = st.tensors().into_iter().filter(|(_, v)| v.dtype() == safetensors::Dtype::F32).map(|(_, v)| v.data().to_vec()).collect();
    let bf16s = f32s.iter().map(|t| t.chunks_exact(4).flat_map(|c| half::bf16::from_f32(f32::from_le_bytes(c.try_into().unwrap())).to_bits().to_le_bytes()).collect()).collect();
    (f32s, bf16s)
}

fn ratio(ts: &[Vec<u8>], wire: impl Fn(&[u8]) -> usize) -> f64 {
    ts.iter().map(Vec::len).sum::<usize>() as f64 / ts.iter().map(|t| wire(t)).sum::<usize>() as f64
}

#[test]
fn peers_report_every_codec_with_independently_checked_ratios() {
    let (resnet, gpt2) = (dump("resnet50"), dump("gpt2"));
    let o = bin(&["peers", resnet.to_str().unwrap(), gpt2.to_str().unwrap(), "--zstd-levels", "1", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let find = |codec: &str, gran: &str| rows.iter().find(|r| r["codec"] == codec && r["granularity"] == gran).unwrap_or_else(|| panic!("no row {codec} / {gran}"));

    for (codec, gran) in [
        ("PlaneZip", "4 KB chunk"),
        ("ZVC (cDMA)", "4 KB chunk"),
        ("DBX (BPC)", "4 KB chunk"),
        ("BX", "4 KB chunk"),
        ("ZBX", "4 KB chunk"),
        ("zstd-1", "4 KB chunk"),
        ("zstd-1", "whole tensor"),
        ("lz4", "4 KB chunk"),
        ("lz4", "whole tensor"),
        ("shuffle + zstd-3", "4 KB chunk"),
        ("shuffle + lz4", "4 KB chunk"),
        ("byte-split + zstd-3", "4 KB chunk"),
        ("byte-split + lz4", "4 KB chunk"),
        ("ZipNN-style exponent grouping + ANS", "4 KB chunk"),
        ("ZipNN-style exponent grouping + ANS", "whole tensor"),
        ("BDI", "128 B block"),
    ] {
        let row = find(codec, gran);
        for f in ["bf16", "fp32"] {
            for m in ["resnet50", "gpt2"] {
                let r = row[f]["ratio_by_model"][m].as_f64().unwrap();
                assert!(r > 0.9 && r < 100.0, "{codec} {gran} {f} {m}: ratio {r}");
            }
            assert!(row[f]["geomean_paper"].as_f64().is_some(), "{codec}: both models are the paper's");
            assert!(row[f]["compress_gbps"].as_f64().unwrap() > 0.0 && row[f]["decompress_gbps"].as_f64().unwrap() > 0.0, "{codec} {gran} {f}: speeds");
        }
    }
    // Only the requested zstd level ran.
    assert!(rows.iter().all(|r| !r["codec"].as_str().unwrap().starts_with("zstd-19")));
    // The ceilings have ratios but no speeds.
    let ceiling = find("order-0 entropy of symbols", "whole tensor");
    assert!(ceiling["fp32"]["compress_gbps"].is_null() && ceiling["fp32"]["geomean_all"].as_f64().unwrap() > 1.0);
    assert!(v["zipnn_package"].as_str().unwrap().starts_with("not run"));

    // PlaneZip and zstd-1 over whole tensors, recomputed here.
    for (model, path) in [("resnet50", &resnet), ("gpt2", &gpt2)] {
        let (f32s, bf16s) = tensors(path);
        for (f, ts, width) in [("fp32", &f32s, SymbolWidth::W32), ("bf16", &bf16s, SymbolWidth::W16)] {
            let want = ratio(ts, |t| encode_stream(t, width).len());
            let got = find("PlaneZip", "4 KB chunk")[f]["ratio_by_model"][model].as_f64().unwrap();
            assert!((got - want).abs() < 1e-9, "PlaneZip {model} {f}: {got} vs {want}");
            let want = ratio(ts, |t| zstd::bulk::compress(t, 1).unwrap().len().min(t.len()));
            let got = find("zstd-1", "whole tensor")[f]["ratio_by_model"][model].as_f64().unwrap();
            assert!((got - want).abs() < 1e-9, "zstd-1 {model} {f}: {got} vs {want}");
        }
    }
}

#[test]
fn peers_refuses_a_missing_file_naming_it() {
    let o = bin(&["peers", "/nonexistent/x.safetensors"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/x.safetensors"));
}

#[test]
fn zipnn_figures_from_the_python_runner_become_rows_and_a_bad_file_is_named() {
    // A file in zipnn_peer.py's format with figures written by hand: the rows must carry them.
    let dir = std::env::temp_dir().join(format!("planezip-peers-zipnn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("zipnn.json");
    let fmt = |r: f64, c: f64| format!(r#"{{"ratio_per_model": {{"resnet50": {r}}}, "geomean_paper": {r}, "geomean_all": {r}, "compress_gbps": {c}, "decompress_gbps": {}}}"#, 2.0 * c);
    std::fs::write(&good, format!(r#"{{"package": "zipnn 0.5.4", "granularities": {{"4 KB chunk": {{"bf16": {}, "fp32": {}}}}}}}"#, fmt(1.5, 0.25), fmt(1.25, 0.5))).unwrap();
    let resnet = dump("resnet50");
    let o = bin(&["peers", resnet.to_str().unwrap(), "--zstd-levels", "1", "--json", "--zipnn-json", good.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = v["rows"].as_array().unwrap().iter().find(|r| r["codec"] == "ZipNN package (zipnn 0.5.4)").expect("a ZipNN package row");
    assert_eq!(row["granularity"], "4 KB chunk");
    assert_eq!(row["bf16"]["ratio_by_model"]["resnet50"].as_f64(), Some(1.5));
    assert_eq!(row["fp32"]["geomean_all"].as_f64(), Some(1.25));
    assert_eq!(row["fp32"]["compress_gbps"].as_f64(), Some(0.5));
    assert_eq!(row["bf16"]["decompress_gbps"].as_f64(), Some(0.5));
    assert!(v["zipnn_package"].as_str().unwrap().starts_with("zipnn 0.5.4, measured"));

    // A file without the figures: an error naming it, not a panic.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"package": "zipnn 0.5.4"}"#).unwrap();
    let o = bin(&["peers", resnet.to_str().unwrap(), "--zstd-levels", "1", "--zipnn-json", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("bad.json") && err.contains("granularities") && !err.contains("panicked"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
