//! Throughput of the golden codec on one core: size model, encoder, decoder, in bytes of
//! uncompressed tensor per second. Inputs: 4 MiB of synthetic activation-like blocks
//! (`engine::synth`, every family mixed) per symbol width, and the real activations of
//! the f32 tensors of the committed sample `data/efficientnet_b0/iter0.safetensors` (f32 with
//! w = 32, and its bf16 RNE conversion with w = 16).
//!
//! Run: `cargo bench -p engine --bench codec` (results in BENCHMARKS.md).

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use engine::golden::{BLOCK_BYTES, SymbolWidth, block_sizes, decode_stream, encode_stream};
use engine::synth::activation_block;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn synthetic(width: SymbolWidth) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    (0..(4 << 20) / BLOCK_BYTES).flat_map(|_| activation_block(&mut rng, width)).collect()
}

fn real_sample() -> (Vec<u8>, Vec<u8>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/efficientnet_b0/iter0.safetensors");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let st = safetensors::SafeTensors::deserialize(&bytes).expect("valid sample");
    let mut tensors = st.tensors();
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    let f32s: Vec<u8> = tensors.into_iter().filter(|(_, v)| v.dtype() == safetensors::Dtype::F32).flat_map(|(_, v)| v.data().to_vec()).collect();
    let bf16s = f32s.chunks_exact(4).flat_map(|c| half::bf16::from_f32(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_bits().to_le_bytes()).collect();
    (f32s, bf16s)
}

fn inputs() -> Vec<(String, SymbolWidth, Vec<u8>)> {
    let mut v = vec![
        ("synthetic-w16".to_string(), SymbolWidth::W16, synthetic(SymbolWidth::W16)),
        ("synthetic-w32".to_string(), SymbolWidth::W32, synthetic(SymbolWidth::W32)),
    ];
    let (f32s, bf16s) = real_sample();
    v.push(("real-f32-w32".into(), SymbolWidth::W32, f32s));
    v.push(("real-bf16-w16".into(), SymbolWidth::W16, bf16s));
    v
}

fn codec(c: &mut Criterion) {
    let inputs = inputs();
    for (op, run) in [("size_model", 0), ("encode", 1), ("decode", 2)] {
        let mut g = c.benchmark_group(op);
        g.sample_size(10);
        for (name, width, data) in &inputs {
            g.throughput(Throughput::Bytes(data.len() as u64));
            let stream = encode_stream(data, *width);
            g.bench_with_input(BenchmarkId::from_parameter(name), data, |b, data| match run {
                0 => b.iter(|| {
                    data.chunks_exact(BLOCK_BYTES).map(|blk| block_sizes(blk.try_into().unwrap(), *width).choice().1 as u64).sum::<u64>()
                }),
                1 => b.iter(|| encode_stream(black_box(data), *width)),
                _ => b.iter(|| decode_stream(black_box(&stream), data.len(), *width).unwrap()),
            });
        }
        g.finish();
    }
}

criterion_group!(benches, codec);
criterion_main!(benches);
