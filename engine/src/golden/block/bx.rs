//! BX: the `w` bit-planes of the `N` symbols themselves, adjacent planes XORed, no delta
//! (FORMAT.md §4.3).

use super::planes::{MAX_PLANES, PlaneGeometry, decode_planes, encode_planes, from_planes, to_planes};
use crate::golden::bits::{BitReader, BitWriter};
use crate::golden::error::DecodeError;
use crate::golden::width::SymbolWidth;

/// Writes the BX payload of `syms` (all N symbols; ZBX calls it with the n compacted nonzeros).
pub fn encode(w: &mut BitWriter, syms: &[u32], width: SymbolWidth) {
    let (p, geo) = planes(syms, width);
    encode_planes(w, &p, geo);
}

/// The pre-XOR planes BX codes for `syms`, and their geometry.
pub fn planes(syms: &[u32], width: SymbolWidth) -> ([u64; MAX_PLANES], PlaneGeometry) {
    let mut p = [0u64; MAX_PLANES];
    to_planes(syms, width, &mut p);
    (p, geometry(width, syms.len()))
}

/// Reads a BX payload of `out.len()` symbols.
pub fn decode(r: &mut BitReader, width: SymbolWidth, out: &mut [u32]) -> Result<(), DecodeError> {
    let mut p = [0u64; MAX_PLANES];
    decode_planes(r, geometry(width, out.len()), &mut p)?;
    from_planes(&p, width, out);
    Ok(())
}

/// BX planes: P = w planes of L = `values` bits.
pub fn geometry(width: SymbolWidth, values: usize) -> PlaneGeometry {
    PlaneGeometry { planes: width.bits(), plane_bits: values as u32 }
}
