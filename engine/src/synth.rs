//! Synthetic blocks that look like training activations, for property tests, the shared test
//! vectors and the benchmarks. Real activations live in `data/`; these generators exist so that
//! tests can draw millions of *structured* blocks (ReLU zeros, shared exponents, smooth ramps,
//! masks, indices, special floats) rather than only uniform random bytes.

use crate::golden::{BLOCK_BYTES, SymbolWidth};
use half::{bf16, f16};
use rand::Rng;
use rand::seq::SliceRandom;

/// The families of value patterns [`activation_block`] draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Dense Gaussian values with a random scale (conv/linear/norm outputs).
    Gaussian,
    /// ReLU of a Gaussian: zeros interleaved with positives of similar magnitude.
    Relu,
    /// Attention probabilities under a causal mask: a run of zeros, then small positives.
    CausalSoftmax,
    /// Dropout output: survivors scaled by 1/(1-p), the rest zero.
    Dropout,
    /// A smooth ramp `a + b·i`.
    Ramp,
    /// One shared exponent, random mantissas and signs.
    SharedExponent,
    /// Alternating signs of similar magnitudes.
    AlternatingSigns,
    /// 1-byte masks (0/1) as stored by dropout, read with the block's symbol width.
    ByteMask,
    /// Small ascending 64-bit integers (max-pool indices) read with the block's symbol width.
    Indices,
    /// Special floats: ±0, ±Inf, NaNs with payloads, subnormals, max/min finite.
    Specials,
    /// Uniform random bytes (incompressible).
    RandomBytes,
}

impl Family {
    /// Every family, for generators that cycle through them.
    pub const ALL: [Family; 11] = [
        Family::Gaussian,
        Family::Relu,
        Family::CausalSoftmax,
        Family::Dropout,
        Family::Ramp,
        Family::SharedExponent,
        Family::AlternatingSigns,
        Family::ByteMask,
        Family::Indices,
        Family::Specials,
        Family::RandomBytes,
    ];
}

/// One block of a random family.
pub fn activation_block<R: Rng>(rng: &mut R, width: SymbolWidth) -> [u8; BLOCK_BYTES] {
    let family = *Family::ALL.choose(rng).expect("non-empty");
    family_block(rng, width, family)
}

/// One block of the given family. Float families are stored as f32 for 32-bit symbols and as
/// bf16 (three times in four) or f16 for 16-bit symbols.
pub fn family_block<R: Rng>(rng: &mut R, width: SymbolWidth, family: Family) -> [u8; BLOCK_BYTES] {
    let mut out = [0u8; BLOCK_BYTES];
    match family {
        Family::ByteMask => {
            let keep = rng.gen_range(0.05..0.95);
            for b in out.iter_mut() {
                *b = rng.gen_bool(keep) as u8;
            }
        }
        Family::Indices => {
            let mut v: i64 = rng.gen_range(0..1 << 20);
            for c in out.chunks_exact_mut(8) {
                c.copy_from_slice(&v.to_le_bytes());
                v += rng.gen_range(1..4);
            }
        }
        Family::RandomBytes => rng.fill(&mut out[..]),
        _ => {
            let n = width.symbols();
            let mut vals = [0f32; 64];
            float_values(rng, family, &mut vals[..n]);
            store_floats(rng, width, &vals[..n], &mut out);
        }
    }
    out
}

fn float_values<R: Rng>(rng: &mut R, family: Family, vals: &mut [f32]) {
    let scale = 10f32.powf(rng.gen_range(-4.0..2.0));
    let gauss = |rng: &mut R| -> f32 {
        // Box–Muller.
        let u1: f32 = rng.gen_range(f32::EPSILON..1.0);
        let u2: f32 = rng.r#gen();
        (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
    };
    let n = vals.len();
    match family {
        Family::Gaussian => vals.iter_mut().for_each(|v| *v = gauss(rng) * scale),
        Family::Relu => {
            let shift = rng.gen_range(-1.0..1.0);
            vals.iter_mut().for_each(|v| *v = ((gauss(rng) + shift) * scale).max(0.0));
        }
        Family::CausalSoftmax => {
            let zeros = rng.gen_range(0..=n);
            for (i, v) in vals.iter_mut().enumerate() {
                *v = if i < zeros { 0.0 } else { rng.gen_range(0.0f32..1.0).powi(3) / n as f32 };
            }
        }
        Family::Dropout => {
            let p = rng.gen_range(0.05..0.5);
            vals.iter_mut().for_each(|v| *v = if rng.gen_bool(p) { 0.0 } else { gauss(rng) * scale / (1.0 - p as f32) });
        }
        Family::Ramp => {
            let a = gauss(rng) * scale;
            let b = gauss(rng) * scale / 64.0;
            vals.iter_mut().enumerate().for_each(|(i, v)| *v = a + b * i as f32);
        }
        Family::SharedExponent => {
            let e = rng.gen_range(100u32..150) << 23;
            vals.iter_mut().for_each(|v| *v = f32::from_bits(e | rng.gen_range(0..1 << 23) | (rng.r#gen::<u32>() & 0x8000_0000)));
        }
        Family::AlternatingSigns => {
            vals.iter_mut().enumerate().for_each(|(i, v)| *v = (1.0 + 0.1 * gauss(rng)) * scale * if i % 2 == 0 { 1.0 } else { -1.0 });
        }
        Family::Specials => {
            let specials = [
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::from_bits(0x7FC0_0001),
                f32::from_bits(0xFFA0_0000),
                f32::from_bits(1),
                f32::from_bits(0x0000_FFFF),
                f32::MIN_POSITIVE,
                f32::MAX,
                f32::MIN,
                1.0,
            ];
            vals.iter_mut().for_each(|v| *v = *specials.choose(rng).expect("non-empty"));
        }
        Family::ByteMask | Family::Indices | Family::RandomBytes => unreachable!("integer families"),
    }
}

/// Stores floats as f32 (w = 32) or as bf16 / f16 (w = 16), keeping NaN payload bits where the
/// narrow type can hold them.
fn store_floats<R: Rng>(rng: &mut R, width: SymbolWidth, vals: &[f32], out: &mut [u8; BLOCK_BYTES]) {
    match width {
        SymbolWidth::W32 => vals.iter().zip(out.chunks_exact_mut(4)).for_each(|(v, c)| c.copy_from_slice(&v.to_le_bytes())),
        SymbolWidth::W16 => {
            let use_f16 = rng.gen_bool(0.25);
            for (v, c) in vals.iter().zip(out.chunks_exact_mut(2)) {
                let bits = if use_f16 { f16::from_f32(*v).to_bits() } else { bf16::from_f32(*v).to_bits() };
                c.copy_from_slice(&bits.to_le_bytes());
            }
        }
    }
}
