//! The container file of `sim-harness compress` / `decompress` (FORMAT.md §12): a safetensors
//! file whose tensor bytes are replaced by PlaneZip chunk streams. The original safetensors header
//! is kept verbatim, so decompression returns a byte-identical file.

use crate::fast::{par_decode_stream as decode_stream, par_encode_stream as encode_stream};
use crate::golden::{DecodeError, SymbolWidth};
use safetensors::SafeTensors;
use serde::{Deserialize, Serialize};

/// Magic bytes at offset 0.
pub const MAGIC: &[u8; 8] = b"PLANEZIP";
/// Container version this code writes: 2 adds a CRC-32 of each tensor's raw bytes to the index.
pub const VERSION: u32 = 2;
/// The first container version (no checksums), still read.
pub const VERSION_1: u32 = 1;
/// Bytes before the index: magic, version, index length.
const PREAMBLE_BYTES: usize = 8 + 4 + 8;

/// One tensor's entry in the container index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorEntry {
    /// Tensor name as in the safetensors header.
    pub name: String,
    /// safetensors dtype name (`"F32"`, `"BF16"`, …).
    pub dtype: String,
    /// Tensor shape.
    pub shape: Vec<usize>,
    /// Symbol width (16 or 32) the stream was coded with.
    pub symbol_bits: u32,
    /// Uncompressed bytes of the tensor (= its safetensors byte range).
    pub raw_bytes: usize,
    /// Bytes of its chunk stream.
    pub stream_bytes: usize,
    /// CRC-32 (IEEE 802.3, the polynomial of zlib and PNG) of the tensor's raw bytes, checked after
    /// decoding: the chunk stream has no checksum of its own. Required in version 2, absent in 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_crc32: Option<u32>,
}

/// The container index (JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// Length in bytes of the verbatim safetensors header that follows the index.
    pub source_header_bytes: usize,
    /// Tensors in data-offset order.
    pub tensors: Vec<TensorEntry>,
}

/// Why a file could not be compressed or decompressed. The variants are the rows of
/// FORMAT.md §12's table of what a reader must reject.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContainerError {
    /// The input of `compress` is not a valid safetensors file.
    #[error("not a valid safetensors file: {0}")]
    NotSafetensors(String),
    /// The input of `decompress` does not start with the container magic.
    #[error("not a PlaneZip container (magic bytes missing)")]
    BadMagic,
    /// A container version this code does not read.
    #[error("container version {0} is not supported (this build reads versions {VERSION_1} and {VERSION})")]
    UnsupportedVersion(u32),
    /// The file ends before the part named.
    #[error("truncated container: the {part} needs {needed_bytes} bytes at offset {offset}, {available_bytes} are left")]
    Truncated {
        /// The part that does not fit: `"preamble"`, `"index"`, `"safetensors header"`, `"tensor streams"`.
        part: &'static str,
        /// Byte offset where the part starts.
        offset: usize,
        /// Bytes the part needs (as claimed by the file).
        needed_bytes: u64,
        /// Bytes the file has from `offset` on.
        available_bytes: usize,
    },
    /// The index is not UTF-8 JSON of the shape §12 gives.
    #[error("bad container index: {0}")]
    BadIndex(String),
    /// The stored safetensors header is malformed (length field, JSON, `__metadata__`, dtype,
    /// shape, byte ranges that are not back to back).
    #[error("bad stored safetensors header: {0}")]
    BadStoredHeader(String),
    /// A tensor name occurs twice in the index or in the stored header.
    #[error("tensor {name:?} is listed twice in the {place}")]
    DuplicateName {
        /// The name.
        name: String,
        /// `"index"` or `"stored header"`.
        place: &'static str,
    },
    /// A tensor of the stored header is missing from the index, or the other way round.
    #[error("tensor {name:?} is missing from the {missing_from}")]
    MissingTensor {
        /// The name.
        name: String,
        /// Where it is missing: `"index"` or `"stored header"`.
        missing_from: &'static str,
    },
    /// An index entry disagrees with the stored header's entry of the same name.
    #[error("tensor {tensor:?}: index {field} is {index}, stored header says {header}")]
    IndexMismatch {
        /// The tensor.
        tensor: String,
        /// The field: `"dtype"`, `"shape"`, `"raw_bytes"` or `"position"` (index order).
        field: &'static str,
        /// The index's value.
        index: String,
        /// The stored header's value.
        header: String,
    },
    /// A `symbol_bits` other than 16 or 32.
    #[error("tensor {tensor:?}: symbol_bits {symbol_bits} (must be 16 or 32)")]
    BadSymbolBits {
        /// The tensor.
        tensor: String,
        /// The value read.
        symbol_bits: u32,
    },
    /// A tensor decoded without error but its bytes do not have the CRC-32 the index gives: the
    /// stream was corrupted in a way its structure does not show (FORMAT.md §12).
    #[error("tensor {tensor:?}: decoded bytes have CRC-32 {actual:#010x}, the index says {expected:#010x} (corrupted stream)")]
    ChecksumMismatch {
        /// The tensor.
        tensor: String,
        /// CRC-32 in the index.
        expected: u32,
        /// CRC-32 of the decoded bytes.
        actual: u32,
    },
    /// Bytes after the last tensor stream.
    #[error("{extra} trailing bytes after the last tensor stream")]
    TrailingBytes {
        /// Number of extra bytes.
        extra: usize,
    },
    /// A tensor's chunk stream is malformed.
    #[error("tensor {tensor:?}: {source}")]
    Stream {
        /// Tensor name.
        tensor: String,
        /// The decoder's error (it names the chunk and block).
        #[source]
        source: DecodeError,
    },
}

