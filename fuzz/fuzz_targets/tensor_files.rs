//! The `.safetensors` and `.npy` readers users feed their files to never panic (and never allocate
//! what a header merely claims). Byte 0 picks the reader; the rest is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use engine::tensor_files::{from_npy, from_safetensors};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let [which, file @ ..] = data else { return };
    let path = Path::new("fuzz-input");
    if which & 1 == 0 {
        if let Ok(ts) = from_safetensors(path, file) {
            assert!(ts.iter().map(|t| t.bytes.len()).sum::<usize>() <= file.len());
        }
    } else if let Ok(t) = from_npy(path, file) {
        assert!(t.bytes.len() <= file.len());
    }
});
