//! Helpers shared by the harness's integration tests: the committed `data/` and editable copies
//! of its model directories.

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};

/// The committed sample, `data/`.
pub fn data_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data")
}

/// One model's directory under `data/`.
pub fn data_dir(model: &str) -> PathBuf {
    data_root().join(model)
}

/// The text of trace `name` (`trace.json`, `trace-train.json`) of the dump in `dir`, plain or
/// gzipped as `data/` stores it.
pub fn trace_text(dir: &Path, name: &str) -> String {
    let path = sim_harness::dump::trace_path(dir, name);
    planner::trace::read_trace_text(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Copies the model directory `from` into `to` (created), writing gzipped traces out as plain
/// `trace.json` / `trace-train.json` so that a test can edit them as text.
pub fn copy_model_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        match name.strip_suffix(".gz") {
            Some(plain) => std::fs::write(to.join(plain), trace_text(from, plain)).unwrap(),
            None => {
                std::fs::copy(&p, to.join(&name)).unwrap();
            }
        }
    }
}
