//! Every way a PlaneZip stream can be malformed (FORMAT.md §9). The decoder returns one of these
//! instead of panicking or reading out of bounds.

/// A malformed or truncated block, chunk or stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended before a field could be read.
    #[error("truncated: needed {needed_bits} more bits at bit {at_bit}, only {available_bits} left")]
    Truncated {
        /// Bit offset (within the chunk body or block) of the field that did not fit.
        at_bit: usize,
        /// Bits the field needs.
        needed_bits: u32,
        /// Bits that were left.
        available_bits: usize,
    },
    /// A 3-bit block tag with a reserved value (5, 6 or 7).
    #[error("reserved block tag {tag}")]
    ReservedTag {
        /// The tag read.
        tag: u8,
    },
    /// A DBX base-symbol prefix that is reserved for this symbol width (`011` for w = 16).
    #[error("reserved base-symbol code 0b{code:03b} for {width_bits}-bit symbols")]
    ReservedBaseCode {
        /// The 3-bit prefix read.
        code: u8,
        /// The symbol width.
        width_bits: u32,
    },
    /// A one/two-ones plane whose position field points outside the plane.
    #[error("plane position {pos} out of range for a {plane_bits}-bit plane")]
    PositionOutOfRange {
        /// The position read (lower of the two ones, LSB = 0).
        pos: u32,
        /// Plane width L in bits.
        plane_bits: u32,
    },
    /// A zero-plane run longer than the planes left to code.
    #[error("zero-plane run of {run} planes but only {remaining} planes left")]
    RunTooLong {
        /// Run length read.
        run: u32,
        /// Planes not yet decoded.
        remaining: u32,
    },
    /// A "pre-XOR plane is zero" code on the top plane, where it cannot occur.
    #[error("'DBP = 0' code on the top plane")]
    DbpZeroOnTopPlane,
    /// A DBX delta that takes a symbol outside `[0, 2^w)`.
    #[error("DBX delta {index} leaves the {width_bits}-bit symbol range")]
    DeltaOutOfRange {
        /// Index (1-based, as in FORMAT.md) of the delta.
        index: usize,
        /// The symbol width.
        width_bits: u32,
    },
    /// A chunk size header larger than the chunk's uncompressed size.
    #[error("chunk {chunk}: size header {header} exceeds its raw size {raw_bytes}")]
    HeaderTooLarge {
        /// Chunk index in the stream.
        chunk: usize,
        /// Header value (body bytes).
        header: usize,
        /// Raw bytes of that chunk.
        raw_bytes: usize,
    },
    /// A chunk whose blocks do not end in the last byte of its body, or whose padding is not zero.
    #[error("chunk {chunk}: body is {header} bytes but its blocks use {used_bits} bits (padding must be < 8 zero bits)")]
    SizeMismatch {
        /// Chunk index in the stream.
        chunk: usize,
        /// Header value (body bytes).
        header: usize,
        /// Bits the decoded blocks used.
        used_bits: usize,
    },
    /// A final partial block whose padding (the bytes past the tensor's end, FORMAT.md §7)
    /// decodes to something other than zero bytes.
    #[error("padding byte {byte} of the final partial block is not zero")]
    PaddingNotZero {
        /// Index within the 128-byte block of the first nonzero padding byte.
        byte: usize,
    },
    /// An error inside a block of a chunk.
    #[error("chunk {chunk}, block {block}: {source}")]
    InChunk {
        /// Chunk index in the stream.
        chunk: usize,
        /// Block index within the chunk.
        block: usize,
        /// What went wrong.
        #[source]
        source: Box<DecodeError>,
    },
    /// The stream ended before all chunks of the tensor were read.
    #[error("stream truncated in chunk {chunk}: needs {needed} bytes at offset {offset}, {available} available")]
    StreamTruncated {
        /// Chunk index in the stream.
        chunk: usize,
        /// Byte offset of the missing part.
        offset: usize,
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// Bytes left over after the last chunk of the tensor.
    #[error("{extra} trailing bytes after the last chunk")]
    TrailingBytes {
        /// Number of extra bytes.
        extra: usize,
    },
}
