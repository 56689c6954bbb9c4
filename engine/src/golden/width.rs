//! Symbol width: how a 128-byte block is cut into symbols (FORMAT.md §2).

/// Bytes per block: the unit every code works on (BPC's granularity).
pub const BLOCK_BYTES: usize = 128;
/// Blocks per chunk.
pub const CHUNK_BLOCKS: usize = 32;
/// Uncompressed bytes per chunk (32 × 128 B = 4 KB).
pub const CHUNK_BYTES: usize = BLOCK_BYTES * CHUNK_BLOCKS;
/// Most symbols a block can hold at the narrowest supported width.
pub const MAX_SYMBOLS: usize = 64;

/// Width `w` of the symbols a block is split into; carried by the copy descriptor, not the stream.
///
/// 16-bit symbols for bf16/f16 tensors (N = 64 per block), 32-bit for f32 and every other type
/// (N = 32). An 8-bit mode (N = 128) for bool/int8/fp8 is a planned extension: it needs 128-bit
/// planes (see FORMAT.md §10), everything else is already written in terms of `w` and `N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum SymbolWidth {
    /// w = 16 bits, N = 64 symbols per block (bf16, f16).
    W16,
    /// w = 32 bits, N = 32 symbols per block (f32 and every other type).
    W32,
}

impl SymbolWidth {
    /// Symbol width `w` in bits.
    pub const fn bits(self) -> u32 {
        match self {
            SymbolWidth::W16 => 16,
            SymbolWidth::W32 => 32,
        }
    }

    /// Symbols per 128-byte block, `N = 1024 / w`.
    pub const fn symbols(self) -> usize {
        BLOCK_BYTES * 8 / self.bits() as usize
    }

    /// Bit mask of one symbol (`w` ones).
    pub const fn mask(self) -> u32 {
        match self {
            SymbolWidth::W16 => 0xFFFF,
            SymbolWidth::W32 => 0xFFFF_FFFF,
        }
    }

    /// The width the descriptor selects for an element type, named as in safetensors
    /// (`"BF16"`, `"F16"`, `"F32"`, …; case-insensitive). 2-byte floats get 16-bit symbols,
    /// every other type 32-bit symbols.
    pub fn for_dtype(dtype: &str) -> SymbolWidth {
        match dtype.to_ascii_uppercase().as_str() {
            "BF16" | "F16" => SymbolWidth::W16,
            _ => SymbolWidth::W32,
        }
    }

    /// Parses a width given in bits (16 or 32).
    pub fn from_bits(bits: u32) -> Option<SymbolWidth> {
        match bits {
            16 => Some(SymbolWidth::W16),
            32 => Some(SymbolWidth::W32),
            _ => None,
        }
    }

    /// Reads the `N` symbols of a block: symbol `i` is the little-endian word at byte `i·w/8`.
    pub fn load(self, block: &[u8; BLOCK_BYTES], out: &mut [u32; MAX_SYMBOLS]) {
        match self {
            SymbolWidth::W16 => {
                for (o, c) in out.iter_mut().zip(block.chunks_exact(2)) {
                    *o = u16::from_le_bytes([c[0], c[1]]) as u32;
                }
            }
            SymbolWidth::W32 => {
                for (o, c) in out.iter_mut().zip(block.chunks_exact(4)) {
                    *o = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                }
            }
        }
    }

    /// Writes `N` symbols back to block bytes (inverse of [`SymbolWidth::load`]).
    pub fn store(self, syms: &[u32], block: &mut [u8; BLOCK_BYTES]) {
        match self {
            SymbolWidth::W16 => {
                for (s, c) in syms.iter().zip(block.chunks_exact_mut(2)) {
                    c.copy_from_slice(&(*s as u16).to_le_bytes());
                }
            }
            SymbolWidth::W32 => {
                for (s, c) in syms.iter().zip(block.chunks_exact_mut(4)) {
                    c.copy_from_slice(&s.to_le_bytes());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_match_the_spec() {
        assert_eq!(SymbolWidth::W16.symbols(), 64);
        assert_eq!(SymbolWidth::W32.symbols(), 32);
        assert_eq!(SymbolWidth::for_dtype("bf16"), SymbolWidth::W16);
        assert_eq!(SymbolWidth::for_dtype("F16"), SymbolWidth::W16);
        assert_eq!(SymbolWidth::for_dtype("F32"), SymbolWidth::W32);
        assert_eq!(SymbolWidth::for_dtype("I64"), SymbolWidth::W32);
        assert_eq!(SymbolWidth::for_dtype("BOOL"), SymbolWidth::W32);
    }

    #[test]
    fn symbols_are_little_endian_words() {
        let mut block = [0u8; BLOCK_BYTES];
        block[0] = 0x34;
        block[1] = 0x12;
        block[2] = 0x78;
        block[3] = 0x56;
        let mut s = [0u32; MAX_SYMBOLS];
        SymbolWidth::W16.load(&block, &mut s);
        assert_eq!(&s[..2], &[0x1234, 0x5678]);
        SymbolWidth::W32.load(&block, &mut s);
        assert_eq!(s[0], 0x5678_1234);
        let mut back = [0u8; BLOCK_BYTES];
        SymbolWidth::W32.store(&s[..32], &mut back);
        assert_eq!(back, block);
    }
}