/// Compresses a safetensors file. Each tensor is coded with the symbol width of its dtype, or
/// with `symbol_bits` for every tensor when given (the 32-bit-symbols ablation).
pub fn compress(file: &[u8], symbol_bits: Option<SymbolWidth>) -> Result<Vec<u8>, ContainerError> {
    // `read_metadata` validates the whole file: offsets back to back, sizes, buffer length.
    let (header_len, metadata) = SafeTensors::read_metadata(file).map_err(|e| ContainerError::NotSafetensors(format!("{e:?}")))?;
    let data_start = 8 + header_len;
    let mut infos: Vec<_> = metadata.tensors().into_iter().collect();
    // Data-offset order; names break ties between empty tensors so the order is deterministic.
    infos.sort_by(|(an, a), (bn, b)| (a.data_offsets, an).cmp(&(b.data_offsets, bn)));
    let mut index = Index { source_header_bytes: data_start, tensors: Vec::with_capacity(infos.len()) };
    let mut streams = Vec::with_capacity(infos.len());
    for (name, info) in infos {
        let dtype = format!("{:?}", info.dtype);
        let width = symbol_bits.unwrap_or(SymbolWidth::for_dtype(&dtype));
        let (a, b) = info.data_offsets;
        let raw = &file[data_start + a..data_start + b];
        let stream = encode_stream(raw, width);
        let raw_crc32 = Some(crc32fast::hash(raw));
        index.tensors.push(TensorEntry { name, dtype, shape: info.shape.clone(), symbol_bits: width.bits(), raw_bytes: b - a, stream_bytes: stream.len(), raw_crc32 });
        streams.push(stream);
    }
    let index_json = serde_json::to_vec(&index).expect("index serializes");
    let mut out = Vec::with_capacity(PREAMBLE_BYTES + index_json.len() + data_start + streams.iter().map(Vec::len).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(index_json.len() as u64).to_le_bytes());
    out.extend_from_slice(&index_json);
    out.extend_from_slice(&file[..data_start]);
    for s in streams {
        out.extend_from_slice(&s);
    }
    Ok(out)
}

/// `container[offset..offset + len]`, or `Truncated` naming `name`.
fn part<'a>(container: &'a [u8], offset: usize, len: u64, name: &'static str) -> Result<&'a [u8], ContainerError> {
    usize::try_from(len)
        .ok()
        .and_then(|l| offset.checked_add(l))
        .and_then(|end| container.get(offset..end))
        .ok_or(ContainerError::Truncated { part: name, offset, needed_bytes: len, available_bytes: container.len().saturating_sub(offset) })
}

