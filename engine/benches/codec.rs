//! Throughput of the codec's hot paths on one core, golden and fast side by side (the size model,
//! the encoder and the decoder also on each SIMD path, `fast-portable` / `fast-avx2` / `fast-avx512`):
//! size model, encoder, decoder, in bytes of uncompressed tensor per second (wall clock; the CPU-time
//! figures of BENCHMARKS.md come from `examples/fast_cpu_throughput.rs`), plus the parallel
//! (`par_*`) fast paths on all cores. Inputs: 4 MiB of synthetic activation-like blocks per width
//! (`engine::synth`, every family mixed) and the F32 tensors of `data/*/iter0.safetensors` (w = 32)
//! with their bf16 RNE conversion (w = 16).
//!
//! Run: `cargo bench -p engine --bench codec`; smoke run: `cargo bench -p engine --bench codec -- --test`.

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use engine::fast;
use engine::golden::{self, BLOCK_BYTES, SymbolWidth};
use engine::synth::activation_block;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn synthetic(width: SymbolWidth) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    (0..(4 << 20) / BLOCK_BYTES).flat_map(|_| activation_block(&mut rng, width)).collect()
}

/// F32 tensor bytes of every model's first dumped iteration, and their bf16 conversion.
fn real() -> (Vec<u8>, Vec<u8>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut models: Vec<_> = std::fs::read_dir(&root).expect("data/").map(|e| e.unwrap().path()).collect();
    models.sort();
    let mut f32s = Vec::new();
    for model in models {
        let Ok(bytes) = std::fs::read(model.join("iter0.safetensors")) else { continue };
        let st = safetensors::SafeTensors::deserialize(&bytes).expect("valid dump");
        for (_, v) in st.tensors() {
            if v.dtype() == safetensors::Dtype::F32 {
                f32s.extend_from_slice(v.data());
            }
        }
    }
    f32s.truncate(f32s.len() / BLOCK_BYTES * BLOCK_BYTES);
    let bf16s = f32s.chunks_exact(4).flat_map(|c| half::bf16::from_f32(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_bits().to_le_bytes()).collect();
    (f32s, bf16s)
}

fn inputs() -> Vec<(String, SymbolWidth, Vec<u8>)> {
    let (f32s, bf16s) = real();
    vec![
        ("synthetic-w16".to_string(), SymbolWidth::W16, synthetic(SymbolWidth::W16)),
        ("synthetic-w32".to_string(), SymbolWidth::W32, synthetic(SymbolWidth::W32)),
        ("real-bf16-w16".to_string(), SymbolWidth::W16, bf16s),
        ("real-f32-w32".to_string(), SymbolWidth::W32, f32s),
    ]
}

fn codec(c: &mut Criterion) {
    let inputs = inputs();
    for op in ["size_model", "encode", "decode"] {
        let mut g = c.benchmark_group(op);
        g.sample_size(10);
        for (name, width, data) in &inputs {
            let w = *width;
            g.throughput(Throughput::Bytes(data.len() as u64));
            let stream = golden::encode_stream(data, w);
            // The size model, the encoder (which batches it) and the decoder (the AVX-512
            // kernels on `avx512`, the portable ones otherwise) on each SIMD path this CPU has.
            for path in fast::Path::available() {
                let id = BenchmarkId::new(format!("fast-{}", path.name()), name);
                match op {
                    "size_model" => g.bench_function(id, |b| b.iter(|| fast::blocks_sizes_with(path, black_box(data), w).iter().map(|s| s.choice().1 as u64).sum::<u64>())),
                    "encode" => g.bench_function(id, |b| b.iter(|| fast::encode_stream_with(path, black_box(data), w))),
                    _ => g.bench_function(id, |b| b.iter(|| fast::decode_stream_with(path, black_box(&stream), data.len(), w).unwrap())),
                };
            }
            for path in ["golden", "fast", "par"] {
                let id = BenchmarkId::new(path, name);
                match (op, path) {
                    ("size_model", "golden") => g.bench_function(id, |b| {
                        b.iter(|| data.chunks_exact(BLOCK_BYTES).map(|blk| golden::block_sizes(blk.try_into().unwrap(), w).choice().1 as u64).sum::<u64>())
                    }),
                    ("size_model", "fast") => g.bench_function(id, |b| b.iter(|| fast::blocks_sizes(black_box(data), w).iter().map(|s| s.choice().1 as u64).sum::<u64>())),
                    ("size_model", _) => g.bench_function(id, |b| b.iter(|| fast::par_blocks_sizes(black_box(data), w).iter().map(|s| s.choice().1 as u64).sum::<u64>())),
                    ("encode", "golden") => g.bench_function(id, |b| b.iter(|| golden::encode_stream(black_box(data), w))),
                    ("encode", "fast") => g.bench_function(id, |b| b.iter(|| fast::encode_stream(black_box(data), w))),
                    ("encode", _) => g.bench_function(id, |b| b.iter(|| fast::par_encode_stream(black_box(data), w))),
                    (_, "golden") => g.bench_function(id, |b| b.iter(|| golden::decode_stream(black_box(&stream), data.len(), w).unwrap())),
                    (_, "fast") => g.bench_function(id, |b| b.iter(|| fast::decode_stream(black_box(&stream), data.len(), w).unwrap())),
                    _ => g.bench_function(id, |b| b.iter(|| fast::par_decode_stream(black_box(&stream), data.len(), w).unwrap())),
                };
            }
        }
        g.finish();
    }
}

criterion_group!(benches, codec);
criterion_main!(benches);
