//! The whole `peers` comparison (every codec, compress + decompress + round-trip check, both
//! formats) on one real dump, `data/resnet50/iter0.safetensors`, zstd level 1 only.
//!
//! Run: `cargo bench -p sim-harness --bench peers`; smoke run: `... --bench peers -- --test`.

use criterion::{Criterion, criterion_group, criterion_main};
use sim_harness::peers::{PeersArgs, report};

fn peers(c: &mut Criterion) {
    let args = PeersArgs {
        paths: vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/resnet50/iter0.safetensors")],
        zstd_levels: vec![1],
        json: false,
        zipnn_json: None,
    };
    let mut g = c.benchmark_group("peers");
    g.sample_size(10);
    g.bench_function("all-codecs/resnet50-iter0", |b| b.iter(|| report(&args).expect("peers run")));
    g.finish();
}

criterion_group!(benches, peers);
criterion_main!(benches);