/// Reads a container's index without decoding any stream; returns it with the offset of the
/// stored safetensors header. Only the preamble and the JSON syntax are checked here.
pub fn read_index(container: &[u8]) -> Result<(Index, usize), ContainerError> {
    let pre = part(container, 0, PREAMBLE_BYTES as u64, "preamble")?;
    if &pre[..8] != MAGIC {
        return Err(ContainerError::BadMagic);
    }
    let version = u32::from_le_bytes(pre[8..12].try_into().expect("4 bytes"));
    if version != VERSION && version != VERSION_1 {
        return Err(ContainerError::UnsupportedVersion(version));
    }
    let index_len = u64::from_le_bytes(pre[12..20].try_into().expect("8 bytes"));
    let json = part(container, PREAMBLE_BYTES, index_len, "index")?;
    let index: Index = serde_json::from_slice(json).map_err(|e| ContainerError::BadIndex(e.to_string()))?;
    // Version 2 entries carry a checksum, version 1 entries cannot.
    if let Some(t) = index.tensors.iter().find(|t| t.raw_crc32.is_some() != (version == VERSION)) {
        let problem = if version == VERSION { "lacks raw_crc32 (required in version 2)" } else { "has raw_crc32 (unknown in version 1)" };
        return Err(ContainerError::BadIndex(format!("tensor {:?} {problem}", t.name)));
    }
    Ok((index, PREAMBLE_BYTES + json.len()))
}

/// One tensor of the stored safetensors header.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeaderTensor {
    dtype: safetensors::Dtype,
    shape: Vec<usize>,
    data_offsets: (usize, usize),
}

