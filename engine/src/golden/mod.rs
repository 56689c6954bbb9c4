//! The golden PlaneZip codec: the bit-exact reference of `docs/FORMAT.md`.
//!
//! Layout, following the format's own layering:
//! * [`width`]: symbol width `w` and symbols per block `N`, chosen from the element type.
//! * [`bits`]: MSB-first bit writer and bounds-checked bit reader.
//! * [`block`]: one 128-byte block — the four codes, raw, the choice and the 3-bit tag.
//! * [`size`]: the fast size model (bit counts of all four codes, no bits written).
//! * [`chunk`]: 32 blocks = one 4 KB chunk with its 16-bit size header; tensor streams.
//! * [`error`]: every way a stream can be malformed.

pub mod bits;
pub mod block;
pub mod chunk;
pub mod error;
pub mod size;
pub mod width;

pub use block::{BlockEncoding, Tag, decode_block, encode_block, encode_block_with};
pub use chunk::{ChunkStats, decode_stream, encode_stream, encode_stream_with_stats};
pub use error::DecodeError;
pub use size::{BlockSizes, block_sizes};
pub use width::{BLOCK_BYTES, CHUNK_BLOCKS, CHUNK_BYTES, SymbolWidth};
