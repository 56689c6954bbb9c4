//! Which build of the batched fast paths runs: the portable SWAR code, or the same code compiled
//! for AVX2 (four blocks per 256-bit register) or AVX-512 (eight per 512-bit register), chosen at
//! run time by CPU feature detection. Every path computes the same function; the tests of
//! `engine/tests/fast.rs` run each available one explicitly against the golden spec.

/// One build of the batched fast paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Path {
    /// Plain 64-bit SWAR, any CPU.
    Portable,
    /// x86-64 with AVX2, BMI1/2, POPCNT and LZCNT: four blocks side by side in the size model,
    /// and the encoder and decoder compiled with those features (the portable kernels).
    Avx2,
    /// x86-64 with AVX-512 F/BW/VL/DQ/VPOPCNTDQ/VBMI/VBMI2, GFNI and BMI2: eight blocks side
    /// by side in the size model, and the encoder's and decoder's transposes, scatters and
    /// prefix sums in AVX-512 instructions (the other paths use the portable ones there).
    Avx512,
}

impl Path {
    /// Every path, slowest first.
    pub const ALL: [Path; 3] = [Path::Portable, Path::Avx2, Path::Avx512];

    /// True when this CPU can run the path.
    pub fn is_available(self) -> bool {
        match self {
            Path::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => super::x86_avx2::Avx2::detect().is_some(),
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => {
                Path::Avx2.is_available()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
                    && super::x86::Avx512::detect().is_some()
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The paths this CPU can run, slowest first.
    pub fn available() -> Vec<Path> {
        Path::ALL.into_iter().filter(|p| p.is_available()).collect()
    }

    /// The fastest path this CPU can run (what the functions without an explicit path use).
    pub fn detect() -> Path {
        static BEST: std::sync::OnceLock<Path> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| *Path::available().last().expect("the portable path is always available"))
    }

    /// Lower-case name, as the benches and `fast_cpu_throughput` print it.
    pub fn name(self) -> &'static str {
        match self {
            Path::Portable => "portable",
            Path::Avx2 => "avx2",
            Path::Avx512 => "avx512",
        }
    }
}
