//! Codec throughput per second of **thread CPU time** on one core — the load-independent
//! companion of the criterion bench (`cargo bench -p engine --bench codec`), for machines shared
//! with other jobs, where wall-clock time understates single-core speed.
//!
//! Run: `cargo run --release -p engine --example codec_cpu_throughput` (figures in BENCHMARKS.md).
//! Inputs: 4 MiB of synthetic activation-like blocks per width, and the real activations of
//! the f32 tensors of the committed sample `data/efficientnet_b0/iter0.safetensors` (f32, w = 32;
//! bf16 RNE, w = 16).

use cpu_time::ThreadTime;
use engine::golden::{BLOCK_BYTES, SymbolWidth, block_sizes, decode_stream, encode_stream};
use engine::synth::activation_block;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// Repeats `f` until it has used at least 2 s of thread CPU time; returns bytes per CPU second.
fn rate(bytes: usize, mut f: impl FnMut() -> usize) -> f64 {
    let start = ThreadTime::now();
    let mut reps = 0usize;
    while start.elapsed().as_secs_f64() < 2.0 {
        black_box(f());
        reps += 1;
    }
    (bytes * reps) as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let mut inputs: Vec<(String, SymbolWidth, Vec<u8>)> = [SymbolWidth::W16, SymbolWidth::W32]
        .into_iter()
        .map(|w| {
            let mut rng = ChaCha8Rng::seed_from_u64(42);
            (format!("synthetic-w{}", w.bits()), w, (0..(4 << 20) / BLOCK_BYTES).flat_map(|_| activation_block(&mut rng, w)).collect())
        })
        .collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/efficientnet_b0/iter0.safetensors");
    let file = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let st = safetensors::SafeTensors::deserialize(&file).expect("valid sample");
    let mut tensors = st.tensors();
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    let f32s: Vec<u8> = tensors.into_iter().filter(|(_, v)| v.dtype() == safetensors::Dtype::F32).flat_map(|(_, v)| v.data().to_vec()).collect();
    let bf16s = f32s.chunks_exact(4).flat_map(|c| half::bf16::from_f32(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_bits().to_le_bytes()).collect();
    inputs.push(("real-f32-w32".into(), SymbolWidth::W32, f32s));
    inputs.push(("real-bf16-w16".into(), SymbolWidth::W16, bf16s));
    println!("{:<16} {:>12} {:>18} {:>14} {:>14}", "input", "MiB", "size model GB/s", "encode GB/s", "decode GB/s");
    for (name, w, data) in &inputs {
        let stream = encode_stream(data, *w);
        let size = rate(data.len(), || data.chunks_exact(BLOCK_BYTES).map(|b| block_sizes(b.try_into().unwrap(), *w).choice().1 as usize).sum());
        let enc = rate(data.len(), || encode_stream(data, *w).len());
        let dec = rate(data.len(), || decode_stream(&stream, data.len(), *w).unwrap().len());
        println!("{:<16} {:>12.1} {:>18.3} {:>14.3} {:>14.3}", name, data.len() as f64 / (1 << 20) as f64, size / 1e9, enc / 1e9, dec / 1e9);
    }
    println!("(GB = 10^9 bytes of uncompressed tensor per second of thread CPU time, one core)");
}
