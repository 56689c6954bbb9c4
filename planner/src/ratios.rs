//! Measured compressed sizes per signature: the codec's output that the
//! predictor and the simulator consume.
//!
//! A [`RatioTable`] holds, for one codec and one precision, the raw and
//! wire (compressed, with chunk headers) bytes the codec produced for each
//! saved tensor of one captured iteration, keyed by signature `op{op}:{slot}`.
//! Tensors were captured at a small batch, so the table is used through its
//! ratio `raw / wire`, applied to the tensor's size at the training batch.
//! The ZVC, PlaneZip and 32-bit-symbol ablations are just different tables.

use crate::trace::Producer;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Raw and compressed bytes of one tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatioEntry {
    /// Uncompressed bytes measured.
    pub raw_bytes: u64,
    /// Compressed bytes on the wire (payload plus chunk headers).
    pub wire_bytes: u64,
}

impl RatioEntry {
    /// Compression ratio `raw / wire` (1 for an empty tensor).
    pub fn ratio(&self) -> f64 {
        if self.raw_bytes == 0 || self.wire_bytes == 0 { 1.0 } else { self.raw_bytes as f64 / self.wire_bytes as f64 }
    }
}

/// One codec's measurements of one iteration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RatioTable {
    /// Codec name (`planezip`, `zvc`, `planezip-32bit`, ...).
    pub codec: String,
    /// Measurements by signature string `op{op}:{slot}`.
    pub entries: BTreeMap<String, RatioEntry>,
}

impl RatioTable {
    /// An empty table for `codec`.
    pub fn new(codec: &str) -> Self {
        RatioTable { codec: codec.to_owned(), entries: BTreeMap::new() }
    }

    /// Records (overwrites) the measurement of the tensor with signature `signature`.
    pub fn insert(&mut self, signature: Producer, raw_bytes: u64, wire_bytes: u64) {
        self.entries.insert(signature.to_string(), RatioEntry { raw_bytes, wire_bytes });
    }

    /// The measurement of `signature`, if any.
    pub fn get(&self, signature: Producer) -> Option<RatioEntry> {
        self.entries.get(&signature.to_string()).copied()
    }
}

/// Compressed size of `bytes` at compression ratio `ratio` (at least 1 byte
/// for a non-empty tensor).
pub fn wire_bytes_at(bytes: u64, ratio: f64) -> u64 {
    if bytes == 0 { 0 } else { ((bytes as f64 / ratio).ceil() as u64).max(1) }
}
