//! MSB-first bit I/O (FORMAT.md §3): the first bit of a field is its most significant bit, and the
//! first bit of a byte-packed bit string is bit 7 of byte 0.

use super::error::DecodeError;

/// Appends fields of up to 32 bits to a byte vector, most significant bit first.
#[derive(Debug, Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    pending_bits: u32,
    len_bits: usize,
}

impl BitWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the low `n` bits of `value` (n ≤ 32), MSB first.
    #[inline]
    pub fn put(&mut self, value: u32, n: u32) {
        debug_assert!(n <= 32);
        if n == 0 {
            return;
        }
        let v = if n == 32 { value as u64 } else { (value as u64) & ((1u64 << n) - 1) };
        self.acc = (self.acc << n) | v;
        self.pending_bits += n;
        self.len_bits += n as usize;
        while self.pending_bits >= 8 {
            self.pending_bits -= 8;
            self.bytes.push((self.acc >> self.pending_bits) as u8);
        }
    }

    /// Appends the low `n` bits of `value` (n ≤ 64), MSB first.
    #[inline]
    pub fn put64(&mut self, value: u64, n: u32) {
        if n > 32 {
            self.put((value >> 32) as u32, n - 32);
            self.put(value as u32, 32);
        } else {
            self.put(value as u32, n);
        }
    }

    /// Bits written so far.
    pub fn len_bits(&self) -> usize {
        self.len_bits
    }

    /// Pads with zero bits to a byte boundary and returns the bytes.
    pub fn into_bytes(mut self) -> Vec<u8> {
        if self.pending_bits > 0 {
            let pad = 8 - self.pending_bits;
            self.put(0, pad);
            self.len_bits -= pad as usize;
        }
        self.bytes
    }
}

/// Reads MSB-first fields from a byte slice, never past `end_bits`.
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    pos_bits: usize,
    end_bits: usize,
}

impl<'a> BitReader<'a> {
    /// A reader over all bits of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, pos_bits: 0, end_bits: bytes.len() * 8 }
    }

    /// A reader over the first `len_bits` bits of `bytes` (clamped to the slice).
    pub fn with_len(bytes: &'a [u8], len_bits: usize) -> Self {
        Self { bytes, pos_bits: 0, end_bits: len_bits.min(bytes.len() * 8) }
    }

    /// Current position in bits from the start.
    pub fn pos_bits(&self) -> usize {
        self.pos_bits
    }

    /// Bits left before the end.
    pub fn remaining_bits(&self) -> usize {
        self.end_bits - self.pos_bits
    }

    /// Reads an `n`-bit field (n ≤ 32), or [`DecodeError::Truncated`].
    #[inline]
    pub fn get(&mut self, n: u32) -> Result<u32, DecodeError> {
        debug_assert!(n <= 32);
        if n == 0 {
            return Ok(0);
        }
        if self.remaining_bits() < n as usize {
            return Err(DecodeError::Truncated {
                at_bit: self.pos_bits,
                needed_bits: n,
                available_bits: self.remaining_bits(),
            });
        }
        let byte = self.pos_bits / 8;
        let offset = (self.pos_bits % 8) as u32;
        let mut window = [0u8; 8];
        let avail = (self.bytes.len() - byte).min(8);
        window[..avail].copy_from_slice(&self.bytes[byte..byte + avail]);
        let word = u64::from_be_bytes(window);
        self.pos_bits += n as usize;
        Ok(((word << offset) >> (64 - n)) as u32)
    }

    /// Reads an `n`-bit field (n ≤ 64).
    #[inline]
    pub fn get64(&mut self, n: u32) -> Result<u64, DecodeError> {
        if n > 32 {
            let hi = self.get(n - 32)? as u64;
            let lo = self.get(32)? as u64;
            Ok((hi << 32) | lo)
        } else {
            Ok(self.get(n)? as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_msb_first_and_pads_with_zeros() {
        let mut w = BitWriter::new();
        w.put(0b101, 3);
        w.put(0b1, 1);
        w.put(0xABC, 12);
        w.put(0b11, 2);
        assert_eq!(w.len_bits(), 18);
        // 101 1 1010_1011_1100 11 -> 1011_1010 1011_1100 11(00_0000)
        assert_eq!(w.into_bytes(), vec![0xBA, 0xBC, 0xC0]);
    }

    #[test]
    fn reads_back_what_was_written_and_stops_at_the_end() {
        let mut w = BitWriter::new();
        w.put64(0x1_2345_6789_ABCD, 49);
        w.put(7, 3);
        let bytes = w.into_bytes();
        let mut r = BitReader::with_len(&bytes, 52);
        assert_eq!(r.get64(49).unwrap(), 0x1_2345_6789_ABCD);
        assert_eq!(r.get(3).unwrap(), 7);
        assert!(matches!(r.get(1), Err(DecodeError::Truncated { needed_bits: 1, available_bits: 0, .. })));
    }
}
