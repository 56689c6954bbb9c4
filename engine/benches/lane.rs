//! Simulation speed of the compressor lane's rust-hdl model, in simulated clock cycles per
//! second of wall time: 16 blocks of real-looking activations per width streamed back to back
//! (4 cycles per block plus the pipeline latency), a fresh lane per iteration (its reset cycle
//! included). Kept to a few dozen cycles so that the smoke run (`-- --test`) takes a second.
//!
//! Run: `cargo bench -p engine --bench lane`.

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use engine::golden::{BLOCK_BYTES, SymbolWidth};
use engine::hw::LaneSim;
use engine::synth::activation_block;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Blocks per simulated transfer run.
const BLOCKS: usize = 16;
/// Cycle limit for draining them (4 per block plus the latency, with room to spare).
const DRAIN_CYCLES: u64 = BLOCKS as u64 * 8 + 64;

/// Simulates `blocks` through a fresh lane; returns the cycles it took.
fn simulate(blocks: &[[u8; BLOCK_BYTES]], width: SymbolWidth) -> u64 {
    let mut sim = LaneSim::new();
    for (i, b) in blocks.iter().enumerate() {
        sim.queue_transfer(b, width, i as u8);
    }
    let out = sim.drain(DRAIN_CYCLES);
    assert_eq!(out.len(), blocks.len(), "the lane lost blocks");
    sim.cycle()
}

fn lane(c: &mut Criterion) {
    let mut g = c.benchmark_group("lane_sim_cycles");
    g.sample_size(10);
    for width in [SymbolWidth::W16, SymbolWidth::W32] {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let blocks: Vec<[u8; BLOCK_BYTES]> = (0..BLOCKS).map(|_| activation_block(&mut rng, width)).collect();
        g.throughput(Throughput::Elements(simulate(&blocks, width)));
        g.bench_with_input(BenchmarkId::new("rust-hdl", format!("w{}", width.bits())), &blocks, |b, blocks| b.iter(|| simulate(black_box(blocks), width)));
    }
    g.finish();
}

criterion_group!(benches, lane);
criterion_main!(benches);
