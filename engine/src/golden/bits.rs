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
        let v = (value as u64) & (u64::MAX >> (64 - n));
        // `pending_bits` < 32 on entry, so the accumulator never holds more than 63 live bits;
        // whole 32-bit words are flushed at once.
        self.acc = (self.acc << n) | v;
        self.pending_bits += n;
        self.len_bits += n as usize;
        if self.pending_bits >= 32 {
            self.pending_bits -= 32;
            self.bytes.extend_from_slice(&((self.acc >> self.pending_bits) as u32).to_be_bytes());
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
        while self.pending_bits >= 8 {
            self.pending_bits -= 8;
            self.bytes.push((self.acc >> self.pending_bits) as u8);
        }
        if self.pending_bits > 0 {
            self.bytes.push((self.acc << (8 - self.pending_bits)) as u8);
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
        self.check(n)?;
        let v = (self.window() >> (64 - n)) as u32;
        self.pos_bits += n as usize;
        Ok(v)
    }

    /// Advances by `n` bits, or [`DecodeError::Truncated`] if fewer are left.
    #[inline]
    pub fn skip(&mut self, n: u32) -> Result<(), DecodeError> {
        self.check(n)?;
        self.pos_bits += n as usize;
        Ok(())
    }

    /// The next `n` bits (1 ≤ n ≤ 32) without consuming them; bits past the end read as zero.
    #[inline]
    pub fn peek(&self, n: u32) -> u32 {
        debug_assert!((1..=32).contains(&n));
        let live = self.remaining_bits().min(64);
        let word = self.window();
        let word = if live < 64 { word & !(u64::MAX >> live) } else { word };
        (word >> (64 - n)) as u32
    }

    #[inline]
    fn check(&self, n: u32) -> Result<(), DecodeError> {
        if self.remaining_bits() < n as usize {
            return Err(DecodeError::Truncated { at_bit: self.pos_bits, needed_bits: n, available_bits: self.remaining_bits() });
        }
        Ok(())
    }

    /// The 64 bits from the current position (at least 57 of them real), zero past the slice.
    #[inline]
    fn window(&self) -> u64 {
        let byte = self.pos_bits / 8;
        let offset = (self.pos_bits % 8) as u32;
        let word = match self.bytes.get(byte..byte + 8) {
            Some(eight) => u64::from_be_bytes(eight.try_into().expect("8 bytes")),
            None => {
                let mut window = [0u8; 8];
                let tail = self.bytes.get(byte..).unwrap_or(&[]);
                window[..tail.len()].copy_from_slice(tail);
                u64::from_be_bytes(window)
            }
        };
        word << offset
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
