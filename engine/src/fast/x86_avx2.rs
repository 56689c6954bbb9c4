//! The AVX2 entry points of the decoder and encoder (x86-64 with AVX2, BMI1/2, POPCNT, LZCNT):
//! the codec's per-block code compiled with those features enabled, for CPUs without the
//! AVX-512 VBMI / GFNI of [`super::x86`] (AMD Zen 2/3, older Intel cores).
//!
//! Safety: an [`Avx2`] value is a proof that the CPU has the features (only [`Avx2::detect`]
//! makes one, after `is_x86_feature_detected!`); every `unsafe` block below is a call of a
//! `#[target_feature]` function justified by that proof.

use super::decode::{self, Fault};
use super::encode;
use super::kernels::Portable;
use crate::golden::width::SymbolWidth;

/// Proof that this CPU has AVX2, BMI1, BMI2, POPCNT and LZCNT: only [`Avx2::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2 {
    _detected: (),
}

impl Avx2 {
    /// The proof, if this CPU has the features.
    pub(crate) fn detect() -> Option<Avx2> {
        let ok = is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("lzcnt");
        ok.then_some(Avx2 { _detected: () })
    }

    /// [`decode::decode_into_with`] on this build.
    pub(crate) fn decode_into(self, stream: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), Fault> {
        // SAFETY: `self` proves the features of `decode_avx2` (see `detect`).
        unsafe { decode_avx2(stream, dst, width) }
    }

    /// [`encode::encode_stream_into_with`] on this build.
    pub(crate) fn encode_into(self, path: super::Path, data: &[u8], width: SymbolWidth, out: &mut Vec<u8>) {
        // SAFETY: as above.
        unsafe { encode_avx2(path, data, width, out) }
    }
}

/// The decoder with every kernel inlined in AVX2 code.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
fn decode_avx2(stream: &[u8], dst: &mut [u8], width: SymbolWidth) -> Result<(), Fault> {
    decode::decode_into_generic(Portable, stream, dst, width)
}

/// The encoder's bit writing with every kernel inlined in AVX2 code.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
fn encode_avx2(path: super::Path, data: &[u8], width: SymbolWidth, out: &mut Vec<u8>) {
    encode::encode_into_generic(Portable, path, data, width, out)
}
