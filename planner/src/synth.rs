//! Seeded random training traces: a forward chain with skip connections, a
//! mirrored backward pass and an optimizer step. For property tests and benches.

use crate::trace::{Dtype, Phase, TensorId, TensorKind, Trace, TraceBuilder};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Shape of a random trace.
#[derive(Debug, Clone)]
pub struct SynthConfig {
    /// Forward ops (the backward pass has as many, the optimizer half as many).
    pub forward_ops: usize,
    /// Probability that a forward output is saved for the backward pass.
    pub save_probability: f64,
    /// Probability that a forward op also reads an earlier output (a skip connection).
    pub skip_probability: f64,
    /// How far back a skip connection may reach, in ops.
    pub max_skip: usize,
    /// Probability that a forward op draws random numbers (not replayable).
    pub rng_probability: f64,
    /// Smallest and largest activation size, bytes.
    pub activation_bytes: (u64, u64),
    /// Smallest and largest FLOPs of an op.
    pub flops: (u64, u64),
    /// Seed of the generator.
    pub seed: u64,
}

impl SynthConfig {
    /// The benchmark shape: 1,200 forward + 1,200 backward + 600 optimizer ops
    /// (3,000) with about 500 saved tensors.
    pub fn bench(seed: u64) -> Self {
        SynthConfig {
            forward_ops: 1_200,
            save_probability: 0.42,
            skip_probability: 0.2,
            max_skip: 8,
            rng_probability: 0.05,
            activation_bytes: (256 << 10, 16 << 20),
            flops: (1 << 20, 4 << 30),
            seed,
        }
    }

    /// A small trace of `forward_ops` forward ops for property tests.
    pub fn small(forward_ops: usize, seed: u64) -> Self {
        SynthConfig { forward_ops, save_probability: 0.5, max_skip: 4, ..SynthConfig::bench(seed) }
    }
}

/// Generates the trace described by `config`; the same config gives the same trace.
pub fn random_trace(config: &SynthConfig) -> Trace {
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut b = TraceBuilder::new(&format!("synth-{}", config.seed));
    let (lo, hi) = config.activation_bytes;
    let bytes = |rng: &mut ChaCha8Rng| rng.gen_range(lo / 4..=hi / 4) * 4;
    let flops = |rng: &mut ChaCha8Rng| rng.gen_range(config.flops.0..=config.flops.1);
    let x = b.tensor(bytes(&mut rng), TensorKind::Input);
    let n = config.forward_ops.max(1);
    let params: Vec<TensorId> = (0..n).map(|_| b.tensor(rng.gen_range(1024..65_536) * 4, TensorKind::Parameter)).collect();
    let mut outs: Vec<TensorId> = Vec::with_capacity(n);
    let mut saved = vec![false; n];
    for i in 0..n {
        let prev = if i == 0 { x } else { outs[i - 1] };
        let mut inputs = vec![prev, params[i]];
        if i >= 2 && rng.gen_bool(config.skip_probability) {
            let back = rng.gen_range(2..=config.max_skip.max(2).min(i));
            inputs.push(outs[i - back]);
        }
        let mut op = b.op(if i % 3 == 0 { "convolution" } else { "relu" }, Phase::Forward)
            .flops(flops(&mut rng))
            .reads(&inputs)
            .output(bytes(&mut rng));
        if rng.gen_bool(config.rng_probability) {
            op = op.rng();
        }
        outs.push(op.finish()[0]);
        saved[i] = rng.gen_bool(config.save_probability);
    }
    let mut grad = b.op("loss", Phase::Forward).reads(&[outs[n - 1]]).output(4).finish()[0];
    let mut pgrads = Vec::with_capacity(n);
    for i in (0..n).rev() {
        let mut inputs = vec![grad, params[i]];
        if saved[i] {
            inputs.push(outs[i]);
        }
        let grad_bytes = if i == 0 { 4 } else { bytes(&mut rng) };
        let o = b
            .op("backward", Phase::Backward)
            .flops(flops(&mut rng))
            .reads(&inputs)
            .output(grad_bytes)
            .output_as(1024, Dtype::F32, TensorKind::ParameterGradient)
            .finish();
        grad = o[0];
        pgrads.push(o[1]);
    }
    for pair in pgrads.chunks(2) {
        b.op("sgd", Phase::Optimizer).reads(pair).finish();
    }
    b.build().expect("the generator only builds valid traces")
}
