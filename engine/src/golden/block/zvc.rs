//! ZVC, zero-value compression (cDMA): an N-bit mask of nonzero symbols, then the nonzero
//! symbols verbatim (FORMAT.md §4.1).

use crate::golden::bits::{BitReader, BitWriter};
use crate::golden::error::DecodeError;
use crate::golden::width::SymbolWidth;

/// The N-bit nonzero mask: symbol `i` at bit `N-1-i` (first symbol = most significant bit).
pub fn nonzero_mask(syms: &[u32]) -> u64 {
    syms.iter().fold(0u64, |m, &s| (m << 1) | (s != 0) as u64)
}

/// Writes the ZVC payload of the block's `N` symbols.
pub fn encode(w: &mut BitWriter, syms: &[u32], width: SymbolWidth) {
    w.put64(nonzero_mask(syms), syms.len() as u32);
    for &s in syms.iter().filter(|&&s| s != 0) {
        w.put(s, width.bits());
    }
}

/// Reads a ZVC payload into the block's `N` symbols.
pub fn decode(r: &mut BitReader, width: SymbolWidth, out: &mut [u32]) -> Result<(), DecodeError> {
    let n = out.len();
    let mask = r.get64(n as u32)?;
    for (i, o) in out.iter_mut().enumerate() {
        *o = if mask >> (n - 1 - i) & 1 == 1 { r.get(width.bits())? } else { 0 };
    }
    Ok(())
}
