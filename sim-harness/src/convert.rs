//! Element-type conversions the measurements need.

use half::bf16;

/// Converts little-endian f32 bytes to little-endian bf16 bytes by round-to-nearest-even (the
/// paper's stand-in for BF16 mixed-precision training). NaNs stay NaNs (quiet).
pub fn f32_to_bf16_bytes(f32_bytes: &[u8]) -> Vec<u8> {
    f32_bytes
        .chunks_exact(4)
        .flat_map(|c| bf16::from_f32(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_bits().to_le_bytes())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_nearest_even() {
        // 1 + 2^-8 is exactly halfway between bf16 1.0 and 1.0078125: ties to even (1.0).
        let halfway = f32::from_bits(0x3F80_8000);
        // Just above halfway rounds up.
        let above = f32::from_bits(0x3F80_8001);
        // 1.0078125 + half an ulp: ties to even (0x3F82).
        let odd_tie = f32::from_bits(0x3F81_8000);
        let bytes: Vec<u8> = [halfway, above, odd_tie].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(f32_to_bf16_bytes(&bytes), vec![0x80, 0x3F, 0x81, 0x3F, 0x82, 0x3F]);
    }
}
