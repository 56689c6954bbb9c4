//! ZBX: the N-bit nonzero mask (as ZVC), then BX over the n nonzero symbols compacted to the
//! front, so each plane is n bits wide; nothing follows the mask when n = 0 (FORMAT.md §4.4).

use super::planes::{MAX_PLANES, PlaneGeometry, encode_planes};
use super::{bx, zvc};
use crate::golden::bits::{BitReader, BitWriter};
use crate::golden::error::DecodeError;
use crate::golden::width::{MAX_SYMBOLS, SymbolWidth};

/// Writes the ZBX payload of the block's `N` symbols.
pub fn encode(w: &mut BitWriter, syms: &[u32], width: SymbolWidth) {
    w.put64(zvc::nonzero_mask(syms), syms.len() as u32);
    if let Some((p, geo)) = planes(syms, width) {
        encode_planes(w, &p, geo);
    }
}

/// The pre-XOR planes ZBX codes for the block's symbols (BX over the compacted nonzeros), or
/// `None` when every symbol is zero and nothing follows the mask.
pub fn planes(syms: &[u32], width: SymbolWidth) -> Option<([u64; MAX_PLANES], PlaneGeometry)> {
    let mut packed = [0u32; MAX_SYMBOLS];
    let mut n = 0;
    for &s in syms.iter().filter(|&&s| s != 0) {
        packed[n] = s;
        n += 1;
    }
    (n > 0).then(|| bx::planes(&packed[..n], width))
}

/// Reads a ZBX payload into the block's `N` symbols.
pub fn decode(r: &mut BitReader, width: SymbolWidth, out: &mut [u32]) -> Result<(), DecodeError> {
    let len = out.len();
    let mask = r.get64(len as u32)?;
    let n = mask.count_ones() as usize;
    let mut packed = [0u32; MAX_SYMBOLS];
    if n > 0 {
        bx::decode(r, width, &mut packed[..n])?;
    }
    let mut next = 0;
    for (i, o) in out.iter_mut().enumerate() {
        *o = if mask >> (len - 1 - i) & 1 == 1 {
            next += 1;
            packed[next - 1]
        } else {
            0
        };
    }
    Ok(())
}