/// A JSON object read as its entries in file order, so duplicate keys can be reported (serde's
/// maps keep the last value silently).
struct Entries(Vec<(String, serde_json::Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The tensors a stored safetensors header describes, checked (FORMAT.md §12): its length field,
/// unique names, a string-to-string `__metadata__`, known dtypes, `shape` × dtype size = byte
/// range, and ranges back to back from 0. Returned in data-offset order (ties: name).
fn header_tensors(header: &[u8]) -> Result<Vec<(String, HeaderTensor)>, ContainerError> {
    let bad = |m: String| ContainerError::BadStoredHeader(m);
    let len = u64::from_le_bytes(header.get(..8).ok_or_else(|| bad("shorter than its 8-byte length field".into()))?.try_into().expect("8 bytes"));
    if usize::try_from(len).ok().and_then(|l| l.checked_add(8)) != Some(header.len()) {
        return Err(bad(format!("its length field says {len} bytes of JSON, the index's source_header_bytes leaves {}", header.len() - 8)));
    }
    let entries: Entries = serde_json::from_slice(&header[8..]).map_err(|e| bad(e.to_string()))?;
    let mut names = std::collections::BTreeSet::new();
    let mut out = Vec::with_capacity(entries.0.len());
    for (name, value) in entries.0 {
        if !names.insert(name.clone()) {
            return Err(ContainerError::DuplicateName { name, place: "stored header" });
        }
        if name == "__metadata__" {
            serde_json::from_value::<std::collections::BTreeMap<String, String>>(value)
                .map_err(|e| bad(format!("__metadata__ must map strings to strings: {e}")))?;
            continue;
        }
        let t: HeaderTensor = serde_json::from_value(value).map_err(|e| bad(format!("tensor {name:?}: {e}")))?;
        let (a, b) = t.data_offsets;
        let bytes = t.shape.iter().try_fold(t.dtype.size(), |n, &d| n.checked_mul(d));
        if b < a || bytes != Some(b - a) {
            return Err(bad(format!("tensor {name:?}: data_offsets [{a}, {b}] do not hold shape {:?} of {:?}", t.shape, t.dtype)));
        }
        out.push((name, t));
    }
    out.sort_by(|(an, a), (bn, b)| (a.data_offsets, an).cmp(&(b.data_offsets, bn)));
    let mut end = 0;
    for (name, t) in &out {
        if t.data_offsets.0 != end {
            return Err(bad(format!("tensor {name:?} starts at byte {} but the tensors before it end at {end} (tensors must be back to back)", t.data_offsets.0)));
        }
        end = t.data_offsets.1;
    }
    Ok(out)
}

/// Checks the index against the stored header, entry by entry and by name (FORMAT.md §12).
fn check_index(index: &Index, header: &[(String, HeaderTensor)]) -> Result<(), ContainerError> {
    let by_name: std::collections::BTreeMap<&str, (usize, &HeaderTensor)> = header.iter().enumerate().map(|(k, (n, t))| (n.as_str(), (k, t))).collect();
    let mut seen = std::collections::BTreeSet::new();
    for (position, e) in index.tensors.iter().enumerate() {
        if !seen.insert(e.name.as_str()) {
            return Err(ContainerError::DuplicateName { name: e.name.clone(), place: "index" });
        }
        let &(header_position, t) = by_name.get(e.name.as_str()).ok_or_else(|| ContainerError::MissingTensor { name: e.name.clone(), missing_from: "stored header" })?;
        let mismatch = |field, index: String, header: String| ContainerError::IndexMismatch { tensor: e.name.clone(), field, index, header };
        let dtype = format!("{:?}", t.dtype);
        if e.dtype != dtype {
            return Err(mismatch("dtype", e.dtype.clone(), dtype));
        }
        if e.shape != t.shape {
            return Err(mismatch("shape", format!("{:?}", e.shape), format!("{:?}", t.shape)));
        }
        let (a, b) = t.data_offsets;
        if e.raw_bytes != b - a {
            return Err(mismatch("raw_bytes", e.raw_bytes.to_string(), format!("{} (data_offsets [{a}, {b}])", b - a)));
        }
        if position != header_position {
            return Err(mismatch("position", position.to_string(), format!("{header_position} (data-offset order)")));
        }
        if SymbolWidth::from_bits(e.symbol_bits).is_none() {
            return Err(ContainerError::BadSymbolBits { tensor: e.name.clone(), symbol_bits: e.symbol_bits });
        }
    }
    if let Some((name, _)) = header.iter().find(|(n, _)| !seen.contains(n.as_str())) {
        return Err(ContainerError::MissingTensor { name: name.clone(), missing_from: "index" });
    }
    Ok(())
}

/// Decompresses a container (version 1 or 2) into the original safetensors file, byte for byte.
/// Every size the file claims is checked against the file's length and the stored header before it
/// is used, the output grows with the bytes actually decoded, and (version 2) each tensor's
/// CRC-32 is checked.
pub fn decompress(container: &[u8]) -> Result<Vec<u8>, ContainerError> {
    let (index, header_start) = read_index(container)?;
    let header = part(container, header_start, index.source_header_bytes as u64, "safetensors header")?;
    let expected = header_tensors(header)?;
    check_index(&index, &expected)?;
    let streams_start = header_start + header.len();
    let available = container.len() - streams_start;
    let total = index.tensors.iter().try_fold(0u64, |sum, t| sum.checked_add(t.stream_bytes as u64)).unwrap_or(u64::MAX);
    if total > available as u64 {
        return Err(ContainerError::Truncated { part: "tensor streams", offset: streams_start, needed_bytes: total, available_bytes: available });
    }
    if total < available as u64 {
        return Err(ContainerError::TrailingBytes { extra: available - total as usize });
    }
    let mut out = Vec::with_capacity(header.len());
    out.extend_from_slice(header);
    let mut offset = streams_start;
    for entry in &index.tensors {
        let width = SymbolWidth::from_bits(entry.symbol_bits).expect("checked by check_index");
        let stream = &container[offset..offset + entry.stream_bytes];
        let bytes = decode_stream(stream, entry.raw_bytes, width).map_err(|source| ContainerError::Stream { tensor: entry.name.clone(), source })?;
        if let Some(expected) = entry.raw_crc32 {
            let actual = crc32fast::hash(&bytes);
            if actual != expected {
                return Err(ContainerError::ChecksumMismatch { tensor: entry.name.clone(), expected, actual });
            }
        }
        out.extend_from_slice(&bytes);
        offset += entry.stream_bytes;
    }
    Ok(out)
}
