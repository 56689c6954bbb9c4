//! DBX, BPC's delta-bitplane-XOR transform: the base symbol (first symbol) in the base code, then
//! the w + 1 bit-planes of the N − 1 deltas between neighbours, adjacent planes XORed
//! (FORMAT.md §4.2).
//!
//! Delta `k` (1 ≤ k < N) is `s[k] − s[k−1]` as a (w+1)-bit two's-complement number: its low w bits
//! are the modular difference and bit w is the borrow (1 iff `s[k] < s[k−1]`).

use super::planes::{MAX_PLANES, PlaneGeometry, decode_base, decode_planes, encode_base, encode_planes, from_planes, to_planes};
use crate::golden::bits::{BitReader, BitWriter};
use crate::golden::error::DecodeError;
use crate::golden::width::{MAX_SYMBOLS, SymbolWidth};

/// Writes the DBX payload of the block's `N` symbols.
pub fn encode(w: &mut BitWriter, syms: &[u32], width: SymbolWidth) {
    encode_base(w, syms[0], width);
    let (p, geo) = planes(syms, width);
    encode_planes(w, &p, geo);
}

/// The pre-XOR planes of the deltas DBX codes (P = w + 1; the top one is the borrow plane).
pub fn planes(syms: &[u32], width: SymbolWidth) -> ([u64; MAX_PLANES], PlaneGeometry) {
    let mut low = [0u32; MAX_SYMBOLS];
    let mut borrow = 0u64;
    for k in 1..syms.len() {
        low[k - 1] = syms[k].wrapping_sub(syms[k - 1]) & width.mask();
        borrow = (borrow << 1) | (syms[k] < syms[k - 1]) as u64;
    }
    let l = syms.len() - 1;
    let mut p = [0u64; MAX_PLANES];
    to_planes(&low[..l], width, &mut p);
    p[width.bits() as usize] = borrow;
    (p, geometry(width))
}

/// Reads a DBX payload into the block's `N` symbols.
pub fn decode(r: &mut BitReader, width: SymbolWidth, out: &mut [u32]) -> Result<(), DecodeError> {
    out[0] = decode_base(r, width)?;
    let mut p = [0u64; MAX_PLANES];
    decode_planes(r, geometry(width), &mut p)?;
    let l = out.len() - 1;
    let mut low = [0u32; MAX_SYMBOLS];
    from_planes(&p, width, &mut low[..l]);
    let borrow = p[width.bits() as usize];
    for k in 1..out.len() {
        let b = (borrow >> (l - k)) & 1;
        let next = out[k - 1] as i64 + low[k - 1] as i64 - ((b as i64) << width.bits());
        if !(0..=width.mask() as i64).contains(&next) {
            return Err(DecodeError::DeltaOutOfRange { index: k, width_bits: width.bits() });
        }
        out[k] = next as u32;
    }
    Ok(())
}

/// DBX planes: P = w + 1 planes of L = N − 1 bits.
pub fn geometry(width: SymbolWidth) -> PlaneGeometry {
    PlaneGeometry { planes: width.bits() + 1, plane_bits: width.symbols() as u32 - 1 }
}
